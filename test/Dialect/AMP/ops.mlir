// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// Round trip of every amp op through its custom and its generic form. The
// CHECK lines pin the printed custom syntax: operands, attributes (those at
// their default value are elided) and types, including the mixed element
// types the verifiers allow (f16/bf16 operands with f32 results or f32
// affine parameters).

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>, %[[BF:.*]]: tensor<4x8xbf16>)
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %h: tensor<4x8xf16>, %bf: tensor<4x8xbf16>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>) {
  // CHECK: %[[ADD:.*]] = amp.add %[[A]], %[[B]] : tensor<4x8xf32>
  %0 = amp.add %a, %b : tensor<4x8xf32>
  // CHECK: %[[SUB:.*]] = amp.sub %[[B]], %[[A]] : tensor<4x8xf32>
  %1 = amp.sub %b, %a : tensor<4x8xf32>
  // CHECK: %[[MUL:.*]] = amp.mul %[[A]], %[[B]] : tensor<4x8xf32>
  %2 = amp.mul %a, %b : tensor<4x8xf32>
  // CHECK: %[[DIV:.*]] = amp.div %[[A]], %[[B]] : tensor<4x8xf32>
  %3 = amp.div %a, %b : tensor<4x8xf32>
  // CHECK: %[[POW:.*]] = amp.pow %[[A]], %[[B]] : tensor<4x8xf32>
  %4 = amp.pow %a, %b : tensor<4x8xf32>
  // CHECK: %[[MAX:.*]] = amp.maximum %[[H]], %[[H]] : tensor<4x8xf16>
  %5 = amp.maximum %h, %h : tensor<4x8xf16>
  // CHECK: %[[MIN:.*]] = amp.minimum %[[BF]], %[[BF]] : tensor<4x8xbf16>
  %6 = amp.minimum %bf, %bf : tensor<4x8xbf16>
  // CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[POW]], %[[MAX]], %[[MIN]] :
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>, %[[D:.*]]: tensor<?x8xbf16>)
func.func @unary(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %d: tensor<?x8xbf16>) {
  // CHECK: %[[NEG:.*]] = amp.neg %[[X]] : tensor<4x8xf32>
  %0 = amp.neg %x : tensor<4x8xf32>
  // CHECK: amp.exp %[[NEG]] : tensor<4x8xf32>
  %1 = amp.exp %0 : tensor<4x8xf32>
  // CHECK: amp.log %[[X]] : tensor<4x8xf32>
  %2 = amp.log %x : tensor<4x8xf32>
  // CHECK: amp.sqrt %[[H]] : tensor<4x8xf16>
  %3 = amp.sqrt %h : tensor<4x8xf16>
  // CHECK: amp.rsqrt %[[X]] : tensor<4x8xf32>
  %4 = amp.rsqrt %x : tensor<4x8xf32>
  // CHECK: amp.tanh %[[H]] : tensor<4x8xf16>
  %5 = amp.tanh %h : tensor<4x8xf16>
  // CHECK: amp.sigmoid %[[D]] : tensor<?x8xbf16>
  %6 = amp.sigmoid %d : tensor<?x8xbf16>
  // CHECK: amp.relu %[[D]] : tensor<?x8xbf16>
  %7 = amp.relu %d : tensor<?x8xbf16>
  // CHECK: amp.silu %[[H]] : tensor<4x8xf16>
  %8 = amp.silu %h : tensor<4x8xf16>
  // CHECK: amp.erf %[[X]] : tensor<4x8xf32>
  %9 = amp.erf %x : tensor<4x8xf32>
  // CHECK: amp.sin %[[X]] : tensor<4x8xf32>
  %10 = amp.sin %x : tensor<4x8xf32>
  // CHECK: amp.cos %[[D]] : tensor<?x8xbf16>
  %11 = amp.cos %d : tensor<?x8xbf16>
  return
}

// `approximate = none` is the default and is elided.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[Y:.*]]: tensor<2xf32>)
func.func @gelu(%x: tensor<4x8xbf16>, %y: tensor<2xf32>) {
  // CHECK: amp.gelu %[[X]] : tensor<4x8xbf16>
  %0 = amp.gelu %x : tensor<4x8xbf16>
  // CHECK: amp.gelu %[[X]] approximate = tanh : tensor<4x8xbf16>
  %1 = amp.gelu %x approximate = tanh : tensor<4x8xbf16>
  // CHECK: amp.gelu %[[Y]] : tensor<2xf32>
  %2 = amp.gelu %y approximate = none : tensor<2xf32>
  return
}

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xbf16>, %[[I:.*]]: tensor<4xi32>, %[[L:.*]]: tensor<4xi64>)
func.func @compare(%f: tensor<4xf32>, %h: tensor<4xf16>, %b: tensor<4xbf16>, %i: tensor<4xi32>, %l: tensor<4xi64>) {
  // CHECK: amp.compare eq, %[[F]], %[[F]] : tensor<4xf32> -> tensor<4xi1>
  %0 = amp.compare eq, %f, %f : tensor<4xf32> -> tensor<4xi1>
  // CHECK: amp.compare ne, %[[H]], %[[H]] : tensor<4xf16> -> tensor<4xi1>
  %1 = amp.compare ne, %h, %h : tensor<4xf16> -> tensor<4xi1>
  // CHECK: amp.compare lt, %[[B]], %[[B]] : tensor<4xbf16> -> tensor<4xi1>
  %2 = amp.compare lt, %b, %b : tensor<4xbf16> -> tensor<4xi1>
  // CHECK: amp.compare le, %[[I]], %[[I]] : tensor<4xi32> -> tensor<4xi1>
  %3 = amp.compare le, %i, %i : tensor<4xi32> -> tensor<4xi1>
  // CHECK: amp.compare gt, %[[L]], %[[L]] : tensor<4xi64> -> tensor<4xi1>
  %4 = amp.compare gt, %l, %l : tensor<4xi64> -> tensor<4xi1>
  // CHECK: amp.compare ge, %[[F]], %[[F]] : tensor<4xf32> -> tensor<4xi1>
  %5 = amp.compare ge, %f, %f : tensor<4xf32> -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[L:.*]]: tensor<4xi64>, %[[M:.*]]: tensor<4xi1>)
func.func @where(%x: tensor<4xf32>, %y: tensor<4xf32>, %h: tensor<4xf16>, %l: tensor<4xi64>, %m: tensor<4xi1>) {
  // CHECK: %[[GT:.*]] = amp.compare gt, %[[X]], %[[Y]] : tensor<4xf32> -> tensor<4xi1>
  %gt = amp.compare gt, %x, %y : tensor<4xf32> -> tensor<4xi1>
  // CHECK: amp.where %[[GT]], %[[X]], %[[Y]] : tensor<4xi1>, tensor<4xf32>
  %0 = amp.where %gt, %x, %y : tensor<4xi1>, tensor<4xf32>
  // CHECK: amp.where %[[M]], %[[H]], %[[H]] : tensor<4xi1>, tensor<4xf16>
  %1 = amp.where %m, %h, %h : tensor<4xi1>, tensor<4xf16>
  // CHECK: amp.where %[[M]], %[[L]], %[[L]] : tensor<4xi1>, tensor<4xi64>
  %2 = amp.where %m, %l, %l : tensor<4xi1>, tensor<4xi64>
  // CHECK: amp.where %[[M]], %[[GT]], %[[M]] : tensor<4xi1>, tensor<4xi1>
  %3 = amp.where %m, %gt, %m : tensor<4xi1>, tensor<4xi1>
  return
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// Operands share an element type; the result has it or f32. A side without
// batch dimensions is shared across the other side's batch.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x32xf32>, %[[AH:.*]]: tensor<2x8x16xf16>, %[[BH:.*]]: tensor<2x16x32xf16>, %[[WH:.*]]: tensor<16x32xf16>, %[[XH:.*]]: tensor<8x16xf16>, %[[BH3:.*]]: tensor<3x16x32xf16>, %[[ATH:.*]]: tensor<2x16x8xf16>, %[[Q:.*]]: tensor<2x16x64xf16>, %[[K:.*]]: tensor<2x16x64xf16>, %[[LT:.*]]: tensor<16x8xbf16>, %[[RT:.*]]: tensor<32x16xbf16>, %[[A4:.*]]: tensor<2x3x8x16xf32>, %[[D:.*]]: tensor<?x8x16xf16>)
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>,
                  %ah: tensor<2x8x16xf16>, %bh: tensor<2x16x32xf16>,
                  %wh: tensor<16x32xf16>, %xh: tensor<8x16xf16>,
                  %bh3: tensor<3x16x32xf16>, %ath: tensor<2x16x8xf16>,
                  %q: tensor<2x16x64xf16>, %k: tensor<2x16x64xf16>,
                  %lt: tensor<16x8xbf16>, %rt: tensor<32x16xbf16>,
                  %a4: tensor<2x3x8x16xf32>, %d: tensor<?x8x16xf16>) {
  // CHECK: amp.matmul %[[A]], %[[B]] : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %0 = amp.matmul %a, %b : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  // Batched on both sides, f16 operands, f32 result.
  // CHECK: amp.matmul %[[AH]], %[[BH]] : tensor<2x8x16xf16>, tensor<2x16x32xf16> -> tensor<2x8x32xf32>
  %1 = amp.matmul %ah, %bh : tensor<2x8x16xf16>, tensor<2x16x32xf16> -> tensor<2x8x32xf32>
  // Broadcast rhs (shared weight), f16 result.
  // CHECK: amp.matmul %[[AH]], %[[WH]] : tensor<2x8x16xf16>, tensor<16x32xf16> -> tensor<2x8x32xf16>
  %2 = amp.matmul %ah, %wh : tensor<2x8x16xf16>, tensor<16x32xf16> -> tensor<2x8x32xf16>
  // Broadcast lhs.
  // CHECK: amp.matmul %[[XH]], %[[BH3]] : tensor<8x16xf16>, tensor<3x16x32xf16> -> tensor<3x8x32xf32>
  %3 = amp.matmul %xh, %bh3 : tensor<8x16xf16>, tensor<3x16x32xf16> -> tensor<3x8x32xf32>
  // CHECK: amp.matmul %[[ATH]], %[[BH]] {transpose_lhs} : tensor<2x16x8xf16>, tensor<2x16x32xf16> -> tensor<2x8x32xf32>
  %4 = amp.matmul %ath, %bh {transpose_lhs} : tensor<2x16x8xf16>, tensor<2x16x32xf16> -> tensor<2x8x32xf32>
  // Attention scores q * k^T.
  // CHECK: amp.matmul %[[Q]], %[[K]] {transpose_rhs} : tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x16xf16>
  %5 = amp.matmul %q, %k {transpose_rhs} : tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x16xf16>
  // CHECK: amp.matmul %[[LT]], %[[RT]] {transpose_lhs, transpose_rhs} : tensor<16x8xbf16>, tensor<32x16xbf16> -> tensor<8x32xf32>
  %6 = amp.matmul %lt, %rt {transpose_rhs, transpose_lhs} : tensor<16x8xbf16>, tensor<32x16xbf16> -> tensor<8x32xf32>
  // Two batch dimensions against a shared rhs.
  // CHECK: amp.matmul %[[A4]], %[[B]] : tensor<2x3x8x16xf32>, tensor<16x32xf32> -> tensor<2x3x8x32xf32>
  %7 = amp.matmul %a4, %b : tensor<2x3x8x16xf32>, tensor<16x32xf32> -> tensor<2x3x8x32xf32>
  // CHECK: amp.matmul %[[D]], %[[WH]] : tensor<?x8x16xf16>, tensor<16x32xf16> -> tensor<?x8x32xf32>
  %8 = amp.matmul %d, %wh : tensor<?x8x16xf16>, tensor<16x32xf16> -> tensor<?x8x32xf32>
  return
}

// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[B:.*]]: tensor<32xf32>, %[[XH:.*]]: tensor<2x8x16xf16>, %[[WH:.*]]: tensor<32x16xf16>, %[[BH:.*]]: tensor<32xf16>, %[[XD:.*]]: tensor<?x16xbf16>, %[[WB:.*]]: tensor<32x16xbf16>)
func.func @linear(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>,
                  %xh: tensor<2x8x16xf16>, %wh: tensor<32x16xf16>, %bh: tensor<32xf16>,
                  %xd: tensor<?x16xbf16>, %wb: tensor<32x16xbf16>) {
  // CHECK: amp.linear %[[X]], %[[W]], %[[B]] : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %0 = amp.linear %x, %w, %b : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  // CHECK: amp.linear %[[X]], %[[W]] : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %1 = amp.linear %x, %w : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  // f16 input and weight, f32 bias, f32 result.
  // CHECK: amp.linear %[[XH]], %[[WH]], %[[B]] : (tensor<2x8x16xf16>, tensor<32x16xf16>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %2 = amp.linear %xh, %wh, %b : (tensor<2x8x16xf16>, tensor<32x16xf16>, tensor<32xf32>) -> tensor<2x8x32xf32>
  // CHECK: amp.linear %[[XH]], %[[WH]], %[[BH]] : (tensor<2x8x16xf16>, tensor<32x16xf16>, tensor<32xf16>) -> tensor<2x8x32xf16>
  %3 = amp.linear %xh, %wh, %bh : (tensor<2x8x16xf16>, tensor<32x16xf16>, tensor<32xf16>) -> tensor<2x8x32xf16>
  // CHECK: amp.linear %[[XD]], %[[WB]] : (tensor<?x16xbf16>, tensor<32x16xbf16>) -> tensor<?x32xf32>
  %4 = amp.linear %xd, %wb : (tensor<?x16xbf16>, tensor<32x16xbf16>) -> tensor<?x32xf32>
  return
}

// Default stride, padding, dilation and groups are elided; the others are
// printed in alphabetical order.
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[XH:.*]]: tensor<2x4x9x9xf16>, %[[WH:.*]]: tensor<6x2x3x3xf16>, %[[BH:.*]]: tensor<6xf32>)
func.func @conv2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>,
                  %xh: tensor<2x4x9x9xf16>, %wh: tensor<6x2x3x3xf16>, %bh: tensor<6xf32>) {
  // CHECK: amp.conv2d %[[X]], %[[W]] : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %0 = amp.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  // CHECK: amp.conv2d %[[X]], %[[W]], %[[B]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %1 = amp.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  // Grouped, strided, dilated, asymmetrically padded; f16 operands, f32 bias
  // and result.
  // CHECK: amp.conv2d %[[XH]], %[[WH]], %[[BH]] {dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>} : (tensor<2x4x9x9xf16>, tensor<6x2x3x3xf16>, tensor<6xf32>) -> tensor<2x6x4x8xf32>
  %2 = amp.conv2d %xh, %wh, %bh {stride = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64}
      : (tensor<2x4x9x9xf16>, tensor<6x2x3x3xf16>, tensor<6xf32>) -> tensor<2x6x4x8xf32>
  // CHECK: amp.conv2d %[[XH]], %[[WH]] {groups = 2 : i64} : (tensor<2x4x9x9xf16>, tensor<6x2x3x3xf16>) -> tensor<2x6x7x7xf16>
  %3 = amp.conv2d %xh, %wh {groups = 2 : i64}
      : (tensor<2x4x9x9xf16>, tensor<6x2x3x3xf16>) -> tensor<2x6x7x7xf16>
  return
}

// CHECK-LABEL: func.func @conv2d_grads
// CHECK-SAME: (%[[G:.*]]: tensor<2x4x6x6xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[X:.*]]: tensor<2x3x8x8xf32>, %[[GH:.*]]: tensor<2x6x4x8xf16>, %[[WH:.*]]: tensor<6x2x3x3xf16>, %[[XH:.*]]: tensor<2x4x9x9xf16>)
func.func @conv2d_grads(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<2x3x8x8xf32>,
                        %gh: tensor<2x6x4x8xf16>, %wh: tensor<6x2x3x3xf16>, %xh: tensor<2x4x9x9xf16>) {
  // CHECK: amp.conv2d_input_grad %[[G]], %[[W]] : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  // CHECK: amp.conv2d_weight_grad %[[G]], %[[X]] : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  %1 = amp.conv2d_weight_grad %g, %x {groups = 1 : i64, stride = array<i64: 1, 1>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  // CHECK: amp.conv2d_input_grad %[[GH]], %[[WH]] {dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>} : tensor<2x6x4x8xf16>, tensor<6x2x3x3xf16> -> tensor<2x4x9x9xf32>
  %2 = amp.conv2d_input_grad %gh, %wh {stride = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<2x6x4x8xf16>, tensor<6x2x3x3xf16> -> tensor<2x4x9x9xf32>
  // CHECK: amp.conv2d_weight_grad %[[GH]], %[[XH]] {dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>} : tensor<2x6x4x8xf16>, tensor<2x4x9x9xf16> -> tensor<6x2x3x3xf32>
  %3 = amp.conv2d_weight_grad %gh, %xh {stride = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<2x6x4x8xf16>, tensor<2x4x9x9xf16> -> tensor<6x2x3x3xf32>
  // CHECK: amp.conv2d_weight_grad %[[GH]], %[[XH]] {dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>} : tensor<2x6x4x8xf16>, tensor<2x4x9x9xf16> -> tensor<6x2x3x3xf16>
  %4 = amp.conv2d_weight_grad %gh, %xh {stride = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64}
      : tensor<2x6x4x8xf16>, tensor<2x4x9x9xf16> -> tensor<6x2x3x3xf16>
  return
}

//===----------------------------------------------------------------------===//
// Reductions, softmax
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[H:.*]]: tensor<8x4xf16>, %[[B:.*]]: tensor<2x3x4xbf16>, %[[H3:.*]]: tensor<2x3x4xf16>)
func.func @reductions(%x: tensor<8x4xf32>, %h: tensor<8x4xf16>, %b: tensor<2x3x4xbf16>, %h3: tensor<2x3x4xf16>) {
  // CHECK: amp.reduce_sum %[[X]] {axes = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
  %0 = amp.reduce_sum %x {axes = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
  // CHECK: amp.reduce_sum %[[H]] {axes = array<i64: -1>, keep_dims} : tensor<8x4xf16> -> tensor<8x1xf32>
  %1 = amp.reduce_sum %h {axes = array<i64: -1>, keep_dims} : tensor<8x4xf16> -> tensor<8x1xf32>
  // CHECK: amp.reduce_mean %[[B]] {axes = array<i64: 0, -1>} : tensor<2x3x4xbf16> -> tensor<3xf32>
  %2 = amp.reduce_mean %b {axes = array<i64: 0, -1>} : tensor<2x3x4xbf16> -> tensor<3xf32>
  // CHECK: amp.reduce_mean %[[H3]] {axes = array<i64: 2, 0>, keep_dims} : tensor<2x3x4xf16> -> tensor<1x3x1xf16>
  %3 = amp.reduce_mean %h3 {axes = array<i64: 2, 0>, keep_dims} : tensor<2x3x4xf16> -> tensor<1x3x1xf16>
  // CHECK: amp.reduce_max %[[H3]] {axes = array<i64: 1>, keep_dims} : tensor<2x3x4xf16> -> tensor<2x1x4xf16>
  %4 = amp.reduce_max %h3 {axes = array<i64: 1>, keep_dims} : tensor<2x3x4xf16> -> tensor<2x1x4xf16>
  // CHECK: amp.reduce_max %[[X]] {axes = array<i64: 0, 1>} : tensor<8x4xf32> -> tensor<f32>
  %5 = amp.reduce_max %x {axes = array<i64: 0, 1>} : tensor<8x4xf32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[H:.*]]: tensor<2x8x4xf16>, %[[G:.*]]: tensor<2x8xf32>, %[[GH:.*]]: tensor<2x8x4xf16>)
func.func @softmax(%x: tensor<2x8xf32>, %h: tensor<2x8x4xf16>, %g: tensor<2x8xf32>, %gh: tensor<2x8x4xf16>) {
  // CHECK: %[[S:.*]] = amp.softmax %[[X]] {axis = -1 : i64} : tensor<2x8xf32>
  %s = amp.softmax %x {axis = -1 : i64} : tensor<2x8xf32>
  // CHECK: %[[LS:.*]] = amp.log_softmax %[[H]] {axis = 1 : i64} : tensor<2x8x4xf16>
  %ls = amp.log_softmax %h {axis = 1 : i64} : tensor<2x8x4xf16>
  // CHECK: amp.softmax_grad %[[G]], %[[S]] {axis = -1 : i64} : tensor<2x8xf32>
  %0 = amp.softmax_grad %g, %s {axis = -1 : i64} : tensor<2x8xf32>
  // CHECK: amp.log_softmax_grad %[[GH]], %[[LS]] {axis = 1 : i64} : tensor<2x8x4xf16>
  %1 = amp.log_softmax_grad %gh, %ls {axis = 1 : i64} : tensor<2x8x4xf16>
  return
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// axis = -1 and epsilon = 1e-5 are the defaults. The statistics are f32 for
// an f16 input, and the affine parameters may be f32 or the input's type.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<4x8xf32>, %[[XH:.*]]: tensor<2x4x8xf16>, %[[WH:.*]]: tensor<4x8xf32>, %[[BH:.*]]: tensor<4x8xf16>, %[[GH:.*]]: tensor<2x4x8xf16>)
func.func @layer_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %g: tensor<4x8xf32>,
                      %xh: tensor<2x4x8xf16>, %wh: tensor<4x8xf32>, %bh: tensor<4x8xf16>,
                      %gh: tensor<2x4x8xf16>) {
  // CHECK: %{{.*}}, %[[MEAN:.*]], %[[RSTD:.*]] = amp.layer_norm %[[X]], %[[W]], %[[W]] : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %y, %mean, %rstd = amp.layer_norm %x, %w, %w {axis = -1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: %{{.*}}, %[[MEANH:.*]], %[[RSTDH:.*]] = amp.layer_norm %[[XH]], %[[WH]], %[[BH]] {axis = 1 : i64, epsilon = 1.000000e-03 : f64} : (tensor<2x4x8xf16>, tensor<4x8xf32>, tensor<4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2xf32>, tensor<2xf32>)
  %yh, %meanh, %rstdh = amp.layer_norm %xh, %wh, %bh {axis = 1 : i64, epsilon = 1.0e-3 : f64}
      : (tensor<2x4x8xf16>, tensor<4x8xf32>, tensor<4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2xf32>, tensor<2xf32>)
  // CHECK: amp.layer_norm_grad %[[G]], %[[X]], %[[MEAN]], %[[RSTD]], %[[W]] : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %0:3 = amp.layer_norm_grad %g, %x, %mean, %rstd, %w
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  // CHECK: amp.layer_norm_grad %[[GH]], %[[XH]], %[[MEANH]], %[[RSTDH]], %[[WH]] {axis = 1 : i64} : (tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2xf32>, tensor<2xf32>, tensor<4x8xf32>) -> (tensor<2x4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>)
  %1:3 = amp.layer_norm_grad %gh, %xh, %meanh, %rstdh, %wh {axis = 1 : i64}
      : (tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2xf32>, tensor<2xf32>, tensor<4x8xf32>) -> (tensor<2x4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// axis = -1 and epsilon = 1e-6 are the defaults.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[W:.*]]: tensor<8xf32>, %[[WB:.*]]: tensor<8xbf16>, %[[G:.*]]: tensor<4x8xbf16>)
func.func @rms_norm(%x: tensor<4x8xbf16>, %w: tensor<8xf32>, %wb: tensor<8xbf16>, %g: tensor<4x8xbf16>) {
  // CHECK: %{{.*}}, %[[RSTD:.*]] = amp.rms_norm %[[X]], %[[W]] : (tensor<4x8xbf16>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<4xf32>)
  %y, %rstd = amp.rms_norm %x, %w {axis = -1 : i64, epsilon = 1.0e-6 : f64}
      : (tensor<4x8xbf16>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<4xf32>)
  // CHECK: %{{.*}}, %[[RSTD2:.*]] = amp.rms_norm %[[X]], %[[WB]] {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (tensor<4x8xbf16>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4xf32>)
  %y2, %rstd2 = amp.rms_norm %x, %wb {axis = 1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<4x8xbf16>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4xf32>)
  // CHECK: amp.rms_norm_grad %[[G]], %[[X]], %[[RSTD]], %[[W]] : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<8xf32>)
  %0:2 = amp.rms_norm_grad %g, %x, %rstd, %w
      : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<8xf32>)
  // CHECK: amp.rms_norm_grad %[[G]], %[[X]], %[[RSTD2]], %[[WB]] {axis = 1 : i64} : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<8xbf16>)
  %1:2 = amp.rms_norm_grad %g, %x, %rstd2, %wb {axis = 1 : i64}
      : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<8xbf16>)
  return
}

// num_groups has no default; epsilon = 1e-5 is the default.
// CHECK-LABEL: func.func @group_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x4x4xf16>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<2x8x4x4xf16>)
func.func @group_norm(%x: tensor<2x8x4x4xf16>, %w: tensor<8xf32>, %b: tensor<8xf32>, %g: tensor<2x8x4x4xf16>) {
  // CHECK: %{{.*}}, %[[MEAN:.*]], %[[RSTD:.*]] = amp.group_norm %[[X]], %[[W]], %[[B]] {num_groups = 4 : i64} : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<2x4xf32>, tensor<2x4xf32>)
  %y, %mean, %rstd = amp.group_norm %x, %w, %b {num_groups = 4 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<2x4xf32>, tensor<2x4xf32>)
  // CHECK: amp.group_norm %[[X]], %[[W]], %[[B]] {epsilon = 1.000000e-03 : f64, num_groups = 2 : i64} : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<2x2xf32>, tensor<2x2xf32>)
  %0:3 = amp.group_norm %x, %w, %b {num_groups = 2 : i64, epsilon = 1.0e-3 : f64}
      : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK: amp.group_norm_grad %[[G]], %[[X]], %[[MEAN]], %[[RSTD]], %[[W]] {num_groups = 4 : i64} : (tensor<2x8x4x4xf16>, tensor<2x8x4x4xf16>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>)
  %1:3 = amp.group_norm_grad %g, %x, %mean, %rstd, %w {num_groups = 4 : i64}
      : (tensor<2x8x4x4xf16>, tensor<2x8x4x4xf16>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// training = true, momentum = 0.1 and epsilon = 1e-5 are the defaults.
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf16>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[RM:.*]]: tensor<4xf32>, %[[RV:.*]]: tensor<4xf32>, %[[G:.*]]: tensor<2x4x8x8xf16>, %[[X2:.*]]: tensor<8x4xf32>)
func.func @batch_norm(%x: tensor<2x4x8x8xf16>, %w: tensor<4xf32>, %b: tensor<4xf32>,
                      %rm: tensor<4xf32>, %rv: tensor<4xf32>, %g: tensor<2x4x8x8xf16>,
                      %x2: tensor<8x4xf32>) {
  // CHECK: %{{.*}}, %[[SM:.*]], %[[SR:.*]], %{{.*}}, %{{.*}} = amp.batch_norm %[[X]], %[[W]], %[[B]], %[[RM]], %[[RV]] : (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %y, %sm, %sr, %nrm, %nrv = amp.batch_norm %x, %w, %b, %rm, %rv {epsilon = 1.0e-5 : f64, momentum = 0.1 : f64, training = true}
      : (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: amp.batch_norm %[[X]], %[[W]], %[[B]], %[[RM]], %[[RV]] {training = false} : (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %0:5 = amp.batch_norm %x, %w, %b, %rm, %rv {training = false}
      : (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: amp.batch_norm %[[X2]], %[[W]], %[[B]], %[[RM]], %[[RV]] {epsilon = 1.000000e-03 : f64, momentum = 1.000000e-02 : f64} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %1:5 = amp.batch_norm %x2, %w, %b, %rm, %rv {epsilon = 1.0e-3 : f64, momentum = 0.01 : f64}
      : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: amp.batch_norm_grad %[[G]], %[[X]], %[[SM]], %[[SR]], %[[W]] : (tensor<2x4x8x8xf16>, tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>)
  %2:3 = amp.batch_norm_grad %g, %x, %sm, %sr, %w
      : (tensor<2x4x8x8xf16>, tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf16>, tensor<4xf32>, tensor<4xf32>)
  return
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// kernel_size has no default; stride [1, 1] and padding [0, 0, 0, 0] do.
// CHECK-LABEL: func.func @pooling
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[H:.*]]: tensor<1x4x8x8xf16>, %[[B:.*]]: tensor<1x4x8x8xbf16>, %[[G:.*]]: tensor<1x4x4x4xf32>, %[[GB:.*]]: tensor<1x4x4x4xbf16>, %[[X3:.*]]: tensor<2x4x16xf32>)
func.func @pooling(%x: tensor<1x4x8x8xf32>, %h: tensor<1x4x8x8xf16>, %b: tensor<1x4x8x8xbf16>,
                   %g: tensor<1x4x4x4xf32>, %gb: tensor<1x4x4x4xbf16>, %x3: tensor<2x4x16xf32>) {
  // CHECK: amp.max_pool2d %[[X]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK: amp.max_pool2d %[[H]] {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf16> -> tensor<1x4x8x8xf16>
  %1 = amp.max_pool2d %h {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>}
      : tensor<1x4x8x8xf16> -> tensor<1x4x8x8xf16>
  // CHECK: amp.avg_pool2d %[[B]] {exclude_padding, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : tensor<1x4x8x8xbf16> -> tensor<1x4x4x4xbf16>
  %2 = amp.avg_pool2d %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, exclude_padding}
      : tensor<1x4x8x8xbf16> -> tensor<1x4x4x4xbf16>
  // CHECK: amp.avg_pool2d %[[X]] {kernel_size = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  %3 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  // CHECK: amp.max_pool2d_grad %[[G]], %[[X]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %4 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
      : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  // CHECK: amp.avg_pool2d_grad %[[GB]] {exclude_padding, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xbf16> -> tensor<1x4x8x8xbf16>
  %5 = amp.avg_pool2d_grad %gb {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, exclude_padding}
      : tensor<1x4x4x4xbf16> -> tensor<1x4x8x8xbf16>
  // CHECK: amp.avg_pool2d_grad %[[G]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  %6 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  // CHECK: amp.global_avg_pool %[[H]] : tensor<1x4x8x8xf16> -> tensor<1x4x1x1xf16>
  %7 = amp.global_avg_pool %h : tensor<1x4x8x8xf16> -> tensor<1x4x1x1xf16>
  // CHECK: amp.global_avg_pool %[[X3]] : tensor<2x4x16xf32> -> tensor<2x4x1xf32>
  %8 = amp.global_avg_pool %x3 : tensor<2x4x16xf32> -> tensor<2x4x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_transpose_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[D:.*]]: tensor<?x4xf16>, %[[T:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3x4xbf16>, %[[V:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x1xf16>, %[[M:.*]]: tensor<4xi1>)
func.func @reshape_transpose_broadcast(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi64>, %d: tensor<?x4xf16>,
                                       %t: tensor<2x3xf32>, %b: tensor<2x3x4xbf16>, %v: tensor<8xf32>,
                                       %c: tensor<4x1xf16>, %m: tensor<4xi1>) {
  // CHECK: amp.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = amp.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: amp.reshape %[[I]] : tensor<2x3xi64> -> tensor<6xi64>
  %1 = amp.reshape %i : tensor<2x3xi64> -> tensor<6xi64>
  // CHECK: amp.reshape %[[D]] : tensor<?x4xf16> -> tensor<?x2x2xf16>
  %2 = amp.reshape %d : tensor<?x4xf16> -> tensor<?x2x2xf16>
  // CHECK: amp.transpose %[[T]] {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %3 = amp.transpose %t {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: amp.transpose %[[B]] {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xbf16> -> tensor<2x4x3xbf16>
  %4 = amp.transpose %b {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xbf16> -> tensor<2x4x3xbf16>
  // CHECK: amp.broadcast %[[V]] : tensor<8xf32> -> tensor<4x8xf32>
  %5 = amp.broadcast %v : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: amp.broadcast %[[C]] : tensor<4x1xf16> -> tensor<2x4x8xf16>
  %6 = amp.broadcast %c : tensor<4x1xf16> -> tensor<2x4x8xf16>
  // CHECK: amp.broadcast %[[M]] : tensor<4xi1> -> tensor<3x4xi1>
  %7 = amp.broadcast %m : tensor<4xi1> -> tensor<3x4xi1>
  return
}

// CHECK-LABEL: func.func @slice_concat
// CHECK-SAME: (%[[S:.*]]: tensor<8x6xf32>, %[[SG:.*]]: tensor<4x2xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[A:.*]]: tensor<2x3xf32>, %[[A2:.*]]: tensor<4x3xf32>, %[[H:.*]]: tensor<2x3xf16>, %[[H2:.*]]: tensor<2x1xf16>, %[[M:.*]]: tensor<4xi1>)
func.func @slice_concat(%s: tensor<8x6xf32>, %sg: tensor<4x2xf32>, %i: tensor<2x3xi64>,
                        %a: tensor<2x3xf32>, %a2: tensor<4x3xf32>, %h: tensor<2x3xf16>,
                        %h2: tensor<2x1xf16>, %m: tensor<4xi1>) {
  // CHECK: amp.slice %[[S]] {limits = array<i64: 8, 5>, starts = array<i64: 0, 1>, strides = array<i64: 2, 2>} : tensor<8x6xf32> -> tensor<4x2xf32>
  %0 = amp.slice %s {starts = array<i64: 0, 1>, limits = array<i64: 8, 5>, strides = array<i64: 2, 2>} : tensor<8x6xf32> -> tensor<4x2xf32>
  // CHECK: amp.slice %[[I]] {limits = array<i64: 2, 3>, starts = array<i64: 1, 0>, strides = array<i64: 1, 1>} : tensor<2x3xi64> -> tensor<1x3xi64>
  %1 = amp.slice %i {starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, strides = array<i64: 1, 1>} : tensor<2x3xi64> -> tensor<1x3xi64>
  // CHECK: amp.slice_grad %[[SG]] {limits = array<i64: 8, 5>, starts = array<i64: 0, 1>, strides = array<i64: 2, 2>} : tensor<4x2xf32> -> tensor<8x6xf32>
  %2 = amp.slice_grad %sg {starts = array<i64: 0, 1>, limits = array<i64: 8, 5>, strides = array<i64: 2, 2>} : tensor<4x2xf32> -> tensor<8x6xf32>
  // CHECK: amp.concat %[[A]], %[[A2]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %3 = amp.concat %a, %a2 {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  // CHECK: amp.concat %[[H]], %[[H2]], %[[H]] {axis = -1 : i64} : (tensor<2x3xf16>, tensor<2x1xf16>, tensor<2x3xf16>) -> tensor<2x7xf16>
  %4 = amp.concat %h, %h2, %h {axis = -1 : i64} : (tensor<2x3xf16>, tensor<2x1xf16>, tensor<2x3xf16>) -> tensor<2x7xf16>
  // CHECK: amp.concat %[[M]] {axis = 0 : i64} : (tensor<4xi1>) -> tensor<4xi1>
  %5 = amp.concat %m {axis = 0 : i64} : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// axis = 0 is the default.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[TABLE:.*]]: tensor<100x16xf32>, %[[IDS:.*]]: tensor<2x8xi64>, %[[X:.*]]: tensor<4x10x3xf16>, %[[IDX:.*]]: tensor<5xi32>, %[[G:.*]]: tensor<2x8x16xf16>, %[[GX:.*]]: tensor<4x5x3xf16>)
func.func @gather(%table: tensor<100x16xf32>, %ids: tensor<2x8xi64>, %x: tensor<4x10x3xf16>,
                  %idx: tensor<5xi32>, %g: tensor<2x8x16xf16>, %gx: tensor<4x5x3xf16>) {
  // CHECK: amp.gather %[[TABLE]], %[[IDS]] : (tensor<100x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>
  %0 = amp.gather %table, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>
  // CHECK: amp.gather %[[X]], %[[IDX]] {axis = 1 : i64} : (tensor<4x10x3xf16>, tensor<5xi32>) -> tensor<4x5x3xf16>
  %1 = amp.gather %x, %idx {axis = 1 : i64} : (tensor<4x10x3xf16>, tensor<5xi32>) -> tensor<4x5x3xf16>
  // CHECK: amp.gather %[[IDS]], %[[IDX]] {axis = -1 : i64} : (tensor<2x8xi64>, tensor<5xi32>) -> tensor<2x5xi64>
  %2 = amp.gather %ids, %idx {axis = -1 : i64} : (tensor<2x8xi64>, tensor<5xi32>) -> tensor<2x5xi64>
  // f16 gradient scattered into an f32 table gradient.
  // CHECK: amp.gather_grad %[[G]], %[[IDS]] : (tensor<2x8x16xf16>, tensor<2x8xi64>) -> tensor<100x16xf32>
  %3 = amp.gather_grad %g, %ids : (tensor<2x8x16xf16>, tensor<2x8xi64>) -> tensor<100x16xf32>
  // CHECK: amp.gather_grad %[[GX]], %[[IDX]] {axis = 1 : i64} : (tensor<4x5x3xf16>, tensor<5xi32>) -> tensor<4x10x3xf16>
  %4 = amp.gather_grad %gx, %idx {axis = 1 : i64} : (tensor<4x5x3xf16>, tensor<5xi32>) -> tensor<4x10x3xf16>
  return
}

// CHECK-LABEL: func.func @constant
func.func @constant() {
  // CHECK: amp.constant dense<1.000000e+00> : tensor<4xf32>
  %0 = amp.constant dense<1.0> : tensor<4xf32>
  // CHECK: amp.constant dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf16>
  %1 = amp.constant dense<[1.0, -2.5]> : tensor<2xf16>
  // CHECK: amp.constant dense<5.000000e-01> : tensor<bf16>
  %2 = amp.constant dense<0.5> : tensor<bf16>
  // CHECK: amp.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
  %3 = amp.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK: amp.constant dense<[true, false, true]> : tensor<3xi1>
  %4 = amp.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK: amp.constant dense<7> : tensor<i32>
  %5 = amp.constant dense<7> : tensor<i32>
  // CHECK: amp.constant {tag = "x"} dense<0.000000e+00> : tensor<2x2xf32>
  %6 = amp.constant {tag = "x"} dense<0.0> : tensor<2x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Dropout, activation gradients
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>, %[[SEED:.*]]: tensor<i64>, %[[G:.*]]: tensor<4x8xf16>, %[[XF:.*]]: tensor<16xf32>)
func.func @dropout(%x: tensor<4x8xf16>, %seed: tensor<i64>, %g: tensor<4x8xf16>, %xf: tensor<16xf32>) {
  // CHECK: %{{.*}}, %[[MASK:.*]] = amp.dropout %[[X]], %[[SEED]] {probability = 1.000000e-01 : f64} : tensor<4x8xf16> -> tensor<4x8xi1>
  %y, %mask = amp.dropout %x, %seed {probability = 1.0e-1 : f64} : tensor<4x8xf16> -> tensor<4x8xi1>
  // CHECK: amp.dropout_grad %[[G]], %[[MASK]] {probability = 1.000000e-01 : f64} : tensor<4x8xf16>, tensor<4x8xi1>
  %0 = amp.dropout_grad %g, %mask {probability = 1.0e-1 : f64} : tensor<4x8xf16>, tensor<4x8xi1>
  // CHECK: amp.dropout %[[XF]], %[[SEED]] {probability = 0.000000e+00 : f64} : tensor<16xf32> -> tensor<16xi1>
  %1:2 = amp.dropout %xf, %seed {probability = 0.0 : f64} : tensor<16xf32> -> tensor<16xi1>
  return
}

// CHECK-LABEL: func.func @activation_grads
// CHECK-SAME: (%[[G:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>, %[[GB:.*]]: tensor<4x8xbf16>, %[[XB:.*]]: tensor<4x8xbf16>)
func.func @activation_grads(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>, %gb: tensor<4x8xbf16>, %xb: tensor<4x8xbf16>) {
  // CHECK: amp.relu_grad %[[G]], %[[X]] : tensor<4x8xf32>
  %0 = amp.relu_grad %g, %x : tensor<4x8xf32>
  // CHECK: amp.silu_grad %[[GB]], %[[XB]] : tensor<4x8xbf16>
  %1 = amp.silu_grad %gb, %xb : tensor<4x8xbf16>
  // CHECK: amp.sigmoid_grad %[[G]], %[[X]] : tensor<4x8xf32>
  %2 = amp.sigmoid_grad %g, %x : tensor<4x8xf32>
  // CHECK: amp.tanh_grad %[[GB]], %[[XB]] : tensor<4x8xbf16>
  %3 = amp.tanh_grad %gb, %xb : tensor<4x8xbf16>
  // CHECK: amp.gelu_grad %[[G]], %[[X]] : tensor<4x8xf32>
  %4 = amp.gelu_grad %g, %x : tensor<4x8xf32>
  // CHECK: amp.gelu_grad %[[GB]], %[[XB]] approximate = tanh : tensor<4x8xbf16>
  %5 = amp.gelu_grad %gb, %xb approximate = tanh : tensor<4x8xbf16>
  // CHECK: amp.gelu_grad %[[X]], %[[G]] : tensor<4x8xf32>
  %6 = amp.gelu_grad %x, %g approximate = none : tensor<4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Losses, seed, cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @losses
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<8x10xf32>, %[[LABELS:.*]]: tensor<8xi64>, %[[LH:.*]]: tensor<8x10xf16>, %[[L32:.*]]: tensor<8xi32>, %[[P:.*]]: tensor<4x8xbf16>, %[[T:.*]]: tensor<4x8xbf16>, %[[PF:.*]]: tensor<4x8xf32>)
func.func @losses(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>, %lh: tensor<8x10xf16>,
                  %l32: tensor<8xi32>, %p: tensor<4x8xbf16>, %t: tensor<4x8xbf16>, %pf: tensor<4x8xf32>) {
  // CHECK: %[[CE:.*]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<8x10xf32>, tensor<8xi64>
  %ce = amp.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi64>
  // CHECK: %[[CEH:.*]] = amp.cross_entropy %[[LH]], %[[L32]] : tensor<8x10xf16>, tensor<8xi32>
  %ceh = amp.cross_entropy %lh, %l32 : tensor<8x10xf16>, tensor<8xi32>
  // CHECK: amp.cross_entropy_grad %[[CE]], %[[LOGITS]], %[[LABELS]] : tensor<8x10xf32>, tensor<8xi64>
  %0 = amp.cross_entropy_grad %ce, %logits, %labels : tensor<8x10xf32>, tensor<8xi64>
  // CHECK: amp.cross_entropy_grad %[[CEH]], %[[LH]], %[[L32]] : tensor<8x10xf16>, tensor<8xi32>
  %1 = amp.cross_entropy_grad %ceh, %lh, %l32 : tensor<8x10xf16>, tensor<8xi32>
  // CHECK: %[[MSE:.*]] = amp.mse_loss %[[P]], %[[T]] : tensor<4x8xbf16>
  %mse = amp.mse_loss %p, %t : tensor<4x8xbf16>
  // CHECK: amp.mse_loss %[[PF]], %[[PF]] : tensor<4x8xf32>
  %2 = amp.mse_loss %pf, %pf : tensor<4x8xf32>
  // CHECK: amp.mse_loss_grad %[[MSE]], %[[P]], %[[T]] : tensor<4x8xbf16>
  %3 = amp.mse_loss_grad %mse, %p, %t : tensor<4x8xbf16>
  return
}

// CHECK-LABEL: func.func @seed
// CHECK-SAME: (%[[LOSS:.*]]: tensor<f32>, %[[SCALE:.*]]: tensor<f32>)
func.func @seed(%loss: tensor<f32>, %scale: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[SEED:.*]] = amp.seed %[[LOSS]]{{$}}
  %0 = amp.seed %loss
  // CHECK: %[[SCALED:.*]] = amp.scale_seed %[[SEED]], %[[SCALE]]{{$}}
  %1 = amp.scale_seed %0, %scale
  // CHECK: return %[[SCALED]] : tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<4x8xbf16>, %[[D:.*]]: tensor<?x8xf32>)
func.func @cast(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %b: tensor<4x8xbf16>, %d: tensor<?x8xf32>) {
  // CHECK: amp.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
  %0 = amp.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  // CHECK: amp.cast %[[H]] : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = amp.cast %h : tensor<4x8xf16> to tensor<4x8xf32>
  // CHECK: amp.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
  %2 = amp.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  // CHECK: amp.cast %[[B]] : tensor<4x8xbf16> to tensor<4x8xf32>
  %3 = amp.cast %b : tensor<4x8xbf16> to tensor<4x8xf32>
  // CHECK: amp.cast %[[H]] : tensor<4x8xf16> to tensor<4x8xbf16>
  %4 = amp.cast %h : tensor<4x8xf16> to tensor<4x8xbf16>
  // CHECK: amp.cast %[[B]] : tensor<4x8xbf16> to tensor<4x8xf16>
  %5 = amp.cast %b : tensor<4x8xbf16> to tensor<4x8xf16>
  // CHECK: amp.cast %[[D]] : tensor<?x8xf32> to tensor<?x8xf16>
  %6 = amp.cast %d : tensor<?x8xf32> to tensor<?x8xf16>
  return
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unscale_grads
// CHECK-SAME: (%[[SCALE:.*]]: tensor<f32>, %[[G0:.*]]: tensor<4x4xf16>, %[[G1:.*]]: tensor<4xbf16>, %[[G2:.*]]: tensor<8xf32>, %[[G3:.*]]: tensor<2xf16>)
func.func @unscale_grads(%scale: tensor<f32>, %g0: tensor<4x4xf16>, %g1: tensor<4xbf16>, %g2: tensor<8xf32>, %g3: tensor<2xf16>)
    -> (tensor<8xf32>, tensor<i1>, tensor<4x4xf32>, tensor<2xf16>, tensor<i1>) {
  // CHECK: %[[U:.*]], %[[F:.*]] = amp.unscale_grads %[[SCALE]], %[[G2]] : tensor<8xf32> -> tensor<8xf32>
  %u, %f = amp.unscale_grads %scale, %g2 : tensor<8xf32> -> tensor<8xf32>
  // f16 and bf16 gradients widened to f32, an f32 one kept, an f16 one kept.
  // CHECK: %[[US:.*]]:4, %[[FS:.*]] = amp.unscale_grads %[[SCALE]], %[[G0]], %[[G1]], %[[G2]], %[[G3]] : tensor<4x4xf16>, tensor<4xbf16>, tensor<8xf32>, tensor<2xf16> -> tensor<4x4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<2xf16>
  %us:4, %fs = amp.unscale_grads %scale, %g0, %g1, %g2, %g3
      : tensor<4x4xf16>, tensor<4xbf16>, tensor<8xf32>, tensor<2xf16>
      -> tensor<4x4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<2xf16>
  // CHECK: return %[[U]], %[[F]], %[[US]]#0, %[[US]]#3, %[[FS]] :
  return %u, %f, %us#0, %us#3, %fs : tensor<8xf32>, tensor<i1>, tensor<4x4xf32>, tensor<2xf16>, tensor<i1>
}

// growth_factor = 2, backoff_factor = 0.5, growth_interval = 2000,
// hysteresis = 1, min_scale = 1 and max_scale = 2^24 are the defaults.
// CHECK-LABEL: func.func @update_scale
// CHECK-SAME: (%[[SCALE:.*]]: tensor<f32>, %[[GROWTH:.*]]: tensor<i64>, %[[HYST:.*]]: tensor<i64>, %[[INF:.*]]: tensor<i1>)
func.func @update_scale(%scale: tensor<f32>, %growth: tensor<i64>, %hyst: tensor<i64>, %inf: tensor<i1>)
    -> (tensor<f32>, tensor<i64>, tensor<i64>) {
  // CHECK: amp.update_scale %[[SCALE]], %[[GROWTH]], %[[HYST]], %[[INF]]{{$}}
  %0:3 = amp.update_scale %scale, %growth, %hyst, %inf
  // CHECK: amp.update_scale %[[SCALE]], %[[GROWTH]], %[[HYST]], %[[INF]]{{$}}
  %1:3 = amp.update_scale %scale, %growth, %hyst, %inf
      {growth_factor = 2.0 : f64, backoff_factor = 0.5 : f64, growth_interval = 2000 : i64,
       hysteresis = 1 : i64, min_scale = 1.0 : f64, max_scale = 16777216.0 : f64}
  // CHECK: %[[S:.*]], %[[G:.*]], %[[H:.*]] = amp.update_scale %[[SCALE]], %[[GROWTH]], %[[HYST]], %[[INF]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, hysteresis = 2 : i64, max_scale = 6.553600e+04 : f64, min_scale = 5.000000e-01 : f64}{{$}}
  %s, %g, %h = amp.update_scale %scale, %growth, %hyst, %inf
      {growth_factor = 4.0 : f64, backoff_factor = 0.25 : f64, growth_interval = 100 : i64,
       hysteresis = 2 : i64, min_scale = 0.5 : f64, max_scale = 65536.0 : f64}
  // CHECK: return %[[S]], %[[G]], %[[H]] : tensor<f32>, tensor<i64>, tensor<i64>
  return %s, %g, %h : tensor<f32>, tensor<i64>, tensor<i64>
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @clip_grad_norm
// CHECK-SAME: (%[[G0:.*]]: tensor<4x4xf16>, %[[G1:.*]]: tensor<4xf32>, %[[G2:.*]]: tensor<8xbf16>)
func.func @clip_grad_norm(%g0: tensor<4x4xf16>, %g1: tensor<4xf32>, %g2: tensor<8xbf16>)
    -> (tensor<4xf32>, tensor<f32>, tensor<8xbf16>, tensor<f32>) {
  // CHECK: %[[C:.*]], %[[N:.*]] = amp.clip_grad_norm %[[G1]] {max_norm = 1.000000e+00 : f64} : tensor<4xf32>
  %c, %n = amp.clip_grad_norm %g1 {max_norm = 1.0 : f64} : tensor<4xf32>
  // CHECK: %[[CS:.*]]:3, %[[NS:.*]] = amp.clip_grad_norm %[[G0]], %[[G1]], %[[G2]] {max_norm = 5.000000e-01 : f64} : tensor<4x4xf16>, tensor<4xf32>, tensor<8xbf16>
  %cs:3, %ns = amp.clip_grad_norm %g0, %g1, %g2 {max_norm = 0.5 : f64} : tensor<4x4xf16>, tensor<4xf32>, tensor<8xbf16>
  // CHECK: return %[[C]], %[[N]], %[[CS]]#2, %[[NS]] :
  return %c, %n, %cs#2, %ns : tensor<4xf32>, tensor<f32>, tensor<8xbf16>, tensor<f32>
}

// momentum, dampening and weight_decay default to 0 and are elided; the
// momentum buffer is present exactly when momentum is non-zero.
// CHECK-LABEL: func.func @sgd_update
// CHECK-SAME: (%[[P:.*]]: tensor<4xf32>, %[[G:.*]]: tensor<4xf32>, %[[GH:.*]]: tensor<4xf16>, %[[M:.*]]: tensor<4xf32>, %[[LR:.*]]: tensor<f32>, %[[INF:.*]]: tensor<i1>, %[[PB:.*]]: tensor<4xbf16>, %[[MB:.*]]: tensor<4xbf16>)
func.func @sgd_update(%p: tensor<4xf32>, %g: tensor<4xf32>, %gh: tensor<4xf16>, %m: tensor<4xf32>,
                      %lr: tensor<f32>, %inf: tensor<i1>, %pb: tensor<4xbf16>, %mb: tensor<4xbf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>) {
  // CHECK: amp.sgd_update %[[P]], %[[G]], lr %[[LR]] : tensor<4xf32>, tensor<4xf32>
  %0 = amp.sgd_update %p, %g, lr %lr : tensor<4xf32>, tensor<4xf32>
  // CHECK: amp.sgd_update %[[P]], %[[GH]], lr %[[LR]] : tensor<4xf32>, tensor<4xf16>
  %1 = amp.sgd_update %p, %gh, lr %lr {momentum = 0.0 : f64, dampening = 0.0 : f64, weight_decay = 0.0 : f64}
      : tensor<4xf32>, tensor<4xf16>
  // CHECK: amp.sgd_update %[[P]], %[[GH]], lr %[[LR]], found_inf %[[INF]] {weight_decay = 1.000000e-04 : f64} : tensor<4xf32>, tensor<4xf16>
  %2 = amp.sgd_update %p, %gh, lr %lr, found_inf %inf {weight_decay = 1.0e-4 : f64} : tensor<4xf32>, tensor<4xf16>
  // CHECK: amp.sgd_update %[[P]], %[[G]], momentum_buffer %[[M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<4xf32>, tensor<4xf32>
  %3:2 = amp.sgd_update %p, %g, momentum_buffer %m, lr %lr {momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  // CHECK: %[[NP:.*]], %[[NM:.*]] = amp.sgd_update %[[P]], %[[GH]], momentum_buffer %[[M]], lr %[[LR]], found_inf %[[INF]] {dampening = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, weight_decay = 5.000000e-04 : f64} : tensor<4xf32>, tensor<4xf16>
  %np, %nm = amp.sgd_update %p, %gh, momentum_buffer %m, lr %lr, found_inf %inf
      {momentum = 0.9 : f64, dampening = 0.1 : f64, weight_decay = 5.0e-4 : f64} : tensor<4xf32>, tensor<4xf16>
  // CHECK: %[[NPB:.*]], %[[NMB:.*]] = amp.sgd_update %[[PB]], %[[PB]], momentum_buffer %[[MB]], lr %[[LR]], found_inf %[[INF]] {momentum = 9.000000e-01 : f64, nesterov} : tensor<4xbf16>, tensor<4xbf16>
  %npb, %nmb = amp.sgd_update %pb, %pb, momentum_buffer %mb, lr %lr, found_inf %inf
      {momentum = 0.9 : f64, nesterov} : tensor<4xbf16>, tensor<4xbf16>
  // CHECK: return %[[NP]], %[[NM]], %[[NPB]], %[[NMB]] :
  return %np, %nm, %npb, %nmb : tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>
}

// beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8 and weight_decay = 0.01 are the
// defaults.
// CHECK-LABEL: func.func @adamw_update
// CHECK-SAME: (%[[P:.*]]: tensor<4xf32>, %[[G:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>, %[[STEP:.*]]: tensor<i64>, %[[LR:.*]]: tensor<f32>, %[[INF:.*]]: tensor<i1>, %[[PB:.*]]: tensor<4x2xbf16>, %[[GB:.*]]: tensor<4x2xbf16>, %[[MF:.*]]: tensor<4x2xf32>, %[[VF:.*]]: tensor<4x2xf32>)
func.func @adamw_update(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>,
                        %step: tensor<i64>, %lr: tensor<f32>, %inf: tensor<i1>,
                        %pb: tensor<4x2xbf16>, %gb: tensor<4x2xbf16>, %mf: tensor<4x2xf32>, %vf: tensor<4x2xf32>)
    -> (tensor<4x2xbf16>, tensor<4x2xf32>, tensor<4x2xf32>) {
  // CHECK: amp.adamw_update %[[P]], %[[G]], %[[M]], %[[V]], step %[[STEP]], lr %[[LR]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %0:3 = amp.adamw_update %p, %g, %m, %v, step %step, lr %lr : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // CHECK: amp.adamw_update %[[P]], %[[G]], %[[M]], %[[V]], step %[[STEP]], lr %[[LR]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %1:3 = amp.adamw_update %p, %g, %m, %v, step %step, lr %lr
      {beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64, weight_decay = 0.01 : f64}
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // CHECK: amp.adamw_update %[[P]], %[[G]], %[[M]], %[[V]], step %[[STEP]], lr %[[LR]], found_inf %[[INF]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %2:3 = amp.adamw_update %p, %g, %m, %v, step %step, lr %lr, found_inf %inf : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // bf16 parameter and gradient with f32 moments.
  // CHECK: %[[NP:.*]], %[[NM:.*]], %[[NV:.*]] = amp.adamw_update %[[PB]], %[[GB]], %[[MF]], %[[VF]], step %[[STEP]], lr %[[LR]], found_inf %[[INF]] {beta1 = 8.000000e-01 : f64, beta2 = 7.500000e-01 : f64, epsilon = 1.000000e-05 : f64, weight_decay = 0.000000e+00 : f64} : tensor<4x2xbf16>, tensor<4x2xbf16>, tensor<4x2xf32>
  %np, %nm, %nv = amp.adamw_update %pb, %gb, %mf, %vf, step %step, lr %lr, found_inf %inf
      {beta1 = 0.8 : f64, beta2 = 0.75 : f64, epsilon = 1.0e-5 : f64, weight_decay = 0.0 : f64}
      : tensor<4x2xbf16>, tensor<4x2xbf16>, tensor<4x2xf32>
  // CHECK: return %[[NP]], %[[NM]], %[[NV]] : tensor<4x2xbf16>, tensor<4x2xf32>, tensor<4x2xf32>
  return %np, %nm, %nv : tensor<4x2xbf16>, tensor<4x2xf32>, tensor<4x2xf32>
}
