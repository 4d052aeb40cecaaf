//===- NpyFile.cpp - the header of a .npy file ----------------------------===//

#include "amp/Host/NpyFile.h"
#include "amp/Runtime/ModelABI.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace {
constexpr StringLiteral kMagic("\x93NUMPY");

/// A recursive-descent reader of the header dict, which numpy writes as
/// repr() of a dict of three keys.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  bool parse(amp::NpyHeader &header, std::string &error) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!consume("{"))
      return fail(error, "it does not start with '{'");
    while (!consume("}")) {
      std::string key;
      if (!string(key) || !consume(":"))
        return fail(error, "expected a quoted key and ':'");
      if (key == "descr" && !seenDescr) {
        seenDescr = true;
        if (!string(header.descr))
          return fail(error, "'descr' is not a quoted string");
      } else if (key == "fortran_order" && !seenOrder) {
        seenOrder = true;
        if (!boolean(header.fortranOrder))
          return fail(error, "'fortran_order' is neither True nor False");
      } else if (key == "shape" && !seenShape) {
        seenShape = true;
        if (!shape(header.shape))
          return fail(error, "'shape' is not a tuple of non-negative "
                             "integers");
      } else {
        return fail(error, "unexpected key '" + key + "'");
      }
      if (!consume(",") && !peek("}"))
        return fail(error, "expected ',' or '}' after '" + key + "'");
    }
    if (!seenDescr || !seenOrder || !seenShape)
      return fail(error, std::string("it lacks '") +
                             (!seenDescr   ? "descr"
                              : !seenOrder ? "fortran_order"
                                           : "shape") +
                             "'");
    if (!rest.trim(" \n").empty())
      return fail(error, "text follows the closing '}'");
    return true;
  }

private:
  bool fail(std::string &error, const Twine &reason) {
    error = ("has a corrupt .npy header: " + reason).str();
    return false;
  }
  void skipSpaces() { rest = rest.ltrim(" "); }
  bool peek(StringRef token) {
    skipSpaces();
    return rest.starts_with(token);
  }
  bool consume(StringRef token) {
    skipSpaces();
    return rest.consume_front(token);
  }
  bool string(std::string &value) {
    skipSpaces();
    if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
      return false;
    char quote = rest.front();
    size_t end = rest.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    value = rest.slice(1, end).str();
    rest = rest.drop_front(end + 1);
    return true;
  }
  bool boolean(bool &value) {
    value = consume("True");
    return value || consume("False");
  }
  bool shape(SmallVectorImpl<int64_t> &dims) {
    if (!consume("("))
      return false;
    while (!consume(")")) {
      skipSpaces();
      uint64_t dim = 0;
      if (rest.consumeInteger(10, dim) || dim > uint64_t(INT64_MAX))
        return false;
      dims.push_back(static_cast<int64_t>(dim));
      // One element needs its comma, "(8,)": "(8)" is not a tuple.
      if (!consume(",") && (dims.size() == 1 || !peek(")")))
        return false;
    }
    return true;
  }

  StringRef rest;
};
} // namespace

std::string amp::npyHeader(StringRef descr, ArrayRef<int64_t> shape) {
  std::string dict =
      "{'descr': '" + descr.str() + "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : shape)
    dict += std::to_string(dim) + ", ";
  if (shape.size() > 1) // "(8,)" keeps its comma, "(2, 3)" drops the last
    dict.resize(dict.size() - 2);
  else if (shape.size() == 1)
    dict.pop_back();
  dict += "), }";
  // Preamble (10 bytes) + dict + padding + '\n' is a multiple of 64.
  size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - 10 - dict.size() - 1, ' ');
  dict += '\n';
  std::string header(kMagic);
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  return header + dict;
}

bool amp::looksLikeNpy(StringRef contents) {
  return contents.starts_with(kMagic);
}

bool amp::parseNpy(StringRef contents, NpyHeader &header, std::string &error) {
  if (!looksLikeNpy(contents)) {
    error = "is not a .npy file (it does not start with \"\\x93NUMPY\")";
    return false;
  }
  if (contents.size() < 10) {
    error = "is truncated: it ends inside the .npy preamble";
    return false;
  }
  uint8_t major = contents[6], minor = contents[7];
  if (major < 1 || major > 3 || minor != 0) {
    error = "has .npy format version " + std::to_string(major) + "." +
            std::to_string(minor) + " (amp-run reads 1.0, 2.0 and 3.0)";
    return false;
  }
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (contents.size() < 8 + lengthBytes) {
    error = "is truncated: it ends inside the .npy preamble";
    return false;
  }
  const char *field = contents.data() + 8;
  uint64_t headerLength = major == 1 ? support::endian::read16le(field)
                                     : support::endian::read32le(field);
  size_t offset = 8 + lengthBytes;
  if (contents.size() - offset < headerLength) {
    error = "is truncated: its .npy header announces " +
            std::to_string(headerLength) + " bytes but the file holds " +
            std::to_string(contents.size() - offset) + " after the preamble";
    return false;
  }
  header.data = contents.drop_front(offset + headerLength);
  return HeaderParser(contents.substr(offset, headerLength))
      .parse(header, error);
}

const char *amp::npyDescr(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    return "<f4";
  case AMP_DTYPE_F16:
    return "<f2";
  case AMP_DTYPE_I64:
    return "<i8";
  case AMP_DTYPE_I32:
    return "<i4";
  case AMP_DTYPE_I1:
    return "|b1";
  default:
    return nullptr; // numpy has no bf16
  }
}
