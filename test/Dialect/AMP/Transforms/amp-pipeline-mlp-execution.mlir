// Executes the bundled MLP training step on the CPU in fp32, and in bf16 and
// fp16 after amp-assign-precision and amp-insert-casts (the O1 pipeline),
// and compares each with PyTorch's step in float64: one step against a
// rounding-error bound, and the loss over 50 steps against PyTorch's fp32
// curve. Inputs/mlp_mixed_precision.py explains the tolerances.

// RUN: %python %S/Inputs/mlp_mixed_precision.py %amp_src_root/examples/mlp_train_step.mlir \
// RUN:   --opt amp-opt --runner mlir-runner \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils --steps 50 | FileCheck %s

// CHECK: PASS fp32 one step
// CHECK: PASS fp32 50 steps
// CHECK: PASS bf16 one step: {{.*}} differs-from-fp32
// CHECK: PASS bf16 50 steps
// CHECK: PASS fp16 one step: {{.*}} differs-from-fp32
// CHECK: PASS fp16 50 steps
// CHECK: ALL PASS
