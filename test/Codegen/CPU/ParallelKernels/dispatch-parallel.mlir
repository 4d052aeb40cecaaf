// RUN: amp-opt %s -split-input-file --amp-cpu-dispatch-parallel | FileCheck %s
// RUN: amp-opt %S/Inputs/parallel-step.mlir --amp-cpu-pipeline="model-abi=true parallel-kernels=true" | FileCheck %s --check-prefix=PIPELINE
// RUN: amp-opt %S/Inputs/parallel-step.mlir --amp-cpu-pipeline="model-abi=true" | FileCheck %s --check-prefix=SERIAL

// A call of a range function (a pointer, an f32 and an i1 argument, then
// the task range) becomes amp_cpu_parallel_for with a task function that
// loads the three arguments from 64-bit slots of a context the caller
// fills; the context is allocated once, in the caller's entry block.

// CHECK-LABEL: llvm.func internal @kernel.range.task
// CHECK-SAME: (%[[C:.*]]: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64)
// CHECK: %[[L0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[L1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[L2:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i1
// CHECK: llvm.call @kernel.range(%[[L0]], %[[L1]], %[[L2]], %[[LO]], %[[HI]])
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @step
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[X:.*]]: f32, %[[FLAG:.*]]: i1)
// CHECK: %[[SLOTS:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[CONTEXT:.*]] = llvm.alloca %[[SLOTS]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK: llvm.br ^[[LOOP:.*]]
// CHECK: ^[[LOOP]]:
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[CONTEXT]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store %[[P]], %[[S0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[CONTEXT]][1]
// CHECK-NEXT: llvm.store %[[X]], %[[S1]] : f32, !llvm.ptr
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[CONTEXT]][2]
// CHECK-NEXT: llvm.store %[[FLAG]], %[[S2]] : i1, !llvm.ptr
// CHECK-NEXT: %[[TASK:.*]] = llvm.mlir.addressof @kernel.range.task : !llvm.ptr
// CHECK-NEXT: llvm.call @amp_cpu_parallel_for(%[[TASK]], %[[CONTEXT]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: llvm.call @kernel.range(

// CHECK: llvm.func @amp_cpu_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
llvm.func @kernel.range(%p: !llvm.ptr, %x: f32, %flag: i1, %lo: i64, %hi: i64)
    attributes {amp_parallel_tasks = 4 : i64} {
  llvm.return
}
llvm.func @step(%p: !llvm.ptr, %x: f32, %flag: i1) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %tasks = llvm.mlir.constant(4 : i64) : i64
  llvm.br ^loop
^loop:
  llvm.call @kernel.range(%p, %x, %flag, %zero, %tasks) : (!llvm.ptr, f32, i1, i64, i64) -> ()
  llvm.return
}

// -----

// A range function whose argument does not fit a slot (a vector) keeps
// its plain call; so does a function without the attribute.

// CHECK-LABEL: llvm.func @wide_step
// CHECK: llvm.call @wide.range(
// CHECK-NOT: amp_cpu_parallel_for
// CHECK: llvm.call @plain(
// CHECK-NOT: amp_cpu_parallel_for
llvm.func @wide.range(%v: vector<4xf32>, %lo: i64, %hi: i64)
    attributes {amp_parallel_tasks = 2 : i64} {
  llvm.return
}
llvm.func @plain(%lo: i64, %hi: i64) {
  llvm.return
}
llvm.func @wide_step(%v: vector<4xf32>) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %two = llvm.mlir.constant(2 : i64) : i64
  llvm.call @wide.range(%v, %zero, %two) : (vector<4xf32>, i64, i64) -> ()
  llvm.call @plain(%zero, %two) : (i64, i64) -> ()
  llvm.return
}

// The whole CPU pipeline: the GELU kernel over 256x512 (collapsed to one
// dimension of 131072 elements by amp-cpu-collapse-loops) runs on the
// runtime's threads in 8 tasks of 16384 elements; without parallel-kernels
// it runs as it is.
// PIPELINE-LABEL: llvm.func @gelu_kernel(
// PIPELINE: llvm.call @amp_cpu_parallel_for(
// PIPELINE: llvm.func @gelu_kernel.range({{.*}}) attributes {amp_parallel_tasks = 8 : i64
// PIPELINE: llvm.func internal @gelu_kernel.range.task
// SERIAL-NOT: amp_cpu_parallel_for
