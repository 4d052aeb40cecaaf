//===- EmulatorTarget.cpp - #amp_emu.target -------------------------------===//
//
// gpu-module-to-binary for the emulated CUDA device: the gpu.module (lowered
// for the host by amp-emulator-lower-kernels) is translated to LLVM IR,
// linked with the `__amp_emu_*` functions below, given an entry point per
// kernel and the kernel table of amp/Runtime/EmulatorABI.h, optimized and
// compiled for the host, linked into a shared object by the host's C++
// compiler, and embedded behind the kernel object header.
//
// format=isa gives the finished host LLVM IR instead (to read and test the
// host code); format=bin and format=fatbin give the kernel object.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Emulator/EmulatorTarget.h"

#include "amp/Runtime/EmulatorABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Target/LLVM/ModuleToObject.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstddef>
#include <cstring>

using namespace mlir;
using namespace mlir::amp::emulator;

#include "amp/Target/Emulator/EmulatorDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "amp/Target/Emulator/EmulatorAttrs.cpp.inc"

void AMPEmulatorDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "amp/Target/Emulator/EmulatorAttrs.cpp.inc"
      >();
}

void mlir::amp::emulator::registerEmulatorTarget(DialectRegistry &registry) {
  registry.insert<AMPEmulatorDialect>();
}

namespace {

/// The functions lowered kernels call (LowerKernels.cpp), reading the
/// emulated thread (amp_emu_thread) that the kernel's entry point stores in
/// __amp_emu_current. The fibers of a block share an OS thread, so a
/// barrier or shuffle, after which another fiber has run, stores its own
/// thread back.
constexpr const char *kHelpers = R"IR(
%thread = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], i32, i32, ptr, ptr, ptr }
%memref = type { ptr, ptr, i64, [1 x i64], [1 x i64] }
@__amp_emu_current = linkonce_odr hidden thread_local global ptr null

define linkonce_odr hidden i64 @__amp_emu_id(i32 %field, i32 %dim) alwaysinline {
  %t = load ptr, ptr @__amp_emu_current
  %offset = mul i32 %field, 3
  %index = add i32 %offset, %dim
  %p = getelementptr i32, ptr %t, i32 %index
  %v = load i32, ptr %p
  %r = zext i32 %v to i64
  ret i64 %r
}
define linkonce_odr hidden i64 @__amp_emu_thread_id(i32 %d) alwaysinline {
  %r = call i64 @__amp_emu_id(i32 0, i32 %d)
  ret i64 %r
}
define linkonce_odr hidden i64 @__amp_emu_block_id(i32 %d) alwaysinline {
  %r = call i64 @__amp_emu_id(i32 1, i32 %d)
  ret i64 %r
}
define linkonce_odr hidden i64 @__amp_emu_block_dim(i32 %d) alwaysinline {
  %r = call i64 @__amp_emu_id(i32 2, i32 %d)
  ret i64 %r
}
define linkonce_odr hidden i64 @__amp_emu_grid_dim(i32 %d) alwaysinline {
  %r = call i64 @__amp_emu_id(i32 3, i32 %d)
  ret i64 %r
}
define linkonce_odr hidden i64 @__amp_emu_lane_id() alwaysinline {
  %r = call i64 @__amp_emu_id(i32 4, i32 0)
  ret i64 %r
}
define linkonce_odr hidden %memref @__amp_emu_shared_memory(i64 %offset) alwaysinline {
  %t = load ptr, ptr @__amp_emu_current
  %sp = getelementptr %thread, ptr %t, i32 0, i32 6
  %s = load ptr, ptr %sp
  %p = getelementptr i8, ptr %s, i64 %offset
  %m0 = insertvalue %memref poison, ptr %p, 0
  %m1 = insertvalue %memref %m0, ptr %p, 1
  %m2 = insertvalue %memref %m1, i64 0, 2
  %m3 = insertvalue %memref %m2, i64 4611686018427387904, 3, 0
  %m4 = insertvalue %memref %m3, i64 1, 4, 0
  ret %memref %m4
}
define linkonce_odr hidden void @__amp_emu_barrier() {
  %t = load ptr, ptr @__amp_emu_current
  %cp = getelementptr %thread, ptr %t, i32 0, i32 7
  %c = load ptr, ptr %cp
  %f = load ptr, ptr %c
  call void %f(ptr %t)
  store ptr %t, ptr @__amp_emu_current
  ret void
}
define linkonce_odr hidden { i32, i1 } @__amp_emu_shuffle(i32 %v, i32 %offset, i32 %width, i32 %mode) {
  %valid = alloca i32
  %t = load ptr, ptr @__amp_emu_current
  %cp = getelementptr %thread, ptr %t, i32 0, i32 7
  %c = load ptr, ptr %cp
  %fp = getelementptr ptr, ptr %c, i32 1
  %f = load ptr, ptr %fp
  %r = call i32 %f(ptr %t, i32 %v, i32 %offset, i32 %width, i32 %mode, ptr %valid)
  store ptr %t, ptr @__amp_emu_current
  %vv = load i32, ptr %valid
  %b = icmp ne i32 %vv, 0
  %s0 = insertvalue { i32, i1 } poison, i32 %r, 0
  %s1 = insertvalue { i32, i1 } %s0, i1 %b, 1
  ret { i32, i1 } %s1
}
)IR";

/// Code generation calls __truncsfbf2 for fptrunc to bf16 on hosts without
/// a bf16 instruction, and the host's libgcc may lack it: the kernels get
/// their own, rounding to nearest even and keeping NaNs quiet (as the CPU
/// backend and amp/Runtime/Numerics.h).
constexpr const char *kLibcalls = R"IR(
define hidden bfloat @__truncsfbf2(float %f) {
  %bits = bitcast float %f to i32
  %magnitude = and i32 %bits, 2147483647
  %isnan = icmp ugt i32 %magnitude, 2139095040
  %high = lshr i32 %bits, 16
  %quiet = or i32 %high, 64
  %odd = and i32 %high, 1
  %bias = add i32 %odd, 32767
  %biased = add i32 %bits, %bias
  %rounded = lshr i32 %biased, 16
  %result = select i1 %isnan, i32 %quiet, i32 %rounded
  %short = trunc i32 %result to i16
  %bf = bitcast i16 %short to bfloat
  ret bfloat %bf
}
)IR";

constexpr llvm::StringLiteral kCurrent = "__amp_emu_current";
constexpr llvm::StringLiteral kEntrySuffix = ".amp_emu_entry";

class EmulatorSerializer : public LLVM::ModuleToObject {
public:
  EmulatorSerializer(Operation &module, TargetAttr target,
                     const gpu::TargetOptions &options)
      : ModuleToObject(module, hostTriple(), "", "", target.getO()),
        target(target), options(options) {}

  static StringRef hostTriple() {
    static std::string triple = llvm::sys::getProcessTriple();
    return triple;
  }

protected:
  std::optional<SmallVector<std::unique_ptr<llvm::Module>>>
  loadBitcodeFiles(llvm::Module &module) override;
  void handleModulePostLink(llvm::Module &module) override;
  FailureOr<SmallVector<char, 0>> moduleToObject(llvm::Module &module) override;

private:
  InFlightDiagnostic emitError() { return getOperation().emitError(); }
  llvm::Function *createEntry(llvm::Module &module, llvm::Function &kernel);
  void addLibcalls(llvm::Module &module);
  void countDeviceTraffic(llvm::Function &entry);
  std::unique_ptr<llvm::Module> parseIR(const char *text, llvm::Module &like);
  FailureOr<SmallVector<char, 0>> linkSharedObject(ArrayRef<char> object);

  TargetAttr target;
  const gpu::TargetOptions &options;
  /// Whether handleModulePostLink reported an error (it cannot fail).
  bool postLinkFailed = false;
};

/// `text` as a module with `like`'s data layout and triple; null after
/// reporting the error.
std::unique_ptr<llvm::Module> EmulatorSerializer::parseIR(const char *text,
                                                          llvm::Module &like) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> parsed =
      llvm::parseAssemblyString(text, diagnostic, like.getContext());
  if (!parsed) {
    emitError() << "the emulated device's own LLVM IR does not parse: "
                << diagnostic.getMessage();
    return nullptr;
  }
  parsed->setDataLayout(like.getDataLayout());
  parsed->setTargetTriple(like.getTargetTriple());
  return parsed;
}

std::optional<SmallVector<std::unique_ptr<llvm::Module>>>
EmulatorSerializer::loadBitcodeFiles(llvm::Module &module) {
  std::unique_ptr<llvm::Module> helpers = parseIR(kHelpers, module);
  if (!helpers)
    return std::nullopt;
  SmallVector<std::unique_ptr<llvm::Module>> modules;
  modules.push_back(std::move(helpers));
  return modules;
}

/// The thread of the running kernel; created when no helper used it.
llvm::GlobalVariable *currentThread(llvm::Module &module) {
  if (llvm::GlobalVariable *existing = module.getNamedGlobal(kCurrent))
    return existing;
  auto *ptr = llvm::PointerType::get(module.getContext(), 0);
  auto *global = new llvm::GlobalVariable(
      module, ptr, false, llvm::GlobalValue::LinkOnceODRLinkage,
      llvm::ConstantPointerNull::get(ptr), kCurrent);
  global->setThreadLocal(true);
  global->setVisibility(llvm::GlobalValue::HiddenVisibility);
  return global;
}

/// void <kernel>.amp_emu_entry(ptr params, ptr thread): the ABI's entry,
/// loading each parameter from the launch's parameter array.
llvm::Function *EmulatorSerializer::createEntry(llvm::Module &module,
                                                llvm::Function &kernel) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto *entry = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                       kernel.getName() + kEntrySuffix, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  b.CreateStore(entry->getArg(1), currentThread(module));
  SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &parameter : kernel.args()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, entry->getArg(0), parameter.getArgNo());
    llvm::Value *pointer = b.CreateLoad(ptr, slot);
    arguments.push_back(b.CreateLoad(parameter.getType(), pointer));
  }
  b.CreateCall(&kernel, arguments);
  b.CreateRetVoid();
  return entry;
}

void EmulatorSerializer::handleModulePostLink(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  const llvm::DataLayout &layout = module.getDataLayout();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *kernelType = llvm::StructType::get(ctx, {ptr, ptr, i32, i32, ptr, i64});
  SmallVector<llvm::Constant *> kernels;
  SmallVector<llvm::GlobalVariable *> infos;
  for (llvm::GlobalVariable &info : module.globals())
    if (info.getName().starts_with(amp::emulator::kKernelInfoPrefix))
      infos.push_back(&info);
  for (llvm::GlobalVariable *info : infos) {
    StringRef name =
        info->getName().drop_front(amp::emulator::kKernelInfoPrefix.size());
    llvm::Function *kernel = module.getFunction(name);
    // {static shared bytes, flags}; zeroinitializer when both are 0.
    llvm::Constant *values = info->getInitializer();
    auto field = [&](unsigned i) {
      auto *value = dyn_cast_or_null<llvm::ConstantInt>(
          values ? values->getAggregateElement(i) : nullptr);
      return value ? value->getZExtValue() : uint64_t(0);
    };
    if (!kernel || !values) {
      emitError() << info->getName() << " names no kernel of the module";
      postLinkFailed = true;
      continue;
    }
    SmallVector<llvm::Constant *> sizes;
    for (llvm::Argument &parameter : kernel->args())
      sizes.push_back(llvm::ConstantInt::get(
          i32, layout.getTypeStoreSize(parameter.getType())));
    auto *sizesType = llvm::ArrayType::get(i32, sizes.size());
    auto *sizesGlobal = new llvm::GlobalVariable(
        module, sizesType, true, llvm::GlobalValue::InternalLinkage,
        llvm::ConstantArray::get(sizesType, sizes), name + ".amp_emu_sizes");
    llvm::Constant *nameString = llvm::IRBuilder<>(ctx).CreateGlobalString(
        name, name + ".amp_emu_name", 0, &module);
    kernels.push_back(llvm::ConstantStruct::get(
        kernelType, {nameString, createEntry(module, *kernel),
                     llvm::ConstantInt::get(i32, kernel->arg_size()),
                     llvm::ConstantInt::get(i32, field(1)), sizesGlobal,
                     llvm::ConstantInt::get(i64, field(0))}));
    info->eraseFromParent();
  }
  auto *arrayType = llvm::ArrayType::get(kernelType, kernels.size());
  auto *array = new llvm::GlobalVariable(
      module, arrayType, true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantArray::get(arrayType, kernels), "amp_emu_kernels");
  auto *tableType = llvm::StructType::get(ctx, {i32, i32, ptr});
  auto *table = new llvm::GlobalVariable(
      module, tableType, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(
          tableType, {llvm::ConstantInt::get(i32, AMP_EMU_VERSION),
                      llvm::ConstantInt::get(i32, kernels.size()), array}),
      AMP_EMU_TABLE_SYMBOL);
  table->setVisibility(llvm::GlobalValue::DefaultVisibility);
  // Only the table is the object's interface: kernels of different modules
  // share names, and internal functions inline into their entry points.
  for (llvm::Function &function : module.functions())
    if (!function.isDeclaration())
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  addLibcalls(module);
}

/// The libcalls of kLibcalls, kept (compiler.used) although no IR calls
/// them: code generation does.
void EmulatorSerializer::addLibcalls(llvm::Module &module) {
  std::unique_ptr<llvm::Module> libcalls = parseIR(kLibcalls, module);
  if (!libcalls || llvm::Linker::linkModules(module, std::move(libcalls))) {
    postLinkFailed = true;
    return;
  }
  SmallVector<llvm::GlobalValue *> used;
  for (llvm::Function &function : module.functions())
    if (function.getName() == "__truncsfbf2" && !function.isDeclaration())
      used.push_back(&function);
  llvm::appendToCompilerUsed(module, used);
}

/// Whether `pointer` is always into device memory: every object it may be
/// based on is a kernel parameter, i.e. loaded from a slot of the entry's
/// parameter array (`params`).
bool isDevicePointer(llvm::Value *pointer, llvm::Argument *params) {
  SmallVector<const llvm::Value *> objects;
  llvm::getUnderlyingObjects(pointer, objects, nullptr, 0);
  return !objects.empty() && llvm::all_of(objects, [&](const llvm::Value *o) {
    auto *value = dyn_cast<llvm::LoadInst>(o);
    auto *slot = value ? dyn_cast<llvm::LoadInst>(llvm::getUnderlyingObject(
                             value->getPointerOperand()))
                       : nullptr;
    return slot &&
           llvm::getUnderlyingObject(slot->getPointerOperand()) == params;
  });
}

/// Floating-point operations of `instruction`: 1 per element of an
/// arithmetic op, compare or math function (intrinsic or libm call), 2 for
/// fma; as amp-gpu-cost-report counts them (docs/CostModel.md).
uint64_t flopsOf(llvm::Instruction &instruction) {
  llvm::Type *type = instruction.getType();
  if (auto *cmp = dyn_cast<llvm::FCmpInst>(&instruction))
    type = cmp->getOperand(0)->getType();
  uint64_t elements = 1;
  if (auto *vector = dyn_cast<llvm::FixedVectorType>(type))
    elements = vector->getNumElements();
  if (!type->isFPOrFPVectorTy())
    return 0;
  if (isa<llvm::FCmpInst>(instruction) ||
      instruction.getOpcode() == llvm::Instruction::FNeg)
    return elements;
  if (auto *binary = dyn_cast<llvm::BinaryOperator>(&instruction)) {
    switch (binary->getOpcode()) {
    case llvm::Instruction::FAdd:
    case llvm::Instruction::FSub:
    case llvm::Instruction::FMul:
    case llvm::Instruction::FDiv:
    case llvm::Instruction::FRem:
      return elements;
    default:
      return 0;
    }
  }
  auto *call = dyn_cast<llvm::CallInst>(&instruction);
  llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  if (!callee)
    return 0;
  switch (callee->getIntrinsicID()) {
  case llvm::Intrinsic::fma:
  case llvm::Intrinsic::fmuladd:
    return 2 * elements;
  case llvm::Intrinsic::not_intrinsic:
    // libm (erff, tanhf, ...), not the runtime's helpers (__amp_emu_*,
    // __truncsfbf2).
    return callee->isDeclaration() && !callee->getName().starts_with("__")
               ? elements
               : 0;
  default:
    return callee->isIntrinsic() && !isa<llvm::MemIntrinsic>(call) &&
                   !call->getType()->isVoidTy()
               ? elements
               : 0;
  }
}

/// Adds the bytes of every access to device memory to the thread's
/// loaded_bytes / stored_bytes (amp_emu_thread), after optimization, when
/// kernels are inlined into their entry points and parameters are loads
/// from the parameter array. The thread is noalias (device memory never
/// overlaps it), so that the optimizer keeps the counters in registers
/// across loops.
void EmulatorSerializer::countDeviceTraffic(llvm::Function &entry) {
  llvm::Argument *params = entry.getArg(0), *thread = entry.getArg(1);
  thread->addAttr(llvm::Attribute::NoAlias);
  const llvm::DataLayout &layout = entry.getParent()->getDataLayout();
  auto *i64 = llvm::Type::getInt64Ty(entry.getContext());
  auto add = [&](llvm::Instruction *after, uint64_t offset,
                 llvm::Value *bytes) {
    llvm::IRBuilder<> b(after->getNextNode());
    llvm::Value *counter =
        b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), thread, offset);
    b.CreateStore(b.CreateAdd(b.CreateLoad(i64, counter),
                              b.CreateZExtOrTrunc(bytes, i64)),
                  counter);
  };
  constexpr uint64_t kLoaded = offsetof(amp_emu_thread, loaded_bytes);
  constexpr uint64_t kStored = offsetof(amp_emu_thread, stored_bytes);
  // FLOPs: one add per basic block, before its terminator.
  constexpr uint64_t kFlops = offsetof(amp_emu_thread, flops);
  for (llvm::BasicBlock &block : entry) {
    uint64_t flops = 0;
    for (llvm::Instruction &instruction : block)
      flops += flopsOf(instruction);
    if (!flops)
      continue;
    llvm::IRBuilder<> b(block.getTerminator());
    llvm::Value *counter =
        b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), thread, kFlops);
    b.CreateStore(b.CreateAdd(b.CreateLoad(i64, counter), b.getInt64(flops)),
                  counter);
  }
  SmallVector<llvm::Instruction *> accesses;
  for (llvm::Instruction &instruction : llvm::instructions(entry))
    if (isa<llvm::LoadInst, llvm::StoreInst, llvm::MemIntrinsic>(instruction))
      accesses.push_back(&instruction);
  for (llvm::Instruction *access : accesses) {
    if (auto *load = dyn_cast<llvm::LoadInst>(access)) {
      if (isDevicePointer(load->getPointerOperand(), params))
        add(load, kLoaded,
            llvm::ConstantInt::get(i64,
                                   layout.getTypeStoreSize(load->getType())));
    } else if (auto *store = dyn_cast<llvm::StoreInst>(access)) {
      if (isDevicePointer(store->getPointerOperand(), params))
        add(store, kStored,
            llvm::ConstantInt::get(
                i64,
                layout.getTypeStoreSize(store->getValueOperand()->getType())));
    } else if (auto *intrinsic = dyn_cast<llvm::MemIntrinsic>(access)) {
      if (auto *transfer = dyn_cast<llvm::MemTransferInst>(intrinsic))
        if (isDevicePointer(transfer->getSource(), params))
          add(access, kLoaded, transfer->getLength());
      if (isDevicePointer(intrinsic->getDest(), params))
        add(access, kStored, intrinsic->getLength());
    }
  }
}

FailureOr<SmallVector<char, 0>>
EmulatorSerializer::moduleToObject(llvm::Module &module) {
  if (postLinkFailed)
    return failure();
  for (llvm::Function &function : module.functions())
    if (function.getName().ends_with(kEntrySuffix))
      countDeviceTraffic(function);
  // Once more, for the counters.
  if (failed(optimizeModule(module, optLevel)))
    return failure();
  if (options.getCompilationTarget() == gpu::CompilationTarget::Assembly ||
      options.getCompilationTarget() == gpu::CompilationTarget::Offload) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module.print(stream, nullptr);
    return SmallVector<char, 0>(text.begin(), text.end());
  }
  // Position independent, for a shared object (the base class's machine
  // uses the default relocation model).
  std::string error;
  llvm::Triple triple(hostTriple());
  const llvm::Target *host = llvm::TargetRegistry::lookupTarget(triple, error);
  std::unique_ptr<llvm::TargetMachine> machine(
      host ? host->createTargetMachine(triple, "", "", {}, llvm::Reloc::PIC_)
           : nullptr);
  if (!machine)
    return emitError() << "no LLVM target for the host (" << hostTriple()
                       << "): " << error,
           failure();
  SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, stream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return emitError() << "the host target cannot emit object files", failure();
  passes.run(module);
  return linkSharedObject(object);
}

/// Removes the temporary files it is given when it goes out of scope.
struct TemporaryFiles {
  SmallVector<SmallString<128>> paths;
  ~TemporaryFiles() {
    for (const SmallString<128> &path : paths)
      llvm::sys::fs::remove(path);
  }
};

FailureOr<SmallVector<char, 0>>
EmulatorSerializer::linkSharedObject(ArrayRef<char> object) {
  TemporaryFiles files;
  files.paths.resize(2);
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("amp-emulator-kernels", "o", fd,
                                         files.paths[0]) ||
      llvm::sys::fs::createTemporaryFile("amp-emulator-kernels", "so",
                                         files.paths[1]))
    return emitError() << "cannot create temporary files for the emulated "
                          "device's kernels",
           failure();
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out.write(object.data(), object.size());
  }
  llvm::ErrorOr<std::string> linker =
      llvm::sys::findProgramByName(target.getLinker());
  if (!linker)
    return emitError() << "cannot find the program '" << target.getLinker()
                       << "' that links the emulated device's kernels",
           failure();
  SmallVector<StringRef> args = {
      *linker, "-shared",           "-o", files.paths[1], files.paths[0],
      "-lm",   "-Wl,--no-undefined"};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return emitError() << "linking the emulated device's kernels failed ("
                       << *linker << " exited with " << status
                       << (message.empty() ? "" : ": ") << message << ")",
           failure();
  auto library = llvm::MemoryBuffer::getFile(files.paths[1]);
  if (!library)
    return emitError() << "cannot read the linked kernels: "
                       << library.getError().message(),
           failure();
  amp_emu_object_header header;
  std::memcpy(header.magic, AMP_EMU_MAGIC, AMP_EMU_MAGIC_BYTES);
  header.version = AMP_EMU_VERSION;
  header.header_bytes = sizeof(header);
  header.elf_bytes = (*library)->getBufferSize();
  SmallVector<char, 0> result(reinterpret_cast<const char *>(&header),
                              reinterpret_cast<const char *>(&header + 1));
  result.append((*library)->getBufferStart(), (*library)->getBufferEnd());
  return result;
}

} // namespace

std::optional<SmallVector<char, 0>>
TargetAttr::serializeToObject(Operation *module,
                              const gpu::TargetOptions &options) const {
  if (!isa<gpu::GPUModuleOp>(module)) {
    module->emitError("#amp_emu.target serializes only gpu.module");
    return std::nullopt;
  }
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  EmulatorSerializer serializer(*module, *this, options);
  return serializer.run();
}

Attribute TargetAttr::createObject(Operation *module,
                                   const SmallVector<char, 0> &object,
                                   const gpu::TargetOptions &options) const {
  gpu::CompilationTarget format = options.getCompilationTarget();
  // The kernel object is a binary whatever binary format was asked for.
  if (format == gpu::CompilationTarget::Fatbin)
    format = gpu::CompilationTarget::Binary;
  Builder builder(module->getContext());
  return gpu::ObjectAttr::get(
      module->getContext(), *this, format,
      builder.getStringAttr(StringRef(object.data(), object.size())), nullptr,
      nullptr);
}
