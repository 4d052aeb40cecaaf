//===- LibraryFile.h - check a model library before dlopen ------*- C++ -*-===//
//
// dlopen maps a library's segments as its headers describe them: a library
// cut short (a partial copy, a full disk) maps pages past the end of the
// file, and the loader dies of SIGBUS touching them. amp-run checks the file
// first and says what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_LIBRARYFILE_H
#define AMP_RUN_LIBRARYFILE_H

#include <string>

namespace amp {

/// Checks that `path` is a 64-bit little-endian ELF shared library for this
/// host whose program and section header tables, segments and sections all
/// lie inside the file. Returns the empty string when it is, the reason
/// (naming no file) otherwise.
std::string checkSharedLibrary(const std::string &path);

} // namespace amp

#endif // AMP_RUN_LIBRARYFILE_H
