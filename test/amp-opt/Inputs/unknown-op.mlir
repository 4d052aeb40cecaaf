// An op the amp dialect does not define.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // Line 4 below.
  %0 = amp.frobnicate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
