// The backward rule of amp.conv2d_input_grad as a forward op (a transposed
// convolution: nn.ConvTranspose2d, ONNX ConvTranspose). y =
// conv2d_input_grad(g, w) is linear in each operand; its adjoints are the
// convolution of dy with w (for g) and the weight gradient of a
// convolution whose input is dy and whose output gradient is g (for w),
// with the same stride, padding, dilation and groups. Numerics against
// PyTorch: test/python/conv_transpose.py.

// RUN: amp-opt %s -split-input-file --amp-autodiff=optimizer=none | FileCheck %s

// A UNet decoder's 2x upsampling: stride 2, padding 1, one row and column
// of output padding (10 = 2 * (5 - 1) + 3 - 2 + 1).
// CHECK-LABEL: func.func @upsample_grad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x4x5x6xf32> {amp.name = "x"
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4x3x3x3xf32> {amp.name = "w"
// CHECK:         %[[SEED:.*]] = amp.seed
// CHECK:         %[[DY:.*]] = amp.broadcast %{{.*}} : tensor<1x1x1x1xf32> -> tensor<2x3x10x12xf32>
// CHECK-NEXT:    %[[DW:.*]] = amp.conv2d_weight_grad %[[X]], %[[DY]] {padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : tensor<2x4x5x6xf32>, tensor<2x3x10x12xf32> -> tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[DX:.*]] = amp.conv2d %[[DY]], %[[W]] {padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x10x12xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x5x6xf32>
// CHECK-NEXT:    return %{{.*}}, %[[DX]], %[[DW]]
func.func @upsample(%x: tensor<2x4x5x6xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                    %w: tensor<4x3x3x3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.conv2d_input_grad %x, %w {padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : tensor<2x4x5x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x10x12xf32>
  %l = amp.reduce_sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<2x3x10x12xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Groups and dilation carried to both adjoints; an input (no gradient)
// gets only the weight's, and a downstream op's gradient (the relu's)
// is the dy both read.
// CHECK-LABEL: func.func @grouped_grad(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4x3x3x3xf32> {amp.name = "w"
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x4x4x4xf32> {amp.name = "x", amp.role = #amp.role<input>}
// CHECK:         %[[Y:.*]] = amp.conv2d_input_grad %[[X]], %[[W]]
// CHECK:         %[[DY:.*]] = amp.relu_grad %{{.*}}, %[[Y]]
// CHECK-NEXT:    %[[DW:.*]] = amp.conv2d_weight_grad %[[X]], %[[DY]] {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 0, 1, 0>} : tensor<1x4x4x4xf32>, tensor<1x6x6x8xf32> -> tensor<4x3x3x3xf32>
// CHECK-NOT:     amp.conv2d %
// CHECK:         return %{{.*}}, %[[DW]]
func.func @grouped(%x: tensor<1x4x4x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
                   %w: tensor<4x3x3x3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.conv2d_input_grad %x, %w {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 0, 1, 0>} : tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x6x6x8xf32>
  %r = amp.relu %y : tensor<1x6x6x8xf32>
  %l = amp.reduce_sum %r {axes = array<i64: 0, 1, 2, 3>} : tensor<1x6x6x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
