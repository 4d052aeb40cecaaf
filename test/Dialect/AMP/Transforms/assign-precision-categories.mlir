// RUN: amp-opt %s -split-input-file --amp-assign-precision 2>/dev/null | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-assign-precision -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// The four categories with their default lists, forward and backward ops
// alike, and ops without a category. amp-assign-precision records a type and
// a rule on every op with the precision interface and changes no type.

// ALLOW runs low whatever surrounds it (TF pass 1), forward and backward.
// CHECK-LABEL: func.func @allow
// CHECK: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: amp.linear {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// CHECK: amp.conv2d {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// CHECK: amp.conv2d_input_grad {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
// CHECK: amp.conv2d_weight_grad {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"}
func.func @allow(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %w: tensor<2x8xf32>,
                 %x: tensor<2x3x8x8xf32>, %k: tensor<4x3x3x3xf32>,
                 %g: tensor<2x4x6x6xf32>)
    -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x4x6x6xf32>,
        tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %0 = amp.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  %1 = amp.linear %a, %w : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  %2 = amp.conv2d %x, %k : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %3 = amp.conv2d_input_grad %g, %k : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  %4 = amp.conv2d_weight_grad %g, %x : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0, %1, %2, %3, %4 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// -----

// DENY stays f32 whatever surrounds it, even between ALLOW ops: exp, log,
// pow, rsqrt, sums and means, softmax, log_softmax, norms, losses and their
// gradients.
// CHECK-LABEL: func.func @deny
// CHECK: amp.exp {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.log {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.pow {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.rsqrt {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.softmax {{.*}}{amp.precision = f32, amp.precision_rule = "deny", axis = -1 : i64}
// CHECK: amp.log_softmax {{.*}}{amp.precision = f32, amp.precision_rule = "deny", axis = -1 : i64}
// CHECK: amp.softmax_grad {{.*}}{amp.precision = f32, amp.precision_rule = "deny", axis = -1 : i64}
// CHECK: amp.reduce_sum {{.*}}{amp.precision = f32, amp.precision_rule = "deny", axes = array<i64: 1>}
// CHECK: amp.reduce_mean {{.*}}{amp.precision = f32, amp.precision_rule = "deny", axes = array<i64: 1>}
// CHECK: amp.layer_norm {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.layer_norm_grad {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.cross_entropy {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.cross_entropy_grad {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// CHECK: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow", transpose_rhs}
func.func @deny(%a: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>,
                %labels: tensor<4xi64>, %d: tensor<f32>)
    -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>,
        tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>) {
  %0 = amp.exp %a : tensor<4x8xf32>
  %1 = amp.log %0 : tensor<4x8xf32>
  %2 = amp.pow %1, %a : tensor<4x8xf32>
  %3 = amp.rsqrt %2 : tensor<4x8xf32>
  %4 = amp.softmax %3 {axis = -1 : i64} : tensor<4x8xf32>
  %5 = amp.log_softmax %4 {axis = -1 : i64} : tensor<4x8xf32>
  %6 = amp.softmax_grad %5, %4 {axis = -1 : i64} : tensor<4x8xf32>
  %7 = amp.reduce_sum %6 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %8 = amp.reduce_mean %6 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %y, %mean, %rstd = amp.layer_norm %6, %w, %b
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %dx, %dw, %db = amp.layer_norm_grad %y, %6, %mean, %rstd, %w
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %loss = amp.cross_entropy %dx, %labels : tensor<4x8xf32>, tensor<4xi64>
  %dl = amp.cross_entropy_grad %d, %dx, %labels : tensor<4x8xf32>, tensor<4xi64>
  %m = amp.matmul %dl, %dl {transpose_rhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  return %m, %7, %8, %loss, %dx, %dw, %db, %dl
      : tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>
}

// -----

// INFER follows its inputs: between ALLOW ops it is low (TF pass 3), next
// to f32 values only it stays f32 (TF leaves unpainted ops in f32, and no
// cast is saved by moving it).
// CHECK-LABEL: func.func @infer
// CHECK: amp.add %arg0, %arg0 {amp.precision = f32, amp.precision_rule = "unpainted"}
// CHECK: amp.matmul {{.*}}"allow"
// CHECK: amp.tanh {{.*}}{amp.precision = bf16, amp.precision_rule = "between-allow"}
// CHECK: amp.gelu_grad {{.*}}{amp.precision = bf16, amp.precision_rule = "between-allow"}
// CHECK: amp.matmul {{.*}}"allow"
func.func @infer(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = amp.add %a, %a : tensor<4x4xf32>
  %1 = amp.matmul %0, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = amp.tanh %1 : tensor<4x4xf32>
  %3 = amp.gelu_grad %2, %1 : tensor<4x4xf32>
  %4 = amp.matmul %3, %3 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0, %4 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// CLEAR ops (data movement, exact ops) take the type of the ALLOW op they
// touch (TF pass 5), or stay f32 among f32 ops.
// CHECK-LABEL: func.func @clear
// CHECK: amp.transpose %arg0 {amp.precision = f32, amp.precision_rule = "unpainted"
// CHECK: amp.reshape %arg0 {amp.precision = bf16, amp.precision_rule = "clear-next-to-allow"}
// CHECK: amp.relu_grad {{.*}}{amp.precision = bf16, amp.precision_rule = "clear-next-to-allow"}
// CHECK: amp.matmul {{.*}}"allow"
func.func @clear(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = amp.transpose %a {permutation = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = amp.reshape %a : tensor<4x4xf32> -> tensor<16xf32>
  %2 = amp.reshape %1 : tensor<16xf32> -> tensor<4x4xf32>
  %3 = amp.relu_grad %2, %2 : tensor<4x4xf32>
  %4 = amp.matmul %3, %3 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0, %4 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Ops without the interface get no attribute: their types are fixed by
// their role (seed, optimizer) or they belong to another dialect (a remark
// says so).
// REMARK: remark: 'arith.addf' has no precision category; it keeps its types
// REMARK-NOT: remark
// CHECK-LABEL: func.func @no_category
// CHECK: amp.seed %{{.*}}{{$}}
// CHECK: amp.sgd_update %arg1, %{{.*}}, lr %arg2 : tensor<4xf32>, tensor<4xf32>
// CHECK: arith.addf %arg1, %arg1 : tensor<4xf32>
func.func @no_category(%loss: tensor<f32>, %p: tensor<4xf32>, %lr: tensor<f32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %s = amp.seed %loss
  %p1 = amp.sgd_update %p, %p, lr %lr : tensor<4xf32>, tensor<4xf32>
  %q = arith.addf %p, %p : tensor<4xf32>
  return %s, %p1, %q : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
