// RUN: amp-opt %s --amp-assign-precision | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-assign-precision="level=default" | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-assign-precision="level=tensor-cores-only" | FileCheck %s --check-prefix=TCO
// RUN: amp-opt %s --amp-assign-precision="level=unsafe-force-all" | FileCheck %s --check-prefix=FORCE
// RUN: amp-opt %s --amp-assign-precision="level=infer-as-deny" | FileCheck %s --check-prefix=IAD
// RUN: not amp-opt %s --amp-assign-precision="level=fastest" 2>&1 | FileCheck %s --check-prefix=BAD

// TensorFlow's levels (TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_LEVEL), applied
// to the default lists before any list edit.

// BAD: for the --level option: Cannot find option named 'fastest'!

// DEFAULT: amp.linear {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// DEFAULT: amp.gelu {{.*}}{amp.precision = bf16, amp.precision_rule = "between-allow"}
// DEFAULT: amp.transpose {{.*}}{amp.precision = bf16, amp.precision_rule = "between-allow"
// DEFAULT: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// DEFAULT: amp.softmax {{.*}}{amp.precision = f32, amp.precision_rule = "deny"

// Only ALLOW ops run low; INFER, CLEAR and DENY ops are DENY.
// TCO: amp.linear {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// TCO: amp.gelu {{.*}}{amp.precision = f32, amp.precision_rule = "deny (level tensor-cores-only)"}
// TCO: amp.transpose {{.*}}{amp.precision = f32, amp.precision_rule = "deny (level tensor-cores-only)"
// TCO: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// TCO: amp.softmax {{.*}}{amp.precision = f32, amp.precision_rule = "deny"

// Everything runs low, DENY ops included.
// FORCE: amp.linear {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// FORCE: amp.gelu {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"}
// FORCE: amp.transpose {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"
// FORCE: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// FORCE: amp.softmax {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (level unsafe-force-all)"

// INFER ops are DENY; CLEAR ops still follow the ALLOW ops they touch.
// IAD: amp.linear {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// IAD: amp.gelu {{.*}}{amp.precision = f32, amp.precision_rule = "deny (level infer-as-deny)"}
// IAD: amp.transpose {{.*}}{amp.precision = bf16, amp.precision_rule = "clear-next-to-allow"
// IAD: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// IAD: amp.softmax {{.*}}{amp.precision = f32, amp.precision_rule = "deny"

func.func @levels(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = amp.linear %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = amp.gelu %0 : tensor<4x8xf32>
  %2 = amp.transpose %1 {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %3 = amp.matmul %2, %1 : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %4 = amp.softmax %3 {axis = -1 : i64} : tensor<8x8xf32>
  return %4 : tensor<8x8xf32>
}
