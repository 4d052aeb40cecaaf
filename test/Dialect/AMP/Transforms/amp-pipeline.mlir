// --amp-pipeline is registered by mlir::amp::registerAMPPrecisionPipelines()
// (amp/Dialect/AMP/Transforms/PrecisionPipeline.h), which amp-opt calls.

// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O0" | FileCheck %s --check-prefix=OPT-O0
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O1" | FileCheck %s --check-prefix=OPT-O1
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O2" | FileCheck %s --check-prefix=OPT-O2
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O3" | FileCheck %s --check-prefix=OPT-O3
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O2 precision=fp16" | FileCheck %s --check-prefix=OPT-O2-FP16
// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir --amp-pipeline="opt-level=O2" | FileCheck %s --check-prefix=OPT-O2-TRANSFORMER
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O1 report=text" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O1 policy=%S/Inputs/policy.yaml" | FileCheck %s --check-prefix=POLICY
// RUN: not amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O4" 2>&1 | FileCheck %s --check-prefix=BAD-LEVEL
// RUN: not amp-opt %amp_src_root/examples/cnn.mlir --amp-pipeline="opt-level=O1 report=html" 2>&1 | FileCheck %s --check-prefix=BAD-REPORT

// Apex's optimization levels (apex/amp/frontend.py).

// Level O0: fp32, nothing changes.
// OPT-O0-NOT: amp.precision
// OPT-O0-NOT: amp.cast

// Level O1: autocast's lists (ALLOW low, DENY f32, INFER/CLEAR painted, then the
// min-cut); f32 weights cast once per step.
// OPT-O1: amp.conv2d {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"
// OPT-O1: amp.batch_norm {{.*}}{amp.precision = bf16, amp.precision_rule = "between-allow"
// OPT-O1: amp.group_norm {{.*}}{amp.precision = f32, amp.precision_rule = "deny"
// OPT-O1: amp.global_avg_pool {{.*}}{amp.precision = f32, amp.precision_rule = "deny"
// OPT-O1: amp.cross_entropy {{.*}}{amp.precision = f32, amp.precision_rule = "deny"

// Level O2: a low-precision model with f32 master weights (the f32 parameters are
// cast once and updated in f32) and f32 batch norm; the loss is computed
// from f32-widened outputs (Apex casts the model's outputs to f32).
// OPT-O2: amp.conv2d {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"
// OPT-O2: amp.batch_norm {{.*}}{amp.precision = f32, amp.precision_rule = "deny (option deny-add)"}
// OPT-O2: amp.relu {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"}
// OPT-O2: amp.group_norm {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"
// OPT-O2-SAME: -> (tensor<8x32x16x16xbf16>, tensor<8x8xf32>, tensor<8x8xf32>)
// OPT-O2: amp.global_avg_pool {{.*}}{amp.precision = bf16
// OPT-O2: amp.cross_entropy {{.*}}{amp.precision = f32, amp.precision_rule = "deny (option deny-add)"}
// OPT-O2-FP16: amp.batch_norm {{.*}}{amp.precision = f32
// OPT-O2-FP16: amp.group_norm {{.*}}{amp.precision = f16
// OPT-O2-TRANSFORMER: amp.layer_norm {{.*}}{amp.precision = bf16
// OPT-O2-TRANSFORMER: amp.softmax {{.*}}{amp.precision = bf16
// OPT-O2-TRANSFORMER: amp.mse_loss {{.*}}{amp.precision = f32, amp.precision_rule = "deny (option deny-add)"}

// Level O3: everything low, batch norm included; statistics and the loss value
// stay f32 by type.
// OPT-O3: amp.batch_norm {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"}
// OPT-O3-SAME: -> (tensor<8x16x32x32xbf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// OPT-O3: amp.cross_entropy {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"} : tensor<8x10xbf16>, tensor<8xi64>

// REPORT: amp-report: low precision bf16
// REPORT: casts: 4, 71040 bytes moved

// POLICY: amp.linear {{.*}}{amp.precision = f16, amp.precision_rule = "allow"}
// POLICY: amp.gelu {{.*}}{amp.precision = f32, amp.precision_rule = "deny (policy

// BAD-LEVEL: for the --opt-level option: Cannot find option named 'O4'!
// BAD-REPORT: for the --report option: Cannot find option named 'html'!
