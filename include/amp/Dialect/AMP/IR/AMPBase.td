//===- AMPBase.td - amp dialect, attributes and type constraints -*- tablegen -*-===//
//
// The `amp` dialect models neural-network training graphs (forward, loss,
// backward, loss scaling and optimizer update) on ranked tensors so that
// mixed-precision decisions can be made by compiler passes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPBASE_TD
#define AMP_DIALECT_AMP_IR_AMPBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonTypeConstraints.td"

def AMP_Dialect : Dialect {
  let name = "amp";
  let cppNamespace = "::mlir::amp";
  let summary = "Training graphs for automatic mixed precision";
  let description = [{
    The `amp` dialect represents a neural-network training step (forward
    model, loss, backward, loss scaling and optimizer update) as pure
    operations on ranked tensors of `f32`, `f16` and `bf16`. State such as
    parameters, optimizer moments and the loss scale is threaded through the
    arguments and results of a `func.func`; argument and result attributes
    (`amp.role`) carry the training-graph contract. Every compute operation
    implements the precision interface, which the mixed-precision passes use
    to decide what runs in low precision.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Attribute names of the training-graph contract.
    static constexpr ::llvm::StringLiteral kRoleAttrName = "amp.role";
    static constexpr ::llvm::StringLiteral kNameAttrName = "amp.name";
    static constexpr ::llvm::StringLiteral kGraphAttrName = "amp.graph";
    /// On a `buffer` argument or result: the amp.name of the f32 parameter
    /// this buffer is a low-precision copy of (amp-master-weights), so a
    /// driver can initialise it as that parameter rounded.
    static constexpr ::llvm::StringLiteral kCopyOfAttrName = "amp.copy_of";
    /// What lowering keeps of the contract on a function with state once
    /// stripContractAttributes removed it: per result, the argument it
    /// returns updated, or -1 (array<i32>).
    static constexpr ::llvm::StringLiteral kStateUpdatesAttrName =
        "amp.state_updates";
    /// Set by amp-state-updates-in-place: the arguments whose updated
    /// values the function writes into their own buffers instead of
    /// returning them (array<i32>, ascending).
    static constexpr ::llvm::StringLiteral kUpdatedInPlaceAttrName =
        "amp.updated_in_place";

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums and attributes
//===----------------------------------------------------------------------===//

def AMP_PrecisionCategory : I32EnumAttr<"PrecisionCategory",
    "default mixed-precision category of an op kind", [
      I32EnumAttrCase<"Allow", 0, "allow">,
      I32EnumAttrCase<"Infer", 1, "infer">,
      I32EnumAttrCase<"Deny", 2, "deny">,
      I32EnumAttrCase<"Clear", 3, "clear">
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

def AMP_Role : I32EnumAttr<"Role",
    "role of a function argument or result in a training graph", [
      I32EnumAttrCase<"Parameter", 0, "parameter">,
      I32EnumAttrCase<"Input", 1, "input">,
      I32EnumAttrCase<"Label", 2, "label">,
      I32EnumAttrCase<"Loss", 3, "loss">,
      I32EnumAttrCase<"OptimizerState", 4, "optimizer_state">,
      I32EnumAttrCase<"ScalerState", 5, "scaler_state">,
      I32EnumAttrCase<"Hyperparameter", 6, "hyperparameter">,
      I32EnumAttrCase<"Skipped", 7, "skipped">,
      I32EnumAttrCase<"Output", 8, "output">,
      I32EnumAttrCase<"Buffer", 9, "buffer">
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

def AMP_GraphKind : I32EnumAttr<"GraphKind",
    "kind of function in a training graph", [
      I32EnumAttrCase<"Forward", 0, "forward">,
      I32EnumAttrCase<"TrainingStep", 1, "training_step">
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

// Op-local enums (compare direction, GELU form) are specialized integer
// attributes, printed as a bare keyword in op formats like arith.cmpf's
// predicate.
def AMP_CompareDirection : I32EnumAttr<"CompareDirection",
    "comparison predicate", [
      I32EnumAttrCase<"EQ", 0, "eq">,
      I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">,
      I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">,
      I32EnumAttrCase<"GE", 5, "ge">
    ]> {
  let cppNamespace = "::mlir::amp";
  
}

def AMP_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "GELU formula", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::mlir::amp";
  
}

class AMP_EnumAttr<EnumAttrInfo enumInfo, string mnemonic>
    : EnumAttr<AMP_Dialect, enumInfo, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def AMP_PrecisionCategoryAttr
    : AMP_EnumAttr<AMP_PrecisionCategory, "category">;
def AMP_RoleAttr : AMP_EnumAttr<AMP_Role, "role">;
def AMP_GraphKindAttr : AMP_EnumAttr<AMP_GraphKind, "graph">;

// An i64 attribute read as a signed value: axes may be negative, and a
// negative count must be caught by the verifier, not wrap around.
def AMP_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                               "64-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def AMP_FloatElement : AnyTypeOf<[F16, BF16, F32]>;
def AMP_FloatTensor : RankedTensorOf<[F16, BF16, F32]>;
def AMP_F32Tensor : RankedTensorOf<[F32]>;
// FP8 (issue 39): e4m3 for forward operands, e5m2 for gradients; only
// amp.fp8_quantize makes them and amp.fp8_matmul reads them.
def AMP_Float8Tensor : RankedTensorOf<[F8E4M3FN, F8E5M2]>;
def AMP_BF16OrF32Tensor : RankedTensorOf<[BF16, F32]>;
def AMP_IntegerTensor : RankedTensorOf<[I32, I64]>;
def AMP_BoolTensor : RankedTensorOf<[I1]>;
def AMP_NumericTensor : RankedTensorOf<[F16, BF16, F32, I32, I64]>;
def AMP_AnyTensor : RankedTensorOf<[F16, BF16, F32, I1, I32, I64]>;

class AMP_ScalarTensor<Type element, string elementBuilder>
    : Type<And<[TensorRankOf<[element], [0]>.predicate, HasStaticShapePred]>,
           "0-d tensor of " # element.summary, "::mlir::RankedTensorType">,
      BuildableType<"::mlir::RankedTensorType::get({}, " # elementBuilder # ")">;

def AMP_F32Scalar : AMP_ScalarTensor<F32, "$_builder.getF32Type()">;
def AMP_I1Scalar : AMP_ScalarTensor<I1, "$_builder.getI1Type()">;
def AMP_I64Scalar : AMP_ScalarTensor<I64, "$_builder.getI64Type()">;

//===----------------------------------------------------------------------===//
// Precision traits: the default category of an op kind.
//===----------------------------------------------------------------------===//

class AMP_PrecisionTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::amp::OpTrait";
}
def AMP_AllowPrecision : AMP_PrecisionTrait<"AllowPrecision">;
def AMP_InferPrecision : AMP_PrecisionTrait<"InferPrecision">;
def AMP_DenyPrecision : AMP_PrecisionTrait<"DenyPrecision">;
def AMP_ClearPrecision : AMP_PrecisionTrait<"ClearPrecision">;
// The op accumulates in f32 whatever its input element type.
def AMP_F32Accumulation : AMP_PrecisionTrait<"F32Accumulation">;
// The op may return its f32 accumulator unrounded: its float results may be
// f32 when it computes in f16 or bf16 (contractions, sums, means).
def AMP_WidenableResults : AMP_PrecisionTrait<"WidenableResults">;

#endif // AMP_DIALECT_AMP_IR_AMPBASE_TD
