// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-accumulate-gradients
// RUN: not amp-opt %s -split-input-file --amp-accumulate-gradients="micro-batches=0" 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: amp-accumulate-gradients: micro-batches must be in [1, 16777216], got 0

// A step without an optimizer update has nothing to accumulate for.

// expected-error @+1 {{amp-accumulate-gradients: training step @no_update has no amp.sgd_update or amp.adamw_update; gradients are accumulated for the optimizer update}}
func.func @no_update(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %y = amp.mul %w, %x : tensor<4xf32>
  %loss = amp.reduce_sum %y {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %w, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// The average over the micro-batches is taken at the backward seed.

// expected-error @+1 {{amp-accumulate-gradients: training step @no_seed has no amp.seed; the micro-batches are averaged at the backward seed}}
func.func @no_seed(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %g: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "g"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.reduce_sum %g {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %w1 = amp.sgd_update %w, %g, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %loss : tensor<4xf32>, tensor<f32>
}

// -----

// Accumulating twice would average twice.

// expected-error @+1 {{amp-accumulate-gradients: training step @twice already accumulates gradients (it has the 'accumulate' hyper-parameter)}}
func.func @twice(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"},
    %n: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "accumulate"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %y = amp.mul %w, %x : tensor<4xf32>
  %loss = amp.reduce_sum %y {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %seed = amp.seed %loss
  %g0 = amp.broadcast %seed : tensor<f32> -> tensor<4xf32>
  %g = amp.mul %g0, %x : tensor<4xf32>
  %w1 = amp.sgd_update %w, %g, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %loss : tensor<4xf32>, tensor<f32>
}
