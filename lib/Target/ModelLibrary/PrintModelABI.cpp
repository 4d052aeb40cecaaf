//===- PrintModelABI.cpp - amp-print-model-abi ----------------------------===//
//
// Prints the model descriptor (the C++ glue of a compiled library) of a
// module's training step and forward model, for tests and for reading what
// amp-compile would tell the runtime.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
struct PrintModelABIPass
    : public PassWrapper<PrintModelABIPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintModelABIPass)

  PrintModelABIPass() = default;
  PrintModelABIPass(const PrintModelABIPass &other) : PassWrapper(other) {}

  StringRef getArgument() const override { return "amp-print-model-abi"; }
  StringRef getDescription() const override {
    return "Print the model descriptor of the training step and the forward "
           "model (the C++ glue amp-compile links into a library)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp step = findTrainingStep<func::FuncOp>(module);
    if (!step) {
      module.emitError("amp-print-model-abi: the module has no training step");
      return signalPassFailure();
    }
    FailureOr<ModelDescription> model = describeModel(
        step, findForward<func::FuncOp>(module), InitialValues(), learningRate);
    if (failed(model))
      return signalPassFailure();
    llvm::outs() << generateGlue(*model, "initial-values.bin", cuda);
    markAllAnalysesPreserved();
  }

  Option<double> learningRate{*this, "lr",
                              llvm::cl::desc("Initial learning rate"),
                              llvm::cl::init(0.01)};
  Option<bool> cuda{*this, "cuda",
                    llvm::cl::desc("Describe a library for a cuda target"),
                    llvm::cl::init(false)};
};
} // namespace

void mlir::amp::registerModelABIPasses() {
  PassRegistration<PrintModelABIPass>();
}
