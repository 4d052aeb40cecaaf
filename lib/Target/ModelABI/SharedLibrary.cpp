//===- SharedLibrary.cpp - the lowered model as a shared library ----------===//
//
// The lowered module translated to LLVM IR, optimized and emitted as an
// object for the host, then linked with the descriptor (Glue.cpp) and the
// model runtime (for cuda targets also the CUDA runtime) into a shared
// library with the C ABI of include/amp/Runtime/ModelABI.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DataParallel.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/ModelABI/ModelABI.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::amp;

/// The lowering must leave only the LLVM dialect (and, for cuda, the
/// serialized kernels and their launches): anything else cannot be
/// translated, and --emit=llvm must not print it as if it were a result.
LogicalResult mlir::amp::checkLowered(ModuleOp module) {
  WalkResult walk = module->walk([](Operation *op) {
    if (isa<ModuleOp>(op) || isa<gpu::GPUDialect>(op->getDialect()) ||
        isa<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' was not lowered to the LLVM dialect";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

namespace {
/// Builds the library; the first failure leaves its reason in `message`.
class LibraryBuilder {
public:
  LibraryBuilder(const LibraryOptions &options, std::string &message)
      : options(options), message(message) {}

  LogicalResult writeObject(ModuleOp module, StringRef path);
  LogicalResult writeFile(StringRef path, StringRef contents);
  LogicalResult linkLibrary(StringRef glue, StringRef object, StringRef output);
  /// Whether the step calls the data-parallel runtime (MPI).
  bool dataParallel = false;

  LogicalResult error(const Twine &text) {
    message = text.str();
    return failure();
  }

private:
  std::unique_ptr<llvm::TargetMachine> hostTargetMachine();

  const LibraryOptions &options;
  std::string &message;
};
} // namespace

std::unique_ptr<llvm::TargetMachine> LibraryBuilder::hostTargetMachine() {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget) {
    (void)error("no LLVM target for " + triple.str() + ": " + message);
    return nullptr;
  }
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  llvm::SubtargetFeatures features;
  for (auto &feature : hostFeatures)
    features.AddFeature(feature.first(), feature.second);
  llvm::TargetOptions targetOptions;
  return std::unique_ptr<llvm::TargetMachine>(llvmTarget->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), targetOptions,
      llvm::Reloc::PIC_));
}

LogicalResult LibraryBuilder::writeObject(ModuleOp module, StringRef path) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return error("cannot translate the model to LLVM IR");
  std::unique_ptr<llvm::TargetMachine> machine = hostTargetMachine();
  if (!machine)
    return failure();
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return error("LLVM optimization failed: " + llvm::toString(std::move(err)));
  ::amp::OutputStream output;
  if (!output.open(path, message))
    return failure();
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, output.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return error("the target cannot emit object files");
  codegen.run(*llvmModule);
  if (!output.commit(message))
    return failure();
  return success();
}

LogicalResult LibraryBuilder::writeFile(StringRef path, StringRef contents) {
  return success(::amp::writeOutput(path, contents, message));
}

LogicalResult LibraryBuilder::linkLibrary(StringRef glue, StringRef object,
                                          StringRef output) {
  StringRef prefix = options.prefix;
  llvm::ErrorOr<std::string> cxx =
      llvm::sys::findProgramByName(options.compiler);
  if (!cxx)
    return error("cannot find the C++ compiler '" + options.compiler +
                 "' (set --cxx)");
  std::string include = (prefix + "/include").str();
  std::string runtime = (prefix + "/lib/libamp_model_runtime.a").str();
  bool emulated = options.emulator;
  // The emulator build of the CUDA runtime opens the emulated device
  // (libamp_cuda_emulator.so, found through the library's run path).
  std::string cudaRuntime =
      (prefix + (emulated ? "/lib/libamp_cuda_emulator_runtime.a"
                          : "/lib/libamp_cuda_runtime.a"))
          .str();
  std::string emulatorPath = "-Wl,-rpath," + prefix.str() + "/lib";
  for (StringRef archive : {StringRef(runtime), StringRef(cudaRuntime)})
    if (!llvm::sys::fs::exists(archive) && (archive == runtime || options.cuda))
      return error("cannot find the runtime library " + archive +
                   (archive == runtime ? ""
                                       : " (amp was built without the CUDA "
                                         "toolkit; see AMP_CUDA_ROOT)"));
  SmallVector<StringRef> args = {*cxx,    "-O2",  "-shared",
                                 "-fPIC", "-I",   include,
                                 glue,    object, "-Wl,--whole-archive",
                                 runtime};
  // The CUDA runtime loads libcuda and libcublasLt itself (dlopen): the
  // library builds and loads on machines without a GPU driver.
  if (options.cuda)
    args.append({cudaRuntime, "-ldl", "-lpthread"});
  if (emulated)
    args.push_back(emulatorPath);
  std::string dpRuntime = (prefix + "/lib/libamp_dp_runtime.a").str();
  if (dataParallel) {
    if (!llvm::sys::fs::exists(dpRuntime))
      return error("cannot find the data-parallel runtime " + dpRuntime +
                   " (amp was built without MPI; see docs/DataParallel.md)");
    args.push_back(dpRuntime);
  }
  args.push_back("-Wl,--no-whole-archive");
#ifdef AMP_MPI_LIBRARIES
  SmallVector<StringRef> mpiLibraries;
  StringRef(AMP_MPI_LIBRARIES).split(mpiLibraries, ',', -1, false);
  if (dataParallel)
    args.append(mpiLibraries.begin(), mpiLibraries.end());
#endif
  // The CPU pipeline calls the BLAS's cblas_sgemm.
  if (!options.cuda)
    args.push_back(AMP_BLAS_LIBRARY);
  args.append({"-lm", "-o", output});
  std::string execMessage;
  int status = llvm::sys::ExecuteAndWait(*cxx, args, std::nullopt, {}, 0, 0,
                                         &execMessage);
  if (status != 0)
    return error("linking the library failed (" + *cxx + " exited with " +
                 Twine(status) +
                 (execMessage.empty() ? "" : ": " + execMessage) + ")");
  return success();
}

LogicalResult mlir::amp::compileLibrary(ModuleOp module,
                                        const ModelDescription &model,
                                        const InitialValues &initial,
                                        const LibraryOptions &options,
                                        StringRef output,
                                        std::string &message) {
  LibraryBuilder builder(options, message);
  SmallString<128> directory;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("amp-compile", directory))
    return builder.error("cannot create a temporary directory: " +
                         ec.message());
  llvm::scope_exit cleanup(
      [&] { llvm::sys::fs::remove_directories(directory); });
  std::string object = (directory + "/model.o").str();
  std::string glue = (directory + "/glue.cpp").str();
  std::string library = (directory + "/model.so").str();
  std::string blob = (directory + "/initial-values.bin").str();
  builder.dataParallel = bool(module.lookupSymbol(kDPBucketBegin)) ||
                         bool(module.lookupSymbol(kDPAny));
  if (failed(builder.writeObject(module, object)) ||
      failed(builder.writeFile(blob, initial.blob)) ||
      failed(
          builder.writeFile(glue, generateGlue(model, blob, options.cuda))) ||
      failed(builder.linkLibrary(glue, object, library)))
    return failure();
  // Through OutputStream: a full disk leaves no partial library, a
  // device is written in place.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(library, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!linked)
    return builder.error("cannot read the linked library: " +
                         linked.getError().message());
  return builder.writeFile(output, (*linked)->getBuffer());
}
