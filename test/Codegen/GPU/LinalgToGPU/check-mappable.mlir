// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-gpu-check-mappable | FileCheck %s

// Host code may only allocate device buffers, launch kernels, copy between
// device buffers and call the runtime. Anything that would touch memory on
// the CPU is an error on the op. Each split below but the first holds one.

// Device buffers, copies and launches are fine; so is anything in a kernel.
// The IR is not changed.
// CHECK-LABEL: func.func @device_only
//       CHECK:   gpu.alloc
//       CHECK:   gpu.memcpy
//       CHECK:   gpu.launch
//       CHECK:     memref.alloca
//       CHECK:     scf.for
//       CHECK:     linalg.fill
//       CHECK:   gpu.dealloc
func.func @device_only(%out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = gpu.alloc () : memref<256xf32>
  gpu.memcpy %out, %buf : memref<256xf32>, memref<256xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() : memref<f32>
    scf.for %i = %c0 to %c1 step %c1 {
      %v = memref.load %buf[%i] : memref<256xf32>
      memref.store %v, %t[] : memref<f32>
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<256xf32>)
    gpu.terminator
  }
  gpu.dealloc %buf : memref<256xf32>
  return
}

// -----

func.func @host_alloc() {
  // expected-error @below {{amp-gpu-pipeline: a host buffer is left that could not be moved to device memory}}
  %buf = memref.alloc() : memref<4xf32>
  return
}

// -----

func.func @host_alloca() {
  // expected-error @below {{amp-gpu-pipeline: a host buffer is left that could not be moved to device memory}}
  %buf = memref.alloca() : memref<4xf32>
  return
}

// -----

func.func @host_for(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{amp-gpu-pipeline: a loop is left on the host that could not be mapped to GPU blocks and threads}}
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}

// -----

func.func @host_parallel(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{amp-gpu-pipeline: a loop is left on the host that could not be mapped to GPU blocks and threads}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.reduce
  }
  return
}

// -----

func.func @host_while(%n: index) -> index {
  %c1 = arith.constant 1 : index
  // expected-error @below {{amp-gpu-pipeline: a loop is left on the host that could not be mapped to GPU blocks and threads}}
  %r = scf.while (%i = %n) : (index) -> index {
    %c = arith.cmpi ne, %i, %c1 : index
    scf.condition(%c) %i : index
  } do {
  ^bb0(%i: index):
    %d = arith.divui %i, %c1 : index
    scf.yield %d : index
  }
  return %r : index
}

// -----

func.func @host_load(%a: memref<f32>) -> f32 {
  // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
  %v = memref.load %a[] : memref<f32>
  return %v : f32
}

// -----

func.func @host_store(%a: memref<f32>, %v: f32) {
  // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
  memref.store %v, %a[] : memref<f32>
  return
}

// -----

func.func @host_copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @host_affine_load(%a: memref<4xf32>) -> f32 {
  // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
  %v = affine.load %a[2] : memref<4xf32>
  return %v : f32
}

// -----

// A linalg op is reported, and so is every linalg op in its body.
func.func @host_linalg(%a: memref<4xf32>) {
  // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%a : memref<4xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
    linalg.yield %n : f32
  }
  return
}

// -----

// Every offending op is reported, not only the first.
func.func @several(%a: memref<f32>, %v: f32) {
  // expected-error @below {{amp-gpu-pipeline: this op would access device memory from the host}}
  memref.store %v, %a[] : memref<f32>
  // expected-error @below {{amp-gpu-pipeline: a host buffer is left that could not be moved to device memory}}
  %buf = memref.alloc() : memref<f32>
  return
}
