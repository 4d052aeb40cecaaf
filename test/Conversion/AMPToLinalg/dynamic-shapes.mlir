// RUN: amp-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))"
// RUN: amp-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" 2>&1 | FileCheck %s

// The static-shape requirement of convert-amp-to-linalg is checked once, by
// the pass, before any pattern runs: one error on the first amp op with a
// dynamic dimension, naming the operand or result and the dimension. Nothing
// is rewritten, so the lowerable ops before it stay amp ops.

func.func @second_operand(%x: tensor<4x8xf16>, %w: tensor<8x?xf16>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'amp.matmul' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only: dimension 1 of operand #1 ('tensor<8x?xf16>') is dynamic}}
  %0 = amp.matmul %x, %w : tensor<4x8xf16>, tensor<8x?xf16> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Static operands, dynamic result.
func.func @result(%x: tensor<4x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'amp.reshape' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only: dimension 0 of result #0 ('tensor<?x8xf32>') is dynamic}}
  %0 = amp.reshape %x : tensor<4x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// One error for the function: the second dynamic op is not reported (an
// unexpected error would fail -verify-diagnostics), and the static op before
// it is left alone.
func.func @first_only(%x: tensor<4x8xf32>, %y: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %r = amp.relu %x : tensor<4x8xf32>
  // expected-error @+1 {{dimension 1 of operand #0 ('tensor<4x?xf32>') is dynamic}}
  %e = amp.exp %y : tensor<4x?xf32>
  %n = amp.neg %e : tensor<4x?xf32>
  return %n : tensor<4x?xf32>
}

// -----

// Dynamic tensors outside amp ops are not the pass's concern: the amp op
// here is static and is lowered.
// CHECK-LABEL: func.func @dynamic_elsewhere
// CHECK-NOT: amp.
// CHECK: linalg.generic
// CHECK: return
func.func @dynamic_elsewhere(%x: tensor<4xf32>, %d: tensor<?xf32>) -> (tensor<4xf32>, tensor<?xf32>) {
  %0 = amp.exp %x : tensor<4xf32>
  return %0, %d : tensor<4xf32>, tensor<?xf32>
}
