// transformer_block.mlir - a forward pre-LN transformer block with a loss.
//
// One GPT-2-style block (d_model 64, 4 heads of 16, MLP 64 -> 256 -> 64) on
// a batch of 2 sequences of 16 tokens, in fp32:
//
//   h   = x + out_proj(attention(ln1(x)))
//   y   = h + fc2(gelu_tanh(fc1(ln2(h))))
//   loss = mse_loss(y, target)
//
// attention(a) splits q_proj(a), k_proj(a), v_proj(a) into 4 heads
// ([2, 16, 64] -> [2, 16, 4, 16] -> [2, 4, 16, 16]), computes
// softmax(q k^T / sqrt(16)) v per head (no causal mask), and merges the heads
// back to [2, 16, 64].
//
// It is a forward model (DESIGN.md section 3): parameters carry
// `amp.role = #amp.role<parameter>` and a stable `amp.name` (PyTorch-style
// state_dict keys), the activations are the `input`, the regression target
// the `label`, and the only result is the f32 loss. `amp-opt --amp-autodiff`
// turns such a model into a training step.
//
// Verify (and print) it with:
//
//   amp-opt examples/transformer_block.mlir

func.func @transformer_block(
    %x: tensor<2x16x64xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %target: tensor<2x16x64xf32> {amp.role = #amp.role<label>, amp.name = "target"},
    %ln1_w: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln1.weight"},
    %ln1_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln1.bias"},
    %q_w: tensor<64x64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.q_proj.weight"},
    %q_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.q_proj.bias"},
    %k_w: tensor<64x64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.k_proj.weight"},
    %k_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.k_proj.bias"},
    %v_w: tensor<64x64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.v_proj.weight"},
    %v_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.v_proj.bias"},
    %o_w: tensor<64x64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.out_proj.weight"},
    %o_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "attn.out_proj.bias"},
    %ln2_w: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln2.weight"},
    %ln2_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "ln2.bias"},
    %fc1_w: tensor<256x64xf32> {amp.role = #amp.role<parameter>, amp.name = "mlp.fc1.weight"},
    %fc1_b: tensor<256xf32> {amp.role = #amp.role<parameter>, amp.name = "mlp.fc1.bias"},
    %fc2_w: tensor<64x256xf32> {amp.role = #amp.role<parameter>, amp.name = "mlp.fc2.weight"},
    %fc2_b: tensor<64xf32> {amp.role = #amp.role<parameter>, amp.name = "mlp.fc2.bias"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  //===--------------------------------------------------------------------===//
  // Attention sub-block
  //===--------------------------------------------------------------------===//

  %a, %ln1_mean, %ln1_rstd = amp.layer_norm %x, %ln1_w, %ln1_b
      {axis = -1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
      -> (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>)

  // Projections: [batch, seq, d_model] -> [batch, seq, d_model].
  %q = amp.linear %a, %q_w, %q_b
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %k = amp.linear %a, %k_w, %k_b
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %v = amp.linear %a, %v_w, %v_b
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>

  // Split heads: [2, 16, 64] -> [2, 16, 4, 16] -> [batch, heads, seq, head_dim].
  %q4 = amp.reshape %q : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %qh = amp.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>}
      : tensor<2x16x4x16xf32> -> tensor<2x4x16x16xf32>
  %k4 = amp.reshape %k : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %kh = amp.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>}
      : tensor<2x16x4x16xf32> -> tensor<2x4x16x16xf32>
  %v4 = amp.reshape %v : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %vh = amp.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>}
      : tensor<2x16x4x16xf32> -> tensor<2x4x16x16xf32>

  // Scores q k^T / sqrt(head_dim): [2, 4, seq, seq].
  %scores = amp.matmul %qh, %kh {transpose_rhs}
      : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %scale = amp.constant dense<2.500000e-01> : tensor<f32>
  %scale_b = amp.broadcast %scale : tensor<f32> -> tensor<2x4x16x16xf32>
  %scaled = amp.mul %scores, %scale_b : tensor<2x4x16x16xf32>
  %probs = amp.softmax %scaled {axis = -1 : i64} : tensor<2x4x16x16xf32>

  // Weighted values: [2, 4, seq, head_dim].
  %ctx = amp.matmul %probs, %vh
      : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>

  // Merge heads: [2, 4, 16, 16] -> [2, 16, 4, 16] -> [2, 16, 64].
  %ctx_t = amp.transpose %ctx {permutation = array<i64: 0, 2, 1, 3>}
      : tensor<2x4x16x16xf32> -> tensor<2x16x4x16xf32>
  %ctx_m = amp.reshape %ctx_t : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>

  %attn = amp.linear %ctx_m, %o_w, %o_b
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %h = amp.add %x, %attn : tensor<2x16x64xf32>

  //===--------------------------------------------------------------------===//
  // MLP sub-block
  //===--------------------------------------------------------------------===//

  %b, %ln2_mean, %ln2_rstd = amp.layer_norm %h, %ln2_w, %ln2_b
      {axis = -1 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
      -> (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
  %m1 = amp.linear %b, %fc1_w, %fc1_b
      : (tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<2x16x256xf32>
  %m2 = amp.gelu %m1 approximate = tanh : tensor<2x16x256xf32>
  %m3 = amp.linear %m2, %fc2_w, %fc2_b
      : (tensor<2x16x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %y = amp.add %h, %m3 : tensor<2x16x64xf32>

  //===--------------------------------------------------------------------===//
  // Loss
  //===--------------------------------------------------------------------===//

  %loss = amp.mse_loss %y, %target : tensor<2x16x64xf32>
  return %loss : tensor<f32>
}
