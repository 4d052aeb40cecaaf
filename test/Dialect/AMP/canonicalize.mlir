// RUN: amp-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @cast_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_to_same_type(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// A widening then a narrowing back is the identity.
// CHECK-LABEL: func.func @cast_round_trip_through_f32
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_round_trip_through_f32(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = amp.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// f16 -> f32 is exact, so f16 -> f32 -> bf16 is f16 -> bf16.
// CHECK-LABEL: func.func @cast_chain_after_exact_widening
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[C:.*]] = amp.cast %[[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: return %[[C]]
func.func @cast_chain_after_exact_widening(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// f32 -> f16 rounds: the round trip must stay.
// CHECK-LABEL: func.func @lossy_round_trip_is_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[LOW:.*]] = amp.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[BACK:.*]] = amp.cast %[[LOW]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: return %[[BACK]]
func.func @lossy_round_trip_is_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = amp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// f16 -> bf16 is lossy (fewer mantissa bits): the chain must stay.
// CHECK-LABEL: func.func @lossy_chain_is_kept
// CHECK: amp.cast %{{.*}} : tensor<4xf16> to tensor<4xbf16>
// CHECK: amp.cast %{{.*}} : tensor<4xbf16> to tensor<4xf32>
func.func @lossy_chain_is_kept(%x: tensor<4xf16>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xbf16>
  %1 = amp.cast %0 : tensor<4xbf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_to_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = amp.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = amp.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = amp.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// A reshape that undoes another folds away entirely.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = amp.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_of_constant() -> tensor<2x2xf32> {
  %c = amp.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = amp.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identity_transpose(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.transpose %x {permutation = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = amp.transpose %[[X]] {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = amp.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = amp.transpose %0 {permutation = array<i64: 2, 1, 0>} : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = amp.transpose %0 {permutation = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_to_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.broadcast %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<5.000000e-01> : tensor<8x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_of_splat() -> tensor<8x4xf32> {
  %c = amp.constant dense<0.5> : tensor<f32>
  %0 = amp.broadcast %c : tensor<f32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @concat_of_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @concat_of_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.concat %x {axis = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @where_same_values
// CHECK-SAME: (%{{.*}}: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @where_same_values(%c: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.where %c, %x, %x : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @where_constant_condition
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[B]], %[[A]]
func.func @where_constant_condition(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %false = amp.constant dense<false> : tensor<4xi1>
  %true = amp.constant dense<true> : tensor<4xi1>
  %0 = amp.where %false, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = amp.where %true, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.neg %x : tensor<4xf32>
  %1 = amp.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = amp.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.relu %x : tensor<4xf32>
  %1 = amp.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Pure ops whose results are unused are erased; equal constants are merged.
// CHECK-LABEL: func.func @dead_and_duplicate
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @dead_and_duplicate(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %dead = amp.exp %x : tensor<4xf32>
  %a = amp.constant dense<1.0> : tensor<4xf32>
  %b = amp.constant dense<1.0> : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
