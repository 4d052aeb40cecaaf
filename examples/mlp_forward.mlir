// mlp_forward.mlir - the forward model of the MLP classifier in
// mlp_train_step.mlir, returning its logits.
//
//   x [32, 64] -> LayerNorm(64) -> Linear(64, 128) -> GELU (erf form)
//              -> Linear(128, 10) -> logits [32, 10]
//
// It returns logits, not a loss: `amp-opt --amp-autodiff` appends the loss
// (and a `labels` argument) when asked to, and then generates the training
// step that examples/mlp_train_step.mlir spells out by hand:
//
//   amp-opt examples/mlp_forward.mlir \
//       --amp-autodiff="loss=cross_entropy momentum=0.9"
//
// The only difference from the hand-written step is the order of the
// arguments: the generated step puts the optimizer state before the data
// (parameters, buffers, optimizer state, inputs, labels, hyper-parameters).

func.func @mlp(
    %x: tensor<32x64xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %ln_w: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.weight"},
    %ln_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.bias"},
    %fc1_w: tensor<128x64xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
    %fc1_b: tensor<128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
    %fc2_w: tensor<10x128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
    %fc2_b: tensor<10xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"})
    -> (tensor<32x10xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h0, %mean, %rstd = amp.layer_norm %x, %ln_w, %ln_b
      {axis = -1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>)
      -> (tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>)
  %h1 = amp.linear %h0, %fc1_w, %fc1_b
      : (tensor<32x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %h2 = amp.gelu %h1 : tensor<32x128xf32>
  %logits = amp.linear %h2, %fc2_w, %fc2_b
      : (tensor<32x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<32x10xf32>
  return %logits : tensor<32x10xf32>
}
