//===- Report.cpp - explain every precision decision ----------------------===//
//
// `amp-report` prints, per function: every op with its element type and the
// rule that chose it; ops per type; the casts and the bytes they move; the
// share of FLOPs in low precision; and, for comparison, what naive per-op
// casting (PyTorch autocast) would cast on the same graph. Formats: text,
// JSON, Graphviz DOT (ops coloured by precision).
//
// When the IR carries an assignment that amp-insert-casts has not applied
// yet, the report applies it to a copy and measures that ("planned").
//
// The naive baseline (docs/Precision.md, section 8): every op runs in the
// type its category gives it on its own (ALLOW low, DENY f32, pins and
// excluded regions as assigned, INFER/CLEAR ops in the widest type of their
// inputs, PyTorch's type promotion), and each op casts each operand of
// another type itself: casts are not shared between users, except that a
// parameter is cast once per step (autocast's weight cache). Values computed
// from constants only adapt for free in both, and operands the op widens
// itself (reductions computed in f32, optimizer gradients) need no cast in
// either.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "amp/Support/ToolIO.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <map>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPREPORTPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

std::string typeName(Type type) {
  if (!type)
    return "-";
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
        .str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location nested : fused.getLocations()) {
      std::string text = locationText(nested);
      if (text != "-")
        return text;
    }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return locationText(callSite.getCallee());
  return "-";
}

struct OpEntry {
  Operation *op;
  std::string name;
  Type type;
  std::string rule;
  std::string location;
  double flops;
};

struct CastEntry {
  Operation *op;
  Type from, to;
  int64_t bytes;
};

struct Totals {
  std::map<std::string, int64_t> opsPerType;
  int64_t casts = 0, castBytes = 0;
  int64_t naiveCasts = 0, naiveBytes = 0;
  double flops = 0, lowFlops = 0;

  void add(const Totals &other) {
    for (auto &[type, count] : other.opsPerType)
      opsPerType[type] += count;
    casts += other.casts;
    castBytes += other.castBytes;
    naiveCasts += other.naiveCasts;
    naiveBytes += other.naiveBytes;
    flops += other.flops;
    lowFlops += other.lowFlops;
  }
  double lowShare() const { return flops > 0 ? lowFlops / flops : 0.0; }
};

struct FunctionReport {
  std::string name;
  Operation *function;
  std::vector<OpEntry> ops;
  std::vector<CastEntry> casts;
  Totals totals;
};

/// The element type an op computes in, for ops without amp.precision.
Type observedType(Operation *op) {
  for (Type type : op->getResultTypes())
    if (isFloatTensor(type))
      return getElementTypeOrNull(type);
  for (Type type : op->getOperandTypes())
    if (isFloatTensor(type))
      return getElementTypeOrNull(type);
  return {};
}

bool isLowPrecisionType(Type type) {
  return type &&
         isa<Float16Type, BFloat16Type, Float8E4M3FNType, Float8E5M2Type>(type);
}

/// What amp-fp8 made: the FP8 format an op quantizes to or a product reads
/// (its left operand's), and a rule naming both operands' formats.
void describeFp8(Operation *op, Type &type, std::string &rule) {
  if (auto quantize = dyn_cast<Fp8QuantizeOp>(op)) {
    type = getElementTypeOrNull(quantize.getResult().getType());
    rule = "fp8 quantize";
  } else if (auto product = dyn_cast<Fp8MatmulOp>(op)) {
    type = getElementTypeOrNull(product.getLhs().getType());
    rule = "fp8 (" + typeName(type) + " x " +
           typeName(getElementTypeOrNull(product.getRhs().getType())) + " -> " +
           typeName(getElementTypeOrNull(product.getType())) + ")";
  }
}

bool isListed(Operation *op) {
  if (isa<CastOp>(op) || op->hasTrait<mlir::OpTrait::IsTerminator>() ||
      op->getNumRegions() != 0)
    return false;
  if (isa<PrecisionOpInterface>(op) ||
      isa_and_nonnull<AMPDialect>(op->getDialect()))
    return true;
  return llvm::any_of(op->getOperandTypes(), isFloatTensor) ||
         llvm::any_of(op->getResultTypes(), isFloatTensor);
}

//===----------------------------------------------------------------------===//
// Naive per-op casting
//===----------------------------------------------------------------------===//

class NaiveCasting {
public:
  explicit NaiveCasting(FunctionOpInterface function) : function(function) {
    Block &entry = function.getFunctionBody().front();
    for (unsigned i : TrainingStep(function).getArguments(Role::Parameter))
      parameters.insert(entry.getArgument(i));
  }

  void run(int64_t &casts, int64_t &bytes) {
    function.getFunctionBody().walk([&](Block *block) {
      for (BlockArgument argument : block->getArguments())
        types[argument] = getElementTypeOrNull(argument.getType());
    });
    function.getFunctionBody().walk<WalkOrder::PreOrder>(
        [&](Operation *op) { visit(op); });
    casts = count;
    bytes = movedBytes;
  }

private:
  /// Looks through the casts amp-insert-casts placed.
  static Value source(Value value) {
    while (auto cast = value.getDefiningOp<CastOp>())
      value = cast.getInput();
    return value;
  }

  /// Null: computed from constants only, adapts for free.
  Type naiveType(Value value) { return types.lookup(source(value)); }

  void require(Operation *op, Value operand, Type need) {
    Value from = source(operand);
    Type have = naiveType(operand);
    if (!have || !need || have == need)
      return;
    if (parameters.contains(from) && !need.isF32()) {
      if (!cachedParameterCasts.insert({from, need}).second)
        return;
    }
    ++count;
    movedBytes += getCastBytes(withElementType(from.getType(), have), need);
  }

  void visit(Operation *op) {
    if (isa<CastOp>(op))
      return;
    FloatType assigned = getAssignedPrecision(op);
    auto ruleAttr = op->getAttrOfType<StringAttr>(kPrecisionRuleAttrName);
    if (!assigned || !isa<PrecisionOpInterface>(op)) {
      for (OpOperand &operand : op->getOpOperands())
        if (getOperandRole(op, operand.getOperandNumber(), {}) ==
            OperandRole::Fixed)
          require(op, operand.get(),
                  getElementTypeOrNull(operand.get().getType()));
      for (Value result : op->getResults())
        types[result] = getElementTypeOrNull(result.getType());
      return;
    }
    if (isa<ConstantOp>(op)) {
      for (Value result : op->getResults())
        types[result] = Type();
      return;
    }
    Type f32 = Float32Type::get(op->getContext());
    Type type;
    if (ruleAttr && isCategoryRule(ruleAttr.getValue())) {
      type = assigned;
    } else {
      // Promotion: the widest input type.
      for (OpOperand &operand : op->getOpOperands()) {
        OperandRole role =
            getOperandRole(op, operand.getOperandNumber(), assigned);
        if (role != OperandRole::Follows && role != OperandRole::FollowsOrF32)
          continue;
        Type have = naiveType(operand.get());
        if (!have)
          continue;
        if (!type || getByteWidth(have) > getByteWidth(type))
          type = have;
      }
    }
    for (OpOperand &operand : op->getOpOperands()) {
      // PyTorch's fp32_set_opt_dtype ops (sum, softmax, log_softmax) read a
      // low-precision input directly; its fp32 ops cast their inputs first.
      if (type && type.isF32() && operand.getOperandNumber() == 0 &&
          isa<ReduceSumOp, SoftmaxOp, LogSoftmaxOp>(op))
        continue;
      switch (getOperandRole(op, operand.getOperandNumber(), assigned)) {
      case OperandRole::Follows:
      case OperandRole::FollowsOrF32:
        require(op, operand.get(), type);
        break;
      case OperandRole::F32:
        require(op, operand.get(), f32);
        break;
      case OperandRole::Fixed:
        require(op, operand.get(),
                getElementTypeOrNull(operand.get().getType()));
        break;
      case OperandRole::Flexible:
        require(op, operand.get(), type);
        break;
      case OperandRole::NotFloat:
        break;
      }
    }
    for (OpResult result : op->getResults()) {
      switch (getResultRole(op, result.getResultNumber(), assigned)) {
      case ResultRole::Follows:
      case ResultRole::Widenable:
      case ResultRole::SameAsOperand:
        types[result] = type;
        break;
      case ResultRole::F32:
        types[result] = f32;
        break;
      case ResultRole::NotFloat:
      case ResultRole::Fixed:
        types[result] = getElementTypeOrNull(result.getType());
        break;
      }
    }
  }

  FunctionOpInterface function;
  llvm::DenseSet<Value> parameters;
  llvm::DenseSet<std::pair<Value, Type>> cachedParameterCasts;
  llvm::DenseMap<Value, Type> types;
  int64_t count = 0, movedBytes = 0;
};

//===----------------------------------------------------------------------===//
// Collection
//===----------------------------------------------------------------------===//

FunctionReport collect(FunctionOpInterface function) {
  FunctionReport report;
  report.name = function.getName().str();
  report.function = function;
  function.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto cast = dyn_cast<CastOp>(op)) {
      Type from = getElementTypeOrNull(cast.getInput().getType());
      Type to = getElementTypeOrNull(cast.getType());
      int64_t bytes = getCastBytes(cast.getInput().getType(), to);
      report.casts.push_back({op, from, to, bytes});
      ++report.totals.casts;
      report.totals.castBytes += bytes;
      return;
    }
    if (!isListed(op))
      return;
    OpEntry entry;
    entry.op = op;
    entry.name = op->getName().getStringRef().str();
    entry.type = getAssignedPrecision(op);
    if (auto ruleAttr = op->getAttrOfType<StringAttr>(kPrecisionRuleAttrName))
      entry.rule = ruleAttr.getValue().str();
    describeFp8(op, entry.type, entry.rule);
    if (!entry.type)
      entry.type = observedType(op);
    if (entry.rule.empty())
      entry.rule = isa<PrecisionOpInterface>(op) ? "not assigned"
                   : isa_and_nonnull<AMPDialect>(op->getDialect())
                       ? "fixed by role"
                       : "no category";
    if (auto decision = op->getAttrOfType<StringAttr>(kFp8AttrName))
      entry.rule += "; " + decision.getValue().str();
    entry.location = locationText(op->getLoc());
    entry.flops = estimateFlops(op);
    std::string type = typeName(entry.type);
    report.totals.opsPerType[type] += 1;
    report.totals.flops += entry.flops;
    if (isLowPrecisionType(entry.type))
      report.totals.lowFlops += entry.flops;
    report.ops.push_back(std::move(entry));
  });
  NaiveCasting(function).run(report.totals.naiveCasts,
                             report.totals.naiveBytes);
  return report;
}

std::string lowPrecisionOf(ArrayRef<FunctionReport> reports) {
  for (const FunctionReport &report : reports)
    for (const OpEntry &entry : report.ops)
      if (entry.type && isa<Float16Type, BFloat16Type>(entry.type))
        return typeName(entry.type);
  return "none";
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string formatPercent(double share) {
  return llvm::formatv("{0:F1}%", share * 100.0).str();
}

void printTotals(raw_ostream &os, StringRef indent, const Totals &totals,
                 bool planned) {
  int64_t ops = 0;
  for (auto &[type, count] : totals.opsPerType)
    ops += count;
  os << indent << "ops: " << ops;
  if (!totals.opsPerType.empty()) {
    os << " (";
    llvm::interleaveComma(totals.opsPerType, os, [&](const auto &entry) {
      os << entry.first << ": " << entry.second;
    });
    os << ")";
  }
  os << "\n";
  os << indent << "casts: " << totals.casts << ", " << totals.castBytes
     << " bytes moved" << (planned ? " (planned)" : "") << "\n";
  os << indent
     << "naive per-op casting (PyTorch autocast): " << totals.naiveCasts
     << " casts, " << totals.naiveBytes << " bytes moved\n";
  os << indent << "low-precision FLOPs: " << formatPercent(totals.lowShare())
     << " of " << llvm::formatv("{0:F0}", totals.flops) << "\n";
}

void printText(raw_ostream &os, ArrayRef<FunctionReport> reports,
               const Totals &module, bool planned) {
  os << "amp-report: low precision " << lowPrecisionOf(reports)
     << (planned ? " (casts planned, amp-insert-casts has not run)" : "")
     << "\n";
  for (const FunctionReport &report : reports) {
    os << "\nfunction @" << report.name << "\n";
    size_t nameWidth = 4, typeWidth = 4, ruleWidth = 4;
    for (const OpEntry &entry : report.ops) {
      nameWidth = std::max(nameWidth, entry.name.size());
      typeWidth = std::max(typeWidth, typeName(entry.type).size());
      ruleWidth = std::max(ruleWidth, entry.rule.size());
    }
    os << llvm::formatv("  {0,-4} {1} {2} {3} location\n", "#",
                        llvm::left_justify("op", nameWidth),
                        llvm::left_justify("type", typeWidth),
                        llvm::left_justify("rule", ruleWidth));
    for (auto [index, entry] : llvm::enumerate(report.ops))
      os << llvm::formatv("  {0,-4} {1} {2} {3} {4}\n", index,
                          llvm::left_justify(entry.name, nameWidth),
                          llvm::left_justify(typeName(entry.type), typeWidth),
                          llvm::left_justify(entry.rule, ruleWidth),
                          entry.location);
    for (const CastEntry &cast : report.casts)
      os << "  cast " << typeName(cast.from) << " -> " << typeName(cast.to)
         << " " << cast.bytes << " bytes at " << locationText(cast.op->getLoc())
         << "\n";
    printTotals(os, "  ", report.totals, planned);
  }
  if (reports.size() > 1) {
    os << "\nmodule\n";
    printTotals(os, "  ", module, planned);
  }
}

llvm::json::Object totalsToJson(const Totals &totals, bool planned) {
  llvm::json::Object perType;
  for (auto &[type, count] : totals.opsPerType)
    perType[type] = count;
  return llvm::json::Object{
      {"ops_per_type", std::move(perType)},
      {"casts", llvm::json::Object{{"count", totals.casts},
                                   {"bytes", totals.castBytes},
                                   {"planned", planned}}},
      {"naive_per_op_casts", llvm::json::Object{{"count", totals.naiveCasts},
                                                {"bytes", totals.naiveBytes}}},
      {"flops",
       llvm::json::Object{{"total", totals.flops},
                          {"low_precision", totals.lowFlops},
                          {"low_precision_share", totals.lowShare()}}}};
}

void printJson(raw_ostream &os, ArrayRef<FunctionReport> reports,
               const Totals &module, bool planned) {
  llvm::json::Array functions;
  for (const FunctionReport &report : reports) {
    llvm::json::Array ops;
    for (auto [index, entry] : llvm::enumerate(report.ops))
      ops.push_back(llvm::json::Object{{"index", static_cast<int64_t>(index)},
                                       {"op", entry.name},
                                       {"type", typeName(entry.type)},
                                       {"rule", entry.rule},
                                       {"location", entry.location},
                                       {"flops", entry.flops}});
    llvm::json::Array casts;
    for (const CastEntry &cast : report.casts)
      casts.push_back(
          llvm::json::Object{{"from", typeName(cast.from)},
                             {"to", typeName(cast.to)},
                             {"bytes", cast.bytes},
                             {"location", locationText(cast.op->getLoc())}});
    llvm::json::Object function{{"name", report.name},
                                {"ops", std::move(ops)},
                                {"cast_ops", std::move(casts)}};
    function["totals"] = totalsToJson(report.totals, planned);
    functions.push_back(std::move(function));
  }
  llvm::json::Object root{{"low_precision", lowPrecisionOf(reports)},
                          {"functions", std::move(functions)},
                          {"totals", totalsToJson(module, planned)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

StringRef colorOf(Type type) {
  if (!type)
    return "#ffffff";
  if (type.isF32())
    return "#9ecae1"; // blue
  if (type.isF16())
    return "#fdae6b"; // orange
  if (type.isBF16())
    return "#a1d99b"; // green
  return "#ffffff";
}

std::string escapeDot(StringRef text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\')
      escaped.push_back('\\');
    escaped.push_back(c);
  }
  return escaped;
}

void printDot(raw_ostream &os, ArrayRef<FunctionReport> reports) {
  os << "digraph amp_precision {\n"
     << "  rankdir=TB;\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", "
        "fontsize=10];\n"
     << "  edge [fontname=\"monospace\", fontsize=8];\n";
  unsigned cluster = 0;
  for (const FunctionReport &report : reports) {
    llvm::DenseMap<Operation *, std::string> ids;
    llvm::DenseMap<Value, std::string> argumentIds;
    unsigned index = cluster++;
    os << "  subgraph cluster_" << index << " {\n"
       << "    label=\"@" << escapeDot(report.name) << "\";\n";
    unsigned next = 0;
    for (const OpEntry &entry : report.ops) {
      std::string id =
          "n" + std::to_string(index) + "_" + std::to_string(next++);
      ids[entry.op] = id;
      os << "    " << id << " [label=\"" << escapeDot(entry.name) << "\\n"
         << typeName(entry.type) << "\\n"
         << escapeDot(entry.rule) << "\", fillcolor=\"" << colorOf(entry.type)
         << "\"];\n";
    }
    for (const CastEntry &cast : report.casts) {
      std::string id =
          "n" + std::to_string(index) + "_" + std::to_string(next++);
      ids[cast.op] = id;
      os << "    " << id << " [label=\"cast\\n"
         << typeName(cast.from) << " -> " << typeName(cast.to) << "\\n"
         << cast.bytes << " B\", shape=ellipse, fillcolor=\"#d9d9d9\"];\n";
    }
    auto function = cast<FunctionOpInterface>(report.function);
    for (BlockArgument argument :
         function.getFunctionBody().front().getArguments()) {
      if (!isFloatTensor(argument.getType()))
        continue;
      std::string id = "a" + std::to_string(index) + "_" +
                       std::to_string(argument.getArgNumber());
      argumentIds[argument] = id;
      std::string label = "%arg" + std::to_string(argument.getArgNumber());
      StringRef name =
          getAMPName(function.getArgAttrDict(argument.getArgNumber()));
      if (!name.empty())
        label = name.str();
      os << "    " << id << " [label=\"" << escapeDot(label) << "\\n"
         << typeName(getElementTypeOrNull(argument.getType()))
         << "\", shape=plaintext, style=\"\"];\n";
    }
    // Edges in program order, so that the output is deterministic.
    SmallVector<Operation *> ordered;
    function.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (ids.contains(op))
        ordered.push_back(op);
    });
    for (Operation *op : ordered) {
      std::string id = ids.lookup(op);
      for (Value operand : op->getOperands()) {
        if (!isFloatTensor(operand.getType()))
          continue;
        std::string from;
        if (Operation *producer = operand.getDefiningOp())
          from = ids.lookup(producer);
        else
          from = argumentIds.lookup(operand);
        if (from.empty())
          continue;
        os << "    " << from << " -> " << id << " [label=\""
           << typeName(getElementTypeOrNull(operand.getType())) << "\"];\n";
      }
    }
    os << "  }\n";
  }
  os << "  subgraph cluster_legend {\n"
     << "    label=\"legend\";\n"
     << "    legend_f32 [label=\"f32\", fillcolor=\"#9ecae1\"];\n"
     << "    legend_f16 [label=\"f16\", fillcolor=\"#fdae6b\"];\n"
     << "    legend_bf16 [label=\"bf16\", fillcolor=\"#a1d99b\"];\n"
     << "    legend_cast [label=\"cast\", shape=ellipse, "
        "fillcolor=\"#d9d9d9\"];\n"
     << "  }\n"
     << "}\n";
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPReportPass : mlir::amp::impl::AMPReportPassBase<AMPReportPass> {
  using AMPReportPassBase::AMPReportPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (format == ReportFormat::None)
      return;
    // Measure a copy with the assignment applied if it is still pending.
    OwningOpRef<ModuleOp> copy;
    ModuleOp measured = module;
    bool planned = !isPrecisionMaterialized(module);
    if (planned) {
      copy = module.clone();
      if (failed(insertPrecisionCasts(*copy)))
        return signalPassFailure();
      measured = *copy;
    }

    std::vector<FunctionReport> reports;
    Totals totals;
    measured.walk([&](FunctionOpInterface function) {
      if (function.isExternal())
        return;
      reports.push_back(collect(function));
      totals.add(reports.back().totals);
    });

    // The report goes to stderr ("-") or through amp::OutputStream: a
    // device is written in place, a regular file replaced only once the
    // whole report is written.
    std::string errorMessage;
    ::amp::OutputStream file;
    raw_ostream *os = &llvm::errs();
    if (output != "-") {
      if (!file.open(output, errorMessage)) {
        module.emitError() << "amp-report: " << errorMessage;
        return signalPassFailure();
      }
      os = &file.os();
    }
    if (format == ReportFormat::Text)
      printText(*os, reports, totals, planned);
    else if (format == ReportFormat::JSON)
      printJson(*os, reports, totals, planned);
    else
      printDot(*os, reports);
    os->flush();
    if (output != "-" && !file.commit(errorMessage)) {
      module.emitError() << "amp-report: " << errorMessage;
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
