// RUN: amp-opt %s -split-input-file -amp-instrument-nonfinite -verify-diagnostics | FileCheck %s

// A mixed-precision step: every op with a float operand and a float result
// is a site, in program order; the f16 exp gets an f32 copy on widened
// operands, the f32 ops reuse their own flag; the records become a new
// buffer state returned updated.

// CHECK-LABEL: func.func @step
// CHECK-SAME: amp.name = "amp.nonfinite.stats"
// CHECK-SAME: -> (tensor<4xf32> {amp.name = "w", amp.role = #amp.role<parameter>}, tensor<3x5xf32> {amp.name = "amp.nonfinite.stats", amp.role = #amp.role<buffer>}, tensor<f32>
// CHECK-SAME: amp_nonfinite_sites = [
// CHECK-SAME: {kind = "amp.cast", location = "{{.*}}instrument-nonfinite.mlir:{{[0-9]+}}:{{[0-9]+}}", name = "", precision = "f32 -> f16"}
// CHECK-SAME: {kind = "amp.exp", location = "model.onnx:0:0", name = "net/Exp", precision = "f16 -> f16"}
// CHECK-SAME: {kind = "amp.mse_loss", location = {{.*}}, name = "", precision = "(f16, f16) -> f32"}]
// The cast's row: its result's flag (x - x summed in f32), its operand's.
// CHECK: %[[H:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[HW:.*]] = amp.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[Z:.*]] = amp.sub %[[HW]], %[[HW]] : tensor<4xf32>
// CHECK: amp.reduce_sum %[[Z]] {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
// The exp's f32 copy on its widened operand.
// CHECK: %[[E:.*]] = amp.exp %[[H]] : tensor<4xf16>
// CHECK: %[[EW:.*]] = amp.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: amp.exp %[[EW]] : tensor<4xf32>
// CHECK: amp.concat {{.*}} -> tensor<5xf32>
// CHECK: %[[ALL:.*]] = amp.concat {{.*}} -> tensor<15xf32>
// CHECK: %[[ROWS:.*]] = amp.reshape %[[ALL]] : tensor<15xf32> -> tensor<3x5xf32>
// CHECK: return %{{.*}}, %[[ROWS]], %{{.*}} :
func.func @step(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %y: tensor<4xf16> {amp.role = #amp.role<label>, amp.name = "y"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %h = amp.cast %w : tensor<4xf32> to tensor<4xf16>
  %e = amp.exp %h : tensor<4xf16> loc("net/Exp"("model.onnx":0:0))
  %loss = amp.mse_loss %e, %y : tensor<4xf16>
  return %w, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @+1 {{amp-instrument-nonfinite: the module has no training step}}
module {
  func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = amp.exp %x : tensor<4xf32>
    return %e : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{amp-instrument-nonfinite: the training step is instrumented already}}
func.func @twice(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>, amp_nonfinite_sites = []} {
  %loss = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %w, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// Nothing to check: a step of integer ops and constants only.
// expected-error @+1 {{amp-instrument-nonfinite: the training step has no op with float operands and results to check}}
func.func @nothing(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.constant dense<0.0> : tensor<f32>
  return %w, %loss : tensor<4xf32>, tensor<f32>
}
