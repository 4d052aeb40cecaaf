// --amp-optimizer-step: a gradient function becomes a training step. The
// optimizer state pairs are added through the TrainingStep view (after the
// buffers, each returned updated by the result of the same role and order).

// RUN: amp-opt %s --amp-optimizer-step="optimizer=adamw" | FileCheck %s
// RUN: amp-opt %s --amp-optimizer-step="optimizer=sgd momentum=0.9 dampening=0.5" \
// RUN:   | FileCheck %s --check-prefix=SGD
// RUN: amp-opt %s --amp-optimizer-step="optimizer=none" | FileCheck %s --check-prefix=NONE

// amp-autodiff's step is its gradient function and the optimizer step.
// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --amp-autodiff="loss=cross_entropy optimizer=none max-grad-norm=1.0" \
// RUN:   --amp-optimizer-step="optimizer=adamw weight-decay=0.1" -o %t.split
// RUN: amp-opt %amp_src_root/examples/mlp_forward.mlir \
// RUN:   --amp-autodiff="loss=cross_entropy optimizer=adamw weight-decay=0.1 max-grad-norm=1.0" \
// RUN:   -o %t.direct
// RUN: diff %t.split %t.direct
// RUN: FileCheck %s --check-prefix=MLP < %t.split

// MLP-LABEL: func.func @mlp_train_step(
// MLP:         amp.clip_grad_norm
// MLP-COUNT-4: amp.adamw_update

// A gradient function written by hand: the gradient of w is the sum of
// two replicas' gradients.
// CHECK-LABEL: func.func @replicas_train_step(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[R:[^:]*]]: tensor<4xf32> {amp.name = "running", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[M:[^:]*]]: tensor<4xf32> {amp.name = "w.exp_avg", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[V:[^:]*]]: tensor<4xf32> {amp.name = "w.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[STEP:[^:]*]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:    %[[G0:[^:]*]]: tensor<4xf32> {amp.name = "g0", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[G1:[^:]*]]: tensor<4xf32> {amp.name = "g1", amp.role = #amp.role<input>},
// CHECK-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>},
// CHECK-SAME:    %{{[^:]*}}: tensor<f32> {amp.name = "temperature", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    -> (tensor<4xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME:        tensor<4xf32> {amp.name = "running", amp.role = #amp.role<buffer>},
// CHECK-SAME:        tensor<4xf32> {amp.name = "w.exp_avg", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:        tensor<4xf32> {amp.name = "w.exp_avg_sq", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:        tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// CHECK-SAME:        tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// CHECK-SAME:        tensor<4xf32> {amp.name = "sum", amp.role = #amp.role<output>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<training_step>}
// CHECK:         %[[SUM:.*]] = amp.add %[[G0]], %[[G1]]
// CHECK-NEXT:    %[[LOSS:.*]] = amp.reduce_sum %[[SUM]]
// CHECK-NEXT:    %[[COUNT:.*]] = tensor.extract %[[STEP]][]
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[COUNT]], %[[ONE]]
// CHECK-NEXT:    %[[STEP1:.*]] = tensor.from_elements %[[NEXT]]
// CHECK-NEXT:    %[[W1:.*]], %[[M1:.*]], %[[V1:.*]] = amp.adamw_update %[[W]], %[[SUM]], %[[M]], %[[V]], step %[[STEP1]], lr %[[LR]]
// CHECK-NEXT:    return %[[W1]], %[[R]], %[[M1]], %[[V1]], %[[STEP1]], %[[LOSS]], %[[SUM]] :

// SGD-LABEL: func.func @replicas_train_step(
// SGD-SAME:    {amp.name = "running", amp.role = #amp.role<buffer>},
// SGD-SAME:    %[[BUF:[^:]*]]: tensor<4xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// SGD-SAME:    %{{[^:]*}}: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// SGD:         amp.where
// SGD-NEXT:    %[[W1:.*]], %[[BUF1:.*]] = amp.sgd_update
// SGD-NEXT:    return %[[W1]], %{{.*}}, %[[BUF1]], %{{.*}}, %{{.*}}, %{{.*}} :

// NONE-LABEL: func.func @replicas_grad(
// NONE:          return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>
// NONE-NOT:      _train_step
func.func @replicas_grad(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %r: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "running"},
    %g0: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "g0"},
    %g1: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "g1"},
    %t: tensor<f32> {amp.role = #amp.role<hyperparameter>, amp.name = "temperature"})
    -> (tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "running"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<4xf32> {amp.role = #amp.role<output>, amp.name = "w.grad"},
        tensor<4xf32> {amp.role = #amp.role<output>, amp.name = "sum"}) {
  %sum = amp.add %g0, %g1 : tensor<4xf32>
  %l = amp.reduce_sum %sum {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %r, %l, %sum, %sum
      : tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// Forward models, training steps and functions without parameter
// gradients are left alone.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    attributes {amp.graph = #amp.graph<forward>}
// CHECK-NOT:     amp.adamw_update
// CHECK-LABEL: func.func @helper(
// CHECK-NOT:     amp.adamw_update
// CHECK:         return
func.func @forward(%w: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<4xf32> {amp.role = #amp.role<output>, amp.name = "param0.grad"})
    attributes {amp.graph = #amp.graph<forward>} {
  return %w : tensor<4xf32>
}
func.func @helper(%w: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
