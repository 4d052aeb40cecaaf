// A two-layer MLP whose input feeds a linear layer directly (every GEMM
// size a multiple of 16): in fp8 the input is cast to bf16 and quantized
// to e4m3 with nothing in between, for fp8-overflow.test.
func.func @fp8_mlp(
    %x: tensor<32x32xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %target: tensor<32x16xf32> {amp.role = #amp.role<label>, amp.name = "target"},
    %fc1_w: tensor<64x32xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
    %fc1_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
    %fc2_w: tensor<16x64xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
    %fc2_b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h1 = amp.linear %x, %fc1_w, %fc1_b
      : (tensor<32x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %h2 = amp.gelu %h1 : tensor<32x64xf32>
  %y = amp.linear %h2, %fc2_w, %fc2_b
      : (tensor<32x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<32x16xf32>
  %loss = amp.mse_loss %y, %target : tensor<32x16xf32>
  return %loss : tensor<f32>
}
