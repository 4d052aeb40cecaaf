// fp16 training of the bundled MLP with dynamic loss scaling follows fp32
// within tolerance over 50 steps, at O1 (f32 weights cast once per step) and
// at O2 with f32 master weights whose fp16 copies come from the optimizer
// update; O2 with the copies is bit-identical to O2 casting its master
// weights (Inputs/loss_scaling_mlp.py explains the tolerance).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/loss_scaling_mlp.py %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --opt amp-opt --compile amp-compile --work %t | FileCheck %s

// CHECK: PASS fp16 O1 follows fp32 over 50 steps: {{.*}} scale 65536, 0 skipped
// CHECK: PASS fp16 O2 master weights follows fp32 over 50 steps: {{.*}} 2 fp16 copies
// CHECK: PASS fp16 O2 with master-weight copies is bit-identical to O2 casting the master weights
// CHECK: ALL PASS
