//===- Fiber.h - switching between the threads of a block -------*- C++ -*-===//
//
// Internal to libamp_cuda_emulator.so. The threads of a block that
// synchronizes are fibers on one OS thread. On x86-64 a switch saves the
// callee-saved registers and the floating-point control words and swaps the
// stack pointer: a few instructions, where glibc's swapcontext also saves
// the signal mask with a system call per switch (which made barrier-heavy
// kernels spend most of their time in the kernel). Elsewhere: ucontext.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_EMULATOR_FIBER_H
#define AMP_LIB_RUNTIME_EMULATOR_FIBER_H

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace amp {
namespace emulator {

struct FiberContext {
#if defined(__x86_64__)
  void *stackPointer = nullptr;
#else
  ucontext_t context;
#endif
};

/// Prepares `context` to run `entry` on [stack, stack + bytes) at the first
/// switch to it. `entry` must never return: it switches away for the last
/// time instead.
void startFiber(FiberContext &context, char *stack, size_t bytes,
                void (*entry)());

/// Saves the running fiber (or the scheduler) in `from` and resumes `to`.
void switchFiber(FiberContext &from, FiberContext &to);

} // namespace emulator
} // namespace amp

#endif // AMP_LIB_RUNTIME_EMULATOR_FIBER_H
