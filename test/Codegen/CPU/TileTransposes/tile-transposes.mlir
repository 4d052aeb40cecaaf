// RUN: amp-opt %s -split-input-file --amp-cpu-tile-transposes | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-transposes=tile=64 | FileCheck %s --check-prefix=TILE64

// The input gradient's weight transposition [Cout][Cin][9] -> [Cin][Cout][9]:
// the two transposed dimensions are tiled by 32 (a partial last tile of
// 80 = 2 * 32 + 16), the leading one by 1, and each tile copies its rows of
// the common suffix (9 contiguous elements on both sides) one memref.copy
// each (an llvm.memcpy of 36 bytes), in loops over the tile.

#in = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-DAG: #[[MIN:.+]] = affine_map<(d0) -> (-d0 + 80, 32)>
// CHECK-LABEL: func.func @weight
// CHECK-SAME: (%[[W:.+]]: memref<1x96x80x9xf32>, %[[T:.+]]: memref<1x80x96x9xf32>)
// CHECK-DAG: %[[C80:.+]] = arith.constant 80 : index
// CHECK-DAG: %[[C96:.+]] = arith.constant 96 : index
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %[[C80]] step %{{.+}} {
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %[[C96]] step %{{.+}} {
// CHECK: affine.min #[[MIN]](%[[J]])
// CHECK: %[[SRC:.+]] = memref.subview %[[W]][%[[I]], %[[K]], %[[J]], 0] [1, 32, %{{.+}}, 9] [1, 1, 1, 1]
// CHECK: %[[DST:.+]] = memref.subview %[[T]][%[[I]], %[[J]], %[[K]], 0] [1, %{{.+}}, 32, 9] [1, 1, 1, 1]
// CHECK: scf.for %[[A:.+]] = 
// CHECK: scf.for %[[B:.+]] = 
// CHECK: scf.for %[[C:.+]] = 
// CHECK: %[[ROW:.+]] = memref.subview %[[SRC]][%[[A]], %[[C]], %[[B]], 0] [1, 1, 1, 9] [1, 1, 1, 1] : memref<1x32x?x9xf32, strided<[69120, 720, 9, 1], offset: ?>> to memref<9xf32, strided<[1], offset: ?>>
// CHECK: %[[TO:.+]] = memref.subview %[[DST]][%[[A]], %[[B]], %[[C]], 0] [1, 1, 1, 9] [1, 1, 1, 1] : memref<1x?x32x9xf32, strided<[69120, 864, 9, 1], offset: ?>> to memref<9xf32, strided<[1], offset: ?>>
// CHECK: memref.copy %[[ROW]], %[[TO]]
// CHECK-NOT: linalg.generic
// CHECK: return
// With tile=64, the 80 and 96 dimensions are tiled by 64.
// TILE64-DAG: affine_map<(d0) -> (-d0 + 80, 64)>
// TILE64-DAG: affine_map<(d0) -> (-d0 + 96, 64)>
// TILE64-LABEL: func.func @weight
// TILE64: memref.copy
func.func @weight(%w: memref<1x96x80x9xf32>, %t: memref<1x80x96x9xf32>) {
  linalg.generic {indexing_maps = [#in, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : memref<1x96x80x9xf32>) outs(%t : memref<1x80x96x9xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// A 2-D transposition with dynamic extents (as in a parallel kernel's range
// function): both dimensions tiled, bounds by affine.min; no common suffix,
// so each tile stays a linalg.generic.

#in = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for
// CHECK: scf.for
// CHECK: affine.min
// CHECK: affine.min
// CHECK: linalg.generic
// CHECK-SAME: memref<?x?xf32, strided<[?, 1], offset: ?>>
func.func @dynamic(%a: memref<?x?xf32>, %t: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#in, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%t : memref<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// Left alone: a transposition whose transposed dimensions fit one tile, a
// copy without a transposition, and a transposition that computes.

#in2 = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: scf.for
// CHECK: return
func.func @left_alone(%a: memref<16x24xf32>, %t: memref<24x16xf32>,
                      %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#in2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x24xf32>) outs(%t : memref<24x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#in2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.negf %x : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// One transposed dimension fits a tile (a parallel kernel's range of 4 rows),
// the other does not: only that one is tiled.

#in = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @one_side
// CHECK: memref.subview %{{.+}}[%{{.+}}, %{{.+}}, 0, 0] [1, 32, 4, 9]
// CHECK: memref.subview %{{.+}}[%{{.+}}, 0, %{{.+}}, 0] [1, 4, 32, 9]
// CHECK: memref.copy
func.func @one_side(%w: memref<1x512x4x9xf32>, %t: memref<1x4x512x9xf32>) {
  linalg.generic {indexing_maps = [#in, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : memref<1x512x4x9xf32>) outs(%t : memref<1x4x512x9xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
