//===- LoadedModel.cpp - a compiled model library, loaded -----------------===//
//
// The file is opened once and everything is checked through that
// descriptor: the ELF structure, then the checksum over every byte (read
// with pread, in bounded pieces), then the loader maps the same file
// through /proc/self/fd/N, so what is verified is the inode that is loaded
// (a library replaced by rename after the check is not the one mapped).
// The file's size and times are compared before and after the mapping: a
// write into the verified inode itself while it loads is refused too. (No
// check can cover a write into a library's file while it runs: its pages
// are read from the file at any later fault, as for every shared library.
// Copying it into an anonymous file first would cover it, at the cost of
// pinning the whole library, initial values included, in memory, and of
// the loader's, debuggers' and profilers' knowing the file by name; amp's
// outputs are renamed into place, never rewritten.)
//
//===----------------------------------------------------------------------===//

#include "amp/Host/LoadedModel.h"

#include "amp/Support/ELFFile.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::amp;

namespace {
/// What identifies the file's contents for the check that it did not
/// change while it was verified and mapped.
struct FileVersion {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  struct timespec modified = {}, changed = {};

  static bool of(int fd, FileVersion &version) {
    struct stat status;
    if (fstat(fd, &status) != 0)
      return false;
    version = {status.st_dev, status.st_ino, status.st_size, status.st_mtim,
               status.st_ctim};
    return true;
  }
  bool operator==(const FileVersion &other) const {
    return device == other.device && inode == other.inode &&
           size == other.size && modified.tv_sec == other.modified.tv_sec &&
           modified.tv_nsec == other.modified.tv_nsec &&
           changed.tv_sec == other.changed.tv_sec &&
           changed.tv_nsec == other.changed.tv_nsec;
  }
};

/// `text` with every "/proc/self/fd/N" (the name the loader knows the
/// library by) replaced by `path`.
std::string withPath(std::string text, const std::string &name,
                     const std::string &path) {
  for (size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + path.size()))
    text.replace(at, name.size(), path);
  return text;
}
} // namespace

std::unique_ptr<LoadedModel>
LoadedModel::open(const std::string &path, std::string &error, bool deepBind) {
  auto fail = [&](const std::string &reason) {
    error = "cannot load '" + path + "': " + reason;
    return nullptr;
  };
  std::unique_ptr<LoadedModel> model(new LoadedModel);
  // Without blocking: a FIFO is "not a regular file", not a hang.
  model->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (model->fd < 0)
    return fail(std::strerror(errno));
  FileVersion before, after;
  if (!FileVersion::of(model->fd, before))
    return fail(std::strerror(errno));
  // The structure first: its messages say how a file is cut or not a
  // library at all, which the checksum alone could not.
  std::string damage = ::amp::checkSharedObject(model->fd);
  if (damage.empty())
    damage = verifyLibraryChecksum(model->fd);
  if (damage.empty() &&
      (!FileVersion::of(model->fd, after) || !(after == before)))
    damage = "it changed while it was being checked";
  if (!damage.empty())
    return fail(damage);
  std::string name = "/proc/self/fd/" + std::to_string(model->fd);
  int flags = RTLD_NOW | RTLD_LOCAL | (deepBind ? RTLD_DEEPBIND : 0);
  model->handle = dlopen(name.c_str(), flags);
  if (!model->handle) {
    const char *reason = dlerror();
    return fail(reason ? withPath(reason, name, path) : "unknown reason");
  }
  if (!FileVersion::of(model->fd, after) || !(after == before))
    return fail("it changed while it was being loaded");
  auto resolve = [&](const char *symbol, auto &member) {
    member = reinterpret_cast<std::decay_t<decltype(member)>>(
        dlsym(model->handle, symbol));
    return member != nullptr;
  };
  bool complete = true;
#define AMP_RESOLVE(symbol, member) complete &= resolve(#symbol, model->member);
  AMP_MODEL_ABI_FUNCTIONS(AMP_RESOLVE)
#undef AMP_RESOLVE
#define AMP_RESOLVE_OPTIONAL(symbol, member) resolve(#symbol, model->member);
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_RESOLVE_OPTIONAL)
#undef AMP_RESOLVE_OPTIONAL
  if (!complete)
    return fail("it is not a library made by amp-compile (the model ABI is "
                "missing)");
  if (model->abiVersion() != AMP_ABI_VERSION)
    return fail("it has model ABI version " +
                std::to_string(model->abiVersion()) + " but this amp speaks " +
                std::to_string(AMP_ABI_VERSION));
  return model;
}

void *LoadedModel::symbol(const char *name) const {
  return dlsym(handle, name);
}

LoadedModel::~LoadedModel() {
  if (handle) {
    dlclose(handle);
    // The loader knows the library as /proc/self/fd/N. One it keeps loaded
    // after dlclose (a C++ library with unique symbols is never unloaded;
    // another LoadedModel of the same file holds it) would be what the next
    // dlopen of that name returns, whatever file the number then refers to:
    // the descriptor stays open, so the number is never reused.
    std::string name = "/proc/self/fd/" + std::to_string(fd);
    if (void *resident = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
      dlclose(resident);
      return;
    }
  }
  if (fd >= 0)
    ::close(fd);
}
