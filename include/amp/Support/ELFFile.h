//===- ELFFile.h - check a shared object before dlopen ----------*- C++ -*-===//
//
// dlopen maps a shared object's segments as its headers describe them: an
// object cut short (a partial copy, a full disk, a corrupt kernel object
// embedded in a GPU library) maps pages past the end of the file, and the
// loader dies of SIGBUS touching them. amp-run (model libraries) and the
// emulated CUDA device (kernel objects) check the file first with this and
// say what is wrong. Plain C++ and POSIX, no LLVM: it is compiled into
// libamp_cuda_emulator.so too.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_ELFFILE_H
#define AMP_SUPPORT_ELFFILE_H

#include <string>

namespace amp {

/// Checks that the file open as `fd` is a 64-bit little-endian ELF shared
/// object for this host whose program and section header tables, segments
/// and sections all lie inside the file (read with pread: mapping it could
/// fault on the very truncation looked for). Returns the empty string when
/// it is, the reason (naming no file) otherwise.
std::string checkSharedObject(int fd);

/// The same for the file at `path` (opened without blocking, so a FIFO is
/// "not a regular file" rather than a hang).
std::string checkSharedObjectFile(const std::string &path);

/// Whether the ELF shared object open as `fd`, checked with
/// checkSharedObject, defines the dynamic symbol `name` (read from its
/// .dynsym with pread, without loading it): what tells a library of the
/// model ABI from any other without running its code.
bool definesDynamicSymbol(int fd, const char *name);

} // namespace amp

#endif // AMP_SUPPORT_ELFFILE_H
