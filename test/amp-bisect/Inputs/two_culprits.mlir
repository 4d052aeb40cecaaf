// two_culprits.mlir - a small model where exactly two ops need fp32 under
// fp16: the linears "wide.fc" and "wide.proj" read exp(6x), whose values
// (up to about 1e9) overflow fp16; the other linears read N(0, 1) data.
func.func @two_culprits(
    %x: tensor<16x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %w1: tensor<8x8xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.weight"},
    %b1: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "fc1.bias"},
    %w2: tensor<8x8xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.weight"},
    %b2: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "fc2.bias"},
    %w3: tensor<8x8xf32> {amp.role = #amp.role<parameter>, amp.name = "wide.fc.weight"},
    %b3: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "wide.fc.bias"},
    %w4: tensor<8x8xf32> {amp.role = #amp.role<parameter>, amp.name = "wide.proj.weight"},
    %b4: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "wide.proj.bias"})
    -> (tensor<16x8xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h1 = amp.linear %x, %w1, %b1
      : (tensor<16x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<16x8xf32> loc("fc1")
  %a1 = amp.relu %h1 : tensor<16x8xf32> loc("act1")
  %h2 = amp.linear %a1, %w2, %b2
      : (tensor<16x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<16x8xf32> loc("fc2")
  %c6 = amp.constant dense<6.0> : tensor<16x8xf32> loc("six")
  %s = amp.mul %x, %c6 : tensor<16x8xf32> loc("scale")
  %big = amp.exp %s : tensor<16x8xf32> loc("big.exp")
  %h3 = amp.linear %big, %w3, %b3
      : (tensor<16x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<16x8xf32> loc("wide.fc")
  %h4 = amp.linear %big, %w4, %b4
      : (tensor<16x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<16x8xf32> loc("wide.proj")
  %n3 = amp.tanh %h3 : tensor<16x8xf32> loc("squash3")
  %n4 = amp.tanh %h4 : tensor<16x8xf32> loc("squash4")
  %m = amp.add %n3, %n4 : tensor<16x8xf32> loc("merge")
  %y = amp.add %h2, %m : tensor<16x8xf32> loc("out")
  return %y : tensor<16x8xf32>
}
