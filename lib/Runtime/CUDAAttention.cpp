//===- CUDAAttention.cpp - amp_gpu_attention_* on cuDNN -------------------===//
//
// amp.attention and amp.attention_grad on the GPU (Attention.h) run on
// cuDNN's fused flash attention, reached through cuDNN 9's backend graph API
// (cudnn_graph.h, included for types and enum values only: libcudnn.so.9 is
// opened with dlopen on the first call, like cuBLASLt in CUDAGemm.cpp).
//
// cuDNN 9.19 has no single-node attention operation that can mask causally,
// so the graphs are the "composite" ones cudnn-frontend builds
// (CompositeSDPANode / CompositeSDPABackwardNode): matmuls, pointwise
// operations, reductions and reshapes that cuDNN recognizes as attention and
// runs as one fused kernel. The forward keeps only the f32 log-sum-exp
// statistics ([b, h, s_q, 1], amp's lse) for the backward.
//
// One handle; one plan per configuration (direction, dtype, sizes, mask
// kind and broadcast, causal, the strides of the I/O tensors: any layout
// cuDNN takes, Attention.h "Layouts"), built on first use and cached: building
// the graph and asking the heuristics costs far more than a small attention,
// and a training step repeats the same shapes. The scale is a by-value
// tensor, so it is not part of the plan. Workspace (the plan's, and the
// backward's f32 Dsum and dQ accumulator) comes from the runtime's pool per
// call; the pool reuses blocks in stream order. Errors are sticky, with the
// rule of amp/Runtime/CudnnAttentionRules.h when cuDNN would refuse.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"
#include "CUDAPool.h"

#include "amp/Runtime/Attention.h"
#include "amp/Runtime/CudnnAttentionRules.h"
#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/ModelABI.h"

#include <cudnn_graph.h>
#include <dlfcn.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

using namespace amp::cuda;

// The library opened as cuDNN (the emulated device in an emulator build).
#ifndef AMP_CUDNN_LIBRARY
#define AMP_CUDNN_LIBRARY "libcudnn.so.9"
#endif
#ifndef AMP_CUDNN_FALLBACK_DIR
#define AMP_CUDNN_FALLBACK_DIR "/usr/local/cuda/lib"
#endif

namespace {

#define AMP_CUDNN_FUNCTIONS(X)                                                 \
  X(cudnnGetVersion)                                                           \
  X(cudnnGetErrorString)                                                       \
  X(cudnnGetLastErrorString)                                                   \
  X(cudnnCreate)                                                               \
  X(cudnnDestroy)                                                              \
  X(cudnnSetStream)                                                            \
  X(cudnnGetStream)                                                            \
  X(cudnnBackendCreateDescriptor)                                              \
  X(cudnnBackendDestroyDescriptor)                                             \
  X(cudnnBackendSetAttribute)                                                  \
  X(cudnnBackendGetAttribute)                                                  \
  X(cudnnBackendFinalize)                                                      \
  X(cudnnBackendExecute)

/// Exact prototypes from cudnn_graph.h; nothing links against libcudnn.
struct DnnAPI {
#define AMP_CUDNN_DECLARE(name) decltype(&::name) name = nullptr;
  AMP_CUDNN_FUNCTIONS(AMP_CUDNN_DECLARE)
#undef AMP_CUDNN_DECLARE
};

/// The tensors' unique ids (amp's choice; virtual tensors count up from
/// kFirstVirtual).
enum Uid : int64_t {
  kQ = 1,
  kK = 2, // described transposed, [b, h_kv, d, s_kv]
  kV = 3, // [b, h_kv, s_kv, d_v] forward, transposed backward
  kO = 4,
  kLse = 5,
  kScale = 6,
  kNegInf = 7,
  kBias = 8,
  kDO = 9,
  kDQ = 10,
  kDK = 11,
  kDV = 12,
  kDsum = 13,
  kDQAcc = 14,
  kOne = 15,
  kFirstVirtual = 100
};

/// cuDNN's descriptors declare every device tensor 16-byte aligned (as
/// cudnn-frontend does), so every pointer must be: pool blocks are 256-byte
/// aligned, and head dimensions are multiples of 8 (R5).
constexpr uint64_t kAlignment = 16;

/// The I/O tensors whose layouts the caller gives (Attention.h,
/// "Layouts"), in the order of the entry points' layout arguments.
enum Role {
  kRoleQ,
  kRoleK,
  kRoleV,
  kRoleO,
  kRoleDO,
  kRoleDQ,
  kRoleDK,
  kRoleDV
};
constexpr int kRoles = 8;

/// Everything a plan depends on. Pointer alignment is not: it is always
/// kAlignment (checked per call). Neither are the layouts' offsets (they
/// move the pointers), but the strides are (the tensors' descriptors).
struct PlanKey {
  int32_t backward, dtype;
  int64_t batch, headsQ, headsKV, seqQ, seqKV, headDim, headDimV;
  int32_t maskKind;
  int64_t maskBatch, maskHeads;
  int32_t causal;
  /// Batch, head and sequence strides of each role (the forward's dO, dQ,
  /// dK and dV: 0).
  std::array<std::array<int64_t, 3>, kRoles> strides{};

  auto tie() const {
    return std::tie(backward, dtype, batch, headsQ, headsKV, seqQ, seqKV,
                    headDim, headDimV, maskKind, maskBatch, maskHeads, causal,
                    strides);
  }
  /// The strides of `role`, the head dimension's (1) last.
  std::vector<int64_t> stridesOf(Role role) const {
    const std::array<int64_t, 3> &s = strides[role];
    return {s[0], s[1], s[2], 1};
  }
  bool operator<(const PlanKey &other) const { return tie() < other.tie(); }
};

/// A finalized execution plan and every descriptor it was built from (kept
/// alive with it: the cache lives as long as the process).
struct Plan {
  std::vector<cudnnBackendDescriptor_t> descriptors;
  cudnnBackendDescriptor_t plan = nullptr;
  int64_t workspaceBytes = 0;
};

struct Attention {
  std::mutex mutex;
  bool loadAttempted = false;
  bool loaded = false;
  bool handleAttempted = false;
  void *library = nullptr;
  DnnAPI dnn;
  cudnnHandle_t handle = nullptr;
  int version = 0; // cudnnGetVersion() of the library loaded
  std::map<PlanKey, Plan> plans;
};

/// Never destroyed, like the rest of the runtime's state.
Attention &attentionState() {
  static Attention *instance = new Attention();
  return *instance;
}

cudnnDataType_t ioType(int32_t dtype) {
  return dtype == AMP_DTYPE_F16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
}

std::string describe(const PlanKey &k) {
  std::string text =
      std::string(amp::dtypeName(k.dtype)) + ", batch " +
      std::to_string(k.batch) + ", heads " + std::to_string(k.headsQ) + "/" +
      std::to_string(k.headsKV) + ", seq " + std::to_string(k.seqQ) + " x " +
      std::to_string(k.seqKV) + ", head dims " + std::to_string(k.headDim) +
      "/" + std::to_string(k.headDimV);
  if (k.causal)
    text += ", causal";
  if (k.maskKind == AMP_ATTENTION_MASK_ADD)
    text += ", additive mask [" + std::to_string(k.maskBatch) + ", " +
            std::to_string(k.maskHeads) + ", " + std::to_string(k.seqQ) + ", " +
            std::to_string(k.seqKV) + "]";
  else if (k.maskKind == AMP_ATTENTION_MASK_KEEP)
    text += ", keep mask";
  return text;
}

//===----------------------------------------------------------------------===//
// Loading cuDNN and the handle
//===----------------------------------------------------------------------===//

std::string statusText(const Attention &a, cudnnStatus_t status) {
  const char *name =
      a.dnn.cudnnGetErrorString ? a.dnn.cudnnGetErrorString(status) : nullptr;
  std::string result =
      name ? name : "cuDNN status " + std::to_string(int(status));
  if (a.dnn.cudnnGetLastErrorString) {
    char detail[1024] = {};
    a.dnn.cudnnGetLastErrorString(detail, sizeof(detail));
    if (detail[0])
      result += std::string(" (") + detail + ")";
  }
  return result;
}

bool checkDnn(const Attention &a, cudnnStatus_t status,
              const std::string &what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return true;
  std::string text = what + " failed: " + statusText(a, status);
  if (status == CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    text += " (libcudnn.so.9 loads its engines, libcudnn_graph.so.9, "
            "libcudnn_engines_*.so.9 and libcudnn_heuristic.so.9, from the "
            "search path: add their directory to LD_LIBRARY_PATH)";
  return fail(text);
}

bool openCudnn(Attention &a) {
  std::string reason;
  a.library = openLibrary(AMP_CUDNN_LIBRARY, AMP_CUDNN_FALLBACK_DIR, reason);
  if (a.library)
    return true;
  return fail("cuDNN cannot be loaded: " + reason +
              " (fused attention needs cuDNN 9's libcudnn.so.9: install it or "
              "add its directory to LD_LIBRARY_PATH)");
}

bool resolveCudnn(Attention &a) {
#define AMP_CUDNN_RESOLVE(name)                                                \
  a.dnn.name =                                                                 \
      reinterpret_cast<decltype(a.dnn.name)>(dlsym(a.library, #name));         \
  if (!a.dnn.name)                                                             \
    return fail("the cuDNN library that was loaded lacks " #name);
  AMP_CUDNN_FUNCTIONS(AMP_CUDNN_RESOLVE)
#undef AMP_CUDNN_RESOLVE
  a.version = static_cast<int>(a.dnn.cudnnGetVersion());
  return true;
}

/// Loads cuDNN and creates the handle, once; the caller holds the mutex and
/// the driver is ready (cuDNN runs on the current, primary context).
bool ensureHandle(Attention &a) {
  if (a.handle)
    return true;
  if (a.handleAttempted)
    return false; // the sticky error says why
  a.handleAttempted = true;
  if (!a.loadAttempted) {
    a.loadAttempted = true;
    a.loaded = openCudnn(a) && resolveCudnn(a);
  }
  return a.loaded && checkDnn(a, a.dnn.cudnnCreate(&a.handle),
                              "creating the cuDNN handle (cudnnCreate)");
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

using Dims = std::vector<int64_t>;

/// Dense row-major strides of `dims`.
Dims denseStrides(const Dims &dims) {
  Dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i)
    strides[i - 1] = strides[i] * dims[i];
  return strides;
}

/// Builds one operation graph; every descriptor it creates goes into
/// `plan.descriptors`. Each step returns null (with the sticky error) on
/// failure, and later steps do nothing once one failed.
class GraphBuilder {
public:
  GraphBuilder(Attention &a, Plan &plan, const PlanKey &key)
      : a(a), plan(plan), key(key) {}

  cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type) {
    cudnnBackendDescriptor_t d = nullptr;
    if (!ok || !(ok = checkDnn(a, a.dnn.cudnnBackendCreateDescriptor(type, &d),
                               "creating a cuDNN descriptor (type " +
                                   std::to_string(int(type)) + ")")))
      return nullptr;
    plan.descriptors.push_back(d);
    return d;
  }

  template <typename T>
  void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, const T *values, int64_t count,
           const char *what) {
    if (ok)
      ok = checkDnn(
          a, a.dnn.cudnnBackendSetAttribute(d, name, type, count, values),
          std::string("building cuDNN's attention graph: setting ") + what);
  }

  void finalize(cudnnBackendDescriptor_t d, const char *what) {
    if (ok)
      ok = checkDnn(a, a.dnn.cudnnBackendFinalize(d),
                    std::string("building cuDNN's attention graph: "
                                "finalizing ") +
                        what);
  }

  /// A tensor; uid 0 makes a virtual one with the next free id.
  cudnnBackendDescriptor_t tensor(int64_t uid, cudnnDataType_t type,
                                  const Dims &dims, const Dims &strides,
                                  bool byValue = false) {
    bool isVirtual = uid == 0;
    if (isVirtual)
      uid = nextVirtual++;
    int64_t alignment = kAlignment;
    cudnnBackendDescriptor_t d = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type, 1,
        "a tensor's type");
    set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(),
        int64_t(dims.size()), "a tensor's dimensions");
    set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(),
        int64_t(strides.size()), "a tensor's strides");
    set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid, 1,
        "a tensor's id");
    set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment, 1,
        "a tensor's alignment");
    set(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &isVirtual, 1,
        "whether a tensor is virtual");
    if (byValue)
      set(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &byValue, 1,
          "whether a tensor is by value");
    finalize(d, "a tensor");
    return d;
  }

  /// An f32 [b, h_q, s_q, s_kv] (virtual) score-shaped tensor.
  cudnnBackendDescriptor_t scores(cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    Dims dims = {key.batch, key.headsQ, key.seqQ, key.seqKV};
    return tensor(0, type, dims, denseStrides(dims));
  }
  /// An f32 [b, h_q, s_q, 1] per-row tensor; `uid` 0: virtual.
  cudnnBackendDescriptor_t rows(int64_t uid = 0) {
    Dims dims = {key.batch, key.headsQ, key.seqQ, 1};
    return tensor(uid, CUDNN_DATA_FLOAT, dims, denseStrides(dims));
  }
  /// A host scalar (scale, -inf, 1).
  cudnnBackendDescriptor_t scalar(int64_t uid) {
    return tensor(uid, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1},
                  /*byValue=*/true);
  }

  /// y = mode(x, b, t); `prec` is the computation's type; `axis` for
  /// GEN_INDEX only.
  void pointwise(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
                 cudnnBackendDescriptor_t y,
                 cudnnDataType_t prec = CUDNN_DATA_FLOAT, int64_t axis = -1) {
    cudnnBackendDescriptor_t pw = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode, 1,
        "a pointwise mode");
    set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &prec, 1,
        "a pointwise precision");
    if (axis >= 0)
      set(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, &axis, 1,
          "an index axis");
    finalize(pw, "a pointwise descriptor");
    cudnnBackendDescriptor_t op =
        create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, &pw, 1, "a pointwise operation");
    set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &x, 1, "a pointwise input");
    if (b)
      set(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, &b, 1, "a pointwise input");
    if (t)
      set(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, &t, 1, "a pointwise predicate");
    set(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &y, 1, "a pointwise output");
    // Both alphas, always, as cudnn-frontend sets them.
    float one = 1.0f;
    set(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, &one, 1,
        "a pointwise alpha");
    set(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, &one, 1,
        "a pointwise alpha");
    finalize(op, "a pointwise operation");
    ops.push_back(op);
  }
  void unary(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
             cudnnBackendDescriptor_t y) {
    pointwise(mode, x, nullptr, nullptr, y);
  }
  void binary(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
              cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y) {
    pointwise(mode, x, b, nullptr, y);
  }

  /// c = a x b over the last two dimensions, f32 accumulation.
  void matmul(cudnnBackendDescriptor_t a_, cudnnBackendDescriptor_t b,
              cudnnBackendDescriptor_t c) {
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t mm = create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute, 1,
        "a matmul's compute type");
    finalize(mm, "a matmul descriptor");
    cudnnBackendDescriptor_t op =
        create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &a_, 1, "a matmul's A");
    set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &b, 1, "a matmul's B");
    set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &c, 1, "a matmul's C");
    set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &mm, 1, "a matmul descriptor");
    finalize(op, "a matmul operation");
    ops.push_back(op);
  }

  /// y = reduce(x) over the dimensions where y is smaller.
  void reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t y) {
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t red = create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    set(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE,
        &mode, 1, "a reduction's operator");
    set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute, 1,
        "a reduction's compute type");
    finalize(red, "a reduction descriptor");
    cudnnBackendDescriptor_t op =
        create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &x, 1, "a reduction's input");
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &y, 1, "a reduction's output");
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &red, 1, "a reduction descriptor");
    finalize(op, "a reduction operation");
    ops.push_back(op);
  }

  /// y = x seen with y's dimensions and strides (a logical transpose).
  void reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    cudnnBackendDescriptor_t op =
        create(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    set(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &x, 1, "a reshape's input");
    set(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &y, 1, "a reshape's output");
    finalize(op, "a reshape operation");
    ops.push_back(op);
  }

  /// The operation graph of every operation so far.
  cudnnBackendDescriptor_t graph() {
    cudnnBackendDescriptor_t g =
        create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &a.handle, 1,
        "the graph's handle");
    set(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        ops.data(), int64_t(ops.size()), "the graph's operations");
    finalize(g, "the operation graph");
    return ok ? g : nullptr;
  }

  bool ok = true;

private:
  Attention &a;
  Plan &plan;
  const PlanKey &key;
  std::vector<cudnnBackendDescriptor_t> ops;
  int64_t nextVirtual = kFirstVirtual;
};

/// Q [b, h_q, s_q, d], K transposed [b, h_kv, d, s_kv] (K's own strides,
/// the last two swapped), V [b, h_kv, s_kv, d_v] (transposed in the
/// backward), each with the strides the caller gave.
struct Inputs {
  cudnnBackendDescriptor_t q, kT, v, o, lse, scale, bias = nullptr;
};

Inputs describeInputs(GraphBuilder &g, const PlanKey &k, bool vTransposed) {
  cudnnDataType_t io = ioType(k.dtype);
  Inputs in;
  Dims q = {k.batch, k.headsQ, k.seqQ, k.headDim};
  in.q = g.tensor(kQ, io, q, k.stridesOf(kRoleQ));
  Dims kStrides = k.stridesOf(kRoleK);
  in.kT = g.tensor(kK, io, {k.batch, k.headsKV, k.headDim, k.seqKV},
                   {kStrides[0], kStrides[1], kStrides[3], kStrides[2]});
  Dims v = {k.batch, k.headsKV, k.seqKV, k.headDimV};
  Dims vStrides = k.stridesOf(kRoleV);
  in.v = vTransposed
             ? g.tensor(kV, io, {k.batch, k.headsKV, k.headDimV, k.seqKV},
                        {vStrides[0], vStrides[1], vStrides[3], vStrides[2]})
             : g.tensor(kV, io, v, vStrides);
  Dims o = {k.batch, k.headsQ, k.seqQ, k.headDimV};
  in.o = g.tensor(kO, io, o, k.stridesOf(kRoleO));
  in.lse = g.rows(kLse);
  in.scale = g.scalar(kScale);
  if (k.maskKind == AMP_ATTENTION_MASK_ADD) {
    Dims mask = {k.maskBatch, k.maskHeads, k.seqQ, k.seqKV};
    in.bias = g.tensor(kBias, CUDNN_DATA_FLOAT, mask, denseStrides(mask));
  }
  return in;
}

/// S * scale (+ bias): the scaled scores, from Q K^T.
cudnnBackendDescriptor_t scaledScores(GraphBuilder &g, const Inputs &in) {
  cudnnBackendDescriptor_t s0 = g.scores(), s1 = g.scores();
  g.matmul(in.q, in.kT, s0);
  g.binary(CUDNN_POINTWISE_MUL, s0, in.scale, s1);
  if (!in.bias)
    return s1;
  cudnnBackendDescriptor_t s2 = g.scores();
  g.binary(CUDNN_POINTWISE_ADD, s1, in.bias, s2);
  return s2;
}

/// Top-left causal masking (cudnn-frontend's causal_mask: row >= column
/// keeps the score, else -inf).
cudnnBackendDescriptor_t causalMask(GraphBuilder &g,
                                    cudnnBackendDescriptor_t s) {
  cudnnBackendDescriptor_t row = g.scores(CUDNN_DATA_INT32),
                           col = g.scores(CUDNN_DATA_INT32),
                           keep = g.scores(CUDNN_DATA_BOOLEAN),
                           negInf = g.scalar(kNegInf), out = g.scores();
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, nullptr, row,
              CUDNN_DATA_INT32, 2);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, nullptr, col,
              CUDNN_DATA_INT32, 3);
  g.pointwise(CUDNN_POINTWISE_CMP_GE, row, col, nullptr, keep,
              CUDNN_DATA_BOOLEAN);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, s, negInf, keep, out);
  return out;
}

/// cudnn-frontend's CompositeSDPANode with stats (research notes 1.3).
bool buildForward(GraphBuilder &g, const PlanKey &k) {
  Inputs in = describeInputs(g, k, /*vTransposed=*/false);
  cudnnBackendDescriptor_t s = scaledScores(g, in);
  if (k.causal)
    s = causalMask(g, s);
  // Softmax with its statistics: lse = max + log(sum exp(s - max)).
  cudnnBackendDescriptor_t mx = g.rows(), t = g.scores(), e = g.scores(),
                           z = g.rows(), lz = g.rows(),
                           p = g.scores(ioType(k.dtype));
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, s, mx);
  g.binary(CUDNN_POINTWISE_SUB, s, mx, t);
  g.unary(CUDNN_POINTWISE_EXP, t, e);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, z);
  g.unary(CUDNN_POINTWISE_LOG, z, lz);
  g.binary(CUDNN_POINTWISE_ADD, mx, lz, in.lse);
  // The probabilities in the I/O type: cuDNN requires P V's A operand to
  // have it (cudnn-frontend: "Requirement by cudnn backend to take in bmm2
  // aType as i/o type").
  g.binary(CUDNN_POINTWISE_DIV, e, z, p);
  g.matmul(p, in.v, in.o);
  return g.ok;
}

/// dX = A x B for a key/value-head gradient: with grouped heads the product
/// is per query head, then summed over each group.
void headGradient(GraphBuilder &g, const PlanKey &k, cudnnBackendDescriptor_t a,
                  cudnnBackendDescriptor_t b, int64_t uid, Role role,
                  int64_t dim) {
  cudnnDataType_t io = ioType(k.dtype);
  Dims out = {k.batch, k.headsKV, k.seqKV, dim};
  cudnnBackendDescriptor_t result = g.tensor(uid, io, out, k.stridesOf(role));
  if (k.headsQ == k.headsKV) {
    g.matmul(a, b, result);
    return;
  }
  Dims full = {k.batch, k.headsQ, k.seqKV, dim};
  cudnnBackendDescriptor_t perHead = g.tensor(0, io, full, denseStrides(full));
  g.matmul(a, b, perHead);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, perHead, result);
}

/// cudnn-frontend's CompositeSDPABackwardNode with the f32 dQ accumulator
/// (research notes 1.4).
bool buildBackward(GraphBuilder &g, const PlanKey &k) {
  cudnnDataType_t io = ioType(k.dtype);
  Inputs in = describeInputs(g, k, /*vTransposed=*/true);
  Dims o = {k.batch, k.headsQ, k.seqQ, k.headDimV};
  cudnnBackendDescriptor_t dO = g.tensor(kDO, io, o, k.stridesOf(kRoleDO));
  // Dsum = rowsum(dO * O), an f32 buffer amp provides.
  cudnnBackendDescriptor_t dOO = g.tensor(0, CUDNN_DATA_FLOAT, o,
                                          denseStrides(o)),
                           d0 = g.rows(), dsum = g.rows(kDsum),
                           one = g.scalar(kOne);
  g.binary(CUDNN_POINTWISE_MUL, dO, in.o, dOO);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, dOO, d0);
  g.binary(CUDNN_POINTWISE_MUL, d0, one, dsum);
  // P = exp(s - lse), recomputed.
  cudnnBackendDescriptor_t s = scaledScores(g, in), centered = g.scores();
  g.binary(CUDNN_POINTWISE_SUB, s, in.lse, centered);
  if (k.causal)
    centered = causalMask(g, centered);
  cudnnBackendDescriptor_t p = g.scores();
  g.unary(CUDNN_POINTWISE_EXP, centered, p);
  // dV = P^T dO.
  Dims t = {k.batch, k.headsQ, k.seqKV, k.seqQ};
  Dims tStrides = {k.headsQ * k.seqQ * k.seqKV, k.seqQ * k.seqKV, 1, k.seqKV};
  cudnnBackendDescriptor_t pT = g.tensor(0, io, t, tStrides);
  g.reshape(p, pT);
  headGradient(g, k, pT, dO, kDV, kRoleDV, k.headDimV);
  // dS = P (dO V^T - Dsum) * scale.
  cudnnBackendDescriptor_t dP = g.scores(), grad = g.scores(), dS = g.scores(),
                           dSScaled = g.scores();
  g.matmul(dO, in.v, dP);
  g.binary(CUDNN_POINTWISE_SUB, dP, dsum, grad);
  g.binary(CUDNN_POINTWISE_MUL, grad, p, dS);
  g.binary(CUDNN_POINTWISE_MUL, dS, in.scale, dSScaled);
  // dK = dS^T Q.
  cudnnBackendDescriptor_t dST = g.tensor(0, io, t, tStrides);
  g.reshape(dSScaled, dST);
  headGradient(g, k, dST, in.q, kDK, kRoleDK, k.headDim);
  // dQ = dS K, accumulated in the f32 buffer amp provides, then cast.
  Dims kDims = {k.batch, k.headsKV, k.seqKV, k.headDim};
  cudnnBackendDescriptor_t kPlain = g.tensor(0, io, kDims, denseStrides(kDims));
  g.reshape(in.kT, kPlain);
  Dims q = {k.batch, k.headsQ, k.seqQ, k.headDim};
  cudnnBackendDescriptor_t dQAcc = g.tensor(kDQAcc, CUDNN_DATA_FLOAT, q,
                                            denseStrides(q)),
                           dQ = g.tensor(kDQ, io, q, k.stridesOf(kRoleDQ));
  g.matmul(dSScaled, kPlain, dQAcc);
  g.unary(CUDNN_POINTWISE_IDENTITY, dQAcc, dQ);
  return g.ok;
}

/// The heuristics' configurations (mode A, as Transformer Engine uses) in
/// order; the first that finalizes into a plan wins.
bool choosePlan(Attention &a, Plan &plan, GraphBuilder &g,
                cudnnBackendDescriptor_t graph, const PlanKey &key) {
  cudnnBackendDescriptor_t heur = g.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  g.set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, &graph, 1, "the heuristics' graph");
  g.set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode, 1,
        "the heuristics' mode");
  g.finalize(heur, "the heuristics");
  if (!g.ok)
    return false;
  int64_t count = 0;
  if (!checkDnn(a,
                a.dnn.cudnnBackendGetAttribute(
                    heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
                "asking cuDNN's heuristics for attention engines"))
    return false;
  std::vector<cudnnBackendDescriptor_t> configs;
  for (int64_t i = 0; i < count && g.ok; ++i)
    configs.push_back(g.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
  if (!g.ok)
    return false;
  int64_t returned = 0;
  if (count > 0 && !checkDnn(a,
                             a.dnn.cudnnBackendGetAttribute(
                                 heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                 &returned, configs.data()),
                             "reading cuDNN's attention engine configurations"))
    return false;
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  std::string lastText;
  for (int64_t i = 0; i < returned; ++i) {
    cudnnBackendDescriptor_t candidate =
        g.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    g.set(candidate, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE,
          &a.handle, 1, "a plan's handle");
    g.set(candidate, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, &configs[i], 1,
          "a plan's engine configuration");
    if (!g.ok)
      return false;
    // A configuration that does not finalize is skipped, not an error.
    last = a.dnn.cudnnBackendFinalize(candidate);
    if (last != CUDNN_STATUS_SUCCESS) {
      lastText = statusText(a, last);
      continue;
    }
    int64_t workspace = 0, got = 0;
    if (!checkDnn(a,
                  a.dnn.cudnnBackendGetAttribute(
                      candidate, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                      CUDNN_TYPE_INT64, 1, &got, &workspace),
                  "reading the attention plan's workspace size"))
      return false;
    plan.plan = candidate;
    plan.workspaceBytes = workspace;
    return true;
  }
  return fail("cuDNN has no engine for the attention " +
              std::string(key.backward ? "backward" : "forward") + " (" +
              describe(key) + ") on " + smName() + " with cuDNN " +
              std::to_string(a.version) +
              (returned == 0 ? std::string(": the heuristics offer none")
                             : ": the last of " + std::to_string(returned) +
                                   " configurations failed with " + lastText));
}

void destroyPlan(Attention &a, Plan &plan) {
  for (cudnnBackendDescriptor_t d : plan.descriptors)
    a.dnn.cudnnBackendDestroyDescriptor(d);
  plan.descriptors.clear();
}

/// The cached plan for `key`, built on first use; null with the error.
const Plan *findPlan(Attention &a, const PlanKey &key) {
  auto it = a.plans.find(key);
  if (it != a.plans.end())
    return &it->second;
  Plan plan;
  GraphBuilder g(a, plan, key);
  bool built = key.backward ? buildBackward(g, key) : buildForward(g, key);
  cudnnBackendDescriptor_t graph = built ? g.graph() : nullptr;
  if (!graph || !choosePlan(a, plan, g, graph, key)) {
    destroyPlan(a, plan);
    return nullptr;
  }
  return &a.plans.emplace(key, std::move(plan)).first->second;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// The pointers of one call, by unique id; by-value tensors point to host
/// floats that live until the call returns.
struct Bindings {
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  void add(int64_t uid, const void *pointer) {
    uids.push_back(uid);
    pointers.push_back(const_cast<void *>(pointer));
  }
};

/// Queues `plan` with `bindings` and `workspace` on `stream`.
bool execute(Attention &a, const Plan &plan, Bindings &bindings,
             void *workspace, CUstream stream, const PlanKey &key) {
  std::string what = std::string("running cuDNN's attention ") +
                     (key.backward ? "backward" : "forward") + " (" +
                     describe(key) + ")";
  cudnnBackendDescriptor_t pack = nullptr;
  if (!checkDnn(a,
                a.dnn.cudnnBackendCreateDescriptor(
                    CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack),
                what + ": creating the variant pack"))
    return false;
  int64_t count = int64_t(bindings.uids.size());
  bool ok =
      checkDnn(a,
               a.dnn.cudnnBackendSetAttribute(
                   pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
                   count, bindings.uids.data()),
               what + ": setting the variant pack's ids") &&
      checkDnn(a,
               a.dnn.cudnnBackendSetAttribute(
                   pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                   CUDNN_TYPE_VOID_PTR, count, bindings.pointers.data()),
               what + ": setting the variant pack's pointers") &&
      checkDnn(a,
               a.dnn.cudnnBackendSetAttribute(
                   pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
                   1, &workspace),
               what + ": setting the workspace") &&
      checkDnn(a, a.dnn.cudnnBackendFinalize(pack),
               what + ": finalizing the variant pack") &&
      checkDnn(a, a.dnn.cudnnSetStream(a.handle, stream),
               what + ": setting the stream") &&
      checkDnn(a, a.dnn.cudnnBackendExecute(a.handle, plan.plan, pack), what);
  a.dnn.cudnnBackendDestroyDescriptor(pack);
  return ok;
}

const char *entryName(bool backward) {
  return backward ? "amp_gpu_attention_bwd" : "amp_gpu_attention_fwd";
}

/// Where one tensor argument's elements are (Attention.h, "Layouts").
struct Layout {
  int64_t offset, batch, head, seq;
};

/// The layout of a dense [b, heads, seq, width] tensor.
Layout dense(int64_t heads, int64_t seq, int64_t width) {
  return {0, heads * seq * width, seq * width, width};
}

PlanKey makeKey(bool backward, int32_t dtype, int64_t batch, int64_t headsQ,
                int64_t headsKV, int64_t seqQ, int64_t seqKV, int64_t headDim,
                int64_t headDimV, int32_t maskKind, int64_t maskBatch,
                int64_t maskHeads, int32_t causal,
                const std::array<Layout, kRoles> &layouts) {
  PlanKey key;
  key.backward = backward ? 1 : 0;
  key.dtype = dtype;
  key.batch = batch;
  key.headsQ = headsQ;
  key.headsKV = headsKV;
  key.seqQ = seqQ;
  key.seqKV = seqKV;
  key.headDim = headDim;
  key.headDimV = headDimV;
  key.maskKind = maskKind;
  // An unused mask's broadcast must not split the cache.
  key.maskBatch = maskKind == AMP_ATTENTION_MASK_NONE ? 0 : maskBatch;
  key.maskHeads = maskKind == AMP_ATTENTION_MASK_NONE ? 0 : maskHeads;
  key.causal = causal ? 1 : 0;
  for (int role = 0; role < (backward ? kRoles : kRoleDO); ++role)
    key.strides[role] = {layouts[role].batch, layouts[role].head,
                         layouts[role].seq};
  return key;
}

/// A tensor argument: its name, the pointer the caller gave and, for the
/// I/O tensors, its role (its layout's offset moves the pointer).
struct Argument {
  const char *name;
  const void *pointer;
  int role = -1;
};

/// The checks every call makes before it touches cuDNN: pointers present,
/// a configuration cuDNN runs (the rules, with the library's run-time
/// version and the device's compute capability), layouts cuDNN takes and
/// every tensor 16-byte aligned. The caller holds the mutex; cuDNN is
/// loaded.
bool checkCall(Attention &a, const PlanKey &key,
               const std::array<Layout, kRoles> &layouts,
               std::initializer_list<Argument> arguments) {
  const char *entry = entryName(key.backward);
  for (const Argument &argument : arguments)
    if (!argument.pointer)
      return fail(std::string(entry) + ": null " + argument.name + " pointer");
  amp::AttentionConfig config;
  config.dtype = key.dtype;
  config.batch = key.batch;
  config.headsQ = key.headsQ;
  config.headsKV = key.headsKV;
  config.seqQ = key.seqQ;
  config.seqKV = key.seqKV;
  config.headDim = key.headDim;
  config.headDimV = key.headDimV;
  config.maskKind = key.maskKind;
  config.maskBatch = key.maskBatch;
  config.maskHeads = key.maskHeads;
  config.causal = key.causal != 0;
  config.dropout = 0.0;
  config.backward = key.backward != 0;
  int sm = device().ccMajor * 10 + device().ccMinor;
  if (const char *reason = amp::cudnnAttentionRefusal(config, sm, a.version))
    return fail(std::string(entry) + ": cuDNN " + std::to_string(a.version) +
                " on " + smName() + " does not run this attention (" +
                describe(key) + "): " + reason);
  if (key.backward) {
    std::vector<int64_t> out = key.stridesOf(kRoleO),
                         grad = key.stridesOf(kRoleDO);
    if (const char *reason = amp::cudnnAttentionGradLayoutRefusal(
            out.data(), grad.data(), a.version))
      return fail(std::string(entry) + ": cuDNN " + std::to_string(a.version) +
                  ": " + reason);
  }
  for (const Argument &argument : arguments) {
    if (argument.role >= 0) {
      const Layout &l = layouts[argument.role];
      int64_t strides[4] = {l.batch, l.head, l.seq, 1};
      if (const char *reason =
              amp::cudnnAttentionLayoutRefusal(key.dtype, strides, l.offset))
        return fail(std::string(entry) + ": " + argument.name + " (offset " +
                    std::to_string(l.offset) + ", strides " +
                    std::to_string(l.batch) + ", " + std::to_string(l.head) +
                    ", " + std::to_string(l.seq) + "): " + reason);
    }
    if (reinterpret_cast<uintptr_t>(argument.pointer) % kAlignment != 0)
      return fail(std::string(entry) + ": " + argument.name +
                  " is not 16-byte aligned (R16: cuDNN's fused attention "
                  "takes 16-byte aligned tensors)");
  }
  return true;
}

/// The value cuDNN's graphs mask with: -inf from cuDNN 9.10, the lowest
/// float before (cudnn-frontend's get_negative_inf_value).
float negativeInfinity(const Attention &a) {
  return a.version >= 91000 ? -INFINITY : -FLT_MAX;
}

/// The start of every call: the driver, cuDNN and the handle; the caller
/// holds the mutex.
bool start(Attention &a) { return ready() && ensureHandle(a); }

/// `pointer` moved by `layout`'s offset of `dtype` elements.
const void *at(const void *pointer, const Layout &layout, int32_t dtype) {
  int64_t bytes = dtype == AMP_DTYPE_F32 ? 4 : 2;
  return pointer ? static_cast<const char *>(pointer) + layout.offset * bytes
                 : nullptr;
}

void forward(int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
             int64_t seq_q, int64_t seq_kv, int64_t head_dim,
             int64_t head_dim_v, const void *q, const void *k, const void *v,
             int32_t mask_kind, const void *mask, int64_t mask_batch,
             int64_t mask_heads, float scale, int32_t causal, void *out,
             float *lse, const std::array<Layout, kRoles> &layouts,
             void *stream) {
  if (failed())
    return;
  Attention &a = attentionState();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (!start(a))
    return;
  PlanKey key =
      makeKey(false, dtype, batch, heads_q, heads_kv, seq_q, seq_kv, head_dim,
              head_dim_v, mask_kind, mask_batch, mask_heads, causal, layouts);
  bool masked = mask_kind != AMP_ATTENTION_MASK_NONE;
  q = at(q, layouts[kRoleQ], dtype);
  k = at(k, layouts[kRoleK], dtype);
  v = at(v, layouts[kRoleV], dtype);
  out = const_cast<void *>(at(out, layouts[kRoleO], dtype));
  if (!checkCall(a, key, layouts,
                 {{"q", q, kRoleQ},
                  {"k", k, kRoleK},
                  {"v", v, kRoleV},
                  {"out", out, kRoleO},
                  {"lse", lse},
                  {"mask", masked ? mask : q}}))
    return;
  const Plan *plan = findPlan(a, key);
  if (!plan)
    return;
  float negInf = negativeInfinity(a);
  Bindings b;
  b.add(kQ, q);
  b.add(kK, k);
  b.add(kV, v);
  b.add(kO, out);
  b.add(kLse, lse);
  b.add(kScale, &scale);
  if (causal)
    b.add(kNegInf, &negInf);
  if (masked)
    b.add(kBias, mask);
  void *workspace = poolAllocate(size_t(plan->workspaceBytes));
  if (!workspace)
    return;
  // The step's stream (see amp_gpu_gemm): in order with its kernels. The
  // workspace goes back to the pool at once; the pool hands it out again
  // only to work queued behind this on the same stream.
  CUstream on = stream ? static_cast<CUstream>(stream) : amp::cuda::stream();
  execute(a, *plan, b, workspace, on, key);
  poolFree(workspace);
}

void backward(int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
              int64_t seq_q, int64_t seq_kv, int64_t head_dim,
              int64_t head_dim_v, const void *q, const void *k, const void *v,
              const void *out, const void *dout, const float *lse,
              int32_t mask_kind, const void *mask, int64_t mask_batch,
              int64_t mask_heads, float scale, int32_t causal, void *dq,
              void *dk, void *dv, const std::array<Layout, kRoles> &layouts,
              void *stream) {
  if (failed())
    return;
  Attention &a = attentionState();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (!start(a))
    return;
  PlanKey key =
      makeKey(true, dtype, batch, heads_q, heads_kv, seq_q, seq_kv, head_dim,
              head_dim_v, mask_kind, mask_batch, mask_heads, causal, layouts);
  bool masked = mask_kind != AMP_ATTENTION_MASK_NONE;
  q = at(q, layouts[kRoleQ], dtype);
  k = at(k, layouts[kRoleK], dtype);
  v = at(v, layouts[kRoleV], dtype);
  out = at(out, layouts[kRoleO], dtype);
  dout = at(dout, layouts[kRoleDO], dtype);
  dq = const_cast<void *>(at(dq, layouts[kRoleDQ], dtype));
  dk = const_cast<void *>(at(dk, layouts[kRoleDK], dtype));
  dv = const_cast<void *>(at(dv, layouts[kRoleDV], dtype));
  if (!checkCall(a, key, layouts,
                 {{"q", q, kRoleQ},
                  {"k", k, kRoleK},
                  {"v", v, kRoleV},
                  {"out", out, kRoleO},
                  {"dout", dout, kRoleDO},
                  {"lse", lse},
                  {"dq", dq, kRoleDQ},
                  {"dk", dk, kRoleDK},
                  {"dv", dv, kRoleDV},
                  {"mask", masked ? mask : q}}))
    return;
  const Plan *plan = findPlan(a, key);
  if (!plan)
    return;
  // The f32 buffers the graph reads and writes besides the workspace
  // (cudnn-frontend carves them out of its own workspace): Dsum
  // [b, h_q, s_q, 1] and the dQ accumulator [b, h_q, s_q, d]. cuDNN zeroes
  // the accumulator itself from 9.6 on; amp zeroes it always (a memset on
  // the stream, small beside the attention).
  size_t rows = size_t(batch * heads_q * seq_q);
  size_t accumulatorBytes = rows * size_t(head_dim) * sizeof(float);
  void *workspace = poolAllocate(size_t(plan->workspaceBytes));
  void *dsum = workspace ? poolAllocate(rows * sizeof(float)) : nullptr;
  void *accumulator = dsum ? poolAllocate(accumulatorBytes) : nullptr;
  CUstream on = stream ? static_cast<CUstream>(stream) : amp::cuda::stream();
  if (accumulator &&
      check(api().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(accumulator),
                                   0, accumulatorBytes / 4, on),
            "zeroing cuDNN's attention dQ accumulator (cuMemsetD32Async)")) {
    float negInf = negativeInfinity(a), one = 1.0f;
    Bindings b;
    b.add(kQ, q);
    b.add(kK, k);
    b.add(kV, v);
    b.add(kO, out);
    b.add(kDO, dout);
    b.add(kLse, lse);
    b.add(kScale, &scale);
    b.add(kOne, &one);
    if (causal)
      b.add(kNegInf, &negInf);
    if (masked)
      b.add(kBias, mask);
    b.add(kDQ, dq);
    b.add(kDK, dk);
    b.add(kDV, dv);
    b.add(kDsum, dsum);
    b.add(kDQAcc, accumulator);
    execute(a, *plan, b, workspace, on, key);
  }
  poolFree(accumulator);
  poolFree(dsum);
  poolFree(workspace);
}

} // namespace

#define AMP_LAYOUT_OF(name)                                                    \
  Layout {                                                                     \
    name##_offset, name##_stride_batch, name##_stride_head, name##_stride_seq  \
  }

extern "C" void amp_gpu_attention_fwd_strided(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, int32_t mask_kind,
    const void *mask, int64_t mask_batch, int64_t mask_heads, float scale,
    int32_t causal, void *out, float *lse, AMP_ATTENTION_LAYOUT(q),
    AMP_ATTENTION_LAYOUT(k), AMP_ATTENTION_LAYOUT(v), AMP_ATTENTION_LAYOUT(out),
    void *stream) {
  forward(dtype, batch, heads_q, heads_kv, seq_q, seq_kv, head_dim, head_dim_v,
          q, k, v, mask_kind, mask, mask_batch, mask_heads, scale, causal, out,
          lse,
          {AMP_LAYOUT_OF(q), AMP_LAYOUT_OF(k), AMP_LAYOUT_OF(v),
           AMP_LAYOUT_OF(out), Layout{}, Layout{}, Layout{}, Layout{}},
          stream);
}

extern "C" void amp_gpu_attention_fwd(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, int32_t mask_kind,
    const void *mask, int64_t mask_batch, int64_t mask_heads, float scale,
    int32_t causal, void *out, float *lse, void *stream) {
  forward(
      dtype, batch, heads_q, heads_kv, seq_q, seq_kv, head_dim, head_dim_v, q,
      k, v, mask_kind, mask, mask_batch, mask_heads, scale, causal, out, lse,
      {dense(heads_q, seq_q, head_dim), dense(heads_kv, seq_kv, head_dim),
       dense(heads_kv, seq_kv, head_dim_v), dense(heads_q, seq_q, head_dim_v),
       Layout{}, Layout{}, Layout{}, Layout{}},
      stream);
}

extern "C" void amp_gpu_attention_bwd_strided(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, const void *out,
    const void *dout, const float *lse, int32_t mask_kind, const void *mask,
    int64_t mask_batch, int64_t mask_heads, float scale, int32_t causal,
    void *dq, void *dk, void *dv, AMP_ATTENTION_LAYOUT(q),
    AMP_ATTENTION_LAYOUT(k), AMP_ATTENTION_LAYOUT(v), AMP_ATTENTION_LAYOUT(out),
    AMP_ATTENTION_LAYOUT(dout), AMP_ATTENTION_LAYOUT(dq),
    AMP_ATTENTION_LAYOUT(dk), AMP_ATTENTION_LAYOUT(dv), void *stream) {
  backward(dtype, batch, heads_q, heads_kv, seq_q, seq_kv, head_dim, head_dim_v,
           q, k, v, out, dout, lse, mask_kind, mask, mask_batch, mask_heads,
           scale, causal, dq, dk, dv,
           {AMP_LAYOUT_OF(q), AMP_LAYOUT_OF(k), AMP_LAYOUT_OF(v),
            AMP_LAYOUT_OF(out), AMP_LAYOUT_OF(dout), AMP_LAYOUT_OF(dq),
            AMP_LAYOUT_OF(dk), AMP_LAYOUT_OF(dv)},
           stream);
}

extern "C" void amp_gpu_attention_bwd(
    int32_t dtype, int64_t batch, int64_t heads_q, int64_t heads_kv,
    int64_t seq_q, int64_t seq_kv, int64_t head_dim, int64_t head_dim_v,
    const void *q, const void *k, const void *v, const void *out,
    const void *dout, const float *lse, int32_t mask_kind, const void *mask,
    int64_t mask_batch, int64_t mask_heads, float scale, int32_t causal,
    void *dq, void *dk, void *dv, void *stream) {
  Layout lq = dense(heads_q, seq_q, head_dim),
         lk = dense(heads_kv, seq_kv, head_dim),
         lv = dense(heads_kv, seq_kv, head_dim_v),
         lo = dense(heads_q, seq_q, head_dim_v);
  backward(dtype, batch, heads_q, heads_kv, seq_q, seq_kv, head_dim, head_dim_v,
           q, k, v, out, dout, lse, mask_kind, mask, mask_batch, mask_heads,
           scale, causal, dq, dk, dv, {lq, lk, lv, lo, lo, lq, lk, lv}, stream);
}
