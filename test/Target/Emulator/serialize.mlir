// gpu-module-to-binary with #amp_emu.target. format=isa gives the finished
// host LLVM code: the __amp_emu_* functions inlined (ids are loads from the
// emulated thread, a barrier calls the device's callback and then stores
// the thread back for the fiber), an entry point per kernel that loads each
// parameter from the launch's parameter array and counts the bytes its
// accesses to device memory load and store, and the exported kernel
// table amp_emu_table (name, entry, parameter count, flags, parameter
// sizes, static shared bytes).
// RUN: amp-opt %S/Inputs/kernels.mlir --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels),gpu-module-to-binary{format=isa})' -o %t.isa.mlir
// RUN: %python %S/Inputs/extract-object.py %t.isa.mlir - assembly | FileCheck %s --check-prefix=IR
// IR: target triple =
// IR: @__amp_emu_current = internal thread_local
// IR: @amp_emu_kernels = internal constant [3 x { ptr, ptr, i32, i32, ptr, i64 }] [{ ptr, ptr, i32, i32, ptr, i64 } { ptr @reverse_erf.amp_emu_name, ptr @reverse_erf.amp_emu_entry, i32 10, i32 1, ptr @reverse_erf.amp_emu_sizes, i64 1024 }, {{.*}} { ptr @warp_sum.amp_emu_name, ptr @warp_sum.amp_emu_entry, i32 10, i32 1, ptr @warp_sum.amp_emu_sizes, i64 0 }, {{.*}} { ptr @block_sum.amp_emu_name, ptr @block_sum.amp_emu_entry, i32 10, i32 1, ptr @block_sum.amp_emu_sizes, i64 128 }]
// IR: @amp_emu_table = {{.*}}constant { i32, i32, ptr } { i32 1, i32 3, ptr @amp_emu_kernels }
// IR: @llvm.compiler.used = {{.*}}@__truncsfbf2
// Kernels are internal (modules share kernel names), inlined into their
// entry points.
// IR-NOT: define void @reverse_erf(
// IR-LABEL: define internal void @reverse_erf.amp_emu_entry(ptr {{.*}}%0, ptr noalias %1)
// IR-NEXT: entry:
// IR-NEXT: store ptr %1, ptr @__amp_emu_current
// IR-NOT: call {{.*}}@__amp_emu_
// A load from device memory (a parameter) adds 4 to loaded_bytes (offset
// 80 of the thread); the store to workgroup memory counts nothing.
// IR: %[[IN:.*]] = load float, ptr
// IR-NEXT: %[[LOADED:.*]] = getelementptr inbounds nuw i8, ptr %1, i64 80
// IR-NEXT: %[[OLD:.*]] = load i64, ptr %[[LOADED]]
// IR-NEXT: %[[NEW:.*]] = add i64 %[[OLD]], 4
// IR-NEXT: store i64 %[[NEW]], ptr %[[LOADED]]
// IR-NEXT: getelementptr
// IR-NEXT: store float %[[IN]]
// IR-NEXT: getelementptr
// The barrier: the device's callback, then the thread stored back.
// IR: call void %{{.*}}(ptr
// IR-NEXT: store ptr %1, ptr @__amp_emu_current
// IR: call float @erff(
// A store to device memory adds 4 to stored_bytes (offset 88).
// IR: store float
// IR-NEXT: getelementptr inbounds nuw i8, ptr %1, i64 88
// IR: define hidden bfloat @__truncsfbf2(float %f)

// format=bin: the kernel object, its header then a host ELF shared object.
// RUN: amp-opt %S/Inputs/kernels.mlir --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels),gpu-module-to-binary{format=bin})' | FileCheck %s --check-prefix=BIN
// BIN: gpu.binary @kernels [#gpu.object<#amp_emu.target, bin = "AMPEMU\00\01\01\00\00\00\18\00\00\00{{.*}}\7FELF\02\01\01
