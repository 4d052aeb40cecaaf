//===- Cudnn.cpp - the cuDNN subset: fused attention on the CPU -----------===//
//
// The backend graph API functions lib/Runtime/CUDAAttention.cpp resolves
// from libcudnn.so.9, standing in for cuDNN 9.19 on the emulated sm_90.
// Descriptors are typed attribute bags: setting an attribute checks its type
// against the descriptor's, finalizing checks the required ones. An
// operation graph finalizes only when it is exactly one of the composite
// attention graphs CUDAAttention.cpp builds (forward with statistics,
// backward with the f32 Dsum and dQ accumulator; each with or without the
// causal band and an additive bias); anything else is
// CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN. A plan finalizes only for what
// cuDNN runs (amp/Runtime/CudnnAttentionRules.h, with this device's sm_90
// and this library's 9.19.0), with the NOT_SUPPORTED status of the rule.
// Executing checks the variant pack as cuDNN does (every tensor's pointer,
// its declared alignment) and, as the emulated device does for kernels,
// that each tensor lies within one device allocation; then it computes the
// attention directly, per (batch, head) and query row, as Attention.h
// defines it and amp's CPU kernel computes it (up to summation order): f32
// scores, sums and statistics, the forward's probabilities rounded to the
// I/O type before P V (unnormalized, as flash kernels do), each output
// rounded once. Tensors are read and
// written through the strides of their descriptors.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Export.h"

#include "amp/Runtime/CudnnAttentionRules.h"
#include "amp/Runtime/Numerics.h"

#include <cudnn_graph.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace amp::emulator;

struct cudnnContext {
  cudaStream_t stream = nullptr;
};

namespace {

/// The version this stand-in reports (cudnnGetVersion) and the compute
/// capability of the emulated device (Driver.cpp).
constexpr int kVersion = 91900;
constexpr int kDeviceSM = 90;

//===----------------------------------------------------------------------===//
// Errors: cudnnGetLastErrorString returns the detail of the last failure.
//===----------------------------------------------------------------------===//

std::mutex &errorMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}
std::string &lastError() {
  static std::string *s = new std::string();
  return *s;
}

cudnnStatus_t fail(cudnnStatus_t status, const std::string &detail) {
  std::lock_guard<std::mutex> lock(errorMutex());
  lastError() = detail;
  return status;
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

struct Attribute {
  cudnnBackendAttributeType_t type;
  int64_t count;
  std::vector<char> bytes;
};

struct Tensor {
  int64_t uid = 0;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims, strides;
  int64_t alignment = 0;
  bool isVirtual = false, byValue = false;
};

enum class OpKind { Pointwise, Matmul, Reduction, Reshape };

/// A finalized operation: inputs x (matmul A), b (matmul B), t (select's
/// predicate), output y (matmul C).
struct Op {
  OpKind kind;
  int mode = 0; // cudnnPointwiseMode_t or cudnnReduceTensorOp_t
  int64_t axis = -1;
  std::shared_ptr<Tensor> x, b, t, y;
};

/// What an attention graph is made of: its tensors by role.
struct Pattern {
  bool backward = false, causal = false;
  std::shared_ptr<Tensor> q, kT, v, o, lse, scale, negInf, bias, one, dO, dQ,
      dK, dV, dsum, dQAcc;
  /// The declared types of the probabilities P (forward: P V's A operand;
  /// backward: P^T) and of dS^T: cuDNN's fused kernels take them in the I/O
  /// type only (cudnn-frontend: "Requirement by cudnn backend to take in
  /// bmm2 aType as i/o type").
  cudnnDataType_t pType = CUDNN_DATA_FLOAT, dSTType = CUDNN_DATA_FLOAT;
  amp::AttentionConfig config;
};

struct Descriptor {
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  std::map<int, Attribute> attributes;
  // What finalizing made of the attributes.
  std::shared_ptr<Tensor> tensor;
  std::shared_ptr<Op> op;
  std::shared_ptr<Pattern> pattern; // graph, engine config, plan
  int mode = 0;                     // pointwise/reduction/heuristics mode
  int64_t axis = -1;
  int64_t workspace = 0; // plan
  // Variant pack.
  std::map<int64_t, void *> pointers;
  void *workspacePointer = nullptr;
};

std::mutex &descriptorMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}
std::set<Descriptor *> &liveDescriptors() {
  static std::set<Descriptor *> *s = new std::set<Descriptor *>();
  return *s;
}

Descriptor *asDescriptor(const void *pointer) {
  std::lock_guard<std::mutex> lock(descriptorMutex());
  auto *d = static_cast<Descriptor *>(const_cast<void *>(pointer));
  return liveDescriptors().count(d) ? d : nullptr;
}

size_t elementSize(cudnnBackendAttributeType_t type) {
  switch (type) {
  case CUDNN_TYPE_HANDLE:
    return sizeof(cudnnHandle_t);
  case CUDNN_TYPE_DATA_TYPE:
    return sizeof(cudnnDataType_t);
  case CUDNN_TYPE_BOOLEAN:
    return sizeof(bool);
  case CUDNN_TYPE_INT64:
    return sizeof(int64_t);
  case CUDNN_TYPE_FLOAT:
    return sizeof(float);
  case CUDNN_TYPE_DOUBLE:
    return sizeof(double);
  case CUDNN_TYPE_VOID_PTR:
    return sizeof(void *);
  case CUDNN_TYPE_HEUR_MODE:
    return sizeof(cudnnBackendHeurMode_t);
  case CUDNN_TYPE_POINTWISE_MODE:
    return sizeof(cudnnPointwiseMode_t);
  case CUDNN_TYPE_BACKEND_DESCRIPTOR:
    return sizeof(cudnnBackendDescriptor_t);
  case CUDNN_TYPE_REDUCTION_OPERATOR_TYPE:
    return sizeof(cudnnReduceTensorOp_t);
  case CUDNN_TYPE_INT32:
    return sizeof(int32_t);
  default:
    return 0;
  }
}

/// One attribute a descriptor type takes: its name, type, whether finalize
/// needs it and the most elements it holds (0: any number).
struct AttributeRule {
  cudnnBackendAttributeName_t name;
  cudnnBackendAttributeType_t type;
  bool required;
  int64_t maxCount;
};

std::vector<AttributeRule> rulesFor(cudnnBackendDescriptorType_t type) {
  switch (type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
    return {{CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, true, 1},
            {CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, true, 8},
            {CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, true, 8},
            {CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, true, 1},
            {CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, true, 1},
            {CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, false, 1},
            {CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, false, 1}};
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    return {{CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, true, 1},
            {CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, true, 1},
            {CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, false, 1}};
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    return {
        {CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
         CUDNN_TYPE_BACKEND_DESCRIPTOR, true, 1},
        {CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
         true, 1},
        {CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
         false, 1},
        {CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
         false, 1},
        {CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
         true, 1},
        {CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, false, 1},
        {CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, false, 1}};
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
    return {{CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, true, 1}};
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    return {{CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1},
            {CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1},
            {CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1},
            {CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1}};
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
    return {{CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE,
             true, 1},
            {CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, true, 1}};
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    return {{CUDNN_ATTR_OPERATION_REDUCTION_XDESC,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, true, 1},
            {CUDNN_ATTR_OPERATION_REDUCTION_YDESC,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, true, 1},
            {CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1}};
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    return {{CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1},
            {CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             true, 1}};
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    // The handle is optional from cuDNN 9.8 (cudnn-frontend).
    return {{CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, false, 1},
            {CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, true,
             0}};
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    return {{CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, true, 1},
            {CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, true, 1}};
  case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    return {};
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    return {{CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, true, 1},
            {CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
             CUDNN_TYPE_BACKEND_DESCRIPTOR, true, 1}};
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    return {
        {CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, true, 0},
        {CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, true, 0},
        {CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, false, 1}};
  default:
    return {};
  }
}

bool isSupportedDescriptorType(cudnnBackendDescriptorType_t type) {
  switch (type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
  case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    return true;
  default:
    return false;
  }
}

template <typename T> T scalarOf(const Descriptor &d, int name, T fallback) {
  auto it = d.attributes.find(name);
  if (it == d.attributes.end() || it->second.bytes.size() < sizeof(T))
    return fallback;
  T value;
  std::memcpy(&value, it->second.bytes.data(), sizeof(T));
  return value;
}

template <typename T> std::vector<T> arrayOf(const Descriptor &d, int name) {
  auto it = d.attributes.find(name);
  if (it == d.attributes.end())
    return {};
  std::vector<T> values(size_t(it->second.count));
  std::memcpy(values.data(), it->second.bytes.data(),
              values.size() * sizeof(T));
  return values;
}

/// The finalized descriptor of `type` an attribute names; null (and the
/// error in `status`) otherwise.
Descriptor *referenced(const Descriptor &d, int name,
                       cudnnBackendDescriptorType_t type, cudnnStatus_t &status,
                       const char *what) {
  auto refs = arrayOf<cudnnBackendDescriptor_t>(d, name);
  if (refs.empty())
    return nullptr;
  Descriptor *r = asDescriptor(refs[0]);
  if (!r || r->type != type)
    status = fail(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                  std::string(what) + " is not a descriptor of the right type");
  else if (!r->finalized)
    status = fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                  std::string(what) + " is not finalized");
  else
    return r;
  return nullptr;
}

const char *typeName(cudnnDataType_t type) {
  switch (type) {
  case CUDNN_DATA_FLOAT:
    return "float";
  case CUDNN_DATA_HALF:
    return "half";
  case CUDNN_DATA_BFLOAT16:
    return "bfloat16";
  case CUDNN_DATA_INT32:
    return "int32";
  case CUDNN_DATA_BOOLEAN:
    return "boolean";
  default:
    return "unsupported";
  }
}

size_t dataBytes(cudnnDataType_t type) {
  return type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16 ? 2
         : type == CUDNN_DATA_BOOLEAN                           ? 1
                                                                : 4;
}

//===----------------------------------------------------------------------===//
// Finalizing descriptors
//===----------------------------------------------------------------------===//

cudnnStatus_t finalizeTensor(Descriptor &d) {
  auto t = std::make_shared<Tensor>();
  t->type = scalarOf<cudnnDataType_t>(d, CUDNN_ATTR_TENSOR_DATA_TYPE,
                                      CUDNN_DATA_FLOAT);
  t->dims = arrayOf<int64_t>(d, CUDNN_ATTR_TENSOR_DIMENSIONS);
  t->strides = arrayOf<int64_t>(d, CUDNN_ATTR_TENSOR_STRIDES);
  t->uid = scalarOf<int64_t>(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0);
  t->alignment = scalarOf<int64_t>(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 0);
  t->isVirtual = scalarOf<bool>(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, false);
  t->byValue = scalarOf<bool>(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, false);
  if (t->dims.size() != t->strides.size())
    return fail(CUDNN_STATUS_BAD_PARAM,
                "tensor " + std::to_string(t->uid) + ": " +
                    std::to_string(t->dims.size()) + " dimensions but " +
                    std::to_string(t->strides.size()) + " strides");
  for (size_t i = 0; i < t->dims.size(); ++i)
    if (t->dims[i] <= 0 || t->strides[i] <= 0)
      return fail(CUDNN_STATUS_BAD_PARAM,
                  "tensor " + std::to_string(t->uid) +
                      ": dimensions and strides must be positive");
  if (t->alignment <= 0 || (t->alignment & (t->alignment - 1)) != 0)
    return fail(CUDNN_STATUS_BAD_PARAM,
                "tensor " + std::to_string(t->uid) + ": byte alignment " +
                    std::to_string(t->alignment) + " is not a power of two");
  if (std::string(typeName(t->type)) == "unsupported")
    return fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                "tensor " + std::to_string(t->uid) + ": data type " +
                    std::to_string(int(t->type)) +
                    " is not supported by the emulated device");
  d.tensor = t;
  return CUDNN_STATUS_SUCCESS;
}

bool isKnownPointwiseMode(int mode) {
  switch (mode) {
  case CUDNN_POINTWISE_ADD:
  case CUDNN_POINTWISE_SUB:
  case CUDNN_POINTWISE_MUL:
  case CUDNN_POINTWISE_DIV:
  case CUDNN_POINTWISE_EXP:
  case CUDNN_POINTWISE_LOG:
  case CUDNN_POINTWISE_IDENTITY:
  case CUDNN_POINTWISE_CMP_GE:
  case CUDNN_POINTWISE_GEN_INDEX:
  case CUDNN_POINTWISE_BINARY_SELECT:
    return true;
  default:
    return false;
  }
}

cudnnStatus_t finalizeOperation(Descriptor &d) {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  auto op = std::make_shared<Op>();
  auto tensorOf = [&](int name, const char *what) -> std::shared_ptr<Tensor> {
    Descriptor *r =
        referenced(d, name, CUDNN_BACKEND_TENSOR_DESCRIPTOR, status, what);
    return r ? r->tensor : nullptr;
  };
  switch (d.type) {
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: {
    Descriptor *pw = referenced(d, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
                                CUDNN_BACKEND_POINTWISE_DESCRIPTOR, status,
                                "the pointwise descriptor");
    if (!pw)
      return status;
    // The stand-in computes y = op(x, b) exactly: alphas other than 1
    // would scale the inputs.
    if (scalarOf<float>(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, 1.0f) !=
            1.0f ||
        scalarOf<float>(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, 1.0f) != 1.0f)
      return fail(CUDNN_STATUS_NOT_SUPPORTED,
                  "the emulated cuDNN takes pointwise alphas of 1 only");
    op->kind = OpKind::Pointwise;
    op->mode = pw->mode;
    op->axis = pw->axis;
    op->x = tensorOf(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, "the input X");
    op->b = tensorOf(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, "the input B");
    op->t = tensorOf(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, "the predicate T");
    op->y = tensorOf(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, "the output Y");
    break;
  }
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    if (!referenced(d, CUDNN_ATTR_OPERATION_MATMUL_DESC,
                    CUDNN_BACKEND_MATMUL_DESCRIPTOR, status,
                    "the matmul descriptor"))
      return status;
    op->kind = OpKind::Matmul;
    op->x = tensorOf(CUDNN_ATTR_OPERATION_MATMUL_ADESC, "A");
    op->b = tensorOf(CUDNN_ATTR_OPERATION_MATMUL_BDESC, "B");
    op->y = tensorOf(CUDNN_ATTR_OPERATION_MATMUL_CDESC, "C");
    break;
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: {
    Descriptor *red = referenced(d, CUDNN_ATTR_OPERATION_REDUCTION_DESC,
                                 CUDNN_BACKEND_REDUCTION_DESCRIPTOR, status,
                                 "the reduction descriptor");
    if (!red)
      return status;
    op->kind = OpKind::Reduction;
    op->mode = red->mode;
    op->x = tensorOf(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, "the input X");
    op->y = tensorOf(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, "the output Y");
    break;
  }
  default: // reshape
    op->kind = OpKind::Reshape;
    op->x = tensorOf(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, "the input X");
    op->y = tensorOf(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, "the output Y");
    break;
  }
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  d.op = op;
  return CUDNN_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Recognizing the attention graphs
//===----------------------------------------------------------------------===//

/// Matches the operations of a graph against the composite attention
/// graphs, consuming each operation once; every operation must be consumed.
class Matcher {
public:
  explicit Matcher(std::vector<std::shared_ptr<Op>> ops)
      : ops(std::move(ops)), used(this->ops.size(), false) {}

  /// Why the graph is not an attention graph ("" while it may be one).
  std::string why;

  /// The unused operation of `kind` (and pointwise/reduction `mode`, -1:
  /// any) producing `t`; marks it used. Null, with `why`, otherwise.
  const Op *producer(const std::shared_ptr<Tensor> &t, OpKind kind, int mode,
                     const char *what) {
    if (!t)
      return miss(what);
    for (size_t i = 0; i < ops.size(); ++i)
      if (!used[i] && ops[i]->y && ops[i]->y->uid == t->uid &&
          ops[i]->kind == kind && (mode < 0 || ops[i]->mode == mode)) {
        used[i] = true;
        return ops[i].get();
      }
    return miss(what);
  }
  /// Whether an unused operation of `kind`/`mode` produces `t` (no marking).
  bool producedBy(const std::shared_ptr<Tensor> &t, OpKind kind, int mode) {
    for (size_t i = 0; i < ops.size(); ++i)
      if (!used[i] && t && ops[i]->y && ops[i]->y->uid == t->uid &&
          ops[i]->kind == kind && ops[i]->mode == mode)
        return true;
    return false;
  }
  /// The unused operation of `kind`/`mode` reading `x` as its first input
  /// and, unless null, writing a non-virtual output (`nonVirtual`).
  const Op *consumer(const std::shared_ptr<Tensor> &x, OpKind kind, int mode,
                     int nonVirtual, const char *what) {
    for (size_t i = 0; i < ops.size(); ++i)
      if (!used[i] && x && ops[i]->x && ops[i]->x->uid == x->uid &&
          ops[i]->kind == kind && (mode < 0 || ops[i]->mode == mode) &&
          (nonVirtual < 0 || ops[i]->y->isVirtual == !nonVirtual)) {
        used[i] = true;
        return ops[i].get();
      }
    return miss(what);
  }
  /// The unused operation of `kind`/`mode` whose output is non-virtual.
  const Op *output(OpKind kind, int mode, const char *what) {
    for (size_t i = 0; i < ops.size(); ++i)
      if (!used[i] && ops[i]->kind == kind &&
          (mode < 0 || ops[i]->mode == mode) && !ops[i]->y->isVirtual) {
        used[i] = true;
        return ops[i].get();
      }
    return miss(what);
  }
  bool allUsed() {
    for (size_t i = 0; i < ops.size(); ++i)
      if (!used[i]) {
        why = "operation " + std::to_string(i) + " is not part of it";
        return false;
      }
    return true;
  }
  bool same(const std::shared_ptr<Tensor> &a, const std::shared_ptr<Tensor> &b,
            const char *what) {
    if (a && b && a->uid == b->uid)
      return true;
    miss(what);
    return false;
  }
  bool external(const std::shared_ptr<Tensor> &t, const char *what) {
    if (t && !t->isVirtual && !t->byValue)
      return true;
    miss(what);
    return false;
  }
  bool hostScalar(const std::shared_ptr<Tensor> &t, const char *what) {
    if (t && t->byValue && t->type == CUDNN_DATA_FLOAT)
      return true;
    miss(what);
    return false;
  }

  const Op *miss(const char *what) {
    if (why.empty())
      why = std::string("no ") + what;
    return nullptr;
  }

private:
  std::vector<std::shared_ptr<Op>> ops;
  std::vector<bool> used;
};

/// Q K^T * scale (+ bias) [- lse] [causal band] ending in `s`.
bool matchScores(Matcher &m, std::shared_ptr<Tensor> s, Pattern &p,
                 bool backward) {
  if (m.producedBy(s, OpKind::Pointwise, CUDNN_POINTWISE_BINARY_SELECT)) {
    const Op *select = m.producer(s, OpKind::Pointwise,
                                  CUDNN_POINTWISE_BINARY_SELECT, "select");
    if (!m.hostScalar(select->b, "by-value -inf of the causal band"))
      return false;
    const Op *compare = m.producer(select->t, OpKind::Pointwise,
                                   CUDNN_POINTWISE_CMP_GE, "causal compare");
    if (!compare)
      return false;
    const Op *row = m.producer(compare->x, OpKind::Pointwise,
                               CUDNN_POINTWISE_GEN_INDEX, "row index");
    const Op *col = m.producer(compare->b, OpKind::Pointwise,
                               CUDNN_POINTWISE_GEN_INDEX, "column index");
    if (!row || !col || row->axis != 2 || col->axis != 3 ||
        !m.same(row->x, select->x, "row index of the scores") ||
        !m.same(col->x, select->x, "column index of the scores")) {
      m.miss("causal band (row >= column)");
      return false;
    }
    p.causal = true;
    p.negInf = select->b;
    s = select->x;
  }
  if (backward) {
    const Op *sub =
        m.producer(s, OpKind::Pointwise, CUDNN_POINTWISE_SUB, "s - lse");
    if (!sub || !m.external(sub->b, "lse"))
      return false;
    p.lse = sub->b;
    s = sub->x;
  }
  if (m.producedBy(s, OpKind::Pointwise, CUDNN_POINTWISE_ADD)) {
    const Op *add =
        m.producer(s, OpKind::Pointwise, CUDNN_POINTWISE_ADD, "bias");
    if (!m.external(add->b, "bias tensor"))
      return false;
    p.bias = add->b;
    s = add->x;
  }
  const Op *mul =
      m.producer(s, OpKind::Pointwise, CUDNN_POINTWISE_MUL, "scale");
  if (!mul || !m.hostScalar(mul->b, "by-value scale"))
    return false;
  if (p.scale && !m.same(p.scale, mul->b, "one scale"))
    return false;
  p.scale = mul->b;
  const Op *qk = m.producer(mul->x, OpKind::Matmul, -1, "Q K^T");
  if (!qk || !m.external(qk->x, "Q") || !m.external(qk->b, "K^T"))
    return false;
  if (p.q && !m.same(p.q, qk->x, "one Q"))
    return false;
  if (p.kT && !m.same(p.kT, qk->b, "one K"))
    return false;
  p.q = qk->x;
  p.kT = qk->b;
  return true;
}

/// The forward of CUDAAttention.cpp: softmax with statistics, then P V.
bool matchForward(Matcher &m, Pattern &p) {
  const Op *pv = m.output(OpKind::Matmul, -1, "P V with a non-virtual output");
  if (!pv || !m.external(pv->b, "V"))
    return false;
  p.o = pv->y;
  p.v = pv->b;
  p.pType = pv->x->type;
  const Op *div =
      m.producer(pv->x, OpKind::Pointwise, CUDNN_POINTWISE_DIV, "E / Z");
  if (!div)
    return false;
  const Op *exp =
      m.producer(div->x, OpKind::Pointwise, CUDNN_POINTWISE_EXP, "exp");
  if (!exp)
    return false;
  const Op *sub =
      m.producer(exp->x, OpKind::Pointwise, CUDNN_POINTWISE_SUB, "s - max");
  if (!sub)
    return false;
  const Op *max = m.producer(sub->b, OpKind::Reduction, CUDNN_REDUCE_TENSOR_MAX,
                             "row maximum");
  const Op *sum =
      m.producer(div->b, OpKind::Reduction, CUDNN_REDUCE_TENSOR_ADD, "row sum");
  if (!max || !sum || !m.same(max->x, sub->x, "maximum of the scores") ||
      !m.same(sum->x, div->x, "sum of the exponentials"))
    return false;
  const Op *lse = m.consumer(max->y, OpKind::Pointwise, CUDNN_POINTWISE_ADD, 1,
                             "statistics max + log(sum)");
  if (!lse)
    return false;
  const Op *log =
      m.producer(lse->b, OpKind::Pointwise, CUDNN_POINTWISE_LOG, "log");
  if (!log || !m.same(log->x, div->b, "log of the row sum"))
    return false;
  p.lse = lse->y;
  return matchScores(m, sub->x, p, false) && m.allUsed();
}

/// A key/value-head gradient: A x B straight into `out`, or per query head
/// and summed over groups.
bool matchHeadGradient(Matcher &m, const std::shared_ptr<Tensor> &a,
                       std::shared_ptr<Tensor> &out, const char *what) {
  const Op *mm = m.consumer(a, OpKind::Matmul, -1, -1, what);
  if (!mm)
    return false;
  if (!mm->y->isVirtual) {
    out = mm->y;
    return true;
  }
  const Op *sum =
      m.consumer(mm->y, OpKind::Reduction, CUDNN_REDUCE_TENSOR_ADD, 1, what);
  if (!sum)
    return false;
  out = sum->y;
  return true;
}

/// The backward of CUDAAttention.cpp.
bool matchBackward(Matcher &m, Pattern &p) {
  p.backward = true;
  const Op *identity = m.output(OpKind::Pointwise, CUDNN_POINTWISE_IDENTITY,
                                "dQ = identity(dQ accumulator)");
  if (!identity || !m.external(identity->x, "dQ accumulator"))
    return false;
  p.dQ = identity->y;
  p.dQAcc = identity->x;
  const Op *dq = m.producer(p.dQAcc, OpKind::Matmul, -1, "dS K");
  if (!dq)
    return false;
  const Op *kReshape =
      m.producer(dq->b, OpKind::Reshape, -1, "K from K^T (reshape)");
  if (!kReshape || !m.external(kReshape->x, "K^T"))
    return false;
  p.kT = kReshape->x;
  std::shared_ptr<Tensor> dSScaled = dq->x;
  const Op *mulScale = m.producer(dSScaled, OpKind::Pointwise,
                                  CUDNN_POINTWISE_MUL, "dS * scale");
  if (!mulScale || !m.hostScalar(mulScale->b, "by-value scale"))
    return false;
  p.scale = mulScale->b;
  const Op *mulP = m.producer(mulScale->x, OpKind::Pointwise,
                              CUDNN_POINTWISE_MUL, "(dP - Dsum) * P");
  if (!mulP)
    return false;
  const Op *subD =
      m.producer(mulP->x, OpKind::Pointwise, CUDNN_POINTWISE_SUB, "dP - Dsum");
  if (!subD || !m.external(subD->b, "Dsum"))
    return false;
  p.dsum = subD->b;
  const Op *dP = m.producer(subD->x, OpKind::Matmul, -1, "dO V^T");
  if (!dP || !m.external(dP->x, "dO") || !m.external(dP->b, "V^T"))
    return false;
  p.dO = dP->x;
  p.v = dP->b;
  const Op *dsum = m.producer(p.dsum, OpKind::Pointwise, CUDNN_POINTWISE_MUL,
                              "Dsum = rowsum * 1");
  if (!dsum || !m.hostScalar(dsum->b, "by-value one"))
    return false;
  p.one = dsum->b;
  const Op *rowSum = m.producer(dsum->x, OpKind::Reduction,
                                CUDNN_REDUCE_TENSOR_ADD, "rowsum(dO * O)");
  if (!rowSum)
    return false;
  const Op *dOO =
      m.producer(rowSum->x, OpKind::Pointwise, CUDNN_POINTWISE_MUL, "dO * O");
  if (!dOO || !m.same(dOO->x, p.dO, "dO of dO * O") || !m.external(dOO->b, "O"))
    return false;
  p.o = dOO->b;
  std::shared_ptr<Tensor> probabilities = mulP->b;
  const Op *exp = m.producer(probabilities, OpKind::Pointwise,
                             CUDNN_POINTWISE_EXP, "P = exp(s - lse)");
  if (!exp || !matchScores(m, exp->x, p, true))
    return false;
  const Op *pT = m.consumer(probabilities, OpKind::Reshape, -1, -1, "P^T");
  if (!pT || !matchHeadGradient(m, pT->y, p.dV, "P^T dO"))
    return false;
  p.pType = pT->y->type;
  const Op *dST = m.consumer(dSScaled, OpKind::Reshape, -1, -1, "dS^T");
  if (!dST || !matchHeadGradient(m, dST->y, p.dK, "dS^T Q"))
    return false;
  p.dSTType = dST->y->type;
  return m.allUsed();
}

amp_dtype ampType(cudnnDataType_t type) {
  return type == CUDNN_DATA_HALF       ? AMP_DTYPE_F16
         : type == CUDNN_DATA_BFLOAT16 ? AMP_DTYPE_BF16
                                       : AMP_DTYPE_F32;
}

bool hasDims(const std::shared_ptr<Tensor> &t,
             std::initializer_list<int64_t> dims) {
  return t && t->dims == std::vector<int64_t>(dims);
}

/// The shapes of the roles agree, and the configuration they describe.
cudnnStatus_t checkShapes(Pattern &p) {
  if (p.q->dims.size() != 4 || p.kT->dims.size() != 4 || p.v->dims.size() != 4)
    return fail(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH,
                "attention tensors must have rank 4");
  int64_t b = p.q->dims[0], hq = p.q->dims[1], sq = p.q->dims[2],
          d = p.q->dims[3], hkv = p.kT->dims[1], skv = p.kT->dims[3];
  int64_t dv = p.backward ? p.v->dims[2] : p.v->dims[3];
  bool ok = hasDims(p.kT, {b, hkv, d, skv}) &&
            (p.backward ? hasDims(p.v, {b, hkv, dv, skv})
                        : hasDims(p.v, {b, hkv, skv, dv})) &&
            hasDims(p.o, {b, hq, sq, dv}) && hasDims(p.lse, {b, hq, sq, 1}) &&
            p.lse->type == CUDNN_DATA_FLOAT;
  if (p.bias)
    ok &= p.bias->dims.size() == 4 && p.bias->dims[2] == sq &&
          p.bias->dims[3] == skv;
  if (p.backward)
    ok &= hasDims(p.dO, {b, hq, sq, dv}) && hasDims(p.dQ, {b, hq, sq, d}) &&
          hasDims(p.dQAcc, {b, hq, sq, d}) && hasDims(p.dK, {b, hkv, skv, d}) &&
          hasDims(p.dV, {b, hkv, skv, dv}) && hasDims(p.dsum, {b, hq, sq, 1}) &&
          p.dQAcc->type == CUDNN_DATA_FLOAT && p.dsum->type == CUDNN_DATA_FLOAT;
  if (!ok)
    return fail(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH,
                "the attention tensors' dimensions do not agree (Q [" +
                    std::to_string(b) + ", " + std::to_string(hq) + ", " +
                    std::to_string(sq) + ", " + std::to_string(d) + "])");
  amp::AttentionConfig &c = p.config;
  c.dtype = ampType(p.q->type);
  c.batch = b;
  c.headsQ = hq;
  c.headsKV = hkv;
  c.seqQ = sq;
  c.seqKV = skv;
  c.headDim = d;
  c.headDimV = dv;
  c.maskKind = !p.bias                              ? AMP_ATTENTION_MASK_NONE
               : p.bias->type == CUDNN_DATA_BOOLEAN ? AMP_ATTENTION_MASK_KEEP
                                                    : AMP_ATTENTION_MASK_ADD;
  c.maskBatch = p.bias ? p.bias->dims[0] : 1;
  c.maskHeads = p.bias ? p.bias->dims[1] : 1;
  c.causal = p.causal;
  c.dropout = 0.0; // the graphs recognized have no RNG
  c.backward = p.backward;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeGraph(Descriptor &d) {
  auto refs =
      arrayOf<cudnnBackendDescriptor_t>(d, CUDNN_ATTR_OPERATIONGRAPH_OPS);
  std::vector<std::shared_ptr<Op>> ops;
  bool hasReshape = false;
  for (cudnnBackendDescriptor_t ref : refs) {
    Descriptor *op = asDescriptor(ref);
    if (!op || !op->op)
      return fail(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                  "an operation of the graph is not a finalized operation "
                  "descriptor");
    hasReshape |= op->op->kind == OpKind::Reshape;
    ops.push_back(op->op);
  }
  // Each tensor is produced once.
  std::set<int64_t> outputs;
  for (const auto &op : ops)
    if (!outputs.insert(op->y->uid).second)
      return fail(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES,
                  "tensor " + std::to_string(op->y->uid) +
                      " is the output of two operations");
  auto pattern = std::make_shared<Pattern>();
  Matcher m(ops);
  bool matched =
      hasReshape ? matchBackward(m, *pattern) : matchForward(m, *pattern);
  if (!matched)
    return fail(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN,
                std::string("the emulated cuDNN runs only amp's attention "
                            "graphs, and this is not the ") +
                    (hasReshape ? "backward" : "forward") + " one: " + m.why);
  if (cudnnStatus_t s = checkShapes(*pattern))
    return s;
  d.pattern = pattern;
  return CUDNN_STATUS_SUCCESS;
}

/// The NOT_SUPPORTED status for a refusal of CudnnAttentionRules.h.
cudnnStatus_t refusalStatus(const char *reason) {
  std::string rule(reason, std::strchr(reason, ':') - reason);
  if (rule == "R1")
    return CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH;
  if (rule == "R2")
    return CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE;
  if (rule == "R13" || rule == "R14")
    return CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN;
  if (rule == "R0" || rule == "R15")
    return CUDNN_STATUS_NOT_SUPPORTED;
  return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
}

/// The tensors the variant pack must hold, with their roles.
std::vector<std::pair<const char *, std::shared_ptr<Tensor>>>
externalTensors(const Pattern &p) {
  std::vector<std::pair<const char *, std::shared_ptr<Tensor>>> all = {
      {"Q", p.q},   {"K", p.kT},      {"V", p.v},
      {"O", p.o},   {"lse", p.lse},   {"bias", p.bias},
      {"dO", p.dO}, {"dQ", p.dQ},     {"dK", p.dK},
      {"dV", p.dV}, {"Dsum", p.dsum}, {"dQ accumulator", p.dQAcc}};
  std::vector<std::pair<const char *, std::shared_ptr<Tensor>>> present;
  for (auto &entry : all)
    if (entry.second)
      present.push_back(entry);
  return present;
}

/// The plan: cuDNN's rules for this device and version, then the layout
/// cuDNN's kernels need (cudnnAttentionLayoutRefusal: R4 unit stride in the
/// head dimension, R19 strides of 16-byte multiples; R16: 16-byte alignment
/// declared, the pointers checked when the plan runs).
cudnnStatus_t finalizePlan(Descriptor &d) {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  Descriptor *config = referenced(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                  CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, status,
                                  "the engine configuration");
  if (!config)
    return status;
  const Pattern &p = *config->pattern;
  if (const char *reason =
          amp::cudnnAttentionRefusal(p.config, kDeviceSM, kVersion))
    return fail(refusalStatus(reason),
                std::string("the emulated cuDNN 9.19.0 on sm_90 does not run "
                            "this attention: ") +
                    reason);
  for (const auto &[role, t] : externalTensors(p)) {
    if (t->alignment < 16)
      return fail(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT,
                  std::string(role) + " is declared " +
                      std::to_string(t->alignment) +
                      "-byte aligned (R16: attention tensors are 16-byte "
                      "aligned)");
    if (t->type == CUDNN_DATA_FLOAT)
      continue; // statistics, accumulator and bias
    // [b, h, s, d] strides: a transposed K or V^T swaps the last two.
    bool transposed = t == p.kT || (p.backward && t == p.v);
    int64_t strides[4] = {t->strides[0], t->strides[1],
                          t->strides[transposed ? 3 : 2],
                          t->strides[transposed ? 2 : 3]};
    if (const char *reason = amp::cudnnAttentionLayoutRefusal(
            ampType(t->type), strides, /*offset=*/0))
      return fail(
          CUDNN_STATUS_NOT_SUPPORTED_LAYOUT,
          std::string(role) + " (strides " + std::to_string(strides[0]) + ", " +
              std::to_string(strides[1]) + ", " + std::to_string(strides[2]) +
              ", " + std::to_string(strides[3]) + "): " + reason);
  }
  if (p.backward)
    if (const char *reason = amp::cudnnAttentionGradLayoutRefusal(
            p.o->strides.data(), p.dO->strides.data(), kVersion))
      return fail(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, reason);
  if (p.q->type != p.kT->type || p.q->type != p.v->type ||
      p.q->type != p.o->type ||
      (p.backward && (p.q->type != p.dO->type || p.q->type != p.dQ->type ||
                      p.q->type != p.dK->type || p.q->type != p.dV->type)))
    return fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                "R2: Q, K, V, O and their gradients must have one type");
  if (p.pType != p.q->type || (p.backward && p.dSTType != p.q->type))
    return fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                std::string("the probabilities") +
                    (p.backward ? " and dS^T" : "") +
                    " must be declared in the I/O type");
  // One f32 per query row, so that the runtime's workspace path runs; the
  // stand-in checks the workspace is device memory and uses none of it.
  const amp::AttentionConfig &c = p.config;
  d.workspace = c.batch * c.headsQ * c.seqQ * int64_t(sizeof(float));
  d.pattern = config->pattern;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeVariantPack(Descriptor &d) {
  auto uids = arrayOf<int64_t>(d, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
  auto pointers = arrayOf<void *>(d, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
  if (uids.size() != pointers.size())
    return fail(CUDNN_STATUS_BAD_PARAM,
                "the variant pack has " + std::to_string(uids.size()) +
                    " ids and " + std::to_string(pointers.size()) +
                    " pointers");
  for (size_t i = 0; i < uids.size(); ++i)
    if (!d.pointers.emplace(uids[i], pointers[i]).second)
      return fail(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES,
                  "the variant pack names tensor " + std::to_string(uids[i]) +
                      " twice");
  d.workspacePointer =
      scalarOf<void *>(d, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, nullptr);
  return CUDNN_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Executing: the attention itself
//===----------------------------------------------------------------------===//

/// A rank-4 tensor in device memory, read and written through its strides.
struct View {
  char *base = nullptr;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int64_t strides[4] = {0, 0, 0, 0};

  View() = default;
  View(void *pointer, const Tensor &t, bool swapLast = false)
      : base(static_cast<char *>(pointer)), type(t.type) {
    for (int i = 0; i < 4; ++i)
      strides[i] = t.strides[i];
    if (swapLast)
      std::swap(strides[2], strides[3]);
  }
  int64_t offset(int64_t a, int64_t b, int64_t c, int64_t d) const {
    return a * strides[0] + b * strides[1] + c * strides[2] + d * strides[3];
  }
  float load(int64_t a, int64_t b, int64_t c, int64_t d) const {
    int64_t i = offset(a, b, c, d);
    if (type == CUDNN_DATA_FLOAT) {
      float v;
      std::memcpy(&v, base + i * 4, 4);
      return v;
    }
    uint16_t h;
    std::memcpy(&h, base + i * 2, 2);
    return type == CUDNN_DATA_HALF ? amp::halfToFloat(h)
                                   : amp::bfloat16ToFloat(h);
  }
  void store(int64_t a, int64_t b, int64_t c, int64_t d, float value) const {
    int64_t i = offset(a, b, c, d);
    if (type == CUDNN_DATA_FLOAT) {
      std::memcpy(base + i * 4, &value, 4);
      return;
    }
    uint16_t h = type == CUDNN_DATA_HALF ? amp::floatToHalf(value)
                                         : amp::floatToBFloat16(value);
    std::memcpy(base + i * 2, &h, 2);
  }
};

/// `value` rounded to `type` (f32: unchanged).
float roundTo(cudnnDataType_t type, float value) {
  if (type == CUDNN_DATA_HALF)
    return amp::halfToFloat(amp::floatToHalf(value));
  if (type == CUDNN_DATA_BFLOAT16)
    return amp::bfloat16ToFloat(amp::floatToBFloat16(value));
  return value;
}

struct Bound {
  View q, k, v, o, lse, bias, dO, dQ, dK, dV, dsum, dQAcc;
  float scale = 1.0f, negInf = -INFINITY;
};

/// Rows [0, rows) of (b, h) of a tensor, widened to f32 row-major: the
/// inner loops then read contiguous floats (O(seq x head_dim), never a
/// seq x seq buffer).
void loadRows(const View &v, int64_t b, int64_t h, int64_t rows, int64_t cols,
              std::vector<float> &out) {
  out.resize(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t e = 0; e < cols; ++e)
      out[size_t(r * cols + e)] = v.load(b, h, r, e);
}

float dot(const float *x, const float *y, int64_t n) {
  float sum = 0.0f;
  for (int64_t e = 0; e < n; ++e)
    sum += x[e] * y[e];
  return sum;
}

/// Whether the causal band hides key j from query i.
bool hidden(const Pattern &p, int64_t i, int64_t j) {
  return p.causal && j > i;
}

/// Row i's scores against every key (`keys`: the key head's rows in f32),
/// as the graph computes them: f32 products scaled, the bias added, keys
/// the causal band hides -inf (the graph's by-value value).
void scoreRow(const Pattern &p, const Bound &t, int64_t b, int64_t h, int64_t i,
              const float *query, const std::vector<float> &keys,
              std::vector<float> &s) {
  const amp::AttentionConfig &c = p.config;
  for (int64_t j = 0; j < c.seqKV; ++j) {
    if (hidden(p, i, j)) {
      s[j] = t.negInf;
      continue;
    }
    float value = dot(query, &keys[size_t(j * c.headDim)], c.headDim) * t.scale;
    if (p.bias)
      value +=
          t.bias.load(c.maskBatch == 1 ? 0 : b, c.maskHeads == 1 ? 0 : h, i, j);
    s[j] = value;
  }
}

void runForward(const Pattern &p, const Bound &t) {
  const amp::AttentionConfig &c = p.config;
  int64_t group = c.headsQ / c.headsKV, d = c.headDim, dv = c.headDimV;
  std::vector<float> s(size_t(c.seqKV)), acc(static_cast<size_t>(dv)), keys,
      values, queries;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.headsQ; ++h) {
      if (h % group == 0) {
        loadRows(t.k, b, h / group, c.seqKV, d, keys);
        loadRows(t.v, b, h / group, c.seqKV, dv, values);
      }
      loadRows(t.q, b, h, c.seqQ, d, queries);
      for (int64_t i = 0; i < c.seqQ; ++i) {
        scoreRow(p, t, b, h, i, &queries[size_t(i * d)], keys, s);
        float max = -INFINITY;
        for (int64_t j = 0; j < c.seqKV; ++j)
          max = std::max(max, s[j]);
        // A row whose every key is hidden: out 0, lse -inf (Attention.h).
        if (max == -INFINITY) {
          t.lse.store(b, h, i, 0, -INFINITY);
          for (int64_t e = 0; e < dv; ++e)
            t.o.store(b, h, i, e, 0.0f);
          continue;
        }
        float sum = 0.0f;
        for (int64_t j = 0; j < c.seqKV; ++j) {
          s[j] = std::exp(s[j] - max);
          sum += s[j];
        }
        t.lse.store(b, h, i, 0, max + std::log(sum));
        // The probabilities rounded to the I/O type as flash kernels (and
        // amp's CPU kernel) round them: unnormalized, exp(s - max), with the
        // division by the (unrounded) sum after the product.
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t j = 0; j < c.seqKV; ++j) {
          float weight = roundTo(p.pType, s[j]);
          if (weight == 0.0f)
            continue;
          const float *value = &values[size_t(j * dv)];
          for (int64_t e = 0; e < dv; ++e)
            acc[e] += weight * value[e];
        }
        for (int64_t e = 0; e < dv; ++e)
          t.o.store(b, h, i, e, acc[e] / sum);
      }
    }
}

/// Attention.h's backward as amp's CPU kernel computes it: everything in
/// f32, each gradient rounded once. (cuDNN's kernels also round P and dS to
/// the I/O type for their tensor-core products, as the graph's P^T and dS^T
/// declare; that is within the rounding the checks allow.)
void runBackward(const Pattern &p, const Bound &t) {
  const amp::AttentionConfig &c = p.config;
  int64_t group = c.headsQ / c.headsKV;
  int64_t skv = c.seqKV, d = c.headDim, dv = c.headDimV;
  std::vector<float> s(static_cast<size_t>(skv)), dp(s.size()), keys, values,
      queries, outs, grads, accumulator(static_cast<size_t>(d));
  // Per key/value head, summed over its query heads.
  std::vector<float> dK(size_t(skv * d)), dV(size_t(skv * dv));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t kvh = 0; kvh < c.headsKV; ++kvh) {
      loadRows(t.k, b, kvh, skv, d, keys);
      loadRows(t.v, b, kvh, skv, dv, values);
      std::fill(dK.begin(), dK.end(), 0.0f);
      std::fill(dV.begin(), dV.end(), 0.0f);
      for (int64_t h = kvh * group; h < (kvh + 1) * group; ++h) {
        loadRows(t.q, b, h, c.seqQ, d, queries);
        loadRows(t.o, b, h, c.seqQ, dv, outs);
        loadRows(t.dO, b, h, c.seqQ, dv, grads);
        for (int64_t i = 0; i < c.seqQ; ++i) {
          const float *query = &queries[size_t(i * d)];
          const float *grad = &grads[size_t(i * dv)];
          // Dsum = rowsum(dO * O) * 1, written as the graph says.
          float dsum = dot(grad, &outs[size_t(i * dv)], dv);
          t.dsum.store(b, h, i, 0, dsum);
          float lse = t.lse.load(b, h, i, 0);
          scoreRow(p, t, b, h, i, query, keys, s);
          for (int64_t j = 0; j < skv; ++j) {
            // P = exp(s - lse), hidden keys exp(-inf) = 0; a row with every
            // key hidden (lse -inf) has none (Attention.h: zero gradients).
            s[j] = hidden(p, i, j) || lse == -INFINITY ? 0.0f
                                                       : std::exp(s[j] - lse);
            dp[j] =
                s[j] == 0.0f ? 0.0f : dot(grad, &values[size_t(j * dv)], dv);
          }
          // The accumulator adds to what it holds, as cuDNN before 9.6
          // does: the runtime zeroes it first.
          for (int64_t e = 0; e < d; ++e)
            accumulator[e] = t.dQAcc.load(b, h, i, e);
          for (int64_t j = 0; j < skv; ++j) {
            float probability = s[j];
            if (probability == 0.0f)
              continue;
            float *dVRow = &dV[size_t(j * dv)];
            for (int64_t e = 0; e < dv; ++e)
              dVRow[e] += probability * grad[e];
            float dS = (dp[j] - dsum) * probability * t.scale;
            float *dKRow = &dK[size_t(j * d)];
            const float *key = &keys[size_t(j * d)];
            for (int64_t e = 0; e < d; ++e) {
              dKRow[e] += dS * query[e];
              accumulator[e] += dS * key[e];
            }
          }
          for (int64_t e = 0; e < d; ++e)
            t.dQAcc.store(b, h, i, e, accumulator[e]);
        }
      }
      for (int64_t j = 0; j < skv; ++j) {
        for (int64_t e = 0; e < d; ++e)
          t.dK.store(b, kvh, j, e, dK[size_t(j * d + e)]);
        for (int64_t e = 0; e < dv; ++e)
          t.dV.store(b, kvh, j, e, dV[size_t(j * dv + e)]);
      }
    }
  // dQ = identity(dQ accumulator), rounded to dQ's type.
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.headsQ; ++h)
      for (int64_t i = 0; i < c.seqQ; ++i)
        for (int64_t e = 0; e < d; ++e)
          t.dQ.store(b, h, i, e, t.dQAcc.load(b, h, i, e));
}

/// The bytes a tensor spans from its pointer.
uint64_t spanBytes(const Tensor &t) {
  uint64_t last = 0;
  for (size_t i = 0; i < t.dims.size(); ++i)
    last += uint64_t(t.dims[i] - 1) * uint64_t(t.strides[i]);
  return (last + 1) * dataBytes(t.type);
}

cudnnStatus_t execute(const Descriptor &plan, const Descriptor &pack) {
  const Pattern &p = *plan.pattern;
  auto pointer = [&](const std::shared_ptr<Tensor> &t) -> void * {
    auto it = pack.pointers.find(t->uid);
    return it == pack.pointers.end() ? nullptr : it->second;
  };
  for (const auto &[role, t] : externalTensors(p)) {
    void *at = pointer(t);
    if (!at)
      return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                  std::string("the variant pack has no pointer for tensor ") +
                      std::to_string(t->uid) + " (" + role + ")");
    if (reinterpret_cast<uintptr_t>(at) % uint64_t(t->alignment) != 0)
      return fail(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER,
                  std::string("tensor ") + std::to_string(t->uid) + " (" +
                      role + ") is declared " + std::to_string(t->alignment) +
                      "-byte aligned but its pointer is not");
    if (!isDeviceRange(at, spanBytes(*t)))
      return fail(CUDNN_STATUS_BAD_PARAM,
                  std::string("tensor ") + std::to_string(t->uid) + " (" +
                      role + ", " + std::to_string(spanBytes(*t)) +
                      " bytes) is not within one device allocation (" +
                      describeAllocation(at) + ")");
  }
  for (const auto &[role, t] :
       {std::make_pair("scale", p.scale), std::make_pair("-inf", p.negInf),
        std::make_pair("one", p.one)})
    if (t && !pointer(t))
      return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                  std::string("the variant pack has no value for tensor ") +
                      std::to_string(t->uid) + " (" + role + ")");
  if (plan.workspace > 0 &&
      !isDeviceRange(pack.workspacePointer, size_t(plan.workspace)))
    return fail(CUDNN_STATUS_BAD_PARAM,
                "the workspace (" + std::to_string(plan.workspace) +
                    " bytes) is not within one device allocation (" +
                    describeAllocation(pack.workspacePointer) + ")");
  Bound t;
  t.q = View(pointer(p.q), *p.q);
  t.k = View(pointer(p.kT), *p.kT, /*swapLast=*/true);
  t.v = View(pointer(p.v), *p.v, /*swapLast=*/p.backward);
  t.o = View(pointer(p.o), *p.o);
  t.lse = View(pointer(p.lse), *p.lse);
  if (p.bias)
    t.bias = View(pointer(p.bias), *p.bias);
  std::memcpy(&t.scale, pointer(p.scale), sizeof(float));
  if (p.negInf)
    std::memcpy(&t.negInf, pointer(p.negInf), sizeof(float));
  if (!p.backward) {
    runForward(p, t);
    return CUDNN_STATUS_SUCCESS;
  }
  t.dO = View(pointer(p.dO), *p.dO);
  t.dQ = View(pointer(p.dQ), *p.dQ);
  t.dK = View(pointer(p.dK), *p.dK);
  t.dV = View(pointer(p.dV), *p.dV);
  t.dsum = View(pointer(p.dsum), *p.dsum);
  t.dQAcc = View(pointer(p.dQAcc), *p.dQAcc);
  runBackward(p, t);
  return CUDNN_STATUS_SUCCESS;
}

} // namespace

//===----------------------------------------------------------------------===//
// The exported functions
//===----------------------------------------------------------------------===//

AMP_EMU_EXPORT size_t cudnnGetVersion(void) { return kVersion; }

AMP_EMU_EXPORT const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
#define AMP_CUDNN_STATUS(name)                                                 \
  case name:                                                                   \
    return #name;
    AMP_CUDNN_STATUS(CUDNN_STATUS_SUCCESS)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_INITIALIZED)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    AMP_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    AMP_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
#undef AMP_CUDNN_STATUS
  default:
    return "CUDNN_STATUS_INTERNAL_ERROR";
  }
}

AMP_EMU_EXPORT void cudnnGetLastErrorString(char *message, size_t maxSize) {
  if (!message || maxSize == 0)
    return;
  std::lock_guard<std::mutex> lock(errorMutex());
  std::string &text = lastError();
  size_t n = std::min(text.size(), maxSize - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
  text.clear(); // as cuDNN: the message is consumed
}

AMP_EMU_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  if (!handle)
    return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "null handle pointer");
  *handle = new cudnnContext();
  return CUDNN_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t handle,
                                            cudaStream_t stream) {
  if (!handle)
    return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "null handle");
  // Setting a stream being captured runs nothing on it.
  if (!isCapturing(stream) && !isStream(stream))
    return fail(CUDNN_STATUS_BAD_PARAM,
                "cudnnSetStream with something that is not a stream");
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cudnnStatus_t cudnnGetStream(cudnnHandle_t handle,
                                            cudaStream_t *stream) {
  if (!handle || !stream)
    return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "null argument");
  *stream = handle->stream;
  return CUDNN_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cudnnStatus_t cudnnBackendCreateDescriptor(
    cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *descriptor) {
  if (!descriptor)
    return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "null descriptor pointer");
  if (!isSupportedDescriptorType(type))
    return fail(CUDNN_STATUS_NOT_SUPPORTED,
                "descriptor type " + std::to_string(int(type)) +
                    " is not supported by the emulated cuDNN");
  auto *d = new Descriptor();
  d->type = type;
  std::lock_guard<std::mutex> lock(descriptorMutex());
  liveDescriptors().insert(d);
  *descriptor = d;
  return CUDNN_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cudnnStatus_t
cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  Descriptor *d = asDescriptor(descriptor);
  if (!d)
    return fail(CUDNN_STATUS_BAD_PARAM, "not a live descriptor");
  std::lock_guard<std::mutex> lock(descriptorMutex());
  liveDescriptors().erase(d);
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

AMP_EMU_EXPORT cudnnStatus_t cudnnBackendSetAttribute(
    cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
    cudnnBackendAttributeType_t type, int64_t count, const void *values) {
  Descriptor *d = asDescriptor(descriptor);
  if (!d)
    return fail(CUDNN_STATUS_BAD_PARAM, "not a live descriptor");
  if (d->finalized)
    return fail(CUDNN_STATUS_BAD_PARAM, "attribute " +
                                            std::to_string(int(name)) +
                                            " set on a finalized descriptor");
  if (!values || count < 0)
    return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                "attribute " + std::to_string(int(name)) + " has no values");
  for (const AttributeRule &rule : rulesFor(d->type)) {
    if (rule.name != name)
      continue;
    if (rule.type != type)
      return fail(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE,
                  "attribute " + std::to_string(int(name)) + " of type " +
                      std::to_string(int(type)) + ", expected " +
                      std::to_string(int(rule.type)));
    if (rule.maxCount > 0 && count > rule.maxCount)
      return fail(CUDNN_STATUS_BAD_PARAM,
                  "attribute " + std::to_string(int(name)) + " with " +
                      std::to_string(count) + " elements");
    Attribute attribute{type, count, {}};
    const char *bytes = static_cast<const char *>(values);
    attribute.bytes.assign(bytes, bytes + count * elementSize(type));
    d->attributes[name] = std::move(attribute);
    return CUDNN_STATUS_SUCCESS;
  }
  return fail(CUDNN_STATUS_NOT_SUPPORTED,
              "attribute " + std::to_string(int(name)) +
                  " is not supported by the emulated cuDNN on descriptor "
                  "type " +
                  std::to_string(int(d->type)));
}

AMP_EMU_EXPORT cudnnStatus_t
cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  Descriptor *d = asDescriptor(descriptor);
  if (!d)
    return fail(CUDNN_STATUS_BAD_PARAM, "not a live descriptor");
  if (d->finalized)
    return fail(CUDNN_STATUS_BAD_PARAM, "descriptor finalized twice");
  for (const AttributeRule &rule : rulesFor(d->type))
    if (rule.required && !d->attributes.count(rule.name))
      return fail(CUDNN_STATUS_BAD_PARAM, "descriptor type " +
                                              std::to_string(int(d->type)) +
                                              " lacks required attribute " +
                                              std::to_string(int(rule.name)));
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  switch (d->type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
    status = finalizeTensor(*d);
    break;
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    d->mode = scalarOf<int>(*d, CUDNN_ATTR_POINTWISE_MODE, -1);
    d->axis = scalarOf<int64_t>(*d, CUDNN_ATTR_POINTWISE_AXIS, -1);
    if (!isKnownPointwiseMode(d->mode))
      status = fail(CUDNN_STATUS_NOT_SUPPORTED,
                    "pointwise mode " + std::to_string(d->mode) +
                        " is not supported by the emulated cuDNN");
    else if (d->mode == CUDNN_POINTWISE_GEN_INDEX && d->axis < 0)
      status = fail(CUDNN_STATUS_BAD_PARAM,
                    "GEN_INDEX without an axis (CUDNN_ATTR_POINTWISE_AXIS)");
    break;
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
    d->mode = scalarOf<int>(*d, CUDNN_ATTR_REDUCTION_OPERATOR, -1);
    if (d->mode != CUDNN_REDUCE_TENSOR_ADD &&
        d->mode != CUDNN_REDUCE_TENSOR_MAX)
      status = fail(CUDNN_STATUS_NOT_SUPPORTED,
                    "reduction " + std::to_string(d->mode) +
                        " is not supported by the emulated cuDNN");
    break;
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
    // Attention's products accumulate in f32.
    if (scalarOf<cudnnDataType_t>(*d, CUDNN_ATTR_MATMUL_COMP_TYPE,
                                  CUDNN_DATA_FLOAT) != CUDNN_DATA_FLOAT)
      status = fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                    "the emulated cuDNN's matmuls compute in float only");
    break;
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    status = finalizeOperation(*d);
    break;
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    status = finalizeGraph(*d);
    break;
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: {
    Descriptor *graph = referenced(*d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                   CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                                   status, "the operation graph");
    if (graph)
      d->pattern = graph->pattern;
    break;
  }
  case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    status = fail(CUDNN_STATUS_NOT_SUPPORTED,
                  "the emulated cuDNN's engine configurations come from the "
                  "heuristics only");
    break;
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    status = finalizePlan(*d);
    break;
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    status = finalizeVariantPack(*d);
    break;
  default:
    status = fail(CUDNN_STATUS_NOT_SUPPORTED, "unsupported descriptor");
  }
  if (status == CUDNN_STATUS_SUCCESS)
    d->finalized = true;
  return status;
}

/// Only what CUDAAttention.cpp reads: the heuristics' results (one engine
/// configuration, which runs every attention graph) and a plan's workspace.
AMP_EMU_EXPORT cudnnStatus_t cudnnBackendGetAttribute(
    cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
    cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
    void *values) {
  Descriptor *d = asDescriptor(descriptor);
  if (!d)
    return fail(CUDNN_STATUS_BAD_PARAM, "not a live descriptor");
  if (!d->finalized)
    return fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                "attribute read from a descriptor not finalized");
  if (d->type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR &&
      name == CUDNN_ATTR_ENGINEHEUR_RESULTS &&
      type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    if (count)
      *count = 1;
    if (requested < 1)
      return CUDNN_STATUS_SUCCESS;
    Descriptor *config =
        asDescriptor(static_cast<cudnnBackendDescriptor_t *>(values)[0]);
    if (!config || config->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)
      return fail(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                  "the heuristics' results go into engine configuration "
                  "descriptors");
    config->pattern = d->pattern;
    config->finalized = true;
    return CUDNN_STATUS_SUCCESS;
  }
  if (d->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR &&
      name == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE &&
      type == CUDNN_TYPE_INT64 && requested >= 1 && values) {
    *static_cast<int64_t *>(values) = d->workspace;
    if (count)
      *count = 1;
    return CUDNN_STATUS_SUCCESS;
  }
  return fail(CUDNN_STATUS_NOT_SUPPORTED,
              "reading attribute " + std::to_string(int(name)) +
                  " is not supported by the emulated cuDNN");
}

AMP_EMU_EXPORT cudnnStatus_t cudnnBackendExecute(
    cudnnHandle_t handle, cudnnBackendDescriptor_t planDescriptor,
    cudnnBackendDescriptor_t packDescriptor) {
  if (!handle)
    return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "null handle");
  Descriptor *plan = asDescriptor(planDescriptor);
  Descriptor *pack = asDescriptor(packDescriptor);
  if (!plan || plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || !pack ||
      pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
    return fail(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                "cudnnBackendExecute takes a plan and a variant pack");
  if (!plan->finalized || !pack->finalized)
    return fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                "cudnnBackendExecute with a descriptor not finalized");
  // On a stream being captured the execution is a node of the graph, on the
  // pack's pointers as they are now and its by-value scalars (pointers to
  // the caller's host memory) copied, as cuDNN reads them when the call is
  // captured.
  if (isCapturing(handle->stream)) {
    auto planNow = std::make_shared<Descriptor>(*plan);
    auto packNow = std::make_shared<Descriptor>(*pack);
    auto values = std::make_shared<std::vector<float>>();
    values->reserve(3); // their addresses are the pack's pointers
    const Pattern &p = *plan->pattern;
    for (const std::shared_ptr<Tensor> &t : {p.scale, p.negInf, p.one}) {
      auto it = t ? packNow->pointers.find(t->uid) : packNow->pointers.end();
      if (it == packNow->pointers.end() || !it->second)
        continue;
      values->push_back(*static_cast<const float *>(it->second));
      it->second = &values->back();
    }
    issue(handle->stream, [planNow, packNow, values] {
      if (execute(*planNow, *packNow) == CUDNN_STATUS_SUCCESS)
        return 0;
      std::lock_guard<std::mutex> lock(errorMutex());
      return failedNode("cudnnBackendExecute in a graph: " + lastError());
    });
    return CUDNN_STATUS_SUCCESS;
  }
  // Run now, like the kernels on the stream: in the order they were issued.
  if (!isStream(handle->stream))
    return fail(CUDNN_STATUS_BAD_PARAM, "the handle's stream is not a stream");
  return execute(*plan, *pack);
}
