// Attention calls amp-gpu-cost-report cannot count are errors on the call,
// not a wrong report.
// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-gpu-cost-report="output=" -o %t.mlir

func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%s: i64, %p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd operand 4 must be a constant}}
  call @amp_gpu_attention_fwd(%t, %l, %l, %l, %s, %l, %l, %l, %p, %p, %p, %i, %p, %l, %l, %f, %i, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

// The causal flag of the backward (operand 19) is read, not the forward's.
func.func private @amp_gpu_attention_bwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%c: i32, %p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_bwd operand 19 must be a constant}}
  call @amp_gpu_attention_bwd(%t, %l, %l, %l, %l, %l, %l, %l, %p, %p, %p, %p, %p, %p, %i, %p, %l, %l, %f, %c, %p, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd takes 20 operands, this call has 19}}
  call @amp_gpu_attention_fwd(%t, %l, %l, %l, %l, %l, %l, %l, %p, %p, %p, %i, %p, %l, %l, %f, %i, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

// cuDNN's fused attention takes no f32 operands.
func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd: dtype 0 is not AMP_DTYPE_F16 or AMP_DTYPE_BF16}}
  call @amp_gpu_attention_fwd(%i, %l, %l, %l, %l, %l, %l, %l, %p, %p, %p, %i, %p, %l, %l, %f, %i, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %z = arith.constant 0 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd: the batch, heads, sequence lengths and head dimensions must be positive}}
  call @amp_gpu_attention_fwd(%t, %l, %l, %l, %l, %z, %l, %l, %p, %p, %p, %i, %p, %l, %l, %f, %i, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %l = arith.constant 1 : i64
  %h4 = arith.constant 4 : i64
  %h3 = arith.constant 3 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd: heads_q 4 is not a multiple of heads_kv 3}}
  call @amp_gpu_attention_fwd(%t, %l, %h4, %h3, %l, %l, %l, %l, %p, %p, %p, %i, %p, %l, %l, %f, %i, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %m = arith.constant 3 : i32
  %l = arith.constant 1 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd: unknown mask kind 3}}
  call @amp_gpu_attention_fwd(%t, %l, %l, %l, %l, %l, %l, %l, %p, %p, %p, %m, %p, %l, %l, %f, %i, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}

// -----

func.func private @amp_gpu_attention_bwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @step(%p: !llvm.ptr) {
  %t = arith.constant 2 : i32
  %i = arith.constant 0 : i32
  %keep = arith.constant 1 : i32
  %l = arith.constant 1 : i64
  %b2 = arith.constant 2 : i64
  %b3 = arith.constant 3 : i64
  %f = arith.constant 1.0 : f32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_bwd: the mask's batch and heads must be 1 or the problem's}}
  call @amp_gpu_attention_bwd(%t, %b2, %l, %l, %l, %l, %l, %l, %p, %p, %p, %p, %p, %p, %keep, %p, %b3, %l, %f, %i, %p, %p, %p, %p) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}
