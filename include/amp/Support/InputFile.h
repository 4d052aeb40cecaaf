//===- InputFile.h - the files a user gives a run to read -------*- C++ -*-===//
//
// Every file a user names for a run to read (amp-run's --input and --data
// files, the checkpoint of --load that the model runtime reads,
// amp-compile's --policy) is opened through InputFile, so that the same rule
// holds everywhere:
//
// - only a regular file (after following links) is read. A character or
//   block device (/dev/zero never ends, /dev/null is always empty), a FIFO
//   (it blocks until a writer comes), a socket or a directory is refused
//   with the reason naming what it is, before anything is opened;
// - the file is opened with O_NONBLOCK, so that a FIFO put in its place
//   after that check cannot block the open, and what was opened is checked
//   again with fstat;
// - reads are bounded by the size fstat gave: a file that grows while it is
//   read is read up to that size, one that shrinks is an error.
//
// Header-only, plain C++ and POSIX: the model runtime, which carries its own
// copies of lib/Support's plain helpers, uses it without another source.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_INPUTFILE_H
#define AMP_SUPPORT_INPUTFILE_H

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace amp {

/// Why a file of mode `mode` is not read, or null for a regular file.
inline const char *describeNonRegularFile(mode_t mode) {
  if (S_ISREG(mode))
    return nullptr;
  if (S_ISDIR(mode))
    return "it is a directory";
  if (S_ISCHR(mode))
    return "it is a character device, not a regular file";
  if (S_ISBLK(mode))
    return "it is a block device, not a regular file";
  if (S_ISFIFO(mode))
    return "it is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode))
    return "it is a socket, not a regular file";
  return "it is not a regular file";
}

/// A regular file opened for reading, and its size when it was opened.
class InputFile {
public:
  InputFile() = default;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile() { close(); }

  /// Opens `path`; false with `reason` set ("No such file or directory",
  /// "it is a FIFO (named pipe), not a regular file", ...) otherwise. The
  /// caller names the option and the path.
  bool open(const std::string &path, std::string &reason) {
    close();
    struct stat info;
    // Devices are refused before open(): opening one can have effects (a
    // tape rewinds, a FIFO waits for a writer).
    if (::stat(path.c_str(), &info) != 0) {
      reason = std::strerror(errno);
      return false;
    }
    if (const char *what = describeNonRegularFile(info.st_mode)) {
      reason = what;
      return false;
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      reason = std::strerror(errno);
      return false;
    }
    // What was opened: the path may have been replaced since stat.
    const char *what = nullptr;
    if (::fstat(fd, &info) != 0)
      reason = std::strerror(errno);
    else if ((what = describeNonRegularFile(info.st_mode)))
      reason = what;
    else if (int flags = ::fcntl(fd, F_GETFL);
             flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
      reason = std::strerror(errno);
    else {
      fd_ = fd;
      size_ = static_cast<uint64_t>(info.st_size);
      return true;
    }
    ::close(fd);
    return false;
  }

  int fd() const { return fd_; }
  /// The file's size when it was opened: the most any read takes.
  uint64_t size() const { return size_; }

  /// Reads the whole file, size() bytes, into `buffer`; false with
  /// `reason` set when a read fails or the file shrank meanwhile.
  bool read(char *buffer, std::string &reason) const {
    uint64_t done = 0;
    while (done < size_) {
      ssize_t got = ::pread(fd_, buffer + done, size_ - done, off_t(done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0) {
        reason = std::strerror(errno);
        return false;
      }
      if (got == 0) {
        reason = "it shrank from " + std::to_string(size_) + " to " +
                 std::to_string(done) + " bytes while it was read";
        return false;
      }
      done += static_cast<uint64_t>(got);
    }
    return true;
  }

  /// Gives the descriptor to the caller, who closes it.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

  void close() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
    size_ = 0;
  }

private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

} // namespace amp

#endif // AMP_SUPPORT_INPUTFILE_H
