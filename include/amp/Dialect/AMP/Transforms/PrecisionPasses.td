//===- PrecisionPasses.td - mixed-precision passes -*- tablegen -*-===//
//
// The automatic mixed-precision passes (docs/Precision.md, sections 4-8).
// `--amp-pipeline` (PrecisionPipeline.h) runs them at Apex's levels O0-O3.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPAssignPrecisionPass : Pass<"amp-assign-precision", "::mlir::ModuleOp"> {
  let summary = "Choose f16/bf16/f32 for every op from lists and policy";
  let description = [{
    Records on every op with the precision interface the element type it
    computes in (`amp.precision = f32|f16|bf16`) and the rule that chose it
    (`amp.precision_rule`); changes no type (`amp-insert-casts` does).

    Pins (`amp.pin` on an op, `pins` in the policy file by location name),
    regions with autocast disabled (`amp.autocast_disabled` on a region op or
    a call) and op kinds in no list (f32, with a remark) are decided first.
    The other ops are painted as TensorFlow's auto_mixed_precision does
    (ALLOW ops low; deny paint from DENY ops through INFER/CLEAR ops; INFER/
    CLEAR ops between ALLOW ops low; in bf16, INFER ops fed by ALLOW ops low;
    allow paint through CLEAR ops). Finally a minimum s-t cut chooses the
    precision of every INFER/CLEAR op that is not deny-painted so that casts
    move the fewest bytes, ALLOW ops tied low and DENY ops tied to f32;
    among optimal cuts it keeps painting's choices.

    ```
    amp-opt step.mlir --amp-assign-precision="precision=fp16 deny-add=amp.gelu"
    amp-opt step.mlir --amp-assign-precision="policy=amp-policy.yaml"
    ```
  }];
  // Op kinds named in lists and policies are looked up among the amp ops.
  let dependentDialects = ["::mlir::amp::AMPDialect"];
  let options = [
    Option<"precision", "precision", "::mlir::amp::LowPrecision",
           /*default=*/"::mlir::amp::LowPrecision::Auto",
           "Low-precision type: fp16, bf16 or auto (the policy file's, "
           "else bf16)",
           "::mlir::amp::lowPrecisionValues(/*withFP8=*/false)">,
    Option<"policyFile", "policy", "std::string", /*default=*/"\"\"",
           "Policy file (JSON or YAML): precision, level, lp-norm, "
           "allow/infer/deny/clear add and remove lists, pins">,
    ListOption<"allowAdd", "allow-add", "std::string",
               "Op kinds to add to the ALLOW list (e.g. amp.gelu)">,
    ListOption<"allowRemove", "allow-remove", "std::string",
               "Op kinds to remove from the ALLOW list">,
    ListOption<"inferAdd", "infer-add", "std::string",
               "Op kinds to add to the INFER list">,
    ListOption<"inferRemove", "infer-remove", "std::string",
               "Op kinds to remove from the INFER list">,
    ListOption<"denyAdd", "deny-add", "std::string",
               "Op kinds to add to the DENY list">,
    ListOption<"denyRemove", "deny-remove", "std::string",
               "Op kinds to remove from the DENY list">,
    ListOption<"clearAdd", "clear-add", "std::string",
               "Op kinds to add to the CLEAR list">,
    ListOption<"clearRemove", "clear-remove", "std::string",
               "Op kinds to remove from the CLEAR list">,
    Option<"levelChoice", "level", "::mlir::amp::LevelChoice",
           /*default=*/"::mlir::amp::LevelChoice::Auto",
           "default, tensor-cores-only, unsafe-force-all, infer-as-deny or "
           "auto (the policy file's, else default)",
           "::mlir::amp::levelChoiceValues()">,
    Option<"lpNorm", "lp-norm", "bool", /*default=*/"false",
           "Run LayerNorm/GroupNorm/RMSNorm in low precision (Composer's Low "
           "Precision norms; can cause loss spikes). On if this option or the "
           "policy file says so">,
  ];
}

def AMPInsertCastsPass : Pass<"amp-insert-casts", "::mlir::ModuleOp"> {
  let summary = "Retype ops to their assigned precision with the fewest casts";
  let description = [{
    Changes operand and result types to the precision `amp-assign-precision`
    recorded, inserting `amp.cast` only where a value's type differs from
    what a use needs. Each value is cast at most once per type, right after
    its definition, so an f32 parameter is cast once per step and reused by
    forward and backward. Contractions, sums and means return their f32
    accumulator directly when every user wants f32; statistics and losses
    stay f32; reductions and cross_entropy assigned f32 read low-precision
    inputs directly (they widen exactly). Constants are converted at compile
    time, and cast chains and round trips are folded. Ops without
    `amp.precision` keep their types (their operands are cast back), and so
    do function signatures.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

def AMPReportPass : Pass<"amp-report", "::mlir::ModuleOp"> {
  let summary = "Report every precision decision (text, JSON, DOT)";
  let description = [{
    Lists every op with its element type and the rule that chose it, then
    per function and for the module: ops per type, the casts and the bytes
    they move, the share of FLOPs that run in low precision, and the casts
    naive per-op casting (PyTorch autocast) would need for the same graph.
    Run after `amp-assign-precision` alone, it reports the casts
    `amp-insert-casts` will insert. Does not change the IR.
  }];
  let options = [
    Option<"format", "format", "::mlir::amp::ReportFormat",
           /*default=*/"::mlir::amp::ReportFormat::Text", "text, json or dot",
           "::mlir::amp::reportFormatValues(/*withNone=*/false)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report (- for stderr, so that stdout stays "
           "the IR)">,
  ];
}

def TestAMPPrecisionInterfacePass
    : Pass<"test-amp-precision-interface", "::mlir::ModuleOp"> {
  let summary = "Check that every amp op answers the precision questions";
  let description = [{
    A test pass: goes through every registered op of the amp dialect and
    prints, one line per op kind, how it answers the mixed-precision passes
    (its category, f32 accumulation, widenable results; `fixed` for ops whose
    types the passes never change). An op that implements neither
    PrecisionOpInterface nor FixedPrecisionOpInterface, or both, or that
    declares widenable results without f32 accumulation, is an error naming
    the op, and the pass fails. Does not change the IR.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPASSES_TD
