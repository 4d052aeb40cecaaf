// RUN: amp-opt %s -split-input-file -verify-diagnostics

// padding_idx names a row of an embedding table: axis 0 only, and a row
// that exists.

func.func @gather_padding_axis(%t: tensor<100x16xf32>, %i: tensor<8xi64>) -> tensor<100x8xf32> {
  // expected-error @+1 {{'amp.gather' op padding_idx requires axis 0 (an embedding table), got axis 1}}
  %0 = amp.gather %t, %i {axis = 1 : i64, padding_idx = 0 : i64} : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

// -----

func.func @gather_padding_negative(%t: tensor<100x16xf32>, %i: tensor<8xi64>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'amp.gather' op padding_idx -1 is not a row of the table (dim 0 has size 100)}}
  %0 = amp.gather %t, %i {padding_idx = -1 : i64} : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @gather_padding_too_large(%t: tensor<100x16xf32>, %i: tensor<8xi64>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'amp.gather' op padding_idx 100 is not a row of the table (dim 0 has size 100)}}
  %0 = amp.gather %t, %i {padding_idx = 100 : i64} : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @gather_grad_padding_axis(%g: tensor<2x8xf32>, %i: tensor<8xi64>) -> tensor<2x100xf32> {
  // expected-error @+1 {{'amp.gather_grad' op padding_idx requires axis 0 (an embedding table), got axis -1}}
  %0 = amp.gather_grad %g, %i {axis = -1 : i64, padding_idx = 0 : i64} : (tensor<2x8xf32>, tensor<8xi64>) -> tensor<2x100xf32>
  return %0 : tensor<2x100xf32>
}

// -----

func.func @gather_grad_padding_too_large(%g: tensor<8x16xf32>, %i: tensor<8xi64>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'amp.gather_grad' op padding_idx 120 is not a row of the table (dim 0 has size 100)}}
  %0 = amp.gather_grad %g, %i {padding_idx = 120 : i64} : (tensor<8x16xf32>, tensor<8xi64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @gather_padding_not_i64(%t: tensor<100x16xf32>, %i: tensor<8xi64>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'amp.gather' op attribute 'padding_idx' failed to satisfy constraint: 64-bit integer attribute}}
  %0 = amp.gather %t, %i {padding_idx = 1 : i32} : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
