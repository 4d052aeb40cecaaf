// Executes reduce_sum/mean/max (with and without keep_dims, negative axes,
// all axes), softmax and log_softmax (last, middle and first axis),
// cross_entropy and mse_loss on the CPU and compares with PyTorch
// (Inputs/reductions_softmax_losses.py). Inputs include logits of +-80 and
// +-100, where exp overflows (or underflows to 0) in f32 unless the maximum
// is subtracted first: softmax must stay finite and log_softmax exact-ish
// (-180, not -inf). f16 and bf16 inputs check f32 accumulation with results
// rounded once.

// RUN: %python %S/Inputs/compare_with_torch.py %s --opt amp-opt \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: PASS tensor 0 (reduce_sum axis 1) 
// CHECK-NEXT: PASS tensor 1 (reduce_sum axes 0,-1 keep_dims) 
// CHECK-NEXT: PASS tensor 2 (reduce_mean axis 2 keep_dims) 
// CHECK-NEXT: PASS tensor 3 (reduce_mean all axes) 
// CHECK-NEXT: PASS tensor 4 (reduce_max axis 0) 
// CHECK-NEXT: PASS tensor 5 (reduce_max axis -1 keep_dims) 
// CHECK-NEXT: PASS tensor 6 (softmax axis -1) 
// CHECK-NEXT: PASS tensor 7 (softmax axis 1) 
// CHECK-NEXT: PASS tensor 8 (log_softmax axis -1) 
// CHECK-NEXT: PASS tensor 9 (log_softmax axis 0) 
// CHECK-NEXT: PASS tensor 10 (softmax large logits) 
// CHECK-NEXT: PASS tensor 11 (log_softmax large logits) 
// CHECK-NEXT: PASS tensor 12 (cross_entropy) 
// CHECK-NEXT: PASS tensor 13 (seed times cross_entropy) 
// CHECK-NEXT: PASS tensor 14 (mse_loss) 
// CHECK-NEXT: PASS tensor 15 (softmax masked) 
// CHECK-NEXT: PASS tensor 16 (log_softmax masked) 
// CHECK-NEXT: PASS tensor 17 (reduce_max masked) 
// CHECK-NEXT: PASS tensor 18 (reduce_sum masked) 
// CHECK-NEXT: PASS tensor 19 (reduce_sum f16 -> f32) 
// CHECK-NEXT: PASS tensor 20 (reduce_mean f16 -> f16) 
// CHECK-NEXT: PASS tensor 21 (softmax f16) 
// CHECK-NEXT: PASS tensor 22 (log_softmax f16) 
// CHECK-NEXT: PASS tensor 23 (cross_entropy f16) 
// CHECK-NEXT: PASS tensor 24 (mse_loss f16) 
// CHECK-NEXT: PASS tensor 25 (reduce_sum bf16 -> f32) 
// CHECK-NEXT: PASS tensor 26 (reduce_mean bf16 -> bf16) 
// CHECK-NEXT: PASS tensor 27 (softmax bf16) 
// CHECK-NEXT: PASS tensor 28 (log_softmax bf16) 
// CHECK-NEXT: PASS tensor 29 (cross_entropy bf16) 
// CHECK-NEXT: PASS tensor 30 (mse_loss bf16) 
// CHECK-NEXT: ALL 31 TENSORS PASS
// CHECK-NOT: FAIL

!f32_3x5 = tensor<3x5xf32>
!f32_1x4x1 = tensor<1x4x1xf32>
!f32_3x4x1 = tensor<3x4x1xf32>
!f32_scalar = tensor<f32>
!f32_4x5 = tensor<4x5xf32>
!f32_3x4x5 = tensor<3x4x5xf32>
!f32_5x6 = tensor<5x6xf32>
!f32_5 = tensor<5xf32>
!f32_3x4 = tensor<3x4xf32>

func.func private @printMemrefF32(tensor<*xf32>)

func.func @compute(
    %x3: tensor<3x4x5xf32>,
    %logits: tensor<5x6xf32>,
    %labels: tensor<5xi64>,
    %pred: tensor<4x6xf32>,
    %target: tensor<4x6xf32>,
    %mask_num: tensor<5x6xf32>,
    %mask_den: tensor<5x6xf32>)
    -> (!f32_3x5, !f32_1x4x1, !f32_3x4x1, !f32_scalar, !f32_4x5, !f32_3x4x1,
        !f32_3x4x5, !f32_3x4x5, !f32_3x4x5, !f32_3x4x5, !f32_5x6, !f32_5x6,
        !f32_scalar, !f32_scalar, !f32_scalar, !f32_5x6, !f32_5x6, !f32_5,
        !f32_5, !f32_3x5, !f32_3x4, !f32_5x6, !f32_5x6, !f32_scalar,
        !f32_scalar, !f32_3x5, !f32_3x4, !f32_5x6, !f32_5x6, !f32_scalar,
        !f32_scalar) {
  %sum_1 = amp.reduce_sum %x3 {axes = array<i64: 1>} : tensor<3x4x5xf32> -> tensor<3x5xf32>
  %sum_02k = amp.reduce_sum %x3 {axes = array<i64: 0, -1>, keep_dims} : tensor<3x4x5xf32> -> tensor<1x4x1xf32>
  %mean_2k = amp.reduce_mean %x3 {axes = array<i64: 2>, keep_dims} : tensor<3x4x5xf32> -> tensor<3x4x1xf32>
  %mean_all = amp.reduce_mean %x3 {axes = array<i64: 0, 1, 2>} : tensor<3x4x5xf32> -> tensor<f32>
  %max_0 = amp.reduce_max %x3 {axes = array<i64: 0>} : tensor<3x4x5xf32> -> tensor<4x5xf32>
  %max_2k = amp.reduce_max %x3 {axes = array<i64: -1>, keep_dims} : tensor<3x4x5xf32> -> tensor<3x4x1xf32>
  %sm_last = amp.softmax %x3 {axis = -1 : i64} : tensor<3x4x5xf32>
  %sm_mid = amp.softmax %x3 {axis = 1 : i64} : tensor<3x4x5xf32>
  %lsm_last = amp.log_softmax %x3 {axis = -1 : i64} : tensor<3x4x5xf32>
  %lsm_0 = amp.log_softmax %x3 {axis = 0 : i64} : tensor<3x4x5xf32>
  %sm_logits = amp.softmax %logits {axis = 1 : i64} : tensor<5x6xf32>
  %lsm_logits = amp.log_softmax %logits {axis = 1 : i64} : tensor<5x6xf32>
  %ce = amp.cross_entropy %logits, %labels : tensor<5x6xf32>, tensor<5xi64>
  // Returning the seed itself (a constant, not owned by @compute) leaves an
  // unlowered bufferization.clone (pipeline bug): scale the loss by it.
  %seed = amp.seed %ce
  %seeded = amp.mul %seed, %ce : tensor<f32>
  %mse = amp.mse_loss %pred, %target : tensor<4x6xf32>
  %mask = amp.div %mask_num, %mask_den : tensor<5x6xf32>
  %masked = amp.add %logits, %mask : tensor<5x6xf32>
  %sm_masked = amp.softmax %masked {axis = 1 : i64} : tensor<5x6xf32>
  %lsm_masked = amp.log_softmax %masked {axis = 1 : i64} : tensor<5x6xf32>
  %max_masked = amp.reduce_max %masked {axes = array<i64: 1>} : tensor<5x6xf32> -> tensor<5xf32>
  %sum_masked = amp.reduce_sum %masked {axes = array<i64: 1>} : tensor<5x6xf32> -> tensor<5xf32>
  %x3_f16 = amp.cast %x3 : tensor<3x4x5xf32> to tensor<3x4x5xf16>
  %logits_f16 = amp.cast %logits : tensor<5x6xf32> to tensor<5x6xf16>
  %pred_f16 = amp.cast %pred : tensor<4x6xf32> to tensor<4x6xf16>
  %target_f16 = amp.cast %target : tensor<4x6xf32> to tensor<4x6xf16>
  %sum_f16_acc = amp.reduce_sum %x3_f16 {axes = array<i64: 1>} : tensor<3x4x5xf16> -> tensor<3x5xf32>
  %mean_f16 = amp.reduce_mean %x3_f16 {axes = array<i64: 2>} : tensor<3x4x5xf16> -> tensor<3x4xf16>
  %mean_f16_f32 = amp.cast %mean_f16 : tensor<3x4xf16> to tensor<3x4xf32>
  %sm_f16 = amp.softmax %logits_f16 {axis = 1 : i64} : tensor<5x6xf16>
  %sm_f16_f32 = amp.cast %sm_f16 : tensor<5x6xf16> to tensor<5x6xf32>
  %lsm_f16 = amp.log_softmax %logits_f16 {axis = 1 : i64} : tensor<5x6xf16>
  %lsm_f16_f32 = amp.cast %lsm_f16 : tensor<5x6xf16> to tensor<5x6xf32>
  %ce_f16 = amp.cross_entropy %logits_f16, %labels : tensor<5x6xf16>, tensor<5xi64>
  %mse_f16 = amp.mse_loss %pred_f16, %target_f16 : tensor<4x6xf16>
  %x3_bf16 = amp.cast %x3 : tensor<3x4x5xf32> to tensor<3x4x5xbf16>
  %logits_bf16 = amp.cast %logits : tensor<5x6xf32> to tensor<5x6xbf16>
  %pred_bf16 = amp.cast %pred : tensor<4x6xf32> to tensor<4x6xbf16>
  %target_bf16 = amp.cast %target : tensor<4x6xf32> to tensor<4x6xbf16>
  %sum_bf16_acc = amp.reduce_sum %x3_bf16 {axes = array<i64: 1>} : tensor<3x4x5xbf16> -> tensor<3x5xf32>
  %mean_bf16 = amp.reduce_mean %x3_bf16 {axes = array<i64: 2>} : tensor<3x4x5xbf16> -> tensor<3x4xbf16>
  %mean_bf16_f32 = amp.cast %mean_bf16 : tensor<3x4xbf16> to tensor<3x4xf32>
  %sm_bf16 = amp.softmax %logits_bf16 {axis = 1 : i64} : tensor<5x6xbf16>
  %sm_bf16_f32 = amp.cast %sm_bf16 : tensor<5x6xbf16> to tensor<5x6xf32>
  %lsm_bf16 = amp.log_softmax %logits_bf16 {axis = 1 : i64} : tensor<5x6xbf16>
  %lsm_bf16_f32 = amp.cast %lsm_bf16 : tensor<5x6xbf16> to tensor<5x6xf32>
  %ce_bf16 = amp.cross_entropy %logits_bf16, %labels : tensor<5x6xbf16>, tensor<5xi64>
  %mse_bf16 = amp.mse_loss %pred_bf16, %target_bf16 : tensor<4x6xbf16>
  return %sum_1, %sum_02k, %mean_2k, %mean_all, %max_0, %max_2k, %sm_last, %sm_mid,
      %lsm_last, %lsm_0, %sm_logits, %lsm_logits, %ce, %seeded, %mse,
      %sm_masked, %lsm_masked, %max_masked, %sum_masked, %sum_f16_acc,
      %mean_f16_f32, %sm_f16_f32, %lsm_f16_f32, %ce_f16, %mse_f16,
      %sum_bf16_acc, %mean_bf16_f32, %sm_bf16_f32, %lsm_bf16_f32, %ce_bf16,
      %mse_bf16
      : !f32_3x5, !f32_1x4x1, !f32_3x4x1, !f32_scalar, !f32_4x5, !f32_3x4x1,
        !f32_3x4x5, !f32_3x4x5, !f32_3x4x5, !f32_3x4x5, !f32_5x6, !f32_5x6,
        !f32_scalar, !f32_scalar, !f32_scalar, !f32_5x6, !f32_5x6, !f32_5,
        !f32_5, !f32_3x5, !f32_3x4, !f32_5x6, !f32_5x6, !f32_scalar,
        !f32_scalar, !f32_3x5, !f32_3x4, !f32_5x6, !f32_5x6, !f32_scalar,
        !f32_scalar
}

func.func @main() {
  %x3 = amp.constant dense<[[[0.1026, 4.079, 3.674, -1.531, -0.8939], [-1.582, 1.709, -0.1682, 2.241, -5.542], [4.7, -0.2893, 2.041, -0.4097, -1.137], [1.389, 2.474, -0.6076, -0.4584, 2.057]], [[-2.611, -4.543, 1.185, -2.012, -5.761], [-2.442, -1.403, -3.58, -4.477, 0.1099], [80.0, -80.0, 79.5, 0.25, -3.0], [-0.9, 1.634, 3.129, -0.6209, -2.441]], [[1.043, 0.7426, 3.296, -3.854, -1.985], [-2.515, -5.202, 0.3793, 1.583, -2.216], [4.157, 2.466, 1.882, 1.205, 2.867], [-3.996, 1.842, 1.808, -5.303, 1.041]]]> : tensor<3x4x5xf32>
  %logits = amp.constant dense<[[80.0, 79.0, 78.5, 0.0, -80.0, 80.0], [100.0, -100.0, 20.0, 99.0, 0.5, 98.25], [-80.0, -81.0, -79.0, -80.5, -100.0, -78.0], [0.9301, -0.1877, -2.013, 2.514, -2.523, 1.134], [2.604, -3.199, -0.605, -2.618, 0.4881, 3.029]]> : tensor<5x6xf32>
  %labels = amp.constant dense<[4, 0, 3, 5, 1]> : tensor<5xi64>
  %pred = amp.constant dense<[[80.0, -3.556, -1.15, 1.407, 3.159, 0.8424], [-1.492, 0.5943, -0.03324, -0.4075, -1.469, 0.7745], [0.6158, -0.186, -0.4434, -2.57, -0.9724, 2.413], [-0.3811, -2.879, 2.669, 1.061, 4.216, 0.125]]> : tensor<4x6xf32>
  %target = amp.constant dense<[[-80.0, -2.895, 2.648, 5.139, -1.642, -1.294], [1.192, -1.661, -0.5411, -0.6997, 0.3839, 2.19], [0.04414, 1.838, -0.8398, 0.6556, -4.276, -2.9], [1.592, -1.18, 1.16, 1.085, 2.645, 1.624]]> : tensor<4x6xf32>
  %mask_num = amp.constant dense<[[0.0, 0.0, -1.0, 0.0, -1.0, 0.0], [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-1.0, -1.0, 0.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<5x6xf32>
  %mask_den = amp.constant dense<[[1.0, 1.0, 0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0, 1.0, 1.0]]> : tensor<5x6xf32>
  %r:31 = call @compute(%x3, %logits, %labels, %pred, %target, %mask_num, %mask_den)
      : (tensor<3x4x5xf32>, tensor<5x6xf32>, tensor<5xi64>, tensor<4x6xf32>,
         tensor<4x6xf32>, tensor<5x6xf32>, tensor<5x6xf32>)
     -> (!f32_3x5, !f32_1x4x1, !f32_3x4x1, !f32_scalar, !f32_4x5, !f32_3x4x1,
        !f32_3x4x5, !f32_3x4x5, !f32_3x4x5, !f32_3x4x5, !f32_5x6, !f32_5x6,
        !f32_scalar, !f32_scalar, !f32_scalar, !f32_5x6, !f32_5x6, !f32_5,
        !f32_5, !f32_3x5, !f32_3x4, !f32_5x6, !f32_5x6, !f32_scalar,
        !f32_scalar, !f32_3x5, !f32_3x4, !f32_5x6, !f32_5x6, !f32_scalar,
        !f32_scalar)
  %u0 = tensor.cast %r#0 : !f32_3x5 to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : !f32_1x4x1 to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : !f32_3x4x1 to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %r#4 : !f32_4x5 to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %r#5 : !f32_3x4x1 to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %u6 = tensor.cast %r#6 : !f32_3x4x5 to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %u7 = tensor.cast %r#7 : !f32_3x4x5 to tensor<*xf32>
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  %u8 = tensor.cast %r#8 : !f32_3x4x5 to tensor<*xf32>
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %u9 = tensor.cast %r#9 : !f32_3x4x5 to tensor<*xf32>
  call @printMemrefF32(%u9) : (tensor<*xf32>) -> ()
  %u10 = tensor.cast %r#10 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u10) : (tensor<*xf32>) -> ()
  %u11 = tensor.cast %r#11 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u11) : (tensor<*xf32>) -> ()
  %u12 = tensor.cast %r#12 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  %u13 = tensor.cast %r#13 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u13) : (tensor<*xf32>) -> ()
  %u14 = tensor.cast %r#14 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u14) : (tensor<*xf32>) -> ()
  %u15 = tensor.cast %r#15 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u15) : (tensor<*xf32>) -> ()
  %u16 = tensor.cast %r#16 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %u17 = tensor.cast %r#17 : !f32_5 to tensor<*xf32>
  call @printMemrefF32(%u17) : (tensor<*xf32>) -> ()
  %u18 = tensor.cast %r#18 : !f32_5 to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  %u19 = tensor.cast %r#19 : !f32_3x5 to tensor<*xf32>
  call @printMemrefF32(%u19) : (tensor<*xf32>) -> ()
  %u20 = tensor.cast %r#20 : !f32_3x4 to tensor<*xf32>
  call @printMemrefF32(%u20) : (tensor<*xf32>) -> ()
  %u21 = tensor.cast %r#21 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u21) : (tensor<*xf32>) -> ()
  %u22 = tensor.cast %r#22 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u22) : (tensor<*xf32>) -> ()
  %u23 = tensor.cast %r#23 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u23) : (tensor<*xf32>) -> ()
  %u24 = tensor.cast %r#24 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u24) : (tensor<*xf32>) -> ()
  %u25 = tensor.cast %r#25 : !f32_3x5 to tensor<*xf32>
  call @printMemrefF32(%u25) : (tensor<*xf32>) -> ()
  %u26 = tensor.cast %r#26 : !f32_3x4 to tensor<*xf32>
  call @printMemrefF32(%u26) : (tensor<*xf32>) -> ()
  %u27 = tensor.cast %r#27 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u27) : (tensor<*xf32>) -> ()
  %u28 = tensor.cast %r#28 : !f32_5x6 to tensor<*xf32>
  call @printMemrefF32(%u28) : (tensor<*xf32>) -> ()
  %u29 = tensor.cast %r#29 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u29) : (tensor<*xf32>) -> ()
  %u30 = tensor.cast %r#30 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u30) : (tensor<*xf32>) -> ()
  return
}
