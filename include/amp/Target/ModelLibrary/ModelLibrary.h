//===- ModelLibrary.h - a training step as a model library ------*- C++ -*-===//
//
// The last stage of the compile flow: the training step and the forward
// model (in the amp dialect) described for the runtime (the tensors, their
// roles and initial values, the entry points), the descriptor the runtime
// reads (C++ glue, include/amp/Runtime/ModelDescriptor.h), and the lowered
// module linked with the model runtime into a shared library with the C ABI
// of include/amp/Runtime/ModelABI.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_MODELLIBRARY_MODELLIBRARY_H
#define AMP_TARGET_MODELLIBRARY_MODELLIBRARY_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Runtime/ModelABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::amp {

/// One tensor of the model as the runtime sees it.
struct TensorDescription {
  std::string name;
  Role role = Role::Input;
  amp_dtype dtype = AMP_DTYPE_F32;
  SmallVector<int64_t> shape;
  amp_init init = AMP_INIT_ZEROS;
  double initConstant = 0;
  int64_t fanIn = 0;
  int64_t labelRange = 0;
  /// For AMP_INIT_COPY_OF: the index of the tensor this one copies.
  int32_t copyOf = -1;
  /// Offset of the initial contents in the blob of initial values.
  std::optional<size_t> initOffset;
};

/// Initial contents of state tensors by name (from an ONNX model's
/// initializers), packed into one blob the library embeds.
struct InitialValues {
  /// Appends `data` as the contents of the tensor named `name`, 64-byte
  /// aligned.
  void add(StringRef name, ArrayRef<char> data);

  llvm::StringMap<std::pair<size_t, size_t>> offsetAndSize;
  std::string blob;
};

/// An entry point: its arguments as indices into the model's tensors, its
/// results, and which tensor each result replaces (-1: none).
struct EntryDescription {
  std::string symbol;
  SmallVector<int32_t> args;
  SmallVector<TensorDescription> results;
  SmallVector<int32_t> resultUpdates;
  /// Per result, 1 when the entry writes it into the buffer of the tensor
  /// it updates (amp-state-updates-in-place) and takes no out-buffer for it.
  SmallVector<int32_t> resultInPlace;
  int32_t lossResult = -1;
  int32_t skippedResult = -1;
  /// amp-check-indices' sites ("kind<TAB>location" per row of the entry's
  /// index-range result; include/amp/Runtime/NonfiniteABI.h).
  SmallVector<std::string> indexSites;
};

/// An op an instrumented step checks (amp-instrument-nonfinite), as the
/// library's site table lists it (include/amp/Runtime/NonfiniteABI.h).
struct NonfiniteSite {
  std::string kind, name, location, precision;
  /// The record rows of its results, its operands and its f32 copy's
  /// results (none: the op has no f32 form).
  SmallVector<int64_t> resultRows, operandRows;
  std::optional<SmallVector<int64_t>> f32Rows;
};

/// The model: the training step's arguments are its tensors; the forward
/// model, when there is one, is the evaluation entry point.
struct ModelDescription {
  SmallVector<TensorDescription> tensors;
  EntryDescription step;
  std::optional<EntryDescription> eval;
  /// The sites of an instrumented step, in row order; empty otherwise.
  std::vector<NonfiniteSite> nonfiniteSites;
  /// What rebuilds the library (amp_build_argument): the model's content
  /// hash, its absolute path and the options that shaped the step.
  SmallVector<std::string> buildArguments;
};

/// The symbols the glue calls: prepareEntryPoints renames the entry points
/// to these.
inline constexpr StringLiteral kTrainStepSymbol = "amp_train_step_impl";
inline constexpr StringLiteral kEvalSymbol = "amp_eval_impl";

/// Describes `step` and `forward` (may be null) for the runtime; the
/// learning rate starts at `learningRate`. Emits an error on the functions
/// for what the ABI cannot carry.
FailureOr<ModelDescription> describeModel(func::FuncOp step,
                                          func::FuncOp forward,
                                          const InitialValues &initial,
                                          double learningRate);

/// Every tensor of every function (arguments by amp.name, op results by op)
/// has a byte size that fits in int64; emits an error naming the first that
/// does not.
LogicalResult checkTensorSizes(ModuleOp module);

/// A warning when what the library allocates at least (the step's
/// arguments and results, the evaluation's results and the largest
/// intermediate tensor of the step) exceeds this machine's physical memory.
std::optional<std::string> checkPhysicalMemory(func::FuncOp step,
                                               func::FuncOp forward);

/// Renames the entry points to the symbols the glue calls, makes every other
/// function private, and drops the contract attributes: the runtime has
/// them now, and they describe tensors, not the buffers lowering makes.
LogicalResult prepareEntryPoints(ModuleOp module, func::FuncOp step,
                                 func::FuncOp forward);

/// Marks the results of the step that its lowered entry point (in `module`)
/// writes in place, from the entry's `amp.updated_in_place`, and removes
/// that attribute. Fails when the attribute names an argument no result
/// updates.
LogicalResult recordUpdatesInPlace(ModuleOp module, ModelDescription &model);

/// The lowering must leave only the LLVM dialect (and, for cuda, the
/// serialized kernels and their launches): emits an error on the first
/// other op.
LogicalResult checkLowered(ModuleOp module);

/// The C++ source of the model descriptor: the tensor and entry tables, the
/// initial values embedded from the file `blobPath`, and the CUDA device
/// operations when `cuda`.
std::string generateGlue(const ModelDescription &model, StringRef blobPath,
                         bool cuda);

/// The CPU a library's code is compiled for when none is named, on x86-64:
/// a level every x86-64 CPU since about 2015 has (AVX2, FMA, BMI2: Intel
/// Haswell, AMD Excavator and Zen), not the building machine's newest
/// instructions, so that a library runs on any such machine (and under
/// valgrind, which cannot run AVX-512).
inline constexpr StringLiteral kPortableX86CPU = "x86-64-v3";

/// Whether LLVM knows `cpu` for the host's architecture: empty (the
/// portable default), "native" (this machine's CPU and features) or an
/// LLVM CPU name. Fails with "<optionPrefix>cpu=NAME is not a CPU ..." in
/// `message`.
LogicalResult checkTargetCPU(StringRef cpu, StringRef optionPrefix,
                             std::string &message);

/// How to link the library.
struct LibraryOptions {
  /// The C++ compiler that compiles the glue and links.
  std::string compiler = "c++";
  /// The directory with include/ (the runtime headers) and lib/ (the
  /// runtime archives).
  std::string prefix;
  /// Link the CUDA runtime (for cuda and cuda-emulator targets).
  bool cuda = false;
  /// Link the emulator build of the CUDA runtime.
  bool emulator = false;
  /// The CPU the code (for cuda targets the host code) is compiled for:
  /// empty for kPortableX86CPU (generic on other architectures), "native",
  /// or an LLVM CPU name (checkTargetCPU).
  std::string cpu;
};

/// Compiles the lowered `module` into the shared library at `output`,
/// through a temporary directory (removed by amp-compile's signal handlers
/// too), and appends the checksum the loader verifies
/// (amp/Host/LibraryChecksum.h);
/// `output` is replaced only when everything succeeded. On failure
/// `message` says why (MLIR diagnostics go to the context).
LogicalResult compileLibrary(ModuleOp module, const ModelDescription &model,
                             const InitialValues &initial,
                             const LibraryOptions &options, StringRef output,
                             std::string &message);

/// Registers `amp-print-model-abi`, which prints the model descriptor of a
/// module's training step and forward model.
void registerModelABIPasses();

} // namespace mlir::amp

#endif // AMP_TARGET_MODELLIBRARY_MODELLIBRARY_H
