/*===- ParallelFor.h - the parallel loops of compiled CPU steps ----*- C -*-===*\
|*                                                                            *|
|* What compiled CPU steps call for a kernel split by amp-cpu-parallel-       *|
|* kernels (docs/Lowering.md): its tasks run on the model runtime's threads   *|
|* (lib/Runtime/ThreadPool.cpp, amp_set_num_threads in ModelABI.h).           *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_PARALLELFOR_H
#define AMP_RUNTIME_PARALLELFOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs task(context, lo, hi) over [begin, end) split into one contiguous
   range per thread (fewer when there are fewer tasks), and returns when all
   have run. The calling thread runs the first range. Called while another
   thread's parallel loop runs (two states stepped at once), it runs the
   whole range itself. */
void amp_cpu_parallel_for(void (*task)(void *context, int64_t lo, int64_t hi),
                          void *context, int64_t begin, int64_t end);

#ifdef __cplusplus
}
constexpr const char kParallelForFunc[] = "amp_cpu_parallel_for";
#endif

#endif /* AMP_RUNTIME_PARALLELFOR_H */
