// Verifies examples/mlp_train_step.mlir and pins its structure: the
// training-step contract in the signature, the forward ops, the backward from
// one seed, and one SGD-with-momentum update per parameter. The second RUN
// line checks that the generic form round-trips to the same IR.

// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir | FileCheck %s
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --mlir-print-op-generic | amp-opt | FileCheck %s
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir | FileCheck %s --check-prefix=ONE-SEED

// The backward starts from exactly one seed.
// ONE-SEED: amp.seed
// ONE-SEED-NOT: amp.seed

// Arguments: parameters, momentum buffers, data, learning rate.
// CHECK-LABEL: func.func @mlp_train_step(
// CHECK-SAME: %[[LN_W:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[LN_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC1_W:[a-z0-9_]+]]: tensor<128x64xf32> {amp.name = "fc1.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC1_B:[a-z0-9_]+]]: tensor<128xf32> {amp.name = "fc1.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC2_W:[a-z0-9_]+]]: tensor<10x128xf32> {amp.name = "fc2.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC2_B:[a-z0-9_]+]]: tensor<10xf32> {amp.name = "fc2.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[LN_W_M:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: %[[LN_B_M:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: %[[FC1_W_M:[a-z0-9_]+]]: tensor<128x64xf32> {amp.name = "fc1.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: %[[FC1_B_M:[a-z0-9_]+]]: tensor<128xf32> {amp.name = "fc1.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: %[[FC2_W_M:[a-z0-9_]+]]: tensor<10x128xf32> {amp.name = "fc2.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: %[[FC2_B_M:[a-z0-9_]+]]: tensor<10xf32> {amp.name = "fc2.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x64xf32> {amp.name = "x", amp.role = #amp.role<input>}
// CHECK-SAME: %[[LABELS:[a-z0-9_]+]]: tensor<32xi64> {amp.name = "labels", amp.role = #amp.role<label>}
// CHECK-SAME: %[[LR:[a-z0-9_]+]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// Results: new parameters and buffers in the same order, then the loss.
// CHECK-SAME: -> (tensor<64xf32> {amp.name = "ln.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<64xf32> {amp.name = "ln.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<128x64xf32> {amp.name = "fc1.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<128xf32> {amp.name = "fc1.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<10x128xf32> {amp.name = "fc2.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<10xf32> {amp.name = "fc2.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: tensor<64xf32> {amp.name = "ln.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: tensor<64xf32> {amp.name = "ln.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: tensor<128x64xf32> {amp.name = "fc1.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: tensor<128xf32> {amp.name = "fc1.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: tensor<10x128xf32> {amp.name = "fc2.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: tensor<10xf32> {amp.name = "fc2.bias.momentum_buffer", amp.role = #amp.role<optimizer_state>}
// CHECK-SAME: tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<training_step>}

// Forward.
// CHECK: %[[H0:[a-z0-9_]+]], %[[MEAN:[a-z0-9_]+]], %[[RSTD:[a-z0-9_]+]] = amp.layer_norm %[[X]], %[[LN_W]], %[[LN_B]] : (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[H1:[a-z0-9_]+]] = amp.linear %[[H0]], %[[FC1_W]], %[[FC1_B]] : {{.*}} -> tensor<32x128xf32>
// CHECK: %[[H2:[a-z0-9_]+]] = amp.gelu %[[H1]] : tensor<32x128xf32>
// CHECK: %[[LOGITS:[a-z0-9_]+]] = amp.linear %[[H2]], %[[FC2_W]], %[[FC2_B]] : {{.*}} -> tensor<32x10xf32>
// CHECK: %[[LOSS:[a-z0-9_]+]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<32x10xf32>, tensor<32xi64>

// Backward: the seed is the loss's.
// CHECK: %[[SEED:[a-z0-9_]+]] = amp.seed %[[LOSS]]
// CHECK: %[[DLOGITS:[a-z0-9_]+]] = amp.cross_entropy_grad %[[SEED]], %[[LOGITS]], %[[LABELS]]

// fc2: dW = dlogits^T h2, db = sum_batch dlogits, dh2 = dlogits W.
// CHECK: %[[DFC2_W:[a-z0-9_]+]] = amp.matmul %[[DLOGITS]], %[[H2]] {transpose_lhs} : tensor<32x10xf32>, tensor<32x128xf32> -> tensor<10x128xf32>
// CHECK: %[[DFC2_B:[a-z0-9_]+]] = amp.reduce_sum %[[DLOGITS]] {axes = array<i64: 0>} : tensor<32x10xf32> -> tensor<10xf32>
// CHECK: %[[DH2:[a-z0-9_]+]] = amp.matmul %[[DLOGITS]], %[[FC2_W]] : tensor<32x10xf32>, tensor<10x128xf32> -> tensor<32x128xf32>

// CHECK: %[[DH1:[a-z0-9_]+]] = amp.gelu_grad %[[DH2]], %[[H1]] : tensor<32x128xf32>

// fc1.
// CHECK: %[[DFC1_W:[a-z0-9_]+]] = amp.matmul %[[DH1]], %[[H0]] {transpose_lhs} : tensor<32x128xf32>, tensor<32x64xf32> -> tensor<128x64xf32>
// CHECK: %[[DFC1_B:[a-z0-9_]+]] = amp.reduce_sum %[[DH1]] {axes = array<i64: 0>} : tensor<32x128xf32> -> tensor<128xf32>
// CHECK: %[[DH0:[a-z0-9_]+]] = amp.matmul %[[DH1]], %[[FC1_W]] : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>

// LayerNorm backward reuses the forward's saved statistics.
// CHECK: %{{[a-z0-9_]+}}, %[[DLN_W:[a-z0-9_]+]], %[[DLN_B:[a-z0-9_]+]] = amp.layer_norm_grad %[[DH0]], %[[X]], %[[MEAN]], %[[RSTD]], %[[LN_W]]

// SGD with momentum 0.9, learning rate from the hyperparameter argument.
// CHECK: %[[LN_W1:[a-z0-9_]+]], %[[LN_W_M1:[a-z0-9_]+]] = amp.sgd_update %[[LN_W]], %[[DLN_W]], momentum_buffer %[[LN_W_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<64xf32>, tensor<64xf32>
// CHECK: %[[LN_B1:[a-z0-9_]+]], %[[LN_B_M1:[a-z0-9_]+]] = amp.sgd_update %[[LN_B]], %[[DLN_B]], momentum_buffer %[[LN_B_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<64xf32>, tensor<64xf32>
// CHECK: %[[FC1_W1:[a-z0-9_]+]], %[[FC1_W_M1:[a-z0-9_]+]] = amp.sgd_update %[[FC1_W]], %[[DFC1_W]], momentum_buffer %[[FC1_W_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<128x64xf32>, tensor<128x64xf32>
// CHECK: %[[FC1_B1:[a-z0-9_]+]], %[[FC1_B_M1:[a-z0-9_]+]] = amp.sgd_update %[[FC1_B]], %[[DFC1_B]], momentum_buffer %[[FC1_B_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<128xf32>, tensor<128xf32>
// CHECK: %[[FC2_W1:[a-z0-9_]+]], %[[FC2_W_M1:[a-z0-9_]+]] = amp.sgd_update %[[FC2_W]], %[[DFC2_W]], momentum_buffer %[[FC2_W_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<10x128xf32>, tensor<10x128xf32>
// CHECK: %[[FC2_B1:[a-z0-9_]+]], %[[FC2_B_M1:[a-z0-9_]+]] = amp.sgd_update %[[FC2_B]], %[[DFC2_B]], momentum_buffer %[[FC2_B_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64} : tensor<10xf32>, tensor<10xf32>

// CHECK: return %[[LN_W1]], %[[LN_B1]], %[[FC1_W1]], %[[FC1_B1]], %[[FC2_W1]], %[[FC2_B1]], %[[LN_W_M1]], %[[LN_B_M1]], %[[FC1_W_M1]], %[[FC1_B_M1]], %[[FC2_W_M1]], %[[FC2_B_M1]], %[[LOSS]] :
