// The raising rewrite on hand-written amp IR (amp-translate
// --raise-onnx-idioms): what it matches and, as importantly, what it leaves.
// RUN: amp-translate --raise-onnx-idioms %s 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @layer_norm_f16
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = amp.layer_norm %arg0, %arg1, %arg2 {axis = 1 : i64, epsilon = 1.000000e-03 : f64} : (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_f16(%x: tensor<4x8xf16>, %w: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  %m = amp.reduce_mean %x {axes = array<i64: -1>, keep_dims} : tensor<4x8xf16> -> tensor<4x1xf16>
  %mb = amp.broadcast %m : tensor<4x1xf16> -> tensor<4x8xf16>
  %d = amp.sub %x, %mb : tensor<4x8xf16>
  %d2 = amp.mul %d, %d : tensor<4x8xf16>
  %v = amp.reduce_mean %d2 {axes = array<i64: 1>, keep_dims} : tensor<4x8xf16> -> tensor<4x1xf16>
  %eps = amp.constant dense<1.0e-3> : tensor<4x1xf16>
  %ve = amp.add %eps, %v : tensor<4x1xf16>
  %s = amp.sqrt %ve : tensor<4x1xf16>
  %sb = amp.broadcast %s : tensor<4x1xf16> -> tensor<4x8xf16>
  %n = amp.div %d, %sb : tensor<4x8xf16>
  %wb = amp.broadcast %w : tensor<8xf16> -> tensor<4x8xf16>
  %y0 = amp.mul %wb, %n : tensor<4x8xf16>
  %bb = amp.broadcast %b : tensor<8xf16> -> tensor<4x8xf16>
  %y = amp.add %bb, %y0 : tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}


// Normalizing over a dimension that is not trailing is not a layer norm.
// CHECK-LABEL: func.func @not_a_layer_norm
// CHECK-NOT: amp.layer_norm
// CHECK: amp.div
func.func @not_a_layer_norm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = amp.reduce_mean %x {axes = array<i64: 0>, keep_dims} : tensor<4x8xf32> -> tensor<1x8xf32>
  %mb = amp.broadcast %m : tensor<1x8xf32> -> tensor<4x8xf32>
  %d = amp.sub %x, %mb : tensor<4x8xf32>
  %two = amp.constant dense<2.0> : tensor<4x8xf32>
  %d2 = amp.pow %d, %two : tensor<4x8xf32>
  %v = amp.reduce_mean %d2 {axes = array<i64: 0>, keep_dims} : tensor<4x8xf32> -> tensor<1x8xf32>
  %eps = amp.constant dense<1.0e-5> : tensor<1x8xf32>
  %ve = amp.add %v, %eps : tensor<1x8xf32>
  %s = amp.sqrt %ve : tensor<1x8xf32>
  %sb = amp.broadcast %s : tensor<1x8xf32> -> tensor<4x8xf32>
  %n = amp.div %d, %sb : tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}


// A GELU scaled by 1 / sqrt(2) instead of divided by sqrt(2).
// CHECK-LABEL: func.func @gelu_mul_form
// CHECK: %[[Y:.*]] = amp.gelu %arg0 : tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_mul_form(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = amp.constant dense<0.707106769> : tensor<2x4xf32>
  %s = amp.mul %c, %x : tensor<2x4xf32>
  %e = amp.erf %s : tensor<2x4xf32>
  %one = amp.constant dense<1.0> : tensor<2x4xf32>
  %e1 = amp.add %one, %e : tensor<2x4xf32>
  %half = amp.constant dense<0.5> : tensor<2x4xf32>
  %hx = amp.mul %x, %half : tensor<2x4xf32>
  %y = amp.mul %hx, %e1 : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}


// Wrong constant (1.5 instead of 0.5): not a GELU.
// CHECK-LABEL: func.func @not_a_gelu
// CHECK-NOT: amp.gelu
// CHECK: amp.erf
func.func @not_a_gelu(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = amp.constant dense<1.41421354> : tensor<2x4xf32>
  %s = amp.div %x, %c : tensor<2x4xf32>
  %e = amp.erf %s : tensor<2x4xf32>
  %one = amp.constant dense<1.0> : tensor<2x4xf32>
  %e1 = amp.add %e, %one : tensor<2x4xf32>
  %p = amp.mul %x, %e1 : tensor<2x4xf32>
  %k = amp.constant dense<1.5> : tensor<2x4xf32>
  %y = amp.mul %p, %k : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}


// An instance norm with a real (non-unit) scale is not a group norm's core.
// CHECK-LABEL: func.func @not_a_group_norm
// CHECK: amp.group_norm %{{.*}} {num_groups = 2 : i64} : (tensor<2x2x8xf32>
func.func @not_a_group_norm(%x: tensor<2x4x2x2xf32>, %g: tensor<2xf32>) -> tensor<2x4x2x2xf32> {
  %r = amp.reshape %x : tensor<2x4x2x2xf32> -> tensor<2x2x8xf32>
  %zero = amp.constant dense<0.0> : tensor<2xf32>
  %n, %mean, %rstd = amp.group_norm %r, %g, %zero {num_groups = 2 : i64}
      : (tensor<2x2x8xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %u = amp.reshape %n : tensor<2x2x8xf32> -> tensor<2x4x2x2xf32>
  return %u : tensor<2x4x2x2xf32>
}


// matmul by a transposed 2-d weight plus a bias is amp.linear; a batched
// transpose is not.
// CHECK-LABEL: func.func @linear
// CHECK: %[[Y:.*]] = amp.linear %arg0, %arg1, %arg2 : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK: amp.matmul %arg3, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x3xf32>
func.func @linear(%x: tensor<3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>, %q: tensor<2x3x4xf32>) -> (tensor<3x5xf32>, tensor<2x3x3xf32>) {
  %wt = amp.transpose %w {permutation = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
  %m = amp.matmul %x, %wt : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  %bb = amp.broadcast %b : tensor<5xf32> -> tensor<3x5xf32>
  %y = amp.add %bb, %m : tensor<3x5xf32>
  %qt = amp.transpose %q {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %s = amp.matmul %q, %qt : tensor<2x3x4xf32>, tensor<2x4x3xf32> -> tensor<2x3x3xf32>
  return %y, %s : tensor<3x5xf32>, tensor<2x3x3xf32>
}
