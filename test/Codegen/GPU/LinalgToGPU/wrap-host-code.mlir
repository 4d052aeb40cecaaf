// RUN: amp-opt %s -split-input-file --amp-gpu-wrap-host-code | FileCheck %s

// Host code that touches memory (loops, memref loads and stores) left after
// the loop mapping runs in a gpu.launch of one block of one thread;
// consecutive such ops share one launch.

// A full reduction to a scalar: the initial store and the loop share one
// single-thread launch; the constants stay in front of it.
// CHECK-LABEL: func.func @full_reduction
//  CHECK-SAME:     (%[[X:.+]]: memref<1024xf32>, %[[OUT:.+]]: memref<f32>)
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[ONE:.+]] = arith.constant 1 : index
//       CHECK:   gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]]) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]])
//  CHECK-NEXT:     memref.store %[[ZERO]], %[[OUT]][]
//  CHECK-NEXT:     scf.for
//  CHECK-NEXT:       memref.load %[[X]]
//       CHECK:       memref.store
//       CHECK:     }
//  CHECK-NEXT:     gpu.terminator
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return

func.func @full_reduction(%x: memref<1024xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %out[] : memref<f32>
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %x[%i] : memref<1024xf32>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %acc, %v : f32
    memref.store %s, %out[] : memref<f32>
  }
  return
}

// -----

// Allocations without operands and memory-effect-free ops that do not
// depend on the launch go in front of it, deallocations behind it.
// CHECK-LABEL: func.func @hoist_and_sink
//  CHECK-SAME:     (%[[A:.+]]: memref<f32>, %[[OUT:.+]]: memref<f32>)
//       CHECK:   %[[TMP:.+]] = memref.alloc() : memref<f32>
//       CHECK:   %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
//       CHECK:   gpu.launch
//  CHECK-NEXT:     %[[V:.+]] = memref.load %[[A]][]
//  CHECK-NEXT:     %[[D:.+]] = arith.mulf %[[V]], %[[TWO]]
//  CHECK-NEXT:     memref.store %[[D]], %[[TMP]][]
//  CHECK-NEXT:     %[[W:.+]] = memref.load %[[TMP]][]
//  CHECK-NEXT:     memref.store %[[W]], %[[OUT]][]
//  CHECK-NEXT:     gpu.terminator
//  CHECK-NEXT:   }
//  CHECK-NEXT:   memref.dealloc %[[TMP]]
//  CHECK-NEXT:   return

func.func @hoist_and_sink(%a: memref<f32>, %out: memref<f32>) {
  %v = memref.load %a[] : memref<f32>
  %tmp = memref.alloc() : memref<f32>
  %two = arith.constant 2.0 : f32
  %d = arith.mulf %v, %two : f32
  memref.store %d, %tmp[] : memref<f32>
  %w = memref.load %tmp[] : memref<f32>
  memref.dealloc %tmp : memref<f32>
  memref.store %w, %out[] : memref<f32>
  return
}

// -----

// A call stays on the host and ends the group: two launches.
// CHECK-LABEL: func.func @split_at_call
//       CHECK:   gpu.launch
//  CHECK-NEXT:     memref.store %{{.+}}, %arg0[]
//  CHECK-NEXT:     gpu.terminator
//       CHECK:   call @side_effect()
//       CHECK:   gpu.launch
//  CHECK-NEXT:     memref.store %{{.+}}, %arg1[]
//  CHECK-NEXT:     gpu.terminator

func.func private @side_effect()

func.func @split_at_call(%a: memref<f32>, %b: memref<f32>) {
  %one = arith.constant 1.0 : f32
  memref.store %one, %a[] : memref<f32>
  func.call @side_effect() : () -> ()
  memref.store %one, %b[] : memref<f32>
  return
}

// -----

// A value the host needs after the group would have to come back from the
// device: the group stays on the host (amp-gpu-check-mappable reports it).
// CHECK-LABEL: func.func @result_used_on_host
//   CHECK-NOT:   gpu.launch
//       CHECK:   %[[V:.+]] = memref.load %arg0[]
//  CHECK-NEXT:   return %[[V]]

func.func @result_used_on_host(%a: memref<f32>) -> f32 {
  %v = memref.load %a[] : memref<f32>
  return %v : f32
}

// -----

// A loop with a call in it stays on the host; its body is wrapped on its
// own, after the call.
// CHECK-LABEL: func.func @loop_with_call
//       CHECK:   scf.for %[[I:.+]] = %{{.+}} to
//  CHECK-NEXT:     func.call @side_effect()
//       CHECK:     gpu.launch
//  CHECK-NEXT:       memref.load %arg0[%[[I]]]
//  CHECK-NEXT:       arith.addf
//  CHECK-NEXT:       memref.store
//  CHECK-NEXT:       gpu.terminator

func.func private @side_effect()

func.func @loop_with_call(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @side_effect() : () -> ()
    %v = memref.load %a[%i] : memref<4xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Code already in a kernel is left alone.
// CHECK-LABEL: func.func @already_in_kernel
//       CHECK:   gpu.launch
//  CHECK-NEXT:     memref.load
//  CHECK-NEXT:     memref.store
//  CHECK-NEXT:     gpu.terminator
//   CHECK-NOT:   gpu.launch

func.func @already_in_kernel(%a: memref<f32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[] : memref<f32>
    memref.store %v, %a[] : memref<f32>
    gpu.terminator
  }
  return
}
