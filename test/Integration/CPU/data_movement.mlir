// Executes reshape (including to rank 0), transpose, broadcast (new leading
// dimensions, size-1 dimensions), strided slice and concat (first, middle
// and last axis, three inputs) on the CPU and compares with PyTorch
// (Inputs/data_movement.py). Chains (transpose then reshape, strided slice
// then reshape, concat of a transpose) make bufferization copy
// non-contiguous buffers. The inputs are distinct multiples of 1/8 that
// print exactly, and every result must match exactly. The ops live in
// @compute so that folding cannot replace them by constants.

// RUN: %python %S/Inputs/compare_with_torch.py %s --opt amp-opt \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: PASS tensor 0 (reshape 2x3x4 -> 6x4) 
// CHECK-NEXT: PASS tensor 1 (reshape 2x3x4 -> 4x3x2) 
// CHECK-NEXT: PASS tensor 2 (reshape 2x3x4 -> 24) 
// CHECK-NEXT: PASS tensor 3 (reshape 1x1 -> scalar) 
// CHECK-NEXT: PASS tensor 4 (transpose 2,0,1) 
// CHECK-NEXT: PASS tensor 5 (transpose 1,0) 
// CHECK-NEXT: PASS tensor 6 (transpose then reshape) 
// CHECK-NEXT: PASS tensor 7 (broadcast 4 -> 3x4) 
// CHECK-NEXT: PASS tensor 8 (broadcast 3x1 -> 3x4) 
// CHECK-NEXT: PASS tensor 9 (broadcast 4 -> 2x3x4) 
// CHECK-NEXT: PASS tensor 10 (broadcast 2x1x4 -> 2x3x4) 
// CHECK-NEXT: PASS tensor 11 (slice strides 1,1,2) 
// CHECK-NEXT: PASS tensor 12 (slice strides 2,3) 
// CHECK-NEXT: PASS tensor 13 (slice offset) 
// CHECK-NEXT: PASS tensor 14 (strided slice then reshape) 
// CHECK-NEXT: PASS tensor 15 (concat axis 1) 
// CHECK-NEXT: PASS tensor 16 (concat axis -1) 
// CHECK-NEXT: PASS tensor 17 (concat axis 0 of a transpose) 
// CHECK-NEXT: PASS tensor 18 (transpose slice concat f16) 
// CHECK-NEXT: PASS tensor 19 (transpose slice concat bf16) 
// CHECK-NEXT: ALL 20 TENSORS PASS
// CHECK-NOT: FAIL

!f32_6x4 = tensor<6x4xf32>
!f32_4x3x2 = tensor<4x3x2xf32>
!f32_24 = tensor<24xf32>
!f32_scalar = tensor<f32>
!f32_4x2x3 = tensor<4x2x3xf32>
!f32_4x6 = tensor<4x6xf32>
!f32_8x3 = tensor<8x3xf32>
!f32_3x4 = tensor<3x4xf32>
!f32_2x3x4 = tensor<2x3x4xf32>
!f32_2x2x2 = tensor<2x2x2xf32>
!f32_3x2 = tensor<3x2xf32>
!f32_3x3 = tensor<3x3xf32>
!f32_4 = tensor<4xf32>
!f32_2x6x4 = tensor<2x6x4xf32>
!f32_2x3x8 = tensor<2x3x8xf32>
!f32_8x6 = tensor<8x6xf32>
!f32_2x2x4 = tensor<2x2x4xf32>

func.func private @printMemrefF32(tensor<*xf32>)

func.func @compute(
    %zero: tensor<2x3x4xf32>,
    %zero_1x1: tensor<1x1xf32>,
    %x: tensor<2x3x4xf32>,
    %m: tensor<6x4xf32>,
    %row: tensor<4xf32>,
    %col: tensor<3x1xf32>,
    %b214: tensor<2x1x4xf32>,
    %single: tensor<1x1xf32>,
    %c1: tensor<2x2x4xf32>,
    %c2: tensor<2x1x4xf32>)
    -> (!f32_6x4, !f32_4x3x2, !f32_24, !f32_scalar, !f32_4x2x3, !f32_4x6,
        !f32_8x3, !f32_3x4, !f32_3x4, !f32_2x3x4, !f32_2x3x4, !f32_2x2x2,
        !f32_3x2, !f32_3x3, !f32_4, !f32_2x6x4, !f32_2x3x8, !f32_8x6,
        !f32_2x2x4, !f32_2x2x4) {
  // Returning a reshape of an argument (a view of a buffer @compute does
  // not own) leaves an unlowered bufferization.clone (pipeline bug):
  // reshape exact copies (x + 0) instead.
  %x_copy = amp.add %x, %zero : tensor<2x3x4xf32>
  %single_copy = amp.add %single, %zero_1x1 : tensor<1x1xf32>
  %r_6x4 = amp.reshape %x_copy : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r_4x3x2 = amp.reshape %x_copy : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %r_24 = amp.reshape %x_copy : tensor<2x3x4xf32> -> tensor<24xf32>
  %r_0d = amp.reshape %single_copy : tensor<1x1xf32> -> tensor<f32>
  %t_201 = amp.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %t_10 = amp.transpose %m {permutation = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
  %t_021 = amp.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %tr = amp.reshape %t_021 : tensor<2x4x3xf32> -> tensor<8x3xf32>
  %b_row = amp.broadcast %row : tensor<4xf32> -> tensor<3x4xf32>
  %b_col = amp.broadcast %col : tensor<3x1xf32> -> tensor<3x4xf32>
  %b_rank = amp.broadcast %row : tensor<4xf32> -> tensor<2x3x4xf32>
  %b_mid = amp.broadcast %b214 : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  %s_3d = amp.slice %x {starts = array<i64: 0, 1, 0>, limits = array<i64: 2, 3, 4>, strides = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %s_2d = amp.slice %m {starts = array<i64: 1, 0>, limits = array<i64: 6, 4>, strides = array<i64: 2, 3>} : tensor<6x4xf32> -> tensor<3x2xf32>
  %s_off = amp.slice %m {starts = array<i64: 2, 1>, limits = array<i64: 5, 4>, strides = array<i64: 1, 1>} : tensor<6x4xf32> -> tensor<3x3xf32>
  %s_x = amp.slice %x {starts = array<i64: 1, 0, 1>, limits = array<i64: 2, 3, 4>, strides = array<i64: 1, 2, 2>} : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
  %sr = amp.reshape %s_x : tensor<1x2x2xf32> -> tensor<4xf32>
  %cat0 = amp.concat %x, %c1, %c2 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2x4xf32>, tensor<2x1x4xf32>) -> tensor<2x6x4xf32>
  %cat_last = amp.concat %x, %x {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %cat_first = amp.concat %t_10, %t_10 {axis = 0 : i64} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %x_f16 = amp.cast %x : tensor<2x3x4xf32> to tensor<2x3x4xf16>
  %tl_f16 = amp.transpose %x_f16 {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf16> -> tensor<3x4x2xf16>
  %sl_f16 = amp.slice %tl_f16 {starts = array<i64: 0, 1, 0>, limits = array<i64: 3, 4, 2>, strides = array<i64: 2, 2, 1>} : tensor<3x4x2xf16> -> tensor<2x2x2xf16>
  %ct_f16 = amp.concat %sl_f16, %sl_f16 {axis = 2 : i64} : (tensor<2x2x2xf16>, tensor<2x2x2xf16>) -> tensor<2x2x4xf16>
  %low_f16 = amp.cast %ct_f16 : tensor<2x2x4xf16> to tensor<2x2x4xf32>
  %x_bf16 = amp.cast %x : tensor<2x3x4xf32> to tensor<2x3x4xbf16>
  %tl_bf16 = amp.transpose %x_bf16 {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xbf16> -> tensor<3x4x2xbf16>
  %sl_bf16 = amp.slice %tl_bf16 {starts = array<i64: 0, 1, 0>, limits = array<i64: 3, 4, 2>, strides = array<i64: 2, 2, 1>} : tensor<3x4x2xbf16> -> tensor<2x2x2xbf16>
  %ct_bf16 = amp.concat %sl_bf16, %sl_bf16 {axis = 2 : i64} : (tensor<2x2x2xbf16>, tensor<2x2x2xbf16>) -> tensor<2x2x4xbf16>
  %low_bf16 = amp.cast %ct_bf16 : tensor<2x2x4xbf16> to tensor<2x2x4xf32>
  return %r_6x4, %r_4x3x2, %r_24, %r_0d, %t_201, %t_10, %tr, %b_row, %b_col,
      %b_rank, %b_mid, %s_3d, %s_2d, %s_off, %sr, %cat0, %cat_last, %cat_first,
      %low_f16, %low_bf16
      : !f32_6x4, !f32_4x3x2, !f32_24, !f32_scalar, !f32_4x2x3, !f32_4x6,
        !f32_8x3, !f32_3x4, !f32_3x4, !f32_2x3x4, !f32_2x3x4, !f32_2x2x2,
        !f32_3x2, !f32_3x3, !f32_4, !f32_2x6x4, !f32_2x3x8, !f32_8x6,
        !f32_2x2x4, !f32_2x2x4
}

func.func @main() {
  %zero = amp.constant dense<0.0> : tensor<2x3x4xf32>
  %zero_1x1 = amp.constant dense<[[0.0]]> : tensor<1x1xf32>
  %x = amp.constant dense<[[[-3.125, -2.5, -0.5, 3.625], [0.125, -2.625, -1.75, 4.0], [2.625, 0.0, 5.75, 5.375]], [[2.5, -5.75, -0.25, -6.0], [-3.875, 4.875, -0.875, 5.5], [1.0, -3.25, 0.625, -1.375]]]> : tensor<2x3x4xf32>
  %m = amp.constant dense<[[2.1875, -1.6875, 4.9375, 5.3125], [3.5625, -1.8125, -5.1875, -1.1875], [2.5625, -3.0625, -2.4375, -4.1875], [-0.6875, 5.0625, -0.3125, 2.0625], [2.6875, 2.4375, 1.5625, 0.1875], [0.8125, -2.9375, 4.3125, 3.1875]]> : tensor<6x4xf32>
  %row = amp.constant dense<[0.90625, -0.09375, 0.28125, -0.84375]> : tensor<4xf32>
  %col = amp.constant dense<[[-0.5], [-0.25], [-0.75]]> : tensor<3x1xf32>
  %b214 = amp.constant dense<[[[0.625, 0.25, -1.125, 0.875]], [[0.0, 1.25, 1.0, 1.875]]]> : tensor<2x1x4xf32>
  %single = amp.constant dense<[[-0.125]]> : tensor<1x1xf32>
  %c1 = amp.constant dense<[[[0.875, 1.375, -0.125, 2.125], [1.0, -2.625, 1.25, -2.0]], [[-0.375, -3.5, -1.375, 2.375], [0.375, 2.5, 3.375, -3.375]]]> : tensor<2x2x4xf32>
  %c2 = amp.constant dense<[[[-1.875, 0.0, 0.625, 1.375]], [[-1.375, -1.625, 1.0, -0.25]]]> : tensor<2x1x4xf32>
  %r:20 = call @compute(%zero, %zero_1x1, %x, %m, %row, %col, %b214, %single, %c1, %c2)
      : (tensor<2x3x4xf32>, tensor<1x1xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>,
         tensor<4xf32>, tensor<3x1xf32>, tensor<2x1x4xf32>, tensor<1x1xf32>,
         tensor<2x2x4xf32>, tensor<2x1x4xf32>)
     -> (!f32_6x4, !f32_4x3x2, !f32_24, !f32_scalar, !f32_4x2x3, !f32_4x6,
        !f32_8x3, !f32_3x4, !f32_3x4, !f32_2x3x4, !f32_2x3x4, !f32_2x2x2,
        !f32_3x2, !f32_3x3, !f32_4, !f32_2x6x4, !f32_2x3x8, !f32_8x6,
        !f32_2x2x4, !f32_2x2x4)
  %u0 = tensor.cast %r#0 : !f32_6x4 to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : !f32_4x3x2 to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : !f32_24 to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : !f32_scalar to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %r#4 : !f32_4x2x3 to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %r#5 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %u6 = tensor.cast %r#6 : !f32_8x3 to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %u7 = tensor.cast %r#7 : !f32_3x4 to tensor<*xf32>
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  %u8 = tensor.cast %r#8 : !f32_3x4 to tensor<*xf32>
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %u9 = tensor.cast %r#9 : !f32_2x3x4 to tensor<*xf32>
  call @printMemrefF32(%u9) : (tensor<*xf32>) -> ()
  %u10 = tensor.cast %r#10 : !f32_2x3x4 to tensor<*xf32>
  call @printMemrefF32(%u10) : (tensor<*xf32>) -> ()
  %u11 = tensor.cast %r#11 : !f32_2x2x2 to tensor<*xf32>
  call @printMemrefF32(%u11) : (tensor<*xf32>) -> ()
  %u12 = tensor.cast %r#12 : !f32_3x2 to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  %u13 = tensor.cast %r#13 : !f32_3x3 to tensor<*xf32>
  call @printMemrefF32(%u13) : (tensor<*xf32>) -> ()
  %u14 = tensor.cast %r#14 : !f32_4 to tensor<*xf32>
  call @printMemrefF32(%u14) : (tensor<*xf32>) -> ()
  %u15 = tensor.cast %r#15 : !f32_2x6x4 to tensor<*xf32>
  call @printMemrefF32(%u15) : (tensor<*xf32>) -> ()
  %u16 = tensor.cast %r#16 : !f32_2x3x8 to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %u17 = tensor.cast %r#17 : !f32_8x6 to tensor<*xf32>
  call @printMemrefF32(%u17) : (tensor<*xf32>) -> ()
  %u18 = tensor.cast %r#18 : !f32_2x2x4 to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  %u19 = tensor.cast %r#19 : !f32_2x2x4 to tensor<*xf32>
  call @printMemrefF32(%u19) : (tensor<*xf32>) -> ()
  return
}
