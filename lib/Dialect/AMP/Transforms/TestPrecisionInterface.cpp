//===- TestPrecisionInterface.cpp - every amp op answers the passes -------===//
//
// The mixed-precision passes ask each op how its operands and results relate
// to the precision it computes in. This test pass makes a missing answer a
// failing test rather than a silent Fixed role: every op kind of the dialect
// must implement exactly one of the two precision interfaces.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {
#define GEN_PASS_DEF_TESTAMPPRECISIONINTERFACEPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// What `name` answers, or failure with an error naming it.
FailureOr<std::string> describeAnswers(RegisteredOperationName name,
                                       Location loc) {
  bool computes = name.hasInterface<PrecisionOpInterface>();
  bool fixed = name.hasInterface<FixedPrecisionOpInterface>();
  if (computes == fixed) {
    emitError(loc) << "'" << name.getStringRef() << "' implements "
                   << (computes ? "both" : "neither")
                   << " of PrecisionOpInterface and FixedPrecisionOpInterface"
                      "; the precision passes cannot tell its types";
    return failure();
  }
  if (fixed)
    return std::string("fixed");
  bool accumulates = name.hasTrait<amp::OpTrait::F32Accumulation>();
  bool widenable = name.hasTrait<amp::OpTrait::WidenableResults>();
  if (widenable && !accumulates) {
    emitError(loc) << "'" << name.getStringRef()
                   << "' declares AMP_WidenableResults without "
                      "AMP_F32Accumulation: there is no f32 accumulator to "
                      "return";
    return failure();
  }
  auto *concept = name.getInterface<PrecisionOpInterface>();
  std::string text =
      stringifyPrecisionCategory(concept->getDefaultPrecisionCategory()).str();
  if (accumulates)
    text += ", f32 accumulation";
  if (widenable)
    text += ", widenable results";
  return text;
}

struct TestAMPPrecisionInterfacePass
    : amp::impl::TestAMPPrecisionInterfacePassBase<
          TestAMPPrecisionInterfacePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto *dialect = context->getLoadedDialect<AMPDialect>();
    SmallVector<RegisteredOperationName> names;
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (&name.getDialect() == dialect)
        names.push_back(name);
    llvm::sort(names, [](RegisteredOperationName a, RegisteredOperationName b) {
      return a.getStringRef() < b.getStringRef();
    });
    unsigned count = 0;
    bool failed = false;
    for (RegisteredOperationName name : names) {
      FailureOr<std::string> answers =
          describeAnswers(name, getOperation().getLoc());
      if (mlir::failed(answers)) {
        failed = true;
        continue;
      }
      llvm::outs() << name.getStringRef() << ": " << *answers << "\n";
      ++count;
    }
    llvm::outs() << count << " amp op kinds answer\n";
    if (failed)
      signalPassFailure();
  }
};
} // namespace
