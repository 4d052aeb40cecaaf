//===- GPUCost.cpp - static cost of a GPU-lowered step --------------------===//
//
// Counts what a step does on the device from the GPU pipeline's IR before
// the kernels are serialized: host functions with gpu.launch_func,
// amp_gpu_gemm and amp_gpu_attention_fwd/bwd calls,
// gpu.alloc/dealloc/memcpy/wait, and gpu.func kernel
// bodies. A kernel body is evaluated once per launch with the launch's grid,
// block and constant arguments bound: index values get integer intervals,
// loops their average trip count over the threads, guards the fraction of
// threads that pass them, so FLOPs and accessed bytes are per launch, not
// per thread. See docs/CostModel.md.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/GPUCost.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"

#include "amp/Runtime/Attention.h"
#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Support/OutputFile.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::amp;

#ifndef AMP_DEVICE_MODELS_PATH
#define AMP_DEVICE_MODELS_PATH ""
#endif

namespace {

constexpr StringLiteral kGemmFunc = "amp_gpu_gemm";
constexpr StringLiteral kGemmEpilogueFunc = "amp_gpu_gemm_epilogue";
constexpr StringLiteral kGemmExFunc = "amp_gpu_gemm_ex";
constexpr StringLiteral kGemmAuxFunc = "amp_gpu_gemm_aux";
constexpr StringLiteral kGemmFp8Func = ::kGPUGemmFp8Func;

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

int64_t elementBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * elementBytes(vector.getElementType());
  // `index` has no bit width of its own: 64 bits on the GPU targets.
  if (type.isIndex())
    return 8;
  return int64_t((type.getIntOrFloatBitWidth() + 7) / 8);
}

/// Bytes of a statically shaped memref; nullopt for a dynamic one.
std::optional<int64_t> memrefBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return std::nullopt;
  return memref.getNumElements() * elementBytes(memref.getElementType());
}

/// The names and sizes of amp_dtype (include/amp/Runtime/ModelABI.h).
std::pair<StringRef, int64_t> ampDtype(int64_t code) {
  switch (code) {
  case 0:
    return {"f32", 4};
  case 1:
    return {"f16", 2};
  case 2:
    return {"bf16", 2};
  case 3:
    return {"i64", 8};
  case 4:
    return {"i32", 4};
  case 5:
    return {"i1", 1};
  case AMP_DTYPE_F8E4M3FN:
    return {"f8E4M3FN", 1};
  case AMP_DTYPE_F8E5M2:
    return {"f8E5M2", 1};
  }
  return {"unknown", 0};
}

//===----------------------------------------------------------------------===//
// Kernel bodies
//===----------------------------------------------------------------------===//

/// An integer interval [lo, hi]; index values of a kernel are bounded by the
/// launch's grid and block.
struct Interval {
  int64_t lo, hi;
  int64_t size() const { return hi - lo + 1; }
};

/// Evaluates one kernel body for one launch.
class KernelCounter {
public:
  KernelCounter(gpu::GPUFuncOp kernel, gpu::LaunchFuncOp launch,
                const std::array<int64_t, 3> &grid,
                const std::array<int64_t, 3> &block)
      : kernel(kernel), grid(grid), block(block) {
    for (auto [arg, operand] :
         llvm::zip(kernel.getArguments(), launch.getKernelOperands())) {
      APInt value;
      if (matchPattern(operand, m_ConstantInt(&value)))
        bindings[arg] = {value.getSExtValue(), value.getSExtValue()};
      known = bindings;
    }
    kernel.walk([&](gpu::ThreadIdOp id) { threadIds.push_back(id); });
    kernel.walk([&](gpu::BlockIdOp id) { blockIds.push_back(id); });
  }

  /// Fills the entry's bytes and FLOPs.
  void count(GPUCostEntry &entry) {
    double threads = double(entry.threads());
    visit(kernel.getBody(), threads);
    for (auto [index, arg] : llvm::enumerate(kernel.getArguments())) {
      std::optional<int64_t> bytes = memrefBytes(arg.getType());
      if (!bytes)
        continue;
      if (readArgs.contains(index))
        entry.bytesRead += double(*bytes);
      if (writtenArgs.contains(index))
        entry.bytesWritten += double(*bytes);
    }
    entry.accessedRead = accessedRead;
    entry.accessedWritten = accessedWritten;
    entry.uncoalescedBytes = uncoalesced;
    entry.flops = flops;
  }

private:
  gpu::GPUFuncOp kernel;
  std::array<int64_t, 3> grid, block;
  /// The launch's constant arguments, and the intervals computed so far.
  llvm::DenseMap<Value, Interval> bindings, known;
  llvm::DenseSet<unsigned> readArgs, writtenArgs;
  /// The kernel's thread and block ids, bound per lane by laneAddress.
  SmallVector<gpu::ThreadIdOp> threadIds;
  SmallVector<gpu::BlockIdOp> blockIds;
  double accessedRead = 0, accessedWritten = 0, flops = 0, uncoalesced = 0;

  static int64_t dimIndex(gpu::Dimension d) { return int64_t(d); }

  std::optional<Interval>
  affineInterval(AffineExpr expr, ArrayRef<std::optional<Interval>> dims,
                 ArrayRef<std::optional<Interval>> syms) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return Interval{c.getValue(), c.getValue()};
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return dims[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(expr))
      return syms[s.getPosition()];
    auto binary = cast<AffineBinaryOpExpr>(expr);
    std::optional<Interval> l = affineInterval(binary.getLHS(), dims, syms);
    std::optional<Interval> r = affineInterval(binary.getRHS(), dims, syms);
    if (!l || !r)
      return std::nullopt;
    return combine(expr.getKind(), *l, *r);
  }

  static std::optional<Interval> combine(AffineExprKind kind, Interval l,
                                         Interval r) {
    switch (kind) {
    case AffineExprKind::Add:
      return Interval{l.lo + r.lo, l.hi + r.hi};
    case AffineExprKind::Mul: {
      int64_t c[] = {l.lo * r.lo, l.lo * r.hi, l.hi * r.lo, l.hi * r.hi};
      return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case AffineExprKind::FloorDiv:
      if (r.lo != r.hi || r.lo <= 0 || l.lo < 0)
        return std::nullopt;
      return Interval{l.lo / r.lo, l.hi / r.lo};
    case AffineExprKind::CeilDiv:
      if (r.lo != r.hi || r.lo <= 0 || l.lo < 0)
        return std::nullopt;
      return Interval{(l.lo + r.lo - 1) / r.lo, (l.hi + r.lo - 1) / r.lo};
    case AffineExprKind::Mod:
      if (r.lo != r.hi || r.lo <= 0 || l.lo < 0)
        return std::nullopt;
      if (l.hi < r.lo)
        return l;
      return Interval{0, r.lo - 1};
    default:
      return std::nullopt;
    }
  }

  /// The values `value` takes over the launch's threads, if bounded.
  std::optional<Interval> interval(Value value) {
    auto it = known.find(value);
    if (it != known.end())
      return it->second;
    std::optional<Interval> result = computeInterval(value);
    if (result)
      known[value] = *result;
    return result;
  }

  std::optional<Interval> computeInterval(Value value) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return Interval{constant.getSExtValue(), constant.getSExtValue()};
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg != loop.getInductionVar())
        return std::nullopt;
      std::optional<Interval> lb = interval(loop.getLowerBound());
      std::optional<Interval> ub = interval(loop.getUpperBound());
      if (!lb || !ub || ub->hi <= lb->lo)
        return std::nullopt;
      return Interval{lb->lo, ub->hi - 1};
    }
    Operation *op = value.getDefiningOp();
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      return Interval{0, block[dimIndex(id.getDimension())] - 1};
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      return Interval{0, grid[dimIndex(id.getDimension())] - 1};
    if (auto dim = dyn_cast<gpu::BlockDimOp>(op)) {
      int64_t size = block[dimIndex(dim.getDimension())];
      return Interval{size, size};
    }
    if (auto dim = dyn_cast<gpu::GridDimOp>(op)) {
      int64_t size = grid[dimIndex(dim.getDimension())];
      return Interval{size, size};
    }
    if (isa<gpu::LaneIdOp>(op))
      return Interval{0, 31};
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>(op))
      return interval(op->getOperand(0));
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      AffineMap map = apply.getAffineMap();
      SmallVector<std::optional<Interval>> operands;
      for (Value operand : apply.getOperands())
        operands.push_back(interval(operand));
      ArrayRef<std::optional<Interval>> all(operands);
      return affineInterval(map.getResult(0), all.take_front(map.getNumDims()),
                            all.drop_front(map.getNumDims()));
    }
    std::optional<AffineExprKind> kind;
    if (isa<arith::AddIOp>(op))
      kind = AffineExprKind::Add;
    else if (isa<arith::MulIOp>(op))
      kind = AffineExprKind::Mul;
    else if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(op))
      kind = AffineExprKind::FloorDiv;
    else if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(op))
      kind = AffineExprKind::CeilDiv;
    else if (isa<arith::RemUIOp, arith::RemSIOp>(op))
      kind = AffineExprKind::Mod;
    if (kind) {
      std::optional<Interval> l = interval(op->getOperand(0));
      std::optional<Interval> r = interval(op->getOperand(1));
      if (!l || !r)
        return std::nullopt;
      return combine(*kind, *l, *r);
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      std::optional<Interval> c = interval(select.getCondition());
      std::optional<Interval> t = interval(select.getTrueValue());
      std::optional<Interval> f = interval(select.getFalseValue());
      if (c && c->lo == c->hi)
        return c->lo ? t : f;
      if (!t || !f)
        return std::nullopt;
      return Interval{std::min(t->lo, f->lo), std::max(t->hi, f->hi)};
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      double pass = fraction(cmp);
      return Interval{pass == 1.0 ? 1 : 0, pass == 0.0 ? 0 : 1};
    }
    if (isa<arith::SubIOp>(op)) {
      std::optional<Interval> l = interval(op->getOperand(0));
      std::optional<Interval> r = interval(op->getOperand(1));
      if (!l || !r)
        return std::nullopt;
      return Interval{l->lo - r->hi, l->hi - r->lo};
    }
    return std::nullopt;
  }

  /// The fraction of the threads reaching `condition` for which it holds,
  /// taking the values of its operands as evenly spread over their
  /// intervals; 1 when unknown.
  double fraction(Value condition) {
    Operation *op = condition.getDefiningOp();
    if (auto andOp = dyn_cast_or_null<arith::AndIOp>(op))
      return fraction(andOp.getLhs()) * fraction(andOp.getRhs());
    auto cmp = dyn_cast_or_null<arith::CmpIOp>(op);
    if (!cmp)
      return 1.0;
    std::optional<Interval> x = interval(cmp.getLhs());
    std::optional<Interval> c = interval(cmp.getRhs());
    if (!x || !c || c->lo != c->hi)
      return 1.0;
    double size = double(x->size());
    int64_t bound = c->lo;
    auto below = [&](int64_t limit) { // fraction of x < limit
      return std::clamp(double(limit - x->lo) / size, 0.0, 1.0);
    };
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::ult:
    case arith::CmpIPredicate::slt:
      return below(bound);
    case arith::CmpIPredicate::ule:
    case arith::CmpIPredicate::sle:
      return below(bound + 1);
    case arith::CmpIPredicate::ugt:
    case arith::CmpIPredicate::sgt:
      return 1.0 - below(bound + 1);
    case arith::CmpIPredicate::uge:
    case arith::CmpIPredicate::sge:
      return 1.0 - below(bound);
    case arith::CmpIPredicate::eq:
      return bound >= x->lo && bound <= x->hi ? 1.0 / size : 0.0;
    case arith::CmpIPredicate::ne:
      return bound >= x->lo && bound <= x->hi ? 1.0 - 1.0 / size : 1.0;
    }
    return 1.0;
  }

  /// The average trip count of `loop` over the threads reaching it: for a
  /// lower bound spread over [lo, hi] (a thread's first element of a
  /// strided row loop), the mean of ceil((ub - lb) / step).
  double tripCount(scf::ForOp loop) {
    std::optional<Interval> lb = interval(loop.getLowerBound());
    std::optional<Interval> ub = interval(loop.getUpperBound());
    std::optional<Interval> step = interval(loop.getStep());
    if (!lb || !ub || !step || step->lo != step->hi || step->lo <= 0 ||
        ub->lo != ub->hi)
      return 1.0;
    int64_t s = step->lo, u = ub->lo;
    auto trips = [&](int64_t l) {
      return l >= u ? 0.0 : double((u - l + s - 1) / s);
    };
    if (lb->size() > 65536)
      return trips((lb->lo + lb->hi) / 2);
    double total = 0;
    for (int64_t l = lb->lo; l <= lb->hi; ++l)
      total += trips(l);
    return total / double(lb->size());
  }

  /// The kernel argument a memref value is a view of, if any.
  std::optional<unsigned> rootArgument(Value memref) {
    while (Operation *op = memref.getDefiningOp()) {
      auto view = dyn_cast<ViewLikeOpInterface>(op);
      if (!view)
        return std::nullopt;
      memref = view.getViewSource();
    }
    auto arg = cast<BlockArgument>(memref);
    if (!isKernelArgument(arg))
      return std::nullopt;
    return arg.getArgNumber();
  }

  /// Whether `arg` is one of the kernel's arguments (device memory): the
  /// entry block's arguments after them are its workgroup and private
  /// attributions, which are not device memory.
  bool isKernelArgument(BlockArgument arg) {
    return arg.getOwner() == &kernel.getBody().front() &&
           arg.getArgNumber() < kernel.getNumArguments();
  }

  /// Memory transactions of one warp executing an access: how many times
  /// more 32-byte sectors than its 32 elements fill when contiguous (1 when
  /// coalesced or not known). The warp's lanes are the block's first 32
  /// threads (x fastest), in block 0, with every enclosing loop at its first
  /// iteration; each index is evaluated per lane, and the sectors of the
  /// addresses counted. Only accesses to a kernel argument with static
  /// strides are judged.
  double sectorsPerIdeal(Operation *op, Value memref, ValueRange indices,
                         int64_t bytes) {
    auto arg = dyn_cast<BlockArgument>(memref);
    auto type = dyn_cast<MemRefType>(memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!arg || !isKernelArgument(arg) || !type ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return 1.0;
    int64_t lanes = std::min<int64_t>(32, block[0] * block[1] * block[2]);
    SmallVector<scf::ForOp> loops; // outermost first
    for (Operation *p = op->getParentOp(); p != kernel; p = p->getParentOp())
      if (auto loop = dyn_cast<scf::ForOp>(p))
        loops.insert(loops.begin(), loop);
    llvm::SmallDenseSet<int64_t> sectors;
    llvm::DenseMap<Value, Interval> saved = std::move(known);
    for (int64_t lane = 0; lane < lanes; ++lane) {
      std::optional<int64_t> address =
          laneAddress(loops, indices, strides, lane);
      if (!address) {
        known = std::move(saved);
        return 1.0;
      }
      sectors.insert(llvm::divideFloorSigned((offset + *address) * bytes, 32));
    }
    known = std::move(saved);
    double ideal = std::ceil(double(lanes * bytes) / 32.0);
    return std::max(1.0, double(sectors.size()) / ideal);
  }

  /// The element offset `indices` address for `lane` of warp 0 (see
  /// sectorsPerIdeal) inside `loops` (outermost first), if every index is
  /// known there.
  std::optional<int64_t> laneAddress(ArrayRef<scf::ForOp> loops,
                                     ValueRange indices,
                                     ArrayRef<int64_t> strides, int64_t lane) {
    known = bindings;
    int64_t coordinate[3] = {lane % block[0], lane / block[0] % block[1],
                             lane / (block[0] * block[1])};
    for (gpu::ThreadIdOp id : threadIds) {
      int64_t v = coordinate[dimIndex(id.getDimension())];
      known[id] = {v, v};
    }
    for (gpu::BlockIdOp id : blockIds)
      known[id] = {0, 0};
    for (scf::ForOp loop : loops) {
      std::optional<Interval> lb = interval(loop.getLowerBound());
      if (!lb || lb->lo != lb->hi)
        return std::nullopt;
      known[loop.getInductionVar()] = *lb;
    }
    int64_t address = 0;
    for (auto [index, stride] : llvm::zip(indices, strides)) {
      std::optional<Interval> value = interval(index);
      if (!value || value->lo != value->hi)
        return std::nullopt;
      address += value->lo * stride;
    }
    return address;
  }

  void access(Operation *op, Value memref, ValueRange indices, Type element,
              double times, bool write) {
    std::optional<unsigned> arg = rootArgument(memref);
    if (!arg)
      return; // workgroup or private memory
    int64_t size = elementBytes(element);
    double bytes = times * double(size);
    if (!indices.empty())
      uncoalesced += bytes * (sectorsPerIdeal(op, memref, indices, size) - 1.0);
    if (write) {
      writtenArgs.insert(*arg);
      accessedWritten += bytes;
    } else {
      readArgs.insert(*arg);
      accessedRead += bytes;
    }
  }

  /// FLOPs of one execution of `op`: floating-point arithmetic, compares
  /// and math functions count 1 per element, fma 2.
  static double opFlops(Operation *op) {
    bool isFloat = llvm::any_of(op->getOperandTypes(), [](Type t) {
      return isa<FloatType>(getElementTypeOrSelf(t));
    });
    if (!isFloat)
      return 0;
    double elements = 1;
    if (auto vector = dyn_cast<VectorType>(op->getResult(0).getType()))
      elements = double(vector.getNumElements());
    if (isa<math::FmaOp>(op))
      return 2 * elements;
    if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
            arith::RemFOp, arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
            arith::MaxNumFOp, arith::MinNumFOp, arith::CmpFOp>(op) ||
        isa<math::MathDialect>(op->getDialect()))
      return elements;
    return 0;
  }

  /// Combining ops of a floating-point gpu.all_reduce per thread, as its
  /// lowering does them: a butterfly within each warp, then one over the warps'
  /// values.
  double allReduceFlops() const {
    int64_t threads = block[0] * block[1] * block[2];
    double steps = std::ceil(std::log2(double(std::min<int64_t>(threads, 32))));
    if (threads > 32)
      steps += std::ceil(std::log2(double((threads + 31) / 32)));
    return steps;
  }

  /// Whether `load` reads what `store` wrote: the same buffer and indices.
  static bool sameLocation(memref::LoadOp load, memref::StoreOp store) {
    return load.getMemRef() == store.getMemRef() &&
           load.getIndices() == store.getIndices();
  }

  /// Loads the compiler replaces by a value already in a register, as
  /// LLVM's GVN does (and the emulated device then does not count): a load
  /// of what an earlier store of the block wrote, and in a loop a load of a
  /// location the body stores to at loop-invariant indices (an accumulator:
  /// loaded once before the loop, then carried across iterations).
  void findForwardedLoads(Block &block, scf::ForOp loop,
                          llvm::DenseMap<Operation *, bool> &forwarded) {
    SmallVector<memref::StoreOp> stores;
    for (Operation &op : block)
      if (auto store = dyn_cast<memref::StoreOp>(op))
        stores.push_back(store);
    for (Operation &op : block) {
      auto load = dyn_cast<memref::LoadOp>(op);
      if (!load)
        continue;
      for (memref::StoreOp store : stores) {
        if (!sameLocation(load, store))
          continue;
        if (store->isBeforeInBlock(load)) {
          forwarded[load] = false; // free
        } else if (loop && llvm::all_of(load.getIndices(), [&](Value v) {
                     return loop.isDefinedOutsideOfLoop(v);
                   })) {
          forwarded[load] = true; // once per loop entry
        }
      }
    }
  }

  void visit(Region &region, double times, double perEntry = 0) {
    for (Block &b : region) {
      llvm::DenseMap<Operation *, bool> forwarded;
      findForwardedLoads(b, dyn_cast<scf::ForOp>(region.getParentOp()),
                         forwarded);
      for (Operation &op : b) {
        auto it = forwarded.find(&op);
        if (it == forwarded.end())
          visit(&op, times);
        else if (it->second)
          visit(&op, perEntry);
      }
    }
  }

  /// Visits `region` with `value` bound to `range` (and what derives from
  /// it recomputed).
  void visitWith(Region &region, double times, ArrayRef<Value> values,
                 Interval range) {
    llvm::DenseMap<Value, Interval> saved = std::move(known);
    known = bindings;
    for (Value value : values)
      known[value] = range;
    visit(region, times);
    known = std::move(saved);
  }

  /// The case a switch takes, by the values of `driver` over [lo, hi]: the
  /// cases with the driver's values that select them, in ranges.
  std::optional<std::vector<std::pair<int64_t, Interval>>>
  casesBy(scf::IndexSwitchOp sw, ArrayRef<Value> driver, Interval range) {
    if (range.size() > 65536)
      return std::nullopt;
    llvm::DenseMap<Value, Interval> saved = std::move(known);
    std::vector<std::pair<int64_t, Interval>> runs;
    for (int64_t v = range.lo; v <= range.hi; ++v) {
      known = bindings;
      for (Value value : driver)
        known[value] = {v, v};
      std::optional<Interval> selected = interval(sw.getArg());
      if (!selected || selected->lo != selected->hi) {
        known = std::move(saved);
        return std::nullopt;
      }
      if (!runs.empty() && runs.back().first == selected->lo &&
          runs.back().second.hi == v - 1)
        runs.back().second.hi = v;
      else
        runs.push_back({selected->lo, {v, v}});
    }
    known = std::move(saved);
    return runs;
  }

  /// How many threads of the launch select each case of `sw` (by value)
  /// when its selector depends on the block and thread ids in x: per block
  /// its case, or per thread where a block's threads select several. None
  /// when the selector is unknown for some thread or the grid is large.
  std::optional<std::map<int64_t, double>>
  threadsPerCase(scf::IndexSwitchOp sw) {
    if (grid[0] > 65536 || grid[1] * grid[2] * block[1] * block[2] != 1)
      return std::nullopt;
    llvm::DenseMap<Value, Interval> saved = std::move(known);
    std::map<int64_t, double> counts;
    auto selected = [&](int64_t blockId, std::optional<int64_t> threadId) {
      known = bindings;
      for (gpu::BlockIdOp id : blockIds)
        if (id.getDimension() == gpu::Dimension::x)
          known[id] = {blockId, blockId};
      for (gpu::ThreadIdOp id : threadIds)
        if (threadId && id.getDimension() == gpu::Dimension::x)
          known[id] = {*threadId, *threadId};
      return interval(sw.getArg());
    };
    bool complete = true;
    for (int64_t b = 0; b < grid[0] && complete; ++b) {
      std::optional<Interval> all = selected(b, std::nullopt);
      if (all && all->lo == all->hi) {
        counts[all->lo] += double(block[0]);
        continue;
      }
      for (int64_t t = 0; t < block[0] && complete; ++t) {
        std::optional<Interval> one = selected(b, t);
        complete = one && one->lo == one->hi;
        if (complete)
          counts[one->lo] += 1;
      }
    }
    known = std::move(saved);
    if (!complete)
      return std::nullopt;
    return counts;
  }

  /// A switch on an index made of the block and thread ids (the merged
  /// loops of amp-gpu-batch-loops: a range of threads per loop): each case
  /// is visited for the threads that select it, out of the `times` that
  /// reach the switch, which are the threads selecting a case (those past
  /// the end select the default and are kept out by the tiling's guard).
  bool visitByThreads(scf::IndexSwitchOp sw, double times) {
    std::optional<std::map<int64_t, double>> counts = threadsPerCase(sw);
    if (!counts)
      return false;
    ArrayRef<int64_t> cases = sw.getCases();
    double selecting = 0;
    for (auto [value, n] : *counts)
      if (llvm::is_contained(cases, value))
        selecting += n;
    if (selecting == 0)
      return false;
    for (auto [value, n] : *counts) {
      const int64_t *it = llvm::find(cases, value);
      if (it != cases.end())
        visit(sw.getCaseRegions()[it - cases.begin()], times * n / selecting);
    }
    return true;
  }

  /// A switch on a value derived from the block id (batched reductions: a
  /// range of blocks per input) or on a loop's induction variable (one case
  /// per iteration): each case is visited for the share of threads or
  /// iterations that take it, with the driver restricted to them.
  void visitSwitch(scf::IndexSwitchOp sw, double times) {
    SmallVector<Value> blockIds;
    kernel.walk([&](gpu::BlockIdOp id) {
      if (id.getDimension() == gpu::Dimension::x)
        blockIds.push_back(id);
    });
    SmallVector<Value> driver = blockIds;
    Interval range{0, grid[0] - 1};
    auto runs = casesBy(sw, driver, range);
    if (!runs && visitByThreads(sw, times))
      return;
    if (!runs) {
      std::optional<Interval> selector = interval(sw.getArg());
      if (selector) {
        driver = {sw.getArg()};
        range = *selector;
        runs = casesBy(sw, driver, range);
      }
    }
    if (!runs) { // unknown: every case, as if each ran
      for (Region &region : sw->getRegions())
        visit(region, times);
      return;
    }
    ArrayRef<int64_t> cases = sw.getCases();
    for (auto &[selected, values] : *runs) {
      const int64_t *it = llvm::find(cases, selected);
      Region &region = it == cases.end()
                           ? sw.getDefaultRegion()
                           : sw.getCaseRegions()[it - cases.begin()];
      visitWith(region, times * double(values.size()) / double(range.size()),
                driver, values);
    }
  }

  void visit(Operation *op, double times) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      visit(loop.getRegion(), times * tripCount(loop), times);
      return;
    }
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(op))
      return visitSwitch(sw, times);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      double pass = fraction(branch.getCondition());
      visit(branch.getThenRegion(), times * pass);
      visit(branch.getElseRegion(), times * (1.0 - pass));
      return;
    }
    // Vector loads and stores are the 16-byte accesses of coalesced kernels
    // and atomics a few per block: neither is judged for coalescing.
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return access(op, load.getMemRef(), load.getIndices(), load.getType(),
                    times, false);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return access(op, store.getMemRef(), store.getIndices(),
                    store.getValueToStore().getType(), times, true);
    if (auto load = dyn_cast<vector::LoadOp>(op))
      return access(op, load.getBase(), {}, load.getType(), times, false);
    if (auto store = dyn_cast<vector::StoreOp>(op))
      return access(op, store.getBase(), {}, store.getValueToStore().getType(),
                    times, true);
    if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
      access(op, rmw.getMemref(), {}, rmw.getType(), times, false);
      access(op, rmw.getMemref(), {}, rmw.getType(), times, true);
      flops += times;
      return;
    }
    if (isa<gpu::AllReduceOp, gpu::SubgroupReduceOp>(op)) {
      // Integer reductions (the overflow flag's `or`) are no FLOPs.
      if (isa<FloatType>(op->getResult(0).getType()))
        flops += times * allReduceFlops();
    } else if (op->getNumResults() == 1) {
      flops += times * opFlops(op);
    }
    for (Region &region : op->getRegions())
      visit(region, times);
  }
};

//===----------------------------------------------------------------------===//
// Host functions
//===----------------------------------------------------------------------===//

std::optional<int64_t> constantInt(Value value) {
  APInt result;
  if (!matchPattern(value, m_ConstantInt(&result)))
    return std::nullopt;
  return result.getSExtValue();
}

std::optional<double> constantFloat(Value value) {
  FloatAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return attr.getValueAsDouble();
}

class FunctionCounter {
public:
  explicit FunctionCounter(func::FuncOp func) : func(func) {
    cost.name = func.getSymName().str();
    for (Type type : func.getArgumentTypes())
      if (std::optional<int64_t> bytes = memrefBytes(type))
        cost.argumentBytes += *bytes;
    for (int32_t argument : getUpdatedInPlace(func))
      if (std::optional<int64_t> bytes =
              memrefBytes(func.getArgumentTypes()[argument]))
        cost.updatedInPlaceBytes += *bytes;
  }

  FailureOr<GPUFunctionCost> run() {
    WalkResult result = func.walk([&](Operation *op) {
      return failed(visit(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
    cost.peakBytes = cost.argumentBytes + peakTemporaries;
    return cost;
  }

private:
  func::FuncOp func;
  GPUFunctionCost cost;
  llvm::DenseMap<Value, int64_t> live;
  int64_t liveBytes = 0, peakTemporaries = 0;

  GPUCostEntry &add(GPUCostEntry::Kind kind) {
    cost.entries.push_back(GPUCostEntry{kind});
    return cost.entries.back();
  }

  LogicalResult visit(Operation *op) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return visitLaunch(launch);
    if (isa<gpu::LaunchOp>(op))
      return op->emitError("amp-gpu-cost-report: a gpu.launch is not "
                           "outlined; run the pass after "
                           "gpu-kernel-outlining");
    if (auto call = dyn_cast<func::CallOp>(op))
      return visitCall(call);
    if (auto alloc = dyn_cast<gpu::AllocOp>(op))
      return visitAlloc(alloc);
    if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      GPUCostEntry &entry = add(GPUCostEntry::Kind::Free);
      auto it = live.find(dealloc.getMemref());
      if (it != live.end()) {
        entry.allocBytes = it->second;
        liveBytes -= it->second;
        live.erase(it);
      }
      entry.liveBytes = liveBytes;
      return success();
    }
    if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      GPUCostEntry &entry = add(GPUCostEntry::Kind::Copy);
      std::optional<int64_t> bytes = memrefBytes(copy.getDst().getType());
      entry.bytesRead = entry.bytesWritten = double(bytes.value_or(0));
      return success();
    }
    if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
      GPUCostEntry &entry = add(GPUCostEntry::Kind::Copy);
      std::optional<int64_t> bytes = memrefBytes(memset.getDst().getType());
      entry.bytesWritten = double(bytes.value_or(0));
      return success();
    }
    // A wait without a token result blocks the host until the stream is
    // done: a synchronisation.
    if (auto wait = dyn_cast<gpu::WaitOp>(op))
      if (!wait.getAsyncToken())
        add(GPUCostEntry::Kind::Sync);
    return success();
  }

  LogicalResult visitAlloc(gpu::AllocOp alloc) {
    std::optional<int64_t> bytes = memrefBytes(alloc.getMemref().getType());
    if (!bytes)
      return alloc.emitError("amp-gpu-cost-report: a device allocation of a "
                             "dynamic size cannot be counted");
    GPUCostEntry &entry = add(GPUCostEntry::Kind::Alloc);
    entry.allocBytes = *bytes;
    live[alloc.getMemref()] = *bytes;
    liveBytes += *bytes;
    peakTemporaries = std::max(peakTemporaries, liveBytes);
    entry.liveBytes = liveBytes;
    return success();
  }

  LogicalResult visitLaunch(gpu::LaunchFuncOp launch) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel || kernel.isExternal())
      return launch.emitError("amp-gpu-cost-report: no kernel body for ")
             << launch.getKernel()
             << "; run the pass before the kernels are lowered and "
                "serialized (gpu-module-to-binary)";
    GPUCostEntry &entry = add(GPUCostEntry::Kind::Launch);
    entry.name = (launch.getKernelModuleName().getValue() +
                  "::" + launch.getKernelName().getValue())
                     .str();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value grids[] = {grid.x, grid.y, grid.z};
    Value blocks[] = {block.x, block.y, block.z};
    for (int i = 0; i < 3; ++i) {
      std::optional<int64_t> g = constantInt(grids[i]);
      std::optional<int64_t> b = constantInt(blocks[i]);
      if (!g || !b)
        return launch.emitError("amp-gpu-cost-report: the launch's grid and "
                                "block sizes must be constants");
      entry.grid[i] = *g;
      entry.block[i] = *b;
    }
    KernelCounter(kernel, launch, entry.grid, entry.block).count(entry);
    return success();
  }

  LogicalResult visitCall(func::CallOp call) {
    bool withAux = call.getCallee() == kGemmAuxFunc;
    bool apart = call.getCallee() == kGemmExFunc || withAux;
    bool withEpilogue = call.getCallee() == kGemmEpilogueFunc || apart;
    if (call.getCallee() == kGPUAttentionFwdFunc ||
        call.getCallee() == kGPUAttentionBwdFunc)
      return visitAttention(call, call.getCallee() == kGPUAttentionBwdFunc,
                            /*strided=*/false);
    // The strided calls read and write views with rows of head_dim
    // contiguous elements: the same bytes.
    if (call.getCallee() == kGPUAttentionFwdStridedFunc ||
        call.getCallee() == kGPUAttentionBwdStridedFunc)
      return visitAttention(call,
                            call.getCallee() == kGPUAttentionBwdStridedFunc,
                            /*strided=*/true);
    if (call.getCallee() == kGemmFp8Func)
      return visitGemmFp8(call);
    if (call.getCallee() != kGemmFunc && !withEpilogue) {
      add(GPUCostEntry::Kind::Call).name = call.getCallee().str();
      return success();
    }
    // amp_gpu_gemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a,
    //              stride_a, b, stride_b, c, alpha, beta, allow_tf32,
    //              [epilogue, vector, [aux, aux_ld,] [d,]] stream)
    // With D apart (amp_gpu_gemm_ex) C is read and D written: the same bytes
    // as accumulating in place.
    unsigned expected = withAux ? 22 : apart ? 20 : withEpilogue ? 19 : 17;
    if (call.getNumOperands() != expected)
      return call.emitError("amp-gpu-cost-report: ")
             << call.getCallee() << " takes " << expected
             << " operands, this call has " << call.getNumOperands();
    int64_t ints[17] = {};
    for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 15, 16}) {
      if (i == 16 && !withEpilogue)
        continue;
      std::optional<int64_t> value = constantInt(call.getOperand(i));
      if (!value)
        return call.emitError("amp-gpu-cost-report: ")
               << call.getCallee() << " operand " << i << " must be a constant";
      ints[i] = *value;
    }
    GPUCostEntry &entry = add(GPUCostEntry::Kind::Gemm);
    auto [aType, aBytes] = ampDtype(ints[0]);
    auto [cType, cBytes] = ampDtype(ints[1]);
    entry.aType = aType.str();
    entry.cType = cType.str();
    entry.batch = ints[2];
    entry.m = ints[3];
    entry.n = ints[4];
    entry.k = ints[5];
    entry.transA = ints[6] != 0;
    entry.transB = ints[7] != 0;
    entry.allowTF32 = ints[15] != 0;
    entry.accumulate = constantFloat(call.getOperand(14)).value_or(1.0) != 0;
    double mk = double(entry.m * entry.k), kn = double(entry.k * entry.n),
           mn = double(entry.m * entry.n), batch = double(entry.batch);
    // A stride of 0 broadcasts one matrix to every batch.
    entry.bytesRead = (ints[9] ? batch : 1) * mk * double(aBytes) +
                      (ints[11] ? batch : 1) * kn * double(aBytes) +
                      (entry.accumulate ? batch * mn * double(cBytes) : 0);
    entry.bytesWritten = batch * mn * double(cBytes);
    entry.flops = 2 * batch * mn * double(entry.k);
    // The epilogue's vector is f32 (C's type for BIAS_C_TYPE); its work
    // rides on the product's.
    // amp_gpu_gemm_aux passes D as C when it adds no residual.
    entry.cApart = withAux ? call.getOperand(12) != call.getOperand(20) : apart;
    if (withAux) {
      // GELU's input, m x n of C's type per batch, written beside D by
      // GELU_AUX[_BIAS] and read by DGELU; GELU and its derivative ride on
      // the product like a bias (the elementwise launch is gone).
      double auxBytes = batch * mn * double(cBytes);
      switch (ints[16]) {
      case AMP_GEMM_EPILOGUE_GELU_AUX_BIAS:
        entry.epilogue = "gelu_aux_bias";
        entry.bytesRead += double(entry.n) * cBytes;
        entry.bytesWritten += auxBytes;
        break;
      case AMP_GEMM_EPILOGUE_GELU_AUX:
        entry.epilogue = "gelu_aux";
        entry.bytesWritten += auxBytes;
        break;
      case AMP_GEMM_EPILOGUE_DGELU:
        entry.epilogue = "dgelu";
        entry.bytesRead += auxBytes;
        break;
      default:
        return call.emitError("amp-gpu-cost-report: amp_gpu_gemm_aux takes a "
                              "GELU epilogue, not ")
               << ints[16];
      }
    } else if (apart && ints[16] == 0) {
      // No epilogue: the residual alone.
    } else if (withEpilogue && (ints[16] == AMP_GEMM_EPILOGUE_BIAS ||
                                ints[16] == AMP_GEMM_EPILOGUE_BIAS_C_TYPE)) {
      entry.epilogue = "bias";
      entry.bytesRead +=
          double(entry.n) * (ints[16] == AMP_GEMM_EPILOGUE_BIAS ? 4 : cBytes);
    } else if (withEpilogue && ints[16] == AMP_GEMM_EPILOGUE_BGRAD_A) {
      entry.epilogue = "bgrad_a";
      entry.bytesWritten += double(entry.m) * 4;
    } else if (withEpilogue) {
      return call.emitError("amp-gpu-cost-report: unknown GEMM epilogue ")
             << ints[16];
    }
    return success();
  }

  /// amp_gpu_gemm_fp8(a_dtype, b_dtype, d_dtype, m, n, k, trans_a, trans_b,
  ///                  a, b, a_scale_inv, b_scale_inv, bias, fast_accum, d,
  ///                  stream): one byte per operand element, the two f32
  ///                  scales, the bias (n of bf16, f16 beside an f16 D)
  ///                  unless null, D written.
  LogicalResult visitGemmFp8(func::CallOp call) {
    if (call.getNumOperands() != 16)
      return call.emitError("amp-gpu-cost-report: ")
             << kGemmFp8Func << " takes 16 operands, this call has "
             << call.getNumOperands();
    int64_t ints[14] = {};
    for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 13}) {
      std::optional<int64_t> value = constantInt(call.getOperand(i));
      if (!value)
        return call.emitError("amp-gpu-cost-report: ")
               << kGemmFp8Func << " operand " << i << " must be a constant";
      ints[i] = *value;
    }
    GPUCostEntry &entry = add(GPUCostEntry::Kind::Gemm);
    auto [aType, aBytes] = ampDtype(ints[0]);
    auto [bType, bBytes] = ampDtype(ints[1]);
    auto [cType, cBytes] = ampDtype(ints[2]);
    entry.aType = aType.str();
    entry.bType = bType.str();
    entry.cType = cType.str();
    entry.batch = 1;
    entry.m = ints[3];
    entry.n = ints[4];
    entry.k = ints[5];
    entry.transA = ints[6] != 0;
    entry.transB = ints[7] != 0;
    entry.fastAccumulation = ints[13] != 0;
    double m = double(entry.m), n = double(entry.n), k = double(entry.k);
    entry.bytesRead = m * k * double(aBytes) + k * n * double(bBytes) + 8;
    entry.bytesWritten = m * n * double(cBytes);
    entry.flops = 2 * m * n * k;
    // No bias: the null pointer (llvm.mlir.zero) convert-amp-fp8-to-runtime
    // passes.
    Operation *bias = call.getOperand(12).getDefiningOp();
    if (!bias || bias->getName().getStringRef() != "llvm.mlir.zero") {
      entry.epilogue = "bias";
      entry.bytesRead += n * 2; // bf16 (f16 beside an f16 D): 2 bytes
    }
    return success();
  }

  /// A cuDNN fused attention call: the work of its matrix products on the
  /// pairs the mask leaves visible, the bytes of its operands, results and
  /// softmax statistics (the N x N scores never reach memory).
  LogicalResult visitAttention(func::CallOp call, bool backward, bool strided) {
    // amp_gpu_attention_fwd(dtype, batch, heads_q, heads_kv, seq_q, seq_kv,
    //   head_dim, head_dim_v, q, k, v, mask_kind, mask, mask_batch,
    //   mask_heads, scale, causal, out, lse, stream);
    // amp_gpu_attention_bwd has out, dout and lse after v, and dq, dk, dv
    // in place of out and lse.
    // The _strided calls add four int64_t per tensor (4 forward, 8
    // backward) before the stream.
    unsigned expected =
        (backward ? 24 : 20) + (strided ? (backward ? 32 : 16) : 0);
    if (call.getNumOperands() != expected)
      return call.emitError("amp-gpu-cost-report: ")
             << call.getCallee() << " takes " << expected
             << " operands, this call has " << call.getNumOperands();
    unsigned maskKindAt = backward ? 14 : 11, causalAt = backward ? 19 : 16;
    auto operand = [&](unsigned i) -> FailureOr<int64_t> {
      std::optional<int64_t> value = constantInt(call.getOperand(i));
      if (value)
        return *value;
      call.emitError("amp-gpu-cost-report: ")
          << call.getCallee() << " operand " << i << " must be a constant";
      return failure();
    };
    int64_t dims[8];
    for (unsigned i = 0; i < 8; ++i) {
      FailureOr<int64_t> value = operand(i);
      if (failed(value))
        return failure();
      dims[i] = *value;
    }
    FailureOr<int64_t> maskKind = operand(maskKindAt);
    FailureOr<int64_t> causal = operand(causalAt);
    if (failed(maskKind) || failed(causal))
      return failure();
    auto bad = [&](const Twine &why) -> LogicalResult {
      return call.emitError("amp-gpu-cost-report: ")
             << call.getCallee() << ": " << why;
    };
    // cuDNN's fused attention takes no f32 operands (Attention.h): the
    // compiler never emits such a call, and no efficiency is known for it.
    auto [type, elt] = ampDtype(dims[0]);
    if (type != "bf16" && type != "f16")
      return bad("dtype " + Twine(dims[0]) +
                 " is not AMP_DTYPE_F16 or AMP_DTYPE_BF16");
    int64_t batch = dims[1], headsQ = dims[2], headsKV = dims[3],
            seqQ = dims[4], seqKV = dims[5], d = dims[6], dv = dims[7];
    if (llvm::any_of(ArrayRef(dims).drop_front(),
                     [](int64_t v) { return v <= 0; }))
      return bad("the batch, heads, sequence lengths and head dimensions "
                 "must be positive");
    if (headsQ % headsKV != 0)
      return bad("heads_q " + Twine(headsQ) +
                 " is not a multiple of heads_kv " + Twine(headsKV));
    GPUCostEntry &entry = add(GPUCostEntry::Kind::Attention);
    entry.aType = type.str();
    entry.batch = batch;
    entry.headsQ = headsQ;
    entry.headsKV = headsKV;
    entry.seqQ = seqQ;
    entry.seqKV = seqKV;
    entry.headDim = d;
    entry.headDimV = dv;
    entry.backward = backward;
    entry.causal = *causal != 0;
    double maskBytes = 0;
    if (*maskKind == AMP_ATTENTION_MASK_KEEP ||
        *maskKind == AMP_ATTENTION_MASK_ADD) {
      FailureOr<int64_t> maskBatch = operand(maskKindAt + 2);
      FailureOr<int64_t> maskHeads = operand(maskKindAt + 3);
      if (failed(maskBatch) || failed(maskHeads))
        return failure();
      if ((*maskBatch != 1 && *maskBatch != batch) ||
          (*maskHeads != 1 && *maskHeads != headsQ))
        return bad("the mask's batch and heads must be 1 or the problem's");
      bool keep = *maskKind == AMP_ATTENTION_MASK_KEEP;
      entry.mask = keep ? "keep" : "add";
      maskBytes = double(*maskBatch) * double(*maskHeads) * double(seqQ) *
                  double(seqKV) * (keep ? 1 : 4);
    } else if (*maskKind != AMP_ATTENTION_MASK_NONE) {
      return bad("unknown mask kind " + Twine(*maskKind));
    }
    // Query i sees keys 0..i under the top-left causal mask (all of them
    // past seq_kv); a data mask hides pairs the kernel still computes.
    double sq = double(seqQ), skv = double(seqKV);
    if (entry.causal) {
      double rows = std::min(sq, skv);
      entry.visiblePairs = rows * (rows + 1) / 2 + (sq - rows) * skv;
    } else {
      entry.visiblePairs = sq * skv;
    }
    double heads = double(batch) * double(headsQ);
    double b = double(batch), size = double(elt);
    double q = heads * sq * double(d), o = heads * sq * double(dv);
    double k = b * double(headsKV) * skv * double(d);
    double v = b * double(headsKV) * skv * double(dv);
    double rowStats = 4 * heads * sq; // one f32 per query row
    if (!backward) {
      entry.flops = 2 * heads * entry.visiblePairs * double(d + dv);
      entry.bytesRead = size * (q + k + v) + maskBytes;
      entry.bytesWritten = size * o + rowStats; // out and lse
      return success();
    }
    // cuDNN's backward: a kernel writing D = rowsum(dout * out), the main
    // kernel accumulating dQ in f32, and one rounding dQ to the dtype.
    entry.kernels = 3;
    entry.flops = 2 * heads * entry.visiblePairs * double(3 * d + 2 * dv);
    double dqAccumulator = 4 * heads * sq * double(d);
    entry.bytesRead = size * (q + k + v + 2 * o) + 2 * rowStats +
                      dqAccumulator + maskBytes; // lse and D; dQ read back
    entry.bytesWritten = size * (q + k + v) + rowStats + dqAccumulator;
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

StringRef kindName(GPUCostEntry::Kind kind) {
  switch (kind) {
  case GPUCostEntry::Kind::Launch:
    return "launch";
  case GPUCostEntry::Kind::Gemm:
    return "gemm";
  case GPUCostEntry::Kind::Attention:
    return "attention";
  case GPUCostEntry::Kind::Sync:
    return "sync";
  case GPUCostEntry::Kind::Alloc:
    return "alloc";
  case GPUCostEntry::Kind::Free:
    return "free";
  case GPUCostEntry::Kind::Copy:
    return "copy";
  case GPUCostEntry::Kind::Call:
    return "call";
  }
  return "";
}

/// Doubles that hold integers print as integers.
llvm::json::Value number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9e15)
    return int64_t(value);
  return value;
}

llvm::json::Value dims(const std::array<int64_t, 3> &d) {
  return llvm::json::Array{d[0], d[1], d[2]};
}

llvm::json::Object entryJSON(const GPUCostEntry &e, bool modeled) {
  llvm::json::Object o{{"kind", kindName(e.kind)}};
  switch (e.kind) {
  case GPUCostEntry::Kind::Launch:
    o["kernel"] = e.name;
    o["grid"] = dims(e.grid);
    o["block"] = dims(e.block);
    o["accessed_bytes_read"] = number(e.accessedRead);
    o["accessed_bytes_written"] = number(e.accessedWritten);
    o["uncoalesced_bytes"] = number(e.uncoalescedBytes);
    break;
  case GPUCostEntry::Kind::Gemm:
    o["m"] = e.m;
    o["n"] = e.n;
    o["k"] = e.k;
    o["batch"] = e.batch;
    o["a_dtype"] = e.aType;
    if (!e.bType.empty()) {
      o["b_dtype"] = e.bType;
      o["fast_accumulation"] = e.fastAccumulation;
    }
    o["c_dtype"] = e.cType;
    o["trans_a"] = e.transA;
    o["trans_b"] = e.transB;
    o["accumulate"] = e.accumulate;
    o["allow_tf32"] = e.allowTF32;
    if (!e.epilogue.empty())
      o["epilogue"] = e.epilogue;
    if (e.cApart)
      o["c_apart"] = true;
    break;
  case GPUCostEntry::Kind::Attention:
    o["direction"] = e.backward ? "backward" : "forward";
    o["dtype"] = e.aType;
    o["batch"] = e.batch;
    o["heads_q"] = e.headsQ;
    o["heads_kv"] = e.headsKV;
    o["seq_q"] = e.seqQ;
    o["seq_kv"] = e.seqKV;
    o["head_dim"] = e.headDim;
    o["head_dim_v"] = e.headDimV;
    o["causal"] = e.causal;
    if (!e.mask.empty())
      o["mask"] = e.mask;
    o["visible_pairs"] = number(e.visiblePairs);
    o["kernels"] = e.kernels;
    break;
  case GPUCostEntry::Kind::Alloc:
  case GPUCostEntry::Kind::Free:
    o["bytes"] = e.allocBytes;
    o["live_bytes"] = e.liveBytes;
    return o;
  case GPUCostEntry::Kind::Call:
    o["callee"] = e.name;
    break;
  case GPUCostEntry::Kind::Sync:
  case GPUCostEntry::Kind::Copy:
    break;
  }
  if (e.kind != GPUCostEntry::Kind::Sync &&
      e.kind != GPUCostEntry::Kind::Call) {
    o["bytes_read"] = number(e.bytesRead);
    o["bytes_written"] = number(e.bytesWritten);
    o["flops"] = number(e.flops);
  }
  if (modeled)
    o["modeled_us"] = e.modeledSeconds * 1e6;
  return o;
}

} // namespace

//===----------------------------------------------------------------------===//
// Totals and the device model
//===----------------------------------------------------------------------===//

int64_t GPUFunctionCost::count(GPUCostEntry::Kind kind) const {
  return llvm::count_if(entries,
                        [&](const GPUCostEntry &e) { return e.kind == kind; });
}

double GPUFunctionCost::totalBytes() const {
  double total = 0;
  for (const GPUCostEntry &e : entries)
    total += e.bytes();
  return total;
}

double GPUFunctionCost::totalFlops() const {
  double total = 0;
  for (const GPUCostEntry &e : entries)
    total += e.flops;
  return total;
}

double GPUFunctionCost::modeledSeconds() const {
  double total = 0;
  for (const GPUCostEntry &e : entries)
    total += e.modeledSeconds;
  return total;
}

double DeviceModel::gemmEfficiencyAt(double flops) const {
  if (gemmEfficiency.empty())
    return 1.0;
  if (flops <= gemmEfficiency.front().first)
    return gemmEfficiency.front().second;
  for (size_t i = 1; i < gemmEfficiency.size(); ++i) {
    auto [x1, y1] = gemmEfficiency[i];
    if (flops > x1)
      continue;
    auto [x0, y0] = gemmEfficiency[i - 1];
    double t = (std::log(flops) - std::log(x0)) / (std::log(x1) - std::log(x0));
    return y0 + t * (y1 - y0);
  }
  return gemmEfficiency.back().second;
}

double DeviceModel::attentionPeak(StringRef type, bool backward) const {
  return (type == "bf16" ? peakBF16 : peakFP16) *
         (backward ? attentionBackwardEfficiency : attentionForwardEfficiency);
}

double DeviceModel::gemmPeak(StringRef aType, bool allowTF32) const {
  if (aType == "f8E4M3FN" || aType == "f8E5M2")
    return peakFP8;
  if (aType == "bf16")
    return peakBF16;
  if (aType == "f16")
    return peakFP16;
  return allowTF32 ? peakTF32 : peakFP32;
}

StringRef mlir::amp::defaultDevicesPath() { return AMP_DEVICE_MODELS_PATH; }

std::optional<DeviceModel>
mlir::amp::loadDeviceModel(StringRef path, StringRef key, std::string &error) {
  auto fail = [&](const Twine &why) -> std::optional<DeviceModel> {
    error = ("device model '" + key + "' in '" + path + "': " + why).str();
    return std::nullopt;
  };
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read the file: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *devices =
      json->getAsObject() ? json->getAsObject()->getObject("devices") : nullptr;
  if (!devices)
    return fail("no \"devices\" object");
  const llvm::json::Object *device = devices->getObject(key);
  if (!device) {
    std::string known;
    for (const auto &entry : *devices)
      known += (known.empty() ? "" : ", ") + entry.first.str();
    return fail("no such device (the file has: " + known + ")");
  }
  DeviceModel model;
  model.key = key.str();
  if (std::optional<StringRef> name = device->getString("name"))
    model.name = name->str();
  struct Field {
    const char *name;
    double *value;
  } fields[] = {{"hbm_bytes_per_s", &model.hbmBytesPerSecond},
                {"peak_bf16_flops", &model.peakBF16},
                {"peak_fp16_flops", &model.peakFP16},
                {"peak_fp8_flops", &model.peakFP8},
                {"peak_tf32_flops", &model.peakTF32},
                {"peak_fp32_flops", &model.peakFP32},
                {"launch_overhead_s", &model.launchSeconds},
                {"sync_s", &model.syncSeconds},
                {"saturating_threads", &model.saturatingThreads}};
  for (const Field &field : fields) {
    std::optional<double> value = device->getNumber(field.name);
    if (!value || !(*value > 0))
      return fail(Twine("\"") + field.name + "\" must be a positive number");
    *field.value = *value;
  }
  const llvm::json::Array *curve = device->getArray("gemm_efficiency");
  if (!curve || curve->empty())
    return fail("\"gemm_efficiency\" must be a list of [flops, fraction]");
  for (const llvm::json::Value &point : *curve) {
    const llvm::json::Array *pair = point.getAsArray();
    std::optional<double> flops =
        pair && pair->size() == 2 ? (*pair)[0].getAsNumber() : std::nullopt;
    std::optional<double> fraction =
        pair && pair->size() == 2 ? (*pair)[1].getAsNumber() : std::nullopt;
    if (!flops || !fraction || *flops <= 0 || *fraction <= 0 || *fraction > 1 ||
        (!model.gemmEfficiency.empty() &&
         *flops <= model.gemmEfficiency.back().first))
      return fail("\"gemm_efficiency\" points must be [flops, fraction] with "
                  "increasing flops > 0 and 0 < fraction <= 1");
    model.gemmEfficiency.push_back({*flops, *fraction});
  }
  const llvm::json::Object *attention =
      device->getObject("attention_efficiency");
  std::optional<double> forward =
      attention ? attention->getNumber("forward") : std::nullopt;
  std::optional<double> backward =
      attention ? attention->getNumber("backward") : std::nullopt;
  if (!forward || !backward || !(*forward > 0) || *forward > 1 ||
      !(*backward > 0) || *backward > 1)
    return fail("\"attention_efficiency\" must be {\"forward\": fraction, "
                "\"backward\": fraction} with 0 < fraction <= 1");
  model.attentionForwardEfficiency = *forward;
  model.attentionBackwardEfficiency = *backward;
  return model;
}

/// A cuBLASLt GEMM: the memory and tensor-core bounds (at the efficiency
/// of its size), plus one launch.
static double gemmSeconds(const DeviceModel &model, double bytes, double flops,
                          StringRef aType, bool allowTF32) {
  double peak =
      model.gemmPeak(aType, allowTF32) * model.gemmEfficiencyAt(flops);
  return std::max(bytes / model.hbmBytesPerSecond, flops / peak) +
         model.launchSeconds;
}

double mlir::amp::modelGemmSeconds(const DeviceModel &model, int64_t m,
                                   int64_t n, int64_t k, StringRef aType,
                                   StringRef cType) {
  auto bytesOf = [](StringRef type) {
    return type == "f32"                              ? 4.0
           : (type == "f8E4M3FN" || type == "f8E5M2") ? 1.0
                                                      : 2.0;
  };
  double dm = double(m), dn = double(n), dk = double(k);
  double bytes =
      (dm * dk + dk * dn) * bytesOf(aType) + dm * dn * bytesOf(cType);
  return gemmSeconds(model, bytes, 2 * dm * dn * dk, aType,
                     /*allowTF32=*/false);
}

void mlir::amp::applyDeviceModel(GPUCostReport &report,
                                 const DeviceModel &model) {
  report.device = model.key;
  for (GPUFunctionCost &function : report.functions) {
    for (GPUCostEntry &e : function.entries) {
      double bandwidth = model.hbmBytesPerSecond;
      switch (e.kind) {
      case GPUCostEntry::Kind::Launch: {
        // Too few threads in flight cannot saturate the memory system.
        double occupancy =
            std::min(1.0, double(e.threads()) / model.saturatingThreads);
        e.modeledSeconds =
            std::max((e.bytes() + e.uncoalescedBytes) / (bandwidth * occupancy),
                     e.flops / model.peakFP32) +
            model.launchSeconds;
        break;
      }
      case GPUCostEntry::Kind::Gemm:
        e.modeledSeconds =
            gemmSeconds(model, e.bytes(), e.flops, e.aType, e.allowTF32);
        break;
      case GPUCostEntry::Kind::Attention:
        e.modeledSeconds =
            std::max(e.bytes() / bandwidth,
                     e.flops / model.attentionPeak(e.aType, e.backward)) +
            double(e.kernels) * model.launchSeconds;
        break;
      case GPUCostEntry::Kind::Copy:
        e.modeledSeconds = e.bytes() / bandwidth + model.launchSeconds;
        break;
      case GPUCostEntry::Kind::Sync:
        e.modeledSeconds = model.syncSeconds;
        break;
      default:
        e.modeledSeconds = 0;
      }
    }
  }
}

FailureOr<GPUCostReport> mlir::amp::analyzeGPUCost(ModuleOp module) {
  GPUCostReport report;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<GPUFunctionCost> cost = FunctionCounter(func).run();
    if (failed(cost))
      return failure();
    report.functions.push_back(std::move(*cost));
  }
  return report;
}

llvm::json::Value mlir::amp::toJSON(const GPUCostReport &report) {
  bool modeled = !report.device.empty();
  llvm::json::Array functions;
  for (const GPUFunctionCost &f : report.functions) {
    llvm::json::Array entries;
    for (const GPUCostEntry &e : f.entries)
      entries.push_back(entryJSON(e, modeled));
    llvm::json::Object o{{"name", f.name},
                         {"launches", f.count(GPUCostEntry::Kind::Launch)},
                         {"gemms", f.count(GPUCostEntry::Kind::Gemm)},
                         {"attentions", f.count(GPUCostEntry::Kind::Attention)},
                         {"syncs", f.count(GPUCostEntry::Kind::Sync)},
                         {"allocations", f.count(GPUCostEntry::Kind::Alloc)},
                         {"copies", f.count(GPUCostEntry::Kind::Copy)},
                         {"bytes", number(f.totalBytes())},
                         {"flops", number(f.totalFlops())},
                         {"argument_bytes", f.argumentBytes},
                         {"updated_in_place_bytes", f.updatedInPlaceBytes},
                         {"peak_bytes", f.peakBytes},
                         {"entries", std::move(entries)}};
    if (modeled)
      o["modeled_ms"] = f.modeledSeconds() * 1e3;
    functions.push_back(std::move(o));
  }
  llvm::json::Object root{{"functions", std::move(functions)}};
  if (modeled) {
    root["device"] = report.device;
    root["times"] = "modeled";
  }
  return root;
}

void mlir::amp::printSummary(const GPUCostReport &report,
                             llvm::raw_ostream &os) {
  bool modeled = !report.device.empty();
  for (const GPUFunctionCost &f : report.functions) {
    os << "== " << f.name
       << (modeled ? " (modeled on " + report.device + ")" : "") << " ==\n";
    os << llvm::formatv("{0,-5} {1,-40} {2,18} {3,12} {4,12} {5,12}{6}\n", "#",
                        "what", "grid x block / mnk", "read B", "written B",
                        "FLOPs", modeled ? "   modeled us" : "");
    int index = 0;
    for (const GPUCostEntry &e : f.entries) {
      std::string what, shape;
      switch (e.kind) {
      case GPUCostEntry::Kind::Launch:
        // The module name: unique, and what the emulator's profile names.
        what = StringRef(e.name).split("::").first.str();
        shape = llvm::formatv("{0}x{1}x{2} x {3}x{4}x{5}", e.grid[0], e.grid[1],
                              e.grid[2], e.block[0], e.block[1], e.block[2]);
        break;
      case GPUCostEntry::Kind::Gemm:
        what = "gemm " + e.aType + (e.bType.empty() ? "" : "x" + e.bType) +
               "->" + e.cType + (e.epilogue.empty() ? "" : "+" + e.epilogue) +
               (e.cApart ? "+c" : "");
        shape = llvm::formatv("{0}x{1}x{2}x{3}", e.batch, e.m, e.n, e.k);
        break;
      case GPUCostEntry::Kind::Attention:
        what = std::string("attention ") + (e.backward ? "bwd " : "fwd ") +
               e.aType + (e.causal ? " causal" : "") +
               (e.mask.empty() ? "" : " " + e.mask);
        // batch x heads_q/heads_kv x seq_q/seq_kv x head_dim/head_dim_v
        shape =
            llvm::formatv("{0}x{1}/{2}x{3}/{4}x{5}/{6}", e.batch, e.headsQ,
                          e.headsKV, e.seqQ, e.seqKV, e.headDim, e.headDimV);
        break;
      case GPUCostEntry::Kind::Sync:
        what = "host sync";
        break;
      case GPUCostEntry::Kind::Copy:
        what = "copy";
        break;
      case GPUCostEntry::Kind::Call:
        what = "call " + e.name;
        break;
      default:
        continue; // allocations are in the JSON
      }
      os << llvm::formatv("{0,-5} {1,-40} {2,18} {3,12} {4,12} {5,12}", index++,
                          what, shape, int64_t(e.bytesRead),
                          int64_t(e.bytesWritten), int64_t(e.flops));
      if (modeled)
        os << llvm::formatv(" {0,12:f2}", e.modeledSeconds * 1e6);
      os << "\n";
    }
    // Attention calls are named only where there are some, so that the
    // line of a step without them reads as before.
    int64_t attentions = f.count(GPUCostEntry::Kind::Attention);
    std::string attentionCalls =
        attentions ? llvm::formatv(" {0} attention calls,", attentions).str()
                   : "";
    os << llvm::formatv(
        "total: {0} launches, {1} GEMMs,{8} {2} syncs, {3} allocations, {4} "
        "bytes, {5} FLOPs, peak {6} bytes ({7} in arguments)",
        f.count(GPUCostEntry::Kind::Launch), f.count(GPUCostEntry::Kind::Gemm),
        f.count(GPUCostEntry::Kind::Sync), f.count(GPUCostEntry::Kind::Alloc),
        int64_t(f.totalBytes()), int64_t(f.totalFlops()), f.peakBytes,
        f.argumentBytes, attentionCalls);
    if (modeled)
      os << llvm::formatv(", modeled {0:f3} ms", f.modeledSeconds() * 1e3);
    os << "\n";
  }
}

/// Writes `text` to the temporary of `file` opened for `path` ("-":
/// stdout); the caller commits once every output is written, so that a
/// failing run replaces none of them.
static LogicalResult writeOutput(ModuleOp module, StringRef option,
                                 StringRef path, StringRef text,
                                 ::amp::OutputFile &file) {
  std::string error;
  if (file.open(path.str(), error)) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file.openForWriting(ec), /*shouldClose=*/true);
    if (!ec) {
      os << text;
      os.close();
      ec = os.error();
      os.clear_error();
    }
    if (!ec)
      return success();
    error = "cannot write '" + path.str() + "': " + ec.message();
  }
  return module.emitError("amp-gpu-cost-report: ") << option << ": " << error;
}

LogicalResult mlir::amp::writeGPUCostReport(ModuleOp module, StringRef device,
                                            StringRef devicesPath,
                                            StringRef jsonPath,
                                            StringRef summaryPath) {
  FailureOr<GPUCostReport> report = analyzeGPUCost(module);
  if (failed(report))
    return failure();
  if (!device.empty()) {
    std::string error;
    std::optional<DeviceModel> model = loadDeviceModel(
        devicesPath.empty() ? defaultDevicesPath() : devicesPath, device,
        error);
    if (!model)
      return module.emitError("amp-gpu-cost-report: ") << error;
    applyDeviceModel(*report, *model);
  }
  std::string json, summary;
  llvm::raw_string_ostream jsonStream(json), summaryStream(summary);
  jsonStream << llvm::formatv("{0:2}", toJSON(*report)) << "\n";
  printSummary(*report, summaryStream);
  ::amp::OutputFile jsonFile, summaryFile;
  if ((!jsonPath.empty() &&
       failed(writeOutput(module, "output", jsonPath, json, jsonFile))) ||
      (!summaryPath.empty() &&
       failed(
           writeOutput(module, "summary", summaryPath, summary, summaryFile))))
    return failure();
  std::string error;
  if (!jsonPath.empty() && !jsonFile.commit(error))
    return module.emitError("amp-gpu-cost-report: output: ") << error;
  if (!summaryPath.empty() && !summaryFile.commit(error))
    return module.emitError("amp-gpu-cost-report: summary: ") << error;
  return success();
}
