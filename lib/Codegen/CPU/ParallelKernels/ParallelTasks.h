//===- ParallelTasks.h - the mark of a range function -----------*- C++ -*-===//
//
// amp-cpu-parallel-kernels marks each range function it makes with the
// number of its tasks; amp-cpu-dispatch-parallel dispatches the calls of the
// functions so marked.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_CPU_PARALLELKERNELS_PARALLELTASKS_H
#define AMP_LIB_CODEGEN_CPU_PARALLELKERNELS_PARALLELTASKS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::amp {
/// An i64 attribute: the range function's number of tasks. No dialect
/// prefix: it survives func-to-llvm onto the llvm.func.
constexpr llvm::StringLiteral kParallelTasksAttr = "amp_parallel_tasks";
} // namespace mlir::amp

#endif // AMP_LIB_CODEGEN_CPU_PARALLELKERNELS_PARALLELTASKS_H
