//===- ONNXImporter.cpp - ONNX models to the amp dialect ------------------===//
//
// Walks an ONNX graph in its (topological) node order and builds one
// `func.func` in the amp dialect. Every ONNX value maps to an Entry: a
// run-time SSA value, a tensor known at import time (HostTensor), or an
// initializer that becomes either a parameter argument (floating point) or a
// host tensor (integers, and floats read as attributes). Ops whose inputs
// are all known at import time are folded on the host, which removes the
// shape arithmetic (Shape, Gather, Unsqueeze, Concat, Slice, ...) that
// exporters emit; everything else becomes amp ops with static types computed
// here, with ONNX broadcasting made explicit (amp.broadcast).
//
// Errors name the node (its name, or its index when unnamed) and op type.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/ONNX/ONNXImporter.h"

#include "ONNXTensor.h"

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"
#include <google/protobuf/io/coded_stream.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <numeric>
#include <unistd.h>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

namespace {

/// The opsets of the default domain the importer supports.
constexpr int64_t kMinOpset = 13;
constexpr int64_t kMaxOpset = 17;

/// The shortest decimal that rounds to the same f32 as `value`. ONNX stores
/// float attributes as f32 (PyTorch's eps=1e-5 arrives as
/// 9.99999974737875e-06); the amp ops hold f64, and the decimal is what the
/// model author wrote.
double shortestF32Decimal(double value) {
  if (!std::isfinite(value) || std::fabs(value) > 3.0e38 ||
      (value != 0 && std::fabs(value) < 1.0e-37))
    return value;
  float target = static_cast<float>(value);
  char text[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    double parsed = std::strtod(text, nullptr);
    if (static_cast<float>(parsed) == target)
      return parsed;
  }
  return value;
}

/// Maps a linear index of a tensor of shape `out` to the linear index of an
/// input of shape `in` broadcast to it (NumPy rules).
int64_t broadcastSourceIndex(int64_t linear, ArrayRef<int64_t> out,
                             ArrayRef<int64_t> outStrides, ArrayRef<int64_t> in,
                             ArrayRef<int64_t> inStrides) {
  int64_t source = 0;
  size_t offset = out.size() - in.size();
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t index = linear / outStrides[d];
    linear %= outStrides[d];
    if (d >= offset && in[d - offset] != 1)
      source += index * inStrides[d - offset];
  }
  return source;
}

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
enum class Unary {
  Relu,
  Erf,
  Tanh,
  Sigmoid,
  Sqrt,
  Neg,
  Exp,
  Log,
  Reciprocal,
  Abs
};

/// Folds one comparison; a template so that doubles and integers share it.
template <typename T> bool compareValues(Compare kind, T l, T r) {
  switch (kind) {
  case Compare::EQ:
    return l == r;
  case Compare::GT:
    return l > r;
  case Compare::LT:
    return l < r;
  case Compare::GE:
    return l >= r;
  case Compare::LE:
    return l <= r;
  }
  return false;
}

/// Copies element `src` of `from` into element `dst` of `to` (same dtype):
/// every host fold that only moves data goes through it.
void copyElement(HostTensor &to, int64_t dst, const HostTensor &from,
                 int64_t src) {
  if (to.isFloat())
    to.floats[dst] = from.floats[src];
  else
    to.ints[dst] = from.ints[src];
}

/// A tensor of `shape` whose element k is element `source(k)` of `t`; the
/// folds of Transpose, Slice and Expand differ only in that map.
HostTensor gatherElements(const HostTensor &t, ArrayRef<int64_t> shape,
                          function_ref<int64_t(int64_t)> source) {
  HostTensor out = HostTensor::zeros(t.dtype, shape);
  for (int64_t k = 0; k < out.size(); ++k)
    copyElement(out, k, t, source(k));
  return out;
}

/// The source offset of row-major element k of an output with `outStrides`:
/// the sum of `share(d, index)` over its per-dimension indices.
int64_t stridedSource(int64_t k, ArrayRef<int64_t> outStrides,
                      function_ref<int64_t(int64_t, int64_t)> share) {
  int64_t rest = k, src = 0;
  for (int64_t d = 0, rank = outStrides.size(); d < rank; ++d) {
    int64_t index = rest / outStrides[d];
    rest %= outStrides[d];
    src += share(d, index);
  }
  return src;
}

/// A 2-d window (Conv, MaxPool, AveragePool): kernel, strides, dilations
/// and pads [top, left, bottom, right] (ONNX's order, amp's too).
struct Window {
  SmallVector<int64_t> kernel, stride, dilation, pads;
};

class Importer {
public:
  Importer(MLIRContext *context, const onnx::ModelProto &model,
           StringRef modelPath, const ONNXImportOptions &options)
      : context(context), model(model), graph(model.graph()),
        modelPath(modelPath.str()), options(options), builder(context),
        fileLoc(FileLineColLoc::get(
            context, modelPath.empty() ? "<onnx buffer>" : modelPath, 0, 0)),
        loc(fileLoc) {
    if (!modelPath.empty()) {
      llvm::SmallString<256> directory(modelPath);
      llvm::sys::path::remove_filename(directory);
      if (directory.empty())
        directory = ".";
      source.modelDirectory = std::string(directory);
    }
  }

  FailureOr<ONNXImportResult> run();

private:
  //===------------------------------------------------------------------===//
  // Diagnostics
  //===------------------------------------------------------------------===//

  InFlightDiagnostic modelError() { return emitError(fileLoc); }
  /// The option that gives input shapes (amp-translate's if the caller's
  /// is not known).
  StringRef inputShapeOption() const {
    if (options.inputShapeOption.empty())
      return "--input-shape";
    return options.inputShapeOption;
  }
  /// How to give graph input `name` a static shape: the caller's option, or
  /// amp-translate's when the caller has none (amp-compile reading .onnx).
  std::string inputShapeAdvice(StringRef name) const {
    std::string flag = (inputShapeOption() + " " + name + "=D0xD1x...").str();
    if (!options.inputShapeOption.empty())
      return "with " + flag;
    std::string model = modelPath.empty() ? "MODEL.onnx" : modelPath;
    return "when importing the model: amp-translate --import-onnx " + model +
           " " + flag + " -o MODEL.mlir, then use MODEL.mlir";
  }
  std::string nodeLabel() const {
    std::string label = node->name().empty() ? "#" + std::to_string(nodeIndex)
                                             : "'" + node->name() + "'";
    return label + " (" + node->op_type() + ")";
  }
  InFlightDiagnostic error() {
    InFlightDiagnostic diag = emitError(loc);
    diag << "node " << nodeLabel() << ": ";
    return diag;
  }
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
  static std::string typeName(Type element) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << element;
    return text;
  }

  Value constant(const HostTensor &tensor, RankedTensorType type) {
    return ConstantOp::create(builder, loc, type, toDenseAttr(tensor, type));
  }
  Value splat(double value, RankedTensorType type) {
    HostTensor tensor = HostTensor::zeros(kDouble, {});
    tensor.floats[0] = value;
    return constant(tensor, type);
  }
  Value broadcastTo(Value value, ArrayRef<int64_t> shape) {
    if (shapeOf(value) == shape)
      return value;
    return BroadcastOp::create(builder, loc,
                               tensorType(shape, elementOf(value)), value);
  }
  Value reshapeTo(Value value, ArrayRef<int64_t> shape) {
    if (shapeOf(value) == shape)
      return value;
    return ReshapeOp::create(builder, loc, tensorType(shape, elementOf(value)),
                             value);
  }

  /// NumPy/ONNX multidirectional broadcasting of `shapes`.
  FailureOr<Shape> broadcastShapes(ArrayRef<Shape> shapes) {
    size_t rank = 0;
    for (const Shape &shape : shapes)
      rank = std::max(rank, shape.size());
    Shape result(rank, 1);
    for (const Shape &shape : shapes) {
      size_t offset = rank - shape.size();
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t &out = result[offset + d];
        if (shape[d] == out || shape[d] == 1)
          continue;
        if (out == 1) {
          out = shape[d];
          continue;
        }
        InFlightDiagnostic diag = error();
        diag << "shapes";
        for (const Shape &s : shapes)
          diag << " " << formatShape(s);
        diag << " cannot be broadcast together";
        return failure();
      }
    }
    return result;
  }

  LogicalResult checkFoldSize(ArrayRef<int64_t> shape) {
    std::optional<int64_t> count = numElements(shape);
    if (!count) {
      error() << "the shape " << formatShape(shape)
              << " is invalid or too large";
      return failure();
    }
    if (*count > options.maxFoldedElements) {
      error() << "folding this node at import time would create a constant "
                 "of "
              << *count << " elements, more than the limit of "
              << options.maxFoldedElements;
      return failure();
    }
    return success();
  }

  /// Counts `elements` more held on the host. Each host tensor is bounded
  /// by --max-folded-elements; all of them together by 16 times that, so
  /// that a small model cannot fold its way to gigabytes (a chain of Adds on
  /// a large ConstantOfShape) or read the same external data again and
  /// again.
  LogicalResult countHostElements(int64_t elements) {
    int64_t budget =
        options.maxFoldedElements > std::numeric_limits<int64_t>::max() / 16
            ? std::numeric_limits<int64_t>::max()
            : options.maxFoldedElements * 16;
    hostElements += elements;
    if (hostElements <= budget)
      return success();
    error() << "the tensors known at import time (folded or read from "
               "integer initializers) reach "
            << hostElements << " elements in all, more than the limit of "
            << budget << " (16 times --max-folded-elements)";
    return failure();
  }

  LogicalResult checkShape(ArrayRef<int64_t> shape) {
    if (static_cast<int64_t>(shape.size()) > kMaxRank || !numElements(shape)) {
      error() << "the result shape " << formatShape(shape)
              << " is invalid or too large";
      return failure();
    }
    return success();
  }

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

  LogicalResult checkArity(unsigned minInputs, unsigned maxInputs) {
    unsigned count = numInputs();
    if (count < minInputs || count > maxInputs) {
      InFlightDiagnostic diag = error();
      diag << "has " << count << " inputs but expects ";
      if (minInputs == maxInputs)
        diag << minInputs;
      else if (maxInputs == ~0u)
        diag << "at least " << minInputs;
      else
        diag << minInputs << " to " << maxInputs;
      return failure();
    }
    for (unsigned i = 0; i < minInputs; ++i)
      if (!hasInput(i)) {
        error() << "required input #" << i << " is missing";
        return failure();
      }
    if (node->output_size() < 1 || node->output(0).empty()) {
      error() << "has no output";
      return failure();
    }
    return success();
  }

  FailureOr<Entry *> entry(unsigned i) {
    auto it = entries.find(node->input(i));
    if (it == entries.end()) {
      error() << inputLabel(i)
              << " is not a graph input, an initializer or the output of an "
                 "earlier node (is the graph topologically sorted?)";
      return failure();
    }
    return &it->second;
  }

  /// Decodes an initializer's contents (cached).
  FailureOr<std::shared_ptr<HostTensor>> decodeInitializer(Entry &e) {
    if (e.initializerData)
      return e.initializerData;
    auto tensor = std::make_shared<HostTensor>();
    std::string message;
    if (!decodeTensor(*e.initializer, source, *tensor, message,
                      options.maxFoldedElements)) {
      error() << "initializer '" << e.initializer->name() << "' " << message;
      return failure();
    }
    if (failed(countHostElements(tensor->size())))
      return failure();
    e.initializerData = tensor;
    return tensor;
  }

  /// The contents of input `i` when known at import time: a folded value or
  /// a non-floating-point initializer (floating-point initializers are
  /// parameters). Null when computed at run time; failure on a bad
  /// initializer.
  FailureOr<const HostTensor *> hostOf(unsigned i) {
    if (!hasInput(i))
      return static_cast<const HostTensor *>(nullptr);
    FailureOr<Entry *> e = entry(i);
    if (failed(e))
      return failure();
    if ((*e)->host)
      return static_cast<const HostTensor *>((*e)->host.get());
    if ((*e)->initializer && !isFloatDType((*e)->initializer->data_type())) {
      FailureOr<std::shared_ptr<HostTensor>> t = decodeInitializer(**e);
      if (failed(t))
        return failure();
      return static_cast<const HostTensor *>(t->get());
    }
    return static_cast<const HostTensor *>(nullptr);
  }

  /// Input `i` as a tensor known at import time (`what` says what it is);
  /// floating-point initializers are read too.
  FailureOr<const HostTensor *> requireHost(unsigned i, StringRef what) {
    FailureOr<const HostTensor *> known = hostOf(i);
    if (failed(known))
      return failure();
    if (*known)
      return *known;
    Entry *e = *entry(i);
    if (e->initializer) {
      FailureOr<std::shared_ptr<HostTensor>> t = decodeInitializer(*e);
      if (failed(t))
        return failure();
      return static_cast<const HostTensor *>(t->get());
    }
    error() << inputLabel(i) << " (" << what
            << ") must be known at import time, but it is computed at run "
               "time from the graph inputs";
    return failure();
  }

  /// Input `i` as a list of integers known at import time.
  FailureOr<SmallVector<int64_t>> requireInts(unsigned i, StringRef what) {
    FailureOr<const HostTensor *> t = requireHost(i, what);
    if (failed(t))
      return failure();
    if ((*t)->isFloat() || (*t)->rank() > 1) {
      error() << inputLabel(i) << " (" << what
              << ") must be a 0-d or 1-d integer tensor, got "
              << dtypeName((*t)->dtype) << " " << formatShape((*t)->shape);
      return failure();
    }
    return SmallVector<int64_t>((*t)->ints.begin(), (*t)->ints.end());
  }

  /// Input `i` as a scalar known at import time.
  FailureOr<double> requireScalar(unsigned i, StringRef what) {
    FailureOr<const HostTensor *> t = requireHost(i, what);
    if (failed(t))
      return failure();
    if ((*t)->size() != 1) {
      error() << inputLabel(i) << " (" << what
              << ") must have one element, got shape "
              << formatShape((*t)->shape);
      return failure();
    }
    return (*t)->getDouble(0);
  }

  /// Creates the parameter argument of a floating-point initializer.
  FailureOr<Value> parameterArgument(Entry &e) {
    const onnx::TensorProto &init = *e.initializer;
    Type element = runtimeElementType(init.data_type(), context);
    if (!element || !isa<FloatType>(element)) {
      error() << "initializer '" << init.name() << "' has element type "
              << dtypeName(init.data_type())
              << "; floating-point parameters must be FLOAT, FLOAT16 or "
                 "BFLOAT16";
      return failure();
    }
    Shape shape;
    std::string message;
    if (!readTensorShape(init, shape, message)) {
      error() << "initializer '" << init.name() << "' " << message;
      return failure();
    }
    Value arg = body->addArgument(tensorType(shape, element), fileLoc);
    args.push_back(
        {ArgKind::Initializer, init.name(), e.initializerIndex, arg});
    e.value = arg;
    return arg;
  }

  /// The run-time value of entry `e`. A tensor known at import time is
  /// materialized as an amp.constant of `element` (its own type if null);
  /// the caller checks the element type of anything else.
  FailureOr<Value> valueOf(Entry &e, StringRef name, Type element = {}) {
    if (e.value && (!element || elementOf(e.value) == element || !e.host))
      return e.value;
    if (e.initializer && isFloatDType(e.initializer->data_type()))
      return e.value ? e.value : parameterArgument(e);
    const HostTensor *known = e.host.get();
    if (!known && e.initializer) {
      FailureOr<std::shared_ptr<HostTensor>> t = decodeInitializer(e);
      if (failed(t))
        return failure();
      known = t->get();
    }
    assert(known && "entry without value or contents");
    const HostTensor &tensor = *known;
    Type natural = runtimeElementType(tensor.dtype, context);
    Type type = element ? element : natural;
    if (!type) {
      error() << "'" << name << "' is a constant of type "
              << dtypeName(tensor.dtype)
              << ", which amp cannot compute with at run time";
      return failure();
    }
    if (tensor.isFloat() != isa<FloatType>(type) && !element) {
      error() << "'" << name << "' is a " << dtypeName(tensor.dtype)
              << " constant used as " << typeName(type);
      return failure();
    }
    Value value = constant(tensor, tensorType(tensor.shape, type));
    if (!element || type == natural)
      e.value = value;
    return value;
  }

  /// Input `i` as a run-time value (materializing a known tensor as a
  /// constant of `element`, or of its own type).
  FailureOr<Value> value(unsigned i, Type element = {}) {
    FailureOr<Entry *> e = entry(i);
    if (failed(e))
      return failure();
    return valueOf(**e, node->input(i), element);
  }

  /// Element type of input `i` as a run-time value.
  FailureOr<Type> runtimeElement(unsigned i) {
    FailureOr<Value> v = value(i);
    if (failed(v))
      return failure();
    return elementOf(*v);
  }

  /// Element type of the first of inputs [begin, end) not known at import
  /// time (null if all are): ops mixing host and run-time inputs compute in
  /// it.
  FailureOr<Type> firstRuntimeElement(unsigned begin, unsigned end) {
    for (unsigned i = begin; i < end; ++i)
      if (!*hostOf(i))
        return runtimeElement(i);
    return Type();
  }

  /// Shapes of inputs [0, count) and whether all are known at import time,
  /// which the broadcasting n-ary importers need before folding.
  LogicalResult inputShapes(unsigned count, SmallVectorImpl<Shape> &shapes,
                            bool &allKnown) {
    allKnown = true;
    for (unsigned i = 0; i < count; ++i) {
      FailureOr<Shape> s = inputShape(i);
      FailureOr<const HostTensor *> h = hostOf(i);
      if (failed(s) || failed(h))
        return failure();
      shapes.push_back(*s);
      allKnown &= *h != nullptr;
    }
    return success();
  }

  /// Input `i` as a floating-point run-time value.
  FailureOr<Value> floatValue(unsigned i, StringRef what) {
    FailureOr<Value> v = value(i);
    if (failed(v))
      return failure();
    if (!isFloatValue(*v)) {
      error() << inputLabel(i) << " (" << what << ") has element type "
              << typeName(elementOf(*v))
              << ", but this op is only supported on f32, f16 and bf16";
      return failure();
    }
    return v;
  }

  /// Input 0 (`what`; `label` in the rank error) as a floating-point value of
  /// rank `minRank` or more, as the normalizations and global pooling take X.
  FailureOr<Value> floatInputOfRank(StringRef what, StringRef label,
                                    size_t minRank) {
    FailureOr<Value> x = floatValue(0, what);
    if (failed(x))
      return failure();
    ArrayRef<int64_t> xs = shapeOf(*x);
    if (xs.size() < minRank) {
      error() << label << " must have rank " << minRank << " or more, got "
              << formatShape(xs);
      return failure();
    }
    return x;
  }

  /// Input `i` converted to `element` and broadcast to `shape`. A splat
  /// known at import time becomes a splat constant of that shape directly.
  FailureOr<Value> operandAs(unsigned i, Type element,
                             ArrayRef<int64_t> shape) {
    FailureOr<const HostTensor *> known = hostOf(i);
    if (failed(known))
      return failure();
    if (*known && (*known)->isSplat() && (*known)->size() > 0) {
      HostTensor one = **known;
      one.shape.clear();
      if (one.isFloat())
        one.floats.resize(1);
      else
        one.ints.resize(1);
      return constant(one, tensorType(shape, element));
    }
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (elementOf(*v) != element) {
      error() << inputLabel(i) << " has element type "
              << typeName(elementOf(*v)) << " but the op computes in "
              << typeName(element);
      return failure();
    }
    return broadcastTo(*v, shape);
  }

  /// Inputs 0 and 1 as operands of a binary op computing in `element` over
  /// `shape`, as the element-wise binary importers build them.
  FailureOr<std::pair<Value, Value>> binaryOperands(Type element,
                                                    ArrayRef<int64_t> shape) {
    FailureOr<Value> lhs = operandAs(0, element, shape);
    if (failed(lhs))
      return failure();
    FailureOr<Value> rhs = operandAs(1, element, shape);
    if (failed(rhs))
      return failure();
    return std::make_pair(*lhs, *rhs);
  }

  /// Shape of input `i`, whether known at import time or not.
  FailureOr<Shape> inputShape(unsigned i) {
    FailureOr<Entry *> e = entry(i);
    if (failed(e))
      return failure();
    if ((*e)->host)
      return (*e)->host->shape;
    if ((*e)->value)
      return Shape(shapeOf((*e)->value));
    Shape shape;
    std::string message;
    if (!readTensorShape(*(*e)->initializer, shape, message)) {
      error() << "initializer '" << (*e)->initializer->name() << "' "
              << message;
      return failure();
    }
    return shape;
  }

  /// Element type (ONNX data type) of input `i`.
  FailureOr<int32_t> inputDType(unsigned i) {
    FailureOr<Entry *> e = entry(i);
    if (failed(e))
      return failure();
    if ((*e)->host)
      return (*e)->host->dtype;
    if ((*e)->value)
      return dtypeOf(elementOf((*e)->value));
    return (*e)->initializer->data_type();
  }

  LogicalResult defineOutput(unsigned i, Entry e) {
    if (!hasOutput(i))
      return success();
    auto [it, inserted] = entries.try_emplace(node->output(i), std::move(e));
    if (!inserted) {
      error() << "output '" << node->output(i)
              << "' is already defined by an earlier node, a graph input or "
                 "an initializer";
      return failure();
    }
    return success();
  }
  LogicalResult setValue(unsigned i, Value v) {
    Entry e;
    e.value = v;
    return defineOutput(i, std::move(e));
  }
  LogicalResult setHost(unsigned i, HostTensor tensor) {
    if (failed(checkFoldSize(tensor.shape)) ||
        failed(countHostElements(tensor.size())))
      return failure();
    Entry e;
    e.host = std::make_shared<HostTensor>(std::move(tensor));
    return defineOutput(i, std::move(e));
  }

  //===------------------------------------------------------------------===//
  // Attributes
  //===------------------------------------------------------------------===//

  const onnx::AttributeProto *attr(StringRef name) const {
    return attributes.lookup(name);
  }
  FailureOr<int64_t> intAttr(StringRef name, int64_t defaultValue) {
    const onnx::AttributeProto *a = attr(name);
    if (!a)
      return defaultValue;
    if (a->type() != onnx::AttributeProto::INT) {
      error() << "attribute '" << name << "' must be an integer";
      return failure();
    }
    return a->i();
  }
  FailureOr<double> floatAttr(StringRef name, double defaultValue) {
    const onnx::AttributeProto *a = attr(name);
    if (!a)
      return defaultValue;
    if (a->type() != onnx::AttributeProto::FLOAT) {
      error() << "attribute '" << name << "' must be a float";
      return failure();
    }
    return static_cast<double>(a->f());
  }
  /// A normalization's epsilon, which amp's norms require to be finite
  /// and non-negative.
  FailureOr<double> epsilonAttr() {
    FailureOr<double> epsilon = floatAttr("epsilon", 1e-5);
    if (succeeded(epsilon) && !(*epsilon >= 0 && std::isfinite(*epsilon))) {
      error() << "epsilon " << *epsilon << " must be non-negative and finite";
      return failure();
    }
    return epsilon;
  }
  FailureOr<std::optional<SmallVector<int64_t>>> intsAttr(StringRef name) {
    const onnx::AttributeProto *a = attr(name);
    if (!a)
      return std::optional<SmallVector<int64_t>>();
    if (a->type() != onnx::AttributeProto::INTS) {
      error() << "attribute '" << name << "' must be a list of integers";
      return failure();
    }
    if (a->ints_size() > kMaxRank * 2) {
      error() << "attribute '" << name << "' has too many entries";
      return failure();
    }
    return std::optional<SmallVector<int64_t>>(
        SmallVector<int64_t>(a->ints().begin(), a->ints().end()));
  }
  FailureOr<std::string> stringAttr(StringRef name, StringRef defaultValue) {
    const onnx::AttributeProto *a = attr(name);
    if (!a)
      return defaultValue.str();
    if (a->type() != onnx::AttributeProto::STRING) {
      error() << "attribute '" << name << "' must be a string";
      return failure();
    }
    return a->s();
  }

  /// Normalizes `axis` into [0, rank) (or [0, rank] with `inclusive`).
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                   StringRef what = "axis",
                                   bool inclusive = false) {
    int64_t bound = inclusive ? rank + 1 : rank;
    if (axis < -bound || axis >= bound) {
      error() << what << " " << axis << " is out of range for rank " << rank;
      return failure();
    }
    return axis < 0 ? axis + bound : axis;
  }
  FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes,
                                                int64_t rank) {
    SmallVector<int64_t> result;
    for (int64_t axis : axes) {
      FailureOr<int64_t> n = normalizeAxis(axis, rank);
      if (failed(n))
        return failure();
      if (llvm::is_contained(result, *n)) {
        error() << "axis " << axis << " is repeated";
        return failure();
      }
      result.push_back(*n);
    }
    return result;
  }

  /// Reads the window attributes Conv and the pools share into `autoPad`,
  /// `kernel` and `window` (strides, dilations and pads, with ONNX's
  /// defaults); every attribute is read, so each bad one is reported.
  LogicalResult windowAttrs(std::string &autoPad,
                            std::optional<SmallVector<int64_t>> &kernel,
                            Window &window) {
    FailureOr<std::string> autoPadAttr = stringAttr("auto_pad", "NOTSET");
    FailureOr<std::optional<SmallVector<int64_t>>> kernelAttr =
        intsAttr("kernel_shape");
    FailureOr<std::optional<SmallVector<int64_t>>> strides =
        intsAttr("strides");
    FailureOr<std::optional<SmallVector<int64_t>>> dilations =
        intsAttr("dilations");
    FailureOr<std::optional<SmallVector<int64_t>>> pads = intsAttr("pads");
    if (failed(autoPadAttr) || failed(kernelAttr) || failed(strides) ||
        failed(dilations) || failed(pads))
      return failure();
    autoPad = *autoPadAttr;
    kernel = *kernelAttr;
    window.stride = strides->value_or(SmallVector<int64_t>{1, 1});
    window.dilation = dilations->value_or(SmallVector<int64_t>{1, 1});
    window.pads = pads->value_or(SmallVector<int64_t>{0, 0, 0, 0});
    return success();
  }

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
  FailureOr<std::vector<ONNXInitialValue>>
  readInitialValues(ArrayRef<size_t> order);
  FailureOr<ONNXImportResult> finish(ArrayRef<Value> results,
                                     ArrayRef<DictionaryAttr> resultAttrs);

  //===------------------------------------------------------------------===//
  // Ops
  //===------------------------------------------------------------------===//

  LogicalResult importArith(Arith kind);
  LogicalResult importVariadic(Arith kind);
  LogicalResult importCompare(Compare kind);
  LogicalResult importUnary(Unary kind);
  LogicalResult importLogical(StringRef kind);
  LogicalResult importWhere();
  LogicalResult importClip();
  LogicalResult importCast(bool like);
  LogicalResult importSoftmax(bool log);
  LogicalResult importReduce(StringRef kind);
  LogicalResult importMatMul();
  LogicalResult importGemm();
  LogicalResult importConv();
  LogicalResult importPool(bool max);
  LogicalResult importGlobalAveragePool();
  LogicalResult importBatchNorm();
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
  LogicalResult importSplit();
  LogicalResult importExpand();
  LogicalResult importPad();

  LogicalResult reshapeOutput(unsigned input, ArrayRef<int64_t> shape);
  Value materializedBinary(Arith kind, Value lhs, Value rhs);

  //===------------------------------------------------------------------===//
  // State
  //===------------------------------------------------------------------===//

  MLIRContext *context;
  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  std::string modelPath;
  const ONNXImportOptions &options;
  TensorSource source;
  OpBuilder builder;
  Location fileLoc;
  Location loc;
  int64_t opset = 0;

  std::unique_ptr<Block> body = std::make_unique<Block>();
  llvm::StringMap<Entry> entries;
  llvm::StringMap<int> useCounts;
  std::vector<ArgInfo> args;
  /// Initializer names that are batch-norm running statistics.
  llvm::StringSet<> bufferNames;
  /// Updated running statistics to return, by initializer name.
  std::vector<std::pair<std::string, Value>> bufferUpdates;
  int64_t seedCount = 0;
  /// Elements of every tensor held on the host so far (countHostElements).
  int64_t hostElements = 0;

  const onnx::NodeProto *node = nullptr;
  int64_t nodeIndex = 0;
  llvm::StringMap<const onnx::AttributeProto *> attributes;
};

//===----------------------------------------------------------------------===//
// Model checks, inputs
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkModel() {
  if (!model.has_graph()) {
    modelError() << "the ONNX model has no graph";
    return failure();
  }
  bool found = false;
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") {
      opset = id.version();
      found = true;
    }
  }
  if (!found) {
    modelError() << "the ONNX model imports no opset of the default domain "
                    "(ai.onnx); amp-translate supports opsets "
                 << kMinOpset << " to " << kMaxOpset;
    return failure();
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    modelError() << "the ONNX model uses opset " << opset
                 << " of the default domain (ai.onnx); amp-translate "
                    "supports opsets "
                 << kMinOpset << " to " << kMaxOpset
                 << " (re-export with opset_version between " << kMinOpset
                 << " and " << kMaxOpset << ")";
    return failure();
  }
  if (graph.sparse_initializer_size() > 0) {
    modelError() << "the graph has sparse initializers ('"
                 << graph.sparse_initializer(0).values().name()
                 << "'), which the importer does not support";
    return failure();
  }
  if (graph.output_size() == 0) {
    modelError() << "the graph has no outputs";
    return failure();
  }
  return success();
}

LogicalResult Importer::importInputs() {
  for (const auto &entry : options.inputShapes) {
    StringRef name = entry.getKey();
    bool known = llvm::any_of(
        graph.input(), [&](const auto &input) { return input.name() == name; });
    if (!known) {
      modelError() << inputShapeOption() << " names '" << name
                   << "', which is not a graph input";
      return failure();
    }
  }
  // Initializers first: an input that also has an initializer (IR < 4, or
  // keep_initializers_as_inputs) is a parameter with a default value.
  for (auto [index, init] : llvm::enumerate(graph.initializer())) {
    if (init.name().empty()) {
      modelError() << "initializer #" << index << " has no name";
      return failure();
    }
    Entry e;
    e.initializer = &init;
    e.initializerIndex = static_cast<int64_t>(index);
    if (!entries.try_emplace(init.name(), std::move(e)).second) {
      modelError() << "initializer '" << init.name() << "' is defined twice";
      return failure();
    }
  }
  int64_t inputIndex = 0;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    auto existing = entries.find(input.name());
    if (existing != entries.end() && existing->second.initializer) {
      if (failed(
              checkDeclaredInitializer(input, *existing->second.initializer)))
        return failure();
      continue;
    }
    const std::string &name = input.name();
    if (name.empty()) {
      modelError() << "graph input #" << inputIndex << " has no name";
      return failure();
    }
    if (!input.type().has_tensor_type()) {
      modelError() << "graph input '" << name
                   << "' is not a tensor (sequences, maps and optionals are "
                      "not supported)";
      return failure();
    }
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    Type element = runtimeElementType(tensor.elem_type(), context);
    if (!element) {
      modelError() << "graph input '" << name << "' has element type "
                   << dtypeName(tensor.elem_type())
                   << "; amp supports FLOAT, FLOAT16, BFLOAT16, INT64, "
                      "INT32 and BOOL inputs";
      return failure();
    }
    auto override = options.inputShapes.find(name);
    Shape shape;
    if (!tensor.has_shape() && override == options.inputShapes.end()) {
      modelError() << "graph input '" << name << "' has no shape; give it one "
                   << inputShapeAdvice(name);
      return failure();
    }
    if (tensor.has_shape()) {
      if (tensor.shape().dim_size() > kMaxRank) {
        modelError() << "graph input '" << name << "' has rank "
                     << tensor.shape().dim_size() << ", more than " << kMaxRank;
        return failure();
      }
      for (auto [d, dim] : llvm::enumerate(tensor.shape().dim())) {
        if (dim.has_dim_value() && dim.dim_value() >= 0) {
          shape.push_back(dim.dim_value());
          continue;
        }
        if (dim.has_dim_value()) {
          modelError() << "graph input '" << name << "' has dimension " << d
                       << " of size " << dim.dim_value()
                       << ", which is negative";
          return failure();
        }
        if (override == options.inputShapes.end()) {
          InFlightDiagnostic diag = modelError();
          diag << "graph input '" << name << "' has a dynamic dimension " << d;
          if (dim.has_dim_param())
            diag << " ('" << dim.dim_param() << "')";
          diag << " and amp needs static shapes; give it a size "
               << inputShapeAdvice(name);
          return failure();
        }
        shape.push_back(ShapedType::kDynamic);
      }
    }
    if (override != options.inputShapes.end()) {
      ArrayRef<int64_t> given = override->second;
      if (tensor.has_shape() && given.size() != shape.size()) {
        modelError() << inputShapeOption() << " for '" << name << "' has rank "
                     << given.size() << " but the input has rank "
                     << shape.size();
        return failure();
      }
      for (size_t d = 0; d < given.size(); ++d) {
        if (tensor.has_shape() && shape[d] != ShapedType::kDynamic &&
            shape[d] != given[d]) {
          modelError() << inputShapeOption() << " for '" << name << "' gives "
                       << given[d] << " for dimension " << d
                       << ", which the model fixes to " << shape[d];
          return failure();
        }
      }
      shape.assign(given.begin(), given.end());
    }
    if (!numElements(shape)) {
      modelError() << "graph input '" << name << "' has an invalid shape "
                   << formatShape(shape);
      return failure();
    }
    if (*numElements(shape) == 0) {
      modelError() << "graph input '" << name << "' has shape "
                   << formatShape(shape)
                   << ", with no elements; amp does not support empty "
                      "tensors";
      return failure();
    }
    Value arg = body->addArgument(tensorType(shape, element), fileLoc);
    args.push_back({ArgKind::Input, name, inputIndex++, arg});
    Entry e;
    e.value = arg;
    if (!entries.try_emplace(name, std::move(e)).second) {
      modelError() << "graph input '" << name << "' is defined twice";
      return failure();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// A graph input that also has an initializer (keep_initializers_as_inputs)
/// takes the initializer's type; a declaration that disagrees is an error
/// rather than silently ignored.
LogicalResult
Importer::checkDeclaredInitializer(const onnx::ValueInfoProto &input,
                                   const onnx::TensorProto &init) {
  if (!input.type().has_tensor_type())
    return success();
  const onnx::TypeProto::Tensor &declared = input.type().tensor_type();
  bool mismatch = declared.elem_type() != kUndefined &&
                  declared.elem_type() != init.data_type();
  if (declared.has_shape()) {
    mismatch |= declared.shape().dim_size() != init.dims_size();
    for (int d = 0; !mismatch && d < declared.shape().dim_size(); ++d)
      mismatch = declared.shape().dim(d).has_dim_value() &&
                 declared.shape().dim(d).dim_value() != init.dims(d);
  }
  if (!mismatch)
    return success();
  Shape declaredShape;
  for (const auto &dim : declared.shape().dim())
    declaredShape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  modelError() << "graph input '" << input.name() << "' is declared as "
               << dtypeName(declared.elem_type()) << " "
               << formatShape(declaredShape) << " but its initializer is "
               << dtypeName(init.data_type()) << " "
               << formatShape(SmallVector<int64_t>(init.dims().begin(),
                                                   init.dims().end()));
  return failure();
}

Value Importer::materializedBinary(Arith kind, Value lhs, Value rhs) {
  Type type = lhs.getType();
  switch (kind) {
  case Arith::Add:
    return AddOp::create(builder, loc, type, lhs, rhs);
  case Arith::Sub:
    return SubOp::create(builder, loc, type, lhs, rhs);
  case Arith::Mul:
    return MulOp::create(builder, loc, type, lhs, rhs);
  case Arith::Div:
    return DivOp::create(builder, loc, type, lhs, rhs);
  case Arith::Pow:
    return PowOp::create(builder, loc, type, lhs, rhs);
  case Arith::Max:
    return MaximumOp::create(builder, loc, type, lhs, rhs);
  case Arith::Min:
    return MinimumOp::create(builder, loc, type, lhs, rhs);
  }
  llvm_unreachable("unknown arithmetic");
}

namespace {
/// Folds a binary op elementwise with broadcasting.
template <typename Fn>
HostTensor foldBinary(const HostTensor &a, const HostTensor &b,
                      ArrayRef<int64_t> shape, int32_t dtype, Fn fn) {
  HostTensor out = HostTensor::zeros(dtype, shape);
  Shape outStrides = stridesOf(shape), aStrides = stridesOf(a.shape),
        bStrides = stridesOf(b.shape);
  for (int64_t k = 0; k < out.size(); ++k) {
    int64_t i = broadcastSourceIndex(k, shape, outStrides, a.shape, aStrides);
    int64_t j = broadcastSourceIndex(k, shape, outStrides, b.shape, bStrides);
    fn(out, k, a, i, b, j);
  }
  return out;
}

int64_t intPow(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return base == 1 ? 1 : (base == -1 ? (exponent % 2 ? -1 : 1) : 0);
  int64_t result = 1;
  for (int64_t e = 0; e < exponent && e < 64; ++e)
    result = static_cast<int64_t>(static_cast<uint64_t>(result) *
                                  static_cast<uint64_t>(base));
  return result;
}
} // namespace

LogicalResult Importer::importArith(Arith kind) {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<const HostTensor *> a = hostOf(0), b = hostOf(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Shape> lhsShape = inputShape(0), rhsShape = inputShape(1);
  if (failed(lhsShape) || failed(rhsShape))
    return failure();
  FailureOr<Shape> shape = broadcastShapes({*lhsShape, *rhsShape});
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (*a && *b) {
    const HostTensor &x = **a, &y = **b;
    if (failed(checkFoldSize(*shape)))
      return failure();
    bool isFloat = x.isFloat() || y.isFloat();
    if (kind != Arith::Pow && x.dtype != y.dtype) {
      error() << "operands have different element types (" << dtypeName(x.dtype)
              << " and " << dtypeName(y.dtype) << ")";
      return failure();
    }
    bool divByZero = false;
    HostTensor out = foldBinary(
        x, y, *shape, x.dtype,
        [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
            const HostTensor &q, int64_t j) {
          if (isFloat) {
            double l = p.getDouble(i), r = q.getDouble(j), v = 0;
            switch (kind) {
            case Arith::Add:
              v = l + r;
              break;
            case Arith::Sub:
              v = l - r;
              break;
            case Arith::Mul:
              v = l * r;
              break;
            case Arith::Div:
              v = l / r;
              break;
            case Arith::Pow:
              v = std::pow(l, r);
              break;
            case Arith::Max:
              v = std::isnan(l) || l > r ? l : r;
              break;
            case Arith::Min:
              v = std::isnan(l) || l < r ? l : r;
              break;
            }
            o.setDouble(k, v);
            return;
          }
          uint64_t l = static_cast<uint64_t>(p.getInt(i));
          uint64_t r = static_cast<uint64_t>(q.getInt(j));
          int64_t v = 0;
          switch (kind) {
          case Arith::Add:
            v = static_cast<int64_t>(l + r);
            break;
          case Arith::Sub:
            v = static_cast<int64_t>(l - r);
            break;
          case Arith::Mul:
            v = static_cast<int64_t>(l * r);
            break;
          case Arith::Div:
            if (r == 0 || (static_cast<int64_t>(l) ==
                               std::numeric_limits<int64_t>::min() &&
                           static_cast<int64_t>(r) == -1)) {
              divByZero = true;
              break;
            }
            v = static_cast<int64_t>(l) / static_cast<int64_t>(r);
            break;
          case Arith::Pow:
            v = intPow(static_cast<int64_t>(l), static_cast<int64_t>(r));
            break;
          case Arith::Max:
            v = std::max(static_cast<int64_t>(l), static_cast<int64_t>(r));
            break;
          case Arith::Min:
            v = std::min(static_cast<int64_t>(l), static_cast<int64_t>(r));
            break;
          }
          o.setInt(k, v);
        });
    if (divByZero) {
      error() << "integer division by zero (or overflow) while folding";
      return failure();
    }
    return setHost(0, std::move(out));
  }
  // At least one operand is computed at run time: its element type is the
  // op's (ONNX requires both to agree; Pow's exponent may differ and is
  // then converted when known).
  Type element;
  if (!*a) {
    FailureOr<Value> v = value(0);
    if (failed(v))
      return failure();
    element = elementOf(*v);
  } else {
    FailureOr<Value> v = value(1);
    if (failed(v))
      return failure();
    element = elementOf(*v);
  }
  if (!isa<FloatType>(element)) {
    error() << "arithmetic on " << typeName(element)
            << " tensors computed at run time is not supported (amp's "
               "arithmetic ops take f32, f16 and bf16; only constants are "
               "folded)";
    return failure();
  }
  if (!*a && !*b && kind != Arith::Pow) {
    FailureOr<Type> otherType = runtimeElement(1);
    if (failed(otherType))
      return failure();
    Type other = *otherType;
    if (other != element) {
      error() << "operands have different element types (" << typeName(element)
              << " and " << typeName(other) << ")";
      return failure();
    }
  }
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(element, *shape);
  if (failed(operands))
    return failure();
  return setValue(0,
                  materializedBinary(kind, operands->first, operands->second));
}

LogicalResult Importer::importVariadic(Arith kind) {
  if (failed(checkArity(1, ~0u)))
    return failure();
  if (numInputs() == 1)
    return importIdentity();
  // Max/Min over several inputs: fold pairwise through a synthetic node
  // would need names; instead combine run-time values directly.
  SmallVector<Shape> shapes;
  bool allKnown;
  if (failed(inputShapes(numInputs(), shapes, allKnown)))
    return failure();
  if (numInputs() == 2)
    return importArith(kind);
  FailureOr<Shape> shape = broadcastShapes(shapes);
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (allKnown) {
    HostTensor acc = **hostOf(0);
    for (unsigned i = 1; i < numInputs(); ++i) {
      const HostTensor &next = **hostOf(i);
      FailureOr<Shape> s = broadcastShapes({acc.shape, next.shape});
      if (failed(s) || failed(checkFoldSize(*s)))
        return failure();
      acc = foldBinary(acc, next, *s, acc.dtype,
                       [&](HostTensor &o, int64_t k, const HostTensor &p,
                           int64_t x, const HostTensor &q, int64_t y) {
                         double l = p.getDouble(x), r = q.getDouble(y);
                         o.setDouble(k, kind == Arith::Max ? std::max(l, r)
                                                           : std::min(l, r));
                       });
    }
    return setHost(0, std::move(acc));
  }
  FailureOr<Type> runtimeType = firstRuntimeElement(0, numInputs());
  if (failed(runtimeType))
    return failure();
  Type element = *runtimeType;
  if (!isa<FloatType>(element)) {
    error() << "is only supported on f32, f16 and bf16 at run time";
    return failure();
  }
  Value acc;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Value> v = operandAs(i, element, *shape);
    if (failed(v))
      return failure();
    acc = acc ? materializedBinary(kind, acc, *v) : *v;
  }
  return setValue(0, acc);
}

LogicalResult Importer::importCompare(Compare kind) {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<const HostTensor *> a = hostOf(0), b = hostOf(1);
  FailureOr<Shape> lhsShape = inputShape(0), rhsShape = inputShape(1);
  if (failed(a) || failed(b) || failed(lhsShape) || failed(rhsShape))
    return failure();
  FailureOr<Shape> shape = broadcastShapes({*lhsShape, *rhsShape});
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (*a && *b) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    bool isFloat = (*a)->isFloat() || (*b)->isFloat();
    HostTensor out = foldBinary(
        **a, **b, *shape, kBool,
        [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
            const HostTensor &q, int64_t j) {
          bool v = isFloat ? compareValues(kind, p.getDouble(i), q.getDouble(j))
                           : compareValues(kind, p.getInt(i), q.getInt(j));
          o.setInt(k, v);
        });
    return setHost(0, std::move(out));
  }
  FailureOr<Value> runtime = value(*a ? 1 : 0);
  if (failed(runtime))
    return failure();
  Type element = elementOf(*runtime);
  if (element.isInteger(1)) {
    error() << "comparing i1 tensors at run time is not supported";
    return failure();
  }
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(element, *shape);
  if (failed(operands))
    return failure();
  CompareDirection direction = CompareDirection::EQ;
  switch (kind) {
  case Compare::EQ:
    direction = CompareDirection::EQ;
    break;
  case Compare::GT:
    direction = CompareDirection::GT;
    break;
  case Compare::LT:
    direction = CompareDirection::LT;
    break;
  case Compare::GE:
    direction = CompareDirection::GE;
    break;
  case Compare::LE:
    direction = CompareDirection::LE;
    break;
  }
  Value result =
      CompareOp::create(builder, loc, tensorType(*shape, builder.getI1Type()),
                        direction, operands->first, operands->second);
  return setValue(0, result);
}

LogicalResult Importer::importUnary(Unary kind) {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    HostTensor out = **known;
    if (!out.isFloat() && kind != Unary::Neg && kind != Unary::Abs &&
        kind != Unary::Relu) {
      error() << "is only supported on floating-point tensors";
      return failure();
    }
    for (int64_t k = 0; k < out.size(); ++k) {
      if (!out.isFloat()) {
        int64_t v = out.ints[k];
        uint64_t negated = 0 - static_cast<uint64_t>(v);
        if (kind == Unary::Neg)
          out.setInt(k, static_cast<int64_t>(negated));
        else if (kind == Unary::Abs)
          out.setInt(k, v < 0 ? static_cast<int64_t>(negated) : v);
        else
          out.setInt(k, std::max<int64_t>(v, 0));
        continue;
      }
      double v = out.floats[k], r = v;
      switch (kind) {
      case Unary::Relu:
        r = v > 0 ? v : 0.0;
        break;
      case Unary::Erf:
        r = std::erf(v);
        break;
      case Unary::Tanh:
        r = std::tanh(v);
        break;
      case Unary::Sigmoid:
        r = 1.0 / (1.0 + std::exp(-v));
        break;
      case Unary::Sqrt:
        r = std::sqrt(v);
        break;
      case Unary::Neg:
        r = -v;
        break;
      case Unary::Exp:
        r = std::exp(v);
        break;
      case Unary::Log:
        r = std::log(v);
        break;
      case Unary::Reciprocal:
        r = 1.0 / v;
        break;
      case Unary::Abs:
        r = std::fabs(v);
        break;
      }
      out.setDouble(k, r);
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = floatValue(0, "input");
  if (failed(input))
    return failure();
  Type type = input->getType();
  Value x = *input, result;
  switch (kind) {
  case Unary::Relu:
    result = ReluOp::create(builder, loc, type, x);
    break;
  case Unary::Erf:
    result = ErfOp::create(builder, loc, type, x);
    break;
  case Unary::Tanh:
    result = TanhOp::create(builder, loc, type, x);
    break;
  case Unary::Sigmoid:
    result = SigmoidOp::create(builder, loc, type, x);
    break;
  case Unary::Sqrt:
    result = SqrtOp::create(builder, loc, type, x);
    break;
  case Unary::Neg:
    result = NegOp::create(builder, loc, type, x);
    break;
  case Unary::Exp:
    result = ExpOp::create(builder, loc, type, x);
    break;
  case Unary::Log:
    result = LogOp::create(builder, loc, type, x);
    break;
  case Unary::Reciprocal:
    result = DivOp::create(builder, loc, type,
                           splat(1.0, cast<RankedTensorType>(type)), x);
    break;
  case Unary::Abs:
    result = MaximumOp::create(builder, loc, type, x,
                               NegOp::create(builder, loc, type, x));
    break;
  }
  return setValue(0, result);
}

LogicalResult Importer::importLogical(StringRef kind) {
  bool isNot = kind == "Not";
  if (failed(checkArity(isNot ? 1 : 2, isNot ? 1 : 2)))
    return failure();
  SmallVector<Shape> shapes;
  bool allKnown = true;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Shape> s = inputShape(i);
    FailureOr<int32_t> dtype = inputDType(i);
    FailureOr<const HostTensor *> h = hostOf(i);
    if (failed(s) || failed(dtype) || failed(h))
      return failure();
    if (*dtype != kBool) {
      error() << inputLabel(i) << " must be BOOL, got " << dtypeName(*dtype);
      return failure();
    }
    shapes.push_back(*s);
    allKnown &= *h != nullptr;
  }
  FailureOr<Shape> shape = broadcastShapes(shapes);
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (allKnown) {
    if (isNot) {
      HostTensor out = **hostOf(0);
      for (int64_t &v : out.ints)
        v = !v;
      return setHost(0, std::move(out));
    }
    if (failed(checkFoldSize(*shape)))
      return failure();
    bool isAnd = kind == "And";
    HostTensor out =
        foldBinary(**hostOf(0), **hostOf(1), *shape, kBool,
                   [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
                       const HostTensor &q, int64_t j) {
                     bool l = p.getInt(i), r = q.getInt(j);
                     o.setInt(k, isAnd ? (l && r) : (l || r));
                   });
    return setHost(0, std::move(out));
  }
  Type i1 = builder.getI1Type();
  RankedTensorType type = tensorType(*shape, i1);
  auto boolConst = [&](bool v) {
    HostTensor t = HostTensor::scalarInt(v, kBool);
    return constant(t, type);
  };
  FailureOr<Value> lhs = operandAs(0, i1, *shape);
  if (failed(lhs))
    return failure();
  if (isNot)
    return setValue(0, WhereOp::create(builder, loc, type, *lhs,
                                       boolConst(false), boolConst(true)));
  FailureOr<Value> rhs = operandAs(1, i1, *shape);
  if (failed(rhs))
    return failure();
  Value result =
      kind == "And"
          ? WhereOp::create(builder, loc, type, *lhs, *rhs, boolConst(false))
          : WhereOp::create(builder, loc, type, *lhs, boolConst(true), *rhs);
  return setValue(0, result);
}

LogicalResult Importer::importWhere() {
  if (failed(checkArity(3, 3)))
    return failure();
  SmallVector<Shape> shapes;
  bool allKnown;
  if (failed(inputShapes(3, shapes, allKnown)))
    return failure();
  FailureOr<int32_t> condType = inputDType(0);
  if (failed(condType))
    return failure();
  if (*condType != kBool) {
    error() << "the condition must be BOOL, got " << dtypeName(*condType);
    return failure();
  }
  FailureOr<Shape> shape = broadcastShapes(shapes);
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (allKnown) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    const HostTensor &c = **hostOf(0), &x = **hostOf(1), &y = **hostOf(2);
    HostTensor out = HostTensor::zeros(x.dtype, *shape);
    Shape os = stridesOf(*shape), cs = stridesOf(c.shape),
          xs = stridesOf(x.shape), ys = stridesOf(y.shape);
    for (int64_t k = 0; k < out.size(); ++k) {
      bool pick = c.getInt(broadcastSourceIndex(k, *shape, os, c.shape, cs));
      if (pick)
        out.setDouble(
            k, x.getDouble(broadcastSourceIndex(k, *shape, os, x.shape, xs)));
      else
        out.setDouble(
            k, y.getDouble(broadcastSourceIndex(k, *shape, os, y.shape, ys)));
      if (!out.isFloat())
        out.setInt(
            k,
            pick ? x.getInt(broadcastSourceIndex(k, *shape, os, x.shape, xs))
                 : y.getInt(broadcastSourceIndex(k, *shape, os, y.shape, ys)));
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Type> runtimeType = firstRuntimeElement(1, 3);
  if (failed(runtimeType))
    return failure();
  Type element = *runtimeType;
  if (!element) {
    FailureOr<int32_t> dtype = inputDType(1);
    element = runtimeElementType(*dtype, context);
    if (!element) {
      error() << "values of type " << dtypeName(*dtype) << " are not supported";
      return failure();
    }
  }
  FailureOr<Value> cond = operandAs(0, builder.getI1Type(), *shape);
  if (failed(cond))
    return failure();
  FailureOr<Value> x = operandAs(1, element, *shape);
  if (failed(x))
    return failure();
  FailureOr<Value> y = operandAs(2, element, *shape);
  if (failed(y))
    return failure();
  return setValue(0, WhereOp::create(builder, loc, tensorType(*shape, element),
                                     *cond, *x, *y));
}

LogicalResult Importer::importClip() {
  if (failed(checkArity(1, 3)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  std::optional<double> lo, hi;
  bool boundsKnown = true;
  for (unsigned i = 1; i < 3; ++i) {
    if (!hasInput(i))
      continue;
    FailureOr<const HostTensor *> bound = hostOf(i);
    if (failed(bound))
      return failure();
    FailureOr<Entry *> e = entry(i);
    if (!*bound && (*e)->initializer) {
      FailureOr<const HostTensor *> read = requireHost(i, "bound");
      if (failed(read))
        return failure();
      bound = *read;
    }
    if (!*bound) {
      boundsKnown = false;
      continue;
    }
    if ((*bound)->size() != 1) {
      error() << inputLabel(i) << " must be a scalar";
      return failure();
    }
    (i == 1 ? lo : hi) = (*bound)->getDouble(0);
  }
  if (*known && boundsKnown) {
    HostTensor out = **known;
    for (int64_t k = 0; k < out.size(); ++k) {
      double v = out.getDouble(k);
      if (lo && v < *lo)
        v = *lo;
      if (hi && v > *hi)
        v = *hi;
      out.setDouble(k, v);
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = floatValue(0, "input");
  if (failed(input))
    return failure();
  Value x = *input;
  ArrayRef<int64_t> shape = shapeOf(x);
  RankedTensorType type = cast<RankedTensorType>(x.getType());
  for (unsigned i = 1; i < 3; ++i) {
    if (!hasInput(i))
      continue;
    Value bound;
    std::optional<double> constantBound = i == 1 ? lo : hi;
    if (constantBound) {
      bound = splat(*constantBound, type);
    } else {
      FailureOr<Value> b = operandAs(i, type.getElementType(), shape);
      if (failed(b))
        return failure();
      bound = *b;
    }
    x = i == 1 ? Value(MaximumOp::create(builder, loc, type, x, bound))
               : Value(MinimumOp::create(builder, loc, type, x, bound));
  }
  return setValue(0, x);
}

LogicalResult Importer::importCast(bool like) {
  if (failed(checkArity(like ? 2 : 1, like ? 2 : 1)))
    return failure();
  int32_t to = kUndefined;
  if (like) {
    FailureOr<int32_t> target = inputDType(1);
    if (failed(target))
      return failure();
    to = *target;
  } else {
    FailureOr<int64_t> attrTo = intAttr("to", -1);
    if (failed(attrTo))
      return failure();
    if (!attr("to")) {
      error() << "has no 'to' attribute";
      return failure();
    }
    to = static_cast<int32_t>(*attrTo);
  }
  if (dtypeSize(to) == 0) {
    error() << "casts to " << dtypeName(to) << ", which is not supported";
    return failure();
  }
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    const HostTensor &in = **known;
    HostTensor out = HostTensor::zeros(to, in.shape);
    for (int64_t k = 0; k < in.size(); ++k) {
      if (to == kBool)
        out.setInt(k, in.getDouble(k) != 0);
      else if (in.isFloat())
        out.setDouble(k, in.floats[k]);
      else
        out.setInt(k, in.ints[k]);
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = value(0);
  if (failed(input))
    return failure();
  Type from = elementOf(*input);
  Type target = runtimeElementType(to, context);
  if (!target) {
    error() << "casts a run-time tensor to " << dtypeName(to)
            << ", which amp does not support";
    return failure();
  }
  if (from == target)
    return setValue(0, *input);
  RankedTensorType type = tensorType(shapeOf(*input), target);
  if (isa<FloatType>(from) && isa<FloatType>(target))
    return setValue(0, CastOp::create(builder, loc, type, *input));
  if (from.isInteger(1) && isa<FloatType>(target))
    return setValue(0, WhereOp::create(builder, loc, type, *input,
                                       splat(1.0, type), splat(0.0, type)));
  if (isa<FloatType>(from) && target.isInteger(1)) {
    RankedTensorType fromType = cast<RankedTensorType>(input->getType());
    return setValue(0,
                    CompareOp::create(builder, loc, type, CompareDirection::NE,
                                      *input, splat(0.0, fromType)));
  }
  error() << "casts a run-time tensor from " << typeName(from) << " to "
          << typeName(target)
          << ", which amp does not support (it casts between f32, f16 and "
             "bf16, and from and to i1)";
  return failure();
}

LogicalResult Importer::importSoftmax(bool log) {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Value> input = floatValue(0, "input");
  if (failed(input))
    return failure();
  int64_t rank = shapeOf(*input).size();
  if (rank == 0) {
    error() << "the input must have rank 1 or more";
    return failure();
  }
  FailureOr<int64_t> axisAttr = intAttr("axis", -1);
  if (failed(axisAttr))
    return failure();
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, rank);
  if (failed(axis))
    return failure();
  Type type = input->getType();
  Value result =
      log ? Value(LogSoftmaxOp::create(builder, loc, type, *input, *axisAttr))
          : Value(SoftmaxOp::create(builder, loc, type, *input, *axisAttr));
  return setValue(0, result);
}

LogicalResult Importer::importReduce(StringRef kind) {
  // ReduceSum takes its axes as an input from opset 13; the others as an
  // attribute until opset 18.
  bool axesInput = kind == "ReduceSum";
  if (failed(checkArity(1, axesInput ? 2 : 1)))
    return failure();
  FailureOr<int64_t> keepDims = intAttr("keepdims", 1);
  FailureOr<int64_t> noop = intAttr("noop_with_empty_axes", 0);
  if (failed(keepDims) || failed(noop))
    return failure();
  SmallVector<int64_t> axes;
  if (axesInput) {
    if (hasInput(1)) {
      FailureOr<SmallVector<int64_t>> given = requireInts(1, "axes");
      if (failed(given))
        return failure();
      axes = *given;
    }
  } else {
    FailureOr<std::optional<SmallVector<int64_t>>> given = intsAttr("axes");
    if (failed(given))
      return failure();
    if (*given)
      axes = **given;
  }
  FailureOr<Value> input = floatValue(0, "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  int64_t rank = shape.size();
  if (axes.empty()) {
    if (*noop || rank == 0)
      return setValue(0, *input);
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(axes, rank);
  if (failed(normalized))
    return failure();
  Shape result;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(*normalized, d))
      result.push_back(shape[d]);
    else if (*keepDims)
      result.push_back(1);
  }
  RankedTensorType type = tensorType(result, elementOf(*input));
  Value reduced;
  if (kind == "ReduceMean")
    reduced = ReduceMeanOp::create(builder, loc, type, *input, *normalized,
                                   *keepDims != 0);
  else if (kind == "ReduceSum")
    reduced = ReduceSumOp::create(builder, loc, type, *input, *normalized,
                                  *keepDims != 0);
  else
    reduced = ReduceMaxOp::create(builder, loc, type, *input, *normalized,
                                  *keepDims != 0);
  return setValue(0, reduced);
}

//===----------------------------------------------------------------------===//
// Contractions, convolution, pooling
//===----------------------------------------------------------------------===//

LogicalResult Importer::importMatMul() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<Value> lhsValue = floatValue(0, "A");
  if (failed(lhsValue))
    return failure();
  FailureOr<Value> rhsValue = value(1, elementOf(*lhsValue));
  if (failed(rhsValue))
    return failure();
  Value lhs = *lhsValue, rhs = *rhsValue;
  if (elementOf(lhs) != elementOf(rhs)) {
    error() << "operands have different element types ("
            << typeName(elementOf(lhs)) << " and " << typeName(elementOf(rhs))
            << ")";
    return failure();
  }
  Shape l(shapeOf(lhs)), r(shapeOf(rhs));
  if (l.empty() || r.empty()) {
    error() << "operands must have rank 1 or more, got " << formatShape(l)
            << " and " << formatShape(r);
    return failure();
  }
  bool lhsVector = l.size() == 1, rhsVector = r.size() == 1;
  if (lhsVector) {
    l.insert(l.begin(), 1);
    lhs = reshapeTo(lhs, l);
  }
  if (rhsVector) {
    r.push_back(1);
    rhs = reshapeTo(rhs, r);
  }
  int64_t m = l[l.size() - 2], k = l.back(), k2 = r[r.size() - 2], n = r.back();
  if (k != k2) {
    error() << "contraction dimensions differ: " << formatShape(shapeOf(lhs))
            << " times " << formatShape(shapeOf(rhs));
    return failure();
  }
  Shape lhsBatch(l.begin(), l.end() - 2), rhsBatch(r.begin(), r.end() - 2);
  Shape batch = lhsBatch.size() >= rhsBatch.size() ? lhsBatch : rhsBatch;
  if (!lhsBatch.empty() && !rhsBatch.empty()) {
    FailureOr<Shape> common = broadcastShapes({lhsBatch, rhsBatch});
    if (failed(common))
      return failure();
    batch = *common;
    Shape lFull = batch, rFull = batch;
    lFull.append({m, k});
    rFull.append({k, n});
    if (failed(checkShape(lFull)) || failed(checkShape(rFull)))
      return failure();
    lhs = broadcastTo(lhs, lFull);
    rhs = broadcastTo(rhs, rFull);
  }
  Shape resultShape = batch;
  resultShape.append({m, n});
  if (failed(checkShape(resultShape)))
    return failure();
  Value result = MatmulOp::create(
      builder, loc, tensorType(resultShape, elementOf(lhs)), lhs, rhs);
  // Drop the dimensions ONNX removes for 1-d operands.
  Shape finalShape = batch;
  if (!lhsVector)
    finalShape.push_back(m);
  if (!rhsVector)
    finalShape.push_back(n);
  return setValue(0, reshapeTo(result, finalShape));
}

LogicalResult Importer::importGemm() {
  if (failed(checkArity(2, 3)))
    return failure();
  FailureOr<double> alpha = floatAttr("alpha", 1.0);
  FailureOr<double> beta = floatAttr("beta", 1.0);
  FailureOr<int64_t> transA = intAttr("transA", 0);
  FailureOr<int64_t> transB = intAttr("transB", 0);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB))
    return failure();
  FailureOr<Value> aValue = floatValue(0, "A");
  if (failed(aValue))
    return failure();
  Type element = elementOf(*aValue);
  FailureOr<Value> bValue = value(1, element);
  if (failed(bValue))
    return failure();
  Value a = *aValue, b = *bValue;
  if (elementOf(b) != element) {
    error() << "A and B have different element types";
    return failure();
  }
  if (shapeOf(a).size() != 2 || shapeOf(b).size() != 2) {
    error() << "A and B must be 2-d, got " << formatShape(shapeOf(a)) << " and "
            << formatShape(shapeOf(b));
    return failure();
  }
  int64_t m = shapeOf(a)[*transA ? 1 : 0], k = shapeOf(a)[*transA ? 0 : 1];
  int64_t k2 = shapeOf(b)[*transB ? 1 : 0], n = shapeOf(b)[*transB ? 0 : 1];
  if (k != k2) {
    error() << "contraction dimensions differ: A is " << formatShape(shapeOf(a))
            << (*transA ? " (transposed)" : "") << ", B is "
            << formatShape(shapeOf(b)) << (*transB ? " (transposed)" : "");
    return failure();
  }
  Shape shape = {m, n};
  RankedTensorType type = tensorType(shape, element);
  bool hasC = hasInput(2) && *beta != 0.0;
  Shape cShape;
  if (hasC) {
    FailureOr<Shape> s = inputShape(2);
    if (failed(s))
      return failure();
    cShape = *s;
    FailureOr<Shape> check = broadcastShapes({cShape, shape});
    if (failed(check))
      return failure();
    if (*check != shape) {
      error() << "C of shape " << formatShape(cShape)
              << " does not broadcast to the result " << formatShape(shape);
      return failure();
    }
  }
  // nn.Linear: x [M, K], W [N, K] with transB, bias [N] -> amp.linear.
  bool biasIsVector = !hasC || (cShape.size() == 1 && cShape[0] == n) ||
                      (cShape.size() == 2 && cShape[0] == 1 && cShape[1] == n);
  if (*alpha == 1.0 && !*transA && *transB && biasIsVector &&
      (!hasC || *beta == 1.0)) {
    Value bias;
    if (hasC) {
      FailureOr<Value> c = value(2, element);
      if (failed(c))
        return failure();
      if (elementOf(*c) != element) {
        error() << "C has element type " << typeName(elementOf(*c))
                << " but A has " << typeName(element);
        return failure();
      }
      bias = reshapeTo(*c, {n});
    }
    return setValue(0, LinearOp::create(builder, loc, type, a, b, bias));
  }
  Value result =
      MatmulOp::create(builder, loc, type, a, b, *transA != 0, *transB != 0);
  if (*alpha != 1.0)
    result = MulOp::create(builder, loc, type, result, splat(*alpha, type));
  if (hasC) {
    FailureOr<Value> c = operandAs(2, element, shape);
    if (failed(c))
      return failure();
    Value scaled = *c;
    if (*beta != 1.0)
      scaled = MulOp::create(builder, loc, type, scaled, splat(*beta, type));
    result = AddOp::create(builder, loc, type, result, scaled);
  }
  return setValue(0, result);
}

/// Checks `window` over `input` (NCHW), resolves auto_pad into explicit pads
/// and appends the output's spatial sizes to `outHW` (ceil_mode rounds up).
static LogicalResult readWindow(ArrayRef<int64_t> input, Window &window,
                                llvm::function_ref<InFlightDiagnostic()> error,
                                StringRef autoPad, bool ceilMode,
                                Shape &outHW) {
  if (window.kernel.size() != 2 || window.stride.size() != 2 ||
      window.dilation.size() != 2 || window.pads.size() != 4) {
    error() << "only 2-d windows are supported (kernel_shape, strides, "
               "dilations with 2 entries, pads with 4)";
    return failure();
  }
  for (int i = 0; i < 2; ++i) {
    constexpr int64_t kMaxWindow = int64_t(1) << 20;
    if (window.kernel[i] < 1 || window.stride[i] < 1 ||
        window.dilation[i] < 1 || window.kernel[i] > kMaxWindow ||
        window.stride[i] > kMaxWindow || window.dilation[i] > kMaxWindow) {
      error() << "kernel sizes, strides and dilations must be positive (and "
                 "at most 2^20)";
      return failure();
    }
  }
  for (int64_t pad : window.pads)
    if (pad < 0 || pad > kMaxTensorElements) {
      error() << "pads must be non-negative, got " << formatShape(window.pads);
      return failure();
    }
  for (int i = 0; i < 2; ++i) {
    int64_t in = input[2 + i];
    int64_t effective = (window.kernel[i] - 1) * window.dilation[i] + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t out = llvm::divideCeil(in, window.stride[i]);
      int64_t total =
          std::max<int64_t>(0, (out - 1) * window.stride[i] + effective - in);
      int64_t small = total / 2, large = total - small;
      window.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      window.pads[2 + i] = autoPad == "SAME_UPPER" ? large : small;
    } else if (autoPad == "VALID") {
      window.pads[i] = window.pads[2 + i] = 0;
    } else if (autoPad != "NOTSET" && !autoPad.empty()) {
      error() << "unknown auto_pad '" << autoPad << "'";
      return failure();
    }
    int64_t padded = in + window.pads[i] + window.pads[2 + i];
    if (padded < effective) {
      error() << "the window of size " << effective
              << " does not fit the padded input of size " << padded
              << " in spatial dimension " << i;
      return failure();
    }
    int64_t span = padded - effective;
    int64_t out = ceilMode ? llvm::divideCeil(span, window.stride[i]) + 1
                           : span / window.stride[i] + 1;
    // PyTorch and ONNX drop a last window that starts in the end padding.
    if (ceilMode && (out - 1) * window.stride[i] >= in + window.pads[i])
      --out;
    outHW.push_back(out);
  }
  return success();
}

LogicalResult Importer::importConv() {
  if (failed(checkArity(2, 3)))
    return failure();
  FailureOr<Value> xValue = floatValue(0, "X");
  if (failed(xValue))
    return failure();
  Type element = elementOf(*xValue);
  FailureOr<Value> wValue = value(1, element);
  if (failed(wValue))
    return failure();
  Value x = *xValue, w = *wValue;
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  if (xs.size() != 4) {
    error() << "only 2-d convolutions (4-d NCHW inputs) are supported; X has "
               "shape "
            << formatShape(xs);
    return failure();
  }
  if (ws.size() != 4 || elementOf(w) != element) {
    error() << "W must be a 4-d tensor of X's element type, got "
            << formatShape(ws);
    return failure();
  }
  FailureOr<int64_t> group = intAttr("group", 1);
  std::string autoPad;
  std::optional<SmallVector<int64_t>> kernel;
  Window window;
  LogicalResult attrs = windowAttrs(autoPad, kernel, window);
  if (failed(group) || failed(attrs))
    return failure();
  if (*group < 1 || *group > std::max<int64_t>(xs[1], 1) ||
      xs[1] % *group != 0 || ws[0] % *group != 0 || ws[1] != xs[1] / *group) {
    error() << "group " << *group << " does not fit X " << formatShape(xs)
            << " and W " << formatShape(ws)
            << " (W must be [M, C / group, kH, kW])";
    return failure();
  }
  window.kernel = {ws[2], ws[3]};
  if (kernel && *kernel != window.kernel) {
    error() << "kernel_shape " << formatShape(*kernel) << " does not match W "
            << formatShape(ws);
    return failure();
  }
  Shape outHW;
  if (failed(readWindow(
          xs, window, [&] { return error(); }, autoPad,
          /*ceilMode=*/false, outHW)))
    return failure();
  Value bias;
  if (hasInput(2)) {
    FailureOr<Value> b = value(2, element);
    if (failed(b))
      return failure();
    if (shapeOf(*b) != ArrayRef<int64_t>{ws[0]} || elementOf(*b) != element) {
      error() << "B must be a 1-d tensor of " << ws[0] << " elements, got "
              << formatShape(shapeOf(*b));
      return failure();
    }
    bias = *b;
  }
  Shape shape = {xs[0], ws[0], outHW[0], outHW[1]};
  if (failed(checkShape(shape)))
    return failure();
  return setValue(0, Conv2DOp::create(builder, loc, tensorType(shape, element),
                                      x, w, bias, window.stride, window.pads,
                                      window.dilation, *group));
}

LogicalResult Importer::importPool(bool max) {
  if (failed(checkArity(1, 1)))
    return failure();
  if (max && outputUsed(1)) {
    error() << "the Indices output is used, which amp does not support";
    return failure();
  }
  FailureOr<Value> xValue = floatValue(0, "X");
  if (failed(xValue))
    return failure();
  Value x = *xValue;
  ArrayRef<int64_t> xs = shapeOf(x);
  if (xs.size() != 4) {
    error() << "only 2-d pooling (4-d NCHW inputs) is supported; X has shape "
            << formatShape(xs);
    return failure();
  }
  std::string autoPad;
  std::optional<SmallVector<int64_t>> kernel;
  Window window;
  LogicalResult attrs = windowAttrs(autoPad, kernel, window);
  FailureOr<int64_t> ceil = intAttr("ceil_mode", 0);
  FailureOr<int64_t> storage = intAttr("storage_order", 0);
  FailureOr<int64_t> countPad = intAttr("count_include_pad", 0);
  if (failed(attrs) || failed(ceil) || failed(storage) || failed(countPad))
    return failure();
  if (!kernel) {
    error() << "has no kernel_shape";
    return failure();
  }
  window.kernel = *kernel;
  // The pads attribute as given (auto_pad below may replace window.pads).
  bool explicitPads = llvm::any_of(window.pads, [](int64_t p) { return p; });
  if (window.dilation.size() == 2 &&
      (window.dilation[0] != 1 || window.dilation[1] != 1)) {
    error() << "dilated pooling is not supported";
    return failure();
  }
  Shape outHW;
  if (failed(readWindow(
          xs, window, [&] { return error(); }, autoPad, *ceil != 0, outHW)))
    return failure();
  bool excludePadding = *countPad == 0;
  if (*ceil) {
    // Express ceil_mode as extra end padding that only adds partial windows.
    // That is exact for max pooling (the padding is -inf) and for average
    // pooling that excludes padding from the divisor.
    bool extended = false;
    for (int i = 0; i < 2; ++i) {
      int64_t needed = (outHW[i] - 1) * window.stride[i] + window.kernel[i];
      int64_t padded = xs[2 + i] + window.pads[i] + window.pads[2 + i];
      if (needed > padded) {
        window.pads[2 + i] += needed - padded;
        extended = true;
      }
    }
    if (extended && !max && !excludePadding) {
      if (explicitPads) {
        error() << "ceil_mode with count_include_pad and explicit pads is "
                   "not supported";
        return failure();
      }
      excludePadding = true; // no real padding: only the ceil extension
    }
  }
  for (int i = 0; i < 4; ++i)
    if (window.pads[i] > window.kernel[i % 2] / 2) {
      error() << "padding " << window.pads[i]
              << " is more than half the kernel size " << window.kernel[i % 2]
              << " (after ceil_mode and auto_pad), "
              << "which amp's pooling ops do not support";
      return failure();
    }
  Shape shape = {xs[0], xs[1], outHW[0], outHW[1]};
  RankedTensorType type = tensorType(shape, elementOf(x));
  if (max)
    return setValue(0, MaxPool2DOp::create(builder, loc, type, x, window.kernel,
                                           window.stride, window.pads));
  bool anyPadding = llvm::any_of(window.pads, [](int64_t p) { return p; });
  return setValue(0, AvgPool2DOp::create(builder, loc, type, x, window.kernel,
                                         window.stride, window.pads,
                                         excludePadding && anyPadding));
}

LogicalResult Importer::importGlobalAveragePool() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Value> x = floatInputOfRank("X", "X", 3);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(*x);
  Shape shape(xs.take_front(2));
  shape.append(xs.size() - 2, 1);
  return setValue(0, GlobalAvgPoolOp::create(
                         builder, loc, tensorType(shape, elementOf(*x)), *x));
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult Importer::importBatchNorm() {
  if (failed(checkArity(5, 5)))
    return failure();
  FailureOr<double> epsilon = epsilonAttr();
  FailureOr<double> momentum = floatAttr("momentum", 0.9);
  if (failed(epsilon) || failed(momentum))
    return failure();
  bool training;
  if (opset >= 14) {
    FailureOr<int64_t> mode = intAttr("training_mode", 0);
    if (failed(mode))
      return failure();
    training = *mode != 0;
  } else {
    // Opset 9-13: the optional outputs exist only in training mode.
    training = false;
    for (int i = 1; i < node->output_size(); ++i)
      training |= hasOutput(i);
  }
  if (outputUsed(4) || (opset < 14 && !training && outputUsed(3))) {
    error() << "the saved variance output is used, which amp does not "
               "support (amp.batch_norm saves the reciprocal standard "
               "deviation)";
    return failure();
  }
  if (!training && (outputUsed(1) || outputUsed(2))) {
    error() << "running statistics outputs are used outside training mode";
    return failure();
  }
  FailureOr<Value> xValue = floatInputOfRank("X", "X", 2);
  if (failed(xValue))
    return failure();
  Value x = *xValue;
  ArrayRef<int64_t> xs = shapeOf(x);
  Type element = elementOf(x), f32 = builder.getF32Type();
  int64_t channels = xs[1];
  Value operands[4];
  const char *names[] = {"scale", "B", "input_mean", "input_var"};
  for (unsigned i = 1; i < 5; ++i) {
    FailureOr<Value> v = value(i, i < 3 ? element : f32);
    if (failed(v))
      return failure();
    Type vElement = elementOf(*v);
    bool okType =
        i < 3 ? (vElement == element || vElement.isF32()) : vElement.isF32();
    if (shapeOf(*v) != ArrayRef<int64_t>{channels} || !okType) {
      error() << names[i - 1] << " must be a 1-d tensor of " << channels
              << (i < 3 ? " elements of X's type or f32" : " f32 elements")
              << ", got " << typeName(v->getType());
      return failure();
    }
    operands[i - 1] = *v;
  }
  RankedTensorType stat = tensorType({channels}, f32);
  double ampMomentum = shortestF32Decimal(1.0 - shortestF32Decimal(*momentum));
  if (!(ampMomentum >= 0 && ampMomentum <= 1)) {
    error() << "momentum " << *momentum << " is outside [0, 1]";
    return failure();
  }
  auto op = BatchNormOp::create(
      builder, loc, x.getType(), stat, stat, stat, stat, x, operands[0],
      operands[1], operands[2], operands[3],
      builder.getF64FloatAttr(shortestF32Decimal(*epsilon)),
      builder.getF64FloatAttr(ampMomentum), builder.getBoolAttr(training));
  if (failed(setValue(0, op.getOutput())))
    return failure();
  // Running statistics held in initializers are buffers (state, not
  // trainable parameters).
  for (unsigned i = 3; i < 5; ++i)
    if (Entry *e = *entry(i); e->initializer)
      bufferNames.insert(e->initializer->name());
  if (!training)
    return success();
  if (failed(setValue(1, op.getNewRunningMean())) ||
      failed(setValue(2, op.getNewRunningVar())) ||
      (opset < 14 && failed(setValue(3, op.getSavedMean()))))
    return failure();
  // Running statistics held in initializers are buffers: the step takes
  // them and returns their update.
  for (unsigned i = 3; i < 5; ++i) {
    Entry *e = *entry(i);
    if (!e->initializer)
      continue;
    const std::string &name = e->initializer->name();
    if (llvm::any_of(bufferUpdates, [&](const auto &update) {
          return update.first == name;
        })) {
      error() << "running statistic '" << name
              << "' is updated by more than one BatchNormalization";
      return failure();
    }
    bufferUpdates.emplace_back(name, i == 3 ? op.getNewRunningMean()
                                            : op.getNewRunningVar());
  }
  return success();
}

LogicalResult Importer::importInstanceNorm() {
  if (failed(checkArity(3, 3)))
    return failure();
  FailureOr<double> epsilon = epsilonAttr();
  if (failed(epsilon))
    return failure();
  FailureOr<Value> xValue = floatInputOfRank("input", "the input", 3);
  if (failed(xValue))
    return failure();
  Value x = *xValue;
  ArrayRef<int64_t> xs = shapeOf(x);
  Type element = elementOf(x);
  int64_t channels = xs[1];
  Value affine[2];
  for (unsigned i = 1; i < 3; ++i) {
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (shapeOf(*v) != ArrayRef<int64_t>{channels} ||
        (elementOf(*v) != element && !elementOf(*v).isF32())) {
      error() << (i == 1 ? "scale" : "B") << " must be a 1-d tensor of "
              << channels << " elements, got " << typeName(v->getType());
      return failure();
    }
    affine[i - 1] = *v;
  }
  if (channels < 1) {
    error() << "the input has no channels";
    return failure();
  }
  RankedTensorType stat = tensorType({xs[0], channels}, builder.getF32Type());
  auto op = GroupNormOp::create(
      builder, loc, x.getType(), stat, stat, x, affine[0], affine[1],
      builder.getI64IntegerAttr(channels),
      builder.getF64FloatAttr(shortestF32Decimal(*epsilon)));
  return setValue(0, op.getOutput());
}

LogicalResult Importer::importLayerNorm() {
  if (failed(checkArity(2, 3)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", -1);
  FailureOr<double> epsilon = epsilonAttr();
  if (failed(axisAttr) || failed(epsilon))
    return failure();
  FailureOr<Value> xValue = floatValue(0, "X");
  if (failed(xValue))
    return failure();
  Value x = *xValue;
  ArrayRef<int64_t> xs = shapeOf(x);
  if (xs.empty()) {
    error() << "X must have rank 1 or more";
    return failure();
  }
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, xs.size());
  if (failed(axis))
    return failure();
  Type element = elementOf(x);
  Shape normalized(xs.drop_front(*axis));
  Shape stats(xs.take_front(*axis));
  Value affine[2];
  for (unsigned i = 1; i < 3; ++i) {
    if (!hasInput(i)) {
      affine[i - 1] = splat(0.0, tensorType(normalized, element));
      continue;
    }
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (elementOf(*v) != element && !elementOf(*v).isF32()) {
      error() << (i == 1 ? "Scale" : "B") << " has element type "
              << typeName(elementOf(*v)) << " but X has " << typeName(element);
      return failure();
    }
    FailureOr<Shape> common = broadcastShapes({Shape(shapeOf(*v)), normalized});
    if (failed(common))
      return failure();
    if (*common != normalized) {
      error() << (i == 1 ? "Scale" : "B") << " of shape "
              << formatShape(shapeOf(*v))
              << " does not broadcast to the normalized shape "
              << formatShape(normalized);
      return failure();
    }
    affine[i - 1] = broadcastTo(*v, normalized);
  }
  RankedTensorType stat = tensorType(stats, builder.getF32Type());
  auto op = LayerNormOp::create(
      builder, loc, x.getType(), stat, stat, x, affine[0], affine[1],
      builder.getI64IntegerAttr(*axis),
      builder.getF64FloatAttr(shortestF32Decimal(*epsilon)));
  if (failed(setValue(0, op.getOutput())))
    return failure();
  // ONNX keeps the normalized dimensions as 1 in Mean and InvStdDev.
  Shape kept = stats;
  kept.append(normalized.size(), 1);
  if (hasOutput(1) && failed(setValue(1, reshapeTo(op.getMean(), kept))))
    return failure();
  if (hasOutput(2) && failed(setValue(2, reshapeTo(op.getRstd(), kept))))
    return failure();
  return success();
}

LogicalResult Importer::importDropout() {
  if (failed(checkArity(1, 3)))
    return failure();
  double ratio = 0.5;
  bool training = false;
  if (hasInput(1)) {
    FailureOr<double> r = requireScalar(1, "ratio");
    if (failed(r))
      return failure();
    ratio = *r;
  }
  if (hasInput(2)) {
    FailureOr<double> t = requireScalar(2, "training_mode");
    if (failed(t))
      return failure();
    training = *t != 0;
  }
  if (!(ratio >= 0 && ratio < 1)) {
    error() << "ratio " << ratio << " is outside [0, 1)";
    return failure();
  }
  FailureOr<Value> input = floatValue(0, "data");
  if (failed(input))
    return failure();
  RankedTensorType maskType = tensorType(shapeOf(*input), builder.getI1Type());
  if (!training || ratio == 0.0) {
    if (failed(setValue(0, *input)))
      return failure();
    if (hasOutput(1))
      return setValue(1, constant(HostTensor::scalarInt(1, kBool), maskType));
    return success();
  }
  // The random stream is an explicit argument: one i64 seed per Dropout.
  std::string name =
      (node->name().empty() ? node->output(0) : node->name()) + ".seed";
  Value seed = body->addArgument(
      RankedTensorType::get({}, builder.getI64Type()), fileLoc);
  args.push_back({ArgKind::Seed, name, seedCount++, seed});
  auto op = DropoutOp::create(builder, loc, input->getType(), maskType, *input,
                              seed, llvm::APFloat(ratio));
  if (failed(setValue(0, op.getOutput())))
    return failure();
  return setValue(1, op.getMask());
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

LogicalResult Importer::importConstant() {
  if (failed(checkArity(0, 0)))
    return failure();
  if (node->attribute_size() != 1) {
    error() << "must have exactly one attribute, has "
            << node->attribute_size();
    return failure();
  }
  const onnx::AttributeProto &a = node->attribute(0);
  HostTensor tensor;
  if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) {
    std::string message;
    if (!decodeTensor(a.t(), source, tensor, message,
                      options.maxFoldedElements)) {
      error() << "its value " << message;
      return failure();
    }
  } else if (a.name() == "value_float" &&
             a.type() == onnx::AttributeProto::FLOAT) {
    tensor = HostTensor::zeros(kFloat, {});
    tensor.setDouble(0, a.f());
  } else if (a.name() == "value_floats" &&
             a.type() == onnx::AttributeProto::FLOATS) {
    tensor = HostTensor::zeros(kFloat, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i)
      tensor.setDouble(i, a.floats(i));
  } else if (a.name() == "value_int" && a.type() == onnx::AttributeProto::INT) {
    tensor = HostTensor::scalarInt(a.i());
  } else if (a.name() == "value_ints" &&
             a.type() == onnx::AttributeProto::INTS) {
    tensor = HostTensor::vectorInt(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
  } else {
    error() << "attribute '" << a.name()
            << "' is not supported (value, value_float(s) and value_int(s) "
               "are)";
    return failure();
  }
  return setHost(0, std::move(tensor));
}

LogicalResult Importer::importIdentity() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Entry *> e = entry(0);
  if (failed(e))
    return failure();
  Entry &src = **e;
  Entry alias;
  alias.host = src.host;
  alias.value = src.value;
  if (src.initializer && !alias.host) {
    // The alias refers to the same parameter argument (or constant), never
    // to a second copy of the initializer.
    if (isFloatDType(src.initializer->data_type())) {
      FailureOr<Value> v = valueOf(src, node->input(0));
      if (failed(v))
        return failure();
      alias.value = *v;
    } else {
      FailureOr<std::shared_ptr<HostTensor>> t = decodeInitializer(src);
      if (failed(t))
        return failure();
      alias.host = *t;
    }
  }
  return defineOutput(0, std::move(alias));
}

LogicalResult Importer::importShape() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Shape> shape = inputShape(0);
  FailureOr<int64_t> start = intAttr("start", 0);
  FailureOr<int64_t> end = intAttr("end", std::numeric_limits<int64_t>::max());
  if (failed(shape) || failed(start) || failed(end))
    return failure();
  int64_t rank = shape->size();
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v = std::max<int64_t>(v + rank, 0);
    return std::min(v, rank);
  };
  int64_t b = clamp(*start), e = clamp(*end);
  SmallVector<int64_t> dims;
  for (int64_t d = b; d < e; ++d)
    dims.push_back((*shape)[d]);
  return setHost(0, HostTensor::vectorInt(dims));
}

LogicalResult Importer::importSize() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Shape> shape = inputShape(0);
  if (failed(shape))
    return failure();
  return setHost(0, HostTensor::scalarInt(*numElements(*shape)));
}

LogicalResult Importer::importConstantOfShape() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = requireInts(0, "shape");
  if (failed(shape) || failed(checkFoldSize(*shape)))
    return failure();
  HostTensor fill = HostTensor::zeros(kFloat, {});
  if (const onnx::AttributeProto *a = attr("value")) {
    std::string message;
    if (a->type() != onnx::AttributeProto::TENSOR ||
        !decodeTensor(a->t(), source, fill, message, 1) || fill.size() != 1) {
      error() << "attribute 'value' must be a one-element tensor"
              << (message.empty() ? "" : ": ") << message;
      return failure();
    }
  }
  HostTensor out = HostTensor::zeros(fill.dtype, *shape);
  for (int64_t k = 0; k < out.size(); ++k) {
    if (out.isFloat())
      out.floats[k] = fill.floats[0];
    else
      out.ints[k] = fill.ints[0];
  }
  return setHost(0, std::move(out));
}

LogicalResult Importer::importRange() {
  if (failed(checkArity(3, 3)))
    return failure();
  FailureOr<const HostTensor *> start = requireHost(0, "start");
  FailureOr<const HostTensor *> limit = requireHost(1, "limit");
  FailureOr<const HostTensor *> delta = requireHost(2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  if ((*start)->size() != 1 || (*limit)->size() != 1 || (*delta)->size() != 1) {
    error() << "start, limit and delta must be scalars";
    return failure();
  }
  double s = (*start)->getDouble(0), l = (*limit)->getDouble(0),
         d = (*delta)->getDouble(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
    error() << "delta must be non-zero and the bounds finite";
    return failure();
  }
  double count = std::max(0.0, std::ceil((l - s) / d));
  if (count > static_cast<double>(options.maxFoldedElements)) {
    error() << "would fold a range of " << count << " elements";
    return failure();
  }
  HostTensor out =
      HostTensor::zeros((*start)->dtype, {static_cast<int64_t>(count)});
  for (int64_t k = 0; k < out.size(); ++k) {
    if (out.isFloat())
      out.setDouble(k, s + k * d);
    else
      out.setInt(k, static_cast<int64_t>(
                        static_cast<uint64_t>((*start)->getInt(0)) +
                        static_cast<uint64_t>(k) *
                            static_cast<uint64_t>((*delta)->getInt(0))));
  }
  return setHost(0, std::move(out));
}

/// Reshapes input `input` (known or not) to `shape` as output 0.
LogicalResult Importer::reshapeOutput(unsigned input, ArrayRef<int64_t> shape) {
  if (failed(checkShape(shape)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(input);
  if (failed(known))
    return failure();
  if (*known) {
    HostTensor out = **known;
    out.shape.assign(shape.begin(), shape.end());
    return setHost(0, std::move(out));
  }
  FailureOr<Value> v = value(input);
  if (failed(v))
    return failure();
  return setValue(0, reshapeTo(*v, shape));
}

LogicalResult Importer::importReshape() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<int64_t> allowZero = intAttr("allowzero", 0);
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> requested = requireInts(1, "shape");
  if (failed(allowZero) || failed(in) || failed(requested))
    return failure();
  if (static_cast<int64_t>(requested->size()) > kMaxRank) {
    error() << "the requested shape has rank " << requested->size();
    return failure();
  }
  int64_t total = *numElements(*in);
  Shape shape;
  int64_t inferred = -1, known = 1;
  for (auto [d, dim] : llvm::enumerate(*requested)) {
    if (dim == 0 && !*allowZero) {
      if (d >= in->size()) {
        error() << "shape entry " << d
                << " is 0 (copy the input dimension) but the input has rank "
                << in->size();
        return failure();
      }
      dim = (*in)[d];
    }
    if (dim == -1) {
      if (inferred >= 0) {
        error() << "the shape " << formatShape(*requested)
                << " has more than one -1";
        return failure();
      }
      inferred = d;
      shape.push_back(1);
      continue;
    }
    if (dim < 0 || dim > kMaxTensorElements) {
      error() << "the shape " << formatShape(*requested)
              << " has an invalid entry " << dim;
      return failure();
    }
    shape.push_back(dim);
    if (dim != 0 && known > kMaxTensorElements / dim) {
      error() << "the shape " << formatShape(*requested) << " is too large";
      return failure();
    }
    known *= dim;
  }
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      error() << "cannot reshape " << formatShape(*in) << " (" << total
              << " elements) to " << formatShape(*requested);
      return failure();
    }
    shape[inferred] = total / known;
  } else if (known != total) {
    error() << "cannot reshape " << formatShape(*in) << " (" << total
            << " elements) to " << formatShape(shape) << " (" << known
            << " elements)";
    return failure();
  }
  return reshapeOutput(0, shape);
}

LogicalResult Importer::importFlatten() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 1);
  FailureOr<Shape> in = inputShape(0);
  if (failed(axisAttr) || failed(in))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(*axisAttr, in->size(), "axis", /*inclusive=*/true);
  if (failed(axis))
    return failure();
  int64_t outer = *numElements(ArrayRef<int64_t>(*in).take_front(*axis));
  int64_t inner = *numElements(ArrayRef<int64_t>(*in).drop_front(*axis));
  return reshapeOutput(0, {outer, inner});
}

LogicalResult Importer::importSqueeze(bool unsqueeze) {
  if (failed(checkArity(unsqueeze ? 2 : 1, 2)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> axes;
  bool haveAxes = hasInput(1);
  if (haveAxes) {
    FailureOr<SmallVector<int64_t>> given = requireInts(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  Shape shape;
  if (unsqueeze) {
    int64_t rank = in->size() + axes.size();
    if (rank > kMaxRank) {
      error() << "the result would have rank " << rank;
      return failure();
    }
    FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(axes, rank);
    if (failed(normalized))
      return failure();
    auto it = in->begin();
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(llvm::is_contained(*normalized, d) ? 1 : *it++);
  } else {
    FailureOr<SmallVector<int64_t>> normalized =
        normalizeAxes(axes, in->size());
    if (failed(normalized))
      return failure();
    for (auto [d, dim] : llvm::enumerate(*in)) {
      bool listed = llvm::is_contained(*normalized, static_cast<int64_t>(d));
      if (listed && dim != 1) {
        error() << "cannot squeeze dimension " << d << " of size " << dim;
        return failure();
      }
      if (listed || (!haveAxes && dim == 1))
        continue;
      shape.push_back(dim);
    }
  }
  return reshapeOutput(0, shape);
}

LogicalResult Importer::importTranspose() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<std::optional<SmallVector<int64_t>>> permAttr = intsAttr("perm");
  if (failed(in) || failed(permAttr))
    return failure();
  int64_t rank = in->size();
  SmallVector<int64_t> perm;
  if (*permAttr)
    perm = **permAttr;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid) {
    error() << "perm " << formatShape(perm)
            << " is not a permutation of the input's " << rank << " dimensions";
    return failure();
  }
  Shape shape;
  for (int64_t p : perm)
    shape.push_back((*in)[p]);
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    const HostTensor &t = **known;
    Shape inStrides = stridesOf(t.shape), outStrides = stridesOf(shape);
    return setHost(0, gatherElements(t, shape, [&](int64_t k) {
                     return stridedSource(k, outStrides,
                                          [&](int64_t d, int64_t index) {
                                            return index * inStrides[perm[d]];
                                          });
                   }));
  }
  FailureOr<Value> v = value(0);
  if (failed(v))
    return failure();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    return setValue(0, *v);
  return setValue(0, TransposeOp::create(builder, loc,
                                         tensorType(shape, elementOf(*v)), *v,
                                         perm));
}

LogicalResult Importer::importConcat() {
  if (failed(checkArity(1, ~0u)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  if (failed(axisAttr))
    return failure();
  if (!attr("axis")) {
    error() << "has no 'axis' attribute";
    return failure();
  }
  SmallVector<Shape> shapes;
  bool allKnown = true;
  for (unsigned i = 0; i < numInputs(); ++i) {
    if (!hasInput(i)) {
      error() << "input #" << i << " is missing";
      return failure();
    }
    FailureOr<Shape> s = inputShape(i);
    FailureOr<const HostTensor *> h = hostOf(i);
    if (failed(s) || failed(h))
      return failure();
    shapes.push_back(*s);
    allKnown &= *h != nullptr;
  }
  int64_t rank = shapes[0].size();
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, rank);
  if (failed(axis))
    return failure();
  Shape shape = shapes[0];
  shape[*axis] = 0;
  for (auto [i, s] : llvm::enumerate(shapes)) {
    bool compatible = static_cast<int64_t>(s.size()) == rank;
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible = d == *axis || s[d] == shapes[0][d];
    if (!compatible) {
      error() << "input #" << i << " of shape " << formatShape(s)
              << " does not match input #0 of shape " << formatShape(shapes[0])
              << " outside axis " << *axis;
      return failure();
    }
    shape[*axis] += s[*axis];
  }
  if (failed(checkShape(shape)))
    return failure();
  if (allKnown) {
    if (failed(checkFoldSize(shape)))
      return failure();
    const HostTensor &first = **hostOf(0);
    HostTensor out = HostTensor::zeros(first.dtype, shape);
    int64_t outer = *numElements(ArrayRef<int64_t>(shape).take_front(*axis));
    int64_t inner =
        *numElements(ArrayRef<int64_t>(shape).drop_front(*axis + 1));
    int64_t offset = 0;
    for (unsigned i = 0; i < numInputs(); ++i) {
      const HostTensor &t = **hostOf(i);
      if (t.isFloat() != out.isFloat()) {
        error() << "inputs have different element types";
        return failure();
      }
      int64_t along = t.shape[*axis];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t a = 0; a < along; ++a)
          for (int64_t n = 0; n < inner; ++n) {
            int64_t src = (o * along + a) * inner + n;
            int64_t dst = (o * shape[*axis] + offset + a) * inner + n;
            if (out.isFloat())
              out.setDouble(dst, t.floats[src]);
            else
              out.setInt(dst, t.ints[src]);
          }
      offset += along;
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Type> runtimeType = firstRuntimeElement(0, numInputs());
  if (failed(runtimeType))
    return failure();
  Type element = *runtimeType;
  SmallVector<Value> values;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (elementOf(*v) != element) {
      error() << "inputs have different element types (" << typeName(element)
              << " and " << typeName(elementOf(*v)) << ")";
      return failure();
    }
    if (shapes[i][*axis] != 0)
      values.push_back(*v);
  }
  if (values.empty())
    return setValue(0, *value(0, element));
  if (values.size() == 1)
    return setValue(0, values.front());
  return setValue(0, ConcatOp::create(builder, loc, tensorType(shape, element),
                                      values, *axis));
}

LogicalResult Importer::importSlice() {
  if (failed(checkArity(3, 5)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> starts = requireInts(1, "starts");
  FailureOr<SmallVector<int64_t>> ends = requireInts(2, "ends");
  if (failed(in) || failed(starts) || failed(ends))
    return failure();
  int64_t rank = in->size();
  SmallVector<int64_t> axes, steps;
  if (hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = requireInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  }
  if (hasInput(4)) {
    FailureOr<SmallVector<int64_t>> s = requireInts(4, "steps");
    if (failed(s))
      return failure();
    steps = *s;
  } else {
    steps.assign(starts->size(), 1);
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size()) {
    error() << "starts, ends, axes and steps must have the same length";
    return failure();
  }
  FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(axes, rank);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> begin(rank, 0), step(rank, 1);
  Shape shape(*in);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = (*normalized)[i], dim = (*in)[d], s = steps[i];
    if (s == 0) {
      error() << "step 0 on axis " << axes[i];
      return failure();
    }
    auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < -dim ? -1 : v + dim; // saturate very negative values
      return std::clamp(v, lo, hi);
    };
    int64_t b, e;
    if (s > 0) {
      b = clampIndex((*starts)[i], 0, dim);
      e = clampIndex((*ends)[i], 0, dim);
      shape[d] = e > b ? (e - b - 1) / s + 1 : 0;
    } else {
      b = clampIndex((*starts)[i], -1, dim - 1);
      e = clampIndex((*ends)[i], -1, dim - 1);
      int64_t negStep = s == std::numeric_limits<int64_t>::min()
                            ? std::numeric_limits<int64_t>::max()
                            : -s;
      shape[d] = b > e ? (b - e - 1) / negStep + 1 : 0;
    }
    begin[d] = b;
    step[d] = s;
  }
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    const HostTensor &t = **known;
    Shape inStrides = stridesOf(t.shape), outStrides = stridesOf(shape);
    return setHost(0, gatherElements(t, shape, [&](int64_t k) {
                     return stridedSource(
                         k, outStrides, [&](int64_t d, int64_t index) {
                           return (begin[d] + index * step[d]) * inStrides[d];
                         });
                   }));
  }
  FailureOr<Value> v = value(0);
  if (failed(v))
    return failure();
  if (shape == *in && llvm::all_of(step, [](int64_t s) { return s == 1; }))
    return setValue(0, *v);
  SmallVector<int64_t> limits(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (step[d] < 0) {
      error() << "negative steps are only supported on tensors known at "
                 "import time";
      return failure();
    }
    limits[d] =
        shape[d] == 0 ? begin[d] : begin[d] + (shape[d] - 1) * step[d] + 1;
  }
  return setValue(0, SliceOp::create(builder, loc,
                                     tensorType(shape, elementOf(*v)), *v,
                                     begin, limits, step));
}

LogicalResult Importer::importGather() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  FailureOr<Shape> in = inputShape(0);
  FailureOr<Shape> indicesShape = inputShape(1);
  FailureOr<int32_t> indicesType = inputDType(1);
  if (failed(axisAttr) || failed(in) || failed(indicesShape) ||
      failed(indicesType))
    return failure();
  if (*indicesType != kInt64 && *indicesType != kInt32) {
    error() << "indices must be INT64 or INT32, got "
            << dtypeName(*indicesType);
    return failure();
  }
  int64_t rank = in->size();
  if (rank == 0) {
    error() << "data must have rank 1 or more";
    return failure();
  }
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, rank);
  if (failed(axis))
    return failure();
  Shape shape(ArrayRef<int64_t>(*in).take_front(*axis));
  shape.append(indicesShape->begin(), indicesShape->end());
  shape.append(in->begin() + *axis + 1, in->end());
  if (failed(checkShape(shape)))
    return failure();
  FailureOr<const HostTensor *> data = hostOf(0), indices = hostOf(1);
  if (failed(data) || failed(indices))
    return failure();
  int64_t dim = (*in)[*axis];
  // Normalized indices, when known.
  std::optional<HostTensor> idx;
  if (*indices) {
    idx = **indices;
    idx->dtype = kInt64;
    for (int64_t &i : idx->ints) {
      if (i < -dim || i >= dim) {
        error() << "index " << i << " is out of range for axis " << *axis
                << " of size " << dim;
        return failure();
      }
      if (i < 0)
        i += dim;
    }
  }
  if (*data && idx) {
    if (failed(checkFoldSize(shape)))
      return failure();
    const HostTensor &t = **data;
    HostTensor out = HostTensor::zeros(t.dtype, shape);
    int64_t outer = *numElements(ArrayRef<int64_t>(*in).take_front(*axis));
    int64_t inner = *numElements(ArrayRef<int64_t>(*in).drop_front(*axis + 1));
    int64_t count = idx->size();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < count; ++j)
        for (int64_t n = 0; n < inner; ++n) {
          int64_t src = (o * dim + idx->ints[j]) * inner + n;
          int64_t dst = (o * count + j) * inner + n;
          copyElement(out, dst, t, src);
        }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = value(0);
  if (failed(input))
    return failure();
  Value indexValue;
  if (idx) {
    indexValue = constant(*idx, tensorType(idx->shape, builder.getI64Type()));
  } else {
    FailureOr<Value> v = value(1);
    if (failed(v))
      return failure();
    indexValue = *v;
  }
  return setValue(0, GatherOp::create(builder, loc,
                                      tensorType(shape, elementOf(*input)),
                                      *input, indexValue, *axis));
}

LogicalResult Importer::importSplit() {
  if (failed(checkArity(1, 2)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  FailureOr<Shape> in = inputShape(0);
  if (failed(axisAttr) || failed(in))
    return failure();
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, in->size());
  if (failed(axis))
    return failure();
  int64_t outputs = node->output_size(), dim = (*in)[*axis];
  SmallVector<int64_t> sizes;
  if (hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = requireInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else {
    if (outputs < 1 || dim % outputs != 0) {
      error() << "cannot split size " << dim << " into " << outputs
              << " equal parts";
      return failure();
    }
    sizes.assign(outputs, dim / outputs);
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > dim) {
      error() << "invalid split size " << s;
      return failure();
    }
    total += s;
  }
  if (static_cast<int64_t>(sizes.size()) != outputs || total != dim) {
    error() << "split sizes " << formatShape(sizes) << " do not divide size "
            << dim << " into " << outputs << " outputs";
    return failure();
  }
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  int64_t rank = in->size(), offset = 0;
  for (int64_t o = 0; o < outputs; ++o) {
    Shape shape(*in);
    shape[*axis] = sizes[o];
    if (*known) {
      const HostTensor &t = **known;
      HostTensor out = HostTensor::zeros(t.dtype, shape);
      int64_t outer = *numElements(ArrayRef<int64_t>(*in).take_front(*axis));
      int64_t inner =
          *numElements(ArrayRef<int64_t>(*in).drop_front(*axis + 1));
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t b = 0; b < sizes[o]; ++b)
          for (int64_t n = 0; n < inner; ++n) {
            int64_t src = (a * dim + offset + b) * inner + n;
            int64_t dst = (a * sizes[o] + b) * inner + n;
            copyElement(out, dst, t, src);
          }
      if (hasOutput(o) && failed(setHost(o, std::move(out))))
        return failure();
    } else if (hasOutput(o)) {
      FailureOr<Value> v = value(0);
      if (failed(v))
        return failure();
      SmallVector<int64_t> starts(rank, 0), limits(*in), strides(rank, 1);
      starts[*axis] = offset;
      limits[*axis] = offset + sizes[o];
      Value slice =
          SliceOp::create(builder, loc, tensorType(shape, elementOf(*v)), *v,
                          starts, limits, strides);
      Entry e;
      e.value = slice;
      if (failed(defineOutput(o, std::move(e))))
        return failure();
    }
    offset += sizes[o];
  }
  return success();
}

LogicalResult Importer::importExpand() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> requested = requireInts(1, "shape");
  if (failed(in) || failed(requested))
    return failure();
  for (int64_t d : *requested)
    if (d < 0) {
      error() << "the shape " << formatShape(*requested)
              << " has a negative entry";
      return failure();
    }
  FailureOr<Shape> shape = broadcastShapes({*in, Shape(*requested)});
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    const HostTensor &t = **known;
    Shape os = stridesOf(*shape), is = stridesOf(t.shape);
    return setHost(0, gatherElements(t, *shape, [&](int64_t k) {
                     return broadcastSourceIndex(k, *shape, os, t.shape, is);
                   }));
  }
  FailureOr<Value> v = value(0);
  if (failed(v))
    return failure();
  return setValue(0, broadcastTo(*v, *shape));
}

LogicalResult Importer::importPad() {
  if (failed(checkArity(2, 3)))
    return failure();
  FailureOr<std::string> mode = stringAttr("mode", "constant");
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> pads = requireInts(1, "pads");
  if (failed(mode) || failed(in) || failed(pads))
    return failure();
  if (*mode != "constant") {
    error() << "mode '" << *mode << "' is not supported (only 'constant')";
    return failure();
  }
  int64_t rank = in->size();
  if (static_cast<int64_t>(pads->size()) != 2 * rank) {
    error() << "pads has " << pads->size() << " entries but the input has "
            << "rank " << rank;
    return failure();
  }
  double fill = 0.0;
  if (hasInput(2)) {
    FailureOr<double> v = requireScalar(2, "constant_value");
    if (failed(v))
      return failure();
    fill = *v;
  }
  Shape shape(*in);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = (*pads)[d], end = (*pads)[rank + d];
    if (begin < -kMaxTensorElements || begin > kMaxTensorElements ||
        end < -kMaxTensorElements || end > kMaxTensorElements ||
        shape[d] + begin + end < 0) {
      error() << "pads " << formatShape(*pads) << " do not fit the input "
              << formatShape(*in);
      return failure();
    }
    shape[d] += begin + end;
  }
  if (failed(checkShape(shape)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    if (failed(checkFoldSize(shape)))
      return failure();
    const HostTensor &t = **known;
    HostTensor out = HostTensor::zeros(t.dtype, shape);
    Shape outStrides = stridesOf(shape), inStrides = stridesOf(t.shape);
    for (int64_t k = 0; k < out.size(); ++k) {
      int64_t rest = k, src = 0;
      bool inside = true;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t index = rest / outStrides[d] - (*pads)[d];
        rest %= outStrides[d];
        inside &= index >= 0 && index < (*in)[d];
        src += index * inStrides[d];
      }
      out.setDouble(k, inside ? t.getDouble(src) : fill);
      if (!out.isFloat())
        out.setInt(k, inside ? t.getInt(src) : saturatingToInt64(fill));
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = value(0);
  if (failed(input))
    return failure();
  // Negative pads crop (a slice); positive ones concatenate constant slabs
  // along each padded dimension.
  Value x = *input;
  Type element = elementOf(x);
  SmallVector<int64_t> starts(rank, 0), limits(*in), strides(rank, 1);
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    if ((*pads)[d] < 0) {
      starts[d] = -(*pads)[d];
      crop = true;
    }
    if ((*pads)[rank + d] < 0) {
      limits[d] += (*pads)[rank + d];
      crop = true;
    }
  }
  if (crop) {
    Shape cropped;
    for (int64_t d = 0; d < rank; ++d)
      cropped.push_back(limits[d] - starts[d]);
    x = SliceOp::create(builder, loc, tensorType(cropped, element), x, starts,
                        limits, strides);
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = std::max<int64_t>((*pads)[d], 0);
    int64_t end = std::max<int64_t>((*pads)[rank + d], 0);
    if (!begin && !end)
      continue;
    Shape current(shapeOf(x));
    SmallVector<Value> parts;
    HostTensor fillTensor = HostTensor::zeros(kDouble, {});
    fillTensor.floats[0] = fill;
    auto slab = [&](int64_t size) {
      Shape slabShape = current;
      slabShape[d] = size;
      return constant(fillTensor, tensorType(slabShape, element));
    };
    if (begin)
      parts.push_back(slab(begin));
    parts.push_back(x);
    if (end)
      parts.push_back(slab(end));
    Shape padded = current;
    padded[d] += begin + end;
    x = ConcatOp::create(builder, loc, tensorType(padded, element), parts, d);
  }
  return setValue(0, x);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Importer::importNode() {
  const std::string &op = node->op_type();
  if (!node->domain().empty() && node->domain() != "ai.onnx") {
    error() << "op '" << op << "' of domain '" << node->domain()
            << "' is not supported (only the default ONNX domain is)";
    return failure();
  }
  attributes.clear();
  for (const onnx::AttributeProto &a : node->attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH ||
        a.type() == onnx::AttributeProto::GRAPHS) {
      error() << "ops with subgraphs (attribute '" << a.name()
              << "') are not supported";
      return failure();
    }
    if (!attributes.try_emplace(a.name(), &a).second) {
      error() << "attribute '" << a.name() << "' is given twice";
      return failure();
    }
  }
  // clang-format off
  if (op == "Add") return importArith(Arith::Add);
  if (op == "Sub") return importArith(Arith::Sub);
  if (op == "Mul") return importArith(Arith::Mul);
  if (op == "Div") return importArith(Arith::Div);
  if (op == "Pow") return importArith(Arith::Pow);
  if (op == "Max") return importVariadic(Arith::Max);
  if (op == "Min") return importVariadic(Arith::Min);
  if (op == "Equal") return importCompare(Compare::EQ);
  if (op == "Greater") return importCompare(Compare::GT);
  if (op == "Less") return importCompare(Compare::LT);
  if (op == "GreaterOrEqual") return importCompare(Compare::GE);
  if (op == "LessOrEqual") return importCompare(Compare::LE);
  if (op == "Not" || op == "And" || op == "Or") return importLogical(op);
  if (op == "Relu") return importUnary(Unary::Relu);
  if (op == "Erf") return importUnary(Unary::Erf);
  if (op == "Tanh") return importUnary(Unary::Tanh);
  if (op == "Sigmoid") return importUnary(Unary::Sigmoid);
  if (op == "Sqrt") return importUnary(Unary::Sqrt);
  if (op == "Neg") return importUnary(Unary::Neg);
  if (op == "Exp") return importUnary(Unary::Exp);
  if (op == "Log") return importUnary(Unary::Log);
  if (op == "Reciprocal") return importUnary(Unary::Reciprocal);
  if (op == "Abs") return importUnary(Unary::Abs);
  if (op == "Where") return importWhere();
  if (op == "Clip") return importClip();
  if (op == "Cast") return importCast(false);
  if (op == "CastLike") return importCast(true);
  if (op == "Softmax") return importSoftmax(false);
  if (op == "LogSoftmax") return importSoftmax(true);
  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax")
    return importReduce(op);
  if (op == "MatMul") return importMatMul();
  if (op == "Gemm") return importGemm();
  if (op == "Conv") return importConv();
  if (op == "MaxPool") return importPool(true);
  if (op == "AveragePool") return importPool(false);
  if (op == "GlobalAveragePool") return importGlobalAveragePool();
  if (op == "BatchNormalization") return importBatchNorm();
  if (op == "InstanceNormalization") return importInstanceNorm();
  if (op == "LayerNormalization") return importLayerNorm();
  if (op == "Dropout") return importDropout();
  if (op == "Constant") return importConstant();
  if (op == "Identity") return importIdentity();
  if (op == "Shape") return importShape();
  if (op == "Size") return importSize();
  if (op == "ConstantOfShape") return importConstantOfShape();
  if (op == "Range") return importRange();
  if (op == "Reshape") return importReshape();
  if (op == "Flatten") return importFlatten();
  if (op == "Squeeze") return importSqueeze(false);
  if (op == "Unsqueeze") return importSqueeze(true);
  if (op == "Transpose") return importTranspose();
  if (op == "Concat") return importConcat();
  if (op == "Slice") return importSlice();
  if (op == "Gather") return importGather();
  if (op == "Split") return importSplit();
  if (op == "Expand") return importExpand();
  if (op == "Pad") return importPad();
  // clang-format on
  error() << "op type '" << op << "' (opset " << opset
          << ") is not supported by the amp importer (docs/ONNX.md lists the "
             "supported ops)";
  return failure();
}

//===----------------------------------------------------------------------===//
// Outputs and the function
//===----------------------------------------------------------------------===//

LogicalResult
Importer::importOutputs(SmallVectorImpl<Value> &results,
                        SmallVectorImpl<DictionaryAttr> &resultAttrs) {
  node = nullptr;
  loc = fileLoc;
  std::optional<size_t> lossIndex;
  SmallVector<size_t> lossCandidates;
  llvm::StringSet<> outputNames;
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    if (!outputNames.insert(output.name()).second) {
      modelError() << "graph output '" << output.name() << "' is listed twice";
      return failure();
    }
    auto it = entries.find(output.name());
    if (it == entries.end()) {
      modelError() << "graph output '" << output.name()
                   << "' is not produced by any node, input or initializer";
      return failure();
    }
    Entry &e = it->second;
    Value v;
    if (e.value) {
      v = e.value;
    } else if (e.initializer && isFloatDType(e.initializer->data_type())) {
      // valueOf needs a node for its diagnostics only on failure paths that
      // cannot happen for a valid float initializer.
      const onnx::TensorProto &init = *e.initializer;
      Type element = runtimeElementType(init.data_type(), context);
      Shape shape;
      std::string message;
      if (!element || !readTensorShape(init, shape, message)) {
        modelError() << "graph output '" << output.name()
                     << "' is an initializer of an unsupported type or shape";
        return failure();
      }
      v = body->addArgument(tensorType(shape, element), fileLoc);
      args.push_back(
          {ArgKind::Initializer, init.name(), e.initializerIndex, v});
      e.value = v;
    } else {
      if (!e.host) {
        HostTensor t;
        std::string message;
        if (!decodeTensor(*e.initializer, source, t, message,
                          options.maxFoldedElements)) {
          modelError() << "initializer '" << e.initializer->name() << "' "
                       << message;
          return failure();
        }
        e.host = std::make_shared<HostTensor>(std::move(t));
      }
      builder.setInsertionPointToEnd(body.get());
      Type element = runtimeElementType(e.host->dtype, context);
      if (!element) {
        modelError() << "graph output '" << output.name()
                     << "' is a constant of type " << dtypeName(e.host->dtype)
                     << ", which amp cannot represent";
        return failure();
      }
      v = constant(*e.host, tensorType(e.host->shape, element));
    }
    // Check the declared type where it is static.
    if (output.type().has_tensor_type()) {
      const onnx::TypeProto::Tensor &declared = output.type().tensor_type();
      ArrayRef<int64_t> shape = shapeOf(v);
      if (declared.has_shape()) {
        bool mismatch =
            declared.shape().dim_size() != static_cast<int>(shape.size());
        for (int d = 0; !mismatch && d < declared.shape().dim_size(); ++d)
          mismatch = declared.shape().dim(d).has_dim_value() &&
                     declared.shape().dim(d).dim_value() != shape[d];
        if (mismatch) {
          Shape declaredShape;
          for (const auto &dim : declared.shape().dim())
            declaredShape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
          modelError() << "graph output '" << output.name()
                       << "' is declared with shape "
                       << formatShape(declaredShape)
                       << " but the importer computed " << formatShape(shape);
          return failure();
        }
      }
      if (declared.elem_type() != kUndefined &&
          declared.elem_type() != dtypeOf(elementOf(v))) {
        modelError() << "graph output '" << output.name() << "' is declared as "
                     << dtypeName(declared.elem_type()) << " but computes "
                     << typeName(elementOf(v));
        return failure();
      }
    }
    results.push_back(v);
    bool scalarF32 = shapeOf(v).empty() && elementOf(v).isF32();
    if (options.lossOutput.empty() && scalarF32 &&
        StringRef(output.name()).contains_insensitive("loss"))
      lossCandidates.push_back(index);
    if (!options.lossOutput.empty() && options.lossOutput == output.name()) {
      if (!scalarF32) {
        modelError() << "--loss-output '" << output.name()
                     << "' is not a 0-d f32 tensor";
        return failure();
      }
      lossIndex = index;
    }
  }
  if (!options.lossOutput.empty() && options.lossOutput != "-" && !lossIndex) {
    modelError() << "--loss-output '" << options.lossOutput
                 << "' is not a graph output";
    return failure();
  }
  if (lossCandidates.size() == 1)
    lossIndex = lossCandidates.front();
  Builder b(context);
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    Role role = lossIndex && *lossIndex == index ? Role::Loss : Role::Output;
    resultAttrs.push_back(
        b.getDictionaryAttr({b.getNamedAttr(AMPDialect::kRoleAttrName,
                                            RoleAttr::get(context, role)),
                             b.getNamedAttr(AMPDialect::kNameAttrName,
                                            b.getStringAttr(output.name()))}));
  }
  // Updated running statistics are returned as buffers, after the outputs.
  for (auto &[name, update] : bufferUpdates) {
    results.push_back(update);
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(AMPDialect::kRoleAttrName,
                        RoleAttr::get(context, Role::Buffer)),
         b.getNamedAttr(AMPDialect::kNameAttrName, b.getStringAttr(name))}));
  }
  return success();
}

Role Importer::argumentRole(const ArgInfo &info) const {
  if (info.kind != ArgKind::Initializer)
    return Role::Input;
  return bufferNames.contains(info.name) ? Role::Buffer : Role::Parameter;
}

/// Arguments are found by name (amp.name, checkpoints, amp-run --input):
/// a Dropout seed must not take the name of a graph input, an initializer
/// or another seed.
LogicalResult Importer::checkArgumentNames() {
  llvm::StringSet<> names;
  for (const ArgInfo &info : args) {
    if (names.insert(info.name).second)
      continue;
    modelError() << "two arguments of the imported function would be named '"
                 << info.name
                 << "' (Dropout seeds are named after their node, NODE.seed, "
                    "and must not take the name of a graph input, an "
                    "initializer or another seed)";
    return failure();
  }
  return success();
}

/// Reads the contents of every initializer argument, in argument order.
/// Nothing in the IR changes, so a bad initializer leaves the importer's
/// blocks as they are and they are destroyed together.
FailureOr<std::vector<ONNXInitialValue>>
Importer::readInitialValues(ArrayRef<size_t> order) {
  // External data lets a small model name the same bytes many times: refuse
  // to read more than the machine holds rather than be killed for it.
  uint64_t bytes = 0;
  for (const ArgInfo &info : args)
    if (info.kind == ArgKind::Initializer) {
      auto type = cast<RankedTensorType>(info.arg.getType());
      bytes += static_cast<uint64_t>(type.getNumElements()) *
               type.getElementTypeBitWidth() / 8;
    }
  uint64_t memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                    static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (memory > 0 && bytes > memory) {
    modelError() << "the initial values of the parameters and buffers need "
                 << bytes << " bytes, more than this machine's memory ("
                 << memory << " bytes)";
    return failure();
  }
  std::vector<ONNXInitialValue> initialValues;
  for (size_t i : order) {
    const ArgInfo &info = args[i];
    if (info.kind != ArgKind::Initializer)
      continue;
    ONNXInitialValue initial;
    initial.name = info.name;
    initial.role = argumentRole(info);
    initial.type = cast<RankedTensorType>(info.arg.getType());
    std::string message;
    if (!decodeFloatBytes(graph.initializer(static_cast<int>(info.order)),
                          source, initial.data, message)) {
      modelError() << "initializer '" << info.name << "' " << message;
      return failure();
    }
    initialValues.push_back(std::move(initial));
  }
  return initialValues;
}

FailureOr<ONNXImportResult>
Importer::finish(ArrayRef<Value> results,
                 ArrayRef<DictionaryAttr> resultAttrs) {
  // Arguments: graph inputs, dropout seeds, then initializers in their
  // graph order.
  std::vector<size_t> order(args.size());
  std::iota(order.begin(), order.end(), 0);
  auto rank = [](ArgKind kind) {
    return kind == ArgKind::Input ? 0 : kind == ArgKind::Seed ? 1 : 2;
  };
  // (kind, order) is unique per argument, so a plain sort is stable.
  llvm::sort(order, [&](size_t x, size_t y) {
    if (rank(args[x].kind) != rank(args[y].kind))
      return rank(args[x].kind) < rank(args[y].kind);
    return args[x].order < args[y].order;
  });
  // Everything that can fail happens before the body's values move to the
  // function: once an argument is replaced, the ops of `body` use values of
  // the module, and the two must not be destroyed separately.
  if (failed(checkArgumentNames()))
    return failure();
  FailureOr<std::vector<ONNXInitialValue>> initialValues =
      readInitialValues(order);
  if (failed(initialValues))
    return failure();

  Builder b(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module->getBody());
  SmallVector<Type> argTypes, resultTypes;
  for (size_t i : order)
    argTypes.push_back(args[i].arg.getType());
  for (Value v : results)
    resultTypes.push_back(v.getType());
  auto func =
      func::FuncOp::create(moduleBuilder, fileLoc, options.functionName,
                           FunctionType::get(context, argTypes, resultTypes));
  func->setAttr(AMPDialect::kGraphAttrName,
                GraphKindAttr::get(context, GraphKind::Forward));

  Block *entry = new Block();
  func.getBody().push_back(entry);
  DenseMap<Value, Value> replaced;
  for (auto [position, i] : llvm::enumerate(order)) {
    const ArgInfo &info = args[i];
    BlockArgument arg = entry->addArgument(info.arg.getType(), fileLoc);
    Value old = info.arg;
    old.replaceAllUsesWith(arg);
    replaced[info.arg] = arg;
    func.setArgAttrs(
        position,
        b.getDictionaryAttr(
            {b.getNamedAttr(AMPDialect::kRoleAttrName,
                            RoleAttr::get(context, argumentRole(info))),
             b.getNamedAttr(AMPDialect::kNameAttrName,
                            b.getStringAttr(info.name))}));
  }
  // Move the ops, which now use the function's arguments, into it.
  entry->getOperations().splice(entry->end(), body->getOperations());
  OpBuilder returnBuilder = OpBuilder::atBlockEnd(entry);
  SmallVector<Value> returned;
  for (Value v : results)
    returned.push_back(replaced.lookup(v) ? replaced.lookup(v) : v);
  func::ReturnOp::create(returnBuilder, fileLoc, returned);
  for (auto [i, attrs] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(i, attrs);

  ONNXImportResult result;
  result.module = std::move(module);
  result.functionName = options.functionName;
  result.initialValues = std::move(*initialValues);
  return result;
}

FailureOr<ONNXImportResult> Importer::run() {
  if (failed(checkModel()) || failed(importInputs()))
    return failure();
  for (const onnx::NodeProto &n : graph.node()) {
    for (const std::string &input : n.input())
      if (!input.empty())
        ++useCounts[input];
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    ++useCounts[output.name()];

  builder.setInsertionPointToEnd(body.get());
  for (auto [index, n] : llvm::enumerate(graph.node())) {
    node = &n;
    nodeIndex = static_cast<int64_t>(index);
    loc = NameLoc::get(
        StringAttr::get(context, n.name().empty()
                                     ? n.op_type() + "#" + std::to_string(index)
                                     : n.name()),
        fileLoc);
    if (failed(importNode()))
      return failure();
  }
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  if (failed(importOutputs(results, resultAttrs)))
    return failure();
  return finish(results, resultAttrs);
}

/// amp has no empty tensors: a parameter or a node result with a zero
/// dimension (an empty initializer, a Slice or Split to nothing) is
/// reported at its node instead of failing later in the pipeline.
LogicalResult checkNoEmptyTensors(ModuleOp module) {
  auto isEmpty = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getNumElements() == 0;
  };
  WalkResult walk = module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (isEmpty(result.getType())) {
        emitError(op->getLoc())
            << "a value of type " << result.getType()
            << " has no elements; amp does not support empty tensors";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isEmpty(type)) {
        emitError(func.getLoc())
            << "argument '"
            << func.getArgAttrOfType<StringAttr>(index,
                                                 AMPDialect::kNameAttrName)
                   .getValue()
            << "' of type " << type
            << " has no elements; amp does not support empty tensors";
        return failure();
      }
  return success();
}

/// Parses a ModelProto without protobuf's default 64 MiB limit (models up
/// to 2 GiB; larger ones must use external data).
bool parseModel(StringRef bytes, onnx::ModelProto &model) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return false;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
  stream.SetRecursionLimit(64);
  return model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

FailureOr<ONNXImportResult>
mlir::amp::importONNXBuffer(StringRef bytes, StringRef modelPath,
                            MLIRContext *context,
                            const ONNXImportOptions &options) {
  context->loadDialect<AMPDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(
      context, modelPath.empty() ? "<onnx buffer>" : modelPath, 0, 0);
  if (bytes.empty()) {
    emitError(fileLoc) << "the ONNX file is empty";
    return failure();
  }
  onnx::ModelProto model;
  if (!parseModel(bytes, model)) {
    emitError(fileLoc)
        << "cannot parse the file as an ONNX model (a serialized "
           "onnx.ModelProto): it is truncated, corrupt or not ONNX, or it "
           "nests messages (subgraphs, attributes) deeper than 64 levels";
    return failure();
  }
  if (options.functionName.empty()) {
    emitError(fileLoc) << "the function name must not be empty";
    return failure();
  }
  Importer importer(context, model, modelPath, options);
  FailureOr<ONNXImportResult> result = importer.run();
  if (failed(result))
    return failure();
  if (failed(checkNoEmptyTensors(*result->module)))
    return failure();
  if (failed(mlir::verify(*result->module))) {
    emitError(fileLoc) << "internal error: the imported module does not "
                          "verify (please report this model)";
    return failure();
  }
  if (options.raise) {
    if (failed(raiseONNXIdioms(*result->module)) ||
        failed(mlir::verify(*result->module))) {
      emitError(fileLoc) << "internal error: raising the imported module "
                            "failed (please report this model)";
      return failure();
    }
  }
  return result;
}

/// Reads the model file. Protobuf parses at most 2 GiB, so no more is read:
/// a larger file, or an endless one (/dev/zero), is refused rather than
/// exhausting memory. Regular files are mapped, others read.
static std::unique_ptr<llvm::MemoryBuffer> readModelFile(StringRef path,
                                                         Location loc) {
  constexpr size_t kLimit = std::numeric_limits<int>::max();
  auto tooLarge = [&] {
    emitError(loc) << "'" << path
                   << "' is larger than 2 GiB, the most protobuf can parse "
                      "(larger models keep their weights in external data)";
    return nullptr;
  };
  auto cannotRead = [&](const std::string &reason) {
    emitError(loc) << "cannot read '" << path << "': " << reason;
    return nullptr;
  };
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return cannotRead(ec.message());
  if (llvm::sys::fs::is_regular_file(status) ||
      llvm::sys::fs::is_directory(status)) {
    if (status.getSize() > kLimit)
      return tooLarge();
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return cannotRead(buffer.getError().message());
    return std::move(*buffer);
  }
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return cannotRead(llvm::toString(file.takeError()));
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(*file); });
  SmallVector<char, 0> bytes;
  std::vector<char> chunk(1 << 20);
  while (bytes.size() <= kLimit) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(*file, chunk);
    if (!read)
      return cannotRead(llvm::toString(read.takeError()));
    if (*read == 0)
      return llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(bytes.data(), bytes.size()), path);
    bytes.append(chunk.begin(), chunk.begin() + *read);
  }
  return tooLarge();
}

FailureOr<ONNXImportResult>
mlir::amp::importONNXFile(StringRef path, MLIRContext *context,
                          const ONNXImportOptions &options) {
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readModelFile(path, FileLineColLoc::get(context, path, 0, 0));
  if (!buffer)
    return failure();
  return importONNXBuffer(buffer->getBuffer(), path, context, options);
}
