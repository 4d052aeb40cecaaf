// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file --mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s

// Round trip of amp.attention and amp.attention_grad: optional mask and
// seed, grouped-query heads, bf16 operands with an f32 additive mask.

// CHECK-LABEL: func.func @plain
// CHECK: %{{.*}}, %{{.*}} = amp.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
func.func @plain(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>,
                 %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %o, %lse = amp.attention %q, %k, %v {scale = 0.125 : f64, causal}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_masked
// CHECK: amp.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} seed %{{.*}} {dropout = 1.000000e-01 : f64, scale = 2.500000e-01 : f64} : (tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>, tensor<1x1x6x10xf32>, tensor<i64>) -> (tensor<1x4x6x4xbf16>, tensor<1x4x6xf32>)
// CHECK: amp.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} seed %{{.*}} {dropout = 1.000000e-01 : f64, scale = 2.500000e-01 : f64} : (tensor<1x4x6x4xbf16>, tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>, tensor<1x4x6x4xbf16>, tensor<1x4x6xf32>, tensor<1x1x6x10xf32>, tensor<i64>) -> (tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>)
func.func @grouped_masked(%q: tensor<1x4x6x8xbf16>, %k: tensor<1x2x10x8xbf16>,
                          %v: tensor<1x2x10x4xbf16>, %m: tensor<1x1x6x10xf32>,
                          %seed: tensor<i64>, %g: tensor<1x4x6x4xbf16>)
    -> (tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>) {
  %o, %lse = amp.attention %q, %k, %v mask %m seed %seed
      {scale = 0.25 : f64, dropout = 0.1 : f64}
      : (tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>,
         tensor<1x1x6x10xf32>, tensor<i64>)
      -> (tensor<1x4x6x4xbf16>, tensor<1x4x6xf32>)
  %dq, %dk, %dv = amp.attention_grad %g, %q, %k, %v, %o, %lse mask %m seed %seed
      {scale = 0.25 : f64, dropout = 0.1 : f64}
      : (tensor<1x4x6x4xbf16>, tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>,
         tensor<1x2x10x4xbf16>, tensor<1x4x6x4xbf16>, tensor<1x4x6xf32>,
         tensor<1x1x6x10xf32>, tensor<i64>)
      -> (tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>)
  return %dq, %dk, %dv : tensor<1x4x6x8xbf16>, tensor<1x2x10x8xbf16>, tensor<1x2x10x4xbf16>
}

// -----

// A boolean keep mask per batch element; causal with more queries than keys.
// CHECK-LABEL: func.func @keep_mask
// CHECK: amp.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {causal, scale = 1.000000e+00 : f64} : (tensor<2x1x6x4xf16>, tensor<2x1x4x4xf16>, tensor<2x1x4x4xf16>, tensor<2x1x6x4xi1>)
func.func @keep_mask(%q: tensor<2x1x6x4xf16>, %k: tensor<2x1x4x4xf16>,
                     %v: tensor<2x1x4x4xf16>, %m: tensor<2x1x6x4xi1>)
    -> tensor<2x1x6x4xf16> {
  %o, %lse = amp.attention %q, %k, %v mask %m {scale = 1.0 : f64, causal}
      : (tensor<2x1x6x4xf16>, tensor<2x1x4x4xf16>, tensor<2x1x4x4xf16>,
         tensor<2x1x6x4xi1>)
      -> (tensor<2x1x6x4xf16>, tensor<2x1x6xf32>)
  return %o : tensor<2x1x6x4xf16>
}
