//===- Optimizer.h - the optimizer update of a training step ----*- C++ -*-===//
//
// What amp-autodiff and amp-optimizer-step share: the optimizer options,
// the optimizer state a step threads through, and the updates that read
// the gradients. (Private to the amp transforms.)
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_AMP_TRANSFORMS_OPTIMIZER_H
#define LIB_DIALECT_AMP_TRANSFORMS_OPTIMIZER_H

#include "amp/Dialect/AMP/Transforms/OptionKinds.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// The checked optimizer options (the `optimizer`, `momentum`,
/// `dampening`, `nesterov`, `weight-decay`, `beta1`, `beta2` and `epsilon`
/// options of amp-autodiff and amp-optimizer-step).
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::SGD;
  double momentum = 0, dampening = 0;
  bool nesterov = false;
  /// L2 decay for SGD, decoupled for AdamW (PyTorch's default of each when
  /// the option is -1).
  double weightDecay = 0;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;

  /// SGD with momentum: one momentum buffer per parameter.
  bool hasMomentumBuffer() const {
    return kind == OptimizerKind::SGD && momentum != 0;
  }
  /// The state ends with `step`, the number of updates done so far.
  bool countsSteps() const {
    return kind == OptimizerKind::AdamW ||
           (hasMomentumBuffer() && dampening != 0);
  }
};

/// Checks the numeric options into `config` (whose kind is set), failing
/// through `fail` with the first invalid one.
LogicalResult
checkOptimizerNumbers(OptimizerConfig &config, double momentum,
                      double dampening, bool nesterov, double weightDecay,
                      double beta1, double beta2, double epsilon,
                      llvm::function_ref<LogicalResult(const Twine &)> fail);

/// One argument or result of a generated signature.
struct Slot {
  Type type;
  DictionaryAttr attrs;
};

/// The optimizer state of the parameters with `names` and `types`, in
/// signature order, all `#amp.role<optimizer_state>`: per parameter
/// `<name>.momentum_buffer` (SGD with momentum) or `<name>.exp_avg` and
/// `<name>.exp_avg_sq` (AdamW), then `step` (0-d i64) when the optimizer
/// counts steps.
SmallVector<Slot> getOptimizerState(MLIRContext *context,
                                    const OptimizerConfig &config,
                                    ArrayRef<std::string> names,
                                    ArrayRef<Type> types);

/// The values an optimizer update returns.
struct OptimizerUpdates {
  SmallVector<Value> params;
  SmallVector<Value> state;
};

/// Builds, at `b`'s insertion point, the update of `params` from `grads`
/// with learning rate `lr`, reading `state` (laid out as getOptimizerState
/// lists it). Returns the new parameters and the new state, in that layout.
OptimizerUpdates emitOptimizerUpdates(OpBuilder &b, Location loc,
                                      const OptimizerConfig &config,
                                      ValueRange params, ValueRange grads,
                                      ValueRange state, Value lr);

/// The name of the k-th parameter in generated names (`<name>.grad`,
/// `<name>.exp_avg`): its amp.name, else `param<k>`.
std::string getParameterName(DictionaryAttr attrs, unsigned k);

/// Merges the common subexpressions of a generated step: gradient rules are
/// local, so several build the same value (the flattened activation that
/// both a weight gradient and a bias gradient read, equal splat constants).
void simplifyStep(FunctionOpInterface step);

} // namespace mlir::amp

#endif // LIB_DIALECT_AMP_TRANSFORMS_OPTIMIZER_H
