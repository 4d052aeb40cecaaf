//===- AMPTraits.h - precision category traits ------------------*- C++ -*-===//
//
// Marker traits giving an op kind's default mixed-precision answers: its
// category, its accumulation type and whether its results may stay f32. The
// precision interface reads them at compile time, so every op states them
// exactly once, in ODS.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPTRAITS_H
#define AMP_DIALECT_AMP_IR_AMPTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::amp::OpTrait {

template <typename ConcreteType>
class AllowPrecision
    : public mlir::OpTrait::TraitBase<ConcreteType, AllowPrecision> {};
template <typename ConcreteType>
class InferPrecision
    : public mlir::OpTrait::TraitBase<ConcreteType, InferPrecision> {};
template <typename ConcreteType>
class DenyPrecision
    : public mlir::OpTrait::TraitBase<ConcreteType, DenyPrecision> {};
template <typename ConcreteType>
class ClearPrecision
    : public mlir::OpTrait::TraitBase<ConcreteType, ClearPrecision> {};
template <typename ConcreteType>
class F32Accumulation
    : public mlir::OpTrait::TraitBase<ConcreteType, F32Accumulation> {};
template <typename ConcreteType>
class WidenableResults
    : public mlir::OpTrait::TraitBase<ConcreteType, WidenableResults> {};

} // namespace mlir::amp::OpTrait

#endif // AMP_DIALECT_AMP_IR_AMPTRAITS_H
