// A forward model with dropout and a loss: the evaluation entry point drops
// the dropout (test/amp-compile/eval-mode.test).
func.func @dropout_mlp(
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<8x2xf32> {amp.role = #amp.role<label>, amp.name = "y"},
    %seed: tensor<i64> {amp.role = #amp.role<input>, amp.name = "seed"},
    %w: tensor<2x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<2xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h, %mask = amp.dropout %x, %seed {probability = 0.5 : f64} : tensor<8x4xf32> -> tensor<8x4xi1>
  %pred = amp.linear %h, %w, %b : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %loss = amp.mse_loss %pred, %y : tensor<8x2xf32>
  return %loss : tensor<f32>
}
