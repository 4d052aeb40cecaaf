//===- TrainingGraph.h - reading and writing the contract -------*- C++ -*-===//
//
// The training-graph contract lives in argument and result attributes
// (amp.role, amp.name). These helpers read and build them for every pass
// and tool that handles training graphs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_TRAININGGRAPH_H
#define AMP_DIALECT_AMP_IR_TRAININGGRAPH_H

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::amp {

/// The amp.role in an argument's or result's attributes, if any.
inline std::optional<Role> getRole(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  if (auto role = attrs.getAs<RoleAttr>(AMPDialect::kRoleAttrName))
    return role.getValue();
  return std::nullopt;
}

/// The amp.name in an argument's or result's attributes, or "".
inline StringRef getAMPName(DictionaryAttr attrs) {
  if (!attrs)
    return {};
  if (auto name = attrs.getAs<StringAttr>(AMPDialect::kNameAttrName))
    return name.getValue();
  return {};
}

/// The amp.copy_of in an argument's or result's attributes, or "".
inline StringRef getCopyOf(DictionaryAttr attrs) {
  if (!attrs)
    return {};
  if (auto name = attrs.getAs<StringAttr>(AMPDialect::kCopyOfAttrName))
    return name.getValue();
  return {};
}

/// {amp.role = role, amp.name = name} (no name when `name` is empty).
inline DictionaryAttr makeContractAttrs(MLIRContext *context, Role role,
                                        StringRef name) {
  Builder b(context);
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr(AMPDialect::kRoleAttrName, RoleAttr::get(context, role))};
  if (!name.empty())
    attrs.push_back(
        b.getNamedAttr(AMPDialect::kNameAttrName, b.getStringAttr(name)));
  return b.getDictionaryAttr(attrs);
}

/// Fails, with an error on the offending function or op, when a tensor of
/// `function` (its signature or an op result) has a zero-size dimension.
/// Part of the training-step contract; tools that compile a forward model
/// check it there too. (Defined in AMPDialect.cpp.)
LogicalResult verifyNoZeroSizeTensors(FunctionOpInterface function);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_TRAININGGRAPH_H
