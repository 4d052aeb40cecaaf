//===- Fiber.cpp - switching between the threads of a block ---------------===//

#include "Fiber.h"

#include <cstdint>
#include <cstring>

using namespace amp::emulator;

#if defined(__x86_64__)

// void ampEmuSwitchStack(void **save, void *load): pushes the callee-saved
// registers and the MXCSR and x87 control words, stores the stack pointer
// in *save, loads `load` and pops the same frame from it.
extern "C" void ampEmuSwitchStack(void **save, void *load);
asm(R"(
  .text
  .p2align 4
  .globl ampEmuSwitchStack
  .hidden ampEmuSwitchStack
  .type ampEmuSwitchStack,@function
ampEmuSwitchStack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ampEmuSwitchStack, .-ampEmuSwitchStack
)");

/// The frame ampEmuSwitchStack pops, from the lowest address.
struct InitialFrame {
  uint32_t mxcsr;
  uint16_t x87Control;
  uint16_t padding;
  uint64_t r15, r14, r13, r12, rbx, rbp;
  void (*returnAddress)();
  uint64_t entryReturnAddress; // never used: the entry does not return
};

void amp::emulator::startFiber(FiberContext &context, char *stack, size_t bytes,
                               void (*entry)()) {
  // The entry starts as if called: its stack pointer is 8 past a multiple
  // of 16, so the frame (72 bytes to the entry's own return slot) starts
  // 8 past one too.
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t(15);
  auto *frame = reinterpret_cast<InitialFrame *>(top - sizeof(InitialFrame));
  std::memset(frame, 0, sizeof(InitialFrame));
  frame->mxcsr = 0x1f80;      // all exceptions masked, round to nearest
  frame->x87Control = 0x037f; // the same for x87, 64-bit precision
  frame->returnAddress = entry;
  context.stackPointer = frame;
}

void amp::emulator::switchFiber(FiberContext &from, FiberContext &to) {
  ampEmuSwitchStack(&from.stackPointer, to.stackPointer);
}

#else

void amp::emulator::startFiber(FiberContext &context, char *stack, size_t bytes,
                               void (*entry)()) {
  getcontext(&context.context);
  context.context.uc_stack.ss_sp = stack;
  context.context.uc_stack.ss_size = bytes;
  context.context.uc_link = nullptr;
  makecontext(&context.context, entry, 0);
}

void amp::emulator::switchFiber(FiberContext &from, FiberContext &to) {
  swapcontext(&from.context, &to.context);
}

#endif
