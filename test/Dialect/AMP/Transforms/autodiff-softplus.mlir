// The backward rule of amp.softplus: softplus'(x) = sigmoid(x), composed of
// existing ops (PyTorch's softplus_backward with beta = 1).

// RUN: amp-opt %s --amp-autodiff=optimizer=none | FileCheck %s

// CHECK-LABEL: func.func @softplus_grad(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32>
// CHECK:         %[[SEED:.*]] = amp.seed
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[SIG:.*]] = amp.sigmoid %[[W]] : tensor<3xf32>
// CHECK-NEXT:    %[[D:.*]] = amp.mul %[[G]], %[[SIG]] : tensor<3xf32>
// CHECK-NEXT:    return %{{.*}}, %[[D]]
func.func @softplus(%w: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.softplus %w : tensor<3xf32>
  %l = amp.reduce_sum %s {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
