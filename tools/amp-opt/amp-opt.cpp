//===- amp-opt.cpp - amp optimizer driver ---------------------------------===//
//
// mlir-opt for training graphs: the amp dialect plus the upstream dialects,
// passes and translations the CPU and GPU pipelines use.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
  mlir::amp::registerAMPPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::amp::AMPDialect>();
  // What the CPU and GPU pipelines consume and produce.
  registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::index::IndexDialect,
                  mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::NVVM::NVVMDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect, mlir::ub::UBDialect,
                  mlir::vector::VectorDialect>();
  // Bufferization models, LLVM conversion interfaces, inliner interfaces.
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary: the NVVM target and the GPU-to-LLVM-IR
  // translations it serializes with.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "amp optimizer driver: training graphs in the amp dialect\n",
      registry);
  if (mlir::failed(checkInputNotEmpty(inputFilename)))
    return 1;
  return mlir::asMainReturnCode(
      runToOutput(argc, argv, inputFilename, outputFilename, registry));
}
