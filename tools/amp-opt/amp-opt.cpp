//===- amp-opt.cpp - amp optimizer driver ---------------------------------===//
//
// mlir-opt for training graphs: the amp dialect plus the upstream dialects,
// passes and translations the CPU and GPU pipelines use.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPipeline.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Target/Emulator/EmulatorTarget.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

namespace {
/// An empty input is a mistake (a truncated or wrong file), not an empty
/// module: say so instead of printing nothing and succeeding.
mlir::LogicalResult checkInputNotEmpty(llvm::StringRef inputFilename) {
  if (inputFilename == "-")
    return mlir::success();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(inputFilename);
  if (!buffer) {
    llvm::WithColor::error(llvm::errs(), "amp-opt")
        << "cannot open input file '" << inputFilename
        << "': " << buffer.getError().message() << "\n";
    return mlir::failure();
  }
  if (!(*buffer)->getBuffer().trim().empty())
    return mlir::success();
  llvm::WithColor::error(llvm::errs(), "amp-opt")
      << "input file '" << inputFilename
      << "' is empty: expected an MLIR module\n";
  return mlir::failure();
}

/// Runs MlirOptMain writing to a temporary file next to `outputFilename`,
/// renamed over it only on success: a failed run never clobbers an output.
mlir::LogicalResult runToOutput(int argc, char **argv,
                                llvm::StringRef inputFilename,
                                llvm::StringRef outputFilename,
                                mlir::DialectRegistry &registry) {
  if (outputFilename == "-")
    return mlir::MlirOptMain(argc, argv, inputFilename, outputFilename,
                             registry);
  llvm::SmallString<128> temporary;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          outputFilename + ".tmp-%%%%%%", temporary)) {
    llvm::WithColor::error(llvm::errs(), "amp-opt")
        << "cannot create a temporary file next to '" << outputFilename
        << "': " << error.message() << "\n";
    return mlir::failure();
  }
  mlir::LogicalResult result =
      mlir::MlirOptMain(argc, argv, inputFilename, temporary, registry);
  if (mlir::succeeded(result)) {
    if (std::error_code error =
            llvm::sys::fs::rename(temporary, outputFilename)) {
      llvm::WithColor::error(llvm::errs(), "amp-opt")
          << "cannot write '" << outputFilename << "': " << error.message()
          << "\n";
      result = mlir::failure();
    }
  }
  llvm::sys::fs::remove(temporary);
  return result;
}
} // namespace

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::amp::registerAMPConversionPasses();
  mlir::amp::registerAMPPasses();
  mlir::amp::registerAMPPipelines();
  mlir::amp::registerAMPPrecisionPipelines();
  mlir::amp::emulator::registerAMPEmulatorPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::amp::AMPDialect>();
  // Every upstream dialect with its external interface models (bufferization,
  // buffer deallocation, tiling, ...), as mlir-opt does: the CPU and GPU
  // pipelines go through func, arith, math, tensor, linalg, bufferization,
  // scf, cf, memref, affine, vector, gpu, nvvm and llvm.
  mlir::registerAllDialects(registry);
  // Bufferization models, LLVM conversion interfaces, inliner interfaces.
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary: the NVVM target and the GPU-to-LLVM-IR
  // translations it serializes with.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::amp::emulator::registerEmulatorTarget(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "amp optimizer driver: training graphs in the amp dialect\n",
      registry);
  if (mlir::failed(checkInputNotEmpty(inputFilename)))
    return 1;
  return mlir::asMainReturnCode(
      runToOutput(argc, argv, inputFilename, outputFilename, registry));
}
