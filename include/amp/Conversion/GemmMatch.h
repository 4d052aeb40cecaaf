//===- GemmMatch.h - matrix products in bufferized linalg -------*- C++ -*-===//
//
// The matcher shared by the passes that turn contractions into library GEMM
// calls: amp-contractions-to-gemm-calls (cuBLASLt, GPU) and
// amp-cpu-contractions-to-blas (cblas_sgemm, CPU).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_GEMMMATCH_H
#define AMP_CONVERSION_GEMMMATCH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::amp {

/// A matrix product found in a linalg op: the loop dimensions playing each
/// role, and how the operands are laid out (row-major, dense).
struct GemmShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  /// Elements between consecutive matrices of A and B (0: broadcast).
  int64_t strideA = 0, strideB = 0;
};

/// A linalg op on buffers computing C (+)= A * B.
struct GemmMatch {
  Value a, b, c;
  Type aType, bType, cType;
  GemmShape shape;
};

/// A memref the runtime can take as a plain pointer to a dense row-major
/// array: static shape, identity layout, default memory space.
bool isDenseBuffer(Value value);

/// `v`, or what it widens when it is an arith.extf: the block argument an
/// operation of a linalg body reads.
Value stripExt(Value v);

/// Whether the body of `op` (two inputs, one output) is
/// `yield out + ext(a) * ext(b)` (either operand order), with the
/// extensions exactly where the types differ.
bool isMultiplyAccumulateBody(linalg::LinalgOp op);

/// Matches a linalg op on static, identity-layout memrefs in the default
/// memory space whose maps and iterators make it a (batched, possibly
/// transposed) matrix product and whose body is `out + ext(a) * ext(b)`.
/// The element types (A's and B's may differ: FP8 products take e4m3 and
/// e5m2) are left for the caller to check.
std::optional<GemmMatch> matchGemm(linalg::LinalgOp op);

/// The linalg ops in `op` that matchGemm matches, with their matches, in
/// program order: collected before any is rewritten.
SmallVector<std::pair<linalg::LinalgOp, GemmMatch>> collectGemms(Operation *op);

/// The linalg.fill of +0 that last wrote `buffer` before `op`, in the same
/// block with nothing in between using the buffer, when `buffer` is a fresh
/// allocation (nothing else can alias it): the product may overwrite the
/// buffer (beta = 0) and the fill be dropped.
linalg::FillOp findZeroFill(Operation *op, Value buffer);

/// The private declaration of the library function `name` of type `type`
/// in `module`, added at its end unless it is there.
func::FuncOp getOrDeclareLibraryFunc(ModuleOp module, StringRef name,
                                     FunctionType type);

/// A new buffer of `buffer`'s shape with float elements `type`, filled
/// with `buffer`'s elements converted (arith.extf or arith.truncf) by a
/// linalg.generic, both inserted at the builder's insertion point. The
/// caller frees it.
Value convertedCopy(OpBuilder &b, Location loc, Value buffer, FloatType type);

/// The aligned pointer of a dense buffer as `!llvm.ptr`.
Value bufferPointer(OpBuilder &b, Location loc, Value buffer);

} // namespace mlir::amp

#endif // AMP_CONVERSION_GEMMMATCH_H
