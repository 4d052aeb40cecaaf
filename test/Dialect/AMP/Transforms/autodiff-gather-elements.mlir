// RUN: amp-opt %s --amp-autodiff="optimizer=none" | FileCheck %s

// torch.gather's backward: the input gets amp.scatter_add_elements of the
// output gradient through the same indices and axis, in the input's type;
// the indices get none.

// CHECK-LABEL: func.func @gather_grad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x10xf32> {amp.name = "x"
// CHECK-SAME:    %[[IDX:[^:]*]]: tensor<4x3xi64>
// CHECK:         amp.gather_elements %[[X]], %[[IDX]] {axis = 1 : i64}
// CHECK:         %[[DX:.*]] = amp.scatter_add_elements %{{.*}}, %[[IDX]] {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
// CHECK:         return %{{.*}}, %[[DX]]
func.func @gather(%x: tensor<4x10xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                  %idx: tensor<4x3xi64> {amp.role = #amp.role<input>, amp.name = "idx"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %g = amp.gather_elements %x, %idx {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  %s = amp.mul %g, %g : tensor<4x3xf32>
  %l = amp.reduce_sum %s {axes = array<i64: 0, 1>} : tensor<4x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
