//===- LibraryChecksum.cpp - the checksum at a library's end --------------===//
//
// The trailer's digest is LLVM's BLAKE3 (LibraryChecksum.h says why); the
// file is hashed in bounded pieces, read with pread, so that a library with
// gigabytes of initial values is not held in memory to be checked.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/LibraryChecksum.h"

#include "amp/Support/ELFFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/BLAKE3.h"

#include <algorithm>
#include <vector>

using namespace mlir::amp;

namespace {
using Digest = llvm::BLAKE3Result<32>;

void appendLittleEndian(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out += char((value >> (8 * i)) & 0xff);
}

/// Reads exactly `count` bytes at `offset`; false on a short read or error.
bool readAt(int fd, uint64_t offset, void *buffer, size_t count) {
  char *out = static_cast<char *>(buffer);
  while (count > 0) {
    ssize_t got = pread(fd, out, count, off_t(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    out += got;
    offset += uint64_t(got);
    count -= size_t(got);
  }
  return true;
}
} // namespace

std::string mlir::amp::libraryChecksumTrailer(const char *data, size_t size) {
  llvm::BLAKE3 hasher;
  hasher.update(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data), size));
  Digest digest = hasher.final<32>();
  std::string trailer(reinterpret_cast<const char *>(digest.data()),
                      digest.size());
  appendLittleEndian(trailer, uint64_t(size));
  trailer.append(kLibraryTrailerMagic, kLibraryTrailerMagicSize);
  return trailer;
}

std::string mlir::amp::verifyLibraryChecksum(int fd) {
  LibraryChecksum trailer;
  if (!readLibraryChecksum(fd, trailer)) {
    if (errno)
      return std::strerror(errno);
    if (!::amp::definesDynamicSymbol(fd, "amp_abi_version"))
      return "it is not a library made by amp-compile (the model ABI is "
             "missing)";
    return "it has no checksum at its end (a library from an amp-compile "
           "older than the checksum, or one cut short or appended to); "
           "recompile it";
  }
  uint64_t covered = trailer.coveredBytes;
  uint64_t size = trailer.fileSize;
  if (covered != size - kLibraryTrailerSize)
    return "its checksum covers " + std::to_string(covered) +
           " bytes but the library has " +
           std::to_string(size - kLibraryTrailerSize) +
           " before it: the library was cut or extended after amp-compile "
           "wrote it; recompile it";
  llvm::BLAKE3 hasher;
  std::vector<uint8_t> buffer(size_t(1) << 20);
  for (uint64_t offset = 0; offset < covered;) {
    size_t count = size_t(std::min<uint64_t>(buffer.size(), covered - offset));
    if (!readAt(fd, offset, buffer.data(), count))
      return "cannot read it: " +
             std::string(errno ? std::strerror(errno) : "it got shorter");
    hasher.update(llvm::ArrayRef<uint8_t>(buffer.data(), count));
    offset += count;
  }
  Digest digest = hasher.final<32>();
  if (std::memcmp(digest.data(), trailer.digest, digest.size()) != 0)
    return "checksum mismatch: the library was modified or damaged after "
           "amp-compile wrote it; recompile it";
  return "";
}
