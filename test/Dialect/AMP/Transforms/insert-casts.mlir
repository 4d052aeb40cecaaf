// RUN: amp-opt %s -split-input-file --amp-insert-casts | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-insert-casts --amp-insert-casts | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-insert-casts --mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s

// amp-insert-casts on hand-written assignments (amp.precision): it retypes
// ops, casts only at boundaries, reuses casts, and leaves everything without
// an assignment (and function signatures) as it was. Running it twice
// changes nothing, and its output verifies.

// Casts only where the type changes; the signature stays f32.
// CHECK-LABEL: func.func @boundaries
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[E:.*]] = amp.exp %[[A]] {{.*}}: tensor<4x4xf32>
// CHECK: %[[EL:.*]] = amp.cast %[[E]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK: %[[M:.*]] = amp.matmul %[[EL]], %[[EL]] {{.*}}: tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
// CHECK: %[[S:.*]] = amp.add %[[M]], %[[M]] {{.*}}: tensor<4x4xbf16>
// CHECK: %[[SF:.*]] = amp.cast %[[S]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK: %[[P:.*]] = amp.softmax %[[SF]] {{.*}}: tensor<4x4xf32>
// CHECK: return %[[P]] : tensor<4x4xf32>
func.func @boundaries(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.exp %a {amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x4xf32>
  %1 = amp.matmul %0, %0 {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = amp.add %1, %1 {amp.precision = bf16, amp.precision_rule = "min-cut"} : tensor<4x4xf32>
  %3 = amp.softmax %2 {axis = -1 : i64, amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// A parameter is cast once, right at the start of the step, and the cast is
// used by the forward and the backward matmul.
// CHECK-LABEL: func.func @parameter_once
// CHECK-SAME: (%[[W:.*]]: tensor<8x8xf32> {amp.role = #amp.role<parameter>}
// CHECK: %[[WL:.*]] = amp.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NOT: amp.cast %[[W]]
// CHECK: amp.matmul %{{.*}}, %[[WL]] {{.*}}: tensor<4x8xf16>, tensor<8x8xf16>
// CHECK: amp.matmul %{{.*}}, %[[WL]] {{.*}}: tensor<4x8xf16>, tensor<8x8xf16>
func.func @parameter_once(%w: tensor<8x8xf32> {amp.role = #amp.role<parameter>},
                          %x: tensor<4x8xf32>, %dy: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y = amp.matmul %x, %w {transpose_rhs, amp.precision = f16, amp.precision_rule = "allow"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %dx = amp.matmul %dy, %w {amp.precision = f16, amp.precision_rule = "allow"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %y, %dx : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Contractions (and sums, means) accumulate in f32: when every user wants
// f32 they return the accumulator unrounded, with no cast; when some users
// want bf16 they round once, through a single cast shared by those users.
// CHECK-LABEL: func.func @widenable
// CHECK: %[[F:.*]] = amp.matmul {{.*}} -> tensor<4x4xf32>
// CHECK-NEXT: amp.exp %[[F]]
// CHECK: %[[L:.*]] = amp.matmul {{.*}} -> tensor<4x4xbf16>
// CHECK-NEXT: amp.tanh %[[L]]
// CHECK: %[[MIXED:.*]] = amp.matmul {{.*}} -> tensor<4x4xf32>
// CHECK-NEXT: %[[ROUNDED:.*]] = amp.cast %[[MIXED]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-NEXT: amp.log %[[MIXED]]
// CHECK-NEXT: amp.sigmoid %[[ROUNDED]]
// CHECK: amp.neg %[[ROUNDED]]
// CHECK: %[[SUM:.*]] = amp.reduce_sum %{{.*}} : tensor<4x4xbf16> -> tensor<4xf32>
func.func @widenable(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %0 = amp.matmul %a, %a {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.exp %0 {amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x4xf32>
  %2 = amp.matmul %a, %a {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = amp.tanh %2 {amp.precision = bf16, amp.precision_rule = "min-cut"} : tensor<4x4xf32>
  %4 = amp.matmul %a, %a {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %5 = amp.log %4 {amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x4xf32>
  %6 = amp.sigmoid %4 {amp.precision = bf16, amp.precision_rule = "min-cut"} : tensor<4x4xf32>
  %7 = amp.neg %4 {amp.precision = bf16, amp.precision_rule = "min-cut"} : tensor<4x4xf32>
  %8 = amp.reduce_sum %7 {axes = array<i64: 1>, amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32> -> tensor<4xf32>
  %9 = amp.cast %3 : tensor<4x4xf32> to tensor<4x4xbf16>
  %10 = amp.cast %9 : tensor<4x4xbf16> to tensor<4x4xf32>
  return %1, %10, %5, %6, %7, %8 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
}

// -----

// Normalization statistics stay f32 around a bf16 norm (lp-norm, O2/O3);
// the f32 affine parameters are used as they are (the norm adds them to its
// f32 accumulator), and the parameter gradients keep the parameters' type.
// CHECK-LABEL: func.func @statistics
// CHECK: %[[XL:.*]] = amp.cast %arg0 : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = amp.layer_norm %[[XL]], %arg1, %arg2 {{.*}} : (tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>)
// CHECK: amp.layer_norm_grad %[[Y]], %[[XL]], %[[MEAN]], %[[RSTD]], %arg1 {{.*}} : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>)
// CHECK: amp.batch_norm {{.*}} : (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
func.func @statistics(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>,
                      %img: tensor<2x3x4x4xf32>, %g: tensor<3xf32>, %rm: tensor<3xf32>)
    -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) {
  %y, %mean, %rstd = amp.layer_norm %x, %w, %b {amp.precision = bf16, amp.precision_rule = "allow (lp-norm)"}
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %dx, %dw, %db = amp.layer_norm_grad %y, %x, %mean, %rstd, %w {amp.precision = bf16, amp.precision_rule = "allow (lp-norm)"}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %n, %sm, %sr, %nm, %nv = amp.batch_norm %img, %g, %g, %rm, %rm {amp.precision = bf16, amp.precision_rule = "between-allow"}
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw, %db, %n, %nm : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>
}

// -----

// Reductions and cross_entropy computed in f32 read a bf16 input directly:
// they widen every element before any arithmetic, so a cast would add bytes
// and no accuracy. The bias of a bf16 linear stays f32.
// CHECK-LABEL: func.func @f32_from_low_inputs
// CHECK: %[[H:.*]] = amp.linear %{{.*}}, %{{.*}}, %arg2 {{.*}} : (tensor<4x8xbf16>, tensor<3x8xbf16>, tensor<3xf32>) -> tensor<4x3xbf16>
// CHECK: amp.reduce_sum %[[H]] {{.*}} : tensor<4x3xbf16> -> tensor<3xf32>
// CHECK: amp.reduce_mean %[[H]] {{.*}} : tensor<4x3xbf16> -> tensor<3xf32>
// CHECK: amp.cross_entropy %[[H]], %arg3 {{.*}} : tensor<4x3xbf16>, tensor<4xi64>
// CHECK-NOT: amp.cast %[[H]]
func.func @f32_from_low_inputs(%x: tensor<4x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3xf32>, %labels: tensor<4xi64>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  %h = amp.linear %x, %w, %b {amp.precision = bf16, amp.precision_rule = "allow"} : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %t = amp.tanh %h {amp.precision = bf16, amp.precision_rule = "after-allow-bf16"} : tensor<4x3xf32>
  %s = amp.reduce_sum %h {axes = array<i64: 0>, amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x3xf32> -> tensor<3xf32>
  %m = amp.reduce_mean %h {axes = array<i64: 0>, amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x3xf32> -> tensor<3xf32>
  %l = amp.cross_entropy %h, %labels {amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x3xf32>, tensor<4xi64>
  %tl = amp.cast %t : tensor<4x3xf32> to tensor<4x3xbf16>
  %tf = amp.cast %tl : tensor<4x3xbf16> to tensor<4x3xf32>
  return %tf, %s, %m, %l : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// Constants are converted at compile time, not cast.
// CHECK-LABEL: func.func @constants
// CHECK: %[[C:.*]] = amp.constant {{.*}}dense<2.500000e-01> : tensor<4xf16>
// CHECK: amp.mul %{{.*}}, %[[C]] {{.*}}: tensor<4xf16>
// CHECK-NOT: amp.cast {{.*}}tensor<4xf32> to tensor<4xf16>
func.func @constants(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.matmul %a, %a {amp.precision = f16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.slice %0 {starts = array<i64: 0, 0>, limits = array<i64: 1, 4>, strides = array<i64: 1, 1>, amp.precision = f16, amp.precision_rule = "clear-next-to-allow"} : tensor<4x4xf32> -> tensor<1x4xf32>
  %2 = amp.reshape %1 {amp.precision = f16, amp.precision_rule = "clear-next-to-allow"} : tensor<1x4xf32> -> tensor<4xf32>
  %c = amp.constant {amp.precision = f16, amp.precision_rule = "clear-next-to-allow"} dense<0.25> : tensor<4xf32>
  %3 = amp.mul %2, %c {amp.precision = f16, amp.precision_rule = "between-allow"} : tensor<4xf32>
  %4 = amp.broadcast %3 {amp.precision = f16, amp.precision_rule = "between-allow"} : tensor<4xf32> -> tensor<4x4xf32>
  %5 = amp.matmul %4, %4 {amp.precision = f16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %5 : tensor<4x4xf32>
}

// -----

// Round trips fold: a bf16 value widened by a cast in the input is used
// directly by bf16 users; a narrowing cast (a real rounding) is kept.
// CHECK-LABEL: func.func @round_trips
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xbf16>, %[[Y:.*]]: tensor<4x4xf32>)
// CHECK: amp.matmul %[[X]], %[[X]]
// CHECK: %[[R:.*]] = amp.cast %[[Y]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK: %[[RW:.*]] = amp.cast %[[R]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK: amp.exp %[[RW]]
func.func @round_trips(%x: tensor<4x4xbf16>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %xw = amp.cast %x : tensor<4x4xbf16> to tensor<4x4xf32>
  %0 = amp.matmul %xw, %xw {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r = amp.cast %y : tensor<4x4xf32> to tensor<4x4xbf16>
  %rw = amp.cast %r : tensor<4x4xbf16> to tensor<4x4xf32>
  %1 = amp.exp %rw {amp.precision = f32, amp.precision_rule = "deny"} : tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Ops without an assignment see the types they had (here arith.addf and a
// tanh without amp.precision need f32, so the matmul returns f32 and rounds
// once for its bf16 user), what crosses a region boundary is cast back, and
// the optimizer takes its gradient in any type (it widens it).
// CHECK-LABEL: func.func @fixed_ops
// CHECK: %[[G:.*]] = amp.matmul {{.*}} -> tensor<4x4xf32>
// CHECK-NEXT: %[[GL:.*]] = amp.cast %[[G]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-NEXT: amp.sgd_update %arg0, %[[G]], lr %arg1 : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT: arith.addf %[[G]], %[[G]] : tensor<4x4xf32>
// CHECK-NEXT: amp.tanh %[[G]] : tensor<4x4xf32>
// CHECK-NEXT: scf.execute_region
// CHECK-NEXT: %[[T:.*]] = amp.tanh %[[GL]] {{.*}}: tensor<4x4xbf16>
// CHECK-NEXT: %[[TF:.*]] = amp.cast %[[T]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK-NEXT: scf.yield %[[TF]] : tensor<4x4xf32>

func.func @fixed_ops(%p: tensor<4x4xf32>, %lr: tensor<f32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %g = amp.matmul %p, %p {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %p1 = amp.sgd_update %p, %g, lr %lr : tensor<4x4xf32>, tensor<4x4xf32>
  %s = arith.addf %g, %g : tensor<4x4xf32>
  %u = amp.tanh %g : tensor<4x4xf32>
  %r = scf.execute_region -> tensor<4x4xf32> {
    %t = amp.tanh %g {amp.precision = bf16, amp.precision_rule = "after-allow-bf16"} : tensor<4x4xf32>
    scf.yield %t : tensor<4x4xf32>
  }
  return %p1, %s, %u, %r : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The optimizer consumes a bf16 gradient as it is.
// CHECK-LABEL: func.func @optimizer_gradient
// CHECK: %[[G:.*]] = amp.matmul {{.*}} -> tensor<4x4xbf16>
// CHECK-NEXT: amp.sgd_update %arg0, %[[G]], lr %arg1 : tensor<4x4xf32>, tensor<4x4xbf16>
func.func @optimizer_gradient(%p: tensor<4x4xf32>, %lr: tensor<f32>) -> tensor<4x4xf32> {
  %g = amp.matmul %p, %p {amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %p1 = amp.sgd_update %p, %g, lr %lr : tensor<4x4xf32>, tensor<4x4xf32>
  return %p1 : tensor<4x4xf32>
}
