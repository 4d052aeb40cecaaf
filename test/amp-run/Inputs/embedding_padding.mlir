// nn.Embedding(10, 4, padding_idx=3) under a linear loss: the loss is
// sum(table[ids] * c), so each step's gradient of row r is c times the
// number of ids equal to r, except the padding row 3, which gets none
// (test/amp-run/gather-padding.test checks the rows after training).
func.func @embedding(
    %table: tensor<10x4xf32> {amp.role = #amp.role<parameter>, amp.name = "emb.weight"},
    %ids: tensor<2x5xi64> {amp.role = #amp.role<input>, amp.name = "ids"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %e = amp.gather %table, %ids {axis = 0 : i64, padding_idx = 3 : i64} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  %c = amp.constant dense<[1.0, -2.0, 0.5, 4.0]> : tensor<4xf32>
  %cb = amp.broadcast %c : tensor<4xf32> -> tensor<2x5x4xf32>
  %p = amp.mul %e, %cb : tensor<2x5x4xf32>
  %l = amp.reduce_sum %p {axes = array<i64: 0, 1, 2>} : tensor<2x5x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
