//===- AMPToLinalg.cpp - the convert-amp-to-linalg pass -------------------===//

#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CONVERTAMPTOLINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::populateAMPToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  populateAMPElementwiseToLinalgPatterns(patterns);
  populateAMPStructuredToLinalgPatterns(patterns);
  populateAMPNormalizationToLinalgPatterns(patterns);
  populateAMPConvolutionToLinalgPatterns(patterns);
  populateAMPOptimizerToLinalgPatterns(patterns);
}

namespace {
bool hasStaticTensorTypes(Operation *op) {
  auto isStatic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return !shaped || shaped.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

/// The training-graph contract (amp.role, amp.name, amp.graph) describes
/// amp tensors; once the ops are lowered, bufferization turns the tensors
/// into buffers the contract does not describe, so it ends here.
void dropContractAttributes(FunctionOpInterface function) {
  auto isContract = [](NamedAttribute attr) {
    return attr.getName().getValue().starts_with("amp.");
  };
  auto filtered = [&](DictionaryAttr attrs) {
    SmallVector<NamedAttribute> kept;
    if (attrs)
      llvm::copy_if(attrs.getValue(), std::back_inserter(kept),
                    [&](NamedAttribute a) { return !isContract(a); });
    return kept;
  };
  for (unsigned i = 0; i < function.getNumArguments(); ++i)
    function.setArgAttrs(i, filtered(function.getArgAttrDict(i)));
  for (unsigned i = 0; i < function.getNumResults(); ++i)
    function.setResultAttrs(i, filtered(function.getResultAttrDict(i)));
  function->removeAttr(AMPDialect::kGraphAttrName);
}

struct ConvertAMPToLinalgPass
    : amp::impl::ConvertAMPToLinalgPassBase<ConvertAMPToLinalgPass> {
  void runOnOperation() override {
    // Static shapes first (DESIGN.md section 3): say so instead of failing
    // to legalize, or emitting tensors whose sizes were never computed.
    WalkResult dynamic =
        getOperation()->walk([](Operation *op) {
          if (!isa<AMPDialect>(op->getDialect()) || hasStaticTensorTypes(op))
            return WalkResult::advance();
          op->emitOpError()
              << "has a dynamic dimension; convert-amp-to-linalg lowers static "
                 "shapes only";
          return WalkResult::interrupt();
        });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalDialect<AMPDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateAMPToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk(
        [](FunctionOpInterface function) { dropContractAttributes(function); });
  }
};
} // namespace
