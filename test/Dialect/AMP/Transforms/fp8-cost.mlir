// RUN: amp-opt %s -split-input-file --amp-fp8 | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-fp8 --amp-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// select=cost (the default) on the H200 model: a 4096 x 4096 x 4096 product
// runs in FP8 (half the bf16 time, quantizations amortized), a 64 x 64 x 64
// one stays bf16 (launch-bound: two quantizations cost more than the
// product). Both record the modeled times.

// CHECK-LABEL: func.func @big_and_small
// CHECK: amp.fp8_matmul {{.*}} {amp.fp8 = "fp8: {{[0-9.]+}} us in fp8, {{[0-9.]+}} us in bf16 (modeled h200)", fast_accumulation, transpose_rhs} : tensor<4096x4096xf8E4M3FN>, tensor<4096x4096xf8E4M3FN>
// CHECK: amp.linear {{.*}} {amp.fp8 = "bf16: {{[0-9.]+}} us in fp8, {{[0-9.]+}} us in bf16 (modeled h200)", amp.precision = bf16
// CHECK-SAME: tensor<64x64xbf16>

// The report shows the choice beside each product.
// REPORT: amp.fp8_matmul {{.*}}fp8 (f8E4M3FN x f8E4M3FN -> f32); fp8: {{[0-9.]+}} us in fp8, {{[0-9.]+}} us in bf16 (modeled h200)
// REPORT: amp.linear {{.*}}allow; bf16: {{[0-9.]+}} us in fp8, {{[0-9.]+}} us in bf16 (modeled h200)
func.func @big_and_small(%w: tensor<4096x4096xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                         %x: tensor<4096x4096xbf16> {amp.role = #amp.role<input>, amp.name = "x"},
                         %v: tensor<64x64xf32> {amp.role = #amp.role<parameter>, amp.name = "v"},
                         %y: tensor<64x64xbf16> {amp.role = #amp.role<input>, amp.name = "y"})
    -> (tensor<4096x4096xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<64x64xf32> {amp.role = #amp.role<parameter>, amp.name = "v"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %wb = amp.cast %w : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
  %big = amp.linear %x, %wb {amp.precision = bf16, amp.precision_rule = "allow"}
      : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  %vb = amp.cast %v : tensor<64x64xf32> to tensor<64x64xbf16>
  %small = amp.linear %y, %vb {amp.precision = bf16, amp.precision_rule = "allow"}
      : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  %l1 = amp.reduce_mean %big {axes = array<i64: 0, 1>} : tensor<4096x4096xf32> -> tensor<f32>
  %l2 = amp.reduce_mean %small {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %l = amp.add %l1, %l2 : tensor<f32>
  return %w, %v, %l : tensor<4096x4096xf32>, tensor<64x64xf32>, tensor<f32>
}

// -----

// A product pinned to bf16 stays bf16 whatever the model says.
// CHECK-LABEL: func.func @pinned
// CHECK-NOT: fp8_matmul
// CHECK: amp.linear
func.func @pinned(%w: tensor<4096x4096xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                  %x: tensor<4096x4096xbf16> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<4096x4096xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %wb = amp.cast %w : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
  %big = amp.linear %x, %wb {amp.pin = bf16, amp.precision = bf16, amp.precision_rule = "pin"}
      : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  %l = amp.reduce_mean %big {axes = array<i64: 0, 1>} : tensor<4096x4096xf32> -> tensor<f32>
  return %w, %l : tensor<4096x4096xf32>, tensor<f32>
}
