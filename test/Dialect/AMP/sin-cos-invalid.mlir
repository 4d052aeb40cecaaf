// amp.sin and amp.cos take and give one float tensor type, like every
// unary op.

// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @result_type_differs(%x: tensor<3xf32>) -> tensor<3xf16> {
  // expected-error @+1 {{'amp.sin' op requires the same type for all operands and results}}
  %0 = "amp.sin"(%x) : (tensor<3xf32>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

func.func @integer_input(%x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{'amp.cos' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<3xi64>'}}
  %0 = "amp.cos"(%x) : (tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
