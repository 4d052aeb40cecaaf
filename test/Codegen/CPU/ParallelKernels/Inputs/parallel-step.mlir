// A GELU over 256x512 f32 for dispatch-parallel.mlir's pipeline checks.
func.func @gelu(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %y = amp.gelu %x : tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}
