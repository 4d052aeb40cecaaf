// A forward model without matrix products (its step launches only amp's own
// kernels, no cuBLASLt): y = tanh(x * w + b), mean squared error against the
// labels. The CUDA graph tests (cuda-graphs-emulated.test) train it.
func.func @scale_shift(
    %w: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "b"},
    %x: tensor<8x16xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<8x16xf32> {amp.role = #amp.role<label>, amp.name = "y"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %wb = amp.broadcast %w : tensor<16xf32> -> tensor<8x16xf32>
  %bb = amp.broadcast %b : tensor<16xf32> -> tensor<8x16xf32>
  %xw = amp.mul %x, %wb : tensor<8x16xf32>
  %z = amp.add %xw, %bb : tensor<8x16xf32>
  %t = amp.tanh %z : tensor<8x16xf32>
  %diff = amp.sub %t, %y : tensor<8x16xf32>
  %sq = amp.mul %diff, %diff : tensor<8x16xf32>
  %loss = amp.reduce_mean %sq {axes = array<i64: 0, 1>} : tensor<8x16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
