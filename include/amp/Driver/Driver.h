//===- Driver.h - the compile flow of amp-compile as a library --*- C++ -*-===//
//
// What amp-compile and the Python package share: loading a model (MLIR, an
// ONNX file or ONNX bytes in memory), the training pipeline around the model
// description, and writing the result (a shared library with the model ABI,
// or the IR). The tools keep only their command lines.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DRIVER_DRIVER_H
#define AMP_DRIVER_DRIVER_H

#include "amp/Pipelines/Pipelines.h"
#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::amp {

/// The dialects, extensions and translations the whole flow needs (every
/// target, the emulated CUDA device included).
void registerCompileDialects(DialectRegistry &registry);

/// Whether this build can import ONNX models (libonnx-dev was found).
bool hasONNXImport();

/// What a caller knows of an ONNX model's initializers beyond the file: the
/// Python package reads it from the torch module (named_parameters with
/// requires_grad, nn.Embedding's padding_idx), since which tensors an
/// exporter makes initializers says nothing about which ones train.
struct ONNXTensorRules {
  /// When set, only the floating-point initializers named here are trained
  /// (`parameter`); every other one is a `buffer` (never trained).
  std::optional<std::vector<std::string>> trainable;
  /// Embedding tables by initializer name, with their padding index: a
  /// gather from the table gives that row no gradient (amp.gather's
  /// padding_idx).
  std::vector<std::pair<std::string, int64_t>> paddingIndices;
};

/// Imports a serialized ONNX model named `modelName` (in diagnostics) with
/// `inputShapes` (NAME=D0xD1x...; `inputShapeOption` names their option in
/// errors) fixing its dynamic dimensions and `rules` deciding what trains;
/// its initializers become `initial` values. Null with `message` set, or
/// empty when the diagnostics (through the context) said why.
OwningOpRef<ModuleOp>
importONNXModel(MLIRContext &context, StringRef bytes, StringRef modelName,
                ArrayRef<std::string> inputShapes, StringRef inputShapeOption,
                InitialValues &initial, std::string &message,
                const ONNXTensorRules &rules = {});

/// Reads the model at `path` for the tool named `tool`: MLIR (text or
/// bytecode), or ONNX (.onnx) as importONNXModel. Null with `message` set to
/// the whole error line ("TOOL: error: ..." or "PATH: error: ..."), or empty
/// when the diagnostics said why.
OwningOpRef<ModuleOp>
loadModelFile(MLIRContext &context, llvm::SourceMgr &sources, StringRef path,
              ArrayRef<std::string> inputShapes, StringRef inputShapeOption,
              StringRef tool, InitialValues &initial, std::string &message);

/// What compileModel writes.
enum class CompileOutput { Library, MLIR, LLVM };

/// One compilation after loading: the module, its initial values, where the
/// output goes and how the library links.
struct CompileRequest {
  /// The model's name in errors (its file name).
  std::string modelName;
  CompileOutput emit = CompileOutput::Library;
  std::string output;
  LibraryOptions library;
  /// Check every op of the step for inf/NaN (amp-instrument-nonfinite).
  bool instrumentNonfinite = false;
  /// What the library records to be rebuilt (amp_build_argument): the
  /// model's hash, its path and the options that shaped the step.
  SmallVector<std::string> buildArguments;
  /// Called with each warning (e.g. the model may not fit in memory).
  std::function<void(StringRef)> warn;
};

/// Appends what identifies the model file at `path` to a library's build
/// arguments (amp_build_argument): its content hash (xxh3, hex) and its
/// absolute path, so that amp-run --find-nonfinite can rebuild the library
/// from the same model or notice that it changed.
LogicalResult recordModelSource(StringRef path,
                                SmallVectorImpl<std::string> &arguments,
                                std::string &message);

/// Builds the training step and, for a library or LLVM IR, describes the
/// model for its ABI and lowers it for the target, then writes the output:
/// the training pipeline's two halves around the model description.
/// `options` must have been verified. On failure the diagnostics went
/// through the context, and `message` holds any other reason.
LogicalResult compileModel(ModuleOp module, const InitialValues &initial,
                           const TrainingPipelineOptions &options,
                           const CompileRequest &request, std::string &message);

} // namespace mlir::amp

#endif // AMP_DRIVER_DRIVER_H
