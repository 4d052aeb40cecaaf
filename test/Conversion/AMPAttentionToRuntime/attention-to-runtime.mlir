// RUN: amp-opt %s -split-input-file --convert-amp-attention-to-runtime | FileCheck %s --check-prefix=CPU
// RUN: amp-opt %s -split-input-file --convert-amp-attention-to-runtime=gpu=true | FileCheck %s --check-prefix=GPU
// RUN: amp-opt %s -split-input-file --convert-amp-attention-to-runtime=decompose=true | FileCheck %s --check-prefix=UNFUSED

// The forward of a bf16 causal attention: on the CPU one call of the flash
// kernel (dtype 2 = bf16; B, Hq, Hkv, Sq, Skv, D, Dv; q, k, v; no mask;
// scale, causal, dropout, seed; out, lse); on the GPU cuDNN's (no dropout
// arguments, a null stream last). Decomposed: the scores materialized.

// CPU-LABEL: func.func @causal_bf16
// CPU: %[[Q:.*]] = bufferization.to_buffer %arg0 read_only : tensor<2x4x8x64xbf16>
// CPU: %[[OUT:.*]] = memref.alloc() : memref<2x4x8x64xbf16>
// CPU: %[[LSE:.*]] = memref.alloc() : memref<2x4x8xf32>
// CPU: call @amp_cpu_attention_fwd(%c2_i32, %c2_i64, %c4_i64, %c4_i64{{.*}}, %c8_i64{{.*}}, %c8_i64{{.*}}, %c64_i64{{.*}}, %c64_i64{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %cst, %c1_i32, %cst_{{.*}}, %c0_i64, %{{.*}}, %{{.*}}, {{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, f32, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// CPU: %[[O:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CPU: %[[L:.*]] = bufferization.to_tensor %[[LSE]] restrict writable
// CPU: return %[[O]], %[[L]]
// CPU: func.func private @amp_cpu_attention_fwd

// GPU-LABEL: func.func @causal_bf16
// GPU: call @amp_gpu_attention_fwd_strided({{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()

// UNFUSED-LABEL: func.func @causal_bf16
// UNFUSED: amp.matmul %arg0, %arg1 {transpose_rhs} : tensor<2x4x8x64xbf16>, tensor<2x4x8x64xbf16> -> tensor<2x4x8x8xf32>
// UNFUSED: amp.constant dense<{{.*}}> : tensor<1x1x8x8xi1>
// UNFUSED: amp.reduce_max
// UNFUSED: amp.exp
// UNFUSED: amp.log
// UNFUSED-NOT: amp.attention
func.func @causal_bf16(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x4x8x64xbf16>,
                       %v: tensor<2x4x8x64xbf16>)
    -> (tensor<2x4x8x64xbf16>, tensor<2x4x8xf32>) {
  %o, %lse = amp.attention %q, %k, %v {scale = 0.125 : f64, causal}
      : (tensor<2x4x8x64xbf16>, tensor<2x4x8x64xbf16>, tensor<2x4x8x64xbf16>)
      -> (tensor<2x4x8x64xbf16>, tensor<2x4x8xf32>)
  return %o, %lse : tensor<2x4x8x64xbf16>, tensor<2x4x8xf32>
}

// -----

// The backward with a boolean keep mask: the CPU kernel takes it as bytes
// (kind 1); cuDNN takes no boolean mask, so the GPU gets it as an additive
// 0 / -inf f32 mask (kind 2). Grouped heads: dk and dv have 2 heads.

// CPU-LABEL: func.func @grad_keep_mask
// CPU: %[[M:.*]] = bufferization.to_buffer %arg6 read_only : tensor<1x1x16x16xi1>
// CPU: call @amp_cpu_attention_bwd(%c1_i32, {{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, f32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()

// GPU-LABEL: func.func @grad_keep_mask
// GPU: %[[ADD:.*]] = amp.where %arg6, %{{.*}}, %{{.*}} : tensor<1x1x16x16xi1>, tensor<1x1x16x16xf32>
// GPU: bufferization.to_buffer %[[ADD]] read_only
// GPU: call @amp_gpu_attention_bwd_strided(%c1_i32, {{.*}}, %c2_i32, {{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
func.func @grad_keep_mask(%g: tensor<1x4x16x32xf16>, %q: tensor<1x4x16x32xf16>,
                          %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>,
                          %o: tensor<1x4x16x32xf16>, %lse: tensor<1x4x16xf32>,
                          %m: tensor<1x1x16x16xi1>)
    -> (tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>) {
  %dq, %dk, %dv = amp.attention_grad %g, %q, %k, %v, %o, %lse mask %m
      {scale = 0.2 : f64}
      : (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>,
         tensor<1x2x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16xf32>,
         tensor<1x1x16x16xi1>)
      -> (tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>)
  return %dq, %dk, %dv : tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>
}

