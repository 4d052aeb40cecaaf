//===- Launch.cpp - kernel objects, launches, fibers ----------------------===//
//
// A kernel object (amp/Runtime/EmulatorABI.h) is a header and a host shared
// object, loaded with dlopen from an anonymous file. A launch runs the grid's
// blocks in order (or spread over AMP_EMULATOR_THREADS OS threads); within a
// block, a kernel that synchronizes runs each thread as a fiber: a
// thread that reaches a barrier or a shuffle switches back to the block's
// scheduler, which resumes the block once every thread (or every lane of the
// warp) has arrived. Kernels that never synchronize run their threads as a
// loop. After the launch every red zone is checked.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Export.h"
#include "Fiber.h"

#include "amp/Runtime/EmulatorABI.h"
#include "amp/Support/ELFFile.h"

#include <cuda.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace amp::emulator;

namespace {

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

struct Module;

/// What a CUfunction points to.
struct Function {
  Module *module;
  const amp_emu_kernel *kernel;
};

struct Module {
  void *library = nullptr;
  /// The anonymous file the library was loaded from, open while it is
  /// loaded: the loader knows objects by name, and /proc/self/fd/N of a
  /// closed descriptor would name the next module's file too.
  int fd = -1;
  std::vector<Function> functions;
  /// 1 for the first module loaded, 2 for the next...: kernels of modules
  /// loaded side by side may share names, the profile tells them apart.
  uint64_t number = 0;
};

CUresult badImage(const std::string &detail) {
  return CUresult(setDetail(false, CUDA_ERROR_INVALID_SOURCE,
                            "not an emulated-device kernel object: " + detail));
}

/// Writes the shared object to an anonymous file and opens it.
CUresult openSharedObject(const char *bytes, uint64_t size, Module &module) {
  module.fd = memfd_create("amp-emulator-kernels", MFD_CLOEXEC);
  if (module.fd < 0)
    return badImage("cannot create an anonymous file for its code");
  uint64_t written = 0;
  while (written < size) {
    ssize_t n = write(module.fd, bytes + written, size - written);
    if (n <= 0)
      return badImage("cannot write its code to an anonymous file");
    written += uint64_t(n);
  }
  // The loader maps the segments without checking them against the size:
  // a truncated object would fault (SIGBUS) instead of failing.
  std::string damage = amp::checkSharedObject(module.fd);
  if (!damage.empty())
    return badImage("its code: " + damage);
  std::string path = "/proc/self/fd/" + std::to_string(module.fd);
  module.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module.library)
    return CUDA_SUCCESS;
  const char *reason = dlerror();
  return badImage(std::string("its shared object does not load (") +
                  (reason ? reason : "unknown reason") + ")");
}

CUresult readTable(Module &module) {
  auto *table = static_cast<const amp_emu_module *>(
      dlsym(module.library, AMP_EMU_TABLE_SYMBOL));
  if (!table)
    return badImage("its shared object has no " AMP_EMU_TABLE_SYMBOL);
  if (table->version != AMP_EMU_VERSION)
    return badImage("its kernel table has version " +
                    std::to_string(table->version) + ", this device reads " +
                    std::to_string(AMP_EMU_VERSION));
  for (uint32_t i = 0; i < table->kernel_count; ++i)
    module.functions.push_back({&module, &table->kernels[i]});
  return CUDA_SUCCESS;
}

void unloadModule(Module *module) {
  if (module->library)
    dlclose(module->library);
  if (module->fd >= 0)
    close(module->fd);
  delete module;
}

CUresult loadModule(CUmodule *result, const void *image) {
  if (!image)
    return badImage("null image");
  amp_emu_object_header header;
  std::memcpy(&header, image, sizeof(header));
  if (std::memcmp(header.magic, AMP_EMU_MAGIC, AMP_EMU_MAGIC_BYTES) != 0)
    return badImage("it does not start with the magic bytes \"AMPEMU\" (a "
                    "cubin or PTX? the emulated device runs only code built "
                    "with --target=cuda-emulator)");
  if (header.version != AMP_EMU_VERSION ||
      header.header_bytes != sizeof(header))
    return badImage("format version " + std::to_string(header.version) +
                    ", this device reads " + std::to_string(AMP_EMU_VERSION));
  if (header.elf_bytes < 64 || header.elf_bytes > (uint64_t(1) << 32))
    return badImage("implausible code size " +
                    std::to_string(header.elf_bytes));
  const char *elf = static_cast<const char *>(image) + sizeof(header);
  auto *module = new Module();
  CUresult r = openSharedObject(elf, header.elf_bytes, *module);
  if (r == CUDA_SUCCESS)
    r = readTable(*module);
  if (r != CUDA_SUCCESS) {
    unloadModule(module);
    return r;
  }
  static std::atomic<uint64_t> modulesLoaded{0};
  module->number = ++modulesLoaded;
  *result = reinterpret_cast<CUmodule>(module);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Launch parameters
//===----------------------------------------------------------------------===//

/// Set through the emulator's extension by the runtime before a launch; -1
/// when unknown (the plain driver API does not pass it).
thread_local int64_t nextParamCount = -1;

struct Launch {
  const amp_emu_kernel *kernel;
  uint64_t moduleNumber;
  uint32_t grid[3], block[3];
  size_t sharedBytes; // static + dynamic
  void **params;
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  std::string error;
  /// Device memory traffic of all threads (amp_emu_thread's counters).
  std::atomic<uint64_t> loadedBytes{0}, storedBytes{0};
  /// Floating-point operations of all threads.
  std::atomic<uint64_t> flops{0};

  void count(const amp_emu_thread &thread) {
    loadedBytes.fetch_add(thread.loaded_bytes, std::memory_order_relaxed);
    storedBytes.fetch_add(thread.stored_bytes, std::memory_order_relaxed);
    flops.fetch_add(thread.flops, std::memory_order_relaxed);
  }

  void fail(const std::string &message) {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (!failed.exchange(true))
      error = message;
  }
  uint32_t threadsPerBlock() const { return block[0] * block[1] * block[2]; }
};

CUresult launchError(const Launch &launch, const std::string &detail) {
  return CUresult(
      setDetail(false, CUDA_ERROR_LAUNCH_FAILED,
                "kernel " + std::string(launch.kernel->name) + ": " + detail));
}

//===----------------------------------------------------------------------===//
// Threads of a block
//===----------------------------------------------------------------------===//

enum class FiberState { Ready, AtBarrier, AtShuffle, Done };

struct Fiber {
  FiberContext context;
  amp_emu_thread thread;
  FiberState state = FiberState::Ready;
  // The shuffle this lane is in, and its result.
  uint32_t value = 0;
  int32_t offset = 0, width = 0, mode = 0;
  uint32_t result = 0;
  int32_t valid = 0;
};

/// Stack per fiber: kernels from MLIR keep memref descriptors on the stack.
size_t fiberStackBytes() {
  const char *kib = std::getenv("AMP_EMULATOR_STACK_KIB");
  long value = kib ? std::atol(kib) : 0;
  return size_t(value > 16 ? value : 256) << 10;
}

/// Fiber stacks of one OS thread, each below a guard page (an overflow
/// faults instead of silently corrupting the neighbour's stack). Kept for
/// the thread's later launches: mapping and protecting them per launch
/// would cost more than small kernels do. Never unmapped (a few worker
/// threads at most, MAP_NORESERVE).
struct FiberStacks {
  char *base = nullptr;
  size_t count = 0, stackBytes = 0, slotBytes = 0;

  /// Whether there are stacks for `threads` fibers.
  bool reserve(size_t threads) {
    if (threads <= count)
      return true;
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    if (base)
      munmap(base, slotBytes * count);
    stackBytes = fiberStackBytes();
    slotBytes = stackBytes + page;
    void *mapped = mmap(nullptr, slotBytes * threads, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) {
      base = nullptr;
      count = 0;
      return false;
    }
    base = static_cast<char *>(mapped);
    count = threads;
    for (size_t i = 0; i < threads; ++i)
      mprotect(base + i * slotBytes, page, PROT_NONE);
    return true;
  }
  char *stack(size_t i) const {
    return base + i * slotBytes + slotBytes - stackBytes;
  }
};

thread_local FiberStacks fiberStacks;

/// One block's threads and the scheduler's context, on one OS thread.
struct BlockRun {
  Launch *launch;
  std::vector<Fiber> fibers;
  FiberContext scheduler;
  size_t current = 0;
};

thread_local BlockRun *currentBlock = nullptr;

void suspend(amp_emu_thread *thread, FiberState state) {
  BlockRun &run = *currentBlock;
  Fiber &fiber = run.fibers[run.current];
  (void)thread;
  fiber.state = state;
  switchFiber(fiber.context, run.scheduler);
}

void barrierCallback(amp_emu_thread *thread) {
  suspend(thread, FiberState::AtBarrier);
}

uint32_t shuffleCallback(amp_emu_thread *thread, uint32_t value, int32_t offset,
                         int32_t width, int32_t mode, int32_t *valid) {
  Fiber &fiber = currentBlock->fibers[currentBlock->current];
  fiber.value = value;
  fiber.offset = offset;
  fiber.width = width;
  fiber.mode = mode;
  suspend(thread, FiberState::AtShuffle);
  *valid = fiber.valid;
  return fiber.result;
}

const amp_emu_callbacks kCallbacks = {barrierCallback, shuffleCallback};

/// The fiber's body (it takes no arguments: the block is found through
/// currentBlock). It never returns: it switches to the scheduler for the
/// last time.
void fiberMain() {
  BlockRun &run = *currentBlock;
  Fiber &fiber = run.fibers[run.current];
  run.launch->kernel->entry(run.launch->params, &fiber.thread);
  fiber.state = FiberState::Done;
  switchFiber(fiber.context, run.scheduler);
}

void initThread(amp_emu_thread &t, const Launch &launch, const uint32_t bid[3],
                uint32_t linear, char *shared) {
  std::memset(&t, 0, sizeof(t));
  t.thread_id[0] = linear % launch.block[0];
  t.thread_id[1] = linear / launch.block[0] % launch.block[1];
  t.thread_id[2] = linear / (launch.block[0] * launch.block[1]);
  for (int d = 0; d < 3; ++d) {
    t.block_id[d] = bid[d];
    t.block_dim[d] = launch.block[d];
    t.grid_dim[d] = launch.grid[d];
  }
  t.lane_id = linear % AMP_EMU_WARP_SIZE;
  t.shared_memory = shared;
  t.callbacks = &kCallbacks;
}

/// The lane a shuffle reads, within the lane's segment of `width` lanes, or
/// -1 when there is none.
int64_t shuffleSource(const Fiber &f, uint32_t lane, uint32_t lanesInWarp) {
  if (f.width <= 0 || f.width > AMP_EMU_WARP_SIZE)
    return -1;
  int64_t inSegment = lane % uint32_t(f.width);
  int64_t base = int64_t(lane) - inSegment;
  int64_t source;
  switch (f.mode) {
  case AMP_EMU_SHUFFLE_XOR:
    source = inSegment ^ f.offset;
    break;
  case AMP_EMU_SHUFFLE_UP:
    source = inSegment - f.offset;
    break;
  case AMP_EMU_SHUFFLE_DOWN:
    source = inSegment + f.offset;
    break;
  default:
    source = f.offset;
  }
  if (source < 0 || source >= f.width || base + source >= lanesInWarp)
    return -1;
  return base + source;
}

/// Completes the shuffle of warp `w` once none of its lanes can run on:
/// the lanes in the shuffle exchange values, as shfl.sync among the lanes
/// of its mask (MLIR's all-reduce shuffles within the first `width` lanes
/// while the others wait at the next barrier). Returns whether it did; sets
/// `error` when a lane reads one that does not take part.
bool releaseWarp(BlockRun &run, size_t w, std::string &error) {
  size_t first = w * AMP_EMU_WARP_SIZE;
  size_t end = std::min(first + AMP_EMU_WARP_SIZE, run.fibers.size());
  size_t waiting = 0, ready = 0;
  for (size_t i = first; i < end; ++i) {
    waiting += run.fibers[i].state == FiberState::AtShuffle;
    ready += run.fibers[i].state == FiberState::Ready;
  }
  if (waiting == 0 || ready != 0)
    return false;
  uint32_t lanes = uint32_t(end - first);
  for (size_t i = first; i < end; ++i) {
    Fiber &f = run.fibers[i];
    if (f.state != FiberState::AtShuffle)
      continue;
    int64_t source = shuffleSource(f, uint32_t(i - first), lanes);
    if (source >= 0 &&
        run.fibers[first + source].state != FiberState::AtShuffle) {
      error = "lane " + std::to_string(i - first) + " of warp " +
              std::to_string(w) + " shuffles from lane " +
              std::to_string(source) + ", which is not in the shuffle";
      return false;
    }
    f.valid = source >= 0;
    f.result = source >= 0 ? run.fibers[first + source].value : f.value;
  }
  for (size_t i = first; i < end; ++i)
    if (run.fibers[i].state == FiberState::AtShuffle)
      run.fibers[i].state = FiberState::Ready;
  return true;
}

/// One scheduling decision after every fiber stopped: release warps that
/// completed a shuffle, or the block at a barrier. "" to go on, otherwise
/// why the block cannot.
std::string releaseWaiting(BlockRun &run, bool &finished) {
  size_t done = 0, atBarrier = 0;
  for (const Fiber &f : run.fibers) {
    done += f.state == FiberState::Done;
    atBarrier += f.state == FiberState::AtBarrier;
  }
  finished = done == run.fibers.size();
  if (finished)
    return "";
  std::string error;
  bool released = false;
  size_t warps =
      (run.fibers.size() + AMP_EMU_WARP_SIZE - 1) / AMP_EMU_WARP_SIZE;
  for (size_t w = 0; w < warps && error.empty(); ++w)
    released |= releaseWarp(run, w, error);
  if (!error.empty() || released)
    return error;
  if (atBarrier == run.fibers.size()) {
    for (Fiber &f : run.fibers)
      f.state = FiberState::Ready;
    return "";
  }
  if (atBarrier > 0 && atBarrier + done == run.fibers.size())
    return "a barrier was not reached by every thread of the block (" +
           std::to_string(done) + " of " + std::to_string(run.fibers.size()) +
           " threads returned while " + std::to_string(atBarrier) +
           " waited at it)";
  return "the block's threads wait for each other and cannot go on";
}

std::string blockName(const uint32_t bid[3]) {
  return "block (" + std::to_string(bid[0]) + ", " + std::to_string(bid[1]) +
         ", " + std::to_string(bid[2]) + ")";
}

/// Runs one block of a kernel that synchronizes, every thread a fiber.
void runFiberBlock(BlockRun &run, const uint32_t bid[3], char *shared) {
  Launch &launch = *run.launch;
  uint32_t threads = launch.threadsPerBlock();
  if (!fiberStacks.reserve(threads)) {
    launch.fail("no memory for the stacks of the block's threads");
    return;
  }
  run.fibers.assign(threads, Fiber());
  for (uint32_t i = 0; i < threads; ++i) {
    Fiber &f = run.fibers[i];
    initThread(f.thread, launch, bid, i, shared);
    startFiber(f.context, fiberStacks.stack(i), fiberStacks.stackBytes,
               fiberMain);
  }
  currentBlock = &run;
  while (true) {
    for (size_t i = 0; i < run.fibers.size(); ++i) {
      if (run.fibers[i].state != FiberState::Ready)
        continue;
      run.current = i;
      switchFiber(run.scheduler, run.fibers[i].context);
    }
    bool finished = false;
    std::string error = releaseWaiting(run, finished);
    if (finished) {
      for (const Fiber &f : run.fibers)
        launch.count(f.thread);
      break;
    }
    if (!error.empty()) {
      launch.fail(blockName(bid) + ": " + error);
      break;
    }
  }
  currentBlock = nullptr;
}

/// Runs one block of a kernel that never synchronizes: a loop.
void runLoopBlock(Launch &launch, const uint32_t bid[3], char *shared) {
  amp_emu_thread thread;
  uint64_t loaded = 0, stored = 0, flops = 0;
  for (uint32_t i = 0, e = launch.threadsPerBlock(); i < e; ++i) {
    initThread(thread, launch, bid, i, shared);
    launch.kernel->entry(launch.params, &thread);
    loaded += thread.loaded_bytes;
    stored += thread.stored_bytes;
    flops += thread.flops;
  }
  thread.loaded_bytes = loaded;
  thread.stored_bytes = stored;
  thread.flops = flops;
  launch.count(thread);
}

/// Blocks first, first + step, ... of the grid, on the calling OS thread.
void runBlocks(Launch &launch, uint64_t first, uint64_t step) {
  uint64_t blocks = uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  // Shared memory starts as NaN too, in every block.
  std::vector<char> shared(launch.sharedBytes + 16);
  char *sharedStart = reinterpret_cast<char *>(
      (reinterpret_cast<uintptr_t>(shared.data()) + 15) & ~uintptr_t(15));
  BlockRun run;
  run.launch = &launch;
  bool sync = launch.kernel->flags & AMP_EMU_USES_SYNC;
  for (uint64_t b = first; b < blocks && !launch.failed; b += step) {
    uint32_t bid[3] = {
        uint32_t(b % launch.grid[0]),
        uint32_t(b / launch.grid[0] % launch.grid[1]),
        uint32_t(b / (uint64_t(launch.grid[0]) * launch.grid[1]))};
    std::memset(sharedStart, kFreshByte, launch.sharedBytes);
    if (sync)
      runFiberBlock(run, bid, sharedStart);
    else
      runLoopBlock(launch, bid, sharedStart);
  }
}

unsigned workerThreads() {
  const char *value = std::getenv("AMP_EMULATOR_THREADS");
  long n = value ? std::atol(value) : 1;
  return unsigned(n < 1 ? 1 : (n > 64 ? 64 : n));
}

void runGrid(Launch &launch) {
  unsigned workers = workerThreads();
  if (workers == 1) {
    runBlocks(launch, 0, 1);
    return;
  }
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back(
        [&launch, w, workers] { runBlocks(launch, w, workers); });
  for (std::thread &t : threads)
    t.join();
}

std::string dims(const uint32_t d[3]) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
         std::to_string(d[2]) + "]";
}

void recordLaunch(const Launch &launch, unsigned dynamicShared) {
  if (!profiling())
    return;
  recordProfileLine(
      "{\"kind\": \"launch\", \"kernel\": " + jsonString(launch.kernel->name) +
      ", \"module\": " + std::to_string(launch.moduleNumber) + ", \"grid\": " +
      dims(launch.grid) + ", \"block\": " + dims(launch.block) +
      ", \"dynamic_shared_bytes\": " + std::to_string(dynamicShared) +
      ", \"loaded_bytes\": " + std::to_string(launch.loadedBytes.load()) +
      ", \"stored_bytes\": " + std::to_string(launch.storedBytes.load()) +
      ", \"flops\": " + std::to_string(launch.flops.load()) + "}");
}

/// The driver API passes a pointer to each argument, not its size; but
/// arguments are distinct objects, so the kernel's size of a parameter must
/// fit before the next argument in memory (MLIR's launches pack them in one
/// struct). A kernel reading more bytes than the launch packed (a 32-bit
/// index where it takes a pointer) would read the next argument instead.
CUresult checkParamSizes(const Launch &launch) {
  const amp_emu_kernel &k = *launch.kernel;
  if (!k.param_sizes)
    return CUDA_SUCCESS;
  std::vector<std::pair<uintptr_t, uint32_t>> byAddress;
  for (uint32_t i = 0; i < k.param_count; ++i)
    byAddress.push_back({reinterpret_cast<uintptr_t>(launch.params[i]), i});
  std::sort(byAddress.begin(), byAddress.end());
  for (size_t j = 0; j + 1 < byAddress.size(); ++j) {
    auto [address, i] = byAddress[j];
    // The same object passed twice is fine; find the next one.
    size_t next = j + 1;
    while (next < byAddress.size() && byAddress[next].first == address)
      ++next;
    if (next == byAddress.size())
      break;
    uintptr_t room = byAddress[next].first - address;
    if (room < k.param_sizes[i])
      return launchError(launch, "parameter " + std::to_string(i) + " takes " +
                                     std::to_string(k.param_sizes[i]) +
                                     " bytes but the launch passes at most " +
                                     std::to_string(room) + " (parameter " +
                                     std::to_string(byAddress[next].second) +
                                     " starts there)");
  }
  return CUDA_SUCCESS;
}

CUresult checkParams(const Launch &launch, void **extra) {
  int64_t count = nextParamCount;
  nextParamCount = -1;
  const amp_emu_kernel &k = *launch.kernel;
  if (extra)
    return launchError(launch, "parameters passed through `extra` are not "
                               "supported by the emulated device");
  if (count >= 0 && uint64_t(count) != k.param_count)
    return launchError(launch, "the launch passes " + std::to_string(count) +
                                   " parameters, the kernel takes " +
                                   std::to_string(k.param_count));
  if (!launch.params && k.param_count > 0)
    return launchError(launch, "no parameters passed, the kernel takes " +
                                   std::to_string(k.param_count));
  for (uint32_t i = 0; i < k.param_count; ++i)
    if (!launch.params[i])
      return launchError(launch, "parameter " + std::to_string(i) + " is null");
  return checkParamSizes(launch);
}

} // namespace

//===----------------------------------------------------------------------===//
// Driver entry points
//===----------------------------------------------------------------------===//

AMP_EMU_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return loadModule(module, image);
}

/// JIT options are for PTX, which the emulated device does not run; an
/// error log buffer gets the detail.
AMP_EMU_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                           unsigned int, CUjit_option *,
                                           void **) {
  return loadModule(module, image);
}

AMP_EMU_EXPORT CUresult cuModuleUnload(CUmodule handle) {
  auto *module = reinterpret_cast<Module *>(handle);
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  unloadModule(module);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuModuleGetFunction(CUfunction *function,
                                            CUmodule handle, const char *name) {
  auto *module = reinterpret_cast<Module *>(handle);
  if (!module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  for (Function &f : module->functions)
    if (std::strcmp(f.kernel->name, name) == 0) {
      *function = reinterpret_cast<CUfunction>(&f);
      return CUDA_SUCCESS;
    }
  return CUresult(
      setDetail(false, CUDA_ERROR_NOT_FOUND,
                std::string("the kernel object has no kernel ") + name));
}

AMP_EMU_EXPORT CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute,
                                           int) {
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT void ampEmuSetLaunchParamCount(uint64_t count) {
  nextParamCount = int64_t(count);
}

namespace {

/// Runs a launch checked by cuLaunchKernel (now, or as a graph's node).
CUresult runLaunch(Launch &launch, unsigned dynamicShared) {
  runGrid(launch);
  recordLaunch(launch, dynamicShared);
  if (launch.failed)
    return launchError(launch, launch.error);
  std::string damage = checkRedZones();
  if (!damage.empty())
    return CUresult(
        setDetail(false, CUDA_ERROR_ILLEGAL_ADDRESS,
                  "kernel " + std::string(launch.kernel->name) + " " + damage));
  return CUDA_SUCCESS;
}

/// A launch recorded into a graph: the kernel's arguments copied, as
/// cuLaunchKernel copies them (the caller's array is gone by the replay).
struct RecordedLaunch {
  const amp_emu_kernel *kernel;
  uint64_t moduleNumber;
  uint32_t grid[3], block[3];
  unsigned dynamicShared;
  std::vector<std::vector<char>> arguments;

  int operator()() const {
    Launch launch;
    launch.kernel = kernel;
    launch.moduleNumber = moduleNumber;
    std::copy(grid, grid + 3, launch.grid);
    std::copy(block, block + 3, launch.block);
    launch.sharedBytes = kernel->static_shared_bytes + dynamicShared;
    std::vector<void *> params;
    for (const std::vector<char> &argument : arguments)
      params.push_back(const_cast<char *>(argument.data()));
    launch.params = params.data();
    return int(runLaunch(launch, dynamicShared));
  }
};

} // namespace

AMP_EMU_EXPORT CUresult cuLaunchKernel(CUfunction handle, unsigned gridX,
                                       unsigned gridY, unsigned gridZ,
                                       unsigned blockX, unsigned blockY,
                                       unsigned blockZ, unsigned sharedBytes,
                                       CUstream stream, void **params,
                                       void **extra) {
  auto *function = reinterpret_cast<Function *>(handle);
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  Launch launch;
  launch.kernel = function->kernel;
  launch.moduleNumber = function->module->number;
  launch.grid[0] = gridX, launch.grid[1] = gridY, launch.grid[2] = gridZ;
  launch.block[0] = blockX, launch.block[1] = blockY, launch.block[2] = blockZ;
  launch.sharedBytes = function->kernel->static_shared_bytes + sharedBytes;
  launch.params = params;
  if (CUresult r = checkParams(launch, extra))
    return r;
  for (int d = 0; d < 3; ++d)
    if (launch.grid[d] == 0 || launch.block[d] == 0)
      return launchError(launch, "grid and block sizes must be positive");
  if (uint64_t(blockX) * blockY * blockZ > 1024)
    return launchError(launch, "more than 1024 threads per block");
  if (!isCapturing(stream))
    return runLaunch(launch, sharedBytes);
  const amp_emu_kernel &k = *launch.kernel;
  if (k.param_count > 0 && !k.param_sizes)
    return launchError(launch, "the kernel declares no parameter sizes, so "
                               "its arguments cannot be copied into a graph");
  RecordedLaunch recorded{&k, launch.moduleNumber, {}, {}, sharedBytes, {}};
  std::copy(launch.grid, launch.grid + 3, recorded.grid);
  std::copy(launch.block, launch.block + 3, recorded.block);
  for (uint32_t i = 0; i < k.param_count; ++i) {
    const char *value = static_cast<const char *>(params[i]);
    recorded.arguments.emplace_back(value, value + k.param_sizes[i]);
  }
  return CUresult(issue(stream, std::move(recorded)));
}
