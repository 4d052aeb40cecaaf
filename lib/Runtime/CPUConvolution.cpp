//===- CPUConvolution.cpp - f32 convolutions on oneDNN --------------------===//
//
// amp_cpu_conv2d_* (CPUConvolution.h): convolutions and their gradients on
// oneDNN's kernels (what PyTorch's CPU convolutions run), with results that
// do not depend on the thread count. oneDNN threaded by itself does not
// promise that: its weight gradient sums partial results of threads, and
// how it blocks a convolution depends on how many threads it plans for. So
// a convolution is cut into pieces fixed by its shape (ranges of images, or
// of channels: whole groups when grouped), each piece is one oneDNN
// primitive created and run with one OpenMP thread, and the pieces run on
// the model runtime's threads (amp_cpu_parallel_for). A weight gradient is
// also cut into blocks of images fixed by the shape: each block's partial
// gradient is one oneDNN sum (at most kBlockTerms terms per element where
// an image allows), and the partials are added in a fixed pairwise tree.
// One oneDNN sum over all images and positions rounded too much (the CNN
// example's AdamW run left its tolerance); the tree's order does not
// depend on the threads either.
//
// Each piece reads its part of the dense NCHW / OIHW buffers through
// strided oneDNN descriptors, reorders it into the layout the primitive
// chose (channel-blocked on AVX-512), runs it, and reorders the result back.
// Primitives and reorders are created once per shape and kept.
//
// Their scratchpads (the strided 1x1 kernels' compacted input, say) are the
// running thread's own (user scratchpad mode). oneDNN's own scratchpads
// belong to the primitive, or to the thread that created it, and the
// pieces of one call run one primitive on several threads at once: they
// overwrote each other's scratchpad (ResNet-50's downsample convolutions
// came out wrong at 2 threads; oneDNN's scratchpad guide allows neither).
//
// libdnnl.so.2 (Debian's libdnnl-dev, oneDNN 2.6: the C API of 2.x, whose
// memory descriptors are plain structs) is opened with dlopen on the first
// call: model libraries link amp's archives and the BLAS only, and a step
// without convolutions never loads oneDNN.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/CPUConvolution.h"
#include "amp/Runtime/ParallelFor.h"

// Types and enums only: the functions come from dlsym.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace {

[[noreturn]] void fail(const char *function, const std::string &why) {
  std::fprintf(stderr, "amp: %s: %s\n", function, why.c_str());
  std::abort();
}

#define AMP_DNNL_FUNCTIONS(X)                                                  \
  X(dnnl_engine_create)                                                        \
  X(dnnl_stream_create)                                                        \
  X(dnnl_stream_wait)                                                          \
  X(dnnl_stream_destroy)                                                       \
  X(dnnl_memory_desc_init_by_tag)                                              \
  X(dnnl_memory_desc_init_by_strides)                                          \
  X(dnnl_memory_desc_equal)                                                    \
  X(dnnl_memory_desc_get_size)                                                 \
  X(dnnl_memory_create)                                                        \
  X(dnnl_memory_destroy)                                                       \
  X(dnnl_dilated_convolution_forward_desc_init)                                \
  X(dnnl_dilated_convolution_backward_data_desc_init)                          \
  X(dnnl_dilated_convolution_backward_weights_desc_init)                       \
  X(dnnl_primitive_attr_create)                                                \
  X(dnnl_primitive_attr_destroy)                                               \
  X(dnnl_primitive_attr_set_fpmath_mode)                                       \
  X(dnnl_primitive_attr_set_scratchpad_mode)                                   \
  X(dnnl_primitive_desc_create)                                                \
  X(dnnl_primitive_desc_query_md)                                              \
  X(dnnl_primitive_desc_destroy)                                               \
  X(dnnl_reorder_primitive_desc_create)                                        \
  X(dnnl_primitive_create)                                                     \
  X(dnnl_primitive_execute)

/// The oneDNN functions amp calls, and the CPU engine.
struct Library {
#define AMP_DNNL_MEMBER(name) decltype(&::name) name = nullptr;
  AMP_DNNL_FUNCTIONS(AMP_DNNL_MEMBER)
#undef AMP_DNNL_MEMBER
  // OpenMP's, from the libgomp libdnnl is linked with.
  int (*omp_get_max_threads)() = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;
  dnnl_engine_t engine = nullptr;
};

/// Loads `lib`; an empty string, or why it cannot be.
std::string load(Library &lib) {
  void *handle = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    return std::string("cannot open oneDNN (libdnnl.so.2, Debian's "
                       "libdnnl2; scripts/setup.sh installs it): ") +
           (error ? error : "unknown error");
  }
#define AMP_DNNL_LOAD(name)                                                    \
  lib.name = reinterpret_cast<decltype(lib.name)>(dlsym(handle, #name));       \
  if (!lib.name)                                                               \
    return "libdnnl.so.2 has no " #name " (amp needs oneDNN 2.x)";
  AMP_DNNL_FUNCTIONS(AMP_DNNL_LOAD)
#undef AMP_DNNL_LOAD
  // dlsym on the handle also searches the libraries it depends on.
  lib.omp_get_max_threads =
      reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_max_threads"));
  lib.omp_set_num_threads =
      reinterpret_cast<void (*)(int)>(dlsym(handle, "omp_set_num_threads"));
  if (!lib.omp_get_max_threads || !lib.omp_set_num_threads)
    return "libdnnl.so.2 is not the OpenMP build amp expects (no "
           "omp_set_num_threads among its libraries)";
  if (lib.dnnl_engine_create(&lib.engine, dnnl_cpu, 0) != dnnl_success)
    return "oneDNN cannot create its CPU engine";
  return "";
}

const Library &library(const char *function) {
  static Library lib;
  static std::string error;
  static std::once_flag loaded;
  std::call_once(loaded, [] { error = load(lib); });
  if (!error.empty())
    fail(function, error);
  return lib;
}

/// oneDNN's OpenMP build sizes its primitives and runs them on
/// omp_get_max_threads() of the calling thread: one, while this lives. The
/// thread's previous setting is put back, for OpenMP code of the host
/// process (PyTorch's, in Python).
class OneOpenMPThread {
public:
  explicit OneOpenMPThread(const Library &lib)
      : lib(lib), saved(lib.omp_get_max_threads()) {
    if (saved != 1)
      lib.omp_set_num_threads(1);
  }
  ~OneOpenMPThread() {
    if (saved != 1)
      lib.omp_set_num_threads(saved);
  }
  OneOpenMPThread(const OneOpenMPThread &) = delete;
  OneOpenMPThread &operator=(const OneOpenMPThread &) = delete;

private:
  const Library &lib;
  int saved;
};

enum Direction : int64_t { kForward, kBackwardData, kBackwardWeights };

/// The calls' shared arguments.
struct Geometry {
  int64_t n, c, h, w, o, kh, kw, oh, ow, sh, sw, pt, pl, pb, pr, dh, dw, g;

  int64_t cg() const { return c / g; }
  int64_t og() const { return o / g; }
  std::array<int64_t, 18> fields() const {
    return {n, c, h, w, o, kh, kw, oh, ow, sh, sw, pt, pl, pb, pr, dh, dw, g};
  }
};

/// One piece: images [n0, n0 + nc), groups [g0, g0 + gc), and within each
/// group output channels [o0, o0 + oc) and input channels [c0, c0 + cc).
/// Either gc == 1 (then g == 1) or the channel ranges are whole.
struct Piece {
  int64_t n0, nc, g0, gc, o0, oc, c0, cc;
};

/// How a convolution is cut: `count` pieces of `extent` images (or channel
/// units: channels when g == 1, else groups), the last one shorter. A
/// weight gradient's channel pieces are each cut again into `blocks`
/// blocks of `blockImages` images (the last one shorter), whose partial
/// gradients are summed.
struct Plan {
  bool byImages;
  int64_t total, extent, count;
  int64_t blockImages = 0, blocks = 1;
};

/// A piece holds at least this many multiply-adds (about 50 us of one
/// AVX-512 core), and a convolution has at most kMaxPieces: enough for 16
/// threads on large layers, few enough that what every piece reads again
/// (the weights, or the other operand) and each primitive's fixed cost stay
/// small. Channel ranges are multiples of kChannelBlock (oneDNN's AVX-512
/// channel block).
constexpr int64_t kPieceMacs = int64_t(1) << 22;
constexpr int64_t kMaxPieces = 16;
constexpr int64_t kChannelBlock = 16;
/// A weight gradient's image blocks: each element of a block's partial
/// gradient sums at most this many products per weight position (whole
/// images, at least one), and there are at most kMaxBlocks blocks (the
/// partials take kMaxBlocks - 1 copies of the weights).
constexpr int64_t kBlockTerms = 1024;
constexpr int64_t kMaxBlocks = 16;

Plan makePlan(const Geometry &s, Direction direction) {
  int64_t macs = s.n * s.o * s.oh * s.ow * s.cg() * s.kh * s.kw;
  int64_t blockImages = 0, blocks = 1;
  if (direction == kBackwardWeights) {
    blockImages = std::max<int64_t>(1, kBlockTerms / (s.oh * s.ow));
    blockImages = std::max(blockImages, (s.n + kMaxBlocks - 1) / kMaxBlocks);
    blocks = (s.n + blockImages - 1) / blockImages;
  }
  int64_t wanted =
      std::clamp<int64_t>(macs / kPieceMacs / blocks, 1, kMaxPieces);
  auto cut = [&](bool byImages, int64_t total, int64_t align) {
    int64_t units = (total + align - 1) / align;
    int64_t count = std::min(wanted, units);
    int64_t extent = (units + count - 1) / count * align;
    return Plan{byImages, total, extent, (total + extent - 1) / extent};
  };
  // Channels: the output's for the forward and the weight gradient, the
  // input's for the input gradient; whole groups when grouped.
  int64_t perGroup = direction == kBackwardData ? s.cg() : s.og();
  Plan channels =
      s.g == 1
          ? cut(false, perGroup, kChannelBlock)
          : cut(false, s.g, std::max<int64_t>(1, kChannelBlock / perGroup));
  // The weight gradient's images are cut into blocks of their own.
  if (direction == kBackwardWeights) {
    channels.blockImages = blockImages;
    channels.blocks = blocks;
    return channels;
  }
  Plan images = cut(true, s.n, 1);
  // The most pieces (up to `wanted`), then the least read again: every
  // image piece reads all weights, every channel piece the whole other
  // operand (the input, or the output gradient).
  int64_t best = std::min(wanted, std::max(channels.count, images.count));
  if (channels.count < best)
    return images;
  if (images.count < best)
    return channels;
  int64_t weights = s.o * s.cg() * s.kh * s.kw;
  int64_t other =
      direction == kForward ? s.n * s.c * s.h * s.w : s.n * s.o * s.oh * s.ow;
  return (images.count - 1) * weights < (channels.count - 1) * other ? images
                                                                     : channels;
}

Piece pieceOf(const Geometry &s, Direction direction, const Plan &plan,
              int64_t i) {
  int64_t begin = i * plan.extent;
  int64_t size = std::min(plan.extent, plan.total - begin);
  Piece p{0, s.n, 0, s.g, 0, s.og(), 0, s.cg()};
  if (plan.byImages) {
    p.n0 = begin;
    p.nc = size;
  } else if (s.g > 1) {
    p.g0 = begin;
    p.gc = size;
  } else if (direction == kBackwardData) {
    p.c0 = begin;
    p.cc = size;
  } else {
    p.o0 = begin;
    p.oc = size;
  }
  return p;
}

/// A primitive's operand: the piece of the caller's buffer (strided), the
/// layout the primitive works in, and the reorder between them (null when
/// they are the same) with the scratchpad it needs.
struct Operand {
  int arg = 0;
  bool output = false;
  dnnl_memory_desc_t user{}, internal{}, scratchpad{};
  dnnl_primitive_t reorder = nullptr;
  size_t bytes = 0;
};

/// The primitive of one piece shape, its scratchpad and its operands, in
/// the order of Pointers below. `scratchpadBytes`: the most any of its
/// primitives (convolution, reorders) needs; they run one after the other
/// on one thread and share that thread's scratchpad.
struct Entry {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_desc_t scratchpad{};
  size_t scratchpadBytes = 0;
  int operands = 0;
  Operand operand[4];
};

/// The scratchpad descriptor of `pd` (size 0 when it needs none).
dnnl_memory_desc_t scratchpadOf(const Library &lib, dnnl_primitive_desc_t pd) {
  const dnnl_memory_desc_t *md =
      lib.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  return md ? *md : dnnl_memory_desc_t{};
}

/// The caller's buffers, in the operand order of each direction:
/// forward: input, weight, output, bias; backward data: grad, weight,
/// input_grad; backward weights: grad, input, weight_grad.
struct Pointers {
  const float *in[3] = {nullptr, nullptr, nullptr};
  float *out = nullptr;
};

void check(const char *function, dnnl_status_t status, const char *what) {
  if (status != dnnl_success)
    fail(function, std::string("oneDNN failed to ") + what + " (status " +
                       std::to_string(int(status)) + ")");
}

/// Descriptors of a piece of a dense tensor: `dims` of a tensor whose
/// row-major strides come from `full`.
dnnl_memory_desc_t strided(const Library &lib, const char *function,
                           std::initializer_list<int64_t> dims,
                           std::initializer_list<int64_t> full) {
  dnnl_dims_t d{}, strides{};
  int rank = int(dims.size());
  std::copy(dims.begin(), dims.end(), d);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= full.begin()[i];
  }
  dnnl_memory_desc_t md;
  check(function,
        lib.dnnl_memory_desc_init_by_strides(&md, rank, d, dnnl_f32, strides),
        "describe a buffer");
  return md;
}

dnnl_memory_desc_t anyLayout(const Library &lib, const char *function,
                             const dnnl_memory_desc_t &user) {
  dnnl_memory_desc_t md;
  check(function,
        lib.dnnl_memory_desc_init_by_tag(&md, user.ndims, user.dims, dnnl_f32,
                                         dnnl_format_tag_any),
        "describe a buffer");
  return md;
}

/// The user descriptors of piece `p`: input (or its gradient), weight (or
/// its gradient), output (or its gradient), bias.
struct UserDescs {
  dnnl_memory_desc_t src, weights, dst, bias;
};

UserDescs userDescs(const Library &lib, const char *function, const Geometry &s,
                    const Piece &p) {
  UserDescs d;
  d.src = strided(lib, function, {p.nc, p.gc * p.cc, s.h, s.w},
                  {s.n, s.c, s.h, s.w});
  d.dst = strided(lib, function, {p.nc, p.gc * p.oc, s.oh, s.ow},
                  {s.n, s.o, s.oh, s.ow});
  d.weights = s.g == 1 ? strided(lib, function, {p.oc, p.cc, s.kh, s.kw},
                                 {s.o, s.c, s.kh, s.kw})
                       : strided(lib, function, {p.gc, p.oc, p.cc, s.kh, s.kw},
                                 {s.g, s.og(), s.cg(), s.kh, s.kw});
  d.bias = strided(lib, function, {p.gc * p.oc}, {s.o});
  return d;
}

/// Where piece `p` starts in each buffer, in elements.
int64_t srcOffset(const Geometry &s, const Piece &p) {
  return (p.n0 * s.c + p.g0 * s.cg() + p.c0) * s.h * s.w;
}
int64_t dstOffset(const Geometry &s, const Piece &p) {
  return (p.n0 * s.o + p.g0 * s.og() + p.o0) * s.oh * s.ow;
}
int64_t weightsOffset(const Geometry &s, const Piece &p) {
  return ((p.g0 * s.og() + p.o0) * s.cg() + p.c0) * s.kh * s.kw;
}

class Cache {
public:
  /// The entry of piece `p` of a convolution, created on first use.
  const Entry &get(const Library &lib, const char *function, const Geometry &s,
                   Direction direction, bool bias, const Piece &p) {
    std::array<int64_t, 24> key{};
    std::array<int64_t, 18> fields = s.fields();
    std::copy(fields.begin(), fields.end(), key.begin());
    key[18] = direction;
    key[19] = bias;
    key[20] = p.nc;
    key[21] = p.gc;
    key[22] = p.oc;
    key[23] = p.cc;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<Entry> &entry = entries[key];
    if (!entry)
      entry = create(lib, function, s, direction, bias, p);
    return *entry;
  }

private:
  static std::unique_ptr<Entry> create(const Library &lib, const char *function,
                                       const Geometry &s, Direction direction,
                                       bool bias, const Piece &p);

  std::mutex mutex;
  std::map<std::array<int64_t, 24>, std::unique_ptr<Entry>> entries;
};

std::unique_ptr<Entry> Cache::create(const Library &lib, const char *function,
                                     const Geometry &s, Direction direction,
                                     bool bias, const Piece &p) {
  OneOpenMPThread one(lib);
  UserDescs user = userDescs(lib, function, s, p);
  dnnl_memory_desc_t src = anyLayout(lib, function, user.src);
  dnnl_memory_desc_t weights = anyLayout(lib, function, user.weights);
  dnnl_memory_desc_t dst = anyLayout(lib, function, user.dst);
  dnnl_memory_desc_t biasAny = anyLayout(lib, function, user.bias);
  // oneDNN counts dilation from 0.
  dnnl_dims_t strides{s.sh, s.sw}, dilates{s.dh - 1, s.dw - 1},
      padL{s.pt, s.pl}, padR{s.pb, s.pr};

  // fpmath strict: f32 arithmetic whatever ONEDNN_DEFAULT_FPMATH_MODE says.
  // Scratchpads passed by runPiece, from the thread that runs the piece.
  dnnl_primitive_attr_t attr;
  check(function, lib.dnnl_primitive_attr_create(&attr), "create attributes");
  check(function,
        lib.dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict),
        "set the f32 math mode");
  check(function,
        lib.dnnl_primitive_attr_set_scratchpad_mode(attr,
                                                    dnnl_scratchpad_mode_user),
        "ask for scratchpads of amp's own");

  dnnl_convolution_desc_t forward;
  check(function,
        lib.dnnl_dilated_convolution_forward_desc_init(
            &forward, dnnl_forward_training, dnnl_convolution_direct, &src,
            &weights, direction == kForward && bias ? &biasAny : nullptr, &dst,
            strides, dilates, padL, padR),
        "describe the convolution (its shapes disagree?)");
  dnnl_primitive_desc_t forwardPd;
  check(function,
        lib.dnnl_primitive_desc_create(&forwardPd, &forward, attr, lib.engine,
                                       nullptr),
        "create the forward convolution");
  dnnl_primitive_desc_t pd = forwardPd;
  if (direction != kForward) {
    dnnl_convolution_desc_t backward;
    if (direction == kBackwardData)
      check(function,
            lib.dnnl_dilated_convolution_backward_data_desc_init(
                &backward, dnnl_convolution_direct, &src, &weights, &dst,
                strides, dilates, padL, padR),
            "describe the input gradient");
    else
      check(function,
            lib.dnnl_dilated_convolution_backward_weights_desc_init(
                &backward, dnnl_convolution_direct, &src, &weights, nullptr,
                &dst, strides, dilates, padL, padR),
            "describe the weight gradient");
    check(function,
          lib.dnnl_primitive_desc_create(&pd, &backward, attr, lib.engine,
                                         forwardPd),
          "create the convolution gradient");
  }

  auto entry = std::make_unique<Entry>();
  auto add = [&](int arg, dnnl_query_t query, const dnnl_memory_desc_t &mine,
                 bool output, int index = 0) {
    Operand &op = entry->operand[entry->operands++];
    op.arg = arg;
    op.output = output;
    op.user = mine;
    op.internal = *lib.dnnl_primitive_desc_query_md(pd, query, index);
    op.bytes = lib.dnnl_memory_desc_get_size(&op.internal);
    if (lib.dnnl_memory_desc_equal(&op.user, &op.internal))
      return;
    dnnl_primitive_desc_t reorderPd;
    check(function,
          output
              ? lib.dnnl_reorder_primitive_desc_create(&reorderPd, &op.internal,
                                                       lib.engine, &op.user,
                                                       lib.engine, attr)
              : lib.dnnl_reorder_primitive_desc_create(&reorderPd, &op.user,
                                                       lib.engine, &op.internal,
                                                       lib.engine, attr),
          "create a reorder");
    check(function, lib.dnnl_primitive_create(&op.reorder, reorderPd),
          "create a reorder");
    op.scratchpad = scratchpadOf(lib, reorderPd);
    entry->scratchpadBytes = std::max(
        entry->scratchpadBytes, lib.dnnl_memory_desc_get_size(&op.scratchpad));
    lib.dnnl_primitive_desc_destroy(reorderPd);
  };
  switch (direction) {
  case kForward:
    add(DNNL_ARG_SRC, dnnl_query_src_md, user.src, false);
    add(DNNL_ARG_WEIGHTS, dnnl_query_weights_md, user.weights, false);
    add(DNNL_ARG_DST, dnnl_query_dst_md, user.dst, true);
    if (bias) // the forward's second weights descriptor
      add(DNNL_ARG_BIAS, dnnl_query_weights_md, user.bias, false, 1);
    break;
  case kBackwardData:
    add(DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, user.dst, false);
    add(DNNL_ARG_WEIGHTS, dnnl_query_weights_md, user.weights, false);
    add(DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md, user.src, true);
    break;
  case kBackwardWeights:
    add(DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, user.dst, false);
    add(DNNL_ARG_SRC, dnnl_query_src_md, user.src, false);
    add(DNNL_ARG_DIFF_WEIGHTS, dnnl_query_diff_weights_md, user.weights, true);
    break;
  }
  check(function, lib.dnnl_primitive_create(&entry->primitive, pd),
        "create the convolution");
  entry->scratchpad = scratchpadOf(lib, pd);
  entry->scratchpadBytes =
      std::max(entry->scratchpadBytes,
               lib.dnnl_memory_desc_get_size(&entry->scratchpad));
  if (pd != forwardPd)
    lib.dnnl_primitive_desc_destroy(pd);
  lib.dnnl_primitive_desc_destroy(forwardPd);
  lib.dnnl_primitive_attr_destroy(attr);
  return entry;
}

Cache &cache() {
  static Cache *instance = new Cache; // kept to the end of the process
  return *instance;
}

/// A thread's oneDNN stream, the buffers its pieces are reordered into
/// (one per operand) and its scratchpad (the last).
struct ThreadState {
  static constexpr int kScratchpad = 4;
  dnnl_stream_t stream = nullptr;
  struct Buffer {
    void *data = nullptr;
    size_t bytes = 0;
  } buffers[kScratchpad + 1];

  void *buffer(int i, size_t bytes) {
    Buffer &b = buffers[i];
    if (b.bytes < bytes) {
      std::free(b.data);
      b.bytes = (bytes + 63) / 64 * 64;
      b.data = std::aligned_alloc(64, b.bytes);
    }
    return b.data;
  }
  ~ThreadState() {
    for (Buffer &b : buffers)
      std::free(b.data);
    // The stream is left to the process's end: oneDNN may be gone by the
    // time a thread's destructors run at exit.
  }
};

thread_local ThreadState threadState;

/// Runs one piece: its inputs reordered in, the primitive, its output
/// reordered out.
void runPiece(const Library &lib, const char *function, const Entry &entry,
              const Geometry &s, Direction direction, const Piece &p,
              const Pointers &ptrs) {
  ThreadState &state = threadState;
  if (!state.stream)
    check(function,
          lib.dnnl_stream_create(&state.stream, lib.engine,
                                 dnnl_stream_default_flags),
          "create a stream");
  // Each operand's place in the caller's buffer.
  const void *user[4] = {};
  switch (direction) {
  case kForward:
    user[0] = ptrs.in[0] + srcOffset(s, p);
    user[1] = ptrs.in[1] + weightsOffset(s, p);
    user[2] = ptrs.out + dstOffset(s, p);
    user[3] = ptrs.in[2] ? ptrs.in[2] + p.g0 * s.og() + p.o0 : nullptr;
    break;
  case kBackwardData:
    user[0] = ptrs.in[0] + dstOffset(s, p);
    user[1] = ptrs.in[1] + weightsOffset(s, p);
    user[2] = ptrs.out + srcOffset(s, p);
    break;
  case kBackwardWeights:
    user[0] = ptrs.in[0] + dstOffset(s, p);
    user[1] = ptrs.in[1] + srcOffset(s, p);
    user[2] = ptrs.out + weightsOffset(s, p);
    break;
  }
  dnnl_memory_t users[4] = {}, internals[4] = {};
  dnnl_exec_arg_t args[5];
  // Each primitive's view of the thread's scratchpad (at most the
  // convolution's and one reorder per operand).
  void *scratch = entry.scratchpadBytes ? state.buffer(ThreadState::kScratchpad,
                                                       entry.scratchpadBytes)
                                        : nullptr;
  dnnl_memory_t scratchpads[5] = {};
  int scratchpadCount = 0;
  auto run = [&](dnnl_primitive_t primitive,
                 const dnnl_memory_desc_t &scratchpad, int count,
                 dnnl_exec_arg_t *primitiveArgs, const char *what) {
    if (lib.dnnl_memory_desc_get_size(&scratchpad)) {
      dnnl_memory_t &memory = scratchpads[scratchpadCount++];
      check(function,
            lib.dnnl_memory_create(&memory, &scratchpad, lib.engine, scratch),
            "wrap a scratchpad");
      primitiveArgs[count++] = {DNNL_ARG_SCRATCHPAD, memory};
    }
    check(function,
          lib.dnnl_primitive_execute(primitive, state.stream, count,
                                     primitiveArgs),
          what);
  };
  for (int i = 0; i < entry.operands; ++i) {
    const Operand &op = entry.operand[i];
    check(function,
          lib.dnnl_memory_create(&users[i], &op.user, lib.engine,
                                 const_cast<void *>(user[i])),
          "wrap a buffer");
    dnnl_memory_t used = users[i];
    if (op.reorder) {
      check(function,
            lib.dnnl_memory_create(&internals[i], &op.internal, lib.engine,
                                   state.buffer(i, op.bytes)),
            "wrap a buffer");
      used = internals[i];
      if (!op.output) {
        dnnl_exec_arg_t reorderArgs[3] = {{DNNL_ARG_FROM, users[i]},
                                          {DNNL_ARG_TO, internals[i]}};
        run(op.reorder, op.scratchpad, 2, reorderArgs, "reorder an operand");
      }
    }
    args[i] = {op.arg, used};
  }
  run(entry.primitive, entry.scratchpad, entry.operands, args,
      "run the convolution");
  for (int i = 0; i < entry.operands; ++i) {
    const Operand &op = entry.operand[i];
    if (!op.output || !op.reorder)
      continue;
    dnnl_exec_arg_t reorderArgs[3] = {{DNNL_ARG_FROM, internals[i]},
                                      {DNNL_ARG_TO, users[i]}};
    run(op.reorder, op.scratchpad, 2, reorderArgs, "reorder the result");
  }
  check(function, lib.dnnl_stream_wait(state.stream), "finish");
  for (int i = 0; i < scratchpadCount; ++i)
    lib.dnnl_memory_destroy(scratchpads[i]);
  for (int i = 0; i < entry.operands; ++i) {
    lib.dnnl_memory_destroy(users[i]);
    if (internals[i])
      lib.dnnl_memory_destroy(internals[i]);
  }
}

/// One call: its pieces' entries (the full pieces' and the last one's) and
/// buffers, shared by the tasks.
/// One call: its plan and buffers, shared by the tasks. Task i is channel
/// piece i % plan.count of image block i / plan.count; block b writes its
/// partial weight gradient to partials[b] (block 0 to the result).
struct Call {
  const Library *lib;
  const char *function;
  Geometry shape;
  Direction direction;
  bool bias;
  Plan plan;
  Pointers ptrs;
  std::vector<float *> partials;
};

void runPieces(void *context, int64_t lo, int64_t hi) {
  const Call &call = *static_cast<const Call *>(context);
  OneOpenMPThread one(*call.lib);
  for (int64_t i = lo; i < hi; ++i) {
    Piece p =
        pieceOf(call.shape, call.direction, call.plan, i % call.plan.count);
    Pointers ptrs = call.ptrs;
    if (call.plan.blocks > 1) {
      int64_t block = i / call.plan.count;
      p.n0 = block * call.plan.blockImages;
      p.nc = std::min(call.plan.blockImages, call.shape.n - p.n0);
      ptrs.out = call.partials[block];
    }
    runPiece(*call.lib, call.function,
             cache().get(*call.lib, call.function, call.shape, call.direction,
                         call.bias, p),
             call.shape, call.direction, p, ptrs);
  }
}

/// Adds the partial weight gradients of elements [lo, hi) into the first
/// in a fixed pairwise tree: ((p0 + p1) + (p2 + p3)) + ...
void sumPartials(void *context, int64_t lo, int64_t hi) {
  const Call &call = *static_cast<const Call *>(context);
  int64_t blocks = int64_t(call.partials.size());
  for (int64_t stride = 1; stride < blocks; stride *= 2)
    for (int64_t b = 0; b + stride < blocks; b += 2 * stride) {
      float *to = call.partials[b];
      const float *from = call.partials[b + stride];
      for (int64_t e = lo; e < hi; ++e)
        to[e] += from[e];
    }
}

void convolve(const char *function, const Geometry &s, Direction direction,
              const Pointers &ptrs) {
  if (s.n <= 0 || s.o <= 0 || s.c <= 0 || s.oh <= 0 || s.ow <= 0 || s.h <= 0 ||
      s.w <= 0)
    return;
  if (s.g <= 0 || s.c % s.g || s.o % s.g)
    fail(function, "groups must divide the input and output channels");
  const Library &lib = library(function);
  Call call{&lib,
            function,
            s,
            direction,
            direction == kForward && ptrs.in[2],
            makePlan(s, direction),
            ptrs,
            {}};
  int64_t tasks = call.plan.count * call.plan.blocks;
  if (tasks == 1) {
    runPieces(&call, 0, 1);
    return;
  }
  int64_t size = s.o * s.cg() * s.kh * s.kw;
  std::unique_ptr<float[]> partials;
  if (call.plan.blocks > 1) {
    partials.reset(new float[(call.plan.blocks - 1) * size]);
    call.partials.push_back(ptrs.out);
    for (int64_t b = 1; b < call.plan.blocks; ++b)
      call.partials.push_back(partials.get() + (b - 1) * size);
  }
  amp_cpu_parallel_for(runPieces, &call, 0, tasks);
  if (call.plan.blocks > 1) {
    // Chunks of the elements: each element's tree is the same whatever
    // the chunks.
    constexpr int64_t kChunk = 1 << 14;
    amp_cpu_parallel_for(
        [](void *context, int64_t lo, int64_t hi) {
          const Call &c = *static_cast<const Call *>(context);
          int64_t total = c.shape.o * c.shape.cg() * c.shape.kh * c.shape.kw;
          sumPartials(context, lo * kChunk, std::min(hi * kChunk, total));
        },
        &call, 0, (size + kChunk - 1) / kChunk);
  }
}

} // namespace

extern "C" void amp_cpu_conv2d_forward(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh,
    int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, const float *input,
    const float *weight, const float *bias, float *output) {
  Pointers ptrs;
  ptrs.in[0] = input;
  ptrs.in[1] = weight;
  ptrs.in[2] = bias;
  ptrs.out = output;
  convolve("amp_cpu_conv2d_forward",
           {n, c, h, w, o, kh, kw, oh, ow, stride_h, stride_w, pad_top,
            pad_left, pad_bottom, pad_right, dilation_h, dilation_w, groups},
           kForward, ptrs);
}

extern "C" void amp_cpu_conv2d_backward_data(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh,
    int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, const float *grad,
    const float *weight, float *input_grad) {
  Pointers ptrs;
  ptrs.in[0] = grad;
  ptrs.in[1] = weight;
  ptrs.out = input_grad;
  convolve("amp_cpu_conv2d_backward_data",
           {n, c, h, w, o, kh, kw, oh, ow, stride_h, stride_w, pad_top,
            pad_left, pad_bottom, pad_right, dilation_h, dilation_w, groups},
           kBackwardData, ptrs);
}

extern "C" void amp_cpu_conv2d_backward_weights(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh,
    int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, const float *grad,
    const float *input, float *weight_grad) {
  Pointers ptrs;
  ptrs.in[0] = grad;
  ptrs.in[1] = input;
  ptrs.out = weight_grad;
  convolve("amp_cpu_conv2d_backward_weights",
           {n, c, h, w, o, kh, kw, oh, ow, stride_h, stride_w, pad_top,
            pad_left, pad_bottom, pad_right, dilation_h, dilation_w, groups},
           kBackwardWeights, ptrs);
}
