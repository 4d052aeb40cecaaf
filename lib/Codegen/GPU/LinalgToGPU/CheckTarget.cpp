//===- CheckTarget.cpp - the GPU architecture and the CUDA toolkit --------===//
//
// The amp-gpu-check-target pass. LLVM's NVPTX backend only warns about an
// architecture it does not know, and MLIR's serializer only warns about a
// toolkit without libdevice; both then go on to produce unusable kernels
// (or crash). The GPU pipeline's target is checked up front instead.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUCHECKTARGETPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

bool mlir::amp::isNVPTXChip(StringRef chip) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string message;
  const llvm::Target *nvptx =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!nvptx)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      nvptx->createMCSubtargetInfo(triple, "", ""));
  return subtarget && subtarget->isCPUStringValid(chip);
}

namespace {
struct GPUCheckTargetPass
    : amp::impl::GPUCheckTargetPassBase<GPUCheckTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(checkChip()) || failed(checkToolkit()))
      signalPassFailure();
  }

  LogicalResult checkChip() {
    if (chip.empty() || amp::isNVPTXChip(chip))
      return success();
    return getOperation().emitError()
           << "amp-gpu-pipeline: '" << chip
           << "' (option chip) is not an architecture LLVM's NVPTX backend "
              "knows, such as sm_90";
  }

  LogicalResult checkToolkit() {
    // No toolkit named: MLIR searches for one, nothing to check here.
    if (toolkit.empty())
      return success();
    if (!llvm::sys::fs::is_directory(toolkit))
      return getOperation().emitError()
             << "amp-gpu-pipeline: the CUDA toolkit '" << toolkit
             << "' (option toolkit) is not a directory";
    std::string libdevice = toolkit + "/nvvm/libdevice/libdevice.10.bc";
    if (!llvm::sys::fs::exists(libdevice))
      return getOperation().emitError()
             << "amp-gpu-pipeline: the CUDA toolkit '" << toolkit
             << "' has no libdevice (" << libdevice << ")";
    return success();
  }
};
} // namespace
