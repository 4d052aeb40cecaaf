//===- SgemmCalls.h - sgemm calls for linalg products -----------*- C++ -*-===//
//
// What amp-cpu-contractions-to-blas builds: a nest of loops over the outer
// dimensions of a product, each iteration one amp_cpu_sgemm call on matrices
// found at fixed strides in dense buffers.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_CPU_LINALGTOBLAS_SGEMMCALLS_H
#define AMP_LIB_CODEGEN_CPU_LINALGTOBLAS_SGEMMCALLS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::amp {

/// A row-major f32 matrix that sgemm reads or writes: in `buffer` (dense)
/// at `offset` plus the dot product of `outerStrides` with the outer loop
/// indices, with leading dimension `ld`, stored transposed when `trans`.
struct BlasMatrix {
  Value buffer;
  int64_t offset = 0, ld = 0;
  bool trans = false;
  SmallVector<int64_t> outerStrides;
};

/// C[outer] = A[outer] * B[outer] (+ C[outer] unless `overwrite`), one
/// m x n x k product for each index of the outer loops.
struct SgemmPlan {
  int64_t m = 0, n = 0, k = 0;
  SmallVector<int64_t> outerSizes;
  BlasMatrix a, b, c;
  bool overwrite = false;
  /// Buffers the plan allocated (packed operands), freed after the calls.
  SmallVector<Value> temporaries;
};

/// Emits `plan` before the builder's insertion point.
void emitSgemmCalls(OpBuilder &builder, Location loc, ModuleOp module,
                    const SgemmPlan &plan);

/// The plan of a linalg op that multiply-accumulates f32 operands through
/// affine maps that matchGemm does not take (convolutions and their
/// gradients: windows over padded inputs, permuted operands): the output's
/// trailing dimensions split into M (indexing one input, A) and N (the
/// other, B), its leading ones are the outer loops (those A does not read
/// join N), the reductions are K. An input that is not a dense (possibly
/// transposed) matrix at fixed strides is first copied into one by a
/// linalg.generic inserted before `op` (im2col for a convolution's input
/// window); an output that is not, is computed in a dense buffer that a
/// linalg.generic after `op` copies into it (adds to it unless
/// `overwrite`: the output was zero). std::nullopt, with nothing
/// inserted, when `op` does not have that form.
std::optional<SgemmPlan> planPackedGemm(OpBuilder &builder, linalg::LinalgOp op,
                                        bool overwrite);

} // namespace mlir::amp

#endif // AMP_LIB_CODEGEN_CPU_LINALGTOBLAS_SGEMMCALLS_H
