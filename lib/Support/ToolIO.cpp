//===- ToolIO.cpp - the tools' inputs and outputs -------------------------===//
//
// See ToolIO.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Support/ToolIO.h"
#include "amp/Support/NestingDepth.h"

#include "llvm/Support/FileSystem.h"

using namespace amp;

bool amp::isMLIRBytecode(llvm::StringRef buffer) {
  return buffer.starts_with("ML\xef\x52");
}

std::unique_ptr<llvm::MemoryBuffer> amp::readMLIRInput(llvm::StringRef path,
                                                       llvm::StringRef tool,
                                                       std::string &error) {
  std::string name = path == "-" ? "<stdin>" : path.str();
  std::string prefix = (tool + ": error: ").str();
  if (path != "-" && llvm::sys::fs::is_directory(path)) {
    error = prefix + "cannot read input file '" + name + "': it is a directory";
    return nullptr;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/true);
  if (!buffer) {
    error = prefix + "cannot open input file '" + name +
            "': " + buffer.getError().message();
    return nullptr;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  if (text.trim().empty()) {
    error =
        prefix + "input file '" + name + "' is empty: expected an MLIR module";
    return nullptr;
  }
  // Bytecode needs no scan: its reader resolves nested attributes and types
  // without recursing per level (test/amp-opt/deep-nesting.test).
  if (!isMLIRBytecode(text) &&
      !checkNestingDepth(std::string_view(text.data(), text.size()),
                         NestingSyntax::MLIR, name, "the MLIR input", error))
    return nullptr;
  return std::move(*buffer);
}

bool amp::isSameFile(llvm::StringRef a, llvm::StringRef b) {
  bool same = false;
  return a != "-" && b != "-" && !llvm::sys::fs::equivalent(a, b, same) && same;
}

namespace {
/// Flushes `stream` and closes its file (standard output stays open).
void closeStream(llvm::raw_fd_ostream &stream, llvm::StringRef path) {
  if (path == "-")
    stream.flush();
  else
    stream.close();
}
} // namespace

OutputStream::~OutputStream() {
  if (stream && !finished) {
    closeStream(*stream, file.path());
    stream->clear_error();
  }
}

bool OutputStream::open(llvm::StringRef path, std::string &error) {
  if (!file.open(path.str(), error))
    return false;
  std::error_code ec;
  stream.emplace(file.openForWriting(ec), /*shouldClose=*/true);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    stream->clear_error();
    stream.reset();
    file.discard();
    return false;
  }
  return true;
}

bool OutputStream::finish(std::string &error) {
  if (finished)
    return true;
  finished = true;
  closeStream(*stream, file.path());
  if (std::error_code ec = stream->error()) {
    stream->clear_error();
    error = (file.path() == "-" ? "cannot write to standard output"
                                : "cannot write '" + file.path() + "'") +
            ": " + ec.message();
    file.discard();
    return false;
  }
  return true;
}

bool OutputStream::commit(std::string &error) {
  return finish(error) && file.commit(error);
}

bool amp::writeOutput(llvm::StringRef path, llvm::StringRef contents,
                      std::string &error) {
  OutputStream output;
  if (!output.open(path, error))
    return false;
  output.os() << contents;
  return output.commit(error);
}
