// The gradients of slices that tile a tensor along one axis (the q, k and v
// of a fused projection) meet as one amp.concat, not as zero-filled
// amp.slice_grad tensors summed; slices that leave a gap keep the sum.

// RUN: amp-opt %s -split-input-file --amp-autodiff=optimizer=none | FileCheck %s

// CHECK-LABEL: func.func @fused_grad(
// CHECK-NOT:     amp.slice_grad
// CHECK:         %[[G:.*]] = amp.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
// CHECK-NOT:     amp.slice_grad
// CHECK:         amp.matmul %[[G]], %{{.*}} {transpose_lhs}
func.func @fused(%x: tensor<2x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
                 %w: tensor<12x4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}) attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.linear %x, %w : (tensor<2x4xf32>, tensor<12x4xf32>) -> tensor<2x12xf32>
  %a = amp.slice %y {starts = array<i64: 0, 0>, limits = array<i64: 2, 4>, strides = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x4xf32>
  %b = amp.slice %y {starts = array<i64: 0, 4>, limits = array<i64: 2, 8>, strides = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x4xf32>
  %c = amp.slice %y {starts = array<i64: 0, 8>, limits = array<i64: 2, 12>, strides = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x4xf32>
  %ab = amp.mul %a, %b : tensor<2x4xf32>
  %abc = amp.mul %ab, %c : tensor<2x4xf32>
  %l = amp.reduce_sum %abc {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Two adjacent slices that do not cover the tensor: one slice_grad of their
// concatenation.
// CHECK-LABEL: func.func @partial_grad(
// CHECK:         %[[J:.*]] = amp.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    amp.slice_grad %[[J]] {limits = array<i64: 4, 3>, starts = array<i64: 1, 0>, strides = array<i64: 1, 1>} : tensor<3x3xf32> -> tensor<5x3xf32>
// CHECK-NOT:     amp.add
func.func @partial(%w: tensor<5x3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}) attributes {amp.graph = #amp.graph<forward>} {
  %a = amp.slice %w {starts = array<i64: 1, 0>, limits = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<5x3xf32> -> tensor<2x3xf32>
  %b = amp.slice %w {starts = array<i64: 3, 0>, limits = array<i64: 4, 3>, strides = array<i64: 1, 1>} : tensor<5x3xf32> -> tensor<1x3xf32>
  %sa = amp.reduce_sum %a {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  %sb = amp.reduce_sum %b {axes = array<i64: 0, 1>} : tensor<1x3xf32> -> tensor<f32>
  %l = amp.mul %sa, %sb : tensor<f32>
  return %l : tensor<f32>
}

// -----

// A gap between the slices: the zero-filled gradients are summed.
// CHECK-LABEL: func.func @gap_grad(
// CHECK:         amp.slice_grad
// CHECK:         amp.slice_grad
// CHECK:         amp.add
func.func @gap(%w: tensor<5x3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}) attributes {amp.graph = #amp.graph<forward>} {
  %a = amp.slice %w {starts = array<i64: 0, 0>, limits = array<i64: 1, 3>, strides = array<i64: 1, 1>} : tensor<5x3xf32> -> tensor<1x3xf32>
  %b = amp.slice %w {starts = array<i64: 2, 0>, limits = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<5x3xf32> -> tensor<1x3xf32>
  %m = amp.mul %a, %b : tensor<1x3xf32>
  %l = amp.reduce_sum %m {axes = array<i64: 0, 1>} : tensor<1x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
