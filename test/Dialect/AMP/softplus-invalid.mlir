// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @result_type_differs(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'amp.softplus' op requires the same type for all operands and results}}
  %0 = "amp.softplus"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @integer_input(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'amp.softplus' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4xi32>'}}
  %0 = "amp.softplus"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @unranked_input(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'amp.softplus' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<*xf32>'}}
  %0 = "amp.softplus"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
