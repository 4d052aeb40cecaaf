//===- EvalMode.cpp - the forward model in evaluation mode ----------------===//
//
// amp-eval-mode: the forward model becomes the evaluation entry point of a
// compiled library (amp_eval), as PyTorch's model.eval(), and reports the
// loss the library trains.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPEVALMODEPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Batch norm normalizes with (and returns unchanged) the running
/// statistics; dropout passes its input through with an all-true mask, and
/// attention drops nothing (and takes no seed).
void setEvaluationMode(func::FuncOp forward) {
  forward.walk([](BatchNormOp op) { op.setTraining(false); });
  forward.walk([](AttentionOp op) {
    op.setDropout(APFloat(0.0));
    op.getSeedMutable().clear();
  });
  forward.walk([](DropoutOp op) {
    OpBuilder b(op);
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    Value keepAll = ConstantOp::create(b, op.getLoc(),
                                       DenseElementsAttr::get(maskType, true));
    op.getOutput().replaceAllUsesWith(op.getInput());
    op.getMask().replaceAllUsesWith(keepAll);
    op.erase();
  });
}

/// The step's label argument that the forward model lacks: the one
/// amp-autodiff added for its loss.
std::optional<unsigned> findAddedLabel(func::FuncOp forward,
                                       func::FuncOp step) {
  std::optional<unsigned> label;
  for (unsigned i : TrainingStep(step).getArguments(Role::Label)) {
    StringRef name = getAMPName(step.getArgAttrDict(i));
    if (llvm::none_of(llvm::seq(forward.getNumArguments()), [&](unsigned j) {
          return getAMPName(forward.getArgAttrDict(j)) == name;
        }))
      label = i;
  }
  return label;
}

/// amp_eval reports the loss the library trains: `lossKind` on the logits
/// and the label autodiff added, or the unmarked scalar result amp-autodiff
/// takes as the loss.
void addEvaluationLoss(func::FuncOp forward, func::FuncOp step,
                       LossKind lossKind) {
  SmallVector<unsigned> outputs;
  for (unsigned i = 0; i < forward.getNumResults(); ++i) {
    std::optional<Role> role = getRole(forward.getResultAttrDict(i));
    if (role == Role::Loss)
      return;
    if (!role || role == Role::Output)
      outputs.push_back(i);
  }
  if (outputs.size() != 1)
    return;
  MLIRContext *context = forward.getContext();
  auto scalar = RankedTensorType::get({}, Float32Type::get(context));
  DictionaryAttr lossAttrs = makeContractAttrs(context, Role::Loss, "loss");
  if (lossKind == LossKind::None) {
    if (forward.getResultTypes()[outputs.front()] == scalar)
      forward.setResultAttrs(outputs.front(), lossAttrs);
    return;
  }
  std::optional<unsigned> label =
      step ? findAddedLabel(forward, step) : std::nullopt;
  if (!label)
    return;
  auto ret = cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  unsigned labelIndex = forward.getNumArguments();
  (void)forward.insertArgument(labelIndex, step.getArgumentTypes()[*label],
                               step.getArgAttrDict(*label), ret.getLoc());
  OpBuilder b(ret);
  Value logits = ret.getOperand(outputs.front());
  Value labels = forward.getArgument(labelIndex);
  Value loss =
      lossKind == LossKind::CrossEntropy
          ? CrossEntropyOp::create(b, ret.getLoc(), scalar, logits, labels)
                .getResult()
          : MseLossOp::create(b, ret.getLoc(), scalar, logits, labels)
                .getResult();
  (void)forward.insertResult(forward.getNumResults(), scalar, lossAttrs);
  ret.getOperandsMutable().append(loss);
}

struct AMPEvalModePass : mlir::amp::impl::AMPEvalModePassBase<AMPEvalModePass> {
  using AMPEvalModePassBase::AMPEvalModePassBase;

  void runOnOperation() override {
    func::FuncOp forward = findForward<func::FuncOp>(getOperation());
    if (!forward)
      return;
    setEvaluationMode(forward);
    addEvaluationLoss(forward, findTrainingStep<func::FuncOp>(getOperation()),
                      loss);
  }
};
} // namespace
