//===- NestingDepth.cpp - bound the nesting of textual inputs -------------===//
//
// See NestingDepth.h. One pass over the text, no recursion, no allocation
// beyond the stack of open brackets (at most `limit` + 1 entries).
//
//===----------------------------------------------------------------------===//

#include "amp/Support/NestingDepth.h"

#include <vector>

using namespace amp;

namespace {
class NestingScanner {
public:
  NestingScanner(std::string_view text, NestingSyntax syntax, size_t limit)
      : text(text), syntax(syntax), limit(limit) {}

  std::optional<TextPosition> run() {
    while (pos < text.size()) {
      if (atLineStart && syntax == NestingSyntax::YAML && open.empty()) {
        if (scanYamlBlockIndicators())
          return here();
        if (pos >= text.size())
          break;
      }
      char c = text[pos];
      if (c == '"' || (c == '\'' && syntax == NestingSyntax::YAML)) {
        skipString(c);
        continue;
      }
      if (startsComment()) {
        skipToLineEnd();
        continue;
      }
      if (isOpener(c)) {
        open.push_back(c);
        if (depth() > limit)
          return here();
      } else {
        close(c);
      }
      advance();
    }
    return std::nullopt;
  }

private:
  TextPosition here() const { return {line, pos - lineStart + 1}; }
  size_t depth() const { return open.size() + blockDepth; }

  void advance() {
    if (text[pos] == '\n') {
      ++line;
      lineStart = pos + 1;
      atLineStart = true;
    } else if (text[pos] != ' ' && text[pos] != '\t' && text[pos] != '\r') {
      atLineStart = false;
    }
    ++pos;
  }

  bool isOpener(char c) const {
    return c == '[' || c == '{' ||
           (syntax == NestingSyntax::MLIR && (c == '(' || c == '<'));
  }

  /// Pops the bracket `c` closes, with any unmatched `<` above it (a `<`
  /// that never closed). A `>` closes only a `<` on top, and not as the
  /// `->` of a function type or an affine map.
  void close(char c) {
    if (c == '>') {
      if (!open.empty() && open.back() == '<' &&
          !(pos > 0 && text[pos - 1] == '-'))
        open.pop_back();
      return;
    }
    char opener = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : 0;
    if (!opener)
      return;
    size_t index = open.size();
    while (index > 0 && open[index - 1] == '<')
      --index;
    if (index > 0 && open[index - 1] == opener)
      open.resize(index - 1);
  }

  bool startsComment() const {
    if (syntax == NestingSyntax::MLIR)
      return text.compare(pos, 2, "//") == 0;
    if (syntax == NestingSyntax::YAML && text[pos] == '#')
      return pos == 0 || text[pos - 1] == ' ' || text[pos - 1] == '\t' ||
             text[pos - 1] == '\n';
    return false;
  }

  void skipToLineEnd() {
    while (pos < text.size() && text[pos] != '\n')
      advance();
  }

  /// Skips a string literal; `\` escapes in double quotes (in YAML single
  /// quotes, '' is two adjacent strings, which skips the same).
  void skipString(char quote) {
    advance();
    while (pos < text.size() && text[pos] != quote) {
      if (text[pos] == '\\' && quote == '"' && pos + 1 < text.size())
        advance();
      advance();
    }
    if (pos < text.size())
      advance();
  }

  static bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  /// At the start of a YAML line outside flow collections: the line nests
  /// one level per enclosing indentation and one per leading `- ` or `? `
  /// indicator. Returns true when that exceeds the limit.
  bool scanYamlBlockIndicators() {
    atLineStart = false;
    size_t indent = 0;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
      ++pos;
      ++indent;
    }
    if (pos >= text.size() || isBlank(text[pos]) || text[pos] == '#') {
      atLineStart = true;
      return false;
    }
    while (!indents.empty() && indents.back() > indent)
      indents.pop_back();
    if (indents.empty() || indents.back() < indent)
      indents.push_back(indent);
    blockDepth = indents.size();
    while (pos < text.size() && (text[pos] == '-' || text[pos] == '?') &&
           (pos + 1 >= text.size() || isBlank(text[pos + 1]))) {
      if (++blockDepth > limit)
        return true;
      ++pos;
      while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
        ++pos;
    }
    return depth() > limit;
  }

  std::string_view text;
  NestingSyntax syntax;
  size_t limit;
  size_t pos = 0;
  size_t line = 1;
  size_t lineStart = 0;
  bool atLineStart = true;
  std::vector<char> open;
  /// YAML: the indentation levels enclosing the current line.
  std::vector<size_t> indents;
  size_t blockDepth = 0;
};
} // namespace

std::optional<TextPosition> amp::findExcessiveNesting(std::string_view text,
                                                      NestingSyntax syntax,
                                                      size_t limit) {
  return NestingScanner(text, syntax, limit).run();
}

std::string amp::describeExcessiveNesting(const std::string &what,
                                          size_t limit) {
  return what + " nests deeper than " + std::to_string(limit) +
         " levels, the most the amp tools accept (deeper nesting would "
         "overflow the stack of the parser or the printer)";
}

bool amp::checkNestingDepth(std::string_view text, NestingSyntax syntax,
                            const std::string &path, const std::string &what,
                            std::string &error, size_t limit) {
  std::optional<TextPosition> at = findExcessiveNesting(text, syntax, limit);
  if (!at)
    return true;
  error = path + ":" + std::to_string(at->line) + ":" +
          std::to_string(at->column) +
          ": error: " + describeExcessiveNesting(what, limit);
  return false;
}
