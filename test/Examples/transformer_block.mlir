// Verifies examples/transformer_block.mlir and pins its structure: the
// forward-model contract in the signature, pre-LN attention with 4 heads of
// 16 (split, scaled q k^T, softmax, weighted values, merge), the residual
// adds, the tanh-GELU MLP and the MSE loss. The second RUN line checks that
// the generic form round-trips to the same IR.

// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir | FileCheck %s
// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @transformer_block(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x16x64xf32> {amp.name = "x", amp.role = #amp.role<input>}
// CHECK-SAME: %[[TARGET:[a-z0-9_]+]]: tensor<2x16x64xf32> {amp.name = "target", amp.role = #amp.role<label>}
// CHECK-SAME: %[[LN1_W:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln1.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[LN1_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln1.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[Q_W:[a-z0-9_]+]]: tensor<64x64xf32> {amp.name = "attn.q_proj.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[Q_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "attn.q_proj.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[K_W:[a-z0-9_]+]]: tensor<64x64xf32> {amp.name = "attn.k_proj.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[K_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "attn.k_proj.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[V_W:[a-z0-9_]+]]: tensor<64x64xf32> {amp.name = "attn.v_proj.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[V_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "attn.v_proj.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[O_W:[a-z0-9_]+]]: tensor<64x64xf32> {amp.name = "attn.out_proj.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[O_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "attn.out_proj.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[LN2_W:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln2.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[LN2_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "ln2.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC1_W:[a-z0-9_]+]]: tensor<256x64xf32> {amp.name = "mlp.fc1.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC1_B:[a-z0-9_]+]]: tensor<256xf32> {amp.name = "mlp.fc1.bias", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC2_W:[a-z0-9_]+]]: tensor<64x256xf32> {amp.name = "mlp.fc2.weight", amp.role = #amp.role<parameter>}
// CHECK-SAME: %[[FC2_B:[a-z0-9_]+]]: tensor<64xf32> {amp.name = "mlp.fc2.bias", amp.role = #amp.role<parameter>})
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-SAME: attributes {amp.graph = #amp.graph<forward>}

// Attention: pre-LN, projections, split heads.
// CHECK: %[[A:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = amp.layer_norm %[[X]], %[[LN1_W]], %[[LN1_B]] : {{.*}} -> (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
// CHECK: %[[Q:[a-z0-9_]+]] = amp.linear %[[A]], %[[Q_W]], %[[Q_B]] : {{.*}} -> tensor<2x16x64xf32>
// CHECK: %[[K:[a-z0-9_]+]] = amp.linear %[[A]], %[[K_W]], %[[K_B]] : {{.*}} -> tensor<2x16x64xf32>
// CHECK: %[[V:[a-z0-9_]+]] = amp.linear %[[A]], %[[V_W]], %[[V_B]] : {{.*}} -> tensor<2x16x64xf32>
// CHECK: %[[Q4:[a-z0-9_]+]] = amp.reshape %[[Q]] : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
// CHECK: %[[QH:[a-z0-9_]+]] = amp.transpose %[[Q4]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x16xf32> -> tensor<2x4x16x16xf32>
// CHECK: %[[K4:[a-z0-9_]+]] = amp.reshape %[[K]] : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
// CHECK: %[[KH:[a-z0-9_]+]] = amp.transpose %[[K4]] {permutation = array<i64: 0, 2, 1, 3>}
// CHECK: %[[V4:[a-z0-9_]+]] = amp.reshape %[[V]] : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
// CHECK: %[[VH:[a-z0-9_]+]] = amp.transpose %[[V4]] {permutation = array<i64: 0, 2, 1, 3>}

// Scaled scores, softmax over the keys, weighted values.
// CHECK: %[[S:[a-z0-9_]+]] = amp.matmul %[[QH]], %[[KH]] {transpose_rhs} : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
// CHECK: %[[SCALE:[a-z0-9_]+]] = amp.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[SCALE_B:[a-z0-9_]+]] = amp.broadcast %[[SCALE]] : tensor<f32> -> tensor<2x4x16x16xf32>
// CHECK: %[[SCALED:[a-z0-9_]+]] = amp.mul %[[S]], %[[SCALE_B]] : tensor<2x4x16x16xf32>
// CHECK: %[[P:[a-z0-9_]+]] = amp.softmax %[[SCALED]] {axis = -1 : i64} : tensor<2x4x16x16xf32>
// CHECK: %[[CTX:[a-z0-9_]+]] = amp.matmul %[[P]], %[[VH]] : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>

// Merge heads, output projection, residual.
// CHECK: %[[CTX_T:[a-z0-9_]+]] = amp.transpose %[[CTX]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x16x16xf32> -> tensor<2x16x4x16xf32>
// CHECK: %[[CTX_M:[a-z0-9_]+]] = amp.reshape %[[CTX_T]] : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>
// CHECK: %[[ATTN:[a-z0-9_]+]] = amp.linear %[[CTX_M]], %[[O_W]], %[[O_B]]
// CHECK: %[[H:[a-z0-9_]+]] = amp.add %[[X]], %[[ATTN]] : tensor<2x16x64xf32>

// MLP: pre-LN, 64 -> 256, tanh GELU, 256 -> 64, residual.
// CHECK: %[[B:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = amp.layer_norm %[[H]], %[[LN2_W]], %[[LN2_B]]
// CHECK: %[[M1:[a-z0-9_]+]] = amp.linear %[[B]], %[[FC1_W]], %[[FC1_B]] : {{.*}} -> tensor<2x16x256xf32>
// CHECK: %[[M2:[a-z0-9_]+]] = amp.gelu %[[M1]] approximate = tanh : tensor<2x16x256xf32>
// CHECK: %[[M3:[a-z0-9_]+]] = amp.linear %[[M2]], %[[FC2_W]], %[[FC2_B]] : {{.*}} -> tensor<2x16x64xf32>
// CHECK: %[[Y:[a-z0-9_]+]] = amp.add %[[H]], %[[M3]] : tensor<2x16x64xf32>

// Loss.
// CHECK: %[[LOSS:[a-z0-9_]+]] = amp.mse_loss %[[Y]], %[[TARGET]] : tensor<2x16x64xf32>
// CHECK: return %[[LOSS]] : tensor<f32>
