// RUN: amp-opt %s -split-input-file --amp-assign-precision | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=BYTES

// Graphs whose cheapest assignment is known: the min-cut over the INFER and
// CLEAR ops must reach exactly the optimal cast bytes (a cast of n elements
// between f32 and bf16 moves 6n bytes: it reads 4n and writes 2n). Where the
// min-cut overrules painting the rule says "min-cut".

// Painting makes the add low (bf16 pass 4), but then x would be cast to
// bf16 and the sum back to f32. The matmul can return its f32 accumulator
// for free, so an f32 add needs no cast at all.
// CHECK-LABEL: func.func @painting_low_min_cut_f32
// CHECK: amp.add {{.*}}{amp.precision = f32, amp.precision_rule = "min-cut"}
// BYTES-LABEL: function @painting_low_min_cut_f32
// BYTES: casts: 0, 0 bytes moved
func.func @painting_low_min_cut_f32(%a: tensor<8x8xbf16>, %x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = amp.matmul %a, %a : tensor<8x8xbf16>, tensor<8x8xbf16> -> tensor<8x8xbf16>
  %1 = amp.cast %0 : tensor<8x8xbf16> to tensor<8x8xf32>
  %2 = amp.add %1, %x : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----

// The add is downstream of no ALLOW op, so painting leaves it f32; its
// inputs are bf16 and it feeds a matmul, so running it in bf16 saves three
// casts of 64 elements.
// CHECK-LABEL: func.func @unpainted_min_cut_low
// CHECK: amp.add {{.*}}{amp.precision = bf16, amp.precision_rule = "min-cut"}
// BYTES-LABEL: function @unpainted_min_cut_low
// BYTES: casts: 0, 0 bytes moved
func.func @unpainted_min_cut_low(%x: tensor<8x8xbf16>, %y: tensor<8x8xbf16>) -> tensor<8x8xf32> {
  %0 = amp.cast %x : tensor<8x8xbf16> to tensor<8x8xf32>
  %1 = amp.cast %y : tensor<8x8xbf16> to tensor<8x8xf32>
  %2 = amp.add %0, %1 : tensor<8x8xf32>
  %3 = amp.matmul %2, %2 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// -----

// The cut goes where the tensor is smallest: the slice of the f32 exp is
// cast (4x64 elements, 1536 bytes), not the exp itself (64x64, 24576
// bytes), although painting makes the slice low (pass 5). The weight is
// cast once (64x8, 3072 bytes). Optimum: 4608 bytes.
// CHECK-LABEL: func.func @narrowest_cut
// CHECK: amp.slice {{.*}}{amp.precision = f32, amp.precision_rule = "min-cut"
// BYTES-LABEL: function @narrowest_cut
// BYTES: casts: 2, 4608 bytes moved
func.func @narrowest_cut(%x: tensor<64x64xf32>, %w: tensor<64x8xf32>) -> tensor<4x8xf32> {
  %0 = amp.exp %x : tensor<64x64xf32>
  %1 = amp.slice %0 {starts = array<i64: 0, 0>, limits = array<i64: 4, 64>, strides = array<i64: 1, 1>} : tensor<64x64xf32> -> tensor<4x64xf32>
  %2 = amp.matmul %1, %w : tensor<4x64xf32>, tensor<64x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A low-precision chain that shrinks: 512 bf16 elements reduce to 8 before
// an f32 exp. Painting leaves tanh and reduce_max f32 (nothing is ALLOW), so
// the 512-element input would be cast (3072 bytes); running the chain in
// bf16 casts the 8-element maximum instead (48 bytes).
// CHECK-LABEL: func.func @shrinking_chain
// CHECK: amp.tanh {{.*}}{amp.precision = bf16, amp.precision_rule = "min-cut"}
// CHECK: amp.reduce_max {{.*}}{amp.precision = bf16, amp.precision_rule = "min-cut"
// CHECK: amp.exp {{.*}}"deny"
// BYTES-LABEL: function @shrinking_chain
// BYTES: casts: 1, 48 bytes moved
func.func @shrinking_chain(%x: tensor<8x8x8xbf16>) -> tensor<8xf32> {
  %0 = amp.cast %x : tensor<8x8x8xbf16> to tensor<8x8x8xf32>
  %1 = amp.tanh %0 : tensor<8x8x8xf32>
  %2 = amp.reduce_max %1 {axes = array<i64: 1, 2>} : tensor<8x8x8xf32> -> tensor<8xf32>
  %3 = amp.exp %2 : tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// One value, several users: the cost is per value, not per use. The negated
// bf16 input feeds two f32 ops and a matmul. Low, it is cast to f32 once for
// both f32 users (384 bytes); f32, the input and the result would each be
// cast (768 bytes).
// CHECK-LABEL: func.func @one_cast_per_value
// CHECK: amp.neg {{.*}}{amp.precision = bf16
// BYTES-LABEL: function @one_cast_per_value
// BYTES: casts: 1, 384 bytes moved
func.func @one_cast_per_value(%x: tensor<8x8xbf16>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = amp.cast %x : tensor<8x8xbf16> to tensor<8x8xf32>
  %1 = amp.neg %0 : tensor<8x8xf32>
  %2 = amp.exp %1 : tensor<8x8xf32>
  %3 = amp.log %1 : tensor<8x8xf32>
  %4 = amp.matmul %1, %1 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %2, %3, %4 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A parameter used by the forward and the backward matmul is cast once
// (16x16 elements, 1536 bytes).
// CHECK-LABEL: func.func @parameter_cast_once
// BYTES-LABEL: function @parameter_cast_once
// BYTES: casts: 1, 1536 bytes moved
func.func @parameter_cast_once(%w: tensor<16x16xf32> {amp.role = #amp.role<parameter>},
                               %x: tensor<4x16xbf16>, %dy: tensor<4x16xbf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %xf = amp.cast %x : tensor<4x16xbf16> to tensor<4x16xf32>
  %dyf = amp.cast %dy : tensor<4x16xbf16> to tensor<4x16xf32>
  %y = amp.matmul %xf, %w {transpose_rhs} : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %dx = amp.matmul %dyf, %w : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  return %y, %dx : tensor<4x16xf32>, tensor<4x16xf32>
}
