//===- CudnnAttentionRules.h - what cuDNN's fused attention runs -*- C++
//-*-===//
//
// The configurations of amp.attention / amp.attention_grad (Attention.h)
// that cuDNN's fused flash attention (fp16/bf16, built as the "composite"
// operation graph of lib/Runtime/CUDAAttention.cpp) runs, in one place:
// the compiler asks it to choose between cuDNN and amp's own kernels and to
// word the report, the runtime to refuse with a clear error before building
// a graph, and the emulated device's cuDNN (lib/Runtime/Emulator/Cudnn.cpp)
// to refuse what the real library refuses. Header-only, no LLVM or MLIR.
//
// Sources (as of cuDNN 9.19/9.26 and cudnn-frontend 1.2x):
//  FE  NVIDIA/cudnn-frontend include/cudnn_frontend/node/
//      sdpa_support_surface.h (forward) and
//      scaled_dot_product_flash_attention.h (backward pre-validation);
//  TE  NVIDIA/TransformerEngine transformer_engine/common/fused_attn/
//      fused_attn.cpp (nvte_get_fused_attn_backend);
//  doc docs.nvidia.com/deeplearning/cudnn/frontend/latest/operations/
//      Attention.html (support matrix).
// The rules are numbered as in the research notes of issue 37. The layout
// of each Q, K, V, O, dO, dQ, dK and dV tensor (R4, R16, R17 and R19) is
// cudnnAttentionLayoutRefusal's, dO's beside O's (R20)
// cudnnAttentionGradLayoutRefusal's; R3 (f32 [b, h, s_q, 1] statistics) is
// about a tensor amp always lays out densely.
//
// Masks: cuDNN refuses a boolean bias (FE "Bias mask data type cannot be
// boolean"), so the GPU entry points take no mask or an additive f32 mask
// only, and a keep mask (AMP_ATTENTION_MASK_KEEP) is refused here: the
// compiler turns a boolean keep mask into an additive one (0 where kept,
// -inf where hidden) before it calls cuDNN.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_CUDNNATTENTIONRULES_H
#define AMP_RUNTIME_CUDNNATTENTIONRULES_H

#include "amp/Runtime/Attention.h"
#include "amp/Runtime/ModelABI.h"

#include <cstdint>

namespace amp {

struct AttentionConfig {
  int32_t dtype; // amp_dtype (ModelABI.h)
  int64_t batch, headsQ, headsKV, seqQ, seqKV, headDim, headDimV;
  int32_t maskKind; // amp_attention_mask (Attention.h)
  int64_t maskBatch, maskHeads;
  bool causal;
  double dropout;
  bool backward; // the backward graph (else the forward)
};

namespace detail {

/// The largest head dimension (d_qk and d_v alike) cuDNN's forward takes on
/// compute capability `sm` with library version `version` (R6).
inline int64_t cudnnMaxHeadDimForward(int sm, int version) {
  // FE: "head_dim should be less than or equal to 128 for backend version
  // 9.9 or below on ampere"; TE: "9.1: <= 256 + Hopper + fprop"; FE: "128
  // for backend version 9.8 or below on blackwell". The support matrix
  // lists 256 as the Hopper (and later Ampere) prefill limit.
  if (sm < 90)
    return version < 91000 ? 128 : 256;
  if (sm < 100)
    return version < 90100 ? 128 : 256;
  return version < 90900 ? 128 : 256;
}

/// The same for the backward (R7): Hopper up to 256 from 9.5 (TE "9.5:
/// <= 256 + Hopper + bprop"), every other architecture 128 (FE backward
/// pre-validation; Blackwell's (192, 128) exception is R7's special case).
inline int64_t cudnnMaxHeadDimBackward(int sm, int version) {
  if (sm >= 90 && sm < 100 && version >= 90500)
    return 256;
  return 128;
}

} // namespace detail

/// Null when cuDNN `cudnnVersion` (cudnnGetVersion(), e.g. 91900) on compute
/// capability `sm` (e.g. 90) runs the fused attention `config` describes;
/// else the reason, a sentence naming the rule (for the report and errors).
inline const char *cudnnAttentionRefusal(const AttentionConfig &config, int sm,
                                         int cudnnVersion) {
  const AttentionConfig &c = config;
  // The backend graph API amp builds with is cuDNN 9's (libcudnn.so.9).
  if (cudnnVersion < 90000)
    return "R0: amp builds cuDNN attention with cuDNN 9's backend API; this "
           "cuDNN is older";
  // FE: "SDPA FP16/BF16 requires SM80 (Ampere) or newer architecture".
  if (sm < 80)
    return "R1: cuDNN's fused attention needs compute capability 8.0 "
           "(Ampere) or newer";
  // TE: q_dtype == kNVTEFloat16 || kNVTEBFloat16 (fp32 is a different,
  // unfused path; fp8 a different graph).
  if (c.dtype != AMP_DTYPE_F16 && c.dtype != AMP_DTYPE_BF16)
    return "R2: cuDNN's fused attention takes f16 and bf16 operands only";
  if (c.batch <= 0 || c.headsQ <= 0 || c.headsKV <= 0 || c.seqQ <= 0 ||
      c.seqKV <= 0 || c.headDim <= 0 || c.headDimV <= 0)
    return "R10: every size of the attention (batch, heads, sequences, head "
           "dimensions) must be positive";
  // FE: "For group-query attention, number of heads for key and query must
  // be a factor of number of heads for query".
  if (c.headsQ % c.headsKV != 0)
    return "R9: the query heads must be a multiple of the key/value heads";
  // FE: "hidden_dim should be multiple of 8".
  if (c.headDim % 8 != 0 || c.headDimV % 8 != 0)
    return "R5: cuDNN's fused attention needs head dimensions that are "
           "multiples of 8";
  if (!c.backward) {
    if (c.headDim > detail::cudnnMaxHeadDimForward(sm, cudnnVersion) ||
        c.headDimV > detail::cudnnMaxHeadDimForward(sm, cudnnVersion))
      return detail::cudnnMaxHeadDimForward(sm, cudnnVersion) == 256
                 ? "R6: cuDNN's fused attention forward takes head "
                   "dimensions up to 256"
                 : "R6: cuDNN's fused attention forward takes head "
                   "dimensions up to 128 on this GPU with this cuDNN (256 "
                   "needs cuDNN 9.10 on sm_8x, 9.1 on sm_90, 9.9 on "
                   "sm_100 and later)";
  } else {
    int64_t limit = detail::cudnnMaxHeadDimBackward(sm, cudnnVersion);
    // FE backward: on sm_100 from 9.11, d_qk 192 with d_v 128 also runs.
    bool blackwell192 = sm >= 100 && cudnnVersion >= 91100 &&
                        c.headDim == 192 && c.headDimV == 128;
    if ((c.headDim > limit || c.headDimV > limit) && !blackwell192)
      return limit == 256 ? "R7: cuDNN's fused attention backward takes "
                            "head dimensions up to 256"
                          : "R7: cuDNN's fused attention backward takes "
                            "head dimensions up to 128 on this GPU with "
                            "this cuDNN (256 only on sm_90 from cuDNN 9.5)";
    // TE: "9.11+ bug: 128 < d_qk <= 256, 128 < d_v <= 256 + Hopper + bprop
    // + MLA" (as TE tests it: >= 128, unequal, not (192, 128)).
    if (sm >= 90 && sm < 100 && cudnnVersion >= 91100 && c.headDim >= 128 &&
        c.headDimV >= 128 && c.headDim != c.headDimV &&
        !(c.headDim == 192 && c.headDimV == 128))
      return "R8: cuDNN 9.11 and later have a known bug in the sm_90 "
             "attention backward with unequal head dimensions of 128 or more";
    // FE backward: "s_q = s_kv = 1 is not supported."
    if (c.seqQ == 1 && c.seqKV == 1)
      return "R11: cuDNN's fused attention backward does not take sequence "
             "lengths 1 and 1";
    // FE backward adds a padding mask of full lengths for s_kv % 128 != 0
    // on cuDNN <= 9.15.0 ("backend_version() <= 91500") to work around a
    // bug; amp builds no padding mask.
    if (cudnnVersion <= 91500 && c.seqKV % 128 != 0)
      return "R11: up to cuDNN 9.15.0 the fused attention backward needs a "
             "key sequence length that is a multiple of 128 (cudnn-frontend "
             "works around a bug there with a padding mask amp does not "
             "build)";
  }
  // Causal masking is top-left (key j visible to query i iff j <= i),
  // which cuDNN takes for any s_q and s_kv (R12; only bottom-right
  // alignment has limits).
  switch (c.maskKind) {
  case AMP_ATTENTION_MASK_NONE:
    break;
  case AMP_ATTENTION_MASK_ADD:
    // FE/TE: a post-scale bias of [1|b, 1|h, s_q, s_kv].
    if ((c.maskBatch != 1 && c.maskBatch != c.batch) ||
        (c.maskHeads != 1 && c.maskHeads != c.headsQ))
      return "R13: an additive mask must be [1 or batch, 1 or query heads, "
             "seq_q, seq_kv]";
    break;
  case AMP_ATTENTION_MASK_KEEP:
    return "R13: cuDNN refuses a boolean mask (bias); amp passes keep masks "
           "to cuDNN as additive f32 masks (0 or -inf)";
  default:
    return "R13: unknown mask kind (none, keep or additive)";
  }
  // FE builds a Philox (RNG) node for dropout; amp's dropout is another
  // stream (SplitMix64 at the element's index), so the masks would differ.
  if (c.dropout != 0.0)
    return "R14: amp keeps dropout on its own kernels: cuDNN's Philox stream "
           "differs from amp's";
  // FE: "SDPA FP16/BF16 forward/backward is not supported on cuDNN
  // 9.10.0/9.10.1 due to known bugs".
  if (cudnnVersion == 91000 || cudnnVersion == 91001)
    return "R15: cuDNN 9.10.0 and 9.10.1 have known bugs in fused attention "
           "(9.10.2 or later is needed)";
  return nullptr;
}

/// Null when cuDNN's fused attention takes a Q, K, V, O, dO, dQ, dK or dV
/// tensor of `dtype` (f16 or bf16) whose element (b, h, i, e) is at
/// base[offset + b strides[0] + h strides[1] + i strides[2] + e strides[3]],
/// `base` 16-byte aligned (Attention.h, "Layouts"); else the reason. Any
/// order of the dimensions in memory is a layout cuDNN runs (R17: BHSD,
/// BSHD, SBHD, interleaved QKV) within these rules.
inline const char *cudnnAttentionLayoutRefusal(int32_t dtype,
                                               const int64_t strides[4],
                                               int64_t offset) {
  const int64_t bytes = dtype == AMP_DTYPE_F32 ? 4 : 2;
  // FE: "The stride for the last dimension corresponding to the embedding
  // size per head should be 1".
  if (strides[3] != 1)
    return "R4: the head dimension of an attention tensor must be "
           "contiguous (stride 1)";
  // FE declares every tensor 16-byte aligned (graph_properties.h
  // alignment = 16), so the pointer amp passes must be.
  if (offset < 0 || offset * bytes % 16 != 0)
    return "R16: an attention tensor must start 16-byte aligned";
  // cuDNN's sm_90 attention kernels load tiles by TMA, whose tensor maps
  // take strides in bytes that are positive multiples of 16 below 2^40
  // (cuda.h, cuTensorMapEncodeTiled: "globalStrides ... must be a multiple
  // of 16 and less than 2^40").
  for (int i = 0; i < 3; ++i)
    if (strides[i] <= 0 || strides[i] * bytes % 16 != 0 ||
        strides[i] * bytes >= (int64_t(1) << 40))
      return "R19: the batch, head and sequence strides of an attention "
             "tensor must be positive multiples of 16 bytes (8 f16/bf16 "
             "elements) below 2^40 bytes";
  return nullptr;
}

/// Null when the backward of cuDNN `cudnnVersion` takes the output's
/// gradient dO with `gradStrides` beside the output O with `outStrides`
/// ([b, h, s, d] element strides); else the reason.
inline const char *cudnnAttentionGradLayoutRefusal(const int64_t outStrides[4],
                                                   const int64_t gradStrides[4],
                                                   int cudnnVersion) {
  // PyTorch (aten/src/ATen/native/cudnn/MHA.cpp): "cuDNN < 9.5.1 assumes
  // gradOutput has same strides as Output".
  for (int i = 0; i < 4; ++i)
    if (cudnnVersion < 90501 && outStrides[i] != gradStrides[i])
      return "R20: before cuDNN 9.5.1 the attention backward needs the "
             "output's gradient laid out as the output";
  return nullptr;
}

} // namespace amp

#endif // AMP_RUNTIME_CUDNNATTENTIONRULES_H
