//===- AMPInterfaces.td - precision and gradient interfaces -*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_TD

include "mlir/IR/OpBase.td"

def AMP_PrecisionOpInterface : OpInterface<"PrecisionOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    What the mixed-precision passes need to know about an op kind: its default
    category (ALLOW runs in the low type, INFER follows its inputs, DENY stays
    f32, CLEAR is type-transparent data movement), the type it accumulates in,
    and which operands and results are statistics that stay f32 whatever the
    precision of the rest of the op.
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
