// RUN: amp-opt %s -split-input-file --amp-loss-scaling | FileCheck %s --check-prefix=DYNAMIC
// RUN: amp-opt %s -split-input-file --amp-loss-scaling="mode=static init-scale=1024" | FileCheck %s --check-prefix=STATIC
// RUN: amp-opt %s -split-input-file --amp-loss-scaling="mode=none" | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %s -split-input-file --amp-loss-scaling="mode=auto" | FileCheck %s --check-prefix=AUTO
// RUN: amp-opt %s -split-input-file --amp-loss-scaling | FileCheck %s --check-prefix=NOHOST
// RUN: amp-opt %s -split-input-file --amp-loss-scaling --convert-amp-to-linalg | FileCheck %s --check-prefix=LOWERED

// A mixed-precision training step (fp16 GEMMs, f32 master weights, SGD)
// rewritten by --amp-loss-scaling: the backward seed is multiplied by the
// scale, one amp.unscale_grads takes every gradient (widening the fp16
// weight gradient of the f32 weight to f32) and reports found_inf, the
// scale is updated from it, the updates skip themselves on it, and the
// step returns it as `skipped`. The scaler state (scale, growth tracker,
// hysteresis tracker) is threaded after the optimizer state; a fresh
// (all-zero) scaler starts at init-scale.

func.func @step(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
    %m: tensor<4x8xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "w.momentum_buffer"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
        tensor<4x8xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "w.momentum_buffer"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
  %x16 = amp.cast %x : tensor<16x8xf32> to tensor<16x8xf16>
  %logits = amp.linear %x16, %w16, %b
      : (tensor<16x8xf16>, tensor<4x8xf16>, tensor<4xf32>) -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %dl16 = amp.cast %dlogits : tensor<16x4xf32> to tensor<16x4xf16>
  %dw = amp.matmul %dl16, %x16 {transpose_lhs}
      : tensor<16x4xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
  %db = amp.reduce_sum %dlogits {axes = array<i64: 0>} : tensor<16x4xf32> -> tensor<4xf32>
  %w1, %m1 = amp.sgd_update %w, %dw, momentum_buffer %m, lr %lr
      {momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf16>
  %b1 = amp.sgd_update %b, %db, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %b1, %m1, %loss : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<f32>
}

// DYNAMIC-LABEL: func.func @step(
// DYNAMIC-SAME: %[[W:[a-z0-9]+]]: tensor<4x8xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// DYNAMIC-SAME: %[[B:[a-z0-9]+]]: tensor<4xf32> {amp.name = "b", amp.role = #amp.role<parameter>},
// DYNAMIC-SAME: %[[M:[a-z0-9]+]]: tensor<4x8xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// DYNAMIC-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>},
// DYNAMIC-SAME: %[[GROWTH:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>},
// DYNAMIC-SAME: %[[HYST:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// DYNAMIC-SAME: %[[X:[a-z0-9]+]]: tensor<16x8xf32> {amp.name = "x", amp.role = #amp.role<input>},
// DYNAMIC-SAME: %[[Y:[a-z0-9]+]]: tensor<16xi64> {amp.name = "labels", amp.role = #amp.role<label>},
// DYNAMIC-SAME: %[[LR:[a-z0-9]+]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// DYNAMIC-SAME: -> (tensor<4x8xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// DYNAMIC-SAME: tensor<4xf32> {amp.name = "b", amp.role = #amp.role<parameter>},
// DYNAMIC-SAME: tensor<4x8xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// DYNAMIC-SAME: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>},
// DYNAMIC-SAME: tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>},
// DYNAMIC-SAME: tensor<i64> {amp.name = "loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// DYNAMIC-SAME: tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// DYNAMIC-SAME: tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>})
// DYNAMIC-SAME: attributes {amp.graph = #amp.graph<training_step>}
// A scale that is not positive is a fresh scaler: (65536, 0, hysteresis).
// DYNAMIC: %[[ZERO:.*]] = amp.constant dense<0.000000e+00> : tensor<f32>
// DYNAMIC: %[[VALID:.*]] = amp.compare gt, %[[SCALE]], %[[ZERO]] : tensor<f32> -> tensor<i1>
// DYNAMIC: %[[INIT:.*]] = amp.constant dense<6.553600e+04> : tensor<f32>
// DYNAMIC: %[[S:.*]] = amp.where %[[VALID]], %[[SCALE]], %[[INIT]] : tensor<i1>, tensor<f32>
// DYNAMIC: %[[G0:.*]] = amp.constant dense<0> : tensor<i64>
// DYNAMIC: %[[G:.*]] = amp.where %[[VALID]], %[[GROWTH]], %[[G0]] : tensor<i1>, tensor<i64>
// DYNAMIC: %[[H0:.*]] = amp.constant dense<1> : tensor<i64>
// DYNAMIC: %[[H:.*]] = amp.where %[[VALID]], %[[HYST]], %[[H0]] : tensor<i1>, tensor<i64>
// The scaled backward.
// DYNAMIC: %[[LOSS:.*]] = amp.cross_entropy
// DYNAMIC: %[[SEED:.*]] = amp.seed %[[LOSS]]
// DYNAMIC: %[[SCALED:.*]] = amp.scale_seed %[[SEED]], %[[S]]
// DYNAMIC: amp.cross_entropy_grad %[[SCALED]],
// DYNAMIC: %[[DW:.*]] = amp.matmul
// DYNAMIC: %[[DB:.*]] = amp.reduce_sum
// One unscale and check over every gradient; the fp16 gradient of the f32
// weight is unscaled into f32.
// DYNAMIC: %[[G_UN:.*]]:2, %[[FOUND:.*]] = amp.unscale_grads %[[S]], %[[DW]], %[[DB]] : tensor<4x8xf16>, tensor<4xf32> -> tensor<4x8xf32>, tensor<4xf32>
// DYNAMIC: %[[NS:.*]], %[[NG:.*]], %[[NH:.*]] = amp.update_scale %[[S]], %[[G]], %[[H]], %[[FOUND]]{{$}}
// DYNAMIC: %[[W1:.*]], %[[M1:.*]] = amp.sgd_update %[[W]], %[[G_UN]]#0, momentum_buffer %[[M]], lr %[[LR]], found_inf %[[FOUND]] {momentum = 9.000000e-01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
// DYNAMIC: %[[B1:.*]] = amp.sgd_update %[[B]], %[[G_UN]]#1, lr %[[LR]], found_inf %[[FOUND]] : tensor<4xf32>, tensor<4xf32>
// DYNAMIC: return %[[W1]], %[[B1]], %[[M1]], %[[NS]], %[[NG]], %[[NH]], %[[LOSS]], %[[FOUND]]

// The skip is decided on the device: nothing in the step reads the flag or
// the scale into a host scalar, and there is no control flow.
// NOHOST-LABEL: func.func @step(
// NOHOST-NOT: tensor.extract
// NOHOST-NOT: scf.if
// NOHOST-NOT: cf.cond_br
// NOHOST: return

// STATIC-LABEL: func.func @step(
// STATIC-NOT: scaler_state
// STATIC-SAME: -> (
// STATIC-SAME: tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}, tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>})
// STATIC: %[[S:.*]] = amp.constant dense<1.024000e+03> : tensor<f32>
// STATIC: %[[SEED:.*]] = amp.seed
// STATIC: %[[SCALED:.*]] = amp.scale_seed %[[SEED]], %[[S]]
// STATIC: amp.cross_entropy_grad %[[SCALED]],
// STATIC: %{{.*}}:2, %[[FOUND:.*]] = amp.unscale_grads %[[S]],
// STATIC-NOT: amp.update_scale
// STATIC: amp.sgd_update {{.*}} found_inf %[[FOUND]]
// STATIC: amp.sgd_update {{.*}} found_inf %[[FOUND]]
// STATIC: return {{.*}}, %[[FOUND]] : {{.*}}, tensor<i1>

// NONE-LABEL: func.func @step(
// NONE-NOT: scaler_state
// NONE-NOT: skipped
// NONE: %[[SEED:.*]] = amp.seed
// NONE: amp.cross_entropy_grad %[[SEED]],
// NONE-NOT: amp.scale_seed
// NONE-NOT: amp.unscale_grads
// NONE-NOT: found_inf
// NONE: return

// The step computes in f16: auto scales it.
// AUTO-LABEL: func.func @step(
// AUTO: amp.scale_seed
// AUTO: amp.update_scale

// The lowered step reads the flag and the scale only inside linalg.generic
// bodies, through maps to no loops (the skip is an arith.select there):
// nothing is extracted to the host and there is no control flow.
// LOWERED-LABEL: func.func @step(
// LOWERED-NOT: tensor.extract
// LOWERED-NOT: scf.if
// LOWERED-NOT: cf.cond_br
// LOWERED: arith.select
// LOWERED-NOT: tensor.extract
// LOWERED-NOT: scf.if
// LOWERED-NOT: cf.cond_br
// LOWERED: return

// -----

// The same step in bf16: auto does not scale it (bf16 has f32's range).

func.func @step_bf16(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xbf16>
  %x16 = amp.cast %x : tensor<16x8xf32> to tensor<16x8xbf16>
  %logits = amp.linear %x16, %w16
      : (tensor<16x8xbf16>, tensor<4x8xbf16>) -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %dl16 = amp.cast %dlogits : tensor<16x4xf32> to tensor<16x4xbf16>
  %dw = amp.matmul %dl16, %x16 {transpose_lhs}
      : tensor<16x4xbf16>, tensor<16x8xbf16> -> tensor<4x8xbf16>
  %w1 = amp.sgd_update %w, %dw, lr %lr : tensor<4x8xf32>, tensor<4x8xbf16>
  return %w1, %loss : tensor<4x8xf32>, tensor<f32>
}

// AUTO-LABEL: func.func @step_bf16(
// AUTO-NOT: scaler_state
// AUTO-NOT: amp.scale_seed
// AUTO: return

// Explicitly dynamic, a bf16 gradient of an f32 weight is widened as well.
// DYNAMIC-LABEL: func.func @step_bf16(
// DYNAMIC: amp.unscale_grads %{{.*}}, %{{.*}} : tensor<4x8xbf16> -> tensor<4x8xf32>

// -----

// Functions that are not training steps are left alone.

// DYNAMIC-LABEL: func.func @not_a_step
// DYNAMIC-NOT: amp.scale_seed
// DYNAMIC: return
func.func @not_a_step(%loss: tensor<f32>) -> tensor<f32> {
  %seed = amp.seed %loss
  return %seed : tensor<f32>
}
