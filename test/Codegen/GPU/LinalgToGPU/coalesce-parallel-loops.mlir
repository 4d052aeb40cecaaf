// RUN: amp-opt %s -split-input-file --amp-gpu-coalesce-parallel-loops -canonicalize | FileCheck %s

// A loop over a row-major [4, 8] buffer becomes one loop of 32 iterations,
// the column (the contiguous dimension) varying fastest: consecutive
// threads of the kernel it becomes read consecutive elements.
// CHECK-LABEL: func.func @rows_and_columns
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[IV:.+]]) = (%{{.+}}) to (%[[C32]])
// CHECK-NEXT: %[[J:.+]] = arith.remsi %[[IV]], %[[C8]]
// CHECK-NEXT: %[[I:.+]] = arith.divsi %[[IV]], %[[C8]]
// CHECK-NEXT: memref.load %{{.+}}[%[[I]], %[[J]]]
func.func @rows_and_columns(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    memref.store %v, %b[%i, %j] : memref<4x8xf32>
  }
  return
}

// -----

// Three dimensions: one loop of 2 * 3 * 5, the last fastest.
// CHECK-LABEL: func.func @three_dimensions
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[C30:.+]] = arith.constant 30 : index
// CHECK: scf.parallel (%[[IV:.+]]) = (%{{.+}}) to (%[[C30]])
// CHECK-NEXT: %[[K:.+]] = arith.remsi %[[IV]], %[[C5]]
// CHECK-NEXT: %[[R:.+]] = arith.divsi %[[IV]], %[[C5]]
// CHECK-NEXT: %[[J:.+]] = arith.remsi %[[R]], %[[C3]]
// CHECK-NEXT: %[[I:.+]] = arith.divsi %[[R]], %[[C3]]
// CHECK-NEXT: memref.load %{{.+}}[%[[I]], %[[J]], %[[K]]]
func.func @three_dimensions(%a: memref<2x3x5xf32>, %b: memref<2x3x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c3, %c5) step (%c1, %c1, %c1) {
    %v = memref.load %a[%i, %j, %k] : memref<2x3x5xf32>
    memref.store %v, %b[%i, %j, %k] : memref<2x3x5xf32>
  }
  return
}

// -----

// A one-dimensional loop stays as it is; a loop nested in another parallel
// loop, or in a launch, is not mapped to the grid and stays too (the outer
// loop is collapsed).
// CHECK-LABEL: func.func @left_alone
// CHECK: scf.parallel (%{{[^,]+}}) = (%{{.+}}) to (%{{.+}}) step
// CHECK: scf.parallel (%{{[^,]+}}) = (%{{.+}}) to (%{{.+}}) step
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%{{.+}}, %{{.+}}) to
// CHECK: gpu.launch
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%{{.+}}, %{{.+}}) to
func.func @left_alone(%a: memref<4x8xf32>, %v: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
    memref.store %zero, %v[%j] : memref<8xf32>
  }
  %c2 = arith.constant 2 : index
  scf.parallel (%o) = (%c0) to (%c2) step (%c1) {
    memref.store %zero, %v[%o] : memref<8xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
      memref.store %zero, %a[%i, %j] : memref<4x8xf32>
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
      memref.store %zero, %a[%i, %j] : memref<4x8xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A loop with a reduction (an init value and an scf.reduce body) stays as
// it is: the collapse keeps no reductions.
// CHECK-LABEL: func.func @with_reduction
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %{{.+}}) step (%{{.+}}, %{{.+}}) init
// CHECK: scf.reduce
func.func @with_reduction(%a: memref<4x8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) init (%zero) -> f32 {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
