//===- Lt.cpp - the cuBLASLt subset: GEMMs on the CPU ---------------------===//
//
// The functions lib/Runtime/CUDAGemm.cpp resolves from libcublasLt.so.13.
// cublasLtMatmul computes D = alpha op(A) op(B) + beta C exactly as cuBLASLt
// defines it: column-major layouts with leading dimensions, transposes,
// strided batches, f32/f16/bf16 operands with f32 accumulation and f32
// alpha/beta, the TF32 compute mode (f32 inputs rounded to TF32), the
// BIAS and BGRADB epilogues (f32 or D-typed vector) and the GELU ones
// (GELU_AUX_BIAS, GELU_AUX, DGELU: GELU's tanh form, its input kept in an
// aux matrix with cuBLASLt's leading-dimension rules). A
// layout or transpose that lib/Runtime gets wrong gives a wrong result, or,
// when it reaches outside an operand's allocation, an error naming it.
//
// FP8 GEMMs (f8E4M3FN/f8E5M2 A and B, a bf16, f16 or f32 D): the A and B
// scale pointers (f32, read when the GEMM runs), the fast-accumulation flag
// (computed as plain f32 accumulation: the emulated result is the accurate
// one, which cuBLASLt's fast mode approximates), the BIAS epilogue with
// the bias type of cuBLASLt's FP8 table. Each D[i][j] is
//   (((sum over l = 0, 1, ..., k-1 of A'[i][l] * B'[l][j]) * (scaleA *
//   scaleB)) * alpha + beta * C[i][j]) + bias[i]
// in f32, in that order (products exact, the sum from 0 upwards), rounded
// once to D's type: with alpha 1 and beta 0, amp.fp8_matmul's semantics.
// What cuBLASLt refuses (amp/Runtime/CublasLtFp8Rules.h on this device's
// sm_90: types, the TN layout, sizes and leading dimensions, alignment, the
// bias type, amax of a non-FP8 D, a compute type other than 32F) is
// refused when the algorithm is chosen and by the matmul.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Export.h"

#include "amp/Runtime/CublasLtFp8Rules.h"
#include "amp/Runtime/Numerics.h"

#include <cublasLt.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace amp::emulator;

struct cublasLtContext {
  int unused;
};

namespace {

struct MatmulDesc {
  cublasComputeType_t compute;
  cudaDataType_t scale;
  cublasOperation_t transA = CUBLAS_OP_N, transB = CUBLAS_OP_N;
  /// DEFAULT, BIAS (bias[i] added to row i of D) or BGRADB (bias[j] = the
  /// sum of column j of op(B)); the vector is f32 or D's type.
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  void *bias = nullptr;
  cudaDataType_t biasType = CUDA_R_32F;
  bool biasTypeSet = false;
  /// The GELU epilogues' input matrix (written by GELU_AUX[_BIAS], read by
  /// DGELU): column-major like D, of D's type unless set otherwise.
  void *aux = nullptr;
  int64_t auxLd = 0, auxStride = 0;
  int32_t auxType = -1;
  /// FP8 GEMMs: the operands' f32 scale (device pointers, null for 1), the
  /// amax of D asked for (refused: D is never FP8 here) and fast
  /// accumulation (computed as plain f32 accumulation).
  const void *scaleA = nullptr, *scaleB = nullptr;
  void *amaxD = nullptr;
  int8_t fastAccum = 0;
};

struct Layout {
  cudaDataType_t type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch = 1;
  int64_t stride = 0;
};

struct Preference {
  int unused;
};

static_assert(sizeof(MatmulDesc) <= sizeof(cublasLtMatmulDescOpaque_t), "");
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "");

MatmulDesc *asDesc(cublasLtMatmulDesc_t d) {
  return reinterpret_cast<MatmulDesc *>(d);
}
Layout *asLayout(cublasLtMatrixLayout_t l) {
  return reinterpret_cast<Layout *>(l);
}

cublasStatus_t fail(cublasStatus_t status, const std::string &detail) {
  return cublasStatus_t(setDetail(true, status, detail));
}

cublasStatus_t notSupported(const std::string &what) {
  return fail(CUBLAS_STATUS_NOT_SUPPORTED,
              what + " is not supported by the emulated device");
}

template <typename T>
cublasStatus_t readValue(const void *buffer, size_t bytes, T &value) {
  if (!buffer || bytes != sizeof(T))
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "attribute value of " + std::to_string(bytes) +
                    " bytes, expected " + std::to_string(sizeof(T)));
  std::memcpy(&value, buffer, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

bool isFp8(cudaDataType_t type) {
  return type == CUDA_R_8F_E4M3 || type == CUDA_R_8F_E5M2;
}

size_t typeBytes(cudaDataType_t type) {
  return type == CUDA_R_32F ? 4 : isFp8(type) ? 1 : 2;
}

/// The types of C, D and vectors.
bool isSupportedType(cudaDataType_t type) {
  return type == CUDA_R_32F || type == CUDA_R_16F || type == CUDA_R_16BF;
}

/// The types of A and B.
bool isOperandType(cudaDataType_t type) {
  return isSupportedType(type) || isFp8(type);
}

const char *typeName(cudaDataType_t type) {
  switch (type) {
  case CUDA_R_32F:
    return "f32";
  case CUDA_R_16F:
    return "f16";
  case CUDA_R_16BF:
    return "bf16";
  case CUDA_R_8F_E4M3:
    return "f8E4M3FN";
  case CUDA_R_8F_E5M2:
    return "f8E5M2";
  default:
    return "an unknown type";
  }
}

/// The amp_dtype of `type`, for CublasLtFp8Rules.h (-2 for none).
int32_t ampDtype(cudaDataType_t type) {
  switch (type) {
  case CUDA_R_32F:
    return AMP_DTYPE_F32;
  case CUDA_R_16F:
    return AMP_DTYPE_F16;
  case CUDA_R_16BF:
    return AMP_DTYPE_BF16;
  case CUDA_R_8F_E4M3:
    return AMP_DTYPE_F8E4M3FN;
  case CUDA_R_8F_E5M2:
    return AMP_DTYPE_F8E5M2;
  default:
    return -2;
  }
}

/// The bias type cuBLASLt's FP8 GEMMs read when none is set: f16 beside
/// an f16 D, else bf16 (CublasLtFp8Rules.h, fp8BiasType).
cudaDataType_t fp8DefaultBiasType(cudaDataType_t dType) {
  return dType == CUDA_R_16F ? CUDA_R_16F : CUDA_R_16BF;
}

/// TF32 keeps 10 mantissa bits, rounding to nearest with ties away from zero
/// (as cvt.rna.tf32.f32).
float roundToTF32(float value) {
  uint32_t bits = amp::floatBits(value);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return value;
  return amp::bitsToFloat((bits + 0x1000u) & 0xffffe000u);
}

float load(const char *base, cudaDataType_t type, int64_t index) {
  if (type == CUDA_R_8F_E4M3)
    return amp::float8E4M3FNToFloat(uint8_t(base[index]));
  if (type == CUDA_R_8F_E5M2)
    return amp::float8E5M2ToFloat(uint8_t(base[index]));
  if (type == CUDA_R_32F) {
    float v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, base + index * 2, 2);
  return type == CUDA_R_16F ? amp::halfToFloat(h) : amp::bfloat16ToFloat(h);
}

void store(char *base, cudaDataType_t type, int64_t index, float value) {
  if (type == CUDA_R_32F) {
    std::memcpy(base + index * 4, &value, 4);
    return;
  }
  uint16_t h = type == CUDA_R_16F ? amp::floatToHalf(value)
                                  : amp::floatToBFloat16(value);
  std::memcpy(base + index * 2, &h, 2);
}

/// The bytes a batched layout spans from its pointer.
uint64_t spanBytes(const Layout &l) {
  uint64_t last = (l.cols - 1) * uint64_t(l.ld) + l.rows;
  if (l.batch > 1)
    last += uint64_t(l.batch - 1) * uint64_t(l.stride);
  return last * typeBytes(l.type);
}

cublasStatus_t checkOperand(const char *name, const void *pointer,
                            const Layout &l) {
  if (l.ld < int64_t(l.rows) || l.rows == 0 || l.cols == 0)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                std::string("cuBLASLt operand ") + name + ": " +
                    std::to_string(l.rows) + " x " + std::to_string(l.cols) +
                    " with leading dimension " + std::to_string(l.ld));
  if (isDeviceRange(pointer, spanBytes(l)))
    return CUBLAS_STATUS_SUCCESS;
  return fail(
      CUBLAS_STATUS_INVALID_VALUE,
      std::string("cuBLASLt operand ") + name + " (" + std::to_string(l.rows) +
          " x " + std::to_string(l.cols) + ", ld " + std::to_string(l.ld) +
          ", batch " + std::to_string(l.batch) + ", stride " +
          std::to_string(l.stride) + ", " + std::to_string(spanBytes(l)) +
          " bytes) is not within one device allocation (" +
          describeAllocation(pointer) + ")");
}

/// Element (i, j) of op(X) for batch b, reading the column-major layout.
float element(const char *x, const Layout &l, bool transposed, int64_t b,
              int64_t i, int64_t j, bool tf32) {
  int64_t row = transposed ? j : i, col = transposed ? i : j;
  int64_t batchOffset = l.batch > 1 ? b * l.stride : 0;
  float v = load(x, l.type, batchOffset + col * l.ld + row);
  return tf32 ? roundToTF32(v) : v;
}

struct Problem {
  int64_t m, n, k;
  bool transA, transB;
  int32_t batch;
};

cublasStatus_t checkShapes(const MatmulDesc &d, const Layout &a,
                           const Layout &b, const Layout &c, const Layout &dl,
                           Problem &p) {
  p.transA = d.transA == CUBLAS_OP_T;
  p.transB = d.transB == CUBLAS_OP_T;
  p.m = int64_t(p.transA ? a.cols : a.rows);
  p.k = int64_t(p.transA ? a.rows : a.cols);
  int64_t kB = int64_t(p.transB ? b.cols : b.rows);
  p.n = int64_t(p.transB ? b.rows : b.cols);
  p.batch = dl.batch;
  if (kB != p.k || int64_t(dl.rows) != p.m || int64_t(dl.cols) != p.n ||
      c.rows != dl.rows || c.cols != dl.cols)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "shapes do not match: op(A) is " + std::to_string(p.m) + " x " +
                    std::to_string(p.k) + ", op(B) " + std::to_string(kB) +
                    " x " + std::to_string(p.n) + ", D " +
                    std::to_string(dl.rows) + " x " + std::to_string(dl.cols));
  for (const Layout *l : {&a, &b, &c})
    if (l->batch != dl.batch && l->batch != 1)
      return fail(CUBLAS_STATUS_INVALID_VALUE,
                  "batch counts differ: " + std::to_string(l->batch) + " and " +
                      std::to_string(dl.batch));
  // FP8 operands are CublasLtFp8Rules.h's (checkFp8Rules).
  if (isFp8(a.type) || isFp8(b.type)) {
    if (!isOperandType(a.type) || !isOperandType(b.type) ||
        !isSupportedType(dl.type) || c.type != dl.type)
      return notSupported(std::string("operand types ") + typeName(a.type) +
                          " x " + typeName(b.type) + " -> " +
                          typeName(dl.type));
    return CUBLAS_STATUS_SUCCESS;
  }
  if (a.type != b.type || !isSupportedType(a.type) ||
      !isSupportedType(dl.type) || c.type != dl.type)
    return notSupported(std::string("operand types ") + typeName(a.type) +
                        " x " + typeName(b.type) + " -> " + typeName(dl.type));
  return CUBLAS_STATUS_SUCCESS;
}

void recordGemm(const Problem &p, const Layout &a, const Layout &b,
                const Layout &dl, bool tf32) {
  if (!profiling())
    return;
  double flops = 2.0 * double(p.m) * double(p.n) * double(p.k) * p.batch;
  recordProfileLine(
      "{\"kind\": \"gemm\", \"m\": " + std::to_string(p.m) +
      ", \"n\": " + std::to_string(p.n) + ", \"k\": " + std::to_string(p.k) +
      ", \"batch\": " + std::to_string(p.batch) + ", \"ab_type\": \"" +
      typeName(a.type) +
      // Mixed FP8 operands: both, in cuBLASLt's order like m, n and k.
      (b.type != a.type ? std::string("x") + typeName(b.type) : "") +
      "\", \"d_type\": \"" + typeName(dl.type) +
      "\", \"tf32\": " + (tf32 ? "true" : "false") +
      ", \"flops\": " + std::to_string((long long)flops) + "}");
}

bool isGelu(cublasLtEpilogue_t epilogue) {
  return epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
         epilogue == CUBLASLT_EPILOGUE_GELU_AUX ||
         epilogue == CUBLASLT_EPILOGUE_DGELU;
}

bool hasBias(cublasLtEpilogue_t epilogue) {
  return epilogue == CUBLASLT_EPILOGUE_BIAS ||
         epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
}

/// What cuBLASLt 13's cublasLt.h requires of the GELU epilogues' aux matrix
/// (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, _BATCH_STRIDE, _DATA_TYPE): a
/// leading dimension of at least D's rows and a multiple of 8, a batch
/// stride that is a multiple of 8, and D's type (other aux types are for
/// FP8 outputs only). Checked when the algorithm is chosen, as cuBLASLt
/// does, and again by the matmul.
cublasStatus_t checkAuxRules(const MatmulDesc &d, const Layout &dl) {
  if (!isGelu(d.epilogue))
    return CUBLAS_STATUS_SUCCESS;
  if (d.auxLd < int64_t(dl.rows) || d.auxLd % 8 != 0)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "the GELU aux matrix's leading dimension " +
                    std::to_string(d.auxLd) +
                    " must be a multiple of 8 and at least D's " +
                    std::to_string(dl.rows) + " rows");
  if (dl.batch > 1 &&
      (d.auxStride % 8 != 0 || d.auxStride < d.auxLd * int64_t(dl.cols)))
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "the GELU aux matrix's batch stride " +
                    std::to_string(d.auxStride) +
                    " must be a multiple of 8 and at least one matrix (" +
                    std::to_string(d.auxLd * int64_t(dl.cols)) + " elements)");
  if (d.auxType != -1 && d.auxType != dl.type)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                std::string("a GELU aux matrix of a type other than D's (") +
                    typeName(dl.type) + ")");
  return CUBLAS_STATUS_SUCCESS;
}

/// The aux matrix as a layout of D's shape; it must be set, aligned to its
/// elements and lie in one allocation.
cublasStatus_t checkAux(const MatmulDesc &d, const Layout &dl, Layout &aux) {
  if (!isGelu(d.epilogue))
    return CUBLAS_STATUS_SUCCESS;
  if (cublasStatus_t s = checkAuxRules(d, dl))
    return s;
  aux = dl;
  aux.ld = d.auxLd;
  aux.stride = d.auxStride;
  if (!d.aux)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "a GELU epilogue without an aux pointer");
  if (reinterpret_cast<uintptr_t>(d.aux) % typeBytes(aux.type) != 0)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "the GELU aux pointer is not aligned to its elements");
  return checkOperand("GELU aux", d.aux, aux);
}

/// GELU's tanh form, gelu(x) = x cdf(x) with cdf(x) = (1 + tanh(sqrt(2/pi)
/// (x + 0.044715 x^3))) / 2, and its derivative cdf(x) + x/2 (1 - t^2)
/// sqrt(2/pi) (1 + 3 0.044715 x^2), in f32 (in the order amp's CPU
/// lowering evaluates them; cuBLASLt's kernels may round differently).
constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kGeluCubic = 0.044715f;
constexpr float kGeluCubic3 = float(3 * 0.044715);

float geluTanh(float x) {
  float t = std::tanh(kSqrt2OverPi * (x + kGeluCubic * (x * x * x)));
  return x * (0.5f * (1.0f + t));
}

float geluTanhDerivative(float x) {
  float x2 = x * x;
  float t = std::tanh(kSqrt2OverPi * (x + kGeluCubic * (x2 * x)));
  float rest = (x * 0.5f) *
               ((1.0f - t * t) * (kSqrt2OverPi * (1.0f + kGeluCubic3 * x2)));
  return 0.5f * (1.0f + t) + rest;
}

/// The epilogue's vector as a layout: BIAS reads one value per row of D,
/// BGRADB writes one per column (batch 1); it must lie in one allocation.
cublasStatus_t checkEpilogue(const MatmulDesc &d, const Problem &p,
                             const Layout &dl, bool fp8, Layout &vector) {
  if (d.epilogue == CUBLASLT_EPILOGUE_DEFAULT ||
      d.epilogue == CUBLASLT_EPILOGUE_GELU_AUX ||
      d.epilogue == CUBLASLT_EPILOGUE_DGELU)
    return CUBLAS_STATUS_SUCCESS;
  bool gradient = d.epilogue == CUBLASLT_EPILOGUE_BGRADB;
  if (gradient && p.batch != 1)
    return notSupported("BGRADB with batch " + std::to_string(p.batch));
  vector.rows = uint64_t(gradient ? p.n : p.m);
  vector.cols = 1;
  vector.ld = int64_t(vector.rows);
  // FP8 GEMMs: the bias type of cuBLASLt's FP8 table, checked by
  // checkFp8Rules (F6); no bias gradient.
  if (fp8) {
    if (gradient)
      return notSupported("BGRADB in an FP8 GEMM");
    vector.type = d.biasTypeSet ? d.biasType : fp8DefaultBiasType(dl.type);
    return checkOperand("bias", d.bias, vector);
  }
  vector.type = d.biasTypeSet ? d.biasType : dl.type;
  if (vector.type != CUDA_R_32F && vector.type != dl.type)
    return notSupported(std::string("a ") + typeName(vector.type) +
                        " bias with a " + typeName(dl.type) + " D");
  // As cuBLASLt 13.1 on an H200: a bias (or bias gradient) beside an f16
  // or bf16 D must be of D's type (an f32 one is refused when the algorithm
  // is chosen), and a bias gradient of B needs B transposed.
  if (vector.type != dl.type)
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                std::string(gradient ? "a bias gradient" : "a bias") +
                    " of type " + typeName(vector.type) + " with D of type " +
                    typeName(dl.type));
  if (gradient && d.transB == CUBLAS_OP_N)
    return fail(CUBLAS_STATUS_NOT_SUPPORTED, "BGRADB with B untransposed");
  return checkOperand(gradient ? "bias gradient" : "bias", d.bias, vector);
}

/// The compute capability the emulated device reports (Driver.cpp).
constexpr int kDeviceSM = 90;

/// What cuBLASLt refuses of an FP8 GEMM (CublasLtFp8Rules.h), in amp's
/// row-major terms: cuBLASLt's A is amp's B, its D rows amp's n. Checked
/// when the algorithm is chosen, as cuBLASLt finds none, and by the matmul.
cublasStatus_t checkFp8Rules(const MatmulDesc &d, const Layout &a,
                             const Layout &b, const Layout &dl) {
  if (!isFp8(a.type) && !isFp8(b.type)) {
    // Scales of 16- and 32-bit operands (hdr: INVALID_VALUE "if set for an
    // unsupported matrix data, scale, and compute type combination").
    if (d.scaleA || d.scaleB || d.amaxD)
      return fail(CUBLAS_STATUS_INVALID_VALUE,
                  "A/B scale or amax pointers set for a GEMM without FP8 "
                  "operands");
    return CUBLAS_STATUS_SUCCESS;
  }
  if (d.compute != CUBLAS_COMPUTE_32F)
    return fail(CUBLAS_STATUS_NOT_SUPPORTED,
                "FP8 GEMMs take the compute type CUBLAS_COMPUTE_32F only");
  amp::Fp8GemmConfig config;
  config.aType = ampDtype(b.type);
  config.bType = ampDtype(a.type);
  config.dType = ampDtype(dl.type);
  config.transA = d.transB == CUBLAS_OP_T;
  config.transB = d.transA == CUBLAS_OP_T;
  config.n = int64_t(d.transA == CUBLAS_OP_T ? a.cols : a.rows);
  config.k = int64_t(d.transA == CUBLAS_OP_T ? a.rows : a.cols);
  config.m = int64_t(d.transB == CUBLAS_OP_T ? b.rows : b.cols);
  if (hasBias(d.epilogue))
    config.biasType =
        ampDtype(d.biasTypeSet ? d.biasType : fp8DefaultBiasType(dl.type));
  config.amaxD = d.amaxD != nullptr;
  if (const char *reason = amp::cublasLtFp8Refusal(config, kDeviceSM))
    // hdr: an amax pointer for an unsupported combination is INVALID_VALUE;
    // the rest leaves cuBLASLt without an algorithm.
    return fail(config.amaxD && reason[1] == '7' ? CUBLAS_STATUS_INVALID_VALUE
                                                 : CUBLAS_STATUS_NOT_SUPPORTED,
                std::string("the emulated cuBLASLt on sm_90 has no FP8 GEMM "
                            "for this (") +
                    reason + ")");
  // F5 in cuBLASLt's own terms: every leading dimension a multiple of 16
  // bytes (amp's dense operands have them; a caller's layout may not).
  for (const Layout *l : {&a, &b, &dl})
    if ((uint64_t(l->ld) * typeBytes(l->type)) % 16 != 0)
      return fail(CUBLAS_STATUS_NOT_SUPPORTED,
                  "the emulated cuBLASLt on sm_90 has no FP8 GEMM for this "
                  "(F5: leading dimension " +
                      std::to_string(l->ld) + " of " + typeName(l->type) +
                      " is not a multiple of 16 bytes)");
  return CUBLAS_STATUS_SUCCESS;
}

/// An FP8 GEMM's pointers: A, B, D and the scales 16-byte aligned (F8, F9:
/// the real cuBLASLt's heuristic accepts misaligned scales, its matmul
/// does not), scales of one f32 in device memory. Their values are read
/// when the GEMM runs.
cublasStatus_t checkFp8Pointers(const MatmulDesc &d, const void *a,
                                const void *b, const void *dPointer,
                                float &scale) {
  if (const char *reason =
          amp::cublasLtFp8PointerRefusal(a, b, dPointer, d.scaleA, d.scaleB))
    return fail(CUBLAS_STATUS_NOT_SUPPORTED,
                std::string("the emulated cuBLASLt on sm_90 has no FP8 GEMM "
                            "for this (") +
                    reason + ")");
  float factors[2] = {1.0f, 1.0f};
  const void *pointers[2] = {d.scaleA, d.scaleB};
  for (int i = 0; i < 2; ++i) {
    if (!pointers[i])
      continue;
    if (!isDeviceRange(pointers[i], sizeof(float)))
      return fail(CUBLAS_STATUS_INVALID_VALUE,
                  std::string("the ") + (i ? "B" : "A") +
                      " scale pointer is not within a device allocation (" +
                      describeAllocation(pointers[i]) + ")");
    std::memcpy(&factors[i], pointers[i], sizeof(float));
  }
  // scaleA * scaleB in f32: amp's a_scale_inv * b_scale_inv (commutative).
  scale = factors[0] * factors[1];
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

AMP_EMU_EXPORT const char *cublasLtGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}

AMP_EMU_EXPORT const char *cublasLtGetStatusString(cublasStatus_t status) {
  const char *detail = detailFor(true, status);
  return detail ? detail : "emulated cuBLASLt error";
}

AMP_EMU_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  *handle = new cublasLtContext();
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t
cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                         cublasComputeType_t compute, cudaDataType_t scale) {
  if (compute != CUBLAS_COMPUTE_32F && compute != CUBLAS_COMPUTE_32F_FAST_TF32)
    return notSupported("compute type " + std::to_string(compute));
  if (scale != CUDA_R_32F)
    return notSupported("a scale type other than f32");
  auto *d = new MatmulDesc();
  d->compute = compute;
  d->scale = scale;
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t
cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete asDesc(desc);
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(
    cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
    const void *buffer, size_t bytes) {
  MatmulDesc &d = *asDesc(desc);
  int32_t op = 0;
  switch (attribute) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
  case CUBLASLT_MATMUL_DESC_TRANSB:
    if (cublasStatus_t s = readValue(buffer, bytes, op))
      return s;
    if (op != CUBLAS_OP_N && op != CUBLAS_OP_T)
      return notSupported("operation " + std::to_string(op));
    (attribute == CUBLASLT_MATMUL_DESC_TRANSA ? d.transA : d.transB) =
        cublasOperation_t(op);
    return CUBLAS_STATUS_SUCCESS;
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    if (cublasStatus_t s = readValue(buffer, bytes, op))
      return s;
    if (op != CUBLASLT_EPILOGUE_DEFAULT && op != CUBLASLT_EPILOGUE_BIAS &&
        op != CUBLASLT_EPILOGUE_BGRADB && !isGelu(cublasLtEpilogue_t(op)))
      return notSupported("epilogue " + std::to_string(op));
    d.epilogue = cublasLtEpilogue_t(op);
    return CUBLAS_STATUS_SUCCESS;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    return readValue(buffer, bytes, d.bias);
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
    if (cublasStatus_t s = readValue(buffer, bytes, op))
      return s;
    if (!isOperandType(cudaDataType_t(op)))
      return notSupported("bias data type " + std::to_string(op));
    d.biasType = cudaDataType_t(op);
    d.biasTypeSet = true;
    return CUBLAS_STATUS_SUCCESS;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
    return readValue(buffer, bytes, d.aux);
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
    return readValue(buffer, bytes, d.auxLd);
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE:
    return readValue(buffer, bytes, d.auxStride);
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE:
    return readValue(buffer, bytes, d.auxType);
  case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
    return readValue(buffer, bytes, d.scaleA);
  case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
    return readValue(buffer, bytes, d.scaleB);
  case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER:
    return readValue(buffer, bytes, d.amaxD);
  case CUBLASLT_MATMUL_DESC_FAST_ACCUM:
    return readValue(buffer, bytes, d.fastAccum);
  default:
    return notSupported("matmul descriptor attribute " +
                        std::to_string(attribute));
  }
}

AMP_EMU_EXPORT cublasStatus_t
cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type,
                           uint64_t rows, uint64_t cols, int64_t ld) {
  if (!isOperandType(type))
    return notSupported("data type " + std::to_string(type));
  auto *l = new Layout();
  l->type = type;
  l->rows = rows;
  l->cols = cols;
  l->ld = ld;
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(l);
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t
cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete asLayout(layout);
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(
    cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute,
    const void *buffer, size_t bytes) {
  Layout &l = *asLayout(layout);
  switch (attribute) {
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    return readValue(buffer, bytes, l.batch);
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    return readValue(buffer, bytes, l.stride);
  default:
    return notSupported("matrix layout attribute " + std::to_string(attribute));
  }
}

AMP_EMU_EXPORT cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *preference) {
  *preference = reinterpret_cast<cublasLtMatmulPreference_t>(new Preference());
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  delete reinterpret_cast<Preference *>(preference);
  return CUBLAS_STATUS_SUCCESS;
}

/// Workspace and alignment limits do not constrain the CPU GEMM.
AMP_EMU_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,
    const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}

/// One algorithm, which handles everything cublasLtMatmul accepts; the
/// GELU aux matrix's and FP8 GEMMs' rules are checked here already, as
/// cuBLASLt does.
AMP_EMU_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t aLayout,
    cublasLtMatrixLayout_t bLayout, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t dLayout, cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t *results, int *found) {
  if (requested < 1)
    return fail(CUBLAS_STATUS_INVALID_VALUE, "no result requested");
  if (desc && dLayout)
    if (cublasStatus_t s = checkAuxRules(*asDesc(desc), *asLayout(dLayout)))
      return s;
  if (desc && aLayout && bLayout && dLayout)
    if (cublasStatus_t s =
            checkFp8Rules(*asDesc(desc), *asLayout(aLayout), *asLayout(bLayout),
                          *asLayout(dLayout)))
      return s;
  std::memset(&results[0], 0, sizeof(results[0]));
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *found = 1;
  return CUBLAS_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cublasStatus_t cublasLtMatmul(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t descHandle, const void *alpha,
    const void *aPointer, cublasLtMatrixLayout_t aLayout, const void *bPointer,
    cublasLtMatrixLayout_t bLayout, const void *beta, const void *cPointer,
    cublasLtMatrixLayout_t cLayout, void *dPointer,
    cublasLtMatrixLayout_t dLayout, const cublasLtMatmulAlgo_t *, void *,
    size_t, cudaStream_t stream) {
  if (!handle || !descHandle || !aLayout || !bLayout || !cLayout || !dLayout ||
      !alpha || !beta)
    return fail(CUBLAS_STATUS_INVALID_VALUE, "null argument to cublasLtMatmul");
  // On a stream being captured the call is a node of the graph: it runs at
  // every launch on the descriptor and layouts as they are now (the runtime
  // sets the bias pointer on a cached descriptor before each call) and the
  // alpha and beta of now, as cuBLASLt's captured kernels have them.
  if (isCapturing(stream)) {
    auto desc = std::make_shared<MatmulDesc>(*asDesc(descHandle));
    auto layouts = std::make_shared<std::array<Layout, 4>>(
        std::array<Layout, 4>{*asLayout(aLayout), *asLayout(bLayout),
                              *asLayout(cLayout), *asLayout(dLayout)});
    std::array<float, 2> scalars = {*static_cast<const float *>(alpha),
                                    *static_cast<const float *>(beta)};
    issue(stream, [=] {
      auto layout = [&](size_t i) {
        return reinterpret_cast<cublasLtMatrixLayout_t>(&(*layouts)[i]);
      };
      // Run now: the legacy stream is never captured.
      cublasStatus_t s = cublasLtMatmul(
          handle, reinterpret_cast<cublasLtMatmulDesc_t>(desc.get()),
          &scalars[0], aPointer, layout(0), bPointer, layout(1), &scalars[1],
          cPointer, layout(2), dPointer, layout(3), nullptr, nullptr, 0,
          nullptr);
      if (s == CUBLAS_STATUS_SUCCESS)
        return 0;
      const char *detail = detailFor(true, s);
      return failedNode(std::string("cublasLtMatmul in a graph: ") +
                        (detail ? detail : "failed"));
    });
    return CUBLAS_STATUS_SUCCESS;
  }
  // Run now, like the kernels on the stream: in the order they were issued.
  if (!isStream(stream))
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "cublasLtMatmul on something that is not a stream");
  const MatmulDesc &d = *asDesc(descHandle);
  const Layout &a = *asLayout(aLayout), &b = *asLayout(bLayout),
               &c = *asLayout(cLayout), &dl = *asLayout(dLayout);
  Problem p;
  if (cublasStatus_t s = checkShapes(d, a, b, c, dl, p))
    return s;
  if (cublasStatus_t s = checkOperand("A", aPointer, a))
    return s;
  if (cublasStatus_t s = checkOperand("B", bPointer, b))
    return s;
  if (cublasStatus_t s = checkOperand("C", cPointer, c))
    return s;
  if (cublasStatus_t s = checkOperand("D", dPointer, dl))
    return s;
  if (cublasStatus_t s = checkFp8Rules(d, a, b, dl))
    return s;
  bool fp8 = isFp8(a.type) || isFp8(b.type);
  float fp8Scale = 1.0f;
  if (fp8)
    if (cublasStatus_t s =
            checkFp8Pointers(d, aPointer, bPointer, dPointer, fp8Scale))
      return s;
  Layout vector, auxLayout;
  if (cublasStatus_t s = checkEpilogue(d, p, dl, fp8, vector))
    return s;
  if (cublasStatus_t s = checkAux(d, dl, auxLayout))
    return s;
  bool tf32 = d.compute == CUBLAS_COMPUTE_32F_FAST_TF32 && a.type == CUDA_R_32F;
  recordGemm(p, a, b, dl, tf32);
  float alphaValue = *static_cast<const float *>(alpha);
  float betaValue = *static_cast<const float *>(beta);
  auto *A = static_cast<const char *>(aPointer);
  auto *B = static_cast<const char *>(bPointer);
  auto *C = static_cast<const char *>(cPointer);
  auto *D = static_cast<char *>(dPointer);
  auto *bias = static_cast<char *>(d.bias);
  auto *aux = static_cast<char *>(d.aux);
  bool addBias = hasBias(d.epilogue);
  bool gelu = d.epilogue == CUBLASLT_EPILOGUE_GELU_AUX ||
              d.epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  bool dgelu = d.epilogue == CUBLASLT_EPILOGUE_DGELU;
  // op(A) by rows and op(B) by columns, in f32, so that each dot product
  // reads contiguous memory. D may be C (in place): each element of C is
  // read just before the same element of D is written.
  std::vector<float> rowsA(size_t(p.m * p.k)), colsB(size_t(p.n * p.k));
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t l = 0; l < p.k; ++l)
        rowsA[i * p.k + l] = element(A, a, p.transA, batch, i, l, tf32);
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t l = 0; l < p.k; ++l)
        colsB[j * p.k + l] = element(B, b, p.transB, batch, l, j, tf32);
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t i = 0; i < p.m; ++i) {
        const float *x = &rowsA[i * p.k], *y = &colsB[j * p.k];
        float sum = 0.0f;
        for (int64_t l = 0; l < p.k; ++l)
          sum += x[l] * y[l];
        // FP8: the scales' product first (amp.fp8_matmul's order).
        float result = alphaValue * (fp8 ? sum * fp8Scale : sum);
        // beta == 0 ignores C, even a NaN in it (as cuBLASLt).
        if (betaValue != 0.0f)
          result += betaValue * element(C, c, false, batch, i, j, false);
        if (addBias)
          result += load(bias, vector.type, i);
        // The aux matrix's layout is set only for the GELU epilogues.
        auto auxOffset = [&] {
          return (dl.batch > 1 ? batch * auxLayout.stride : 0) +
                 j * auxLayout.ld + i;
        };
        // GELU keeps its input, rounded like D; DGELU scales by the
        // derivative at the input kept (read before D is written: aux may
        // not be D, but need not be apart from C).
        if (gelu) {
          store(aux, auxLayout.type, auxOffset(), result);
          result = geluTanh(result);
        } else if (dgelu) {
          result *= geluTanhDerivative(load(aux, auxLayout.type, auxOffset()));
        }
        int64_t offset = (dl.batch > 1 ? batch * dl.stride : 0) + j * dl.ld + i;
        store(D, dl.type, offset, result);
      }
    // BGRADB: the sums of op(B)'s columns (batch 1), as B was read.
    if (d.epilogue == CUBLASLT_EPILOGUE_BGRADB)
      for (int64_t j = 0; j < p.n; ++j) {
        float sum = 0.0f;
        for (int64_t l = 0; l < p.k; ++l)
          sum += colsB[j * p.k + l];
        store(bias, vector.type, j, sum);
      }
  }
  return CUBLAS_STATUS_SUCCESS;
}
