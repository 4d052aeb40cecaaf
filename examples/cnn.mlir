// cnn.mlir - a forward small CNN classifier with a loss.
//
// The model (PyTorch terms), on a batch of 8 RGB 32x32 images (NCHW):
//
//   conv1: Conv2d(3, 16, 3, padding=1, bias=False)   [8, 16, 32, 32]
//   bn1:   BatchNorm2d(16), training mode
//   relu, MaxPool2d(2)                               [8, 16, 16, 16]
//   conv2: Conv2d(16, 32, 3, padding=1)              [8, 32, 16, 16]
//   gn2:   GroupNorm(8, 32)
//   relu, AvgPool2d(2)                               [8, 32, 8, 8]
//   global average pool                              [8, 32, 1, 1]
//   flatten                                          [8, 32]
//   fc:    Linear(32, 10)                            [8, 10]
//   cross_entropy(logits, labels [8] i64)
//
// conv1 has no bias (the batch norm that follows would cancel it); conv2
// keeps one, so both forms of amp.conv2d appear.
//
// It is a forward model (DESIGN.md section 3): trainable parameters carry
// `amp.role = #amp.role<parameter>` and a stable `amp.name` (PyTorch
// state_dict keys), the images are the `input` and the class indices the
// `label`; the loss is the result with role `loss`.
//
// Batch-norm running statistics are non-trainable model state (PyTorch
// buffers): role `buffer`, taken as arguments and returned updated, in the
// same order, under the same names. They get no gradient and no optimizer.
//
// Verify (and print) it with:
//
//   amp-opt examples/cnn.mlir

func.func @cnn(
    %x: tensor<8x3x32x32xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %labels: tensor<8xi64> {amp.role = #amp.role<label>, amp.name = "labels"},
    %conv1_w: tensor<16x3x3x3xf32> {amp.role = #amp.role<parameter>, amp.name = "conv1.weight"},
    %bn1_w: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "bn1.weight"},
    %bn1_b: tensor<16xf32> {amp.role = #amp.role<parameter>, amp.name = "bn1.bias"},
    %bn1_mean: tensor<16xf32> {amp.role = #amp.role<buffer>, amp.name = "bn1.running_mean"},
    %bn1_var: tensor<16xf32> {amp.role = #amp.role<buffer>, amp.name = "bn1.running_var"},
    %conv2_w: tensor<32x16x3x3xf32> {amp.role = #amp.role<parameter>, amp.name = "conv2.weight"},
    %conv2_b: tensor<32xf32> {amp.role = #amp.role<parameter>, amp.name = "conv2.bias"},
    %gn2_w: tensor<32xf32> {amp.role = #amp.role<parameter>, amp.name = "gn2.weight"},
    %gn2_b: tensor<32xf32> {amp.role = #amp.role<parameter>, amp.name = "gn2.bias"},
    %fc_w: tensor<10x32xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %fc_b: tensor<10xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<16xf32> {amp.role = #amp.role<buffer>, amp.name = "bn1.running_mean"},
        tensor<16xf32> {amp.role = #amp.role<buffer>, amp.name = "bn1.running_var"})
    attributes {amp.graph = #amp.graph<forward>} {
  // Stage 1: conv 3 -> 16, batch norm, relu, 2x2 max pool.
  %c1 = amp.conv2d %x, %conv1_w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %n1, %bn1_saved_mean, %bn1_saved_rstd, %bn1_mean1, %bn1_var1 = amp.batch_norm
      %c1, %bn1_w, %bn1_b, %bn1_mean, %bn1_var
      {epsilon = 1.0e-5 : f64, momentum = 1.000000e-01 : f64, training = true}
      : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  %r1 = amp.relu %n1 : tensor<8x16x32x32xf32>
  %p1 = amp.max_pool2d %r1 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
      : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>

  // Stage 2: conv 16 -> 32, group norm (8 groups of 4 channels), relu,
  // 2x2 average pool.
  %c2 = amp.conv2d %p1, %conv2_w, %conv2_b {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<8x16x16x16xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<8x32x16x16xf32>
  %n2, %gn2_mean, %gn2_rstd = amp.group_norm %c2, %gn2_w, %gn2_b
      {num_groups = 8 : i64, epsilon = 1.0e-5 : f64}
      : (tensor<8x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>)
      -> (tensor<8x32x16x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>)
  %r2 = amp.relu %n2 : tensor<8x32x16x16xf32>
  %p2 = amp.avg_pool2d %r2 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
      : tensor<8x32x16x16xf32> -> tensor<8x32x8x8xf32>

  // Head: global average pool, flatten, linear 32 -> 10, loss.
  %g = amp.global_avg_pool %p2 : tensor<8x32x8x8xf32> -> tensor<8x32x1x1xf32>
  %flat = amp.reshape %g : tensor<8x32x1x1xf32> -> tensor<8x32xf32>
  %logits = amp.linear %flat, %fc_w, %fc_b
      : (tensor<8x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi64>

  return %loss, %bn1_mean1, %bn1_var1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}
