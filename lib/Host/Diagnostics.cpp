//===- Diagnostics.cpp - the host's messages ------------------------------===//

#include "amp/Host/Diagnostics.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

int amp::Diagnostics::error(const llvm::Twine &message) const {
  // One write per message: the ranks of a data-parallel run share stderr,
  // and llvm::errs() (unbuffered) would write each piece on its own.
  std::string line;
  llvm::raw_string_ostream os(line);
  os.enable_colors(llvm::errs().has_colors());
  llvm::WithColor::error(os, toolName) << message << "\n";
  llvm::errs() << line;
  return 1;
}

void amp::Diagnostics::warning(const llvm::Twine &message) const {
  llvm::WithColor::warning(llvm::errs(), toolName) << message << "\n";
}

void amp::Diagnostics::note(const llvm::Twine &message) const {
  llvm::errs() << toolName << ": " << message << "\n";
}

std::string amp::formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}
