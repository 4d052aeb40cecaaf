// RUN: amp-opt %s -split-input-file -verify-diagnostics

// The verifiers of the data-parallel collectives (AMPOps.cpp).

func.func @no_inputs() {
  // expected-error @+1 {{'amp.all_reduce_start' op needs at least one tensor to reduce}}
  %h = "amp.all_reduce_start"() {kind = #amp.reduction<sum>, operandSegmentSizes = array<i32: 0, 0>} : () -> !amp.collective
  %r = amp.all_reduce_wait %h : tensor<4xf32>
  return
}

// -----

func.func @never_waited(%g: tensor<4xf32>) {
  // expected-error @+1 {{'amp.all_reduce_start' op handle must have exactly one use, by an amp.all_reduce_wait}}
  %h = amp.all_reduce_start <sum> %g : tensor<4xf32>
  return
}

// -----

func.func @waited_twice(%g: tensor<4xf32>) {
  // expected-error @+1 {{'amp.all_reduce_start' op handle must have exactly one use, by an amp.all_reduce_wait}}
  %h = amp.all_reduce_start <sum> %g : tensor<4xf32>
  %r0 = amp.all_reduce_wait %h : tensor<4xf32>
  %r1 = amp.all_reduce_wait %h : tensor<4xf32>
  return
}

// -----

func.func @wait_in_other_block(%g: tensor<4xf32>) {
  // expected-error @+1 {{'amp.all_reduce_start' op and its amp.all_reduce_wait must be in the same block}}
  %h = amp.all_reduce_start <sum> %g : tensor<4xf32>
  cf.br ^next
^next:
  %r = amp.all_reduce_wait %h : tensor<4xf32>
  return
}

// -----

func.func @wrong_types(%g: tensor<4xf32>) {
  %h = amp.all_reduce_start <mean> %g : tensor<4xf32>
  // expected-error @+1 {{'amp.all_reduce_wait' op result types must match the types of the amp.all_reduce_start inputs, 1 tensors}}
  %r = amp.all_reduce_wait %h : tensor<4xf16>
  return
}

// -----

func.func @handle_from_argument(%h: !amp.collective) {
  // expected-error @+1 {{'amp.all_reduce_wait' op handle must come from an amp.all_reduce_start}}
  %r = amp.all_reduce_wait %h : tensor<4xf32>
  return
}

// -----

func.func @unknown_reduction(%g: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::amp::ReductionKind to be one of: sum, mean}}
  // expected-error @+1 {{failed to parse AMP_ReductionKindAttr parameter 'value'}}
  %h = amp.all_reduce_start <max> %g : tensor<4xf32>
  %r = amp.all_reduce_wait %h : tensor<4xf32>
  return
}

// -----

func.func @flag_not_i1(%f: tensor<f32>) {
  // expected-error @+1 {{'amp.all_reduce_any' op operand #0 must be}}
  %0 = "amp.all_reduce_any"(%f) : (tensor<f32>) -> tensor<i1>
  return
}

// -----

func.func @integer_bucket(%g: tensor<4xi32>) {
  // expected-error @+1 {{'amp.all_reduce_start' op operand #0 must be variadic of ranked tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %h = "amp.all_reduce_start"(%g) {kind = #amp.reduction<sum>, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4xi32>) -> !amp.collective
  %r = "amp.all_reduce_wait"(%h) : (!amp.collective) -> tensor<4xf32>
  return
}
