// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// gather_grad (axis 0, padding_idx p): the segmented sum of
// ConvolutionToLinalg.cpp. Keys: clamped row * 6 + token (i32) of the
// flattened indices; a bottom-up merge sort of ceil(log2(6)) = 3 gather-only
// passes (run widths 1, 2, 4), each output position finding how many of its
// pair's first run precede it by a binary search of log2(w) + 1 steps; the
// first position of each row k by a binary search for k * 6 of
// ceil(log2(6 + 1)) = 3 steps; each result element sums its row's tokens
// (sorted key mod 6) in token order from +0 in an scf.for that row p skips
// (begin == end). Trained on the CPU and the emulated CUDA device:
// test/amp-run/gather-padding*.test; bits checked by
// test/Integration/CPU/gather_grad_segments.test.

// CHECK-LABEL: func.func @gather_grad_padding
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi64>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[IDS]] {{\[\[}}0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK: %[[KEYS:.+]] = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[FLAT]] : tensor<6xi64>) outs(%{{.+}} : tensor<6xi32>)
// CHECK: %[[ROW:.+]] = arith.minsi
// CHECK-NEXT: %[[T:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[C6:.+]] = arith.constant 6 : index
// CHECK-NEXT: %[[SCALED:.+]] = arith.muli %[[ROW]], %[[C6]] : index
// CHECK-NEXT: %[[KEY:.+]] = arith.addi %[[SCALED]], %[[T]] : index
// CHECK-NEXT: %[[KEY32:.+]] = arith.index_cast %[[KEY]] : index to i32
// CHECK-NEXT: linalg.yield %[[KEY32]] : i32

// Pass w = 1: pairs of runs of 2; a one-step co-rank search reading A[mid]
// and B[k - mid - 1] (clamped into the tensor), then the smaller head.
// CHECK: %[[PASS1:.+]] = linalg.generic {{.*}}iterator_types = ["parallel"]} outs(%{{.+}} : tensor<6xi32>)
// CHECK: %[[P:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[Q:.+]] = arith.divui %[[P]], %{{.+}} : index
// CHECK-NEXT: %[[BASE:.+]] = arith.muli %[[Q]], %[[TWO]] : index
// CHECK-NEXT: %[[K:.+]] = arith.subi %[[P]], %[[BASE]] : index
// CHECK: %[[CO:.+]]:2 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[A:.+]] = tensor.extract %[[KEYS]][%{{.+}}] : tensor<6xi32>
// CHECK: %[[B:.+]] = tensor.extract %[[KEYS]][%{{.+}}] : tensor<6xi32>
// CHECK-NEXT: %[[ENOUGH:.+]] = arith.cmpi sgt, %[[A]], %[[B]] : i32
// CHECK: scf.yield
// CHECK: %[[HEADA:.+]] = tensor.extract %[[KEYS]][%{{.+}}] : tensor<6xi32>
// CHECK: %[[HEADB:.+]] = tensor.extract %[[KEYS]][%{{.+}}] : tensor<6xi32>
// CHECK: %[[AFIRST:.+]] = arith.cmpi slt, %[[HEADA]], %[[HEADB]] : i32
// CHECK: %[[PICK:.+]] = arith.select %{{.+}}, %[[HEADA]], %[[HEADB]] : i32
// CHECK-NEXT: linalg.yield %[[PICK]] : i32

// Passes w = 2 (two search steps) and w = 4 (three), each reading the last.
// CHECK: %[[PASS2:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<6xi32>)
// CHECK: scf.for
// CHECK: tensor.extract %[[PASS1]]
// CHECK: %[[SORTED:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<6xi32>)
// CHECK: scf.for
// CHECK: tensor.extract %[[PASS2]]
// CHECK-NOT: tensor.extract %[[PASS1]]

// start[k]: the lower bound of k * 6.
// CHECK: %[[STARTS:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<11xi32>)
// CHECK: %[[SK:.+]] = linalg.index 0 : index
// CHECK: %[[TARGET:.+]] = arith.muli %[[SK]], %{{.+}} : index
// CHECK-NEXT: %[[TARGET32:.+]] = arith.index_cast %[[TARGET]] : index to i32
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C3]] step %{{.+}} iter_args({{.+}}) -> (index, index)
// CHECK: %[[PROBE:.+]] = tensor.extract %[[SORTED]][%{{.+}}] : tensor<6xi32>
// CHECK: arith.cmpi slt, %[[PROBE]], %[[TARGET32]] : i32
// CHECK: scf.yield

// The sums.
// CHECK: %[[RES:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<10x4xf32>)
// CHECK-NEXT: ^bb0(%{{.+}}: f32):
// CHECK-NEXT: %[[RK:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[B0:.+]] = tensor.extract %[[STARTS]][%[[RK]]] : tensor<11xi32>
// CHECK-NEXT: %[[BEGIN:.+]] = arith.index_cast %[[B0]] : i32 to index
// CHECK-NEXT: %[[RK1:.+]] = arith.addi %[[RK]], %[[C1]] : index
// CHECK-NEXT: %[[E0:.+]] = tensor.extract %[[STARTS]][%[[RK1]]] : tensor<11xi32>
// CHECK-NEXT: %[[END:.+]] = arith.index_cast %[[E0]] : i32 to index
// CHECK-NEXT: %[[PAD:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[ISPAD:.+]] = arith.cmpi eq, %[[RK]], %[[PAD]] : index
// CHECK-NEXT: %[[STOP:.+]] = arith.select %[[ISPAD]], %[[BEGIN]], %[[END]] : index
// CHECK-NEXT: %[[H:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SUM:.+]] = scf.for %[[I:.+]] = %[[BEGIN]] to %[[STOP]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[SK0:.+]] = tensor.extract %[[SORTED]][%[[I]]] : tensor<6xi32>
// CHECK-NEXT: %[[SKI:.+]] = arith.index_cast %[[SK0]] : i32 to index
// CHECK-NEXT: %[[N:.+]] = arith.constant 6 : index
// CHECK-NEXT: %[[TOKEN:.+]] = arith.remui %[[SKI]], %[[N]] : index
// CHECK-NEXT: %[[C3B:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[J0:.+]] = arith.divui %[[TOKEN]], %[[C3B]] : index
// CHECK-NEXT: %[[C3C:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[J1:.+]] = arith.remui %[[TOKEN]], %[[C3C]] : index
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
