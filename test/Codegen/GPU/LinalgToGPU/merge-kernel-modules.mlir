// amp-gpu-merge-kernel-modules: the gpu.modules of one target become one
// (one NVPTX code generation and ptxas run, or one emulated-device link,
// instead of one per kernel). A module's only kernel takes the module's
// name; other definitions are prefixed with it; companion globals (the
// emulated device's kernel info) follow their kernels; declarations are kept
// once; launches are redirected.
// RUN: amp-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels),amp-gpu-merge-kernel-modules{name=amp_emu_kernels companion-prefix=__amp_emu_info_})' | FileCheck %s --check-prefix=EMU
// The same through the command-line flags (implicit nesting on gpu.module).
// RUN: amp-opt %s -split-input-file --amp-emulator-lower-kernels --amp-gpu-merge-kernel-modules="name=amp_emu_kernels companion-prefix=__amp_emu_info_" | FileCheck %s --check-prefix=EMU
// Without lowering (gpu.func kernels, no target): the default name.
// RUN: amp-opt %s -split-input-file --amp-gpu-merge-kernel-modules | FileCheck %s
// RUN: amp-opt %s -split-input-file --verify-diagnostics --amp-gpu-merge-kernel-modules

// CHECK-LABEL: gpu.module @amp_kernels {
// CHECK-DAG: gpu.func @fill(
// CHECK-DAG: gpu.func @two__first(
// CHECK-DAG: gpu.func @two__second(
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @amp_kernels::@fill
// CHECK: gpu.launch_func @amp_kernels::@two__first
// CHECK: gpu.launch_func @amp_kernels::@two__second
// EMU-LABEL: gpu.module @amp_emu_kernels [#amp_emu.target]
// EMU-DAG: llvm.func @fill(
// EMU-DAG: llvm.mlir.global internal constant @__amp_emu_info_fill(
// EMU-DAG: llvm.func @two__first(
// EMU-DAG: llvm.func @two__second(
// EMU-DAG: llvm.mlir.global internal constant @__amp_emu_info_two__first(
// EMU-DAG: llvm.mlir.global internal constant @__amp_emu_info_two__second(
// EMU-NOT: gpu.module @fill
// EMU-NOT: gpu.module @two
// EMU-LABEL: func.func @host
// EMU: gpu.launch_func @amp_emu_kernels::@fill
// EMU: gpu.launch_func @amp_emu_kernels::@two__first
// EMU: gpu.launch_func @amp_emu_kernels::@two__second

module attributes {gpu.container_module} {
  gpu.module @fill {
    gpu.func @fill(%out: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %c = arith.constant 1.0 : f32
      memref.store %c, %out[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @two {
    gpu.func @first(%out: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %c = arith.constant 2.0 : f32
      memref.store %c, %out[%i] : memref<4xf32>
      gpu.return
    }
    gpu.func @second(%out: memref<4xf32>) kernel {
      %i = gpu.block_id x
      %c = arith.constant 3.0 : f32
      memref.store %c, %out[%i] : memref<4xf32>
      gpu.return
    }
  }
  func.func @host(%out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @fill::@fill blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @two::@first blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @two::@second blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    return
  }
}

// -----

// Modules of two targets: one merged module each, in the order of their
// first modules; launches go to their own target's module.
// CHECK-LABEL: gpu.module @amp_kernels [#nvvm.target<chip = "sm_90">] {
// CHECK-DAG: gpu.func @a(
// CHECK-DAG: gpu.func @c(
// CHECK-LABEL: gpu.module @amp_kernels_1 [#nvvm.target<chip = "sm_80">] {
// CHECK: gpu.func @b(
// CHECK-LABEL: func.func @host2
// CHECK: gpu.launch_func @amp_kernels::@a
// CHECK: gpu.launch_func @amp_kernels_1::@b
// CHECK: gpu.launch_func @amp_kernels::@c
// EMU-LABEL: func.func @host2
module attributes {gpu.container_module} {
  gpu.module @a [#nvvm.target<chip = "sm_90">] {
    gpu.func @a() kernel { gpu.return }
  }
  gpu.module @b [#nvvm.target<chip = "sm_80">] {
    gpu.func @b() kernel { gpu.return }
  }
  gpu.module @c [#nvvm.target<chip = "sm_90">] {
    gpu.func @c() kernel { gpu.return }
  }
  func.func @host2() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @b::@b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @c::@c blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
