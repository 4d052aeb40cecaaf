// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-assign-precision="precision=bf16"

// Pins that contradict the low precision the pass runs with.

func.func @pin_other_low_type(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{contradicting pins: pinned to 'f16' but the low precision is 'bf16' (precision=bf16)}}
  %0 = amp.matmul %a, %a {amp.pin = f16} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
