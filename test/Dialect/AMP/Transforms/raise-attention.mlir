// RUN: amp-opt %s -split-input-file --amp-raise-attention | FileCheck %s

// nanoGPT's attention as torch.export spells it: q k^T through an explicit
// transpose and bmm views, a scale, masked_fill of a constant triu mask
// with -inf, softmax, dropout, and bmm with v. One amp.attention, causal,
// with the dropout's probability and seed; nothing of the chain is left.

// CHECK-LABEL: func.func @nanogpt
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32> {{.*}}, %[[K:.*]]: tensor<2x2x4x8xf32> {{.*}}, %[[V:.*]]: tensor<2x2x4x8xf32> {{.*}}, %[[S:.*]]: tensor<i64>
// CHECK: %[[O:.*]], %{{.*}} = amp.attention %[[Q]], %[[K]], %[[V]] seed %[[S]] {causal, dropout = 1.000000e-01 : f64, scale = 0.35355338454246521 : f64}
// CHECK-NEXT: %[[R:.*]] = amp.reshape %[[O]] : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: amp.softmax
func.func @nanogpt(
    %q: tensor<2x2x4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "q"},
    %k: tensor<2x2x4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "k"},
    %v: tensor<2x2x4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "v"},
    %seed: tensor<i64> {amp.role = #amp.role<input>, amp.name = "seed"})
    -> tensor<4x4x8xf32> attributes {amp.graph = #amp.graph<forward>} {
  %kt = amp.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x8xf32> -> tensor<2x2x8x4xf32>
  %q3 = amp.reshape %q : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %kt3 = amp.reshape %kt : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %s3 = amp.matmul %q3, %kt3 : tensor<4x4x8xf32>, tensor<4x8x4xf32> -> tensor<4x4x4xf32>
  %s = amp.reshape %s3 : tensor<4x4x4xf32> -> tensor<2x2x4x4xf32>
  %c = amp.constant dense<0.353553385> : tensor<f32>
  %cb = amp.broadcast %c : tensor<f32> -> tensor<2x2x4x4xf32>
  %scaled = amp.mul %s, %cb : tensor<2x2x4x4xf32>
  %hide = amp.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %hideb = amp.broadcast %hide : tensor<4x4xi1> -> tensor<2x2x4x4xi1>
  %inf = amp.constant dense<0xFF800000> : tensor<f32>
  %infb = amp.broadcast %inf : tensor<f32> -> tensor<2x2x4x4xf32>
  %masked = amp.where %hideb, %infb, %scaled : tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>
  %p = amp.softmax %masked {axis = -1 : i64} : tensor<2x2x4x4xf32>
  %pd, %keep = amp.dropout %p, %seed {probability = 0.1 : f64} : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xi1>
  %p3 = amp.reshape %pd : tensor<2x2x4x4xf32> -> tensor<4x4x4xf32>
  %v3 = amp.reshape %v : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %o = amp.matmul %p3, %v3 : tensor<4x4x4xf32>, tensor<4x4x8xf32> -> tensor<4x4x8xf32>
  return %o : tensor<4x4x8xf32>
}

// -----

// GPT-2's form (bench/make_gpu_models.py): transpose_rhs, a causal keep
// mask from an iota comparison, -1e4 for hidden keys.

// CHECK-LABEL: func.func @iota_causal
// CHECK: amp.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f64}
// CHECK-NOT: amp.compare
func.func @iota_causal(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>)
    -> tensor<1x2x3x4xf32> attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.matmul %q, %k {transpose_rhs} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x3xf32>
  %c = amp.constant dense<2.0> : tensor<f32>
  %cb = amp.broadcast %c : tensor<f32> -> tensor<1x2x3x3xf32>
  %scaled = amp.div %s, %cb : tensor<1x2x3x3xf32>
  %iota = amp.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %col = amp.reshape %iota : tensor<3xf32> -> tensor<3x1xf32>
  %rows = amp.broadcast %col : tensor<3x1xf32> -> tensor<3x3xf32>
  %cols = amp.broadcast %iota : tensor<3xf32> -> tensor<3x3xf32>
  %keep = amp.compare ge, %rows, %cols : tensor<3x3xf32> -> tensor<3x3xi1>
  %keepb = amp.broadcast %keep : tensor<3x3xi1> -> tensor<1x2x3x3xi1>
  %neg = amp.constant dense<-1.0e4> : tensor<f32>
  %negb = amp.broadcast %neg : tensor<f32> -> tensor<1x2x3x3xf32>
  %masked = amp.where %keepb, %scaled, %negb : tensor<1x2x3x3xi1>, tensor<1x2x3x3xf32>
  %p = amp.softmax %masked {axis = 3 : i64} : tensor<1x2x3x3xf32>
  %o = amp.matmul %p, %v : tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// Hugging Face BERT's eager attention: an additive padding mask [B, 1, 1, S]
// from the input, broadcast over the queries (made explicit: [B, 1, Sq, S]).

// CHECK-LABEL: func.func @padding_mask
// CHECK: %[[M:.*]] = amp.broadcast %arg3 : tensor<2x1x1x5xf32> -> tensor<2x1x5x5xf32>
// CHECK: amp.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 1.250000e-01 : f64}
func.func @padding_mask(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x5x8xf32>, %v: tensor<2x3x5x8xf32>,
                        %m: tensor<2x1x1x5xf32> {amp.role = #amp.role<input>, amp.name = "mask"})
    -> tensor<2x3x5x8xf32> attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.matmul %q, %k {transpose_rhs} : tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32> -> tensor<2x3x5x5xf32>
  %c = amp.constant dense<8.0> : tensor<f32>
  %cb = amp.broadcast %c : tensor<f32> -> tensor<2x3x5x5xf32>
  %scaled = amp.div %s, %cb : tensor<2x3x5x5xf32>
  %mb = amp.broadcast %m : tensor<2x1x1x5xf32> -> tensor<2x3x5x5xf32>
  %masked = amp.add %scaled, %mb : tensor<2x3x5x5xf32>
  %p = amp.softmax %masked {axis = -1 : i64} : tensor<2x3x5x5xf32>
  %o = amp.matmul %p, %v : tensor<2x3x5x5xf32>, tensor<2x3x5x8xf32> -> tensor<2x3x5x8xf32>
  return %o : tensor<2x3x5x8xf32>
}

// -----

// Left unfused: a learned relative position bias (amp.attention gives the
// mask no gradient), probabilities the model also returns, and a softmax
// over another axis.

// CHECK-LABEL: func.func @learned_bias
// CHECK-NOT: amp.attention
// CHECK: amp.softmax
func.func @learned_bias(%q: tensor<1x1x4x8xf32>,
                        %bias: tensor<1x1x4x4xf32> {amp.role = #amp.role<parameter>, amp.name = "rel_bias"})
    -> tensor<1x1x4x8xf32> attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.matmul %q, %q {transpose_rhs} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x4xf32>
  %masked = amp.add %s, %bias : tensor<1x1x4x4xf32>
  %p = amp.softmax %masked {axis = -1 : i64} : tensor<1x1x4x4xf32>
  %o = amp.matmul %p, %q : tensor<1x1x4x4xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// CHECK-LABEL: func.func @probabilities_returned
// CHECK-NOT: amp.attention
func.func @probabilities_returned(%q: tensor<1x1x4x8xf32>)
    -> (tensor<1x1x4x8xf32>, tensor<1x1x4x4xf32>) attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.matmul %q, %q {transpose_rhs} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x4xf32>
  %p = amp.softmax %s {axis = -1 : i64} : tensor<1x1x4x4xf32>
  %o = amp.matmul %p, %q : tensor<1x1x4x4xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %o, %p : tensor<1x1x4x8xf32>, tensor<1x1x4x4xf32>
}

// CHECK-LABEL: func.func @other_axis
// CHECK-NOT: amp.attention
func.func @other_axis(%q: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.matmul %q, %q {transpose_rhs} : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  %p = amp.softmax %s {axis = 2 : i64} : tensor<1x1x4x4xf32>
  %o = amp.matmul %p, %q : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}

// -----

// A boolean keep mask that is not triangular stays a mask operand; a graph
// that is not a forward model is left alone.

// CHECK-LABEL: func.func @keep_mask
// CHECK: amp.attention %arg0, %arg0, %arg0 mask %{{.*}} {scale = 1.000000e+00 : f64} : {{.*}}tensor<1x1x2x2xi1>
func.func @keep_mask(%q: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
    attributes {amp.graph = #amp.graph<forward>} {
  %s = amp.matmul %q, %q {transpose_rhs} : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %keep = amp.constant dense<[[true, true], [false, true]]> : tensor<2x2xi1>
  %keepb = amp.broadcast %keep : tensor<2x2xi1> -> tensor<1x1x2x2xi1>
  %neg = amp.constant dense<0xFF7FFFFF> : tensor<f32>
  %negb = amp.broadcast %neg : tensor<f32> -> tensor<1x1x2x2xf32>
  %masked = amp.where %keepb, %s, %negb : tensor<1x1x2x2xi1>, tensor<1x1x2x2xf32>
  %p = amp.softmax %masked {axis = -1 : i64} : tensor<1x1x2x2xf32>
  %o = amp.matmul %p, %q : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// CHECK-LABEL: func.func @not_forward
// CHECK: amp.softmax
func.func @not_forward(%q: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %s = amp.matmul %q, %q {transpose_rhs} : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %p = amp.softmax %s {axis = -1 : i64} : tensor<1x1x2x2xf32>
  %o = amp.matmul %p, %q : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}
