// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// gather_grad (axis 0, padding_idx p): the segmented sum of
// ConvolutionToLinalg.cpp. Keys: the clamped ids of the flattened indices
// (i32); pos[t] = #{u : key[u] < key[t] or (key[u] == key[t] and u < t)}
// and the sorted tokens and rows as i32 row reductions; the first position
// of each row by a binary search of ceil(log2(6 + 1)) = 3 steps; each
// result element sums its row's tokens in token order from +0 in an scf.for
// that row p skips (begin == end). Trained on the CPU and the emulated CUDA
// device: test/amp-run/gather-padding*.test; bits checked by
// test/Integration/CPU/gather_grad_segments.test.

// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$U:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$T:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @gather_grad_padding
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi64>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[IDS]] {{\[\[}}0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK: %[[KEYS:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel"]} ins(%[[FLAT]] : tensor<6xi64>) outs(%{{.+}} : tensor<6xi32>)
// CHECK: arith.minsi
// CHECK-NEXT: %[[KEY:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK-NEXT: linalg.yield %[[KEY]] : i32
// CHECK: %[[POS:.+]] = linalg.generic {indexing_maps = [#[[$U]], #[[$T]], #[[$T]]], iterator_types = ["parallel", "reduction"]} ins(%[[KEYS]], %[[KEYS]] : tensor<6xi32>, tensor<6xi32>) outs(%{{.+}} : tensor<6xi32>)
// CHECK-NEXT: ^bb0(%[[KU:[a-z0-9_]+]]: i32, %[[KT:[a-z0-9_]+]]: i32, %[[N:[a-z0-9_]+]]: i32):
// CHECK-NEXT: %[[T:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[U:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[LESS:.+]] = arith.cmpi slt, %[[KU]], %[[KT]] : i32
// CHECK-NEXT: %[[SAME:.+]] = arith.cmpi eq, %[[KU]], %[[KT]] : i32
// CHECK-NEXT: %[[EARLIER:.+]] = arith.cmpi ult, %[[U]], %[[T]] : index
// CHECK-NEXT: %[[TIE:.+]] = arith.andi %[[SAME]], %[[EARLIER]] : i1
// CHECK-NEXT: %[[BEFORE:.+]] = arith.ori %[[LESS]], %[[TIE]] : i1
// CHECK-NEXT: %[[ONE:.+]] = arith.extui %[[BEFORE]] : i1 to i32
// CHECK-NEXT: %[[COUNT:.+]] = arith.addi %[[N]], %[[ONE]] : i32
// CHECK-NEXT: linalg.yield %[[COUNT]] : i32
// CHECK: %[[SORTED:.+]]:2 = linalg.generic {indexing_maps = [#[[$U]], #[[$U]], #[[$T]], #[[$T]]], iterator_types = ["parallel", "reduction"]} ins(%[[POS]], %[[KEYS]] : tensor<6xi32>, tensor<6xi32>) outs(%{{.+}}, %{{.+}} : tensor<6xi32>, tensor<6xi32>)
// CHECK: %[[HIT:.+]] = arith.cmpi eq
// CHECK: %[[TOK:.+]] = arith.select %[[HIT]]
// CHECK-NEXT: %[[ROW:.+]] = arith.select %[[HIT]]
// CHECK-NEXT: arith.addi %{{.+}}, %[[TOK]] : i32
// CHECK-NEXT: arith.addi %{{.+}}, %[[ROW]] : i32
// CHECK: %[[STARTS:.+]] = linalg.generic {indexing_maps = [#[[$ID]]], iterator_types = ["parallel"]} outs(%{{.+}} : tensor<11xi32>)
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C3]] step %{{.+}} iter_args({{.+}}) -> (index, index)
// CHECK: tensor.extract %[[SORTED]]#1[%{{.+}}] : tensor<6xi32>
// CHECK: scf.yield
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<10x4xf32>)
// CHECK-NEXT: ^bb0(%{{.+}}: f32):
// CHECK-NEXT: %[[K:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[B:.+]] = tensor.extract %[[STARTS]][%[[K]]] : tensor<11xi32>
// CHECK-NEXT: %[[BEGIN:.+]] = arith.index_cast %[[B]] : i32 to index
// CHECK-NEXT: %[[K1:.+]] = arith.addi %[[K]], %[[C1]] : index
// CHECK-NEXT: %[[E:.+]] = tensor.extract %[[STARTS]][%[[K1]]] : tensor<11xi32>
// CHECK-NEXT: %[[END:.+]] = arith.index_cast %[[E]] : i32 to index
// CHECK-NEXT: %[[P:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[ISPAD:.+]] = arith.cmpi eq, %[[K]], %[[P]] : index
// CHECK-NEXT: %[[STOP:.+]] = arith.select %[[ISPAD]], %[[BEGIN]], %[[END]] : index
// CHECK-NEXT: %[[H:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SUM:.+]] = scf.for %[[I:.+]] = %[[BEGIN]] to %[[STOP]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[TOKEN:.+]] = tensor.extract %[[SORTED]]#0[%[[I]]] : tensor<6xi32>
// CHECK-NEXT: %[[TI:.+]] = arith.index_cast %[[TOKEN]] : i32 to index
// CHECK-NEXT: %[[C3B:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[J0:.+]] = arith.divui %[[TI]], %[[C3B]] : index
// CHECK-NEXT: %[[C3C:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[J1:.+]] = arith.remui %[[TI]], %[[C3C]] : index
// CHECK-NEXT: %[[G:.+]] = tensor.extract %[[DY]][%[[J0]], %[[J1]], %[[H]]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[NEXT:.+]] = arith.addf %[[ACC]], %[[G]] : f32
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
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
