// RUN: amp-opt %s --amp-master-weights | FileCheck %s
// RUN: amp-opt %s --amp-master-weights --convert-amp-to-linalg | FileCheck %s --check-prefix=LOWERED

// f32 master weights (Apex O2): the step takes the fp16 copy of each
// weight it casts as a buffer, `<name>.f16`, instead of casting the master
// every step, and returns the copy for the next step as the cast of the
// updated master, which the lowering computes in the update's own
// linalg.generic (one pass reads the master once and writes the master,
// its momentum buffer and its copy). On a skipped step the update returns
// the master unchanged, so the copy is unchanged too.

func.func @step(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
    %m: tensor<4x8xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "w.momentum_buffer"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %found: tensor<i1> {amp.role = #amp.role<input>, amp.name = "found"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
        tensor<4x8xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "w.momentum_buffer"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
  %x16 = amp.cast %x : tensor<16x8xf32> to tensor<16x8xf16>
  %logits = amp.linear %x16, %w16, %b
      : (tensor<16x8xf16>, tensor<4x8xf16>, tensor<4xf32>) -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %dl16 = amp.cast %dlogits : tensor<16x4xf32> to tensor<16x4xf16>
  %dw = amp.matmul %dl16, %x16 {transpose_lhs}
      : tensor<16x4xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
  %dx = amp.matmul %dl16, %w16 : tensor<16x4xf16>, tensor<4x8xf16> -> tensor<16x8xf16>
  %db = amp.reduce_sum %dlogits {axes = array<i64: 0>} : tensor<16x4xf32> -> tensor<4xf32>
  %w1, %m1 = amp.sgd_update %w, %dw, momentum_buffer %m, lr %lr, found_inf %found
      {momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf16>
  %b1 = amp.sgd_update %b, %db, lr %lr, found_inf %found : tensor<4xf32>, tensor<4xf32>
  return %w1, %b1, %m1, %loss : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<f32>
}

// The bias is used in f32 only: it has no copy.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x8xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<4xf32> {amp.name = "b", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[W16:[a-z0-9]+]]: tensor<4x8xf16> {amp.copy_of = "w", amp.name = "w.f16", amp.role = #amp.role<buffer>},
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<4x8xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: -> (tensor<4x8xf32> {amp.name = "w", amp.role = #amp.role<parameter>}, tensor<4xf32> {amp.name = "b", amp.role = #amp.role<parameter>}, tensor<4x8xf16> {amp.copy_of = "w", amp.name = "w.f16", amp.role = #amp.role<buffer>}, tensor<4x8xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>}, tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-NOT: amp.cast %[[W]]
// Forward and backward read the copy.
// CHECK: amp.linear %{{.*}}, %[[W16]], %[[B]]
// CHECK: amp.matmul %{{.*}}, %[[W16]] :
// CHECK: %[[W1:.*]], %[[M1:.*]] = amp.sgd_update %[[W]],
// CHECK-NEXT: %[[COPY:.*]] = amp.cast %[[W1]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: return %[[W1]], %{{.*}}, %[[COPY]], %[[M1]], %{{.*}} :

// LOWERED-LABEL: func.func @step(
// LOWERED: %[[UPD:.*]]:3 = linalg.generic
// LOWERED-SAME: outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>)
// LOWERED: %[[P:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// LOWERED: %[[MB:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// LOWERED: %[[C:.*]] = arith.truncf %[[P]] : f32 to f16
// LOWERED: linalg.yield %[[P]], %[[MB]], %[[C]] : f32, f32, f16
// The cast has no generic of its own.
// LOWERED-NOT: arith.truncf
// LOWERED: return %[[UPD]]#0, %{{.*}}, %[[UPD]]#2, %[[UPD]]#1,

// A master without amp.name gets the name its copy refers to (amp.copy_of),
// so a driver can find the parameter to initialise the copy from.
// CHECK-LABEL: func.func @unnamed_master(
// CHECK-SAME: tensor<4x8xf32> {amp.name = "arg0", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<4x8xbf16> {amp.copy_of = "arg0", amp.name = "arg0.bf16", amp.role = #amp.role<buffer>}
func.func @unnamed_master(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>},
    %x: tensor<16x8xbf16> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xbf16>
  %logits = amp.matmul %x, %w16 {transpose_rhs}
      : tensor<16x8xbf16>, tensor<4x8xbf16> -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %dl16 = amp.cast %dlogits : tensor<16x4xf32> to tensor<16x4xbf16>
  %dw = amp.matmul %dl16, %x {transpose_lhs}
      : tensor<16x4xbf16>, tensor<16x8xbf16> -> tensor<4x8xbf16>
  %w1 = amp.sgd_update %w, %dw, lr %lr : tensor<4x8xf32>, tensor<4x8xbf16>
  return %w1, %loss : tensor<4x8xf32>, tensor<f32>
}
