// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-data-parallel
// RUN: not amp-opt %s --amp-data-parallel="bucket-cap-mb=0" 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: not amp-opt %s --amp-data-parallel="bucket-cap-mb=nan" 2>&1 | FileCheck %s --check-prefix=CAPNAN
// RUN: not amp-opt %s --amp-data-parallel="reduction=max" 2>&1 | FileCheck %s --check-prefix=REDUCTION

// CAP: amp-data-parallel: bucket-cap-mb must be in (0, 1e6] MiB, got 0
// CAPNAN: amp-data-parallel: bucket-cap-mb must be in (0, 1e6] MiB, got nan
// The option's parser refuses a reduction it does not list.
// REDUCTION: for the --reduction option: Cannot find option named 'max'!

// A step without an optimizer update has no gradients to reduce.

// expected-error @+1 {{amp-data-parallel: training step @no_update has no amp.sgd_update or amp.adamw_update; the gradients of the optimizer update are what ranks reduce}}
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

// Reducing twice would average twice (and deadlock ranks that did not).

// expected-error @+1 {{amp-data-parallel: training step @twice already all-reduces across ranks}}
func.func @twice(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %g: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "g"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.reduce_sum %g {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %h = amp.all_reduce_start <mean> %g : tensor<4xf32>
  %r = amp.all_reduce_wait %h : tensor<4xf32>
  %w1 = amp.sgd_update %w, %r, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %loss : tensor<4xf32>, tensor<f32>
}
