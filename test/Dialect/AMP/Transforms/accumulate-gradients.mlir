// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir --amp-autodiff="loss=cross_entropy optimizer=adamw max-grad-norm=1.0" --amp-pipeline="opt-level=O1 precision=fp16" --amp-accumulate-gradients="micro-batches=4" | FileCheck %s --check-prefix=MLP
// RUN: amp-opt %s -split-input-file --amp-accumulate-gradients | FileCheck %s

// Gradient accumulation on the bundled MLP (fp16, O1, dynamic loss
// scaling, clipping, AdamW): the seed is divided by the micro-batch count,
// the scaled fp16/f32 gradients are summed in f32 before amp.unscale_grads
// (so the overflow check and the clip see the sums), the updates skip on
// found_inf or on a micro-batch that does not complete an update, and
// AdamW's step counter and the scaler state are held on those.

// MLP-LABEL: func.func @mlp_train_step(
// MLP-SAME: %[[STEP:[a-z0-9]+]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: %[[MICRO:[a-z0-9]+]]: tensor<f32> {amp.name = "grad_accum.micro_step", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: %[[ACC0:[a-z0-9]+]]: tensor<64xf32> {amp.name = "ln.weight.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: tensor<64xf32> {amp.name = "ln.bias.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: %[[ACC2:[a-z0-9]+]]: tensor<128x64xf32> {amp.name = "fc1.weight.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: tensor<128xf32> {amp.name = "fc1.bias.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: tensor<10x128xf32> {amp.name = "fc2.weight.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: tensor<10xf32> {amp.name = "fc2.bias.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>}
// MLP-SAME: %[[GROWTH:[a-z0-9]+]]: tensor<i64> {amp.name = "loss_scale.growth_tracker", amp.role = #amp.role<scaler_state>}
// MLP-SAME: %[[LR:[a-z0-9]+]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>}
// MLP-SAME: %[[N:[a-z0-9]+]]: tensor<f32> {amp.name = "accumulate", amp.role = #amp.role<hyperparameter>})
// MLP-SAME: tensor<f32> {amp.name = "grad_accum.micro_step", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: tensor<128x64xf32> {amp.name = "fc1.weight.grad_accum", amp.role = #amp.role<optimizer_state>}
// MLP-SAME: tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>}
// The count: `accumulate`, or the compiled 4 when it is below 1 (unset).
// MLP: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f32>
// MLP: %[[GIVEN:.*]] = amp.compare ge, %[[N]], %[[ONE]]
// MLP: %[[FOUR:.*]] = amp.constant dense<4.000000e+00> : tensor<f32>
// MLP: %[[COUNT:.*]] = amp.where %[[GIVEN]], %[[N]], %[[FOUR]]
// MLP: %[[INV:.*]] = amp.div %{{.*}}, %[[COUNT]]
// MLP: %[[NEXT:.*]] = amp.add %[[MICRO]], %[[ONE]]
// MLP: %[[LAST:.*]] = amp.compare ge, %[[NEXT]], %[[COUNT]]
// MLP: %[[NOTLAST:.*]] = amp.where %[[LAST]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<i1>
// MLP: %[[SEED:.*]] = amp.seed
// MLP-NEXT: %[[MEAN:.*]] = amp.mul %[[SEED]], %[[INV]]
// MLP-NEXT: amp.scale_seed %[[MEAN]],
// The weight gradient (an f32 product of fp16 operands) is summed in f32.
// MLP: %[[DW1:.*]] = amp.matmul {{.*}}transpose_lhs} : tensor<32x128xf16>, tensor<32x64xf16> -> tensor<128x64xf32>
// MLP: %[[SUM2:.*]] = amp.add %[[ACC2]], %[[DW1]] : tensor<128x64xf32>
// MLP-NEXT: %[[ZEROS:.*]] = amp.constant dense<0.000000e+00> : tensor<128x64xf32>
// MLP-NEXT: %[[LASTMASK:.*]] = amp.broadcast %[[LAST]] : tensor<i1> -> tensor<128x64xi1>
// MLP-NEXT: %[[NEXTACC2:.*]] = amp.where %[[LASTMASK]], %[[ZEROS]], %[[SUM2]]
// MLP: %[[UN:.*]]:6, %[[FOUND:.*]] = amp.unscale_grads %{{.*}}, %{{.*}}, %{{.*}}, %[[SUM2]], {{.*}} : tensor<64xf32>, tensor<64xf32>, tensor<128x64xf32>, {{.*}} -> tensor<64xf32>, tensor<64xf32>, tensor<128x64xf32>
// MLP-NEXT: %[[NEWSCALE:.*]], %[[NEWGROWTH:.*]], %{{.*}} = amp.update_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[FOUND]]
// MLP-NEXT: %[[CLIPPED:.*]]:6, %{{.*}} = amp.clip_grad_norm %[[UN]]#0,
// MLP: %[[T:.*]] = tensor.from_elements
// MLP-NEXT: %[[SKIP:.*]] = amp.where %[[FOUND]], %[[FOUND]], %[[NOTLAST]] : tensor<i1>, tensor<i1>
// MLP-NEXT: amp.adamw_update %{{.*}}, %[[CLIPPED]]#0, {{.*}} step %[[T]], lr %[[LR]], found_inf %[[SKIP]]
// MLP-COUNT-5: amp.adamw_update {{.*}} found_inf %[[SKIP]]
// MLP: %[[COUNTED:.*]] = amp.where %[[FOUND]], %[[STEP]], %[[T]]
// MLP-NEXT: %[[HELDSTEP:.*]] = amp.where %[[NOTLAST]], %[[STEP]], %[[COUNTED]] : tensor<i1>, tensor<i64>
// MLP-NEXT: %[[HELDSCALE:.*]] = amp.where %[[NOTLAST]], %[[SCALE]], %[[NEWSCALE]] : tensor<i1>, tensor<f32>
// MLP-NEXT: %[[HELDGROWTH:.*]] = amp.where %[[NOTLAST]], %[[GROWTH]], %[[NEWGROWTH]] : tensor<i1>, tensor<i64>
// MLP-NEXT: %[[HELDHYST:.*]] = amp.where %[[NOTLAST]],
// MLP-NEXT: %[[ZERO:.*]] = amp.constant dense<0.000000e+00> : tensor<f32>
// MLP-NEXT: %[[NEXTMICRO:.*]] = amp.where %[[LAST]], %[[ZERO]], %[[NEXT]] : tensor<i1>, tensor<f32>
// MLP-NEXT: %[[SKIPPED:.*]] = amp.where %[[LAST]], %[[FOUND]], %[[LAST]] : tensor<i1>, tensor<i1>
// MLP-NEXT: return {{.*}}, %[[HELDSTEP]], %[[NEXTMICRO]], {{.*}}, %[[NEXTACC2]], {{.*}}, %[[HELDSCALE]], %[[HELDGROWTH]], %[[HELDHYST]], %{{.*}}, %[[SKIPPED]], %{{.*}} :

// -----

// Without loss scaling, the gradients enter at the clip: a bf16 gradient is
// summed in f32 and rounded back for the clip, which takes its own type;
// the (unclipped) f32 bias gradient of an SGD update is summed as it is.
// The clip's global norm is the norm of the summed gradients.

func.func @clip_bf16(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xbf16>
  %x16 = amp.cast %x : tensor<16x8xf32> to tensor<16x8xbf16>
  %logits = amp.linear %x16, %w16, %b
      : (tensor<16x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>) -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %dl16 = amp.cast %dlogits : tensor<16x4xf32> to tensor<16x4xbf16>
  %dw = amp.matmul %dl16, %x16 {transpose_lhs}
      : tensor<16x4xbf16>, tensor<16x8xbf16> -> tensor<4x8xbf16>
  %db = amp.reduce_sum %dlogits {axes = array<i64: 0>} : tensor<16x4xf32> -> tensor<4xf32>
  %clipped, %norm = amp.clip_grad_norm %dw {max_norm = 1.0 : f64} : tensor<4x8xbf16>
  %w1 = amp.sgd_update %w, %clipped, lr %lr : tensor<4x8xf32>, tensor<4x8xbf16>
  %b1 = amp.sgd_update %b, %db, lr %lr : tensor<4xf32>, tensor<4xf32>
  return %w1, %b1, %loss : tensor<4x8xf32>, tensor<4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @clip_bf16(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x8xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<4xf32> {amp.name = "b", amp.role = #amp.role<parameter>},
// CHECK-SAME: %[[MICRO:[a-z0-9]+]]: tensor<f32> {amp.name = "grad_accum.micro_step", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[WACC:[a-z0-9]+]]: tensor<4x8xf32> {amp.name = "w.grad_accum", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[BACC:[a-z0-9]+]]: tensor<4xf32> {amp.name = "b.grad_accum", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: %[[LR:[a-z0-9]+]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>},
// CHECK-SAME: %[[N:[a-z0-9]+]]: tensor<f32> {amp.name = "accumulate", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME: -> (tensor<4x8xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME: tensor<4xf32> {amp.name = "b", amp.role = #amp.role<parameter>},
// CHECK-SAME: tensor<f32> {amp.name = "grad_accum.micro_step", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: tensor<4x8xf32> {amp.name = "w.grad_accum", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: tensor<4xf32> {amp.name = "b.grad_accum", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME: tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// The default count is 2.
// CHECK: amp.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[LAST:.*]] = amp.compare ge,
// CHECK: %[[NOTLAST:.*]] = amp.where %[[LAST]],
// CHECK: %[[DW:.*]] = amp.matmul
// CHECK: %[[DB:.*]] = amp.reduce_sum
// CHECK: %[[DWF:.*]] = amp.cast %[[DW]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[WSUM:.*]] = amp.add %[[WACC]], %[[DWF]] : tensor<4x8xf32>
// CHECK-NEXT: %[[WSUM16:.*]] = amp.cast %[[WSUM]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: %[[CLIPPED:.*]], %{{.*}} = amp.clip_grad_norm %[[WSUM16]] {max_norm = 1.000000e+00 : f64} : tensor<4x8xbf16>
// CHECK-NEXT: amp.sgd_update %[[W]], %[[CLIPPED]], lr %[[LR]], found_inf %[[NOTLAST]] : tensor<4x8xf32>, tensor<4x8xbf16>
// CHECK-NEXT: %[[BSUM:.*]] = amp.add %[[BACC]], %[[DB]] : tensor<4xf32>
// CHECK: amp.sgd_update %[[B]], %[[BSUM]], lr %[[LR]], found_inf %[[NOTLAST]] : tensor<4xf32>, tensor<4xf32>
// CHECK: return

// -----

// Batch-norm running statistics (buffers) change every micro-batch, as in
// PyTorch; a hand-written parameter result that is no update's is held.

func.func @buffers(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %c: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "c"},
    %mean: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "running_mean"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "c"},
        tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "running_mean"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %y = amp.mul %w, %x : tensor<4xf32>
  %loss = amp.reduce_sum %y {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %seed = amp.seed %loss
  %g0 = amp.broadcast %seed : tensor<f32> -> tensor<4xf32>
  %g = amp.mul %g0, %x : tensor<4xf32>
  %w1 = amp.sgd_update %w, %g, lr %lr : tensor<4xf32>, tensor<4xf32>
  %c1 = amp.add %c, %x : tensor<4xf32>
  %mean1 = amp.add %mean, %x : tensor<4xf32>
  return %w1, %c1, %mean1, %loss : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @buffers(
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<4xf32> {amp.name = "c", amp.role = #amp.role<parameter>},
// CHECK: %[[NOTLAST:.*]] = amp.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<i1>
// CHECK: %[[W1:.*]] = amp.sgd_update {{.*}} found_inf %[[NOTLAST]]
// CHECK: %[[C1:.*]] = amp.add %[[C]], %{{.*}}
// CHECK: %[[MEAN1:.*]] = amp.add
// CHECK: %[[MASK:.*]] = amp.broadcast %[[NOTLAST]] : tensor<i1> -> tensor<4xi1>
// CHECK-NEXT: %[[HELD:.*]] = amp.where %[[MASK]], %[[C]], %[[C1]] : tensor<4xi1>, tensor<4xf32>
// CHECK: return %[[W1]], %[[HELD]], %[[MEAN1]],
