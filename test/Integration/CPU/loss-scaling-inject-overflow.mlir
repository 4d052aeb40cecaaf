// Injecting an inf or NaN gradient at step k into fp16 training of the
// bundled MLP with dynamic loss scaling (Inputs/loss_scaling_inject.py):
// step k is skipped, the parameters and the optimizer state (AdamW's
// moments and step counter, SGD's momentum buffers and its dampening step
// counter) are bit-identical to before it, the scale backs off and its
// growth tracker restarts, and training goes on with a falling loss. The
// SGD run also overflows on its very first step, where SGD with dampening
// starts its momentum buffers from the gradient.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/loss_scaling_inject.py %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --opt amp-opt --compile amp-compile --work %t | FileCheck %s

// CHECK: PASS adamw: step 10 (inf) skipped, state bit-identical, scale 65536 -> 32768
// CHECK: PASS adamw: step 20 (nan) skipped, state bit-identical, scale 32768 -> 16384
// CHECK: PASS adamw: 28 of 30 steps taken (step counter 28), loss {{.*}} falls after the overflows
// CHECK: PASS sgd-dampening: step 0 (nan) skipped, state bit-identical, scale fresh -> 32768
// CHECK: PASS sgd-dampening: step 10 (inf) skipped, state bit-identical, scale 32768 -> 16384
// CHECK: PASS sgd-dampening: step 20 (nan) skipped, state bit-identical, scale 16384 -> 8192
// CHECK: PASS sgd-dampening: 27 of 30 steps taken (step counter 27), loss {{.*}} falls after the overflows
// CHECK: ALL PASS
