// The backward rule of each op kind, as --amp-autodiff builds it: with
// optimizer=none the pass generates @<name>_grad, which returns the loss
// and one gradient per parameter (amp.role output, amp.name
// "<param>.grad"). Numerics: test/Integration/CPU/gradients_*.mlir.

// RUN: amp-opt %s -split-input-file --amp-autodiff=optimizer=none | FileCheck %s

// A value used twice gets the sum of both gradients.
// CHECK-LABEL: func.func @fanout_grad(
// CHECK-SAME:    %[[W:.*]]: tensor<3xf32> {amp.name = "w", amp.role = #amp.role<parameter>})
// CHECK-SAME:    -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}, tensor<3xf32> {amp.name = "w.grad", amp.role = #amp.role<output>})
// CHECK-NOT:     amp.graph
// CHECK:         %[[SEED:.*]] = amp.seed
// CHECK-NEXT:    %[[G1:.*]] = amp.reshape %[[SEED]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT:    %[[G:.*]] = amp.broadcast %[[G1]] : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[D:.*]] = amp.mul %[[G]], %[[W]]
// CHECK-NEXT:    %[[SUM:.*]] = amp.add %[[D]], %[[D]]
// CHECK-NEXT:    return %{{.*}}, %[[SUM]]

func.func @fanout(%w: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %sq = amp.mul %w, %w : tensor<3xf32>
  %l = amp.reduce_sum %sq {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// broadcast: sum over the added and the expanded dimensions, then reshape;
// reduce_mean: scale by 1 / count before broadcasting back.
// CHECK-LABEL: func.func @bcast_grad(
// CHECK:         %[[SEED:.*]] = amp.seed
// CHECK-NEXT:    %[[INV:.*]] = amp.constant dense<0.00833333377> : tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = amp.mul %[[SEED]], %[[INV]] : tensor<f32>
// CHECK-NEXT:    %[[K:.*]] = amp.reshape %[[S]] : tensor<f32> -> tensor<1x1x1x1xf32>
// CHECK-NEXT:    %[[G:.*]] = amp.broadcast %[[K]] : tensor<1x1x1x1xf32> -> tensor<3x2x5x4xf32>
// CHECK-NEXT:    %[[R:.*]] = amp.reduce_sum %[[G]] {axes = array<i64: 0, 2>} : tensor<3x2x5x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[D:.*]] = amp.reshape %[[R]] : tensor<2x4xf32> -> tensor<2x1x4xf32>
// CHECK-NEXT:    return %{{.*}}, %[[D]]

func.func @bcast(%b: tensor<2x1x4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.broadcast %b : tensor<2x1x4xf32> -> tensor<3x2x5x4xf32>
  %l = amp.reduce_mean %y {axes = array<i64: 0, 1, 2, 3>} : tensor<3x2x5x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// reduce_max (amax): the gradient is shared among the elements equal to
// the maximum.
// CHECK-LABEL: func.func @rmax_grad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK:         %[[M:.*]] = amp.reduce_max %[[X]]
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1xf32> -> tensor<2xf32>
// CHECK-NEXT:    %[[MK:.*]] = amp.reshape %[[M]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %[[MB:.*]] = amp.broadcast %[[MK]] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[IS_MAX:.*]] = amp.compare eq, %[[X]], %[[MB]]
// CHECK-NEXT:    %[[ZERO:.*]] = amp.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[IND:.*]] = amp.where %[[IS_MAX]], %[[ONE]], %[[ZERO]]
// CHECK-NEXT:    %[[COUNT:.*]] = amp.reduce_sum %[[IND]] {axes = array<i64: 1>, keep_dims} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %[[GK:.*]] = amp.reshape %[[G]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %[[SHARE:.*]] = amp.div %[[GK]], %[[COUNT]]
// CHECK-NEXT:    %[[SB:.*]] = amp.broadcast %[[SHARE]] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[D:.*]] = amp.where %[[IS_MAX]], %[[SB]], %[[ZERO]]
// CHECK-NEXT:    return %{{.*}}, %[[D]]

func.func @rmax(%x: tensor<2x3xf32> {amp.role = #amp.role<parameter>, amp.name = "x"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %m = amp.reduce_max %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  %l = amp.reduce_sum %m {axes = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A shared (unbatched) matmul operand: batched product, then a sum over
// the batch.
// CHECK-LABEL: func.func @shared_lhs_grad(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x4xf32>
// CHECK-SAME:    %[[B:[^:]*]]: tensor<2x4x5xf32>
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1x1x1xf32> -> tensor<2x3x5xf32>
// CHECK-NEXT:    %[[DB:.*]] = amp.matmul %[[A]], %[[G]] {transpose_lhs} : tensor<3x4xf32>, tensor<2x3x5xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT:    %[[DAB:.*]] = amp.matmul %[[G]], %[[B]] {transpose_rhs} : tensor<2x3x5xf32>, tensor<2x4x5xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[DA:.*]] = amp.reduce_sum %[[DAB]] {axes = array<i64: 0>} : tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    return %{{.*}}, %[[DA]], %[[DB]]

func.func @shared_lhs(%a: tensor<3x4xf32> {amp.role = #amp.role<parameter>, amp.name = "a"},
                      %b: tensor<2x4x5xf32> {amp.role = #amp.role<parameter>, amp.name = "b"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %c = amp.matmul %a, %b : tensor<3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %l = amp.reduce_sum %c {axes = array<i64: 0, 1, 2>} : tensor<2x3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// transpose: the inverse permutation; slice: slice_grad; concat: a slice
// of the gradient per input.
// CHECK-LABEL: func.func @concat_slice_grad(
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    %[[DS:.*]] = amp.transpose %[[G]] {permutation = array<i64: 1, 0>}
// CHECK-NEXT:    %[[DC:.*]] = amp.slice_grad %[[DS]] {limits = array<i64: 2, 5>, starts = array<i64: 0, 1>, strides = array<i64: 1, 2>} : tensor<2x2xf32> -> tensor<2x5xf32>
// CHECK-NEXT:    %[[DX:.*]] = amp.slice %[[DC]] {limits = array<i64: 2, 3>, starts = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[DY:.*]] = amp.slice %[[DC]] {limits = array<i64: 2, 5>, starts = array<i64: 0, 3>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    return %{{.*}}, %[[DX]], %[[DY]]

func.func @concat_slice(%x: tensor<2x3xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                        %y: tensor<2x2xf32> {amp.role = #amp.role<parameter>, amp.name = "y"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %c = amp.concat %x, %y {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %s = amp.slice %c {starts = array<i64: 0, 1>, limits = array<i64: 2, 5>, strides = array<i64: 1, 2>} : tensor<2x5xf32> -> tensor<2x2xf32>
  %t = amp.transpose %s {permutation = array<i64: 1, 0>} : tensor<2x2xf32> -> tensor<2x2xf32>
  %l = amp.reduce_sum %t {axes = array<i64: 0, 1>} : tensor<2x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// where: the condition (from amp.compare) gets no gradient; maximum splits
// the gradient on ties; y's two uses are summed.
// CHECK-LABEL: func.func @select_grad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-SAME:    %[[Y:[^:]*]]: tensor<4xf32>
// CHECK:         %[[C:.*]] = amp.compare gt, %[[X]], %[[Y]]
// CHECK-NEXT:    %[[M:.*]] = amp.where %[[C]], %[[X]], %[[Y]]
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = amp.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %[[HALF:.*]] = amp.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-NEXT:    %[[GH:.*]] = amp.mul %[[G]], %[[HALF]]
// CHECK-NEXT:    %[[TIE:.*]] = amp.compare eq, %[[M]], %[[Y]]
// CHECK-NEXT:    %[[WINS:.*]] = amp.compare gt, %[[M]], %[[Y]]
// CHECK-NEXT:    %[[T:.*]] = amp.where %[[TIE]], %[[GH]], %[[ZERO]]
// CHECK-NEXT:    %[[DM:.*]] = amp.where %[[WINS]], %[[G]], %[[T]]
// CHECK-NEXT:    %[[DY1:.*]] = amp.sub %[[G]], %[[DM]]
// CHECK-NEXT:    %[[DX:.*]] = amp.where %[[C]], %[[DM]], %[[ZERO]]
// CHECK-NEXT:    %[[DY2:.*]] = amp.where %[[C]], %[[ZERO]], %[[DM]]
// CHECK-NEXT:    %[[DY:.*]] = amp.add %[[DY1]], %[[DY2]]
// CHECK-NEXT:    return %{{.*}}, %[[DX]], %[[DY]]

func.func @select(%x: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                  %y: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "y"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %c = amp.compare gt, %x, %y : tensor<4xf32> -> tensor<4xi1>
  %m = amp.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>
  %n = amp.maximum %m, %y : tensor<4xf32>
  %l = amp.reduce_sum %n {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Embedding and dropout: gather_grad (the indices get no gradient) and
// dropout_grad from the saved mask (the seed gets none). Hyper-parameters
// of the forward model stay arguments.
// CHECK-LABEL: func.func @embed_grad(
// CHECK-SAME:    %[[TABLE:[^:]*]]: tensor<10x4xf32> {amp.name = "embedding.weight", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[IDS:[^:]*]]: tensor<2x3xi64> {amp.name = "ids", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[SEED_ARG:[^:]*]]: tensor<i64> {amp.name = "seed", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    tensor<10x4xf32> {amp.name = "embedding.weight.grad", amp.role = #amp.role<output>})
// CHECK:         %{{.*}}, %[[MASK:.*]] = amp.dropout %{{.*}}, %[[SEED_ARG]]
// CHECK:         %[[G:.*]] = amp.broadcast
// CHECK-NEXT:    %[[DE:.*]] = amp.dropout_grad %[[G]], %[[MASK]] {probability = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[DT:.*]] = amp.gather_grad %[[DE]], %[[IDS]] : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// CHECK-NEXT:    return %{{.*}}, %[[DT]]

func.func @embed(%table: tensor<10x4xf32> {amp.role = #amp.role<parameter>, amp.name = "embedding.weight"},
                 %ids: tensor<2x3xi64> {amp.role = #amp.role<input>, amp.name = "ids"},
                 %seed: tensor<i64> {amp.role = #amp.role<hyperparameter>, amp.name = "seed"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %e = amp.gather %table, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %d, %mask = amp.dropout %e, %seed {probability = 1.000000e-01 : f64} : tensor<2x3x4xf32> -> tensor<2x3x4xi1>
  %l = amp.reduce_sum %d {axes = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Rules keep each gradient in its operand's type: the f32 gradient of a
// matmul with an f32 result is cast to the f16 operands, and the cast's
// gradient is cast back to the f32 parameter.
// CHECK-LABEL: func.func @mixed_grad(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4x8xf32>
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x8xf16>
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[G16:.*]] = amp.cast %[[G]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT:    %[[DW16:.*]] = amp.matmul %[[G16]], %[[X]] {transpose_lhs} : tensor<2x4xf16>, tensor<2x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT:    %[[DW:.*]] = amp.cast %[[DW16]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    return %{{.*}}, %[[DW]]

func.func @mixed(%w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                 %x: tensor<2x8xf16> {amp.role = #amp.role<input>, amp.name = "x"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %w16 = amp.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
  %y = amp.matmul %x, %w16 {transpose_rhs} : tensor<2x8xf16>, tensor<4x8xf16> -> tensor<2x4xf32>
  %l = amp.reduce_sum %y {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// batch_norm in inference mode: the running statistics are constants of
// the backward (and get no gradient); buffers the forward does not return
// are returned unchanged.
// CHECK-LABEL: func.func @bn_eval_grad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x4xf32>
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32>
// CHECK-SAME:    %[[B:[^:]*]]: tensor<3xf32>
// CHECK-SAME:    %[[RM:[^:]*]]: tensor<3xf32> {amp.name = "bn.running_mean", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[RV:[^:]*]]: tensor<3xf32> {amp.name = "bn.running_var", amp.role = #amp.role<buffer>})
// CHECK-SAME:    -> (tensor<3xf32> {amp.name = "bn.running_mean", amp.role = #amp.role<buffer>}, tensor<3xf32> {amp.name = "bn.running_var", amp.role = #amp.role<buffer>}, tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// CHECK:         %[[G:.*]] = amp.broadcast %{{.*}} : tensor<1x1x1x1xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT:    %[[EPS:.*]] = amp.constant dense<9.99999974E-6> : tensor<3xf32>
// CHECK-NEXT:    %[[VE:.*]] = amp.add %[[RV]], %[[EPS]]
// CHECK-NEXT:    %[[RSTD:.*]] = amp.rsqrt %[[VE]]
// CHECK-NEXT:    %[[SCALE:.*]] = amp.mul %[[W]], %[[RSTD]]
// CHECK-NEXT:    %[[SC:.*]] = amp.reshape %[[SCALE]] : tensor<3xf32> -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[SB:.*]] = amp.broadcast %[[SC]] : tensor<3x1x1xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT:    %[[DX:.*]] = amp.mul %[[G]], %[[SB]]
// CHECK:         %[[CENTERED:.*]] = amp.sub %[[X]], %{{.*}}
// CHECK:         %[[XHAT:.*]] = amp.mul %[[CENTERED]], %{{.*}}
// CHECK-NEXT:    %[[GX:.*]] = amp.mul %[[G]], %[[XHAT]]
// CHECK-NEXT:    %[[DW:.*]] = amp.reduce_sum %[[GX]] {axes = array<i64: 0, 2, 3>} : tensor<2x3x4x4xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[DB:.*]] = amp.reduce_sum %[[G]] {axes = array<i64: 0, 2, 3>} : tensor<2x3x4x4xf32> -> tensor<3xf32>
// CHECK-NEXT:    return %[[RM]], %[[RV]], %{{.*}}, %[[DX]], %[[DW]], %[[DB]]

func.func @bn_eval(%x: tensor<2x3x4x4xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                   %w: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.weight"},
                   %b: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.bias"},
                   %rm: tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_mean"},
                   %rv: tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_var"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y, %sm, %sr, %nm, %nv = amp.batch_norm %x, %w, %b, %rm, %rv {training = false}
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %l = amp.reduce_sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mse_loss: the target gets the negated prediction gradient. pow follows
// PyTorch: no gradient to the base where the exponent is 0, none to the
// exponent where the base is 0 and the exponent non-negative.
// CHECK-LABEL: func.func @pow_mse_grad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-SAME:    %[[E:[^:]*]]: tensor<4xf32>
// CHECK-SAME:    %[[T:[^:]*]]: tensor<4xf32>
// CHECK:         %[[P:.*]] = amp.pow %[[X]], %[[E]]
// CHECK:         %[[SEED:.*]] = amp.seed
// CHECK-NEXT:    %[[DP:.*]] = amp.mse_loss_grad %[[SEED]], %[[P]], %[[T]]
// CHECK-NEXT:    %[[DT:.*]] = amp.neg %[[DP]]
// CHECK-NEXT:    %[[ZERO:.*]] = amp.constant dense<0.000000e+00>
// CHECK-NEXT:    %[[ONE:.*]] = amp.constant dense<1.000000e+00>
// CHECK-NEXT:    %[[EM1:.*]] = amp.sub %[[E]], %[[ONE]]
// CHECK-NEXT:    %[[POW:.*]] = amp.pow %[[X]], %[[EM1]]
// CHECK-NEXT:    %[[GE:.*]] = amp.mul %[[DP]], %[[E]]
// CHECK-NEXT:    %[[DX0:.*]] = amp.mul %[[GE]], %[[POW]]
// CHECK-NEXT:    %[[E0:.*]] = amp.compare eq, %[[E]], %[[ZERO]]
// CHECK-NEXT:    %[[DX:.*]] = amp.where %[[E0]], %[[ZERO]], %[[DX0]]
// CHECK-NEXT:    %[[LOG:.*]] = amp.log %[[X]]
// CHECK-NEXT:    %[[GP:.*]] = amp.mul %[[DP]], %[[P]]
// CHECK-NEXT:    %[[DE0:.*]] = amp.mul %[[GP]], %[[LOG]]
// CHECK-NEXT:    %[[X0:.*]] = amp.compare eq, %[[X]], %[[ZERO]]
// CHECK-NEXT:    %[[EGE0:.*]] = amp.compare ge, %[[E]], %[[ZERO]]
// CHECK-NEXT:    %[[DE1:.*]] = amp.where %[[EGE0]], %[[ZERO]], %[[DE0]]
// CHECK-NEXT:    %[[DE:.*]] = amp.where %[[X0]], %[[DE1]], %[[DE0]]
// CHECK-NEXT:    return %{{.*}}, %[[DX]], %[[DE]], %[[DT]]

func.func @pow_mse(%x: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                   %e: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "e"},
                   %t: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "t"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %p = amp.pow %x, %e : tensor<4xf32>
  %l = amp.mse_loss %p, %t : tensor<4xf32>
  return %l : tensor<f32>
}
