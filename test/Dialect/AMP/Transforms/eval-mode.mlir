// RUN: amp-opt %s -split-input-file --amp-eval-mode | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-eval-mode=loss=cross_entropy | FileCheck %s --check-prefix=CE
// RUN: not amp-opt %s -split-input-file --amp-eval-mode=loss=hinge 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --loss option: Cannot find option named 'hinge'!

// Evaluation mode, as PyTorch's model.eval(): dropout passes its input
// through (an all-true mask), batch norm uses the running statistics. The
// unmarked scalar result amp-autodiff takes as the loss is marked as one.
// CHECK-LABEL: func.func @regularized(
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-NOT: amp.dropout
// CHECK: amp.batch_norm %arg0, {{.*}}training = false
func.func @regularized(
    %x: tensor<2x4x2x2xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %seed: tensor<i64> {amp.role = #amp.role<input>, amp.name = "seed"},
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.weight"},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "bn.bias"},
    %rm: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_mean"},
    %rv: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "bn.running_var"})
    -> tensor<f32>
    attributes {amp.graph = #amp.graph<forward>} {
  %h, %mask = amp.dropout %x, %seed {probability = 0.5 : f64} : tensor<2x4x2x2xf32> -> tensor<2x4x2x2xi1>
  %y, %sm, %sr, %nrm, %nrv = amp.batch_norm %h, %w, %b, %rm, %rv {epsilon = 1.0e-5 : f64, momentum = 0.1 : f64, training = true} : (tensor<2x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %loss = amp.reduce_mean %y {axes = array<i64: 0, 1, 2, 3>} : tensor<2x4x2x2xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A mask that is used becomes all true.
// CHECK-LABEL: func.func @masked(
// CHECK: %[[KEEP:.*]] = amp.constant dense<true> : tensor<4xi1>
// CHECK: return %arg0, %[[KEEP]]
func.func @masked(
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %seed: tensor<i64> {amp.role = #amp.role<input>, amp.name = "seed"})
    -> (tensor<4xf32> {amp.role = #amp.role<output>, amp.name = "y"},
        tensor<4xi1> {amp.role = #amp.role<output>, amp.name = "mask"})
    attributes {amp.graph = #amp.graph<forward>} {
  %h, %mask = amp.dropout %x, %seed {probability = 0.5 : f64} : tensor<4xf32> -> tensor<4xi1>
  return %h, %mask : tensor<4xf32>, tensor<4xi1>
}

// -----

// A forward model that returns logits reports the loss the step trains, on
// the label argument the step has and the forward model lacks.
// CE-LABEL: func.func @classifier(
// CE-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32> {amp.name = "x", amp.role = #amp.role<input>},
// CE-SAME: %[[LABELS:[a-z0-9]+]]: tensor<8xi64> {amp.name = "labels", amp.role = #amp.role<label>})
// CE-SAME: -> (tensor<8x4xf32> {amp.name = "logits", amp.role = #amp.role<output>}, tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CE: amp.cross_entropy %[[X]], %[[LABELS]]
// Without loss=cross_entropy the logits stay the only result.
// CHECK-LABEL: func.func @classifier(
// CHECK-SAME: -> (tensor<8x4xf32> {amp.name = "logits", amp.role = #amp.role<output>})
// CHECK-NEXT: return %arg0 : tensor<8x4xf32>
func.func @classifier(
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<8x4xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  return %x : tensor<8x4xf32>
}

func.func @classifier_train_step(
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %labels: tensor<8xi64> {amp.role = #amp.role<label>, amp.name = "labels"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %loss = amp.cross_entropy %x, %labels : tensor<8x4xf32>, tensor<8xi64>
  return %loss : tensor<f32>
}

// -----

// Attention drops nothing in evaluation mode and takes no seed.
// CHECK-LABEL: func.func @attention_dropout(
// CHECK: amp.attention %arg0, %arg0, %arg0 {scale = 2.500000e-01 : f64} :
// CHECK-SAME: (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) ->
func.func @attention_dropout(
    %x: tensor<1x2x4x8xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %seed: tensor<i64> {amp.role = #amp.role<input>, amp.name = "seed"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %o, %lse = amp.attention %x, %x, %x seed %seed {scale = 0.25 : f64, dropout = 0.1 : f64}
      : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<i64>)
      -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  %loss = amp.reduce_mean %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x4x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
