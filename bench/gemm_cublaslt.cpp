//===- gemm_cublaslt.cpp - cuBLASLt GEMM throughput and copy bandwidth ----===//
//
// The ceilings amp's GPU step is compared with (issue 8, DESIGN.md section 7):
//
//  * plain cuBLASLt GEMMs in bf16 and fp16 (fp32 accumulation and scale,
//    output in the input type, the best heuristic algorithm with a 32 MiB
//    workspace) at the shapes of the benchmark workloads: the forward and
//    both backward GEMMs of every Linear of the MLP stack (16384 tokens,
//    2048 -> 8192 -> 2048) and of the GPT-2-small block (8 x 1024 tokens,
//    d 768), and the batched attention GEMMs (96 heads of 1024 x 1024 x 64);
//    in TFLOP/s (2 m n k batch / time);
//  * device-to-device cudaMemcpy bandwidth, counted as bytes read + bytes
//    written (the figure memory-bound kernels are measured against).
//
// Build on the GPU machine (no GPU is needed to compile it):
//
//   nvcc -O2 -std=c++17 bench/gemm_cublaslt.cpp -lcublasLt -o gemm_cublaslt
//   g++ -O2 -std=c++17 bench/gemm_cublaslt.cpp -I/usr/local/cuda/include
//       -L/usr/local/cuda/lib64 -lcublasLt -lcudart -o gemm_cublaslt
//   (one line; bench/run_gpu_benchmarks.sh builds it)
//
// Run: ./gemm_cublaslt [--iters N] [--markdown FILE]
//
//===----------------------------------------------------------------------===//

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(expr)                                                       \
  do {                                                                         \
    cudaError_t err_ = (expr);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,       \
                   cudaGetErrorString(err_));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_LT(expr)                                                         \
  do {                                                                         \
    cublasStatus_t st_ = (expr);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__,          \
                   __LINE__, #expr, static_cast<int>(st_));                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// A GEMM described as PyTorch computes it on row-major tensors:
// C[M, N] = op(A) op(B) with A [M, K] (or [K, M] when transA) and
// B [K, N] (or [N, K] when transB), `batch` independent products.
struct Gemm {
  const char *workload;
  const char *name;
  int64_t M, N, K;
  bool transA, transB;
  int64_t batch;
};

// Linear y = x W^T (x [T, in], W [out, in]) and its two gradients:
//   dx = dy W (dy [T, out]),  dW = dy^T x.
void addLinear(std::vector<Gemm> &out, const char *workload, const char *name,
               int64_t tokens, int64_t in, int64_t outFeatures) {
  static std::vector<std::string> names; // keeps the c_str()s alive
  names.reserve(1024);
  names.push_back(std::string(name) + " fwd");
  out.push_back({workload, names.back().c_str(), tokens, outFeatures, in, false,
                 true, 1});
  names.push_back(std::string(name) + " dx");
  out.push_back({workload, names.back().c_str(), tokens, in, outFeatures, false,
                 false, 1});
  names.push_back(std::string(name) + " dW");
  out.push_back({workload, names.back().c_str(), outFeatures, in, tokens, true,
                 false, 1});
}

std::vector<Gemm> workloadGemms() {
  std::vector<Gemm> g;
  // MLP stack: 16384 tokens, 2048 -> 8192 -> 2048.
  addLinear(g, "mlp_stack", "fc1 2048->8192", 16384, 2048, 8192);
  addLinear(g, "mlp_stack", "fc2 8192->2048", 16384, 8192, 2048);
  // GPT-2-small block: batch 8 x seq 1024, d 768, 12 heads of 64, MLP 3072.
  const int64_t T = 8 * 1024, D = 768, S = 1024, HD = 64, BH = 8 * 12;
  addLinear(g, "gpt2_block", "c_attn 768->2304", T, D, 3 * D);
  addLinear(g, "gpt2_block", "attn.c_proj 768->768", T, D, D);
  addLinear(g, "gpt2_block", "c_fc 768->3072", T, D, 4 * D);
  addLinear(g, "gpt2_block", "mlp.c_proj 3072->768", T, 4 * D, D);
  // Attention, per (batch, head): scores = q k^T, ctx = p v, and gradients.
  g.push_back({"gpt2_block", "q k^T (x96)", S, S, HD, false, true, BH});
  g.push_back({"gpt2_block", "p v (x96)", S, HD, S, false, false, BH});
  g.push_back({"gpt2_block", "dp = dctx v^T (x96)", S, S, HD, false, true, BH});
  g.push_back({"gpt2_block", "dv = p^T dctx (x96)", S, HD, S, true, false, BH});
  g.push_back({"gpt2_block", "dq = ds k (x96)", S, HD, S, false, false, BH});
  g.push_back({"gpt2_block", "dk = ds^T q (x96)", S, HD, S, true, false, BH});
  // A square reference shape.
  g.push_back({"reference", "8192^3", 8192, 8192, 8192, false, false, 1});
  return g;
}

struct Result {
  double ms = 0, tflops = 0;
  bool ok = false;
};

// Milliseconds that `iters` calls of `run` take on `stream` (CUDA events),
// after three warm-up calls.
template <typename Run>
float timeIterations(cudaStream_t stream, int iters, Run run) {
  for (int i = 0; i < 3; ++i)
    run();
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < iters; ++i)
    run();
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  return ms;
}

// Runs C = op(A) op(B) as cuBLASLt sees it: column-major, so the row-major
// product C = A B is computed as C^T = B^T A^T (swap operands, m <-> n).
Result timeGemm(cublasLtHandle_t handle, cudaStream_t stream, const Gemm &g,
                cudaDataType_t type, void *a, void *b, void *c, void *workspace,
                size_t workspaceBytes, int iters) {
  // Column-major view: m = N, n = M, first operand = B, second = A.
  const int64_t m = g.N, n = g.M, k = g.K;
  const cublasOperation_t opFirst = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opSecond = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  // Stored shapes (column-major rows x cols, leading dimension = rows).
  const int64_t firstRows = g.transB ? k : m, firstCols = g.transB ? m : k;
  const int64_t secondRows = g.transA ? n : k, secondCols = g.transA ? k : n;

  cublasLtMatmulDesc_t desc;
  CHECK_LT(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                          &opFirst, sizeof(opFirst)));
  CHECK_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                          &opSecond, sizeof(opSecond)));
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK_LT(
      cublasLtMatrixLayoutCreate(&la, type, firstRows, firstCols, firstRows));
  CHECK_LT(cublasLtMatrixLayoutCreate(&lb, type, secondRows, secondCols,
                                      secondRows));
  CHECK_LT(cublasLtMatrixLayoutCreate(&lc, type, m, n, m));
  if (g.batch > 1) {
    const int32_t count = static_cast<int32_t>(g.batch);
    const int64_t strides[3] = {firstRows * firstCols, secondRows * secondCols,
                                m * n};
    cublasLtMatrixLayout_t layouts[3] = {la, lb, lc};
    for (int i = 0; i < 3; ++i) {
      CHECK_LT(cublasLtMatrixLayoutSetAttribute(
          layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
          sizeof(count)));
      CHECK_LT(cublasLtMatrixLayoutSetAttribute(
          layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
          sizeof(strides[i])));
    }
  }
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = workspaceBytes;
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
  cublasLtMatmulHeuristicResult_t heuristic;
  std::memset(&heuristic, 0, sizeof(heuristic));
  int returned = 0;
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
      handle, desc, la, lb, lc, lc, pref, 1, &heuristic, &returned);
  Result r;
  if (st == CUBLAS_STATUS_SUCCESS && returned > 0) {
    const float alpha = 1.0f, beta = 0.0f;
    auto run = [&] {
      CHECK_LT(cublasLtMatmul(handle, desc, &alpha, b, la, a, lb, &beta, c, lc,
                              c, lc, &heuristic.algo, workspace, workspaceBytes,
                              stream));
    };
    r.ms = timeIterations(stream, iters, run) / iters;
    r.tflops = 2.0 * g.M * g.N * g.K * g.batch / (r.ms * 1e-3) / 1e12;
    r.ok = true;
  } else {
    std::fprintf(stderr, "no cuBLASLt algorithm for %s %s (status %d)\n",
                 g.workload, g.name, static_cast<int>(st));
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  return r;
}

// Device-to-device copy bandwidth, bytes read + written per second.
double copyBandwidth(cudaStream_t stream, size_t bytes, int iters) {
  void *from = nullptr, *to = nullptr;
  CHECK_CUDA(cudaMalloc(&from, bytes));
  CHECK_CUDA(cudaMalloc(&to, bytes));
  CHECK_CUDA(cudaMemsetAsync(from, 1, bytes, stream));
  float ms = timeIterations(stream, iters, [&] {
    CHECK_CUDA(
        cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
  });
  CHECK_CUDA(cudaFree(from));
  CHECK_CUDA(cudaFree(to));
  return 2.0 * bytes * iters / (ms * 1e-3);
}

} // namespace

int main(int argc, char **argv) {
  int iters = 20;
  const char *markdown = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--markdown") && i + 1 < argc)
      markdown = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--iters N] [--markdown FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  int deviceCount = 0;
  cudaError_t err = cudaGetDeviceCount(&deviceCount);
  if (err != cudaSuccess || deviceCount == 0) {
    std::fprintf(stderr, "no CUDA device: %s\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "count is 0");
    return 1;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int runtimeVersion = 0, driverVersion = 0;
  cudaRuntimeGetVersion(&runtimeVersion);
  cudaDriverGetVersion(&driverVersion);
  char machine[512];
  std::snprintf(machine, sizeof(machine),
                "%s (sm_%d%d, %.0f GiB), CUDA runtime %d, driver %d, "
                "cuBLASLt %zu",
                prop.name, prop.major, prop.minor,
                prop.totalGlobalMem / 1073741824.0, runtimeVersion,
                driverVersion, cublasLtGetVersion());
  std::printf("device: %s\n\n", machine);

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasLtHandle_t handle;
  CHECK_LT(cublasLtCreate(&handle));

  std::vector<Gemm> gemms = workloadGemms();
  size_t maxBytes = 0;
  for (const Gemm &g : gemms) {
    size_t elems[3] = {size_t(g.M * g.K * g.batch), size_t(g.K * g.N * g.batch),
                       size_t(g.M * g.N * g.batch)};
    for (size_t e : elems)
      maxBytes = e * 2 > maxBytes ? e * 2 : maxBytes;
  }
  void *a, *b, *c, *workspace;
  const size_t workspaceBytes = 32u << 20;
  CHECK_CUDA(cudaMalloc(&a, maxBytes));
  CHECK_CUDA(cudaMalloc(&b, maxBytes));
  CHECK_CUDA(cudaMalloc(&c, maxBytes));
  CHECK_CUDA(cudaMalloc(&workspace, workspaceBytes));
  // Small values (0x3c00 is 1.0 in fp16, 0x3f80 1.0 in bf16; a byte pattern
  // of 0x20 gives small normal numbers in both) so nothing overflows.
  CHECK_CUDA(cudaMemset(a, 0x20, maxBytes));
  CHECK_CUDA(cudaMemset(b, 0x20, maxBytes));

  std::string table =
      "| workload | GEMM | M | N | K | batch | bf16 ms | bf16 TFLOP/s | "
      "fp16 ms | fp16 TFLOP/s |\n| --- | --- | --- | --- | --- | --- | --- | "
      "--- | --- | --- |\n";
  std::printf("%-11s %-24s %6s %6s %6s %5s %9s %9s %9s %9s\n", "workload",
              "GEMM", "M", "N", "K", "batch", "bf16 ms", "TFLOP/s", "fp16 ms",
              "TFLOP/s");
  for (const Gemm &g : gemms) {
    Result bf = timeGemm(handle, stream, g, CUDA_R_16BF, a, b, c, workspace,
                         workspaceBytes, iters);
    Result fp = timeGemm(handle, stream, g, CUDA_R_16F, a, b, c, workspace,
                         workspaceBytes, iters);
    std::printf("%-11s %-24s %6lld %6lld %6lld %5lld %9.3f %9.1f %9.3f %9.1f\n",
                g.workload, g.name, (long long)g.M, (long long)g.N,
                (long long)g.K, (long long)g.batch, bf.ms, bf.tflops, fp.ms,
                fp.tflops);
    char row[512];
    std::snprintf(row, sizeof(row),
                  "| %s | %s | %lld | %lld | %lld | %lld | %.3f | %.1f | %.3f "
                  "| %.1f |\n",
                  g.workload, g.name, (long long)g.M, (long long)g.N,
                  (long long)g.K, (long long)g.batch, bf.ms, bf.tflops, fp.ms,
                  fp.tflops);
    table += row;
  }
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaFree(c));
  CHECK_CUDA(cudaFree(workspace));

  std::printf(
      "\ncopy bandwidth (cudaMemcpy device to device, read + write):\n");
  table += "\n| copy size | GB/s (read + write) |\n| --- | --- |\n";
  for (size_t mib : {64, 256, 1024, 4096}) {
    double bw = copyBandwidth(stream, mib << 20, iters);
    std::printf("  %5zu MiB  %8.1f GB/s\n", mib, bw / 1e9);
    char row[128];
    std::snprintf(row, sizeof(row), "| %zu MiB | %.1f |\n", mib, bw / 1e9);
    table += row;
  }
  if (markdown) {
    FILE *f = std::fopen(markdown, "w");
    if (!f) {
      std::perror(markdown);
      return 1;
    }
    std::fprintf(f, "device: %s\n\n%s", machine, table.c_str());
    std::fclose(f);
  }
  cublasLtDestroy(handle);
  cudaStreamDestroy(stream);
  return 0;
}
