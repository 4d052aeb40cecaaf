// RUN: amp-opt %s -split-input-file -verify-diagnostics

// The dialect verifies the op attributes of the mixed-precision passes.

func.func @pin_not_a_float_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.exp' op 'amp.pin' must be f32, f16 or bf16}}
  %0 = amp.exp %a {amp.pin = i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pin_not_a_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.exp' op 'amp.pin' must be f32, f16 or bf16}}
  %0 = amp.exp %a {amp.pin = "f16"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pin_without_category(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'amp.cast' op 'amp.pin' is only valid on ops with a precision category (PrecisionOpInterface)}}
  %0 = amp.cast %a {amp.pin = f16} : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @precision_not_a_float_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.exp' op 'amp.precision' must be f32, f16 or bf16}}
  %0 = amp.exp %a {amp.precision = f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_on_other_dialect(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.addf' op 'amp.precision' is only valid on ops with a precision category (PrecisionOpInterface)}}
  %0 = arith.addf %a, %a {amp.precision = f16} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rule_without_precision(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.exp' op 'amp.precision_rule' explains 'amp.precision', which the op does not have}}
  %0 = amp.exp %a {amp.precision_rule = "deny"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @empty_rule(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.exp' op 'amp.precision_rule' must be a non-empty string}}
  %0 = amp.exp %a {amp.precision = f32, amp.precision_rule = ""} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @autocast_disabled_on_a_plain_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.exp' op 'amp.autocast_disabled' is only valid on an op with regions or a call; pin a single op with amp.pin = f32}}
  %0 = amp.exp %a {amp.autocast_disabled} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'amp.autocast_disabled' is a unit attribute}}
func.func @autocast_disabled_not_unit(%a: tensor<4xf32>) -> tensor<4xf32> attributes {amp.autocast_disabled = true} {
  return %a : tensor<4xf32>
}

// -----

// Valid uses verify.
func.func private @callee(tensor<4xf32>) -> tensor<4xf32>
func.func @valid(%a: tensor<4xf32>) -> tensor<4xf32> attributes {amp.autocast_disabled} {
  %0 = amp.exp %a {amp.pin = bf16, amp.precision = bf16, amp.precision_rule = "pin"} : tensor<4xf32>
  %1 = func.call @callee(%0) {amp.autocast_disabled} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
