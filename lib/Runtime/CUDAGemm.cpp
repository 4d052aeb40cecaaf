//===- CUDAGemm.cpp - amp_gpu_gemm on cuBLASLt ----------------------------===//
//
// GEMMs of compiled code (CUDAKernels.h) run on cuBLASLt, which is opened
// with dlopen on the first GEMM (cublasLt.h is included for types and enum
// values only). One handle, one 32 MiB workspace from the pool, and a plan
// cache: building descriptors and asking the heuristic costs far more than a
// small GEMM, and a training step repeats the same shapes every step.
//
// Row-major operands: cuBLASLt is column-major, and a row-major m x n matrix
// is the column-major n x m matrix of its transpose. So C = op(A) op(B) is
// computed as C^T = op(B)^T op(A)^T: cuBLASLt's first operand is our B, its
// second our A, its output the n x m column-major C^T, which is our
// row-major C.
//
//===----------------------------------------------------------------------===//

#include "CUDAGemm.h"
#include "CUDADriver.h"
#include "CUDAPool.h"

#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/CublasLtFp8Rules.h"
#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/ModelABI.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace amp::cuda;
using amp::dtypeName;

// The library opened as cuBLASLt (the emulated device in an emulator build).
#ifndef AMP_CUBLASLT_LIBRARY
#define AMP_CUBLASLT_LIBRARY "libcublasLt.so.13"
#endif
#ifndef AMP_CUBLASLT_FALLBACK_DIR
#define AMP_CUBLASLT_FALLBACK_DIR "/usr/local/cuda/lib64"
#endif

namespace {

#define AMP_CUBLASLT_FUNCTIONS(X)                                              \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

/// Exact prototypes from cublasLt.h; nothing links against libcublasLt.
struct LtAPI {
#define AMP_CUBLASLT_DECLARE(name) decltype(&::name) name = nullptr;
  AMP_CUBLASLT_FUNCTIONS(AMP_CUBLASLT_DECLARE)
#undef AMP_CUBLASLT_DECLARE
};

/// The workspace cuBLASLt may use: NVIDIA recommends 32 MiB on Hopper.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

/// Everything a plan depends on. Pointer alignments are part of it: the
/// heuristic picks kernels that assume the alignment it is told.
struct PlanKey {
  int32_t aType, bType, cType;
  int64_t batch, m, n, k;
  int32_t transA, transB;
  int64_t strideA, strideB;
  int32_t tf32;
  uint32_t alignA, alignB, alignC, alignD;
  int32_t epilogue; // 0 or an amp_gemm_epilogue
  // The vector's and the aux matrix's alignment (the heuristic reads them
  // from the pointers set on the descriptor) and the aux's leading
  // dimension; 0 where there is none.
  uint32_t alignVector, alignAux;
  int64_t auxLd;
  // FP8 GEMMs (amp_gpu_gemm_fp8): scale pointers set, and fast accumulation.
  int32_t fp8 = 0, fastAccum = 0;

  auto tie() const {
    return std::tie(aType, bType, cType, batch, m, n, k, transA, transB,
                    strideA, strideB, tf32, alignA, alignB, alignC, alignD,
                    epilogue, alignVector, alignAux, auxLd, fp8, fastAccum);
  }
  bool operator<(const PlanKey &other) const { return tie() < other.tie(); }
};

/// Descriptors in cuBLASLt's operand order: `first` describes our B,
/// `second` our A, `out` our C and D (cuBLASLt's C and D: the same shape
/// and type, whether in place or apart).
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  cublasLtMatmulAlgo_t algo = {};
};

struct Gemm {
  std::mutex mutex;
  bool loadAttempted = false;
  bool loaded = false;
  bool handleAttempted = false;
  void *library = nullptr;
  LtAPI lt;
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  std::map<PlanKey, Plan> plans;
};

/// Never destroyed, like the rest of the runtime's state.
Gemm &gemmState() {
  static Gemm *instance = new Gemm();
  return *instance;
}

cudaDataType_t cudaType(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F16:
    return CUDA_R_16F;
  case AMP_DTYPE_BF16:
    return CUDA_R_16BF;
  case AMP_DTYPE_F8E4M3FN:
    return CUDA_R_8F_E4M3;
  case AMP_DTYPE_F8E5M2:
    return CUDA_R_8F_E5M2;
  default:
    return CUDA_R_32F;
  }
}

size_t elementBytes(int32_t dtype) {
  return dtype == AMP_DTYPE_F32 ? 4 : amp::isFp8Dtype(dtype) ? 1 : 2;
}

bool isFloat(int32_t dtype) {
  return dtype == AMP_DTYPE_F32 || dtype == AMP_DTYPE_F16 ||
         dtype == AMP_DTYPE_BF16;
}

std::string describeGemm(const PlanKey &key) {
  return std::string(dtypeName(key.aType)) + " x " + dtypeName(key.bType) +
         " -> " + dtypeName(key.cType) + ", batch " +
         std::to_string(key.batch) + ", m " + std::to_string(key.m) + ", n " +
         std::to_string(key.n) + ", k " + std::to_string(key.k) + ", trans_a " +
         std::to_string(key.transA) + ", trans_b " +
         std::to_string(key.transB) +
         (key.epilogue ? ", epilogue " + std::to_string(key.epilogue) : "") +
         (key.fastAccum ? ", fast accumulation" : "");
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

bool checkTypes(int32_t aType, int32_t cType) {
  if (isFloat(aType) && (cType == AMP_DTYPE_F32 || cType == aType))
    return true;
  return fail(std::string("amp_gpu_gemm: unsupported operand types ") +
              dtypeName(aType) + " x " + dtypeName(aType) + " -> " +
              dtypeName(cType) +
              " (A and B are f32, f16 or bf16; C is f32 "
              "or the type of A and B)");
}

bool checkSizes(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t strideA,
                int64_t strideB) {
  if (batch <= 0 || m <= 0 || n <= 0 || k <= 0)
    return fail("amp_gpu_gemm: sizes must be positive (batch " +
                std::to_string(batch) + ", m " + std::to_string(m) + ", n " +
                std::to_string(n) + ", k " + std::to_string(k) + ")");
  if (batch > INT32_MAX)
    return fail("amp_gpu_gemm: batch " + std::to_string(batch) +
                " exceeds cuBLASLt's limit of 2^31 - 1");
  if (strideA < 0 || strideB < 0)
    return fail("amp_gpu_gemm: batch strides must not be negative "
                "(stride_a " +
                std::to_string(strideA) + ", stride_b " +
                std::to_string(strideB) + ")");
  if (m > INT64_MAX / n || batch > INT64_MAX / (m * n))
    return fail("amp_gpu_gemm: batch x m x n overflows");
  return true;
}

bool checkPointers(const void *a, const void *b, const void *c) {
  if (a && b && c)
    return true;
  return fail("amp_gpu_gemm: null operand pointer");
}

bool isGeluEpilogue(int32_t epilogue) {
  return epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS ||
         epilogue == AMP_GEMM_EPILOGUE_GELU_AUX ||
         epilogue == AMP_GEMM_EPILOGUE_DGELU;
}

/// The GELU epilogues' aux matrix, as cuBLASLt 13's cublasLt.h states for
/// CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: a leading dimension of at least
/// D's rows (our n) and a multiple of 8; and 16-byte aligned, amp's own
/// rule (its buffers are; the heuristic picks kernels for the alignment of
/// the pointer it was shown, which the plan then keeps).
bool checkAux(int32_t epilogue, int64_t n, const void *aux, int64_t auxLd) {
  if (!isGeluEpilogue(epilogue))
    return fail("amp_gpu_gemm_aux: epilogue " + std::to_string(epilogue) +
                " takes no aux matrix (use amp_gpu_gemm_ex)");
  if (!aux)
    return fail("amp_gpu_gemm_aux: null aux pointer");
  if (auxLd < n || auxLd % 8 != 0)
    return fail("amp_gpu_gemm_aux: the aux matrix's leading dimension " +
                std::to_string(auxLd) +
                " must be a multiple of 8 and at "
                "least n = " +
                std::to_string(n) +
                " (cuBLASLt's CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD)");
  if (reinterpret_cast<uintptr_t>(aux) % 16 != 0)
    return fail("amp_gpu_gemm_aux: the aux matrix must be 16-byte aligned");
  return true;
}

bool checkEpilogue(int32_t epilogue, int32_t cType, const void *vector,
                   int64_t batch) {
  if (isGeluEpilogue(epilogue))
    return fail("amp_gpu_gemm_epilogue: epilogue " + std::to_string(epilogue) +
                " needs an aux matrix (amp_gpu_gemm_aux)");
  if (epilogue != AMP_GEMM_EPILOGUE_BIAS &&
      epilogue != AMP_GEMM_EPILOGUE_BGRAD_A &&
      epilogue != AMP_GEMM_EPILOGUE_BIAS_C_TYPE)
    return fail("amp_gpu_gemm_epilogue: unknown epilogue " +
                std::to_string(epilogue));
  if (epilogue == AMP_GEMM_EPILOGUE_BIAS && cType != AMP_DTYPE_F32)
    return fail("amp_gpu_gemm_epilogue: an f32 bias needs an f32 C (cuBLASLt "
                "adds a bias of C's type to an f16 or bf16 C: "
                "AMP_GEMM_EPILOGUE_BIAS_C_TYPE)");
  if (!vector)
    return fail("amp_gpu_gemm_epilogue: null vector pointer");
  if (epilogue == AMP_GEMM_EPILOGUE_BGRAD_A && batch != 1)
    return fail("amp_gpu_gemm_epilogue: a bias gradient needs batch 1, not " +
                std::to_string(batch));
  return true;
}

/// cuBLASLt's epilogue for ours: our A is cuBLASLt's B (see the file
/// comment), and our row-major C's columns are its rows.
cublasLtEpilogue_t ltEpilogue(int32_t epilogue) {
  switch (epilogue) {
  case AMP_GEMM_EPILOGUE_BIAS:
  case AMP_GEMM_EPILOGUE_BIAS_C_TYPE:
    return CUBLASLT_EPILOGUE_BIAS;
  case AMP_GEMM_EPILOGUE_BGRAD_A:
    return CUBLASLT_EPILOGUE_BGRADB;
  case AMP_GEMM_EPILOGUE_GELU_AUX_BIAS:
    return CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  case AMP_GEMM_EPILOGUE_GELU_AUX:
    return CUBLASLT_EPILOGUE_GELU_AUX;
  case AMP_GEMM_EPILOGUE_DGELU:
    return CUBLASLT_EPILOGUE_DGELU;
  default:
    return CUBLASLT_EPILOGUE_DEFAULT;
  }
}

/// The largest power of two up to 256 dividing `value` (256 for 0).
uint32_t alignmentOf(uint64_t value) {
  uint32_t alignment = 256;
  while (alignment > 1 && value % alignment != 0)
    alignment /= 2;
  return alignment;
}

/// The alignment every batch's matrix has: the base pointer's, and the batch
/// stride's in bytes when there are several batches.
uint32_t batchAlignment(const void *pointer, int64_t batch, int64_t stride,
                        size_t elementSize) {
  uint32_t alignment = alignmentOf(reinterpret_cast<uintptr_t>(pointer));
  if (batch > 1 && stride != 0) {
    uint32_t strideAlignment = alignmentOf(uint64_t(stride) * elementSize);
    alignment = strideAlignment < alignment ? strideAlignment : alignment;
  }
  return alignment;
}

//===----------------------------------------------------------------------===//
// Loading cuBLASLt and the handle
//===----------------------------------------------------------------------===//

std::string statusText(const Gemm &g, cublasStatus_t status) {
  const char *name =
      g.lt.cublasLtGetStatusName ? g.lt.cublasLtGetStatusName(status) : nullptr;
  const char *text = g.lt.cublasLtGetStatusString
                         ? g.lt.cublasLtGetStatusString(status)
                         : nullptr;
  std::string result = name ? name : "cuBLAS status " + std::to_string(status);
  if (text)
    result += std::string(" (") + text + ")";
  return result;
}

bool checkLt(const Gemm &g, cublasStatus_t status, const std::string &what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  return fail(what + " failed: " + statusText(g, status));
}

/// The default search path first (LD_LIBRARY_PATH, the system's), then the
/// toolkit amp was configured with.
bool openCublasLt(Gemm &g) {
  std::string reason;
  g.library =
      openLibrary(AMP_CUBLASLT_LIBRARY, AMP_CUBLASLT_FALLBACK_DIR, reason);
  if (g.library)
    return true;
  return fail("cuBLASLt cannot be loaded: " + reason +
              " (GEMMs need the CUDA 13 toolkit's libcublasLt.so.13: install "
              "it or add its directory to LD_LIBRARY_PATH)");
}

bool resolveCublasLt(Gemm &g) {
#define AMP_CUBLASLT_RESOLVE(name)                                             \
  g.lt.name = reinterpret_cast<decltype(g.lt.name)>(dlsym(g.library, #name));  \
  if (!g.lt.name)                                                              \
    return fail("the cuBLASLt library that was loaded lacks " #name);
  AMP_CUBLASLT_FUNCTIONS(AMP_CUBLASLT_RESOLVE)
#undef AMP_CUBLASLT_RESOLVE
  return true;
}

/// Opens and resolves cuBLASLt once; the caller holds the mutex.
bool loadLocked(Gemm &g) {
  if (!g.loadAttempted) {
    g.loadAttempted = true;
    g.loaded = openCublasLt(g) && resolveCublasLt(g);
  }
  return g.loaded;
}

/// Loads cuBLASLt, creates the handle and the workspace, once; the caller
/// holds the mutex and the driver is ready (the handle belongs to the
/// current, primary context).
bool ensureHandle(Gemm &g) {
  if (g.workspace)
    return true;
  if (g.handleAttempted)
    return false; // the sticky error says why
  g.handleAttempted = true;
  if (!loadLocked(g) ||
      !checkLt(g, g.lt.cublasLtCreate(&g.handle),
               "creating the cuBLASLt handle (cublasLtCreate)"))
    return false;
  g.workspace = poolAllocate(kWorkspaceBytes);
  return g.workspace != nullptr;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

bool setLayoutBatch(const Gemm &g, cublasLtMatrixLayout_t layout, int64_t batch,
                    int64_t stride) {
  int32_t count = static_cast<int32_t>(batch);
  return checkLt(g,
                 g.lt.cublasLtMatrixLayoutSetAttribute(
                     layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                     sizeof(count)),
                 "setting the batch count of a cuBLASLt layout") &&
         checkLt(g,
                 g.lt.cublasLtMatrixLayoutSetAttribute(
                     layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                     &stride, sizeof(stride)),
                 "setting the batch stride of a cuBLASLt layout");
}

/// A column-major layout of `rows` x `cols` with leading dimension `ld`.
bool createLayout(const Gemm &g, cublasLtMatrixLayout_t &layout,
                  cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld,
                  int64_t batch, int64_t stride) {
  return checkLt(g,
                 g.lt.cublasLtMatrixLayoutCreate(&layout, type, uint64_t(rows),
                                                 uint64_t(cols), ld),
                 "creating a cuBLASLt matrix layout") &&
         setLayoutBatch(g, layout, batch, stride);
}

/// An FP8 GEMM's scale pointers (cuBLASLt's A is our B: its A scale is our
/// B's) and fast-accumulation flag (an int8_t, as cublasLt.h states).
bool setFp8Attributes(const Gemm &g, Plan &plan, const PlanKey &key,
                      const float *scaleA, const float *scaleB) {
  int8_t fastAccum = key.fastAccum ? 1 : 0;
  return checkLt(g,
                 g.lt.cublasLtMatmulDescSetAttribute(
                     plan.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scaleB,
                     sizeof(scaleB)),
                 "setting the cuBLASLt A scale pointer") &&
         checkLt(g,
                 g.lt.cublasLtMatmulDescSetAttribute(
                     plan.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scaleA,
                     sizeof(scaleA)),
                 "setting the cuBLASLt B scale pointer") &&
         checkLt(g,
                 g.lt.cublasLtMatmulDescSetAttribute(
                     plan.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fastAccum,
                     sizeof(fastAccum)),
                 "setting cuBLASLt's fast accumulation");
}

/// The matmul descriptor: f32 accumulation and f32 alpha/beta for every
/// input type (tensor cores for f16/bf16), TF32 tensor cores for f32 inputs
/// only when allowed.
bool createDesc(const Gemm &g, Plan &plan, const PlanKey &key, void *vector,
                void *aux, const float *scaleA, const float *scaleB) {
  cublasComputeType_t compute =
      key.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  // cuBLASLt's first operand is our B: transposed in cuBLASLt's view
  // exactly when ours is (see the file comment); likewise A.
  cublasOperation_t opFirst = key.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opSecond = key.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = ltEpilogue(key.epilogue);
  // The bias (or its gradient) is f32, or of C's type for BIAS_C_TYPE and
  // GELU_AUX_BIAS (cuBLASLt's GELU epilogues take a bias of D's type).
  // FP8 GEMMs take the bias type of their table (CublasLtFp8Rules.h, F6).
  cudaDataType_t vectorType =
      key.fp8 ? cudaType(amp::fp8BiasType(key.cType))
      : key.epilogue == AMP_GEMM_EPILOGUE_BIAS_C_TYPE ||
              key.epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS
          ? cudaType(key.cType)
          : CUDA_R_32F;
  bool hasVector = key.epilogue && key.epilogue != AMP_GEMM_EPILOGUE_GELU_AUX &&
                   key.epilogue != AMP_GEMM_EPILOGUE_DGELU;
  // cuBLASLt's aux matrix is its D's transpose layout, like our C: n rows
  // (its leading dimension) and m columns per batch.
  int64_t auxStride = key.m * key.auxLd;
  return checkLt(g,
                 g.lt.cublasLtMatmulDescCreate(&plan.desc, compute, CUDA_R_32F),
                 "creating a cuBLASLt matmul descriptor") &&
         checkLt(g,
                 g.lt.cublasLtMatmulDescSetAttribute(
                     plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opFirst,
                     sizeof(opFirst)),
                 "setting a cuBLASLt transpose") &&
         checkLt(g,
                 g.lt.cublasLtMatmulDescSetAttribute(
                     plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opSecond,
                     sizeof(opSecond)),
                 "setting a cuBLASLt transpose") &&
         (!key.epilogue || checkLt(g,
                                   g.lt.cublasLtMatmulDescSetAttribute(
                                       plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                       &epilogue, sizeof(epilogue)),
                                   "setting a cuBLASLt epilogue")) &&
         // The pointers are set before the heuristic runs, which reads their
         // alignment from them; each call sets its own again.
         (!hasVector ||
          (checkLt(g,
                   g.lt.cublasLtMatmulDescSetAttribute(
                       plan.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                       &vectorType, sizeof(vectorType)),
                   "setting the cuBLASLt bias type") &&
           checkLt(g,
                   g.lt.cublasLtMatmulDescSetAttribute(
                       plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &vector,
                       sizeof(vector)),
                   "setting the cuBLASLt bias pointer"))) &&
         (!key.auxLd ||
          (checkLt(g,
                   g.lt.cublasLtMatmulDescSetAttribute(
                       plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                       &aux, sizeof(aux)),
                   "setting the cuBLASLt aux pointer") &&
           checkLt(g,
                   g.lt.cublasLtMatmulDescSetAttribute(
                       plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                       &key.auxLd, sizeof(key.auxLd)),
                   "setting the cuBLASLt aux leading dimension") &&
           (key.batch == 1 ||
            checkLt(g,
                    g.lt.cublasLtMatmulDescSetAttribute(
                        plan.desc,
                        CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE,
                        &auxStride, sizeof(auxStride)),
                    "setting the cuBLASLt aux batch stride")))) &&
         (!key.fp8 || setFp8Attributes(g, plan, key, scaleA, scaleB));
}

/// Layouts of the stored matrices, in column-major terms:
///  - our B, stored k x n (n x k when transposed) row-major, is the
///    column-major n x k (k x n) matrix with leading dimension n (k);
///  - our A, stored m x k (k x m), is column-major k x m (m x k) with
///    leading dimension k (m);
///  - our C, m x n row-major, is column-major n x m with leading dimension n.
bool createLayouts(const Gemm &g, Plan &plan, const PlanKey &key) {
  int64_t firstRows = key.transB ? key.k : key.n;
  int64_t firstCols = key.transB ? key.n : key.k;
  int64_t secondRows = key.transA ? key.m : key.k;
  int64_t secondCols = key.transA ? key.k : key.m;
  return createLayout(g, plan.first, cudaType(key.bType), firstRows, firstCols,
                      firstRows, key.batch, key.strideB) &&
         createLayout(g, plan.second, cudaType(key.aType), secondRows,
                      secondCols, secondRows, key.batch, key.strideA) &&
         createLayout(g, plan.out, cudaType(key.cType), key.n, key.m, key.n,
                      key.batch, key.m * key.n);
}

bool setPreference(const Gemm &g, cublasLtMatmulPreference_t preference,
                   cublasLtMatmulPreferenceAttributes_t attribute,
                   uint64_t value32or64, bool is64) {
  uint32_t value32 = static_cast<uint32_t>(value32or64);
  return checkLt(
      g,
      is64 ? g.lt.cublasLtMatmulPreferenceSetAttribute(
                 preference, attribute, &value32or64, sizeof(value32or64))
           : g.lt.cublasLtMatmulPreferenceSetAttribute(
                 preference, attribute, &value32, sizeof(value32)),
      "setting a cuBLASLt heuristic preference");
}

/// The heuristic's best algorithm within the workspace and the operands'
/// alignments.
bool chooseAlgorithm(const Gemm &g, Plan &plan, const PlanKey &key) {
  cublasLtMatmulPreference_t preference = nullptr;
  if (!checkLt(g, g.lt.cublasLtMatmulPreferenceCreate(&preference),
               "creating a cuBLASLt preference"))
    return false;
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  bool ok =
      setPreference(g, preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    kWorkspaceBytes, /*is64=*/true) &&
      setPreference(g, preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                    key.alignB, false) &&
      setPreference(g, preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    key.alignA, false) &&
      setPreference(g, preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                    key.alignC, false) &&
      setPreference(g, preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                    key.alignD, false) &&
      checkLt(g,
              g.lt.cublasLtMatmulAlgoGetHeuristic(
                  g.handle, plan.desc, plan.first, plan.second, plan.out,
                  plan.out, preference, 1, &result, &found),
              "choosing a cuBLASLt algorithm for " + describeGemm(key));
  g.lt.cublasLtMatmulPreferenceDestroy(preference);
  if (!ok)
    return false;
  if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    return fail("cuBLASLt has no algorithm for " + describeGemm(key) + " on " +
                device().name);
  plan.algo = result.algo;
  return true;
}

void destroyPlan(const Gemm &g, Plan &plan) {
  if (plan.first)
    g.lt.cublasLtMatrixLayoutDestroy(plan.first);
  if (plan.second)
    g.lt.cublasLtMatrixLayoutDestroy(plan.second);
  if (plan.out)
    g.lt.cublasLtMatrixLayoutDestroy(plan.out);
  if (plan.desc)
    g.lt.cublasLtMatmulDescDestroy(plan.desc);
}

/// The cached plan for `key`, built on first use; null with the error.
const Plan *findPlan(Gemm &g, const PlanKey &key, void *vector, void *aux,
                     const float *scaleA = nullptr,
                     const float *scaleB = nullptr) {
  auto it = g.plans.find(key);
  if (it != g.plans.end())
    return &it->second;
  Plan plan;
  if (!createDesc(g, plan, key, vector, aux, scaleA, scaleB) ||
      !createLayouts(g, plan, key) || !chooseAlgorithm(g, plan, key)) {
    destroyPlan(g, plan);
    return nullptr;
  }
  return &g.plans.emplace(key, plan).first->second;
}

PlanKey makeKey(int32_t aType, int32_t cType, int64_t batch, int64_t m,
                int64_t n, int64_t k, int32_t transA, int32_t transB,
                const void *a, int64_t strideA, const void *b, int64_t strideB,
                const void *c, const void *d, int32_t allowTF32,
                int32_t epilogue, const void *vector, const void *aux,
                int64_t auxLd) {
  PlanKey key;
  key.aType = aType;
  key.bType = aType;
  key.cType = cType;
  key.batch = batch;
  key.m = m;
  key.n = n;
  key.k = k;
  key.transA = transA ? 1 : 0;
  key.transB = transB ? 1 : 0;
  // A single matrix has no stride: do not let it split the cache.
  key.strideA = batch > 1 ? strideA : 0;
  key.strideB = batch > 1 ? strideB : 0;
  key.tf32 = (aType == AMP_DTYPE_F32 && allowTF32) ? 1 : 0;
  key.alignA = batchAlignment(a, batch, key.strideA, elementBytes(aType));
  key.alignB = batchAlignment(b, batch, key.strideB, elementBytes(aType));
  key.alignC = batchAlignment(c, batch, m * n, elementBytes(cType));
  key.alignD = batchAlignment(d, batch, m * n, elementBytes(cType));
  key.epilogue = epilogue;
  key.alignVector =
      vector ? alignmentOf(reinterpret_cast<uintptr_t>(vector)) : 0;
  key.alignAux = aux ? alignmentOf(reinterpret_cast<uintptr_t>(aux)) : 0;
  key.auxLd = aux ? auxLd : 0;
  return key;
}

} // namespace

bool amp::cuda::loadCublasLt() {
  Gemm &g = gemmState();
  std::lock_guard<std::mutex> lock(g.mutex);
  return loadLocked(g);
}

namespace {
/// Every entry point: `epilogue` 0 is none; D is C in place unless apart.
void runGemm(int32_t a_dtype, int32_t c_dtype, int64_t batch, int64_t m,
             int64_t n, int64_t k, int32_t trans_a, int32_t trans_b,
             const void *a, int64_t stride_a, const void *b, int64_t stride_b,
             const void *c, float alpha, float beta, int32_t allow_tf32,
             int32_t epilogue, void *vector, void *aux, int64_t aux_ld, void *d,
             void *stream) {
  if (failed() || !checkTypes(a_dtype, c_dtype) ||
      !checkSizes(batch, m, n, k, stride_a, stride_b) ||
      !checkPointers(a, b, c) || !checkPointers(a, b, d) ||
      (aux_ld ? !checkAux(epilogue, n, aux, aux_ld)
              : epilogue && !checkEpilogue(epilogue, c_dtype, vector, batch)) ||
      (epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS && !vector &&
       !fail("amp_gpu_gemm_aux: null vector pointer")) ||
      !ready())
    return;
  // A batch of products with one shared B and dense, untransposed A[b]
  // (a linear layer over [batch, rows, features]) is one GEMM with batch x m
  // rows: C[b] are dense too (and aux[b], m * aux_ld apart). One large
  // GEMM tiles better than a batch.
  if (batch > 1 && stride_b == 0 && !trans_a && stride_a == m * k) {
    m *= batch;
    batch = 1;
  }
  Gemm &g = gemmState();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (!ensureHandle(g))
    return;
  bool hasVector = epilogue && epilogue != AMP_GEMM_EPILOGUE_GELU_AUX &&
                   epilogue != AMP_GEMM_EPILOGUE_DGELU;
  if (!hasVector)
    vector = nullptr;
  PlanKey key =
      makeKey(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a, stride_a,
              b, stride_b, c, d, allow_tf32, epilogue, vector, aux, aux_ld);
  const Plan *plan = findPlan(g, key, vector, aux);
  if (!plan)
    return;
  // The vector and aux change from call to call; the plan is shared (the
  // mutex is held until the matmul is queued).
  if (hasVector && !checkLt(g,
                            g.lt.cublasLtMatmulDescSetAttribute(
                                plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                &vector, sizeof(vector)),
                            "setting the cuBLASLt bias pointer"))
    return;
  if (aux && !checkLt(g,
                      g.lt.cublasLtMatmulDescSetAttribute(
                          plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                          &aux, sizeof(aux)),
                      "setting the cuBLASLt aux pointer"))
    return;
  // alpha and beta are host floats: the descriptor's scale type is f32 and
  // the pointer mode the default (host). The caller's stream is the one the
  // step's kernels run on (every stream compiled code asks for is the
  // runtime's, see mgpuStreamCreate), so the product runs in order with them.
  CUstream on = stream ? static_cast<CUstream>(stream) : amp::cuda::stream();
  cublasStatus_t status = g.lt.cublasLtMatmul(
      g.handle, plan->desc, &alpha, b, plan->first, a, plan->second, &beta, c,
      plan->out, d, plan->out, &plan->algo, g.workspace, kWorkspaceBytes, on);
  if (status != CUBLAS_STATUS_SUCCESS)
    checkLt(g, status, "running a cuBLASLt GEMM (" + describeGemm(key) + ")");
}
} // namespace

extern "C" void amp_gpu_gemm(int32_t a_dtype, int32_t c_dtype, int64_t batch,
                             int64_t m, int64_t n, int64_t k, int32_t trans_a,
                             int32_t trans_b, const void *a, int64_t stride_a,
                             const void *b, int64_t stride_b, void *c,
                             float alpha, float beta, int32_t allow_tf32,
                             void *stream) {
  runGemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a, stride_a, b,
          stride_b, c, alpha, beta, allow_tf32, 0, nullptr, nullptr, 0, c,
          stream);
}

extern "C" void
amp_gpu_gemm_epilogue(int32_t a_dtype, int32_t c_dtype, int64_t batch,
                      int64_t m, int64_t n, int64_t k, int32_t trans_a,
                      int32_t trans_b, const void *a, int64_t stride_a,
                      const void *b, int64_t stride_b, void *c, float alpha,
                      float beta, int32_t allow_tf32, int32_t epilogue,
                      void *vector, void *stream) {
  runGemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a, stride_a, b,
          stride_b, c, alpha, beta, allow_tf32, epilogue, vector, nullptr, 0, c,
          stream);
}

extern "C" void amp_gpu_gemm_ex(int32_t a_dtype, int32_t c_dtype, int64_t batch,
                                int64_t m, int64_t n, int64_t k,
                                int32_t trans_a, int32_t trans_b, const void *a,
                                int64_t stride_a, const void *b,
                                int64_t stride_b, const void *c, float alpha,
                                float beta, int32_t allow_tf32,
                                int32_t epilogue, void *vector, void *d,
                                void *stream) {
  runGemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a, stride_a, b,
          stride_b, c, alpha, beta, allow_tf32, epilogue, vector, nullptr, 0, d,
          stream);
}

extern "C" void amp_gpu_gemm_aux(int32_t a_dtype, int32_t c_dtype,
                                 int64_t batch, int64_t m, int64_t n, int64_t k,
                                 int32_t trans_a, int32_t trans_b,
                                 const void *a, int64_t stride_a, const void *b,
                                 int64_t stride_b, const void *c, float alpha,
                                 float beta, int32_t allow_tf32,
                                 int32_t epilogue, void *vector, void *aux,
                                 int64_t aux_ld, void *d, void *stream) {
  // aux_ld 0 would read as "no aux": the checks want a real one.
  if (aux_ld == 0 && !failed()) {
    fail("amp_gpu_gemm_aux: the aux matrix's leading dimension 0 must be a "
         "multiple of 8 and at least n = " +
         std::to_string(n) +
         " (cuBLASLt's CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD)");
    return;
  }
  runGemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a, stride_a, b,
          stride_b, c, alpha, beta, allow_tf32, epilogue, vector, aux, aux_ld,
          d, stream);
}

namespace {
/// amp_gpu_gemm_fp8's checks before cuBLASLt: CublasLtFp8Rules.h's rules on
/// this device, then the pointers.
bool checkFp8Gemm(const amp::Fp8GemmConfig &config, const void *a,
                  const void *b, const float *aScaleInv, const float *bScaleInv,
                  const void *d) {
  std::string what =
      std::string("amp_gpu_gemm_fp8 (") + dtypeName(config.aType) + " x " +
      dtypeName(config.bType) + " -> " + dtypeName(config.dType) + ", m " +
      std::to_string(config.m) + ", n " + std::to_string(config.n) + ", k " +
      std::to_string(config.k) + ", trans_a " + std::to_string(config.transA) +
      ", trans_b " + std::to_string(config.transB) + ")";
  int sm = device().ccMajor * 10 + device().ccMinor;
  if (const char *reason = amp::cublasLtFp8Refusal(config, sm))
    return fail(what + ": cuBLASLt on " + smName() +
                " does not run this GEMM (" + reason + ")");
  if (!a || !b || !d || !aScaleInv || !bScaleInv)
    return fail(what + ": null operand or scale pointer");
  if (const char *reason =
          amp::cublasLtFp8PointerRefusal(a, b, d, aScaleInv, bScaleInv))
    return fail(what + ": " + reason);
  return true;
}
} // namespace

extern "C" void amp_gpu_gemm_fp8(int32_t a_dtype, int32_t b_dtype,
                                 int32_t d_dtype, int64_t m, int64_t n,
                                 int64_t k, int32_t trans_a, int32_t trans_b,
                                 const void *a, const void *b,
                                 const float *a_scale_inv,
                                 const float *b_scale_inv, const void *bias,
                                 int32_t fast_accum, void *d, void *stream) {
  // The device is needed for its compute capability: ready() first.
  if (failed() || !ready())
    return;
  amp::Fp8GemmConfig config;
  config.aType = a_dtype;
  config.bType = b_dtype;
  config.dType = d_dtype;
  config.m = m;
  config.n = n;
  config.k = k;
  config.transA = trans_a != 0;
  config.transB = trans_b != 0;
  config.biasType = bias ? amp::fp8BiasType(d_dtype) : -1;
  if (!checkFp8Gemm(config, a, b, a_scale_inv, b_scale_inv, d))
    return;
  Gemm &g = gemmState();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (!ensureHandle(g))
    return;
  void *vector = const_cast<void *>(bias);
  int32_t epilogue = bias ? AMP_GEMM_EPILOGUE_BIAS : 0;
  PlanKey key = makeKey(a_dtype, d_dtype, 1, m, n, k, trans_a, trans_b, a, 0, b,
                        0, d, d, 0, epilogue, vector, nullptr, 0);
  key.bType = b_dtype;
  key.fp8 = 1;
  key.fastAccum = fast_accum ? 1 : 0;
  const Plan *plan =
      findPlan(g, key, vector, nullptr, a_scale_inv, b_scale_inv);
  if (!plan)
    return;
  // The bias and scale pointers change from call to call; the plan is
  // shared (the mutex is held until the matmul is queued).
  if ((bias && !checkLt(g,
                        g.lt.cublasLtMatmulDescSetAttribute(
                            plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                            &vector, sizeof(vector)),
                        "setting the cuBLASLt bias pointer")) ||
      !checkLt(g,
               g.lt.cublasLtMatmulDescSetAttribute(
                   plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                   &b_scale_inv, sizeof(b_scale_inv)),
               "setting the cuBLASLt A scale pointer") ||
      !checkLt(g,
               g.lt.cublasLtMatmulDescSetAttribute(
                   plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                   &a_scale_inv, sizeof(a_scale_inv)),
               "setting the cuBLASLt B scale pointer"))
    return;
  // alpha 1 and beta 0 (C is D, not read): the scales are the pointers'.
  float alpha = 1.0f, beta = 0.0f;
  CUstream on = stream ? static_cast<CUstream>(stream) : amp::cuda::stream();
  cublasStatus_t status = g.lt.cublasLtMatmul(
      g.handle, plan->desc, &alpha, b, plan->first, a, plan->second, &beta, d,
      plan->out, d, plan->out, &plan->algo, g.workspace, kWorkspaceBytes, on);
  if (status != CUBLAS_STATUS_SUCCESS)
    checkLt(g, status,
            "running a cuBLASLt FP8 GEMM (" + describeGemm(key) + ")");
}
