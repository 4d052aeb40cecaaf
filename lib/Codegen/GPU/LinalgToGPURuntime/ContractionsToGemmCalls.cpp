//===- ContractionsToGemmCalls.cpp - matrix products to amp_gpu_gemm ------===//
//
// The amp-contractions-to-gemm-calls pass: on bufferized IR, linalg ops that
// are (batched, possibly transposed) matrix products accumulating in f32 are
// replaced by calls to the runtime's amp_gpu_gemm (cuBLASLt; see
// include/amp/Runtime/CUDAKernels.h). The elementwise op that adds a bias
// to a product (and rounds it), or that only reads the product rounded, and
// the sum of an operand's rows that follows its product (a bias gradient)
// are folded into the call as cuBLASLt epilogues and output types; a
// residual added with the bias becomes cuBLASLt's `beta * C` with C (the
// residual) and D (the sum) apart. A bias added to an f16 or bf16 output is
// rounded to that type first (cuBLASLt takes no f32 bias there). A GELU in
// its tanh form (the one cuBLASLt computes) applied to the call's output
// becomes the GELU_AUX[_BIAS] epilogue, which keeps GELU's input in an aux
// matrix, and the GELU gradient taken from that input, applied to a
// product, the DGELU epilogue (amp_gpu_gemm_aux).
// Everything else is left for the loop and kernel lowering of the GPU
// pipeline.
//
//===----------------------------------------------------------------------===//

#include "GemmCall.h"
#include "amp/Conversion/GemmMatch.h"

#include "amp/Codegen/GPU/Passes.h"
#include "amp/Runtime/CUDAKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

#include <functional>
#include <optional>

namespace mlir::amp {
#define GEN_PASS_DEF_CONTRACTIONSTOGEMMCALLSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::bufferPointer;
using mlir::amp::findZeroFill;
using mlir::amp::GemmShape;
using mlir::amp::isDenseBuffer;
using mlir::amp::kGemmAuxFunc;
using mlir::amp::kGemmEpilogueFunc;
using mlir::amp::kGemmExFunc;
using mlir::amp::kGemmFunc;
using mlir::amp::stripExt;

namespace {

/// amp_dtype (include/amp/Runtime/ModelABI.h) of a GEMM operand.
std::optional<int32_t> gemmDType(Type type) {
  if (type.isF32())
    return 0;
  if (type.isF16())
    return 1;
  if (type.isBF16())
    return 2;
  return std::nullopt;
}

/// Which runtime entry point a call needs.
enum class GemmEntry { Plain, Epilogue, Apart, Aux };

/// amp_gpu_gemm, with an epilogue amp_gpu_gemm_epilogue, with C and D apart
/// amp_gpu_gemm_ex, with a GELU epilogue's aux matrix amp_gpu_gemm_aux;
/// declared once.
func::FuncOp getOrDeclareGemm(ModuleOp module, GemmEntry entry) {
  StringRef name = entry == GemmEntry::Aux        ? kGemmAuxFunc
                   : entry == GemmEntry::Apart    ? kGemmExFunc
                   : entry == GemmEntry::Epilogue ? kGemmEpilogueFunc
                                                  : kGemmFunc;
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  // void amp_gpu_gemm(int32_t a_dtype, int32_t c_dtype, int64_t batch,
  //   int64_t m, int64_t n, int64_t k, int32_t trans_a, int32_t trans_b,
  //   const void *a, int64_t stride_a, const void *b, int64_t stride_b,
  //   void *c, float alpha, float beta, int32_t allow_tf32,
  //   [int32_t epilogue, void *vector, [void *aux, int64_t aux_ld,]
  //   [void *d,]] void *stream)
  SmallVector<Type> inputs = {i32, i32, i64, i64, i64, i64, i32, i32,
                              ptr, i64, ptr, i64, ptr, f32, f32, i32};
  if (entry != GemmEntry::Plain)
    inputs.append({i32, ptr});
  if (entry == GemmEntry::Aux)
    inputs.append({ptr, i64});
  if (entry == GemmEntry::Apart || entry == GemmEntry::Aux)
    inputs.push_back(ptr);
  inputs.push_back(ptr);
  return amp::getOrDeclareLibraryFunc(module, name,
                                      b.getFunctionType(inputs, {}));
}

//===----------------------------------------------------------------------===//
// Epilogues: what the product's neighbours let the call do
//===----------------------------------------------------------------------===//

/// What a GEMM call writes besides (or instead of) its linalg op's output.
struct Epilogue {
  int32_t kind = 0; // 0 or an amp_gemm_epilogue
  Value vector;     // the bias read or the bias gradient written
  Value output;     // the buffer the call writes (the op's own by default)
  Value residual;   // C apart from the output (beta 1), or none
  Operation *absorbed = nullptr; // the op the call does instead
};

/// Every operation strictly between `from` and `to` (same block) touches no
/// memory, or allocates.
bool onlyAllocationsBetween(Operation *from, Operation *to) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return false;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
      return false;
  return true;
}

/// The only user of the fresh product buffer `c` besides `gemm`, its fill
/// and its deallocations, when that is a linalg.generic.
linalg::GenericOp soleConsumer(Operation *gemm, Value c) {
  if (!c.getDefiningOp<memref::AllocOp>())
    return nullptr;
  linalg::GenericOp consumer;
  for (Operation *user : c.getUsers()) {
    // Its zero fill goes with the product's beta 0.
    if (user == gemm || isa<memref::DeallocOp, linalg::FillOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || (consumer && consumer != generic))
      return nullptr;
    consumer = generic;
  }
  return consumer;
}

/// The only reader of the fresh product buffer `c` besides `gemm`, its fill
/// and its deallocations, when that is a linalg.generic reading `c` or a
/// chain of reshapes of it (a linear layer's [rows, n] product seen as
/// [batch, seq, n] or [batch, seq, heads, dim]), each reshape with one
/// user; `read` is the value it reads, `reshapes` the chain in order.
linalg::GenericOp soleReshapedConsumer(Operation *gemm, Value c, Value &read,
                                       SmallVectorImpl<Operation *> &reshapes) {
  if (!c.getDefiningOp<memref::AllocOp>())
    return nullptr;
  Value value = c;
  Operation *next = nullptr;
  for (Operation *user : c.getUsers()) {
    if (user == gemm || isa<memref::DeallocOp, linalg::FillOp>(user))
      continue;
    if (next && next != user)
      return nullptr;
    next = user;
  }
  while (next && isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(next)) {
    reshapes.push_back(next);
    value = next->getResult(0);
    if (!value.hasOneUse())
      return nullptr;
    next = *value.getUsers().begin();
  }
  read = value;
  return dyn_cast_or_null<linalg::GenericOp>(next);
}

/// The terms an elementwise op adds to the product: an f32 bias vector
/// (indexed by the last dimension) and a residual (indexed as stored, of the
/// output's type, which cuBLASLt requires of C), either may be absent.
struct AddTerms {
  Value bias, residual;
};

/// Classifies the inputs of `op` other than the product `c`: each must be a
/// bias or a residual, at most one of each.
bool classifyTerms(linalg::GenericOp op, Value c, Type outType,
                   AddTerms &terms) {
  unsigned rank = op.getNumLoops();
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    auto type = cast<MemRefType>(value.getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    if (value == c)
      continue;
    if (map.getNumResults() == 1 && type.getElementType().isF32() &&
        map.getResult(0) == getAffineDimExpr(rank - 1, op.getContext()) &&
        !terms.bias)
      terms.bias = value;
    else if (map.isIdentity() && type.getElementType() == outType &&
             !terms.residual)
      terms.residual = value;
    else
      return false;
  }
  return (terms.bias || terms.residual) &&
         (!terms.bias || isDenseBuffer(terms.bias)) &&
         (!terms.residual || isDenseBuffer(terms.residual));
}

/// Collects the leaves of a tree of arith.addf rooted at `v` whose inner
/// adds have no other user; counts the adds.
void addLeaves(Value v, SmallVectorImpl<Value> &leaves, unsigned &adds) {
  auto add = v.getDefiningOp<arith::AddFOp>();
  if (!add || !(add->hasOneUse() || adds == 0)) {
    leaves.push_back(v);
    return;
  }
  ++adds;
  addLeaves(add.getLhs(), leaves, adds);
  addLeaves(add.getRhs(), leaves, adds);
}

/// `yield [truncf](t + bias + [extf](residual))` in any order and
/// association, every loop parallel, t and out indexed as stored: C plus
/// the terms in f32, rounded once to out's type (as cuBLASLt's `alpha AB +
/// beta C + bias`, f32 sums reassociated).
bool isProductAdd(linalg::GenericOp op, Value c, AddTerms &terms) {
  if (op.getNumDpsInputs() < 2 || op.getNumDpsInputs() > 3 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0)
    return false;
  OpOperand *out = op.getDpsInitOperand(0);
  Type outType = cast<MemRefType>(out->get().getType()).getElementType();
  // getDpsInputOperands returns a temporary vector: copy the matches out.
  SmallVector<OpOperand *> cOperands;
  for (OpOperand *operand : op.getDpsInputOperands())
    if (operand->get() == c)
      cOperands.push_back(operand);
  if (cOperands.size() != 1 ||
      !op.getMatchingIndexingMap(cOperands.front()).isIdentity() ||
      !op.getMatchingIndexingMap(out).isIdentity() ||
      !classifyTerms(op, c, outType, terms))
    return false;
  Block &body = op.getRegion().front();
  Value result = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  bool rounds = false;
  if (auto trunc = result.getDefiningOp<arith::TruncFOp>()) {
    result = trunc.getIn();
    rounds = true;
  }
  SmallVector<Value> leaves;
  unsigned adds = 0, exts = 0;
  addLeaves(result, leaves, adds);
  SmallVector<Value> args;
  for (Value leaf : leaves) {
    Value arg = stripExt(leaf);
    exts += arg != leaf;
    if (!isa<BlockArgument>(arg) || llvm::is_contained(args, arg))
      return false;
    args.push_back(arg);
  }
  // Every input is a leaf once, and the body is nothing but the sum.
  return int64_t(args.size()) == op.getNumDpsInputs() &&
         llvm::none_of(args,
                       [&](Value a) {
                         return cast<BlockArgument>(a).getArgNumber() >=
                                op.getNumDpsInputs();
                       }) &&
         body.getOperations().size() == adds + exts + (rounds ? 2u : 1u);
}

/// The add consuming the product `c` (f32, fresh, beta 0) that the call can
/// do: a bias as the BIAS epilogue, a residual as C apart from D (beta 1),
/// writing the add's output in its type.
std::optional<Epilogue> matchProductAdd(linalg::LinalgOp op, Value c,
                                        const GemmShape &shape, Type aType) {
  linalg::GenericOp consumer = soleConsumer(op, c);
  AddTerms terms;
  if (!consumer || shape.batch != 1 || !isProductAdd(consumer, c, terms) ||
      !onlyAllocationsBetween(op, consumer))
    return std::nullopt;
  Value out = consumer.getDpsInitOperand(0)->get();
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  auto outShape = cast<MemRefType>(out.getType()).getShape();
  if (!isDenseBuffer(out) || (!outType.isF32() && outType != aType) ||
      outShape.back() != shape.n ||
      (terms.bias &&
       cast<MemRefType>(terms.bias.getType()).getShape()[0] != shape.n) ||
      llvm::is_contained(op->getOperands(), out))
    return std::nullopt;
  return Epilogue{terms.bias ? AMP_GEMM_EPILOGUE_BIAS : 0, terms.bias, out,
                  terms.residual, consumer};
}

/// `yield out + [extf](in)`: a sum into the output.
bool isSumBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto add = cast<linalg::YieldOp>(body.getTerminator())
                 .getOperand(0)
                 .getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() > 3)
    return false;
  Value in = body.getArgument(0), out = body.getArgument(1);
  auto isIn = [&](Value v) { return stripExt(v) == in; };
  return (add.getLhs() == out && isIn(add.getRhs())) ||
         (add.getRhs() == out && isIn(add.getLhs()));
}

/// The sum over K of op(A) (one f32 value per row of op(A), m of them, into
/// a fresh, zeroed buffer) right after the product: a BGRADB epilogue. The op
/// summing is the next one touching memory after the product, the fill of its
/// output aside.
std::optional<Epilogue> matchBiasGradient(linalg::LinalgOp op, Value a,
                                          const GemmShape &shape) {
  if (shape.batch != 1 || cast<MemRefType>(a.getType()).getRank() != 2)
    return std::nullopt;
  Operation *next = op->getNextNode();
  while (next && (isMemoryEffectFree(next) ||
                  isa<memref::AllocOp, linalg::FillOp>(next)))
    next = next->getNextNode();
  auto sum = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!sum || sum.getNumDpsInputs() != 1 || sum.getNumDpsInits() != 1 ||
      sum.getDpsInputOperand(0)->get() != a || !isSumBody(sum))
    return std::nullopt;
  Value grad = sum.getDpsInitOperand(0)->get();
  for (Operation *between = op->getNextNode(); between != sum;
       between = between->getNextNode())
    if (auto fill = dyn_cast<linalg::FillOp>(between);
        fill && fill.getOutputs()[0] != grad)
      return std::nullopt;
  auto gradType = cast<MemRefType>(grad.getType());
  // A is stored (M, K), or (K, M) when transposed: the output keeps M.
  unsigned mDim = shape.transA ? 1 : 0;
  AffineMap gradMap = sum.getMatchingIndexingMap(sum.getDpsInitOperand(0));
  if (!sum.getMatchingIndexingMap(sum.getDpsInputOperand(0)).isIdentity() ||
      gradMap.getNumResults() != 1 ||
      gradMap.getResult(0) != getAffineDimExpr(mDim, sum.getContext()) ||
      !gradType.getElementType().isF32() || gradType.getRank() != 1 ||
      gradType.getDimSize(0) != shape.m || !isDenseBuffer(grad) ||
      !findZeroFill(sum, grad))
    return std::nullopt;
  return Epilogue{AMP_GEMM_EPILOGUE_BGRAD_A, grad, Value(), Value(), sum};
}

/// The bias-gradient epilogue where cuBLASLt runs it (13.1 on an H200, every
/// form tried): an f32 product (an f32 gradient beside an f16/bf16 one is
/// CUBLAS_STATUS_INVALID_VALUE) and our A transposed (cuBLASLt's B; an
/// untransposed one is CUBLAS_STATUS_NOT_SUPPORTED), any operand type.
/// Elsewhere the column sum stays a kernel of its own (one more read of A).
bool takesBiasGradient(Value c, const GemmShape &shape) {
  return cast<MemRefType>(c.getType()).getElementType().isF32() && shape.transA;
}

/// Once narrowed, a reader that only rounded the product is a copy of it
/// into a fresh buffer of the same type (an f16 weight gradient that the
/// overflow check and the update both read): the product takes the place of
/// that buffer, and the copy (a kernel reading and writing the whole
/// gradient) goes.
void forwardCopy(linalg::GenericOp reader, Value c, Value read) {
  if (reader.getNumDpsInputs() != 1 || reader.getNumDpsInits() != 1 ||
      reader.getNumReductionLoops() != 0 ||
      !llvm::all_of(reader.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return;
  Value out = reader.getDpsInits().front();
  auto outAlloc = out.getDefiningOp<memref::AllocOp>();
  Operation *cAlloc = c.getDefiningOp();
  Block *body = reader.getBody();
  if (!outAlloc || out.getType() != read.getType() ||
      outAlloc->getBlock() != cAlloc->getBlock() ||
      !cAlloc->isBeforeInBlock(outAlloc) ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return;
  // `read` (c or its reshape, defined before the reader) stands for out
  // everywhere out is used, all after the reader that first writes it.
  for (Operation *user : out.getUsers()) {
    Operation *inBlock = reader->getBlock()->findAncestorOpInBlock(*user);
    if (user != reader && (!inBlock || !reader->isBeforeInBlock(inBlock)))
      return;
  }
  // c's deallocation goes: out's frees it now.
  for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  for (Operation *user : llvm::make_early_inc_range(out.getUsers()))
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
      dealloc.getMemrefMutable().assign(c);
  reader->erase();
  out.replaceAllUsesWith(read);
  outAlloc->erase();
}

/// When the only reader of the fresh f32 product `c` rounds it to A's type
/// before anything else, the call writes that type instead: `c` becomes a
/// buffer of A's type and the reader's truncf goes.
void narrowProduct(linalg::LinalgOp op, Value &c, Type aType) {
  Value read;
  SmallVector<Operation *> reshapes;
  linalg::GenericOp reader = soleReshapedConsumer(op, c, read, reshapes);
  if (!reader || aType.isF32() ||
      !cast<MemRefType>(c.getType()).getElementType().isF32())
    return;
  SmallVector<BlockArgument> args;
  for (OpOperand &operand : reader->getOpOperands())
    if (operand.get() == read) {
      if (reader.isDpsInit(&operand))
        return;
      args.push_back(reader.getMatchingBlockArgument(&operand));
    }
  for (BlockArgument arg : args)
    for (Operation *user : arg.getUsers()) {
      auto trunc = dyn_cast<arith::TruncFOp>(user);
      if (!trunc || trunc.getType() != aType)
        return;
    }
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  OpBuilder builder(alloc);
  auto narrowType =
      MemRefType::get(cast<MemRefType>(c.getType()).getShape(), aType);
  auto narrow = memref::AllocOp::create(builder, alloc.getLoc(), narrowType,
                                        alloc.getAlignmentAttr());
  for (BlockArgument arg : args) {
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
    arg.setType(aType);
  }
  c.replaceAllUsesWith(narrow.getResult());
  alloc->erase();
  c = narrow.getResult();
  // The reshapes between keep their shapes, in the narrow type.
  for (Operation *reshape : reshapes) {
    auto type = cast<MemRefType>(reshape->getResult(0).getType());
    reshape->getResult(0).setType(
        MemRefType::get(type.getShape(), aType, type.getLayout()));
  }
  forwardCopy(reader, c, reshapes.empty() ? c : reshapes.back()->getResult(0));
}

/// cuBLASLt adds a bias of D's type to an f16 or bf16 D (it refuses an f32
/// one): the f32 bias is rounded into a buffer of D's type before the call
/// (as autocast's F.linear casts its bias), a kernel of n elements, and the
/// call reads that buffer (BIAS_C_TYPE), freed after it.
void roundBias(linalg::LinalgOp op, Epilogue &epilogue) {
  Type outType = cast<MemRefType>(epilogue.output.getType()).getElementType();
  if (outType.isF32())
    return;
  if (auto alloc = epilogue.vector.getDefiningOp<memref::AllocOp>();
      alloc && op->isBeforeInBlock(alloc))
    alloc->moveBefore(op);
  OpBuilder builder(op);
  Location loc = op.getLoc();
  Value rounded = amp::convertedCopy(builder, loc, epilogue.vector,
                                     cast<FloatType>(outType));
  builder.setInsertionPointAfter(op); // after the call, made before op
  memref::DeallocOp::create(builder, loc, rounded);
  epilogue.vector = rounded;
  epilogue.kind = AMP_GEMM_EPILOGUE_BIAS_C_TYPE;
}

//===----------------------------------------------------------------------===//
// GELU epilogues: cuBLASLt's GELU_AUX[_BIAS] and DGELU
//===----------------------------------------------------------------------===//

/// A predicate on the values of a linalg body, to match formulas.
using Match = std::function<bool(Value)>;

Match is(Value value) {
  return [=](Value v) { return v == value; };
}

/// An f32 constant equal to `value` rounded to f32.
Match constant(double value) {
  return [=](Value v) {
    FloatAttr attr;
    return matchPattern(v, m_Constant(&attr)) && attr.getType().isF32() &&
           attr.getValueAsDouble() == double(float(value));
  };
}

/// `lhs op rhs`, in either order for the commutative ops (swapping their
/// operands does not change an f32 result).
template <typename OpTy> Match binary(Match lhs, Match rhs) {
  return [=](Value v) {
    auto op = v.getDefiningOp<OpTy>();
    if (!op)
      return false;
    if (lhs(op.getLhs()) && rhs(op.getRhs()))
      return true;
    return OpTy::template hasTrait<OpTrait::IsCommutative>() &&
           lhs(op.getRhs()) && rhs(op.getLhs());
  };
}
Match mul(Match a, Match b) { return binary<arith::MulFOp>(a, b); }
Match add(Match a, Match b) { return binary<arith::AddFOp>(a, b); }
Match sub(Match a, Match b) { return binary<arith::SubFOp>(a, b); }
Match tanh(Match a) {
  return [=](Value v) {
    auto op = v.getDefiningOp<math::TanhOp>();
    return op && a(op.getOperand());
  };
}

// The constants of GELU's tanh form, as amp-to-linalg writes it
// (lib/Conversion/AMPToLinalg/ElementwiseToLinalg.cpp) and cuBLASLt
// computes it.
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluTanhCubic = 0.044715;

/// tanh(sqrt(2/pi) (x + 0.044715 x^3)).
Match geluTanhT(Value x) {
  return tanh(mul(constant(kSqrt2OverPi),
                  add(is(x), mul(constant(kGeluTanhCubic),
                                 mul(mul(is(x), is(x)), is(x))))));
}

/// cdf(x) = 0.5 (1 + t).
Match geluCdf(Value x) {
  return mul(constant(0.5), add(constant(1.0), geluTanhT(x)));
}

/// gelu(x) = x cdf(x): amp.gelu with approximate = tanh.
Match geluTanh(Value x) { return mul(is(x), geluCdf(x)); }

/// gelu'(x) = cdf(x) + (x 0.5) ((1 - t^2) (sqrt(2/pi) (1 + 3 0.044715 x^2))):
/// amp.gelu_grad with approximate = tanh.
Match geluTanhDerivative(Value x) {
  Match t = geluTanhT(x);
  Match rest = mul(mul(is(x), constant(0.5)),
                   mul(sub(constant(1.0), mul(t, t)),
                       mul(constant(kSqrt2OverPi),
                           add(constant(1.0), mul(constant(3 * kGeluTanhCubic),
                                                  mul(is(x), is(x)))))));
  return add(geluCdf(x), rest);
}

/// The value a body computes in f32 from block argument `arg` of type
/// `type`: `arg` itself (f32) or its arith.extf.
Value widened(Block &body, BlockArgument arg) {
  if (arg.getType().isF32())
    return arg;
  for (Operation *user : arg.getUsers())
    if (auto ext = dyn_cast<arith::ExtFOp>(user); ext && ext.getType().isF32())
      return ext;
  return Value();
}

/// The f32 value a body yields, rounded to the output's type: `yield x`
/// (f32) or `yield truncf(x)`.
Value yieldedF32(linalg::GenericOp op) {
  Value result =
      cast<linalg::YieldOp>(op.getBody()->getTerminator()).getOperand(0);
  if (result.getType().isF32())
    return result;
  auto trunc = result.getDefiningOp<arith::TruncFOp>();
  return trunc && trunc.getIn().getType().isF32() ? trunc.getIn() : Value();
}

/// An elementwise linalg.generic: every loop parallel, every map the
/// identity, one output.
bool isElementwise(linalg::GenericOp op) {
  return op.getNumDpsInits() == 1 && op.getNumReductionLoops() == 0 &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

/// The buffer `v` views (through view ops), or `v`.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether two buffers may share memory: views of one buffer do, distinct
/// allocations and an allocation and anything else do not, nor do distinct
/// arguments of the step (its tensors, passed in buffers of their own).
bool mayShare(Value a, Value b) {
  Value ra = rootBuffer(a), rb = rootBuffer(b);
  if (ra == rb)
    return true;
  if (ra.getDefiningOp<memref::AllocOp>() ||
      rb.getDefiningOp<memref::AllocOp>())
    return false;
  return !(isa<BlockArgument>(ra) && isa<BlockArgument>(rb));
}

/// The fused call runs where `from` is but reads `readAt` and writes
/// `writeAt` as `to` (same block, after it) did: no operation strictly in
/// between (`skip` aside, and allocations) may write one of `readAt` or
/// touch one of `writeAt`.
bool movableBetween(Operation *from, Operation *to, ArrayRef<Value> readAt,
                    ArrayRef<Value> writeAt, Operation *skip) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return false;
  auto sharesAny = [](Value v, ArrayRef<Value> buffers) {
    return llvm::any_of(buffers, [&](Value b) { return mayShare(v, b); });
  };
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    if (op == skip || isMemoryEffectFree(op) || isa<memref::AllocOp>(op))
      continue;
    auto effecting = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effecting)
      return false;
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    for (MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value)
        return false;
      bool reads = isa<MemoryEffects::Read>(effect.getEffect());
      if (sharesAny(value, writeAt) || (!reads && sharesAny(value, readAt)))
        return false;
    }
  }
  return true;
}

/// cuBLASLt's aux matrix for our m x n output: leading dimension n, which
/// must be a multiple of 8 (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD); the
/// buffer dense, of the output's shape and type.
bool isAuxMatrix(Value aux, Value out, int64_t n) {
  auto auxType = cast<MemRefType>(aux.getType());
  auto outType = cast<MemRefType>(out.getType());
  return n % 8 == 0 && isDenseBuffer(aux) && isDenseBuffer(out) &&
         auxType.getShape() == outType.getShape() &&
         auxType.getElementType() == outType.getElementType() &&
         outType.getShape().back() == n;
}

/// A GELU the call takes over: `gelu` writes `out` from what the call
/// writes (GELU_AUX[_BIAS]), or from the product and `aux` (DGELU).
struct GeluFusion {
  linalg::GenericOp gelu;
  Value out, aux;
};

/// `out = [truncf] gelu_tanh([extf] x)` elementwise, with x the call's
/// output `x` (fresh, of the output's type): the call writes gelu(x) to
/// `out` and keeps x (rounded, as the call would have written it) in
/// `x`, its aux matrix. Moves the GELU to the call, whose absorbed add
/// (`skip`) goes.
std::optional<GeluFusion> matchGeluForward(linalg::LinalgOp op, Value x,
                                           int64_t n, Operation *skip) {
  if (!x.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  linalg::GenericOp gelu;
  for (Operation *user : x.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic.getNumDpsInputs() != 1 ||
        generic.getDpsInputOperand(0)->get() != x ||
        generic->getBlock() != op->getBlock() ||
        (gelu && !generic->isBeforeInBlock(gelu)))
      continue;
    gelu = generic; // the first reader of x after the call
  }
  if (!gelu || !isElementwise(gelu) || !op->isBeforeInBlock(gelu))
    return std::nullopt;
  Value out = gelu.getDpsInitOperand(0)->get();
  Block &body = *gelu.getBody();
  Value in = widened(body, body.getArgument(0));
  Value result = yieldedF32(gelu);
  if (!in || !result || !isAuxMatrix(x, out, n) || mayShare(out, x) ||
      !geluTanh(in)(result) || !movableBetween(op, gelu, {x}, {out}, skip))
    return std::nullopt;
  return GeluFusion{gelu, out, x};
}

/// The product `c` (fresh f32, beta 0) read by nothing but, possibly
/// through views, `out = [truncf] (g * gelu_tanh'([extf] aux))`
/// elementwise, with g the product ([extf] [truncf] it: the call does not
/// round it first) and `aux` of out's type: DGELU writes out directly.
std::optional<GeluFusion> matchGeluBackward(linalg::LinalgOp op, Value c,
                                            int64_t n) {
  if (!c.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  // c's readers, through views; its fill goes with beta 0.
  linalg::GenericOp grad;
  Value read; // the value of c the gradient reads (c or a view)
  SmallVector<Value> worklist = {c};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == op || isa<memref::DeallocOp, linalg::FillOp>(user))
        continue;
      // Reshapes of the whole product (a linear layer's [rows, n] seen
      // as [batch, seq, n]).
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (!generic || (grad && grad != generic))
        return std::nullopt;
      grad = generic;
      read = value;
    }
  }
  if (!grad || !isElementwise(grad) || grad.getNumDpsInputs() != 2)
    return std::nullopt;
  Value out = grad.getDpsInitOperand(0)->get();
  Block &body = *grad.getBody();
  unsigned gIndex = grad.getDpsInputOperand(0)->get() == read ? 0 : 1;
  Value aux = grad.getDpsInputOperand(1 - gIndex)->get();
  if (grad.getDpsInputOperand(gIndex)->get() != read || aux == read)
    return std::nullopt;
  BlockArgument gArg = body.getArgument(gIndex);
  Value x = widened(body, body.getArgument(1 - gIndex));
  Value result = yieldedF32(grad);
  // g, or g rounded to out's type and widened back.
  Match g = [&](Value v) {
    if (v == gArg)
      return true;
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    auto trunc = ext ? ext.getIn().getDefiningOp<arith::TruncFOp>() : nullptr;
    return trunc && trunc.getIn() == gArg;
  };
  if (!x || !result || !isAuxMatrix(aux, out, n) || mayShare(out, aux) ||
      !mul(g, geluTanhDerivative(x))(result) ||
      !movableBetween(op, grad, {aux}, {out}, nullptr))
    return std::nullopt;
  return GeluFusion{grad, out, aux};
}

struct ContractionsToGemmCallsPass
    : public amp::impl::ContractionsToGemmCallsPassBase<
          ContractionsToGemmCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Products only: rewriting one may erase other ops (its epilogue's).
    for (auto &[op, match] : amp::collectGemms(module))
      rewrite(module, op, match);
  }

  /// The epilogue the call takes over, if any: a bias and/or residual add
  /// of its fresh product, or else the bias gradient of A (and, without an
  /// add, the product narrowed to A's type when it is only read rounded).
  Epilogue chooseEpilogue(linalg::LinalgOp op, Value a, Value &c, Type aType,
                          const GemmShape &shape, bool fresh) {
    if (fresh && cast<MemRefType>(c.getType()).getElementType().isF32())
      if (std::optional<Epilogue> add = matchProductAdd(op, c, shape, aType))
        return *add;
    if (fresh)
      narrowProduct(op, c, aType);
    Epilogue none{0, Value(), c, Value(), nullptr};
    std::optional<Epilogue> grad = matchBiasGradient(op, a, shape);
    if (!grad || !takesBiasGradient(c, shape))
      return none;
    grad->output = c;
    return *grad;
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op,
               const amp::GemmMatch &match) {
    Value a = match.a, b = match.b, c = match.c;
    Type aType = match.aType, cType = match.cType;
    std::optional<int32_t> aCode = gemmDType(aType);
    std::optional<int32_t> cCode = gemmDType(cType);
    if (!aCode || !cCode || match.bType != aType ||
        (!cType.isF32() && cType != aType))
      return;
    const GemmShape *shape = &match.shape;

    linalg::FillOp zeroFill = findZeroFill(op, c);
    Value product = c;
    // A GELU gradient of the fresh product becomes DGELU; else the usual
    // epilogues, and then a GELU of what the call writes GELU_AUX[_BIAS].
    std::optional<GeluFusion> dgelu, gelu;
    if (geluEpilogues && zeroFill && cType.isF32() && shape->batch == 1)
      dgelu = matchGeluBackward(op, c, shape->n);
    // The call writes GELU's output before the op reading A and B is gone:
    // it must not be one of them.
    auto apart = [&](const std::optional<GeluFusion> &fusion) {
      return !mayShare(fusion->out, a) && !mayShare(fusion->out, b);
    };
    if (dgelu && (!writableBy(dgelu->out, aType, *shape) || !apart(dgelu)))
      dgelu.reset();
    Epilogue epilogue =
        dgelu ? Epilogue{AMP_GEMM_EPILOGUE_DGELU, Value(), dgelu->out, Value(),
                         dgelu->gelu}
              : chooseEpilogue(op, a, c, aType, *shape, zeroFill != nullptr);
    bool add = !dgelu && epilogue.absorbed &&
               epilogue.kind != AMP_GEMM_EPILOGUE_BGRAD_A;
    if (geluEpilogues && !dgelu && epilogue.kind != AMP_GEMM_EPILOGUE_BGRAD_A &&
        (add || zeroFill) && shape->batch == 1)
      gelu = matchGeluForward(op, add ? epilogue.output : c, shape->n,
                              epilogue.absorbed);
    if (gelu && !apart(gelu))
      gelu.reset();
    if (add && epilogue.kind == AMP_GEMM_EPILOGUE_BIAS)
      roundBias(op, epilogue);
    if (add || dgelu) {
      c = epilogue.output;
      cCode = gemmDType(cast<MemRefType>(c.getType()).getElementType());
    } else if (c != product) {
      cCode = aCode; // narrowed
    }
    // With GELU the call writes GELU's input to the aux matrix (where it
    // wrote its output so far) and GELU's output as D.
    Value aux = dgelu ? dgelu->aux : gelu ? c : Value();
    if (gelu) {
      epilogue.kind = epilogue.vector ? AMP_GEMM_EPILOGUE_GELU_AUX_BIAS
                                      : AMP_GEMM_EPILOGUE_GELU_AUX;
      c = gelu->out;
    }
    // The buffers the call writes exist before it.
    for (Value buffer : {c, epilogue.vector, aux})
      if (auto alloc =
              buffer ? buffer.getDefiningOp<memref::AllocOp>() : nullptr;
          alloc && op->isBeforeInBlock(alloc))
        alloc->moveBefore(op);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 32);
    };
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 64);
    };
    auto f32 = [&](float v) -> Value {
      return arith::ConstantFloatOp::create(builder, loc, builder.getF32Type(),
                                            APFloat(v));
    };
    GemmEntry entry = aux                 ? GemmEntry::Aux
                      : epilogue.residual ? GemmEntry::Apart
                      : epilogue.kind     ? GemmEntry::Epilogue
                                          : GemmEntry::Plain;
    func::FuncOp gemm = getOrDeclareGemm(module, entry);
    // With a residual, C is the residual (beta 1) and the output is D.
    Value input; // C's pointer, D's too when there is no residual
    float beta = epilogue.residual || !zeroFill ? 1.0f : 0.0f;
    auto nullPointer = [&]() -> Value {
      return LLVM::ZeroOp::create(
          builder, loc, LLVM::LLVMPointerType::get(builder.getContext()));
    };
    SmallVector<Value> args = {
        i32(*aCode),
        i32(*cCode),
        i64(shape->batch),
        i64(shape->m),
        i64(shape->n),
        i64(shape->k),
        i32(shape->transA),
        i32(shape->transB),
        bufferPointer(builder, loc, a),
        i64(shape->strideA),
        bufferPointer(builder, loc, b),
        i64(shape->strideB),
        input = bufferPointer(builder, loc,
                              epilogue.residual ? epilogue.residual : c),
        f32(1.0f),
        f32(beta),
        i32(allowTF32 && aType.isF32())};
    if (entry != GemmEntry::Plain) {
      args.push_back(i32(epilogue.kind));
      args.push_back(epilogue.vector
                         ? bufferPointer(builder, loc, epilogue.vector)
                         : nullPointer());
    }
    if (entry == GemmEntry::Aux)
      args.append({bufferPointer(builder, loc, aux), i64(shape->n)});
    if (entry == GemmEntry::Apart || entry == GemmEntry::Aux)
      args.push_back(epilogue.residual ? bufferPointer(builder, loc, c)
                                       : input);
    // The stream: null (the runtime's) until amp-gemm-calls-on-stream gives
    // the call the step's.
    args.push_back(nullPointer());
    func::CallOp::create(builder, loc, gemm, args);
    op->erase();
    if (zeroFill)
      zeroFill->erase();
    if (dgelu)
      eraseBuffer(dgelu->gelu, product);
    else if (epilogue.absorbed)
      eraseAbsorbed(epilogue, product);
    if (gelu)
      gelu->gelu->erase();
  }

  /// cuBLASLt writes D in f32 or A's type, and the product must cover it.
  static bool writableBy(Value out, Type aType, const GemmShape &shape) {
    auto type = cast<MemRefType>(out.getType());
    return (type.getElementType().isF32() || type.getElementType() == aType) &&
           type.getNumElements() == shape.m * shape.n;
  }

  /// `reader` goes, then the product buffer it read, with its views and
  /// deallocations.
  static void eraseBuffer(Operation *reader, Value product) {
    reader->erase();
    llvm::SetVector<Operation *> users;
    SmallVector<Value> worklist = {product};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers())
        if (users.insert(user))
          llvm::append_range(worklist, user->getResults());
    }
    for (Operation *user : llvm::reverse(users))
      user->erase();
    product.getDefiningOp()->erase();
  }

  /// The op the epilogue does goes, with (for an add) the f32 product
  /// buffer it read, or (for a bias gradient) the zero fill of its output.
  static void eraseAbsorbed(const Epilogue &epilogue, Value product) {
    Operation *absorbed = epilogue.absorbed;
    if (epilogue.kind == AMP_GEMM_EPILOGUE_BGRAD_A) {
      if (linalg::FillOp fill = findZeroFill(absorbed, epilogue.vector))
        fill->erase();
      absorbed->erase();
      return;
    }
    absorbed->erase();
    for (Operation *user : llvm::make_early_inc_range(product.getUsers()))
      user->erase(); // its deallocations
    product.getDefiningOp()->erase();
  }
};
} // namespace
