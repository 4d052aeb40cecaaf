// RUN: amp-opt %s -split-input-file -amp-instrument-nonfinite -verify-diagnostics | FileCheck %s

// A mixed-precision step: every op with a float operand and a float result
// is a site, in program order. Every value a site takes or produces is
// recorded once, right after its definition (arguments at the start): its
// maximum and the maximum of its negation, in f32, computed by a private
// function per value type that LLVM keeps out of line (in the step, the
// records of a large model made its build minutes long). The f16 ops get
// an f32 copy on widened operands (recorded too); the records become a new
// buffer state returned updated.

// CHECK-LABEL: func.func private @amp_nonfinite_record_0(%{{.*}}: tensor<4xf16>) -> tensor<2xf32> attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[W:.*]] = amp.cast %{{.*}} : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[MAX:.*]] = amp.reduce_max %[[W]] {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT: %[[MAX1:.*]] = amp.reshape %[[MAX]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[NEG:.*]] = amp.neg %[[W]] : tensor<4xf32>
// CHECK-NEXT: %[[NMAX:.*]] = amp.reduce_max %[[NEG]] {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT: %[[NMAX1:.*]] = amp.reshape %[[NMAX]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[ROW:.*]] = amp.concat %[[MAX1]], %[[NMAX1]] {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %[[ROW]] : tensor<2xf32>
// An f32 value needs no cast.
// CHECK-LABEL: func.func private @amp_nonfinite_record_1(%{{.*}}: tensor<4xf32>) -> tensor<2xf32>
// CHECK-NEXT: amp.reduce_max
// A scalar needs no reduction.
// CHECK-LABEL: func.func private @amp_nonfinite_record_2(%{{.*}}: tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: amp.reshape
// CHECK-NEXT: amp.neg
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @step
// CHECK-SAME: %{{.*}}: tensor<8x2xf32> {amp.name = "amp.nonfinite.stats", amp.role = #amp.role<buffer>}
// CHECK-SAME: -> (tensor<4xf32> {amp.name = "w", amp.role = #amp.role<parameter>}, tensor<8x2xf32> {amp.name = "amp.nonfinite.stats", amp.role = #amp.role<buffer>}, tensor<f32>
// CHECK-SAME: amp_nonfinite_sites = [
// CHECK-SAME: {f32 = array<i64: 2>, kind = "amp.cast", location = "{{.*}}instrument-nonfinite.mlir:{{[0-9]+}}:{{[0-9]+}}", name = "", operands = array<i64: 1>, precision = "f32 -> f16", results = array<i64: 0>}
// The exp's operand is the cast's result: recorded once (row 0).
// CHECK-SAME: {f32 = array<i64: 4>, kind = "amp.exp", location = "model.onnx:0:0", name = "net/Exp", operands = array<i64: 0>, precision = "f16 -> f16", results = array<i64: 3>}
// CHECK-SAME: {f32 = array<i64: 7>, kind = "amp.mse_loss", location = {{.*}}, name = "", operands = array<i64: 3, 6>, precision = "(f16, f16) -> f32", results = array<i64: 5>}]
// The label, an argument, recorded at the start.
// CHECK-NEXT: %[[Y:.*]] = call @amp_nonfinite_record_0(%arg2) : (tensor<4xf16>) -> tensor<2xf32>
// The exp, its f32 copy on its widened operand, and both records.
// CHECK: %[[H:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[E:.*]] = amp.exp %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[HW:.*]] = amp.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[EW:.*]] = amp.exp %[[HW]] : tensor<4xf32>
// CHECK-NEXT: call @amp_nonfinite_record_1(%[[EW]]) : (tensor<4xf32>) -> tensor<2xf32>
// CHECK-NEXT: call @amp_nonfinite_record_0(%[[E]]) : (tensor<4xf16>) -> tensor<2xf32>
// CHECK: %[[ALL:.*]] = amp.concat {{.*}} -> tensor<16xf32>
// CHECK-NEXT: %[[RECORDS:.*]] = amp.reshape %[[ALL]] : tensor<16xf32> -> tensor<8x2xf32>
// CHECK-NEXT: return %{{.*}}, %[[RECORDS]], %{{.*}} :
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

// More than 16 records are concatenated in groups of 16, then the groups:
// one concat of hundreds of operands made bufferization take minutes.
// Seventeen values (the argument and sixteen results) make 17 rows.

// CHECK-LABEL: func.func @chain
// CHECK: %[[G1:.*]] = amp.concat {{.*}} -> tensor<32xf32>
// CHECK-NEXT: %[[ALL:.*]] = amp.concat %[[G1]], %{{.*}} {axis = 0 : i64} : (tensor<32xf32>, tensor<2xf32>) -> tensor<34xf32>
// CHECK-NEXT: amp.reshape %[[ALL]] : tensor<34xf32> -> tensor<17x2xf32>
func.func @chain(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %a = amp.exp %w : tensor<4xf32>
  %b = amp.exp %a : tensor<4xf32>
  %c = amp.exp %b : tensor<4xf32>
  %d = amp.exp %c : tensor<4xf32>
  %e = amp.exp %d : tensor<4xf32>
  %f = amp.exp %e : tensor<4xf32>
  %g = amp.exp %f : tensor<4xf32>
  %h = amp.exp %g : tensor<4xf32>
  %i = amp.exp %h : tensor<4xf32>
  %j = amp.exp %i : tensor<4xf32>
  %k = amp.exp %j : tensor<4xf32>
  %l = amp.exp %k : tensor<4xf32>
  %m = amp.exp %l : tensor<4xf32>
  %n = amp.exp %m : tensor<4xf32>
  %o = amp.exp %n : tensor<4xf32>
  %loss = amp.reduce_sum %o {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
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
