// amp-gpu-cost-report on cuDNN fused attention calls (amp_gpu_attention_fwd
// and amp_gpu_attention_bwd, include/amp/Runtime/Attention.h): FLOPs of the
// matrix products over the (query, key) pairs the softmax sees, N, bytes of
// the operands, results and f32 row statistics; no N x N tensor. By hand,
// with elt the dtype's bytes, H = batch * heads_q, |x| elements:
//   forward  FLOPs 2 H N (d + dv); read elt (|q| + |k| + |v|) + mask,
//            written elt |o| + 4 H seq_q (lse);
//   backward FLOPs 2 H N (3 d + 2 dv); read elt (|q| + |k| + |v| + |o| +
//            |do|) + 4 H seq_q (lse) + 4 H seq_q (D) + 4 H seq_q d (the
//            f32 dQ accumulator read back) + mask, written elt (|dq| + |dk|
//            + |dv|) + 4 H seq_q (D) + 4 H seq_q d (dQ accumulator).
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json summary=%t/summary.txt" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=TABLE < %t/summary.txt
// RUN: FileCheck %s --check-prefix=JSON < %t/cost.json
// With the H200 model (attention_efficiency forward 0.30, backward 0.25 of
// the 989.4e12 dense bf16 peak) on gpt2_block's attention (@gpt2):
// RUN: amp-opt %s --amp-gpu-cost-report="device=h200 output=%t/h200.json summary=-" -o %t/out.mlir | FileCheck %s --check-prefix=MODEL
// A devices file without the attention efficiency is refused.
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); del d['devices']['h200']['attention_efficiency']; json.dump(d, open(sys.argv[2], 'w'))" %amp_src_root/data/devices.json %t/no-attention.json
// RUN: not amp-opt %s --amp-gpu-cost-report="device=h200 devices=%t/no-attention.json" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NO-EFFICIENCY

// @step, five calls:
// 0 forward, bf16, causal, batch 2, heads 4 over 2 key heads, seq 8, d 16,
//   dv 8: N = 8 * 9 / 2 = 36 (64 without the causal mask), H = 8.
//   FLOPs 2 * 8 * 36 * 24 = 13824. |q| 8*8*16 = 1024, |k| 2*2*8*16 = 512,
//   |v| 2*2*8*8 = 256, |o| 8*8*8 = 512. Read 2 * 1792 = 3584, written
//   2 * 512 + 4 * 8 * 8 = 1280.
// 1 its backward: FLOPs 2 * 8 * 36 * (48 + 16) = 36864. Read 2 * (1792 +
//   2 * 512) + 2 * 256 + 4 * 64 * 16 = 10240, written 2 * 1792 + 256 + 4096
//   = 7936.
// 2 forward, f16, not causal, seq_q 4, seq_kv 8, batch 2, 4 heads, d = dv =
//   8, an additive f32 mask broadcast over the batch [1, 4, 4, 8]: N = 32,
//   FLOPs 2 * 8 * 32 * 16 = 8192. |q| = |o| = 256, |k| = |v| = 512, mask
//   512 B. Read 2 * 1280 + 512 = 3072, written 2 * 256 + 4 * 8 * 4 = 640.
// 3 forward, bf16, causal with seq_q 6 > seq_kv 4 (top-left: query i sees
//   keys 0..i), a keep mask [1, 1, 6, 4] of bytes: N = 1 + 2 + 3 + 4 + 4 + 4
//   = 18, FLOPs 2 * 18 * 16 = 576. |q| = |o| = 48, |k| = |v| = 32. Read
//   2 * 112 + 24 = 248, written 96 + 24 = 120.
// 4 backward, bf16, causal with seq_q 4 < seq_kv 6, keep mask [1, 1, 4, 6]:
//   N = 1 + 2 + 3 + 4 = 10, FLOPs 2 * 10 * (24 + 16) = 800. |q| = |o| = 32,
//   |k| = |v| = 48. Read 2 * (128 + 64) + 2 * 16 + 4 * 4 * 8 + 24 = 568,
//   written 2 * 128 + 16 + 128 = 400.
// Total FLOPs 13824 + 36864 + 8192 + 576 + 800 = 60256; bytes 4864 + 18176
// + 3712 + 368 + 968 = 28088.

// TABLE: == step ==
// TABLE-NEXT: # what
// TABLE-NEXT: 0 attention fwd bf16 causal 2x4/2x8/8x16/8 3584 1280 13824
// TABLE-NEXT: 1 attention bwd bf16 causal 2x4/2x8/8x16/8 10240 7936 36864
// TABLE-NEXT: 2 attention fwd f16 add 2x4/4x4/8x8/8 3072 640 8192
// TABLE-NEXT: 3 attention fwd bf16 causal keep 1x1/1x6/4x8/8 248 120 576
// TABLE-NEXT: 4 attention bwd bf16 causal keep 1x1/1x4/6x8/8 568 400 800
// TABLE-NEXT: total: 0 launches, 0 GEMMs, 5 attention calls, 0 syncs, 0 allocations, 28088 bytes, 60256 FLOPs

// JSON: "attentions": 5,
// JSON: "batch": 2,
// JSON-NEXT: "bytes_read": 3584,
// JSON-NEXT: "bytes_written": 1280,
// JSON-NEXT: "causal": true,
// JSON-NEXT: "direction": "forward",
// JSON-NEXT: "dtype": "bf16",
// JSON-NEXT: "flops": 13824,
// JSON-NEXT: "head_dim": 16,
// JSON-NEXT: "head_dim_v": 8,
// JSON-NEXT: "heads_kv": 2,
// JSON-NEXT: "heads_q": 4,
// JSON-NEXT: "kernels": 1,
// JSON-NEXT: "kind": "attention",
// JSON-NEXT: "seq_kv": 8,
// JSON-NEXT: "seq_q": 8,
// JSON-NEXT: "visible_pairs": 36
// JSON: "direction": "backward",
// JSON: "flops": 36864,
// JSON: "kernels": 3,
// JSON: "causal": false,
// JSON-NEXT: "direction": "forward",
// JSON-NEXT: "dtype": "f16",
// JSON: "mask": "add",
// JSON: "visible_pairs": 32
// JSON: "mask": "keep",
// JSON: "visible_pairs": 18
// JSON: "direction": "backward",
// JSON: "mask": "keep",
// JSON: "visible_pairs": 10
// JSON: "attentions": 0,
// JSON: "gemms": 0,
// JSON-NEXT: "launches": 0,
// JSON-NEXT: "name": "no_attention",

// @gpt2: gpt2_block's attention (batch 8, 12 heads, seq 1024, d 64, causal,
// bf16). N = 1024 * 1025 / 2 = 524800, H = 96, |q| = |k| = |v| = |o| =
// 96 * 1024 * 64 = 6291456.
// Forward: FLOPs 2 * 96 * 524800 * 128 = 12897484800, at 0.30 * 989.4e12 =
// 43.452 us; bytes 2 * 4 * 6291456 + 4 * 96 * 1024 = 50724864, 10.6 us at
// 4.8e12 B/s: compute-bound, 43.452 + 3 us (one launch) = 46.452 us.
// Backward: FLOPs 2 * 96 * 524800 * 320 = 32243712000, at 0.25 * 989.4e12 =
// 130.356 us; bytes 152174592 (31.7 us): 130.356 + 3 * 3 us (three
// kernels) = 139.356 us.
// MODEL: == gpt2 (modeled on h200) ==
// MODEL: 0 attention fwd bf16 causal 8x12/12x1024/1024x64/64 37748736 12976128 12897484800 46.45
// MODEL-NEXT: 1 attention bwd bf16 causal 8x12/12x1024/1024x64/64 88866816 63307776 32243712000 139.36
// MODEL-NEXT: total: {{.*}}, modeled 0.186 ms

// NO-EFFICIENCY: error: amp-gpu-cost-report: device model 'h200' in '{{.*}}no-attention.json': "attention_efficiency" must be {"forward": fraction, "backward": fraction} with 0 < fraction <= 1

module {
  func.func private @amp_gpu_attention_fwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
  func.func private @amp_gpu_attention_bwd(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
  func.func @step(%p: !llvm.ptr, %stream: !llvm.ptr) {
    %f16 = arith.constant 1 : i32
    %bf16 = arith.constant 2 : i32
    %none = arith.constant 0 : i32
    %keep = arith.constant 1 : i32
    %add = arith.constant 2 : i32
    %causal = arith.constant 1 : i32
    %full = arith.constant 0 : i32
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c4 = arith.constant 4 : i64
    %c6 = arith.constant 6 : i64
    %c8 = arith.constant 8 : i64
    %c16 = arith.constant 16 : i64
    %scale = arith.constant 0.25 : f32
    call @amp_gpu_attention_fwd(%bf16, %c2, %c4, %c2, %c8, %c8, %c16, %c8, %p, %p, %p, %none, %p, %c0, %c0, %scale, %causal, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_attention_bwd(%bf16, %c2, %c4, %c2, %c8, %c8, %c16, %c8, %p, %p, %p, %p, %p, %p, %none, %p, %c0, %c0, %scale, %causal, %p, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_attention_fwd(%f16, %c2, %c4, %c4, %c4, %c8, %c8, %c8, %p, %p, %p, %add, %p, %c1, %c4, %scale, %full, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_attention_fwd(%bf16, %c1, %c1, %c1, %c6, %c4, %c8, %c8, %p, %p, %p, %keep, %p, %c1, %c1, %scale, %causal, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_attention_bwd(%bf16, %c1, %c1, %c1, %c4, %c6, %c8, %c8, %p, %p, %p, %p, %p, %p, %keep, %p, %c1, %c1, %scale, %causal, %p, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    return
  }

  // Other calls are not attention.
  func.func private @amp_gpu_attention_fwd_other(i32)
  func.func @no_attention() {
    %c = arith.constant 0 : i32
    call @amp_gpu_attention_fwd_other(%c) : (i32) -> ()
    return
  }

  func.func @gpt2(%p: !llvm.ptr, %stream: !llvm.ptr) {
    %bf16 = arith.constant 2 : i32
    %none = arith.constant 0 : i32
    %causal = arith.constant 1 : i32
    %c0 = arith.constant 0 : i64
    %c8 = arith.constant 8 : i64
    %c12 = arith.constant 12 : i64
    %c1024 = arith.constant 1024 : i64
    %c64 = arith.constant 64 : i64
    %scale = arith.constant 0.125 : f32
    call @amp_gpu_attention_fwd(%bf16, %c8, %c12, %c12, %c1024, %c1024, %c64, %c64, %p, %p, %p, %none, %p, %c0, %c0, %scale, %causal, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_attention_bwd(%bf16, %c8, %c12, %c12, %c1024, %c1024, %c64, %c64, %p, %p, %p, %p, %p, %p, %none, %p, %c0, %c0, %scale, %causal, %p, %p, %p, %stream) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    return
  }
}
