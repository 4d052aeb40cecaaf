//===- ContractionOps.cpp - ONNX contractions, convolution, pooling -------===//
//
// MatMul, Gemm, Einsum, CumSum, Conv, ConvTranspose, MaxPool, AveragePool
// and GlobalAveragePool.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "onnx/onnx_pb.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

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

/// X and W of Conv and ConvTranspose: X a 4-d NCHW float tensor, W a 4-d
/// tensor of its element type; `kind` names the op in the error.
LogicalResult Importer::convOperands(StringRef kind, Value &x, Value &w) {
  if (failed(checkArity(2, 3)))
    return failure();
  FailureOr<Value> xValue = floatValue(0, "X");
  if (failed(xValue))
    return failure();
  Type element = elementOf(*xValue);
  FailureOr<Value> wValue = value(1, element);
  if (failed(wValue))
    return failure();
  x = *xValue;
  w = *wValue;
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  if (xs.size() != 4) {
    error() << "only 2-d " << kind
            << " (4-d NCHW inputs) are supported; X has shape "
            << formatShape(xs);
    return failure();
  }
  if (ws.size() != 4 || elementOf(w) != element) {
    error() << "W must be a 4-d tensor of X's element type, got "
            << formatShape(ws);
    return failure();
  }
  return success();
}

/// The window's kernel is W's spatial shape; a kernel_shape attribute must
/// agree with it.
LogicalResult
Importer::kernelFromWeight(const std::optional<SmallVector<int64_t>> &kernel,
                           ArrayRef<int64_t> ws, Window &window) {
  window.kernel = {ws[2], ws[3]};
  if (kernel && *kernel != window.kernel) {
    error() << "kernel_shape " << formatShape(*kernel) << " does not match W "
            << formatShape(ws);
    return failure();
  }
  return success();
}

LogicalResult Importer::importConv() {
  Value x, w;
  if (failed(convOperands("convolutions", x, w)))
    return failure();
  Type element = elementOf(x);
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
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
  if (failed(kernelFromWeight(kernel, ws, window)))
    return failure();
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

/// The pads of a transposed convolution whose result has `out` rows and
/// columns (output_shape, or the input size times the stride for SAME
/// auto_pad): ONNX splits the padding `total` so that SAME_UPPER puts the
/// odd one at the end and everything else at the start.
static void splitTransposedPadding(int64_t total, StringRef autoPad,
                                   int64_t &start, int64_t &end) {
  if (autoPad == "SAME_UPPER") {
    start = total / 2;
    end = total - start;
  } else {
    end = total / 2;
    start = total - end;
  }
}

LogicalResult Importer::importConvTranspose() {
  Value x, w;
  if (failed(convOperands("transposed convolutions", x, w)))
    return failure();
  Type element = elementOf(x);
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  FailureOr<int64_t> group = intAttr("group", 1);
  std::string autoPad;
  std::optional<SmallVector<int64_t>> kernel;
  Window window;
  LogicalResult attrs = windowAttrs(autoPad, kernel, window);
  FailureOr<std::optional<SmallVector<int64_t>>> outputPaddingAttr =
      intsAttr("output_padding");
  FailureOr<std::optional<SmallVector<int64_t>>> outputShapeAttr =
      intsAttr("output_shape");
  if (failed(group) || failed(attrs) || failed(outputPaddingAttr) ||
      failed(outputShapeAttr))
    return failure();
  // W is [C, M / group, kH, kW]: the weight of the convolution whose input
  // gradient this is.
  if (*group < 1 || *group > std::max<int64_t>(xs[1], 1) ||
      xs[1] % *group != 0 || ws[0] != xs[1]) {
    error() << "group " << *group << " does not fit X " << formatShape(xs)
            << " and W " << formatShape(ws)
            << " (W must be [C, M / group, kH, kW] with C divisible by group)";
    return failure();
  }
  if (failed(kernelFromWeight(kernel, ws, window)))
    return failure();
  SmallVector<int64_t> outputPadding =
      outputPaddingAttr->value_or(SmallVector<int64_t>{0, 0});
  if (window.stride.size() != 2 || window.dilation.size() != 2 ||
      window.pads.size() != 4 || outputPadding.size() != 2 ||
      (*outputShapeAttr && (*outputShapeAttr)->size() != 2)) {
    error() << "only 2-d windows are supported (strides, dilations, "
               "output_padding and output_shape with 2 entries, pads with 4)";
    return failure();
  }
  constexpr int64_t kMaxWindow = int64_t(1) << 20;
  for (int i = 0; i < 2; ++i)
    if (window.kernel[i] < 1 || window.stride[i] < 1 ||
        window.dilation[i] < 1 || window.kernel[i] > kMaxWindow ||
        window.stride[i] > kMaxWindow || window.dilation[i] > kMaxWindow) {
      error() << "kernel sizes, strides and dilations must be positive (and "
                 "at most 2^20)";
      return failure();
    }
  for (int64_t pad : window.pads)
    if (pad < 0 || pad > kMaxWindow) {
      error() << "pads must be non-negative (and at most 2^20), got "
              << formatShape(window.pads);
      return failure();
    }
  for (int64_t extra : outputPadding)
    if (extra < 0 || extra > kMaxWindow) {
      error() << "output_padding must be non-negative (and at most 2^20), got "
              << formatShape(outputPadding);
      return failure();
    }
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER") {
    error() << "unknown auto_pad '" << autoPad << "'";
    return failure();
  }
  Shape outHW;
  int64_t zeroRows[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t in = xs[2 + i], stride = window.stride[i];
    int64_t effective = (window.kernel[i] - 1) * window.dilation[i] + 1;
    // Every input element's window, unpadded: ONNX's output size with no
    // pads.
    int64_t full = stride * (in - 1) + outputPadding[i] + effective;
    int64_t &start = window.pads[i], &end = window.pads[2 + i];
    if (*outputShapeAttr || autoPad == "SAME_UPPER" ||
        autoPad == "SAME_LOWER") {
      int64_t wanted = *outputShapeAttr ? (**outputShapeAttr)[i] : in * stride;
      if (wanted < 1 || wanted > full) {
        error() << (*outputShapeAttr ? "output_shape "
                                     : "the SAME output size ")
                << wanted << " in spatial dimension " << i << " is not in [1, "
                << full
                << "], the sizes a transposed convolution of this input, "
                   "kernel, stride, dilation and output_padding gives";
        return failure();
      }
      splitTransposedPadding(full - wanted, autoPad, start, end);
    } else if (autoPad == "VALID") {
      start = end = 0;
    }
    int64_t out = full - start - end;
    if (out < 1) {
      error() << "the pads " << start << " and " << end
              << " leave no output in spatial dimension " << i << " (of size "
              << full << " unpadded)";
      return failure();
    }
    // amp.conv2d_input_grad's result is an input of the convolution whose
    // output is X, so it has at most stride - 1 rows beyond the last
    // window: output_padding beyond that (PyTorch allows it up to the
    // dilation) is taken from the end padding, and what the end padding
    // cannot give is rows no window reaches, zeros appended after.
    int64_t excess = outputPadding[i] - (stride - 1);
    if (excess > 0) {
      int64_t taken = std::min(excess, end);
      end -= taken;
      zeroRows[i] = excess - taken;
    }
    outHW.push_back(out);
  }
  Shape shape = {xs[0], ws[1] * *group, outHW[0], outHW[1]};
  if (failed(checkShape(shape)))
    return failure();
  Shape computed = {shape[0], shape[1], shape[2] - zeroRows[0],
                    shape[3] - zeroRows[1]};
  Value result = Conv2DInputGradOp::create(
      builder, loc, tensorType(computed, element), x, w, window.stride,
      window.pads, window.dilation, *group);
  for (int i = 0; i < 2; ++i) {
    if (zeroRows[i] == 0)
      continue;
    Shape zerosShape(shapeOf(result)), joined(shapeOf(result));
    zerosShape[2 + i] = zeroRows[i];
    joined[2 + i] += zeroRows[i];
    Value zeros = splat(0.0, tensorType(zerosShape, element));
    result = ConcatOp::create(builder, loc, tensorType(joined, element),
                              ValueRange{result, zeros}, 2 + i);
  }
  RankedTensorType type = tensorType(shape, element);
  if (hasInput(2)) {
    FailureOr<Value> b = value(2, element);
    if (failed(b))
      return failure();
    if (shapeOf(*b) != ArrayRef<int64_t>{shape[1]} ||
        elementOf(*b) != element) {
      error() << "B must be a 1-d tensor of " << shape[1]
              << " elements of X's element type, got "
              << formatShape(shapeOf(*b));
      return failure();
    }
    Value bias = broadcastTo(reshapeTo(*b, {1, shape[1], 1, 1}), shape);
    result = AddOp::create(builder, loc, type, result, bias);
  }
  return setValue(0, result);
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

Value Importer::transposed(Value x, ArrayRef<int64_t> permutation) {
  if (llvm::equal(permutation,
                  llvm::seq<int64_t>(0, int64_t(permutation.size()))))
    return x;
  Shape shape;
  for (int64_t d : permutation)
    shape.push_back(shapeOf(x)[d]);
  return TransposeOp::create(builder, loc, tensorType(shape, elementOf(x)), x,
                             permutation);
}

/// CumSum: a running sum along `axis` (exclusive, reverse), as a product
/// with a constant triangle of ones over the axis moved last (linear, so
/// its gradient is the product with the transposed triangle: the running
/// sum the other way, as PyTorch's).
LogicalResult Importer::importCumSum() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<int64_t> exclusive = intAttr("exclusive", 0);
  FailureOr<int64_t> reverse = intAttr("reverse", 0);
  if (failed(exclusive) || failed(reverse))
    return failure();
  if (*exclusive < 0 || *exclusive > 1 || *reverse < 0 || *reverse > 1) {
    error() << "exclusive and reverse must be 0 or 1, got " << *exclusive
            << " and " << *reverse;
    return failure();
  }
  FailureOr<SmallVector<int64_t>> axisList = requireInts(1, "axis");
  if (failed(axisList))
    return failure();
  if (axisList->size() != 1) {
    error() << inputLabel(1) << " (axis) must have one element, got "
            << axisList->size();
    return failure();
  }
  FailureOr<Shape> inShape = inputShape(0);
  if (failed(inShape))
    return failure();
  if (inShape->empty()) {
    error() << "the input must have rank 1 or more";
    return failure();
  }
  int64_t rank = inShape->size();
  FailureOr<int64_t> axis = normalizeAxis((*axisList)[0], rank);
  if (failed(axis))
    return failure();
  int64_t n = (*inShape)[*axis];
  // Whether input position i adds to output position j.
  auto adds = [&](int64_t i, int64_t j) {
    if (*reverse)
      return *exclusive ? i > j : i >= j;
    return *exclusive ? i < j : i <= j;
  };
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    const HostTensor &in = **known;
    HostTensor out = HostTensor::zeros(in.dtype, in.shape);
    if (in.size() == 0)
      return setHost(0, std::move(out));
    int64_t inner = stridesOf(in.shape)[*axis], outer = in.size() / (n * inner);
    // One running sum per line, in the direction of the sum.
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t r = 0; r < inner; ++r) {
        double fsum = 0;
        uint64_t isum = 0;
        for (int64_t step = 0; step < n; ++step) {
          int64_t j = *reverse ? n - 1 - step : step;
          int64_t k = (o * n + j) * inner + r;
          if (in.isFloat()) {
            if (*exclusive) {
              out.setDouble(k, fsum);
              fsum += in.floats[k];
            } else {
              fsum += in.floats[k];
              out.setDouble(k, fsum);
            }
          } else {
            uint64_t v = static_cast<uint64_t>(in.ints[k]);
            if (!*exclusive)
              isum += v;
            out.setInt(k, static_cast<int64_t>(isum));
            if (*exclusive)
              isum += v;
          }
        }
      }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = floatValue(0, "x");
  if (failed(input))
    return failure();
  Value x = *input;
  Type element = elementOf(x);
  if (failed(checkFoldSize({n, n})))
    return failure();
  HostTensor triangle = HostTensor::zeros(kFloat, {n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      triangle.setDouble(i * n + j, adds(i, j) ? 1.0 : 0.0);
  // amp.matmul takes rank 2 or more: a vector is one row.
  Value moved = rank == 1 ? reshapeTo(x, {1, n}) : x;
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < int64_t(shapeOf(moved).size()); ++d)
    if (d != *axis + (rank == 1))
      order.push_back(d);
  order.push_back(*axis + (rank == 1));
  moved = transposed(moved, order);
  Value summed =
      MatmulOp::create(builder, loc, moved.getType(), moved,
                       constant(triangle, tensorType({n, n}, element)));
  SmallVector<int64_t> inverse(order.size());
  for (auto [position, d] : llvm::enumerate(order))
    inverse[d] = position;
  Value result = transposed(summed, inverse);
  return setValue(0, reshapeTo(result, *inShape));
}

/// Einsum of one operand (a sum and a transpose) or two (a batched matmul
/// between transposes and reshapes): the contractions attention code
/// writes. Each index names a dimension of one size in every operand
/// (no broadcasting of size-1 dimensions) and appears at most once per
/// operand (no diagonals); "..." stands for the same dimensions in each.
LogicalResult Importer::importEinsum() {
  if (failed(checkArity(1, ~0u)))
    return failure();
  FailureOr<std::string> equationAttr = stringAttr("equation", "");
  if (failed(equationAttr))
    return failure();
  if (numInputs() > 2) {
    error() << "einsum of " << numInputs()
            << " operands is not supported (one or two are)";
    return failure();
  }
  std::string equation;
  for (char c : *equationAttr)
    if (c != ' ')
      equation.push_back(c);
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != numInputs()) {
    error() << "equation '" << *equationAttr << "' has " << terms.size()
            << " operand terms for " << numInputs() << " inputs";
    return failure();
  }
  SmallVector<Value> operands;
  Type element;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<const HostTensor *> known = hostOf(i);
    if (failed(known))
      return failure();
    if (!*known) {
      FailureOr<Value> v = floatValue(i, "operand");
      if (failed(v))
        return failure();
      element = elementOf(*v);
    }
  }
  if (!element) {
    error() << "einsum of operands known at import time is not folded";
    return failure();
  }
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (elementOf(*v) != element) {
      error() << "operands have different element types";
      return failure();
    }
    operands.push_back(*v);
  }
  // Labels: the equation's letters, and one digit per dimension of "...".
  std::optional<int64_t> ellipsisRank;
  llvm::StringMap<int64_t> sizes;
  SmallVector<std::string> labels;
  auto bad = [&](const Twine &why) {
    error() << "equation '" << *equationAttr << "': " << why;
    return failure();
  };
  auto expand = [&](StringRef term, int64_t rank,
                    std::string &out) -> LogicalResult {
    size_t dots = term.find("...");
    int64_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    if (dots == StringRef::npos && term.contains('.'))
      return bad("'.' outside an ellipsis in '" + term + "'");
    for (char c : term)
      if (c != '.' && !llvm::isAlpha(c))
        return bad("'" + Twine(c) + "' is not an index letter");
    if (dots == StringRef::npos) {
      out = term.str();
    } else {
      int64_t extra = rank - letters;
      if (extra < 0 || extra > 10 ||
          term.find('.', dots + 3) != StringRef::npos)
        return bad("bad ellipsis in '" + term + "'");
      if (ellipsisRank && *ellipsisRank != extra)
        return bad("'...' stands for different numbers of dimensions");
      ellipsisRank = extra;
      std::string digits;
      for (int64_t d = 0; d < extra; ++d)
        digits.push_back(char('0' + d));
      out = term.substr(0, dots).str() + digits + term.substr(dots + 3).str();
    }
    if (static_cast<int64_t>(out.size()) != rank)
      return bad("term '" + term + "' has " + Twine(out.size()) +
                 " indices for an operand of rank " + Twine(rank));
    return success();
  };
  for (unsigned i = 0; i < numInputs(); ++i) {
    std::string expanded;
    ArrayRef<int64_t> shape = shapeOf(operands[i]);
    if (failed(expand(terms[i], shape.size(), expanded)))
      return failure();
    for (auto [d, c] : llvm::enumerate(expanded)) {
      if (expanded.find(c) != d)
        return bad("index '" + Twine(c) +
                   "' repeats within an operand (a diagonal), which is not "
                   "supported");
      auto [it, inserted] = sizes.try_emplace(StringRef(&c, 1), shape[d]);
      if (!inserted && it->second != shape[d])
        return bad("index '" + Twine(c) + "' has sizes " + Twine(it->second) +
                   " and " + Twine(shape[d]) +
                   " (broadcasting in einsum is not supported)");
    }
    labels.push_back(expanded);
  }
  std::string output;
  if (arrow != std::string::npos) {
    std::string term = equation.substr(arrow + 2);
    size_t dots = term.find("...");
    output = dots == std::string::npos
                 ? term
                 : term.substr(0, dots) +
                       std::string(ellipsisRank.value_or(0), '0') +
                       term.substr(dots + 3);
    if (dots != std::string::npos)
      for (int64_t d = 0; d < ellipsisRank.value_or(0); ++d)
        output[dots + d] = char('0' + d);
  } else {
    // Implicit output: "..." first, then the letters used once, sorted.
    for (int64_t d = 0; d < ellipsisRank.value_or(0); ++d)
      output.push_back(char('0' + d));
    std::string once;
    for (auto &entry : sizes) {
      char c = entry.getKey()[0];
      if (!llvm::isAlpha(c))
        continue;
      int count = 0;
      for (const std::string &l : labels)
        count += llvm::count(l, c);
      if (count == 1)
        once.push_back(c);
    }
    llvm::sort(once);
    output += once;
  }
  for (auto [d, c] : llvm::enumerate(output)) {
    if (!sizes.count(StringRef(&c, 1)))
      return bad("output index '" + Twine(c) + "' is in no operand");
    if (output.find(c) != d)
      return bad("output index '" + Twine(c) + "' repeats");
  }
  auto sizeOf = [&](char c) { return sizes.lookup(StringRef(&c, 1)); };
  auto shapeOfLabels = [&](StringRef ls) {
    Shape shape;
    for (char c : ls)
      shape.push_back(sizeOf(c));
    return shape;
  };
  // Sums the indices of operand i that neither the output nor the other
  // operand has.
  auto sumPrivate = [&](unsigned i) {
    std::string kept;
    SmallVector<int64_t> axes;
    for (auto [d, c] : llvm::enumerate(labels[i])) {
      bool elsewhere = output.find(c) != std::string::npos;
      for (unsigned j = 0; j < labels.size(); ++j)
        elsewhere |= j != i && labels[j].find(c) != std::string::npos;
      if (elsewhere)
        kept.push_back(c);
      else
        axes.push_back(d);
    }
    if (axes.empty())
      return;
    Shape shape = shapeOfLabels(kept);
    operands[i] = ReduceSumOp::create(builder, loc, tensorType(shape, element),
                                      operands[i], axes, /*keep_dims=*/false);
    labels[i] = kept;
  };
  // Transposes operand i to the order of `order` (a permutation of its
  // labels).
  auto permuted = [&](unsigned i, StringRef order) {
    SmallVector<int64_t> permutation;
    for (char c : order)
      permutation.push_back(labels[i].find(c));
    return transposed(operands[i], permutation);
  };
  auto finish = [&](Value v, StringRef have) {
    SmallVector<int64_t> permutation;
    for (char c : output)
      permutation.push_back(have.find(c));
    return setValue(0, transposed(v, permutation));
  };
  for (unsigned i = 0; i < operands.size(); ++i)
    sumPrivate(i);
  if (operands.size() == 1) {
    if (failed(checkShape(shapeOfLabels(output))))
      return failure();
    return finish(operands[0], labels[0]);
  }
  std::string batch, contracted, lhsFree, rhsFree;
  for (char c : labels[0]) {
    bool inRhs = labels[1].find(c) != std::string::npos;
    bool inOut = output.find(c) != std::string::npos;
    (inRhs ? (inOut ? batch : contracted) : lhsFree).push_back(c);
  }
  for (char c : labels[1])
    if (labels[0].find(c) == std::string::npos)
      rhsFree.push_back(c);
  auto product = [&](StringRef ls) {
    int64_t p = 1;
    for (char c : ls)
      p *= sizeOf(c);
    return p;
  };
  int64_t b = product(batch), m = product(lhsFree), k = product(contracted),
          n = product(rhsFree);
  Shape resultShape = shapeOfLabels(batch + lhsFree + rhsFree);
  if (failed(checkShape(resultShape)))
    return failure();
  Shape lhsShape = {m, k}, rhsShape = {k, n}, productShape = {m, n};
  if (!batch.empty()) {
    lhsShape.insert(lhsShape.begin(), b);
    rhsShape.insert(rhsShape.begin(), b);
    productShape.insert(productShape.begin(), b);
  }
  Value a = reshapeTo(permuted(0, batch + lhsFree + contracted), lhsShape);
  Value c = reshapeTo(permuted(1, batch + contracted + rhsFree), rhsShape);
  Value result =
      MatmulOp::create(builder, loc, tensorType(productShape, element), a, c);
  return finish(reshapeTo(result, resultShape), batch + lhsFree + rhsFree);
}

/// LSTM, GRU and RNN: refused, saying what to do. (PyTorch 2.x's
/// torch.export decomposes nn.LSTM, nn.GRU and nn.RNN into their cells
/// unrolled over the static sequence length, which amp.compile imports.)
LogicalResult Importer::refuseRecurrent() {
  const std::string &op = node->op_type();
  error() << "amp does not import the recurrent layer " << op
          << " from ONNX; with PyTorch 2.x, amp.compile captures nn." << op
          << " through torch.export, which unrolls it over the static "
             "sequence length into ops amp trains; with PyTorch 1.x, write "
             "the cell with nn.Linear and torch.sigmoid/torch.tanh and loop "
             "over the time steps in forward (the export unrolls the loop)";
  return failure();
}

void mlir::amp::onnx_import::registerContractionHandlers(OpTable &table) {
  table.onOp("MatMul", kMinOpset, &Importer::importMatMul);
  table.onOp("Gemm", kMinOpset, &Importer::importGemm);
  table.onOp("Einsum", kMinOpset, &Importer::importEinsum);
  table.onOp("CumSum", kMinOpset, &Importer::importCumSum);
  for (StringRef opType : {"LSTM", "GRU", "RNN"})
    table.onOp(opType, kMinOpset, &Importer::refuseRecurrent);
  table.onOp("Conv", kMinOpset, &Importer::importConv);
  table.onOp("ConvTranspose", kMinOpset, &Importer::importConvTranspose);
  table.onOp("MaxPool", kMinOpset,
             [](Importer &im) { return im.importPool(/*max=*/true); });
  table.onOp("AveragePool", kMinOpset,
             [](Importer &im) { return im.importPool(/*max=*/false); });
  table.onOp("GlobalAveragePool", kMinOpset,
             &Importer::importGlobalAveragePool);
}
