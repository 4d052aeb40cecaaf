// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @quantize_shape(%x: tensor<4x8xbf16>, %s: tensor<f32>) {
  // expected-error @+1 {{result has shape 4x4 but must have shape 4x8}}
  %q, %amax = amp.fp8_quantize %x, %s : tensor<4x8xbf16> -> tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @quantize_to_bf16(%x: tensor<4x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{must be ranked tensor of f8E4M3FN type or f8E5M2 type values}}
  %q, %amax = amp.fp8_quantize %x, %s : tensor<4x8xf32> -> tensor<4x8xbf16>
  return
}

// -----

func.func @two_e5m2(%a: tensor<4x8xf8E5M2>, %b: tensor<8x2xf8E5M2>, %s: tensor<f32>) {
  // expected-error @+1 {{cannot multiply two f8E5M2 operands}}
  %y = amp.fp8_matmul %a, %b, %s, %s : tensor<4x8xf8E5M2>, tensor<8x2xf8E5M2> -> tensor<4x2xbf16>
  return
}

// -----

func.func @contraction(%a: tensor<4x8xf8E4M3FN>, %b: tensor<4x2xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{contraction dimensions differ: lhs has 8, rhs has 4}}
  %y = amp.fp8_matmul %a, %b, %s, %s : tensor<4x8xf8E4M3FN>, tensor<4x2xf8E4M3FN> -> tensor<4x2xbf16>
  return
}

// -----

func.func @result_shape(%a: tensor<4x8xf8E4M3FN>, %b: tensor<2x8xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{result has shape 4x8 but must have shape 4x2}}
  %y = amp.fp8_matmul %a, %b, %s, %s {transpose_rhs} : tensor<4x8xf8E4M3FN>, tensor<2x8xf8E4M3FN> -> tensor<4x8xbf16>
  return
}

// -----

func.func @rank(%a: tensor<2x4x8xf8E4M3FN>, %b: tensor<8x2xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{lhs must have rank 2, got 3}}
  %y = amp.fp8_matmul %a, %b, %s, %s : tensor<2x4x8xf8E4M3FN>, tensor<8x2xf8E4M3FN> -> tensor<2x4x2xbf16>
  return
}

// -----

func.func @bias_type(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x2xf8E4M3FN>, %s: tensor<f32>, %bias: tensor<2xf32>) {
  // expected-error @+1 {{bias has element type 'f32' but must have 'bf16'}}
  %y = amp.fp8_matmul %a, %b, %s, %s, %bias : tensor<4x8xf8E4M3FN>, tensor<8x2xf8E4M3FN>, tensor<2xf32> -> tensor<4x2xbf16>
  return
}

// -----

func.func @result_f16(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x2xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{must be ranked tensor of bfloat16 type or 32-bit float values}}
  %y = amp.fp8_matmul %a, %b, %s, %s : tensor<4x8xf8E4M3FN>, tensor<8x2xf8E4M3FN> -> tensor<4x2xf16>
  return
}

// -----

func.func @decision_on_add(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.fp8' is a non-empty string on amp.linear, amp.matmul or amp.fp8_matmul}}
  %0 = amp.add %a, %a {amp.fp8 = "bf16"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @decision_not_text(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'amp.fp8' is a non-empty string on amp.linear, amp.matmul or amp.fp8_matmul}}
  %0 = amp.matmul %a, %a {amp.fp8 = 1 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
