// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// padding_idx on amp.gather and amp.gather_grad (nn.Embedding(padding_idx=p))
// survives printing and parsing, in the custom and the generic form; without
// it the attribute is absent, not defaulted.

// CHECK-LABEL: func.func @embedding_padding
// CHECK: amp.gather %{{.*}}, %{{.*}} {padding_idx = 3 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK: amp.gather_grad %{{.*}}, %{{.*}} {padding_idx = 0 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// CHECK: amp.gather %{{.*}}, %{{.*}} {axis = -2 : i64, padding_idx = 9 : i64} : (tensor<10x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
// CHECK: amp.gather %{{.*}}, %{{.*}} : (tensor<10x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
func.func @embedding_padding(%t: tensor<10x4xf32>, %ids: tensor<2x3xi64>, %g: tensor<2x3x4xf32>, %i32: tensor<5xi32>)
    -> (tensor<2x3x4xf32>, tensor<10x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>) {
  %0 = amp.gather %t, %ids {axis = 0 : i64, padding_idx = 3 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %1 = amp.gather_grad %g, %ids {padding_idx = 0 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  // Axis -rank is axis 0.
  %2 = amp.gather %t, %i32 {axis = -2 : i64, padding_idx = 9 : i64} : (tensor<10x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
  %3 = amp.gather %t, %i32 : (tensor<10x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
  return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<10x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>
}
