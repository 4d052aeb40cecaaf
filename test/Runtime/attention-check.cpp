//===- attention-check.cpp - amp_gpu_attention_* and cuDNN's rules --------===//
//
// amp-cuda-attention-check MODE [WHAT]: amp_gpu_attention_fwd/bwd
// (lib/Runtime/CUDAAttention.cpp, i.e. the cuDNN graphs, plans and variant
// packs) against a direct double-precision computation, and the rule table
// of amp/Runtime/CudnnAttentionRules.h. Built twice: against the emulator
// build of the CUDA runtime (amp-cuda-emulator-attention-check, the
// emulated cuDNN of lib/Runtime/Emulator/Cudnn.cpp) and against the real
// one (amp-cuda-attention-check, cuDNN on a GPU: scripts/gpu-machine.sh).
// One check per process: the runtime's errors are sticky.
//
//   rules         cudnnAttentionRefusal's table (needs no device)
//   attention     forward and backward of every case below against the
//                 reference: f16 and bf16, causal or not, additive masks
//                 with each broadcast, grouped heads, head dimensions 64
//                 and 128 (and 64 with 128 for values), seq_q != seq_kv
//   refuse WHAT   a call cuDNN refuses, with the error naming the rule:
//                 f32, d20, d264, d264-bwd, keep (a boolean mask),
//                 misaligned (a q pointer 2 bytes into its buffer),
//                 layout-r19 (q's rows 68 elements apart), layout-r16 (q
//                 4 elements into its buffer)
//
//===----------------------------------------------------------------------===//

#include "GemmChecks.h"

#include "amp/Runtime/Attention.h"
#include "amp/Runtime/CudnnAttentionRules.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace amp::check;

//===----------------------------------------------------------------------===//
// The rule table
//===----------------------------------------------------------------------===//

struct RuleCase {
  const char *name;
  amp::AttentionConfig config;
  int sm, version;
  const char *expected; // "ok" or the rule's number, e.g. "R6"
};

amp::AttentionConfig base(int32_t dtype, int64_t d, int64_t dv, bool backward) {
  return {dtype, 2, 8,    8,   256,     256, d, dv, AMP_ATTENTION_MASK_NONE,
          1,     1, true, 0.0, backward};
}

int checkRules() {
  amp::AttentionConfig gqa = base(AMP_DTYPE_BF16, 64, 64, false);
  gqa.headsKV = 2;
  amp::AttentionConfig badGroups = gqa;
  badGroups.headsQ = 6;
  badGroups.headsKV = 4;
  amp::AttentionConfig additive = base(AMP_DTYPE_F16, 64, 64, true);
  additive.maskKind = AMP_ATTENTION_MASK_ADD;
  additive.maskBatch = 1;
  additive.maskHeads = 8;
  amp::AttentionConfig badMask = additive;
  badMask.maskBatch = 3;
  amp::AttentionConfig keep = additive;
  keep.maskKind = AMP_ATTENTION_MASK_KEEP;
  amp::AttentionConfig dropout = base(AMP_DTYPE_BF16, 64, 64, false);
  dropout.dropout = 0.1;
  amp::AttentionConfig single = base(AMP_DTYPE_BF16, 64, 64, true);
  single.seqQ = single.seqKV = 1;
  amp::AttentionConfig oddKeys = base(AMP_DTYPE_BF16, 64, 64, true);
  oddKeys.seqKV = 100;
  amp::AttentionConfig empty = base(AMP_DTYPE_BF16, 64, 64, false);
  empty.batch = 0;
  const RuleCase cases[] = {
      {"gpt2 forward bf16 d64 causal sm_90", base(AMP_DTYPE_BF16, 64, 64, 0),
       90, 91900, "ok"},
      {"gpt2 backward bf16 d64 causal sm_90", base(AMP_DTYPE_BF16, 64, 64, 1),
       90, 91900, "ok"},
      {"grouped heads 8/2", gqa, 90, 91900, "ok"},
      {"additive mask [1, h]", additive, 90, 91900, "ok"},
      {"cuDNN 8.9", base(AMP_DTYPE_BF16, 64, 64, 0), 90, 8907, "R0"},
      {"sm_75", base(AMP_DTYPE_BF16, 64, 64, 0), 75, 91900, "R1"},
      {"sm_80", base(AMP_DTYPE_BF16, 64, 64, 0), 80, 91900, "ok"},
      {"f32", base(AMP_DTYPE_F32, 64, 64, 0), 90, 91900, "R2"},
      {"batch 0", empty, 90, 91900, "R10"},
      {"heads 6/4", badGroups, 90, 91900, "R9"},
      {"head dim 20", base(AMP_DTYPE_BF16, 20, 20, 0), 90, 91900, "R5"},
      {"value head dim 60", base(AMP_DTYPE_BF16, 64, 60, 0), 90, 91900, "R5"},
      {"forward d256 sm_90", base(AMP_DTYPE_F16, 256, 256, 0), 90, 91900, "ok"},
      {"forward d264 sm_90", base(AMP_DTYPE_F16, 264, 264, 0), 90, 91900, "R6"},
      {"forward d256 sm_90 cuDNN 9.0", base(AMP_DTYPE_F16, 256, 256, 0), 90,
       90000, "R6"},
      {"forward d256 sm_80 cuDNN 9.9", base(AMP_DTYPE_F16, 256, 256, 0), 80,
       90900, "R6"},
      {"forward d256 sm_80 cuDNN 9.19", base(AMP_DTYPE_F16, 256, 256, 0), 80,
       91900, "ok"},
      {"forward d256 sm_100 cuDNN 9.8", base(AMP_DTYPE_F16, 256, 256, 0), 100,
       90800, "R6"},
      {"backward d256 sm_90", base(AMP_DTYPE_BF16, 256, 256, 1), 90, 91900,
       "ok"},
      {"backward d264 sm_90", base(AMP_DTYPE_BF16, 264, 264, 1), 90, 91900,
       "R7"},
      {"backward d256 sm_90 cuDNN 9.4", base(AMP_DTYPE_BF16, 256, 256, 1), 90,
       90400, "R7"},
      {"backward d256 sm_80", base(AMP_DTYPE_BF16, 256, 256, 1), 80, 91900,
       "R7"},
      {"backward d192/128 sm_100 cuDNN 9.11", base(AMP_DTYPE_BF16, 192, 128, 1),
       100, 91100, "ok"},
      {"backward d192/128 sm_100 cuDNN 9.10.2",
       base(AMP_DTYPE_BF16, 192, 128, 1), 100, 91002, "R7"},
      {"backward d128/256 sm_90 cuDNN 9.19", base(AMP_DTYPE_BF16, 128, 256, 1),
       90, 91900, "R8"},
      {"backward d192/128 sm_90 cuDNN 9.19", base(AMP_DTYPE_BF16, 192, 128, 1),
       90, 91900, "ok"},
      {"backward d64/128 sm_90", base(AMP_DTYPE_BF16, 64, 128, 1), 90, 91900,
       "ok"},
      {"backward s_q = s_kv = 1", single, 90, 91900, "R11"},
      {"backward s_kv 100 cuDNN 9.15.0", oddKeys, 90, 91500, "R11"},
      {"backward s_kv 100 cuDNN 9.15.1", oddKeys, 90, 91501, "ok"},
      {"backward s_kv 100 cuDNN 9.19", oddKeys, 90, 91900, "ok"},
      {"mask batch 3 of 2", badMask, 90, 91900, "R13"},
      {"keep mask", keep, 90, 91900, "R13"},
      {"dropout 0.1", dropout, 90, 91900, "R14"},
      {"cuDNN 9.10.0", base(AMP_DTYPE_BF16, 64, 64, 0), 90, 91000, "R15"},
      {"cuDNN 9.10.1 backward", base(AMP_DTYPE_BF16, 64, 64, 1), 90, 91001,
       "R15"},
      {"cuDNN 9.10.2", base(AMP_DTYPE_BF16, 64, 64, 0), 90, 91002, "ok"},
  };
  for (const RuleCase &c : cases) {
    const char *reason = amp::cudnnAttentionRefusal(c.config, c.sm, c.version);
    std::string got = "ok";
    if (reason)
      got = std::string(reason, std::strchr(reason, ':') - reason);
    expect(got == c.expected,
           std::string("rules ") + c.name + ": " + (reason ? reason : "runs"));
  }
  // Layouts of one tensor (b 2, h 12, s 1024, d 64): strides, offset.
  struct LayoutCase {
    const char *name;
    int32_t dtype;
    int64_t strides[4], offset;
    const char *expected;
  };
  const int32_t bf16 = AMP_DTYPE_BF16, f16 = AMP_DTYPE_F16;
  const LayoutCase layouts[] = {
      {"dense bf16", bf16, {786432, 65536, 64, 1}, 0, "ok"},
      {"bshd bf16", bf16, {786432, 64, 768, 1}, 0, "ok"},
      {"fused qkv bf16, v", f16, {2359296, 64, 2304, 1}, 1536, "ok"},
      {"head dimension strided", bf16, {786432, 65536, 1, 1024}, 0, "R4"},
      {"8 bytes in", bf16, {786432, 65536, 64, 1}, 4, "R16"},
      {"rows 68 apart", bf16, {835584, 69632, 68, 1}, 0, "R19"},
      {"rows 72 apart", f16, {884736, 73728, 72, 1}, 0, "ok"},
      {"heads broadcast (stride 0)", bf16, {65536, 0, 64, 1}, 0, "R19"},
  };
  for (const LayoutCase &c : layouts) {
    const char *reason =
        amp::cudnnAttentionLayoutRefusal(c.dtype, c.strides, c.offset);
    std::string got = "ok";
    if (reason)
      got = std::string(reason, std::strchr(reason, ':') - reason);
    expect(got == c.expected,
           std::string("layout ") + c.name + ": " + (reason ? reason : "runs"));
  }
  // dO beside O (R20): a [b, s, h, d] O with a dense dO.
  const int64_t bshd[4] = {786432, 64, 768, 1},
                dense[4] = {786432, 65536, 64, 1};
  for (int version : {90500, 90501}) {
    const char *reason =
        amp::cudnnAttentionGradLayoutRefusal(bshd, dense, version);
    expect((reason != nullptr) == (version < 90501),
           "layout dO unlike O, cuDNN " + std::to_string(version) + ": " +
               (reason ? reason : "runs"));
  }
  return failures ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// Attention against the reference
//===----------------------------------------------------------------------===//

size_t elementBytes(int32_t dtype) { return dtype == AMP_DTYPE_F32 ? 4 : 2; }

float roundTo(int32_t dtype, float value) {
  if (dtype == AMP_DTYPE_F16)
    return amp::halfToFloat(amp::floatToHalf(value));
  if (dtype == AMP_DTYPE_BF16)
    return amp::bfloat16ToFloat(amp::floatToBFloat16(value));
  return value;
}

/// `values` (representable) as the bytes of `dtype` elements, and back.
std::vector<char> toBytes(int32_t dtype, const std::vector<float> &values) {
  std::vector<char> bytes(values.size() * elementBytes(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == AMP_DTYPE_F32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
      continue;
    }
    uint16_t h = dtype == AMP_DTYPE_F16 ? amp::floatToHalf(values[i])
                                        : amp::floatToBFloat16(values[i]);
    std::memcpy(&bytes[i * 2], &h, 2);
  }
  return bytes;
}

std::vector<float> fromBytes(int32_t dtype, const std::vector<char> &bytes) {
  std::vector<float> values(bytes.size() / elementBytes(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == AMP_DTYPE_F32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
      continue;
    }
    uint16_t h;
    std::memcpy(&h, &bytes[i * 2], 2);
    values[i] =
        dtype == AMP_DTYPE_F16 ? amp::halfToFloat(h) : amp::bfloat16ToFloat(h);
  }
  return values;
}

/// `values` as a new device buffer of `dtype`.
void *upload(int32_t dtype, const std::vector<float> &values) {
  std::vector<char> bytes = toBytes(dtype, values);
  void *pointer = ops().alloc(bytes.size());
  ops().copy_to_device(pointer, bytes.data(), bytes.size());
  return pointer;
}

std::vector<float> download(int32_t dtype, const void *pointer, size_t count) {
  std::vector<char> bytes(count * elementBytes(dtype));
  if (ops().copy_to_host(bytes.data(), pointer, bytes.size()) != 0)
    std::printf("error: %s\n", ops().last_error());
  return fromBytes(dtype, bytes);
}

/// Values in [-1, 1], rounded to `dtype`.
std::vector<float> randomValues(size_t count, uint32_t seed, int32_t dtype) {
  std::vector<float> values(count);
  uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (float &v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = roundTo(dtype, float(double(state >> 40) / double(1ull << 23) - 1.0));
  }
  return values;
}

/// How a case lays out q, k, v, out, dout, dq, dk and dv in device memory
/// (Attention.h, "Layouts"): dense [b, h, s, d] through
/// amp_gpu_attention_fwd/bwd, else through the _strided calls: each in its
/// own [b, s, h, d] buffer (a projection's heads), or q, k, v the columns
/// of one [b, s, hq d + hkv d + hkv dv] buffer (a fused projection), dq,
/// dk, dv of another, out and dout [b, s, h, dv + 8] with 8 elements of
/// padding after each row, 8 elements in.
enum class Layout { Dense, BSHD, Fused };

struct Case {
  int32_t dtype;
  int64_t batch, headsQ, headsKV, seqQ, seqKV, d, dv;
  bool causal;
  int32_t maskKind;
  int64_t maskBatch, maskHeads;
  /// The mask hides every key of query 1 (out 0, lse -inf, no gradient).
  bool hiddenRow = false;
  Layout layout = Layout::Dense;

  std::string name() const {
    std::string text = std::string(dtype == AMP_DTYPE_F16 ? "f16" : "bf16") +
                       " b" + std::to_string(batch) + " h" +
                       std::to_string(headsQ) + "/" + std::to_string(headsKV) +
                       " s" + std::to_string(seqQ) + "x" +
                       std::to_string(seqKV) + " d" + std::to_string(d) + "/" +
                       std::to_string(dv);
    if (causal)
      text += " causal";
    if (maskKind == AMP_ATTENTION_MASK_ADD)
      text += " mask[" + std::to_string(maskBatch) + "," +
              std::to_string(maskHeads) + "]";
    if (hiddenRow)
      text += " hidden row";
    if (layout == Layout::BSHD)
      text += " bshd";
    if (layout == Layout::Fused)
      text += " fused";
    return text;
  }
};

/// The tensors of the calls, in the order of their layout arguments.
enum Role { kQ, kK, kV, kO, kDO, kDQ, kDK, kDV, kRoles };

/// Where each tensor of a case is: host images of its device buffers (NaN
/// where no tensor is), and per role the buffer, offset and strides.
struct Placement {
  struct Where {
    int buffer;
    int64_t offset, batch, head, seq;
  };
  std::vector<std::vector<float>> host;
  std::vector<void *> device;
  Where where[kRoles];
  int64_t heads[kRoles], seq[kRoles], width[kRoles];

  int64_t index(Role r, int64_t b, int64_t h, int64_t i, int64_t e) const {
    const Where &w = where[r];
    return w.offset + b * w.batch + h * w.head + i * w.seq + e;
  }
};

Placement place(const Case &c) {
  Placement p;
  int64_t hq = c.headsQ, hkv = c.headsKV, sq = c.seqQ, skv = c.seqKV;
  const int64_t heads[] = {hq, hkv, hkv, hq, hq, hq, hkv, hkv};
  const int64_t seqs[] = {sq, skv, skv, sq, sq, sq, skv, skv};
  const int64_t widths[] = {c.d, c.d, c.dv, c.dv, c.dv, c.d, c.d, c.dv};
  for (int r = 0; r < kRoles; ++r) {
    p.heads[r] = heads[r];
    p.seq[r] = seqs[r];
    p.width[r] = widths[r];
  }
  auto buffer = [&](int64_t elements) {
    p.host.emplace_back(size_t(elements), NAN);
    return int(p.host.size()) - 1;
  };
  // Its own [b, h, s, w] or [b, s, h, w + pad] buffer, `offset` in.
  auto own = [&](int r, bool bshd, int64_t pad, int64_t offset) {
    int64_t h = heads[r], s = seqs[r], w = widths[r] + pad;
    int id = buffer(offset + c.batch * h * s * w);
    p.where[r] = bshd ? Placement::Where{id, offset, s * h * w, w, h * w}
                      : Placement::Where{id, offset, h * s * w, s * w, w};
  };
  if (c.layout != Layout::Fused) {
    for (int r = 0; r < kRoles; ++r)
      own(r, c.layout == Layout::BSHD, 0, 0);
    return p;
  }
  own(kO, true, 8, 8);
  own(kDO, true, 8, 8);
  int64_t columns = hq * c.d + hkv * c.d + hkv * c.dv, rows = std::max(sq, skv);
  for (Role first : {kQ, kDQ}) {
    int id = buffer(c.batch * rows * columns);
    int64_t column = 0;
    for (int r = first; r < first + 3; ++r) {
      if (r == kO)
        r = kV; // kQ, kK, kV; kDQ, kDK, kDV
      p.where[r] = {id, column, rows * columns, widths[r], columns};
      column += heads[r] * widths[r];
    }
  }
  return p;
}

/// Dense [b, h, s, w] `values` into `p`'s host image at role `r`.
void scatter(Placement &p, Role r, int64_t batch,
             const std::vector<float> &values) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < p.heads[r]; ++h)
      for (int64_t i = 0; i < p.seq[r]; ++i)
        for (int64_t e = 0; e < p.width[r]; ++e)
          p.host[size_t(p.where[r].buffer)][size_t(p.index(r, b, h, i, e))] =
              values[size_t(((b * p.heads[r] + h) * p.seq[r] + i) * p.width[r] +
                            e)];
}

/// Role `r` as dense [b, h, s, w] values from `image`, its buffer's.
std::vector<float> gather(const Placement &p, Role r, int64_t batch,
                          const std::vector<float> &image) {
  std::vector<float> values(size_t(batch * p.heads[r] * p.seq[r] * p.width[r]));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < p.heads[r]; ++h)
      for (int64_t i = 0; i < p.seq[r]; ++i)
        for (int64_t e = 0; e < p.width[r]; ++e)
          values[size_t(((b * p.heads[r] + h) * p.seq[r] + i) * p.width[r] +
                        e)] = image[size_t(p.index(r, b, h, i, e))];
  return values;
}

/// The unit roundoff of `dtype`: bf16 keeps 8 significant bits, f16 11.
double unitRoundoff(int32_t dtype) {
  return dtype == AMP_DTYPE_F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

/// One case: the forward against the reference, then the backward (fed the
/// device's own out and lse, as a training step does) against the
/// reference of Attention.h's backward from those.
///
/// Tolerances: the reference is exact (double) on the same rounded inputs.
/// cuDNN rounds each probability (forward: before P V; backward: before
/// P^T dO) and each dS (before dS^T Q, maybe dS K) to the I/O type, and
/// each result once (the emulated cuDNN, like amp's CPU kernel, only the
/// forward's probabilities and the results); everything else is f32, whose
/// error is far below the I/O type's unit roundoff u. So an element whose terms
/// t_k sum to r is off by at most u * sum |t_k| (rounded terms) + u * |r| (the
/// result's rounding), grouped heads adding one more rounding of each head's
/// part (at most u * sum |t_k| again). The check allows 4u * sum |t_k| + 2u *
/// |r| + 1e-6 (the last for f32 sums of cancelling terms), and 1e-5 (1 + |lse|)
/// for the f32 statistics. A wrong layout, head, mask or causal band is off by
/// a sizeable fraction of sum |t_k| and fails.
bool runCase(const Case &c, uint32_t seed) {
  int32_t t = c.dtype;
  int64_t b = c.batch, hq = c.headsQ, hkv = c.headsKV, sq = c.seqQ,
          skv = c.seqKV, d = c.d, dv = c.dv, group = hq / hkv;
  std::vector<float> q = randomValues(size_t(b * hq * sq * d), seed, t),
                     k = randomValues(size_t(b * hkv * skv * d), seed + 1, t),
                     v = randomValues(size_t(b * hkv * skv * dv), seed + 2, t),
                     dO = randomValues(size_t(b * hq * sq * dv), seed + 3, t);
  int64_t mb = c.maskKind ? c.maskBatch : 1, mh = c.maskKind ? c.maskHeads : 1;
  std::vector<float> mask;
  if (c.maskKind) {
    // Values in [-1, 1] and some -inf, never in column 0, so that every row
    // keeps a key (with the causal band too).
    mask = randomValues(size_t(mb * mh * sq * skv), seed + 4, AMP_DTYPE_F32);
    for (int64_t x = 0; x < int64_t(mask.size()); ++x)
      if ((x % skv != 0 && x % 7 == 3) || (c.hiddenRow && x / skv % sq == 1))
        mask[size_t(x)] = -INFINITY;
  }
  float scale = float(1.0 / std::sqrt(double(d)));
  auto Q = [&](int64_t bb, int64_t h, int64_t i, int64_t e) {
    return double(q[size_t(((bb * hq + h) * sq + i) * d + e)]);
  };
  auto K = [&](int64_t bb, int64_t h, int64_t j, int64_t e) {
    return double(k[size_t(((bb * hkv + h) * skv + j) * d + e)]);
  };
  auto V = [&](int64_t bb, int64_t h, int64_t j, int64_t e) {
    return double(v[size_t(((bb * hkv + h) * skv + j) * dv + e)]);
  };
  auto DO = [&](int64_t bb, int64_t h, int64_t i, int64_t e) {
    return double(dO[size_t(((bb * hq + h) * sq + i) * dv + e)]);
  };
  auto score = [&](int64_t bb, int64_t h, int64_t i, int64_t j) {
    if (c.causal && j > i)
      return -INFINITY * 1.0;
    double s = 0.0;
    for (int64_t e = 0; e < d; ++e)
      s += Q(bb, h, i, e) * K(bb, h / group, j, e);
    s *= double(scale);
    if (c.maskKind)
      s += double(mask[size_t(
          (((mb == 1 ? 0 : bb) * mh + (mh == 1 ? 0 : h)) * sq + i) * skv + j)]);
    return s;
  };

  Placement place_ = place(c);
  scatter(place_, kQ, b, q);
  scatter(place_, kK, b, k);
  scatter(place_, kV, b, v);
  scatter(place_, kDO, b, dO);
  for (const std::vector<float> &image : place_.host)
    place_.device.push_back(upload(t, image));
  auto device = [&](Role r) {
    return place_.device[size_t(place_.where[r].buffer)];
  };
  // A role's layout arguments (Attention.h, "Layouts").
#define AMP_LAYOUT(r)                                                          \
  place_.where[r].offset, place_.where[r].batch, place_.where[r].head,         \
      place_.where[r].seq
  void *dq = device(kQ), *dk = device(kK), *dvIn = device(kV),
       *ddO = device(kDO);
  void *dMask = c.maskKind ? upload(AMP_DTYPE_F32, mask) : nullptr;
  void *dOut = device(kO);
  float *dLse = static_cast<float *>(ops().alloc(size_t(b * hq * sq) * 4));
  if (c.layout == Layout::Dense)
    amp_gpu_attention_fwd(t, b, hq, hkv, sq, skv, d, dv, dq, dk, dvIn,
                          c.maskKind, dMask, mb, mh, scale, c.causal, dOut,
                          dLse, nullptr);
  else
    amp_gpu_attention_fwd_strided(t, b, hq, hkv, sq, skv, d, dv, dq, dk, dvIn,
                                  c.maskKind, dMask, mb, mh, scale, c.causal,
                                  dOut, dLse, AMP_LAYOUT(kQ), AMP_LAYOUT(kK),
                                  AMP_LAYOUT(kV), AMP_LAYOUT(kO), nullptr);
  if (ops().synchronize() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return false;
  }
  std::vector<float> outImage =
      download(t, dOut, place_.host[size_t(place_.where[kO].buffer)].size());
  std::vector<float> out = gather(place_, kO, b, outImage);
  std::vector<float> lse = download(AMP_DTYPE_F32, dLse, size_t(b * hq * sq));
  double u = unitRoundoff(t), worst = 0.0;
  bool ok = true;
  auto within = [&](double got, double want, double terms, double extra) {
    double error = std::fabs(got - want);
    double bound = 4 * u * terms + 2 * u * std::fabs(want) + 1e-6 + extra;
    worst = std::max(worst, error / bound);
    return error <= bound;
  };
  // Forward.
  std::vector<double> p(static_cast<size_t>(skv)), termsOut(out.size());
  for (int64_t bb = 0; bb < b; ++bb)
    for (int64_t h = 0; h < hq; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        double m = -INFINITY, l = 0.0;
        for (int64_t j = 0; j < skv; ++j)
          m = std::max(m, score(bb, h, i, j));
        for (int64_t j = 0; j < skv; ++j)
          l += std::exp(score(bb, h, i, j) - m);
        size_t row = size_t((bb * hq + h) * sq + i);
        // Every key hidden: out 0 and lse -inf (Attention.h).
        bool none = m == -INFINITY;
        double wantLse = none ? -INFINITY : m + std::log(l);
        ok &= none ? lse[row] == -INFINITY
                   : std::fabs(double(lse[row]) - wantLse) <=
                         1e-5 * (1 + std::fabs(wantLse));
        for (int64_t j = 0; j < skv; ++j)
          p[size_t(j)] = none ? 0.0 : std::exp(score(bb, h, i, j) - wantLse);
        for (int64_t e = 0; e < dv; ++e) {
          double want = 0.0, terms = 0.0;
          for (int64_t j = 0; j < skv; ++j) {
            want += p[size_t(j)] * V(bb, h / group, j, e);
            terms += std::fabs(p[size_t(j)] * V(bb, h / group, j, e));
          }
          ok &= within(out[row * size_t(dv) + size_t(e)], want, terms, 0.0);
          termsOut[row * size_t(dv) + size_t(e)] = terms;
        }
      }
  expect(ok, "attention fwd " + c.name());
  std::printf("  worst error / bound %.3f\n", worst);

  // Backward, from the device's out and lse.
  void *gq = device(kDQ), *gk = device(kDK), *gv = device(kDV);
  if (c.layout == Layout::Dense)
    amp_gpu_attention_bwd(t, b, hq, hkv, sq, skv, d, dv, dq, dk, dvIn, dOut,
                          ddO, dLse, c.maskKind, dMask, mb, mh, scale, c.causal,
                          gq, gk, gv, nullptr);
  else
    amp_gpu_attention_bwd_strided(
        t, b, hq, hkv, sq, skv, d, dv, dq, dk, dvIn, dOut, ddO, dLse,
        c.maskKind, dMask, mb, mh, scale, c.causal, gq, gk, gv, AMP_LAYOUT(kQ),
        AMP_LAYOUT(kK), AMP_LAYOUT(kV), AMP_LAYOUT(kO), AMP_LAYOUT(kDO),
        AMP_LAYOUT(kDQ), AMP_LAYOUT(kDK), AMP_LAYOUT(kDV), nullptr);
#undef AMP_LAYOUT
  if (ops().synchronize() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return false;
  }
  // Every result buffer, read back: the results, and NaN everywhere else.
  std::vector<std::vector<float>> images(place_.host.size());
  for (Role r : {kO, kDQ, kDK, kDV}) {
    size_t id = size_t(place_.where[r].buffer);
    if (images[id].empty())
      images[id] = download(t, place_.device[id], place_.host[id].size());
  }
  std::vector<float> gotQ = gather(place_, kDQ, b,
                                   images[size_t(place_.where[kDQ].buffer)]),
                     gotK = gather(place_, kDK, b,
                                   images[size_t(place_.where[kDK].buffer)]),
                     gotV = gather(place_, kDV, b,
                                   images[size_t(place_.where[kDV].buffer)]);
  size_t written = out.size() + q.size() + k.size() + v.size(), untouched = 0,
         total = 0;
  for (const std::vector<float> &image : images) {
    total += image.size();
    for (float value : image)
      untouched += std::isnan(value) ? 1 : 0;
  }
  expect(untouched == total - written,
         "attention " + c.name() + " writes only its results (" +
             std::to_string(total - written - untouched) + " other elements)");
  std::vector<double> wantQ(q.size()), termsQ(q.size()), wantK(k.size()),
      termsK(k.size()), wantV(v.size()), termsV(v.size());
  for (int64_t bb = 0; bb < b; ++bb)
    for (int64_t h = 0; h < hq; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        size_t row = size_t((bb * hq + h) * sq + i);
        double D = 0.0;
        for (int64_t e = 0; e < dv; ++e)
          D += DO(bb, h, i, e) * double(out[row * size_t(dv) + size_t(e)]);
        for (int64_t j = 0; j < skv; ++j) {
          double pij = lse[row] == -INFINITY
                           ? 0.0
                           : std::exp(score(bb, h, i, j) - double(lse[row]));
          double dp = 0.0;
          for (int64_t e = 0; e < dv; ++e)
            dp += DO(bb, h, i, e) * V(bb, h / group, j, e);
          double ds = pij * (dp - D) * double(scale);
          size_t kvRow = size_t((bb * hkv + h / group) * skv + j);
          for (int64_t e = 0; e < dv; ++e) {
            wantV[kvRow * size_t(dv) + size_t(e)] += pij * DO(bb, h, i, e);
            termsV[kvRow * size_t(dv) + size_t(e)] +=
                std::fabs(pij * DO(bb, h, i, e));
          }
          for (int64_t e = 0; e < d; ++e) {
            wantK[kvRow * size_t(d) + size_t(e)] += ds * Q(bb, h, i, e);
            termsK[kvRow * size_t(d) + size_t(e)] +=
                std::fabs(ds * Q(bb, h, i, e));
            wantQ[row * size_t(d) + size_t(e)] += ds * K(bb, h / group, j, e);
            termsQ[row * size_t(d) + size_t(e)] +=
                std::fabs(ds * K(bb, h / group, j, e));
          }
        }
      }
  bool okQ = true, okK = true, okV = true;
  worst = 0.0;
  for (size_t x = 0; x < q.size(); ++x)
    okQ &= within(gotQ[x], wantQ[x], termsQ[x], 0.0);
  for (size_t x = 0; x < k.size(); ++x)
    okK &= within(gotK[x], wantK[x], termsK[x], 0.0);
  for (size_t x = 0; x < v.size(); ++x)
    okV &= within(gotV[x], wantV[x], termsV[x], 0.0);
  expect(okQ && okK && okV,
         "attention bwd " + c.name() + (okQ ? "" : " (dq wrong)") +
             (okK ? "" : " (dk wrong)") + (okV ? "" : " (dv wrong)"));
  std::printf("  worst error / bound %.3f\n", worst);
#ifdef AMP_CHECK_CPU_ATTENTION
  // amp's CPU kernel on the same inputs (the backward on the device's out
  // and lse): the same results up to summation order, i.e. f32 sums apart
  // by far less than 1e-5 of their terms, then one rounding to the I/O
  // type that may land one ulp (at most 2u |x|) apart.
  auto agree = [&](const std::vector<float> &got, const std::vector<float> &cpu,
                   const std::vector<double> &terms) {
    bool same = got.size() == cpu.size();
    for (size_t x = 0; same && x < got.size(); ++x) {
      double larger =
          std::max(std::fabs(double(got[x])), std::fabs(double(cpu[x])));
      same &= std::fabs(double(got[x]) - double(cpu[x])) <=
              2 * u * larger + 1e-5 * terms[x] + 1e-6;
    }
    return same;
  };
  std::vector<char> hostQ = toBytes(t, q), hostK = toBytes(t, k),
                    hostV = toBytes(t, v), hostDO = toBytes(t, dO),
                    hostOut = toBytes(t, out);
  std::vector<char> cpuOut(hostOut.size()), cpuQ(hostQ.size()),
      cpuK(hostK.size()), cpuV(hostV.size());
  std::vector<float> cpuLse(lse.size());
  // Dense [b, heads, seq, width] layouts (Attention.h, "Layouts").
#define AMP_DENSE(heads, seq, width)                                           \
  0, (heads) * (seq) * (width), (seq) * (width), (width)
  amp_cpu_attention_fwd(
      t, b, hq, hkv, sq, skv, d, dv, hostQ.data(), hostK.data(), hostV.data(),
      c.maskKind, mask.data(), mb, mh, scale, c.causal, 0.0f, 0, cpuOut.data(),
      cpuLse.data(), AMP_DENSE(hq, sq, d), AMP_DENSE(hkv, skv, d),
      AMP_DENSE(hkv, skv, dv), AMP_DENSE(hq, sq, dv));
  bool lseAgree = true;
  for (size_t x = 0; x < lse.size(); ++x)
    lseAgree &=
        lse[x] == cpuLse[x] || std::fabs(double(lse[x]) - double(cpuLse[x])) <=
                                   1e-5 * (1 + std::fabs(double(lse[x])));
  expect(lseAgree && agree(out, fromBytes(t, cpuOut), termsOut),
         "attention fwd " + c.name() + " agrees with amp_cpu_attention_fwd");
  amp_cpu_attention_bwd(
      t, b, hq, hkv, sq, skv, d, dv, hostQ.data(), hostK.data(), hostV.data(),
      hostOut.data(), hostDO.data(), lse.data(), c.maskKind, mask.data(), mb,
      mh, scale, c.causal, 0.0f, 0, cpuQ.data(), cpuK.data(), cpuV.data(),
      AMP_DENSE(hq, sq, d), AMP_DENSE(hkv, skv, d), AMP_DENSE(hkv, skv, dv),
      AMP_DENSE(hq, sq, dv), AMP_DENSE(hq, sq, dv), AMP_DENSE(hq, sq, d),
      AMP_DENSE(hkv, skv, d), AMP_DENSE(hkv, skv, dv));
#undef AMP_DENSE
  expect(agree(gotQ, fromBytes(t, cpuQ), termsQ) &&
             agree(gotK, fromBytes(t, cpuK), termsK) &&
             agree(gotV, fromBytes(t, cpuV), termsV),
         "attention bwd " + c.name() + " agrees with amp_cpu_attention_bwd");
#endif
  for (void *pointer : place_.device)
    ops().free(pointer);
  ops().free(dLse);
  if (dMask)
    ops().free(dMask);
  return ok && okQ && okK && okV;
}

int checkAttention() {
  const int32_t bf16 = AMP_DTYPE_BF16, f16 = AMP_DTYPE_F16,
                add = AMP_ATTENTION_MASK_ADD, none = AMP_ATTENTION_MASK_NONE;
  const Case cases[] = {
      // dtype, b, hq, hkv, sq, skv, d, dv, causal, mask, mask b, mask h
      {bf16, 2, 2, 2, 16, 16, 64, 64, false, none, 0, 0},
      {bf16, 1, 4, 2, 24, 24, 64, 64, true, none, 0, 0},
      {f16, 1, 2, 1, 16, 32, 128, 128, true, none, 0, 0},
      {bf16, 2, 2, 2, 20, 12, 64, 64, false, add, 1, 2},
      {f16, 2, 2, 2, 12, 20, 64, 128, true, add, 2, 1},
      {bf16, 2, 4, 2, 16, 16, 128, 128, true, add, 2, 4},
      {f16, 1, 2, 2, 8, 8, 64, 64, false, add, 1, 1, true},
      // Strided operands and results (the _strided calls).
      {bf16, 2, 4, 2, 16, 16, 64, 64, true, none, 0, 0, false, Layout::BSHD},
      {f16, 2, 2, 2, 24, 24, 64, 64, false, add, 1, 2, false, Layout::Fused},
      {bf16, 1, 4, 2, 16, 16, 64, 128, true, none, 0, 0, false, Layout::Fused},
  };
  uint32_t seed = 1;
  for (const Case &c : cases)
    if (!runCase(c, seed += 10))
      break; // a sticky error stops the rest
  // The same configuration again: the cached plan.
  runCase(cases[1], 99);
  expect(ops().synchronize() == 0, "no error");
  return failures ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// Refusals
//===----------------------------------------------------------------------===//

int checkRefusal(const std::string &what) {
  int32_t dtype = what == "f32" ? AMP_DTYPE_F32 : AMP_DTYPE_BF16;
  int64_t d = what == "d20" ? 20 : what.rfind("d264", 0) == 0 ? 264 : 64;
  int64_t b = 1, h = 2, s = 16;
  size_t elements = size_t(b * h * s * d), bytes = elements * 4;
  char *q = static_cast<char *>(ops().alloc(bytes + 16));
  void *k = ops().alloc(bytes), *v = ops().alloc(bytes),
       *out = ops().alloc(bytes), *grad = ops().alloc(bytes);
  float *lse = static_cast<float *>(ops().alloc(size_t(b * h * s) * 4));
  void *mask = ops().alloc(size_t(s * s));
  int32_t maskKind =
      what == "keep" ? AMP_ATTENTION_MASK_KEEP : AMP_ATTENTION_MASK_NONE;
  const void *qArg = what == "misaligned" ? q + 2 : q;
  if (what == "layout-r19" || what == "layout-r16") {
    bool r19 = what == "layout-r19";
    int64_t row = r19 ? d + 4 : d;
    amp_gpu_attention_fwd_strided(
        dtype, b, h, h, s, s, d, d, q, k, v, maskKind, mask, 1, 1, 0.125f, 1,
        out, lse, r19 ? 0 : 4, h * s * row, s * row, row, 0, h * s * d, s * d,
        d, 0, h * s * d, s * d, d, 0, h * s * d, s * d, d, nullptr);
  } else if (what == "d264-bwd")
    amp_gpu_attention_bwd(dtype, b, h, h, s, s, d, d, qArg, k, v, out, grad,
                          lse, maskKind, mask, 1, 1, 0.125f, 1, grad, grad,
                          grad, nullptr);
  else
    amp_gpu_attention_fwd(dtype, b, h, h, s, s, d, d, qArg, k, v, maskKind,
                          mask, 1, 1, 0.125f, 1, out, lse, nullptr);
  if (ops().synchronize() == 0) {
    std::printf("refuse %s: FAIL (no error)\n", what.c_str());
    return 1;
  }
  std::printf("error: %s\n", ops().last_error());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s rules|attention|refuse WHAT\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1], arg = argc > 2 ? argv[2] : "";
  if (mode == "rules")
    return checkRules();
  if (ops().init() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("device: %s\n", ops().device_name());
  if (mode == "attention")
    return checkAttention();
  if (mode == "refuse")
    return checkRefusal(arg);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
