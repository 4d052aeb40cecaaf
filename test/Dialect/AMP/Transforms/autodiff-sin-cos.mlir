// The backward rules of amp.sin and amp.cos: sin'(x) = cos(x) and
// cos'(x) = -sin(x), composed of existing ops (PyTorch's sin and cos
// derivatives).

// RUN: amp-opt %s -split-input-file --amp-autodiff=optimizer=none | FileCheck %s

// CHECK-LABEL: func.func @sin_grad(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32>
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[COS:.*]] = amp.cos %[[W]] : tensor<3xf32>
// CHECK-NEXT:    %[[D:.*]] = amp.mul %[[G]], %[[COS]] : tensor<3xf32>
// CHECK-NEXT:    return %{{.*}}, %[[D]]
func.func @sin(%w: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.sin %w : tensor<3xf32>
  %l = amp.reduce_sum %s {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @cos_grad(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32>
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[SIN:.*]] = amp.sin %[[W]] : tensor<3xf32>
// CHECK-NEXT:    %[[NEG:.*]] = amp.neg %[[G]] : tensor<3xf32>
// CHECK-NEXT:    %[[D:.*]] = amp.mul %[[NEG]], %[[SIN]] : tensor<3xf32>
// CHECK-NEXT:    return %{{.*}}, %[[D]]
func.func @cos(%w: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.cos %w : tensor<3xf32>
  %l = amp.reduce_sum %s {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

