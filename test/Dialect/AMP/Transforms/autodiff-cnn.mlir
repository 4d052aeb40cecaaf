// The training step --amp-autodiff generates for the CNN of
// examples/cnn.mlir: convolution, batch norm in training mode (running
// statistics threaded through as buffers), max and average pooling, group
// norm, global average pooling and a linear head with its loss.

// RUN: amp-opt %amp_src_root/examples/cnn.mlir --amp-autodiff | FileCheck %s

// CHECK-LABEL: func.func @cnn(
// CHECK-SAME:    attributes {amp.graph = #amp.graph<forward>}

// Parameters, buffers, inputs, labels, lr; results: parameters, buffers,
// loss (plain SGD has no optimizer state).
// CHECK-LABEL: func.func @cnn_train_step(
// CHECK-SAME:    %[[CONV1_W:[^:]*]]: tensor<16x3x3x3xf32> {amp.name = "conv1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[BN1_W:[^:]*]]: tensor<16xf32> {amp.name = "bn1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[BN1_B:[^:]*]]: tensor<16xf32> {amp.name = "bn1.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[CONV2_W:[^:]*]]: tensor<32x16x3x3xf32> {amp.name = "conv2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[CONV2_B:[^:]*]]: tensor<32xf32> {amp.name = "conv2.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[GN2_W:[^:]*]]: tensor<32xf32> {amp.name = "gn2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[GN2_B:[^:]*]]: tensor<32xf32> {amp.name = "gn2.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC_W:[^:]*]]: tensor<10x32xf32> {amp.name = "fc.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC_B:[^:]*]]: tensor<10xf32> {amp.name = "fc.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[RMEAN:[^:]*]]: tensor<16xf32> {amp.name = "bn1.running_mean", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[RVAR:[^:]*]]: tensor<16xf32> {amp.name = "bn1.running_var", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[X:[^:]*]]: tensor<8x3x32x32xf32> {amp.name = "x", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[LABELS:[^:]*]]: tensor<8xi64> {amp.name = "labels", amp.role = #amp.role<label>},
// CHECK-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    tensor<10xf32> {amp.name = "fc.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    tensor<16xf32> {amp.name = "bn1.running_mean", amp.role = #amp.role<buffer>},
// CHECK-SAME:    tensor<16xf32> {amp.name = "bn1.running_var", amp.role = #amp.role<buffer>},
// CHECK-SAME:    tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<training_step>}
// CHECK:         %[[C1:.*]] = amp.conv2d %[[X]], %[[CONV1_W]]
// CHECK-NEXT:    %[[N1:.*]], %[[SMEAN:.*]], %[[SRSTD:.*]], %[[NEW_RMEAN:.*]], %[[NEW_RVAR:.*]] = amp.batch_norm %[[C1]], %[[BN1_W]], %[[BN1_B]], %[[RMEAN]], %[[RVAR]]
// CHECK-NEXT:    %[[R1:.*]] = amp.relu %[[N1]]
// CHECK-NEXT:    %[[P1:.*]] = amp.max_pool2d %[[R1]]
// CHECK-NEXT:    %[[C2:.*]] = amp.conv2d %[[P1]], %[[CONV2_W]], %[[CONV2_B]]
// CHECK-NEXT:    %[[N2:.*]], %[[GMEAN:.*]], %[[GRSTD:.*]] = amp.group_norm %[[C2]], %[[GN2_W]], %[[GN2_B]]
// CHECK-NEXT:    %[[R2:.*]] = amp.relu %[[N2]]
// CHECK-NEXT:    %[[P2:.*]] = amp.avg_pool2d %[[R2]]
// CHECK-NEXT:    %[[G:.*]] = amp.global_avg_pool %[[P2]]
// CHECK-NEXT:    %[[FLAT:.*]] = amp.reshape %[[G]]
// CHECK-NEXT:    %[[LOGITS:.*]] = amp.linear %[[FLAT]], %[[FC_W]], %[[FC_B]]
// CHECK-NEXT:    %[[LOSS:.*]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]]
// CHECK-NEXT:    %[[SEED:.*]] = amp.seed %[[LOSS]]
// CHECK-NEXT:    %[[DLOGITS:.*]] = amp.cross_entropy_grad %[[SEED]], %[[LOGITS]], %[[LABELS]]
// CHECK-NEXT:    %[[DFC_W:.*]] = amp.matmul %[[DLOGITS]], %[[FLAT]] {transpose_lhs}
// CHECK-NEXT:    %[[DFLAT:.*]] = amp.matmul %[[DLOGITS]], %[[FC_W]] : tensor<8x10xf32>, tensor<10x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    %[[DFC_B:.*]] = amp.reduce_sum %[[DLOGITS]] {axes = array<i64: 0>}
// Reshape back, then the global average pool: 1 / (8 * 8) broadcast.
// CHECK-NEXT:    %[[DG:.*]] = amp.reshape %[[DFLAT]] : tensor<8x32xf32> -> tensor<8x32x1x1xf32>
// CHECK-NEXT:    %[[INV:.*]] = amp.constant dense<1.562500e-02> : tensor<8x32x1x1xf32>
// CHECK-NEXT:    %[[DGS:.*]] = amp.mul %[[DG]], %[[INV]]
// CHECK-NEXT:    %[[DP2:.*]] = amp.broadcast %[[DGS]] : tensor<8x32x1x1xf32> -> tensor<8x32x8x8xf32>
// CHECK-NEXT:    %[[DR2:.*]] = amp.avg_pool2d_grad %[[DP2]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<8x32x8x8xf32> -> tensor<8x32x16x16xf32>
// CHECK-NEXT:    %[[DN2:.*]] = amp.relu_grad %[[DR2]], %[[N2]]
// CHECK-NEXT:    %[[DC2:.*]], %[[DGN2_W:.*]], %[[DGN2_B:.*]] = amp.group_norm_grad %[[DN2]], %[[C2]], %[[GMEAN]], %[[GRSTD]], %[[GN2_W]] {num_groups = 8 : i64}
// CHECK-NEXT:    %[[DCONV2_W:.*]] = amp.conv2d_weight_grad %[[DC2]], %[[P1]] {padding = array<i64: 1, 1, 1, 1>} : tensor<8x32x16x16xf32>, tensor<8x16x16x16xf32> -> tensor<32x16x3x3xf32>
// CHECK-NEXT:    %[[DP1:.*]] = amp.conv2d_input_grad %[[DC2]], %[[CONV2_W]] {padding = array<i64: 1, 1, 1, 1>} : tensor<8x32x16x16xf32>, tensor<32x16x3x3xf32> -> tensor<8x16x16x16xf32>
// CHECK-NEXT:    %[[DCONV2_B:.*]] = amp.reduce_sum %[[DC2]] {axes = array<i64: 0, 2, 3>} : tensor<8x32x16x16xf32> -> tensor<32xf32>
// CHECK-NEXT:    %[[DR1:.*]] = amp.max_pool2d_grad %[[DP1]], %[[R1]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
// CHECK-NEXT:    %[[DN1:.*]] = amp.relu_grad %[[DR1]], %[[N1]]
// CHECK-NEXT:    %[[DC1:.*]], %[[DBN1_W:.*]], %[[DBN1_B:.*]] = amp.batch_norm_grad %[[DN1]], %[[C1]], %[[SMEAN]], %[[SRSTD]], %[[BN1_W]]
// The images get no gradient: only the weight gradient of conv1.
// CHECK-NEXT:    %[[DCONV1_W:.*]] = amp.conv2d_weight_grad %[[DC1]], %[[X]]
// CHECK-NOT:     amp.conv2d_input_grad
// CHECK-NEXT:    %[[NEW_CONV1_W:.*]] = amp.sgd_update %[[CONV1_W]], %[[DCONV1_W]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_BN1_W:.*]] = amp.sgd_update %[[BN1_W]], %[[DBN1_W]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_BN1_B:.*]] = amp.sgd_update %[[BN1_B]], %[[DBN1_B]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_CONV2_W:.*]] = amp.sgd_update %[[CONV2_W]], %[[DCONV2_W]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_CONV2_B:.*]] = amp.sgd_update %[[CONV2_B]], %[[DCONV2_B]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_GN2_W:.*]] = amp.sgd_update %[[GN2_W]], %[[DGN2_W]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_GN2_B:.*]] = amp.sgd_update %[[GN2_B]], %[[DGN2_B]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_FC_W:.*]] = amp.sgd_update %[[FC_W]], %[[DFC_W]], lr %[[LR]]
// CHECK-NEXT:    %[[NEW_FC_B:.*]] = amp.sgd_update %[[FC_B]], %[[DFC_B]], lr %[[LR]]
// The updated running statistics are returned as the buffers.
// CHECK-NEXT:    return %[[NEW_CONV1_W]], %[[NEW_BN1_W]], %[[NEW_BN1_B]], %[[NEW_CONV2_W]], %[[NEW_CONV2_B]], %[[NEW_GN2_W]], %[[NEW_GN2_B]], %[[NEW_FC_W]], %[[NEW_FC_B]], %[[NEW_RMEAN]], %[[NEW_RVAR]], %[[LOSS]] :
