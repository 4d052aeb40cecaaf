//===- OutputFile.cpp - outputs that a failing run never damages ----------===//
//
// See OutputFile.h for the rule. Plain C++ and POSIX.
//
//===----------------------------------------------------------------------===//

#include "amp/Support/OutputFile.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace amp;

namespace {
std::string reason(int error) { return std::strerror(error); }

/// The file a write to `path` really replaces: the final target of a chain
/// of symbolic links (which may not exist yet), or `path` itself.
std::string resolveTarget(const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
    return path;
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved))
    return resolved;
  return path; // A dangling link: rename replaces the link itself.
}

/// Permissions for a new output: what open(2) would give, 0666 less umask.
mode_t defaultMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}
} // namespace

bool amp::isDirectOutput(const std::string &path) {
  if (path == "-")
    return true;
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return false;
  // A directory is neither: open() refuses it.
  return !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
}

OutputFile::~OutputFile() { discard(); }

bool OutputFile::open(const std::string &path, std::string &error) {
  discard();
  path_ = path;
  direct_ = isDirectOutput(path);
  if (direct_) {
    writePath_ = path;
    return true;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    error = "cannot write '" + path + "': " + reason(EISDIR);
    return false;
  }
  target_ = resolveTarget(path);
  std::string temporary = target_ + ".tmp-XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    error = "cannot write '" + path + "': " + reason(errno);
    return false;
  }
  ::close(fd);
  writePath_ = temporary;
  pending_ = true;
  return true;
}

bool OutputFile::commit(std::string &error) {
  if (direct_ || !pending_)
    return true;
  struct stat info;
  mode_t mode = ::stat(target_.c_str(), &info) == 0 ? (info.st_mode & 07777)
                                                    : defaultMode();
  if (::chmod(writePath_.c_str(), mode) != 0 ||
      ::rename(writePath_.c_str(), target_.c_str()) != 0) {
    error = "cannot write '" + path_ + "': " + reason(errno);
    discard();
    return false;
  }
  pending_ = false;
  return true;
}

void OutputFile::discard() {
  if (pending_)
    ::unlink(writePath_.c_str());
  pending_ = false;
}
