//===- ToolIO.h - the tools' inputs and outputs -----------------*- C++ -*-===//
//
// What amp-opt, amp-translate, amp-compile and the amp-report pass share
// for reading MLIR and writing files:
//
// - readMLIRInput refuses, with a message naming the file, what would make
//   the MLIR parser fail badly: a directory, an empty file, and text that
//   nests deeper than amp::kMaxNestingDepth (the parser recurses per level
//   and would overflow the stack).
// - OutputStream writes an output through amp::OutputFile (devices, FIFOs
//   and "-" in place, regular files through a temporary renamed on
//   success) with a raw_ostream, and turns every write error (a full disk,
//   /dev/full) into a message naming the file instead of LLVM's fatal
//   "IO failure on output stream".
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_TOOLIO_H
#define AMP_SUPPORT_TOOLIO_H

#include "amp/Support/NestingDepth.h"
#include "amp/Support/OutputFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace amp {

/// Whether `buffer` holds MLIR bytecode rather than text.
bool isMLIRBytecode(llvm::StringRef buffer);

/// Reads the MLIR input `path` ("-" for stdin). On failure returns null and
/// sets `error` to the diagnostic to print: "TOOL: error: ..." naming the
/// file and the reason, or "FILE:LINE:COL: error: ..." for excessive nesting.
std::unique_ptr<llvm::MemoryBuffer>
readMLIRInput(llvm::StringRef path, llvm::StringRef tool, std::string &error);

/// Whether the IR under `root` nests attributes, types or regions deeper
/// than `limit`. Input read from MLIR bytecode, which readMLIRInput cannot
/// scan, must pass this before it is printed, written or walked: those
/// recurse per level.
bool exceedsNestingDepth(mlir::Operation *root,
                         size_t limit = kMaxNestingDepth);

/// For a module read by a tool from `input`: false, with `error` set to the
/// diagnostic to print, when `input` is MLIR bytecode whose IR nests
/// deeper than kMaxNestingDepth.
bool checkBytecodeNesting(llvm::StringRef input, llvm::StringRef path,
                          mlir::Operation *module, std::string &error);

/// Whether `a` and `b` name the same existing file (through links).
bool isSameFile(llvm::StringRef a, llvm::StringRef b);

/// An output written through a raw_ostream: open(), write to os(),
/// commit(). Dropped without commit(), it leaves the target as it was.
class OutputStream {
public:
  OutputStream() = default;
  OutputStream(const OutputStream &) = delete;
  OutputStream &operator=(const OutputStream &) = delete;
  ~OutputStream();

  bool open(llvm::StringRef path, std::string &error);
  llvm::raw_fd_ostream &os() { return *stream; }
  const std::string &path() const { return file.path(); }

  /// Flushes and closes the stream; fails with "cannot write 'PATH':
  /// REASON" if any write failed. commit() finishes first if needed.
  bool finish(std::string &error);
  /// Makes what was written the output.
  bool commit(std::string &error);

private:
  OutputFile file;
  std::optional<llvm::raw_fd_ostream> stream;
  bool finished = false;
};

/// Writes `contents` to `path` through an OutputStream.
bool writeOutput(llvm::StringRef path, llvm::StringRef contents,
                 std::string &error);

} // namespace amp

#endif // AMP_SUPPORT_TOOLIO_H
