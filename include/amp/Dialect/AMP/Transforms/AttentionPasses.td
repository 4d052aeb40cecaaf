//===- AttentionPasses.td - raising attention --------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_ATTENTIONPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_ATTENTIONPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPRaiseAttentionPass : Pass<"amp-raise-attention", "::mlir::ModuleOp"> {
  let summary = "Find attention in forward models and make it one "
                "amp.attention";
  let description = [{
    Rewrites, in each forward model (`amp.graph = #amp.graph<forward>`),
    the attention that imported code spells out into one amp.attention, so
    that the training step never holds the batch x heads x seq x seq scores
    (docs/Attention.md). The chain matched, from the softmax:

      scores = matmul(q, k^T)      k^T by transpose_rhs or an amp.transpose
                                   of k's last two dimensions; reshapes that
                                   merge or split the leading dimensions
                                   around the matmuls (torch's bmm views)
      scores = scores * c | scores / c         (optional; c a constant)
      scores = where(hide, -inf, scores)       a mask: hide or keep, with a
             | where(keep, scores, -inf)       constant <= -1e4 (GPT-2's
             | scores + mask                   -1e4 and finfo.min as -inf)
      probs  = softmax(scores, last axis)
      probs  = dropout(probs)                  (optional)
      out    = matmul(probs, v)

    A constant keep mask that is lower-triangular (nanoGPT's
    `torch.tril` buffer, `triu` with masked_fill, an iota comparison)
    becomes `causal`. Each intermediate must have no other use (a model
    that returns its attention probabilities keeps them), and an additive
    mask that depends on a parameter (a learned relative position bias,
    which amp.attention gives no gradient) stays unfused.

    Replacing -1e4 by -inf is exact in f32 whenever a row's largest kept
    score exceeds -9896 (exp of anything below -104 is 0 in f32), which is
    every row of a trained model.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_ATTENTIONPASSES_TD
