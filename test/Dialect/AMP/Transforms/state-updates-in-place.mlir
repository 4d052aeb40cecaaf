// RUN: amp-opt %s -split-input-file --amp-state-updates-in-place | FileCheck %s

// A state result that is its argument's buffer (also through a cast) was
// updated in place: it goes, and its argument is listed. A state result in
// a buffer of its own, and the loss, stay.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[P:[a-z0-9]+]]: memref<4xf32>, %[[M:[a-z0-9]+]]: memref<4xf32>, %[[V:[a-z0-9]+]]: memref<4xf32>)
// CHECK-SAME: -> (memref<4xf32>, memref<f32>)
// CHECK-SAME: amp.updated_in_place = array<i32: 0, 2>
// CHECK-NOT: amp.state_updates
// CHECK: %[[NEWM:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[LOSS:.*]] = memref.alloc() : memref<f32>
// CHECK: return %[[NEWM]], %[[LOSS]] : memref<4xf32>, memref<f32>
func.func @step(%p: memref<4xf32>, %m: memref<4xf32>, %v: memref<4xf32>)
    -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<f32>)
    attributes {amp.state_updates = array<i32: 0, 1, 2, -1>} {
  %newm = memref.alloc() : memref<4xf32>
  %loss = memref.alloc() : memref<f32>
  %cast = memref.cast %v : memref<4xf32> to memref<?xf32>
  %back = memref.cast %cast : memref<?xf32> to memref<4xf32>
  return %p, %newm, %back, %loss : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<f32>
}

// -----

// A result returning another state argument's buffer is not an update in
// place: only the pairing counts.
// CHECK-LABEL: func.func @swapped(
// CHECK-SAME: -> (memref<4xf32>, memref<4xf32>)
// CHECK-NOT: amp.updated_in_place
// CHECK: return %arg1, %arg0
func.func @swapped(%a: memref<4xf32>, %b: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
    attributes {amp.state_updates = array<i32: 0, 1>} {
  return %b, %a : memref<4xf32>, memref<4xf32>
}

// -----

// A called function keeps its results (its callers would need rewriting);
// the pairing attribute goes all the same.
// CHECK-LABEL: func.func @called(
// CHECK-SAME: -> memref<4xf32>
// CHECK-NOT: amp.
// CHECK: return %arg0
// CHECK-LABEL: func.func @caller(
// CHECK: call @called
func.func @called(%p: memref<4xf32>) -> memref<4xf32>
    attributes {amp.state_updates = array<i32: 0>} {
  return %p : memref<4xf32>
}
func.func @caller(%p: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @called(%p) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}
