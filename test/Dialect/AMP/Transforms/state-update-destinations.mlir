// RUN: amp-opt %s -split-input-file --amp-state-update-destinations | FileCheck %s
// With bufferization after it, the updates land in the arguments' buffers
// wherever nothing reads the old value later:
// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-state-update-destinations),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},amp-state-updates-in-place)" | FileCheck %s --check-prefix=BUF

#map = affine_map<(d0) -> (d0)>

// An SGD-like update: its init was a fresh tensor it never reads, so the
// parameter's argument takes its place; the loss (no pairing) keeps its own.
// CHECK-LABEL: func.func @sgd(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<4xf32>, %[[G:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[G]] : tensor<4xf32>, tensor<4xf32>) outs(%[[P]] : tensor<4xf32>)
// CHECK: %[[LOSS:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: return %[[NEW]], %[[LOSS]]

// BUF-LABEL: func.func @sgd(
// BUF-SAME: %[[P:[a-z0-9]+]]: memref<4xf32>, %[[G:[a-z0-9]+]]: memref<4xf32>) -> memref<4xf32>
// BUF-SAME: amp.updated_in_place = array<i32: 0>
// BUF: linalg.generic {{.*}} ins(%[[P]], %[[G]] : memref<4xf32>, memref<4xf32>) outs(%[[P]] : memref<4xf32>)
// BUF-NOT: amp.state_updates
func.func @sgd(%p: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    attributes {amp.state_updates = array<i32: 0, -1>} {
  %e = tensor.empty() : tensor<4xf32>
  %new = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %loss = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %new, %loss : tensor<4xf32>, tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// The old value is read after the update (a copy computed from it): the
// destination is still the argument, but bufferization gives the update a
// buffer of its own, and the result stays.
// CHECK-LABEL: func.func @read_after(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[P]] : tensor<4xf32>)

// BUF-LABEL: func.func @read_after(
// BUF-SAME: -> (memref<4xf32>, memref<4xf16>)
// BUF-NOT: amp.updated_in_place
// BUF: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUF: linalg.generic {{.*}} outs(%[[NEW]] : memref<4xf32>)
// BUF: return %[[NEW]]
func.func @read_after(%p: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>)
    attributes {amp.state_updates = array<i32: 0, -1>} {
  %e = tensor.empty() : tensor<4xf32>
  %new = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e16 = tensor.empty() : tensor<4xf16>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%p : tensor<4xf32>) outs(%e16 : tensor<4xf16>) {
  ^bb0(%a: f32, %c: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4xf16>
  return %new, %copy : tensor<4xf32>, tensor<4xf16>
}

// -----

#map = affine_map<(d0) -> (d0)>

// An init the payload reads (an accumulation into a running sum) is kept:
// its contents matter. A state returned unchanged is its argument already.
// CHECK-LABEL: func.func @kept(
// CHECK-SAME: %[[ACC:[a-z0-9]+]]: tensor<4xf32>, %[[G:[a-z0-9]+]]: tensor<4xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}} ins(%[[G]] : tensor<4xf32>) outs(%[[Z]] : tensor<4xf32>)

// BUF-LABEL: func.func @kept(
// BUF-SAME: -> memref<4xf32>
// BUF-SAME: amp.updated_in_place = array<i32: 2>
func.func @kept(%acc: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    attributes {amp.state_updates = array<i32: 0, 2>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %sum, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// Without amp.state_updates nothing changes.
// CHECK-LABEL: func.func @no_contract(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)

// BUF-LABEL: func.func @no_contract(
// BUF-SAME: -> memref<4xf32>
// BUF-NOT: amp.updated_in_place
func.func @no_contract(%p: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %new = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%p : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %new : tensor<4xf32>
}
