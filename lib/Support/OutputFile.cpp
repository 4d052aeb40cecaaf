//===- OutputFile.cpp - outputs that a failing run never damages ----------===//
//
// See OutputFile.h for the rule. Plain C++ and POSIX.
//
//===----------------------------------------------------------------------===//

#include "amp/Support/OutputFile.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <iterator>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace amp;

namespace {
std::string reason(int error) { return std::strerror(error); }

/// The signals whose handlers remove the pending temporaries.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// The table of pending temporaries the handlers read. A slot is free (0),
/// being filled (1) or holds a path (2); a fixed array because a handler
/// can neither allocate nor take a lock. 256 outputs at once is far above
/// what a tool opens (amp-run: metrics, profile, a file per --eval-output
/// result); one past that still works, unlisted.
struct TemporarySlot {
  std::atomic<int> state{0};
  char path[PATH_MAX] = {};
};
constexpr int kTemporarySlots = 256;
TemporarySlot temporaries[kTemporarySlots];
/// The temporary directories: a tool makes one at a time (amp-compile's
/// link folder); a few more are room to spare.
constexpr int kDirectorySlots = 8;
TemporarySlot directories[kDirectorySlots];

template <int N>
int listTemporary(TemporarySlot (&table)[N], const std::string &path) {
  if (path.size() >= PATH_MAX)
    return -1;
  for (int i = 0; i < N; ++i) {
    int expected = 0;
    if (!table[i].state.compare_exchange_strong(expected, 1))
      continue;
    std::memcpy(table[i].path, path.c_str(), path.size() + 1);
    table[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;
}
int listTemporary(const std::string &path) {
  return listTemporary(temporaries, path);
}

template <int N> void unlistTemporary(TemporarySlot (&table)[N], int &slot) {
  if (slot >= 0)
    table[slot].state.store(0, std::memory_order_release);
  slot = -1;
}
void unlistTemporary(int &slot) { unlistTemporary(temporaries, slot); }

/// The entry layout getdents64 fills (no libc header declares it).
struct DirectoryEntry {
  uint64_t inode;
  int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};

/// Removes `name` in the directory `parent` (a descriptor, or AT_FDCWD for
/// a path), a directory with everything in it, down to `depth` levels
/// (amp's temporary directories are flat; deeper ones are not removed).
/// Async-signal-safe: system calls only, on a fixed buffer per level.
/// Returns whether it is gone.
bool removeTree(int parent, const char *name, int depth) {
  if (::unlinkat(parent, name, 0) == 0 || errno == ENOENT)
    return true;
  if (errno != EISDIR && errno != EPERM)
    return false;
  int fd =
      ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  // Entries are unlinked while the directory is read: read it again from
  // the start until a pass finds nothing (a writer still at work adds
  // files), at most a few times.
  alignas(8) char buffer[1024];
  for (int pass = 0; pass < 100; ++pass) {
    bool removedAny = false;
    ::lseek(fd, 0, SEEK_SET);
    long count;
    while ((count = ::syscall(SYS_getdents64, fd, buffer, sizeof(buffer))) >
           0) {
      for (long at = 0; at < count;) {
        auto *entry = reinterpret_cast<DirectoryEntry *>(buffer + at);
        at += entry->length;
        const char *child = entry->name;
        if (child[0] == '.' &&
            (child[1] == 0 || (child[1] == '.' && child[2] == 0)))
          continue;
        if (depth > 0 && removeTree(fd, child, depth - 1))
          removedAny = true;
        else if (depth == 0 && ::unlinkat(fd, child, 0) == 0)
          removedAny = true;
      }
    }
    if (!removedAny)
      break;
  }
  ::close(fd);
  return ::unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

/// Six random characters for a unique name.
std::string randomName() {
  static const char kLetters[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static std::atomic<uint64_t> counter{0};
  uint64_t bits = 0;
  if (::getrandom(&bits, sizeof(bits), 0) != ssize_t(sizeof(bits)))
    bits = (uint64_t(::getpid()) << 32) ^ uint64_t(::time(nullptr)) ^
           (counter.fetch_add(1) * 0x9E3779B97F4A7C15ull);
  std::string name;
  for (int i = 0; i < 6; ++i, bits /= 62)
    name += kLetters[bits % 62];
  return name;
}

std::atomic<void (*)()> signalCleanups[4];
struct sigaction previousActions[std::size(kSignals)];

void removeOnSignal(int signal) {
  int savedErrno = errno;
  // The cleanups first: they end the processes (amp-compile's linker) that
  // could still write into a temporary directory.
  for (auto &cleanup : signalCleanups)
    if (void (*function)() = cleanup.load())
      function();
  amp::removePendingTemporaries();
  // The signal is blocked while this runs: raised again, it takes the
  // previous action (the default: the process ends) once this returns.
  for (size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == signal)
      ::sigaction(signal, &previousActions[i], nullptr);
  ::raise(signal);
  errno = savedErrno;
}

/// Creates a new temporary file `base` + 6 random characters, listed before
/// it is created: a signal handled on any thread (the model runtime has
/// workers, and blocking signals in one thread does not stop them) finds
/// every temporary that exists. (A name taken already, 1 in 62^6, is listed
/// only for the moment of its failed open.) Returns the descriptor and sets
/// `path` and `slot`, or returns -1 with errno set.
int createListedTemporary(const std::string &base, std::string &path,
                          int &slot) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    path = base + randomName();
    slot = listTemporary(path);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
      return fd;
    int failure = errno;
    unlistTemporary(slot);
    errno = failure;
    if (failure != EEXIST)
      return -1;
  }
  errno = EEXIST;
  return -1;
}

/// The file a write to `path` replaces: the end of its chain of symbolic
/// links, which may not exist yet, or `path` itself. False with `error`
/// set for a chain that does not end (a loop).
bool resolveTarget(const std::string &path, std::string &target,
                   std::string &error) {
  target = path;
  // As many links as the kernel follows (ELOOP after 40).
  for (int hop = 0; hop < 40; ++hop) {
    struct stat info;
    if (::lstat(target.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
      return true;
    char link[PATH_MAX];
    ssize_t size = ::readlink(target.c_str(), link, sizeof(link));
    if (size < 0 || size == ssize_t(sizeof(link))) {
      error = "cannot write '" + path +
              "': " + reason(size < 0 ? errno : ENAMETOOLONG);
      return false;
    }
    std::string next(link, size_t(size));
    size_t slash = target.rfind('/');
    if (next.front() != '/' && slash != std::string::npos)
      next = target.substr(0, slash + 1) + next;
    target = std::move(next);
  }
  error = "cannot write '" + path + "': " + reason(ELOOP);
  return false;
}

/// Permissions for a new output: what open(2) would give, 0666 less umask.
mode_t defaultMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}
} // namespace

void amp::removePendingTemporaries() {
  for (TemporarySlot &slot : temporaries)
    if (slot.state.load(std::memory_order_acquire) == 2)
      ::unlink(slot.path);
  for (TemporarySlot &slot : directories)
    if (slot.state.load(std::memory_order_acquire) == 2)
      removeTree(AT_FDCWD, slot.path, /*depth=*/4);
}

bool TemporaryDirectory::create(const std::string &prefix, std::string &error) {
  // Where LLVM's and the C++ compiler's temporaries go.
  const char *base = std::getenv("TMPDIR");
  std::string directory = base && *base ? base : "/tmp";
  if (directory.size() > 1 && directory.back() == '/')
    directory.pop_back();
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = directory + "/" + prefix + "-" + randomName();
    // Listed before it exists, as a temporary file is (a signal handled on
    // any thread finds it).
    slot_ = listTemporary(directories, path);
    if (::mkdir(path.c_str(), 0700) == 0) {
      path_ = path;
      return true;
    }
    int failure = errno;
    unlistTemporary(directories, slot_);
    if (failure != EEXIST) {
      error = "cannot create a temporary directory in '" + directory +
              "': " + reason(failure);
      return false;
    }
  }
  error = "cannot create a temporary directory in '" + directory +
          "': " + reason(EEXIST);
  return false;
}

TemporaryDirectory::~TemporaryDirectory() {
  // Removed, then unlisted: a signal in between finds nothing left.
  if (!path_.empty())
    removeTree(AT_FDCWD, path_.c_str(), /*depth=*/4);
  unlistTemporary(directories, slot_);
}

extern "C" void amp_output_file_remove_temporaries(void) {
  amp::removePendingTemporaries();
}

bool amp::addSignalCleanup(void (*cleanup)()) {
  for (auto &slot : signalCleanups) {
    void (*expected)() = nullptr;
    if (slot.compare_exchange_strong(expected, cleanup))
      return true;
  }
  return false;
}

void amp::removeTemporariesOnSignal() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true))
    return;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = removeOnSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : kSignals)
    sigaddset(&action.sa_mask, signal);
  action.sa_flags = SA_RESTART;
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (::sigaction(kSignals[i], nullptr, &previousActions[i]) != 0)
      continue;
    bool ignored = !(previousActions[i].sa_flags & SA_SIGINFO) &&
                   previousActions[i].sa_handler == SIG_IGN;
    if (!ignored)
      ::sigaction(kSignals[i], &action, nullptr);
  }
}

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
  if (!resolveTarget(path, target_, error))
    return false;
  std::string temporary;
  int fd = createListedTemporary(target_ + ".tmp-", temporary, slot_);
  if (fd < 0) {
    // Through a link, the directory that is missing is the target's.
    error = "cannot write '" + path + "'" +
            (target_ == path ? "" : " (a link to '" + target_ + "')") + ": " +
            reason(errno);
    return false;
  }
  fd_ = fd;
  writePath_ = temporary;
  pending_ = true;
  return true;
}

int OutputFile::openForWriting(std::error_code &ec) const {
  int fd = -1;
  if (pending_) {
    if (::ftruncate(fd_, 0) == 0 && ::lseek(fd_, 0, SEEK_SET) == 0)
      fd = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  } else if (writePath_ == "-") {
    fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
  } else {
    fd = ::open(writePath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                0666);
  }
  ec = fd < 0 ? std::error_code(errno, std::generic_category())
              : std::error_code();
  return fd;
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
  // Unlisted after the rename: a signal in between unlinks a name that no
  // longer exists, not the output.
  pending_ = false;
  closeTemporary();
  unlistTemporary(slot_);
  return true;
}

void OutputFile::discard() {
  // Unlinked, then unlisted: a signal in between finds nothing left.
  if (pending_)
    ::unlink(writePath_.c_str());
  pending_ = false;
  closeTemporary();
  unlistTemporary(slot_);
}

void OutputFile::closeTemporary() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

bool OutputFile::checkDeviceTakesData(std::string &error) const {
  struct stat info;
  if (!direct_ || path_ == "-" || ::stat(path_.c_str(), &info) != 0 ||
      !S_ISCHR(info.st_mode))
    return true;
  int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  int failure = fd < 0 ? errno : ::write(fd, "", 0) < 0 ? errno : 0;
  if (fd >= 0)
    ::close(fd);
  if (failure)
    error = "cannot write '" + path_ + "': " + reason(failure);
  return failure == 0;
}
