//===- TiledTransposes.cpp - transposed copies through shared memory ------===//
//
// Part of amp-gpu-prepare-linalg (PrepareLinalg.cpp): a copy that
// transposes a dense 2-D buffer (out[i][j] = in[j][i], the TN operands of
// FP8 GEMMs, convert-amp-fp8-to-runtime) becomes a launch that moves
// 32 x 32 tiles through workgroup memory. Mapped as a plain loop nest, one
// of the two sides is strided across a warp's lanes (one 32-byte sector per
// element of a one-byte type); through a tile, lanes read consecutive
// elements of an input row and write consecutive elements of an output
// row.
//
// When the copied buffer is written by an elementwise generic earlier in the
// block (an FP8 quantization), the launch computes it too, in the generic's
// place: each tile is computed, stored in place and copied transposed from
// workgroup memory, so the transposed copy does not read the buffer again
// (Transformer Engine's cast_transpose).
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPUUtils.h"

#include "amp/Runtime/CUDAKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace mlir::amp::gpu_lowering {
namespace {
/// Tile edge and rows of threads: a block of kTile x kRowsPerPass threads
/// moves a kTile x kTile tile, each thread kTile / kRowsPerPass elements.
constexpr int64_t kTile = 32;
constexpr int64_t kRowsPerPass = 8;
/// gridDim.y's limit; the input's row tiles run along y.
constexpr int64_t kMaxGridY = 65535;
/// The argument of amp_gpu_gemm_fp8 (CUDAKernels.h) the product is written
/// to, `d`; the other pointers are only read.
constexpr unsigned kGemmFp8ResultArg = 14;

/// Whether `generic` is a transposed copy of a static dense 2-D buffer into
/// another, on the host.
bool isTransposedCopy(linalg::GenericOp generic) {
  if (!generic.hasPureBufferSemantics() || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || isInsideKernel(generic))
    return false;
  Value in = generic.getDpsInputs()[0], out = generic.getDpsInits()[0];
  auto inType = dyn_cast<MemRefType>(in.getType());
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!inType || !outType || inType.getRank() != 2 ||
      !inType.hasStaticShape() || !outType.hasStaticShape() ||
      !isDenseMemRef(in) || !isDenseMemRef(out) ||
      inType.getElementType() != outType.getElementType() ||
      inType.getMemorySpace() || outType.getMemorySpace())
    return false;
  MLIRContext *context = generic.getContext();
  AffineMap swap =
      AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, context);
  if (generic.getIndexingMapsArray() !=
      ArrayRef<AffineMap>{swap, AffineMap::getMultiDimIdentityMap(2, context)})
    return false;
  if (inType.getDimSize(0) != outType.getDimSize(1) ||
      inType.getDimSize(1) != outType.getDimSize(0) ||
      llvm::divideCeil(inType.getDimSize(0), kTile) > kMaxGridY)
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 &&
         yield.getValues()[0] == body.getArgument(0);
}

/// Whether `op` leaves `buffer` unwritten and does not touch `fresh`: so a
/// copy from `buffer` into `fresh` after `op` may run before it. An FP8
/// GEMM call (convert-amp-fp8-to-runtime) writes only its result; anything
/// else writes what collectEffects says.
bool commutesWithCopy(Operation *op, Value buffer, Value fresh) {
  SmallVector<Value> touched, written;
  auto call = dyn_cast<func::CallOp>(op);
  if (call && call.getCallee() == kGPUGemmFp8Func) {
    for (auto [i, operand] : llvm::enumerate(call.getArgOperands())) {
      if (!isa<LLVM::LLVMPointerType>(operand.getType()) ||
          operand.getDefiningOp<LLVM::ZeroOp>())
        continue;
      FailureOr<Value> buffer = pointerBuffer(operand);
      if (failed(buffer) || !*buffer)
        return false;
      Value source = *buffer;
      touched.push_back(source);
      if (i == kGemmFp8ResultArg)
        written.push_back(source);
    }
  } else if (!collectEffects(op, touched, written)) {
    return false;
  }
  return !mayAliasAny(buffer, written) && !mayAliasAny(fresh, touched);
}

/// The elementwise generic that computes `copy`'s input, when the copy may
/// move up to it and the launch compute it (see the file comment): the
/// input's only writer, earlier in the block, all its loops parallel, its
/// one output the input with the identity map and not read, its inputs
/// read with the identity map or as scalars, its body free of memory
/// effects; nothing between them writes the input or touches the copy's
/// output, except that output's allocation.
linalg::GenericOp producerToFuse(linalg::GenericOp copy) {
  Value in = copy.getDpsInputs()[0], out = copy.getDpsInits()[0];
  linalg::GenericOp producer;
  for (Operation *user : in.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || !llvm::is_contained(generic.getDpsInits(), in))
      continue;
    if (producer)
      return nullptr;
    producer = generic;
  }
  if (!producer || producer->getBlock() != copy->getBlock() ||
      !producer->isBeforeInBlock(copy) || !producer.hasPureBufferSemantics() ||
      producer.getNumDpsInits() != 1 || producer.getNumLoops() != 2 ||
      producer.getNumParallelLoops() != 2)
    return nullptr;
  OpOperand &init = producer.getDpsInitsMutable()[0];
  if (!producer.getMatchingIndexingMap(&init).isIdentity() ||
      !producer.getMatchingBlockArgument(&init).use_empty())
    return nullptr;
  for (OpOperand *input : producer.getDpsInputOperands()) {
    AffineMap map = producer.getMatchingIndexingMap(input);
    if (!isa<MemRefType>(input->get().getType()) ||
        !(map.isIdentity() || map.getNumResults() == 0))
      return nullptr;
  }
  for (Operation &op : producer.getRegion().front().without_terminator())
    if (!isMemoryEffectFree(&op))
      return nullptr;
  Operation *outAlloc = out.getDefiningOp<memref::AllocOp>();
  if (!outAlloc || outAlloc->getNumOperands() != 0)
    return nullptr;
  for (Operation *op = producer->getNextNode(); op != copy;
       op = op->getNextNode())
    if (op != outAlloc && !commutesWithCopy(op, in, out))
      return nullptr;
  return producer;
}

/// Replaces `copy` by the tiled launch; with `producer`, at the producer's
/// place, computing its output too.
void emitTiledTranspose(linalg::GenericOp copy, linalg::GenericOp producer) {
  Value in = copy.getDpsInputs()[0], out = copy.getDpsInits()[0];
  if (producer)
    if (Operation *alloc = out.getDefiningOp();
        alloc->getBlock() == producer->getBlock() &&
        producer->isBeforeInBlock(alloc))
      alloc->moveBefore(producer);
  OpBuilder b(producer ? producer.getOperation() : copy.getOperation());
  Location loc = copy.getLoc();
  auto inType = cast<MemRefType>(in.getType());
  int64_t rows = inType.getDimSize(0), cols = inType.getDimSize(1);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = index(1);
  // One padding column so that a warp reading a tile column touches
  // different banks for elements of 4 bytes.
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto tileType = MemRefType::get({kTile, kTile + 1}, inType.getElementType(),
                                  MemRefLayoutAttrInterface(), workgroup);
  auto launch = gpu::LaunchOp::create(
      b, loc, index(llvm::divideCeil(cols, kTile)),
      index(llvm::divideCeil(rows, kTile)), one, index(kTile),
      index(kRowsPerPass), one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
      TypeRange{tileType});
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(body.getTerminator());
  Value tile = launch.getWorkgroupAttributions()[0];
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  Value tileRow0 = arith::MulIOp::create(b, loc, launch.getBlockIds().y,
                                         index(kTile)); // input rows
  Value tileCol0 = arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                                         index(kTile)); // input columns
  // Accesses outside the buffer happen only in the last tile of a
  // dimension that kTile does not divide.
  auto guarded = [&](Value i, int64_t iSize, Value j, int64_t jSize,
                     function_ref<void()> body) {
    Value cond;
    for (auto [v, size] : {std::pair(i, iSize), std::pair(j, jSize)}) {
      if (size % kTile == 0)
        continue;
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                       index(size));
      cond = cond ? arith::AndIOp::create(b, loc, cond, in) : in;
    }
    if (!cond)
      return body();
    auto branch = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    body();
  };
  // The producer's scalar inputs, read once per thread.
  IRMapping scalars;
  if (producer)
    for (OpOperand *input : producer.getDpsInputOperands())
      if (producer.getMatchingIndexingMap(input).getNumResults() == 0)
        scalars.map(producer.getMatchingBlockArgument(input),
                    memref::LoadOp::create(b, loc, input->get()));
  // The element (row, col) of the copied buffer: read, or computed by the
  // producer's body and stored in place.
  auto element = [&](Value row, Value col) -> Value {
    if (!producer)
      return memref::LoadOp::create(b, loc, in, ValueRange{row, col});
    Block &producerBody = producer.getRegion().front();
    IRMapping mapping = scalars;
    for (OpOperand *input : producer.getDpsInputOperands())
      if (!mapping.contains(producer.getMatchingBlockArgument(input)))
        mapping.map(
            producer.getMatchingBlockArgument(input),
            memref::LoadOp::create(b, loc, input->get(), ValueRange{row, col}));
    for (Operation &op : producerBody.without_terminator())
      b.clone(op, mapping);
    Value v = mapping.lookupOrDefault(
        cast<linalg::YieldOp>(producerBody.getTerminator()).getValues()[0]);
    memref::StoreOp::create(b, loc, v, in, ValueRange{row, col});
    return v;
  };
  // Lanes (tx) read consecutive columns of input rows...
  for (int64_t pass = 0; pass < kTile / kRowsPerPass; ++pass) {
    Value r = arith::AddIOp::create(b, loc, ty, index(pass * kRowsPerPass));
    Value row = arith::AddIOp::create(b, loc, tileRow0, r);
    Value col = arith::AddIOp::create(b, loc, tileCol0, tx);
    guarded(row, rows, col, cols, [&] {
      memref::StoreOp::create(b, loc, element(row, col), tile,
                              ValueRange{r, tx});
    });
  }
  gpu::BarrierOp::create(b, loc);
  // ...and write consecutive columns of output rows: out[col][row] from
  // the tile's column.
  for (int64_t pass = 0; pass < kTile / kRowsPerPass; ++pass) {
    Value c = arith::AddIOp::create(b, loc, ty, index(pass * kRowsPerPass));
    Value outRow = arith::AddIOp::create(b, loc, tileCol0, c);
    Value outCol = arith::AddIOp::create(b, loc, tileRow0, tx);
    guarded(outRow, cols, outCol, rows, [&] {
      Value v = memref::LoadOp::create(b, loc, tile, ValueRange{tx, c});
      memref::StoreOp::create(b, loc, v, out, ValueRange{outRow, outCol});
    });
  }
  copy->erase();
  if (producer)
    producer->erase();
}
} // namespace

void tileTransposes(Operation *root) {
  SmallVector<linalg::GenericOp> copies;
  root->walk([&](linalg::GenericOp generic) {
    if (isTransposedCopy(generic))
      copies.push_back(generic);
  });
  // Producers first found, then fused: a fused producer is erased.
  SmallVector<linalg::GenericOp> producers;
  for (linalg::GenericOp copy : copies)
    producers.push_back(producerToFuse(copy));
  for (auto [i, producer] : llvm::enumerate(producers))
    if (producer && llvm::count(producers, producer) > 1)
      producers[i] = nullptr;
  for (auto [copy, producer] : llvm::zip(copies, producers))
    emitTiledTranspose(copy, producer);
}

} // namespace mlir::amp::gpu_lowering
