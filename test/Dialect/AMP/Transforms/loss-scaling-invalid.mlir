// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-loss-scaling
// RUN: not amp-opt %s --amp-loss-scaling="mode=fast" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not amp-opt %s --amp-loss-scaling="init-scale=0" 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not amp-opt %s --amp-loss-scaling="init-scale=1e39" 2>&1 | FileCheck %s --check-prefix=INIT-F32
// RUN: not amp-opt %s --amp-loss-scaling="growth-factor=1" 2>&1 | FileCheck %s --check-prefix=GROWTH
// RUN: not amp-opt %s --amp-loss-scaling="backoff-factor=1" 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not amp-opt %s --amp-loss-scaling="growth-interval=0" 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not amp-opt %s --amp-loss-scaling="hysteresis=0" 2>&1 | FileCheck %s --check-prefix=HYSTERESIS
// RUN: not amp-opt %s --amp-loss-scaling="min-scale=0" 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not amp-opt %s --amp-loss-scaling="min-scale=1024 max-scale=512" 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not amp-opt %s --amp-loss-scaling="init-scale=65536 max-scale=1024" 2>&1 | FileCheck %s --check-prefix=OUTSIDE

// MODE: for the --mode option: Cannot find option named 'fast'!
// INIT: error: amp-loss-scaling: init-scale must be a positive, finite f32 value, got 0
// INIT-F32: error: amp-loss-scaling: init-scale must be a positive, finite f32 value, got 1e+39
// GROWTH: error: amp-loss-scaling: growth-factor must be finite and greater than 1, got 1
// BACKOFF: error: amp-loss-scaling: backoff-factor must be in (0, 1), got 1
// INTERVAL: error: amp-loss-scaling: growth-interval must be positive, got 0
// HYSTERESIS: error: amp-loss-scaling: hysteresis must be positive (1 backs off on every overflow), got 0
// BOUNDS: error: amp-loss-scaling: scale bounds must satisfy 0 < min-scale <= max-scale < inf
// OUTSIDE: error: amp-loss-scaling: init-scale 65536 is outside [min-scale, max-scale] = [1, 1024]

// A training step without a seed has no backward to scale.
// expected-error @+1 {{amp-loss-scaling: training step @no_seed has no amp.seed; loss scaling scales the backward pass at its seed}}
func.func @no_seed(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w1 = amp.sgd_update %w, %w, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %lr : tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @+1 {{amp-loss-scaling: training step @no_update has no amp.sgd_update or amp.adamw_update; the optimizer update is where a step with an overflow is skipped}}
func.func @no_update(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.mse_loss %w, %x : tensor<4xf32>
  %seed = amp.seed %loss
  %dw = amp.mse_loss_grad %seed, %w, %x : tensor<4xf32>
  %w1 = amp.sub %w, %dw : tensor<4xf32>
  return %w1, %loss : tensor<4xf32>, tensor<f32>
}

// -----

func.func @found_inf_without_scaling(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %flag: tensor<i1> {amp.role = #amp.role<input>, amp.name = "flag"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.mse_loss %w, %x : tensor<4xf32>
  %seed = amp.seed %loss
  %dw = amp.mse_loss_grad %seed, %w, %x : tensor<4xf32>
  // expected-error @+1 {{'amp.sgd_update' op already takes a found_inf flag, but training step @found_inf_without_scaling has no loss scaling (amp.unscale_grads) to compute it}}
  %w1 = amp.sgd_update %w, %dw, lr %lr, found_inf %flag : tensor<4xf32>, tensor<4xf32>
  return %w1, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// Gradients of two losses combined other than by a sum cannot be unscaled
// one scale per loss.
func.func @mixed_losses(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l1 = amp.mse_loss %w, %x : tensor<4xf32>
  %l2 = amp.mse_loss %x, %w : tensor<4xf32>
  %s1 = amp.seed %l1
  %d1 = amp.mse_loss_grad %s1, %w, %x : tensor<4xf32>
  %s2 = amp.seed %l2
  %d2 = amp.mse_loss_grad %s2, %w, %x : tensor<4xf32>
  // expected-error @+1 {{amp-loss-scaling: gradients of loss #0 and loss #1 (amp.seed ops) are combined by 'amp.mul'; one scale per loss needs the per-loss gradients to be summed with amp.add before the optimizer}}
  %dw = amp.mul %d1, %d2 : tensor<4xf32>
  %w1 = amp.sgd_update %w, %dw, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %l1 : tensor<4xf32>, tensor<f32>
}

// -----

// A step that already scales its loss (written by hand, or a second run of
// the pass) is left as it is: no diagnostic, nothing added.
func.func @already_scaled(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %scale: tensor<f32> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<i1> {amp.role = #amp.role<skipped>, amp.name = "skipped"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.mse_loss %w, %x : tensor<4xf32>
  %seed = amp.seed %loss
  %scaled = amp.scale_seed %seed, %scale
  %dw = amp.mse_loss_grad %scaled, %w, %x : tensor<4xf32>
  %g, %found = amp.unscale_grads %scale, %dw : tensor<4xf32> -> tensor<4xf32>
  %w1 = amp.sgd_update %w, %g, lr %lr, found_inf %found : tensor<4xf32>, tensor<4xf32>
  return %w1, %scale, %loss, %found : tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i1>
}

// -----

// One parameter's gradient computed from another's: unscaling both would
// unscale the second twice.
func.func @gradient_of_gradient(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %v: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "v"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "v"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.mse_loss %w, %x : tensor<4xf32>
  %seed = amp.seed %loss
  %dw = amp.mse_loss_grad %seed, %w, %x : tensor<4xf32>
  // expected-error @+1 {{amp-loss-scaling: this gradient is computed from another gradient the optimizer reads; both would be unscaled}}
  %dv = amp.neg %dw : tensor<4xf32>
  %w1 = amp.sgd_update %w, %dw, lr %lr : tensor<4xf32>, tensor<4xf32>
  %v1 = amp.sgd_update %v, %dv, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %v1, %loss : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
