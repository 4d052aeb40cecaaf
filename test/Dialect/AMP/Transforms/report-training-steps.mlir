// The transformer block and the CNN made into training steps by
// amp-autodiff, then mixed precision: matmuls, linears, convolutions and
// their gradients run low; norms and their statistics and gradients,
// softmax and its gradient, the bias-gradient sums and the losses stay f32;
// fewer cast bytes than naive per-op casting, in bf16 and fp16.

// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir --amp-autodiff --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANSFORMER
// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir --amp-autodiff --amp-assign-precision --amp-insert-casts --amp-report="format=json output=%t.tb.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.tb.json | FileCheck %s --check-prefix=TRANSFORMER-JSON
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-autodiff --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=CNN
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-autodiff --amp-assign-precision="precision=fp16" --amp-insert-casts --amp-report="format=json output=%t.cnn.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.cnn.json | FileCheck %s --check-prefix=CNN-JSON

// TRANSFORMER-LABEL: function @transformer_block_train_step
// TRANSFORMER-NOT: amp.linear {{ *}}f32
// TRANSFORMER-NOT: amp.matmul {{ *}}f32
// TRANSFORMER-NOT: amp.layer_norm{{(_grad)?}} {{ *}}bf16
// TRANSFORMER-NOT: amp.softmax{{(_grad)?}} {{ *}}bf16
// TRANSFORMER-NOT: amp.reduce_sum {{ *}}bf16
// TRANSFORMER-NOT: amp.mse_loss{{(_grad)?}} {{ *}}bf16
// TRANSFORMER: casts:
// TRANSFORMER-JSON: @transformer_block_train_step casts {{[0-9]+}} naive {{[0-9]+}} fewer
// TRANSFORMER-JSON: REPORT OK

// CNN-LABEL: function @cnn_train_step
// CNN-NOT: amp.conv2d{{(_input_grad|_weight_grad)?}} {{ *}}f32
// CNN-NOT: amp.linear {{ *}}f32
// CNN-NOT: amp.matmul {{ *}}f32
// CNN-NOT: amp.group_norm{{(_grad)?}} {{ *}}bf16
// CNN-NOT: amp.global_avg_pool {{ *}}bf16
// CNN-NOT: amp.cross_entropy{{(_grad)?}} {{ *}}bf16
// CNN: casts:
// CNN-JSON: @cnn_train_step casts {{[0-9]+}} naive {{[0-9]+}} fewer
// CNN-JSON: REPORT OK
