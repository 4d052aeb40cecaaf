// RUN: amp-opt %s -split-input-file --amp-gpu-prepare-linalg | FileCheck %s

// Long column sums with few columns (bias and LayerNorm weight gradients
// over many tokens) are split by amp-gpu-prepare-linalg: partial sums of
// row ranges into a temporary (ranges x columns threads instead of one per
// column, which cannot keep the memory busy; docs/CostModel.md), then a sum
// of the partials into the output. 8192 rows, 64 columns: 128 ranges of 64
// rows (128 * 64 threads, at least 64 rows each).

// CHECK-DAG: #[[STAGE1_IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[STAGE1_OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[STAGE2_IN:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[STAGE2_OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @bias_grad
//  CHECK-SAME:     (%[[X:.+]]: memref<8192x64xbf16>, %[[OUT:.+]]: memref<64xf32>)
//       CHECK:   %[[PARTIALS:.+]] = memref.alloc() : memref<128x64xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[PARTIALS]] : memref<128x64xf32>)
//       CHECK:   %[[VIEW:.+]] = memref.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [128, 64, 64] : memref<8192x64xbf16> into memref<128x64x64xbf16>
//       CHECK:   linalg.generic {indexing_maps = [#[[STAGE1_IN]], #[[STAGE1_OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
//  CHECK-SAME:       ins(%[[VIEW]] : memref<128x64x64xbf16>) outs(%[[PARTIALS]] : memref<128x64xf32>)
//       CHECK:     arith.extf
//       CHECK:     arith.addf
//       CHECK:   linalg.generic {indexing_maps = [#[[STAGE2_IN]], #[[STAGE2_OUT]]], iterator_types = ["parallel", "reduction"]}
//  CHECK-SAME:       ins(%[[PARTIALS]] : memref<128x64xf32>) outs(%[[OUT]] : memref<64xf32>)
//       CHECK:     arith.addf
//       CHECK:   memref.dealloc %[[PARTIALS]] : memref<128x64xf32>
func.func @bias_grad(%x: memref<8192x64xbf16>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<8192x64xbf16>) outs(%out : memref<64xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %e = arith.extf %in : bf16 to f32
    %0 = arith.addf %acc, %e : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Two reduction loops (batch 8, sequence 1024) and a broadcast input (the
// LayerNorm weight gradient's shape): the longest loop is split, 128 ranges
// of 8 positions, the batch loop stays in each thread (64 rows); the
// per-column input is not expanded.
// CHECK-LABEL: func.func @weight_grad_3d
//       CHECK:   %[[PARTIALS:.+]] = memref.alloc() : memref<128x32xf32>
//       CHECK:   %[[DY:.+]] = memref.expand_shape %arg0 {{\[}}[0], [1, 2], [3]] output_shape [8, 128, 8, 32]
//       CHECK:   %[[XH:.+]] = memref.expand_shape %arg1 {{\[}}[0], [1, 2], [3]] output_shape [8, 128, 8, 32]
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
//  CHECK-SAME:       ins(%[[DY]], %[[XH]], %arg2 : memref<8x128x8x32xf32>, memref<8x128x8x32xf32>, memref<32xf32>) outs(%[[PARTIALS]] : memref<128x32xf32>)
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:       ins(%[[PARTIALS]] : memref<128x32xf32>) outs(%arg3 : memref<32xf32>)
func.func @weight_grad_3d(%dy: memref<8x1024x32xf32>, %xhat: memref<8x1024x32xf32>, %w: memref<32xf32>, %out: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>],
                  iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%dy, %xhat, %w : memref<8x1024x32xf32>, memref<8x1024x32xf32>, memref<32xf32>) outs(%out : memref<32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// Left alone: too few rows (the small examples), and a max (only sums are
// split).
// CHECK-LABEL: func.func @short_or_max
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.expand_shape
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:       ins(%arg0 : memref<2048x64xf32>)
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:       ins(%arg2 : memref<8192x64xf32>)
//       CHECK:     arith.maximumf
//   CHECK-NOT:   memref.alloc
func.func @short_or_max(%x: memref<2048x64xf32>, %out: memref<64xf32>, %y: memref<8192x64xf32>, %max: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<2048x64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%y : memref<8192x64xf32>) outs(%max : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}
