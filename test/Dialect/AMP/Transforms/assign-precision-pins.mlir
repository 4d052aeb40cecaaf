// RUN: amp-opt %s -split-input-file --amp-assign-precision | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-assign-precision --amp-insert-casts | FileCheck %s --check-prefix=CASTS

// amp.pin overrides the category, painting and the min-cut; the neighbours
// adapt to it.

// CHECK-LABEL: func.func @pins
// CHECK: amp.matmul {{.*}}{amp.pin = f32, amp.precision = f32, amp.precision_rule = "pin"}
// CHECK: amp.softmax {{.*}}{amp.pin = bf16, amp.precision = bf16, amp.precision_rule = "pin"
// CHECK: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// CASTS-LABEL: func.func @pins
// CASTS: amp.matmul %arg0, %arg0 {{.*}} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CASTS: amp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xbf16>
// CASTS: amp.softmax {{.*}} : tensor<4x4xbf16>
func.func @pins(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.matmul %a, %a {amp.pin = f32} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.softmax %0 {axis = -1 : i64, amp.pin = bf16} : tensor<4x4xf32>
  %2 = amp.matmul %1, %1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// A pin inside a region with autocast disabled still wins (it is the more
// specific request).
// CHECK-LABEL: func.func @pin_in_excluded_region
// CHECK: amp.matmul {{.*}}"autocast-disabled"
// CHECK: amp.matmul {{.*}}{amp.pin = bf16, amp.precision = bf16, amp.precision_rule = "pin"}
// CHECK: amp.autocast_disabled
func.func @pin_in_excluded_region(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %r:2 = scf.execute_region -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %1 = amp.matmul %a, %a {amp.pin = bf16} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    scf.yield %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
  } {amp.autocast_disabled}
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
