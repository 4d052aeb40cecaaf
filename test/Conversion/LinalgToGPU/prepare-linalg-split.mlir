// RUN: amp-opt %s -split-input-file --amp-gpu-prepare-linalg | FileCheck %s

// Long column sums with few columns (bias and LayerNorm weight gradients
// over many tokens) are split by amp-gpu-prepare-linalg: partial sums of
// row ranges into a temporary (ranges x columns threads instead of one per
// column, which cannot keep the memory busy; docs/CostModel.md), then a sum
// of the partials into the output. 8192 rows, 64 columns: 128 ranges of 64
// rows (128 * 64 threads, at least 64 rows each). The second stage is a
// parallel loop over the columns summing the partials in a register, from
// the output's value, or from the constant of the output's zero fill, which
// then goes (one launch fewer).

// CHECK-DAG: #[[STAGE1_IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[STAGE1_OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @bias_grad
//  CHECK-SAME:     (%[[X:.+]]: memref<8192x64xbf16>, %[[OUT:.+]]: memref<64xf32>)
//       CHECK:   %[[PARTIALS:.+]] = memref.alloc() : memref<128x64xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[PARTIALS]] : memref<128x64xf32>)
//       CHECK:   %[[VIEW:.+]] = memref.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [128, 64, 64] : memref<8192x64xbf16> into memref<128x64x64xbf16>
//       CHECK:   linalg.generic {indexing_maps = [#[[STAGE1_IN]], #[[STAGE1_OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
//  CHECK-SAME:       ins(%[[VIEW]] : memref<128x64x64xbf16>) outs(%[[PARTIALS]] : memref<128x64xf32>)
//       CHECK:     arith.extf
//       CHECK:     arith.addf
//       CHECK:   scf.parallel (%[[COL:.+]]) = (%{{.+}}) to (%{{.+}}) step
//       CHECK:     %[[INIT:.+]] = memref.load %[[OUT]][%[[COL]]] : memref<64xf32>
//       CHECK:     %[[SUM:.+]] = scf.for %[[S:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
//       CHECK:       %[[P:.+]] = memref.load %[[PARTIALS]][%[[S]], %[[COL]]] : memref<128x64xf32>
//       CHECK:       %[[NEXT:.+]] = arith.addf %[[ACC]], %[[P]] : f32
//       CHECK:       scf.yield %[[NEXT]] : f32
//       CHECK:     memref.store %[[SUM]], %[[OUT]][%[[COL]]] : memref<64xf32>
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
//       CHECK:   scf.parallel
//       CHECK:     memref.load %[[PARTIALS]]
//       CHECK:     memref.store %{{.+}}, %arg3
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

// -----

// LayerNorm's weight and bias gradients: two column sums over the same
// loops reading the same output gradient %dy (the fill of the second's
// output between them) become one generic with two outputs, split as one:
// stage 1 reads %dy once for both sums, one partials buffer per output,
// stage 2 sums both in one loop, the bias gradient from its fill's constant
// (the fill goes), the weight gradient from its value.
// CHECK-LABEL: func.func @norm_weight_and_bias_grads
//  CHECK-SAME:     (%[[DY:.+]]: memref<8192x64xf32>, %[[XH:.+]]: memref<8192x64xf32>, %[[WG:.+]]: memref<64xf32>)
//       CHECK:   %[[BG:.+]] = memref.alloc() : memref<64xf32>
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//   CHECK-NOT:   linalg.fill ins(%{{.+}} : f32) outs(%[[BG]]
//       CHECK:   %[[P0:.+]] = memref.alloc() : memref<128x64xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[P0]] : memref<128x64xf32>)
//       CHECK:   %[[P1:.+]] = memref.alloc() : memref<128x64xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[P1]] : memref<128x64xf32>)
//       CHECK:   %[[VDY:.+]] = memref.expand_shape %[[DY]]
//       CHECK:   %[[VXH:.+]] = memref.expand_shape %[[XH]]
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:       ins(%[[VDY]], %[[VXH]] : memref<128x64x64xf32>, memref<128x64x64xf32>) outs(%[[P0]], %[[P1]] : memref<128x64xf32>, memref<128x64xf32>)
//       CHECK:     ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[O0:.+]]: f32, %[[O1:.+]]: f32):
//       CHECK:     %[[M:.+]] = arith.mulf %[[A]], %[[B]] : f32
//       CHECK:     %[[S0:.+]] = arith.addf %[[O0]], %[[M]] : f32
//       CHECK:     %[[S1:.+]] = arith.addf %[[O1]], %[[A]] : f32
//       CHECK:     linalg.yield %[[S0]], %[[S1]] : f32, f32
//       CHECK:   scf.parallel (%[[COL:.+]]) =
//       CHECK:     %[[W0:.+]] = memref.load %[[WG]][%[[COL]]]
//       CHECK:     %[[SUMS:.+]]:2 = scf.for %[[S:.+]] = {{.+}} iter_args(%[[A0:.+]] = %[[W0]], %[[A1:.+]] = %[[ZERO]]) -> (f32, f32)
//       CHECK:       memref.load %[[P0]][%[[S]], %[[COL]]]
//       CHECK:       memref.load %[[P1]][%[[S]], %[[COL]]]
//       CHECK:     memref.store %[[SUMS]]#0, %[[WG]][%[[COL]]]
//       CHECK:     memref.store %[[SUMS]]#1, %[[BG]][%[[COL]]]
//   CHECK-DAG:   memref.dealloc %[[P0]]
//   CHECK-DAG:   memref.dealloc %[[P1]]
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[BG]]
func.func @norm_weight_and_bias_grads(%dy: memref<8192x64xf32>, %xhat: memref<8192x64xf32>, %wg: memref<64xf32>) -> memref<64xf32> {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy, %xhat : memref<8192x64xf32>, memref<8192x64xf32>) outs(%wg : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  %bg = memref.alloc() : memref<64xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%bg : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<8192x64xf32>) outs(%bg : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  return %bg : memref<64xf32>
}

// -----

// Not merged: the second sum reads the first's output, or an op between
// them writes memory, or they read no buffer in common.
// CHECK-LABEL: func.func @not_merged
// CHECK-COUNT-4: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT: iterator_types = ["parallel", "parallel", "reduction"]
func.func @not_merged(%dy: memref<8192x64xf32>, %y: memref<8192x64xf32>, %o0: memref<64xf32>, %o1: memref<64x64xf32>,
                      %o2: memref<64xf32>, %o3: memref<64xf32>, %o4: memref<64xf32>, %o5: memref<64xf32>,
                      %o6: memref<64xf32>, %o7: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<8192x64xf32>) outs(%o0 : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy, %o0 : memref<8192x64xf32>, memref<64xf32>) outs(%o2 : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  memref.copy %o6, %o7 : memref<64xf32> to memref<64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<8192x64xf32>) outs(%o3 : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%y : memref<8192x64xf32>) outs(%o4 : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  return
}
