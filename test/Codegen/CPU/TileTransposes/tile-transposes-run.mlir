// The tiled transposition copies every element to its place, by running it:
// a 2 x 70 x 45 x 3 buffer holding each element's own index, transposed in
// its middle dimensions (tiles of 32 with partial last ones: 70 = 2 * 32 +
// 6, 45 = 32 + 13), then every element of the result compared with the
// index it must hold. Prints the number of misplaced elements.

// RUN: amp-opt %s --amp-cpu-tile-transposes --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-vector-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: amp-opt %s --amp-cpu-tile-transposes | FileCheck %s --check-prefix=TILED

// TILED: scf.for
// CHECK: misplaced: 0
// CHECK-NEXT: elements: 18900

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#all = affine_map<(d0, d1, d2, d3) -> ()>

// The index of element (i, j, k, l) of the 2 x 70 x 45 x 3 input.
func.func @index(%i: index, %j: index, %k: index, %l: index) -> f32 {
  %c3 = arith.constant 3 : index
  %c45 = arith.constant 45 : index
  %c70 = arith.constant 70 : index
  %0 = arith.muli %i, %c70 : index
  %1 = arith.addi %0, %j : index
  %2 = arith.muli %1, %c45 : index
  %3 = arith.addi %2, %k : index
  %4 = arith.muli %3, %c3 : index
  %5 = arith.addi %4, %l : index
  %6 = arith.index_cast %5 : index to i64
  %7 = arith.sitofp %6 : i64 to f32
  return %7 : f32
}

func.func @main() {
  %src = memref.alloc() : memref<2x70x45x3xf32>
  %dst = memref.alloc() : memref<2x45x70x3xf32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%src : memref<2x70x45x3xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %l = linalg.index 3 : index
    %v = func.call @index(%i, %j, %k, %l) : (index, index, index, index) -> f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#in, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%src : memref<2x70x45x3xf32>) outs(%dst : memref<2x45x70x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  // dst[i][k][j][l] must hold the index of src[i][j][k][l].
  %zero = arith.constant 0.0 : f32
  %bad = memref.alloc() : memref<f32>
  %count = memref.alloc() : memref<f32>
  memref.store %zero, %bad[] : memref<f32>
  memref.store %zero, %count[] : memref<f32>
  linalg.generic {indexing_maps = [#id, #all, #all], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
      ins(%dst : memref<2x45x70x3xf32>) outs(%bad, %count : memref<f32>, memref<f32>) {
  ^bb0(%x: f32, %b: f32, %n: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %l = linalg.index 3 : index
    %want = func.call @index(%i, %j, %k, %l) : (index, index, index, index) -> f32
    %ne = arith.cmpf une, %x, %want : f32
    %one = arith.constant 1.0 : f32
    %inc = arith.select %ne, %one, %zero : f32
    %b1 = arith.addf %b, %inc : f32
    %n1 = arith.addf %n, %one : f32
    linalg.yield %b1, %n1 : f32, f32
  }
  %misplaced = memref.load %bad[] : memref<f32>
  %elements = memref.load %count[] : memref<f32>
  %m = arith.fptosi %misplaced : f32 to i64
  %e = arith.fptosi %elements : f32 to i64
  vector.print str "misplaced: "
  vector.print %m : i64
  vector.print str "elements: "
  vector.print %e : i64
  memref.dealloc %src : memref<2x70x45x3xf32>
  memref.dealloc %dst : memref<2x45x70x3xf32>
  memref.dealloc %bad : memref<f32>
  memref.dealloc %count : memref<f32>
  return
}
