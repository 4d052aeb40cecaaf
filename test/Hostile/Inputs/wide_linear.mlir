// A training step with one wide parameter (4096x4096 f32, 64 MiB): its
// checkpoint takes long enough to save that a test can signal amp-run in
// the middle of it (signals.test). Plain SGD on y = x w^T, MSE.
func.func @wide_step(
    %w: tensor<4096x4096xf32> {amp.role = #amp.role<parameter>, amp.name = "wide.weight"},
    %x: tensor<1x4096xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<1x4096xf32> {amp.role = #amp.role<label>, amp.name = "y"},
    %lr: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "lr"})
    -> (tensor<4096x4096xf32> {amp.role = #amp.role<parameter>, amp.name = "wide.weight"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %pred = amp.matmul %x, %w {transpose_rhs} : tensor<1x4096xf32>, tensor<4096x4096xf32> -> tensor<1x4096xf32>
  %diff = amp.sub %pred, %y : tensor<1x4096xf32>
  %sq = amp.mul %diff, %diff : tensor<1x4096xf32>
  %loss = amp.reduce_mean %sq {axes = array<i64: 0, 1>} : tensor<1x4096xf32> -> tensor<f32>
  // d loss / d pred = 2 (pred - y) / 4096
  %k = amp.constant dense<0.00048828125> : tensor<1x4096xf32>
  %dpred = amp.mul %diff, %k : tensor<1x4096xf32>
  %dw = amp.matmul %dpred, %x {transpose_lhs} : tensor<1x4096xf32>, tensor<1x4096xf32> -> tensor<4096x4096xf32>
  %lrw = amp.broadcast %lr : tensor<f32> -> tensor<4096x4096xf32>
  %stepw = amp.mul %lrw, %dw : tensor<4096x4096xf32>
  %w1 = amp.sub %w, %stepw : tensor<4096x4096xf32>
  return %w1, %loss : tensor<4096x4096xf32>, tensor<f32>
}
