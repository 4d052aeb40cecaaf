// RUN: amp-opt %s -split-input-file --amp-gpu-device-buffers | FileCheck %s

// Host buffers go to device memory: memref.alloc/dealloc outside kernels
// become gpu.alloc/dealloc (synchronous here; gpu-async-region chains them
// later), copies between dense buffers gpu.memcpy.

// CHECK-LABEL: func.func @alloc_copy_dealloc
//  CHECK-SAME:     (%[[SRC:.+]]: memref<4x8xf32>, %[[DST:.+]]: memref<4x8xf32>)
//       CHECK:   %[[BUF:.+]] = gpu.alloc () : memref<4x8xf32>
//   CHECK-NOT:   host_shared
//       CHECK:   gpu.memcpy  %[[BUF]], %[[SRC]] : memref<4x8xf32>, memref<4x8xf32>
//       CHECK:   gpu.memcpy  %[[DST]], %[[BUF]] : memref<4x8xf32>, memref<4x8xf32>
//       CHECK:   gpu.dealloc  %[[BUF]] : memref<4x8xf32>
//   CHECK-NOT:   memref.
func.func @alloc_copy_dealloc(%src: memref<4x8xf32>, %dst: memref<4x8xf32>) {
  %buf = memref.alloc() : memref<4x8xf32>
  memref.copy %src, %buf : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %buf, %dst : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %buf : memref<4x8xf32>
  return
}

// -----

// Dynamic sizes carry over.
// CHECK-LABEL: func.func @dynamic
//  CHECK-SAME:     (%[[N:.+]]: index)
//       CHECK:   %[[BUF:.+]] = gpu.alloc (%[[N]]) : memref<?xf32>
//       CHECK:   gpu.dealloc  %[[BUF]] : memref<?xf32>
func.func @dynamic(%n: index) {
  %buf = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %buf : memref<?xf32>
  return
}

// -----

// A copy involving a strided view is not a gpu.memcpy: it stays (it is
// amp-gpu-prepare-linalg's to turn into a kernel).
// CHECK-LABEL: func.func @strided_copy_stays
//       CHECK:   memref.copy %{{.+}}, %{{.+}} : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
//   CHECK-NOT:   gpu.memcpy
func.func @strided_copy_stays(%src: memref<4x8xf32>, %dst: memref<2x8xf32>) {
  %view = memref.subview %src[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %view, %dst : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
  return
}

// -----

// Buffers inside a kernel are left alone.
// CHECK-LABEL: func.func @inside_kernel
//       CHECK:   gpu.launch
//       CHECK:     %[[T:.+]] = memref.alloc() : memref<f32>
//       CHECK:     memref.copy %[[T]], %arg0
//       CHECK:     memref.dealloc %[[T]]
//   CHECK-NOT:   gpu.alloc
//   CHECK-NOT:   gpu.memcpy
func.func @inside_kernel(%out: memref<f32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloc() : memref<f32>
    memref.copy %t, %out : memref<f32> to memref<f32>
    memref.dealloc %t : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// An allocation with symbol operands (an affine layout bound to symbols) is
// left alone.
// CHECK-LABEL: func.func @symbol_operands
//       CHECK:   memref.alloc()[%arg0] : memref<4xf32, #{{.+}}>
//   CHECK-NOT:   gpu.alloc
func.func @symbol_operands(%off: index) {
  %buf = memref.alloc()[%off] : memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  return
}
