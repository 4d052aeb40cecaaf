//===- PrecisionPolicy.h - precision lists, levels, policy files -*- C++
//-*-===//
//
// The user's control over `amp-assign-precision`: the low-precision type,
// the level, Composer's low-precision norms, per-category list edits and
// pins by location name, read from a policy file (JSON or YAML) and from
// pass options, and the table of effective op categories they produce.
// The file format is in docs/Precision.md, section 6.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPOLICY_H
#define AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPOLICY_H

#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// TensorFlow's levels (TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_LEVEL).
enum class PrecisionLevel {
  /// The default lists.
  Default,
  /// Only ALLOW ops run low; every other listed op is DENY.
  TensorCoresOnly,
  /// Every listed op is ALLOW (statistics and losses stay f32 by type).
  UnsafeForceAll,
  /// INFER ops are DENY.
  InferAsDeny,
};

std::optional<PrecisionLevel> parsePrecisionLevel(llvm::StringRef name);
llvm::StringRef stringifyPrecisionLevel(PrecisionLevel level);

/// One op kind named in an add or remove list.
struct PolicyListEntry {
  std::string opName;
  /// Where it was written (a file position, or the IR for pass options).
  Location loc;
  /// "option allow-add" or "policy FILE:LINE:COL"; shown in rules.
  std::string source;
  /// The list as the user named it: "allow.add" (policy) or "option
  /// allow-add".
  std::string where;
};

/// Add and remove lists for each category, indexed by PrecisionCategory.
struct PolicyLists {
  llvm::SmallVector<PolicyListEntry> add[4];
  llvm::SmallVector<PolicyListEntry> remove[4];
  bool empty() const;
};

/// A pin of every op whose location carries `name` (a NameLoc).
struct PolicyPin {
  std::string name;
  FloatType type;
  Location loc;
  std::string source;
};

/// A setting and where it was written.
template <typename T> struct PolicySetting {
  T value;
  Location loc;
};

/// The contents of a policy file.
struct PrecisionPolicy {
  std::string path;
  std::optional<PolicySetting<FloatType>> precision;
  std::optional<PolicySetting<PrecisionLevel>> level;
  std::optional<PolicySetting<bool>> lpNorm;
  PolicyLists lists;
  llvm::SmallVector<PolicyPin> pins;
};

/// Reads a policy file. `.json` files (or files starting with `{`) must be
/// strict JSON (checked with llvm::json); both formats are then read with
/// one YAML schema (llvm::yaml, JSON being YAML flow syntax), so every error
/// is reported at FILE:LINE:COL and names the key or value at fault.
/// `loc` is where a file that cannot be opened is reported.
FailureOr<PrecisionPolicy>
loadPrecisionPolicy(MLIRContext *context, llvm::StringRef path, Location loc);

/// The category of each op kind after the level, lp-norm and list edits.
class CategoryTable {
public:
  /// Applies, in order: the level, lp-norm, then each `lists` entry in
  /// order (a later source overrides an earlier one). Fails with an error
  /// at the entry for an unknown op kind, an op kind without the precision
  /// interface, or an op kind added to two categories by one source.
  static FailureOr<CategoryTable>
  build(MLIRContext *context, PrecisionLevel level, bool lpNorm,
        llvm::ArrayRef<const PolicyLists *> lists);

  /// The effective category of `op`, or nullopt when the op kind is in no
  /// list (it was removed) or has no precision interface.
  std::optional<PrecisionCategory> lookup(Operation *op) const;
  /// Why `op`'s category differs from its default ("level
  /// unsafe-force-all", "option deny-add", ...), or "" for the default.
  llvm::StringRef getSource(Operation *op) const;

  /// The default category of a registered op kind with the interface.
  static std::optional<PrecisionCategory>
  getDefaultCategory(OperationName name);

private:
  struct Override {
    std::optional<PrecisionCategory> category;
    std::string source;
  };
  llvm::StringMap<Override> overrides;
};

/// The name of the first NameLoc in `loc` (through fused and call-site
/// locations), or "": the name the importer gave the op (an ONNX node's
/// name), which policy pins match.
llvm::StringRef getLocationName(Location loc);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPOLICY_H
