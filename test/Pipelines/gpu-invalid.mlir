// RUN: not amp-opt %s -split-input-file --amp-gpu-pipeline="format=isa" 2>&1 | FileCheck %s

// What amp-gpu-pipeline does not lower fails with an error on the op, never
// a crash or a silently wrong program. Each split holds one error.

// Dynamic shapes are rejected by convert-amp-to-linalg, as on the CPU.
// CHECK: error: 'amp.add' op has a dynamic dimension; convert-amp-to-linalg lowers static shapes only
func.func @add_dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = amp.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Host control flow on a value in device memory: the scalar would have to
// be read back to the host (amp graphs never do this; the loss scaler
// selects with arith.select on the device instead).
// CHECK: error: amp-gpu-pipeline: this op would access device memory from the host
func.func @host_branch(%flag: tensor<i1>, %x: tensor<256xf32>) -> tensor<256xf32> {
  %c = tensor.extract %flag[] : tensor<i1>
  %r = scf.if %c -> tensor<256xf32> {
    %0 = amp.add %x, %x : tensor<256xf32>
    scf.yield %0 : tensor<256xf32>
  } else {
    scf.yield %x : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}
