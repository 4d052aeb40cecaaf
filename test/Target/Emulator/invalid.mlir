// RUN: amp-opt %s --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels))' -split-input-file -verify-diagnostics

// What the host cannot run is an error naming the op.
gpu.module @kernels {
  gpu.func @printf() kernel {
    // expected-error @below {{'gpu.printf' is not supported by the emulated device}}
    gpu.printf "x"
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @nvvm(%out: memref<1xi32>) kernel {
    // expected-error @below {{failed to legalize operation 'nvvm.read.ptx.sreg.tid.x'}}
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %c0 = arith.constant 0 : index
    memref.store %tid, %out[%c0] : memref<1xi32>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{workgroup attribution of type 'memref<2x?xf32, #gpu.address_space<workgroup>>' is not supported by the emulated device}}
  gpu.func @dynamic(%n: index) workgroup(%a: memref<2x?xf32, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}
