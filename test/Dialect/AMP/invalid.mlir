// RUN: amp-opt %s -split-input-file -verify-diagnostics

// Every hand-written verifier message of lib/Dialect/AMP/IR/AMPOps.cpp, once
// per op for the shared helpers, and a sample of the ODS-generated
// constraint errors. Each split holds exactly one error.

//===----------------------------------------------------------------------===//
// ODS-generated constraints
//===----------------------------------------------------------------------===//

func.func @add_integer_operands(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'amp.add' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4xi32>'}}
  %0 = amp.add %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @add_mixed_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.add' op requires the same type for all operands and results}}
  %0 = "amp.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @neg_result_type_differs(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.neg' op requires the same type for all operands and results}}
  %0 = "amp.neg"(%a) : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @exp_unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'amp.exp' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<*xf32>'}}
  %0 = "amp.exp"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @compare_shape_mismatch(%a: tensor<4xf32>) -> tensor<8xi1> {
  // expected-error @+1 {{'amp.compare' op failed to verify that all of {lhs, result} have same shape}}
  %0 = amp.compare gt, %a, %a : tensor<4xf32> -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

func.func @compare_float_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "amp.compare"(%a, %a) <{direction = 4 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_types_differ(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.where' op failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "amp.where"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_shape_changes(%a: tensor<4xf32>) -> tensor<8xf16> {
  // expected-error @+1 {{'amp.cast' op requires the same shape for all operands and results}}
  %0 = amp.cast %a : tensor<4xf32> to tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @cast_to_integer(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'amp.cast' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4xi32>'}}
  %0 = amp.cast %a : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @cross_entropy_float_labels(%l: tensor<8x10xf32>, %y: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.cross_entropy' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xf32>'}}
  %0 = amp.cross_entropy %l, %y : tensor<8x10xf32>, tensor<8xf32>
  return %0 : tensor<f32>
}

// -----

func.func @mse_loss_non_scalar_result(%a: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'amp.mse_loss' op result #0 must be 0-d tensor of 32-bit float, but got 'tensor<1xf32>'}}
  %0 = "amp.mse_loss"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @mse_loss_operands_differ(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<f32> {
  // expected-error @+1 {{'amp.mse_loss' op requires all operands to have the same type}}
  %0 = "amp.mse_loss"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @dropout_i32_seed(%x: tensor<4xf32>, %s: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.dropout' op operand #1 must be 0-d tensor of 64-bit signless integer, but got 'tensor<i32>'}}
  %0, %1 = "amp.dropout"(%x, %s) <{probability = 0.5 : f64}> : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_mask_shape(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.dropout' op failed to verify that all of {input, mask} have same shape}}
  %0, %1 = amp.dropout %x, %s {probability = 0.5 : f64} : tensor<4xf32> -> tensor<8xi1>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_lr_not_scalar(%p: tensor<4xf32>, %lr: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op operand #2 must be 0-d tensor of 32-bit float, but got 'tensor<1xf32>'}}
  %0 = "amp.sgd_update"(%p, %p, %lr) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_lr_dynamic(%p: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op operand #5 must be 0-d tensor of 32-bit float, but got 'tensor<?xf32>'}}
  %0, %1, %2 = "amp.adamw_update"(%p, %p, %p, %p, %t, %lr) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64, weight_decay = 0.01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<?xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_moments_differ(%p: tensor<4xf32>, %v: tensor<4xf16>, %t: tensor<i64>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op failed to verify that all of {exp_avg, exp_avg_sq, new_exp_avg, new_exp_avg_sq} have same type}}
  %0, %1, %2 = "amp.adamw_update"(%p, %p, %p, %v, %t, %lr) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64, weight_decay = 0.01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @update_scale_f32_tracker(%s: tensor<f32>, %g: tensor<f32>, %h: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op operand #1 must be 0-d tensor of 64-bit signless integer, but got 'tensor<f32>'}}
  %0, %1, %2 = "amp.update_scale"(%s, %g, %h, %f) : (tensor<f32>, tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>, tensor<i64>)
  return %0 : tensor<f32>
}

// -----

func.func @layer_norm_f16_statistic(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op result #1 must be ranked tensor of 32-bit float values, but got 'tensor<4xf16>'}}
  %y, %m, %r = amp.layer_norm %x, %w, %w : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf16>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @clip_grad_norm_clipped_type(%g: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.clip_grad_norm' op failed to verify that clipped gradients have the gradients' types}}
  %0, %n = "amp.clip_grad_norm"(%g) <{max_norm = 1.0 : f64}> : (tensor<4xf16>) -> (tensor<4xf32>, tensor<f32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_missing_axes(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.reduce_sum' op requires attribute 'axes'}}
  %0 = amp.reduce_sum %x : tensor<8x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @max_pool_element_types_differ(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf16> {
  // expected-error @+1 {{'amp.max_pool2d' op requires the same element type for all operands and results}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf16>
  return %0 : tensor<1x4x4x4xf16>
}

// -----

func.func @gather_float_indices(%t: tensor<100x16xf32>, %i: tensor<8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'amp.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xf32>'}}
  %0 = amp.gather %t, %i : (tensor<100x16xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @constant_type_mismatch() -> tensor<4xf32> {
  // expected-error @+1 {{'amp.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "amp.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// amp.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_operand_element_types(%a: tensor<2x3xf16>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.matmul' op requires the same element type for all operands}}
  %0 = amp.matmul %a, %b : tensor<2x3xf16>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_lhs_rank(%a: tensor<4xf32>, %b: tensor<4x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.matmul' op lhs must have rank at least 2, got 1}}
  %0 = amp.matmul %a, %b : tensor<4xf32>, tensor<4x2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @matmul_rhs_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.matmul' op rhs must have rank at least 2, got 1}}
  %0 = amp.matmul %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @matmul_contraction_mismatch_rect(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'amp.matmul' op contraction dimensions differ: lhs has 3, rhs has 4}}
  %0 = amp.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<5x2x3xf32>, %b: tensor<6x3x2xf32>) -> tensor<5x2x2xf32> {
  // expected-error @+1 {{'amp.matmul' op batch dimensions differ: lhs has 5, rhs has 6}}
  %0 = amp.matmul %a, %b : tensor<5x2x3xf32>, tensor<6x3x2xf32> -> tensor<5x2x2xf32>
  return %0 : tensor<5x2x2xf32>
}

// -----

func.func @matmul_batch_rank_mismatch(%a: tensor<5x2x3xf32>, %b: tensor<4x5x3x2xf32>) -> tensor<5x2x2xf32> {
  // expected-error @+1 {{'amp.matmul' op batch dimensions differ: lhs has 5, rhs has 4x5}}
  %0 = amp.matmul %a, %b : tensor<5x2x3xf32>, tensor<4x5x3x2xf32> -> tensor<5x2x2xf32>
  return %0 : tensor<5x2x2xf32>
}

// -----

func.func @matmul_shared_rhs_result_shape(%a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.matmul' op result has shape 2x4 but must have shape 5x2x4}}
  %0 = amp.matmul %a, %b : tensor<5x2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_contraction_mismatch(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'amp.matmul' op contraction dimensions differ: lhs has 3, rhs has 2}}
  %0 = amp.matmul %a, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_contraction_mismatch_transposed(%a: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'amp.matmul' op contraction dimensions differ: lhs has 2, rhs has 3}}
  %0 = amp.matmul %a, %a {transpose_lhs, transpose_rhs} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @matmul_result_shape(%a: tensor<5x2x3xf16>) -> tensor<5x3x3xf16> {
  // expected-error @+1 {{'amp.matmul' op result has shape 5x3x3 but must have shape 5x2x2}}
  %0 = amp.matmul %a, %a {transpose_rhs} : tensor<5x2x3xf16>, tensor<5x2x3xf16> -> tensor<5x3x3xf16>
  return %0 : tensor<5x3x3xf16>
}

// -----

func.func @matmul_result_element_type(%a: tensor<2x3xf16>) -> tensor<2x2xbf16> {
  // expected-error @+1 {{'amp.matmul' op result has element type 'bf16' but must have 'f16' or f32}}
  %0 = amp.matmul %a, %a {transpose_rhs} : tensor<2x3xf16>, tensor<2x3xf16> -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

//===----------------------------------------------------------------------===//
// amp.linear
//===----------------------------------------------------------------------===//

// -----

func.func @linear_input_rank(%x: tensor<f32>, %w: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.linear' op input must have rank at least 1, got 0}}
  %0 = amp.linear %x, %w : (tensor<f32>, tensor<4x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<8x16xf32>, %w: tensor<32x16x1xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'amp.linear' op weight must have rank 2, got 3}}
  %0 = amp.linear %x, %w : (tensor<8x16xf32>, tensor<32x16x1xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @linear_weight_element_type(%x: tensor<8x16xf16>, %w: tensor<32x16xbf16>) -> tensor<8x32xf16> {
  // expected-error @+1 {{'amp.linear' op weight has element type 'bf16' but must have 'f16'}}
  %0 = amp.linear %x, %w : (tensor<8x16xf16>, tensor<32x16xbf16>) -> tensor<8x32xf16>
  return %0 : tensor<8x32xf16>
}

// -----

func.func @linear_in_features(%x: tensor<8x15xf32>, %w: tensor<32x16xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'amp.linear' op input features 15 do not match weight in_features 16}}
  %0 = amp.linear %x, %w : (tensor<8x15xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @linear_bias_shape(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'amp.linear' op bias has shape 16 but must have shape 32}}
  %0 = amp.linear %x, %w, %b : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<16xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @linear_bias_element_type(%x: tensor<8x16xf16>, %w: tensor<32x16xf16>, %b: tensor<32xbf16>) -> tensor<8x32xf16> {
  // expected-error @+1 {{'amp.linear' op bias has element type 'bf16' but must have 'f16' or f32}}
  %0 = amp.linear %x, %w, %b : (tensor<8x16xf16>, tensor<32x16xf16>, tensor<32xbf16>) -> tensor<8x32xf16>
  return %0 : tensor<8x32xf16>
}

// -----

func.func @linear_result_shape(%x: tensor<2x8x16xf32>, %w: tensor<32x16xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'amp.linear' op result has shape 8x32 but must have shape 2x8x32}}
  %0 = amp.linear %x, %w : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @linear_result_element_type(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>) -> tensor<8x32xf16> {
  // expected-error @+1 {{'amp.linear' op result has element type 'f16' but must have 'bf16' or f32}}
  %0 = amp.linear %x, %w : (tensor<8x16xbf16>, tensor<32x16xbf16>) -> tensor<8x32xf16>
  return %0 : tensor<8x32xf16>
}

//===----------------------------------------------------------------------===//
// amp.conv2d
//===----------------------------------------------------------------------===//

// -----

func.func @conv2d_stride_size(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op stride must have 2 values, got 1}}
  %0 = amp.conv2d %x, %w {stride = array<i64: 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_stride_zero(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op stride values must be positive}}
  %0 = amp.conv2d %x, %w {stride = array<i64: 1, 0>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_padding_size(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d' op padding must have 4 values, got 2}}
  %0 = amp.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

func.func @conv2d_padding_negative(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op padding values must be non-negative}}
  %0 = amp.conv2d %x, %w {padding = array<i64: 1, 1, -1, -1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_dilation_size(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op dilation must have 2 values, got 3}}
  %0 = amp.conv2d %x, %w {dilation = array<i64: 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_dilation_negative(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op dilation values must be positive}}
  %0 = amp.conv2d %x, %w {dilation = array<i64: -1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_groups_zero(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op groups must be positive, got 0}}
  %0 = amp.conv2d %x, %w {groups = 0 : i64} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op input must have rank 4, got 3}}
  %0 = amp.conv2d %x, %w : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_weight_rank(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op weight must have rank 4, got 3}}
  %0 = amp.conv2d %x, %w : (tensor<2x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_result_rank(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x36xf32> {
  // expected-error @+1 {{'amp.conv2d' op result must have rank 4, got 3}}
  %0 = amp.conv2d %x, %w : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x36xf32>
  return %0 : tensor<2x4x36xf32>
}

// -----

func.func @conv2d_input_channels_groups(%x: tensor<2x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op input channels 3 are not divisible by groups 2}}
  %0 = amp.conv2d %x, %w {groups = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_output_channels_groups(%x: tensor<2x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<2x3x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op output channels 3 are not divisible by groups 2}}
  %0 = amp.conv2d %x, %w {groups = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<2x3x6x6xf32>
  return %0 : tensor<2x3x6x6xf32>
}

// -----

func.func @conv2d_channels_per_group(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op weight has 4 input channels per group but the input has 2}}
  %0 = amp.conv2d %x, %w {groups = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_result_shape(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d' op result has shape 2x4x8x8 but must have shape 2x4x3x4}}
  %0 = amp.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 1, 0, 0>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

func.func @conv2d_result_shape_dilation(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op result has shape 2x4x6x6 but must have shape 2x4x4x6}}
  %0 = amp.conv2d %x, %w {dilation = array<i64: 2, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_weight_element_type(%x: tensor<2x3x8x8xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf16> {
  // expected-error @+1 {{'amp.conv2d' op weight has element type 'f32' but must have 'f16'}}
  %0 = amp.conv2d %x, %w : (tensor<2x3x8x8xf16>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf16>
  return %0 : tensor<2x4x6x6xf16>
}

// -----

func.func @conv2d_bias_shape(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{'amp.conv2d' op bias has shape 3 but must have shape 4}}
  %0 = amp.conv2d %x, %w, %b : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv2d_bias_element_type(%x: tensor<2x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %b: tensor<4xf16>) -> tensor<2x4x6x6xbf16> {
  // expected-error @+1 {{'amp.conv2d' op bias has element type 'f16' but must have 'bf16' or f32}}
  %0 = amp.conv2d %x, %w, %b : (tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>, tensor<4xf16>) -> tensor<2x4x6x6xbf16>
  return %0 : tensor<2x4x6x6xbf16>
}

// -----

func.func @conv2d_result_element_type(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf16> {
  // expected-error @+1 {{'amp.conv2d' op result has element type 'f16' but must have 'f32'}}
  %0 = amp.conv2d %x, %w : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf16>
  return %0 : tensor<2x4x6x6xf16>
}

//===----------------------------------------------------------------------===//
// amp.conv2d_input_grad: the result is the forward input, grad the output.
//===----------------------------------------------------------------------===//

// -----

func.func @conv2d_input_grad_padding_size(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op padding must have 4 values, got 0}}
  %0 = amp.conv2d_input_grad %g, %w {padding = array<i64>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_groups_negative(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op groups must be positive, got -2}}
  %0 = amp.conv2d_input_grad %g, %w {groups = -2 : i64} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_stride_size(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op stride must have 2 values, got 3}}
  %0 = amp.conv2d_input_grad %g, %w {stride = array<i64: 1, 1, 1>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_stride_zero(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op stride values must be positive}}
  %0 = amp.conv2d_input_grad %g, %w {stride = array<i64: 0, 1>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_padding_negative(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op padding values must be non-negative}}
  %0 = amp.conv2d_input_grad %g, %w {padding = array<i64: 0, -1, 0, 0>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_dilation_size(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op dilation must have 2 values, got 1}}
  %0 = amp.conv2d_input_grad %g, %w {dilation = array<i64: 1>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_dilation_zero(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op dilation values must be positive}}
  %0 = amp.conv2d_input_grad %g, %w {dilation = array<i64: 1, 0>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_result_rank(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op result must have rank 4, got 3}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<3x8x8xf32>
  return %0 : tensor<3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_grad_rank(%g: tensor<4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op grad must have rank 4, got 3}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_channels_groups(%g: tensor<2x4x6x6xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op result channels 3 are not divisible by groups 2}}
  %0 = amp.conv2d_input_grad %g, %w {groups = 2 : i64} : tensor<2x4x6x6xf32>, tensor<4x1x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_channels_per_group(%g: tensor<2x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op weight has 2 input channels per group but the input has 3}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x6x6xf32>, tensor<4x2x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_grad_shape(%g: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op grad has shape 2x4x8x8 but must have shape 2x4x6x6}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_weight_element_type(%g: tensor<2x4x6x6xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf16> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op weight has element type 'f32' but must have 'f16'}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x6x6xf16>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf16>
  return %0 : tensor<2x3x8x8xf16>
}

// -----

func.func @conv2d_input_grad_result_element_type(%g: tensor<2x4x6x6xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x3x8x8xbf16> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op result has element type 'bf16' but must have 'f16' or f32}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x6x6xf16>, tensor<4x3x3x3xf16> -> tensor<2x3x8x8xbf16>
  return %0 : tensor<2x3x8x8xbf16>
}

// -----

func.func @conv2d_input_grad_weight_rank(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x9xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op weight must have rank 4, got 3}}
  %0 = amp.conv2d_input_grad %g, %w : tensor<2x4x6x6xf32>, tensor<4x3x9xf32> -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

func.func @conv2d_input_grad_output_channels_groups(%g: tensor<2x3x6x6xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'amp.conv2d_input_grad' op output channels 3 are not divisible by groups 2}}
  %0 = amp.conv2d_input_grad %g, %w {groups = 2 : i64} : tensor<2x3x6x6xf32>, tensor<3x2x3x3xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.conv2d_weight_grad: the result is the weight, grad the output.
//===----------------------------------------------------------------------===//

// -----

func.func @conv2d_weight_grad_dilation_zero(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op dilation values must be positive}}
  %0 = amp.conv2d_weight_grad %g, %x {dilation = array<i64: 0, 0>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_stride_negative(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op stride values must be positive}}
  %0 = amp.conv2d_weight_grad %g, %x {stride = array<i64: -1, 1>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_padding_size(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op padding must have 4 values, got 3}}
  %0 = amp.conv2d_weight_grad %g, %x {padding = array<i64: 0, 0, 0>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_padding_negative(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op padding values must be non-negative}}
  %0 = amp.conv2d_weight_grad %g, %x {padding = array<i64: 0, 0, -3, 0>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_dilation_size(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op dilation must have 2 values, got 4}}
  %0 = amp.conv2d_weight_grad %g, %x {dilation = array<i64: 1, 1, 1, 1>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_groups_zero(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op groups must be positive, got 0}}
  %0 = amp.conv2d_weight_grad %g, %x {groups = 0 : i64} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_result_rank(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x9xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op result must have rank 4, got 3}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x9xf32>
  return %0 : tensor<4x3x9xf32>
}

// -----

func.func @conv2d_weight_grad_output_channels_groups(%g: tensor<2x3x6x6xf32>, %x: tensor<2x4x8x8xf32>) -> tensor<3x2x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op output channels 3 are not divisible by groups 2}}
  %0 = amp.conv2d_weight_grad %g, %x {groups = 2 : i64} : tensor<2x3x6x6xf32>, tensor<2x4x8x8xf32> -> tensor<3x2x3x3xf32>
  return %0 : tensor<3x2x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_channels_per_group(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x2x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op result has 2 input channels per group but the input has 3}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x2x3x3xf32>
  return %0 : tensor<4x2x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_grad_shape(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x5x5xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op grad has shape 2x4x6x6 but must have shape 2x4x4x4}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x5x5xf32>
  return %0 : tensor<4x3x5x5xf32>
}

// -----

func.func @conv2d_weight_grad_input_element_type(%g: tensor<2x4x6x6xbf16>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xbf16> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op input has element type 'f32' but must have 'bf16'}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xbf16>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xbf16>
  return %0 : tensor<4x3x3x3xbf16>
}

// -----

func.func @conv2d_weight_grad_result_element_type(%g: tensor<2x4x6x6xbf16>, %x: tensor<2x3x8x8xbf16>) -> tensor<4x3x3x3xf16> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op result has element type 'f16' but must have 'bf16' or f32}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16> -> tensor<4x3x3x3xf16>
  return %0 : tensor<4x3x3x3xf16>
}

// -----

func.func @conv2d_weight_grad_stride_size(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op stride must have 2 values, got 0}}
  %0 = amp.conv2d_weight_grad %g, %x {stride = array<i64>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_input_rank(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8x1xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op input must have rank 4, got 5}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xf32>, tensor<2x3x8x8x1xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_grad_rank(%g: tensor<f32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op grad must have rank 4, got 0}}
  %0 = amp.conv2d_weight_grad %g, %x : tensor<f32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_weight_grad_input_channels_groups(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x1x3x3xf32> {
  // expected-error @+1 {{'amp.conv2d_weight_grad' op input channels 3 are not divisible by groups 3000000000}}
  %0 = amp.conv2d_weight_grad %g, %x {groups = 3000000000 : i64} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x1x3x3xf32>
  return %0 : tensor<4x1x3x3xf32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_sum_no_axes(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'amp.reduce_sum' op needs at least one axis}}
  %0 = amp.reduce_sum %x {axes = array<i64>} : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @reduce_sum_axis_out_of_range(%x: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.reduce_sum' op axis 2 is out of range for rank 2}}
  %0 = amp.reduce_sum %x {axes = array<i64: 2>} : tensor<8x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_sum_axis_repeated(%x: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.reduce_sum' op axis -2 is repeated}}
  %0 = amp.reduce_sum %x {axes = array<i64: 0, -2>} : tensor<8x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_sum_result_shape(%x: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.reduce_sum' op result has shape 8 but must have shape 4}}
  %0 = amp.reduce_sum %x {axes = array<i64: 0>} : tensor<8x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_sum_result_element_type(%x: tensor<8x4xf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{'amp.reduce_sum' op result has element type 'bf16' but must have 'f16' or f32}}
  %0 = amp.reduce_sum %x {axes = array<i64: 0>} : tensor<8x4xf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @reduce_mean_no_axes(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'amp.reduce_mean' op needs at least one axis}}
  %0 = amp.reduce_mean %x {axes = array<i64>} : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @reduce_mean_axis_negative_out_of_range(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.reduce_mean' op axis -3 is out of range for rank 2}}
  %0 = amp.reduce_mean %x {axes = array<i64: -3>} : tensor<8x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_mean_axis_repeated(%x: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.reduce_mean' op axis 1 is repeated}}
  %0 = amp.reduce_mean %x {axes = array<i64: 1, 1>} : tensor<8x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_mean_keep_dims_shape(%x: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.reduce_mean' op result has shape 8 but must have shape 8x1}}
  %0 = amp.reduce_mean %x {axes = array<i64: -1>, keep_dims} : tensor<8x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_mean_result_element_type(%x: tensor<8x4xbf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'amp.reduce_mean' op result has element type 'f16' but must have 'bf16' or f32}}
  %0 = amp.reduce_mean %x {axes = array<i64: 0>} : tensor<8x4xbf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @reduce_max_no_axes(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'amp.reduce_max' op needs at least one axis}}
  %0 = amp.reduce_max %x {axes = array<i64>} : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @reduce_max_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.reduce_max' op axis 0 is out of range for rank 0}}
  %0 = amp.reduce_max %x {axes = array<i64: 0>} : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_max_axis_repeated(%x: tensor<2x8x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.reduce_max' op axis 2 is repeated}}
  %0 = amp.reduce_max %x {axes = array<i64: -1, 1, 2>} : tensor<2x8x4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_max_result_shape(%x: tensor<2x8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.reduce_max' op result has shape 2x4 but must have shape 2x1x1}}
  %0 = amp.reduce_max %x {axes = array<i64: 1, 2>, keep_dims} : tensor<2x8x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce_max_no_f32_widening(%x: tensor<8x4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.reduce_max' op result has element type 'f32' but must have 'f16'}}
  %0 = amp.reduce_max %x {axes = array<i64: 0>} : tensor<8x4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

// -----

func.func @softmax_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.softmax' op axis 2 is out of range for rank 2}}
  %0 = amp.softmax %x {axis = 2 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @log_softmax_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.log_softmax' op axis -3 is out of range for rank 2}}
  %0 = amp.log_softmax %x {axis = -3 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @softmax_grad_axis(%g: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.softmax_grad' op axis -1 is out of range for rank 0}}
  %0 = amp.softmax_grad %g, %g {axis = -1 : i64} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @log_softmax_grad_axis(%g: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.log_softmax_grad' op axis 9223372036854775807 is out of range for rank 2}}
  %0 = amp.log_softmax_grad %g, %g {axis = 9223372036854775807 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.layer_norm
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_input_rank(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.layer_norm' op input must have rank at least 1, got 0}}
  %y, %m, %r = amp.layer_norm %x, %x, %x : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %y : tensor<f32>
}

// -----

func.func @layer_norm_axis(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op axis 2 is out of range for rank 2}}
  %y, %m, %r = amp.layer_norm %x, %w, %w {axis = 2 : i64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @layer_norm_epsilon(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op epsilon must be non-negative and finite, got -1.000000e-05}}
  %y, %m, %r = amp.layer_norm %x, %w, %w {epsilon = -1.0e-5 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @layer_norm_weight_shape(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op weight has shape 8 but must have shape 4x8}}
  %y, %m, %r = amp.layer_norm %x, %w, %w {axis = 1 : i64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2xf32>, tensor<2xf32>)
  return %y : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_weight_element_type(%x: tensor<4x8xf16>, %w: tensor<8xbf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'amp.layer_norm' op weight has element type 'bf16' but must have 'f16' or f32}}
  %y, %m, %r = amp.layer_norm %x, %w, %b : (tensor<4x8xf16>, tensor<8xbf16>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf16>
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op bias has shape 4 but must have shape 8}}
  %y, %m, %r = amp.layer_norm %x, %w, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @layer_norm_bias_element_type(%x: tensor<4x8xbf16>, %w: tensor<8xf32>, %b: tensor<8xf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'amp.layer_norm' op bias has element type 'f16' but must have 'bf16' or f32}}
  %y, %m, %r = amp.layer_norm %x, %w, %b : (tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf16>) -> (tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4x8xbf16>
}

// -----

func.func @layer_norm_output_type(%x: tensor<4x8xf16>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op output has type 'tensor<4x8xf32>' but must have 'tensor<4x8xf16>'}}
  %y, %m, %r = amp.layer_norm %x, %w, %w : (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @layer_norm_mean_shape(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op mean has shape 4x1 but must have shape 4}}
  %y, %m, %r = amp.layer_norm %x, %w, %w : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @layer_norm_rstd_shape(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm' op rstd has shape 4 but must have shape [] (0-d)}}
  %y, %m, %r = amp.layer_norm %x, %w, %w {axis = 0 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<f32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.layer_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_grad_input_rank(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op input must have rank at least 1, got 0}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %x, %x, %x : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

func.func @layer_norm_grad_axis(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op axis -3 is out of range for rank 2}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %s, %w {axis = -3 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_grad_type(%g: tensor<4x8xf32>, %x: tensor<4x8xf16>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'amp.layer_norm_grad' op grad has type 'tensor<4x8xf32>' but must have 'tensor<4x8xf16>'}}
  %dx, %dw, %db = amp.layer_norm_grad %g, %x, %s, %s, %w : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf16>
}

// -----

func.func @layer_norm_grad_input_grad_type(%x: tensor<4x8xf16>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op input_grad has type 'tensor<4x8xf32>' but must have 'tensor<4x8xf16>'}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %s, %w : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_weight_shape(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op weight has shape 4 but must have shape 8}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_weight_element_type(%x: tensor<4x8xf16>, %s: tensor<4xf32>, %w: tensor<8xbf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'amp.layer_norm_grad' op weight has element type 'bf16' but must have 'f16' or f32}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %s, %w : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xbf16>) -> (tensor<4x8xf16>, tensor<8xbf16>, tensor<8xbf16>)
  return %dx : tensor<4x8xf16>
}

// -----

func.func @layer_norm_grad_mean_shape(%x: tensor<4x8xf32>, %m: tensor<8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op mean has shape 8 but must have shape 4}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %m, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_rstd_shape(%x: tensor<4x8xf32>, %r: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op rstd has shape 4x8 but must have shape 4}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %r, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_weight_grad_type(%x: tensor<4x8xf16>, %s: tensor<4xf32>, %w: tensor<8xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'amp.layer_norm_grad' op weight_grad has type 'tensor<8xf32>' but must have 'tensor<8xf16>'}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %s, %w : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf16>)
  return %dx : tensor<4x8xf16>
}

// -----

func.func @layer_norm_grad_bias_grad_type(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>, %b: tensor<?xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.layer_norm_grad' op bias_grad has type 'tensor<?xf32>' but must have 'tensor<8xf32>'}}
  %dx, %dw, %db = amp.layer_norm_grad %x, %x, %s, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<?xf32>)
  return %dx : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.rms_norm
//===----------------------------------------------------------------------===//

// -----

func.func @rms_norm_input_rank(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.rms_norm' op input must have rank at least 1, got 0}}
  %y, %r = amp.rms_norm %x, %x : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y : tensor<f32>
}

// -----

func.func @rms_norm_axis(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm' op axis -9223372036854775808 is out of range for rank 2}}
  %y, %r = amp.rms_norm %x, %w {axis = -9223372036854775808 : i64} : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_epsilon(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm' op epsilon must be non-negative and finite, got -2.500000e-01}}
  %y, %r = amp.rms_norm %x, %w {epsilon = -0.25 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm' op weight has shape 4 but must have shape 8}}
  %y, %r = amp.rms_norm %x, %w : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_weight_element_type(%x: tensor<4x8xbf16>, %w: tensor<8xf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'amp.rms_norm' op weight has element type 'f16' but must have 'bf16' or f32}}
  %y, %r = amp.rms_norm %x, %w : (tensor<4x8xbf16>, tensor<8xf16>) -> (tensor<4x8xbf16>, tensor<4xf32>)
  return %y : tensor<4x8xbf16>
}

// -----

func.func @rms_norm_output_type(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'amp.rms_norm' op output has type 'tensor<8x4xf32>' but must have 'tensor<4x8xf32>'}}
  %y, %r = amp.rms_norm %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
  return %y : tensor<8x4xf32>
}

// -----

func.func @rms_norm_rstd_shape(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm' op rstd has shape 8 but must have shape 4}}
  %y, %r = amp.rms_norm %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.rms_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @rms_norm_grad_input_rank(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op input must have rank at least 1, got 0}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %x, %x : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

func.func @rms_norm_grad_axis(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op axis 5 is out of range for rank 2}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %s, %w {axis = 5 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @rms_norm_grad_grad_type(%g: tensor<4x8xbf16>, %x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op grad has type 'tensor<4x8xbf16>' but must have 'tensor<4x8xf32>'}}
  %dx, %dw = amp.rms_norm_grad %g, %x, %s, %w : (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @rms_norm_grad_input_grad_type(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op input_grad has type 'tensor<4x?xf32>' but must have 'tensor<4x8xf32>'}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x?xf32>, tensor<8xf32>)
  return %dx : tensor<4x?xf32>
}

// -----

func.func @rms_norm_grad_weight_shape(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8x1xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op weight has shape 8x1 but must have shape 8}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8x1xf32>) -> (tensor<4x8xf32>, tensor<8x1xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @rms_norm_grad_weight_element_type(%x: tensor<4x8xbf16>, %s: tensor<4xf32>, %w: tensor<8xf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'amp.rms_norm_grad' op weight has element type 'f16' but must have 'bf16' or f32}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %s, %w : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<8xf16>) -> (tensor<4x8xbf16>, tensor<8xf16>)
  return %dx : tensor<4x8xbf16>
}

// -----

func.func @rms_norm_grad_rstd_shape(%x: tensor<4x8xf32>, %s: tensor<2xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op rstd has shape 2 but must have shape 4}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<2xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return %dx : tensor<4x8xf32>
}

// -----

func.func @rms_norm_grad_weight_grad_type(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'amp.rms_norm_grad' op weight_grad has type 'tensor<8xf16>' but must have 'tensor<8xf32>'}}
  %dx, %dw = amp.rms_norm_grad %x, %x, %s, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf16>)
  return %dx : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.group_norm
//===----------------------------------------------------------------------===//

// -----

func.func @group_norm_input_rank(%x: tensor<8xf32>, %w: tensor<8xf32>, %s: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.group_norm' op input must have rank at least 2, got 1}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 2 : i64} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<2xf32>, tensor<2xf32>)
  return %y : tensor<8xf32>
}

// -----

func.func @group_norm_num_groups(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op num_groups must be positive, got 0}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 0 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x0xf32>, tensor<2x0xf32>)
  return %y : tensor<2x8x4x4xf32>
}

// -----

func.func @group_norm_channels_divisible(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op channels 8 are not divisible by num_groups 3}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 3 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return %y : tensor<2x8x4x4xf32>
}

// -----

func.func @group_norm_epsilon(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op epsilon must be non-negative and finite, got -1.000000e+00}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 2 : i64, epsilon = -1.0 : f64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x4x4xf32>
}

// -----

func.func @group_norm_weight_shape(%x: tensor<2x8x4x4xf32>, %w: tensor<2xf32>, %b: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op weight has shape 2 but must have shape 8}}
  %y, %m, %r = amp.group_norm %x, %w, %b {num_groups = 2 : i64} : (tensor<2x8x4x4xf32>, tensor<2xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x4x4xf32>
}

// -----

func.func @group_norm_weight_element_type(%x: tensor<2x8x4x4xf16>, %w: tensor<8xbf16>, %b: tensor<8xf16>) -> tensor<2x8x4x4xf16> {
  // expected-error @+1 {{'amp.group_norm' op weight has element type 'bf16' but must have 'f16' or f32}}
  %y, %m, %r = amp.group_norm %x, %w, %b {num_groups = 2 : i64} : (tensor<2x8x4x4xf16>, tensor<8xbf16>, tensor<8xf16>) -> (tensor<2x8x4x4xf16>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x4x4xf16>
}

// -----

func.func @group_norm_bias_shape(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>, %b: tensor<8x1xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op bias has shape 8x1 but must have shape 8}}
  %y, %m, %r = amp.group_norm %x, %w, %b {num_groups = 2 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8x1xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x4x4xf32>
}

// -----

func.func @group_norm_bias_element_type(%x: tensor<2x8x4x4xf16>, %w: tensor<8xf16>, %b: tensor<8xbf16>) -> tensor<2x8x4x4xf16> {
  // expected-error @+1 {{'amp.group_norm' op bias has element type 'bf16' but must have 'f16' or f32}}
  %y, %m, %r = amp.group_norm %x, %w, %b {num_groups = 2 : i64} : (tensor<2x8x4x4xf16>, tensor<8xf16>, tensor<8xbf16>) -> (tensor<2x8x4x4xf16>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x4x4xf16>
}

// -----

func.func @group_norm_output_type(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'amp.group_norm' op output has type 'tensor<2x8x16xf32>' but must have 'tensor<2x8x4x4xf32>'}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 2 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x16xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x16xf32>
}

// -----

func.func @group_norm_mean_shape(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op mean has shape 2x8 but must have shape 2x2}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 2 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x8xf32>, tensor<2x2xf32>)
  return %y : tensor<2x8x4x4xf32>
}

// -----

func.func @group_norm_rstd_shape(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{'amp.group_norm' op rstd has shape 2 but must have shape 2x4}}
  %y, %m, %r = amp.group_norm %x, %w, %w {num_groups = 4 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x4xf32>, tensor<2xf32>)
  return %y : tensor<2x8x4x4xf32>
}

//===----------------------------------------------------------------------===//
// amp.group_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @group_norm_grad_input_rank(%x: tensor<8xf32>, %s: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op input must have rank at least 2, got 1}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %x {num_groups = 2 : i64} : (tensor<8xf32>, tensor<8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<8xf32>
}

// -----

func.func @group_norm_grad_num_groups(%x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op num_groups must be positive, got -1}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %w {num_groups = -1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @group_norm_grad_channels_divisible(%x: tensor<2x8xf32>, %s: tensor<2x5xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op channels 8 are not divisible by num_groups 5}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %w {num_groups = 5 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @group_norm_grad_grad_type(%g: tensor<2x8xf16>, %x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op grad has type 'tensor<2x8xf16>' but must have 'tensor<2x8xf32>'}}
  %dx, %dw, %db = amp.group_norm_grad %g, %x, %s, %s, %w {num_groups = 2 : i64} : (tensor<2x8xf16>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @group_norm_grad_input_grad_type(%x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %w: tensor<8xf32>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'amp.group_norm_grad' op input_grad has type 'tensor<2x8xf16>' but must have 'tensor<2x8xf32>'}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %w {num_groups = 2 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<8xf32>) -> (tensor<2x8xf16>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<2x8xf16>
}

// -----

func.func @group_norm_grad_weight_shape(%x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %w: tensor<2xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op weight has shape 2 but must have shape 8}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %w {num_groups = 2 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @group_norm_grad_weight_element_type(%x: tensor<2x8xbf16>, %s: tensor<2x2xf32>, %w: tensor<8xf16>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{'amp.group_norm_grad' op weight has element type 'f16' but must have 'bf16' or f32}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %w {num_groups = 2 : i64} : (tensor<2x8xbf16>, tensor<2x8xbf16>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<8xf16>) -> (tensor<2x8xbf16>, tensor<8xf16>, tensor<8xf16>)
  return %dx : tensor<2x8xbf16>
}

// -----

func.func @group_norm_grad_mean_shape(%x: tensor<2x8xf32>, %m: tensor<2xf32>, %s: tensor<2x2xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op mean has shape 2 but must have shape 2x2}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %m, %s, %w {num_groups = 2 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @group_norm_grad_rstd_shape(%x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %r: tensor<2x4xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op rstd has shape 2x4 but must have shape 2x2}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %r, %w {num_groups = 2 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @group_norm_grad_bias_grad_type(%x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.group_norm_grad' op bias_grad has type 'tensor<8xbf16>' but must have 'tensor<8xf32>'}}
  %dx, %dw, %db = amp.group_norm_grad %x, %x, %s, %s, %w {num_groups = 2 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xbf16>)
  return %dx : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.batch_norm
//===----------------------------------------------------------------------===//

// -----

func.func @batch_norm_input_rank(%x: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op input must have rank at least 2, got 1}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<4xf32>
}

// -----

func.func @batch_norm_epsilon(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op epsilon must be non-negative and finite, got -1.000000e-03}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s {epsilon = -1.0e-3 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_momentum(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op momentum must be in [0, 1], got 1.500000e+00}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s {momentum = 1.5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_momentum_negative(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op momentum must be in [0, 1], got -1.000000e-01}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s {momentum = -0.1 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_weight_shape(%x: tensor<2x4xf32>, %w: tensor<2xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op weight has shape 2 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %w, %s, %s, %s : (tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_weight_element_type(%x: tensor<2x4xf16>, %w: tensor<4xbf16>, %s: tensor<4xf32>) -> tensor<2x4xf16> {
  // expected-error @+1 {{'amp.batch_norm' op weight has element type 'bf16' but must have 'f16' or f32}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %w, %s, %s, %s : (tensor<2x4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf16>
}

// -----

func.func @batch_norm_bias_shape(%x: tensor<2x4xf32>, %b: tensor<4x1xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op bias has shape 4x1 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %b, %s, %s : (tensor<2x4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_bias_element_type(%x: tensor<2x4xbf16>, %b: tensor<4xf16>, %s: tensor<4xf32>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{'amp.batch_norm' op bias has element type 'f16' but must have 'bf16' or f32}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %b, %s, %s : (tensor<2x4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xbf16>
}

// -----

func.func @batch_norm_output_type(%x: tensor<2x4xf16>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op output has type 'tensor<2x4xf32>' but must have 'tensor<2x4xf16>'}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s : (tensor<2x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_running_mean_shape(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %bad: tensor<2xf32>) -> tensor<2x4x3x3xf32> {
  // expected-error @+1 {{'amp.batch_norm' op running_mean has shape 2 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %bad, %s : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4x3x3xf32>
}

// -----

func.func @batch_norm_running_var_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %bad: tensor<f32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op running_var has shape [] (0-d) but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %bad : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_saved_mean_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op saved_mean has shape 2 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_saved_rstd_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op saved_rstd has shape 8 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_new_running_mean_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op new_running_mean has shape 1x4 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<4xf32>)
  return %y : tensor<2x4xf32>
}

// -----

func.func @batch_norm_new_running_var_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm' op new_running_var has shape 3 but must have shape 4}}
  %y, %sm, %sr, %rm, %rv = amp.batch_norm %x, %s, %s, %s, %s {training = false} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>)
  return %y : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// amp.batch_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @batch_norm_grad_input_rank(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.batch_norm_grad' op input must have rank at least 2, got 0}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %x, %x, %x : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

func.func @batch_norm_grad_grad_type(%g: tensor<2x4xf32>, %x: tensor<2x4xbf16>, %s: tensor<4xf32>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{'amp.batch_norm_grad' op grad has type 'tensor<2x4xf32>' but must have 'tensor<2x4xbf16>'}}
  %dx, %dw, %db = amp.batch_norm_grad %g, %x, %s, %s, %s : (tensor<2x4xf32>, tensor<2x4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xbf16>, tensor<4xf32>, tensor<4xf32>)
  return %dx : tensor<2x4xbf16>
}

// -----

func.func @batch_norm_grad_input_grad_type(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'amp.batch_norm_grad' op input_grad has type 'tensor<4x2xf32>' but must have 'tensor<2x4xf32>'}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %s, %s, %s : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x2xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx : tensor<4x2xf32>
}

// -----

func.func @batch_norm_grad_weight_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %w: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm_grad' op weight has shape 2 but must have shape 4}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %s, %s, %w : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>)
  return %dx : tensor<2x4xf32>
}

// -----

func.func @batch_norm_grad_weight_element_type(%x: tensor<2x4xf16>, %s: tensor<4xf32>, %w: tensor<4xbf16>) -> tensor<2x4xf16> {
  // expected-error @+1 {{'amp.batch_norm_grad' op weight has element type 'bf16' but must have 'f16' or f32}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %s, %s, %w : (tensor<2x4xf16>, tensor<2x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>) -> (tensor<2x4xf16>, tensor<4xbf16>, tensor<4xbf16>)
  return %dx : tensor<2x4xf16>
}

// -----

func.func @batch_norm_grad_saved_mean_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %bad: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm_grad' op saved_mean has shape 2 but must have shape 4}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %bad, %s, %s : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx : tensor<2x4xf32>
}

// -----

func.func @batch_norm_grad_saved_rstd_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %bad: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm_grad' op saved_rstd has shape 2 but must have shape 4}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %s, %bad, %s : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx : tensor<2x4xf32>
}

// -----

func.func @batch_norm_grad_weight_grad_type(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.batch_norm_grad' op weight_grad has type 'tensor<2xf32>' but must have 'tensor<4xf32>'}}
  %dx, %dw, %db = amp.batch_norm_grad %x, %x, %s, %s, %s : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>)
  return %dx : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// amp.max_pool2d
//===----------------------------------------------------------------------===//

// -----

func.func @max_pool2d_kernel_size_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op kernel_size must have 2 values, got 1}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_kernel_size_zero(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op kernel_size values must be positive}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 0, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_stride_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op stride must have 2 values, got 4}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2, 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_stride_negative(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op stride values must be positive}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, -2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_padding_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op padding must have 4 values, got 2}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_padding_negative(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op padding values must be non-negative}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, -1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_padding_too_large(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x5xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op padding 2 is more than half the kernel size 3}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 2, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x5xf32>
  return %0 : tensor<1x4x4x5xf32>
}

// -----

func.func @max_pool2d_input_rank(%x: tensor<4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op input must have rank 4, got 3}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_result_rank(%x: tensor<1x4x8x8xf32>) -> tensor<4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op result must have rank 4, got 3}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// -----

func.func @max_pool2d_result_shape(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d' op result has shape 1x4x4x4 but must have shape 1x4x7x7}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

//===----------------------------------------------------------------------===//
// amp.avg_pool2d
//===----------------------------------------------------------------------===//

// -----

func.func @avg_pool2d_kernel_size_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op kernel_size must have 2 values, got 0}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @avg_pool2d_stride_zero(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op stride values must be positive}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @avg_pool2d_padding_too_large(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x5x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op padding 2 is more than half the kernel size 2}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 2, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x5x4xf32>
  return %0 : tensor<1x4x5x4xf32>
}

// -----

func.func @avg_pool2d_result_rank(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4x1xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op result must have rank 4, got 5}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4x1xf32>
  return %0 : tensor<1x4x4x4x1xf32>
}

// -----

func.func @avg_pool2d_result_shape(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op result has shape 1x4x4x4 but must have shape 1x4x5x4}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 0>, exclude_padding} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

//===----------------------------------------------------------------------===//
// amp.max_pool2d_grad
//===----------------------------------------------------------------------===//

// -----

func.func @max_pool2d_grad_result_type(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op result has type 'tensor<1x4x8x4xf32>' but must have 'tensor<1x4x8x8xf32>'}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x4xf32>
  return %0 : tensor<1x4x8x4xf32>
}

// -----

func.func @max_pool2d_grad_kernel_size_negative(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op kernel_size values must be positive}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, -2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_kernel_size_size(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op kernel_size must have 2 values, got 3}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2, 2>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_stride_size(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op stride must have 2 values, got 0}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_stride_zero(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op stride values must be positive}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 0, 2>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_padding_size(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op padding must have 4 values, got 2}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_padding_negative(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op padding values must be non-negative}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: -1, 0, 0, 0>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_padding_too_large(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op padding 1 is more than half the kernel size 1}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 1>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 1>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_grad_rank(%g: tensor<4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op grad must have rank 4, got 3}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_grad_shape(%g: tensor<1x4x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op grad has shape 1x4x4x4 but must have shape 1x4x2x2}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 4, 4>, stride = array<i64: 4, 4>} : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @max_pool2d_grad_input_rank(%g: tensor<1x4x4x4xf32>, %x: tensor<4x8x8xf32>) -> tensor<4x8x8xf32> {
  // expected-error @+1 {{'amp.max_pool2d_grad' op input must have rank 4, got 3}}
  %0 = amp.max_pool2d_grad %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

//===----------------------------------------------------------------------===//
// amp.avg_pool2d_grad: the result is the forward input.
//===----------------------------------------------------------------------===//

// -----

func.func @avg_pool2d_grad_kernel_size_size(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op kernel_size must have 2 values, got 1}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_stride_zero(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op stride values must be positive}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 0>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_stride_size(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op stride must have 2 values, got 3}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2, 2>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_padding_size(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op padding must have 4 values, got 1}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_result_rank(%g: tensor<1x4x4x4xf32>) -> tensor<4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op result must have rank 4, got 3}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32> -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_grad_shape(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op grad has shape 1x4x4x4 but must have shape 1x4x4x3}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 3>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_kernel_size_zero(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op kernel_size values must be positive}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 0>, stride = array<i64: 2, 2>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_padding_too_large(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op padding 3 is more than half the kernel size 4}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 4, 4>, stride = array<i64: 2, 2>, padding = array<i64: 3, 0, 0, 0>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_padding_negative(%g: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'amp.avg_pool2d_grad' op padding values must be non-negative}}
  %0 = amp.avg_pool2d_grad %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, -1, 0, 0>} : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @avg_pool2d_kernel_size_negative(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op kernel_size values must be positive}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: -2, -2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @avg_pool2d_input_rank(%x: tensor<8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op input must have rank 4, got 2}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>} : tensor<8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @avg_pool2d_padding_negative(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op padding values must be non-negative}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: -1, -1, -1, -1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @avg_pool2d_stride_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op stride must have 2 values, got 1}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @avg_pool2d_padding_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'amp.avg_pool2d' op padding must have 4 values, got 5}}
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

//===----------------------------------------------------------------------===//
// amp.global_avg_pool
//===----------------------------------------------------------------------===//

// -----

func.func @global_avg_pool_input_rank(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.global_avg_pool' op input must have rank at least 3, got 2}}
  %0 = amp.global_avg_pool %x : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @global_avg_pool_result_shape(%x: tensor<2x4x8x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'amp.global_avg_pool' op result has shape 2x4 but must have shape 2x4x1x1}}
  %0 = amp.global_avg_pool %x : tensor<2x4x8x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'amp.reshape' op input has 6 elements but result has 8}}
  %0 = amp.reshape %x : tensor<2x3xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) -> tensor<6xi32> {
  // expected-error @+1 {{'amp.reshape' op requires the same element type for all operands and results}}
  %0 = amp.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

func.func @transpose_permutation_size(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'amp.transpose' op permutation has 3 entries but the input has rank 2}}
  %0 = amp.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_not_a_permutation(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'amp.transpose' op permutation is not a permutation of [0, 2)}}
  %0 = amp.transpose %x {permutation = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_negative_index(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'amp.transpose' op permutation is not a permutation of [0, 2)}}
  %0 = amp.transpose %x {permutation = array<i64: -1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{'amp.transpose' op result has shape 4x3x2 but must have shape 3x4x2}}
  %0 = amp.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

func.func @broadcast_lower_rank(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'amp.broadcast' op cannot broadcast rank 2 to the lower rank 1}}
  %0 = amp.broadcast %x : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @broadcast_incompatible_dim(%x: tensor<3x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'amp.broadcast' op input dimension 0 (3) is neither 1 nor the result's 4}}
  %0 = amp.broadcast %x : tensor<3x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @slice_starts_size(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op starts must have 2 values, got 1}}
  %0 = amp.slice %x {starts = array<i64: 0>, limits = array<i64: 2, 6>, strides = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_limits_size(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op limits must have 2 values, got 3}}
  %0 = amp.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 6, 1>, strides = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_strides_size(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op strides must have 2 values, got 0}}
  %0 = amp.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 6>, strides = array<i64>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_strides_zero(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op strides values must be positive}}
  %0 = amp.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 6>, strides = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_limit_past_end(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op slice [0, 7) of dimension 1 is outside [0, 6]}}
  %0 = amp.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 7>, strides = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_negative_start(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op slice [-1, 1) of dimension 0 is outside [0, 4]}}
  %0 = amp.slice %x {starts = array<i64: -1, 0>, limits = array<i64: 1, 6>, strides = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_start_after_limit(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op slice [3, 1) of dimension 0 is outside [0, 4]}}
  %0 = amp.slice %x {starts = array<i64: 3, 0>, limits = array<i64: 1, 6>, strides = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_result_shape(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'amp.slice' op result has shape 2x6 but must have shape 2x3}}
  %0 = amp.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 6>, strides = array<i64: 1, 2>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_grad_starts_size(%g: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'amp.slice_grad' op starts must have 2 values, got 3}}
  %0 = amp.slice_grad %g {starts = array<i64: 0, 0, 0>, limits = array<i64: 2, 6>, strides = array<i64: 1, 1>} : tensor<2x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_grad_limits_size(%g: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'amp.slice_grad' op limits must have 2 values, got 1}}
  %0 = amp.slice_grad %g {starts = array<i64: 0, 0>, limits = array<i64: 2>, strides = array<i64: 1, 1>} : tensor<2x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_grad_strides_size(%g: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'amp.slice_grad' op strides must have 2 values, got 3}}
  %0 = amp.slice_grad %g {starts = array<i64: 0, 0>, limits = array<i64: 2, 6>, strides = array<i64: 1, 1, 1>} : tensor<2x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_grad_strides_negative(%g: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'amp.slice_grad' op strides values must be positive}}
  %0 = amp.slice_grad %g {starts = array<i64: 0, 0>, limits = array<i64: 2, 6>, strides = array<i64: -1, 1>} : tensor<2x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_grad_out_of_bounds(%g: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'amp.slice_grad' op slice [3, 5) of dimension 0 is outside [0, 4]}}
  %0 = amp.slice_grad %g {starts = array<i64: 3, 0>, limits = array<i64: 5, 6>, strides = array<i64: 1, 1>} : tensor<2x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @slice_grad_grad_shape(%g: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'amp.slice_grad' op grad has shape 2x6 but must have shape 1x6}}
  %0 = amp.slice_grad %g {starts = array<i64: 0, 0>, limits = array<i64: 2, 6>, strides = array<i64: 2, 1>} : tensor<2x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'amp.concat' op axis 2 is out of range for rank 2}}
  %0 = amp.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_input_rank(%a: tensor<2x3xf32>, %b: tensor<6xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'amp.concat' op input #1 has rank 1 but the result has rank 2}}
  %0 = amp.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_input_size(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'amp.concat' op input #1 has size 4 in dimension 1 but the result has 3}}
  %0 = amp.concat %a, %b {axis = -2 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result_shape(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'amp.concat' op result has shape 2x8 but must have shape 2x7}}
  %0 = amp.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @gather_axis(%t: tensor<100x16xf32>, %i: tensor<8xi64>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'amp.gather' op axis -3 is out of range for rank 2}}
  %0 = amp.gather %t, %i {axis = -3 : i64} : (tensor<100x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @gather_result_shape(%t: tensor<100x16xf32>, %i: tensor<2x8xi64>) -> tensor<2x8x100xf32> {
  // expected-error @+1 {{'amp.gather' op result has shape 2x8x100 but must have shape 100x2x8}}
  %0 = amp.gather %t, %i {axis = 1 : i64} : (tensor<100x16xf32>, tensor<2x8xi64>) -> tensor<2x8x100xf32>
  return %0 : tensor<2x8x100xf32>
}

// -----

func.func @gather_result_element_type(%t: tensor<100x16xf16>, %i: tensor<8xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'amp.gather' op result has element type 'f32' but must have 'f16'}}
  %0 = amp.gather %t, %i : (tensor<100x16xf16>, tensor<8xi32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @gather_grad_axis(%g: tensor<8x16xf32>, %i: tensor<8xi64>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'amp.gather_grad' op axis 2 is out of range for rank 2}}
  %0 = amp.gather_grad %g, %i {axis = 2 : i64} : (tensor<8x16xf32>, tensor<8xi64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @gather_grad_grad_shape(%g: tensor<8x16xf32>, %i: tensor<2x8xi64>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'amp.gather_grad' op grad has shape 8x16 but must have shape 2x8x16}}
  %0 = amp.gather_grad %g, %i : (tensor<8x16xf32>, tensor<2x8xi64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @gather_grad_result_element_type(%g: tensor<8x16xf16>, %i: tensor<8xi64>) -> tensor<100x16xbf16> {
  // expected-error @+1 {{'amp.gather_grad' op result has element type 'bf16' but must have 'f16' or f32}}
  %0 = amp.gather_grad %g, %i : (tensor<8x16xf16>, tensor<8xi64>) -> tensor<100x16xbf16>
  return %0 : tensor<100x16xbf16>
}

//===----------------------------------------------------------------------===//
// Dropout and losses
//===----------------------------------------------------------------------===//

// -----

func.func @dropout_probability_one(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.dropout' op probability must be in [0, 1), got 1.000000e+00}}
  %0, %1 = amp.dropout %x, %s {probability = 1.0 : f64} : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_grad_probability_negative(%g: tensor<4xf32>, %m: tensor<4xi1>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.dropout_grad' op probability must be in [0, 1), got -5.000000e-01}}
  %0 = amp.dropout_grad %g, %m {probability = -0.5 : f64} : tensor<4xf32>, tensor<4xi1>
  return %0 : tensor<4xf32>
}

// -----

func.func @cross_entropy_logits_rank(%l: tensor<10xf32>, %y: tensor<10xi64>) -> tensor<f32> {
  // expected-error @+1 {{'amp.cross_entropy' op logits must have rank 2, got 1}}
  %0 = amp.cross_entropy %l, %y : tensor<10xf32>, tensor<10xi64>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_labels_shape(%l: tensor<8x10xf32>, %y: tensor<10xi64>) -> tensor<f32> {
  // expected-error @+1 {{'amp.cross_entropy' op labels has shape 10 but must have shape 8}}
  %0 = amp.cross_entropy %l, %y : tensor<8x10xf32>, tensor<10xi64>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_grad_logits_rank(%d: tensor<f32>, %l: tensor<2x8x10xf32>, %y: tensor<2xi32>) -> tensor<2x8x10xf32> {
  // expected-error @+1 {{'amp.cross_entropy_grad' op logits must have rank 2, got 3}}
  %0 = amp.cross_entropy_grad %d, %l, %y : tensor<2x8x10xf32>, tensor<2xi32>
  return %0 : tensor<2x8x10xf32>
}

// -----

func.func @cross_entropy_grad_labels_shape(%d: tensor<f32>, %l: tensor<8x10xf32>, %y: tensor<8x1xi32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'amp.cross_entropy_grad' op labels has shape 8x1 but must have shape 8}}
  %0 = amp.cross_entropy_grad %d, %l, %y : tensor<8x10xf32>, tensor<8x1xi32>
  return %0 : tensor<8x10xf32>
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

// -----

func.func @unscale_grads_no_gradients(%s: tensor<f32>) -> tensor<i1> {
  // expected-error @+1 {{'amp.unscale_grads' op needs at least one gradient}}
  %f = "amp.unscale_grads"(%s) : (tensor<f32>) -> tensor<i1>
  return %f : tensor<i1>
}

// -----

func.func @unscale_grads_count(%s: tensor<f32>, %g: tensor<4xf16>) -> tensor<i1> {
  // expected-error @+1 {{'amp.unscale_grads' op has 2 gradients but 1 unscaled}}
  %u, %f = "amp.unscale_grads"(%s, %g, %g) : (tensor<f32>, tensor<4xf16>, tensor<4xf16>) -> (tensor<4xf32>, tensor<i1>)
  return %f : tensor<i1>
}

// -----

func.func @unscale_grads_shape(%s: tensor<f32>, %g0: tensor<4xf16>, %g1: tensor<8xf16>) -> tensor<i1> {
  // expected-error @+1 {{'amp.unscale_grads' op unscaled #1 has shape 4 but must have shape 8}}
  %u0, %u1, %f = amp.unscale_grads %s, %g0, %g1 : tensor<4xf16>, tensor<8xf16> -> tensor<4xf32>, tensor<4xf32>
  return %f : tensor<i1>
}

// -----

func.func @unscale_grads_element_type(%s: tensor<f32>, %g: tensor<4xf16>) -> tensor<i1> {
  // expected-error @+1 {{'amp.unscale_grads' op unscaled #0 has element type 'bf16' but must have 'f16' or f32}}
  %u, %f = amp.unscale_grads %s, %g : tensor<4xf16> -> tensor<4xbf16>
  return %f : tensor<i1>
}

// -----

func.func @update_scale_growth_factor(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op growth_factor must be finite and greater than 1, got 1.000000e+00}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {growth_factor = 1.0 : f64}
  return %0 : tensor<f32>
}

// -----

func.func @update_scale_backoff_factor(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op backoff_factor must be in (0, 1), got 0.000000e+00}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {backoff_factor = 0.0 : f64}
  return %0 : tensor<f32>
}

// -----

func.func @update_scale_growth_interval(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op growth_interval must be positive, got 0}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {growth_interval = 0 : i64}
  return %0 : tensor<f32>
}

// -----

func.func @update_scale_hysteresis(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op hysteresis must be positive, got 0}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {hysteresis = 0 : i64}
  return %0 : tensor<f32>
}

// -----

func.func @update_scale_min_above_max(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op scale bounds must satisfy 0 < min_scale <= max_scale < inf, got [4.000000e+00, 2.000000e+00]}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {min_scale = 4.0 : f64, max_scale = 2.0 : f64}
  return %0 : tensor<f32>
}

// -----

func.func @update_scale_min_zero(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op scale bounds must satisfy 0 < min_scale <= max_scale < inf, got [0.000000e+00, 1.677722e+07]}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {min_scale = 0.0 : f64}
  return %0 : tensor<f32>
}

// -----

func.func @update_scale_max_inf(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) -> tensor<f32> {
  // expected-error @+1 {{'amp.update_scale' op scale bounds must satisfy 0 < min_scale <= max_scale < inf, got [1.000000e+00, INF]}}
  %0, %1, %2 = amp.update_scale %s, %t, %t, %f {max_scale = 0x7FF0000000000000 : f64}
  return %0 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

// -----

func.func @clip_grad_norm_max_norm(%g: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'amp.clip_grad_norm' op max_norm must be positive, got 0.000000e+00}}
  %c, %n = amp.clip_grad_norm %g {max_norm = 0.0 : f64} : tensor<4xf32>
  return %n : tensor<f32>
}

// -----

func.func @clip_grad_norm_no_gradients() -> tensor<f32> {
  // expected-error @+1 {{'amp.clip_grad_norm' op needs at least one gradient}}
  %n = "amp.clip_grad_norm"() <{max_norm = 1.0 : f64}> : () -> tensor<f32>
  return %n : tensor<f32>
}

// -----

func.func @sgd_update_momentum_negative(%p: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op momentum must be non-negative and finite, got -9.000000e-01}}
  %0, %1 = amp.sgd_update %p, %p, momentum_buffer %m, lr %lr {momentum = -0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_weight_decay_negative(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op weight_decay must be non-negative and finite, got -1.000000e-02}}
  %0 = amp.sgd_update %p, %p, lr %lr {weight_decay = -0.01 : f64} : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_dampening(%p: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op dampening must be in [0, 1], got 2.000000e+00}}
  %0, %1 = amp.sgd_update %p, %p, momentum_buffer %m, lr %lr {momentum = 0.9 : f64, dampening = 2.0 : f64} : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_nesterov_without_momentum(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op nesterov requires a non-zero momentum and zero dampening}}
  %0 = amp.sgd_update %p, %p, lr %lr {nesterov} : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_nesterov_with_dampening(%p: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op nesterov requires a non-zero momentum and zero dampening}}
  %0, %1 = amp.sgd_update %p, %p, momentum_buffer %m, lr %lr {momentum = 0.9 : f64, dampening = 0.1 : f64, nesterov} : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_grad_shape(%p: tensor<4xf32>, %g: tensor<8xf16>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op grad has shape 8 but must have shape 4}}
  %0 = amp.sgd_update %p, %g, lr %lr : tensor<4xf32>, tensor<8xf16>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_buffer_without_momentum(%p: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op momentum_buffer must be given exactly when momentum is non-zero (momentum = 0.000000e+00)}}
  %0, %1 = amp.sgd_update %p, %p, momentum_buffer %m, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_momentum_without_buffer(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op momentum_buffer must be given exactly when momentum is non-zero (momentum = 9.000000e-01)}}
  %0 = amp.sgd_update %p, %p, lr %lr {momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_missing_new_buffer(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op returns a new momentum buffer exactly when it takes one}}
  %0 = "amp.sgd_update"(%p, %p, %p, %lr) <{momentum = 0.9 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_extra_new_buffer(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op returns a new momentum buffer exactly when it takes one}}
  %0, %1 = "amp.sgd_update"(%p, %p, %lr) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_buffer_type(%p: tensor<4xf32>, %m: tensor<4xf16>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op momentum_buffer has type 'tensor<4xf16>' but must have 'tensor<4xf32>'}}
  %0, %1 = "amp.sgd_update"(%p, %p, %m, %lr) <{momentum = 0.9 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @sgd_update_new_param_type(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xbf16> {
  // expected-error @+1 {{'amp.sgd_update' op new_param has type 'tensor<4xbf16>' but must have 'tensor<4xf32>'}}
  %0 = "amp.sgd_update"(%p, %p, %lr) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @sgd_update_new_buffer_type(%p: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.sgd_update' op new_momentum_buffer has type 'tensor<2x2xf32>' but must have 'tensor<4xf32>'}}
  %0, %1 = "amp.sgd_update"(%p, %p, %p, %lr) <{momentum = 0.9 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<2x2xf32>)
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_beta1(%p: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op betas must be in [0, 1), got (1.000000e+00, 9.990000e-01)}}
  %0, %1, %2 = amp.adamw_update %p, %p, %p, %p, step %t, lr %lr {beta1 = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_beta2(%p: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op betas must be in [0, 1), got (9.000000e-01, -1.000000e+00)}}
  %0, %1, %2 = amp.adamw_update %p, %p, %p, %p, step %t, lr %lr {beta2 = -1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_epsilon(%p: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op epsilon must be positive and finite, got 0.000000e+00}}
  %0, %1, %2 = amp.adamw_update %p, %p, %p, %p, step %t, lr %lr {epsilon = 0.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_weight_decay(%p: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>, %f: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op weight_decay must be non-negative and finite, got -1.000000e-02}}
  %0, %1, %2 = amp.adamw_update %p, %p, %p, %p, step %t, lr %lr, found_inf %f {weight_decay = -0.01 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_grad_shape(%p: tensor<4xf32>, %g: tensor<2x2xf16>, %t: tensor<i64>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.adamw_update' op grad has shape 2x2 but must have shape 4}}
  %0, %1, %2 = amp.adamw_update %p, %g, %p, %p, step %t, lr %lr : tensor<4xf32>, tensor<2x2xf16>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @adamw_update_exp_avg_shape(%p: tensor<4xf16>, %m: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> tensor<4xf16> {
  // expected-error @+1 {{'amp.adamw_update' op exp_avg has shape 8 but must have shape 4}}
  %0, %1, %2 = amp.adamw_update %p, %p, %m, %m, step %t, lr %lr : tensor<4xf16>, tensor<4xf16>, tensor<8xf32>
  return %0 : tensor<4xf16>
}

// -----
// Regression tests: signed counts, NaN attributes, overflowing window
// arithmetic and windows that do not fit.

func.func @update_scale_negative_hysteresis(%s: tensor<f32>, %g: tensor<i64>, %h: tensor<i64>, %f: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op hysteresis must be positive, got -1}}
  %0:3 = amp.update_scale %s, %g, %h, %f {hysteresis = -1 : i64}
  return
}

// -----

func.func @update_scale_negative_interval(%s: tensor<f32>, %g: tensor<i64>, %h: tensor<i64>, %f: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op growth_interval must be positive, got -5}}
  %0:3 = amp.update_scale %s, %g, %h, %f {growth_interval = -5 : i64}
  return
}

// -----

func.func @batch_norm_nan_momentum(%x: tensor<2x4x3x3xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'amp.batch_norm' op momentum must be in [0, 1], got nan}}
  %0:5 = amp.batch_norm %x, %c, %c, %c, %c {momentum = 0x7FF8000000000000 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_nan_beta(%p: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error @+1 {{'amp.adamw_update' op betas must be in [0, 1), got (nan, 9.990000e-01)}}
  %0:3 = amp.adamw_update %p, %p, %p, %p, step %t, lr %lr {beta1 = 0x7FF8000000000000 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @sgd_infinite_weight_decay(%p: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'amp.sgd_update' op weight_decay must be non-negative and finite, got INF}}
  %0 = amp.sgd_update %p, %p, lr %lr {weight_decay = 0x7FF0000000000000 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @max_pool_huge_padding(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'amp.max_pool2d' op padding 4611686018427387904 is more than half the kernel size 1}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 1, 1>, padding = array<i64: 4611686018427387904, 0, 4611686018427387904, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x0x8xf32>
  return
}

// -----

func.func @max_pool_window_does_not_fit(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{'amp.max_pool2d' op window of size 3 does not fit the padded input of size 2 in spatial dimension 0}}
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 3, 3>} : tensor<1x1x2x2xf32> -> tensor<1x1x0x0xf32>
  return
}

// -----

func.func @conv_window_does_not_fit(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d' op window of size 3 does not fit the padded input of size 2 in spatial dimension 0}}
  %0 = amp.conv2d %x, %w : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x0x0xf32>
  return
}

// -----

func.func @conv_dilation_overflow(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d' op window arithmetic overflows in spatial dimension 0}}
  %0 = amp.conv2d %x, %w {dilation = array<i64: 9223372036854775807, 9223372036854775807>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x10x10xf32>
  return
}

// -----

func.func @conv_padding_overflow(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'amp.conv2d' op window arithmetic overflows in spatial dimension 0}}
  %0 = amp.conv2d %x, %w {padding = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  return
}

// -----

func.func @conv_empty_kernel(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x0x0xf32>) {
  // expected-error @+1 {{'amp.conv2d' op kernel size 0 in spatial dimension 0 is not positive}}
  %0 = amp.conv2d %x, %w : (tensor<2x3x8x8xf32>, tensor<4x3x0x0xf32>) -> tensor<2x4x9x9xf32>
  return
}

// -----

func.func @reshape_element_count_overflow(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'amp.reshape' op element count overflows int64}}
  %0 = amp.reshape %x : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
  return
}

// -----

func.func @slice_dynamic_dimension(%x: tensor<?xf32>) {
  // expected-error @+1 {{'amp.slice' op slice [-1, 2) of dimension 0 is outside [0, ?]}}
  %0 = amp.slice %x {starts = array<i64: -1>, limits = array<i64: 2>, strides = array<i64: 1>} : tensor<?xf32> -> tensor<3xf32>
  return
}
