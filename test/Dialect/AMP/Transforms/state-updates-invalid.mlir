// The state pairing kept for lowering (amp.state_updates) and the arguments
// updated in place (amp.updated_in_place) are checked by the amp dialect.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'amp.state_updates' must be an array<i32> on a function}}
func.func @not_an_array(%p: memref<4xf32>) -> memref<4xf32>
    attributes {amp.state_updates = [0 : i32]} {
  return %p : memref<4xf32>
}

// -----

// expected-error @+1 {{'amp.state_updates' has 2 entries for 1 results}}
func.func @wrong_length(%p: memref<4xf32>) -> memref<4xf32>
    attributes {amp.state_updates = array<i32: 0, -1>} {
  return %p : memref<4xf32>
}

// -----

// expected-error @+1 {{'amp.state_updates' names argument 3 for result 0, which is not an argument}}
func.func @no_such_argument(%p: memref<4xf32>) -> memref<4xf32>
    attributes {amp.state_updates = array<i32: 3>} {
  return %p : memref<4xf32>
}

// -----

// expected-error @+1 {{'amp.updated_in_place' must list argument positions in ascending order}}
func.func @unsorted(%p: memref<4xf32>, %q: memref<4xf32>)
    attributes {amp.updated_in_place = array<i32: 1, 0>} {
  return
}

// -----

// expected-error @+1 {{'amp.updated_in_place' must list argument positions in ascending order}}
func.func @out_of_range(%p: memref<4xf32>)
    attributes {amp.updated_in_place = array<i32: 1>} {
  return
}

// -----

func.func @on_an_op(%p: memref<4xf32>) {
  // expected-error @+1 {{'amp.updated_in_place' must be an array<i32> on a function}}
  memref.dealloc %p {amp.updated_in_place = array<i32: 0>} : memref<4xf32>
  return
}
