// The backward rule of amp.attention: one amp.attention_grad from the saved
// log-sum-exp, with the forward's mask, seed and attributes; the mask and
// the seed get no gradient. Grouped-query heads: the key and value
// gradients have the key and value heads' shapes.

// RUN: amp-opt %s --amp-autodiff=optimizer=none | FileCheck %s

// CHECK-LABEL: func.func @attention_grad(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x4x6x8xf32>
// CHECK-SAME:    %[[K:[^:]*]]: tensor<1x2x6x8xf32>
// CHECK-SAME:    %[[V:[^:]*]]: tensor<1x2x6x8xf32>
// CHECK-SAME:    %[[M:[^:]*]]: tensor<1x1x6x6xi1>
// CHECK:         %[[O:.*]], %[[LSE:.*]] = amp.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] seed %[[S:[^ ]*]] {causal, dropout = 2.500000e-01 : f64, scale = 3.500000e-01 : f64}
// CHECK:         %[[G:.*]] = amp.broadcast
// CHECK:         %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = amp.attention_grad %[[G]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] mask %[[M]] seed %[[S]] {causal, dropout = 2.500000e-01 : f64, scale = 3.500000e-01 : f64}
// CHECK-SAME:    -> (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>)
// CHECK:         return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]]
func.func @attention(%q: tensor<1x4x6x8xf32> {amp.role = #amp.role<parameter>, amp.name = "q"},
                     %k: tensor<1x2x6x8xf32> {amp.role = #amp.role<parameter>, amp.name = "k"},
                     %v: tensor<1x2x6x8xf32> {amp.role = #amp.role<parameter>, amp.name = "v"},
                     %m: tensor<1x1x6x6xi1> {amp.role = #amp.role<input>, amp.name = "m"},
                     %seed: tensor<i64> {amp.role = #amp.role<input>, amp.name = "seed"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %o, %lse = amp.attention %q, %k, %v mask %m seed %seed
      {scale = 0.35 : f64, causal, dropout = 0.25 : f64}
      : (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>,
         tensor<1x1x6x6xi1>, tensor<i64>)
      -> (tensor<1x4x6x8xf32>, tensor<1x4x6xf32>)
  %l = amp.reduce_sum %o {axes = array<i64: 0, 1, 2, 3>}
      : tensor<1x4x6x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
