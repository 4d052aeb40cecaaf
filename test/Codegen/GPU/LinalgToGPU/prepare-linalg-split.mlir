// RUN: amp-opt %s -split-input-file --amp-gpu-prepare-linalg | FileCheck %s

// Long column sums with few columns (bias and LayerNorm weight gradients
// over many tokens) are split by amp-gpu-prepare-linalg: partial sums of
// row ranges into a temporary (ranges x columns threads instead of one per
// column, which cannot keep the memory busy; docs/CostModel.md), then a sum
// of the partials into the output. 8192 rows, 64 columns: 256 ranges of 32
// rows (256 * 64 threads, at least 32 rows each). Stage 1 is a parallel
// loop over (range, column), each thread summing its rows in a register
// from -0 (the identity of the sum) and storing it: the partials, laid out
// [column, range], need no zero fill. Stage 2 is a row reduction: one block
// per column, a thread per range, gpu.all_reduce, and thread 0 adds the
// total to the output's value, or to the constant of the output's zero
// fill, which then goes (one launch fewer).

// CHECK-LABEL: func.func @bias_grad
//  CHECK-SAME:     (%[[X:.+]]: memref<8192x64xbf16>, %[[OUT:.+]]: memref<64xf32>)
//       CHECK:   %[[PARTIALS:.+]] = memref.alloc() : memref<64x256xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[VIEW:.+]] = memref.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [256, 32, 64] : memref<8192x64xbf16> into memref<256x32x64xbf16>
//       CHECK:   scf.parallel (%[[S:.+]], %[[COL:.+]]) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %{{.+}}) step
//       CHECK:     %[[ID:.+]] = arith.constant -0.000000e+00 : f32
//       CHECK:     %[[SUM:.+]] = scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (f32) {
//       CHECK:       %[[E:.+]] = memref.load %[[VIEW]][%[[S]], %[[R]], %[[COL]]] : memref<256x32x64xbf16>
//       CHECK:       %[[W:.+]] = arith.extf %[[E]] : bf16 to f32
//       CHECK:       %[[NEXT:.+]] = arith.addf %[[ACC]], %[[W]] : f32
//       CHECK:       scf.yield %[[NEXT]] : f32
//       CHECK:     memref.store %[[SUM]], %[[PARTIALS]][%[[COL]], %[[S]]] : memref<64x256xf32>
//       CHECK:   gpu.launch blocks(%[[B:[a-z0-9_]+]], {{.+}}) threads(
//       CHECK:     %[[P:.+]] = memref.load %[[PARTIALS]][%[[B]], %{{.+}}] : memref<64x256xf32>
//       CHECK:     %[[TOTAL:.+]] = gpu.all_reduce add %{{.+}} uniform
//       CHECK:     scf.if
//       CHECK:       %[[OLD:.+]] = memref.load %[[OUT]][%[[B]]] : memref<64xf32>
//       CHECK:       %[[NEW:.+]] = arith.addf %[[OLD]], %[[TOTAL]] : f32
//       CHECK:       memref.store %[[NEW]], %[[OUT]][%[[B]]] : memref<64xf32>
//       CHECK:   memref.dealloc %[[PARTIALS]] : memref<64x256xf32>
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
// LayerNorm weight gradient's shape): the longest loop is split, 256 ranges
// of 4 positions, the batch loop stays in each thread (32 rows, batch
// outermost: one loop over both, delinearized); the per-column input is
// not expanded.
// CHECK-LABEL: func.func @weight_grad_3d
//       CHECK:   %[[PARTIALS:.+]] = memref.alloc() : memref<32x256xf32>
//       CHECK:   %[[DY:.+]] = memref.expand_shape %arg0 {{\[}}[0], [1, 2], [3]] output_shape [8, 256, 4, 32]
//       CHECK:   %[[XH:.+]] = memref.expand_shape %arg1 {{\[}}[0], [1, 2], [3]] output_shape [8, 256, 4, 32]
//       CHECK:   scf.parallel (%[[S:.+]], %[[COL:.+]]) =
//       CHECK:     scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step
//       CHECK:       %[[POS:.+]] = arith.remui %[[J]], %{{.+}} : index
//       CHECK:       %[[BATCH:.+]] = arith.divui %[[J]], %{{.+}} : index
//       CHECK:       memref.load %[[DY]][%[[BATCH]], %[[S]], %[[POS]], %[[COL]]]
//       CHECK:       memref.load %[[XH]][%[[BATCH]], %[[S]], %[[POS]], %[[COL]]]
//       CHECK:       memref.load %arg2[%[[COL]]]
//       CHECK:     memref.store %{{.+}}, %[[PARTIALS]][%[[COL]], %[[S]]]
//       CHECK:   gpu.launch
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
// stage 2 sums both in one launch, the bias gradient from its fill's
// constant (the fill goes), the weight gradient from its value.
// CHECK-LABEL: func.func @norm_weight_and_bias_grads
//  CHECK-SAME:     (%[[DY:.+]]: memref<8192x64xf32>, %[[XH:.+]]: memref<8192x64xf32>, %[[WG:.+]]: memref<64xf32>)
//       CHECK:   %[[BG:.+]] = memref.alloc() : memref<64xf32>
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[P0:.+]] = memref.alloc() : memref<64x256xf32>
//       CHECK:   %[[P1:.+]] = memref.alloc() : memref<64x256xf32>
//       CHECK:   %[[VDY:.+]] = memref.expand_shape %[[DY]]
//       CHECK:   %[[VXH:.+]] = memref.expand_shape %[[XH]]
//       CHECK:   scf.parallel (%[[S:.+]], %[[COL:.+]]) =
//       CHECK:     %[[SUMS:.+]]:2 = scf.for {{.+}} -> (f32, f32)
//       CHECK:       %[[A:.+]] = memref.load %[[VDY]]
//       CHECK:       %[[B:.+]] = memref.load %[[VXH]]
//       CHECK:       %[[M:.+]] = arith.mulf %[[A]], %[[B]] : f32
//       CHECK:       arith.addf %{{.+}}, %[[M]] : f32
//       CHECK:       arith.addf %{{.+}}, %[[A]] : f32
//       CHECK:     memref.store %[[SUMS]]#0, %[[P0]][%[[COL]], %[[S]]]
//       CHECK:     memref.store %[[SUMS]]#1, %[[P1]][%[[COL]], %[[S]]]
//       CHECK:   gpu.launch blocks(%[[ROW:[a-z0-9_]+]], %{{.+}}, %{{.+}}) in
//       CHECK:     memref.load %[[P0]][%[[ROW]], %{{.+}}]
//       CHECK:     memref.load %[[P1]][%[[ROW]], %{{.+}}]
//       CHECK:     %[[T0:.+]] = gpu.all_reduce add
//       CHECK:     %[[T1:.+]] = gpu.all_reduce add
//       CHECK:     scf.if
//       CHECK:       %[[W0:.+]] = memref.load %[[WG]][%[[ROW]]]
//       CHECK:       %[[N0:.+]] = arith.addf %[[W0]], %[[T0]]
//       CHECK:       memref.store %[[N0]], %[[WG]][%[[ROW]]]
//       CHECK:       %[[N1:.+]] = arith.addf %[[ZERO]], %[[T1]]
//       CHECK:       memref.store %[[N1]], %[[BG]][%[[ROW]]]
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
// CHECK-COUNT-4: scf.for {{.+}} -> (f32) {
// CHECK-NOT: scf.for
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
