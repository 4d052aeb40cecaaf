// The contraction dimensions of a matmul disagree.
func.func @f(%a: tensor<2x8xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // Line 4 below.
  %0 = amp.matmul %a, %b : tensor<2x8xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
