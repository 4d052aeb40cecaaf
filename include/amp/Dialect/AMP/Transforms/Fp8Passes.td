//===- Fp8Passes.td - FP8 contractions with delayed scaling -*- tablegen -*-===//
//
// FP8 training (docs/Precision.md, section "FP8"; issue 39).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_FP8PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_FP8PASSES_TD

include "mlir/Pass/PassBase.td"

def AMPFp8Pass : Pass<"amp-fp8", "::mlir::ModuleOp"> {
  let summary = "Run bf16 contractions on FP8 operands with delayed scaling";
  let description = [{
    Transformer Engine's HYBRID recipe on a training step whose precision is
    materialized (after `amp-assign-precision` with bf16 and
    `amp-insert-casts`): every `amp.linear` and 2-D `amp.matmul` computing
    in bf16 whose sizes FP8 GEMMs take (m, n and k multiples of 16) becomes
    an `amp.fp8_matmul` of operands quantized by `amp.fp8_quantize`: e4m3
    for values of the forward pass, e5m2 for gradients (values computed
    from the backward seed). A product of two gradients stays bf16. Each
    (value, format) pair is quantized once per step, so a weight quantized
    for the forward is reused by the input gradient.

    Which contractions: with `select=cost` (the default) those the cost
    model (docs/CostModel.md, device `device`) says run faster in FP8: the
    GEMM at the FP8 tensor rate against bf16's, less the quantizations (a
    quantization shared by several products is charged to each in part)
    and the transposed copies cuBLASLt's TN layout needs. The decision does
    not depend on the target, so the CPU backend computes what the GPU
    does. `select=all` takes every contraction that fits; a contraction
    pinned to bf16 (`amp.pin = bf16`, or a policy pin) stays bf16. Each
    product kept in bf16 by the model is remarked with the modeled times.

    Delayed scaling: the step gains scaler state `fp8.scale` (one f32 per
    quantized tensor; 0, the fresh state, reads as 1) and
    `fp8.amax_history` (`history` rows of the tensors' amaxes, the newest
    first). A tensor is quantized with its stored scale; at the end of the
    step its finite amax is recorded (a NaN or infinite amax records 0, and
    makes the tensor's scale inverse NaN, so the non-finite values reach the
    products, the loss and the gradients, which loss scaling skips) and its next scale is `(max / amax) / 2^margin`, with `amax` the
    largest of its history and `max` 448 (e4m3) or 57344 (e5m2); a zero
    history keeps the scale.

    ```
    amp-opt step.mlir --amp-assign-precision=precision=bf16 \
        --amp-insert-casts --amp-fp8="history=16 margin=0"
    ```
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
  let options = [
    Option<"history", "history", "int64_t", /*default=*/"1024",
           "Steps of amax history per quantized tensor (Transformer "
           "Engine's amax_history_len)">,
    Option<"margin", "margin", "int64_t", /*default=*/"0",
           "Scales are divided by 2^margin (headroom; Transformer Engine's "
           "margin)">,
    Option<"select", "select", "::mlir::amp::Fp8Selection",
           /*default=*/"::mlir::amp::Fp8Selection::Cost",
           "Which contractions run in FP8: cost (where the cost model says "
           "FP8 is faster) or all", "::mlir::amp::fp8SelectionValues()">,
    Option<"device", "device", "std::string", /*default=*/"\"h200\"",
           "The device model of select=cost (data/devices.json)">,
    Option<"fastAccumulation", "fast-accumulation", "bool",
           /*default=*/"true",
           "Let forward GEMMs use the GPU's fast FP8 accumulation "
           "(gradients always accumulate in f32)">,
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_FP8PASSES_TD
