//===- NestingDepth.h - bound the nesting of textual inputs -----*- C++ -*-===//
//
// MLIR's parser, llvm::json and llvm::yaml parse nested brackets by
// recursion: 10,000 nested `[`, `(` or `tuple<` overflow the stack and kill
// the tool with a signal. The tools scan their textual inputs first with
// this cheap, non-recursive scanner and refuse input that nests deeper than
// a limit far above any real model or policy file.
//
// The scanner is an upper bound, not a parser: it counts the brackets
// outside string literals and comments, and for YAML the block structure
// (indentation and `- `/`? ` indicators) as well.
//
// Plain C++ (no LLVM), like OutputFile.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_NESTINGDEPTH_H
#define AMP_SUPPORT_NESTINGDEPTH_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace amp {

/// The deepest nesting the tools accept. Real models nest a few tens of
/// levels; the parsers overflow an 8 MiB stack somewhere above 5,000.
constexpr size_t kMaxNestingDepth = 1000;

/// The syntax of the text to scan.
enum class NestingSyntax {
  /// MLIR's textual IR: ( [ { < nest, `//` starts a comment, "..." strings.
  MLIR,
  /// JSON: [ { nest, "..." strings.
  JSON,
  /// YAML: [ { nest, and so do indentation and `- `, `? ` indicators;
  /// `#` starts a comment, '...' and "..." strings.
  YAML,
};

/// A position in the text, 1-based.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};

/// Where `text` first nests deeper than `limit`, or nothing.
std::optional<TextPosition>
findExcessiveNesting(std::string_view text, NestingSyntax syntax,
                     size_t limit = kMaxNestingDepth);

/// "<what> nests deeper than LIMIT levels ...": the reason, without a place.
std::string describeExcessiveNesting(const std::string &what,
                                     size_t limit = kMaxNestingDepth);

/// Checks `text` read from `path`. On excessive nesting returns false and
/// sets `error` to "PATH:LINE:COL: error: <what> nests deeper than LIMIT levels
/// ...". `what` names the input ("the MLIR input", "the precision policy").
bool checkNestingDepth(std::string_view text, NestingSyntax syntax,
                       const std::string &path, const std::string &what,
                       std::string &error, size_t limit = kMaxNestingDepth);

} // namespace amp

#endif // AMP_SUPPORT_NESTINGDEPTH_H
