//===- CudnnStandInCheck.cpp - the emulated cuDNN's own refusals ----------===//
//
// amp-cudnn-emulator-check EMULATOR.so MODE: calls the emulated cuDNN
// (lib/Runtime/Emulator/Cudnn.cpp) directly, with graphs and variant packs
// lib/Runtime/CUDAAttention.cpp never builds, to check that it refuses what
// cuDNN refuses with cuDNN's statuses (the runtime checks the rules before
// it builds a graph, so these paths cannot be reached through it). Device
// memory comes from the emulator build of the runtime, which opens the same
// library. Prints "STATUS (detail)" of the call that fails, or "ok".
//
//   pattern            a graph of one matmul
//   extra-op           the forward graph with one operation more
//   attribute-type     a tensor id set as INT32
//   missing-attribute  a tensor finalized without its id
//   plan-d264          the forward graph with head dimension 264 (R6)
//   plan-f32           the forward graph in f32 (R2)
//   plan-bshd          the forward graph with Q, K, V and O laid out
//                      [b, s, h, d] (strides s h d, d, h d, 1): runs
//   plan-r19           ... with Q's rows 68 elements apart (136 bytes, not
//                      a multiple of 16: R19)
//   plan-r4            ... with Q's head dimension not contiguous (R4)
//   run                the forward graph run with a good variant pack
//   missing-uid        ... without lse's pointer
//   misaligned         ... with Q 2 bytes into its buffer
//   out-of-bounds      ... with O in a buffer half its size
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DeviceRuntime.h"

#include <cudnn_graph.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

#define CHECK_FUNCTIONS(X)                                                     \
  X(cudnnGetErrorString)                                                       \
  X(cudnnGetLastErrorString)                                                   \
  X(cudnnCreate)                                                               \
  X(cudnnDestroy)                                                              \
  X(cudnnBackendCreateDescriptor)                                              \
  X(cudnnBackendSetAttribute)                                                  \
  X(cudnnBackendGetAttribute)                                                  \
  X(cudnnBackendFinalize)                                                      \
  X(cudnnBackendExecute)

struct API {
#define DECLARE(name) decltype(&::name) name = nullptr;
  CHECK_FUNCTIONS(DECLARE)
#undef DECLARE
} dnn;

using Desc = cudnnBackendDescriptor_t;
using Dims = std::vector<int64_t>;

/// The first failure, printed once; later calls do nothing.
bool failed = false;

bool check(cudnnStatus_t status, const char *what) {
  if (failed)
    return false;
  if (status == CUDNN_STATUS_SUCCESS)
    return true;
  char detail[1024] = {};
  dnn.cudnnGetLastErrorString(detail, sizeof(detail));
  std::printf("%s: %s (%s)\n", what, dnn.cudnnGetErrorString(status), detail);
  failed = true;
  return false;
}

Desc create(cudnnBackendDescriptorType_t type) {
  Desc d = nullptr;
  check(dnn.cudnnBackendCreateDescriptor(type, &d), "create");
  return d;
}

template <typename T>
void set(Desc d, cudnnBackendAttributeName_t name,
         cudnnBackendAttributeType_t type, const T *values, int64_t count = 1) {
  if (!failed)
    check(dnn.cudnnBackendSetAttribute(d, name, type, count, values),
          "set attribute");
}

int64_t nextVirtual = 100;

Dims dense(const Dims &dims) {
  Dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i)
    strides[i - 1] = strides[i] * dims[i];
  return strides;
}

Desc tensor(int64_t uid, cudnnDataType_t type, const Dims &dims,
            const Dims &strides, bool byValue = false) {
  bool isVirtual = uid == 0;
  if (isVirtual)
    uid = nextVirtual++;
  int64_t alignment = 16;
  Desc d = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type);
  set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 4);
  set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), 4);
  set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid);
  set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
  set(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &isVirtual);
  set(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &byValue);
  check(dnn.cudnnBackendFinalize(d), "finalize tensor");
  return d;
}

std::vector<Desc> ops;

void pointwise(cudnnPointwiseMode_t mode, Desc x, Desc b, Desc y) {
  cudnnDataType_t prec = CUDNN_DATA_FLOAT;
  Desc pw = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode);
  set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &prec);
  check(dnn.cudnnBackendFinalize(pw), "finalize pointwise");
  Desc op = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
      CUDNN_TYPE_BACKEND_DESCRIPTOR, &pw);
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      &x);
  if (b)
    set(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        &b);
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      &y);
  check(dnn.cudnnBackendFinalize(op), "finalize pointwise operation");
  ops.push_back(op);
}

void matmul(Desc a, Desc b, Desc c) {
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  Desc mm = create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
  check(dnn.cudnnBackendFinalize(mm), "finalize matmul");
  Desc op = create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &a);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &b);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &c);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &mm);
  check(dnn.cudnnBackendFinalize(op), "finalize matmul operation");
  ops.push_back(op);
}

void reduction(cudnnReduceTensorOp_t mode, Desc x, Desc y) {
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  Desc red = create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  set(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE,
      &mode);
  set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
  check(dnn.cudnnBackendFinalize(red), "finalize reduction");
  Desc op = create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      &x);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      &y);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      &red);
  check(dnn.cudnnBackendFinalize(op), "finalize reduction operation");
  ops.push_back(op);
}

/// The sizes of the forward graph below: b 1, h 2, s 16, head dimension d.
constexpr int64_t kB = 1, kH = 2, kS = 16;

/// CUDAAttention.cpp's forward graph (no mask, not causal): ids Q 1, K 2,
/// V 3, O 4, lse 5, scale 6. `extra` adds an exp nobody asked for;
/// `layout` is "dense", "bshd" (every I/O tensor), "r19" or "r4" (Q only;
/// see the modes above).
Desc forwardGraph(cudnnDataType_t io, int64_t d, bool extra,
                  const std::string &layout = "dense") {
  Dims q = {kB, kH, kS, d}, scores = {kB, kH, kS, kS}, rows = {kB, kH, kS, 1};
  Dims qs = dense(q);
  if (layout == "bshd")
    qs = {kS * kH * d, d, kH * d, 1};
  Dims kv = qs;
  if (layout == "r19")
    qs = {kH * kS * 68, kS * 68, 68, 1};
  if (layout == "r4")
    qs = {kH * kS * d, kS * d, 1, kS};
  Desc Q = tensor(1, io, q, qs);
  Desc KT = tensor(2, io, {kB, kH, d, kS}, {kv[0], kv[1], kv[3], kv[2]});
  Desc V = tensor(3, io, q, kv), O = tensor(4, io, q, kv);
  Desc lse = tensor(5, CUDNN_DATA_FLOAT, rows, dense(rows));
  Desc scale = tensor(6, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, true);
  auto s = [&](cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    return tensor(0, type, scores, dense(scores));
  };
  auto r = [&] { return tensor(0, CUDNN_DATA_FLOAT, rows, dense(rows)); };
  Desc s0 = s(), s1 = s(), mx = r(), t = s(), e = s(), z = r(), lz = r(),
       p = s(io);
  matmul(Q, KT, s0);
  pointwise(CUDNN_POINTWISE_MUL, s0, scale, s1);
  reduction(CUDNN_REDUCE_TENSOR_MAX, s1, mx);
  pointwise(CUDNN_POINTWISE_SUB, s1, mx, t);
  pointwise(CUDNN_POINTWISE_EXP, t, nullptr, e);
  reduction(CUDNN_REDUCE_TENSOR_ADD, e, z);
  pointwise(CUDNN_POINTWISE_LOG, z, nullptr, lz);
  pointwise(CUDNN_POINTWISE_ADD, mx, lz, lse);
  pointwise(CUDNN_POINTWISE_DIV, e, z, p);
  matmul(p, V, O);
  if (extra)
    pointwise(CUDNN_POINTWISE_EXP, t, nullptr, s());
  Desc graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      ops.data(), int64_t(ops.size()));
  check(dnn.cudnnBackendFinalize(graph), "finalize graph");
  return graph;
}

/// Heuristics, then a plan of the first configuration.
Desc plan(cudnnHandle_t handle, Desc graph) {
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  Desc heur = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
      CUDNN_TYPE_BACKEND_DESCRIPTOR, &graph);
  set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode);
  check(dnn.cudnnBackendFinalize(heur), "finalize heuristics");
  Desc config = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  int64_t count = 0;
  if (!failed)
    check(dnn.cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count,
                                       &config),
          "heuristics results");
  Desc plan = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle);
  set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
      CUDNN_TYPE_BACKEND_DESCRIPTOR, &config);
  check(dnn.cudnnBackendFinalize(plan), "finalize plan");
  return plan;
}

/// Runs the forward (d 64, bf16) with the variant pack `mode` spoils.
void run(cudnnHandle_t handle, Desc graph, const std::string &mode) {
  Desc p = plan(handle, graph);
  int64_t workspaceBytes = 0, got = 0;
  if (!failed)
    check(dnn.cudnnBackendGetAttribute(
              p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
              &got, &workspaceBytes),
          "workspace size");
  const amp_device_ops &ops = *amp_cuda_device_ops();
  size_t bytes = size_t(kB * kH * kS * 64) * 2;
  std::vector<char> zeros(bytes, 0);
  char *buffers[4];
  for (char *&buffer : buffers) {
    buffer = static_cast<char *>(ops.alloc(bytes + 16));
    ops.copy_to_device(buffer, zeros.data(), bytes);
  }
  void *out = mode == "out-of-bounds" ? ops.alloc(bytes / 2) : buffers[3];
  void *lse = ops.alloc(size_t(kB * kH * kS) * 4);
  void *workspace = ops.alloc(size_t(workspaceBytes));
  float scale = 0.125f;
  std::vector<int64_t> uids = {1, 2, 3, 4, 5, 6};
  std::vector<void *> pointers = {mode == "misaligned" ? buffers[0] + 2
                                                       : buffers[0],
                                  buffers[1],
                                  buffers[2],
                                  out,
                                  lse,
                                  &scale};
  if (mode == "missing-uid") {
    uids.erase(uids.begin() + 4);
    pointers.erase(pointers.begin() + 4);
  }
  Desc pack = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(),
      int64_t(uids.size()));
  set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
      pointers.data(), int64_t(pointers.size()));
  set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace);
  check(dnn.cudnnBackendFinalize(pack), "finalize variant pack");
  if (!failed)
    check(dnn.cudnnBackendExecute(handle, p, pack), "execute");
  if (!failed) {
    // Zero inputs: every score is 0, so lse = log(s_kv) and out = 0.
    std::vector<float> lses(size_t(kB * kH * kS));
    ops.copy_to_host(lses.data(), lse, lses.size() * 4);
    bool ok = true;
    for (float value : lses)
      ok &= std::fabs(value - std::log(float(kS))) < 1e-6f;
    std::printf("lse = log(16) everywhere: %s\n", ok ? "ok" : "FAIL");
    failed = !ok;
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EMULATOR.so MODE\n", argv[0]);
    return 2;
  }
  std::string mode = argv[2];
  if (amp_cuda_device_ops()->init() != 0) {
    std::printf("error: %s\n", amp_cuda_device_ops()->last_error());
    return 1;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::printf("error: %s\n", dlerror());
    return 1;
  }
#define RESOLVE(name)                                                          \
  dnn.name = reinterpret_cast<decltype(dnn.name)>(dlsym(library, #name));      \
  if (!dnn.name) {                                                             \
    std::printf("error: no " #name "\n");                                      \
    return 1;                                                                  \
  }
  CHECK_FUNCTIONS(RESOLVE)
#undef RESOLVE
  cudnnHandle_t handle = nullptr;
  check(dnn.cudnnCreate(&handle), "create handle");
  if (mode == "pattern") {
    Dims dims = {1, 1, 16, 16};
    Desc a = tensor(1, CUDNN_DATA_BFLOAT16, dims, dense(dims)),
         b = tensor(2, CUDNN_DATA_BFLOAT16, dims, dense(dims)),
         c = tensor(3, CUDNN_DATA_FLOAT, dims, dense(dims));
    matmul(a, b, c);
    Desc graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        ops.data(), int64_t(ops.size()));
    check(dnn.cudnnBackendFinalize(graph), "finalize graph");
  } else if (mode == "extra-op") {
    forwardGraph(CUDNN_DATA_BFLOAT16, 64, true);
  } else if (mode == "attribute-type") {
    Desc t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int32_t uid = 1;
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT32, &uid);
  } else if (mode == "missing-attribute") {
    Desc t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    int64_t dims[4] = {1, 1, 1, 1}, alignment = 16;
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type);
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims, 4);
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, dims, 4);
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
    check(dnn.cudnnBackendFinalize(t), "finalize tensor");
  } else if (mode == "plan-d264") {
    plan(handle, forwardGraph(CUDNN_DATA_BFLOAT16, 264, false));
  } else if (mode == "plan-f32") {
    plan(handle, forwardGraph(CUDNN_DATA_FLOAT, 64, false));
  } else if (mode == "plan-bshd" || mode == "plan-r19" || mode == "plan-r4") {
    plan(handle, forwardGraph(CUDNN_DATA_BFLOAT16, 64, false, mode.substr(5)));
  } else if (mode == "run" || mode == "missing-uid" || mode == "misaligned" ||
             mode == "out-of-bounds") {
    run(handle, forwardGraph(CUDNN_DATA_BFLOAT16, 64, false), mode);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  if (!failed)
    std::printf("ok\n");
  dnn.cudnnDestroy(handle);
  return failed ? 1 : 0;
}
