// One elementwise kernel for cuda-runtime-mlir-abi.test.
func.func @add_f32(%a: tensor<1000x8xf32>, %b: tensor<1000x8xf32>) -> tensor<1000x8xf32> {
  %0 = amp.add %a, %b : tensor<1000x8xf32>
  return %0 : tensor<1000x8xf32>
}
