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
// - a symbolic link is followed: its target is replaced (or created, for a
//   link to a file that does not exist yet), the link is kept; a link into
//   a directory that does not exist is an error naming both.
//
// The temporary files not yet committed or discarded, and the temporary
// directories (TemporaryDirectory: amp-compile's link folder), are listed in
// fixed tables, so that a tool that calls removeTemporariesOnSignal() leaves
// none when SIGINT, SIGTERM or SIGHUP ends it.
//
// Plain C++ and POSIX (no LLVM): the model runtime links its own copy (a
// host process reaches that copy's table through
// amp_output_file_remove_temporaries).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_OUTPUTFILE_H
#define AMP_SUPPORT_OUTPUTFILE_H

#include <string>
#include <system_error>

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

  /// The path the contents go to: a temporary file next to the target, or
  /// the target itself when it is written directly ("-" for stdout).
  const std::string &writePath() const { return writePath_; }
  /// A new descriptor to write the contents through, which the caller
  /// closes; -1 with `ec` set on failure. For a temporary it is a duplicate
  /// of the one open() created the file with (emptied): writers never open
  /// a temporary by name, so one that a signal handler on another thread
  /// has just removed is not created again (the model runtime has worker
  /// threads). A direct output is opened by name ("-": standard output).
  int openForWriting(std::error_code &ec) const;
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

  /// For an output written in place that is a character device, whether it
  /// takes data: a write of no bytes fails on /dev/full as a real write
  /// would. A tool whose output comes after long work asks first; false
  /// with `error` naming the path and the reason.
  bool checkDeviceTakesData(std::string &error) const;

private:
  void closeTemporary();

  std::string path_;
  std::string target_;
  std::string writePath_;
  bool direct_ = false;
  bool pending_ = false;
  /// The temporary's descriptor while it is pending, or -1.
  int fd_ = -1;
  /// The temporary's entry in the table the signal handlers read, or -1.
  int slot_ = -1;
};

/// A directory for intermediate files (amp-compile's objects, glue and
/// linked library), made under $TMPDIR (or /tmp) with a unique name and
/// removed with its contents by the destructor, or by the signal handlers
/// of removeTemporariesOnSignal() when a signal ends the process first.
class TemporaryDirectory {
public:
  TemporaryDirectory() = default;
  TemporaryDirectory(const TemporaryDirectory &) = delete;
  TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;
  ~TemporaryDirectory();

  /// Creates `prefix`-XXXXXX under the temporary directory. On failure
  /// returns false with `error` set to the reason.
  bool create(const std::string &prefix, std::string &error);
  const std::string &path() const { return path_; }

private:
  std::string path_;
  /// Its entry in the table the signal handlers read, or -1.
  int slot_ = -1;
};

/// Whether `path` names an output that must be written in place: "-", or an
/// existing device, FIFO or socket (after following links).
bool isDirectOutput(const std::string &path);

/// Removes the temporary file of every OutputFile (of this copy of the
/// helper) that is neither committed nor discarded, and every
/// TemporaryDirectory with its contents. Async-signal-safe: it only reads
/// the fixed tables and makes system calls (unlink, getdents64, rmdir).
void removePendingTemporaries();

/// Makes SIGINT, SIGTERM and SIGHUP first call the functions given to
/// addSignalCleanup (which end child processes that write into a temporary
/// directory), then remove the pending temporaries, then take the action
/// they had before: the default ends the process, so that its exit status
/// still says which signal ended it. A signal the process ignores (nohup)
/// stays ignored. Tools call it once at the start, after llvm::InitLLVM,
/// whose handlers then run after these.
void removeTemporariesOnSignal();

/// Adds an async-signal-safe function for those handlers to call (at most
/// 4); false when the table is full.
bool addSignalCleanup(void (*cleanup)());

} // namespace amp

/// removePendingTemporaries() of this copy of the helper, under a C name: a
/// process that loads a model library (amp-run) looks it up in the library
/// to clean the library's own copy (a checkpoint being saved) on a signal.
extern "C" void amp_output_file_remove_temporaries(void);

#endif // AMP_SUPPORT_OUTPUTFILE_H
