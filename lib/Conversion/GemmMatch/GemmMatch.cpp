//===- GemmMatch.cpp - matrix products in bufferized linalg ---------------===//
//
// See include/amp/Conversion/GemmMatch.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/GemmMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::amp;

Value mlir::amp::stripExt(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

namespace {
/// The dimension position of each result of a projected-permutation map.
std::optional<SmallVector<unsigned>> resultDims(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return std::nullopt;
  SmallVector<unsigned> dims;
  for (AffineExpr expr : map.getResults())
    dims.push_back(cast<AffineDimExpr>(expr).getPosition());
  return dims;
}

/// Matches the maps and iterators. The loop dimensions split into batch
/// dimensions (indexing A, B and C), M (A and C), N (B and C) and K (A and
/// B; the only reductions), each group possibly several dimensions that
/// are contiguous and in the same order wherever they appear, so that it
/// flattens to one dimension of a row-major matrix: C is (batch, M, N); A is
/// (batch, M, K), or (batch, K, M) transposed; B is (batch, K, N), or
/// (batch, N, K) transposed; A or B may lack all batch dimensions (one
/// matrix for every batch).
std::optional<GemmShape> matchGemmMaps(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto a = resultDims(maps[0]);
  auto b = resultDims(maps[1]);
  auto c = resultDims(maps[2]);
  if (!a || !b || !c)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;

  SmallVector<unsigned> batch, mDims, nDims, kDims;
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
    bool inA = llvm::is_contained(*a, d), inB = llvm::is_contained(*b, d),
         inC = llvm::is_contained(*c, d);
    bool reduction = iterators[d] == utils::IteratorType::reduction;
    if (inA && inB && !inC && reduction)
      kDims.push_back(d);
    else if (reduction)
      return std::nullopt;
    else if (inA && inB && inC)
      batch.push_back(d);
    else if (inA && inC)
      mDims.push_back(d);
    else if (inB && inC)
      nDims.push_back(d);
    else
      return std::nullopt;
  }
  if (mDims.empty() || nDims.empty() || kDims.empty())
    return std::nullopt;
  // Order the groups as C (batch, M, N) and A (K) list them.
  auto orderAs = [](SmallVector<unsigned> &group, ArrayRef<unsigned> dims) {
    llvm::sort(group, [&](unsigned x, unsigned y) {
      return llvm::find(dims, x) < llvm::find(dims, y);
    });
  };
  orderAs(batch, *c);
  orderAs(mDims, *c);
  orderAs(nDims, *c);
  orderAs(kDims, *a);
  auto concat = [](std::initializer_list<ArrayRef<unsigned>> groups) {
    SmallVector<unsigned> all;
    for (ArrayRef<unsigned> g : groups)
      all.append(g.begin(), g.end());
    return all;
  };
  // A batch dimension that A or B lacks is a broadcast: allowed only for
  // all of them at once.
  ArrayRef<unsigned> noBatch;
  auto matches = [&](ArrayRef<unsigned> dims, ArrayRef<unsigned> rows,
                     ArrayRef<unsigned> cols, bool &batched) {
    for (ArrayRef<unsigned> bd : {ArrayRef<unsigned>(batch), noBatch}) {
      if (ArrayRef<unsigned>(concat({bd, rows, cols})) == dims) {
        batched = !bd.empty();
        return true;
      }
    }
    return false;
  };
  if (ArrayRef<unsigned>(concat({batch, mDims, nDims})) != ArrayRef(*c))
    return std::nullopt;
  GemmShape shape;
  bool aBatched = false, bBatched = false;
  if (matches(*a, mDims, kDims, aBatched))
    shape.transA = false;
  else if (matches(*a, kDims, mDims, aBatched))
    shape.transA = true;
  else
    return std::nullopt;
  if (matches(*b, kDims, nDims, bBatched))
    shape.transB = false;
  else if (matches(*b, nDims, kDims, bBatched))
    shape.transB = true;
  else
    return std::nullopt;

  auto product = [&](ArrayRef<unsigned> dims) {
    int64_t p = 1;
    for (unsigned d : dims)
      p *= ranges[d];
    return p;
  };
  shape.batch = product(batch);
  shape.m = product(mDims);
  shape.n = product(nDims);
  shape.k = product(kDims);
  // One B for every batch and A's rows not transposed: the batches of A and
  // C are consecutive rows of one bigger matrix (a linear layer on
  // (batch, seq, features) activations), one GEMM with batch * M rows.
  if (aBatched && !bBatched && !shape.transA) {
    shape.m *= shape.batch;
    shape.batch = 1;
    aBatched = false;
  }
  shape.strideA = aBatched ? shape.m * shape.k : 0;
  shape.strideB = bBatched ? shape.k * shape.n : 0;
  return shape;
}

} // namespace

bool mlir::amp::isDenseBuffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  auto space = dyn_cast_or_null<IntegerAttr>(type.getMemorySpace());
  return !type.getMemorySpace() || (space && space.getInt() == 0);
}

bool mlir::amp::isMultiplyAccumulateBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || body->getNumArguments() != 3)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  BlockArgument a = body->getArgument(0), b = body->getArgument(1),
                out = body->getArgument(2);
  Value product;
  if (add.getLhs() == out)
    product = add.getRhs();
  else if (add.getRhs() == out)
    product = add.getLhs();
  else
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value lhs = stripExt(mul.getLhs()), rhs = stripExt(mul.getRhs());
  if (!((lhs == a && rhs == b) || (lhs == b && rhs == a)))
    return false;
  // Nothing else in the body (ext, ext, mul, add, yield at most).
  if (body->getOperations().size() > 5)
    return false;
  for (Operation &inner : body->without_terminator())
    if (!isa<arith::ExtFOp, arith::MulFOp, arith::AddFOp>(inner))
      return false;
  return mul.getType() == out.getType();
}

std::optional<GemmMatch> mlir::amp::matchGemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  if (!llvm::all_of(op->getOperands(), isDenseBuffer))
    return std::nullopt;
  GemmMatch match;
  match.a = op.getDpsInputOperand(0)->get();
  match.b = op.getDpsInputOperand(1)->get();
  match.c = op.getDpsInitOperand(0)->get();
  match.aType = cast<MemRefType>(match.a.getType()).getElementType();
  match.bType = cast<MemRefType>(match.b.getType()).getElementType();
  match.cType = cast<MemRefType>(match.c.getType()).getElementType();
  std::optional<GemmShape> shape = matchGemmMaps(op);
  if (!shape || !isMultiplyAccumulateBody(op))
    return std::nullopt;
  match.shape = *shape;
  return match;
}

SmallVector<std::pair<linalg::LinalgOp, GemmMatch>>
mlir::amp::collectGemms(Operation *root) {
  SmallVector<std::pair<linalg::LinalgOp, GemmMatch>> gemms;
  root->walk([&](linalg::LinalgOp op) {
    if (std::optional<GemmMatch> match = matchGemm(op))
      gemms.emplace_back(op, *match);
  });
  return gemms;
}

linalg::FillOp mlir::amp::findZeroFill(Operation *op, Value buffer) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return nullptr;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev);
        fill && fill.getOutputs()[0] == buffer) {
      Value init = fill.getInputs()[0];
      if (matchPattern(init, m_AnyZeroFloat()) &&
          !matchPattern(init, m_NegZeroFloat()))
        return fill;
      return nullptr;
    }
    if (llvm::is_contained(prev->getOperands(), buffer) ||
        prev->getNumRegions() > 0)
      return nullptr;
  }
  return nullptr;
}

func::FuncOp mlir::amp::getOrDeclareLibraryFunc(ModuleOp module, StringRef name,
                                                FunctionType type) {
  if (auto func = module.lookupSymbol<func::FuncOp>(name))
    return func;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(builder, module.getLoc(), name, type);
  func.setPrivate();
  return func;
}

Value mlir::amp::convertedCopy(OpBuilder &b, Location loc, Value buffer,
                               FloatType type) {
  auto from = cast<MemRefType>(buffer.getType());
  Value copy =
      memref::AllocOp::create(b, loc, MemRefType::get(from.getShape(), type));
  AffineMap identity = b.getMultiDimIdentityMap(from.getRank());
  SmallVector<utils::IteratorType> parallel(from.getRank(),
                                            utils::IteratorType::parallel);
  bool widen = type.getWidth() > from.getElementTypeBitWidth();
  linalg::GenericOp::create(
      b, loc, ValueRange{buffer}, ValueRange{copy},
      ArrayRef<AffineMap>{identity, identity}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value converted =
            widen ? arith::ExtFOp::create(nb, l, type, args[0]).getResult()
                  : arith::TruncFOp::create(nb, l, type, args[0]).getResult();
        linalg::YieldOp::create(nb, l, converted);
      });
  return copy;
}

Value mlir::amp::bufferPointer(OpBuilder &b, Location loc, Value buffer) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}
