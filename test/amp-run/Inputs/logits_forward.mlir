// The linear-regression step of test/amp-compile/Inputs/linreg_step.mlir
// with a forward model that returns its prediction, not a loss: amp_eval
// has no loss to report (test/amp-run/eval-loss.test).
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

func.func @linreg(
    %w: tensor<1x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<1xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"},
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<8x1xf32> {amp.role = #amp.role<output>, amp.name = "pred"})
    attributes {amp.graph = #amp.graph<forward>} {
  %pred = amp.linear %x, %w, %b : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<8x1xf32>
  return %pred : tensor<8x1xf32>
}
