//===- Glue.cpp - the model descriptor as C++
//------------------------------===//
//
// The C++ source a compiled library's descriptor comes from: the tensor
// and entry tables of include/amp/Runtime/ModelDescriptor.h, calling the
// entry points of the lowered module.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::amp;

namespace {
/// `value` printed so that it reads back as the same double (raw_ostream's
/// default keeps 6 digits).
std::string exact(double value) {
  char text[40];
  snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

/// `text` escaped for the inside of a C string literal.
std::string cEscaped(StringRef text) {
  std::string result;
  for (char c : text) {
    if (c == '"' || c == '\\')
      result += '\\';
    if (llvm::isPrint(c)) {
      result += c;
    } else {
      char escape[8];
      snprintf(escape, sizeof(escape), "\\%03o", static_cast<unsigned char>(c));
      result += escape;
    }
  }
  return result;
}

/// A C string literal for `text`.
std::string quoted(StringRef text) { return "\"" + cEscaped(text) + "\""; }

void emitTensorInfos(llvm::raw_ostream &os, StringRef prefix,
                     ArrayRef<TensorDescription> tensors) {
  for (auto [index, tensor] : llvm::enumerate(tensors)) {
    os << "static const int64_t " << prefix << "_shape" << index << "[] = {";
    llvm::interleaveComma(tensor.shape, os);
    os << (tensor.shape.empty() ? "0" : "") << "};\n";
  }
  os << "static const amp_tensor_info " << prefix << "[] = {\n";
  for (auto [index, tensor] : llvm::enumerate(tensors)) {
    int64_t elements = 1;
    for (int64_t dim : tensor.shape)
      elements *= dim;
    os << "  {" << quoted(tensor.name) << ", "
       << static_cast<int32_t>(tensor.role) << ", " << tensor.dtype << ", "
       << tensor.shape.size() << ", " << prefix << "_shape" << index << ", "
       << elements << ", " << tensor.init << ", " << exact(tensor.initConstant)
       << ", " << tensor.fanIn << ", ";
    if (tensor.initOffset)
      os << "amp_initial_values + " << *tensor.initOffset;
    else
      os << "nullptr";
    os << ", " << tensor.labelRange << ", " << tensor.copyOf << "},\n";
  }
  if (tensors.empty())
    os << "  {}\n";
  os << "};\n";
}

void emitIntArray(llvm::raw_ostream &os, StringRef name,
                  ArrayRef<int32_t> values) {
  os << "static const int32_t " << name << "[] = {";
  llvm::interleaveComma(values, os);
  os << (values.empty() ? "0" : "") << "};\n";
}

/// The packed entry takes a pointer per argument and per result; the entry
/// point takes none for the results it writes in place.
void emitEntry(llvm::raw_ostream &os, StringRef prefix,
               const EntryDescription &entry) {
  SmallVector<size_t> passed;
  for (size_t i = 0; i < entry.args.size(); ++i)
    passed.push_back(i);
  for (size_t i = 0; i < entry.results.size(); ++i)
    if (!entry.resultInPlace[i])
      passed.push_back(entry.args.size() + i);
  os << "extern \"C\" void " << entry.symbol << "(";
  for (size_t i = 0; i < passed.size(); ++i)
    os << (i ? ", " : "") << "void *";
  os << ");\n";
  os << "static void " << prefix << "_packed(void **b) {\n  " << entry.symbol
     << "(";
  for (size_t i = 0; i < passed.size(); ++i)
    os << (i ? ", " : "") << "b[" << passed[i] << "]";
  os << ");\n}\n";
  emitIntArray(os, (prefix + "_args").str(), entry.args);
  emitIntArray(os, (prefix + "_updates").str(), entry.resultUpdates);
  emitIntArray(os, (prefix + "_in_place").str(), entry.resultInPlace);
  emitTensorInfos(os, (prefix + "_results").str(), entry.results);
}

void emitEntryDescriptor(llvm::raw_ostream &os, StringRef prefix,
                         const EntryDescription &entry) {
  os << "{" << prefix << "_packed, " << entry.args.size() << ", " << prefix
     << "_args, " << entry.results.size() << ", " << prefix << "_results, "
     << prefix << "_updates, " << prefix << "_in_place, " << entry.lossResult
     << ", " << entry.skippedResult << "}";
}

/// `text` as one tab-separated field of a line.
std::string field(StringRef text) {
  std::string result = text.str();
  llvm::replace(result, '\t', ' ');
  llvm::replace(result, '\n', ' ');
  return result;
}

/// amp_build_argument and, for an instrumented step, amp_nonfinite_sites
/// (include/amp/Runtime/NonfiniteABI.h).
void emitDebuggingTables(llvm::raw_ostream &os, const ModelDescription &model) {
  os << "static const char *const build_arguments[] = {";
  for (const std::string &argument : model.buildArguments)
    os << quoted(argument) << ", ";
  os << "nullptr};\n"
     << "extern \"C\" const char *amp_build_argument(int32_t index) {\n"
     << "  return index >= 0 && index < " << model.buildArguments.size()
     << " ? build_arguments[index] : nullptr;\n}\n";
  if (model.nonfiniteSites.empty())
    return;
  std::string table;
  auto rows = [](ArrayRef<int64_t> rows) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(rows, os, ",");
    return text;
  };
  for (const NonfiniteSite &site : model.nonfiniteSites)
    table += field(site.kind) + "\t" + field(site.name) + "\t" +
             field(site.location) + "\t" + field(site.precision) + "\t" +
             rows(site.resultRows) + "\t" + rows(site.operandRows) + "\t" +
             (site.f32Rows ? rows(*site.f32Rows) : "") + "\n";
  os << "extern \"C\" const char *amp_nonfinite_sites(void) {\n  return "
     << quoted(table) << ";\n}\n";
}

/// amp_index_sites (include/amp/Runtime/NonfiniteABI.h), where an entry
/// point checks indices.
void emitIndexSites(llvm::raw_ostream &os, const ModelDescription &model) {
  auto table = [](const EntryDescription &entry) {
    std::string text;
    for (const std::string &site : entry.indexSites)
      text += site + "\n";
    return text;
  };
  std::string step = table(model.step);
  std::string eval = model.eval ? table(*model.eval) : "";
  if (step.empty() && eval.empty())
    return;
  os << "extern \"C\" const char *amp_index_sites(int32_t entry) {\n"
     << "  return entry == 0 ? " << quoted(step) << " : entry == 1 ? "
     << quoted(eval) << " : nullptr;\n}\n";
}
} // namespace

std::string mlir::amp::generateGlue(const ModelDescription &model,
                                    StringRef blobPath, bool cuda) {
  std::string glue;
  llvm::raw_string_ostream os(glue);
  os << "// Generated by amp-compile: the model descriptor.\n"
     << "#include \"amp/Runtime/ModelDescriptor.h\"\n\n";
  // Initial values are embedded with .incbin rather than as a C array: a
  // ResNet's 45 MB would otherwise be a very large source file.
  os << "extern \"C\" const unsigned char amp_initial_values[];\n"
     << "__asm__(\".section .rodata\\n.balign 64\\n"
     << ".hidden amp_initial_values\\namp_initial_values:\\n.incbin "
     << "\\\"" << cEscaped(cEscaped(blobPath)) << "\\\""
     << "\\n.byte 0\\n.previous\");\n\n";
  emitTensorInfos(os, "tensors", model.tensors);
  emitEntry(os, "step", model.step);
  if (model.eval)
    emitEntry(os, "eval", *model.eval);
  emitDebuggingTables(os, model);
  emitIndexSites(os, model);
  os << "static const amp_model_descriptor descriptor = {AMP_ABI_VERSION, "
     << model.tensors.size() << ", tensors, ";
  emitEntryDescriptor(os, "step", model.step);
  os << ", " << (model.eval ? 1 : 0) << ", ";
  if (model.eval)
    emitEntryDescriptor(os, "eval", *model.eval);
  else
    os << "{}";
  os << ", " << (cuda ? "amp_cuda_device_ops" : "nullptr") << "};\n"
     << "extern \"C\" const amp_model_descriptor *amp_model_descriptor_get("
        "void) {\n  return &descriptor;\n}\n";
  return glue;
}
