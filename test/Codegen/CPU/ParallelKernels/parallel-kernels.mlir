// RUN: amp-opt %s -split-input-file --amp-cpu-parallel-kernels="min-work=64 task-work=16" | FileCheck %s

// A 16x8 elementwise kernel: 128 points, tiles of 2 rows (16 points, 2
// divides 16), 8 tasks. The kernel calls its range function on tasks
// 0..8; the range function runs tiles lo..hi of dimension 0, each the op
// on 2x8 subviews.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func private @add_kernel
// CHECK-SAME: (%[[A:.*]]: memref<16x8xf32>, %[[B:.*]]: memref<8xf32>, %[[C:.*]]: memref<16x8xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[TASKS:.*]] = arith.constant 8 : index
// CHECK: call @add_kernel.range(%[[A]], %[[B]], %[[C]], %[[ZERO]], %[[TASKS]])
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @add_kernel.range
// CHECK-SAME: (%{{.*}}: memref<16x8xf32>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<16x8xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-SAME: amp_parallel_tasks = 8 : i64
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: %[[FIRST:.*]] = arith.muli %[[LO]], %[[TILE:c2(_[0-9]+)?]] : index
// CHECK: %[[END:.*]] = arith.muli %[[HI]], %[[TILE]] : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[END]], %c16{{(_[0-9]+)?}} : index
// CHECK: scf.for %[[I:.*]] = %[[FIRST]] to %[[LAST]] step %c2
// CHECK: memref.subview %{{.*}}[%[[I]], 0] [2, 8] [1, 1]
// CHECK: linalg.generic
// CHECK-SAME: memref<2x8xf32, strided<[8, 1], offset: ?>>
func.func private @add_kernel(%a: memref<16x8xf32>, %b: memref<8xf32>,
                              %c: memref<16x8xf32>)
    attributes {passthrough = ["noinline"]} {
  linalg.generic {indexing_maps = [#map, #row, #map],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<16x8xf32>, memref<8xf32>)
      outs(%c : memref<16x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
func.func @step(%a: memref<16x8xf32>, %b: memref<8xf32>, %c: memref<16x8xf32>) {
  call @add_kernel(%a, %b, %c) : (memref<16x8xf32>, memref<8xf32>, memref<16x8xf32>) -> ()
  return
}

// -----

// Row sums (a reduction inside each row) split by rows: every row is summed
// in the same order by one task. An extent of 13 rows with tiles of 2 (no
// divisor of 13 up to 4): 7 tasks, the last tile of 1 row.

// CHECK-LABEL: func.func private @rows_kernel.range
// CHECK-SAME: amp_parallel_tasks = 7 : i64
// CHECK: %[[LAST:.*]] = arith.minsi %{{.*}}, %c13{{(_[0-9]+)?}} : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[LAST]] step %c2
// CHECK: affine.min
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
func.func private @rows_kernel(%a: memref<13x8xf32>, %sums: memref<13xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<13x8xf32>) outs(%sums : memref<13xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Column sums (an outermost reduction) split by columns, the first
// parallel dimension: each tile sums its columns over every row, in the
// order of the whole op. Tiles of an inner dimension are 16 columns at
// least (whole cache lines): 4 tasks over 64 columns.

// CHECK-LABEL: func.func private @wide_columns_kernel.range
// CHECK-SAME: amp_parallel_tasks = 4 : i64
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: memref.subview %{{.*}}[0, %[[J]]] [4, 16] [1, 1]
// CHECK: memref.subview %{{.*}}[%[[J]]] [16] [1]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
func.func private @wide_columns_kernel(%a: memref<4x64xf32>, %sums: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4x64xf32>) outs(%sums : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// Left alone: column sums over fewer than two tiles of 16 columns, too
// little work, a public function, a body of two ops.

// CHECK-LABEL: func.func private @columns_kernel
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK-NOT: .range
func.func private @columns_kernel(%a: memref<16x8xf32>, %sums: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<16x8xf32>) outs(%sums : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func private @small_kernel
// CHECK-NEXT: linalg.copy
func.func private @small_kernel(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  linalg.copy ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
  return
}

// CHECK-LABEL: func.func @public_copy
// CHECK-NEXT: linalg.copy
func.func @public_copy(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
  linalg.copy ins(%a : memref<16x8xf32>) outs(%b : memref<16x8xf32>)
  return
}

// CHECK-LABEL: func.func private @two_ops_kernel
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: linalg.copy
func.func private @two_ops_kernel(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
  linalg.copy ins(%a : memref<16x8xf32>) outs(%b : memref<16x8xf32>)
  linalg.copy ins(%b : memref<16x8xf32>) outs(%a : memref<16x8xf32>)
  return
}

// -----

// Left alone: iterations that could read what others write. The output is
// read through another map (row i reads row 15 - i), or a call passes the
// output buffer as the input too.

// CHECK-LABEL: func.func private @reversed_kernel
// CHECK-NEXT: linalg.generic
func.func private @reversed_kernel(%a: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (15 - d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x8xf32>) outs(%a : memref<16x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// CHECK-LABEL: func.func private @aliased_kernel
// CHECK-NEXT: linalg.generic
func.func private @aliased_kernel(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (15 - d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x8xf32>) outs(%b : memref<16x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}
func.func @aliasing_step(%a: memref<16x8xf32>) {
  call @aliased_kernel(%a, %a) : (memref<16x8xf32>, memref<16x8xf32>) -> ()
  return
}

// -----

// Leading dimensions of extent 1 (a convolution's single group) are
// skipped: the split is along the first dimension of more than one
// iteration, here the 16 images of 1x16x8x8, one per task (64 points
// each, above task-work).

// CHECK-LABEL: func.func private @grouped_kernel.range
// CHECK-SAME: amp_parallel_tasks = 16 : i64
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: memref.subview %{{.*}}[0, %[[I]], 0, 0] [1, 1, 8, 8] [1, 1, 1, 1]
func.func private @grouped_kernel(%a: memref<1x16x8x8xf32>, %b: memref<1x16x8x8xf32>) {
  linalg.copy ins(%a : memref<1x16x8x8xf32>) outs(%b : memref<1x16x8x8xf32>)
  return
}

// -----

// Left alone: an output that the split dimension does not index (tiles
// would write the same elements), and a call passing two views of one
// buffer (the output overlaps the input).

// CHECK-LABEL: func.func private @unindexed_kernel
// CHECK-NEXT: linalg.generic
func.func private @unindexed_kernel(%a: memref<16x8xf32>, %b: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// CHECK-LABEL: func.func private @views_kernel
// CHECK-NEXT: linalg.generic
func.func private @views_kernel(%a: memref<16x8xf32, strided<[8, 1]>>,
                                %b: memref<16x8xf32, strided<[8, 1], offset: 8>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x8xf32, strided<[8, 1]>>)
      outs(%b : memref<16x8xf32, strided<[8, 1], offset: 8>>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}
func.func @views_step(%buffer: memref<17x8xf32>) {
  %first = memref.subview %buffer[0, 0] [16, 8] [1, 1]
      : memref<17x8xf32> to memref<16x8xf32, strided<[8, 1]>>
  %second = memref.subview %buffer[1, 0] [16, 8] [1, 1]
      : memref<17x8xf32> to memref<16x8xf32, strided<[8, 1], offset: 8>>
  call @views_kernel(%first, %second)
      : (memref<16x8xf32, strided<[8, 1]>>, memref<16x8xf32, strided<[8, 1], offset: 8>>) -> ()
  return
}

// -----

// A state update in place (amp-state-updates-in-place): the call passes the
// same buffer as an input and the output, read with the output's map, so
// each tile reads only the elements it writes: split (@aliased_kernel
// above, reading the same buffer reversed, is not).

// CHECK-LABEL: func.func private @update_kernel.range
// CHECK-SAME: amp_parallel_tasks
func.func private @update_kernel(%p: memref<16x8xf32>, %g: memref<16x8xf32>,
                                 %out: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p, %g : memref<16x8xf32>, memref<16x8xf32>)
      outs(%out : memref<16x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    linalg.yield %d : f32
  }
  return
}
func.func @update_step(%p: memref<16x8xf32>, %g: memref<16x8xf32>) {
  call @update_kernel(%p, %g, %p)
      : (memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32>) -> ()
  return
}
