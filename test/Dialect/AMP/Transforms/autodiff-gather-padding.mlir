// RUN: amp-opt %s -split-input-file --amp-autodiff="optimizer=none" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-autodiff="optimizer=sgd" | FileCheck %s --check-prefix=SGD

// nn.Embedding(padding_idx=p): the backward rule of amp.gather hands its
// padding_idx to amp.gather_grad, which then gives row p no gradient. A
// gather without it gets a gather_grad without it.

// CHECK-LABEL: func.func @embed_grad(
// CHECK-SAME:    %[[TABLE:[^:]*]]: tensor<10x4xf32> {amp.name = "embedding.weight"
// CHECK-SAME:    %[[POS:[^:]*]]: tensor<10x4xf32> {amp.name = "position.weight"
// CHECK-SAME:    %[[IDS:[^:]*]]: tensor<2x3xi64>
// CHECK:         amp.gather %[[TABLE]], %[[IDS]] {padding_idx = 2 : i64}
// CHECK:         amp.gather %[[POS]], %[[IDS]] :
// CHECK-DAG:     %[[DPOS:.*]] = amp.gather_grad %{{.*}}, %[[IDS]] : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// CHECK-DAG:     %[[DTABLE:.*]] = amp.gather_grad %{{.*}}, %[[IDS]] {padding_idx = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// CHECK:         return %{{.*}}, %[[DTABLE]], %[[DPOS]]

// SGD-LABEL: func.func @embed_train_step(
// SGD-SAME:    %[[TABLE:[^:]*]]: tensor<10x4xf32> {amp.name = "embedding.weight"
// SGD:         %[[DTABLE:.*]] = amp.gather_grad %{{.*}}, %{{.*}} {padding_idx = 2 : i64}
// SGD:         amp.sgd_update %[[TABLE]], %[[DTABLE]]

func.func @embed(%table: tensor<10x4xf32> {amp.role = #amp.role<parameter>, amp.name = "embedding.weight"},
                 %pos: tensor<10x4xf32> {amp.role = #amp.role<parameter>, amp.name = "position.weight"},
                 %ids: tensor<2x3xi64> {amp.role = #amp.role<input>, amp.name = "ids"}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %e = amp.gather %table, %ids {axis = 0 : i64, padding_idx = 2 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %p = amp.gather %pos, %ids : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %s = amp.mul %e, %p : tensor<2x3x4xf32>
  %l = amp.reduce_sum %s {axes = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
