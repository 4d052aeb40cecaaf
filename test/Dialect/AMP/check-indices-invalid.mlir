// RUN: amp-opt %s -split-input-file -verify-diagnostics

// amp.check_indices: the valid range is not empty, and the range result
// holds the least and the greatest index.

func.func @empty_range(%ids: tensor<4xi64>) -> tensor<i1> {
  // expected-error @below {{'amp.check_indices' op needs lower < upper, got [5, 5)}}
  %bad, %range = amp.check_indices %ids {lower = 5 : i64, upper = 5 : i64} : tensor<4xi64> -> tensor<i1>, tensor<2xi64>
  return %bad : tensor<i1>
}

// -----

func.func @range_shape(%ids: tensor<4xi32>) -> tensor<3xi64> {
  // expected-error @below {{'amp.check_indices' op range}}
  %bad, %range = amp.check_indices %ids {lower = 0 : i64, upper = 5 : i64} : tensor<4xi32> -> tensor<i1>, tensor<3xi64>
  return %range : tensor<3xi64>
}

// -----

func.func @float_indices(%ids: tensor<4xf32>) -> tensor<i1> {
  // expected-error @below {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %bad, %range = amp.check_indices %ids {lower = 0 : i64, upper = 5 : i64} : tensor<4xf32> -> tensor<i1>, tensor<2xi64>
  return %bad : tensor<i1>
}
