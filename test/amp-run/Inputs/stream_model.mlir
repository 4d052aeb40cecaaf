// A model whose forward result is its input batch and whose loss is 0
// exactly when the labels are the inputs: --data's batches can be read back
// with --eval-output, and the loss shows whether inputs and labels stayed
// aligned (test/amp-run/data.test).
func.func @copy_step(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<2x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<2x4xf32> {amp.role = #amp.role<label>, amp.name = "y"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %diff = amp.sub %x, %y : tensor<2x4xf32>
  %sq = amp.mul %diff, %diff : tensor<2x4xf32>
  %loss = amp.reduce_mean %sq {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %w, %loss : tensor<4xf32>, tensor<f32>
}

func.func @copy(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<2x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<2x4xf32> {amp.role = #amp.role<label>, amp.name = "y"})
    -> (tensor<2x4xf32> {amp.role = #amp.role<output>, amp.name = "batch"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %zero = amp.constant dense<0.0> : tensor<2x4xf32>
  %batch = amp.add %x, %zero : tensor<2x4xf32>
  %diff = amp.sub %x, %y : tensor<2x4xf32>
  %sq = amp.mul %diff, %diff : tensor<2x4xf32>
  %loss = amp.reduce_mean %sq {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %batch, %loss : tensor<2x4xf32>, tensor<f32>
}
