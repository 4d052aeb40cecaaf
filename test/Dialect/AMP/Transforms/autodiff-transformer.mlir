// The training step --amp-autodiff generates for the transformer block of
// examples/transformer_block.mlir (pre-LN attention and MLP with
// residuals, mse_loss): batched attention matmuls, softmax and layer norm
// backward from the forward's saved values, the tanh GELU backward, and
// gradients summed with amp.add where a value fans out (the residual
// stream, the layer-norm output feeding q, k and v). SGD with momentum
// after clipping by the global norm.

// RUN: amp-opt %amp_src_root/examples/transformer_block.mlir \
// RUN:   --amp-autodiff="momentum=0.9 max-grad-norm=1.0" | FileCheck %s

// CHECK-LABEL: func.func @transformer_block(
// CHECK-LABEL: func.func @transformer_block_train_step(
// CHECK-SAME:    %[[LN1_W:[^:]*]]: tensor<64xf32> {amp.name = "ln1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[Q_W:[^:]*]]: tensor<64x64xf32> {amp.name = "attn.q_proj.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[K_W:[^:]*]]: tensor<64x64xf32> {amp.name = "attn.k_proj.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[V_W:[^:]*]]: tensor<64x64xf32> {amp.name = "attn.v_proj.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[O_W:[^:]*]]: tensor<64x64xf32> {amp.name = "attn.out_proj.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[LN2_W:[^:]*]]: tensor<64xf32> {amp.name = "ln2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC1_W:[^:]*]]: tensor<256x64xf32> {amp.name = "mlp.fc1.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[FC2_W:[^:]*]]: tensor<64x256xf32> {amp.name = "mlp.fc2.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[LN1_W_M:[^:]*]]: tensor<64xf32> {amp.name = "ln1.weight.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x16x64xf32> {amp.name = "x", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[TARGET:[^:]*]]: tensor<2x16x64xf32> {amp.name = "target", amp.role = #amp.role<label>},
// CHECK-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// CHECK-SAME:    tensor<f32> {amp.name = "grad_norm", amp.role = #amp.role<output>})

// Forward.
// CHECK:         %[[A:.*]], %[[MEAN1:.*]], %[[RSTD1:.*]] = amp.layer_norm %[[X]], %[[LN1_W]]
// CHECK:         %[[QH:.*]] = amp.transpose
// CHECK:         %[[KH:.*]] = amp.transpose
// CHECK:         %[[VH:.*]] = amp.transpose
// CHECK:         %[[SCALE:.*]] = amp.broadcast
// CHECK:         %[[PROBS:.*]] = amp.softmax
// CHECK:         %[[H:.*]] = amp.add %[[X]], %{{.*}} : tensor<2x16x64xf32>
// CHECK-NEXT:    %[[B:.*]], %[[MEAN2:.*]], %[[RSTD2:.*]] = amp.layer_norm %[[H]], %[[LN2_W]]
// CHECK-NEXT:    %[[M1:.*]] = amp.linear %[[B]], %[[FC1_W]]
// CHECK-NEXT:    %[[M2:.*]] = amp.gelu %[[M1]] approximate = tanh
// CHECK-NEXT:    %[[M3:.*]] = amp.linear %[[M2]], %[[FC2_W]]
// CHECK-NEXT:    %[[Y:.*]] = amp.add %[[H]], %[[M3]]
// CHECK-NEXT:    %[[LOSS:.*]] = amp.mse_loss %[[Y]], %[[TARGET]]
// CHECK-NEXT:    %[[SEED:.*]] = amp.seed %[[LOSS]]
// CHECK-NEXT:    %[[DY:.*]] = amp.mse_loss_grad %[[SEED]], %[[Y]], %[[TARGET]]

// MLP backward over the flattened [2 * 16] rows.
// CHECK:         amp.matmul %{{.*}}, %{{.*}} {transpose_lhs} : tensor<32x64xf32>, tensor<32x256xf32> -> tensor<64x256xf32>
// CHECK:         %[[DM2:.*]] = amp.reshape %{{.*}} : tensor<32x256xf32> -> tensor<2x16x256xf32>
// CHECK:         %[[DM1:.*]] = amp.gelu_grad %[[DM2]], %[[M1]] approximate = tanh
// CHECK:         %[[DB:.*]] = amp.reshape %{{.*}} : tensor<32x64xf32> -> tensor<2x16x64xf32>
// CHECK:         %[[DH_LN:.*]], %{{.*}}, %{{.*}} = amp.layer_norm_grad %[[DB]], %[[H]], %[[MEAN2]], %[[RSTD2]], %[[LN2_W]]
// The residual: h feeds both the layer norm and the output sum.
// CHECK-NEXT:    %[[DH:.*]] = amp.add %[[DY]], %[[DH_LN]] : tensor<2x16x64xf32>

// Attention backward: dV = P^T dCtx, dP = dCtx V^T, then softmax_grad
// from the forward probabilities, the scale, dK = dS^T Q and dQ = dS K
// (each right-hand gradient first, as amp-autodiff emits them).
// CHECK:         %[[DCTX:.*]] = amp.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x16xf32> -> tensor<2x4x16x16xf32>
// CHECK-NEXT:    %[[DVH:.*]] = amp.matmul %[[PROBS]], %[[DCTX]] {transpose_lhs}
// CHECK-NEXT:    %[[DPROBS:.*]] = amp.matmul %[[DCTX]], %[[VH]] {transpose_rhs}
// CHECK-NEXT:    %[[DSCALED:.*]] = amp.softmax_grad %[[DPROBS]], %[[PROBS]] {axis = -1 : i64}
// CHECK-NEXT:    %[[DSCORES:.*]] = amp.mul %[[DSCALED]], %[[SCALE]]
// CHECK-NEXT:    %[[DKH:.*]] = amp.matmul %[[DSCORES]], %[[QH]] {transpose_lhs}
// CHECK-NEXT:    %[[DQH:.*]] = amp.matmul %[[DSCORES]], %[[KH]] : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>

// The three projections' input gradients are summed into ln1's output
// gradient; the first layer norm gets no input gradient use (x is data).
// CHECK:         %[[DA1:.*]] = amp.add %{{.*}}, %{{.*}} : tensor<2x16x64xf32>
// CHECK:         %[[DA:.*]] = amp.add %[[DA1]], %{{.*}} : tensor<2x16x64xf32>
// CHECK-NEXT:    %{{.*}}, %[[DLN1_W:.*]], %{{.*}} = amp.layer_norm_grad %[[DA]], %[[X]], %[[MEAN1]], %[[RSTD1]], %[[LN1_W]]
// CHECK-NEXT:    %[[CLIPPED:.*]]:16, %[[NORM:.*]] = amp.clip_grad_norm %[[DLN1_W]], {{.*}} {max_norm = 1.000000e+00 : f64}
// CHECK-NEXT:    %{{.*}}, %{{.*}} = amp.sgd_update %[[LN1_W]], %[[CLIPPED]]#0, momentum_buffer %[[LN1_W_M]], lr %[[LR]] {momentum = 9.000000e-01 : f64}
// CHECK-COUNT-15: amp.sgd_update
// CHECK:         return {{.*}}, %[[LOSS]], %[[NORM]] :
