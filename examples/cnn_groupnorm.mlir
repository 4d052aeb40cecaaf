// cnn_groupnorm.mlir - a forward small CNN with GroupNorm, returning logits.
//
// The model (PyTorch terms), on a batch of 4 RGB 16x16 images (NCHW):
//
//   conv1: Conv2d(3, 8, 3, padding=1)                   [4, 8, 16, 16]
//   gn1:   GroupNorm(2, 8), SiLU
//   conv2: Conv2d(8, 16, 3, stride=2, padding=1)        [4, 16, 8, 8]
//   gn2:   GroupNorm(4, 16), SiLU
//   global average pool, flatten                        [4, 16]
//   fc:    Linear(16, 10)                               [4, 10] logits
//
// GroupNorm has no running statistics, so unlike examples/cnn.mlir the
// model has no buffers. It returns logits: `amp-opt --amp-autodiff` appends
// the cross-entropy loss and its `labels` argument with
//
//   amp-opt examples/cnn_groupnorm.mlir --amp-autodiff="loss=cross_entropy"

func.func @cnn_groupnorm(
    %x: tensor<4x3x16x16xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %conv1_w: tensor<8x3x3x3xf32> {amp.role = #amp.role<parameter>, amp.name = "conv1.weight"},
    %conv1_b: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "conv1.bias"},
    %gn1_w: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "gn1.weight"},
    %gn1_b: tensor<8xf32> {amp.role = #amp.role<parameter>, amp.name = "gn1.bias"},
    %conv2_w: tensor<16x8x3x3xf32> {amp.role = #amp.role<parameter>, amp.name = "conv2.weight"},
    %conv2_b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "conv2.bias"},
    %gn2_w: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "gn2.weight"},
    %gn2_b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "gn2.bias"},
    %fc_w: tensor<10x16xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %fc_b: tensor<10xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<4x10xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %c1 = amp.conv2d %x, %conv1_w, %conv1_b {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<4x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<4x8x16x16xf32>
  %n1, %gn1_mean, %gn1_rstd = amp.group_norm %c1, %gn1_w, %gn1_b
      {num_groups = 2 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>)
      -> (tensor<4x8x16x16xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
  %a1 = amp.silu %n1 : tensor<4x8x16x16xf32>
  %c2 = amp.conv2d %a1, %conv2_w, %conv2_b
      {stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<4x8x16x16xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<4x16x8x8xf32>
  %n2, %gn2_mean, %gn2_rstd = amp.group_norm %c2, %gn2_w, %gn2_b
      {num_groups = 4 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<4x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<4x16x8x8xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
  %a2 = amp.silu %n2 : tensor<4x16x8x8xf32>
  %g = amp.global_avg_pool %a2 : tensor<4x16x8x8xf32> -> tensor<4x16x1x1xf32>
  %flat = amp.reshape %g : tensor<4x16x1x1xf32> -> tensor<4x16xf32>
  %logits = amp.linear %flat, %fc_w, %fc_b
      : (tensor<4x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return %logits : tensor<4x10xf32>
}
