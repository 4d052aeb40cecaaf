//===- LoadedModel.h - a compiled model library, loaded ---------*- C++ -*-===//
//
// The one loader of compiled model libraries (amp-run, amp-bisect through
// amp-run, the Python package, the nonfinite finder). A library with the C
// ABI of include/amp/Runtime/ModelABI.h is opened with its own symbol scope
// (several models live in one process: the Python package loads one per
// amp.compile) and its entry points resolved by name, after two checks of
// the file, before any of it is mapped:
//
// - its ELF structure (amp/Support/ELFFile.h): a file cut short would make
//   the dynamic loader fault;
// - the checksum amp-compile appended to it (the checksum trailer below):
//   bytes flipped anywhere (.dynamic, .dynsym, .rela.dyn, code, data) made
//   the dynamic loader or the first call die of SIGSEGV.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_MODELABI_LOADEDMODEL_H
#define AMP_TARGET_MODELABI_LOADEDMODEL_H

#include "amp/Runtime/ModelABI.h"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace mlir::amp {

/// The model ABI's functions; the optional ones (eval results, data
/// parallelism, overlapped steps) are null in libraries older than them.
#define AMP_MODEL_ABI_FUNCTIONS(X)                                             \
  X(amp_abi_version, abiVersion)                                               \
  X(amp_last_error, lastError)                                                 \
  X(amp_num_tensors, numTensors)                                               \
  X(amp_tensor, tensor)                                                        \
  X(amp_has_eval, hasEval)                                                     \
  X(amp_state_create, create)                                                  \
  X(amp_state_destroy, destroy)                                                \
  X(amp_state_tensor, stateTensor)                                             \
  X(amp_set_hyperparameter, setHyperparameter)                                 \
  X(amp_train_step, trainStep)                                                 \
  X(amp_eval, eval)                                                            \
  X(amp_state_save, save)                                                      \
  X(amp_state_load, load)
#define AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(X)                                    \
  X(amp_num_eval_results, numEvalResults)                                      \
  X(amp_eval_result_info, evalResultInfo)                                      \
  X(amp_eval_result, evalResult)                                               \
  X(amp_dp_rank, dpRank)                                                       \
  X(amp_dp_world_size, dpWorldSize)                                            \
  X(amp_train_step_begin, beginStep)                                           \
  X(amp_train_step_finish, finishStep)                                         \
  X(amp_train_step_finished_scales, finishedScales)

/// The checksum trailer amp-compile appends after the ELF file's last byte
/// (the dynamic loader never reads past the segments and sections):
///
///   [library: N bytes][BLAKE3-256 of those N bytes: 32][N: 8, little
///   endian][kLibraryTrailerMagic: 16]
///
/// BLAKE3 because it is in LLVM's Support library (every tool and the
/// Python package link it), hashes gigabytes a second (a library embeds the
/// model's initial values; loading must stay fast) and is incremental (the
/// file is read in bounded pieces). Its strength is not a defence: whoever
/// can rewrite the library can rewrite the trailer. It detects damage (a
/// bad copy, a bit flip on disk, an edit), which any 64-bit hash would; a
/// 256-bit one costs nothing more here.
inline constexpr char kLibraryTrailerMagic[] = "amp checksum v1\n";
inline constexpr size_t kLibraryTrailerMagicSize =
    sizeof(kLibraryTrailerMagic) - 1;
inline constexpr size_t kLibraryTrailerSize = 32 + 8 + kLibraryTrailerMagicSize;

/// The trailer for a library whose bytes are [data, data + size).
std::string libraryChecksumTrailer(const char *data, size_t size);

/// A checksum trailer as read, not yet checked against the bytes before it.
struct LibraryChecksum {
  /// BLAKE3-256 of the first `coveredBytes` bytes of the file.
  unsigned char digest[32];
  uint64_t coveredBytes = 0;
  /// The file's size, trailer included.
  uint64_t fileSize = 0;
};

/// Reads the trailer at the end of the file open as `fd` (with pread: the
/// file offset is left alone). False with errno set when the file cannot
/// be read, false with errno 0 when it is shorter than a trailer or does
/// not end in kLibraryTrailerMagic. Inline and plain POSIX: the
/// data-parallel runtime, linked into model libraries without LLVM,
/// compares the digests of the ranks' libraries (DataParallel.cpp).
inline bool readLibraryChecksum(int fd, LibraryChecksum &checksum) {
  struct stat status;
  if (fstat(fd, &status) != 0)
    return false;
  errno = 0;
  uint64_t size = uint64_t(status.st_size);
  if (size < kLibraryTrailerSize)
    return false;
  unsigned char trailer[kLibraryTrailerSize];
  for (size_t done = 0; done < kLibraryTrailerSize;) {
    ssize_t got = pread(fd, trailer + done, kLibraryTrailerSize - done,
                        off_t(size - kLibraryTrailerSize + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    done += size_t(got);
  }
  if (std::memcmp(trailer + 40, kLibraryTrailerMagic,
                  kLibraryTrailerMagicSize) != 0)
    return false;
  std::memcpy(checksum.digest, trailer, 32);
  checksum.coveredBytes = 0;
  for (int i = 7; i >= 0; --i)
    checksum.coveredBytes = (checksum.coveredBytes << 8) | trailer[32 + i];
  checksum.fileSize = size;
  return true;
}

/// Checks the trailer of the library open as `fd` against its contents
/// (read with pread). Returns the empty string when they match, the reason
/// (naming no file) otherwise.
std::string verifyLibraryChecksum(int fd);

class LoadedModel {
public:
  /// Opens the library at `path` (RTLD_LOCAL: its runtime does not serve
  /// another model's calls; with `deepBind`, RTLD_DEEPBIND too: its own
  /// definitions first, for a second copy of a model's runtime in a
  /// process). Null with `error` set ("cannot load 'PATH': REASON") when it
  /// is damaged, cannot be opened, lacks the ABI or speaks another version
  /// of it.
  static std::unique_ptr<LoadedModel>
  open(const std::string &path, std::string &error, bool deepBind = false);
  ~LoadedModel();
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;

  /// Any other symbol the library defines (or its dependencies), or null.
  void *symbol(const char *name) const;

#define AMP_DECLARE_FUNCTION(symbol, member)                                   \
  decltype(&::symbol) member = nullptr;
  AMP_MODEL_ABI_FUNCTIONS(AMP_DECLARE_FUNCTION)
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_DECLARE_FUNCTION)
#undef AMP_DECLARE_FUNCTION

private:
  LoadedModel() = default;
  void *handle = nullptr;
  /// The verified file, open while it is loaded: the loader maps it through
  /// /proc/self/fd/N, and knows objects by that name.
  int fd = -1;
};

} // namespace mlir::amp

#endif // AMP_TARGET_MODELABI_LOADEDMODEL_H
