// RUN: amp-opt %s -split-input-file --amp-cpu-outline-kernels | FileCheck %s

// Each top-level linalg op becomes a call of a private, noinline function
// whose body is the op; constants are cloned into it, buffers are passed.
// The two ReLUs on buffers of one type share a kernel; the add gets its own.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.+]]: memref<4x8xf32>, %[[Y:.+]]: memref<4x8xf32>, %[[Z:.+]]: memref<4x8xf32>)
// CHECK-NEXT: call @step_kernel(%[[X]], %[[Y]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT: call @step_kernel(%[[Y]], %[[Z]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT: call @step_kernel_0(%[[X]], %[[Z]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT: return

// CHECK-LABEL: func.func private @step_kernel
// CHECK-SAME: (%[[IN:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>)
// CHECK-SAME: attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.generic
// CHECK-SAME: ins(%[[IN]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK: arith.maximumf %{{.+}}, %[[ZERO]]
// CHECK: return

// CHECK-LABEL: func.func private @step_kernel_0
// CHECK-SAME: (%[[IN:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>)
// CHECK-NEXT: linalg.generic
// CHECK-SAME: ins(%[[IN]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK: arith.addf
// CHECK: return
func.func @step(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<4x8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A loop with no results is a kernel too; scalars it reads are arguments,
// constants (its bounds) are cloned. Kernels are named after the function
// that first had them.

// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[BUF:.+]]: memref<16xf32>, %[[S:.+]]: f32)
// CHECK-NEXT: call @scale_kernel(%[[BUF]], %[[S]]) : (memref<16xf32>, f32) -> ()
// CHECK-NEXT: return

// CHECK-LABEL: func.func private @scale_kernel
// CHECK-SAME: (%[[BUF:.+]]: memref<16xf32>, %[[S:.+]]: f32)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK: scf.for %[[I:.+]] = %[[C0]] to %[[C16]] step %[[C1]]
// CHECK: memref.load %[[BUF]][%[[I]]]
// CHECK: arith.mulf %{{.+}}, %[[S]]
// CHECK: memref.store %{{.+}}, %[[BUF]][%[[I]]]
func.func @scale(%buf: memref<16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %buf[%i] : memref<16xf32>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %buf[%i] : memref<16xf32>
  }
  return
}

// -----

// Left in place: an op with results, an op that frees a buffer, an op on a
// memref without a static shape (it has no bare pointer), and ops that are
// not nests (allocations, copies). Declarations are left alone.

// CHECK-LABEL: func.func @kept
// CHECK: scf.for {{.+}} iter_args
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc
// CHECK: linalg.fill {{.+}} outs(%{{.+}} : memref<?xf32>)
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK-NOT: call
// CHECK: return
// CHECK-NOT: func.func private @kept_kernel
// CHECK: func.func private @external(memref<8xf32>)
// CHECK-NOT: func.func
func.func @kept(%a: memref<8xf32>, %d: memref<?xf32>, %flag: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %a[%i] : memref<8xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  %b = memref.alloc() : memref<8xf32>
  scf.if %flag {
    memref.dealloc %b : memref<8xf32>
  }
  linalg.fill ins(%zero : f32) outs(%d : memref<?xf32>)
  %c = memref.alloc() : memref<8xf32>
  memref.copy %a, %c : memref<8xf32> to memref<8xf32>
  return %sum : f32
}
func.func private @external(memref<8xf32>)
