// amp-print-model-abi prints the descriptor amp-compile links into a
// library (lib/Target/ModelLibrary): the tensors (the training step's
// arguments) with their roles, element types, shapes and initializers, which
// result updates which tensor (the training step's pairing rule), and the
// forward model's arguments mapped by name.

// RUN: amp-opt %S/../../Pipelines/training-pipeline.mlir --amp-training-pipeline="lower=false loss=cross_entropy optimizer=adamw precision=bf16 opt-level=O2" | amp-opt --amp-print-model-abi=lr=0.5 -o %t.mlir | FileCheck %s
// CHECK: static const amp_tensor_info tensors[] = {
// A weight matrix starts fan-in uniform (AMP_INIT_UNIFORM_FAN_IN = 2, fan-in 4).
// CHECK-NEXT: {"fc.weight", 0, 0, 2, tensors_shape0, 12, 2, 0, 4, nullptr, 0, -1},
// CHECK-NEXT: {"fc.bias", 0, 0, 1, tensors_shape1, 3, 0, 0, 0, nullptr, 0, -1},
// The bf16 copy (AMP_DTYPE_BF16 = 2) starts as its master, tensor 0
// (AMP_INIT_COPY_OF = 5).
// CHECK-NEXT: {"fc.weight.bf16", 9, 2, 2, tensors_shape2, 12, 5, 0, 0, nullptr, 0, 0},
// CHECK-NEXT: {"fc.weight.exp_avg", 4,
// CHECK-NEXT: {"fc.weight.exp_avg_sq", 4,
// CHECK-NEXT: {"fc.bias.exp_avg", 4,
// CHECK-NEXT: {"fc.bias.exp_avg_sq", 4,
// CHECK-NEXT: {"step", 4, 3, 0,
// CHECK-NEXT: {"x", 1, 0, 2,
// Labels of a 3-class cross-entropy take values in [0, 3).
// CHECK-NEXT: {"labels", 2, 3, 1, tensors_shape9, 8, 0, 0, 0, nullptr, 3, -1},
// The learning rate starts at the given constant (AMP_INIT_CONSTANT = 4).
// CHECK-NEXT: {"lr", 6, 0, 0, tensors_shape10, 1, 4, 0.5, 0, nullptr, 0, -1},
// CHECK-NEXT: };
// CHECK: extern "C" void amp_train_step_impl(
// CHECK: static const int32_t step_args[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
// Each state result updates its argument; the loss updates nothing.
// CHECK: static const int32_t step_updates[] = {0, 1, 2, 3, 4, 5, 6, 7, -1};
// Before lowering no result is written in place (amp-compile reads that
// from the lowered step's amp.updated_in_place).
// CHECK: static const int32_t step_in_place[] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
// CHECK: extern "C" void amp_eval_impl(
// The forward model takes x, the parameters and the labels by name.
// CHECK: static const int32_t eval_args[] = {8, 0, 1, 9};
// Step: 11 arguments, 9 results, the loss is result 8; evaluation: the loss
// is result 1 (after the logits); no CUDA device operations.
// CHECK: static const amp_model_descriptor descriptor = {AMP_ABI_VERSION, 11, tensors, {step_packed, 11, step_args, 9, step_results, step_updates, step_in_place, 8, -1}, 1, {eval_packed, 4, eval_args, 2, eval_results, eval_updates, eval_in_place, 1, -1}, nullptr};

// RUN: amp-opt %s -split-input-file --amp-print-model-abi -verify-diagnostics -o %t.errors.mlir

// expected-error @+1 {{the model ABI needs statically shaped tensors, got 'tensor<?xf32>' for 'arg0'}}
func.func @forward(
    %x: tensor<?xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<?xf32> {amp.role = #amp.role<output>, amp.name = "y"})
    attributes {amp.graph = #amp.graph<forward>} {
  return %x : tensor<?xf32>
}

func.func @step(
    %w: tensor<f32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  return %w, %w : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{argument 'z' of the forward model is not a tensor of the training step}}
func.func @forward(
    %z: tensor<2xf32> {amp.role = #amp.role<input>, amp.name = "z"})
    -> (tensor<2xf32> {amp.role = #amp.role<output>, amp.name = "y"})
    attributes {amp.graph = #amp.graph<forward>} {
  return %z : tensor<2xf32>
}

func.func @step(
    %w: tensor<f32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  return %w, %w : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{amp-print-model-abi: the module has no training step}}
module {
}
