// amp-gpu-cost-report on the strided calls of cuDNN fused attention
// (amp_gpu_attention_fwd_strided / _bwd_strided, include/amp/Runtime/
// Attention.h: four int64_t of layout per tensor before the stream): their
// views keep head_dim contiguous, so they are counted as the dense calls
// (the first two of gpu-cost-report-attention.mlir, the same problem: bf16,
// causal, batch 2, heads 4 over 2, seq 8, d 16, dv 8), and a wrong operand
// count is an error naming the call.
// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-gpu-cost-report="output= summary=-" -o /dev/null | FileCheck %s

// CHECK: == step ==
// CHECK-NEXT: # what
// CHECK-NEXT: 0 attention fwd bf16 causal 2x4/2x8/8x16/8 3584 1280 13824
// CHECK-NEXT: 1 attention bwd bf16 causal 2x4/2x8/8x16/8 10240 7936 36864
// CHECK-NEXT: total: 0 launches, 0 GEMMs, 2 attention calls, 0 syncs, 0 allocations, 23040 bytes, 50688 FLOPs

module {
  func.func private @amp_gpu_attention_fwd_strided(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr)
  func.func private @amp_gpu_attention_bwd_strided(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr)
  func.func @step(%p: !llvm.ptr, %stream: !llvm.ptr) {
    %bf16 = arith.constant 2 : i32
    %none = arith.constant 0 : i32
    %causal = arith.constant 1 : i32
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %c4 = arith.constant 4 : i64
    %c8 = arith.constant 8 : i64
    %c16 = arith.constant 16 : i64
    %scale = arith.constant 0.25 : f32
    call @amp_gpu_attention_fwd_strided(%bf16, %c2, %c4, %c2, %c8, %c8, %c16, %c8, %p, %p, %p, %none, %p, %c0, %c0, %scale, %causal, %p, %p, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
    call @amp_gpu_attention_bwd_strided(%bf16, %c2, %c4, %c2, %c8, %c8, %c16, %c8, %p, %p, %p, %p, %p, %p, %none, %p, %c0, %c0, %scale, %causal, %p, %p, %p, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
    return
  }
}

// -----

func.func private @amp_gpu_attention_fwd_strided(i32, !llvm.ptr)
func.func @short(%p: !llvm.ptr) {
  %c = arith.constant 2 : i32
  // expected-error @below {{amp-gpu-cost-report: amp_gpu_attention_fwd_strided takes 36 operands, this call has 2}}
  call @amp_gpu_attention_fwd_strided(%c, %p) : (i32, !llvm.ptr) -> ()
  return
}
