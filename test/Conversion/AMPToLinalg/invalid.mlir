// RUN: amp-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))"
// RUN: not amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" 2>&1 | FileCheck %s

// The pass lowers static shapes only (DESIGN.md section 3, "static shapes
// first"). An op with a dynamic dimension makes it fail with an error on
// that op, before anything is rewritten, instead of emitting tensor.empty
// ops whose sizes were never computed. Each split holds one error; the
// FileCheck run checks the exit code and the order of the messages.

// CHECK: error: 'amp.add' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only
func.func @add_dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'amp.add' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only}}
  %0 = amp.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A lowerable op before it does not hide the error.
// CHECK: error: 'amp.matmul' op has a dynamic dimension
func.func @matmul_dynamic(%x: tensor<4x8xf16>, %w: tensor<8x?xf16>) -> tensor<4x?xf32> {
  %r = amp.relu %x : tensor<4x8xf16>
  // expected-error @+1 {{'amp.matmul' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only}}
  %0 = amp.matmul %r, %w : tensor<4x8xf16>, tensor<8x?xf16> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// CHECK: error: 'amp.reshape' op has a dynamic dimension
func.func @reshape_dynamic(%x: tensor<?x8xf32>) -> tensor<8x?xf32> {
  // expected-error @+1 {{'amp.reshape' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only}}
  %0 = amp.reshape %x : tensor<?x8xf32> -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

// CHECK: error: 'amp.cross_entropy' op has a dynamic dimension
func.func @cross_entropy_dynamic(%x: tensor<?x10xf32>, %y: tensor<?xi64>) -> tensor<f32> {
  // expected-error @+1 {{'amp.cross_entropy' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only}}
  %0 = amp.cross_entropy %x, %y : tensor<?x10xf32>, tensor<?xi64>
  return %0 : tensor<f32>
}
