// The bundled examples in bf16 and fp16: fewer cast bytes than naive per-op
// casting (PyTorch autocast), both figures printed, contractions low and
// statistics, softmax, reductions and losses f32.

// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLP
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-assign-precision --amp-insert-casts --amp-report="format=json output=%t.mlp.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.mlp.json | FileCheck %s --check-prefix=MLP-JSON
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-assign-precision="precision=fp16" --amp-insert-casts --amp-report="format=json output=%t.mlp16.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.mlp16.json | FileCheck %s --check-prefix=MLP-JSON
// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANSFORMER
// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir --amp-assign-precision --amp-insert-casts --amp-report="format=json output=%t.tb.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.tb.json | FileCheck %s --check-prefix=TRANSFORMER-JSON
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=CNN
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-assign-precision="precision=fp16" --amp-insert-casts --amp-report="format=json output=%t.cnn.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.cnn.json | FileCheck %s --check-prefix=CNN-JSON

// MLP: amp.layer_norm         f32  deny
// MLP: amp.linear             bf16 allow
// MLP: amp.gelu               bf16 between-allow
// MLP: amp.linear             bf16 allow
// MLP: amp.cross_entropy      f32  deny
// MLP: amp.cross_entropy_grad f32  deny
// MLP: amp.matmul             bf16 allow
// MLP: amp.reduce_sum         f32  deny
// MLP: amp.matmul             bf16 allow
// MLP: amp.gelu_grad          bf16 between-allow
// MLP: amp.matmul             bf16 allow
// MLP: amp.reduce_sum         f32  deny
// MLP: amp.matmul             bf16 allow
// MLP: amp.layer_norm_grad    f32  deny
// MLP: casts: 4, 71040 bytes moved
// MLP-NEXT: naive per-op casting (PyTorch autocast): 11 casts, 102204 bytes moved
// MLP-JSON: @mlp_train_step casts 71040 naive 102204 fewer
// MLP-JSON: REPORT OK

// TRANSFORMER: amp.layer_norm f32  deny
// TRANSFORMER: amp.linear     bf16 allow
// TRANSFORMER: amp.matmul     bf16 allow
// TRANSFORMER: amp.softmax    f32  deny
// TRANSFORMER: amp.matmul     bf16 allow
// TRANSFORMER: amp.layer_norm f32  deny
// TRANSFORMER: amp.gelu       bf16 between-allow
// TRANSFORMER: amp.mse_loss   f32  deny
// TRANSFORMER: casts: 9, 331776 bytes moved
// TRANSFORMER-NEXT: naive per-op casting (PyTorch autocast): {{[0-9]+}} casts, 384384 bytes moved
// TRANSFORMER-JSON: @transformer_block casts 331776 naive 384384 fewer
// TRANSFORMER-JSON: REPORT OK

// CNN: amp.conv2d          bf16 allow
// CNN: amp.batch_norm      bf16 between-allow
// CNN: amp.conv2d          bf16 allow
// CNN: amp.group_norm      f32  deny
// CNN: amp.global_avg_pool f32  deny
// CNN: amp.linear          bf16 allow
// CNN: amp.cross_entropy   f32  deny
// CNN: casts: 5, 181152 bytes moved
// CNN-JSON: @cnn casts {{[0-9]+}} naive {{[0-9]+}} fewer
// CNN-JSON: REPORT OK
