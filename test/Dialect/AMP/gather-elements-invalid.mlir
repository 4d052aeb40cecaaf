// RUN: amp-opt %s -split-input-file -verify-diagnostics

// amp.gather_elements and amp.scatter_add_elements: the indices have the
// rank of the gathered tensor and are no longer than it away from the axis,
// the axis exists, the result (the gradient) has the indices' shape and
// element types follow the gathered tensor.

func.func @rank(%x: tensor<4x10xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @below {{'amp.gather_elements' op indices must have rank 2, got 1}}
  %0 = amp.gather_elements %x, %i : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @axis(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  // expected-error @below {{'amp.gather_elements' op axis 2 is out of range for rank 2}}
  %0 = amp.gather_elements %x, %i {axis = 2 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @longer_off_axis(%x: tensor<4x10xf32>, %i: tensor<5x3xi64>) -> tensor<5x3xf32> {
  // expected-error @below {{'amp.gather_elements' op indices have size 5 in dimension 0 but the input has 4 (only the axis may be longer)}}
  %0 = amp.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x10xf32>, tensor<5x3xi64>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @result_shape(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>) -> tensor<4x10xf32> {
  // expected-error @below {{'amp.gather_elements' op result}}
  %0 = amp.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @result_type(%x: tensor<4x10xf16>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  // expected-error @below {{'amp.gather_elements' op result has element type 'f32'}}
  %0 = amp.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x10xf16>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scalar(%x: tensor<f32>, %i: tensor<i64>) -> tensor<f32> {
  // expected-error @below {{'amp.gather_elements' op input must have rank at least 1}}
  %0 = amp.gather_elements %x, %i : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @float_indices(%x: tensor<4x10xf32>, %i: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = amp.gather_elements %x, %i : (tensor<4x10xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_grad_shape(%g: tensor<4x4xf32>, %i: tensor<4x3xi64>) -> tensor<4x10xf32> {
  // expected-error @below {{'amp.scatter_add_elements' op grad}}
  %0 = amp.scatter_add_elements %g, %i {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @scatter_longer_off_axis(%g: tensor<5x3xf32>, %i: tensor<5x3xi64>) -> tensor<4x10xf32> {
  // expected-error @below {{'amp.scatter_add_elements' op indices have size 5 in dimension 0 but the result has 4 (only the axis may be longer)}}
  %0 = amp.scatter_add_elements %g, %i {axis = 1 : i64} : (tensor<5x3xf32>, tensor<5x3xi64>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @scatter_result_type(%g: tensor<4x3xf32>, %i: tensor<4x3xi64>) -> tensor<4x10xf16> {
  // expected-error @below {{'amp.scatter_add_elements' op result has element type 'f16'}}
  %0 = amp.scatter_add_elements %g, %i {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<4x10xf16>
  return %0 : tensor<4x10xf16>
}
