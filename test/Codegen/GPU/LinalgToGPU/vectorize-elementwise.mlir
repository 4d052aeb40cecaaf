// RUN: amp-opt %s -split-input-file --amp-gpu-vectorize-elementwise | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-vectorize-elementwise="max-width=2" | FileCheck %s --check-prefix=NARROW
// RUN: not amp-opt %s -split-input-file --amp-gpu-vectorize-elementwise="max-width=0" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: max-width must be at least 1, not 0

// A bf16 -> f32 elementwise loop: 8 elements per iteration (16 bytes of
// bf16), the innermost dimension counting vectors (1024 / 8), the element
// index their counter times 8; the f32 stores take 32 bytes, aligned as the
// vector. A load that does not depend on the innermost index (a per-row
// scale) stays scalar and is broadcast. The erf, a library call, runs lane
// by lane.
// CHECK-LABEL: func.func @rows
//   CHECK-DAG:   %[[C128:.+]] = arith.constant 128 : index
//   CHECK-DAG:   %[[C8:.+]] = arith.constant 8 : index
//       CHECK:   scf.parallel (%[[I:.+]], %[[J:.+]]) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %[[C128]]) step (%{{.+}}, %{{.+}}) {
//       CHECK:     %[[E:.+]] = arith.muli %[[J]], %[[C8]] : index
//       CHECK:     %[[X:.+]] = vector.load %{{.+}}[%[[I]], %[[E]]] {alignment = 16 : i64} : memref<4x1024xbf16>, vector<8xbf16>
//       CHECK:     %[[S:.+]] = memref.load %{{.+}}[%[[I]]] : memref<4xf32>
//       CHECK:     %[[W:.+]] = arith.extf %[[X]] : vector<8xbf16> to vector<8xf32>
//       CHECK:     %[[SB:.+]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
//       CHECK:     %[[M:.+]] = arith.mulf %[[W]], %[[SB]] : vector<8xf32>
//       CHECK:     vector.extract %[[M]][0] : f32 from vector<8xf32>
//       CHECK:     math.erf
// CHECK-COUNT-7:   math.erf
//       CHECK:     %[[R:.+]] = vector.from_elements
//       CHECK:     vector.store %[[R]], %{{.+}}[%[[I]], %[[E]]] {alignment = 32 : i64} : memref<4x1024xf32>, vector<8xf32>
// NARROW-LABEL: func.func @rows
//       NARROW:   vector.load {{.+}} vector<2xbf16>
func.func @rows(%x: memref<4x1024xbf16>, %scale: memref<4xf32>, %y: memref<4x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c1024) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<4x1024xbf16>
    %s = memref.load %scale[%i] : memref<4xf32>
    %w = arith.extf %a : bf16 to f32
    %m = arith.mulf %w, %s : f32
    %e = math.erf %m : f32
    memref.store %e, %y[%i, %j] : memref<4x1024xf32>
    scf.reduce
  }
  return
}

// -----

// A causal mask computed in the loop: the comparison of two broadcast
// values gives a vector of i1 that selects lane by lane.
// CHECK-LABEL: func.func @masked
//       CHECK:   %[[R:.+]] = memref.load %{{.+}} : memref<16x1xf32>
//       CHECK:   %[[C:.+]] = vector.load %{{.+}} : memref<16xf32>, vector<4xf32>
//       CHECK:   %[[RB:.+]] = vector.broadcast %[[R]] : f32 to vector<4xf32>
//       CHECK:   %[[P:.+]] = arith.cmpf oge, %[[RB]], %[[C]] : vector<4xf32>
//       CHECK:   arith.select %[[P]], %{{.+}}, %{{.+}} : vector<4xi1>, vector<4xf32>
func.func @masked(%r: memref<16x1xf32>, %c: memref<16xf32>, %s: memref<16x16xf32>, %o: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %big = arith.constant -1.0e4 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %a = memref.load %r[%i, %c0] : memref<16x1xf32>
    %b = memref.load %c[%j] : memref<16xf32>
    %x = memref.load %s[%i, %j] : memref<16x16xf32>
    %p = arith.cmpf oge, %a, %b : f32
    %y = arith.select %p, %x, %big : f32
    memref.store %y, %o[%i, %j] : memref<16x16xf32>
    scf.reduce
  }
  return
}

// -----

// 12 = 4 x 3: 16 bytes of f32 would be 4 elements, 12 is a multiple of 4.
// A row of 6 f32 takes 2 (4 does not divide 6).
// CHECK-LABEL: func.func @widths
//       CHECK:   vector<4xf32>
//       CHECK:   vector<2xf32>
func.func @widths(%a: memref<12xf32>, %b: memref<5x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  scf.parallel (%i) = (%c0) to (%c12) step (%c1) {
    %x = memref.load %a[%i] : memref<12xf32>
    %y = arith.negf %x : f32
    memref.store %y, %a[%i] : memref<12xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c5, %c6) step (%c1, %c1) {
    %x = memref.load %b[%i, %j] : memref<5x6xf32>
    %y = arith.negf %x : f32
    memref.store %y, %b[%i, %j] : memref<5x6xf32>
    scf.reduce
  }
  return
}

// -----

// Left as they are: a transposed read (the innermost index is not the last
// one), an i1 buffer, a view whose offset is no multiple of the width, an
// odd extent, the innermost index used in arithmetic, and a loop with a
// reduction.
// CHECK-LABEL: func.func @unchanged
//   CHECK-NOT:   vector.
func.func @unchanged(%a: memref<8x8xf32>, %m: memref<8x8xi1>, %v: memref<8xf32, strided<[1], offset: 2>>, %odd: memref<7xf32>, %out: memref<8xf32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %a[%j, %i] : memref<8x8xf32>
    memref.store %x, %a[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %m[%i, %j] : memref<8x8xi1>
    %y = arith.xori %x, %x : i1
    memref.store %y, %m[%i, %j] : memref<8x8xi1>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %v[%i] : memref<8xf32, strided<[1], offset: 2>>
    memref.store %x, %out[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %x = memref.load %odd[%i] : memref<7xf32>
    memref.store %x, %odd[%i] : memref<7xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    memref.store %f, %out[%i] : memref<8xf32>
    scf.reduce
  }
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %x = memref.load %out[%i] : memref<8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %rr: f32):
      %s = arith.addf %l, %rr : f32
      scf.reduce.return %s : f32
    }
  }
  memref.store %r, %sum[] : memref<f32>
  return
}

// -----

// A gather along the last axis: the column index is read from memory, so it
// would vary across lanes. The loop stays scalar.
// CHECK-LABEL: func.func @gather
//   CHECK-NOT:   vector.
func.func @gather(%idx: memref<8xi64>, %table: memref<4x100xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %t = memref.load %idx[%j] : memref<8xi64>
    %c = arith.index_cast %t : i64 to index
    %v = memref.load %table[%i, %c] : memref<4x100xf32>
    memref.store %v, %out[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}
