// amp.add takes float tensors.
func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  // Line 4 below.
  %0 = "amp.add"(%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
