// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// amp.gather_elements (torch.gather, ONNX GatherElements) and its gradient
// amp.scatter_add_elements print and parse in the custom and the generic
// form; the axis defaults to 0 and may be negative; away from the axis the
// indices may be shorter than the gathered tensor; the scatter-add may
// widen its result to f32; non_negative (torch.gather: no index counts from
// the end) survives both forms.

// CHECK-LABEL: func.func @gather_elements
// CHECK: amp.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
// CHECK: amp.gather_elements %{{.*}}, %{{.*}} : (tensor<4x10xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK: amp.gather_elements %{{.*}}, %{{.*}} {axis = -1 : i64, non_negative} : (tensor<4x10xbf16>, tensor<4x12xi64>) -> tensor<4x12xbf16>
// CHECK: amp.scatter_add_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
// CHECK: amp.scatter_add_elements %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<4x12xbf16>, tensor<4x12xi64>) -> tensor<4x10xf32>
func.func @gather_elements(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %j: tensor<2x3xi32>,
                           %h: tensor<4x10xbf16>, %k: tensor<4x12xi64>, %g: tensor<4x3xf32>,
                           %gh: tensor<4x12xbf16>)
    -> (tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x12xbf16>, tensor<4x10xf32>, tensor<4x10xf32>) {
  %0 = amp.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  %1 = amp.gather_elements %x, %j : (tensor<4x10xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  %2 = amp.gather_elements %h, %k {axis = -1 : i64, non_negative} : (tensor<4x10xbf16>, tensor<4x12xi64>) -> tensor<4x12xbf16>
  %3 = amp.scatter_add_elements %g, %i {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
  %4 = amp.scatter_add_elements %gh, %k {axis = -1 : i64} : (tensor<4x12xbf16>, tensor<4x12xi64>) -> tensor<4x10xf32>
  return %0, %1, %2, %3, %4 : tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x12xbf16>, tensor<4x10xf32>, tensor<4x10xf32>
}

// amp.gather takes non_negative too (PyTorch's embedding, index_select).
// CHECK-LABEL: func.func @gather_non_negative
// CHECK: amp.gather %{{.*}}, %{{.*}} {non_negative, padding_idx = 1 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
func.func @gather_non_negative(%t: tensor<10x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = amp.gather %t, %ids {non_negative, padding_idx = 1 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
