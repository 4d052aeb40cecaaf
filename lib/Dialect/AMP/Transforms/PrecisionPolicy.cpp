//===- PrecisionPolicy.cpp - policy files and effective categories --------===//
//
// A policy file is read in three steps. Its nesting is bounded first
// (amp/Support/NestingDepth.h): both parsers below recurse per level and
// would overflow the stack on a file of 50,000 nested lists. JSON files are
// then parsed with llvm::json, which rejects what JSON forbids (comments,
// trailing commas, single quotes) and reports the line and column. Both formats
// are then read by one schema with llvm::yaml::Input (JSON is YAML flow
// syntax): it rejects unknown keys and misplaced values at their position, and
// every scalar keeps its position so that the semantic checks (unknown op
// kinds, bad levels, contradictions) report FILE:LINE:COL too.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"
#include "amp/Support/InputFile.h"
#include "amp/Support/NestingDepth.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Levels
//===----------------------------------------------------------------------===//

std::optional<PrecisionLevel> mlir::amp::parsePrecisionLevel(StringRef name) {
  return llvm::StringSwitch<std::optional<PrecisionLevel>>(name)
      .Case("default", PrecisionLevel::Default)
      .Case("tensor-cores-only", PrecisionLevel::TensorCoresOnly)
      .Case("unsafe-force-all", PrecisionLevel::UnsafeForceAll)
      .Case("infer-as-deny", PrecisionLevel::InferAsDeny)
      .Default(std::nullopt);
}

StringRef mlir::amp::stringifyPrecisionLevel(PrecisionLevel level) {
  switch (level) {
  case PrecisionLevel::Default:
    return "default";
  case PrecisionLevel::TensorCoresOnly:
    return "tensor-cores-only";
  case PrecisionLevel::UnsafeForceAll:
    return "unsafe-force-all";
  case PrecisionLevel::InferAsDeny:
    return "infer-as-deny";
  }
  llvm_unreachable("unknown level");
}

bool PolicyLists::empty() const {
  for (int i = 0; i < 4; ++i)
    if (!add[i].empty() || !remove[i].empty())
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The raw document (llvm::yaml schema)
//===----------------------------------------------------------------------===//

namespace {
/// A scalar and where it starts in the file.
struct RawScalar {
  std::string value;
  llvm::SMLoc loc;
};

struct RawLists {
  std::vector<RawScalar> add, remove;
};

struct RawPin {
  RawScalar name, precision;
};

struct RawPolicy {
  std::optional<RawScalar> precision, level, lpNorm;
  std::optional<RawLists> lists[4];
  std::vector<RawPin> pins;
};

/// The yaml::Input context: scalars read their position from it.
struct ReadContext {
  llvm::yaml::Input *input = nullptr;
};
} // namespace

LLVM_YAML_IS_FLOW_SEQUENCE_VECTOR(RawScalar)
LLVM_YAML_IS_SEQUENCE_VECTOR(RawPin)

namespace llvm::yaml {
template <> struct ScalarTraits<RawScalar> {
  static void output(const RawScalar &scalar, void *, raw_ostream &os) {
    os << scalar.value;
  }
  static StringRef input(StringRef text, void *context, RawScalar &scalar) {
    scalar.value = text.str();
    auto *read = static_cast<ReadContext *>(context);
    if (read && read->input)
      if (const Node *node = read->input->getCurrentNode())
        scalar.loc = node->getSourceRange().Start;
    return {};
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::Double; }
};

template <> struct MappingTraits<RawLists> {
  static void mapping(IO &io, RawLists &lists) {
    io.mapOptional("add", lists.add);
    io.mapOptional("remove", lists.remove);
  }
};

template <> struct MappingTraits<RawPin> {
  static void mapping(IO &io, RawPin &pin) {
    io.mapRequired("name", pin.name);
    io.mapRequired("precision", pin.precision);
  }
};

template <> struct MappingTraits<RawPolicy> {
  static void mapping(IO &io, RawPolicy &policy) {
    io.mapOptional("precision", policy.precision);
    io.mapOptional("level", policy.level);
    io.mapOptional("lp-norm", policy.lpNorm);
    io.mapOptional("allow", policy.lists[0]);
    io.mapOptional("infer", policy.lists[1]);
    io.mapOptional("deny", policy.lists[2]);
    io.mapOptional("clear", policy.lists[3]);
    io.mapOptional("pins", policy.pins);
  }
};
} // namespace llvm::yaml

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
constexpr PrecisionCategory kCategories[] = {
    PrecisionCategory::Allow, PrecisionCategory::Infer, PrecisionCategory::Deny,
    PrecisionCategory::Clear};

/// Turns buffer positions into FileLineColLoc and emits errors at them.
/// Line starts are indexed once, so that locating every entry of a long
/// policy stays O(log lines) per entry instead of a scan from the start.
class PolicyReader {
public:
  PolicyReader(MLIRContext *context, StringRef path,
               const llvm::MemoryBuffer &buffer)
      : context(context), path(path.str()), buffer(buffer) {
    StringRef text = buffer.getBuffer();
    lineStarts.push_back(0);
    for (size_t i = 0, e = text.size(); i < e; ++i)
      if (text[i] == '\n')
        lineStarts.push_back(i + 1);
  }

  Location locate(llvm::SMLoc loc) const {
    const char *start = buffer.getBufferStart();
    const char *at = loc.getPointer();
    if (!at || at < start || at > buffer.getBufferEnd())
      return FileLineColLoc::get(context, path, 1, 1);
    size_t offset = at - start;
    // The last line start at or before offset.
    auto next = llvm::upper_bound(lineStarts, offset);
    unsigned line = next - lineStarts.begin();
    unsigned column = offset - *std::prev(next) + 1;
    return FileLineColLoc::get(context, path, line, column);
  }

  std::string describe(llvm::SMLoc loc) const {
    auto fileLoc = cast<FileLineColLoc>(locate(loc));
    return (path + ":" + Twine(fileLoc.getLine()) + ":" +
            Twine(fileLoc.getColumn()))
        .str();
  }

  InFlightDiagnostic error(llvm::SMLoc loc) const {
    return emitError(locate(loc)) << "precision policy: ";
  }

  MLIRContext *context;
  std::string path;
  const llvm::MemoryBuffer &buffer;
  std::vector<size_t> lineStarts;
};

bool looksLikeJson(StringRef path, StringRef text) {
  StringRef extension = llvm::sys::path::extension(path);
  if (extension.equals_insensitive(".json"))
    return true;
  if (extension.equals_insensitive(".yaml") ||
      extension.equals_insensitive(".yml"))
    return false;
  return text.ltrim().starts_with("{");
}

/// Checks strict JSON syntax; llvm::json reports "[LINE:COL, byte=N]: MSG".
LogicalResult checkJsonSyntax(MLIRContext *context, StringRef path,
                              StringRef text) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (parsed)
    return success();
  std::string message = llvm::toString(parsed.takeError());
  unsigned line = 1, column = 1;
  StringRef rest = message;
  if (rest.consume_front("[")) {
    StringRef position = rest.take_until([](char c) { return c == ','; });
    auto [lineText, columnText] = position.split(':');
    lineText.getAsInteger(10, line);
    columnText.getAsInteger(10, column);
    size_t colon = rest.find("]: ");
    if (colon != StringRef::npos)
      message = rest.drop_front(colon + 3).str();
  }
  emitError(FileLineColLoc::get(context, path, line, column))
      << "precision policy: invalid JSON: " << message;
  return failure();
}

struct YamlDiagnostic {
  bool seen = false;
  llvm::SMDiagnostic diagnostic;
};

void captureYamlDiagnostic(const llvm::SMDiagnostic &diagnostic,
                           void *context) {
  auto *captured = static_cast<YamlDiagnostic *>(context);
  if (!captured->seen) {
    captured->seen = true;
    captured->diagnostic = diagnostic;
  }
}

/// Parses "true"/"false" (YAML's and JSON's booleans).
std::optional<bool> parseBool(StringRef text) {
  if (text == "true" || text == "True" || text == "TRUE")
    return true;
  if (text == "false" || text == "False" || text == "FALSE")
    return false;
  return std::nullopt;
}

StringRef categoryKey(int index) {
  return stringifyPrecisionCategory(kCategories[index]);
}
} // namespace

FailureOr<PrecisionPolicy> mlir::amp::loadPrecisionPolicy(MLIRContext *context,
                                                          StringRef path,
                                                          Location loc) {
  // A device or a FIFO given as the policy is refused before it is read
  // (reading one would never end or never start).
  ::amp::InputFile policyFile;
  std::string reason;
  if (!policyFile.open(path.str(), reason)) {
    emitError(loc) << "cannot open precision policy '" << path
                   << "': " << reason;
    return failure();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getOpenFile(policyFile.fd(), path, policyFile.size(),
                                      /*RequiresNullTerminator=*/true);
  if (!file) {
    emitError(loc) << "cannot open precision policy '" << path
                   << "': " << file.getError().message();
    return failure();
  }
  const llvm::MemoryBuffer &buffer = **file;
  StringRef text = buffer.getBuffer();
  if (text.trim().empty()) {
    emitError(FileLineColLoc::get(context, path, 1, 1))
        << "precision policy: the file is empty; expected a mapping with "
           "keys such as 'precision', 'level', 'allow', 'pins'";
    return failure();
  }
  // llvm::json and llvm::yaml recurse per nesting level: bound it first.
  bool json = looksLikeJson(path, text);
  if (std::optional<::amp::TextPosition> at = ::amp::findExcessiveNesting(
          std::string_view(text.data(), text.size()),
          json ? ::amp::NestingSyntax::JSON : ::amp::NestingSyntax::YAML)) {
    emitError(FileLineColLoc::get(context, path, at->line, at->column))
        << "precision policy: "
        << ::amp::describeExcessiveNesting("the policy file");
    return failure();
  }
  if (json && failed(checkJsonSyntax(context, path, text)))
    return failure();

  PolicyReader reader(context, path, buffer);
  ReadContext readContext;
  YamlDiagnostic yamlDiagnostic;
  llvm::MemoryBufferRef ref(text, path);
  llvm::yaml::Input input(ref, &readContext, captureYamlDiagnostic,
                          &yamlDiagnostic);
  readContext.input = &input;
  RawPolicy raw;
  input >> raw;
  if (input.error() || yamlDiagnostic.seen) {
    Location loc = FileLineColLoc::get(context, path, 1, 1);
    std::string message = "cannot read the file";
    if (yamlDiagnostic.seen) {
      const llvm::SMDiagnostic &d = yamlDiagnostic.diagnostic;
      loc = FileLineColLoc::get(context, path, std::max(d.getLineNo(), 1),
                                d.getColumnNo() + 1);
      message = d.getMessage().str();
    }
    emitError(loc) << "precision policy: " << message;
    return failure();
  }

  PrecisionPolicy policy;
  policy.path = path.str();
  if (raw.precision) {
    FloatType type =
        parsePrecisionName(context, raw.precision->value, /*allowF32=*/false);
    if (!type) {
      reader.error(raw.precision->loc)
          << "'precision' is '" << raw.precision->value
          << "'; expected fp16 or bf16";
      return failure();
    }
    policy.precision = {type, reader.locate(raw.precision->loc)};
  }
  if (raw.level) {
    std::optional<PrecisionLevel> level = parsePrecisionLevel(raw.level->value);
    if (!level) {
      reader.error(raw.level->loc)
          << "'level' is '" << raw.level->value
          << "'; expected default, tensor-cores-only, unsafe-force-all or "
             "infer-as-deny";
      return failure();
    }
    policy.level = {*level, reader.locate(raw.level->loc)};
  }
  if (raw.lpNorm) {
    std::optional<bool> value = parseBool(raw.lpNorm->value);
    if (!value) {
      reader.error(raw.lpNorm->loc) << "'lp-norm' is '" << raw.lpNorm->value
                                    << "'; expected true or false";
      return failure();
    }
    policy.lpNorm = {*value, reader.locate(raw.lpNorm->loc)};
  }
  for (int i = 0; i < 4; ++i) {
    if (!raw.lists[i])
      continue;
    auto convert = [&](const std::vector<RawScalar> &entries, StringRef verb,
                       SmallVectorImpl<PolicyListEntry> &out) {
      for (const RawScalar &entry : entries)
        out.push_back({entry.value, reader.locate(entry.loc),
                       "policy " + reader.describe(entry.loc),
                       (categoryKey(i) + "." + verb).str()});
    };
    convert(raw.lists[i]->add, "add", policy.lists.add[i]);
    convert(raw.lists[i]->remove, "remove", policy.lists.remove[i]);
  }
  for (const RawPin &pin : raw.pins) {
    if (pin.name.value.empty()) {
      reader.error(pin.name.loc) << "a pin's 'name' must not be empty";
      return failure();
    }
    FloatType type =
        parsePrecisionName(context, pin.precision.value, /*allowF32=*/true);
    if (!type) {
      reader.error(pin.precision.loc)
          << "pin '" << pin.name.value << "': 'precision' is '"
          << pin.precision.value << "'; expected f32, f16 or bf16";
      return failure();
    }
    policy.pins.push_back({pin.name.value, type, reader.locate(pin.name.loc),
                           "policy " + reader.describe(pin.name.loc)});
  }
  return policy;
}

//===----------------------------------------------------------------------===//
// Categories
//===----------------------------------------------------------------------===//

std::optional<PrecisionCategory>
CategoryTable::getDefaultCategory(OperationName name) {
  if (auto *concept = name.getInterface<PrecisionOpInterface>())
  return concept->getDefaultPrecisionCategory();
  return std::nullopt;
}

namespace {
std::optional<PrecisionCategory> applyLevel(PrecisionLevel level,
                                            PrecisionCategory category) {
  switch (level) {
  case PrecisionLevel::Default:
    return category;
  case PrecisionLevel::TensorCoresOnly:
    return category == PrecisionCategory::Allow ? category
                                                : PrecisionCategory::Deny;
  case PrecisionLevel::UnsafeForceAll:
    return PrecisionCategory::Allow;
  case PrecisionLevel::InferAsDeny:
    return category == PrecisionCategory::Infer ? PrecisionCategory::Deny
                                                : category;
  }
  llvm_unreachable("unknown level");
}

bool isLowPrecisionNorm(StringRef name) {
  return llvm::is_contained(
      {StringRef("amp.layer_norm"), StringRef("amp.layer_norm_grad"),
       StringRef("amp.group_norm"), StringRef("amp.group_norm_grad"),
       StringRef("amp.rms_norm"), StringRef("amp.rms_norm_grad")},
      name);
}

std::string describeCategory(std::optional<PrecisionCategory> category) {
  return category ? stringifyPrecisionCategory(*category).str() : "unlisted";
}
} // namespace

FailureOr<CategoryTable>
CategoryTable::build(MLIRContext *context, PrecisionLevel level, bool lpNorm,
                     ArrayRef<const PolicyLists *> lists) {
  CategoryTable table;
  auto current = [&](OperationName name) -> std::optional<PrecisionCategory> {
    auto it = table.overrides.find(name.getStringRef());
    if (it != table.overrides.end())
      return it->second.category;
    return getDefaultCategory(name);
  };

  for (RegisteredOperationName name : context->getRegisteredOperations()) {
    std::optional<PrecisionCategory> category = getDefaultCategory(name);
    if (!category)
      continue;
    std::optional<PrecisionCategory> leveled = applyLevel(level, *category);
    if (leveled != category)
      table.overrides[name.getStringRef()] = {
          leveled, ("level " + stringifyPrecisionLevel(level)).str()};
    if (lpNorm && isLowPrecisionNorm(name.getStringRef()))
      table.overrides[name.getStringRef()] = {PrecisionCategory::Allow,
                                              "lp-norm"};
  }

  for (const PolicyLists *source : lists) {
    // Validate the names and reject one source adding a kind twice.
    llvm::StringMap<std::pair<int, const PolicyListEntry *>> added;
    for (int i = 0; i < 4; ++i) {
      for (bool isAdd : {true, false}) {
        for (const PolicyListEntry &entry :
             isAdd ? source->add[i] : source->remove[i]) {
          std::optional<RegisteredOperationName> name =
              RegisteredOperationName::lookup(entry.opName, context);
          if (!name) {
            emitError(entry.loc)
                << "unknown op kind '" << entry.opName << "' in " << entry.where
                << "; op kinds are written like 'amp.gelu'";
            return failure();
          }
          if (!getDefaultCategory(*name)) {
            emitError(entry.loc)
                << "op kind '" << entry.opName << "' in " << entry.where
                << " has no precision category (it does not implement "
                   "PrecisionOpInterface) and cannot be listed";
            return failure();
          }
          if (!isAdd)
            continue;
          auto [it, inserted] =
              added.try_emplace(entry.opName, std::make_pair(i, &entry));
          if (!inserted && it->second.first != i) {
            InFlightDiagnostic diag =
                emitError(entry.loc)
                << "op kind '" << entry.opName << "' is added to both the "
                << categoryKey(it->second.first) << " and the "
                << categoryKey(i) << " lists";
            diag.attachNote(it->second.second->loc) << "first added here";
            return failure();
          }
        }
      }
      for (const PolicyListEntry &entry : source->remove[i]) {
        auto other = added.find(entry.opName);
        if (other != added.end() && other->second.first == i) {
          InFlightDiagnostic diag =
              emitError(entry.loc)
              << "op kind '" << entry.opName << "' is both added to and "
              << "removed from the " << categoryKey(i) << " list";
          diag.attachNote(other->second.second->loc) << "added here";
          return failure();
        }
      }
    }
    // Removals first, then additions, so that moving a kind from one list
    // to another needs only the addition.
    for (int i = 0; i < 4; ++i) {
      for (const PolicyListEntry &entry : source->remove[i]) {
        OperationName name(entry.opName, context);
        std::optional<PrecisionCategory> category = current(name);
        if (category != kCategories[i]) {
          emitWarning(entry.loc)
              << "op kind '" << entry.opName << "' is not on the "
              << categoryKey(i) << " list (it is " << describeCategory(category)
              << "); nothing to remove";
          continue;
        }
        table.overrides[entry.opName] = {std::nullopt, entry.source};
      }
    }
    for (int i = 0; i < 4; ++i)
      for (const PolicyListEntry &entry : source->add[i])
        table.overrides[entry.opName] = {kCategories[i], entry.source};
  }
  return table;
}

std::optional<PrecisionCategory> CategoryTable::lookup(Operation *op) const {
  auto it = overrides.find(op->getName().getStringRef());
  if (it != overrides.end())
    return it->second.category;
  return getDefaultCategory(op->getName());
}

StringRef CategoryTable::getSource(Operation *op) const {
  auto it = overrides.find(op->getName().getStringRef());
  if (it != overrides.end())
    return it->second.source;
  return {};
}

StringRef mlir::amp::getLocationName(Location loc) {
  StringRef name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().getValue();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}
