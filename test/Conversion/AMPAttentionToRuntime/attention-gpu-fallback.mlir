// RUN: amp-opt %s -split-input-file "--convert-amp-attention-to-runtime=gpu=true remarks=true" -verify-diagnostics | FileCheck %s

// What cuDNN refuses stays unfused on the GPU, with a remark saying why:
// f32 operands, and dropout (cuDNN's random stream is not amp's).

// CHECK-LABEL: func.func @refused
// CHECK-NOT: amp_gpu_attention
// CHECK: amp.dropout
func.func @refused(%q: tensor<1x2x8x16xf32>, %h: tensor<1x2x8x16xbf16>,
                   %s: tensor<i64>)
    -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>) {
  // expected-remark @+1 {{unfused attention (the scores materialized): R2: cuDNN's fused attention takes f16 and bf16 operands only}}
  %o, %lse = amp.attention %q, %q, %q {scale = 0.25 : f64}
      : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
      -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
  // expected-remark @+1 {{unfused attention (the scores materialized): R14: amp keeps dropout on its own kernels}}
  %p, %lse2 = amp.attention %h, %h, %h seed %s {scale = 0.25 : f64, dropout = 0.1 : f64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<i64>)
      -> (tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>)
  return %o, %p : tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>
}
