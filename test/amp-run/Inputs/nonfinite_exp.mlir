// A forward model whose exp overflows fp16 (exp(x) > 65504 for x > 11.1)
// but not fp32: test/amp-run/find-nonfinite*.test feed x = 12. The scale
// is a norm-like weight and starts at one, so exp sees x itself.
func.func @net(
    %s: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "scale.weight"},
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<8x4xf32> {amp.role = #amp.role<label>, amp.name = "y"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %sb = amp.broadcast %s : tensor<4xf32> -> tensor<8x4xf32>
  %h = amp.mul %x, %sb : tensor<8x4xf32>
  %e = amp.exp %h : tensor<8x4xf32>
  %loss = amp.mse_loss %e, %y : tensor<8x4xf32>
  return %loss : tensor<f32>
}
