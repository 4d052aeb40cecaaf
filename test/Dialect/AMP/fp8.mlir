// RUN: amp-opt %s -split-input-file | amp-opt | FileCheck %s

// amp.fp8_quantize and amp.fp8_matmul round-trip (issue 39).

// CHECK-LABEL: func.func @linear_fp8
// CHECK: %[[Q:.*]], %[[AMAX:.*]] = amp.fp8_quantize %{{.*}}, %{{.*}} : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>
// CHECK: amp.fp8_matmul %[[Q]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {fast_accumulation, transpose_rhs} : tensor<4x8xf8E4M3FN>, tensor<16x8xf8E4M3FN>, tensor<16xbf16> -> tensor<4x16xbf16>
func.func @linear_fp8(%x: tensor<4x8xbf16>, %sx: tensor<f32>,
                      %w: tensor<16x8xf8E4M3FN>, %iw: tensor<f32>,
                      %b: tensor<16xbf16>) -> (tensor<4x16xbf16>, tensor<f32>) {
  %q, %amax = amp.fp8_quantize %x, %sx : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>
  %y = amp.fp8_matmul %q, %w, %sx, %iw, %b {transpose_rhs, fast_accumulation}
      : tensor<4x8xf8E4M3FN>, tensor<16x8xf8E4M3FN>, tensor<16xbf16> -> tensor<4x16xbf16>
  return %y, %amax : tensor<4x16xbf16>, tensor<f32>
}

// -----

// A gradient in e5m2 times an e4m3 operand, transposed, with an f32 result.
// CHECK-LABEL: func.func @weight_grad
// CHECK: amp.fp8_matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {transpose_lhs} : tensor<4x16xf8E5M2>, tensor<4x8xf8E4M3FN> -> tensor<16x8xf32>
func.func @weight_grad(%dy: tensor<4x16xf8E5M2>, %x: tensor<4x8xf8E4M3FN>,
                       %a: tensor<f32>, %b: tensor<f32>) -> tensor<16x8xf32> {
  %dw = amp.fp8_matmul %dy, %x, %a, %b {transpose_lhs}
      : tensor<4x16xf8E5M2>, tensor<4x8xf8E4M3FN> -> tensor<16x8xf32>
  return %dw : tensor<16x8xf32>
}
