// Verifies examples/cnn.mlir and pins its structure: the forward-model
// contract (batch-norm running statistics are `buffer` arguments, their
// updates returned as `buffer` results), the two conv stages with batch norm
// and group norm, the pools, the flatten, the classifier and the loss. The
// second RUN line checks that the generic form round-trips to the same IR.

// RUN: amp-opt %amp_src_root/examples/cnn.mlir | FileCheck %s
// RUN: amp-opt %amp_src_root/examples/cnn.mlir --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @cnn(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x3x32x32xf32> {amp.name = "x", amp.role = #amp.role<input>}
// CHECK-SAME: %[[LABELS:[a-z0-9_]+]]: tensor<8xi64> {amp.name = "labels", amp.role = #amp.role<label>}
// CHECK-SAME: %[[CONV1_W:[a-z0-9_]+]]: tensor<16x3x3x3xf32> {amp.name = "conv1.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[BN1_W:[a-z0-9_]+]]: tensor<16xf32> {amp.name = "bn1.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[BN1_B:[a-z0-9_]+]]: tensor<16xf32> {amp.name = "bn1.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[BN1_RM:[a-z0-9_]+]]: tensor<16xf32> {amp.name = "bn1.running_mean", amp.role = #amp.role<buffer>}
// CHECK-SAME: %[[BN1_RV:[a-z0-9_]+]]: tensor<16xf32> {amp.name = "bn1.running_var", amp.role = #amp.role<buffer>}
// CHECK-SAME: %[[CONV2_W:[a-z0-9_]+]]: tensor<32x16x3x3xf32> {amp.name = "conv2.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[CONV2_B:[a-z0-9_]+]]: tensor<32xf32> {amp.name = "conv2.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[GN2_W:[a-z0-9_]+]]: tensor<32xf32> {amp.name = "gn2.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[GN2_B:[a-z0-9_]+]]: tensor<32xf32> {amp.name = "gn2.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC_W:[a-z0-9_]+]]: tensor<10x32xf32> {amp.name = "fc.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC_B:[a-z0-9_]+]]: tensor<10xf32> {amp.name = "fc.bias", amp.role = #amp.role<parameter>})
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}
// CHECK-SAME: tensor<16xf32> {amp.name = "bn1.running_mean", amp.role = #amp.role<buffer>}
// CHECK-SAME: tensor<16xf32> {amp.name = "bn1.running_var", amp.role = #amp.role<buffer>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<forward>}

// Stage 1: conv (no bias), batch norm in training mode, relu, max pool.
// CHECK: %[[C1:[a-z0-9_]+]] = amp.conv2d %[[X]], %[[CONV1_W]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
// CHECK: %[[N1:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[BN1_RM1:[a-z0-9_]+]], %[[BN1_RV1:[a-z0-9_]+]] = amp.batch_norm %[[C1]], %[[BN1_W]], %[[BN1_B]], %[[BN1_RM]], %[[BN1_RV]]
// CHECK-NOT: training = false
// CHECK-SAME: -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK: %[[R1:[a-z0-9_]+]] = amp.relu %[[N1]] : tensor<8x16x32x32xf32>
// CHECK: %[[P1:[a-z0-9_]+]] = amp.max_pool2d %[[R1]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>

// Stage 2: conv with bias, group norm (8 groups), relu, average pool.
// CHECK: %[[C2:[a-z0-9_]+]] = amp.conv2d %[[P1]], %[[CONV2_W]], %[[CONV2_B]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x16x16x16xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<8x32x16x16xf32>
// CHECK: %[[N2:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = amp.group_norm %[[C2]], %[[GN2_W]], %[[GN2_B]] {num_groups = 8 : i64} : {{.*}} -> (tensor<8x32x16x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>)
// CHECK: %[[R2:[a-z0-9_]+]] = amp.relu %[[N2]] : tensor<8x32x16x16xf32>
// CHECK: %[[P2:[a-z0-9_]+]] = amp.avg_pool2d %[[R2]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<8x32x16x16xf32> -> tensor<8x32x8x8xf32>

// Head.
// CHECK: %[[G:[a-z0-9_]+]] = amp.global_avg_pool %[[P2]] : tensor<8x32x8x8xf32> -> tensor<8x32x1x1xf32>
// CHECK: %[[FLAT:[a-z0-9_]+]] = amp.reshape %[[G]] : tensor<8x32x1x1xf32> -> tensor<8x32xf32>
// CHECK: %[[LOGITS:[a-z0-9_]+]] = amp.linear %[[FLAT]], %[[FC_W]], %[[FC_B]] : (tensor<8x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<8x10xf32>
// CHECK: %[[LOSS:[a-z0-9_]+]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<8x10xf32>, tensor<8xi64>
// CHECK: return %[[LOSS]], %[[BN1_RM1]], %[[BN1_RV1]] : tensor<f32>, tensor<16xf32>, tensor<16xf32>
