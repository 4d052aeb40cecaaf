// RUN: amp-opt %s --amp-autodiff="optimizer=sgd" --amp-pipeline="precision=fp8 fp8-select=all report=text" -o /dev/null 2>&1 | FileCheck %s

// The report of an FP8 step: each quantization with its format, each
// product with its operands' formats and result type, at the location of
// the layer it computes; FP8 FLOPs count as low precision.

// CHECK-LABEL: function @mlp_train_step
// CHECK: amp.fp8_quantize f8E4M3FN fp8 quantize {{ *}}report-fp8.mlir:[[FC1:[0-9]+]]:
// CHECK: amp.fp8_quantize f8E4M3FN fp8 quantize {{ *}}report-fp8.mlir:[[FC1]]:
// CHECK: amp.fp8_matmul {{ *}}f8E4M3FN fp8 (f8E4M3FN x f8E4M3FN -> bf16) report-fp8.mlir:[[FC1]]:
// CHECK: amp.fp8_quantize f8E5M2 {{ *}}fp8 quantize
// CHECK: amp.fp8_matmul {{ *}}f8E5M2 {{ *}}fp8 (f8E5M2 x f8E4M3FN -> bf16)
// CHECK: ops: {{.*}}f8E4M3FN: {{[0-9]+}}, f8E5M2: {{[0-9]+}})
// CHECK: low-precision FLOPs: 9{{[0-9.]+}}%
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
