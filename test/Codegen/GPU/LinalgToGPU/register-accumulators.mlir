// RUN: amp-opt %s -split-input-file --amp-gpu-register-accumulators | FileCheck %s

// A column sum left to one thread per output (as convert-linalg-to-parallel-
// loops writes it): the output element is loaded once before the loop,
// carried in an iter_arg, and stored once after it.
// CHECK-LABEL: func.func @column_sum
//       CHECK:   %[[OUT:.+]] = memref.alloc() : memref<4x16xf32>
//       CHECK:   scf.parallel (%[[I:.+]], %[[J:.+]]) =
//       CHECK:     %[[INIT:.+]] = memref.load %[[OUT]][%[[I]], %[[J]]]
//       CHECK:     %[[SUM:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
//       CHECK:       %[[X:.+]] = memref.load %{{.+}} : memref<4x8x16xbf16>
//       CHECK:       %[[W:.+]] = arith.extf %[[X]]
//       CHECK:       %[[ADD:.+]] = arith.addf %[[ACC]], %[[W]] : f32
//       CHECK:       scf.yield %[[ADD]] : f32
//       CHECK:     }
//       CHECK:     memref.store %[[SUM]], %[[OUT]][%[[I]], %[[J]]]
func.func @column_sum(%in: memref<4x8x16xbf16>) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %out = memref.alloc() : memref<4x16xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %x = memref.load %in[%i, %k, %j] : memref<4x8x16xbf16>
      %acc = memref.load %out[%i, %j] : memref<4x16xf32>
      %w = arith.extf %x : bf16 to f32
      %s = arith.addf %acc, %w : f32
      memref.store %s, %out[%i, %j] : memref<4x16xf32>
    }
    scf.reduce
  }
  return %out : memref<4x16xf32>
}

// -----

// Two outputs summed in one loop (a LayerNorm's weight and bias gradients)
// are both carried.
// CHECK-LABEL: func.func @two_sums
//       CHECK:   scf.for {{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (f32, f32)
//   CHECK-NOT:     memref.store
//       CHECK:     scf.yield
//       CHECK:   memref.store
//       CHECK:   memref.store
func.func @two_sums(%in: memref<8x16xf32>, %j: index) -> (memref<16xf32>, memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %in[%k, %j] : memref<8x16xf32>
    %p = memref.load %a[%j] : memref<16xf32>
    %q = memref.load %b[%j] : memref<16xf32>
    %xx = arith.mulf %x, %x : f32
    %p1 = arith.addf %p, %xx : f32
    %q1 = arith.addf %q, %x : f32
    memref.store %p1, %a[%j] : memref<16xf32>
    memref.store %q1, %b[%j] : memref<16xf32>
  }
  return %a, %b : memref<16xf32>, memref<16xf32>
}

// -----

// Left alone: the accumulated buffer is also read through a view at other
// indices (the loop reads what it writes), ...
// CHECK-LABEL: func.func @reads_itself
//       CHECK:   scf.for
//   CHECK-NOT:     iter_args
//       CHECK:     memref.store
func.func @reads_itself(%j: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  %view = memref.subview %a[0] [8] [1] : memref<8xf32> to memref<8xf32, strided<[1]>>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %view[%k] : memref<8xf32, strided<[1]>>
    %p = memref.load %a[%j] : memref<8xf32>
    %s = arith.addf %p, %x : f32
    memref.store %s, %a[%j] : memref<8xf32>
  }
  return %a : memref<8xf32>
}

// -----

// ... the buffer is a function argument (it may be another argument's
// buffer), ...
// CHECK-LABEL: func.func @argument
//   CHECK-NOT:   iter_args
func.func @argument(%in: memref<8xf32>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %in[%k] : memref<8xf32>
    %p = memref.load %out[%c0] : memref<1xf32>
    %s = arith.addf %p, %x : f32
    memref.store %s, %out[%c0] : memref<1xf32>
  }
  return
}

// -----

// ... or the index changes with the loop.
// CHECK-LABEL: func.func @moving_index
//   CHECK-NOT:   iter_args
func.func @moving_index(%in: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %in[%k] : memref<8xf32>
    %p = memref.load %a[%k] : memref<8xf32>
    %s = arith.addf %p, %x : f32
    memref.store %s, %a[%k] : memref<8xf32>
  }
  return %a : memref<8xf32>
}

// -----

// One accumulator stores the other's old value (A := B, B := B + x): both
// are carried, the first yielding the second's iter_arg.
// CHECK-LABEL: func.func @cross
//       CHECK:   scf.for {{.+}} iter_args(%[[A:.+]] = %{{.+}}, %[[B:.+]] = %{{.+}}) -> (f32, f32)
//       CHECK:     %[[S:.+]] = arith.addf %[[B]], %{{.+}} : f32
//       CHECK:     scf.yield %[[B]], %[[S]] : f32, f32
func.func @cross(%in: memref<8xf32>, %j: index) -> (memref<16xf32>, memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %in[%k] : memref<8xf32>
    %p = memref.load %a[%j] : memref<16xf32>
    %q = memref.load %b[%j] : memref<16xf32>
    memref.store %q, %a[%j] : memref<16xf32>
    %q1 = arith.addf %q, %x : f32
    memref.store %q1, %b[%j] : memref<16xf32>
  }
  return %a, %b : memref<16xf32>, memref<16xf32>
}

// -----

// A buffer chosen by a select may be the accumulated one: left alone.
// CHECK-LABEL: func.func @selected
//   CHECK-NOT:   iter_args
func.func @selected(%c: i1, %j: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %p = arith.select %c, %a, %b : memref<8xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %x = memref.load %p[%k] : memref<8xf32>
    %s0 = memref.load %a[%j] : memref<8xf32>
    %s = arith.addf %s0, %x : f32
    memref.store %s, %a[%j] : memref<8xf32>
  }
  return %a : memref<8xf32>
}
