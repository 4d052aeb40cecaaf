// RUN: not amp-opt %s -split-input-file --amp-gpu-pipeline="format=isa" 2>&1 | FileCheck %s

// What amp-gpu-pipeline does not lower yet fails with an error on the op,
// never a crash or a silently wrong program. Each split holds one error.

// A matmul with an f16 result accumulates in an f32 temporary (GEMMs will go
// to cuBLASLt).
// CHECK: error: amp-gpu-pipeline: this graph needs an intermediate buffer
// CHECK-SAME: not supported yet; the GPU pipeline lowers elementwise graphs only
func.func @matmul(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = amp.matmul %x, %w : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// A reduction's result is not the function's own buffer either.
// CHECK: error: amp-gpu-pipeline: this graph needs an intermediate buffer
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = amp.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Dynamic shapes are rejected by convert-amp-to-linalg, as on the CPU.
// CHECK: error: 'amp.add' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only
func.func @add_dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = amp.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
