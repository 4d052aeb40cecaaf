//===- NormalizationOps.cpp - ONNX normalizations, reductions -------------===//
//
// Softmax, the reductions, BatchNormalization, InstanceNormalization,
// GroupNormalization, LayerNormalization and Dropout.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

/// The shortest decimal that rounds to the same f32 as `value`. ONNX stores
/// float attributes as f32 (PyTorch's eps=1e-5 arrives as
/// 9.99999974737875e-06); the amp ops hold f64, and the decimal is what the
/// model author wrote.
static double shortestF32Decimal(double value) {
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

LogicalResult Importer::importReduce(StringRef kind, bool axesInput) {
  if (failed(checkArity(1, axesInput ? 2 : 1)))
    return failure();
  if (axesInput && attr("axes")) {
    error() << "has an 'axes' attribute, but from opset "
            << (kind == "ReduceSum" ? 13 : 18)
            << " the axes are its second input";
    return failure();
  }
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

/// `version` is the since-version of the registration: training_mode is an
/// attribute from opset 14; before, the optional outputs say training.
LogicalResult Importer::importBatchNorm(int64_t version) {
  if (failed(checkArity(5, 5)))
    return failure();
  FailureOr<double> epsilon = epsilonAttr();
  FailureOr<double> momentum = floatAttr("momentum", 0.9);
  if (failed(epsilon) || failed(momentum))
    return failure();
  bool training;
  if (version >= 14) {
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
  if (outputUsed(4) || (version < 14 && !training && outputUsed(3))) {
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
      (version < 14 && failed(setValue(3, op.getSavedMean()))))
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
  FailureOr<Value> xValue = floatInputOfRank("X", "X", 1);
  if (failed(xValue))
    return failure();
  Value x = *xValue;
  ArrayRef<int64_t> xs = shapeOf(x);
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

/// GroupNormalization: amp.group_norm, whose weight and bias are per
/// channel. Opset 18's scale and bias per group are repeated over each
/// group's channels at run time (a broadcast, so their gradients sum over
/// the group).
LogicalResult Importer::importGroupNorm(int64_t version) {
  if (failed(checkArity(3, 3)))
    return failure();
  FailureOr<double> epsilon = epsilonAttr();
  FailureOr<int64_t> groups = intAttr("num_groups", 0);
  FailureOr<int64_t> stash = intAttr("stash_type", 1);
  if (failed(epsilon) || failed(groups) || failed(stash))
    return failure();
  if (!attr("num_groups")) {
    error() << "has no num_groups attribute";
    return failure();
  }
  if (*stash != 1) {
    error() << "stash_type " << *stash
            << " is not supported (amp keeps the statistics in f32, "
               "stash_type 1)";
    return failure();
  }
  FailureOr<Value> xValue = floatInputOfRank("X", "X", 3);
  if (failed(xValue))
    return failure();
  Value x = *xValue;
  ArrayRef<int64_t> xs = shapeOf(x);
  Type element = elementOf(x);
  int64_t channels = xs[1];
  if (*groups < 1 || channels % *groups != 0) {
    error() << "num_groups " << *groups << " does not divide the " << channels
            << " channels";
    return failure();
  }
  int64_t perParameter = version >= 21 ? channels : *groups;
  Value affine[2];
  for (unsigned i = 1; i < 3; ++i) {
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (shapeOf(*v) != ArrayRef<int64_t>{perParameter} ||
        (elementOf(*v) != element && !elementOf(*v).isF32())) {
      error() << (i == 1 ? "scale" : "bias") << " must be a 1-d tensor of "
              << perParameter << " elements (one per "
              << (version >= 21 ? "channel" : "group") << " at opset " << opset
              << "), got " << typeName(v->getType());
      return failure();
    }
    Value a = *v;
    if (version < 21)
      a = reshapeTo(broadcastTo(reshapeTo(a, {*groups, 1}),
                                {*groups, channels / *groups}),
                    {channels});
    affine[i - 1] = a;
  }
  RankedTensorType stat = tensorType({xs[0], *groups}, builder.getF32Type());
  auto op = GroupNormOp::create(
      builder, loc, x.getType(), stat, stat, x, affine[0], affine[1],
      builder.getI64IntegerAttr(*groups),
      builder.getF64FloatAttr(shortestF32Decimal(*epsilon)));
  return setValue(0, op.getOutput());
}

void mlir::amp::onnx_import::registerNormalizationHandlers(OpTable &table) {
  table.onOp("Softmax", kMinOpset,
             [](Importer &im) { return im.importSoftmax(/*log=*/false); });
  table.onOp("LogSoftmax", kMinOpset,
             [](Importer &im) { return im.importSoftmax(/*log=*/true); });
  // ReduceSum takes its axes as an input from opset 13; the others as an
  // attribute until opset 18.
  table.onOp("ReduceSum", kMinOpset, [](Importer &im) {
    return im.importReduce("ReduceSum", /*axesInput=*/true);
  });
  for (StringRef opType : {"ReduceMean", "ReduceMax"}) {
    table.onOp(opType, kMinOpset, [opType](Importer &im) {
      return im.importReduce(opType, /*axesInput=*/false);
    });
    table.onOp(opType, 18, [opType](Importer &im) {
      return im.importReduce(opType, /*axesInput=*/true);
    });
  }
  for (int64_t version : {kMinOpset, int64_t(14)})
    table.onOp("BatchNormalization", version,
               [version](Importer &im) { return im.importBatchNorm(version); });
  table.onOp("InstanceNormalization", kMinOpset, &Importer::importInstanceNorm);
  for (int64_t version : {int64_t(18), int64_t(21)})
    table.onOp("GroupNormalization", version,
               [version](Importer &im) { return im.importGroupNorm(version); });
  table.onOp("LayerNormalization", kMinOpset, &Importer::importLayerNorm);
  table.onOp("Dropout", kMinOpset, &Importer::importDropout);
}
