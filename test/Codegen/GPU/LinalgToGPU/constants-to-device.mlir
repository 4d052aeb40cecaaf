// RUN: amp-opt %s -split-input-file --amp-gpu-constants-to-device | FileCheck %s

// Every use of a bufferized constant (memref.get_global) gets its own fresh
// buffer (device memory once amp-gpu-device-buffers has run): a splat is
// filled in place, anything else is copied from the host global.

memref.global "private" constant @splat : memref<4x8xf32> = dense<1.500000e+00>

// CHECK-LABEL: func.func @splat_is_filled
//  CHECK-SAME:     (%[[OUT:.+]]: memref<4x8xf32>)
//   CHECK-NOT:   memref.get_global
//       CHECK:   %[[BUF:.+]] = memref.alloc() : memref<4x8xf32>
//       CHECK:   %[[C:.+]] = arith.constant 1.500000e+00 : f32
//       CHECK:   linalg.fill ins(%[[C]] : f32) outs(%[[BUF]] : memref<4x8xf32>)
//       CHECK:   memref.copy %[[BUF]], %[[OUT]]
func.func @splat_is_filled(%out: memref<4x8xf32>) {
  %0 = memref.get_global @splat : memref<4x8xf32>
  memref.copy %0, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

memref.global "private" constant @table : memref<4xi32> = dense<[1, 2, 3, 4]>

// CHECK-LABEL: func.func @dense_is_copied
//  CHECK-SAME:     (%[[OUT:.+]]: memref<4xi32>)
//       CHECK:   %[[G:.+]] = memref.get_global @table : memref<4xi32>
//       CHECK:   %[[BUF:.+]] = memref.alloc() : memref<4xi32>
//       CHECK:   memref.copy %[[G]], %[[BUF]]
//   CHECK-NOT:   linalg.fill
//       CHECK:   memref.copy %[[BUF]], %[[OUT]]
func.func @dense_is_copied(%out: memref<4xi32>) {
  %0 = memref.get_global @table : memref<4xi32>
  memref.copy %0, %out : memref<4xi32> to memref<4xi32>
  return
}

// -----

memref.global "private" constant @zero : memref<f32> = dense<0.000000e+00>

// Each use has its own buffer.
// CHECK-LABEL: func.func @two_uses
//       CHECK:   %[[B0:.+]] = memref.alloc() : memref<f32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[B0]] : memref<f32>)
//       CHECK:   %[[B1:.+]] = memref.alloc() : memref<f32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[B1]] : memref<f32>)
//       CHECK:   memref.copy %[[B0]], %arg0
//       CHECK:   memref.copy %[[B1]], %arg1
func.func @two_uses(%a: memref<f32>, %b: memref<f32>) {
  %0 = memref.get_global @zero : memref<f32>
  %1 = memref.get_global @zero : memref<f32>
  memref.copy %0, %a : memref<f32> to memref<f32>
  memref.copy %1, %b : memref<f32> to memref<f32>
  return
}

// -----

// A global read inside a GPU module is left alone.
// CHECK-LABEL: gpu.module @kernels
//       CHECK:   memref.get_global @k : memref<4xf32>
//   CHECK-NOT:   memref.alloc
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" constant @k : memref<4xf32> = dense<2.000000e+00>
    gpu.func @kernel(%out: memref<4xf32>) kernel {
      %0 = memref.get_global @k : memref<4xf32>
      gpu.return
    }
  }
}
