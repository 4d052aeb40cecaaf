//===- Diagnostics.h - the host's messages ----------------------*- C++ -*-===//
//
// How the host library reports what goes wrong: on standard error, named by
// the program that drives it ("amp-run: error: ..."). Messages name the
// option or file at fault as amp-run spells them (docs/Errors.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_DIAGNOSTICS_H
#define AMP_HOST_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace amp {

/// Prints the host's errors, warnings and notes on standard error, each
/// prefixed with the program's name.
class Diagnostics {
public:
  explicit Diagnostics(std::string tool) : toolName(std::move(tool)) {}

  /// "TOOL: error: MESSAGE" in one write; 1, a failed run's exit status.
  int error(const llvm::Twine &message) const;
  /// "TOOL: warning: MESSAGE".
  void warning(const llvm::Twine &message) const;
  /// "TOOL: MESSAGE": what the run does (the device, overlapped steps).
  void note(const llvm::Twine &message) const;

  llvm::StringRef tool() const { return toolName; }

private:
  std::string toolName;
};

/// A number as printf's %g writes it ("nan", "inf", "-1", "0.001").
std::string formatNumber(double value);

} // namespace amp

#endif // AMP_HOST_DIAGNOSTICS_H
