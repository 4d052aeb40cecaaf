// A small MLP classifier for batch-size experiments: BATCH is replaced by
// the test (sed) before compiling, so the same model exists at several
// batch sizes (test/amp-run/accumulate.test).
//
//   x [BATCH, 16] -> LayerNorm(16) -> Linear(16, 8) -> GELU -> Linear(8, 4)
func.func @mlp(
    %x: tensor<BATCHx16xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %ln_w: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.weight"},
    %ln_b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "ln.bias"},
    %fc1_w: tensor<8x16xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
    %fc1_b: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
    %fc2_w: tensor<4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
    %fc2_b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"})
    -> (tensor<BATCHx4xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h0, %mean, %rstd = amp.layer_norm %x, %ln_w, %ln_b
      {axis = -1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<BATCHx16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<BATCHx16xf32>, tensor<BATCHxf32>, tensor<BATCHxf32>)
  %h1 = amp.linear %h0, %fc1_w, %fc1_b
      : (tensor<BATCHx16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<BATCHx8xf32>
  %h2 = amp.gelu %h1 : tensor<BATCHx8xf32>
  %logits = amp.linear %h2, %fc2_w, %fc2_b
      : (tensor<BATCHx8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<BATCHx4xf32>
  return %logits : tensor<BATCHx4xf32>
}
