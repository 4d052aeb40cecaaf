//===- AttentionToRuntime.cpp - fused attention to runtime calls ----------===//
//
// The convert-amp-attention-to-runtime pass (Passes.td): on tensors, before
// convert-amp-to-linalg, each amp.attention and amp.attention_grad becomes
// one call of the runtime's fused attention (include/amp/Runtime/
// Attention.h): on the CPU the flash-style kernel, on the GPU cuDNN's fused
// attention where cuDNN runs the configuration (CudnnAttentionRules.h, for
// the sm_90 target and the toolkit's cuDNN), else the unfused amp ops of
// AttentionDecomposition.cpp (with `remarks`, a remark says why). Inputs are
// read through read-only bufferization.to_buffer; each result is a fresh buffer
// the call writes, so no buffer is shared with the runtime across calls.
//
// The calls take each 4-D operand and result with a layout (Attention.h,
// "Layouts"), so the head split and merge around attention are not copies:
// an operand made by transposes, reshapes and slices of a tensor (q, k, v
// of a fused projection, split into heads) is read in that tensor's buffer;
// a result merged back ([B, S, H, D], and concatenated with the others when
// they are a fused projection's gradient) is written where the merge puts
// it. On the GPU only layouts cuDNN takes (cudnnAttentionLayoutRefusal).
//
//===----------------------------------------------------------------------===//

#include "AttentionDecomposition.h"

#include "amp/Conversion/GemmMatch.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPBuilders.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/Attention.h"
#include "amp/Runtime/CudnnAttentionRules.h"
#include "amp/Runtime/ModelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/CommandLine.h"

#include <limits>

namespace mlir::amp {
#define GEN_PASS_DEF_CONVERTAMPATTENTIONTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The compute capability and cuDNN version the GPU target is compiled for:
/// sm_90 (amp-gpu-pipeline's default chip) and the toolkit's cuDNN 9.19.
/// The runtime checks the library it loads against the same rules.
constexpr int kTargetSM = 90;
constexpr int kTargetCudnnVersion = 91900;

int32_t dtypeOf(Type element) {
  if (element.isF16())
    return AMP_DTYPE_F16;
  if (element.isBF16())
    return AMP_DTYPE_BF16;
  return AMP_DTYPE_F32;
}

using Strides = SmallVector<int64_t, 4>;

Strides denseStrides(ArrayRef<int64_t> shape) {
  Strides strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 1; i > 0; --i)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

/// The strides of `to` when its elements are those of `from` (row-major
/// order kept) laid out with `strides`; failure when no strides give that
/// view (merged dimensions that are not contiguous with each other). Each
/// run of `from`'s dimensions that is contiguous in memory maps onto a run
/// of `to`'s with the same number of elements.
FailureOr<Strides> reshapedStrides(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> to) {
  Strides result(to.size(), 1);
  int64_t toDim = int64_t(to.size()) - 1;
  int64_t runStride = from.empty() ? 1 : strides.back();
  int64_t fromElements = 1, toElements = 1;
  for (int64_t dim = int64_t(from.size()) - 1; dim >= 0; --dim) {
    fromElements *= from[dim];
    // A run ends where the next outer dimension is not contiguous with it.
    bool runEnds = dim == 0 || (from[dim - 1] != 1 &&
                                strides[dim - 1] != fromElements * runStride);
    if (!runEnds)
      continue;
    while (toDim >= 0 && (toElements < fromElements || to[toDim] == 1)) {
      result[toDim] = toElements * runStride;
      toElements *= to[toDim];
      --toDim;
    }
    if (toElements != fromElements)
      return failure();
    if (dim > 0) {
      runStride = strides[dim - 1];
      fromElements = toElements = 1;
    }
  }
  // Leading dimensions of one element.
  for (; toDim >= 0; --toDim) {
    if (to[toDim] != 1)
      return failure();
    result[toDim] = toElements * runStride;
  }
  return result;
}

/// A 4-D operand or result of a fused call as the runtime sees it
/// (Attention.h, "Layouts"): the elements of `base`'s dense buffer at
/// `offset` with `strides` (batch, head, seq, dim).
struct View {
  Value base;
  int64_t offset = 0;
  Strides strides;
};

/// The input a view may look through: amp.transpose, amp.reshape and
/// amp.slice of static shapes, which only rearrange elements.
Value viewInput(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op || !isa<TransposeOp, ReshapeOp, SliceOp>(op))
    return Value();
  Value input = op->getOperand(0);
  if (!build::tensorType(input).hasStaticShape() ||
      !build::tensorType(value).hasStaticShape())
    return Value();
  return input;
}

/// Applies the op that defines `value` (viewInput's) to `view`, whose
/// strides describe the op's input: afterwards they describe `value`.
LogicalResult applyView(Value value, View &view) {
  Operation *op = value.getDefiningOp();
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    Strides permuted;
    for (int64_t dim : transpose.getPermutation())
      permuted.push_back(view.strides[dim]);
    view.strides = permuted;
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    for (auto [dim, start] : llvm::enumerate(slice.getStarts()))
      view.offset += start * view.strides[dim];
    for (auto [dim, step] : llvm::enumerate(slice.getStrides()))
      view.strides[dim] *= step;
    return success();
  }
  FailureOr<Strides> strides =
      reshapedStrides(build::tensorType(op->getOperand(0)).getShape(),
                      view.strides, build::tensorType(value).getShape());
  if (failed(strides))
    return failure();
  view.strides = *strides;
  return success();
}

/// `view` with the strides of its one-element dimensions made those of a
/// dense layout of the dimensions inside them (any stride addresses their
/// one element; cuDNN's stride rules then hold for them whenever they hold
/// for the others).
void normalizeUnitDims(View &view, ArrayRef<int64_t> shape) {
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    if (shape[i] == 1)
      view.strides[i] = view.strides[i + 1] * shape[i + 1];
}

/// Erases the transposes, reshapes and slices that computed `operands`
/// when the call now reads their sources instead (nothing else reads them).
void eraseDeadViews(ArrayRef<Value> operands) {
  SmallVector<Operation *> worklist;
  for (Value operand : operands)
    if (Operation *op = operand.getDefiningOp())
      worklist.push_back(op);
  llvm::SmallPtrSet<Operation *, 8> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !isa<TransposeOp, ReshapeOp, SliceOp>(op) ||
        !op->use_empty())
      continue;
    Operation *input = op->getOperand(0).getDefiningOp();
    erased.insert(op);
    op->erase();
    if (input)
      worklist.push_back(input);
  }
}

/// Builds the calls of one module's attention ops.
class AttentionCalls {
public:
  AttentionCalls(ModuleOp module, bool gpu)
      : module(module), b(module.getContext()), gpu(gpu) {}

  /// The mask as the runtime takes it: a boolean keep mask as is on the
  /// CPU and as an additive 0 / -inf one on the GPU (cuDNN takes no
  /// boolean bias); an additive mask in f32.
  Value runtimeMask(Location loc, Value mask);
  /// The mask arguments (kind, pointer, batch, heads) and the attributes
  /// (scale, causal[, dropout, seed]).
  template <typename OpTy>
  void maskAndAttributes(OpTy op, Value mask, SmallVectorImpl<Value> &args);
  void lower(AttentionOp op);
  void lower(AttentionGradOp op);

  /// The configuration cuDNN would get for `op`.
  template <typename OpTy>::amp::AttentionConfig config(OpTy op, bool backward);

private:
  Value i32(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value f32(Location loc, double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value null(Location loc) {
    return LLVM::ZeroOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()));
  }
  /// Whether the runtime takes `view` of a tensor of `element`s: any view
  /// with a contiguous last dimension on the CPU (and rows at least a row
  /// apart), cuDNN's layout rules on the GPU.
  bool acceptable(const View &view, Type element, int64_t rowLength);
  /// How the call reads `tensor`: through the deepest chain of transposes,
  /// reshapes and slices whose source's dense buffer holds its elements in
  /// a layout the runtime takes, so that no copy is made (a projection's
  /// [B, S, H, D] output as heads, q, k and v of one fused projection).
  View operandView(Value tensor);
  Value readPointer(Location loc, Value tensor);
  /// The layout arguments of `views` (offset and three strides each).
  void appendLayouts(Location loc, ArrayRef<View> views,
                     SmallVectorImpl<Value> &args);
  void call(Location loc, StringRef name, SmallVector<Value> args);

  /// Where the results of a fused call go: each into a fresh buffer, in
  /// the layout of the head merge that reads it when there is one (a
  /// transpose to [B, S, H, D], or the concatenation of the gradients of
  /// one fused projection's q, k and v), so that the merge needs no copy.
  struct Placement {
    View view;           // the result's view of `buffer`
    Value buffer;        // memref
    Operation *replaced; // the merge the buffer's tensor replaces, if any
  };
  SmallVector<Placement> placeResults(Location loc, ValueRange results);
  /// Replaces the results by the placements' buffers once the call wrote
  /// them.
  void replaceResults(Location loc, ValueRange results,
                      ArrayRef<Placement> placements);

  ModuleOp module;
  OpBuilder b;
  bool gpu;
};

bool AttentionCalls::acceptable(const View &view, Type element,
                                int64_t rowLength) {
  if (view.strides.back() != 1 || view.offset < 0 ||
      llvm::any_of(view.strides, [](int64_t s) { return s < 0; }) ||
      view.strides[2] < rowLength)
    return false;
  if (!gpu)
    return true;
  return !::amp::cudnnAttentionLayoutRefusal(dtypeOf(element),
                                             view.strides.data(), view.offset);
}

View AttentionCalls::operandView(Value tensor) {
  RankedTensorType type = build::tensorType(tensor);
  View dense{tensor, 0, denseStrides(type.getShape())};
  SmallVector<Value> chain = {tensor};
  while (Value input = viewInput(chain.back()))
    chain.push_back(input);
  // The deepest source first: the fewer copies the better.
  for (int64_t source = int64_t(chain.size()) - 1; source > 0; --source) {
    View view{chain[source], 0,
              denseStrides(build::tensorType(chain[source]).getShape())};
    bool ok = true;
    for (int64_t i = source - 1; i >= 0 && ok; --i)
      ok = succeeded(applyView(chain[i], view));
    if (!ok)
      continue;
    normalizeUnitDims(view, type.getShape());
    if (acceptable(view, type.getElementType(), type.getShape().back()))
      return view;
  }
  return dense;
}

Value AttentionCalls::readPointer(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor);
  buffer.setReadOnly(true);
  return bufferPointer(b, loc, buffer);
}

void AttentionCalls::appendLayouts(Location loc, ArrayRef<View> views,
                                   SmallVectorImpl<Value> &args) {
  for (const View &view : views) {
    args.push_back(i64(loc, view.offset));
    for (int64_t stride : ArrayRef(view.strides).drop_back())
      args.push_back(i64(loc, stride));
  }
}

void AttentionCalls::call(Location loc, StringRef name,
                          SmallVector<Value> args) {
  if (gpu) // The step's stream, from amp-gemm-calls-on-stream.
    args.push_back(null(loc));
  auto type = b.getFunctionType(ValueRange(args).getTypes(), {});
  func::FuncOp callee = getOrDeclareLibraryFunc(module, name, type);
  func::CallOp::create(b, loc, callee, args);
}

/// The transpose of `result` to [B, S, H, D] (the head merge), if one
/// reads it.
TransposeOp headMerge(Value result) {
  for (Operation *user : result.getUsers())
    if (auto transpose = dyn_cast<TransposeOp>(user))
      if (transpose.getPermutation() == ArrayRef<int64_t>{0, 2, 1, 3})
        return transpose;
  return nullptr;
}

/// For results that are only merged (transposed, reshaped to [B, S, H D])
/// and concatenated along the last axis with the others of `results`, and
/// nothing else: that concatenation (a fused projection's gradient).
ConcatOp mergedConcat(ValueRange results) {
  ConcatOp concat;
  int64_t merged = 0;
  for (Value result : results) {
    TransposeOp transpose = headMerge(result);
    if (!transpose || !result.hasOneUse() || !transpose->hasOneUse())
      continue;
    auto reshape = dyn_cast<ReshapeOp>(*transpose->user_begin());
    if (!reshape || !reshape->hasOneUse())
      continue;
    auto user = dyn_cast<ConcatOp>(*reshape->user_begin());
    if (!user)
      continue;
    if (concat && user != concat)
      return nullptr;
    concat = user;
    ++merged;
  }
  if (!concat || merged != int64_t(concat.getInputs().size()))
    return nullptr;
  int64_t rank = build::tensorType(concat.getResult()).getRank();
  ArrayRef<int64_t> shape = build::tensorType(concat.getResult()).getShape();
  if (rank != 3 || (concat.getAxis() != 2 && concat.getAxis() != -1) ||
      !build::tensorType(concat.getResult()).hasStaticShape())
    return nullptr;
  // Each input the [B, S, H D] merge of a [B, H, S, D] result.
  for (Value input : concat.getInputs()) {
    ArrayRef<int64_t> r = build::tensorType(input.getDefiningOp<ReshapeOp>()
                                                .getInput()
                                                .getDefiningOp<TransposeOp>()
                                                .getInput())
                              .getShape();
    ArrayRef<int64_t> in = build::tensorType(input).getShape();
    if (in[0] != r[0] || in[1] != r[2] || in[2] != r[1] * r[3] ||
        shape[0] != r[0] || shape[1] != r[2])
      return nullptr;
  }
  return concat;
}

SmallVector<AttentionCalls::Placement>
AttentionCalls::placeResults(Location loc, ValueRange results) {
  SmallVector<Placement> placements;
  auto fresh = [&](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return memref::AllocOp::create(
        b, loc, MemRefType::get(tensor.getShape(), tensor.getElementType()));
  };
  auto denseAt = [&](Value result) {
    RankedTensorType type = build::tensorType(result);
    return Placement{View{result, 0, denseStrides(type.getShape())},
                     fresh(type), nullptr};
  };
  auto fits = [&](Value result, View &view) {
    RankedTensorType type = build::tensorType(result);
    normalizeUnitDims(view, type.getShape());
    return acceptable(view, type.getElementType(), type.getShape().back());
  };
  // Alone: into the [B, S, H, D] merge that reads it, else dense.
  auto single = [&](Value result) {
    TransposeOp merge =
        build::tensorType(result).getRank() == 4 ? headMerge(result) : nullptr;
    if (merge) {
      ArrayRef<int64_t> m = build::tensorType(merge.getResult()).getShape();
      // [B, S, H, D] dense, seen as [B, H, S, D].
      View view{result, 0, {m[1] * m[2] * m[3], m[3], m[2] * m[3], 1}};
      if (fits(result, view))
        return Placement{view, fresh(merge.getResult().getType()), merge};
    }
    return denseAt(result);
  };
  // A fused projection's gradient: one buffer, each result at its columns.
  if (ConcatOp concat = mergedConcat(results)) {
    ArrayRef<int64_t> shape = build::tensorType(concat.getResult()).getShape();
    SmallVector<Placement> grouped;
    Value buffer;
    int64_t column = 0;
    for (Value input : concat.getInputs()) {
      Value result = input.getDefiningOp<ReshapeOp>()
                         .getInput()
                         .getDefiningOp<TransposeOp>()
                         .getInput();
      ArrayRef<int64_t> r = build::tensorType(result).getShape();
      // [B, S, N] at `column`, seen as [B, S, H, D], then as [B, H, S, D].
      View view{result, column, {shape[1] * shape[2], r[3], shape[2], 1}};
      column += build::tensorType(input).getDimSize(2);
      if (!fits(result, view))
        break;
      grouped.push_back(Placement{view, buffer, concat});
    }
    if (grouped.size() == concat.getInputs().size()) {
      buffer = fresh(concat.getResult().getType());
      for (Value result : results) {
        auto it = llvm::find_if(
            grouped, [&](const Placement &p) { return p.view.base == result; });
        if (it == grouped.end()) {
          placements.push_back(single(result));
          continue;
        }
        placements.push_back(*it);
        placements.back().buffer = buffer;
      }
      return placements;
    }
  }
  for (Value result : results)
    placements.push_back(single(result));
  return placements;
}

void AttentionCalls::replaceResults(Location loc, ValueRange results,
                                    ArrayRef<Placement> placements) {
  auto asTensor = [&](Value buffer, Type type) -> Value {
    auto tensor = bufferization::ToTensorOp::create(b, loc, type, buffer);
    // The buffer is fresh and only this tensor reads it.
    tensor.setRestrict(true);
    tensor.setWritable(true);
    return tensor;
  };
  DenseMap<Operation *, Value> merged;
  for (auto [result, p] : llvm::zip_equal(results, placements)) {
    if (!p.replaced) {
      result.replaceAllUsesWith(asTensor(p.buffer, result.getType()));
      continue;
    }
    Value &tensor = merged[p.replaced];
    if (!tensor)
      tensor = asTensor(p.buffer, p.replaced->getResult(0).getType());
    // Only the concatenation read a result placed in its buffer
    // (mergedConcat).
    if (isa<ConcatOp>(p.replaced))
      continue;
    // Other readers of the result see the merge transposed back (the
    // permutation is its own inverse).
    if (llvm::any_of(result.getUsers(),
                     [&](Operation *user) { return user != p.replaced; })) {
      Value back =
          TransposeOp::create(b, loc, result.getType(), tensor,
                              cast<TransposeOp>(p.replaced).getPermutation());
      result.replaceAllUsesExcept(back, p.replaced);
    }
  }
  for (auto [replaced, tensor] : merged) {
    SmallVector<Operation *> dead;
    if (auto concat = dyn_cast<ConcatOp>(replaced))
      for (Value input : concat.getInputs())
        dead.push_back(input.getDefiningOp()); // the reshape
    replaced->getResult(0).replaceAllUsesWith(tensor);
    replaced->erase();
    for (Operation *reshape : dead) {
      Operation *transpose = reshape->getOperand(0).getDefiningOp();
      reshape->erase();
      transpose->erase();
    }
  }
}

Value AttentionCalls::runtimeMask(Location loc, Value mask) {
  if (!mask)
    return mask;
  auto type = cast<RankedTensorType>(mask.getType());
  if (type.getElementType().isInteger(1) && !gpu)
    return mask;
  if (!type.getElementType().isInteger(1))
    return build::castElement(b, loc, mask, b.getF32Type());
  RankedTensorType additive = type.clone(b.getF32Type());
  return build::select(
      b, loc, mask, build::splat(b, loc, additive, 0.0),
      build::splat(b, loc, additive, -std::numeric_limits<double>::infinity()));
}

template <typename OpTy>
void AttentionCalls::maskAndAttributes(OpTy op, Value mask,
                                       SmallVectorImpl<Value> &args) {
  Location loc = op.getLoc();
  if (!mask) {
    args.append({i32(loc, AMP_ATTENTION_MASK_NONE), null(loc), i64(loc, 1),
                 i64(loc, 1)});
  } else {
    ArrayRef<int64_t> shape = build::tensorType(mask).getShape();
    bool keep = build::elementType(mask).isInteger(1);
    args.append(
        {i32(loc, keep ? AMP_ATTENTION_MASK_KEEP : AMP_ATTENTION_MASK_ADD),
         readPointer(loc, mask), i64(loc, shape[0]), i64(loc, shape[1])});
  }
  args.append(
      {f32(loc, op.getScale().convertToDouble()), i32(loc, op.getCausal())});
  if (gpu) // amp never sends dropout to cuDNN.
    return;
  args.push_back(f32(loc, op.getDropout().convertToDouble()));
  args.push_back(op.getSeed() ? tensor::ExtractOp::create(b, loc, op.getSeed(),
                                                          ValueRange{})
                                    .getResult()
                              : i64(loc, 0));
}

/// The shared leading arguments: dtype and dimensions.
static SmallVector<Value> problem(OpBuilder &b, Location loc, Value q, Value k,
                                  Value v) {
  ArrayRef<int64_t> qs = build::tensorType(q).getShape();
  ArrayRef<int64_t> ks = build::tensorType(k).getShape();
  int64_t dv = build::tensorType(v).getDimSize(3);
  SmallVector<Value> args = {
      arith::ConstantIntOp::create(b, loc, dtypeOf(build::elementType(q)), 32)};
  for (int64_t dim : {qs[0], qs[1], ks[1], qs[2], ks[2], qs[3], dv})
    args.push_back(arith::ConstantIntOp::create(b, loc, dim, 64));
  return args;
}

void AttentionCalls::lower(AttentionOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value mask = runtimeMask(loc, op.getMask());
  SmallVector<Value> args =
      problem(b, loc, op.getQuery(), op.getKey(), op.getValue());
  SmallVector<View> views;
  for (Value operand : {op.getQuery(), op.getKey(), op.getValue()}) {
    views.push_back(operandView(operand));
    args.push_back(readPointer(loc, views.back().base));
  }
  maskAndAttributes(op, mask, args);
  SmallVector<Placement> placements = placeResults(loc, op.getResults());
  for (const Placement &p : placements)
    args.push_back(bufferPointer(b, loc, p.buffer));
  views.push_back(placements[0].view);
  appendLayouts(loc, views, args);
  call(loc, gpu ? kGPUAttentionFwdStridedFunc : kCPUAttentionFwdFunc, args);
  replaceResults(loc, op.getResults(), placements);
  SmallVector<Value> operands(op->getOperands());
  op.erase();
  eraseDeadViews(operands);
}

void AttentionCalls::lower(AttentionGradOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value mask = runtimeMask(loc, op.getMask());
  SmallVector<Value> args =
      problem(b, loc, op.getQuery(), op.getKey(), op.getValue());
  SmallVector<View> views;
  for (Value operand : {op.getQuery(), op.getKey(), op.getValue(),
                        op.getOutput(), op.getGrad()})
    views.push_back(operandView(operand));
  // cuDNN may want dO laid out as O (R20): then both dense.
  if (gpu && ::amp::cudnnAttentionGradLayoutRefusal(views[3].strides.data(),
                                                    views[4].strides.data(),
                                                    kTargetCudnnVersion)) {
    views[3] = View{op.getOutput(), 0,
                    denseStrides(build::tensorType(op.getOutput()).getShape())};
    views[4] = View{op.getGrad(), 0,
                    denseStrides(build::tensorType(op.getGrad()).getShape())};
  }
  for (const View &view : views)
    args.push_back(readPointer(loc, view.base));
  args.push_back(readPointer(loc, op.getLse()));
  maskAndAttributes(op, mask, args);
  SmallVector<Placement> placements = placeResults(loc, op.getResults());
  for (const Placement &p : placements) {
    args.push_back(bufferPointer(b, loc, p.buffer));
    views.push_back(p.view);
  }
  appendLayouts(loc, views, args);
  call(loc, gpu ? kGPUAttentionBwdStridedFunc : kCPUAttentionBwdFunc, args);
  replaceResults(loc, op.getResults(), placements);
  SmallVector<Value> operands(op->getOperands());
  op.erase();
  eraseDeadViews(operands);
}

template <typename OpTy>
::amp::AttentionConfig AttentionCalls::config(OpTy op, bool backward) {
  ArrayRef<int64_t> q = build::tensorType(op.getQuery()).getShape();
  ArrayRef<int64_t> k = build::tensorType(op.getKey()).getShape();
  ::amp::AttentionConfig config{};
  config.dtype = dtypeOf(build::elementType(op.getQuery()));
  config.batch = q[0];
  config.headsQ = q[1];
  config.headsKV = k[1];
  config.seqQ = q[2];
  config.seqKV = k[2];
  config.headDim = q[3];
  config.headDimV = build::tensorType(op.getValue()).getDimSize(3);
  // The GPU call gets a keep mask as an additive one (runtimeMask).
  config.maskKind =
      op.getMask() ? AMP_ATTENTION_MASK_ADD : AMP_ATTENTION_MASK_NONE;
  config.maskBatch =
      op.getMask() ? build::tensorType(op.getMask()).getDimSize(0) : 1;
  config.maskHeads =
      op.getMask() ? build::tensorType(op.getMask()).getDimSize(1) : 1;
  config.causal = op.getCausal();
  config.dropout = op.getDropout().convertToDouble();
  config.backward = backward;
  return config;
}

struct ConvertAMPAttentionToRuntimePass
    : public mlir::amp::impl::ConvertAMPAttentionToRuntimePassBase<
          ConvertAMPAttentionToRuntimePass> {
  using Base::Base;

  /// Why `op` stays unfused on the GPU (null when cuDNN runs it): both
  /// directions must be fused, so that the statistics cuDNN writes are what
  /// the backward reads.
  template <typename OpTy>
  const char *cudnnRefusal(AttentionCalls &calls, OpTy op) {
    for (bool backward : {false, true})
      if (const char *reason = ::amp::cudnnAttentionRefusal(
              calls.config(op, backward), kTargetSM, kTargetCudnnVersion))
        return reason;
    return nullptr;
  }

  template <typename OpTy> bool runFused(AttentionCalls &calls, OpTy op) {
    if (decompose)
      return false;
    if (!gpu)
      return true;
    if (const char *reason = cudnnRefusal(calls, op)) {
      if (remarks)
        op.emitRemark() << "unfused attention (the scores materialized): "
                        << reason;
      return false;
    }
    return true;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AttentionCalls calls(module, gpu);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    OpBuilder b(module.getContext());
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      if (auto forward = dyn_cast<AttentionOp>(op)) {
        if (runFused(calls, forward)) {
          calls.lower(forward);
          continue;
        }
        op->replaceAllUsesWith(decomposeAttention(b, forward));
      } else {
        auto backward = cast<AttentionGradOp>(op);
        if (runFused(calls, backward)) {
          calls.lower(backward);
          continue;
        }
        op->replaceAllUsesWith(decomposeAttentionGrad(b, backward));
      }
      op->erase();
    }
  }
};
} // namespace
