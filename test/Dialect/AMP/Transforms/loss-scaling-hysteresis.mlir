// RUN: amp-opt %s --amp-loss-scaling="hysteresis=2 growth-interval=1000 init-scale=1024 growth-factor=4 backoff-factor=0.25 min-scale=128 max-scale=65536" | FileCheck %s
// RUN: amp-opt %s --amp-loss-scaling="hysteresis=2 min-scale=128 init-scale=1024 error-at-min=true" | FileCheck %s --check-prefix=ERROR

// Megatron's hysteresis (back off after 2 overflows), Colossal-AI-style
// settings: every option lands on amp.update_scale, and a fresh scaler's
// hysteresis tracker starts at 2.

func.func @step(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
  %x16 = amp.cast %x : tensor<16x8xf32> to tensor<16x8xf16>
  %logits = amp.linear %x16, %w16
      : (tensor<16x8xf16>, tensor<4x8xf16>) -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %dl16 = amp.cast %dlogits : tensor<16x4xf32> to tensor<16x4xf16>
  %dw = amp.matmul %dl16, %x16 {transpose_lhs}
      : tensor<16x4xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
  %w1 = amp.sgd_update %w, %dw, lr %lr : tensor<4x8xf32>, tensor<4x8xf16>
  return %w1, %loss : tensor<4x8xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[GROWTH:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[HYST:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-NOT: stuck_at_min
// CHECK: %[[VALID:.*]] = amp.compare gt, %[[SCALE]],
// CHECK: %[[INIT:.*]] = amp.constant dense<1.024000e+03> : tensor<f32>
// CHECK: %[[S:.*]] = amp.where %[[VALID]], %[[SCALE]], %[[INIT]]
// CHECK: %[[G:.*]] = amp.where %[[VALID]], %[[GROWTH]],
// CHECK: %[[H2:.*]] = amp.constant dense<2> : tensor<i64>
// CHECK: %[[H:.*]] = amp.where %[[VALID]], %[[HYST]], %[[H2]] : tensor<i1>, tensor<i64>
// CHECK: %{{.*}}, %[[FOUND:.*]] = amp.unscale_grads %[[S]],
// CHECK: amp.update_scale %[[S]], %[[G]], %[[H]], %[[FOUND]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 1000 : i64, hysteresis = 2 : i64, max_scale = 6.553600e+04 : f64, min_scale = 1.280000e+02 : f64}

// error-at-min: a sticky 0-d i1 scaler state, set when an overflow backs
// off (the hysteresis is used up: tracker <= 1 before this overflow) a scale
// already at min-scale. The runtime reads it after a step and reports an
// error.
// ERROR-LABEL: func.func @step(
// ERROR-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>},
// ERROR-SAME: tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>},
// ERROR-SAME: tensor<i64> {amp.name = "loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// ERROR-SAME: %[[STUCK:[a-z0-9]+]]: tensor<i1> {amp.name = "loss_scale.stuck_at_min", amp.role = #amp.role<scaler_state>},
// ERROR-SAME: -> (
// ERROR-SAME: tensor<i1> {amp.name = "loss_scale.stuck_at_min", amp.role = #amp.role<scaler_state>},
// ERROR-SAME: tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}, tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>})
// ERROR: %[[S:.*]] = amp.where %{{.*}}, %[[SCALE]],
// ERROR: %[[G:.*]] = amp.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<i64>
// ERROR: %[[H:.*]] = amp.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<i64>
// ERROR: %{{.*}}, %[[FOUND:.*]] = amp.unscale_grads %[[S]],
// ERROR: %[[NS:.*]], %[[NG:.*]], %[[NH:.*]] = amp.update_scale %[[S]], %[[G]], %[[H]], %[[FOUND]] {hysteresis = 2 : i64, min_scale = 1.280000e+02 : f64}
// ERROR: %[[ONE:.*]] = amp.constant dense<1> : tensor<i64>
// ERROR: %[[USED_UP:.*]] = amp.compare le, %[[H]], %[[ONE]] : tensor<i64> -> tensor<i1>
// ERROR: %[[MIN:.*]] = amp.constant dense<1.280000e+02> : tensor<f32>
// ERROR: %[[AT_MIN:.*]] = amp.compare le, %[[S]], %[[MIN]] : tensor<f32> -> tensor<i1>
// ERROR: %[[BACKS_OFF:.*]] = amp.where %[[FOUND]], %[[USED_UP]], %[[FOUND]] : tensor<i1>, tensor<i1>
// ERROR: %[[NOW:.*]] = amp.where %[[BACKS_OFF]], %[[AT_MIN]], %[[BACKS_OFF]] : tensor<i1>, tensor<i1>
// ERROR: %[[NEW_STUCK:.*]] = amp.where %[[STUCK]], %[[STUCK]], %[[NOW]] : tensor<i1>, tensor<i1>
// ERROR: return %{{.*}}, %[[NS]], %[[NG]], %[[NH]], %[[NEW_STUCK]], %{{.*}}, %[[FOUND]]
