// A linear classifier for the data-parallel overflow test
// (test/amp-run/data-parallel-overflow.test): in fp16 the input is cast to
// f16, so an f32 input above 65504 becomes inf on the rank that reads it.
func.func @linear(
    %x: tensor<4x16xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %w: tensor<4x16xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<4x4xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %logits = amp.linear %x, %w, %b
      : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %logits : tensor<4x4xf32>
}
