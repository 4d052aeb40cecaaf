// RUN: amp-opt %s --amp-loss-scaling | FileCheck %s
// RUN: amp-opt %s --amp-loss-scaling="mode=static init-scale=512" | FileCheck %s --check-prefix=STATIC

// A step with two losses, each with its own backward (one amp.seed each):
// an auxiliary loss on the hidden layer and the main loss on the output,
// as Apex's `num_losses` and accelerate users have. Each loss gets its own
// scaler (the second one named `loss1.loss_scale`); the gradients of each
// loss are unscaled by their own scale before the two gradients of the
// shared weight are added; each scale is updated from its own overflow
// flag, and the step skips when either loss overflowed.

func.func @two_losses(
    %w1: tensor<16x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w1"},
    %w2: tensor<4x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w2"},
    %x: tensor<32x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %aux: tensor<32x16xf32> {amp.role = #amp.role<label>, amp.name = "aux_target"},
    %t: tensor<32x4xf32> {amp.role = #amp.role<label>, amp.name = "target"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<16x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w1"},
        tensor<4x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w2"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %h = amp.linear %x, %w1 : (tensor<32x8xf32>, tensor<16x8xf32>) -> tensor<32x16xf32>
  %z = amp.linear %h, %w2 : (tensor<32x16xf32>, tensor<4x16xf32>) -> tensor<32x4xf32>
  %aux_loss = amp.mse_loss %h, %aux : tensor<32x16xf32>
  %main_loss = amp.mse_loss %z, %t : tensor<32x4xf32>
  %loss = amp.add %aux_loss, %main_loss : tensor<f32>
  // Backward of the auxiliary loss.
  %seed_aux = amp.seed %aux_loss
  %dh_aux = amp.mse_loss_grad %seed_aux, %h, %aux : tensor<32x16xf32>
  %dw1_aux = amp.matmul %dh_aux, %x {transpose_lhs} : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  // Backward of the main loss.
  %seed_main = amp.seed %main_loss
  %dz = amp.mse_loss_grad %seed_main, %z, %t : tensor<32x4xf32>
  %dw2 = amp.matmul %dz, %h {transpose_lhs} : tensor<32x4xf32>, tensor<32x16xf32> -> tensor<4x16xf32>
  %dh = amp.matmul %dz, %w2 : tensor<32x4xf32>, tensor<4x16xf32> -> tensor<32x16xf32>
  %dw1_main = amp.matmul %dh, %x {transpose_lhs} : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  // The shared weight's gradient is the sum of both.
  %dw1 = amp.add %dw1_aux, %dw1_main : tensor<16x8xf32>
  %w1_new = amp.sgd_update %w1, %dw1, lr %lr : tensor<16x8xf32>, tensor<16x8xf32>
  %w2_new = amp.sgd_update %w2, %dw2, lr %lr : tensor<4x16xf32>, tensor<4x16xf32>
  return %w1_new, %w2_new, %loss : tensor<16x8xf32>, tensor<4x16xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @two_losses(
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<16x8xf32> {amp.name = "w1"
// CHECK-SAME: %[[W2:[a-z0-9]+]]: tensor<4x16xf32> {amp.name = "w2"
// CHECK-SAME: %[[SCALE0:[a-z0-9]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[GROWTH0:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[HYST0:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[SCALE1:[a-z0-9]+]]: tensor<f32> {amp.name = "loss1.loss_scale", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[GROWTH1:[a-z0-9]+]]: tensor<i64> {amp.name = "loss1.loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: %[[HYST1:[a-z0-9]+]]: tensor<i64> {amp.name = "loss1.loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: -> (tensor<16x8xf32> {amp.name = "w1", amp.role = #amp.role<parameter>}, tensor<4x16xf32> {amp.name = "w2", amp.role = #amp.role<parameter>},
// CHECK-SAME: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>}, tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>}, tensor<i64> {amp.name = "loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: tensor<f32> {amp.name = "loss1.loss_scale", amp.role = #amp.role<scaler_state>}, tensor<i64> {amp.name = "loss1.loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>}, tensor<i64> {amp.name = "loss1.loss_scale.hysteresis_tracker", amp.role = #amp.role<scaler_state>},
// CHECK-SAME: tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}, tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>})
// CHECK: %[[S0:.*]] = amp.where %{{.*}}, %[[SCALE0]], %{{.*}} : tensor<i1>, tensor<f32>
// CHECK: %[[G0:.*]] = amp.where %{{.*}}, %[[GROWTH0]],
// CHECK: %[[H0:.*]] = amp.where %{{.*}}, %[[HYST0]],
// CHECK: %[[S1:.*]] = amp.where %{{.*}}, %[[SCALE1]], %{{.*}} : tensor<i1>, tensor<f32>
// CHECK: %[[G1:.*]] = amp.where %{{.*}}, %[[GROWTH1]],
// CHECK: %[[H1:.*]] = amp.where %{{.*}}, %[[HYST1]],
// Each backward starts from its own scale.
// CHECK: %[[SEED_AUX:.*]] = amp.seed
// CHECK: %[[SCALED_AUX:.*]] = amp.scale_seed %[[SEED_AUX]], %[[S0]]
// CHECK: %[[DH_AUX:.*]] = amp.mse_loss_grad %[[SCALED_AUX]],
// CHECK: %[[DW1_AUX:.*]] = amp.matmul %[[DH_AUX]]
// The auxiliary loss's only gradient is unscaled by its scale.
// CHECK: %[[AUX_UN:.*]], %[[FOUND0:.*]] = amp.unscale_grads %[[S0]], %[[DW1_AUX]] : tensor<16x8xf32> -> tensor<16x8xf32>
// CHECK: %[[NS0:.*]], %[[NG0:.*]], %[[NH0:.*]] = amp.update_scale %[[S0]], %[[G0]], %[[H0]], %[[FOUND0]]
// CHECK: %[[SEED_MAIN:.*]] = amp.seed
// CHECK: %[[SCALED_MAIN:.*]] = amp.scale_seed %[[SEED_MAIN]], %[[S1]]
// CHECK: %[[DZ:.*]] = amp.mse_loss_grad %[[SCALED_MAIN]],
// CHECK: %[[DW2:.*]] = amp.matmul %[[DZ]]
// CHECK: %[[DH:.*]] = amp.matmul %[[DZ]], %[[W2]]
// CHECK: %[[DW1_MAIN:.*]] = amp.matmul %[[DH]]
// The main loss's gradients (w2's, and its part of w1's) by the other scale.
// CHECK: %[[MAIN_UN:.*]]:2, %[[FOUND1:.*]] = amp.unscale_grads %[[S1]], %[[DW1_MAIN]], %[[DW2]] : tensor<16x8xf32>, tensor<4x16xf32> -> tensor<16x8xf32>, tensor<4x16xf32>
// CHECK: %[[NS1:.*]], %[[NG1:.*]], %[[NH1:.*]] = amp.update_scale %[[S1]], %[[G1]], %[[H1]], %[[FOUND1]]
// The step skips when either overflowed.
// CHECK: %[[FOUND:.*]] = amp.where %[[FOUND0]], %[[FOUND0]], %[[FOUND1]] : tensor<i1>, tensor<i1>
// The unscaled gradients are added.
// CHECK: %[[DW1:.*]] = amp.add %[[AUX_UN]], %[[MAIN_UN]]#0 : tensor<16x8xf32>
// CHECK: %[[W1_NEW:.*]] = amp.sgd_update %[[W1]], %[[DW1]], lr %{{.*}}, found_inf %[[FOUND]]
// CHECK: %[[W2_NEW:.*]] = amp.sgd_update %[[W2]], %[[MAIN_UN]]#1, lr %{{.*}}, found_inf %[[FOUND]]
// CHECK: return %[[W1_NEW]], %[[W2_NEW]], %[[NS0]], %[[NG0]], %[[NH0]], %[[NS1]], %[[NG1]], %[[NH1]], %{{.*}}, %[[FOUND]]

// Static: one constant scale per loss.
// STATIC-LABEL: func.func @two_losses(
// STATIC: %[[S0:.*]] = amp.constant dense<5.120000e+02> : tensor<f32>
// STATIC: %[[S1:.*]] = amp.constant dense<5.120000e+02> : tensor<f32>
// STATIC: amp.scale_seed %{{.*}}, %[[S0]]
// STATIC: amp.unscale_grads %[[S0]],
// STATIC: amp.scale_seed %{{.*}}, %[[S1]]
// STATIC: amp.unscale_grads %[[S1]],
