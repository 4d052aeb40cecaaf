// RUN: amp-opt %s -split-input-file --amp-gpu-parallel-reductions | FileCheck %s

// An all-parallel generic after a full reduction over the same loops is
// computed in the reduction's first stage (its companion) only when its
// body can run where the reduction stands: a body that reads memory itself
// (gather_grad's merge-sort passes load from a buffer written in between) or
// takes a value defined after the reduction stays where it is.

// The body loads from a buffer allocated and written after the reduction:
// moved into the reduction's launch, the load would use a buffer defined
// later (the IR would not verify).
// CHECK-LABEL: func.func @body_loads_later_buffer
//       CHECK:   gpu.launch
//   CHECK-NOT:     memref.load %{{.+}}[%{{.+}}] : memref<8192xi32>
//       CHECK:     gpu.all_reduce add
//       CHECK:   gpu.launch
//       CHECK:   %[[KEYS:.+]] = memref.alloc() : memref<8192xi32>
//       CHECK:   linalg.fill ins(%{{.+}} : i32) outs(%[[KEYS]]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//       CHECK:     memref.load %[[KEYS]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @body_loads_later_buffer(%p: memref<64x128xf32>, %sum: memref<f32>)
    -> memref<64x128xi32> {
  %c128 = arith.constant 128 : index
  %c3 = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]}
      ins(%p : memref<64x128xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  %keys = memref.alloc() : memref<8192xi32>
  linalg.fill ins(%c3 : i32) outs(%keys : memref<8192xi32>)
  %g = memref.alloc() : memref<64x128xi32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%g : memref<64x128xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %r = arith.muli %i, %c128 : index
    %k = arith.addi %r, %j : index
    %v = memref.load %keys[%k] : memref<8192xi32>
    linalg.yield %v : i32
  }
  return %g : memref<64x128xi32>
}

// -----

// The body loads from a function argument that a copy in between writes:
// computed in the reduction's launch, it would read the buffer before the
// copy.
// CHECK-LABEL: func.func @body_loads_buffer_written_between
//  CHECK-SAME:     (%{{.+}}: memref<64x128xf32>, %{{.+}}: memref<f32>, %[[KEYS:.+]]: memref<64x128xf32>, %[[NEW:.+]]: memref<64x128xf32>)
//       CHECK:   gpu.launch
//   CHECK-NOT:     memref.load %[[KEYS]]
//       CHECK:     gpu.all_reduce add
//       CHECK:   gpu.launch
//       CHECK:   memref.copy %[[NEW]], %[[KEYS]]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//       CHECK:     memref.load %[[KEYS]]
#id1 = affine_map<(d0, d1) -> (d0, d1)>
#sc1 = affine_map<(d0, d1) -> ()>
func.func @body_loads_buffer_written_between(
    %p: memref<64x128xf32>, %sum: memref<f32>, %keys: memref<64x128xf32>,
    %new: memref<64x128xf32>) -> memref<64x128xf32> {
  linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction", "reduction"]}
      ins(%p : memref<64x128xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  memref.copy %new, %keys : memref<64x128xf32> to memref<64x128xf32>
  %g = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<64x128xf32>) outs(%g : memref<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = memref.load %keys[%i, %j] : memref<64x128xf32>
    %0 = arith.mulf %a, %v : f32
    linalg.yield %0 : f32
  }
  return %g : memref<64x128xf32>
}

// -----

// The body takes a scalar loaded after the reduction: not a companion. The
// same scalar loaded before the reduction is: the second generic is
// computed in the second reduction's first stage.
// CHECK-LABEL: func.func @body_takes_value_from_above
//  CHECK-SAME:     (%{{.+}}: memref<64x128xf32>, %{{.+}}: memref<f32>, %[[S:.+]]: memref<f32>,
//       CHECK:   gpu.launch
//   CHECK-NOT:     arith.mulf
//       CHECK:     gpu.all_reduce add
//       CHECK:   gpu.launch
//       CHECK:   %[[LATE:.+]] = memref.load %[[S]][]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
//       CHECK:     arith.mulf %{{.+}}, %[[LATE]]
//       CHECK:   %[[EARLY:.+]] = memref.load %[[S]][]
//       CHECK:   gpu.launch
//       CHECK:     scf.for
//       CHECK:       arith.mulf %{{.+}}, %[[EARLY]]
//       CHECK:     gpu.all_reduce add
//       CHECK:   gpu.launch
//   CHECK-NOT:   linalg.generic
//       CHECK:   return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#sc2 = affine_map<(d0, d1) -> ()>
func.func @body_takes_value_from_above(
    %p: memref<64x128xf32>, %sum: memref<f32>, %s: memref<f32>,
    %sum2: memref<f32>) -> (memref<64x128xf32>, memref<64x128xf32>) {
  linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%p : memref<64x128xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  %late = memref.load %s[] : memref<f32>
  %g = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<64x128xf32>) outs(%g : memref<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %late : f32
    linalg.yield %0 : f32
  }
  %early = memref.load %s[] : memref<f32>
  linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%p : memref<64x128xf32>) outs(%sum2 : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  %h = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<64x128xf32>) outs(%h : memref<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %early : f32
    linalg.yield %0 : f32
  }
  return %g, %h : memref<64x128xf32>, memref<64x128xf32>
}

// -----

// A column sum of the companion's output whose body takes a scalar loaded
// after the reduction is not summed in the reduction's first stage (it would
// use the scalar before its load); the companion still is computed there.
// CHECK-LABEL: func.func @column_sum_takes_value_from_above
//  CHECK-SAME:     (%{{.+}}: memref<64x128xf32>, %{{.+}}: memref<f32>, %[[S:.+]]: memref<f32>,
//   CHECK-NOT:   memref<128x8xf32>
//       CHECK:   %[[G:.+]] = memref.alloc() : memref<64x128xf32>
//       CHECK:   gpu.launch
//       CHECK:     scf.for
//       CHECK:       memref.store %{{.+}}, %[[G]]
//       CHECK:     gpu.all_reduce add
//       CHECK:   gpu.launch
//       CHECK:   %[[LATE:.+]] = memref.load %[[S]][]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins(%[[G]] : memref<64x128xf32>)
//       CHECK:     arith.mulf %{{.+}}, %[[LATE]]
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#sc3 = affine_map<(d0, d1) -> ()>
#col3 = affine_map<(d0, d1) -> (d1)>
func.func @column_sum_takes_value_from_above(
    %p: memref<64x128xf32>, %sum: memref<f32>, %s: memref<f32>,
    %b: memref<128xf32>) -> memref<64x128xf32> {
  linalg.generic {indexing_maps = [#id3, #sc3], iterator_types = ["reduction", "reduction"]}
      ins(%p : memref<64x128xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  %g = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<64x128xf32>) outs(%g : memref<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.negf %a : f32
    linalg.yield %0 : f32
  }
  %late = memref.load %s[] : memref<f32>
  linalg.generic {indexing_maps = [#id3, #col3], iterator_types = ["reduction", "parallel"]}
      ins(%g : memref<64x128xf32>) outs(%b : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.mulf %a, %late : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return %g : memref<64x128xf32>
}
