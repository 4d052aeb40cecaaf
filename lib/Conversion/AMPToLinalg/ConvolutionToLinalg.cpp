//===- ConvolutionToLinalg.cpp - convolutions, pooling, gather, dropout ---===//
//
// Convolutions and pooling windows are linalg.generic ops over a padded
// input (tensor.pad with zeros, or -inf for max pooling) whose indexing maps
// read `out * stride + k * dilation`. Every sum accumulates in an f32 tensor
// (buildReduction) and is rounded once to the result type at the end.
//
// Why linalg.generic rather than linalg.conv_2d_ngchw_gfchw: one formulation
// covers groups, stride, dilation and mixed precision (f16/bf16 operands are
// widened in the body by the shared reduction builder, as for matmul), and
// the backward ops below are the same kind of generic with other maps. The
// groups are exposed by splitting the channel dimensions with
// tensor.expand_shape ([N, C, ...] -> [N, G, C/G, ...]), so every loop of a
// generic still appears as a plain dimension of some operand and linalg can
// infer the loop bounds from the operand shapes.
//
// Backward ops that scatter through the forward index relation
// (y = o * stride + k * dilation) are written as gathers: the output
// gradient is "dilated" (inserted with tensor.insert_slice, stride `stride`,
// into a zero buffer that also holds (K - 1) * dilation of leading zeros),
// so that the input position y of the padded input receives
//     sum_k dilated[y + (K - 1) * dilation - k * dilation] * weight[k],
// a correlation whose maps are affine. The result is computed over the
// padded input and the padding is sliced off. (The price of keeping every
// map affine: with stride s the correlation also multiplies the s_h * s_w - 1
// zeros between dilated elements.) max_pool2d_grad dilates the chosen
// window tap of every output alongside its gradient and adds the gradient
// where the tap matches. gather_grad sorts the indices (a merge sort of
// gather-only passes) and sums each result row's run of tokens in token
// order (GatherGradLowering), instead of a reduction over every index per
// result element.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;

namespace {
using utils::IteratorType;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Pads the two trailing (spatial) dimensions of an NCHW tensor by
/// `padding` = [top, left, bottom, right] with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> padding, double value) {
  if (llvm::all_of(padding, [](int64_t p) { return p == 0; }))
    return input;
  auto type = tensorType(input);
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += padding[0] + padding[2];
  shape[3] += padding[1] + padding[3];
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0),
                                   b.getIndexAttr(padding[0]),
                                   b.getIndexAttr(padding[1])};
  SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(0),
                                    b.getIndexAttr(padding[2]),
                                    b.getIndexAttr(padding[3])};
  Value pad = scalarConstant(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), input, low,
      high, pad);
}

/// Splits dimension `dim` of `value` into [outer, size / outer].
Value splitDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               int64_t outer) {
  auto type = tensorType(value);
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getDimSize(d);
    if (d != dim) {
      groups.push_back({static_cast<int64_t>(shape.size())});
      shape.push_back(size);
      continue;
    }
    int64_t first = shape.size();
    groups.push_back({first, first + 1});
    shape.push_back(outer);
    shape.push_back(size / outer);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups);
}

/// Merges dimensions `dim` and `dim + 1` of `value` (undoes splitDim).
Value mergeDims(OpBuilder &b, Location loc, Value value, int64_t dim) {
  int64_t rank = tensorType(value).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dim + 1)
      continue;
    if (d == dim)
      groups.push_back({d, d + 1});
    else
      groups.push_back({d});
  }
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

/// Places the spatial elements of an NCHW tensor `value` at
/// [offset + i * stride] of a tensor of spatial size `size` filled with
/// `fill` (the zero-insertion of a transposed convolution).
Value dilateSpatial(OpBuilder &b, Location loc, Value value,
                    ArrayRef<int64_t> offset, ArrayRef<int64_t> stride,
                    ArrayRef<int64_t> size, double fill) {
  auto type = tensorType(value);
  Type element = type.getElementType();
  auto bufferType = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), size[0], size[1]}, element);
  Value buffer;
  if (isa<FloatType>(element)) {
    buffer = filledTensor(b, loc, bufferType, fill);
  } else {
    Value scalar = arith::ConstantOp::create(
        b, loc, element, b.getIntegerAttr(element, static_cast<int64_t>(fill)));
    buffer =
        linalg::FillOp::create(b, loc, scalar, emptyTensor(b, loc, bufferType))
            .getResult(0);
  }
  SmallVector<int64_t> offsets = {0, 0, offset[0], offset[1]};
  SmallVector<int64_t> strides = {1, 1, stride[0], stride[1]};
  return tensor::InsertSliceOp::create(b, loc, value, buffer, ValueRange{},
                                       ValueRange{}, ValueRange{}, offsets,
                                       type.getShape(), strides);
}

/// The [top:top+H, left:left+W] spatial window of an NCHW tensor.
Value unpadSpatial(OpBuilder &b, Location loc, Value value,
                   ArrayRef<int64_t> padding, ArrayRef<int64_t> shape) {
  auto type = tensorType(value);
  SmallVector<int64_t> offsets = {0, 0, padding[0], padding[1]};
  SmallVector<int64_t> strides(4, 1);
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      ValueRange{}, ValueRange{}, ValueRange{}, offsets, shape, strides);
}

/// Crops the padding off a gradient summed over the padded input and rounds
/// it to `resultType`: how every input-side window gradient ends.
Value finishUnpadded(OpBuilder &b, Location loc, Value paddedGrad,
                     ArrayRef<int64_t> padding, RankedTensorType resultType) {
  Value unpadded =
      unpadSpatial(b, loc, paddedGrad, padding, resultType.getShape());
  return finishElementwise(b, loc, unpadded, resultType);
}

/// Input `input` padded with zeros and split into [N, G, C/G, Hp, Wp], as
/// the convolution and its weight gradient read it.
Value groupedPaddedInput(OpBuilder &b, Location loc, Value input,
                         ArrayRef<int64_t> padding, int64_t groups) {
  return splitDim(b, loc, padSpatial(b, loc, input, padding, 0.0), 1, groups);
}

/// A tensor of the window's shape that only gives the kernel loops their
/// bounds (as the kernel operand of linalg.pooling_* does); never read.
Value windowShape(OpBuilder &b, Location loc, ArrayRef<int64_t> kernel) {
  return emptyTensor(b, loc, f32TensorOf(b, {kernel[0], kernel[1]}));
}

AffineMap mapOf(OpBuilder &b, unsigned rank, ArrayRef<AffineExpr> exprs) {
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

Value mulAddF(OpBuilder &b, Location loc, Value acc, ValueRange x) {
  return arith::AddFOp::create(b, loc, acc,
                               arith::MulFOp::create(b, loc, x[0], x[1]));
}

/// An integer constant of `type`.
Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Spatial geometry shared by the convolution and pooling ops.
struct Window {
  int64_t kernel[2], stride[2], dilation[2];
  int64_t padding[4];   // top, left, bottom, right
  int64_t inputSize[2]; // H, W (unpadded)

  int64_t padded(int i) const {
    return inputSize[i] + padding[i] + padding[i + 2];
  }
  /// (K - 1) * dilation: the leading zeros of a dilated gradient.
  int64_t span(int i) const { return (kernel[i] - 1) * dilation[i]; }
};

Window makeWindow(ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                  ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                  ArrayRef<int64_t> inputShape) {
  Window w;
  for (int i = 0; i < 2; ++i) {
    w.kernel[i] = kernel[i];
    w.stride[i] = stride[i];
    w.dilation[i] = dilation.empty() ? 1 : dilation[i];
    w.inputSize[i] = inputShape[2 + i];
  }
  for (int i = 0; i < 4; ++i)
    w.padding[i] = padding[i];
  return w;
}

/// The dilated, front-padded gradient of a transposed window op: `grad`
/// ([N, C, OH, OW]) placed at (span + o * stride) of a buffer of spatial size
/// padded + span, so that padded input position y reads it at
/// y + span - k * dilation.
Value dilatedGradient(OpBuilder &b, Location loc, Value grad, const Window &w,
                      double fill = 0.0) {
  return dilateSpatial(
      b, loc, grad, {w.span(0), w.span(1)}, {w.stride[0], w.stride[1]},
      {w.padded(0) + w.span(0), w.padded(1) + w.span(1)}, fill);
}

/// forward: padded input position of output `o` and kernel tap `k`.
AffineExpr forwardExpr(AffineExpr o, AffineExpr k, const Window &w, int i) {
  return o * w.stride[i] + k * w.dilation[i];
}

/// backward: position in a dilatedGradient read by padded input position y
/// for kernel tap k.
AffineExpr transposedExpr(AffineExpr y, AffineExpr k, const Window &w, int i) {
  return y + w.span(i) - k * w.dilation[i];
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// Adds the bias (indexed by the channel, dimension 1) and rounds.
Value finishWithBias(OpBuilder &b, Location loc, Value acc, Value bias,
                     RankedTensorType resultType) {
  if (!bias)
    return finishElementwise(b, loc, acc, resultType);
  Type element = resultType.getElementType();
  return buildElementwise(
      b, loc, resultType, {acc, bias},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value sum =
            arith::AddFOp::create(nb, l, args[0], widenToF32(nb, l, args[1]));
        return roundTo(nb, l, sum, element);
      },
      {b.getMultiDimIdentityMap(4), mapOf(b, 4, b.getAffineDimExpr(1))});
}

/// The window of a convolution op with kernel `kernelShape` ([.., .., KH, KW])
/// over an input of `inputShape`.
template <typename OpTy>
Window convWindow(OpTy op, ArrayRef<int64_t> kernelShape,
                  ArrayRef<int64_t> inputShape) {
  return makeWindow(kernelShape.drop_front(2), op.getStride(), op.getPadding(),
                    op.getDilation(), inputShape);
}

/// The grouped correlation every convolution lowering computes: the f32 sum
/// of lhs * rhs over the last three of eight loops, whose first five have
/// `sizes`; `lhsExprs` and `rhsExprs` index the operands by the loops.
Value groupedCorrelation(OpBuilder &b, Location loc, ArrayRef<int64_t> sizes,
                         Value lhs, ArrayRef<AffineExpr> lhsExprs, Value rhs,
                         ArrayRef<AffineExpr> rhsExprs) {
  return buildReduction(b, loc, 8, {5, 6, 7}, sizes, {lhs, rhs},
                        {mapOf(b, 8, lhsExprs), mapOf(b, 8, rhsExprs)}, 0.0,
                        mulAddF);
}

struct Conv2DLowering : ResultLowering<Conv2DOp> {
  using ResultLowering::ResultLowering;
  Value lower(Conv2DOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    int64_t groups = op.getGroups();
    Window w = convWindow(op, tensorType(adaptor.getWeight()).getShape(),
                          tensorType(adaptor.getInput()).getShape());
    // [N, G, C/G, Hp, Wp] and [G, O/G, C/G, KH, KW].
    Value input =
        groupedPaddedInput(b, loc, adaptor.getInput(), op.getPadding(), groups);
    Value weight = splitDim(b, loc, adaptor.getWeight(), 0, groups);
    // Loops: n, g, o, oh, ow | c, kh, kw.
    AffineExpr n, g, o, oh, ow, c, kh, kw;
    bindDims(b.getContext(), n, g, o, oh, ow, c, kh, kw);
    ArrayRef<int64_t> shape = resultType.getShape();
    Value acc = groupedCorrelation(
        b, loc, {shape[0], groups, shape[1] / groups, shape[2], shape[3]},
        input, {n, g, c, forwardExpr(oh, kh, w, 0), forwardExpr(ow, kw, w, 1)},
        weight, {g, o, c, kh, kw});
    return finishWithBias(b, loc, mergeDims(b, loc, acc, 1), adaptor.getBias(),
                          resultType);
  }
};

struct Conv2DInputGradLowering : ResultLowering<Conv2DInputGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(Conv2DInputGradOp op, OpAdaptor adaptor, OpBuilder &b,
              Location loc, RankedTensorType resultType) const override {
    int64_t groups = op.getGroups();
    Window w = convWindow(op, tensorType(adaptor.getWeight()).getShape(),
                          resultType.getShape());
    // d input_padded[n, g*Cg + c, y, x] =
    //   sum_{o, kh, kw} grad[n, g*Og + o, (y - kh*d) / s, (x - kw*d) / s]
    //                   * weight[g*Og + o, c, kh, kw]
    // over the (y - k*d) that are multiples of s in range, i.e. the
    // correlation of the dilated gradient with the weight.
    Value grad =
        splitDim(b, loc, dilatedGradient(b, loc, adaptor.getGrad(), w), 1,
                 groups); // [N, G, O/G, Hp + span, Wp + span]
    Value weight = splitDim(b, loc, adaptor.getWeight(), 0, groups);
    // Loops: n, g, c, y, x | o, kh, kw.
    AffineExpr n, g, c, y, x, o, kh, kw;
    bindDims(b.getContext(), n, g, c, y, x, o, kh, kw);
    ArrayRef<int64_t> shape = resultType.getShape();
    Value acc = groupedCorrelation(
        b, loc, {shape[0], groups, shape[1] / groups, w.padded(0), w.padded(1)},
        grad,
        {n, g, o, transposedExpr(y, kh, w, 0), transposedExpr(x, kw, w, 1)},
        weight, {g, o, c, kh, kw});
    return finishUnpadded(b, loc, mergeDims(b, loc, acc, 1), op.getPadding(),
                          resultType);
  }
};

struct Conv2DWeightGradLowering : ResultLowering<Conv2DWeightGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(Conv2DWeightGradOp op, OpAdaptor adaptor, OpBuilder &b,
              Location loc, RankedTensorType resultType) const override {
    int64_t groups = op.getGroups();
    Window w = convWindow(op, resultType.getShape(),
                          tensorType(adaptor.getInput()).getShape());
    // d weight[g*Og + o, c, kh, kw] = sum_{n, oh, ow} grad[n, g*Og + o, oh, ow]
    //     * input_padded[n, g*Cg + c, oh*s + kh*d, ow*s + kw*d]
    Value input =
        groupedPaddedInput(b, loc, adaptor.getInput(), op.getPadding(), groups);
    Value grad = splitDim(b, loc, adaptor.getGrad(), 1, groups);
    // Loops: g, o, c, kh, kw | n, oh, ow.
    AffineExpr g, o, c, kh, kw, n, oh, ow;
    bindDims(b.getContext(), g, o, c, kh, kw, n, oh, ow);
    ArrayRef<int64_t> shape = resultType.getShape();
    Value acc = groupedCorrelation(
        b, loc, {groups, shape[0] / groups, shape[1], shape[2], shape[3]}, grad,
        {n, g, o, oh, ow}, input,
        {n, g, c, forwardExpr(oh, kh, w, 0), forwardExpr(ow, kw, w, 1)});
    return finishElementwise(b, loc, mergeDims(b, loc, acc, 0), resultType);
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Maps of a pooling window over a padded input. Loops: n, c, oh, ow | kh, kw.
std::pair<AffineMap, AffineMap> poolMaps(OpBuilder &b, const Window &w) {
  AffineExpr n, c, oh, ow, kh, kw;
  bindDims(b.getContext(), n, c, oh, ow, kh, kw);
  return {
      mapOf(b, 6, {n, c, forwardExpr(oh, kh, w, 0), forwardExpr(ow, kw, w, 1)}),
      mapOf(b, 6, {kh, kw})};
}

/// Maps of the transposed window: padded input position (y, x) reads the
/// dilated gradient of every window covering it. Loops: n, c, y, x | kh, kw.
std::pair<AffineMap, AffineMap> transposedPoolMaps(OpBuilder &b,
                                                   const Window &w) {
  AffineExpr n, c, y, x, kh, kw;
  bindDims(b.getContext(), n, c, y, x, kh, kw);
  return {
      mapOf(b, 6,
            {n, c, transposedExpr(y, kh, w, 0), transposedExpr(x, kw, w, 1)}),
      mapOf(b, 6, {kh, kw})};
}

template <typename OpTy>
Window poolWindow(OpTy op, ArrayRef<int64_t> inputShape) {
  return makeWindow(op.getKernelSize(), op.getStride(), op.getPadding(), {},
                    inputShape);
}

/// A pooling window's reduction of `input` (padded with `fill`, which is
/// also the start value) into `resultShape`.
Value poolReduction(OpBuilder &b, Location loc, Value input, const Window &w,
                    double fill, ArrayRef<int64_t> resultShape,
                    ReductionCombiner combine) {
  Value padded =
      padSpatial(b, loc, input, ArrayRef<int64_t>(w.padding, 4), fill);
  auto [inputMap, windowMap] = poolMaps(b, w);
  return buildReduction(b, loc, 6, {4, 5}, resultShape,
                        {padded, windowShape(b, loc, w.kernel)},
                        {inputMap, windowMap}, fill, combine);
}

/// The sum over the transposed pooling window into the padded input
/// ([N, C, padded H, padded W] of `inputShape`): the dilated gradients
/// `dilated`, all indexed alike, of every window covering a position.
Value transposedPoolReduction(OpBuilder &b, Location loc, ValueRange dilated,
                              const Window &w, ArrayRef<int64_t> inputShape,
                              ReductionCombiner combine) {
  auto [gradMap, windowMap] = transposedPoolMaps(b, w);
  SmallVector<Value> inputs(dilated);
  SmallVector<AffineMap> maps(dilated.size(), gradMap);
  inputs.push_back(windowShape(b, loc, w.kernel));
  maps.push_back(windowMap);
  return buildReduction(
      b, loc, 6, {4, 5},
      {inputShape[0], inputShape[1], w.padded(0), w.padded(1)}, inputs, maps,
      0.0, combine);
}

/// The number of input elements (not padding) in the window of output
/// (oh, ow), as an f32.
Value validCount(OpBuilder &b, Location loc, Value oh, Value ow,
                 const Window &w) {
  Value count;
  Value out[2] = {oh, ow};
  for (int i = 0; i < 2; ++i) {
    // [start, start + K) clipped to [pad, pad + size) in padded coordinates.
    Value start = arith::MulIOp::create(b, loc, out[i],
                                        indexConstant(b, loc, w.stride[i]));
    Value end = arith::AddIOp::create(b, loc, start,
                                      indexConstant(b, loc, w.kernel[i]));
    Value lo = arith::MaxSIOp::create(b, loc, start,
                                      indexConstant(b, loc, w.padding[i]));
    Value hi = arith::MinSIOp::create(
        b, loc, end, indexConstant(b, loc, w.padding[i] + w.inputSize[i]));
    Value extent = arith::SubIOp::create(b, loc, hi, lo);
    count = count ? arith::MulIOp::create(b, loc, count, extent).getResult()
                  : extent;
  }
  Value count64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), count64);
}

/// The divisor of average pooling for output (oh, ow): the window size, or
/// with `excludePadding` the number of input elements in it.
Value avgDivisor(OpBuilder &b, Location loc, bool excludePadding,
                 const Window &w) {
  if (!excludePadding)
    return f32(b, loc, static_cast<double>(w.kernel[0] * w.kernel[1]));
  Value oh = linalg::IndexOp::create(b, loc, 2);
  Value ow = linalg::IndexOp::create(b, loc, 3);
  return validCount(b, loc, oh, ow, w);
}

struct MaxPool2DLowering : ResultLowering<MaxPool2DOp> {
  using ResultLowering::ResultLowering;
  Value lower(MaxPool2DOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    Window w = poolWindow(op, tensorType(adaptor.getInput()).getShape());
    // -inf padding never wins a window: the verifier keeps padding below half
    // the kernel, so every window holds an input element. NaN propagates
    // (arith.maximumf), as in PyTorch.
    Value acc = poolReduction(b, loc, adaptor.getInput(), w, kNegInfinity,
                              resultType.getShape(), maxF);
    return finishElementwise(b, loc, acc, resultType);
  }
};

/// Whether window tap (kh, kw) of the output at loops (2, 3) of a pooling
/// generic is on an input element rather than padding.
Value tapInsideInput(OpBuilder &nb, Location l, Value kh, Value kw,
                     const Window &w) {
  Value inside;
  for (int i = 0; i < 2; ++i) {
    Value o = linalg::IndexOp::create(nb, l, 2 + i);
    Value k = i == 0 ? kh : kw;
    Value pos = arith::AddIOp::create(
        nb, l,
        arith::MulIOp::create(nb, l, o, indexConstant(nb, l, w.stride[i])), k);
    Value ge = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, pos,
                                     indexConstant(nb, l, w.padding[i]));
    Value lt = arith::CmpIOp::create(
        nb, l, arith::CmpIPredicate::slt, pos,
        indexConstant(nb, l, w.padding[i] + w.inputSize[i]));
    Value both = arith::AndIOp::create(nb, l, ge, lt);
    inside =
        inside ? arith::AndIOp::create(nb, l, inside, both).getResult() : both;
  }
  return inside;
}

/// Whether the tap `tap64` (holding `value`, on an input element when
/// `inside`) replaces the best so far (`best` at `bestPos`, -1 for none):
/// PyTorch's scan order, as a total order on the candidates.
Value tapWins(OpBuilder &nb, Location l, Value value, Value best, Value bestPos,
              Value tap64, Value inside) {
  auto cmpf = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
    return arith::CmpFOp::create(nb, l, p, x, y);
  };
  auto cmpi = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(nb, l, p, x, y);
  };
  auto andi = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(nb, l, x, y);
  };
  auto ori = [&](Value x, Value y) -> Value {
    return arith::OrIOp::create(nb, l, x, y);
  };
  Value none = cmpi(arith::CmpIPredicate::slt, bestPos,
                    arith::ConstantIntOp::create(nb, l, nb.getI64Type(), 0));
  Value valueNaN = cmpf(arith::CmpFPredicate::UNO, value, value);
  Value bestOrdered = cmpf(arith::CmpFPredicate::ORD, best, best);
  // A NaN beats a number, and a later NaN an earlier one.
  Value nanWins =
      andi(valueNaN,
           ori(bestOrdered, cmpi(arith::CmpIPredicate::sgt, tap64, bestPos)));
  // Between numbers, a larger one wins, and an earlier one a tie.
  Value numberWins = andi(
      bestOrdered, ori(cmpf(arith::CmpFPredicate::OGT, value, best),
                       andi(cmpf(arith::CmpFPredicate::OEQ, value, best),
                            cmpi(arith::CmpIPredicate::slt, tap64, bestPos))));
  return andi(inside, ori(none, ori(nanWins, numberWins)));
}

/// The position kh * KW + kw in its window of the element each max-pooling
/// output takes its value from, as PyTorch picks it: the first maximum in
/// row-major order among the input (not padding) elements, or the last NaN
/// when the window holds one (PyTorch's `val > max || isnan(val)` scan).
/// The choice is written as an order-independent combination (a total order
/// on the candidates) so the reduction may run in any order.
Value maxPoolArgmax(OpBuilder &b, Location loc, Value input, const Window &w,
                    ArrayRef<int64_t> outputShape) {
  Value padded =
      padSpatial(b, loc, input, ArrayRef<int64_t>(w.padding, 4), kNegInfinity);
  auto [inputMap, windowMap] = poolMaps(b, w);
  AffineMap outputMap = droppingMap(b, 6, {4, 5});
  Value values =
      filledTensor(b, loc, f32TensorOf(b, outputShape), kNegInfinity);
  auto indexType = RankedTensorType::get(outputShape, b.getI64Type());
  Value minusOne = arith::ConstantIntOp::create(b, loc, b.getI64Type(), -1);
  Value positions =
      linalg::FillOp::create(b, loc, minusOne, emptyTensor(b, loc, indexType))
          .getResult(0);
  SmallVector<IteratorType> iterators(4, IteratorType::parallel);
  iterators.append(2, IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{values.getType(), indexType},
      ValueRange{padded, windowShape(b, loc, w.kernel)},
      ValueRange{values, positions},
      {inputMap, windowMap, outputMap, outputMap}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value value = widenToF32(nb, l, args[0]);
        Value best = args[2], bestPos = args[3];
        Value kh = linalg::IndexOp::create(nb, l, 4);
        Value kw = linalg::IndexOp::create(nb, l, 5);
        Value inside = tapInsideInput(nb, l, kh, kw, w);
        Value tap = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, kh, indexConstant(nb, l, w.kernel[1])),
            kw);
        Value tap64 = arith::IndexCastOp::create(nb, l, nb.getI64Type(), tap);
        Value take = tapWins(nb, l, value, best, bestPos, tap64, inside);
        Value newBest = arith::SelectOp::create(nb, l, take, value, best);
        Value newPos = arith::SelectOp::create(nb, l, take, tap64, bestPos);
        linalg::YieldOp::create(nb, l, ValueRange{newBest, newPos});
      });
  return generic.getResult(1);
}

struct MaxPool2DGradLowering : ResultLowering<MaxPool2DGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(MaxPool2DGradOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    auto gradType = tensorType(adaptor.getGrad());
    Window w = poolWindow(op, resultType.getShape());
    Value argmax =
        maxPoolArgmax(b, loc, adaptor.getInput(), w, gradType.getShape());
    // Each padded input position sums the gradients of the windows that
    // cover it through tap (kh, kw) and chose that tap; the dilated argmax
    // holds -1 between the windows, which matches no tap.
    Value grad = dilatedGradient(b, loc, adaptor.getGrad(), w);
    Value chosen = dilatedGradient(b, loc, argmax, w, -1.0);
    int64_t kernelW = w.kernel[1];
    Value acc = transposedPoolReduction(
        b, loc, {grad, chosen}, w, resultType.getShape(),
        [&](OpBuilder &nb, Location l, Value acc, ValueRange x) {
          Value kh = linalg::IndexOp::create(nb, l, 4);
          Value kw = linalg::IndexOp::create(nb, l, 5);
          Value tap = arith::AddIOp::create(
              nb, l,
              arith::MulIOp::create(nb, l, kh, indexConstant(nb, l, kernelW)),
              kw);
          Value tap64 = arith::IndexCastOp::create(nb, l, nb.getI64Type(), tap);
          Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            x[1], tap64);
          return addWhere(nb, l, hit, acc, x[0]);
        });
    return finishUnpadded(b, loc, acc, op.getPadding(), resultType);
  }
};

struct AvgPool2DLowering : ResultLowering<AvgPool2DOp> {
  using ResultLowering::ResultLowering;
  Value lower(AvgPool2DOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    Window w = poolWindow(op, tensorType(adaptor.getInput()).getShape());
    Value sum = poolReduction(b, loc, adaptor.getInput(), w, 0.0,
                              resultType.getShape(), addF);
    bool exclude = op.getExcludePadding();
    return finishElementwise(
        b, loc, sum, resultType, [&](OpBuilder &nb, Location l, Value v) {
          return arith::DivFOp::create(nb, l, v, avgDivisor(nb, l, exclude, w));
        });
  }
};

struct AvgPool2DGradLowering : ResultLowering<AvgPool2DGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(AvgPool2DGradOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    auto gradType = tensorType(adaptor.getGrad());
    Window w = poolWindow(op, resultType.getShape());
    bool exclude = op.getExcludePadding();
    // Each window spreads grad / divisor over its elements (as PyTorch).
    Value share = buildElementwise(
        b, loc, withElementType(gradType, b.getF32Type()), adaptor.getGrad(),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return arith::DivFOp::create(nb, l, widenToF32(nb, l, args[0]),
                                       avgDivisor(nb, l, exclude, w))
              .getResult();
        });
    Value grad = dilatedGradient(b, loc, share, w);
    Value acc =
        transposedPoolReduction(b, loc, grad, w, resultType.getShape(), addF);
    return finishUnpadded(b, loc, acc, op.getPadding(), resultType);
  }
};

struct GlobalAvgPoolLowering : ResultLowering<GlobalAvgPoolOp> {
  using ResultLowering::ResultLowering;
  Value lower(GlobalAvgPoolOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    auto inputType = tensorType(adaptor.getInput());
    unsigned rank = inputType.getRank();
    SmallVector<int64_t> spatial;
    double count = 1;
    for (unsigned d = 2; d < rank; ++d) {
      spatial.push_back(d);
      count *= inputType.getDimSize(d);
    }
    SmallVector<int64_t> shape(inputType.getShape().take_front(2));
    Value sum = buildReduction(b, loc, rank, spatial, shape, adaptor.getInput(),
                               b.getMultiDimIdentityMap(rank), 0.0, addF);
    Value mean = finishElementwise(
        b, loc, sum, RankedTensorType::get(shape, resultType.getElementType()),
        [&](OpBuilder &nb, Location l, Value v) {
          return arith::DivFOp::create(nb, l, v, f32(nb, l, count));
        });
    return reshapeTensor(b, loc, mean, resultType);
  }
};

//===----------------------------------------------------------------------===//
// Gather, slice backward
//===----------------------------------------------------------------------===//

/// An index of a gather as an `index` counted from the front (ONNX: a
/// negative index counts from the end). Indices outside [-size, size) are
/// undefined in ONNX; they are clamped so that no access leaves the tensor.
Value gatherIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = indexConstant(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped = arith::AddIOp::create(b, loc, i, indexConstant(b, loc, size));
  Value front = arith::SelectOp::create(b, loc, negative, wrapped, i);
  Value low = arith::MaxSIOp::create(b, loc, front, zero);
  return arith::MinSIOp::create(b, loc, low, indexConstant(b, loc, size - 1));
}

struct GatherLowering : ResultLowering<GatherOp> {
  using ResultLowering::ResultLowering;
  Value lower(GatherOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    Value input = adaptor.getInput();
    auto inputType = tensorType(input);
    int64_t inputRank = inputType.getRank();
    int64_t axis = normalized(op.getAxis(), inputRank);
    int64_t indexRank = tensorType(adaptor.getIndices()).getRank();
    unsigned rank = resultType.getRank();
    // result[pre..., j..., post...] = input[pre..., indices[j...], post...]
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(b.getAffineDimExpr(axis + d));
    int64_t size = inputType.getDimSize(axis);
    return buildElementwise(
        b, loc, resultType, adaptor.getIndices(),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(nb, l, d));
          coords.push_back(gatherIndex(nb, l, args[0], size));
          for (int64_t d = axis + 1; d < inputRank; ++d)
            coords.push_back(linalg::IndexOp::create(nb, l, d + indexRank - 1));
          return tensor::ExtractOp::create(nb, l, input, coords).getResult();
        },
        mapOf(b, rank, indexExprs));
  }
};

/// gather_grad as a segmented sum over the indices sorted stably by row:
///
///   key[t]   = row(t) * count + t, row(t) the (clamped) row index t names,
///              t the row-major position in `indices`: distinct keys in the
///              order of (row, token)
///   sorted   = the keys in increasing order: a bottom-up merge sort whose
///              passes only gather (each output position finds its element
///              by a co-rank binary search in its pair of runs), so every
///              pass is an elementwise generic with a loop of fixed trip
///              count, ceil(log2(count)) of them
///   start[k] = #{p : sorted[p] < k * count} (binary search), k in [0, size]
///   result[pre..., k, post...] = sum over p in [start[k], start[k + 1])
///       of grad[pre..., sorted[p] mod count, post...]
///
/// Each result element adds its row's tokens in token order from +0 in f32
/// (an scf.for of dynamic length in the body), the order and the rounding
/// of the dense formulation this replaces (a reduction over every index of
/// (index == k) * grad per result element, O(result size * count)), so the
/// bits are the same on every backend and for any thread count. Row
/// padding_idx stays zero. Nothing is reduced (a sort by counting, as row
/// reductions, would be O(count^2)). Work: O(count * log^2(count) + size *
/// log(count) + result size + count * row size).
struct GatherGradLowering : ResultLowering<GatherGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(GatherGradOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    Value grad = adaptor.getGrad(), indices = adaptor.getIndices();
    auto indexType = tensorType(indices);
    int64_t resultRank = resultType.getRank();
    int64_t axis = normalized(op.getAxis(), resultRank);
    int64_t indexRank = indexType.getRank();
    int64_t size = resultType.getDimSize(axis);
    int64_t count = indexType.getNumElements();
    if (count == 0 || resultType.getNumElements() == 0)
      return filledTensor(b, loc, resultType, 0.0);
    // Sort keys in 32 bits unless they do not fit (they are compared, never
    // reduced).
    Type ct = size <= std::numeric_limits<int32_t>::max() / count
                  ? Type(b.getI32Type())
                  : Type(b.getI64Type());
    auto vectorType = RankedTensorType::get({count}, ct);
    auto toIndex = [&](OpBuilder &nb, Location l, Value value) -> Value {
      return arith::IndexCastOp::create(nb, l, nb.getIndexType(), value);
    };
    auto idx = [&](OpBuilder &nb, Location l, int64_t value) {
      return indexConstant(nb, l, value);
    };

    // key[t] * count + t: distinct, in the order of (row, token).
    Value flat = reshapeTensor(
        b, loc, indices,
        RankedTensorType::get({count}, indexType.getElementType()));
    Value sorted = buildElementwise(
        b, loc, vectorType, flat,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          // One op per statement: the IR's order is then the code's.
          Value row = gatherIndex(nb, l, args[0], size);
          Value t = linalg::IndexOp::create(nb, l, 0);
          Value scaled = arith::MulIOp::create(nb, l, row, idx(nb, l, count));
          Value key = arith::AddIOp::create(nb, l, scaled, t);
          return arith::IndexCastOp::create(nb, l, ct, key);
        });

    // Bottom-up merge sort, one elementwise pass per run width w: output
    // position p of the merged pair of runs A, B takes the k-th element
    // (k = p - base) of merge(A, B), found by a binary search for the
    // number i of A's elements among the first k (the smallest i with
    // A[i] > B[k - i - 1]: a "merge path" co-rank), so every pass only
    // gathers. ceil(log2(count)) passes of O(count * log(w)).
    for (int64_t w = 1; w < count; w *= 2) {
      Value runs = sorted;
      int64_t steps = llvm::Log2_64(w) + 1;
      sorted = buildElementwise(
          b, loc, vectorType, ValueRange{},
          [&](OpBuilder &nb, Location l, ValueRange) -> Value {
            Value p = linalg::IndexOp::create(nb, l, 0);
            Value pair = idx(nb, l, 2 * w);
            Value base = arith::MulIOp::create(
                nb, l, arith::DivUIOp::create(nb, l, p, pair), pair);
            Value k = arith::SubIOp::create(nb, l, p, base);
            Value rest = arith::SubIOp::create(nb, l, idx(nb, l, count), base);
            Value aLen = arith::MinUIOp::create(nb, l, rest, idx(nb, l, w));
            Value bLen = arith::MinUIOp::create(
                nb, l, arith::SubIOp::create(nb, l, rest, aLen), idx(nb, l, w));
            Value bStart = arith::AddIOp::create(nb, l, base, idx(nb, l, w));
            // An element of the tensor at `at` clamped into it (the search
            // reads past a run only once it has closed).
            auto read = [&](OpBuilder &fb, Location fl, Value at) -> Value {
              Value inside = arith::MinSIOp::create(
                  fb, fl, arith::MaxSIOp::create(fb, fl, at, idx(fb, fl, 0)),
                  idx(fb, fl, count - 1));
              return tensor::ExtractOp::create(fb, fl, runs,
                                               ValueRange{inside});
            };
            Value kAboveB = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::ugt, k, bLen);
            Value lo = arith::SelectOp::create(
                nb, l, kAboveB, arith::SubIOp::create(nb, l, k, bLen),
                idx(nb, l, 0));
            Value hi = arith::MinUIOp::create(nb, l, k, aLen);
            auto search = scf::ForOp::create(
                nb, l, idx(nb, l, 0), idx(nb, l, steps), idx(nb, l, 1),
                ValueRange{lo, hi},
                [&](OpBuilder &fb, Location fl, Value, ValueRange range) {
                  Value lo = range[0], hi = range[1];
                  Value mid = arith::ShRUIOp::create(
                      fb, fl, arith::AddIOp::create(fb, fl, lo, hi),
                      idx(fb, fl, 1));
                  Value a =
                      read(fb, fl, arith::AddIOp::create(fb, fl, base, mid));
                  Value bAt = arith::SubIOp::create(
                      fb, fl, arith::AddIOp::create(fb, fl, bStart, k),
                      arith::AddIOp::create(fb, fl, mid, idx(fb, fl, 1)));
                  Value enough = arith::CmpIOp::create(
                      fb, fl, arith::CmpIPredicate::sgt, a, read(fb, fl, bAt));
                  Value open = arith::CmpIOp::create(
                      fb, fl, arith::CmpIPredicate::ult, lo, hi);
                  Value down = arith::AndIOp::create(fb, fl, open, enough);
                  Value up = arith::AndIOp::create(
                      fb, fl, open,
                      arith::XOrIOp::create(fb, fl, enough,
                                            arith::ConstantIntOp::create(
                                                fb, fl, fb.getI1Type(), 1)));
                  Value next =
                      arith::AddIOp::create(fb, fl, mid, idx(fb, fl, 1));
                  scf::YieldOp::create(
                      fb, fl,
                      ValueRange{
                          arith::SelectOp::create(fb, fl, up, next, lo),
                          arith::SelectOp::create(fb, fl, down, mid, hi)});
                });
            Value i = search.getResult(0);
            Value j = arith::SubIOp::create(nb, l, k, i);
            Value a = read(nb, l, arith::AddIOp::create(nb, l, base, i));
            Value bv = read(nb, l, arith::AddIOp::create(nb, l, bStart, j));
            Value haveA = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::ult, i, aLen);
            Value noB = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::uge,
                                              j, bLen);
            Value aFirst =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, a, bv);
            Value takeA = arith::AndIOp::create(
                nb, l, haveA, arith::OrIOp::create(nb, l, noB, aFirst));
            return arith::SelectOp::create(nb, l, takeA, a, bv);
          });
    }

    // start[k] = #{p : sorted[p] < k * count}, the first position of row k
    // (a lower bound: ceil(log2(count + 1)) halvings of [lo, hi), a fixed
    // trip count).
    int64_t steps = llvm::Log2_64(count) + 1;
    auto startType = RankedTensorType::get({size + 1}, ct);
    Value starts = buildElementwise(
        b, loc, startType, ValueRange{},
        [&](OpBuilder &nb, Location l, ValueRange) -> Value {
          Value k = linalg::IndexOp::create(nb, l, 0);
          Value target = arith::IndexCastOp::create(
              nb, l, ct, arith::MulIOp::create(nb, l, k, idx(nb, l, count)));
          Value lastAt = idx(nb, l, count - 1);
          Value one = idx(nb, l, 1);
          auto search = scf::ForOp::create(
              nb, l, idx(nb, l, 0), idx(nb, l, steps), one,
              ValueRange{idx(nb, l, 0), idx(nb, l, count)},
              [&](OpBuilder &fb, Location fl, Value, ValueRange range) {
                Value lo = range[0], hi = range[1];
                Value mid = arith::ShRUIOp::create(
                    fb, fl, arith::AddIOp::create(fb, fl, lo, hi),
                    idx(fb, fl, 1));
                // Once lo == hi == count, mid would leave the tensor.
                Value at = arith::MinUIOp::create(fb, fl, mid, lastAt);
                Value key =
                    tensor::ExtractOp::create(fb, fl, sorted, ValueRange{at});
                Value open = arith::CmpIOp::create(
                    fb, fl, arith::CmpIPredicate::ult, lo, hi);
                Value less = arith::CmpIOp::create(
                    fb, fl, arith::CmpIPredicate::slt, key, target);
                Value up = arith::AndIOp::create(fb, fl, open, less);
                Value notLess = arith::XOrIOp::create(
                    fb, fl, less,
                    arith::ConstantIntOp::create(fb, fl, fb.getI1Type(), 1));
                Value down = arith::AndIOp::create(fb, fl, open, notLess);
                Value next = arith::AddIOp::create(fb, fl, mid, one);
                scf::YieldOp::create(
                    fb, fl,
                    ValueRange{arith::SelectOp::create(fb, fl, up, next, lo),
                               arith::SelectOp::create(fb, fl, down, mid, hi)});
              });
          return arith::IndexCastOp::create(nb, l, ct, search.getResult(0));
        });

    // The segmented sums, in token order.
    SmallVector<int64_t> indexStrides(indexRank, 1);
    for (int64_t d = indexRank - 2; d >= 0; --d)
      indexStrides[d] = indexStrides[d + 1] * indexType.getDimSize(d + 1);
    Type element = resultType.getElementType();
    std::optional<int64_t> padding = op.getPaddingIdx();
    return buildElementwise(
        b, loc, resultType, ValueRange{},
        [&](OpBuilder &nb, Location l, ValueRange) -> Value {
          Value k = linalg::IndexOp::create(nb, l, axis);
          Value one = indexConstant(nb, l, 1);
          Value begin = toIndex(
              nb, l, tensor::ExtractOp::create(nb, l, starts, ValueRange{k}));
          Value end =
              toIndex(nb, l,
                      tensor::ExtractOp::create(
                          nb, l, starts,
                          ValueRange{arith::AddIOp::create(nb, l, k, one)}));
          if (padding) {
            Value isPadding =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, k,
                                      indexConstant(nb, l, *padding));
            end = arith::SelectOp::create(nb, l, isPadding, begin, end);
          }
          SmallVector<Value> outer, inner;
          for (int64_t d = 0; d < axis; ++d)
            outer.push_back(linalg::IndexOp::create(nb, l, d));
          for (int64_t d = axis + 1; d < resultRank; ++d)
            inner.push_back(linalg::IndexOp::create(nb, l, d));
          auto sum = scf::ForOp::create(
              nb, l, begin, end, one, ValueRange{f32(nb, l, 0.0)},
              [&](OpBuilder &fb, Location fl, Value p, ValueRange acc) {
                Value key = toIndex(
                    fb, fl,
                    tensor::ExtractOp::create(fb, fl, sorted, ValueRange{p}));
                Value t = arith::RemUIOp::create(fb, fl, key,
                                                 indexConstant(fb, fl, count));
                SmallVector<Value> coords(outer);
                for (int64_t d = 0; d < indexRank; ++d) {
                  Value j = t;
                  if (indexStrides[d] != 1)
                    j = arith::DivUIOp::create(
                        fb, fl, j, indexConstant(fb, fl, indexStrides[d]));
                  if (d > 0)
                    j = arith::RemUIOp::create(
                        fb, fl, j,
                        indexConstant(fb, fl, indexType.getDimSize(d)));
                  coords.push_back(j);
                }
                coords.append(inner);
                Value x = tensor::ExtractOp::create(fb, fl, grad, coords);
                Value next = arith::AddFOp::create(fb, fl, acc[0],
                                                   widenToF32(fb, fl, x));
                scf::YieldOp::create(fb, fl, next);
              });
          return roundTo(nb, l, sum.getResult(0), element);
        });
  }
};

struct GatherElementsLowering : ResultLowering<GatherElementsOp> {
  using ResultLowering::ResultLowering;
  Value lower(GatherElementsOp op, OpAdaptor adaptor, OpBuilder &b,
              Location loc, RankedTensorType resultType) const override {
    Value input = adaptor.getInput();
    int64_t rank = resultType.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    int64_t size = tensorType(input).getDimSize(axis);
    // result[i...] = input[i... with i[axis] = indices[i...]]
    return buildElementwise(
        b, loc, resultType, adaptor.getIndices(),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(d == axis ? gatherIndex(nb, l, args[0], size)
                                       : linalg::IndexOp::create(nb, l, d));
          return tensor::ExtractOp::create(nb, l, input, coords).getResult();
        });
  }
};

/// result[q...] = sum_t (indices[q..., t at axis] == q[axis]) *
/// grad[q..., t at axis]: a reduction over the indices' extent along the
/// axis only (O(result size * indices.shape[axis])). Where the indices are
/// shorter than the result away from the axis, the rest is zero.
struct ScatterAddElementsLowering : ResultLowering<ScatterAddElementsOp> {
  using ResultLowering::ResultLowering;
  Value lower(ScatterAddElementsOp op, OpAdaptor adaptor, OpBuilder &b,
              Location loc, RankedTensorType resultType) const override {
    int64_t rank = resultType.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    auto indexType = tensorType(adaptor.getIndices());
    int64_t size = resultType.getDimSize(axis);
    // Loops: q... | t.
    SmallVector<AffineExpr> readExprs;
    for (int64_t d = 0; d < rank; ++d)
      readExprs.push_back(b.getAffineDimExpr(d == axis ? rank : d));
    AffineMap read = mapOf(b, rank + 1, readExprs);
    SmallVector<int64_t> covered(indexType.getShape());
    covered[axis] = size;
    Value acc = buildReduction(
        b, loc, rank + 1, {rank}, covered,
        {adaptor.getGrad(), adaptor.getIndices()}, {read, read}, 0.0,
        [&](OpBuilder &nb, Location l, Value acc, ValueRange x) {
          Value q = linalg::IndexOp::create(nb, l, axis);
          Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            gatherIndex(nb, l, x[1], size), q);
          return addWhere(nb, l, hit, acc, x[0]);
        });
    Value sums = finishElementwise(
        b, loc, acc,
        withElementType(tensorType(acc), resultType.getElementType()));
    if (ArrayRef<int64_t>(covered) == resultType.getShape())
      return sums;
    Value zeros = filledTensor(b, loc, resultType, 0.0);
    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    return tensor::InsertSliceOp::create(b, loc, sums, zeros, ValueRange{},
                                         ValueRange{}, ValueRange{}, offsets,
                                         covered, strides);
  }
};

/// A linalg.generic reducing every loop of `inputs` (read through `maps`)
/// into 0-d outputs of `types` filled with `inits`; `body` yields the
/// outputs' new values from the inputs' and outputs' elements.
SmallVector<Value> fullReduction(
    OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<AffineMap> maps,
    ArrayRef<Type> types, ArrayRef<int64_t> inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = maps.front().getNumDims();
  SmallVector<Value> outputs;
  SmallVector<Type> resultTypes;
  SmallVector<AffineMap> allMaps(maps);
  for (auto [type, init] : llvm::zip(types, inits)) {
    auto scalarType = RankedTensorType::get({}, type);
    outputs.push_back(linalg::FillOp::create(b, loc,
                                             intConstant(b, loc, type, init),
                                             emptyTensor(b, loc, scalarType))
                          .getResult(0));
    resultTypes.push_back(scalarType);
    allMaps.push_back(scalarMap(b, rank));
  }
  SmallVector<IteratorType> iterators(rank, IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, outputs, allMaps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, body(nb, l, args));
      });
  return SmallVector<Value>(generic.getResults());
}

/// The least and the greatest index, and whether one leaves [lower, upper),
/// all as full reductions over 32-bit values (the GPU's parallel
/// reductions combine i32 and i1 only; an i64 min/max would be one thread):
/// i32 indices are reduced as they are; an i64 index is split into its high
/// word (signed) and its low word (unsigned), whose lexicographic order is
/// the index's. Stage 1 reduces the high words (min, max) and ORs the
/// out-of-range test of every index; stage 2 reduces the low words among the
/// indices whose high word is the extreme (min, max unsigned). The pair
/// (tensor<2xi64>) is put back together from the words. All linalg, so
/// nothing is read on the host; integer min/max/or are exact in any order.
struct CheckIndicesLowering : Lowering<CheckIndicesOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(CheckIndicesOp op, OpAdaptor adaptor, OpBuilder &b,
                           Location loc) const override {
    Value indices = adaptor.getIndices();
    unsigned rank = tensorType(indices).getRank();
    Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
    bool wide = tensorType(indices).getElementType().isInteger(64);
    int64_t lowerBound = op.getLower(), upperBound = op.getUpper();
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    auto highWord = [&](OpBuilder &nb, Location l, Value x) -> Value {
      if (!wide)
        return x;
      Value shifted =
          arith::ShRSIOp::create(nb, l, x, intConstant(nb, l, i64, 32));
      return arith::TruncIOp::create(nb, l, i32, shifted);
    };
    SmallVector<Value> high = fullReduction(
        b, loc, indices, identity, {i32, i32, i1},
        {std::numeric_limits<int32_t>::max(),
         std::numeric_limits<int32_t>::min(), 0},
        [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
          Value x = args[0];
          Value hi = highWord(nb, l, x);
          Value x64 = wide ? x : arith::ExtSIOp::create(nb, l, i64, x);
          Value below =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, x64,
                                    intConstant(nb, l, i64, lowerBound));
          Value above =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, x64,
                                    intConstant(nb, l, i64, upperBound));
          Value bad = arith::OrIOp::create(nb, l, below, above);
          return {arith::MinSIOp::create(nb, l, args[1], hi),
                  arith::MaxSIOp::create(nb, l, args[2], hi),
                  arith::OrIOp::create(nb, l, args[3], bad)};
        });
    SmallVector<Value> words = {high[0], high[1]};
    if (wide) {
      // Low words of the indices at the extreme high word; the others give
      // the combiner's identity.
      SmallVector<Value> low = fullReduction(
          b, loc, {indices, high[0], high[1]},
          {identity, scalarMap(b, rank), scalarMap(b, rank)}, {i32, i32},
          {-1, 0},
          [&](OpBuilder &nb, Location l,
              ValueRange args) -> SmallVector<Value> {
            Value hi = highWord(nb, l, args[0]);
            Value lo = arith::TruncIOp::create(nb, l, i32, args[0]);
            Value atMin = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                                hi, args[1]);
            Value atMax = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                                hi, args[2]);
            Value forMin = arith::SelectOp::create(nb, l, atMin, lo,
                                                   intConstant(nb, l, i32, -1));
            Value forMax = arith::SelectOp::create(nb, l, atMax, lo,
                                                   intConstant(nb, l, i32, 0));
            return {arith::MinUIOp::create(nb, l, args[3], forMin),
                    arith::MaxUIOp::create(nb, l, args[4], forMax)};
          });
      words.append(low);
    }
    auto pairType = RankedTensorType::get({2}, i64);
    SmallVector<AffineMap> maps(words.size(), scalarMap(b, 1));
    maps.push_back(b.getMultiDimIdentityMap(1));
    Value pair =
        linalg::GenericOp::create(
            b, loc, pairType, words, emptyTensor(b, loc, pairType), maps,
            {IteratorType::parallel},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value first = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq,
                  linalg::IndexOp::create(nb, l, 0), indexConstant(nb, l, 0));
              auto pick = [&](Value least, Value greatest) -> Value {
                return arith::SelectOp::create(nb, l, first, least, greatest);
              };
              Value hi =
                  arith::ExtSIOp::create(nb, l, i64, pick(args[0], args[1]));
              Value value = hi;
              if (wide) {
                Value lo =
                    arith::ExtUIOp::create(nb, l, i64, pick(args[2], args[3]));
                Value shifted = arith::ShLIOp::create(
                    nb, l, hi, intConstant(nb, l, i64, 32));
                value = arith::OrIOp::create(nb, l, shifted, lo);
              }
              linalg::YieldOp::create(nb, l, value);
            })
            .getResult(0);
    return {high[2], pair};
  }
};

struct SliceGradLowering : ResultLowering<SliceGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(SliceGradOp op, OpAdaptor adaptor, OpBuilder &b, Location loc,
              RankedTensorType resultType) const override {
    Value zeros = filledTensor(b, loc, resultType, 0.0);
    return tensor::InsertSliceOp::create(
        b, loc, adaptor.getGrad(), zeros, ValueRange{}, ValueRange{},
        ValueRange{}, op.getStarts(), tensorType(adaptor.getGrad()).getShape(),
        op.getStrides());
  }
};

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

/// Whether the dropout stream keeps the element at the loops of an
/// all-parallel generic over `type`: SplitMix64 of the i64 `seed` at the
/// element's row-major linear index, compared with `threshold` (see
/// DropoutLowering).
Value dropoutKeeps(OpBuilder &nb, Location l, RankedTensorType type, Value seed,
                   int64_t threshold) {
  unsigned rank = type.getRank();
  Type i64 = nb.getI64Type();
  auto constant = [&](uint64_t value) -> Value {
    return arith::ConstantIntOp::create(nb, l, i64,
                                        static_cast<int64_t>(value));
  };
  // Row-major linear index of the element.
  Value linear = rank ? linalg::IndexOp::create(nb, l, 0).getResult()
                      : indexConstant(nb, l, 0);
  for (unsigned d = 1; d < rank; ++d) {
    Value scaled = arith::MulIOp::create(
        nb, l, linear, indexConstant(nb, l, type.getDimSize(d)));
    linear =
        arith::AddIOp::create(nb, l, scaled, linalg::IndexOp::create(nb, l, d));
  }
  Value counter = arith::AddIOp::create(
      nb, l, arith::IndexCastOp::create(nb, l, i64, linear), constant(1));
  Value z = arith::AddIOp::create(
      nb, l, seed,
      arith::MulIOp::create(nb, l, counter, constant(0x9E3779B97F4A7C15ULL)));
  auto mix = [&](Value v, uint64_t shift, uint64_t factor) -> Value {
    Value shifted = arith::ShRUIOp::create(nb, l, v, constant(shift));
    Value mixed = arith::XOrIOp::create(nb, l, v, shifted);
    return factor ? arith::MulIOp::create(nb, l, mixed, constant(factor))
                        .getResult()
                  : mixed;
  };
  z = mix(z, 30, 0xBF58476D1CE4E5B9ULL);
  z = mix(z, 27, 0x94D049BB133111EBULL);
  z = mix(z, 31, 0);
  Value bits = arith::ShRUIOp::create(nb, l, z, constant(11));
  Value keep = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, bits,
                                     constant(threshold));
  return keep;
}

/// The dropout random stream is counter based: element i (its row-major
/// linear index in the input) draws the i-th output of SplitMix64 seeded
/// with `seed`, all arithmetic modulo 2^64:
///
///   z = seed + (i + 1) * 0x9E3779B97F4A7C15
///   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
///   z = (z ^ (z >> 27)) * 0x94D049BB133111EB
///   z = z ^ (z >> 31)
///   u = (z >> 11) * 2^-53                       (uniform in [0, 1))
///
/// and is kept when u >= p, i.e. when (z >> 11) >= ceil(p * 2^53), so an
/// element is kept with probability 1 - p (to 2^-53). The mask is a pure
/// function of (seed, shape): the same seed gives the same mask. A kept
/// element is x * (1 / (1 - p)) with the factor rounded to f32, the same
/// factor dropout_grad applies, computed in f32 and rounded once.
struct DropoutLowering : Lowering<DropoutOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(DropoutOp op, OpAdaptor adaptor, OpBuilder &b,
                           Location loc) const override {
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    unsigned rank = type.getRank();
    double p = op.getProbability().convertToDouble();
    double keepScale = 1.0 / (1.0 - p);
    auto threshold = static_cast<int64_t>(std::ceil(std::ldexp(p, 53)));
    Type element = type.getElementType();
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    AffineMap toScalar = scalarMap(b, rank);
    SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type, maskType},
        ValueRange{adaptor.getInput(), adaptor.getSeed()},
        ValueRange{emptyTensor(b, loc, type), emptyTensor(b, loc, maskType)},
        {identity, toScalar, identity, identity}, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value keep = dropoutKeeps(nb, l, type, args[1], threshold);
          Value scaled = arith::MulFOp::create(
              nb, l, widenToF32(nb, l, args[0]), f32(nb, l, keepScale));
          Value zero = f32(nb, l, 0.0);
          Value kept = arith::SelectOp::create(nb, l, keep, scaled, zero);
          linalg::YieldOp::create(
              nb, l, ValueRange{roundTo(nb, l, kept, element), keep});
        });
    return SmallVector<Value>(generic.getResults());
  }
};
} // namespace

void mlir::amp::populateAMPConvolutionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Conv2DLowering, Conv2DInputGradLowering,
               Conv2DWeightGradLowering, MaxPool2DLowering,
               MaxPool2DGradLowering, AvgPool2DLowering, AvgPool2DGradLowering,
               GlobalAvgPoolLowering, GatherLowering, GatherGradLowering,
               GatherElementsLowering, ScatterAddElementsLowering,
               CheckIndicesLowering, SliceGradLowering, DropoutLowering>(
      patterns.getContext());
}
