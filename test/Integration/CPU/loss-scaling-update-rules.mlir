// Dynamic loss scaling executed step by step on the CPU backend against
// reference implementations of GradScaler's and Megatron's update rules
// (Inputs/loss_scaling_harness.py): growth after the interval, back-off on
// overflow, hysteresis, the min and max clamps, no growth to infinity, the
// error at the minimum, a scaler resumed from a checkpointed state. An
// overflow is injected by an inf or NaN input at chosen steps; every step
// compares the scale (bit for bit), both trackers, the skipped flag and the
// sticky error flag, checks that a skipped step leaves the parameters and
// the optimizer state bit-identical, and that the scaled fp32 step equals
// the unscaled one bit for bit (power-of-two scales are exact).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/loss_scaling_update_rules.py %s --opt amp-opt \
// RUN:   --compile amp-compile --work %t | FileCheck %s

// CHECK: PASS gradscaler: 40 steps, 7 skipped, scale 65536 -> {{.*}}, agrees with GradScaler
// CHECK: PASS megatron-hysteresis: 40 steps, {{[0-9]+}} skipped, {{.*}}, agrees with Megatron
// CHECK: PASS clamps: {{.*}} max 262144 reached, min 16384 reached
// CHECK: PASS no-infinity: {{.*}} agrees with GradScaler
// CHECK: PASS error-at-min: stuck from step 5
// CHECK: PASS error-at-min-hysteresis: stuck from step 8
// CHECK: PASS resumed: {{.*}}
// CHECK: PASS scaled step equals unscaled step bit for bit
// CHECK: ALL PASS

// A linear regression (MSE loss appended by --amp-autodiff).
func.func @linreg(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<16x4xf32> {amp.role = #amp.role<output>, amp.name = "y"})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.linear %x, %w, %b
      : (tensor<16x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}
