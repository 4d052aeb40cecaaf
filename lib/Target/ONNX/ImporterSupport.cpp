//===- ImporterSupport.cpp - What ONNX op handlers share ------------------===//
//
// Diagnostics naming the node, reading inputs (run-time values, tensors
// known at import time, initializers) and attributes, defining outputs.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/Matchers.h"
#include "onnx/onnx_pb.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

StringRef Importer::inputShapeOption() const {
  if (options.inputShapeOption.empty())
    return "--input-shape";
  return options.inputShapeOption;
}

std::string Importer::inputShapeAdvice(StringRef name) const {
  std::string flag = (inputShapeOption() + " " + name + "=D0xD1x...").str();
  if (!options.inputShapeOption.empty())
    return "with " + flag;
  std::string model = modelPath.empty() ? "MODEL.onnx" : modelPath;
  return "when importing the model: amp-translate --import-onnx " + model +
         " " + flag + " -o MODEL.mlir, then use MODEL.mlir";
}

std::string Importer::nodeLabel() const {
  std::string label = node->name().empty() ? "#" + std::to_string(nodeIndex)
                                           : "'" + node->name() + "'";
  return label + " (" + node->op_type() + ")";
}

InFlightDiagnostic Importer::error() {
  InFlightDiagnostic diag = emitError(loc);
  diag << "node " << nodeLabel() << ": ";
  return diag;
}

std::string Importer::typeName(Type element) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << element;
  return text;
}

Value Importer::splat(double value, RankedTensorType type) {
  HostTensor tensor = HostTensor::zeros(kDouble, {});
  tensor.floats[0] = value;
  return constant(tensor, type);
}

Value Importer::broadcastTo(Value value, ArrayRef<int64_t> shape) {
  if (shapeOf(value) == shape)
    return value;
  return BroadcastOp::create(builder, loc, tensorType(shape, elementOf(value)),
                             value);
}

Value Importer::reshapeTo(Value value, ArrayRef<int64_t> shape) {
  if (shapeOf(value) == shape)
    return value;
  return ReshapeOp::create(builder, loc, tensorType(shape, elementOf(value)),
                           value);
}

FailureOr<Shape> Importer::broadcastShapes(ArrayRef<Shape> shapes) {
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

LogicalResult Importer::checkFoldSize(ArrayRef<int64_t> shape) {
  std::optional<int64_t> count = numElements(shape);
  if (!count) {
    error() << "the shape " << formatShape(shape) << " is invalid or too large";
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

LogicalResult Importer::countHostElements(int64_t elements) {
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

LogicalResult Importer::checkShape(ArrayRef<int64_t> shape) {
  if (static_cast<int64_t>(shape.size()) > kMaxRank || !numElements(shape)) {
    error() << "the result shape " << formatShape(shape)
            << " is invalid or too large";
    return failure();
  }
  return success();
}

std::optional<HostTensor> Importer::foldWithAMP(
    ArrayRef<const HostTensor *> operands, int32_t dtype,
    function_ref<Operation *(OpBuilder &, ValueRange)> create) {
  Block scratch;
  OpBuilder b(context);
  b.setInsertionPointToEnd(&scratch);
  SmallVector<Value> values;
  SmallVector<Attribute> constants;
  for (const HostTensor *operand : operands) {
    Type element =
        operand->isFloat() ? Type(b.getF64Type()) : Type(b.getIntegerType(64));
    auto type = tensorType(operand->shape, element);
    DenseElementsAttr attr = toDenseAttr(*operand, type);
    values.push_back(ConstantOp::create(b, loc, type, attr));
    constants.push_back(attr);
  }
  Operation *op = create(b, values);
  SmallVector<OpFoldResult> folded;
  Attribute result;
  if (succeeded(op->fold(constants, folded)) && folded.size() == 1) {
    result = dyn_cast<Attribute>(folded.front());
    if (auto value = dyn_cast<Value>(folded.front()))
      matchPattern(value, m_Constant(&result));
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(result);
  if (!dense)
    return std::nullopt;
  return fromDenseAttr(dense, dtype);
}

LogicalResult Importer::checkArity(unsigned minInputs, unsigned maxInputs) {
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

FailureOr<Entry *> Importer::entry(unsigned i) {
  auto it = entries.find(node->input(i));
  if (it == entries.end()) {
    error() << inputLabel(i)
            << " is not a graph input, an initializer or the output of an "
               "earlier node (is the graph topologically sorted?)";
    return failure();
  }
  if (it->second.uniform) {
    error() << inputLabel(i)
            << " holds uniform random samples (RandomUniform), which amp "
               "draws only as Bernoulli masks: compared with a constant "
               "(torch.rand(...) < p) or as floor(rand + p), the drop path "
               "of stochastic depth; use F.dropout or a mask drawn that way";
    return failure();
  }
  return &it->second;
}

const UniformSamples *Importer::uniformOf(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = entries.find(node->input(i));
  return it == entries.end() ? nullptr : it->second.uniform.get();
}

FailureOr<std::shared_ptr<HostTensor>> Importer::decodeInitializer(Entry &e) {
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

FailureOr<const HostTensor *> Importer::hostOf(unsigned i) {
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

FailureOr<const HostTensor *> Importer::requireHost(unsigned i,
                                                    StringRef what) {
  FailureOr<const HostTensor *> known = hostOf(i);
  if (failed(known))
    return failure();
  if (*known)
    return *known;
  Entry *e = *entry(i);
  if (e->initializer) {
    // Reading a trained tensor here would freeze it into a constant.
    if (options.trainable && trainableNames.contains(e->initializer->name())) {
      error() << inputLabel(i) << " (" << what
              << ") must be known at import time, but it is the trainable "
                 "initializer '"
              << e->initializer->name() << "'";
      return failure();
    }
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

FailureOr<SmallVector<int64_t>> Importer::requireInts(unsigned i,
                                                      StringRef what) {
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

FailureOr<double> Importer::requireScalar(unsigned i, StringRef what) {
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

FailureOr<Value> Importer::parameterArgument(Entry &e) {
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
  args.push_back({ArgKind::Initializer, init.name(), e.initializerIndex, arg});
  e.value = arg;
  return arg;
}

FailureOr<Value> Importer::valueOf(Entry &e, StringRef name, Type element) {
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

FailureOr<Value> Importer::value(unsigned i, Type element) {
  FailureOr<Entry *> e = entry(i);
  if (failed(e))
    return failure();
  return valueOf(**e, node->input(i), element);
}

FailureOr<Type> Importer::runtimeElement(unsigned i) {
  FailureOr<Value> v = value(i);
  if (failed(v))
    return failure();
  return elementOf(*v);
}

FailureOr<Type> Importer::firstRuntimeElement(unsigned begin, unsigned end) {
  for (unsigned i = begin; i < end; ++i)
    if (!*hostOf(i))
      return runtimeElement(i);
  return Type();
}

LogicalResult Importer::inputShapes(unsigned count,
                                    SmallVectorImpl<Shape> &shapes,
                                    bool &allKnown) {
  allKnown = true;
  for (unsigned i = 0; i < count; ++i) {
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
  return success();
}

FailureOr<Value> Importer::floatValue(unsigned i, StringRef what) {
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

FailureOr<Value> Importer::floatInputOfRank(StringRef what, StringRef label,
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

FailureOr<Value> Importer::operandAs(unsigned i, Type element,
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
    error() << inputLabel(i) << " has element type " << typeName(elementOf(*v))
            << " but the op computes in " << typeName(element);
    return failure();
  }
  return broadcastTo(*v, shape);
}

FailureOr<std::pair<Value, Value>>
Importer::binaryOperands(Type element, ArrayRef<int64_t> shape) {
  FailureOr<Value> lhs = operandAs(0, element, shape);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = operandAs(1, element, shape);
  if (failed(rhs))
    return failure();
  return std::make_pair(*lhs, *rhs);
}

FailureOr<Shape> Importer::inputShape(unsigned i) {
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
    error() << "initializer '" << (*e)->initializer->name() << "' " << message;
    return failure();
  }
  return shape;
}

FailureOr<int32_t> Importer::inputDType(unsigned i) {
  FailureOr<Entry *> e = entry(i);
  if (failed(e))
    return failure();
  if ((*e)->host)
    return (*e)->host->dtype;
  if ((*e)->value)
    return dtypeOf(elementOf((*e)->value));
  return (*e)->initializer->data_type();
}

LogicalResult Importer::defineOutput(unsigned i, Entry e) {
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

LogicalResult Importer::setValue(unsigned i, Value v) {
  Entry e;
  e.value = v;
  return defineOutput(i, std::move(e));
}

std::optional<LogicalResult> Importer::foldStridedOnHost(
    ArrayRef<int64_t> shape,
    function_ref<int64_t(ArrayRef<int64_t>, int64_t, int64_t)> share) {
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (!*known)
    return std::nullopt;
  const HostTensor &t = **known;
  Shape inStrides = stridesOf(t.shape), outStrides = stridesOf(shape);
  return setHost(0, gatherElements(t, shape, [&](int64_t k) {
                   return stridedSource(k, outStrides,
                                        [&](int64_t d, int64_t index) {
                                          return share(inStrides, d, index);
                                        });
                 }));
}

LogicalResult Importer::setHost(unsigned i, HostTensor tensor) {
  if (failed(checkFoldSize(tensor.shape)) ||
      failed(countHostElements(tensor.size())))
    return failure();
  Entry e;
  e.host = std::make_shared<HostTensor>(std::move(tensor));
  return defineOutput(i, std::move(e));
}

FailureOr<int64_t> Importer::intAttr(StringRef name, int64_t defaultValue) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return defaultValue;
  if (a->type() != onnx::AttributeProto::INT) {
    error() << "attribute '" << name << "' must be an integer";
    return failure();
  }
  return a->i();
}

FailureOr<double> Importer::floatAttr(StringRef name, double defaultValue) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return defaultValue;
  if (a->type() != onnx::AttributeProto::FLOAT) {
    error() << "attribute '" << name << "' must be a float";
    return failure();
  }
  return static_cast<double>(a->f());
}

FailureOr<double> Importer::epsilonAttr() {
  FailureOr<double> epsilon = floatAttr("epsilon", 1e-5);
  if (succeeded(epsilon) && !(*epsilon >= 0 && std::isfinite(*epsilon))) {
    error() << "epsilon " << *epsilon << " must be non-negative and finite";
    return failure();
  }
  return epsilon;
}

FailureOr<std::optional<SmallVector<int64_t>>>
Importer::intsAttr(StringRef name) {
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

FailureOr<std::string> Importer::stringAttr(StringRef name,
                                            StringRef defaultValue) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return defaultValue.str();
  if (a->type() != onnx::AttributeProto::STRING) {
    error() << "attribute '" << name << "' must be a string";
    return failure();
  }
  return a->s();
}

FailureOr<int64_t> Importer::normalizeAxis(int64_t axis, int64_t rank,
                                           StringRef what, bool inclusive) {
  int64_t bound = inclusive ? rank + 1 : rank;
  if (axis < -bound || axis >= bound) {
    error() << what << " " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return axis < 0 ? axis + bound : axis;
}

FailureOr<SmallVector<int64_t>> Importer::normalizeAxes(ArrayRef<int64_t> axes,
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

LogicalResult Importer::windowAttrs(std::string &autoPad,
                                    std::optional<SmallVector<int64_t>> &kernel,
                                    Window &window) {
  FailureOr<std::string> autoPadAttr = stringAttr("auto_pad", "NOTSET");
  FailureOr<std::optional<SmallVector<int64_t>>> kernelAttr =
      intsAttr("kernel_shape");
  FailureOr<std::optional<SmallVector<int64_t>>> strides = intsAttr("strides");
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

bool Importer::outputOnlyFeeds(unsigned i, ArrayRef<StringRef> opTypes) const {
  if (!hasOutput(i))
    return false;
  const std::string &name = node->output(i);
  for (const onnx::ValueInfoProto &output : graph.output())
    if (output.name() == name)
      return false;
  bool used = false;
  for (const onnx::NodeProto &consumer : graph.node())
    for (const std::string &input : consumer.input())
      if (input == name) {
        if (!llvm::is_contained(opTypes, StringRef(consumer.op_type())))
          return false;
        used = true;
      }
  return used;
}
