// RUN: amp-opt %s -split-input-file --amp-data-parallel="bucket-cap-mb=0.0001" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-data-parallel | FileCheck %s --check-prefix=ONE
// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir --amp-autodiff="loss=cross_entropy optimizer=adamw max-grad-norm=1.0" --amp-pipeline="opt-level=O1 precision=fp16" --amp-data-parallel | FileCheck %s --check-prefix=MLP
// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir --amp-autodiff="loss=cross_entropy optimizer=sgd" --amp-accumulate-gradients="micro-batches=4" --amp-data-parallel="reduction=sum" | FileCheck %s --check-prefix=ACC

// Buckets in backward order. The cap of 0.0001 MiB (104 bytes) holds the
// 16-byte bias gradient and the 32-byte one together but not the 128-byte
// weight gradient: two all-reduces. Each starts right after its last
// gradient, before the rest of the backward pass, and is waited for right
// before the first update that reads it. With the default 25 MiB cap
// (ONE) all three share one bucket, started after the last gradient.

func.func @sgd(
    %w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
    %c: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "c"},
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<16xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
        tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "c"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %cb = amp.broadcast %c : tensor<8xf32> -> tensor<16x8xf32>
  %xc = amp.add %x, %cb : tensor<16x8xf32>
  %logits = amp.linear %xc, %w, %b
      : (tensor<16x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<16x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %seed = amp.seed %loss
  %dlogits = amp.cross_entropy_grad %seed, %logits, %y : tensor<16x4xf32>, tensor<16xi64>
  %db = amp.reduce_sum %dlogits {axes = array<i64: 0>} : tensor<16x4xf32> -> tensor<4xf32>
  %dxc = amp.matmul %dlogits, %w : tensor<16x4xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  %dc = amp.reduce_sum %dxc {axes = array<i64: 0>} : tensor<16x8xf32> -> tensor<8xf32>
  %dw = amp.matmul %dlogits, %xc {transpose_lhs}
      : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %w1 = amp.sgd_update %w, %dw, lr %lr : tensor<4x8xf32>, tensor<4x8xf32>
  %b1 = amp.sgd_update %b, %db, lr %lr : tensor<4xf32>, tensor<4xf32>
  %c1 = amp.sgd_update %c, %dc, lr %lr : tensor<8xf32>, tensor<8xf32>
  return %w1, %b1, %c1, %loss : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @sgd(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x8xf32>
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<4xf32>
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<8xf32>
// CHECK: %[[DB:.*]] = amp.reduce_sum %{{.*}} -> tensor<4xf32>
// CHECK-NEXT: %[[DXC:.*]] = amp.matmul
// CHECK-NEXT: %[[DC:.*]] = amp.reduce_sum %[[DXC]] {{.*}} -> tensor<8xf32>
// CHECK-NEXT: %[[H0:.*]] = amp.all_reduce_start <mean> %[[DB]], %[[DC]] : tensor<4xf32>, tensor<8xf32>
// CHECK-NEXT: %[[DW:.*]] = amp.matmul {{.*}}transpose_lhs
// CHECK-NEXT: %[[H1:.*]] = amp.all_reduce_start <mean> %[[DW]] : tensor<4x8xf32>
// CHECK-NEXT: %[[R1:.*]] = amp.all_reduce_wait %[[H1]] : tensor<4x8xf32>
// CHECK-NEXT: amp.sgd_update %[[W]], %[[R1]], lr
// CHECK-NEXT: %[[R0:.*]]:2 = amp.all_reduce_wait %[[H0]] : tensor<4xf32>, tensor<8xf32>
// CHECK-NEXT: amp.sgd_update %[[B]], %[[R0]]#0, lr
// CHECK-NEXT: amp.sgd_update %[[C]], %[[R0]]#1, lr
// CHECK-NOT: amp.all_reduce_any

// ONE-LABEL: func.func @sgd(
// ONE: %[[DB:.*]] = amp.reduce_sum %{{.*}} -> tensor<4xf32>
// ONE: %[[DC:.*]] = amp.reduce_sum %{{.*}} -> tensor<8xf32>
// ONE-NEXT: %[[DW:.*]] = amp.matmul {{.*}}transpose_lhs
// ONE-NEXT: %[[H:.*]] = amp.all_reduce_start <mean> %[[DB]], %[[DC]], %[[DW]] : tensor<4xf32>, tensor<8xf32>, tensor<4x8xf32>
// ONE-NEXT: %[[R:.*]]:3 = amp.all_reduce_wait %[[H]]
// ONE-NEXT: amp.sgd_update %{{.*}}, %[[R]]#2, lr
// ONE-NEXT: amp.sgd_update %{{.*}}, %[[R]]#0, lr
// ONE-NEXT: amp.sgd_update %{{.*}}, %[[R]]#1, lr
// ONE-NOT: amp.all_reduce_start
// ONE-LABEL: func.func @scaled(

// -----

// A loss-scaled step: the scaled gradients are reduced (before
// amp.unscale_grads, which then checks the reduced ones), and found_inf is
// or-ed over the ranks before the scale update, the updates and `skipped`
// read it.

func.func @scaled(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %s: tensor<f32> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale"},
    %g: tensor<i64> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale.growth_tracker"},
    %h: tensor<i64> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale.hysteresis_tracker"},
    %x: tensor<4xf16> {amp.role = #amp.role<input>, amp.name = "x"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale"},
        tensor<i64> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale.growth_tracker"},
        tensor<i64> {amp.role = #amp.role<scaler_state>, amp.name = "loss_scale.hysteresis_tracker"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<i1> {amp.role = #amp.role<skipped>, amp.name = "skipped"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %w16 = amp.cast %w : tensor<4xf32> to tensor<4xf16>
  %y = amp.mul %w16, %x : tensor<4xf16>
  %y32 = amp.cast %y : tensor<4xf16> to tensor<4xf32>
  %loss = amp.reduce_sum %y32 {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %seed = amp.seed %loss
  %scaled = amp.scale_seed %seed, %s
  %ds = amp.broadcast %scaled : tensor<f32> -> tensor<4xf32>
  %ds16 = amp.cast %ds : tensor<4xf32> to tensor<4xf16>
  %dw = amp.mul %ds16, %x : tensor<4xf16>
  %u, %found = amp.unscale_grads %s, %dw : tensor<4xf16> -> tensor<4xf32>
  %s1, %g1, %h1 = amp.update_scale %s, %g, %h, %found
  %w1 = amp.sgd_update %w, %u, lr %lr, found_inf %found : tensor<4xf32>, tensor<4xf32>
  return %w1, %s1, %g1, %h1, %loss, %found : tensor<4xf32>, tensor<f32>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<i1>
}

// CHECK-LABEL: func.func @scaled(
// CHECK: amp.scale_seed
// CHECK: %[[DW:.*]] = amp.mul %{{.*}}, %{{.*}} : tensor<4xf16>
// CHECK-NEXT: %[[H:.*]] = amp.all_reduce_start <mean> %[[DW]] : tensor<4xf16>
// CHECK-NEXT: %[[R:.*]] = amp.all_reduce_wait %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[U:.*]], %[[FOUND:.*]] = amp.unscale_grads %{{.*}}, %[[R]] : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT: %[[ANY:.*]] = amp.all_reduce_any %[[FOUND]]{{$}}
// CHECK-NEXT: amp.update_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ANY]]
// CHECK-NEXT: amp.sgd_update %{{.*}}, %[[U]], lr %{{.*}}, found_inf %[[ANY]]
// CHECK-NEXT: return {{.*}}, %[[ANY]] :

// The bundled MLP in fp16 with dynamic scaling, clipping and AdamW: the six
// gradients fit one 25 MiB bucket, the clip reads the unscaled reduced
// gradients (its norm is global), every update skips on the global flag.
// MLP-LABEL: func.func @mlp_train_step(
// MLP: %[[H:.*]] = amp.all_reduce_start <mean> {{.*}} : tensor<10x128xf32>, tensor<10xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64xf32>, tensor<64xf32>
// MLP-NEXT: %[[R:.*]]:6 = amp.all_reduce_wait %[[H]]
// MLP-NEXT: %[[U:.*]]:6, %[[FOUND:.*]] = amp.unscale_grads %{{.*}}, %[[R]]#4, %[[R]]#5, %[[R]]#2, %[[R]]#3, %[[R]]#0, %[[R]]#1 :
// MLP-NEXT: %[[ANY:.*]] = amp.all_reduce_any %[[FOUND]]{{$}}
// MLP-NEXT: amp.update_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ANY]]
// MLP-NEXT: amp.clip_grad_norm %[[U]]#0,
// MLP-COUNT-6: amp.adamw_update {{.*}} found_inf %[[ANY]]
// MLP-NOT: amp.all_reduce

// With gradient accumulation the accumulated sums are reduced, once per
// update: the collectives communicate only on the micro-batch that
// completes one (`active`), as DDP's no_sync. The sums are moved up to
// where their gradients are produced, so the bucket starts during the
// backward pass.
// ACC-LABEL: func.func @mlp_train_step(
// ACC: amp.compare ge,
// ACC: %[[LAST:.*]] = amp.compare ge,
// ACC: amp.seed
// ACC: %[[SUM:.*]] = amp.add %{{.*}}, %{{.*}} : tensor<64xf32>
// ACC: %[[H:.*]] = amp.all_reduce_start <sum> {{.*}} active %[[LAST]] :
// ACC: %[[R:.*]]:6 = amp.all_reduce_wait %[[H]]
// ACC: amp.sgd_update {{.*}}%[[R]]#
// ACC-NOT: amp.all_reduce_any
