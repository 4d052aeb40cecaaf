// amp.softplus answers the precision passes through its DENY trait alone
// (f32, like exp and log and as on PyTorch autocast's fp32 list): between
// two fp16 matmuls it stays f32, the first matmul returns its f32
// accumulator to it unrounded, and one cast feeds the second matmul.

// RUN: amp-opt %s --amp-assign-precision=precision=fp16 | FileCheck %s
// RUN: amp-opt %s --amp-assign-precision=precision=fp16 --amp-insert-casts | FileCheck %s --check-prefix=CASTS

// CHECK-LABEL: func.func @softplus_between_matmuls
// CHECK:         amp.matmul {{.*}}{amp.precision = f16, amp.precision_rule = "allow"}
// CHECK:         amp.softplus {{.*}}{amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x8xf32>
// CHECK:         amp.matmul {{.*}}{amp.precision = f16, amp.precision_rule = "allow"}

// CASTS-LABEL: func.func @softplus_between_matmuls
// CASTS-DAG:     %[[A:.*]] = amp.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CASTS-DAG:     %[[B:.*]] = amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xf16>
// CASTS:         %[[M:.*]] = amp.matmul %[[A]], %[[B]] {{.*}}: tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf32>
// CASTS-NEXT:    %[[S:.*]] = amp.softplus %[[M]] {{.*}}: tensor<4x8xf32>
// CASTS-NEXT:    %[[SH:.*]] = amp.cast %[[S]] : tensor<4x8xf32> to tensor<4x8xf16>
// CASTS-NEXT:    amp.matmul %[[SH]], %[[B]] {{.*}}: tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf32>
func.func @softplus_between_matmuls(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>)
    -> tensor<4x8xf32> {
  %0 = amp.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = amp.softplus %0 : tensor<4x8xf32>
  %2 = amp.matmul %1, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
