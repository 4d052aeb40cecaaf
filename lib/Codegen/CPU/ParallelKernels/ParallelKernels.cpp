//===- ParallelKernels.cpp - large kernels split into tasks ---------------===//
//
// The amp-cpu-parallel-kernels pass (Passes.td): a kernel of
// amp-cpu-outline-kernels that is one large linalg op with a parallel
// outermost dimension (or, below an outermost reduction, a parallel one)
// gets a range function over tiles of that dimension, which
// amp-cpu-dispatch-parallel runs on the model runtime's threads.
//
//===----------------------------------------------------------------------===//

#include "ParallelTasks.h"

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUPARALLELKERNELSPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::kParallelTasksAttr;

namespace {

/// How a kernel is split: tiles of `tile` iterations of loop dimension
/// `dim` (of `extent`), `tasks` of them.
struct Split {
  linalg::LinalgOp op;
  unsigned dim = 0;
  int64_t extent = 0;
  int64_t tile = 0;
  int64_t tasks = 0;
};

/// The kernel's one linalg op, when everything else is a constant.
linalg::LinalgOp soleLinalgOp(func::FuncOp kernel) {
  if (!kernel.isPrivate() || kernel.isExternal() ||
      !kernel.getBody().hasOneBlock())
    return nullptr;
  linalg::LinalgOp found;
  for (Operation &op : kernel.getBody().front()) {
    if (isa<func::ReturnOp>(op) || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || found)
      return nullptr;
    found = linalgOp;
  }
  return found;
}

/// Whether every output is indexed by loop dimension `dim` itself, so that
/// tiles of it write disjoint elements.
bool indexesEveryOutput(linalg::LinalgOp op, unsigned dim) {
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return llvm::any_of(op.getMatchingIndexingMap(&init).getResults(),
                        [&](AffineExpr e) {
                          auto d = dyn_cast<AffineDimExpr>(e);
                          return d && d.getPosition() == dim;
                        });
  });
}

/// The buffer `value` is a view of (through subviews, casts, reshapes).
Value baseBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// A tile of about `taskWork` points; a divisor of the extent when one is
/// at most twice that, so that tiles keep a static size.
int64_t chooseTile(int64_t extent, int64_t inner, int64_t taskWork) {
  int64_t tile = std::max<int64_t>(1, (taskWork + inner - 1) / inner);
  for (int64_t d = tile; d <= std::min(2 * tile, extent); ++d)
    if (extent % d == 0)
      return d;
  return std::min(tile, extent);
}

/// The outermost loop dimension of more than one iteration (leading ones
/// of extent 1, such as a convolution's single group, do not count).
unsigned outermostDimension(ArrayRef<int64_t> ranges) {
  unsigned dim = 0;
  while (dim + 1 < ranges.size() && ranges[dim] == 1)
    ++dim;
  return dim;
}

/// Iterations of an inner split dimension per tile, at least.
constexpr int64_t kMinInnerTile = 16;

/// The dimension to split: the outermost one if it is parallel; below an
/// outermost reduction (column sums, a batch norm's per-channel sums over
/// images), the first parallel one. Either must index every output. A tile
/// of an inner dimension runs the whole loop nest on its slice, so each
/// element still sums its terms in the order of the untiled op.
std::optional<unsigned> splitDimension(linalg::LinalgOp op,
                                       ArrayRef<int64_t> ranges) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned dim = outermostDimension(ranges); dim < ranges.size(); ++dim) {
    if (iterators[dim] != utils::IteratorType::parallel)
      continue;
    if (ranges[dim] < 2 || !indexesEveryOutput(op, dim))
      return std::nullopt;
    return dim;
  }
  return std::nullopt;
}

std::optional<Split> planSplit(func::FuncOp kernel, int64_t minWork,
                               int64_t taskWork) {
  linalg::LinalgOp op = soleLinalgOp(kernel);
  if (!op || !op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t range : ranges) {
    if (ShapedType::isDynamic(range) || range <= 0)
      return std::nullopt;
    work *= range;
  }
  std::optional<unsigned> dim = splitDimension(op, ranges);
  if (work < minWork || !dim)
    return std::nullopt;
  Split split{op, *dim, ranges[*dim]};
  split.tile = chooseTile(split.extent, work / split.extent, taskWork);
  // Tiles of an inner dimension read strided rows: whole cache lines of
  // f32 at least.
  if (*dim != outermostDimension(ranges))
    split.tile = std::min(split.extent, std::max(split.tile, kMinInnerTile));
  split.tasks = (split.extent + split.tile - 1) / split.tile;
  if (split.tasks < 2)
    return std::nullopt;
  return split;
}

/// Whether kernel argument `index` is only read by `op`, as inputs indexed
/// like `init`: a call passing the same view as both makes each iteration
/// read only the elements it writes (state updated in place).
bool isReadLikeInit(func::FuncOp kernel, linalg::LinalgOp op, unsigned index,
                    OpOperand &init) {
  AffineMap written = op.getMatchingIndexingMap(&init);
  return llvm::all_of(kernel.getArgument(index).getUses(), [&](OpOperand &use) {
    return use.getOwner() == op.getOperation() && op.isDpsInput(&use) &&
           op.getMatchingIndexingMap(&use) == written;
  });
}

/// Whether iterations of the split dimension may read what others write: an
/// output also read through another map, or a view of the same buffer as
/// another operand at some call (unless the very view, read like the
/// output: isReadLikeInit).
bool mayOverlap(func::FuncOp kernel, linalg::LinalgOp op,
                const SymbolTable::UseRange &uses) {
  for (OpOperand &init : op.getDpsInitsMutable())
    for (OpOperand *input : op.getDpsInputOperands())
      if (input->get() == init.get() &&
          op.getMatchingIndexingMap(input) != op.getMatchingIndexingMap(&init))
        return true;
  for (const SymbolTable::SymbolUse &use : uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return true; // its address is taken: callers unknown
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto argument = dyn_cast<BlockArgument>(init.get());
      if (!argument || argument.getOwner()->getParentOp() != kernel)
        return true;
      Value view = call.getOperand(argument.getArgNumber());
      Value passed = baseBuffer(view);
      for (auto [index, operand] : llvm::enumerate(call.getOperands()))
        if (index != argument.getArgNumber() &&
            isa<MemRefType>(operand.getType()) &&
            baseBuffer(operand) == passed &&
            !(operand == view && isReadLikeInit(kernel, op, index, init)))
          return true;
    }
  }
  return false;
}

/// `@<kernel>.range(args..., %lo, %hi)`: the op tiled along the split
/// dimension, tiles lo..hi only.
LogicalResult buildRange(func::FuncOp range, const Split &split) {
  Location loc = range.getLoc();
  MLIRContext *context = range.getContext();
  unsigned count = range.getNumArguments();
  IndexType index = IndexType::get(context);
  if (failed(range.insertArgument(count, index, {}, loc)) ||
      failed(range.insertArgument(count + 1, index, {}, loc)))
    return failure();
  linalg::LinalgOp op = soleLinalgOp(range);
  IRRewriter rewriter(context);
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> tileSizes(op.getNumLoops(), 0);
  tileSizes[split.dim] = split.tile;
  linalg::LinalgTilingOptions options;
  options.setTileSizes(tileSizes);
  FailureOr<linalg::TiledLinalgOp> tiled =
      linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled) || tiled->loops.empty())
    return failure();
  rewriter.eraseOp(op);
  auto loop = cast<scf::ForOp>(tiled->loops.front());
  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value tile = constant(split.tile);
  Value lower =
      arith::MulIOp::create(rewriter, loc, range.getArgument(count), tile);
  Value upper = arith::MinSIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, range.getArgument(count + 1), tile),
      constant(split.extent));
  loop.setLowerBound(lower);
  loop.setUpperBound(upper);
  range->setAttr(kParallelTasksAttr,
                 IntegerAttr::get(IntegerType::get(context, 64), split.tasks));
  return success();
}

/// The kernel's body becomes `call @range(args..., 0, tasks)`.
void callRange(func::FuncOp kernel, func::FuncOp range, const Split &split) {
  Block &body = kernel.getBody().front();
  while (!body.empty())
    body.back().erase();
  auto b = OpBuilder::atBlockEnd(&body);
  Location loc = kernel.getLoc();
  SmallVector<Value> operands(body.getArguments());
  operands.push_back(arith::ConstantIndexOp::create(b, loc, 0));
  operands.push_back(arith::ConstantIndexOp::create(b, loc, split.tasks));
  func::CallOp::create(b, loc, range, operands);
  func::ReturnOp::create(b, loc);
}

struct CPUParallelKernelsPass
    : amp::impl::CPUParallelKernelsPassBase<CPUParallelKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (minWork < 1 || taskWork < 1) {
      module.emitError("amp-cpu-parallel-kernels: min-work and task-work "
                       "must be at least 1");
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> kernels(module.getOps<func::FuncOp>());
    for (func::FuncOp kernel : kernels) {
      std::optional<Split> split = planSplit(kernel, minWork, taskWork);
      if (!split)
        continue;
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(kernel, module);
      if (!uses || mayOverlap(kernel, split->op, *uses))
        continue;
      func::FuncOp range = kernel.clone();
      range.setName((kernel.getName() + ".range").str());
      symbols.insert(range, std::next(Block::iterator(kernel)));
      if (failed(buildRange(range, *split))) {
        symbols.erase(range);
        continue;
      }
      callRange(kernel, range, *split);
    }
  }
};

} // namespace
