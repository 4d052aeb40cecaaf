//===- SharedLibrary.cpp - the lowered model as a shared library ----------===//
//
// The lowered module translated to LLVM IR, optimized and emitted as
// objects for the host, then linked with the descriptor (Glue.cpp) and the
// model runtime (for cuda targets also the CUDA runtime) into a shared
// library with the C ABI of include/amp/Runtime/ModelABI.h. A large module
// is split into parts (by size, so the library does not depend on the
// machine) that are optimized and compiled in parallel threads.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DataParallel.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/ModelABI/ModelABI.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>

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
/// The host's target machine, or null with the reason in `error`. One per
/// thread: a TargetMachine is not safe to share.
std::unique_ptr<llvm::TargetMachine> hostTargetMachine(std::string &error) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget) {
    error = "no LLVM target for " + triple.str() + ": " + message;
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

/// Runs LLVM's -O3 pipeline over `module`, with loops unrolled, interleaved
/// and vectorized and SLP vectorization, as MLIR's ExecutionEngine does, but
/// with the standard instrumentations, without which the new pass manager
/// does not skip `optnone` functions (skipOptimizingLargeStraightLines): the
/// SLP vectorizer's spill cost, quadratic in a block's length, took 25 s on
/// the 60 000-instruction host step of ResNet-18 for the GPU.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(),
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &modules);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, modules);
}

/// Optimizes `module` at -O3 and writes its object code to `path`; on
/// failure `error` says why. Touches nothing outside `module`'s context,
/// so parts of a model compile in parallel threads.
bool compileToObject(llvm::Module &module, StringRef path,
                     std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine = hostTargetMachine(error);
  if (!machine)
    return false;
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(machine->getTargetTriple());
  optimizeModule(module, *machine);
  SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return false;
  }
  codegen.run(module);
  return ::amp::writeOutput(path, StringRef(object.data(), object.size()),
                            error);
}

/// Marks the large loop-free functions `optnone`: LLVM's optimizations
/// and instruction scheduling take time quadratic in the size of a basic
/// block, and such a function (the step's sequence of allocations and
/// kernel calls after amp-cpu-outline-kernels) runs once per step, so
/// optimizing it gains nothing measurable. Floating-point results do not
/// depend on the optimization level (no fast-math flags).
void skipOptimizingLargeStraightLines(llvm::Module &module) {
  constexpr unsigned kLargeFunction = 2000;
  for (llvm::Function &function : module) {
    if (function.isDeclaration() ||
        function.getInstructionCount() < kLargeFunction)
      continue;
    SmallVector<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>>
        backEdges;
    llvm::FindFunctionBackedges(function, backEdges);
    if (!backEdges.empty())
      continue;
    function.addFnAttr(llvm::Attribute::OptimizeNone);
    function.addFnAttr(llvm::Attribute::NoInline);
  }
}

/// How many parts the model's code is compiled in: one per
/// kInstructionsPerPart instructions, at most kMaxParts. It depends on the
/// module only, never on the machine, so the library is the same whatever
/// the number of threads.
unsigned countParts(const llvm::Module &module) {
  constexpr uint64_t kInstructionsPerPart = 20000;
  constexpr uint64_t kMaxParts = 32;
  uint64_t instructions = 0;
  for (const llvm::Function &function : module)
    instructions += function.getInstructionCount();
  return std::clamp<uint64_t>(
      llvm::divideCeil(instructions, kInstructionsPerPart), 1, kMaxParts);
}

/// Compiles the bitcode `parts` to the objects `paths` with a pool of
/// threads (AMP_COMPILE_THREADS of them when set, else one per core).
/// Returns the first failure's reason, or an empty string.
std::string compileParts(ArrayRef<SmallString<0>> parts,
                         ArrayRef<std::string> paths) {
  std::vector<std::string> errors(parts.size());
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(
      llvm::sys::Process::GetEnv("AMP_COMPILE_THREADS").value_or(""));
  llvm::DefaultThreadPool pool(strategy);
  for (size_t i = 0; i < parts.size(); ++i)
    pool.async([&, i] {
      llvm::LLVMContext context;
      llvm::Expected<std::unique_ptr<llvm::Module>> module =
          llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(StringRef(parts[i].data(), parts[i].size()),
                                    paths[i]),
              context);
      if (!module)
        errors[i] = "cannot read back a part of the model: " +
                    llvm::toString(module.takeError());
      else
        compileToObject(**module, paths[i], errors[i]);
    });
  pool.wait();
  for (std::string &error : errors)
    if (!error.empty())
      return error;
  return "";
}

/// Builds the library; the first failure leaves its reason in `message`.
class LibraryBuilder {
public:
  LibraryBuilder(const LibraryOptions &options, std::string &message)
      : options(options), message(message) {}

  LogicalResult writeObjects(ModuleOp module, StringRef directory,
                             SmallVectorImpl<std::string> &objects);
  LogicalResult writeFile(StringRef path, StringRef contents);
  LogicalResult linkLibrary(StringRef glue, ArrayRef<std::string> objects,
                            StringRef output);
  /// Whether the step calls the data-parallel runtime (MPI; on the GPU,
  /// NCCL with MPI for the rendezvous).
  bool dataParallel = false;

  LogicalResult error(const Twine &text) {
    message = text.str();
    return failure();
  }

private:
  const LibraryOptions &options;
  std::string &message;
};
} // namespace

/// Translates `module` to LLVM IR and compiles it into objects in
/// `directory`: large modules are split (llvm::SplitModule; the kernels of
/// amp-cpu-outline-kernels are separate functions) into parts that are
/// optimized and compiled in parallel.
LogicalResult LibraryBuilder::writeObjects(ModuleOp module,
                                           StringRef directory,
                                           SmallVectorImpl<std::string> &objects) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return error("cannot translate the model to LLVM IR");
  skipOptimizingLargeStraightLines(*llvmModule);
  unsigned count = countParts(*llvmModule);
  for (unsigned i = 0; i < count; ++i)
    objects.push_back((directory + "/model" + Twine(i) + ".o").str());
  if (count == 1)
    return success(compileToObject(*llvmModule, objects[0], message));
  SmallVector<SmallString<0>> parts;
  llvm::SplitModule(*llvmModule, count,
                    [&](std::unique_ptr<llvm::Module> part) {
                      llvm::raw_svector_ostream os(parts.emplace_back());
                      llvm::WriteBitcodeToFile(*part, os);
                    });
  message = compileParts(parts, objects);
  return success(message.empty());
}

LogicalResult LibraryBuilder::writeFile(StringRef path, StringRef contents) {
  return success(::amp::writeOutput(path, contents, message));
}

LogicalResult LibraryBuilder::linkLibrary(StringRef glue,
                                          ArrayRef<std::string> objects,
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
  SmallVector<StringRef> args = {*cxx, "-O2", "-shared", "-fPIC",
                                 "-I", include, glue};
  args.append(objects.begin(), objects.end());
  args.append({"-Wl,--whole-archive", runtime});
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
  // The CPU pipeline calls amp_cpu_sgemm, which calls the BLAS.
  std::string cpuGemm = (prefix + "/lib/libamp_cpu_gemm.a").str();
  if (!options.cuda) {
    if (!llvm::sys::fs::exists(cpuGemm))
      return error("cannot find the runtime library " + cpuGemm);
    args.append({cpuGemm, AMP_BLAS_LIBRARY});
  }
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
  SmallVector<std::string> objects;
  std::string glue = (directory + "/glue.cpp").str();
  std::string library = (directory + "/model.so").str();
  std::string blob = (directory + "/initial-values.bin").str();
  builder.dataParallel = llvm::any_of(
      ArrayRef<StringRef>{kDPBucketBegin, kDPAny, kGPUDPAllReduce},
      [&](StringRef name) { return bool(module.lookupSymbol(name)); });
  if (failed(builder.writeObjects(module, directory, objects)) ||
      failed(builder.writeFile(blob, initial.blob)) ||
      failed(
          builder.writeFile(glue, generateGlue(model, blob, options.cuda))) ||
      failed(builder.linkLibrary(glue, objects, library)))
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
