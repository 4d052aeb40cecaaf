//===- AMPToLinalg.cpp - the convert-amp-to-linalg pass -------------------===//

#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
/// The patterns build every tensor from static sizes, so the requirement is
/// checked here, once, before anything is rewritten (DESIGN.md section 3,
/// "static shapes first"): the error names the op, the operand or result and
/// the dimension, instead of a failure to legalize or tensor.empty ops whose
/// sizes were never computed. amp tensors are ranked (the verifier).
LogicalResult checkStaticShapes(Operation *op) {
  auto check = [&](TypeRange types, StringRef kind) -> LogicalResult {
    for (auto [index, type] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.hasStaticShape())
        continue;
      const auto *dynamic =
          llvm::find_if(tensor.getShape(), ShapedType::isDynamic);
      return op->emitOpError()
             << "has a dynamic dimension; convert-amp-to-linalg lowers static "
                "shapes only: dimension "
             << dynamic - tensor.getShape().begin() << " of " << kind << " #"
             << index << " (" << type << ") is dynamic";
    }
    return success();
  };
  return success(succeeded(check(op->getOperandTypes(), "operand")) &&
                 succeeded(check(op->getResultTypes(), "result")));
}

struct ConvertAMPToLinalgPass
    : amp::impl::ConvertAMPToLinalgPassBase<ConvertAMPToLinalgPass> {
  using ConvertAMPToLinalgPassBase::ConvertAMPToLinalgPassBase;

  void runOnOperation() override {
    WalkResult dynamic = getOperation()->walk([](Operation *op) {
      if (isa<AMPDialect>(op->getDialect()) && failed(checkStaticShapes(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
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
    // The training-graph contract describes amp tensors; bufferization
    // turns them into buffers it does not describe, so it ends here.
    getOperation()->walk([&](FunctionOpInterface function) {
      stripContractAttributes(function, stateUpdates);
    });
  }
};
} // namespace
