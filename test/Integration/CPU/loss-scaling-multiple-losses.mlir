// A training step with two losses (an auxiliary loss on the hidden layer
// and the main loss), one scaler each, executed step by step on the CPU
// backend (Inputs/loss_scaling_multiple_losses.py): each scale follows the
// reference rule driven by its own loss's overflows (an inf target makes
// that loss's gradients NaN), the step is skipped when either overflows
// and then changes no parameter, and on clean steps the scaled step equals
// the unscaled one bit for bit.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/loss_scaling_multiple_losses.py %s --opt amp-opt \
// RUN:   --compile amp-compile --work %t | FileCheck %s

// CHECK: PASS step 2: main loss overflowed: skipped, loss1.loss_scale 65536 -> 32768, loss_scale {{.*}}
// CHECK: PASS step 4: auxiliary loss overflowed: skipped, loss_scale {{.*}} -> {{.*}}, loss1.loss_scale {{.*}}
// CHECK: PASS step 6: both overflowed: skipped, both scales backed off
// CHECK: PASS 12 steps: both scalers follow the reference, 3 skipped, clean steps bit-identical to the unscaled step
// CHECK: ALL PASS

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
