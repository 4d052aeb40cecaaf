// The signature of the generated step beyond the canonical groups:
// buffers, outputs, unmarked losses, declarations of the step, functions
// the pass leaves alone.

// RUN: amp-opt %s --amp-autodiff | FileCheck %s

// Buffers are matched to the forward's buffer results by amp.name (c is not
// returned: it passes through); the loss keeps its amp.name and the
// forward's other outputs follow it.
// CHECK-LABEL: func.func @bufs_train_step(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3xf32> {amp.name = "a", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[B:[^:]*]]: tensor<3xf32> {amp.name = "b", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[C:[^:]*]]: tensor<3xf32> {amp.name = "c", amp.role = #amp.role<buffer>},
// CHECK-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    -> (tensor<3xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// CHECK-SAME:        tensor<3xf32> {amp.name = "a", amp.role = #amp.role<buffer>},
// CHECK-SAME:        tensor<3xf32> {amp.name = "b", amp.role = #amp.role<buffer>},
// CHECK-SAME:        tensor<3xf32> {amp.name = "c", amp.role = #amp.role<buffer>},
// CHECK-SAME:        tensor<f32> {amp.name = "objective", amp.role = #amp.role<loss>},
// CHECK-SAME:        tensor<3xf32> {amp.name = "prediction", amp.role = #amp.role<output>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<training_step>}
// CHECK:         %[[P:.*]] = amp.mul %[[W]], %[[A]]
// CHECK-NEXT:    %[[A1:.*]] = amp.add %[[A]], %[[B]]
// CHECK-NEXT:    %[[B1:.*]] = amp.add %[[B]], %[[C]]
// CHECK-NEXT:    %[[LOSS:.*]] = amp.reduce_sum %[[P]]
// The buffers get no gradient.
// CHECK:         %[[DW:.*]] = amp.mul %{{.*}}, %[[A]]
// CHECK-NEXT:    %[[NEW_W:.*]] = amp.sgd_update %[[W]], %[[DW]], lr %[[LR]]
// CHECK-NEXT:    return %[[NEW_W]], %[[A1]], %[[B1]], %[[C]], %[[LOSS]], %[[P]] :

// CHECK-LABEL: func.func @unmarked(
// CHECK-LABEL: func.func @caller(
// CHECK:         call @unmarked_train_step(
// CHECK-LABEL: func.func private @unmarked_train_step(
// CHECK-SAME:    %{{[^:]*}}: tensor<2xf32> {amp.role = #amp.role<parameter>},
// CHECK-SAME:    %{{[^:]*}}: tensor<2xf32>,
// CHECK-SAME:    %{{[^:]*}}: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// CHECK-SAME:    -> (tensor<2xf32> {amp.role = #amp.role<parameter>}, tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-SAME:    attributes {amp.graph = #amp.graph<training_step>} {
// CHECK:         amp.seed
// CHECK:         amp.sgd_update
// CHECK-NOT:     func.func private @unmarked_train_step
// CHECK-LABEL: func.func private @external(
// CHECK-NOT:     func.func {{.*}}@external_train_step
// CHECK-LABEL: func.func @plain(
// CHECK-NOT:     func.func

// Buffers matched by amp.name (returned in another order), an extra output
// kept after the loss, the loss's amp.name kept.
func.func @bufs(%w: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                %a: tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "a"},
                %b: tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "b"},
                %c: tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "c"})
    -> (tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "b"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "objective"},
        tensor<3xf32> {amp.role = #amp.role<output>, amp.name = "prediction"},
        tensor<3xf32> {amp.role = #amp.role<buffer>, amp.name = "a"})
    attributes {amp.graph = #amp.graph<forward>} {
  %p = amp.mul %w, %a : tensor<3xf32>
  %a1 = amp.add %a, %b : tensor<3xf32>
  %b1 = amp.add %b, %c : tensor<3xf32>
  %l = amp.reduce_sum %p {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %b1, %l, %p, %a1 : tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>
}
// A single unmarked 0-d f32 result is the loss (DESIGN.md section 3);
// arguments without a role are inputs.
func.func @unmarked(%w: tensor<2xf32> {amp.role = #amp.role<parameter>}, %x: tensor<2xf32>) -> tensor<f32>
    attributes {amp.graph = #amp.graph<forward>} {
  %p = amp.mul %w, %x : tensor<2xf32>
  %l = amp.reduce_sum %p {axes = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
// A declaration of the step is replaced by its definition (and keeps its
// visibility), so drivers can call the step before it is generated.
func.func @caller(%w: tensor<2xf32>, %x: tensor<2xf32>, %lr: tensor<f32>) -> (tensor<2xf32>, tensor<f32>) {
  %r:2 = call @unmarked_train_step(%w, %x, %lr) : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<f32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<f32>
}
func.func private @unmarked_train_step(tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<f32>)
// Declarations of forward models and functions without amp.graph are left
// alone.
func.func private @external(tensor<2xf32> {amp.role = #amp.role<parameter>}) -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>}
func.func @plain(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
