// amp.softplus parses, verifies and prints, in the custom and the generic
// form (the example op of docs/AddingOpsAndPasses.md).

// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @softplus
// CHECK:         %[[A:.*]] = amp.softplus %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[B:.*]] = amp.softplus %{{.*}} : tensor<2xbf16>
// CHECK:         %[[C:.*]] = amp.softplus %{{.*}} : tensor<f16>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @softplus(%x: tensor<4x8xf32>, %y: tensor<2xbf16>, %z: tensor<f16>)
    -> (tensor<4x8xf32>, tensor<2xbf16>, tensor<f16>) {
  %0 = amp.softplus %x : tensor<4x8xf32>
  %1 = amp.softplus %y : tensor<2xbf16>
  %2 = amp.softplus %z : tensor<f16>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<2xbf16>, tensor<f16>
}
