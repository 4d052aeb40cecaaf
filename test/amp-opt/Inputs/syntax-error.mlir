// An unterminated function body.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
