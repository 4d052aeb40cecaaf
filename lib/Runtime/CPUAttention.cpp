//===- CPUAttention.cpp - flash-style attention on the runtime's threads --===//
//
// amp_cpu_attention_fwd and amp_cpu_attention_bwd (Attention.h), after
// FlashAttention-2 (Dao 2023, Algorithms 1 and 2): keys are taken in tiles
// with an online softmax, so no buffer holds more than a tile of scores, and
// the backward recomputes the probabilities from the saved log-sum-exp.
//
// The forward's tasks are (batch, query head, query tile); the backward's
// are (batch, key-value head), each owning the dq rows of the query heads
// that read its key-value head and its own dk and dv (with fewer of those
// than threads: key tiles for dk and dv, then query tiles for dq). No two
// tasks write one element and no sum is split between tasks: with the tile
// sizes fixed by the shape, every result is computed by the same operations
// in the same order whatever the thread count. The tile products run on the
// calling thread: on CPUs with AVX-512 in a register-blocked loop of this
// file (gemmAVX512), elsewhere as single-threaded sgemm calls of the BLAS
// (as in CPUGemm.cpp). The elementwise softmax work is in loops written so
// the compiler vectorizes them. Operands and results are read and written
// through their layouts (Attention.h, "Layouts"): f32 rows in place, with
// the sequence stride as the products' leading dimension; f16/bf16 rows
// widened into the tiles (and rounded out of them) row by row.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/Attention.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Runtime/ParallelFor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include <cblas.h>

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Key rows per tile (both passes) and query rows per backward tile. The
/// forward's query tile depends on the length as in PyTorch's CPU flash
/// kernel (forwardQueryTile).
constexpr int64_t kForwardKeyTile = 512;
constexpr int64_t kBackwardQueryTile = 128;
constexpr int64_t kBackwardKeyTile = 128;

int64_t forwardQueryTile(int64_t seqQ) {
  if (seqQ >= 768)
    return 256;
  if (seqQ >= 192)
    return 64;
  return 32;
}

std::once_flag blasThreadsSet;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// The register block of gemmAVX512: 8 rows x 32 columns of C are 16 of
/// AVX-512's 32 vector registers (measured best of 4-16 x 16-64).
constexpr int64_t kBlockRows = 8, kBlockCols = 32;

/// C = alpha op(A) op(B) + beta C (beta 0 or 1; 0 does not read C), as
/// row-major cblas_sgemm. op(B) is copied once per call into zero-padded
/// panels of 32 columns, each k x 32 and contiguous (B's own rows would be
/// read with a stride that maps onto few cache sets); each 8 x 32 block of C
/// is then summed over k in registers, in the order of k, from elements of
/// op(A) broadcast where they are.
__attribute__((target("avx512f"))) void
gemmAVX512(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc) {
  thread_local std::vector<float> packed;
  int64_t panels = (n + kBlockCols - 1) / kBlockCols;
  packed.resize(size_t(panels * k * kBlockCols));
  for (int64_t j0 = 0; j0 < n; j0 += kBlockCols) {
    float *panel = packed.data() + j0 * k;
    int64_t cols = std::min(kBlockCols, n - j0);
    if (cols < kBlockCols)
      std::fill(panel, panel + k * kBlockCols, 0.0f);
    if (transB) {
      // Row j of B is column j of op(B): read along it, write down the panel.
      for (int64_t q = 0; q < cols; ++q)
        for (int64_t p = 0; p < k; ++p)
          panel[p * kBlockCols + q] = b[(j0 + q) * ldb + p];
    } else {
      for (int64_t p = 0; p < k; ++p)
        std::memcpy(panel + p * kBlockCols, b + p * ldb + j0,
                    size_t(cols) * sizeof(float));
    }
  }
  // op(A)[i][p] = a[i * aRow + p * aCol].
  int64_t aRow = transA ? 1 : lda, aCol = transA ? lda : 1;
  for (int64_t j0 = 0; j0 < n; j0 += kBlockCols) {
    int64_t cols = std::min(kBlockCols, n - j0);
    const float *panel = packed.data() + j0 * k;
    for (int64_t i0 = 0; i0 < m; i0 += kBlockRows) {
      int64_t rows = std::min(kBlockRows, m - i0);
      const float *aBlock = a + i0 * aRow;
      float acc[kBlockRows][kBlockCols] = {};
      if (rows == kBlockRows) {
        for (int64_t p = 0; p < k; ++p)
          for (int64_t r = 0; r < kBlockRows; ++r) {
            float av = aBlock[r * aRow + p * aCol];
            for (int64_t q = 0; q < kBlockCols; ++q)
              acc[r][q] += av * panel[p * kBlockCols + q];
          }
      } else {
        for (int64_t p = 0; p < k; ++p)
          for (int64_t r = 0; r < rows; ++r) {
            float av = aBlock[r * aRow + p * aCol];
            for (int64_t q = 0; q < kBlockCols; ++q)
              acc[r][q] += av * panel[p * kBlockCols + q];
          }
      }
      for (int64_t r = 0; r < rows; ++r) {
        float *row = c + (i0 + r) * ldc + j0;
        if (beta == 0.0f)
          for (int64_t q = 0; q < cols; ++q)
            row[q] = alpha * acc[r][q];
        else
          for (int64_t q = 0; q < cols; ++q)
            row[q] = alpha * acc[r][q] + beta * row[q];
      }
    }
  }
}

/// Whether the tile products use gemmAVX512 rather than the BLAS: on CPUs
/// with AVX-512. There it matches OpenBLAS's SkylakeX kernels at the
/// forward's shapes and reaches 60-80% of them at the backward's smaller
/// ones, while an OpenBLAS that does not know the CPU runs 4-5x slower
/// (0.3.21 takes an Emerald Rapids for a "Prescott" and uses SSE3 kernels).
/// A non-empty AMP_CPU_ATTENTION_BLAS other than "0" picks the BLAS (the
/// tests check both).
bool useAVX512Gemm() {
  static const bool use = [] {
    const char *blas = std::getenv("AMP_CPU_ATTENTION_BLAS");
    bool forceBlas = blas && *blas && std::strcmp(blas, "0") != 0;
    return !forceBlas && __builtin_cpu_supports("avx512f");
  }();
  return use;
}
#else
bool useAVX512Gemm() { return false; }
#endif

/// A tile product on the calling thread: gemmAVX512, or the BLAS with one
/// thread per call as amp_cpu_sgemm (the tasks are the threads).
void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (useAVX512Gemm())
    return gemmAVX512(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c,
                      ldc);
#endif
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
              transB ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha,
              a, int(std::max<int64_t>(lda, 1)), b,
              int(std::max<int64_t>(ldb, 1)), beta, c,
              int(std::max<int64_t>(ldc, 1)));
}

/// exp(x) for x <= 0 (the callers' arguments, up to rounding) within 1 ulp
/// (measured over [-87, 1]), 0 below -87.3 (and for -inf), in plain
/// arithmetic the compiler vectorizes (libm's expf is a call per element):
/// x = n ln2 + r, |r| <= ln2 / 2, exp(r) by Cephes' degree-6 polynomial.
/// Clamped above at 88 so that n fits the exponent field.
inline float expNonPositive(float x) {
  float clamped = std::min(std::max(x, -87.3f), 88.0f);
  // Round to nearest by the 1.5 * 2^23 trick (no rint call).
  float n = (clamped * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = clamped - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = (int32_t(n) + 127) << 23;
  float scaleBits;
  std::memcpy(&scaleBits, &bits, sizeof(scaleBits));
  return x < -87.3f ? 0.0f : p * scaleBits;
}

// The row loops below are compiled for AVX-512 and AVX2 besides the
// baseline (amp's build targets plain x86-64), picked once per process by
// the loader; each machine always runs the same clone.
#if defined(__x86_64__) && defined(__ELF__) &&                                 \
    (defined(__GNUC__) || defined(__clang__))
#define AMP_ROW_LOOP                                                           \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AMP_ROW_LOOP
#endif

/// Reductions run in a fixed order (16 interleaved lanes, then the lanes in
/// order), which the compiler vectorizes without reassociation flags.
constexpr int kLanes = 16;

AMP_ROW_LOOP float rowMax(const float *row, int64_t n) {
  float lanes[kLanes];
  std::fill(lanes, lanes + kLanes, -kInf);
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l)
      lanes[l] = std::max(lanes[l], row[j + l]);
  float m = -kInf;
  for (int l = 0; l < kLanes; ++l)
    m = std::max(m, lanes[l]);
  for (; j < n; ++j)
    m = std::max(m, row[j]);
  return m;
}

/// row[j] = exp(row[j] - shift) for shift >= every row[j] (or -inf values);
/// returns the sum of the results.
AMP_ROW_LOOP float expRow(float *row, int64_t n, float shift) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      float e = expNonPositive(row[j + l] - shift);
      row[j + l] = e;
      lanes[l] += e;
    }
  float s = 0;
  for (int l = 0; l < kLanes; ++l)
    s += lanes[l];
  for (; j < n; ++j) {
    row[j] = expNonPositive(row[j] - shift);
    s += row[j];
  }
  return s;
}

AMP_ROW_LOOP void multiplyRow(float *row, const float *factors, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    row[j] *= factors[j];
}

AMP_ROW_LOOP void scaleRow(float *row, int64_t n, float factor) {
  for (int64_t j = 0; j < n; ++j)
    row[j] *= factor;
}

/// ds = p * (dp * factors - rowDot) in place of dp (factors null: 1).
AMP_ROW_LOOP void scoreGradRow(float *dp, const float *p, const float *factors,
                               int64_t n, float rowDot) {
  if (factors) {
    for (int64_t j = 0; j < n; ++j)
      dp[j] = p[j] * (dp[j] * factors[j] - rowDot);
  } else {
    for (int64_t j = 0; j < n; ++j)
      dp[j] = p[j] * (dp[j] - rowDot);
  }
}

AMP_ROW_LOOP float dot(const float *a, const float *b, int64_t n) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l)
      lanes[l] += a[j + l] * b[j + l];
  float s = 0;
  for (int l = 0; l < kLanes; ++l)
    s += lanes[l];
  for (; j < n; ++j)
    s += a[j] * b[j];
  return s;
}

/// bf16 and f16 to f32 (exact), as amp::bfloat16ToFloat and
/// amp::halfToFloat, without branches.
AMP_ROW_LOOP void widenBFloat16(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = uint32_t(in[i]) << 16;
    std::memcpy(&out[i], &bits, sizeof(bits));
  }
}

AMP_ROW_LOOP void widenHalf(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t h = in[i];
    uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    // Zero and subnormals: mantissa * 2^-24; inf and NaN: all exponent ones.
    float tiny = float(int32_t(mantissa)) * 0x1.0p-24f;
    uint32_t tinyBits;
    std::memcpy(&tinyBits, &tiny, sizeof(tinyBits));
    uint32_t bits = ((exponent + 112u) << 23) | (mantissa << 13);
    bits = exponent == 0 ? tinyBits : bits;
    bits = exponent == 0x1fu ? 0x7f800000u | (mantissa << 13) : bits;
    bits |= sign;
    std::memcpy(&out[i], &bits, sizeof(bits));
  }
}

/// Converts `count` elements of a buffer of `dtype` from `offset` to f32.
void load(const void *src, int32_t dtype, int64_t offset, int64_t count,
          float *dst) {
  if (dtype == AMP_DTYPE_F32) {
    std::memcpy(dst, static_cast<const float *>(src) + offset,
                size_t(count) * sizeof(float));
    return;
  }
  const uint16_t *in = static_cast<const uint16_t *>(src) + offset;
  if (dtype == AMP_DTYPE_BF16)
    widenBFloat16(in, dst, count);
  else
    widenHalf(in, dst, count);
}

/// Rounds `count` f32 values to `dtype` into a buffer from `offset`.
void store(const float *src, int32_t dtype, int64_t offset, int64_t count,
           void *dst) {
  if (dtype == AMP_DTYPE_F32) {
    std::memcpy(static_cast<float *>(dst) + offset, src,
                size_t(count) * sizeof(float));
    return;
  }
  uint16_t *out = static_cast<uint16_t *>(dst) + offset;
  if (dtype == AMP_DTYPE_BF16) {
    for (int64_t i = 0; i < count; ++i)
      out[i] = amp::floatToBFloat16(src[i]);
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    out[i] = amp::floatToHalf(src[i]);
}

/// Rounds f32 values to bf16 in place, to nearest even as
/// amp::floatToBFloat16, in branch-free integer steps that vectorize.
AMP_ROW_LOOP void roundToBFloat16(float *values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof(bits));
    uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
    // A NaN stays (a quiet) NaN.
    rounded = (bits & 0x7fffffffu) > 0x7f800000u ? bits | 0x00400000u : rounded;
    std::memcpy(&values[i], &rounded, sizeof(rounded));
  }
}

/// Rounds f32 values to f16 in place (to nearest even, as amp::floatToHalf)
/// without branches: a normal half keeps 11 significant bits; below 2^-14
/// the step is 2^-24, which adding and taking away 0.5 rounds to; from 65520
/// on the result is infinite.
AMP_ROW_LOOP void roundToHalf(float *values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    float x = values[i];
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    uint32_t magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u;
    uint32_t normal =
        (magnitude + 0x0fffu + ((magnitude >> 13) & 1u)) & 0xffffe000u;
    float tiny = (std::fabs(x) + 0.5f) - 0.5f;
    uint32_t tinyBits;
    std::memcpy(&tinyBits, &tiny, sizeof(tinyBits));
    uint32_t rounded = magnitude < 0x38800000u ? tinyBits : normal;
    rounded = magnitude >= 0x477ff000u ? 0x7f800000u : rounded;
    rounded = magnitude > 0x7f800000u ? magnitude | 0x00400000u : rounded;
    rounded |= sign;
    std::memcpy(&values[i], &rounded, sizeof(rounded));
  }
}

/// Rounds f32 values to `dtype` in place (the f16/bf16 probabilities).
void roundInPlace(float *values, int64_t count, int32_t dtype) {
  if (dtype == AMP_DTYPE_BF16)
    roundToBFloat16(values, count);
  else if (dtype == AMP_DTYPE_F16)
    roundToHalf(values, count);
}

/// Where a tensor argument's elements are (Attention.h, "Layouts").
struct Layout {
  int64_t offset, batch, head, seq;
  /// The element offset of row i of head h of batch b.
  int64_t row(int64_t b, int64_t h, int64_t i) const {
    return offset + b * batch + h * head + i * seq;
  }
};

/// Rows i0.. of (b, h), `width` elements each, widened to dense f32 `dst`.
void loadRows(const void *src, int32_t dtype, const Layout &l, int64_t b,
              int64_t h, int64_t i0, int64_t rows, int64_t width, float *dst) {
  if (l.seq == width) {
    load(src, dtype, l.row(b, h, i0), rows * width, dst);
    return;
  }
  for (int64_t r = 0; r < rows; ++r)
    load(src, dtype, l.row(b, h, i0 + r), width, dst + r * width);
}

/// Dense f32 rows rounded into rows i0.. of (b, h).
void storeRows(const float *src, int32_t dtype, const Layout &l, int64_t b,
               int64_t h, int64_t i0, int64_t rows, int64_t width, void *dst) {
  if (l.seq == width) {
    store(src, dtype, l.row(b, h, i0), rows * width, dst);
    return;
  }
  for (int64_t r = 0; r < rows; ++r)
    store(src + r * width, dtype, l.row(b, h, i0 + r), width, dst);
}

/// f32 rows of several heads: element (head g, row i, e) at
/// data[g * head + i * seq + e]. Either a task's dense f32 copy or, for f32
/// operands, the argument itself.
struct Rows {
  const float *data;
  int64_t head, seq;
  const float *at(int64_t g, int64_t i) const {
    return data + g * head + i * seq;
  }
};

/// The arguments both passes share, checked.
struct Problem {
  int32_t dtype;
  int64_t batch, headsQ, headsKV, seqQ, seqKV, headDim, headDimV;
  int32_t maskKind;
  const void *mask;
  int64_t maskBatch, maskHeads;
  float scale;
  bool causal;
  float dropout;
  uint64_t seed;
  /// Dropout keeps an element when its draw is at least this, and
  /// multiplies it by keepScale.
  uint64_t threshold;
  float keepScale;

  int64_t group() const { return headsQ / headsKV; }

  /// The element offset of (b, h, i, 0) in the mask, with broadcasting.
  int64_t maskRow(int64_t b, int64_t h, int64_t i) const {
    int64_t mb = maskBatch == 1 ? 0 : b, mh = maskHeads == 1 ? 0 : h;
    return ((mb * maskHeads + mh) * seqQ + i) * seqKV;
  }

  /// Applies the mask and the causal rule to scores s[r][c] of queries
  /// i0 + r and keys j0 + c (row stride ld).
  void maskScores(int64_t b, int64_t h, int64_t i0, int64_t rows, int64_t j0,
                  int64_t cols, float *s, int64_t ld) const {
    for (int64_t r = 0; r < rows; ++r) {
      float *row = s + r * ld;
      int64_t i = i0 + r;
      if (maskKind == AMP_ATTENTION_MASK_ADD) {
        const float *add = static_cast<const float *>(mask) + maskRow(b, h, i);
        for (int64_t c = 0; c < cols; ++c)
          row[c] += add[j0 + c];
      } else if (maskKind == AMP_ATTENTION_MASK_KEEP) {
        const uint8_t *keep =
            static_cast<const uint8_t *>(mask) + maskRow(b, h, i);
        for (int64_t c = 0; c < cols; ++c)
          row[c] = keep[j0 + c] ? row[c] : -kInf;
      }
      // Keys j > i are hidden: columns from i + 1 - j0 on.
      if (causal)
        for (int64_t c = std::max<int64_t>(i + 1 - j0, 0); c < cols; ++c)
          row[c] = -kInf;
    }
  }

  /// The dropout factors of queries i0 + r and keys j0 + c of (b, h): the
  /// keep scale where amp.dropout's stream keeps the element, else 0.
  void dropoutFactors(int64_t b, int64_t h, int64_t i0, int64_t rows,
                      int64_t j0, int64_t cols, float *z, int64_t ld) const {
    for (int64_t r = 0; r < rows; ++r) {
      uint64_t base = uint64_t(((b * headsQ + h) * seqQ + i0 + r) * seqKV + j0);
      float *row = z + r * ld;
      for (int64_t c = 0; c < cols; ++c) {
        // SplitMix64 at linear index base + c (counter index + 1).
        uint64_t x = seed + (base + uint64_t(c) + 1) * 0x9E3779B97F4A7C15ULL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        x = x ^ (x >> 31);
        row[c] = (x >> 11) >= threshold ? keepScale : 0.0f;
      }
    }
  }
};

/// Checks the arguments; a violation is a compiler bug, reported and fatal
/// (there is no error channel, and going on would write wrong results).
Problem makeProblem(const char *function, int32_t dtype, int64_t batch,
                    int64_t headsQ, int64_t headsKV, int64_t seqQ,
                    int64_t seqKV, int64_t headDim, int64_t headDimV,
                    int32_t maskKind, const void *mask, int64_t maskBatch,
                    int64_t maskHeads, float scale, int32_t causal,
                    float dropout, int64_t seed) {
  const char *error = nullptr;
  if (dtype != AMP_DTYPE_F32 && dtype != AMP_DTYPE_F16 &&
      dtype != AMP_DTYPE_BF16)
    error = "dtype is not f32, f16 or bf16";
  else if (batch < 0 || seqQ < 0 || seqKV < 0 || headDim < 0 || headDimV < 0)
    error = "a size is negative";
  else if (headsKV <= 0 || headsQ <= 0 || headsQ % headsKV != 0)
    error = "heads_q is not a positive multiple of heads_kv";
  else if (maskKind != AMP_ATTENTION_MASK_NONE &&
           maskKind != AMP_ATTENTION_MASK_KEEP &&
           maskKind != AMP_ATTENTION_MASK_ADD)
    error = "mask_kind is not an amp_attention_mask";
  else if (maskKind != AMP_ATTENTION_MASK_NONE &&
           ((maskBatch != 1 && maskBatch != batch) ||
            (maskHeads != 1 && maskHeads != headsQ) || !mask))
    error = "the mask's batch or heads is neither 1 nor the operands'";
  else if (!(dropout >= 0.0f && dropout < 1.0f))
    error = "dropout is not in [0, 1)";
  if (error) {
    std::fprintf(stderr, "amp: %s: %s\n", function, error);
    std::abort();
  }
  std::call_once(blasThreadsSet, [] { openblas_set_num_threads(1); });
  Problem p{dtype,          batch,     headsQ,   headsKV,     seqQ,
            seqKV,          headDim,   headDimV, maskKind,    mask,
            maskBatch,      maskHeads, scale,    causal != 0, dropout,
            uint64_t(seed), 0,         1.0f};
  if (dropout > 0.0f) {
    double probability = dropout;
    p.threshold = uint64_t(std::ceil(std::ldexp(probability, 53)));
    p.keepScale = float(1.0 / (1.0 - probability));
  }
  return p;
}

/// Tile `position` of `tiles` in the order tasks take them: under a causal
/// mask tiles cost more (queries) or less (keys) the later they are, so
/// first and last remaining tiles alternate, and every contiguous range of
/// tasks (one per thread) gets a similar share of the work.
int64_t balancedTile(bool causal, int64_t position, int64_t tiles) {
  if (!causal)
    return position;
  return position % 2 == 0 ? position / 2 : tiles - 1 - position / 2;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// One tensor argument's layout as the caller gave it, and its row width:
/// the f32 path reads rows with stride_seq as the BLAS leading dimension,
/// which may not be less than the width.
struct LayoutArg {
  const char *name;
  Layout layout;
  int64_t width;
};

/// Checks the layouts like makeProblem checks the rest.
void checkLayouts(const char *function,
                  std::initializer_list<LayoutArg> layouts) {
  for (const LayoutArg &a : layouts) {
    const Layout &l = a.layout;
    const char *error = nullptr;
    if (l.offset < 0 || l.batch < 0 || l.head < 0 || l.seq < 0)
      error = "an offset or stride is negative";
    else if (l.seq < a.width)
      error = "stride_seq is less than the head dimension (rows overlap)";
    if (error) {
      std::fprintf(stderr, "amp: %s: %s: %s\n", function, a.name, error);
      std::abort();
    }
  }
}

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

struct Forward {
  Problem p;
  const void *q, *k, *v;
  void *out;
  float *lse;
  Layout lq, lk, lv, lo;
  int64_t queryTile, queryTiles;
};

void forwardTasks(void *context, int64_t lo, int64_t hi) {
  const Forward &f = *static_cast<const Forward *>(context);
  const Problem &p = f.p;
  const int64_t d = p.headDim, dv = p.headDimV, br = f.queryTile;
  const int64_t bc = kForwardKeyTile;
  const bool f32 = p.dtype == AMP_DTYPE_F32;
  std::vector<float> qTile(f32 ? 0 : br * d), kTile(f32 ? 0 : bc * d),
      vTile(f32 ? 0 : bc * dv), scores(br * bc), acc(br * dv), rowMaxes(br),
      rowSums(br), factors(p.dropout > 0 ? br * bc : 0), rowOut(dv);
  // f32 operands are read in place, with their row strides as the products'
  // leading dimensions; f16/bf16 ones are widened into dense tiles.
  const int64_t ldq = f32 ? f.lq.seq : d, ldk = f32 ? f.lk.seq : d,
                ldv = f32 ? f.lv.seq : dv;
  for (int64_t task = lo; task < hi; ++task) {
    int64_t bh = task / f.queryTiles, b = bh / p.headsQ, h = bh % p.headsQ;
    int64_t hk = h / p.group();
    int64_t i0 = balancedTile(p.causal, task % f.queryTiles, f.queryTiles) * br;
    int64_t rows = std::min(br, p.seqQ - i0);
    const float *qs = f32 ? static_cast<const float *>(f.q) + f.lq.row(b, h, i0)
                          : qTile.data();
    if (!f32)
      loadRows(f.q, p.dtype, f.lq, b, h, i0, rows, d, qTile.data());
    std::fill(acc.begin(), acc.end(), 0.0f);
    std::fill(rowMaxes.begin(), rowMaxes.end(), -kInf);
    std::fill(rowSums.begin(), rowSums.end(), 0.0f);
    // Causal: keys past the tile's last query are hidden from all its rows.
    int64_t keyEnd = p.causal ? std::min(p.seqKV, i0 + rows) : p.seqKV;
    for (int64_t j0 = 0; j0 < keyEnd; j0 += bc) {
      int64_t cols = std::min(bc, keyEnd - j0);
      const float *ks =
          f32 ? static_cast<const float *>(f.k) + f.lk.row(b, hk, j0)
              : kTile.data();
      const float *vs =
          f32 ? static_cast<const float *>(f.v) + f.lv.row(b, hk, j0)
              : vTile.data();
      if (!f32) {
        loadRows(f.k, p.dtype, f.lk, b, hk, j0, cols, d, kTile.data());
        loadRows(f.v, p.dtype, f.lv, b, hk, j0, cols, dv, vTile.data());
      }
      sgemm(false, true, rows, cols, d, p.scale, qs, ldq, ks, ldk, 0.0f,
            scores.data(), bc);
      p.maskScores(b, h, i0, rows, j0, cols, scores.data(), bc);
      if (p.dropout > 0)
        p.dropoutFactors(b, h, i0, rows, j0, cols, factors.data(), bc);
      for (int64_t r = 0; r < rows; ++r) {
        float *row = scores.data() + r * bc;
        float newMax = std::max(rowMaxes[r], rowMax(row, cols));
        if (newMax == -kInf) {
          // Every key so far hidden: nothing to add.
          std::fill(row, row + cols, 0.0f);
          continue;
        }
        float correction = expNonPositive(rowMaxes[r] - newMax);
        rowSums[r] = rowSums[r] * correction + expRow(row, cols, newMax);
        rowMaxes[r] = newMax;
        if (correction != 1.0f)
          scaleRow(acc.data() + r * dv, dv, correction);
        if (p.dropout > 0)
          multiplyRow(row, factors.data() + r * bc, cols);
        roundInPlace(row, cols, p.dtype);
      }
      sgemm(false, false, rows, dv, cols, 1.0f, scores.data(), bc, vs, ldv,
            1.0f, acc.data(), dv);
    }
    for (int64_t r = 0; r < rows; ++r) {
      int64_t row = bh * p.seqQ + i0 + r;
      if (rowSums[r] == 0.0f) {
        std::fill(rowOut.begin(), rowOut.end(), 0.0f);
        f.lse[row] = -kInf;
      } else {
        for (int64_t c = 0; c < dv; ++c)
          rowOut[c] = acc[r * dv + c] / rowSums[r];
        f.lse[row] = rowMaxes[r] + std::log(rowSums[r]);
      }
      store(rowOut.data(), p.dtype, f.lo.row(b, h, i0 + r), dv, f.out);
    }
  }
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

struct Backward {
  Problem p;
  const void *q, *k, *v, *out, *dout;
  const float *lse;
  void *dq, *dk, *dv;
  Layout lq, lk, lv, lo, ldo, ldq, ldk, ldv;
  /// Whether dq is left to dqTasks (see amp_cpu_attention_bwd), and the
  /// key and query tiles per head.
  bool splitDq;
  int64_t keyTiles, queryTiles;
};

/// The scratch tiles of the backward.
struct BackwardTile {
  explicit BackwardTile(const Problem &p)
      : probs(kBackwardQueryTile * kBackwardKeyTile),
        grads(kBackwardQueryTile * kBackwardKeyTile),
        dropped(p.dropout > 0 ? kBackwardQueryTile * kBackwardKeyTile : 0),
        factors(p.dropout > 0 ? kBackwardQueryTile * kBackwardKeyTile : 0) {}
  /// p, ds, dropped(p) and the dropout factors, row stride
  /// kBackwardKeyTile.
  std::vector<float> probs, grads, dropped, factors;
};

/// The f32 rows of one tile's operands: queries and their output
/// gradients, keys and values, each with its row stride.
struct TileOperands {
  const float *q, *dout, *k, *v;
  int64_t ldq, lddo, ldk, ldv;
};

/// The tile of queries i0.. (rows; their lse and D) of (b, h) against keys
/// j0.. (cols): p in t.probs and ds in t.grads; returns dropped(p), dv's
/// operand. Every caller computes a tile with these same calls, so dq, dk
/// and dv get the same bits whichever task computes them.
const float *backwardTile(const Problem &p, BackwardTile &t, int64_t b,
                          int64_t h, int64_t i0, int64_t rows, int64_t j0,
                          int64_t cols, const TileOperands &o, const float *lse,
                          const float *rowDots) {
  const int64_t d = p.headDim, dv = p.headDimV, bc = kBackwardKeyTile;
  sgemm(false, true, rows, cols, d, p.scale, o.q, o.ldq, o.k, o.ldk, 0.0f,
        t.probs.data(), bc);
  p.maskScores(b, h, i0, rows, j0, cols, t.probs.data(), bc);
  for (int64_t r = 0; r < rows; ++r) {
    float *row = t.probs.data() + r * bc;
    if (lse[r] == -kInf) // every key hidden: no gradient
      std::fill(row, row + cols, 0.0f);
    else
      expRow(row, cols, lse[r]);
  }
  const float *pv = t.probs.data();
  if (p.dropout > 0) {
    p.dropoutFactors(b, h, i0, rows, j0, cols, t.factors.data(), bc);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        t.dropped[r * bc + c] = t.probs[r * bc + c] * t.factors[r * bc + c];
    pv = t.dropped.data();
  }
  // dp = dout_i v_j^T, then ds = p * (dropped'(dp) - D) in its place.
  sgemm(false, true, rows, cols, dv, 1.0f, o.dout, o.lddo, o.v, o.ldv, 0.0f,
        t.grads.data(), bc);
  for (int64_t r = 0; r < rows; ++r)
    scoreGradRow(t.grads.data() + r * bc, t.probs.data() + r * bc,
                 p.dropout > 0 ? t.factors.data() + r * bc : nullptr, cols,
                 rowDots[r]);
  return pv;
}

/// D[i] = dout[i] . out[i] (from the stored, rounded out) of rows i0..
/// (rows) of (b, h), dout given in f32 as `dos` (row stride ld).
void rowDotsOf(const Backward &w, int64_t b, int64_t h, int64_t i0,
               int64_t rows, const float *dos, int64_t ld, float *dots,
               std::vector<float> &outRow) {
  const int64_t dv = w.p.headDimV;
  for (int64_t i = 0; i < rows; ++i) {
    load(w.out, w.p.dtype, w.lo.row(b, h, i0 + i), dv, outRow.data());
    dots[i] = dot(dos + i * ld, outRow.data(), dv);
  }
}

/// Task (b, hk), or (b, hk, key tile) when w.splitDq: dk and dv of those
/// keys of key-value head hk, and (unless split) dq of its query heads.
void keyValueTasks(void *context, int64_t lo, int64_t hi) {
  const Backward &w = *static_cast<const Backward *>(context);
  const Problem &p = w.p;
  const int64_t d = p.headDim, dv = p.headDimV, g = p.group();
  const int64_t br = kBackwardQueryTile, bc = kBackwardKeyTile;
  const int64_t sq = p.seqQ, skv = p.seqKV;
  const bool f32 = p.dtype == AMP_DTYPE_F32;
  // f32 copies of the task's operands when they are f16/bf16 (O(seq x
  // head_dim) each), the dq accumulators, and tiles.
  std::vector<float> qAll(f32 ? 0 : g * sq * d), doAll(f32 ? 0 : g * sq * dv),
      kAll(f32 ? 0 : skv * d), vAll(f32 ? 0 : skv * dv),
      dqAll(f32 || w.splitDq ? 0 : g * sq * d), rowDots(g * sq), dkTile(bc * d),
      dvTile(bc * dv), outRow(dv);
  BackwardTile t(p);
  for (int64_t task = lo; task < hi; ++task) {
    int64_t head = w.splitDq ? task / w.keyTiles : task;
    int64_t b = head / p.headsKV, hk = head % p.headsKV;
    int64_t firstKey =
        w.splitDq ? balancedTile(p.causal, task % w.keyTiles, w.keyTiles) * bc
                  : 0;
    int64_t lastKey = w.splitDq ? std::min(skv, firstKey + bc) : skv;
    int64_t h0 = hk * g; // the first query head of the group
    int64_t lseBase = (b * p.headsQ + h0) * sq; // rows of lse
    Rows qs{qAll.data(), sq * d, d}, dos{doAll.data(), sq * dv, dv},
        ks{kAll.data(), 0, d}, vs{vAll.data(), 0, dv};
    float *dqs = dqAll.data();
    int64_t dqHead = sq * d, dqSeq = d;
    if (f32) {
      qs = {static_cast<const float *>(w.q) + w.lq.row(b, h0, 0), w.lq.head,
            w.lq.seq};
      dos = {static_cast<const float *>(w.dout) + w.ldo.row(b, h0, 0),
             w.ldo.head, w.ldo.seq};
      ks = {static_cast<const float *>(w.k) + w.lk.row(b, hk, 0), 0, w.lk.seq};
      vs = {static_cast<const float *>(w.v) + w.lv.row(b, hk, 0), 0, w.lv.seq};
      dqs = static_cast<float *>(w.dq) + w.ldq.row(b, h0, 0);
      dqHead = w.ldq.head;
      dqSeq = w.ldq.seq;
    } else {
      for (int64_t gi = 0; gi < g; ++gi) {
        loadRows(w.q, p.dtype, w.lq, b, h0 + gi, 0, sq, d,
                 qAll.data() + gi * sq * d);
        loadRows(w.dout, p.dtype, w.ldo, b, h0 + gi, 0, sq, dv,
                 doAll.data() + gi * sq * dv);
      }
      loadRows(w.k, p.dtype, w.lk, b, hk, 0, skv, d, kAll.data());
      loadRows(w.v, p.dtype, w.lv, b, hk, 0, skv, dv, vAll.data());
    }
    if (!w.splitDq)
      for (int64_t gi = 0; gi < g; ++gi)
        for (int64_t i = 0; i < sq; ++i)
          std::fill_n(dqs + gi * dqHead + i * dqSeq, d, 0.0f);
    for (int64_t gi = 0; gi < g; ++gi)
      rowDotsOf(w, b, h0 + gi, 0, sq, dos.at(gi, 0), dos.seq,
                rowDots.data() + gi * sq, outRow);
    for (int64_t j0 = firstKey; j0 < lastKey; j0 += bc) {
      int64_t cols = std::min(bc, lastKey - j0);
      std::fill(dkTile.begin(), dkTile.end(), 0.0f);
      std::fill(dvTile.begin(), dvTile.end(), 0.0f);
      // Causal: queries before j0 see none of these keys.
      int64_t firstTile = p.causal ? std::min(j0, sq) / br * br : 0;
      for (int64_t gi = 0; gi < g; ++gi) {
        for (int64_t i0 = firstTile; i0 < sq; i0 += br) {
          int64_t rows = std::min(br, sq - i0);
          int64_t qRow = gi * sq + i0; // row of lse and D within the task
          TileOperands o{qs.at(gi, i0), dos.at(gi, i0), ks.at(0, j0),
                         vs.at(0, j0),  qs.seq,         dos.seq,
                         ks.seq,        vs.seq};
          const float *pv =
              backwardTile(p, t, b, h0 + gi, i0, rows, j0, cols, o,
                           w.lse + lseBase + qRow, rowDots.data() + qRow);
          // dv_j += dropped(p)^T dout_i ; dk_j += scale ds^T q_i ;
          // dq_i += scale ds k_j.
          sgemm(true, false, cols, dv, rows, 1.0f, pv, bc, o.dout, o.lddo, 1.0f,
                dvTile.data(), dv);
          sgemm(true, false, cols, d, rows, p.scale, t.grads.data(), bc, o.q,
                o.ldq, 1.0f, dkTile.data(), d);
          if (!w.splitDq)
            sgemm(false, false, rows, d, cols, p.scale, t.grads.data(), bc, o.k,
                  o.ldk, 1.0f, dqs + gi * dqHead + i0 * dqSeq, dqSeq);
        }
      }
      storeRows(dkTile.data(), p.dtype, w.ldk, b, hk, j0, cols, d, w.dk);
      storeRows(dvTile.data(), p.dtype, w.ldv, b, hk, j0, cols, dv, w.dv);
    }
    if (!f32 && !w.splitDq)
      for (int64_t gi = 0; gi < g; ++gi)
        storeRows(dqAll.data() + gi * sq * d, p.dtype, w.ldq, b, h0 + gi, 0, sq,
                  d, w.dq);
  }
}

/// Task (b, h, query tile) when w.splitDq: dq of those queries, summed over
/// the key tiles in keyValueTasks' order with the same calls.
void dqTasks(void *context, int64_t lo, int64_t hi) {
  const Backward &w = *static_cast<const Backward *>(context);
  const Problem &p = w.p;
  const int64_t d = p.headDim, dv = p.headDimV;
  const int64_t br = kBackwardQueryTile, bc = kBackwardKeyTile;
  const bool f32 = p.dtype == AMP_DTYPE_F32;
  std::vector<float> qTile(f32 ? 0 : br * d), doTile(f32 ? 0 : br * dv),
      kTile(f32 ? 0 : bc * d), vTile(f32 ? 0 : bc * dv), dqTile(br * d),
      rowDots(br), outRow(dv);
  BackwardTile t(p);
  for (int64_t task = lo; task < hi; ++task) {
    int64_t bh = task / w.queryTiles, b = bh / p.headsQ, h = bh % p.headsQ;
    int64_t hk = h / p.group();
    int64_t i0 = balancedTile(p.causal, task % w.queryTiles, w.queryTiles) * br;
    int64_t rows = std::min(br, p.seqQ - i0);
    int64_t lseRow = bh * p.seqQ + i0;
    TileOperands o{
        qTile.data(), doTile.data(), kTile.data(), vTile.data(), d, dv, d, dv};
    if (f32) {
      o.q = static_cast<const float *>(w.q) + w.lq.row(b, h, i0);
      o.dout = static_cast<const float *>(w.dout) + w.ldo.row(b, h, i0);
      o.ldq = w.lq.seq;
      o.lddo = w.ldo.seq;
      o.ldk = w.lk.seq;
      o.ldv = w.lv.seq;
    } else {
      loadRows(w.q, p.dtype, w.lq, b, h, i0, rows, d, qTile.data());
      loadRows(w.dout, p.dtype, w.ldo, b, h, i0, rows, dv, doTile.data());
    }
    rowDotsOf(w, b, h, i0, rows, o.dout, o.lddo, rowDots.data(), outRow);
    std::fill(dqTile.begin(), dqTile.end(), 0.0f);
    // Causal: keys past the tile's last query are hidden from all its rows.
    int64_t keyEnd = p.causal ? std::min(p.seqKV, i0 + rows) : p.seqKV;
    for (int64_t j0 = 0; j0 < keyEnd; j0 += bc) {
      int64_t cols = std::min(bc, p.seqKV - j0);
      if (f32) {
        o.k = static_cast<const float *>(w.k) + w.lk.row(b, hk, j0);
        o.v = static_cast<const float *>(w.v) + w.lv.row(b, hk, j0);
      } else {
        loadRows(w.k, p.dtype, w.lk, b, hk, j0, cols, d, kTile.data());
        loadRows(w.v, p.dtype, w.lv, b, hk, j0, cols, dv, vTile.data());
      }
      backwardTile(p, t, b, h, i0, rows, j0, cols, o, w.lse + lseRow,
                   rowDots.data());
      sgemm(false, false, rows, d, cols, p.scale, t.grads.data(), bc, o.k,
            o.ldk, 1.0f, dqTile.data(), d);
    }
    storeRows(dqTile.data(), p.dtype, w.ldq, b, h, i0, rows, d, w.dq);
  }
}

} // namespace

#define AMP_LAYOUT_OF(name)                                                    \
  Layout {                                                                     \
    name##_offset, name##_stride_batch, name##_stride_head, name##_stride_seq  \
  }

extern "C" void amp_cpu_attention_fwd(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, int32_t mask_kind,
    const void *mask, int64_t mask_batch, int64_t mask_heads, float scale,
    int32_t causal, float dropout, int64_t seed, void *out, float *lse,
    AMP_ATTENTION_LAYOUT(q), AMP_ATTENTION_LAYOUT(k), AMP_ATTENTION_LAYOUT(v),
    AMP_ATTENTION_LAYOUT(out)) {
  const char *name = "amp_cpu_attention_fwd";
  Forward f{makeProblem(name, dtype, batch, heads_q, heads_kv, seq_q, seq_kv,
                        head_dim, head_dim_v, mask_kind, mask, mask_batch,
                        mask_heads, scale, causal, dropout, seed),
            q,
            k,
            v,
            out,
            lse,
            AMP_LAYOUT_OF(q),
            AMP_LAYOUT_OF(k),
            AMP_LAYOUT_OF(v),
            AMP_LAYOUT_OF(out),
            forwardQueryTile(seq_q),
            0};
  checkLayouts(name, {{"q", f.lq, head_dim},
                      {"k", f.lk, head_dim},
                      {"v", f.lv, head_dim_v},
                      {"out", f.lo, head_dim_v}});
  f.queryTiles = (seq_q + f.queryTile - 1) / f.queryTile;
  int64_t tasks = batch * heads_q * f.queryTiles;
  if (tasks > 0)
    amp_cpu_parallel_for(forwardTasks, &f, 0, tasks);
}

extern "C" void amp_cpu_attention_bwd(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, const void *out,
    const void *dout, const float *lse, int32_t mask_kind, const void *mask,
    int64_t mask_batch, int64_t mask_heads, float scale, int32_t causal,
    float dropout, int64_t seed, void *dq, void *dk, void *dv,
    AMP_ATTENTION_LAYOUT(q), AMP_ATTENTION_LAYOUT(k), AMP_ATTENTION_LAYOUT(v),
    AMP_ATTENTION_LAYOUT(out), AMP_ATTENTION_LAYOUT(dout),
    AMP_ATTENTION_LAYOUT(dq), AMP_ATTENTION_LAYOUT(dk),
    AMP_ATTENTION_LAYOUT(dv)) {
  const char *name = "amp_cpu_attention_bwd";
  Backward w{makeProblem(name, dtype, batch, heads_q, heads_kv, seq_q, seq_kv,
                         head_dim, head_dim_v, mask_kind, mask, mask_batch,
                         mask_heads, scale, causal, dropout, seed),
             q,
             k,
             v,
             out,
             dout,
             lse,
             dq,
             dk,
             dv,
             AMP_LAYOUT_OF(q),
             AMP_LAYOUT_OF(k),
             AMP_LAYOUT_OF(v),
             AMP_LAYOUT_OF(out),
             AMP_LAYOUT_OF(dout),
             AMP_LAYOUT_OF(dq),
             AMP_LAYOUT_OF(dk),
             AMP_LAYOUT_OF(dv),
             false,
             (seq_kv + kBackwardKeyTile - 1) / kBackwardKeyTile,
             (seq_q + kBackwardQueryTile - 1) / kBackwardQueryTile};
  checkLayouts(name, {{"q", w.lq, head_dim},
                      {"k", w.lk, head_dim},
                      {"v", w.lv, head_dim_v},
                      {"out", w.lo, head_dim_v},
                      {"dout", w.ldo, head_dim_v},
                      {"dq", w.ldq, head_dim},
                      {"dk", w.ldk, head_dim},
                      {"dv", w.ldv, head_dim_v}});
  // One task per (batch, key-value head) computes everything with the
  // fewest products. With fewer of those than threads, dk and dv are
  // computed per key tile and dq per query tile in a second loop (the
  // probabilities computed twice): the same calls on the same tiles, so the
  // same bits either way.
  int64_t heads = batch * heads_kv;
  w.splitDq = heads < amp_get_num_threads() && w.keyTiles > 1;
  if (!w.splitDq) {
    if (heads > 0)
      amp_cpu_parallel_for(keyValueTasks, &w, 0, heads);
    return;
  }
  amp_cpu_parallel_for(keyValueTasks, &w, 0, heads * w.keyTiles);
  amp_cpu_parallel_for(dqTasks, &w, 0, batch * heads_q * w.queryTiles);
}
