// RUN: amp-opt %s --amp-cpu-pipeline | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline="fuse-elementwise=false" | FileCheck %s --check-prefix=UNFUSED

// The CPU pipeline fuses elementwise chains (amp-fuse-elementwise): a
// linear layer's bias add and the GELU after it are one kernel, one pass
// over the 64x128 activations after the sgemm instead of two with a
// temporary between them.
// CHECK-LABEL: llvm.func @linear_gelu(
//       CHECK:   llvm.call @amp_cpu_sgemm
//       CHECK:   llvm.call @linear_gelu_kernel(
//   CHECK-NOT:   llvm.call @linear_gelu_kernel
//       CHECK:   llvm.return
// UNFUSED-LABEL: llvm.func @linear_gelu(
//       UNFUSED:   llvm.call @amp_cpu_sgemm
//       UNFUSED:   llvm.call @linear_gelu_kernel(
//       UNFUSED:   llvm.call @linear_gelu_kernel_0(
//       UNFUSED:   llvm.return
func.func @linear_gelu(%x: tensor<64x32xf32>, %w: tensor<128x32xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %h = amp.linear %x, %w, %b : (tensor<64x32xf32>, tensor<128x32xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %g = amp.gelu %h : tensor<64x128xf32>
  return %g : tensor<64x128xf32>
}
