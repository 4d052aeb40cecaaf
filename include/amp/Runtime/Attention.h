/*===- Attention.h - the fused attention of compiled steps -----------*- C
-*-===*\
|*                                                                            *|
|* What compiled steps call for amp.attention and amp.attention_grad          *|
|* (docs/Attention.md): on the CPU a flash-style kernel (lib/Runtime/         *|
|* CPUAttention.cpp) that never holds a batch x heads x seq x seq buffer; on  *|
|* the GPU cuDNN's fused attention (lib/Runtime/CUDAAttention.cpp) where      *|
|* cuDNN takes the configuration.                                             *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_ATTENTION_H
#define AMP_RUNTIME_ATTENTION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The problem, shared by every call below.

   q is [batch, heads_q, seq_q, head_dim], k is [batch, heads_kv, seq_kv,
   head_dim], v is [batch, heads_kv, seq_kv, head_dim_v], out is [batch,
   heads_q, seq_q, head_dim_v]: dense, row-major, all of element type `dtype`
   (an amp_dtype of ModelABI.h: AMP_DTYPE_F32, _F16 or _BF16). heads_q is a
   multiple of heads_kv; query head h reads key and value head
   h / (heads_q / heads_kv) (grouped-query attention).

   For query i and key j of one (batch, head), in f32:
     s[i][j] = scale * sum_d q[i][d] * k[j][d]  (+ mask[i][j] if additive)
   and s[i][j] = -inf where the key is hidden: causal != 0 and j > i
   (top-left: key j is visible to query i iff j <= i), or a boolean mask
   holds 0 there. With m_i = max_j s[i][j] and l_i = sum_j exp(s[i][j] - m_i):
     lse[i] = m_i + log(l_i)                   (f32, [batch, heads_q, seq_q])
     p[i][j] = exp(s[i][j] - lse[i])
     out[i] = sum_j dropped(p[i][j]) * v[j]     (accumulated in f32, rounded
                                                 once to dtype)
   A row with every key hidden has out 0 and lse -inf (and zero gradients).
   For f16 and bf16 operands the probabilities are rounded to dtype before
   the product with v, as cuDNN's and PyTorch's flash kernels do.

   Mask (mask_kind): AMP_ATTENTION_MASK_NONE (mask unused);
   AMP_ATTENTION_MASK_KEEP, one byte per element, non-zero keeps the key
   (PyTorch's boolean attn_mask); AMP_ATTENTION_MASK_ADD, f32 values added to
   the scaled scores. The mask is [mask_batch, mask_heads, seq_q, seq_kv],
   dense, with mask_batch 1 or batch and mask_heads 1 or heads_q (1:
   broadcast).

   Dropout (dropout in [0, 1); 0: none): element (b, h, i, j) is kept when
   the dropout stream of amp.dropout (lib/Conversion/AMPToLinalg, "Dropout":
   SplitMix64 of `seed` at the element's row-major linear index in
   [batch, heads_q, seq_q, seq_kv]) keeps it, so the keep mask equals that
   of amp.dropout over the materialized probabilities; kept probabilities
   are multiplied by (float)(1 / (1 - dropout)). lse does not see dropout.

   Layouts. q, k, v, out, dout, dq, dk and dv are 4-D views
   [batch, heads, seq, head_dim] of the buffers their pointers point to:
   element (b, h, i, e) is pointer[offset + b * stride_batch +
   h * stride_head + i * stride_seq + e] (head_dim contiguous). Each call
   ends (before the GPU calls' stream) with four int64_t per such tensor, in
   the order its pointers come: offset, stride_batch, stride_head,
   stride_seq, in elements, none negative and stride_seq at least the
   row's length (head_dim or head_dim_v). Dense [B, H, S, D] is offset 0,
   strides (H S D, S D, D); the heads of a projection's [B, S, H, D] output,
   (S H D, D, H D); q, k and v of one fused [B, S, 3 H D] projection, offsets
   0, H D and 2 H D with strides (3 S H D, D, 3 H D). So the head split and
   merge of a transformer need no copy. No element of a result may share
   memory with another result's or an operand's. lse ([batch, heads_q,
   seq_q]) and the mask are dense.

   Results do not depend on the number of threads (each element is computed
   by the same code in the same order whatever the count), like
   amp_cpu_sgemm's. */
enum amp_attention_mask {
  AMP_ATTENTION_MASK_NONE = 0,
  AMP_ATTENTION_MASK_KEEP = 1,
  AMP_ATTENTION_MASK_ADD = 2
};

/* The layout of one tensor argument (see "Layouts"): four int64_t. */
#define AMP_ATTENTION_LAYOUT(name)                                             \
  int64_t name##_offset, int64_t name##_stride_batch,                          \
      int64_t name##_stride_head, int64_t name##_stride_seq

/* The forward: writes out and lse. */
void amp_cpu_attention_fwd(int32_t dtype, int64_t batch, int64_t heads_q,
                           int64_t heads_kv, int64_t seq_q, int64_t seq_kv,
                           int64_t head_dim, int64_t head_dim_v, const void *q,
                           const void *k, const void *v, int32_t mask_kind,
                           const void *mask, int64_t mask_batch,
                           int64_t mask_heads, float scale, int32_t causal,
                           float dropout, int64_t seed, void *out, float *lse,
                           AMP_ATTENTION_LAYOUT(q), AMP_ATTENTION_LAYOUT(k),
                           AMP_ATTENTION_LAYOUT(v), AMP_ATTENTION_LAYOUT(out));

/* The backward, recomputing the probabilities from lse (no stored p):
     D[i]  = sum_d dout[i][d] * out[i][d]        (f32, from the stored out)
     dv[j] = sum_i dropped(p[i][j]) * dout[i]
     dp[i][j] = dropped'(sum_d dout[i][d] * v[j][d])
     ds[i][j] = p[i][j] * (dp[i][j] - D[i])
     dq[i] = scale * sum_j ds[i][j] * k[j] ;  dk[j] = scale * sum_i ds[i][j] *
   q[i] where dropped' multiplies by the keep mask and 1 / (1 - dropout). A key
   and value head's dk and dv sum over the query heads that read it. All
   sums in f32, each gradient rounded once to dtype. dq, dk and dv have the
   shapes and type of q, k and v. */
void amp_cpu_attention_bwd(int32_t dtype, int64_t batch, int64_t heads_q,
                           int64_t heads_kv, int64_t seq_q, int64_t seq_kv,
                           int64_t head_dim, int64_t head_dim_v, const void *q,
                           const void *k, const void *v, const void *out,
                           const void *dout, const float *lse,
                           int32_t mask_kind, const void *mask,
                           int64_t mask_batch, int64_t mask_heads, float scale,
                           int32_t causal, float dropout, int64_t seed,
                           void *dq, void *dk, void *dv,
                           AMP_ATTENTION_LAYOUT(q), AMP_ATTENTION_LAYOUT(k),
                           AMP_ATTENTION_LAYOUT(v), AMP_ATTENTION_LAYOUT(out),
                           AMP_ATTENTION_LAYOUT(dout), AMP_ATTENTION_LAYOUT(dq),
                           AMP_ATTENTION_LAYOUT(dk), AMP_ATTENTION_LAYOUT(dv));

/* The same on the GPU through cuDNN's fused attention (device pointers),
   queued on `stream` (a CUstream; null: the runtime's stream) like
   amp_gpu_gemm. The compiler calls these only for configurations
   amp::cudnnAttentionRefusal (amp/Runtime/CudnnAttentionRules.h) accepts:
   mask_kind AMP_ATTENTION_MASK_NONE or _ADD only (cuDNN takes no boolean
   mask; the compiler passes a keep mask as an additive 0/-inf one), every
   pointer 16-byte aligned, dense row-major buffers (the _strided calls:
   layouts cudnnAttentionLayoutRefusal accepts). dropout is always 0
   here (cuDNN's Philox stream differs from amp's, so amp keeps dropout on
   its own kernels). On failure the error is sticky (amp_device_ops.last_error)
   and the results are unchanged. Workspace comes from the runtime's pool. */
void amp_gpu_attention_fwd(int32_t dtype, int64_t batch, int64_t heads_q,
                           int64_t heads_kv, int64_t seq_q, int64_t seq_kv,
                           int64_t head_dim, int64_t head_dim_v, const void *q,
                           const void *k, const void *v, int32_t mask_kind,
                           const void *mask, int64_t mask_batch,
                           int64_t mask_heads, float scale, int32_t causal,
                           void *out, float *lse, void *stream);

void amp_gpu_attention_bwd(int32_t dtype, int64_t batch, int64_t heads_q,
                           int64_t heads_kv, int64_t seq_q, int64_t seq_kv,
                           int64_t head_dim, int64_t head_dim_v, const void *q,
                           const void *k, const void *v, const void *out,
                           const void *dout, const float *lse,
                           int32_t mask_kind, const void *mask,
                           int64_t mask_batch, int64_t mask_heads, float scale,
                           int32_t causal, void *dq, void *dk, void *dv,
                           void *stream);

/* The same with layouts (see "Layouts"), between the results and the
   stream; the calls above are these with dense layouts. */
void amp_gpu_attention_fwd_strided(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, int32_t mask_kind,
    const void *mask, int64_t mask_batch, int64_t mask_heads, float scale,
    int32_t causal, void *out, float *lse, AMP_ATTENTION_LAYOUT(q),
    AMP_ATTENTION_LAYOUT(k), AMP_ATTENTION_LAYOUT(v), AMP_ATTENTION_LAYOUT(out),
    void *stream);

void amp_gpu_attention_bwd_strided(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, const void *out,
    const void *dout, const float *lse, int32_t mask_kind, const void *mask,
    int64_t mask_batch, int64_t mask_heads, float scale, int32_t causal,
    void *dq, void *dk, void *dv, AMP_ATTENTION_LAYOUT(q),
    AMP_ATTENTION_LAYOUT(k), AMP_ATTENTION_LAYOUT(v), AMP_ATTENTION_LAYOUT(out),
    AMP_ATTENTION_LAYOUT(dout), AMP_ATTENTION_LAYOUT(dq),
    AMP_ATTENTION_LAYOUT(dk), AMP_ATTENTION_LAYOUT(dv), void *stream);

#ifdef __cplusplus
}
constexpr const char kCPUAttentionFwdFunc[] = "amp_cpu_attention_fwd";
constexpr const char kCPUAttentionBwdFunc[] = "amp_cpu_attention_bwd";
constexpr const char kGPUAttentionFwdFunc[] = "amp_gpu_attention_fwd";
constexpr const char kGPUAttentionBwdFunc[] = "amp_gpu_attention_bwd";
constexpr const char kGPUAttentionFwdStridedFunc[] =
    "amp_gpu_attention_fwd_strided";
constexpr const char kGPUAttentionBwdStridedFunc[] =
    "amp_gpu_attention_bwd_strided";
#endif

#endif /* AMP_RUNTIME_ATTENTION_H */
