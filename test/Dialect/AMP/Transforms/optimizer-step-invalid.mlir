// Diagnostics of --amp-optimizer-step.

// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-optimizer-step

// RUN: not amp-opt %s --amp-optimizer-step="optimizer=adam" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KIND
// KIND: for the --optimizer option: Cannot find option named 'adam'!
// RUN: not amp-opt %s --amp-optimizer-step="momentum=-1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MOMENTUM
// MOMENTUM: error: amp-optimizer-step: momentum must be non-negative and finite

// A gradient for one parameter but not for the other.
// expected-error @+1 {{amp-optimizer-step: @partial_grad returns parameter gradients but none for parameter 'b' (an output named 'b.grad')}}
func.func @partial_grad(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<output>, amp.name = "w.grad"}) {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// The training step's name is taken.
// expected-error @+1 {{amp-optimizer-step: cannot rename @m_grad to @m_train_step: the symbol already exists}}
func.func @m_grad(%w: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<output>, amp.name = "param0.grad"}) {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
func.func private @m_train_step(tensor<4xf32>, tensor<4xf32>, tensor<f32>)
    -> (tensor<4xf32>, tensor<f32>)
