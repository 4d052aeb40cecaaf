// Executes every float elementwise op, activation and activation gradient,
// compare, where, dropout_grad and cast on the CPU (--amp-cpu-pipeline, then
// mlir-runner) and compares the printed results with PyTorch on the same
// inputs (Inputs/elementwise.py holds the reference and the tolerances).
// f16 and bf16 variants of exp, tanh, gelu and add check that the lowering
// computes in f32 and rounds once to the low type. The ops live in @compute
// so that they see runtime tensors, not constants that folding could bypass.
// Special values (NaN, infinities, f32/f16 overflow, subnormals) follow.
// amp.rsqrt is left out: it lowers to a call to rsqrtf, which libm does not
// have, so the JIT fails to resolve the symbol.

// RUN: %python %S/Inputs/compare_with_torch.py %s --opt amp-opt \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: PASS tensor 0 (add f32) 
// CHECK-NEXT: PASS tensor 1 (sub f32) 
// CHECK-NEXT: PASS tensor 2 (mul f32) 
// CHECK-NEXT: PASS tensor 3 (div f32) 
// CHECK-NEXT: PASS tensor 4 (pow f32) 
// CHECK-NEXT: PASS tensor 5 (maximum f32) 
// CHECK-NEXT: PASS tensor 6 (minimum f32) 
// CHECK-NEXT: PASS tensor 7 (neg f32) 
// CHECK-NEXT: PASS tensor 8 (exp f32) 
// CHECK-NEXT: PASS tensor 9 (log f32) 
// CHECK-NEXT: PASS tensor 10 (sqrt f32) 
// CHECK-NEXT: PASS tensor 11 (tanh f32) 
// CHECK-NEXT: PASS tensor 12 (sigmoid f32) 
// CHECK-NEXT: PASS tensor 13 (relu f32) 
// CHECK-NEXT: PASS tensor 14 (silu f32) 
// CHECK-NEXT: PASS tensor 15 (erf f32) 
// CHECK-NEXT: PASS tensor 16 (gelu f32) 
// CHECK-NEXT: PASS tensor 17 (gelu tanh f32) 
// CHECK-NEXT: PASS tensor 18 (relu_grad f32) 
// CHECK-NEXT: PASS tensor 19 (silu_grad f32) 
// CHECK-NEXT: PASS tensor 20 (sigmoid_grad f32) 
// CHECK-NEXT: PASS tensor 21 (tanh_grad f32) 
// CHECK-NEXT: PASS tensor 22 (gelu_grad f32) 
// CHECK-NEXT: PASS tensor 23 (gelu_grad tanh f32) 
// CHECK-NEXT: PASS tensor 24 (compare gt) 
// CHECK-NEXT: PASS tensor 25 (compare le) 
// CHECK-NEXT: PASS tensor 26 (where) 
// CHECK-NEXT: PASS tensor 27 (dropout_grad f32) 
// CHECK-NEXT: PASS tensor 28 (cast f32->f16->f32) 
// CHECK-NEXT: PASS tensor 29 (exp f16) 
// CHECK-NEXT: PASS tensor 30 (tanh f16) 
// CHECK-NEXT: PASS tensor 31 (gelu f16) 
// CHECK-NEXT: PASS tensor 32 (add f16) 
// CHECK-NEXT: PASS tensor 33 (cast f32->bf16->f32) 
// CHECK-NEXT: PASS tensor 34 (exp bf16) 
// CHECK-NEXT: PASS tensor 35 (tanh bf16) 
// CHECK-NEXT: PASS tensor 36 (gelu bf16) 
// CHECK-NEXT: PASS tensor 37 (add bf16) 
// CHECK-NEXT: PASS tensor 38 (relu special values) 
// CHECK-NEXT: PASS tensor 39 (exp special values) 
// CHECK-NEXT: PASS tensor 40 (log special values) 
// CHECK-NEXT: PASS tensor 41 (tanh special values) 
// CHECK-NEXT: PASS tensor 42 (sigmoid special values) 
// CHECK-NEXT: PASS tensor 43 (gelu special values) 
// CHECK-NEXT: PASS tensor 44 (maximum special values) 
// CHECK-NEXT: PASS tensor 45 (minimum special values) 
// CHECK-NEXT: PASS tensor 46 (cast f32->f16->f32 special values) 
// CHECK-NEXT: PASS tensor 47 (exp f16 special values) 
// CHECK-NEXT: PASS tensor 48 (cast f32->bf16->f32 special values) 
// CHECK-NEXT: PASS tensor 49 (exp bf16 special values) 
// CHECK-NEXT: ALL 50 TENSORS PASS
// CHECK-NOT: FAIL

!f32_4x6 = tensor<4x6xf32>
!f32_2x6 = tensor<2x6xf32>

func.func private @printMemrefF32(tensor<*xf32>)

func.func @compute(
    %x: tensor<4x6xf32>,
    %y: tensor<4x6xf32>,
    %p: tensor<4x6xf32>,
    %dy: tensor<4x6xf32>,
    %mask: tensor<4x6xi1>,
    %one: tensor<4x6xf32>,
    %zero: tensor<4x6xf32>,
    %num: tensor<2x6xf32>,
    %den: tensor<2x6xf32>,
    %zero_2x6: tensor<2x6xf32>)
    -> (!f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6,
        !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6,
        !f32_2x6) {
  %add = amp.add %x, %y : tensor<4x6xf32>
  %sub = amp.sub %x, %y : tensor<4x6xf32>
  %mul = amp.mul %x, %y : tensor<4x6xf32>
  %div = amp.div %x, %p : tensor<4x6xf32>
  %pow = amp.pow %p, %y : tensor<4x6xf32>
  %maximum = amp.maximum %x, %y : tensor<4x6xf32>
  %minimum = amp.minimum %x, %y : tensor<4x6xf32>
  %neg = amp.neg %x : tensor<4x6xf32>
  %exp = amp.exp %x : tensor<4x6xf32>
  %log = amp.log %p : tensor<4x6xf32>
  %sqrt = amp.sqrt %p : tensor<4x6xf32>
  %tanh = amp.tanh %x : tensor<4x6xf32>
  %sigmoid = amp.sigmoid %x : tensor<4x6xf32>
  %relu = amp.relu %x : tensor<4x6xf32>
  %silu = amp.silu %x : tensor<4x6xf32>
  %erf = amp.erf %x : tensor<4x6xf32>
  %gelu = amp.gelu %x : tensor<4x6xf32>
  %gelu_tanh = amp.gelu %x approximate = tanh : tensor<4x6xf32>
  %relu_grad = amp.relu_grad %dy, %x : tensor<4x6xf32>
  %silu_grad = amp.silu_grad %dy, %x : tensor<4x6xf32>
  %sigmoid_grad = amp.sigmoid_grad %dy, %sigmoid : tensor<4x6xf32>
  %tanh_grad = amp.tanh_grad %dy, %tanh : tensor<4x6xf32>
  %gelu_grad = amp.gelu_grad %dy, %x : tensor<4x6xf32>
  %gelu_tanh_grad = amp.gelu_grad %dy, %x approximate = tanh : tensor<4x6xf32>
  %gt = amp.compare gt, %x, %y : tensor<4x6xf32> -> tensor<4x6xi1>
  %gt_f = amp.where %gt, %one, %zero : tensor<4x6xi1>, tensor<4x6xf32>
  %le = amp.compare le, %x, %y : tensor<4x6xf32> -> tensor<4x6xi1>
  %le_f = amp.where %le, %one, %zero : tensor<4x6xi1>, tensor<4x6xf32>
  %where = amp.where %mask, %x, %y : tensor<4x6xi1>, tensor<4x6xf32>
  %dropout_grad = amp.dropout_grad %dy, %mask {probability = 2.500000e-01 : f64} : tensor<4x6xf32>, tensor<4x6xi1>
  %x_f16 = amp.cast %x : tensor<4x6xf32> to tensor<4x6xf16>
  %y_f16 = amp.cast %y : tensor<4x6xf32> to tensor<4x6xf16>
  %cast_f16 = amp.cast %x_f16 : tensor<4x6xf16> to tensor<4x6xf32>
  %exp_f16 = amp.exp %x_f16 : tensor<4x6xf16>
  %exp_f16_f32 = amp.cast %exp_f16 : tensor<4x6xf16> to tensor<4x6xf32>
  %tanh_f16 = amp.tanh %x_f16 : tensor<4x6xf16>
  %tanh_f16_f32 = amp.cast %tanh_f16 : tensor<4x6xf16> to tensor<4x6xf32>
  %gelu_f16 = amp.gelu %x_f16 : tensor<4x6xf16>
  %gelu_f16_f32 = amp.cast %gelu_f16 : tensor<4x6xf16> to tensor<4x6xf32>
  %add_f16 = amp.add %x_f16, %y_f16 : tensor<4x6xf16>
  %add_f16_f32 = amp.cast %add_f16 : tensor<4x6xf16> to tensor<4x6xf32>
  %x_bf16 = amp.cast %x : tensor<4x6xf32> to tensor<4x6xbf16>
  %y_bf16 = amp.cast %y : tensor<4x6xf32> to tensor<4x6xbf16>
  %cast_bf16 = amp.cast %x_bf16 : tensor<4x6xbf16> to tensor<4x6xf32>
  %exp_bf16 = amp.exp %x_bf16 : tensor<4x6xbf16>
  %exp_bf16_f32 = amp.cast %exp_bf16 : tensor<4x6xbf16> to tensor<4x6xf32>
  %tanh_bf16 = amp.tanh %x_bf16 : tensor<4x6xbf16>
  %tanh_bf16_f32 = amp.cast %tanh_bf16 : tensor<4x6xbf16> to tensor<4x6xf32>
  %gelu_bf16 = amp.gelu %x_bf16 : tensor<4x6xbf16>
  %gelu_bf16_f32 = amp.cast %gelu_bf16 : tensor<4x6xbf16> to tensor<4x6xf32>
  %add_bf16 = amp.add %x_bf16, %y_bf16 : tensor<4x6xbf16>
  %add_bf16_f32 = amp.cast %add_bf16 : tensor<4x6xbf16> to tensor<4x6xf32>
  %s = amp.div %num, %den : tensor<2x6xf32>
  %relu_s = amp.relu %s : tensor<2x6xf32>
  %exp_s = amp.exp %s : tensor<2x6xf32>
  %log_s = amp.log %s : tensor<2x6xf32>
  %tanh_s = amp.tanh %s : tensor<2x6xf32>
  %sigmoid_s = amp.sigmoid %s : tensor<2x6xf32>
  %gelu_s = amp.gelu %s : tensor<2x6xf32>
  %maximum_s = amp.maximum %s, %zero_2x6 : tensor<2x6xf32>
  %minimum_s = amp.minimum %s, %zero_2x6 : tensor<2x6xf32>
  %s_f16 = amp.cast %s : tensor<2x6xf32> to tensor<2x6xf16>
  %cast_s_f16 = amp.cast %s_f16 : tensor<2x6xf16> to tensor<2x6xf32>
  %exp_s_f16 = amp.exp %s_f16 : tensor<2x6xf16>
  %exp_s_f16_f32 = amp.cast %exp_s_f16 : tensor<2x6xf16> to tensor<2x6xf32>
  %s_bf16 = amp.cast %s : tensor<2x6xf32> to tensor<2x6xbf16>
  %cast_s_bf16 = amp.cast %s_bf16 : tensor<2x6xbf16> to tensor<2x6xf32>
  %exp_s_bf16 = amp.exp %s_bf16 : tensor<2x6xbf16>
  %exp_s_bf16_f32 = amp.cast %exp_s_bf16 : tensor<2x6xbf16> to tensor<2x6xf32>
  return %add, %sub, %mul, %div, %pow, %maximum, %minimum, %neg, %exp, %log, %sqrt,
      %tanh, %sigmoid, %relu, %silu, %erf, %gelu, %gelu_tanh, %relu_grad,
      %silu_grad, %sigmoid_grad, %tanh_grad, %gelu_grad, %gelu_tanh_grad, %gt_f,
      %le_f, %where, %dropout_grad, %cast_f16, %exp_f16_f32, %tanh_f16_f32,
      %gelu_f16_f32, %add_f16_f32, %cast_bf16, %exp_bf16_f32, %tanh_bf16_f32,
      %gelu_bf16_f32, %add_bf16_f32, %relu_s, %exp_s, %log_s, %tanh_s,
      %sigmoid_s, %gelu_s, %maximum_s, %minimum_s, %cast_s_f16, %exp_s_f16_f32,
      %cast_s_bf16, %exp_s_bf16_f32
      : !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6,
        !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6,
        !f32_2x6
}

func.func @main() {
  %x = amp.constant dense<[[-9.0, -3.5, -0.5, 0.0, 0.5, 9.0], [2.667, 1.817, 0.6931, 3.2, 2.466, -0.4406], [-2.124, -0.7291, -0.84, 1.375, -3.798, -0.3827], [3.342, -1.841, -1.517, -0.1685, -2.836, -0.2592]]> : tensor<4x6xf32>
  %y = amp.constant dense<[[-0.02348, -0.006983, -1.483, -0.5487, 0.9807, -1.072], [0.8208, 0.9833, 0.6931, -0.968, 0.983, 0.7402], [0.2691, -0.5229, 0.1628, 2.812, -0.3322, 0.8695], [-0.6251, -0.2975, 0.972, -1.394, -0.3636, -0.9155]]> : tensor<4x6xf32>
  %p = amp.constant dense<[[3.466, 3.342, 0.4487, 1.362, 0.7091, 3.02], [2.221, 4.966, 3.081, 2.0, 3.579, 4.053], [4.667, 1.932, 4.863, 4.344, 4.848, 3.764], [0.9524, 3.465, 4.364, 2.126, 4.516, 3.92]]> : tensor<4x6xf32>
  %dy = amp.constant dense<[[1.482, 1.966, 0.8814, -1.798, -1.704, -0.6776], [0.03407, -1.389, -0.9372, -0.4451, -0.4751, 0.1886], [0.07257, -0.03876, -0.6177, -0.8324, -1.911, 1.267], [0.1955, 0.3695, -1.717, 0.7512, -0.08803, 0.9683]]> : tensor<4x6xf32>
  %mask = amp.constant dense<[[true, false, true, true, false, true], [true, false, false, true, true, true], [true, false, true, true, false, true], [true, true, true, true, true, true]]> : tensor<4x6xi1>
  %one = amp.constant dense<1.0> : tensor<4x6xf32>
  %zero = amp.constant dense<0.0> : tensor<4x6xf32>
  %num = amp.constant dense<[[0.0, 1.0, -1.0, 0.5, 88.8, -103.0], [70000.0, 65519.0, 65520.0, -65520.0, 1.0000e-06, 3.0000e-08]]> : tensor<2x6xf32>
  %den = amp.constant dense<[[0.0, 0.0, 0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<2x6xf32>
  %zero_2x6 = amp.constant dense<0.0> : tensor<2x6xf32>
  %r:50 = call @compute(%x, %y, %p, %dy, %mask, %one, %zero, %num, %den, %zero_2x6)
      : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
         tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x6xf32>,
         tensor<2x6xf32>, tensor<2x6xf32>)
     -> (!f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6, !f32_4x6,
        !f32_4x6, !f32_4x6, !f32_4x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6,
        !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6, !f32_2x6,
        !f32_2x6)
  %u0 = tensor.cast %r#0 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %r#4 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %r#5 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %u6 = tensor.cast %r#6 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %u7 = tensor.cast %r#7 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  %u8 = tensor.cast %r#8 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %u9 = tensor.cast %r#9 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u9) : (tensor<*xf32>) -> ()
  %u10 = tensor.cast %r#10 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u10) : (tensor<*xf32>) -> ()
  %u11 = tensor.cast %r#11 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u11) : (tensor<*xf32>) -> ()
  %u12 = tensor.cast %r#12 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  %u13 = tensor.cast %r#13 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u13) : (tensor<*xf32>) -> ()
  %u14 = tensor.cast %r#14 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u14) : (tensor<*xf32>) -> ()
  %u15 = tensor.cast %r#15 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u15) : (tensor<*xf32>) -> ()
  %u16 = tensor.cast %r#16 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %u17 = tensor.cast %r#17 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u17) : (tensor<*xf32>) -> ()
  %u18 = tensor.cast %r#18 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  %u19 = tensor.cast %r#19 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u19) : (tensor<*xf32>) -> ()
  %u20 = tensor.cast %r#20 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u20) : (tensor<*xf32>) -> ()
  %u21 = tensor.cast %r#21 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u21) : (tensor<*xf32>) -> ()
  %u22 = tensor.cast %r#22 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u22) : (tensor<*xf32>) -> ()
  %u23 = tensor.cast %r#23 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u23) : (tensor<*xf32>) -> ()
  %u24 = tensor.cast %r#24 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u24) : (tensor<*xf32>) -> ()
  %u25 = tensor.cast %r#25 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u25) : (tensor<*xf32>) -> ()
  %u26 = tensor.cast %r#26 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u26) : (tensor<*xf32>) -> ()
  %u27 = tensor.cast %r#27 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u27) : (tensor<*xf32>) -> ()
  %u28 = tensor.cast %r#28 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u28) : (tensor<*xf32>) -> ()
  %u29 = tensor.cast %r#29 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u29) : (tensor<*xf32>) -> ()
  %u30 = tensor.cast %r#30 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u30) : (tensor<*xf32>) -> ()
  %u31 = tensor.cast %r#31 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u31) : (tensor<*xf32>) -> ()
  %u32 = tensor.cast %r#32 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u32) : (tensor<*xf32>) -> ()
  %u33 = tensor.cast %r#33 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u33) : (tensor<*xf32>) -> ()
  %u34 = tensor.cast %r#34 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u34) : (tensor<*xf32>) -> ()
  %u35 = tensor.cast %r#35 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u35) : (tensor<*xf32>) -> ()
  %u36 = tensor.cast %r#36 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u36) : (tensor<*xf32>) -> ()
  %u37 = tensor.cast %r#37 : !f32_4x6 to tensor<*xf32>
  call @printMemrefF32(%u37) : (tensor<*xf32>) -> ()
  %u38 = tensor.cast %r#38 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u38) : (tensor<*xf32>) -> ()
  %u39 = tensor.cast %r#39 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u39) : (tensor<*xf32>) -> ()
  %u40 = tensor.cast %r#40 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u40) : (tensor<*xf32>) -> ()
  %u41 = tensor.cast %r#41 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u41) : (tensor<*xf32>) -> ()
  %u42 = tensor.cast %r#42 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u42) : (tensor<*xf32>) -> ()
  %u43 = tensor.cast %r#43 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u43) : (tensor<*xf32>) -> ()
  %u44 = tensor.cast %r#44 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u44) : (tensor<*xf32>) -> ()
  %u45 = tensor.cast %r#45 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u45) : (tensor<*xf32>) -> ()
  %u46 = tensor.cast %r#46 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u46) : (tensor<*xf32>) -> ()
  %u47 = tensor.cast %r#47 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u47) : (tensor<*xf32>) -> ()
  %u48 = tensor.cast %r#48 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u48) : (tensor<*xf32>) -> ()
  %u49 = tensor.cast %r#49 : !f32_2x6 to tensor<*xf32>
  call @printMemrefF32(%u49) : (tensor<*xf32>) -> ()
  return
}
