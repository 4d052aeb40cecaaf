//===- GPUCost.h - static cost of a GPU-lowered step ------------*- C++ -*-===//
//
// What a compiled training step costs on a GPU, from its IR alone (issue 17):
// launches with their grid, block, device-memory bytes and FLOPs, cuBLASLt
// GEMM calls, cuDNN fused-attention calls, host synchronisations,
// allocations and the peak device memory.
// A device model (data/devices.json, docs/CostModel.md) turns the counts into
// modeled times: max(bytes / bandwidth, FLOPs / peak) + overhead per entry.
// Every time here is modeled, never measured.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_GPUCOST_H
#define AMP_ANALYSIS_GPUCOST_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::amp {

/// One entry of a step, in program order.
struct GPUCostEntry {
  enum class Kind { Launch, Gemm, Attention, Sync, Alloc, Free, Copy, Call };
  Kind kind;
  /// Launch: "module::kernel"; Call: the callee.
  std::string name;
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  /// Device-memory footprint read and written (launches, GEMMs, copies).
  double bytesRead = 0, bytesWritten = 0;
  /// Launches: bytes the kernel's loads and stores access, repeats included
  /// (what the emulated device counts).
  double accessedRead = 0, accessedWritten = 0;
  /// Launches: bytes of the 32-byte sectors warps fetch or write beyond the
  /// ones their threads' elements fill, for loads and stores whose
  /// neighbouring threads do not touch neighbouring elements (no cache reuse
  /// assumed). Added to the footprint in the modeled time.
  double uncoalescedBytes = 0;
  double flops = 0;
  /// GEMMs (amp_gpu_gemm's operands).
  int64_t batch = 0, m = 0, n = 0, k = 0;
  std::string aType, cType;
  bool transA = false, transB = false, accumulate = false, allowTF32 = false;
  /// FP8 GEMMs (amp_gpu_gemm_fp8) only: B's type (A's is aType; empty for
  /// the other GEMMs) and cuBLASLt's fast accumulation.
  std::string bType;
  bool fastAccumulation = false;
  /// The cuBLASLt epilogue of amp_gpu_gemm_epilogue: "bias" (an f32 vector
  /// of n read) or "bgrad_a" (one of m written); empty for none.
  std::string epilogue;
  /// amp_gpu_gemm_ex: C is read from its own buffer and D written apart (a
  /// residual added by the GEMM).
  bool cApart = false;
  /// Attention calls (amp_gpu_attention_fwd/bwd, amp/Runtime/Attention.h):
  /// the problem (with `batch`, and aType for the operands' type), whether
  /// it is the backward, the mask ("keep", "add"; empty for none), the key
  /// and query pairs the softmax sees, and the kernels cuDNN launches.
  int64_t headsQ = 0, headsKV = 0, seqQ = 0, seqKV = 0, headDim = 0,
          headDimV = 0;
  bool backward = false, causal = false;
  std::string mask;
  double visiblePairs = 0;
  int64_t kernels = 1;
  /// Allocations and frees: the bytes, and the temporaries live after it.
  int64_t allocBytes = 0, liveBytes = 0;
  /// Filled by applyDeviceModel.
  double modeledSeconds = 0;

  double bytes() const { return bytesRead + bytesWritten; }
  int64_t threads() const {
    return grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
  }
};

/// The cost of one host function (a step).
struct GPUFunctionCost {
  std::string name;
  std::vector<GPUCostEntry> entries;
  /// Memref arguments (parameters, state, inputs, out-parameters).
  int64_t argumentBytes = 0;
  /// Of those, the arguments the step also writes (its state updated in
  /// place: amp.updated_in_place).
  int64_t updatedInPlaceBytes = 0;
  /// Arguments plus the most temporaries live at once.
  int64_t peakBytes = 0;

  int64_t count(GPUCostEntry::Kind kind) const;
  double totalBytes() const;
  double totalFlops() const;
  double modeledSeconds() const;
};

struct GPUCostReport {
  std::vector<GPUFunctionCost> functions;
  /// The device model applied, if any.
  std::string device;
};

/// A device for the model: datasheet figures and modeled overheads
/// (data/devices.json documents each field and its source).
struct DeviceModel {
  std::string key, name;
  double hbmBytesPerSecond = 0;
  /// Dense peaks, FLOP/s; peakFP8 for f8E4M3FN and f8E5M2 operands.
  double peakBF16 = 0, peakFP16 = 0, peakTF32 = 0, peakFP32 = 0, peakFP8 = 0;
  double launchSeconds = 0, syncSeconds = 0;
  /// Threads a launch needs in flight to reach the full bandwidth.
  double saturatingThreads = 1;
  /// Fraction of the tensor-core peak a GEMM reaches, by its FLOPs:
  /// (flops, fraction) points, interpolated in log(flops).
  std::vector<std::pair<double, double>> gemmEfficiency;
  /// Fraction of the tensor peak cuDNN's fused attention reaches, forward
  /// and backward.
  double attentionForwardEfficiency = 0, attentionBackwardEfficiency = 0;

  double gemmEfficiencyAt(double flops) const;
  double gemmPeak(StringRef aType, bool allowTF32) const;
  /// The tensor peak of `type` (bf16 or f16) times the attention efficiency.
  double attentionPeak(StringRef type, bool backward) const;
};

/// Counts the cost of every function with a body in `module`, which must be
/// GPU pipeline output with kernel bodies (gpu.func) still present. Emits an
/// error on the offending op and fails otherwise.
FailureOr<GPUCostReport> analyzeGPUCost(ModuleOp module);

/// Loads model `key` from the devices file at `path`; on failure returns
/// std::nullopt and sets `error` naming the file, the key and the reason.
std::optional<DeviceModel> loadDeviceModel(StringRef path, StringRef key,
                                           std::string &error);
/// The devices file of the source tree amp was built from.
StringRef defaultDevicesPath();

/// The modeled time of one cuBLASLt GEMM of an m x k by k x n product with
/// operands of `aType` (both; "f8E4M3FN" and "f8E5M2" run at peakFP8, one
/// byte per element) and a result of `cType` ("f32", "bf16", "f16"),
/// dense, written without reading C: as applyDeviceModel times a GEMM
/// entry (the memory and tensor-core bounds at the efficiency of its size,
/// plus one launch). No IR needed: what a pass deciding per GEMM whether
/// FP8 pays compares (the FP8 GEMM and its quantizations against the bf16
/// GEMM).
double modelGemmSeconds(const DeviceModel &model, int64_t m, int64_t n,
                        int64_t k, StringRef aType, StringRef cType);

/// Sets every entry's modeledSeconds.
void applyDeviceModel(GPUCostReport &report, const DeviceModel &model);

llvm::json::Value toJSON(const GPUCostReport &report);
/// One line per launch, GEMM, sync and copy, then the totals.
void printSummary(const GPUCostReport &report, llvm::raw_ostream &os);

/// Analyzes `module`, applies `device` (if not empty) from `devicesPath`
/// (the default if empty), writes the JSON report to `jsonPath` and the
/// summary to `summaryPath` (each skipped when empty; "-" is standard
/// output) through amp::OutputFile. What the GPU pipeline calls for
/// `amp-compile --cost-report`.
LogicalResult writeGPUCostReport(ModuleOp module, StringRef device,
                                 StringRef devicesPath, StringRef jsonPath,
                                 StringRef summaryPath);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_GPUCOST_H
