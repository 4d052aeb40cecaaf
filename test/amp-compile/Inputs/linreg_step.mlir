// A linear-regression training step written by hand: y = x w^T + b, MSE,
// plain SGD. Uses only ops whose lowering every test build has.
func.func @linreg_step(
    %w: tensor<1x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<1xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"},
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<8x1xf32> {amp.role = #amp.role<label>, amp.name = "y"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<1x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
        tensor<1xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %pred = amp.linear %x, %w, %b : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<8x1xf32>
  %diff = amp.sub %pred, %y : tensor<8x1xf32>
  %sq = amp.mul %diff, %diff : tensor<8x1xf32>
  %loss = amp.reduce_mean %sq {axes = array<i64: 0, 1>} : tensor<8x1xf32> -> tensor<f32>
  // d loss / d pred = 2 (pred - y) / 8
  %k = amp.constant dense<0.25> : tensor<8x1xf32>
  %dpred = amp.mul %diff, %k : tensor<8x1xf32>
  %dw = amp.matmul %dpred, %x {transpose_lhs} : tensor<8x1xf32>, tensor<8x4xf32> -> tensor<1x4xf32>
  %db = amp.reduce_sum %dpred {axes = array<i64: 0>} : tensor<8x1xf32> -> tensor<1xf32>
  %lrw = amp.broadcast %lr : tensor<f32> -> tensor<1x4xf32>
  %lrb = amp.broadcast %lr : tensor<f32> -> tensor<1xf32>
  %stepw = amp.mul %lrw, %dw : tensor<1x4xf32>
  %stepb = amp.mul %lrb, %db : tensor<1xf32>
  %w1 = amp.sub %w, %stepw : tensor<1x4xf32>
  %b1 = amp.sub %b, %stepb : tensor<1xf32>
  return %w1, %b1, %loss : tensor<1x4xf32>, tensor<1xf32>, tensor<f32>
}

// The forward model, for evaluation.
func.func @linreg(
    %w: tensor<1x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<1xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"},
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<8x1xf32> {amp.role = #amp.role<label>, amp.name = "y"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %pred = amp.linear %x, %w, %b : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<8x1xf32>
  %diff = amp.sub %pred, %y : tensor<8x1xf32>
  %sq = amp.mul %diff, %diff : tensor<8x1xf32>
  %loss = amp.reduce_mean %sq {axes = array<i64: 0, 1>} : tensor<8x1xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
