// The training step --amp-autodiff generates for the GroupNorm CNN of
// examples/cnn_groupnorm.mlir (returns logits): the cross-entropy loss and
// its `labels` argument appended, group_norm_grad from the saved mean and
// rstd, SiLU, strided convolutions with bias, global average pooling, and
// AdamW with decoupled weight decay.

// RUN: amp-opt %amp_src_root/examples/cnn_groupnorm.mlir \
// RUN:   --amp-autodiff="loss=cross_entropy optimizer=adamw weight-decay=0.05" \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @cnn_groupnorm(
// CHECK-LABEL: func.func @cnn_groupnorm_train_step(
// CHECK-SAME:    %[[CONV1_W:[^:]*]]: tensor<8x3x3x3xf32> {amp.name = "conv1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[CONV1_B:[^:]*]]: tensor<8xf32> {amp.name = "conv1.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[GN1_W:[^:]*]]: tensor<8xf32> {amp.name = "gn1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[GN1_B:[^:]*]]: tensor<8xf32> {amp.name = "gn1.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[CONV2_W:[^:]*]]: tensor<16x8x3x3xf32> {amp.name = "conv2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[CONV2_B:[^:]*]]: tensor<16xf32> {amp.name = "conv2.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[GN2_W:[^:]*]]: tensor<16xf32> {amp.name = "gn2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[GN2_B:[^:]*]]: tensor<16xf32> {amp.name = "gn2.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC_W:[^:]*]]: tensor<10x16xf32> {amp.name = "fc.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC_B:[^:]*]]: tensor<10xf32> {amp.name = "fc.bias", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[CONV1_W_M:[^:]*]]: tensor<8x3x3x3xf32> {amp.name = "conv1.weight.exp_avg", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[CONV1_W_V:[^:]*]]: tensor<8x3x3x3xf32> {amp.name = "conv1.weight.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[STEP:[^:]*]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x3x16x16xf32> {amp.name = "x", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[LABELS:[^:]*]]: tensor<4xi64> {amp.name = "labels", amp.role = #amp.role<label>},
// CHECK-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<training_step>}
// CHECK:         %[[C1:.*]] = amp.conv2d %[[X]], %[[CONV1_W]], %[[CONV1_B]]
// CHECK-NEXT:    %[[N1:.*]], %[[MEAN1:.*]], %[[RSTD1:.*]] = amp.group_norm %[[C1]], %[[GN1_W]], %[[GN1_B]] {num_groups = 2 : i64}
// CHECK-NEXT:    %[[A1:.*]] = amp.silu %[[N1]]
// CHECK-NEXT:    %[[C2:.*]] = amp.conv2d %[[A1]], %[[CONV2_W]], %[[CONV2_B]]
// CHECK-NEXT:    %[[N2:.*]], %[[MEAN2:.*]], %[[RSTD2:.*]] = amp.group_norm %[[C2]], %[[GN2_W]], %[[GN2_B]] {num_groups = 4 : i64}
// CHECK:         %[[LOSS:.*]] = amp.cross_entropy %{{.*}}, %[[LABELS]] : tensor<4x10xf32>, tensor<4xi64>
// CHECK-NEXT:    %[[SEED:.*]] = amp.seed %[[LOSS]]
// CHECK:         %[[DA2:.*]] = amp.broadcast %{{.*}} : tensor<4x16x1x1xf32> -> tensor<4x16x8x8xf32>
// CHECK-NEXT:    %[[DN2:.*]] = amp.silu_grad %[[DA2]], %[[N2]]
// CHECK-NEXT:    %[[DC2:.*]], %[[DGN2_W:.*]], %[[DGN2_B:.*]] = amp.group_norm_grad %[[DN2]], %[[C2]], %[[MEAN2]], %[[RSTD2]], %[[GN2_W]] {num_groups = 4 : i64}
// CHECK-NEXT:    %[[DCONV2_W:.*]] = amp.conv2d_weight_grad %[[DC2]], %[[A1]] {padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}
// CHECK-NEXT:    %[[DA1:.*]] = amp.conv2d_input_grad %[[DC2]], %[[CONV2_W]] {padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : tensor<4x16x8x8xf32>, tensor<16x8x3x3xf32> -> tensor<4x8x16x16xf32>
// CHECK-NEXT:    %[[DCONV2_B:.*]] = amp.reduce_sum %[[DC2]] {axes = array<i64: 0, 2, 3>}
// CHECK-NEXT:    %[[DN1:.*]] = amp.silu_grad %[[DA1]], %[[N1]]
// CHECK-NEXT:    %[[DC1:.*]], %[[DGN1_W:.*]], %[[DGN1_B:.*]] = amp.group_norm_grad %[[DN1]], %[[C1]], %[[MEAN1]], %[[RSTD1]], %[[GN1_W]] {num_groups = 2 : i64}
// CHECK-NEXT:    %[[DCONV1_W:.*]] = amp.conv2d_weight_grad %[[DC1]], %[[X]]
// CHECK-NEXT:    %[[DCONV1_B:.*]] = amp.reduce_sum %[[DC1]] {axes = array<i64: 0, 2, 3>}
// CHECK-NEXT:    %[[COUNT:.*]] = tensor.extract %[[STEP]][] : tensor<i64>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[COUNT]], %[[ONE]] : i64
// CHECK-NEXT:    %[[T:.*]] = tensor.from_elements %[[NEXT]] : tensor<i64>
// CHECK-NEXT:    %[[P0:.*]], %[[M0:.*]], %[[V0:.*]] = amp.adamw_update %[[CONV1_W]], %[[DCONV1_W]], %[[CONV1_W_M]], %[[CONV1_W_V]], step %[[T]], lr %[[LR]] {weight_decay = 5.000000e-02 : f64}
// CHECK-NEXT:    amp.adamw_update %[[CONV1_B]], %[[DCONV1_B]], {{.*}} step %[[T]], lr %[[LR]] {weight_decay = 5.000000e-02 : f64}
// CHECK-NEXT:    amp.adamw_update %[[GN1_W]], %[[DGN1_W]],
// CHECK-NEXT:    amp.adamw_update %[[GN1_B]], %[[DGN1_B]],
// CHECK-NEXT:    amp.adamw_update %[[CONV2_W]], %[[DCONV2_W]],
// CHECK-NEXT:    amp.adamw_update %[[CONV2_B]], %[[DCONV2_B]],
// CHECK-NEXT:    amp.adamw_update %[[GN2_W]], %[[DGN2_W]],
// CHECK-NEXT:    amp.adamw_update %[[GN2_B]], %[[DGN2_B]],
// CHECK-NEXT:    amp.adamw_update %[[FC_W]],
// CHECK-NEXT:    amp.adamw_update %[[FC_B]],
// CHECK-NEXT:    return %[[P0]], {{.*}}, %[[M0]], %[[V0]], {{.*}}, %[[T]], %[[LOSS]] :
