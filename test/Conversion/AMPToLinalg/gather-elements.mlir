// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// amp.gather_elements: one element per index, read with tensor.extract at
// the index (negative counts from the end, clamped so that no read leaves
// the tensor; amp-check-indices reports what was out of range) along the
// axis and the loop position elsewhere.

// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x10xf32>, %[[IDX:[a-z0-9_]+]]: tensor<4x3xi64>)
// CHECK: linalg.generic {{.*}} ins(%[[IDX]] : tensor<4x3xi64>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK-NEXT: ^bb0(%[[I:[a-z0-9_]+]]: i64, %{{.+}}: f32):
// CHECK-NEXT: %[[ROW:.+]] = linalg.index 0 : index
// CHECK-NEXT: arith.index_cast %[[I]] : i64 to index
// CHECK: %[[COL:.+]] = arith.minsi
// CHECK-NEXT: %[[V:.+]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<4x10xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @gather_elements(%x: tensor<4x10xf32>, %idx: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %0 = amp.gather_elements %x, %idx {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// amp.scatter_add_elements: per result element, an f32 sum over the
// indices' extent along the axis of the gradients whose index names it
// (loops q0, q1 | t), rounded to the result type; the rows the shorter
// indices do not cover (here row 2 of 3) are zero.

// CHECK-DAG: #[[$READ:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @scatter_add_elements
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<2x4xbf16>, %[[IDX:[a-z0-9_]+]]: tensor<2x4xi32>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x5xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$READ]], #[[$READ]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[G]], %[[IDX]] : tensor<2x4xbf16>, tensor<2x4xi32>) outs(%[[INIT]] : tensor<2x5xf32>)
// CHECK: %[[Q:.+]] = linalg.index 1 : index
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %{{.+}}, %[[Q]] : index
// CHECK: arith.addf
// CHECK: arith.select %[[HIT]]
// CHECK: %[[ROUNDED:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x5xf32>) outs(%{{.+}} : tensor<2x5xbf16>)
// CHECK: %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : bf16) outs(%{{.+}} : tensor<3x5xbf16>)
// CHECK: %[[RES:.+]] = tensor.insert_slice %[[ROUNDED]] into %[[ZEROS]][0, 0] [2, 5] [1, 1] : tensor<2x5xbf16> into tensor<3x5xbf16>
// CHECK: return %[[RES]] : tensor<3x5xbf16>
func.func @scatter_add_elements(%g: tensor<2x4xbf16>, %idx: tensor<2x4xi32>) -> tensor<3x5xbf16> {
  %0 = amp.scatter_add_elements %g, %idx {axis = 1 : i64} : (tensor<2x4xbf16>, tensor<2x4xi32>) -> tensor<3x5xbf16>
  return %0 : tensor<3x5xbf16>
}
