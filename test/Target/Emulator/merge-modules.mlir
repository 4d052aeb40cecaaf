// amp-emulator-merge-modules: the emulated device's gpu.modules become one
// (one kernel object, one link instead of one per module). A module's only
// kernel takes the module's name; other definitions are prefixed with it;
// info globals follow their kernels; declarations are kept once; launches
// are redirected.
// RUN: amp-opt %s --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels),amp-emulator-merge-modules)' | FileCheck %s
// The same through the command-line flags (implicit nesting on gpu.module).
// RUN: amp-opt %s --amp-emulator-lower-kernels --amp-emulator-merge-modules | FileCheck %s

// CHECK-LABEL: gpu.module @amp_emu_kernels [#amp_emu.target]
// CHECK-DAG: llvm.func @fill(
// CHECK-DAG: llvm.mlir.global internal constant @__amp_emu_info_fill(
// CHECK-DAG: llvm.func @two__first(
// CHECK-DAG: llvm.func @two__second(
// CHECK-DAG: llvm.mlir.global internal constant @__amp_emu_info_two__first(
// CHECK-DAG: llvm.mlir.global internal constant @__amp_emu_info_two__second(
// CHECK-NOT: gpu.module @fill
// CHECK-NOT: gpu.module @two
// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @amp_emu_kernels::@fill
// CHECK: gpu.launch_func @amp_emu_kernels::@two__first
// CHECK: gpu.launch_func @amp_emu_kernels::@two__second

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
