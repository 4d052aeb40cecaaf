// RUN: amp-opt %s --amp-assign-precision="precision=bf16" --amp-insert-casts | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-assign-precision="precision=fp16" --amp-insert-casts | FileCheck %s --check-prefix=FP16

// fp16 against bf16 on one graph. Besides the type, two things differ:
// TF's pass 4 (bf16 only) runs INFER ops that follow ALLOW ops low, and a
// constant fp16 cannot represent (a -1e9 attention mask overflows to -inf,
// transformers#382; bf16 has f32's range) stays f32 together with the INFER
// op that uses it.

// BF16-LABEL: func.func @masked_scores
// BF16: amp.matmul {{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
// BF16-NEXT: amp.constant {amp.precision = bf16, amp.precision_rule = "clear-next-to-allow"} dense<-9.982440e+08> : tensor<4x4xbf16>
// BF16: amp.add {{.*}}{amp.precision = bf16, amp.precision_rule = "between-allow"} : tensor<4x4xbf16>
// BF16: amp.matmul {{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
// BF16: amp.tanh {{.*}}{amp.precision = bf16, amp.precision_rule = "after-allow-bf16"} : tensor<4x4xbf16>
// BF16-NEXT: amp.cast %{{.*}} : tensor<4x4xbf16> to tensor<4x4xf32>
// BF16-NEXT: return

// FP16-LABEL: func.func @masked_scores
// FP16: amp.matmul {{.*}} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// FP16: amp.constant {amp.precision = f32, amp.precision_rule = "f32-constant (not representable in fp16)"} dense<-1.000000e+09> : tensor<4x4xf32>
// FP16: amp.add {{.*}}{amp.precision = f32, amp.precision_rule = "f32-constant (an operand is not representable in fp16)"} : tensor<4x4xf32>
// FP16: amp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xf16>
// FP16: amp.matmul {{.*}} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// FP16: amp.tanh {{.*}}{amp.precision = f32, amp.precision_rule = "unpainted"} : tensor<4x4xf32>
// FP16-NEXT: amp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xbf16>
// FP16-NEXT: amp.cast %{{.*}} : tensor<4x4xbf16> to tensor<4x4xf32>
func.func @masked_scores(%q: tensor<4x4xf32>, %v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s = amp.matmul %q, %q {transpose_rhs} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %mask = amp.constant dense<-1.0e9> : tensor<4x4xf32>
  %m = amp.add %s, %mask : tensor<4x4xf32>
  %o = amp.matmul %m, %v : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %t = amp.tanh %o : tensor<4x4xf32>
  %c = amp.cast %t : tensor<4x4xf32> to tensor<4x4xbf16>
  %r = amp.cast %c : tensor<4x4xbf16> to tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
