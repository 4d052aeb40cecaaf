// amp.softplus (the example op of docs/AddingOpsAndPasses.md) on the CPU
// against torch.nn.functional.softplus: ordinary values, large magnitudes
// where the naive log(1 + exp(x)) overflows (x = 100, 1000) or underflows to
// zero (x = -100); in f32 and in bf16 (computed in f32, rounded
// once). Inputs/softplus.py holds the reference and the tolerances.

// RUN: %python %S/Inputs/compare_with_torch.py %s --opt amp-opt \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: PASS tensor 0 (softplus f32)
// CHECK-NEXT: PASS tensor 1 (softplus bf16)
// CHECK-NEXT: ALL 2 TENSORS PASS
// CHECK-NOT: FAIL

func.func private @printMemrefF32(tensor<*xf32>)

func.func @compute(%x: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %f32 = amp.softplus %x : tensor<2x6xf32>
  %x_bf16 = amp.cast %x : tensor<2x6xf32> to tensor<2x6xbf16>
  %bf16 = amp.softplus %x_bf16 : tensor<2x6xbf16>
  %bf16_f32 = amp.cast %bf16 : tensor<2x6xbf16> to tensor<2x6xf32>
  return %f32, %bf16_f32 : tensor<2x6xf32>, tensor<2x6xf32>
}

func.func @main() {
  %x = amp.constant dense<[[-100.0, -3.5, -0.5, 0.0, 0.5, 2.667], [20.0, 100.0, 1000.0, -1000.0, 1.0e-06, -20.0]]> : tensor<2x6xf32>
  %r:2 = call @compute(%x) : (tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>)
  %u0 = tensor.cast %r#0 : tensor<2x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : tensor<2x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  return
}
