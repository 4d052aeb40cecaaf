// An MLP large enough that OpenBLAS splits its matrix products over
// threads (M * N * K well above its single-thread threshold):
//   x [128, 128] -> Linear(128, 256) -> GELU -> Linear(256, 128) -> y
func.func @mlp(
    %x: tensor<128x128xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %w1: tensor<256x128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
    %b1: tensor<256xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
    %w2: tensor<128x256xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
    %b2: tensor<128xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"})
    -> (tensor<128x128xf32> {amp.role = #amp.role<output>, amp.name = "y"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h1 = amp.linear %x, %w1, %b1
      : (tensor<128x128xf32>, tensor<256x128xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %h2 = amp.gelu %h1 : tensor<128x256xf32>
  %y = amp.linear %h2, %w2, %b2
      : (tensor<128x256xf32>, tensor<128x256xf32>, tensor<128xf32>) -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}
