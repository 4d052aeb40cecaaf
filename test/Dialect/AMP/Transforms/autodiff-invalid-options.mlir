// Diagnostics of --amp-autodiff's options: appending a loss, and option
// values it rejects before touching the module.

// RUN: amp-opt %s -split-input-file -verify-diagnostics \
// RUN:   --amp-autodiff="loss=cross_entropy"

// RUN: not amp-opt %s -split-input-file --amp-autodiff="optimizer=adam" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPTIMIZER
// OPTIMIZER: for the --optimizer option: Cannot find option named 'adam'!
// RUN: not amp-opt %s -split-input-file --amp-autodiff="loss=hinge" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOSS
// LOSS: for the --loss option: Cannot find option named 'hinge'!
// RUN: not amp-opt %s -split-input-file --amp-autodiff="nesterov=true" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTEROV
// NESTEROV: error: amp-autodiff: nesterov requires momentum > 0 and dampening = 0
// RUN: not amp-opt %s -split-input-file --amp-autodiff="optimizer=adamw beta2=1.0" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BETA
// BETA: error: amp-autodiff: beta1 and beta2 must be in [0, 1)
// RUN: not amp-opt %s -split-input-file --amp-autodiff="max-grad-norm=-1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLIP
// CLIP: error: amp-autodiff: max-grad-norm must be non-negative and finite (0 disables clipping)

// expected-error@+1 {{forward model @has_loss already returns a loss (result #0); loss=cross_entropy appends a loss to a forward model that returns logits}}
func.func @has_loss(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error@+1 {{loss=cross_entropy needs [N, C] float logits, but result #0 of @rank3 is 'tensor<2x3x4xf32>'}}
func.func @rank3(%w: tensor<2x3x4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> tensor<2x3x4xf32>
    attributes {amp.graph = #amp.graph<forward>} {
  return %w : tensor<2x3x4xf32>
}

// -----

// expected-error@+1 {{loss=cross_entropy needs exactly one result to apply the loss to (the logits), but forward model @two_outputs returns 2 results that are not buffers}}
func.func @two_outputs(%w: tensor<2x3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<2x3xf32>, tensor<2x3xf32>)
    attributes {amp.graph = #amp.graph<forward>} {
  return %w, %w : tensor<2x3xf32>, tensor<2x3xf32>
}
