// The training step --amp-autodiff generates for the MLP of
// examples/mlp_forward.mlir (which returns logits): the loss appended with
// a new `labels` argument, the backward from one amp.seed through the
// dedicated backward ops, and SGD with momentum. It is the step that
// examples/mlp_train_step.mlir writes by hand, with the arguments in the
// pass's canonical order (optimizer state before the data).

// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --amp-autodiff="loss=cross_entropy momentum=0.9" | FileCheck %s
// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --amp-autodiff="loss=cross_entropy optimizer=adamw beta2=0.99 max-grad-norm=1.0" \
// RUN:   | FileCheck %s --check-prefix=ADAMW
// The generated step verifies and round-trips.
// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --amp-autodiff="loss=cross_entropy momentum=0.9" | amp-opt | FileCheck %s

// The forward model is kept for evaluation.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:    -> (tensor<32x10xf32> {amp.name = "logits", amp.role = #amp.role<output>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<forward>}
// CHECK:         return

// Canonical order: parameters, optimizer state, inputs, labels, lr.
// CHECK-LABEL: func.func @mlp_train_step(
// CHECK-SAME:    %[[LN_W:[^:]*]]: tensor<64xf32> {amp.name = "ln.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[LN_B:[^:]*]]: tensor<64xf32> {amp.name = "ln.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC1_W:[^:]*]]: tensor<128x64xf32> {amp.name = "fc1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC1_B:[^:]*]]: tensor<128xf32> {amp.name = "fc1.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC2_W:[^:]*]]: tensor<10x128xf32> {amp.name = "fc2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC2_B:[^:]*]]: tensor<10xf32> {amp.name = "fc2.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[LN_W_M:[^:]*]]: tensor<64xf32> {amp.name = "ln.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[LN_B_M:[^:]*]]: tensor<64xf32> {amp.name = "ln.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[FC1_W_M:[^:]*]]: tensor<128x64xf32> {amp.name = "fc1.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[FC1_B_M:[^:]*]]: tensor<128xf32> {amp.name = "fc1.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[FC2_W_M:[^:]*]]: tensor<10x128xf32> {amp.name = "fc2.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[FC2_B_M:[^:]*]]: tensor<10xf32> {amp.name = "fc2.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[X:[^:]*]]: tensor<32x64xf32> {amp.name = "x", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[LABELS:[^:]*]]: tensor<32xi64> {amp.name = "labels", amp.role = #amp.role<label>},
// CHECK-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    -> (tensor<64xf32> {amp.name = "ln.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:        tensor<10xf32> {amp.name = "fc2.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:        tensor<64xf32> {amp.name = "ln.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:        tensor<10xf32> {amp.name = "fc2.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:        tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<training_step>}
// Forward, then the appended loss.
// CHECK:         %[[H0:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = amp.layer_norm %[[X]], %[[LN_W]], %[[LN_B]]
// CHECK-NEXT:    %[[H1:.*]] = amp.linear %[[H0]], %[[FC1_W]], %[[FC1_B]]
// CHECK-NEXT:    %[[H2:.*]] = amp.gelu %[[H1]] : tensor<32x128xf32>
// CHECK-NEXT:    %[[LOGITS:.*]] = amp.linear %[[H2]], %[[FC2_W]], %[[FC2_B]]
// CHECK-NEXT:    %[[LOSS:.*]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<32x10xf32>, tensor<32xi64>
// Backward from one seed; activations and saved statistics are reused.
// CHECK-NEXT:    %[[SEED:.*]] = amp.seed %[[LOSS]]
// CHECK-NEXT:    %[[DLOGITS:.*]] = amp.cross_entropy_grad %[[SEED]], %[[LOGITS]], %[[LABELS]]
// CHECK-NEXT:    %[[DFC2_W:.*]] = amp.matmul %[[DLOGITS]], %[[H2]] {transpose_lhs} : tensor<32x10xf32>, tensor<32x128xf32> -> tensor<10x128xf32>
// CHECK-NEXT:    %[[DH2:.*]] = amp.matmul %[[DLOGITS]], %[[FC2_W]] : tensor<32x10xf32>, tensor<10x128xf32> -> tensor<32x128xf32>
// CHECK-NEXT:    %[[DFC2_B:.*]] = amp.reduce_sum %[[DLOGITS]] {axes = array<i64: 0>} : tensor<32x10xf32> -> tensor<10xf32>
// CHECK-NEXT:    %[[DH1:.*]] = amp.gelu_grad %[[DH2]], %[[H1]] : tensor<32x128xf32>
// CHECK-NEXT:    %[[DFC1_W:.*]] = amp.matmul %[[DH1]], %[[H0]] {transpose_lhs} : tensor<32x128xf32>, tensor<32x64xf32> -> tensor<128x64xf32>
// CHECK-NEXT:    %[[DH0:.*]] = amp.matmul %[[DH1]], %[[FC1_W]] : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[DFC1_B:.*]] = amp.reduce_sum %[[DH1]] {axes = array<i64: 0>} : tensor<32x128xf32> -> tensor<128xf32>
// CHECK-NEXT:    %{{.*}}, %[[DLN_W:.*]], %[[DLN_B:.*]] = amp.layer_norm_grad %[[DH0]], %[[X]], %[[MEAN]], %[[RSTD]], %[[LN_W]] :
// The input x gets no gradient (the unused input gradient of the first
// linear layer is not built at all).
// CHECK-NOT:     amp.matmul
// CHECK:         %[[P0:.*]], %[[M0:.*]] = amp.sgd_update %[[LN_W]], %[[DLN_W]], momentum_buffer %[[LN_W_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<64xf32>, tensor<64xf32>
// CHECK-NEXT:    %[[P1:.*]], %[[M1:.*]] = amp.sgd_update %[[LN_B]], %[[DLN_B]], momentum_buffer %[[LN_B_M]], lr %[[LR]]
// CHECK-NEXT:    %[[P2:.*]], %[[M2:.*]] = amp.sgd_update %[[FC1_W]], %[[DFC1_W]], momentum_buffer %[[FC1_W_M]], lr %[[LR]]
// CHECK-NEXT:    %[[P3:.*]], %[[M3:.*]] = amp.sgd_update %[[FC1_B]], %[[DFC1_B]], momentum_buffer %[[FC1_B_M]], lr %[[LR]]
// CHECK-NEXT:    %[[P4:.*]], %[[M4:.*]] = amp.sgd_update %[[FC2_W]], %[[DFC2_W]], momentum_buffer %[[FC2_W_M]], lr %[[LR]]
// CHECK-NEXT:    %[[P5:.*]], %[[M5:.*]] = amp.sgd_update %[[FC2_B]], %[[DFC2_B]], momentum_buffer %[[FC2_B_M]], lr %[[LR]]
// CHECK-NEXT:    return %[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P4]], %[[P5]], %[[M0]], %[[M1]], %[[M2]], %[[M3]], %[[M4]], %[[M5]], %[[LOSS]] :

// AdamW: exp_avg and exp_avg_sq per parameter, then the shared step count;
// the gradients are clipped by their global norm first, and the norm is
// returned after the loss.
// ADAMW-LABEL: func.func @mlp_train_step(
// ADAMW-SAME:    %[[LN_W:[^:]*]]: tensor<64xf32> {amp.name = "ln.weight", amp.role = #amp.role<parameter>},
// ADAMW-SAME:    %[[LN_W_M:[^:]*]]: tensor<64xf32> {amp.name = "ln.weight.exp_avg", amp.role = #amp.role<optimizer_state>},
// ADAMW-SAME:    %[[LN_W_V:[^:]*]]: tensor<64xf32> {amp.name = "ln.weight.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// ADAMW-SAME:    %{{.*}}: tensor<10xf32> {amp.name = "fc2.bias.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// ADAMW-SAME:    %[[STEP:[^:]*]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// ADAMW-SAME:    %[[X:[^:]*]]: tensor<32x64xf32> {amp.name = "x", amp.role = #amp.role<input>},
// ADAMW-SAME:    %[[LABELS:[^:]*]]: tensor<32xi64> {amp.name = "labels", amp.role = #amp.role<label>},
// ADAMW-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// ADAMW-SAME:    tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// ADAMW-SAME:    tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// ADAMW-SAME:    tensor<f32> {amp.name = "grad_norm", amp.role = #amp.role<output>})
// ADAMW:         %[[LOSS:.*]] = amp.cross_entropy
// ADAMW:         %{{.*}}, %[[DLN_W:.*]], %[[DLN_B:.*]] = amp.layer_norm_grad
// ADAMW:         %[[CLIPPED:.*]]:6, %[[NORM:.*]] = amp.clip_grad_norm %[[DLN_W]], %[[DLN_B]], {{.*}} {max_norm = 1.000000e+00 : f64}
// The step count of this update is step + 1 (amp has no integer arithmetic).
// ADAMW:         %[[COUNT:.*]] = tensor.extract %[[STEP]][] : tensor<i64>
// ADAMW:         %[[NEXT:.*]] = arith.addi %[[COUNT]], %{{.*}} : i64
// ADAMW:         %[[T:.*]] = tensor.from_elements %[[NEXT]] : tensor<i64>
// ADAMW:         %[[P0:.*]], %[[M0:.*]], %[[V0:.*]] = amp.adamw_update %[[LN_W]], %[[CLIPPED]]#0, %[[LN_W_M]], %[[LN_W_V]], step %[[T]], lr %[[LR]] {beta2 = 0.98999999999999999 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
// ADAMW-COUNT-5: amp.adamw_update
// ADAMW:         return %[[P0]], {{.*}}, %[[M0]], %[[V0]], {{.*}}, %[[T]], %[[LOSS]], %[[NORM]] :
