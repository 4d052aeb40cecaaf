//===- Profile.h - amp-run --profile: the emulated device's counts --------===//
//
// The emulated CUDA device (libamp_cuda_emulator.so) records every kernel
// launch (grid, block, device bytes loaded and stored) and every cuBLASLt
// GEMM (m, n, k, types, FLOPs) as a JSON line. amp-run --profile finds the
// device among the libraries the model's runtime opened, writes the lines
// of its steps to a file and prints a per-kernel summary.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_PROFILE_H
#define AMP_HOST_PROFILE_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amp {

class DeviceProfile {
public:
  /// Starts recording on the emulated device the model's runtime opened;
  /// false when there is none (a CPU library, a real GPU).
  bool start();
  /// The JSON lines recorded since start().
  std::vector<std::string> lines() const;

private:
  void (*forEach)(uint64_t, void (*)(const char *, void *), void *) = nullptr;
  uint64_t first = 0;
};

/// Prints, per kernel (name, grid and block) in order of first launch, the
/// launches, grid threads and device bytes, then the GEMMs per shape.
/// False with `error` set when a line is not a record of the device.
bool printProfileSummary(const std::vector<std::string> &lines,
                         llvm::raw_ostream &os, std::string &error);

} // namespace amp

#endif // AMP_HOST_PROFILE_H
