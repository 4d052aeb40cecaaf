//===- TileTransposes.cpp - transpositions in cache-sized blocks ----------===//
//
// The amp-cpu-tile-transposes pass: a linalg.generic that copies its input
// into its output under a permutation is tiled in its two transposed
// dimensions, so that the loops linalg-to-loops makes read and write whole
// cache lines on both sides instead of striding through one of them.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUTILETRANSPOSESPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// The two loop dimensions a transposition's tiles cover: the innermost of
/// the output and the innermost of the input, past the trailing dimensions
/// both keep innermost in the same order.
struct TransposedDims {
  unsigned output;
  unsigned input;
};

/// Whether `op` copies its one input to its one output (memrefs) under a
/// permutation other than the identity; the dimensions to tile if so.
std::optional<TransposedDims> matchTransposition(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() < 2)
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 ||
      yield.getValues().front() != body.getArgument(0))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap input = maps[0], output = maps[1];
  if (!output.isIdentity() || !input.isPermutation() || input.isIdentity())
    return std::nullopt;
  // The common suffix: loop dimension d read at input position d.
  unsigned n = op.getNumLoops(), position = n;
  while (position > 0 && input.getDimPosition(position - 1) == position - 1)
    --position;
  return TransposedDims{position - 1, input.getDimPosition(position - 1)};
}

/// The length of the rows a transposition moves whole: its common suffix,
/// when that is its one last dimension, static, and unit-strided on both
/// sides; 0 otherwise.
int64_t rowLength(linalg::GenericOp op, TransposedDims dims) {
  unsigned n = op.getNumLoops();
  if (dims.output != n - 2 || dims.input == n - 1)
    return 0;
  for (Value operand :
       {op.getDpsInputOperand(0)->get(), op.getDpsInitOperand(0)->get()}) {
    auto type = cast<MemRefType>(operand.getType());
    if (type.isDynamicDim(n - 1) || !type.areTrailingDimsContiguous(1))
      return 0;
  }
  return cast<MemRefType>(op.getDpsInitOperand(0)->get().getType())
      .getDimSize(n - 1);
}

/// Replaces the transposition by loops over every dimension but the last,
/// each iteration one memref.copy of a contiguous row (an llvm.memcpy of a
/// known size, which LLVM expands to a few vector moves). As loops, LLVM
/// vectorizes a transposition across rows with gathers and scatters, slow
/// on x86 (a 9-element row is too short to vectorize on its own).
void copyRows(RewriterBase &rewriter, linalg::GenericOp op, int64_t row) {
  Location loc = op.getLoc();
  Value input = op.getDpsInputOperand(0)->get();
  Value output = op.getDpsInitOperand(0)->get();
  AffineMap inputMap = op.getIndexingMapsArray()[0];
  auto outputType = cast<MemRefType>(output.getType());
  unsigned n = outputType.getRank();
  rewriter.setInsertionPoint(op);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lower(n - 1, zero), upper, steps(n - 1, one);
  for (unsigned d = 0; d + 1 < n; ++d)
    upper.push_back(memref::DimOp::create(rewriter, loc, output, d));
  auto rowType = MemRefType::get(
      {row}, outputType.getElementType(),
      StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic, {1}));
  scf::buildLoopNest(
      rewriter, loc, lower, upper, steps,
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        SmallVector<OpFoldResult> inputOffsets, outputOffsets;
        for (unsigned p = 0; p + 1 < n; ++p) {
          outputOffsets.push_back(ivs[p]);
          inputOffsets.push_back(ivs[inputMap.getDimPosition(p)]);
        }
        inputOffsets.push_back(b.getIndexAttr(0));
        outputOffsets.push_back(b.getIndexAttr(0));
        SmallVector<OpFoldResult> sizes(n, b.getIndexAttr(1));
        sizes.back() = b.getIndexAttr(row);
        SmallVector<OpFoldResult> strides(n, b.getIndexAttr(1));
        Value from = memref::SubViewOp::create(b, loc, rowType, input,
                                               inputOffsets, sizes, strides);
        Value to = memref::SubViewOp::create(b, loc, rowType, output,
                                             outputOffsets, sizes, strides);
        memref::CopyOp::create(b, loc, from, to);
      });
  rewriter.eraseOp(op);
}

/// The tile sizes of a transposition: `tile` for each of `dims` with more
/// iterations (a dynamic count: unknown, so large), 0 (whole) for one with
/// fewer and for the common suffix after them, 1 for the dimensions before;
/// none when neither of `dims` has more than `tile` iterations.
std::optional<SmallVector<int64_t>>
tileSizes(linalg::GenericOp op, TransposedDims dims, int64_t tile) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 1);
  // Past the output's dimension is the common suffix (the input's
  // dimension comes before it).
  for (unsigned d = dims.output + 1; d < sizes.size(); ++d)
    sizes[d] = 0;
  bool tiled = false;
  for (unsigned d : {dims.output, dims.input}) {
    bool large = ShapedType::isDynamic(ranges[d]) || ranges[d] > tile;
    sizes[d] = large ? tile : 0;
    tiled |= large;
  }
  if (!tiled)
    return std::nullopt;
  return sizes;
}

struct CPUTileTransposesPass
    : amp::impl::CPUTileTransposesPassBase<CPUTileTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tile < 1) {
      getOperation().emitError()
          << "amp-cpu-tile-transposes: tile must be at least 1, got "
          << static_cast<int64_t>(tile);
      return signalPassFailure();
    }
    struct Transposition {
      linalg::GenericOp op;
      TransposedDims dims;
      SmallVector<int64_t> sizes;
    };
    SmallVector<Transposition> transpositions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<TransposedDims> dims = matchTransposition(op))
        if (auto sizes = tileSizes(op, *dims, tile))
          transpositions.push_back({op, *dims, std::move(*sizes)});
    });
    IRRewriter rewriter(&getContext());
    for (Transposition &t : transpositions)
      if (failed(tileTransposition(rewriter, t.op, t.dims, t.sizes)))
        return signalPassFailure();
  }

  /// Tiles `op` by `sizes` (tileSizes), then copies the tile's rows.
  LogicalResult tileTransposition(IRRewriter &rewriter, linalg::GenericOp op,
                                  TransposedDims dims,
                                  ArrayRef<int64_t> sizes) {
    rewriter.setInsertionPoint(op);
    linalg::LinalgTilingOptions options;
    options.setTileSizes(sizes).setLoopType(
        linalg::LinalgTilingLoopType::Loops);
    FailureOr<linalg::TiledLinalgOp> tiled =
        linalg::tileLinalgOp(rewriter, op, options);
    if (failed(tiled))
      return op.emitError("amp-cpu-tile-transposes: cannot tile this "
                          "transposition");
    rewriter.eraseOp(op);
    auto inner = cast<linalg::GenericOp>(tiled->op.getOperation());
    if (int64_t row = rowLength(inner, dims); row > 1)
      copyRows(rewriter, inner, row);
    return success();
  }
};

} // namespace
