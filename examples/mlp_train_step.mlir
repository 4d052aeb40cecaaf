// mlp_train_step.mlir - one fp32 training step of a small MLP classifier.
//
// The model (PyTorch terms):
//
//   x [32, 64] -> LayerNorm(64) -> Linear(64, 128) -> GELU (erf form)
//              -> Linear(128, 10) -> cross_entropy(logits, labels [32])
//
// This is the graph our autodiff (`amp-opt --amp-autodiff`) is meant to
// produce from the forward model, written out by hand: the forward pass, the
// loss, the backward pass starting from one `amp.seed` of the loss, and an
// SGD update with momentum 0.9 (`torch.optim.SGD(params, lr, momentum=0.9)`).
//
// The step is a pure function (DESIGN.md section 3). It takes, in order:
//   parameters       (amp.role parameter, amp.name = PyTorch state_dict key)
//   momentum buffers (amp.role optimizer_state, one per parameter)
//   the input batch  (input) and integer class labels (label)
//   the learning rate as a 0-d f32 (hyperparameter)
// and returns the new parameters and new momentum buffers, in the same order
// and with the same types, then the loss (loss). There is no loss-scaler
// state: this is the fp32 step before `--amp-loss-scaling` rewrites it.
//
// Backward, for `y = linear(a, W, b) = a * W^T + b` with output gradient dy:
//   dW = dy^T * a                   (amp.matmul {transpose_lhs})
//   db = sum over the batch of dy   (amp.reduce_sum {axes = [0]})
//   da = dy * W                     (amp.matmul)
// The layer norm backward reuses the mean and rstd the forward saved.
//
// Verify (and print) it with:
//
//   amp-opt examples/mlp_train_step.mlir

func.func @mlp_train_step(
    // Parameters.
    %ln_w: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.weight"},
    %ln_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.bias"},
    %fc1_w: tensor<128x64xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
    %fc1_b: tensor<128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
    %fc2_w: tensor<10x128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
    %fc2_b: tensor<10xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"},
    // SGD momentum buffers, one per parameter, in the parameters' order.
    %ln_w_m: tensor<64xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "ln.weight.momentum_buffer"},
    %ln_b_m: tensor<64xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "ln.bias.momentum_buffer"},
    %fc1_w_m: tensor<128x64xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc1.weight.momentum_buffer"},
    %fc1_b_m: tensor<128xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc1.bias.momentum_buffer"},
    %fc2_w_m: tensor<10x128xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc2.weight.momentum_buffer"},
    %fc2_b_m: tensor<10xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc2.bias.momentum_buffer"},
    // Data.
    %x: tensor<32x64xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %labels: tensor<32xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    // Hyper-parameters.
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.weight"},
        tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.bias"},
        tensor<128x64xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
        tensor<128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
        tensor<10x128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
        tensor<10xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"},
        tensor<64xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "ln.weight.momentum_buffer"},
        tensor<64xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "ln.bias.momentum_buffer"},
        tensor<128x64xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc1.weight.momentum_buffer"},
        tensor<128xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc1.bias.momentum_buffer"},
        tensor<10x128xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc2.weight.momentum_buffer"},
        tensor<10xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "fc2.bias.momentum_buffer"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  //===--------------------------------------------------------------------===//
  // Forward
  //===--------------------------------------------------------------------===//

  // LayerNorm(64); mean and rstd ([32] f32) are saved for the backward.
  %h0, %mean, %rstd = amp.layer_norm %x, %ln_w, %ln_b
      {axis = -1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>)
      -> (tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>)

  // fc1: Linear(64, 128).
  %h1 = amp.linear %h0, %fc1_w, %fc1_b
      : (tensor<32x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<32x128xf32>

  // GELU, erf form (approximate = none, the default).
  %h2 = amp.gelu %h1 : tensor<32x128xf32>

  // fc2: Linear(128, 10).
  %logits = amp.linear %h2, %fc2_w, %fc2_b
      : (tensor<32x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<32x10xf32>

  // Mean cross-entropy over the batch.
  %loss = amp.cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi64>

  //===--------------------------------------------------------------------===//
  // Backward
  //===--------------------------------------------------------------------===//

  // d loss / d loss: where the backward starts (loss scaling rewrites it).
  %dloss = amp.seed %loss

  // d loss / d logits = (softmax(logits) - onehot(labels)) * dloss / 32.
  %dlogits = amp.cross_entropy_grad %dloss, %logits, %labels
      : tensor<32x10xf32>, tensor<32xi64>

  // fc2 backward.
  %dfc2_w = amp.matmul %dlogits, %h2 {transpose_lhs}
      : tensor<32x10xf32>, tensor<32x128xf32> -> tensor<10x128xf32>
  %dfc2_b = amp.reduce_sum %dlogits {axes = array<i64: 0>}
      : tensor<32x10xf32> -> tensor<10xf32>
  %dh2 = amp.matmul %dlogits, %fc2_w
      : tensor<32x10xf32>, tensor<10x128xf32> -> tensor<32x128xf32>

  // GELU backward from the forward input.
  %dh1 = amp.gelu_grad %dh2, %h1 : tensor<32x128xf32>

  // fc1 backward.
  %dfc1_w = amp.matmul %dh1, %h0 {transpose_lhs}
      : tensor<32x128xf32>, tensor<32x64xf32> -> tensor<128x64xf32>
  %dfc1_b = amp.reduce_sum %dh1 {axes = array<i64: 0>}
      : tensor<32x128xf32> -> tensor<128xf32>
  %dh0 = amp.matmul %dh1, %fc1_w
      : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>

  // LayerNorm backward from the saved statistics. The input gradient %dx is
  // not needed (x is data, not a parameter); the op computes it anyway and
  // it is dead here.
  %dx, %dln_w, %dln_b = amp.layer_norm_grad %dh0, %x, %mean, %rstd, %ln_w
      {axis = -1 : i64}
      : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<64xf32>)
      -> (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>)

  //===--------------------------------------------------------------------===//
  // Optimizer: SGD with momentum 0.9
  //===--------------------------------------------------------------------===//

  %ln_w1, %ln_w_m1 = amp.sgd_update %ln_w, %dln_w, momentum_buffer %ln_w_m, lr %lr
      {momentum = 9.000000e-01 : f64} : tensor<64xf32>, tensor<64xf32>
  %ln_b1, %ln_b_m1 = amp.sgd_update %ln_b, %dln_b, momentum_buffer %ln_b_m, lr %lr
      {momentum = 9.000000e-01 : f64} : tensor<64xf32>, tensor<64xf32>
  %fc1_w1, %fc1_w_m1 = amp.sgd_update %fc1_w, %dfc1_w, momentum_buffer %fc1_w_m, lr %lr
      {momentum = 9.000000e-01 : f64} : tensor<128x64xf32>, tensor<128x64xf32>
  %fc1_b1, %fc1_b_m1 = amp.sgd_update %fc1_b, %dfc1_b, momentum_buffer %fc1_b_m, lr %lr
      {momentum = 9.000000e-01 : f64} : tensor<128xf32>, tensor<128xf32>
  %fc2_w1, %fc2_w_m1 = amp.sgd_update %fc2_w, %dfc2_w, momentum_buffer %fc2_w_m, lr %lr
      {momentum = 9.000000e-01 : f64} : tensor<10x128xf32>, tensor<10x128xf32>
  %fc2_b1, %fc2_b_m1 = amp.sgd_update %fc2_b, %dfc2_b, momentum_buffer %fc2_b_m, lr %lr
      {momentum = 9.000000e-01 : f64} : tensor<10xf32>, tensor<10xf32>

  return %ln_w1, %ln_b1, %fc1_w1, %fc1_b1, %fc2_w1, %fc2_b1,
         %ln_w_m1, %ln_b_m1, %fc1_w_m1, %fc1_b_m1, %fc2_w_m1, %fc2_b_m1,
         %loss
      : tensor<64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>,
        tensor<10x128xf32>, tensor<10xf32>,
        tensor<64xf32>, tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>,
        tensor<10x128xf32>, tensor<10xf32>,
        tensor<f32>
}
