// RUN: amp-opt %s -split-input-file --amp-cpu-strided-copies-to-loops | FileCheck %s

// The copy of a convolution input into the interior of its zero-padded
// buffer: the target is a strided view, so the copy becomes a
// linalg.generic over the input's shape.

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pad_interior
// CHECK-SAME: (%[[X:.+]]: memref<2x3x4x4xf32>, %[[PADDED:.+]]: memref<2x3x6x6xf32>)
// CHECK: %[[INTERIOR:.+]] = memref.subview %[[PADDED]][0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 1, 1]
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : memref<2x3x4x4xf32>) outs(%[[INTERIOR]] : memref<2x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
func.func @pad_interior(%x: memref<2x3x4x4xf32>, %padded: memref<2x3x6x6xf32>) {
  %interior = memref.subview %padded[0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 1, 1]
      : memref<2x3x6x6xf32> to memref<2x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>
  memref.copy %x, %interior : memref<2x3x4x4xf32> to memref<2x3x4x4xf32, strided<[108, 36, 6, 1], offset: 7>>
  return
}

// -----

// A strided source (reading the interior back out) goes the same way.

// CHECK-LABEL: func.func @strided_source
// CHECK-NOT: memref.copy
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}} : memref<4x4xf32, strided<[6, 1], offset: 7>>) outs(%{{.+}} : memref<4x4xf32>)
func.func @strided_source(%padded: memref<6x6xf32>, %out: memref<4x4xf32>) {
  %interior = memref.subview %padded[1, 1] [4, 4] [1, 1]
      : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %interior, %out : memref<4x4xf32, strided<[6, 1], offset: 7>> to memref<4x4xf32>
  return
}

// -----

// Left alone: a copy between contiguous buffers (one llvm.memcpy later) and
// one with a dynamic shape.

// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: linalg.generic
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<4x4xf32> to memref<4x4xf32>
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<?x4xf32, strided<[8, 1]>> to memref<?x4xf32>
// CHECK-NOT: linalg.generic
func.func @unchanged(%a: memref<4x4xf32>, %b: memref<4x4xf32>,
                     %c: memref<?x4xf32, strided<[8, 1]>>, %d: memref<?x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  memref.copy %c, %d : memref<?x4xf32, strided<[8, 1]>> to memref<?x4xf32>
  return
}
