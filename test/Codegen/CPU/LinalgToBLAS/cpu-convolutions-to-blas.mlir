// RUN: amp-opt %s -split-input-file --amp-cpu-contractions-to-blas -canonicalize | FileCheck %s

// Convolutions (the grouped correlations amp's lowering emits: loops
// n, g, o, oh, ow | c, kh, kw over a padded input) become one cblas_sgemm
// per group for all images at once: C[o, (n, oh, ow)] = W[o, (c, kh, kw)] *
// col[(c, kh, kw), (n, oh, ow)]. The weight is read in place; the input
// window is first copied into a dense column buffer (im2col) and the
// product, in [g, o, n, oh, ow] order, is copied into the output after the
// call (added to it unless the output was just zeroed); both buffers are
// freed after use.

#in = affine_map<(n, g, o, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, o, oh, ow, c, kh, kw) -> (g, o, c, kh, kw)>
#out = affine_map<(n, g, o, oh, ow, c, kh, kw) -> (n, g, o, oh, ow)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[ID5:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[BACK:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1, d3, d4)>
// CHECK-LABEL: func.func @conv3x3
// CHECK-SAME: (%[[X:.+]]: memref<2x1x3x6x6xf32>, %[[W:.+]]: memref<1x4x3x3x3xf32>)
// CHECK-DAG: %[[NOTRANS:.+]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[N:.+]] = arith.constant 32 : i32
// CHECK-DAG: %[[K:.+]] = arith.constant 27 : i32
// CHECK-DAG: %[[BETA:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<2x1x4x4x4xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[PRODUCT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x2x4x4xf32>
// CHECK: %[[COLS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3x2x4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : memref<2x1x3x6x6xf32>) outs(%[[COLS]] : memref<1x3x3x3x2x4x4xf32>)
// CHECK-NOT: scf.for
// CHECK: call @amp_cpu_sgemm(%{{.+}}, %[[NOTRANS]], %[[NOTRANS]], %[[M]], %[[N]], %[[K]], %{{.+}}, %{{.+}}, %[[K]], %{{.+}}, %[[N]], %[[BETA]], %{{.+}}, %[[N]])
// CHECK: memref.dealloc %[[COLS]]
// CHECK: linalg.generic {indexing_maps = [#[[ID5]], #[[BACK]]], {{.+}} ins(%[[PRODUCT]] : memref<1x4x2x4x4xf32>) outs(%[[OUT]] : memref<2x1x4x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: memref.dealloc %[[PRODUCT]]
func.func @conv3x3(%x: memref<2x1x3x6x6xf32>, %w: memref<1x4x3x3x3xf32>) -> memref<2x1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<2x1x4x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<2x1x4x4x4xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<2x1x3x6x6xf32>, memref<1x4x3x3x3xf32>) outs(%out : memref<2x1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return %out : memref<2x1x4x4x4xf32>
}

// -----

// Into an output that may hold anything (a function argument), the copy
// adds. A weight gradient (loops g, o, c, kh, kw | n, oh, ow) is one
// product C[o, (c, kh, kw)] = dY[o, (n, oh, ow)] * X[(n, oh, ow), (c, kh, kw)]
// straight into the output, whose two operands are both copied (n is
// outside o and c in memory).
#in = affine_map<(n, g, o, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, o, oh, ow, c, kh, kw) -> (g, o, c, kh, kw)>
#out = affine_map<(n, g, o, oh, ow, c, kh, kw) -> (n, g, o, oh, ow)>
#dy = affine_map<(g, o, c, kh, kw, n, oh, ow) -> (n, g, o, oh, ow)>
#x = affine_map<(g, o, c, kh, kw, n, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#dw = affine_map<(g, o, c, kh, kw, n, oh, ow) -> (g, o, c, kh, kw)>
// CHECK-LABEL: func.func @conv1x1
// CHECK-SAME: %[[Y:[^:]+]]: memref<2x1x8x4x4xf32>, %{{[^:]+}}: memref<2x1x8x4x4xf32>, %[[DW:[^:]+]]: memref<1x8x3x1x1xf32>)
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i32
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: call @amp_cpu_sgemm(%{{.+}}, %{{.+}}, %{{.+}}, %[[C8]], %[[C32]], %[[C3]], %[[ONE]], %{{.+}}, %[[C3]], %{{.+}}, %[[C32]], %[[ZERO]], %{{.+}}, %[[C32]])
// CHECK: linalg.generic {{.+}} outs(%[[Y]] : memref<2x1x8x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[OLD:.+]]: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[OLD]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x8x2x4x4xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x4x4x3x1x1xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[DW]]
// CHECK: call @amp_cpu_sgemm(%{{.+}}, %{{.+}}, %{{.+}}, %[[C8]], %[[C3]], %[[C32]], %[[ONE]], %{{.+}}, %[[C32]], %{{.+}}, %[[C3]], %[[ONE]], %{{.+}}, %[[C3]])
// CHECK-COUNT-2: memref.dealloc
// CHECK-NOT: linalg.generic
func.func @conv1x1(%x: memref<2x1x3x4x4xf32>, %w: memref<1x8x3x1x1xf32>, %y: memref<2x1x8x4x4xf32>,
                   %dy: memref<2x1x8x4x4xf32>, %dw: memref<1x8x3x1x1xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<2x1x3x4x4xf32>, memref<1x8x3x1x1xf32>) outs(%y : memref<2x1x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#dy, #x, #dw], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : memref<2x1x8x4x4xf32>, memref<2x1x3x4x4xf32>) outs(%dw : memref<1x8x3x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Left for the loops: a window over both inputs (no output dimension
// that only one of them reads) and a dot product (no M or N).
#a = affine_map<(i, k) -> (i + k)>
#b = affine_map<(i, k) -> (k)>
#c = affine_map<(i, k) -> (i)>
#d = affine_map<(i, k) -> (i, k)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: amp_cpu_sgemm
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: amp_cpu_sgemm
func.func @left_alone(%x: memref<10xf32>, %k: memref<3xf32>, %y: memref<8xf32>,
                      %u: memref<8x3xf32>, %v: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction"]}
      ins(%x, %k : memref<10xf32>, memref<3xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#d, #d, #c], iterator_types = ["parallel", "reduction"]}
      ins(%u, %v : memref<8x3xf32>, memref<8x3xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
