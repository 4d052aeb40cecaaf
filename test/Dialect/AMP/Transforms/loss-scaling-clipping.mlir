// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir --amp-autodiff="loss=cross_entropy optimizer=adamw max-grad-norm=1.0" --amp-pipeline="opt-level=O1 precision=fp16" | FileCheck %s --check-prefix=MLP
// RUN: amp-opt %s --amp-loss-scaling | FileCheck %s

// Clipping and AdamW on the bundled MLP (fp16, O1, where --amp-pipeline
// scales dynamically): the order of DESIGN.md section 6, i.e. unscale +
// found_inf, update the scale, clip the *unscaled* gradients by their
// global norm (the returned grad_norm is the true norm), then the updates,
// which skip on found_inf. AdamW's step counter, which is not an update's
// result, is selected back on a skipped step so it counts taken steps only.

// MLP-LABEL: func.func @mlp_train_step(
// MLP-SAME: %[[STEP:[a-z0-9]+]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>}
// MLP-SAME: tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>}, tensor<f32> {amp.name = "grad_norm", amp.role = #amp.role<output>})
// MLP: %[[S:.*]] = amp.where %{{.*}}, %[[SCALE]],
// MLP: amp.scale_seed %{{.*}}, %[[S]]
// MLP: %[[UN:.*]]:6, %[[FOUND:.*]] = amp.unscale_grads %[[S]],
// MLP-NEXT: amp.update_scale %[[S]], %{{.*}}, %{{.*}}, %[[FOUND]]
// MLP-NEXT: %[[CLIPPED:.*]]:6, %[[NORM:.*]] = amp.clip_grad_norm %[[UN]]#0, %[[UN]]#1, %[[UN]]#2, %[[UN]]#3, %[[UN]]#4, %[[UN]]#5 {max_norm = 1.000000e+00 : f64}
// MLP: %[[NEXT:.*]] = tensor.from_elements
// MLP: amp.adamw_update %{{.*}}, %[[CLIPPED]]#0, %{{.*}}, %{{.*}}, step %[[NEXT]], lr %{{.*}}, found_inf %[[FOUND]]
// MLP-COUNT-5: amp.adamw_update {{.*}} found_inf %[[FOUND]]
// MLP: %[[COUNTER:.*]] = amp.where %[[FOUND]], %[[STEP]], %[[NEXT]] : tensor<i1>, tensor<i64>
// MLP: return {{.*}}, %[[COUNTER]], {{.*}}, %[[FOUND]], %[[NORM]] :

// Clipping fp16 gradients of f32 weights: they are unscaled into f32, so
// the clip is rebuilt on f32 gradients; a user that needs the clipped
// gradient in fp16 (here a hand-written statistic) gets a cast back.

func.func @clip_fp16(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<f32> {amp.role = #amp.role<output>, amp.name = "grad_norm"},
        tensor<4x8xf16> {amp.role = #amp.role<output>, amp.name = "clipped"})
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
  %clipped, %norm = amp.clip_grad_norm %dw {max_norm = 1.0 : f64} : tensor<4x8xf16>
  %w1 = amp.sgd_update %w, %clipped, lr %lr : tensor<4x8xf32>, tensor<4x8xf16>
  return %w1, %loss, %norm, %clipped : tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<4x8xf16>
}

// CHECK-LABEL: func.func @clip_fp16(
// CHECK: %[[DW:.*]] = amp.matmul
// CHECK: %[[UN:.*]], %[[FOUND:.*]] = amp.unscale_grads %{{.*}}, %[[DW]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK: %[[CLIPPED:.*]], %[[NORM:.*]] = amp.clip_grad_norm %[[UN]] {max_norm = 1.000000e+00 : f64} : tensor<4x8xf32>
// CHECK: %[[BACK:.*]] = amp.cast %[[CLIPPED]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[W1:.*]] = amp.sgd_update %{{.*}}, %[[CLIPPED]], lr %{{.*}}, found_inf %[[FOUND]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: return %[[W1]], {{.*}}, %[[FOUND]], %[[NORM]], %[[BACK]] :
