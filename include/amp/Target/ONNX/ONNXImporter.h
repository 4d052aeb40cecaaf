//===- ONNXImporter.h - ONNX models to the amp dialect ----------*- C++ -*-===//
//
// Imports an ONNX model (opsets 13 to 17 of the default domain) as a forward
// model in the amp dialect: one `func.func` with `amp.graph =
// #amp.graph<forward>`, whose arguments are the graph inputs
// (`#amp.role<input>`), the floating-point initializers
// (`#amp.role<parameter>`, or `#amp.role<buffer>` for batch-norm running
// statistics and, when the caller says which initializers train, every
// other one) and one `tensor<i64>` seed per training-mode Dropout
// (`#amp.role<input>`), each named (`amp.name`) after its ONNX value. Every
// shape is static; shape arithmetic is folded at import time. The initial
// values of the parameters and buffers are returned next to the module
// (never printed into it) and can be written as an amp checkpoint.
//
// See docs/ONNX.md for the op coverage, the conventions and the errors.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_ONNX_ONNXIMPORTER_H
#define AMP_TARGET_ONNX_ONNXIMPORTER_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class Pass;
class RewritePatternSet;

namespace amp {

/// How to import a model.
struct ONNXImportOptions {
  /// Name of the imported `func.func`.
  std::string functionName = "forward";
  /// Static shapes for graph inputs whose ONNX shape has symbolic or unknown
  /// dimensions (for example a dynamic batch dimension), by input name. An
  /// entry must have the input's rank and agree with its static dimensions.
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// The caller's option that fills `inputShapes` (e.g. "--input-shape"), as
  /// errors about dynamic shapes should name it. Empty: the caller has none,
  /// and those errors point to amp-translate's --input-shape instead.
  std::string inputShapeOption;
  /// Rewrite the decomposed spellings of LayerNorm, GELU, GroupNorm and
  /// Linear back to amp.layer_norm, amp.gelu, amp.group_norm and amp.linear
  /// (see populateRaiseONNXIdiomsPatterns), after folding.
  bool raise = true;
  /// The graph output to mark `#amp.role<loss>` (it must be a 0-d f32). Empty:
  /// automatic, i.e. the single 0-d f32 output whose name contains "loss"
  /// (case-insensitively), if there is exactly one; "-": none.
  std::string lossOutput;
  /// The largest tensor (in elements) that import-time constant folding
  /// (shape arithmetic, ConstantOfShape, Range, ...) may create.
  int64_t maxFoldedElements = int64_t(1) << 22;
  /// When set, only the floating-point initializers named here become
  /// `parameter` arguments; every other one is a `buffer` (frozen
  /// parameters, buffers and constants the exporter lifted never train).
  /// Names that are no initializer are ignored; a named initializer that an
  /// op must read at import time is an error (it would be frozen).
  std::optional<std::vector<std::string>> trainable;
  /// Embedding tables by initializer name -> padding index: a Gather along
  /// axis 0 whose data is the table gets amp.gather's padding_idx (no
  /// gradient for that row; a negative index counts from the end). An index
  /// outside the table, another axis, or a floating-point initializer that
  /// no Gather reads directly is an error; names that are no initializer
  /// are ignored.
  llvm::StringMap<int64_t> paddingIndices;
};

/// The initial value of one parameter or buffer argument.
struct ONNXInitialValue {
  /// The ONNX initializer name, which is also the argument's `amp.name`.
  std::string name;
  /// Role::Parameter or Role::Buffer.
  Role role;
  /// The argument's type (f32, f16 or bf16, static shape).
  RankedTensorType type;
  /// Little-endian, row-major contents: 4 bytes per f32 element, 2 per f16
  /// or bf16 element.
  std::vector<char> data;
};

/// A successfully imported model.
struct ONNXImportResult {
  OwningOpRef<ModuleOp> module;
  /// The name of the forward function in `module`.
  std::string functionName;
  /// One entry per parameter and buffer argument, in argument order.
  std::vector<ONNXInitialValue> initialValues;
};

/// Adds one `NAME=D0xD1x...` value of an --input-shape option (`NAME=` for
/// a 0-d input) to `options.inputShapes`. On failure returns failure and sets
/// `error` to the reason, naming `option` and the value.
LogicalResult addInputShape(StringRef option, StringRef entry,
                            ONNXImportOptions &options, std::string &error);

/// Imports the ONNX model at `path`. External data files are resolved
/// relative to the model's directory. On failure, every problem has been
/// reported through the context's diagnostic engine (naming the node and
/// the reason) and nothing is returned. Loads the amp and func dialects.
FailureOr<ONNXImportResult>
importONNXFile(StringRef path, MLIRContext *context,
               const ONNXImportOptions &options = {});

/// Imports a serialized ModelProto held in memory. `modelPath` names the
/// model in diagnostics and locations, and its directory is where external
/// data files are looked for; with an empty `modelPath` external data is an
/// error.
FailureOr<ONNXImportResult>
importONNXBuffer(StringRef bytes, StringRef modelPath, MLIRContext *context,
                 const ONNXImportOptions &options = {});

/// Writes `values` to `path` in the amp checkpoint format (docs/Driver.md,
/// "Checkpoints"): `AMPSTATE`, version 1, then name, dtype, shape and bytes
/// of each tensor. The file is written to a temporary next to `path` and
/// renamed. On failure returns false and sets `error`.
bool writeAMPCheckpoint(StringRef path, ArrayRef<ONNXInitialValue> values,
                        std::string &error);

/// Patterns that rewrite the decomposed forms ONNX exporters produce into
/// the amp ops the precision policy knows:
///   - LayerNorm spelled ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div
///     (+ Mul/Add) -> amp.layer_norm;
///   - GELU spelled Div/Erf/Add/Mul/Mul -> amp.gelu (erf form), and its tanh
///     approximation (Mul/Add/Tanh/Add/Mul/Mul) -> amp.gelu approximate=tanh;
///   - GroupNorm spelled Reshape/InstanceNormalization/Reshape (+ Mul/Add)
///     -> amp.group_norm;
///   - MatMul(x, Transpose(W)) (+ Add(b)) -> amp.linear.
void populateRaiseONNXIdiomsPatterns(RewritePatternSet &patterns);

/// Applies the raising patterns and the amp folders greedily to `op`.
LogicalResult raiseONNXIdioms(Operation *op);

/// A pass (`amp-raise-onnx-idioms`) running raiseONNXIdioms on each op it is
/// scheduled on; registerRaiseONNXIdiomsPass makes it known to a tool's
/// command line (e.g. amp-opt).
std::unique_ptr<Pass> createRaiseONNXIdiomsPass();
void registerRaiseONNXIdiomsPass();

} // namespace amp
} // namespace mlir

#endif // AMP_TARGET_ONNX_ONNXIMPORTER_H
