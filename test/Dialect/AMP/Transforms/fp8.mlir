// RUN: amp-opt %s -split-input-file --amp-fp8="history=4 margin=1 select=all" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-fp8="history=1 select=all" | FileCheck %s --check-prefix=ONE

// A bf16 linear layer's step (materialized as amp-insert-casts leaves it):
// the forward product takes e4m3 operands, the gradients e5m2; the weight
// is quantized once for the forward and the input gradient; the step gains
// the scales and the amax history (x, w: e4m3; the gradient: e5m2) as scaler state.

// CHECK-LABEL: func.func @step
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<3xf32> {amp.name = "fp8.scale", amp.role = #amp.role<scaler_state>}
// CHECK-SAME: %[[HIST:[a-z0-9]+]]: tensor<4x3xf32> {amp.name = "fp8.amax_history", amp.role = #amp.role<scaler_state>}
// CHECK-SAME: -> (tensor<32x16xf32> {amp.name = "w", amp.role = #amp.role<parameter>}, tensor<3xf32> {amp.name = "fp8.scale", amp.role = #amp.role<scaler_state>}, tensor<4x3xf32> {amp.name = "fp8.amax_history", amp.role = #amp.role<scaler_state>}, tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// A fresh (zero) scale reads as 1.
// CHECK: %[[POS:.*]] = amp.compare gt, %[[SCALE]], %{{.*}} : tensor<3xf32> -> tensor<3xi1>
// CHECK: %[[SCALES:.*]] = amp.where %[[POS]], %[[SCALE]], %{{.*}} : tensor<3xi1>, tensor<3xf32>
// The inverses, 16 bytes apart (cuBLASLt reads each scale through a pointer
// on a 16-byte boundary): each scale spread over four floats.
// CHECK: %[[COL:.*]] = amp.reshape %[[SCALES]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK: %[[SPREAD:.*]] = amp.broadcast %[[COL]] : tensor<3x1xf32> -> tensor<3x4xf32>
// CHECK: %[[INV2:.*]] = amp.div %{{.*}}, %[[SPREAD]] : tensor<3x4xf32>
// CHECK: %[[INVS:.*]] = amp.reshape %[[INV2]] : tensor<3x4xf32> -> tensor<12xf32>
// The input, [2, 16, 16] seen as [32, 16], and the weight: e4m3.
// CHECK: %[[X2:.*]] = amp.reshape %{{.*}} : tensor<2x16x16xbf16> -> tensor<32x16xbf16>
// CHECK: %[[S0:.*]] = amp.slice %[[SCALES]] {limits = array<i64: 1>, starts = array<i64: 0>
// CHECK: %[[QX:.*]], %[[AX:.*]] = amp.fp8_quantize %[[X2]], %{{.*}} : tensor<32x16xbf16> -> tensor<32x16xf8E4M3FN>
// The scale inverse is a view of the step's inverses: nothing is computed
// per tensor (an infinite input is quantized to NaN, which makes the
// products NaN without it).
// CHECK: %[[INV0:.*]] = amp.slice %[[INVS]] {limits = array<i64: 1>, starts = array<i64: 0>
// CHECK: %[[IX:.*]] = amp.reshape %[[INV0]] : tensor<1xf32> -> tensor<f32>
// CHECK-NOT: amp.sub %[[AX]]
// CHECK: %[[QW:.*]], %[[AW:.*]] = amp.fp8_quantize %{{.*}}, %{{.*}} : tensor<32x16xbf16> -> tensor<32x16xf8E4M3FN>
// CHECK: %[[INV1:.*]] = amp.slice %[[INVS]] {limits = array<i64: 5>, starts = array<i64: 4>
// CHECK: %[[IW:.*]] = amp.reshape %[[INV1]] : tensor<1xf32> -> tensor<f32>
// The bias is added in the result's type.
// CHECK: %[[B:.*]] = amp.cast %{{.*}} : tensor<32xf32> to tensor<32xbf16>
// CHECK: %[[Y:.*]] = amp.fp8_matmul %[[QX]], %[[QW]], %[[IX]], %[[IW]], %[[B]] {fast_accumulation, transpose_rhs} : tensor<32x16xf8E4M3FN>, tensor<32x16xf8E4M3FN>, tensor<32xbf16> -> tensor<32x32xbf16>
// CHECK: amp.reshape %[[Y]] : tensor<32x32xbf16> -> tensor<2x16x32xbf16>
// CHECK: amp.seed
// The gradient is e5m2; the weight gradient reuses the quantized input and
// the input gradient the quantized weight; neither accumulates fast.
// CHECK: %[[QG:.*]], %[[AG:.*]] = amp.fp8_quantize %{{.*}}, %{{.*}} : tensor<32x32xbf16> -> tensor<32x32xf8E5M2>
// CHECK: amp.fp8_matmul %[[QG]], %[[QX]], %{{.*}}, %{{.*}} {transpose_lhs} : tensor<32x32xf8E5M2>, tensor<32x16xf8E4M3FN> -> tensor<32x16xbf16>
// CHECK: amp.fp8_matmul %[[QG]], %[[QW]], %{{.*}}, %{{.*}} : tensor<32x32xf8E5M2>, tensor<32x16xf8E4M3FN> -> tensor<32x16xbf16>
// The product of two gradients stays bf16.
// CHECK: amp.matmul %{{.*}}, %{{.*}} {{{.*}}transpose_rhs} : tensor<32x32xbf16>, tensor<32x32xbf16>
// The update: this step's finite amaxes become the newest history row; the
// next scale is (max / 2^margin) / (the history's largest amax), where that
// is finite.
// The amaxes joined as a vector (the GPU copies them in one launch), then
// seen as the history's newest row.
// CHECK: %[[VEC:.*]] = amp.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3xf32>
// CHECK: %[[ROW:.*]] = amp.reshape %[[VEC]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK: %[[D:.*]] = amp.sub %[[ROW]], %[[ROW]] : tensor<1x3xf32>
// CHECK: %[[FIN:.*]] = amp.compare eq, %[[D]], %{{.*}} : tensor<1x3xf32> -> tensor<1x3xi1>
// CHECK: %[[REC:.*]] = amp.where %[[FIN]], %[[ROW]], %{{.*}}
// CHECK: %[[KEPT:.*]] = amp.slice %[[HIST]] {limits = array<i64: 3, 3>, starts = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<4x3xf32> -> tensor<3x3xf32>
// CHECK: %[[NEWH:.*]] = amp.concat %[[REC]], %[[KEPT]] {axis = 0 : i64} : (tensor<1x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[AMAX:.*]] = amp.reduce_max %[[NEWH]] {axes = array<i64: 0>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK: %[[MAX:.*]] = amp.constant dense<[2.240000e+02, 2.240000e+02, 2.867200e+04]> : tensor<3xf32>
// CHECK: %[[NEXT:.*]] = amp.div %[[MAX]], %[[AMAX]] : tensor<3xf32>
// CHECK: %[[OK:.*]] = amp.compare le, %[[NEXT]], %{{.*}} : tensor<3xf32> -> tensor<3xi1>
// CHECK: %[[NEWS:.*]] = amp.where %[[OK]], %[[NEXT]], %[[SCALES]]
// CHECK: return %{{.*}}, %[[NEWS]], %[[NEWH]], %{{.*}} :

// With one row of history the row is the history.
// ONE-LABEL: func.func @step
// ONE-SAME: tensor<1x3xf32> {amp.name = "fp8.amax_history"
// ONE-NOT: amp.slice %{{.*}} {limits = array<i64: 0
// ONE: %[[REC:.*]] = amp.where %{{.*}} : tensor<1x3xi1>, tensor<1x3xf32>
// ONE: amp.reduce_max %[[REC]] {axes = array<i64: 0>} : tensor<1x3xf32> -> tensor<3xf32>
func.func @step(%w: tensor<32x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                %b: tensor<32xf32> {amp.role = #amp.role<input>, amp.name = "b"},
                %x: tensor<2x16x16xbf16> {amp.role = #amp.role<input>, amp.name = "x"},
                %h: tensor<32x32xbf16> {amp.role = #amp.role<input>, amp.name = "h"})
    -> (tensor<32x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %wb = amp.cast %w : tensor<32x16xf32> to tensor<32x16xbf16>
  %y = amp.linear %x, %wb, %b {amp.precision = bf16, amp.precision_rule = "allow"}
      : (tensor<2x16x16xbf16>, tensor<32x16xbf16>, tensor<32xf32>) -> tensor<2x16x32xbf16>
  %yf = amp.cast %y : tensor<2x16x32xbf16> to tensor<2x16x32xf32>
  %loss = amp.reduce_mean %yf {axes = array<i64: 0, 1, 2>, amp.precision = f32, amp.precision_rule = "deny"} : tensor<2x16x32xf32> -> tensor<f32>
  %seed = amp.seed %loss
  %g = amp.broadcast %seed : tensor<f32> -> tensor<32x32xf32>
  %gb = amp.cast %g : tensor<32x32xf32> to tensor<32x32xbf16>
  %x2 = amp.reshape %x : tensor<2x16x16xbf16> -> tensor<32x16xbf16>
  %dw = amp.matmul %gb, %x2 {transpose_lhs, amp.precision = bf16, amp.precision_rule = "allow"}
      : tensor<32x32xbf16>, tensor<32x16xbf16> -> tensor<32x16xbf16>
  %dx = amp.matmul %gb, %wb {amp.precision = bf16, amp.precision_rule = "allow"}
      : tensor<32x32xbf16>, tensor<32x16xbf16> -> tensor<32x16xbf16>
  %gg = amp.matmul %gb, %gb {transpose_rhs, amp.precision = bf16, amp.precision_rule = "allow"}
      : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xbf16>
  %dwf = amp.cast %dw : tensor<32x16xbf16> to tensor<32x16xf32>
  %w2 = amp.sub %w, %dwf : tensor<32x16xf32>
  return %w2, %loss : tensor<32x16xf32>, tensor<f32>
}

// -----

// Sizes FP8 GEMMs do not take (k = 8), f32 and f16 contractions, and a
// batched matmul stay as they are, and the step gains no state.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: fp8
// CHECK: return
// ONE-LABEL: func.func @unchanged
func.func @unchanged(%w: tensor<32x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                     %x: tensor<32x8xbf16> {amp.role = #amp.role<input>, amp.name = "x"},
                     %a: tensor<32x32xf32> {amp.role = #amp.role<input>, amp.name = "a"},
                     %c: tensor<2x32x32xbf16> {amp.role = #amp.role<input>, amp.name = "c"},
                     %d: tensor<32x32xf16> {amp.role = #amp.role<input>, amp.name = "d"})
    -> (tensor<32x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %wb = amp.cast %w : tensor<32x8xf32> to tensor<32x8xbf16>
  %y = amp.linear %x, %wb {amp.precision = bf16, amp.precision_rule = "allow"}
      : (tensor<32x8xbf16>, tensor<32x8xbf16>) -> tensor<32x32xbf16>
  %f = amp.matmul %a, %a : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %h = amp.matmul %d, %d : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf16>
  %bm = amp.matmul %c, %c {amp.precision = bf16, amp.precision_rule = "allow"}
      : tensor<2x32x32xbf16>, tensor<2x32x32xbf16> -> tensor<2x32x32xbf16>
  %loss = amp.reduce_mean %f {axes = array<i64: 0, 1>} : tensor<32x32xf32> -> tensor<f32>
  return %w, %loss : tensor<32x8xf32>, tensor<f32>
}
