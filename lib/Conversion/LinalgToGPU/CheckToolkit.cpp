//===- CheckToolkit.cpp - the CUDA toolkit has libdevice ------------------===//
//
// The amp-gpu-check-toolkit pass. MLIR's serializer reports a missing
// toolkit but still succeeds, with kernels that lack libdevice; a named
// toolkit is checked up front instead, before anything is lowered.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FileSystem.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUCHECKTOOLKITPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
struct GPUCheckToolkitPass
    : amp::impl::GPUCheckToolkitPassBase<GPUCheckToolkitPass> {
  using Base::Base;

  void runOnOperation() override {
    // No toolkit named: MLIR searches for one, nothing to check here.
    if (toolkit.empty())
      return;
    std::string libdevice = toolkit + "/nvvm/libdevice/libdevice.10.bc";
    if (!llvm::sys::fs::is_directory(toolkit)) {
      getOperation().emitError()
          << "amp-gpu-pipeline: the CUDA toolkit '" << toolkit
          << "' (option toolkit) is not a directory";
      return signalPassFailure();
    }
    if (!llvm::sys::fs::exists(libdevice)) {
      getOperation().emitError()
          << "amp-gpu-pipeline: the CUDA toolkit '" << toolkit
          << "' has no libdevice (" << libdevice << ")";
      return signalPassFailure();
    }
  }
};
} // namespace
