// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// gather_grad with padding_idx p: the scatter-add of test/Conversion/
// AMPToLinalg/convolution.mlir (@gather_grad), with the hit also required to
// be off row p, so that row stays zero (the entries naming p are exactly
// those that would land there). Trained on the CPU and the emulated CUDA
// device: test/amp-run/gather-padding*.test.

// Loops: k, h | i, j.
// CHECK-DAG: #[[$G:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-DAG: #[[$IDS:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @gather_grad_padding
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi64>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<10x4xf32>)
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$G]], #[[$IDS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[DY]], %[[IDS]] : tensor<2x3x4xf32>, tensor<2x3xi64>) outs(%[[INIT]] : tensor<10x4xf32>)
// CHECK-NEXT: ^bb0(%[[G:[a-z0-9_]+]]: f32, %[[I:[a-z0-9_]+]]: i64, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[K:.+]] = linalg.index 0 : index
// CHECK-NEXT: arith.index_cast %[[I]] : i64 to index
// CHECK: %[[IDX:.+]] = arith.minsi
// CHECK-NEXT: %[[HIT:.+]] = arith.cmpi eq, %[[IDX]], %[[K]] : index
// CHECK-NEXT: %[[P:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[OFF:.+]] = arith.cmpi ne, %[[K]], %[[P]] : index
// CHECK-NEXT: %[[USE:.+]] = arith.andi %[[HIT]], %[[OFF]] : i1
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ACC]], %[[G]] : f32
// CHECK-NEXT: %[[NEW:.+]] = arith.select %[[USE]], %[[SUM]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[NEW]] : f32
// CHECK: return %[[RES]] : tensor<10x4xf32>
func.func @gather_grad_padding(%dy: tensor<2x3x4xf32>, %ids: tensor<2x3xi64>) -> tensor<10x4xf32> {
  %0 = amp.gather_grad %dy, %ids {padding_idx = 3 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

// The forward reads row p like any other: padding_idx changes nothing there.
// CHECK-LABEL: func.func @gather_padding
// CHECK: linalg.generic
// CHECK-NOT: arith.cmpi ne
// CHECK: tensor.extract
// CHECK-NOT: arith.cmpi ne
// CHECK: return
func.func @gather_padding(%t: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = amp.gather %t, %ids {padding_idx = 3 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
