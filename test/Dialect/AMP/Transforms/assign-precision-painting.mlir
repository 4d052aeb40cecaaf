// RUN: amp-opt %s -split-input-file --amp-assign-precision="precision=bf16" | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: amp-opt %s -split-input-file --amp-assign-precision="precision=fp16" | FileCheck %s --check-prefixes=CHECK,FP16

// Each step of TensorFlow's painting (auto_mixed_precision.cc), in graphs
// where the min-cut has nothing to gain, so painting's choice is the result.

// Pass 2, TensorFlow's own example: deny -> infer -> clear -> infer -> clear
// -> allow -> infer becomes deny -> deny -> deny -> deny -> clear -> allow
// -> infer. The last clear op leads only to the allow op, so deny paint stops
// before it, and allow paint (pass 5) takes it.
// CHECK-LABEL: func.func @deny_paint
// CHECK: amp.exp {{.*}}"deny"
// CHECK: amp.add {{.*}}{amp.precision = f32, amp.precision_rule = "deny-paint"}
// CHECK: amp.reshape {{.*}}{amp.precision = f32, amp.precision_rule = "deny-paint"}
// CHECK: amp.tanh {{.*}}{amp.precision = f32, amp.precision_rule = "deny-paint"}
// CHECK: amp.transpose {{.*}}{amp.precision = [[LOW:bf16|f16]], amp.precision_rule = "clear-next-to-allow"
// CHECK: amp.matmul {{.*}}{amp.precision = [[LOW]], amp.precision_rule = "allow"}
func.func @deny_paint(%a: tensor<4x4xf32>) -> tensor<4x4xbf16> {
  %0 = amp.exp %a : tensor<4x4xf32>
  %1 = amp.add %0, %0 : tensor<4x4xf32>
  %2 = amp.reshape %1 : tensor<4x4xf32> -> tensor<16xf32>
  %3 = amp.reshape %2 : tensor<16xf32> -> tensor<4x4xf32>
  %4 = amp.tanh %3 : tensor<4x4xf32>
  %5 = amp.transpose %4 {permutation = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %6 = amp.matmul %5, %5 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %7 = amp.cast %6 : tensor<4x4xf32> to tensor<4x4xbf16>
  return %7 : tensor<4x4xbf16>
}

// -----

// Pass 2 does not paint backwards: an INFER op feeding a DENY op is not
// deny-painted (here it is low, between two ALLOW ops).
// CHECK-LABEL: func.func @deny_paint_is_forward_only
// CHECK: amp.matmul {{.*}}"allow"
// CHECK: amp.sigmoid {{.*}}{amp.precision = [[LOW:bf16|f16]], amp.precision_rule = "between-allow"}
// CHECK: amp.matmul {{.*}}"allow"
// CHECK: amp.exp {{.*}}"deny"
func.func @deny_paint_is_forward_only(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.sigmoid %0 : tensor<4x4xf32>
  %2 = amp.matmul %1, %1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = amp.exp %1 : tensor<4x4xf32>
  return %2, %3 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Pass 3: INFER and CLEAR ops on a path between two ALLOW ops run low.
// CHECK-LABEL: func.func @between_allow
// CHECK: amp.linear {{.*}}"allow"
// CHECK: amp.gelu {{.*}}{amp.precision = [[LOW:bf16|f16]], amp.precision_rule = "between-allow"}
// CHECK: amp.dropout {{.*}}{amp.precision = [[LOW]], amp.precision_rule = "between-allow"
// CHECK: amp.reshape {{.*}}{amp.precision = [[LOW]], amp.precision_rule = "between-allow"}
// CHECK: amp.matmul {{.*}}"allow"
func.func @between_allow(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %seed: tensor<i64>) -> tensor<8x2xf32> {
  %0 = amp.linear %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = amp.gelu %0 : tensor<4x8xf32>
  %2, %mask = amp.dropout %1, %seed {probability = 0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xi1>
  %3 = amp.reshape %2 : tensor<4x8xf32> -> tensor<8x4xf32>
  %4 = amp.matmul %3, %x : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %5 = amp.slice %4 {starts = array<i64: 0, 0>, limits = array<i64: 8, 2>, strides = array<i64: 1, 1>} : tensor<8x8xf32> -> tensor<8x2xf32>
  return %5 : tensor<8x2xf32>
}

// -----

// Pass 4 (bf16 only): an INFER op fed by an ALLOW op runs low; with fp16 it
// stays f32 unless it is between ALLOW ops. The cast consumes any type, so
// the min-cut is indifferent and painting decides.
// CHECK-LABEL: func.func @after_allow
// CHECK: amp.matmul {{.*}}"allow"
// BF16: amp.tanh {{.*}}{amp.precision = bf16, amp.precision_rule = "after-allow-bf16"}
// BF16: amp.silu {{.*}}{amp.precision = bf16, amp.precision_rule = "after-allow-bf16"}
// FP16: amp.tanh {{.*}}{amp.precision = f32, amp.precision_rule = "unpainted"}
// FP16: amp.silu {{.*}}{amp.precision = f32, amp.precision_rule = "unpainted"}
func.func @after_allow(%a: tensor<4x4xf32>) -> tensor<4x4xbf16> {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.tanh %0 : tensor<4x4xf32>
  %2 = amp.silu %1 : tensor<4x4xf32>
  %3 = amp.cast %2 : tensor<4x4xf32> to tensor<4x4xbf16>
  return %3 : tensor<4x4xbf16>
}

// -----

// Pass 5: allow paint spreads through CLEAR ops in both directions (to the
// transposed operand and to the reshaped result), not through INFER ops.
// CHECK-LABEL: func.func @clear_next_to_allow
// CHECK: amp.transpose %arg0 {amp.precision = [[LOW:bf16|f16]], amp.precision_rule = "clear-next-to-allow"
// CHECK: amp.matmul {{.*}}"allow"
// CHECK: amp.reshape {{.*}}{amp.precision = [[LOW]], amp.precision_rule = "clear-next-to-allow"}
// CHECK: amp.max_pool2d {{.*}}{amp.precision = [[LOW]], amp.precision_rule = "clear-next-to-allow"
func.func @clear_next_to_allow(%a: tensor<4x4xf32>) -> tensor<1x1x2x2xbf16> {
  %0 = amp.transpose %a {permutation = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.matmul %0, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = amp.reshape %1 : tensor<4x4xf32> -> tensor<1x1x4x4xf32>
  %3 = amp.max_pool2d %2 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  %4 = amp.cast %3 : tensor<1x1x2x2xf32> to tensor<1x1x2x2xbf16>
  return %4 : tensor<1x1x2x2xbf16>
}
