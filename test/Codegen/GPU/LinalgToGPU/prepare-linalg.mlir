// RUN: amp-opt %s -split-input-file --amp-gpu-prepare-linalg | FileCheck %s

// Copies involving a strided view become linalg.copy (a kernel later);
// copies between dense buffers stay (gpu.memcpy later). Generics with a
// reduction loop before a parallel one get their parallel loops first.

// CHECK-LABEL: func.func @copy_into_view
//  CHECK-SAME:     (%[[SRC:.+]]: memref<4x4xf32>, %[[DST:.+]]: memref<6x6xf32>)
//       CHECK:   %[[VIEW:.+]] = memref.subview %[[DST]][1, 1] [4, 4] [1, 1]
//       CHECK:   linalg.copy ins(%[[SRC]] : memref<4x4xf32>) outs(%[[VIEW]] : memref<4x4xf32, strided<[6, 1], offset: 7>>)
//   CHECK-NOT:   memref.copy
func.func @copy_into_view(%src: memref<4x4xf32>, %dst: memref<6x6xf32>) {
  %view = memref.subview %dst[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %view : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return
}

// -----

// CHECK-LABEL: func.func @copy_out_of_view
//       CHECK:   %[[VIEW:.+]] = memref.subview
//       CHECK:   linalg.copy ins(%[[VIEW]] : memref<2x8xf32, strided<[8, 1], offset: 16>>) outs(%{{.+}} : memref<2x8xf32>)
func.func @copy_out_of_view(%src: memref<4x8xf32>, %dst: memref<2x8xf32>) {
  %view = memref.subview %src[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %view, %dst : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @dense_copy_stays
//       CHECK:   memref.copy %arg0, %arg1 : memref<4x4xf32> to memref<4x4xf32>
//   CHECK-NOT:   linalg.copy
func.func @dense_copy_stays(%src: memref<4x4xf32>, %dst: memref<4x4xf32>) {
  memref.copy %src, %dst : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// A column sum (a bias gradient): the reduction over the rows comes first;
// after the interchange the column loop is outermost.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
//       CHECK:   linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
//  CHECK-SAME:       ins(%arg0 : memref<32x64xf32>) outs(%arg1 : memref<64xf32>)
//       CHECK:     arith.addf
func.func @column_sum(%x: memref<32x64xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<32x64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Parallel loops in their order, then the reductions in theirs.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @interleaved
//       CHECK:   linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
func.func @interleaved(%x: memref<2x3x4x5xf32>, %out: memref<3x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d3)>],
                  iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
      ins(%x : memref<2x3x4x5xf32>) outs(%out : memref<3x5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Already parallel-first (a row sum), or without reductions: unchanged.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @unchanged
//       CHECK:   linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
//       CHECK:   linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
func.func @unchanged(%x: memref<32x64xf32>, %rows: memref<32xf32>, %y: memref<32x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<32x64xf32>) outs(%rows : memref<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<32x64xf32>) outs(%y : memref<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  return
}
