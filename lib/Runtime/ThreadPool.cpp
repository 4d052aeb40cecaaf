//===- ThreadPool.cpp - the threads of compiled CPU steps' parallel loops -===//
//
// amp_cpu_parallel_for (ParallelFor.h) and amp_set_num_threads (ModelABI.h).
// One pool per model library: N - 1 workers and the calling thread. A loop
// is cut into N contiguous ranges, range i on thread i, so the split depends
// only on N, and a task's result only on its own iterations (each iteration
// of a parallel dimension writes its own elements). Between loops a worker
// spins briefly (a step calls kernels back to back) and then sleeps, so
// idle workers do not take cores from the BLAS's threads.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/ParallelFor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

namespace {

using Task = void (*)(void *, int64_t, int64_t);

/// Polls (with a pause) before a worker sleeps or the caller yields: some
/// tens of microseconds, about as long as a short kernel.
constexpr int kSpinPolls = 2000;

/// Never destroyed (like the CUDA runtime's state): a worker asleep at exit
/// is left asleep.
class ThreadPool {
public:
  int32_t size() {
    std::lock_guard<std::mutex> lock(busy);
    return int32_t(workers.size()) + 1;
  }

  void resize(int32_t threads) {
    std::lock_guard<std::mutex> lock(busy);
    stopWorkers();
    // The generation before any loop the new workers take part in: a
    // worker that reads it only when it starts would miss a loop begun
    // before.
    uint64_t start = generation.load(std::memory_order_acquire);
    for (int32_t i = 1; i < threads; ++i)
      workers.emplace_back([this, i, start] { work(i, start); });
  }

  void run(Task task, void *context, int64_t begin, int64_t end) {
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    int64_t parts = std::min<int64_t>(int64_t(workers.size()) + 1, end - begin);
    if (!lock.owns_lock() || parts <= 1) {
      if (begin < end)
        task(context, begin, end);
      return;
    }
    bool anyAsleep;
    {
      std::lock_guard<std::mutex> guard(wakeMutex);
      job = {task, context, begin, end, parts};
      // Every worker reports, with a range or without, so that none still
      // reads this job when the next one is written.
      remaining.store(int64_t(workers.size()), std::memory_order_relaxed);
      generation.fetch_add(1, std::memory_order_release);
      anyAsleep = asleep != 0;
    }
    // Spinning workers see the generation change without a system call.
    if (anyAsleep)
      wake.notify_all();
    runPart(0);
    for (int poll = 0; remaining.load(std::memory_order_acquire) != 0; ++poll) {
      if (poll < kSpinPolls)
        pause();
      else
        std::this_thread::yield();
    }
  }

private:
  struct Job {
    Task task = nullptr;
    void *context = nullptr;
    int64_t begin = 0, end = 0, parts = 0;
  };

  void runPart(int64_t part) {
    int64_t n = job.end - job.begin;
    int64_t lo = job.begin + n * part / job.parts;
    int64_t hi = job.begin + n * (part + 1) / job.parts;
    job.task(job.context, lo, hi);
  }

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  /// Waits for the next loop (or the end); false when stopping.
  bool waitForJob(uint64_t &seen) {
    for (int poll = 0; poll < kSpinPolls; ++poll) {
      uint64_t now = generation.load(std::memory_order_acquire);
      if (now != seen) {
        seen = now;
        return true;
      }
      pause();
    }
    std::unique_lock<std::mutex> lock(wakeMutex);
    ++asleep;
    wake.wait(lock, [&] {
      return stopping || generation.load(std::memory_order_acquire) != seen;
    });
    --asleep;
    if (stopping)
      return false;
    seen = generation.load(std::memory_order_acquire);
    return true;
  }

  void work(int32_t index, uint64_t seen) {
    while (waitForJob(seen)) {
      if (index < job.parts)
        runPart(index);
      remaining.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> guard(wakeMutex);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &worker : workers)
      worker.join();
    workers.clear();
    stopping = false;
  }

  /// Held while a loop runs or the pool changes size.
  std::mutex busy;
  std::mutex wakeMutex;
  std::condition_variable wake;
  std::vector<std::thread> workers;
  Job job;
  std::atomic<uint64_t> generation{0};
  std::atomic<int64_t> remaining{0};
  /// Workers waiting on `wake` (guarded by wakeMutex).
  int32_t asleep = 0;
  bool stopping = false;
};

/// $AMP_NUM_THREADS when it is a positive integer, else one per core this
/// process may run on (its affinity: mpirun and taskset narrow it).
int32_t defaultThreads() {
  if (const char *text = std::getenv("AMP_NUM_THREADS")) {
    char *end = nullptr;
    long threads = std::strtol(text, &end, 10);
    if (end != text && !*end && threads >= 1 && threads <= 4096)
      return int32_t(threads);
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 0)
    return int32_t(std::min(CPU_COUNT(&cpus), 4096));
  return int32_t(std::max(1u, std::thread::hardware_concurrency()));
}

std::atomic<ThreadPool *> instance{nullptr};
std::once_flag created;

/// A child of fork() has none of its parent's workers (and maybe a lock
/// another parent thread held): it gets a pool of its own, serial until
/// amp_set_num_threads sizes it (no threads are started in the fork
/// handler); the parent's is left as it is.
void forgetPoolInChild() {
  if (instance.load())
    instance.store(new ThreadPool());
}

ThreadPool &pool() {
  std::call_once(created, [] {
    auto *fresh = new ThreadPool();
    fresh->resize(defaultThreads());
    instance.store(fresh);
    pthread_atfork(nullptr, nullptr, forgetPoolInChild);
  });
  return *instance.load();
}

} // namespace

extern "C" {

void amp_cpu_parallel_for(Task task, void *context, int64_t begin,
                          int64_t end) {
  pool().run(task, context, begin, end);
}

int32_t amp_set_num_threads(int32_t threads) {
  if (threads < 1 || threads > 4096)
    return 1;
  pool().resize(threads);
  return 0;
}

int32_t amp_get_num_threads(void) { return pool().size(); }

} // extern "C"
