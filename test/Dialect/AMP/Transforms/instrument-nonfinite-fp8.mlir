// RUN: amp-opt %s --amp-autodiff="optimizer=sgd" --amp-pipeline="precision=fp8 fp8-select=all" -amp-instrument-nonfinite | FileCheck %s

// The NaN finder on an FP8 step: FP8 tensors are not recorded (they are
// NaN exactly where their recorded bf16 input is, and an infinite input
// saturates); the quantizations' amaxes (f32) are.

// CHECK-LABEL: func.func @mlp_train_step
// CHECK: %[[Q:.*]], %[[AMAX:.*]] = amp.fp8_quantize
// CHECK-NOT: amp.cast %[[Q]]
// CHECK: amp.fp8_matmul
// CHECK-NOT: : tensor<32x16xf8E4M3FN> to tensor<32x16xf32>
// CHECK-NOT: : tensor<32x64xf8E4M3FN> to tensor<32x64xf32>
// CHECK: return
func.func @mlp(%x: tensor<32x16xf32> {amp.role = #amp.role<input>, amp.name = "x"},
               %t: tensor<32x16xf32> {amp.role = #amp.role<label>, amp.name = "t"},
               %w1: tensor<64x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w1"},
               %w2: tensor<16x64xf32> {amp.role = #amp.role<parameter>, amp.name = "w2"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h = amp.linear %x, %w1 : (tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<32x64xf32>
  %a = amp.relu %h : tensor<32x64xf32>
  %y = amp.linear %a, %w2 : (tensor<32x64xf32>, tensor<16x64xf32>) -> tensor<32x16xf32>
  %l = amp.mse_loss %y, %t : tensor<32x16xf32>
  return %l : tensor<f32>
}
