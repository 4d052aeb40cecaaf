//===- LibraryChecksum.h - the checksum at a library's end ------*- C++ -*-===//
//
// The checksum trailer of a compiled model library: amp-compile appends it
// (lib/Target/ModelLibrary/SharedLibrary.cpp), the one loader verifies it
// before dlopen (LoadedModel.h) and the data-parallel runtime compares the
// ranks' digests (lib/Runtime/DataParallel.cpp). The format is in this
// header alone so that the compile side, which writes it, does not link the
// loader.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_LIBRARYCHECKSUM_H
#define AMP_HOST_LIBRARYCHECKSUM_H

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace mlir::amp {

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

} // namespace mlir::amp

#endif // AMP_HOST_LIBRARYCHECKSUM_H
