//===- amp-opt.cpp - amp optimizer driver ---------------------------------===//
//
// mlir-opt for training graphs: the amp dialect plus the upstream dialects,
// passes and translations the CPU and GPU pipelines use.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/Passes.h"
#include "amp/Codegen/CPU/Passes.h"
#include "amp/Codegen/Common/Passes.h"
#include "amp/Codegen/GPU/Passes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPipeline.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/Emulator/EmulatorTarget.h"
#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/WithColor.h"

namespace {
mlir::LogicalResult reportError(llvm::StringRef message) {
  llvm::WithColor::error(llvm::errs(), "amp-opt") << message << "\n";
  return mlir::failure();
}

/// MLIR bytecode escapes readMLIRInput's text scan: reads it once more here
/// and measures its nesting, which MlirOptMain's printer and bytecode writer
/// would overflow the stack on. A file that does not parse is left to
/// MlirOptMain to report.
mlir::LogicalResult
checkBytecodeNesting(const llvm::MemoryBuffer &input,
                     mlir::DialectRegistry &registry,
                     const mlir::MlirOptMainConfig &config) {
  if (!amp::isMLIRBytecode(input.getBuffer()))
    return mlir::success();
  mlir::MLIRContext context(registry);
  context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // Not destroyed when too deep: destroying nested regions recurses too.
  auto block = std::make_unique<mlir::Block>();
  mlir::ParserConfig parserConfig(&context, /*verifyAfterParse=*/false);
  if (mlir::failed(mlir::parseSourceString(input.getBuffer(), block.get(),
                                           parserConfig)))
    return mlir::success();
  std::string error;
  for (mlir::Operation &op : *block)
    if (!amp::checkBytecodeNesting(input.getBuffer(),
                                   input.getBufferIdentifier(), &op, error)) {
      (void)block.release();
      llvm::errs() << error << "\n";
      return mlir::failure();
    }
  return mlir::success();
}

/// Runs MlirOptMain on the input read by amp::readMLIRInput (which refuses
/// directories, empty input and nesting that would overflow the parser's
/// stack) and writes through amp::OutputStream: a regular output file is
/// replaced only on success, a device such as /dev/null is written in place.
mlir::LogicalResult runToOutput(int argc, char **argv,
                                llvm::StringRef inputFilename,
                                llvm::StringRef outputFilename,
                                mlir::DialectRegistry &registry) {
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // These print lists to stdout and read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::MlirOptMain(argc, argv, inputFilename, "-", registry);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      amp::readMLIRInput(inputFilename, "amp-opt", error);
  if (!input) {
    llvm::errs() << error << "\n";
    return mlir::failure();
  }
  if (mlir::failed(checkBytecodeNesting(*input, registry, config)))
    return mlir::failure();
  amp::OutputStream output;
  if (!output.open(outputFilename, error))
    return reportError(error);
  if (mlir::failed(
          mlir::MlirOptMain(output.os(), std::move(input), registry, config)))
    return mlir::failure();
  if (!output.commit(error))
    return reportError(error);
  return mlir::success();
}
} // namespace

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::amp::registerAMPAnalysisPasses();
  mlir::amp::registerAMPConversionPasses();
  mlir::amp::registerAMPCodegenCommonPasses();
  mlir::amp::registerAMPCPUCodegenPasses();
  mlir::amp::registerAMPGPUCodegenPasses();
  mlir::amp::registerAMPPasses();
  mlir::amp::registerAMPPipelines();
  mlir::amp::registerAMPPrecisionPipelines();
  mlir::amp::emulator::registerAMPEmulatorPasses();
  mlir::amp::registerModelABIPasses();

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
  return mlir::asMainReturnCode(
      runToOutput(argc, argv, inputFilename, outputFilename, registry));
}
