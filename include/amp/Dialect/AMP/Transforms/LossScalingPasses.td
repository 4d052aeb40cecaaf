//===- LossScalingPasses.td - loss scaling, master weights -*- tablegen -*-===//
//
// Loss scaling and the mixed-precision optimizer step (docs/LossScaling.md).
// `--amp-pipeline` (PrecisionPipeline.h) runs them after the precision
// passes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_LOSSSCALINGPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_LOSSSCALINGPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPLossScalingPass : Pass<"amp-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Static or dynamic loss scaling of training steps, with the "
                "skip decided on the device";
  let description = [{
    Rewrites every training step (`amp.graph = #amp.graph<training_step>`)
    in the order of DESIGN.md section 6:

    1. each backward seed (`amp.seed`) is multiplied by its loss scale
       (`amp.scale_seed`): the whole backward pass runs scaled;
    2. one `amp.unscale_grads` per loss takes every parameter gradient of
       that loss, multiplies it by 1 / scale (widening f16/bf16 gradients
       of f32 parameters to f32) and reports `found_inf`; with several
       losses the flags are or-ed;
    3. (dynamic) `amp.update_scale` updates the scale, its growth tracker
       and its hysteresis tracker from the flag;
    4. `amp.clip_grad_norm`, if the step clips, now clips the unscaled
       gradients;
    5. every `amp.sgd_update` / `amp.adamw_update` takes `found_inf` and
       returns its parameter and state unchanged when it is set; any other
       parameter or optimizer-state result (AdamW's `step` counter) is
       selected back to its argument, so a skipped step changes nothing but
       the scaler state;
    6. the step returns the flag as its `#amp.role<skipped>` result (after
       the loss), for schedules to hold on skipped steps.

    Nothing reads `found_inf` or the scale on the host: the skip is a select
    inside the updates.

    Scaler state (dynamic), threaded through arguments and results with
    `#amp.role<scaler_state>` after the optimizer state:
    `loss_scale` (0-d f32), `loss_scale.growth_tracker` (0-d i64),
    `loss_scale.hysteresis_tracker` (0-d i64) and, with `error-at-min`,
    `loss_scale.stuck_at_min` (0-d i1, sticky). A step with several losses
    (several `amp.seed` ops) gets one scaler per loss, the k-th (k >= 1)
    named `loss<k>.loss_scale...`. A fresh scaler is (init-scale, 0,
    hysteresis); a scaler whose scale is not positive (all-zero state, as
    runtimes allocate it) starts as a fresh one, like GradScaler's lazy
    initialisation.

    `mode=static` multiplies by the constant `init-scale`, still unscales,
    checks and skips, and has no scaler state. `mode=none` changes nothing;
    `mode=auto` is `dynamic` for a step that computes in f16 and `none`
    otherwise (bf16 and f32 need no scaling). A step that already scales
    its loss (it has `amp.scale_seed` or `amp.unscale_grads`) is left as it
    is.

    `error-at-min`: an overflow that backs off a scale already at
    `min-scale` sets `loss_scale.stuck_at_min`, which stays set; a runtime
    reads it with the rest of the state after a step and reports an error
    instead of training on with garbage (DeepSpeed's
    `raise_error_at_min_scale`), with no synchronisation inside the step.

    ```
    amp-opt step.mlir --amp-loss-scaling
    amp-opt step.mlir --amp-loss-scaling="hysteresis=2 growth-interval=1000"
    amp-opt step.mlir --amp-loss-scaling="mode=static init-scale=1024"
    ```
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
  let options = [
    Option<"mode", "mode", "::mlir::amp::LossScalingMode",
           /*default=*/"::mlir::amp::LossScalingMode::Dynamic",
           "dynamic, static, none, or auto (dynamic when the step computes "
           "in f16, none otherwise)",
           "::mlir::amp::lossScalingModeValues()">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "Initial scale (dynamic) or the scale (static)">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Factor the scale grows by after growth-interval clean steps">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Factor the scale backs off by on overflow">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000",
           "Clean steps before the scale grows">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "Overflows before the scale backs off (Megatron; 1 is "
           "GradScaler)">,
    Option<"minScale", "min-scale", "double", /*default=*/"1.0",
           "Lowest scale (must be positive)">,
    Option<"maxScale", "max-scale", "double", /*default=*/"16777216.0",
           "Highest scale (2^24); a value above the f32 range disables the "
           "clamp, as in GradScaler">,
    Option<"errorAtMin", "error-at-min", "bool", /*default=*/"false",
           "Record (in loss_scale.stuck_at_min) an overflow at the minimum "
           "scale, for the runtime to report as an error">,
  ];
}

def AMPMasterWeightsPass : Pass<"amp-master-weights", "::mlir::ModuleOp"> {
  let summary = "Low-precision weight copies made by the optimizer update";
  let description = [{
    For every f32 parameter of a training step that the step casts to
    f16/bf16 (Apex O2: f32 master weights, low-precision model) and that an
    `amp.sgd_update` / `amp.adamw_update` updates, the step takes the
    low-precision copy as state instead of casting the master weight:

    - a new argument and result `<parameter>.f16` (or `.bf16`),
      `#amp.role<buffer>`, after the step's buffers, replaces the cast;
    - the copy for the next step is the cast of the updated master weight,
      which `convert-amp-to-linalg` computes in the same fused update (one
      pass writes the f32 parameter, its optimizer state and its copy). On a
      skipped step it is the cast of the unchanged master, the copy itself.

    The copy must start as the parameter rounded to its type (round to
    nearest even); docs/LossScaling.md says how drivers initialise it.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

def AMPAccumulateGradientsPass
    : Pass<"amp-accumulate-gradients", "::mlir::ModuleOp"> {
  let summary = "Gradient accumulation over micro-batches inside the step";
  let description = [{
    Makes every training step one micro-batch of an optimizer update that
    averages the gradients of `accumulate` micro-batches (PyTorch's
    `loss / N; loss.backward()` every micro-batch, `optimizer.step();
    zero_grad()` every N-th), with no host logic:

    - a hyper-parameter `accumulate` (0-d f32, `#amp.role<hyperparameter>`):
      the micro-batches per update, which a runtime may set each step; a
      value below 1 (zero, as runtimes allocate it) means the option
      `micro-batches`, compiled in;
    - optimizer state `grad_accum.micro_step` (0-d f32, micro-batches since
      the last update; 0 after a micro-batch that completed an update, which
      is how a driver counts updates) and, per gradient,
      `<parameter>.grad_accum` (f32): the running sum;
    - every `amp.seed` is multiplied by `1 / accumulate`, so the sum is the
      mean over the micro-batches;
    - the sums are taken where the gradients enter the optimizer end: the
      operands of `amp.unscale_grads` when the step is loss-scaled (scaled
      sums, unscaled and checked for inf/NaN once per update, as GradScaler
      with accumulation), else of `amp.clip_grad_norm` (the global norm of
      the summed gradients), else of the updates;
    - on a micro-batch that does not complete an update, the updates skip
      (their `found_inf` is or-ed with it), and parameters, optimizer and
      scaler state are returned unchanged; buffers (batch-norm running
      statistics) are updated every micro-batch, as in PyTorch; the
      `skipped` result is set only on a completed update that skipped.

    Run it after `amp-loss-scaling` and `amp-master-weights`. The
    intermediate micro-batches still compute the (discarded) updates.

    ```
    amp-opt step.mlir --amp-accumulate-gradients="micro-batches=4"
    ```
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
  let options = [
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"2",
           "Default of the `accumulate` hyper-parameter: micro-batches per "
           "optimizer update (>= 1)">,
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_LOSSSCALINGPASSES_TD
