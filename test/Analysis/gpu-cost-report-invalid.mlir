// What amp-gpu-cost-report cannot count is an error on the op, not a wrong
// report.
// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-gpu-cost-report="output=" -o %t.mlir

// Kernels already serialized: no body to count.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "BLOB">]
  func.func @step() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{amp-gpu-cost-report: no kernel body for @kernels::@k; run the pass before the kernels are lowered and serialized (gpu-module-to-binary)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// Not outlined yet.
func.func @step() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{amp-gpu-cost-report: a gpu.launch is not outlined; run the pass after gpu-kernel-outlining}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @step(%n: index) {
  // expected-error @below {{amp-gpu-cost-report: a device allocation of a dynamic size cannot be counted}}
  %m = gpu.alloc (%n) : memref<?xf32>
  return
}

// -----

func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)
func.func @step(%m: i64, %p: !llvm.ptr) {
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_gemm operand 3 must be a constant}}
  call @amp_gpu_gemm(%i, %i, %l, %m, %l, %l, %i, %i, %p, %l, %p, %l, %p, %f, %f, %i, %p) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_gemm_epilogue(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr)
func.func @step(%e: i32, %p: !llvm.ptr) {
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_gemm_epilogue operand 16 must be a constant}}
  call @amp_gpu_gemm_epilogue(%i, %i, %l, %l, %l, %l, %i, %i, %p, %l, %p, %l, %p, %f, %f, %i, %e, %p, %p) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_gemm_epilogue(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %i = arith.constant 0 : i32
  %e = arith.constant 7 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: unknown GEMM epilogue 7}}
  call @amp_gpu_gemm_epilogue(%i, %i, %l, %l, %l, %l, %i, %i, %p, %l, %p, %l, %p, %f, %f, %i, %e, %p, %p) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_gemm_epilogue(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_gemm_epilogue takes 19 operands, this call has 17}}
  call @amp_gpu_gemm_epilogue(%i, %i, %l, %l, %l, %l, %i, %i, %p, %l, %p, %l, %p, %f, %f, %i, %p) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
  return
}

// -----

// amp_gpu_gemm_ex has D before the stream: 20 operands.
func.func private @amp_gpu_gemm_ex(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_gemm_ex takes 20 operands, this call has 19}}
  call @amp_gpu_gemm_ex(%i, %i, %l, %l, %l, %l, %i, %i, %p, %l, %p, %l, %p, %f, %f, %i, %i, %p, %p) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_gemm_aux(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
func.func @aux_not_gelu(%p: !llvm.ptr) {
  %i = arith.constant 1 : i32
  %l = arith.constant 8 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_gemm_aux takes a GELU epilogue, not 1}}
  call @amp_gpu_gemm_aux(%i, %i, %l, %l, %l, %l, %i, %i, %p, %l, %p, %l, %p, %f, %f, %i, %i, %p, %p, %l, %p, %p) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
  return
}
