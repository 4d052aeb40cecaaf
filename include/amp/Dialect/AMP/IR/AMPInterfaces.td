//===- AMPInterfaces.td - precision and gradient interfaces -*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_TD

include "mlir/IR/OpBase.td"

// Every op of the dialect answers the mixed-precision passes' questions
// through one of the two interfaces below (`-test-amp-precision-interface`
// checks it). The defaults come from the op's traits, so that most ops answer
// by their category alone and only special ops override a method in ODS
// (DeclareOpInterfaceMethods) and AMPOps.cpp.

def AMP_PrecisionOpInterface : OpInterface<"PrecisionOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    What the mixed-precision passes need to know about an op kind they assign
    a precision to: its default category (ALLOW runs in the low type, INFER
    follows its inputs, DENY stays f32, CLEAR is type-transparent data
    movement), the type it accumulates in, how each float operand and result
    relates to the precision the op computes in, and its cost in FLOPs.
  }];
  let methods = [
    StaticInterfaceMethod<
      "Returns the default precision category of this op kind.",
      "::mlir::amp::PrecisionCategory", "getDefaultPrecisionCategory", (ins),
      [{}], [{
        using namespace ::mlir::amp::OpTrait;
        constexpr int count =
            int(ConcreteOp::template hasTrait<AllowPrecision>()) +
            int(ConcreteOp::template hasTrait<InferPrecision>()) +
            int(ConcreteOp::template hasTrait<DenyPrecision>()) +
            int(ConcreteOp::template hasTrait<ClearPrecision>());
        static_assert(count == 1,
                      "a precision op needs exactly one category trait");
        if constexpr (ConcreteOp::template hasTrait<AllowPrecision>())
          return ::mlir::amp::PrecisionCategory::Allow;
        else if constexpr (ConcreteOp::template hasTrait<InferPrecision>())
          return ::mlir::amp::PrecisionCategory::Infer;
        else if constexpr (ConcreteOp::template hasTrait<DenyPrecision>())
          return ::mlir::amp::PrecisionCategory::Deny;
        else
          return ::mlir::amp::PrecisionCategory::Clear;
      }]>,
    InterfaceMethod<
      "Returns the element type the op accumulates in, or null when it "
      "computes in the type of its operands.",
      "::mlir::Type", "getAccumulationType", (ins), [{}], [{
        if constexpr (ConcreteOp::template hasTrait<
                          ::mlir::amp::OpTrait::F32Accumulation>())
          return ::mlir::Float32Type::get($_op->getContext());
        return ::mlir::Type();
      }]>,
    InterfaceMethod<
      "Returns true if operand `index` is a statistic that stays f32.",
      "bool", "isStatisticOperand", (ins "unsigned":$index), [{}],
      [{ return false; }]>,
    InterfaceMethod<
      "Returns true if result `index` is a statistic that stays f32.",
      "bool", "isStatisticResult", (ins "unsigned":$index), [{}],
      [{ return false; }]>,
    InterfaceMethod<
      "Returns true if float operand `index` may stay f32 next to the op's "
      "low precision (biases and normalization affine parameters, which the "
      "op adds to or multiplies with its f32 accumulator).",
      "bool", "isF32CompatibleOperand", (ins "unsigned":$index), [{}],
      [{ return false; }]>,
    InterfaceMethod<
      "Returns the operand whose element type result `index` has whatever "
      "the op's precision (the gradient of a normalization's affine "
      "parameter has the parameter's type), or none.",
      "::std::optional<unsigned>", "getTypeTiedOperand",
      (ins "unsigned":$index), [{}], [{ return ::std::nullopt; }]>,
    InterfaceMethod<
      "Returns how float operand `index` relates to `precision`, the "
      "element type the op computes in. By default statistics are F32, "
      "f32-compatible operands FollowsOrF32 and the others Follows.",
      "::mlir::amp::OperandRole", "getOperandPrecisionRole",
      (ins "unsigned":$index, "::mlir::FloatType":$precision), [{}], [{
        if ($_op.isStatisticOperand(index))
          return ::mlir::amp::OperandRole::F32;
        if ($_op.isF32CompatibleOperand(index))
          return ::mlir::amp::OperandRole::FollowsOrF32;
        return ::mlir::amp::OperandRole::Follows;
      }]>,
    InterfaceMethod<
      "Returns how float result `index` relates to the precision the op "
      "computes in; sets `operandIndex` for SameAsOperand. By default "
      "statistics are F32, results tied to an operand SameAsOperand, the "
      "results of an op with the WidenableResults trait Widenable and the "
      "others Follows.",
      "::mlir::amp::ResultRole", "getResultPrecisionRole",
      (ins "unsigned":$index, "unsigned &":$operandIndex), [{}], [{
        if ($_op.isStatisticResult(index))
          return ::mlir::amp::ResultRole::F32;
        if (::std::optional<unsigned> tied = $_op.getTypeTiedOperand(index)) {
          operandIndex = *tied;
          return ::mlir::amp::ResultRole::SameAsOperand;
        }
        if constexpr (ConcreteOp::template hasTrait<
                          ::mlir::amp::OpTrait::WidenableResults>())
          return ::mlir::amp::ResultRole::Widenable;
        return ::mlir::amp::ResultRole::Follows;
      }]>,
    InterfaceMethod<
      "Returns the floating-point operations of the op: 2 per multiply-add "
      "for contractions; by default one per element of its largest float "
      "tensor.",
      "double", "estimateFlops", (ins), [{}], [{
        return ::mlir::amp::detail::estimateElementwiseFlops($_op);
      }]>,
  ];
}

def AMP_FixedPrecisionOpInterface : OpInterface<"FixedPrecisionOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    An op the mixed-precision passes never assign a precision to: its element
    types follow from its role in the training step (casts, seeds, loss
    scaling, optimizer updates). The passes keep its operand types, casting
    values back where needed, except for flexible operands.
  }];
  let methods = [
    InterfaceMethod<
      "Returns true if float operand `index` accepts any float type with "
      "identical numerics (the op widens it to f32 itself), so the passes "
      "need not cast it back.",
      "bool", "isFlexibleOperand", (ins "unsigned":$index), [{}],
      [{ return false; }]>,
    InterfaceMethod<
      "Returns the floating-point operations of the op; by default one per "
      "element of its largest float tensor.",
      "double", "estimateFlops", (ins), [{}], [{
        return ::mlir::amp::detail::estimateElementwiseFlops($_op);
      }]>,
  ];
}

def AMP_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    The backward rule of an op, used by reverse-mode autodiff. Given the
    gradients of the op's results (a null value for a result whose gradient is
    zero), the rule builds the gradients of its operands at the builder's
    insertion point, reusing forward values (activations, saved statistics)
    instead of recomputing them.
  }];
  let methods = [
    InterfaceMethod<
      "Builds the operand gradients. `operandGradients` receives one value "
      "per operand: the gradient, or null for an operand that is not "
      "differentiable. Emits an error and fails when no rule applies.",
      "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>,
    InterfaceMethod<
      "Returns true if a gradient flows to operand `index`.",
      "bool", "isDifferentiableOperand", (ins "unsigned":$index), [{}], [{
        auto type = ::llvm::dyn_cast<::mlir::RankedTensorType>(
            $_op->getOperand(index).getType());
        return type && ::llvm::isa<::mlir::FloatType>(type.getElementType());
      }]>,
  ];
}

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
