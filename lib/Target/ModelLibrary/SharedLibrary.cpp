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

#include "amp/Host/LibraryChecksum.h"
#include "amp/Runtime/DataParallel.h"
#include "amp/Support/OutputFile.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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
const llvm::Target *hostTarget(llvm::Triple &triple, std::string &error);
std::string resolveCPU(StringRef cpu, const llvm::Triple &triple);
} // namespace

LogicalResult mlir::amp::checkTargetCPU(StringRef cpu, StringRef optionPrefix,
                                        std::string &message) {
  llvm::Triple triple;
  const llvm::Target *llvmTarget = hostTarget(triple, message);
  if (!llvmTarget)
    return failure();
  std::string name = resolveCPU(cpu, triple);
  if (name == "native")
    return success();
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvmTarget->createMCSubtargetInfo(triple, "", ""));
  if (subtarget && subtarget->isCPUStringValid(name))
    return success();
  message = (optionPrefix + "cpu=" + cpu + " is not a CPU LLVM knows for " +
             triple.getArchName() +
             (triple.getArch() == llvm::Triple::x86_64
                  ? " (native, a level such as x86-64-v2, x86-64-v3 or "
                    "x86-64-v4, or a name such as skylake or znver3; "
                    "llc -mcpu=help lists them)"
                  : " (native, generic, or a name llc -mcpu=help lists)"))
                .str();
  return failure();
}

namespace {
/// The host's LLVM target, or null with the reason in `error`.
const llvm::Target *hostTarget(llvm::Triple &triple, std::string &error) {
  triple = llvm::Triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget)
    error = "no LLVM target for " + triple.str() + ": " + message;
  return llvmTarget;
}

/// The CPU name for LLVM: the default's for an empty `cpu`.
std::string resolveCPU(StringRef cpu, const llvm::Triple &triple) {
  if (!cpu.empty())
    return cpu.str();
  return triple.getArch() == llvm::Triple::x86_64 ? kPortableX86CPU.str()
                                                  : "generic";
}

/// A target machine for the host's architecture and `cpu` (native: this
/// machine's CPU and every feature it has), or null with the reason in
/// `error`. One per thread: a TargetMachine is not safe to share.
std::unique_ptr<llvm::TargetMachine> hostTargetMachine(StringRef cpu,
                                                       std::string &error) {
  llvm::Triple triple;
  const llvm::Target *llvmTarget = hostTarget(triple, error);
  if (!llvmTarget)
    return nullptr;
  std::string cpuName = resolveCPU(cpu, triple);
  llvm::SubtargetFeatures features;
  if (cpuName == "native") {
    cpuName = llvm::sys::getHostCPUName().str();
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  }
  llvm::TargetOptions targetOptions;
  return std::unique_ptr<llvm::TargetMachine>(llvmTarget->createTargetMachine(
      triple, cpuName, features.getString(), targetOptions, llvm::Reloc::PIC_));
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
bool compileToObject(llvm::Module &module, StringRef path, StringRef cpu,
                     std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine = hostTargetMachine(cpu, error);
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
                         ArrayRef<std::string> paths, StringRef cpu) {
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
        compileToObject(**module, paths[i], cpu, errors[i]);
    });
  pool.wait();
  for (std::string &error : errors)
    if (!error.empty())
      return error;
  return "";
}

/// The process group of the running linker (its leader's pid) or 0: what
/// endLinker, called by the signal handlers, reads.
std::atomic<pid_t> linkerGroup{0};

/// Ends the linker and the processes it started (the compiler's cc1plus,
/// as, ld), so that none writes into the link folder once the handlers
/// remove it. Async-signal-safe; waits at most about a second.
void endLinker() {
  pid_t group = linkerGroup.exchange(0);
  if (group <= 0)
    return;
  ::kill(-group, SIGKILL);
  for (int i = 0; i < 500; ++i) {
    ::waitpid(group, nullptr, WNOHANG);
    if (::kill(-group, 0) != 0)
      return;
    struct timespec pause = {0, 2000000};
    ::nanosleep(&pause, nullptr);
  }
}

/// Runs `args` (args[0] the program's path) in a process group of its own
/// with TMPDIR set to `directory` (the compiler's own temporaries land in
/// the link folder too), and waits for it. Returns its exit status, -1
/// when a signal ended it, or -2 with `error` set when it could not start.
int runLinker(ArrayRef<StringRef> args, StringRef directory,
              std::string &error) {
  static std::once_flag registered;
  std::call_once(registered, [] { ::amp::addSignalCleanup(endLinker); });
  std::vector<std::string> arguments(args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = {("TMPDIR=" + directory).str()};
  for (char **variable = environ; *variable; ++variable)
    if (!StringRef(*variable).starts_with("TMPDIR="))
      environment.push_back(*variable);
  std::vector<char *> envp;
  for (std::string &variable : environment)
    envp.push_back(variable.data());
  envp.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, argv[0], nullptr, &attributes, argv.data(),
                            envp.data());
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    error = std::strerror(spawned);
    return -2;
  }
  linkerGroup.store(pid);
  // Seen exiting first, reaped after the group is forgotten: its id cannot
  // be reused while a handler could still signal it.
  siginfo_t info;
  while (::waitid(P_PID, pid, &info, WEXITED | WNOWAIT) != 0 &&
         errno == EINTR) {
  }
  linkerGroup.store(0);
  int status = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (reaped != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
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
LogicalResult
LibraryBuilder::writeObjects(ModuleOp module, StringRef directory,
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
    return success(
        compileToObject(*llvmModule, objects[0], options.cpu, message));
  SmallVector<SmallString<0>> parts;
  llvm::SplitModule(*llvmModule, count,
                    [&](std::unique_ptr<llvm::Module> part) {
                      llvm::raw_svector_ostream os(parts.emplace_back());
                      llvm::WriteBitcodeToFile(*part, os);
                    });
  message = compileParts(parts, objects, options.cpu);
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
  SmallVector<StringRef> args = {*cxx, "-O2",   "-shared", "-fPIC",
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
  int status =
      runLinker(args, llvm::sys::path::parent_path(output), execMessage);
  if (status == -2)
    return error("cannot run the C++ compiler " + *cxx + ": " + execMessage);
  if (status != 0)
    return error("linking the library failed (" + *cxx +
                 (status == -1 ? " was ended by a signal)"
                               : " exited with " + Twine(status) + ")"));
  return success();
}

LogicalResult mlir::amp::compileLibrary(ModuleOp module,
                                        const ModelDescription &model,
                                        const InitialValues &initial,
                                        const LibraryOptions &options,
                                        StringRef output,
                                        std::string &message) {
  LibraryBuilder builder(options, message);
  // Checked before the work: an unknown name would only be a warning of
  // LLVM's, and code for its default CPU.
  if (failed(checkTargetCPU(options.cpu, "", message)))
    return failure();
  // Listed for the signal handlers of amp-compile, which remove it.
  ::amp::TemporaryDirectory folder;
  if (!folder.create("amp-compile", message))
    return failure();
  StringRef directory = folder.path();
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
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(library, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!linked)
    return builder.error("cannot read the linked library: " +
                         linked.getError().message());
  // The checksum the loader verifies before dlopen (LibraryChecksum.h), after
  // the ELF file's last byte. Through OutputStream: a full disk leaves no
  // partial library, a device is written in place.
  StringRef contents = (*linked)->getBuffer();
  ::amp::OutputStream stream;
  if (!stream.open(output, message))
    return failure();
  stream.os() << contents
              << libraryChecksumTrailer(contents.data(), contents.size());
  return success(stream.commit(message));
}
