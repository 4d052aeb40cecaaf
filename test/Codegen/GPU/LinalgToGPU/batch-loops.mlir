// RUN: amp-opt %s -split-input-file --amp-gpu-batch-loops | FileCheck %s

// Two independent one-dimensional loops (the optimizer updates of two
// parameters) become one loop over 8 + 32 indices: indices 0..7 run the
// first body, 8..39 the second with the index made relative to it; past the
// end the default case runs (nothing: the tiling's guard keeps those
// threads out).
// CHECK-LABEL: func.func @independent
//  CHECK-SAME:     (%[[A:.+]]: memref<8xf32>, %[[B:.+]]: memref<8xf32>, %[[C:.+]]: memref<32xf32>, %[[D:.+]]: memref<32xf32>)
//   CHECK-DAG:   %[[C8:.+]] = arith.constant 8 : index
//   CHECK-DAG:   %[[C32:.+]] = arith.constant 32 : index
//       CHECK:   %[[ZERO:.+]] = arith.constant 0 : index
//       CHECK:   %[[START1:.+]] = arith.addi %[[ZERO]], %[[C8]] : index
//       CHECK:   %[[END:.+]] = arith.addi %[[START1]], %[[C32]] : index
//       CHECK:   scf.parallel (%[[I:.+]]) = (%[[ZERO]]) to (%[[END]]) step
//       CHECK:     %[[IN1:.+]] = arith.cmpi uge, %[[I]], %[[START1]] : index
//       CHECK:     %[[K1:.+]] = arith.select %[[IN1]], %{{.+}}, %{{.+}} : index
//       CHECK:     %[[PAST:.+]] = arith.cmpi uge, %[[I]], %[[END]] : index
//       CHECK:     %[[K:.+]] = arith.select %[[PAST]], %{{.+}}, %[[K1]] : index
//       CHECK:     scf.index_switch %[[K]]
//       CHECK:     case 0 {
//       CHECK:       %[[R0:.+]] = arith.subi %[[I]], %[[ZERO]] : index
//       CHECK:       memref.load %[[A]][%[[R0]]]
//       CHECK:       memref.store %{{.+}}, %[[B]][%[[R0]]]
//       CHECK:     case 1 {
//       CHECK:       %[[R1:.+]] = arith.subi %[[I]], %[[START1]] : index
//       CHECK:       memref.load %[[C]][%[[R1]]]
//       CHECK:       memref.store %{{.+}}, %[[D]][%[[R1]]]
//       CHECK:     default {
//   CHECK-NOT:   scf.parallel
func.func @independent(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<32xf32>, %d: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %x = memref.load %c[%i] : memref<32xf32>
    %y = arith.addf %x, %two : f32
    memref.store %y, %d[%i] : memref<32xf32>
    scf.reduce
  }
  return
}

// -----

// The second loop reads what the first writes: two launches, in order.
// CHECK-LABEL: func.func @dependent
//       CHECK:   scf.parallel
//       CHECK:     memref.store %{{.+}}, %arg1
//       CHECK:   scf.parallel
//       CHECK:     memref.load %arg1
//   CHECK-NOT:   scf.index_switch
func.func @dependent(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %b[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %b[%i] : memref<8xf32>
    memref.store %x, %c[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// Between the loops: the free of a temporary the first loop reads (it
// moves after the merged loop), an allocation, and a launch that reduces
// other buffers (gpu.all_reduce exchanges values in workgroup memory only):
// the loops merge where the second stood.
// CHECK-LABEL: func.func @past_free_and_launch
//  CHECK-SAME:     (%[[TMP_SRC:.+]]: memref<8xf32>, %[[OUT:.+]]: memref<8xf32>, %[[X:.+]]: memref<64xf32>, %[[SUM:.+]]: memref<f32>, %[[E:.+]]: memref<8xf32>)
//       CHECK:   %[[TMP:.+]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.copy %[[TMP_SRC]], %[[TMP]]
//       CHECK:   %[[NEW:.+]] = memref.alloc() : memref<8xf32>
//       CHECK:   gpu.launch
//       CHECK:     gpu.all_reduce
//       CHECK:   scf.parallel
//       CHECK:     scf.index_switch
//       CHECK:       memref.load %[[TMP]]
//       CHECK:       memref.store %{{.+}}, %[[NEW]]
//       CHECK:   memref.dealloc %[[TMP]]
//   CHECK-NOT:   scf.parallel
//       CHECK:   return %[[NEW]]
func.func @past_free_and_launch(%src: memref<8xf32>, %out: memref<8xf32>, %x: memref<64xf32>, %sum: memref<f32>, %e: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %tmp = memref.alloc() : memref<8xf32>
  memref.copy %src, %tmp : memref<8xf32> to memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %tmp[%i] : memref<8xf32>
    memref.store %v, %out[%i] : memref<8xf32>
    scf.reduce
  }
  memref.dealloc %tmp : memref<8xf32>
  %new = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    %s = gpu.all_reduce add %v uniform {} : (f32) -> f32
    memref.store %s, %sum[] : memref<f32>
    gpu.terminator
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %e[%i] : memref<8xf32>
    memref.store %v, %new[%i] : memref<8xf32>
    scf.reduce
  }
  return %new : memref<8xf32>
}

// -----

// A host store to a buffer the first loop reads (0-d state updated between
// the loops) ends the batch; so does a call. Two-dimensional loops and
// loops with reductions are not batched.
// CHECK-LABEL: func.func @barriers
// CHECK-COUNT-5: scf.parallel
//   CHECK-NOT:   scf.index_switch
func.func private @opaque(memref<8xf32>)
func.func @barriers(%s: memref<f32>, %a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>, %d: memref<8xf32>, %m: memref<8x8xf32>, %n: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %s[] : memref<f32>
    memref.store %v, %a[%i] : memref<8xf32>
    scf.reduce
  }
  memref.store %one, %s[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %s[] : memref<f32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  func.call @opaque(%d) : (memref<8xf32>) -> ()
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %c[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %one, %m[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  %zero = arith.constant 0.0 : f32
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %n[%i, %i] : memref<8x8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %rr: f32):
      %t = arith.addf %l, %rr : f32
      scf.reduce.return %t : f32
    }
  }
  memref.store %r, %s[] : memref<f32>
  return
}

// -----

// A merged kernel's parameters must fit in 4352 bytes: each loop here
// captures three rank-4 buffers (88 bytes of descriptor each), so a batch
// takes at most 13 loops (3432 bytes; a 14th would pass the 3584 the pass
// allows): 14 loops make a merged loop of 13 and the last on its own.
// CHECK-LABEL: func.func @parameter_space
//       CHECK:   scf.parallel
//       CHECK:     scf.index_switch
// CHECK-COUNT-13:  case {{[0-9]+}} {
//   CHECK-NOT:     case
//       CHECK:     default {
//       CHECK:   scf.parallel
//       CHECK:     memref.store %{{.+}}, %arg41
//   CHECK-NOT:   scf.index_switch
func.func @parameter_space(
    %a0: memref<1x1x1x8xf32>, %a1: memref<1x1x1x8xf32>, %a2: memref<1x1x1x8xf32>, %a3: memref<1x1x1x8xf32>,
    %a4: memref<1x1x1x8xf32>, %a5: memref<1x1x1x8xf32>, %a6: memref<1x1x1x8xf32>, %a7: memref<1x1x1x8xf32>,
    %a8: memref<1x1x1x8xf32>, %a9: memref<1x1x1x8xf32>, %a10: memref<1x1x1x8xf32>, %a11: memref<1x1x1x8xf32>,
    %a12: memref<1x1x1x8xf32>, %a13: memref<1x1x1x8xf32>,
    %b0: memref<1x1x1x8xf32>, %b1: memref<1x1x1x8xf32>, %b2: memref<1x1x1x8xf32>, %b3: memref<1x1x1x8xf32>,
    %b4: memref<1x1x1x8xf32>, %b5: memref<1x1x1x8xf32>, %b6: memref<1x1x1x8xf32>, %b7: memref<1x1x1x8xf32>,
    %b8: memref<1x1x1x8xf32>, %b9: memref<1x1x1x8xf32>, %b10: memref<1x1x1x8xf32>, %b11: memref<1x1x1x8xf32>,
    %b12: memref<1x1x1x8xf32>, %b13: memref<1x1x1x8xf32>,
    %c0_: memref<1x1x1x8xf32>, %c1_: memref<1x1x1x8xf32>, %c2_: memref<1x1x1x8xf32>, %c3_: memref<1x1x1x8xf32>,
    %c4_: memref<1x1x1x8xf32>, %c5_: memref<1x1x1x8xf32>, %c6_: memref<1x1x1x8xf32>, %c7_: memref<1x1x1x8xf32>,
    %c8_: memref<1x1x1x8xf32>, %c9_: memref<1x1x1x8xf32>, %c10_: memref<1x1x1x8xf32>, %c11_: memref<1x1x1x8xf32>,
    %c12_: memref<1x1x1x8xf32>, %c13_: memref<1x1x1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a0[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b0[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c0_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a1[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b1[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c1_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a2[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b2[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c2_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a3[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b3[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c3_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a4[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b4[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c4_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a5[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b5[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c5_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a6[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b6[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c6_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a7[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b7[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c7_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a8[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b8[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c8_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a9[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b9[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c9_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a10[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b10[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c10_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a11[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b11[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c11_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a12[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b12[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c12_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a13[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %y = memref.load %b13[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c13_[%c0, %c0, %c0, %i] : memref<1x1x1x8xf32>
    scf.reduce
  }
  return
}

// -----

// After the last loop of a batch, a host read of a buffer the batch reads
// and then its free: the free stays after that read (only frees between
// the batch's loops move).
// CHECK-LABEL: func.func @free_after_the_batch
//       CHECK:   %[[FLAG:.+]] = memref.alloc() : memref<i1>
//       CHECK:   scf.parallel
//       CHECK:     scf.index_switch
//       CHECK:   memref.load %[[FLAG]][]
//       CHECK:   memref.store
//       CHECK:   memref.dealloc %[[FLAG]]
//  CHECK-NEXT:   return
func.func @free_after_the_batch(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>, %d: memref<8xf32>, %s: memref<i1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %flag = memref.alloc() : memref<i1>
  memref.copy %s, %flag : memref<i1> to memref<i1>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %f = memref.load %flag[] : memref<i1>
    %v = memref.load %a[%i] : memref<8xf32>
    %w = arith.select %f, %zero, %v : f32
    memref.store %w, %b[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %f = memref.load %flag[] : memref<i1>
    %v = memref.load %c[%i] : memref<8xf32>
    %w = arith.select %f, %v, %zero : f32
    memref.store %w, %d[%i] : memref<8xf32>
    scf.reduce
  }
  %f = memref.load %flag[] : memref<i1>
  memref.store %f, %s[] : memref<i1>
  memref.dealloc %flag : memref<i1>
  return
}

// -----

// Loops filling disjoint slots of one buffer (the FP8 amaxes copied into
// their history row) are independent: static views of the same buffer over
// disjoint elements do not share memory. One launch.
// CHECK-LABEL: func.func @disjoint_slots
//       CHECK:   scf.parallel
//       CHECK:     scf.index_switch
//   CHECK-NOT:   scf.parallel
func.func @disjoint_slots(%a: memref<1xf32>, %b: memref<1xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %row = memref.alloc() : memref<4xf32>
  %s1 = memref.subview %row[1] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: 1>>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    %x = memref.load %a[%i] : memref<1xf32>
    memref.store %x, %s1[%i] : memref<1xf32, strided<[1], offset: 1>>
    scf.reduce
  }
  %s2 = memref.subview %row[2] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: 2>>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    %x = memref.load %b[%i] : memref<1xf32>
    memref.store %x, %s2[%i] : memref<1xf32, strided<[1], offset: 2>>
    scf.reduce
  }
  return %row : memref<4xf32>
}

// -----

// Views of one buffer whose elements overlap ([0, 2] and [2, 3]), or one
// with a dynamic offset, may share memory: two launches each.
// CHECK-LABEL: func.func @overlapping_slots
//       CHECK:   scf.parallel
//       CHECK:   scf.parallel
//   CHECK-NOT:   scf.index_switch
func.func @overlapping_slots(%a: memref<3xf32>, %b: memref<2xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %row = memref.alloc() : memref<4xf32>
  %s1 = memref.subview %row[0] [3] [1] : memref<4xf32> to memref<3xf32, strided<[1]>>
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    %x = memref.load %a[%i] : memref<3xf32>
    memref.store %x, %s1[%i] : memref<3xf32, strided<[1]>>
    scf.reduce
  }
  %s2 = memref.subview %row[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %x = memref.load %b[%i] : memref<2xf32>
    memref.store %x, %s2[%i] : memref<2xf32, strided<[1], offset: 2>>
    scf.reduce
  }
  return %row : memref<4xf32>
}

// CHECK-LABEL: func.func @dynamic_slot
//       CHECK:   scf.parallel
//       CHECK:   scf.parallel
//   CHECK-NOT:   scf.index_switch
func.func @dynamic_slot(%a: memref<1xf32>, %b: memref<1xf32>, %k: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %row = memref.alloc() : memref<4xf32>
  %s1 = memref.subview %row[1] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: 1>>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    %x = memref.load %a[%i] : memref<1xf32>
    memref.store %x, %s1[%i] : memref<1xf32, strided<[1], offset: 1>>
    scf.reduce
  }
  %s2 = memref.subview %row[%k] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    %x = memref.load %b[%i] : memref<1xf32>
    memref.store %x, %s2[%i] : memref<1xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  return %row : memref<4xf32>
}
