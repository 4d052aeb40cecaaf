// amp-training-pipeline: the whole compile flow from a forward model, with
// typed options checked once (TrainingPipelineOptions::verify).

// RUN: amp-opt %s --amp-training-pipeline="lower=false loss=cross_entropy momentum=0.5" | FileCheck %s --check-prefix=STEP
// The forward model becomes the evaluation entry point, reporting the loss
// autodiff appended on the label it added.
// STEP-LABEL: func.func @classifier(
// STEP-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>
// STEP-SAME: %[[LABELS:[a-z0-9]+]]: tensor<8xi64> {amp.name = "labels", amp.role = #amp.role<label>}
// STEP-SAME: -> (tensor<8x3xf32> {amp.name = "logits", amp.role = #amp.role<output>}, tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// STEP: %[[LOGITS:.*]] = amp.linear %[[X]]
// STEP: %[[LOSS:.*]] = amp.cross_entropy %[[LOGITS]], %[[LABELS]]
// STEP: return %[[LOGITS]], %[[LOSS]]
// STEP-LABEL: func.func @classifier_train_step(
// STEP-SAME: amp.name = "fc.weight.momentum_buffer"
// STEP: amp.sgd_update {{.*}}momentum = 5.000000e-01
// STEP-NOT: amp.cast

// Mixed precision and loss scaling: fp16 scales dynamically by default.
// RUN: amp-opt %s --amp-training-pipeline="lower=false loss=cross_entropy precision=fp16 growth-interval=7" | FileCheck %s --check-prefix=FP16
// FP16-LABEL: func.func @classifier_train_step(
// FP16-SAME: amp.role = #amp.role<scaler_state>
// FP16: amp.cast {{.*}} to tensor<8x4xf16>
// FP16: growth_interval = 7

// O2 keeps fp32 master weights with low-precision copies.
// RUN: amp-opt %s --amp-training-pipeline="lower=false loss=mse precision=bf16 opt-level=O2" | FileCheck %s --check-prefix=O2
// O2-LABEL: func.func @classifier_train_step(
// O2-SAME: amp.copy_of = "fc.weight"

// fp32 with an explicit static scale.
// RUN: amp-opt %s --amp-training-pipeline="lower=false loss=mse loss-scale=static init-scale=8" | FileCheck %s --check-prefix=STATIC
// STATIC-LABEL: func.func @classifier_train_step(
// STATIC: 8.000000e+00

// Then lowered for the CPU with the model ABI's calling convention. SGD
// writes both parameters into their own buffers (amp-state-updates-in-place):
// the step takes the weight and bias (arguments 0 and 1), x, the labels,
// the learning rate and an out-buffer for the loss only.
// RUN: amp-opt %s --amp-training-pipeline="loss=cross_entropy model-abi=true" | FileCheck %s --check-prefix=LOWER
// LOWER: llvm.func @classifier_train_step(%{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr) attributes {amp.updated_in_place = array<i32: 0, 1>}
// LOWER-NOT: amp.

// Bad options name the option and the reason.
// RUN: not amp-opt %s --amp-training-pipeline="lr=inf" 2>&1 | FileCheck %s --check-prefix=LR
// LR: error: amp-training-pipeline: lr=inf is out of range: expected a finite f32 value >= 0
// RUN: not amp-opt %s --amp-training-pipeline="hysteresis=0" 2>&1 | FileCheck %s --check-prefix=HYSTERESIS
// HYSTERESIS: error: amp-training-pipeline: hysteresis=0 is out of range: expected at least 1
// RUN: not amp-opt %s --amp-training-pipeline="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: amp-training-pipeline: chip and allow-tf32 apply to target=cuda only (allow-tf32 also to cuda-emulator)
// RUN: not amp-opt %s --amp-training-pipeline="target=cuda chip=sm_70" 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: error: amp-training-pipeline: chip=sm_70 is older than the CUDA 13 toolkit supports
// RUN: not amp-opt %s --amp-training-pipeline="precision=fp4" 2>&1 | FileCheck %s --check-prefix=ENUM
// ENUM: Cannot find option named 'fp4'
// RUN: not amp-opt %s --amp-training-pipeline="fp8-history=0" 2>&1 | FileCheck %s --check-prefix=FP8-HISTORY
// FP8-HISTORY: error: amp-training-pipeline: fp8-history=0 is out of range: expected at least 1
// RUN: not amp-opt %s --amp-training-pipeline="fp8-margin=65" 2>&1 | FileCheck %s --check-prefix=FP8-MARGIN
// FP8-MARGIN: error: amp-training-pipeline: fp8-margin=65 is out of range: expected 0 to 64
// RUN: not amp-opt %s --amp-training-pipeline="precision=fp8 data-parallel=true" 2>&1 | FileCheck %s --check-prefix=FP8-DP
// FP8-DP: error: amp-training-pipeline: precision=fp8 does not support data-parallel yet (the FP8 scaling state is not reduced across ranks)

// A module with nothing to train.
// RUN: echo 'func.func @f() { return }' | not amp-opt --amp-training-pipeline 2>&1 | FileCheck %s --check-prefix=NOGRAPH
// NOGRAPH: error: the module has neither a training step (amp.graph = #amp.graph<training_step>) nor a forward model (#amp.graph<forward>)

func.func @classifier(
    %x: tensor<8x4xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %w: tensor<3x4xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<8x3xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %logits = amp.linear %x, %w, %b : (tensor<8x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  return %logits : tensor<8x3xf32>
}
