//===- CPUGemm.cpp - f32 matrix products on the runtime's threads ---------===//
//
// amp_cpu_sgemm (CPUGemm.h): a product is cut into panels of C fixed by its
// shape, each computed by one single-threaded call of the BLAS, the panels
// spread over the model runtime's threads. OpenBLAS (0.3.21) threading a
// product itself rounds it differently at 1 and 2 threads on AMD Zen, so the
// BLAS is kept to one thread.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/CPUGemm.h"
#include "amp/Runtime/ParallelFor.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

#include <cblas.h>

namespace {

/// A panel holds at least this many rows (or columns) of C, and a product
/// has at most kMaxPanels: enough to keep 16 threads busy on large
/// products, few enough that re-packing the other operand per panel costs
/// little.
constexpr int64_t kPanelExtent = 256;
constexpr int64_t kMaxPanels = 16;
/// Panel bounds are multiples of this (OpenBLAS's widest register tile), so
/// that only the last panel has edge tiles.
constexpr int64_t kPanelAlign = 16;

struct Product {
  int transA, transB;
  int64_t m, n, k;
  float alpha;
  const float *a;
  int lda;
  const float *b;
  int ldb;
  float beta;
  float *c;
  int ldc;
  /// Whether the panels cut the rows of C (else its columns), and each
  /// panel's extent.
  bool byRows;
  int64_t panel;
};

/// Runs panels [lo, hi) of the product `context` points to.
void runPanels(void *context, int64_t lo, int64_t hi) {
  const Product &p = *static_cast<const Product *>(context);
  int64_t extent = p.byRows ? p.m : p.n;
  for (int64_t i = lo; i < hi; ++i) {
    int64_t begin = i * p.panel, size = std::min(p.panel, extent - begin);
    if (size <= 0)
      return;
    const float *a = p.a, *b = p.b;
    float *c = p.c;
    if (p.byRows) {
      // Rows of op(A): rows of A, or columns when A is stored transposed.
      a += p.transA == CblasNoTrans ? begin * p.lda : begin;
      c += begin * p.ldc;
    } else {
      b += p.transB == CblasNoTrans ? begin : begin * p.ldb;
      c += begin;
    }
    cblas_sgemm(CblasRowMajor, CBLAS_TRANSPOSE(p.transA),
                CBLAS_TRANSPOSE(p.transB), int(p.byRows ? size : p.m),
                int(p.byRows ? p.n : size), int(p.k), p.alpha, a, p.lda, b,
                p.ldb, p.beta, c, p.ldc);
  }
}

/// The panels of an m x n product: the larger dimension is cut (the other
/// operand is packed once per panel), into extents that depend on the
/// shape only.
void planPanels(Product &p) {
  p.byRows = p.m > p.n;
  int64_t extent = p.byRows ? p.m : p.n;
  int64_t count = std::clamp<int64_t>(extent / kPanelExtent, 1, kMaxPanels);
  int64_t panel = (extent + count - 1) / count;
  p.panel = (panel + kPanelAlign - 1) / kPanelAlign * kPanelAlign;
}

std::once_flag blasThreadsSet;

} // namespace

extern "C" void amp_cpu_sgemm(int order, int trans_a, int trans_b, int m, int n,
                              int k, float alpha, const float *a, int lda,
                              const float *b, int ldb, float beta, float *c,
                              int ldc) {
  std::call_once(blasThreadsSet, [] { openblas_set_num_threads(1); });
  (void)order; // row-major: the only order compiled steps use
  if (m <= 0 || n <= 0)
    return;
  Product p{trans_a, trans_b, m,    n, k,   alpha, a, lda,
            b,       ldb,     beta, c, ldc, false, 0};
  planPanels(p);
  int64_t panels = ((p.byRows ? p.m : p.n) + p.panel - 1) / p.panel;
  if (panels <= 1) {
    runPanels(&p, 0, 1);
    return;
  }
  amp_cpu_parallel_for(runPanels, &p, 0, panels);
}
