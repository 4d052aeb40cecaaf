// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-assign-precision --amp-insert-casts | FileCheck %s
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-assign-precision="precision=fp16" --amp-insert-casts | FileCheck %s --check-prefix=FP16
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-assign-precision --amp-insert-casts | grep -c "= amp.cast" | FileCheck %s --check-prefix=COUNT

// The bundled fp32 MLP training step in bf16 (the default): the linears and
// matmuls (forward and backward) run in bf16; the layer norm and its
// statistics, cross_entropy and its gradient, and the bias-gradient sums
// stay f32; the optimizer updates the f32 parameters. Four casts in all:
// two weights (each cast once, shared by forward and backward), the
// normalized activation, and the logits gradient. The f32 biases are added
// to the f32 accumulators as they are.

// CHECK-LABEL: func.func @mlp_train_step
// CHECK-SAME: %[[LN_W:[a-z0-9]+]]: tensor<64xf32> {amp.name = "ln.weight"
// CHECK-SAME: %[[LN_B:[a-z0-9]+]]: tensor<64xf32> {amp.name = "ln.bias"
// CHECK-SAME: %[[FC1_W:[a-z0-9]+]]: tensor<128x64xf32> {amp.name = "fc1.weight"
// CHECK-SAME: %[[FC1_B:[a-z0-9]+]]: tensor<128xf32> {amp.name = "fc1.bias"
// CHECK-SAME: %[[FC2_W:[a-z0-9]+]]: tensor<10x128xf32> {amp.name = "fc2.weight"
// CHECK-SAME: %[[FC2_B:[a-z0-9]+]]: tensor<10xf32> {amp.name = "fc2.bias"
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<32x64xf32> {amp.name = "x"
// CHECK-SAME: %[[LABELS:[a-z0-9]+]]: tensor<32xi64> {amp.name = "labels"
// The signature is unchanged: f32 parameters in and out.
// CHECK-SAME: -> (tensor<64xf32> {amp.name = "ln.weight"
// CHECK-SAME: tensor<128x64xf32> {amp.name = "fc1.weight"

// Forward.
// CHECK: %[[FC2_WL:.*]] = amp.cast %[[FC2_W]] : tensor<10x128xf32> to tensor<10x128xbf16>
// CHECK: %[[FC1_WL:.*]] = amp.cast %[[FC1_W]] : tensor<128x64xf32> to tensor<128x64xbf16>
// CHECK: %[[H0:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = amp.layer_norm %[[X]], %[[LN_W]], %[[LN_B]] {amp.precision = f32, amp.precision_rule = "deny"} : (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[H0L:.*]] = amp.cast %[[H0]] : tensor<32x64xf32> to tensor<32x64xbf16>
// CHECK: %[[H1:.*]] = amp.linear %[[H0L]], %[[FC1_WL]], %[[FC1_B]] {amp.precision = bf16, amp.precision_rule = "allow"} : (tensor<32x64xbf16>, tensor<128x64xbf16>, tensor<128xf32>) -> tensor<32x128xbf16>
// CHECK: %[[H2:.*]] = amp.gelu %[[H1]] {amp.precision = bf16, amp.precision_rule = "between-allow"} : tensor<32x128xbf16>
// The logits are only used in f32: the linear returns its f32 accumulator.
// CHECK: %[[LOGITS:.*]] = amp.linear %[[H2]], %[[FC2_WL]], %[[FC2_B]] {{.*}} : (tensor<32x128xbf16>, tensor<10x128xbf16>, tensor<10xf32>) -> tensor<32x10xf32>
// CHECK: %[[LOSS:.*]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]] {amp.precision = f32, amp.precision_rule = "deny"} : tensor<32x10xf32>, tensor<32xi64>

// Backward.
// CHECK: %[[DLOGITS:.*]] = amp.cross_entropy_grad %{{.*}}, %[[LOGITS]], %[[LABELS]] {amp.precision = f32, amp.precision_rule = "deny"} : tensor<32x10xf32>, tensor<32xi64>
// CHECK: %[[DLOGITSL:.*]] = amp.cast %[[DLOGITS]] : tensor<32x10xf32> to tensor<32x10xbf16>
// CHECK: %[[DFC2_W:.*]] = amp.matmul %[[DLOGITSL]], %[[H2]] {{.*}}"allow"{{.*}} : tensor<32x10xbf16>, tensor<32x128xbf16> -> tensor<10x128xbf16>
// CHECK: %[[DFC2_B:.*]] = amp.reduce_sum %[[DLOGITS]] {amp.precision = f32, amp.precision_rule = "deny", {{.*}}} : tensor<32x10xf32> -> tensor<10xf32>
// CHECK: %[[DH2:.*]] = amp.matmul %[[DLOGITSL]], %[[FC2_WL]] {{.*}} : tensor<32x10xbf16>, tensor<10x128xbf16> -> tensor<32x128xbf16>
// CHECK: %[[DH1:.*]] = amp.gelu_grad %[[DH2]], %[[H1]] {amp.precision = bf16, amp.precision_rule = "between-allow"} : tensor<32x128xbf16>
// CHECK: %[[DFC1_W:.*]] = amp.matmul %[[DH1]], %[[H0L]] {{.*}} : tensor<32x128xbf16>, tensor<32x64xbf16> -> tensor<128x64xbf16>
// The bias gradient sums the bf16 gradient in f32 without a cast.
// CHECK: %[[DFC1_B:.*]] = amp.reduce_sum %[[DH1]] {amp.precision = f32, amp.precision_rule = "deny", {{.*}}} : tensor<32x128xbf16> -> tensor<128xf32>
// CHECK: %[[DH0:.*]] = amp.matmul %[[DH1]], %[[FC1_WL]] {{.*}} : tensor<32x128xbf16>, tensor<128x64xbf16> -> tensor<32x64xf32>
// CHECK: amp.layer_norm_grad %[[DH0]], %[[X]], %[[MEAN]], %[[RSTD]], %[[LN_W]] {amp.precision = f32, amp.precision_rule = "deny"} : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<64xf32>) -> (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>)

// The optimizer updates the f32 master weights with the bf16 gradients.
// CHECK: amp.sgd_update %[[FC1_W]], %[[DFC1_W]], momentum_buffer {{.*}} : tensor<128x64xf32>, tensor<128x64xbf16>
// CHECK: amp.sgd_update %[[FC1_B]], %[[DFC1_B]], momentum_buffer {{.*}} : tensor<128xf32>, tensor<128xf32>
// CHECK: amp.sgd_update %[[FC2_W]], %[[DFC2_W]], momentum_buffer {{.*}} : tensor<10x128xf32>, tensor<10x128xbf16>
// CHECK: return {{.*}}, %[[LOSS]] :

// Exactly four casts.
// COUNT: {{^}}4{{$}}

// FP16: amp.linear {{.*}} : (tensor<32x64xf16>, tensor<128x64xf16>, tensor<128xf32>) -> tensor<32x128xf16>
// FP16: amp.gelu {{.*}}{amp.precision = f16, amp.precision_rule = "between-allow"} : tensor<32x128xf16>
