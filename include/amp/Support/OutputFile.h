//===- OutputFile.h - outputs that a failing run never damages --*- C++ -*-===//
//
// Every file a tool or the model runtime writes (amp-opt -o, amp-translate's
// module and checkpoint, amp-compile's library, amp-run's checkpoints and
// metrics) goes through OutputFile, so that the same rule holds everywhere:
//
// - a regular file (existing or new) is written to a temporary file in the
//   same directory and renamed over the target only by commit(): a run that
//   fails, or dies, leaves an existing output as it was;
// - anything else (a character or block device such as /dev/null or
//   /dev/full, a FIFO, a socket, or "-" for standard output) is written
//   directly, as LLVM's ToolOutputFile does: renaming over /dev/null as root
//   would replace the device with a regular file;
// - a symbolic link is followed: its target is replaced, the link is kept.
//
// Plain C++ and POSIX (no LLVM): the model runtime links it too.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_OUTPUTFILE_H
#define AMP_SUPPORT_OUTPUTFILE_H

#include <string>

namespace amp {

class OutputFile {
public:
  OutputFile() = default;
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  /// Discards the temporary file unless commit() succeeded.
  ~OutputFile();

  /// Prepares to write `path`. On failure returns false and sets `error` to a
  /// message naming the path and the reason.
  bool open(const std::string &path, std::string &error);

  /// The path to write the contents to: a temporary file next to the target,
  /// or the target itself when it is written directly ("-" for stdout).
  const std::string &writePath() const { return writePath_; }
  /// The output as the user named it.
  const std::string &path() const { return path_; }
  /// Whether the output is written in place (a device, a FIFO, stdout).
  bool isDirect() const { return direct_; }

  /// Makes the written contents the output: renames the temporary file over
  /// the target (keeping the target's permissions). On failure returns false,
  /// sets `error`, and leaves the target unchanged.
  bool commit(std::string &error);
  /// Drops what was written; the target stays as it was.
  void discard();

private:
  std::string path_;
  std::string target_;
  std::string writePath_;
  bool direct_ = false;
  bool pending_ = false;
};

/// Whether `path` names an output that must be written in place: "-", or an
/// existing device, FIFO or socket (after following links).
bool isDirectOutput(const std::string &path);

} // namespace amp

#endif // AMP_SUPPORT_OUTPUTFILE_H
