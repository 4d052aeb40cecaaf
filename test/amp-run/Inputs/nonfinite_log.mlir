// A forward model taking the log of its input: a negative x makes the
// loss NaN in any precision (test/amp-run/find-nonfinite-log.test). The op
// carries a name as the ONNX importer gives one (a NameLoc around the
// file's location).
func.func @net(
    %s: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "scale.weight"},
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %y: tensor<8x4xf32> {amp.role = #amp.role<label>, amp.name = "y"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %sb = amp.broadcast %s : tensor<4xf32> -> tensor<8x4xf32>
  %h = amp.mul %x, %sb : tensor<8x4xf32>
  %l = amp.log %h : tensor<8x4xf32> loc("features/Log"("model.onnx":0:0))
  %loss = amp.mse_loss %l, %y : tensor<8x4xf32>
  return %loss : tensor<f32>
}
