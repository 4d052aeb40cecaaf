// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// Round trip of the training-graph contract: `amp.role` and `amp.name` on
// function arguments and results, `amp.graph` on functions. Argument and
// result dictionaries print their entries sorted by name (`amp.name` before
// `amp.role`).

// A forward model without a loss.
// CHECK-LABEL: func.func @forward_model(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf16> {amp.name = "x", amp.role = #amp.role<input>},
// CHECK-SAME: %[[W:[a-zA-Z0-9_]+]]: tensor<16x8xf16> {amp.name = "fc.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[B:[a-zA-Z0-9_]+]]: tensor<16xf32> {amp.name = "fc.bias", amp.role = #amp.role<parameter>})
// CHECK-SAME: -> (tensor<4x16xf32> {amp.name = "y", amp.role = #amp.role<output>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<forward>}
func.func @forward_model(
    %x: tensor<4x8xf16> {amp.role = #amp.role<input>, amp.name = "x"},
    %w: tensor<16x8xf16> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<4x16xf32> {amp.role = #amp.role<output>, amp.name = "y"})
    attributes {amp.graph = #amp.graph<forward>} {
  // CHECK: %[[Y:.*]] = amp.linear %[[X]], %[[W]], %[[B]]
  %y = amp.linear %x, %w, %b : (tensor<4x8xf16>, tensor<16x8xf16>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: return %[[Y]] : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// A forward model may mark (at most) one loss; labels and hyperparameters
// are arguments, a bf16 parameter is allowed, and an argument or result may
// carry a name without a role or a role without a name.
// CHECK-LABEL: func.func @forward_with_loss(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32> {amp.role = #amp.role<input>},
// CHECK-SAME: %[[Y:[a-zA-Z0-9_]+]]: tensor<4xi64> {amp.name = "labels", amp.role = #amp.role<label>},
// CHECK-SAME: %[[W:[a-zA-Z0-9_]+]]: tensor<10x8xbf16> {amp.name = "head.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[P:[a-zA-Z0-9_]+]]: tensor<f64> {amp.name = "dropout_p", amp.role = #amp.role<hyperparameter>},
// CHECK-SAME: %[[SEED:[a-zA-Z0-9_]+]]: tensor<i64> {amp.name = "seed"})
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}, tensor<4x10xf32> {amp.role = #amp.role<output>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<forward>}
func.func @forward_with_loss(
    %x: tensor<4x8xf32> {amp.role = #amp.role<input>},
    %y: tensor<4xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %w: tensor<10x8xbf16> {amp.role = #amp.role<parameter>, amp.name = "head.weight"},
    %p: tensor<f64> {amp.role = #amp.role<hyperparameter>, amp.name = "dropout_p"},
    %seed: tensor<i64> {amp.name = "seed"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<4x10xf32> {amp.role = #amp.role<output>})
    attributes {amp.graph = #amp.graph<forward>} {
  %xb = amp.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %d, %mask = amp.dropout %xb, %seed {probability = 0.5 : f64} : tensor<4x8xbf16> -> tensor<4x8xi1>
  %logits = amp.linear %d, %w : (tensor<4x8xbf16>, tensor<10x8xbf16>) -> tensor<4x10xf32>
  // CHECK: %[[LOSS:.*]] = amp.cross_entropy %[[LOGITS:.*]], %[[Y]] : tensor<4x10xf32>, tensor<4xi64>
  %loss = amp.cross_entropy %logits, %y : tensor<4x10xf32>, tensor<4xi64>
  // CHECK: return %[[LOSS]], %[[LOGITS]] : tensor<f32>, tensor<4x10xf32>
  return %loss, %logits : tensor<f32>, tensor<4x10xf32>
}

// A forward model with no annotations at all.
// CHECK-LABEL: func.func @forward_unannotated(
// CHECK-SAME: %{{.*}}: tensor<4xf32>) -> tensor<4xf32> attributes {amp.graph = #amp.graph<forward>}
func.func @forward_unannotated(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.graph = #amp.graph<forward>} {
  %0 = amp.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Roles without `amp.graph`, including `skipped` and `output` results.
// CHECK-LABEL: func.func @roles_without_graph(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %{{.*}}: tensor<f32> {amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %{{.*}}: tensor<i1> {amp.role = #amp.role<input>})
// CHECK-SAME: -> (tensor<i1> {amp.role = #amp.role<skipped>}, tensor<4xf32> {amp.role = #amp.role<optimizer_state>}, tensor<f32> {amp.role = #amp.role<scaler_state>})
// CHECK-NOT: amp.graph
// CHECK: return
func.func @roles_without_graph(
    %m: tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
    %s: tensor<f32> {amp.role = #amp.role<scaler_state>},
    %f: tensor<i1> {amp.role = #amp.role<input>})
    -> (tensor<i1> {amp.role = #amp.role<skipped>},
        tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
        tensor<f32> {amp.role = #amp.role<scaler_state>}) {
  return %f, %m, %s : tensor<i1>, tensor<4xf32>, tensor<f32>
}

// A mixed-precision training step: f32 master parameters computed in f16,
// dynamic loss scaling, AdamW. It returns exactly one loss and returns its
// parameters, optimizer state and scaler state in the order and with the
// types it takes them (results of different roles may interleave).
// CHECK-LABEL: func.func @training_step_adamw(
// CHECK-SAME: %[[W:[a-zA-Z0-9_]+]]: tensor<4x4xf32> {amp.name = "fc.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[B:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "fc.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[MW:[a-zA-Z0-9_]+]]: tensor<4x4xf32> {amp.name = "fc.weight.exp_avg", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[VW:[a-zA-Z0-9_]+]]: tensor<4x4xf32> {amp.name = "fc.weight.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[MB:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "fc.bias.exp_avg", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[VB:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "fc.bias.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[SCALE:[a-zA-Z0-9_]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[GROWTH:[a-zA-Z0-9_]+]]: tensor<i64> {amp.name = "growth_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[HYST:[a-zA-Z0-9_]+]]: tensor<i64> {amp.name = "hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x4xf32> {amp.name = "x", amp.role = #amp.role<input>},
// CHECK-SAME: %[[Y:[a-zA-Z0-9_]+]]: tensor<4xi64> {amp.name = "y", amp.role = #amp.role<label>},
// CHECK-SAME: %[[LR:[a-zA-Z0-9_]+]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>},
// CHECK-SAME: %[[STEP:[a-zA-Z0-9_]+]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// CHECK-SAME: tensor<4x4xf32> {amp.role = #amp.role<parameter>}, tensor<4xf32> {amp.role = #amp.role<parameter>},
// CHECK-SAME: tensor<f32> {amp.role = #amp.role<scaler_state>}, tensor<i64> {amp.role = #amp.role<scaler_state>}, tensor<i64> {amp.role = #amp.role<scaler_state>},
// CHECK-SAME: tensor<4x4xf32> {amp.role = #amp.role<optimizer_state>}, tensor<4x4xf32> {amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: tensor<4xf32> {amp.role = #amp.role<optimizer_state>}, tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>},
// CHECK-SAME: tensor<4x4xf32> {amp.name = "logits", amp.role = #amp.role<output>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<training_step>}
func.func @training_step_adamw(
    %w: tensor<4x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"},
    %m_w: tensor<4x4xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc.weight.exp_avg"},
    %v_w: tensor<4x4xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc.weight.exp_avg_sq"},
    %m_b: tensor<4xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc.bias.exp_avg"},
    %v_b: tensor<4xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc.bias.exp_avg_sq"},
    %scale: tensor<f32> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale"},
    %growth: tensor<i64> {amp.role = #amp.role<scaler_state>, amp.name = "growth_tracker"},
    %hyst: tensor<i64> {amp.role = #amp.role<scaler_state>, amp.name = "hysteresis_tracker"},
    %x: tensor<4x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<4xi64> {amp.role = #amp.role<label>, amp.name = "y"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"},
    %step: tensor<i64> {amp.role = #amp.role<hyperparameter>, amp.name = "step"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<4x4xf32> {amp.role = #amp.role<parameter>},
        tensor<4xf32> {amp.role = #amp.role<parameter>},
        tensor<f32> {amp.role = #amp.role<scaler_state>},
        tensor<i64> {amp.role = #amp.role<scaler_state>},
        tensor<i64> {amp.role = #amp.role<scaler_state>},
        tensor<4x4xf32> {amp.role = #amp.role<optimizer_state>},
        tensor<4x4xf32> {amp.role = #amp.role<optimizer_state>},
        tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
        tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
        tensor<i1> {amp.role = #amp.role<skipped>, amp.name = "skipped"},
        tensor<4x4xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<training_step>} {
  // Forward in f16 with f32 accumulation.
  %xh = amp.cast %x : tensor<4x4xf32> to tensor<4x4xf16>
  %wh = amp.cast %w : tensor<4x4xf32> to tensor<4x4xf16>
  %logits = amp.linear %xh, %wh, %b : (tensor<4x4xf16>, tensor<4x4xf16>, tensor<4xf32>) -> tensor<4x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<4x4xf32>, tensor<4xi64>
  // Scaled backward.
  %seed = amp.seed %loss
  %scaled = amp.scale_seed %seed, %scale
  %dlogits = amp.cross_entropy_grad %scaled, %logits, %y : tensor<4x4xf32>, tensor<4xi64>
  %dlogits_h = amp.cast %dlogits : tensor<4x4xf32> to tensor<4x4xf16>
  %dw = amp.matmul %dlogits_h, %xh {transpose_lhs} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  %db = amp.reduce_sum %dlogits_h {axes = array<i64: 0>} : tensor<4x4xf16> -> tensor<4xf16>
  // Unscale (widening to f32), update the scale, skip the step on overflow.
  %grads:2, %found_inf = amp.unscale_grads %scale, %dw, %db
      : tensor<4x4xf16>, tensor<4xf16> -> tensor<4x4xf32>, tensor<4xf32>
  %new_scale, %new_growth, %new_hyst = amp.update_scale %scale, %growth, %hyst, %found_inf
      {growth_interval = 1000 : i64, hysteresis = 2 : i64}
  %new_w, %new_m_w, %new_v_w = amp.adamw_update %w, %grads#0, %m_w, %v_w, step %step, lr %lr, found_inf %found_inf
      : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  %new_b, %new_m_b, %new_v_b = amp.adamw_update %b, %grads#1, %m_b, %v_b, step %step, lr %lr, found_inf %found_inf
      {weight_decay = 0.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // CHECK: %[[LOGITS:.*]] = amp.linear
  // CHECK: %[[LOSS:.*]] = amp.cross_entropy %[[LOGITS]], %[[Y]]
  // CHECK: %[[GRADS:.*]]:2, %[[INF:.*]] = amp.unscale_grads %[[SCALE]],
  // CHECK: %[[NS:.*]], %[[NG:.*]], %[[NH:.*]] = amp.update_scale %[[SCALE]], %[[GROWTH]], %[[HYST]], %[[INF]] {growth_interval = 1000 : i64, hysteresis = 2 : i64}
  // CHECK: %[[NW:.*]], %[[NMW:.*]], %[[NVW:.*]] = amp.adamw_update %[[W]], %[[GRADS]]#0, %[[MW]], %[[VW]], step %[[STEP]], lr %[[LR]], found_inf %[[INF]] :
  // CHECK: %[[NB:.*]], %[[NMB:.*]], %[[NVB:.*]] = amp.adamw_update %[[B]], %[[GRADS]]#1, %[[MB]], %[[VB]], step %[[STEP]], lr %[[LR]], found_inf %[[INF]] {weight_decay = 0.000000e+00 : f64} :
  // CHECK: return %[[LOSS]], %[[NW]], %[[NB]], %[[NS]], %[[NG]], %[[NH]], %[[NMW]], %[[NVW]], %[[NMB]], %[[NVB]], %[[INF]], %[[LOGITS]] :
  return %loss, %new_w, %new_b, %new_scale, %new_growth, %new_hyst,
         %new_m_w, %new_v_w, %new_m_b, %new_v_b, %found_inf, %logits
      : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>,
        tensor<i64>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<i1>, tensor<4x4xf32>
}

// A minimal training step: SGD with momentum, no loss scaling, a bf16
// parameter (threaded as bf16) and an f32 one.
// CHECK-LABEL: func.func @training_step_sgd(
// CHECK-SAME: %{{.*}}: tensor<8xbf16> {amp.role = #amp.role<parameter>},
// CHECK-SAME: %{{.*}}: tensor<8xbf16> {amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %{{.*}}: tensor<8xf32> {amp.role = #amp.role<parameter>},
// CHECK-SAME: %{{.*}}: tensor<8xf32> {amp.role = #amp.role<input>},
// CHECK-SAME: %{{.*}}: tensor<f32> {amp.role = #amp.role<hyperparameter>})
// CHECK-SAME: -> (tensor<8xbf16> {amp.role = #amp.role<parameter>}, tensor<8xf32> {amp.role = #amp.role<parameter>}, tensor<f32> {amp.role = #amp.role<loss>}, tensor<8xbf16> {amp.role = #amp.role<optimizer_state>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<training_step>}
func.func @training_step_sgd(
    %p: tensor<8xbf16> {amp.role = #amp.role<parameter>},
    %buf: tensor<8xbf16> {amp.role = #amp.role<optimizer_state>},
    %q: tensor<8xf32> {amp.role = #amp.role<parameter>},
    %target: tensor<8xf32> {amp.role = #amp.role<input>},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>})
    -> (tensor<8xbf16> {amp.role = #amp.role<parameter>},
        tensor<8xf32> {amp.role = #amp.role<parameter>},
        tensor<f32> {amp.role = #amp.role<loss>},
        tensor<8xbf16> {amp.role = #amp.role<optimizer_state>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %pf = amp.cast %p : tensor<8xbf16> to tensor<8xf32>
  %sum = amp.add %pf, %q : tensor<8xf32>
  %loss = amp.mse_loss %sum, %target : tensor<8xf32>
  %seed = amp.seed %loss
  %dsum = amp.mse_loss_grad %seed, %sum, %target : tensor<8xf32>
  %dp = amp.cast %dsum : tensor<8xf32> to tensor<8xbf16>
  // CHECK: amp.sgd_update {{.*}} {momentum = 9.000000e-01 : f64} : tensor<8xbf16>, tensor<8xbf16>
  %new_p, %new_buf = amp.sgd_update %p, %dp, momentum_buffer %buf, lr %lr {momentum = 0.9 : f64}
      : tensor<8xbf16>, tensor<8xbf16>
  %new_q = amp.sgd_update %q, %dsum, lr %lr : tensor<8xf32>, tensor<8xf32>
  return %new_p, %new_q, %loss, %new_buf : tensor<8xbf16>, tensor<8xf32>, tensor<f32>, tensor<8xbf16>
}

// Non-trainable model state (batch-norm running statistics) has role
// `buffer`. A forward model only reads it ...
// CHECK-LABEL: func.func @forward_eval_batch_norm(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf16> {amp.role = #amp.role<input>},
// CHECK-SAME: %[[W:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[B:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[RM:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.running_mean", amp.role = #amp.role<buffer>},
// CHECK-SAME: %[[RV:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.running_var", amp.role = #amp.role<buffer>})
// CHECK-SAME: -> (tensor<8x4xf16> {amp.role = #amp.role<output>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<forward>}
func.func @forward_eval_batch_norm(
    %x: tensor<8x4xf16> {amp.role = #amp.role<input>},
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.weight"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.bias"},
    %rm: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_mean"},
    %rv: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_var"})
    -> (tensor<8x4xf16> {amp.role = #amp.role<output>})
    attributes {amp.graph = #amp.graph<forward>} {
  // CHECK: %[[Y:[a-zA-Z0-9_]+]], %{{.*}} = amp.batch_norm %[[X]], %[[W]], %[[B]], %[[RM]], %[[RV]] {training = false}
  %y, %sm, %sr, %nrm, %nrv = amp.batch_norm %x, %w, %b, %rm, %rv {training = false}
      : (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: return %[[Y]] : tensor<8x4xf16>
  return %y : tensor<8x4xf16>
}

// ... and a training step threads it like its parameters: returned updated,
// in the order and with the types it is taken.
// CHECK-LABEL: func.func @training_step_batch_norm(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf16> {amp.role = #amp.role<input>},
// CHECK-SAME: %[[W:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[B:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[RM:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.running_mean", amp.role = #amp.role<buffer>},
// CHECK-SAME: %[[RV:[a-zA-Z0-9_]+]]: tensor<4xf32> {amp.name = "bn.running_var", amp.role = #amp.role<buffer>},
// CHECK-SAME: %[[T:[a-zA-Z0-9_]+]]: tensor<8x4xf16> {amp.role = #amp.role<label>},
// CHECK-SAME: %[[LR:[a-zA-Z0-9_]+]]: tensor<f32> {amp.role = #amp.role<hyperparameter>})
// CHECK-SAME: -> (tensor<f32> {amp.role = #amp.role<loss>},
// CHECK-SAME: tensor<4xf32> {amp.name = "bn.running_mean", amp.role = #amp.role<buffer>}, tensor<4xf32> {amp.name = "bn.running_var", amp.role = #amp.role<buffer>},
// CHECK-SAME: tensor<4xf32> {amp.name = "bn.weight", amp.role = #amp.role<parameter>}, tensor<4xf32> {amp.name = "bn.bias", amp.role = #amp.role<parameter>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<training_step>}
func.func @training_step_batch_norm(
    %x: tensor<8x4xf16> {amp.role = #amp.role<input>},
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.weight"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.bias"},
    %rm: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_mean"},
    %rv: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_var"},
    %target: tensor<8x4xf16> {amp.role = #amp.role<label>},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_mean"},
        tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_var"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.weight"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.bias"})
    attributes {amp.graph = #amp.graph<training_step>} {
  // CHECK: %[[Y:[a-zA-Z0-9_]+]], %[[SM:[a-zA-Z0-9_]+]], %[[SR:[a-zA-Z0-9_]+]], %[[NRM:[a-zA-Z0-9_]+]], %[[NRV:[a-zA-Z0-9_]+]] = amp.batch_norm %[[X]], %[[W]], %[[B]], %[[RM]], %[[RV]] :
  %y, %sm, %sr, %nrm, %nrv = amp.batch_norm %x, %w, %b, %rm, %rv
      : (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: %[[LOSS:.*]] = amp.mse_loss %[[Y]], %[[T]] : tensor<8x4xf16>
  %loss = amp.mse_loss %y, %target : tensor<8x4xf16>
  %seed = amp.seed %loss
  %dy = amp.mse_loss_grad %seed, %y, %target : tensor<8x4xf16>
  %dx, %dw, %db = amp.batch_norm_grad %dy, %x, %sm, %sr, %w
      : (tensor<8x4xf16>, tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: %[[NW:.*]] = amp.sgd_update %[[W]], %{{.*}}, lr %[[LR]] : tensor<4xf32>, tensor<4xf32>
  %nw = amp.sgd_update %w, %dw, lr %lr : tensor<4xf32>, tensor<4xf32>
  // CHECK: %[[NB:.*]] = amp.sgd_update %[[B]], %{{.*}}, lr %[[LR]] : tensor<4xf32>, tensor<4xf32>
  %nb = amp.sgd_update %b, %db, lr %lr : tensor<4xf32>, tensor<4xf32>
  // CHECK: return %[[LOSS]], %[[NRM]], %[[NRV]], %[[NW]], %[[NB]] :
  return %loss, %nrm, %nrv, %nw, %nb
      : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A declaration carries the contract as well.
// CHECK-LABEL: func.func private @external_step(
// CHECK-SAME: tensor<4xf32> {amp.role = #amp.role<parameter>},
// CHECK-SAME: tensor<4xf32> {amp.role = #amp.role<input>})
// CHECK-SAME: -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<parameter>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<training_step>}
func.func private @external_step(
    tensor<4xf32> {amp.role = #amp.role<parameter>},
    tensor<4xf32> {amp.role = #amp.role<input>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>}
