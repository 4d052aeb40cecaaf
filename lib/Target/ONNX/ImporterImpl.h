//===- ImporterImpl.h - The ONNX importer's shared state --------*- C++ -*-===//
//
// Private to the ONNX importer. The Importer walks the graph (ONNXImporter.cpp)
// and holds what every op handler needs: the ONNX value of each name (an
// Entry), the node being imported, diagnostics naming it, and helpers that
// read inputs and attributes and define outputs (ImporterSupport.cpp). The
// handlers themselves live in the files of their op group and are found
// through the op table (OpTable.h), keyed by op type and opset.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TARGET_ONNX_IMPORTERIMPL_H
#define AMP_LIB_TARGET_ONNX_IMPORTERIMPL_H

#include "ONNXTensor.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Target/ONNX/ONNXImporter.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace amp {
namespace onnx_import {

/// The opsets of the default domain the importer supports.
constexpr int64_t kMinOpset = 13;
constexpr int64_t kMaxOpset = 21;

/// Samples of Uniform[low, high) that RandomUniform(Like) drew, held
/// symbolically: amp draws Bernoulli masks (seeded amp.dropout), not
/// uniform numbers, so these are only imported through what turns them
/// into one (RandomOps.cpp).
struct UniformSamples {
  Shape shape;
  int32_t dtype;
  double low, high;
};

/// What an ONNX value name stands for.
struct Entry {
  /// The run-time value, once one exists.
  Value value;
  /// The contents, when known at import time (folded values, Constant
  /// nodes, non-floating-point initializers).
  std::shared_ptr<HostTensor> host;
  /// The initializer this name refers to.
  const onnx::TensorProto *initializer = nullptr;
  /// Its decoded contents, when an op reads it at import time (a
  /// floating-point initializer stays a parameter for every other use).
  std::shared_ptr<HostTensor> initializerData;
  /// Index of the initializer in the graph (argument order).
  int64_t initializerIndex = -1;
  /// Uniform random samples not drawn yet.
  std::shared_ptr<const UniformSamples> uniform;
};

enum class ArgKind { Input, Seed, Initializer };
struct ArgInfo {
  ArgKind kind;
  std::string name;
  int64_t order; // graph-input index, seed index or initializer index
  Value arg;
};

enum class Arith { Add, Sub, Mul, Div, Pow, Max, Min };
enum class Compare { EQ, GT, LT, GE, LE };
/// An element-wise unary op: how it folds on the host and what it builds at
/// run time (ElementwiseOps.cpp lists them).
struct UnaryOpInfo;

/// A 2-d window (Conv, MaxPool, AveragePool): kernel, strides, dilations
/// and pads [top, left, bottom, right] (ONNX's order, amp's too).
struct Window {
  SmallVector<int64_t> kernel, stride, dilation, pads;
};

class Importer {
public:
  Importer(MLIRContext *context, const onnx::ModelProto &model,
           StringRef modelPath, const ONNXImportOptions &options);

  FailureOr<ONNXImportResult> run();

  // What follows, up to `private:`, is the interface of the op handlers.

  //===------------------------------------------------------------------===//
  // Diagnostics
  //===------------------------------------------------------------------===//

  InFlightDiagnostic modelError() { return emitError(fileLoc); }
  /// The option that gives input shapes (amp-translate's if the caller's
  /// is not known).
  StringRef inputShapeOption() const;
  /// How to give graph input `name` a static shape: the caller's option, or
  /// amp-translate's when the caller has none (amp-compile reading .onnx).
  std::string inputShapeAdvice(StringRef name) const;
  std::string nodeLabel() const;
  InFlightDiagnostic error();
  std::string inputLabel(unsigned i) const {
    return "input #" + std::to_string(i) + " ('" + node->input(i) + "')";
  }

  //===------------------------------------------------------------------===//
  // Types and constants
  //===------------------------------------------------------------------===//

  static ArrayRef<int64_t> shapeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
  static Type elementOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getElementType();
  }
  static RankedTensorType tensorType(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }
  static bool isFloatValue(Value value) {
    return isa<FloatType>(elementOf(value));
  }
  static std::string typeName(Type element);

  Value constant(const HostTensor &tensor, RankedTensorType type) {
    return ConstantOp::create(builder, loc, type, toDenseAttr(tensor, type));
  }
  Value splat(double value, RankedTensorType type);
  Value broadcastTo(Value value, ArrayRef<int64_t> shape);
  Value reshapeTo(Value value, ArrayRef<int64_t> shape);

  /// NumPy/ONNX multidirectional broadcasting of `shapes`.
  FailureOr<Shape> broadcastShapes(ArrayRef<Shape> shapes);

  LogicalResult checkFoldSize(ArrayRef<int64_t> shape);

  /// Counts `elements` more held on the host. Each host tensor is bounded
  /// by --max-folded-elements; all of them together by 16 times that, so
  /// that a small model cannot fold its way to gigabytes (a chain of Adds on
  /// a large ConstantOfShape) or read the same external data again and
  /// again.
  LogicalResult countHostElements(int64_t elements);

  LogicalResult checkShape(ArrayRef<int64_t> shape);

  /// Evaluates the amp op `create` builds over constants of `operands` with
  /// the op's folder, which is how ops on tensors known at import time fold
  /// where amp has a folder for them (AMPFolders.cpp). The op is a scratch
  /// op, never inserted into the function nor verified, over f64 or i64
  /// elements (which hold every host value exactly). Returns the folded
  /// tensor with dtype `dtype`, or nullopt when the folder declines.
  std::optional<HostTensor>
  foldWithAMP(ArrayRef<const HostTensor *> operands, int32_t dtype,
              function_ref<Operation *(OpBuilder &, ValueRange)> create);

  //===------------------------------------------------------------------===//
  // Node inputs and outputs
  //===------------------------------------------------------------------===//

  unsigned numInputs() const { return node->input_size(); }
  bool hasInput(unsigned i) const {
    return static_cast<int>(i) < node->input_size() && !node->input(i).empty();
  }
  bool hasOutput(unsigned i) const {
    return static_cast<int>(i) < node->output_size() &&
           !node->output(i).empty();
  }
  /// Whether output `i` is read by a later node or is a graph output.
  bool outputUsed(unsigned i) const {
    return hasOutput(i) && useCounts.lookup(node->output(i)) > 0;
  }

  LogicalResult checkArity(unsigned minInputs, unsigned maxInputs);

  /// Whether output `i` is read, and only by nodes of `opTypes` (not as a
  /// graph output).
  bool outputOnlyFeeds(unsigned i, ArrayRef<StringRef> opTypes) const;

  FailureOr<Entry *> entry(unsigned i);

  /// Decodes an initializer's contents (cached).
  FailureOr<std::shared_ptr<HostTensor>> decodeInitializer(Entry &e);

  /// The contents of input `i` when known at import time: a folded value or
  /// a non-floating-point initializer (floating-point initializers are
  /// parameters). Null when computed at run time; failure on a bad
  /// initializer.
  FailureOr<const HostTensor *> hostOf(unsigned i);

  /// Input `i` as a tensor known at import time (`what` says what it is);
  /// floating-point initializers are read too.
  FailureOr<const HostTensor *> requireHost(unsigned i, StringRef what);

  /// Input `i` as a list of integers known at import time.
  FailureOr<SmallVector<int64_t>> requireInts(unsigned i, StringRef what);

  /// Input `i` as a scalar known at import time.
  FailureOr<double> requireScalar(unsigned i, StringRef what);

  /// Creates the parameter argument of a floating-point initializer.
  FailureOr<Value> parameterArgument(Entry &e);

  /// The run-time value of entry `e`. A tensor known at import time is
  /// materialized as an amp.constant of `element` (its own type if null);
  /// the caller checks the element type of anything else.
  FailureOr<Value> valueOf(Entry &e, StringRef name, Type element = {});

  /// Input `i` as a run-time value (materializing a known tensor as a
  /// constant of `element`, or of its own type).
  FailureOr<Value> value(unsigned i, Type element = {});

  /// Element type of input `i` as a run-time value.
  FailureOr<Type> runtimeElement(unsigned i);

  /// Element type of the first of inputs [begin, end) not known at import
  /// time (null if all are): ops mixing host and run-time inputs compute in
  /// it.
  FailureOr<Type> firstRuntimeElement(unsigned begin, unsigned end);

  /// Shapes of inputs [0, count) and whether all are known at import time,
  /// which the n-ary importers need before folding; every input must be
  /// present.
  LogicalResult inputShapes(unsigned count, SmallVectorImpl<Shape> &shapes,
                            bool &allKnown);

  /// Input `i` as a floating-point run-time value.
  FailureOr<Value> floatValue(unsigned i, StringRef what);

  /// Input 0 (`what`; `label` in the rank error) as a floating-point value of
  /// rank `minRank` or more, as the normalizations and global pooling take X.
  FailureOr<Value> floatInputOfRank(StringRef what, StringRef label,
                                    size_t minRank);

  /// Input `i` converted to `element` and broadcast to `shape`. A splat
  /// known at import time becomes a splat constant of that shape directly.
  FailureOr<Value> operandAs(unsigned i, Type element, ArrayRef<int64_t> shape);

  /// Inputs 0 and 1 as operands of a binary op computing in `element` over
  /// `shape`, as the element-wise binary importers build them.
  FailureOr<std::pair<Value, Value>> binaryOperands(Type element,
                                                    ArrayRef<int64_t> shape);

  /// Shape of input `i`, whether known at import time or not.
  FailureOr<Shape> inputShape(unsigned i);

  /// Element type (ONNX data type) of input `i`.
  FailureOr<int32_t> inputDType(unsigned i);

  LogicalResult defineOutput(unsigned i, Entry e);
  LogicalResult setValue(unsigned i, Value v);
  LogicalResult setHost(unsigned i, HostTensor tensor);
  /// Output 0 of a data movement computed on the host when input 0 is known
  /// there: the element at per-dimension indices of `shape` reads input 0 at
  /// the sum over d of share(inputStrides, d, index). None when input 0 is
  /// computed at run time.
  std::optional<LogicalResult> foldStridedOnHost(
      ArrayRef<int64_t> shape,
      function_ref<int64_t(ArrayRef<int64_t>, int64_t, int64_t)> share);

  //===------------------------------------------------------------------===//
  // Attributes
  //===------------------------------------------------------------------===//

  const onnx::AttributeProto *attr(StringRef name) const {
    return attributes.lookup(name);
  }
  FailureOr<int64_t> intAttr(StringRef name, int64_t defaultValue);
  FailureOr<double> floatAttr(StringRef name, double defaultValue);
  /// A normalization's epsilon, which amp's norms require to be finite
  /// and non-negative.
  FailureOr<double> epsilonAttr();
  FailureOr<std::optional<SmallVector<int64_t>>> intsAttr(StringRef name);
  FailureOr<std::string> stringAttr(StringRef name, StringRef defaultValue);

  /// Normalizes `axis` into [0, rank) (or [0, rank] with `inclusive`).
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                   StringRef what = "axis",
                                   bool inclusive = false);
  FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes,
                                                int64_t rank);

  /// Reads the window attributes Conv and the pools share into `autoPad`,
  /// `kernel` and `window` (strides, dilations and pads, with ONNX's
  /// defaults); every attribute is read, so each bad one is reported.
  LogicalResult windowAttrs(std::string &autoPad,
                            std::optional<SmallVector<int64_t>> &kernel,
                            Window &window);
  /// Gather's and GatherElements' data and indices shapes and their axis
  /// (normalized), after checking arity, index dtype and data rank.
  LogicalResult gatherOperands(Shape &data, Shape &indices, int64_t &axis);
  /// X and W of Conv and ConvTranspose (4-d, W of X's element type).
  LogicalResult convOperands(StringRef kind, Value &x, Value &w);
  /// Sets the window's kernel from W [.., .., kH, kW], checking
  /// kernel_shape against it.
  LogicalResult
  kernelFromWeight(const std::optional<SmallVector<int64_t>> &kernel,
                   ArrayRef<int64_t> ws, Window &window);

  //===------------------------------------------------------------------===//
  // Ops
  //===------------------------------------------------------------------===//

  LogicalResult importArith(Arith kind);
  LogicalResult importVariadic(Arith kind);
  LogicalResult importCompare(Compare kind);
  LogicalResult importUnary(const UnaryOpInfo &op);
  LogicalResult importLogical(StringRef kind);
  LogicalResult importWhere();
  LogicalResult importClip();
  LogicalResult importHardSigmoid(bool swish);
  LogicalResult importMod();
  LogicalResult importMish();
  LogicalResult importIsNaNOrInf(bool nan);
  LogicalResult importCast(bool like);
  LogicalResult importSoftmax(bool log);
  LogicalResult importReduce(StringRef kind, bool axesInput);
  LogicalResult importMatMul();
  LogicalResult importGemm();
  LogicalResult importEinsum();
  LogicalResult importCumSum();
  LogicalResult refuseRecurrent();
  LogicalResult importRandomUniform(bool like);
  LogicalResult importBernoulli();
  LogicalResult importFloor();
  /// The uniform samples input `i` holds, or null (no diagnostic).
  const UniformSamples *uniformOf(unsigned i) const;
  /// Arithmetic or a comparison with uniform samples (one operand is).
  LogicalResult importUniformArith(Arith kind);
  LogicalResult importUniformCompare(Compare kind);
  /// `shape` samples of Bernoulli(p) drawn with a new seed argument of
  /// this node: an i1 mask, or 0/1 of `element`.
  Value bernoulli(double p, ArrayRef<int64_t> shape, Type element);
  LogicalResult importConv();
  LogicalResult importConvTranspose();
  LogicalResult importPool(bool max);
  LogicalResult importGlobalAveragePool();
  LogicalResult importBatchNorm(int64_t version);
  LogicalResult importInstanceNorm();
  LogicalResult importLayerNorm();
  LogicalResult importDropout();
  LogicalResult importConstant();
  LogicalResult importIdentity();
  LogicalResult importShape();
  LogicalResult importSize();
  LogicalResult importConstantOfShape();
  LogicalResult importRange();
  LogicalResult importReshape();
  LogicalResult importFlatten();
  LogicalResult importSqueeze(bool unsqueeze);
  LogicalResult importTranspose();
  LogicalResult importConcat();
  LogicalResult importSlice();
  LogicalResult importGather();
  LogicalResult importGatherElements();
  FailureOr<IntegerAttr> paddingIndexOf(int64_t axis, int64_t rows);
  LogicalResult importTrilu();
  LogicalResult importSplit();
  LogicalResult importExpand();
  LogicalResult importPad();
  LogicalResult importResize();
  LogicalResult importSplit18();
  LogicalResult importPad18();
  LogicalResult importGroupNorm(int64_t version);
  LogicalResult importGelu();
  /// Runs `handler` on a copy of the current node whose inputs are
  /// `inputs`, where the names of `known` (new names) hold those tensors
  /// known at import time: how an op's later form (an attribute become an
  /// input, inputs given per axis) is imported by the handler of its
  /// earlier one.
  LogicalResult
  importRewritten(ArrayRef<std::string> inputs,
                  ArrayRef<std::pair<std::string, HostTensor>> known,
                  function_ref<LogicalResult()> handler);

  LogicalResult reshapeOutput(unsigned input, ArrayRef<int64_t> shape);
  Value materializedBinary(Arith kind, Value lhs, Value rhs);
  /// `x` transposed by `permutation` (itself when that is the identity).
  Value transposed(Value x, ArrayRef<int64_t> permutation);

  //===------------------------------------------------------------------===//
  // What handlers build with
  //===------------------------------------------------------------------===//

  MLIRContext *context;
  const ONNXImportOptions &options;
  OpBuilder builder;
  /// The model file, where diagnostics not about a node point.
  Location fileLoc;
  /// The location of the node being imported.
  Location loc;
  /// The model's opset of the default domain.
  int64_t opset = 0;
  /// The node being imported.
  const onnx::NodeProto *node = nullptr;

  /// The function body under construction; handlers may add arguments
  /// (Dropout seeds).
  std::unique_ptr<Block> body = std::make_unique<Block>();
  std::vector<ArgInfo> args;
  /// Initializer names that are batch-norm running statistics.
  llvm::StringSet<> bufferNames;
  /// Updated running statistics to return, by initializer name.
  std::vector<std::pair<std::string, Value>> bufferUpdates;
  /// The names of ONNXImportOptions::trainable, when it is set.
  llvm::StringSet<> trainableNames;
  /// Initializers of ONNXImportOptions::paddingIndices that a Gather read
  /// with its padding index (each must be: the index is not dropped).
  llvm::StringSet<> paddedTables;
  int64_t seedCount = 0;

private:
  //===------------------------------------------------------------------===//
  // Graph
  //===------------------------------------------------------------------===//

  LogicalResult checkModel();
  LogicalResult importInputs();
  LogicalResult checkDeclaredInitializer(const onnx::ValueInfoProto &input,
                                         const onnx::TensorProto &init);
  LogicalResult checkArgumentNames();
  LogicalResult importNode();
  LogicalResult importOutputs(SmallVectorImpl<Value> &results,
                              SmallVectorImpl<DictionaryAttr> &resultAttrs);
  Role argumentRole(const ArgInfo &info) const;
  LogicalResult checkPaddedTables();
  FailureOr<std::vector<ONNXInitialValue>>
  readInitialValues(ArrayRef<size_t> order);
  FailureOr<ONNXImportResult> finish(ArrayRef<Value> results,
                                     ArrayRef<DictionaryAttr> resultAttrs);

  //===------------------------------------------------------------------===//
  // State
  //===------------------------------------------------------------------===//

  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  std::string modelPath;
  TensorSource source;

  llvm::StringMap<Entry> entries;
  llvm::StringMap<int> useCounts;
  /// Elements of every tensor held on the host so far (countHostElements).
  int64_t hostElements = 0;

  int64_t nodeIndex = 0;
  llvm::StringMap<const onnx::AttributeProto *> attributes;
};

} // namespace onnx_import
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_TARGET_ONNX_IMPORTERIMPL_H
