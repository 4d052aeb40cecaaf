// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// amp.fp8_quantize: the product with the scale in f32, clamped to the
// format's largest finite value (448 for e4m3, 57344 for e5m2) by NaN-
// propagating maximum/minimum, one rounding; the amax a separate full
// reduction of |x| that propagates NaN too.

// The amax first, then the quantization over the same loops (the GPU
// backend computes it in the reduction's launch); an infinite input
// becomes NaN (x - x), a finite one saturates.
// CHECK-LABEL: func.func @quantize_e4m3
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK:   math.absf
// CHECK:   arith.maximumf
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[S:.*]]: f32, %{{.*}}: f8E4M3FN):
// CHECK:   %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK:   %[[P:.*]] = arith.mulf %[[W]], %[[S]] : f32
// CHECK:   %[[LO:.*]] = arith.constant -4.480000e+02 : f32
// CHECK:   %[[A:.*]] = arith.maximumf %[[P]], %[[LO]] : f32
// CHECK:   %[[HI:.*]] = arith.constant 4.480000e+02 : f32
// CHECK:   %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK:   %[[NAN:.*]] = arith.subf %[[W]], %[[W]] : f32
// CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[FIN:.*]] = arith.cmpf oeq, %[[NAN]], %[[ZERO]] : f32
// CHECK:   %[[C:.*]] = arith.select %[[FIN]], %[[B]], %[[NAN]] : f32
// CHECK:   %[[R:.*]] = arith.truncf %[[C]] : f32 to f8E4M3FN
// CHECK:   linalg.yield %[[R]]
func.func @quantize_e4m3(%x: tensor<4x8xbf16>, %s: tensor<f32>) -> (tensor<4x8xf8E4M3FN>, tensor<f32>) {
  %q, %amax = amp.fp8_quantize %x, %s : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>
  return %q, %amax : tensor<4x8xf8E4M3FN>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @quantize_e5m2
// CHECK: arith.constant -5.734400e+04 : f32
// CHECK: arith.constant 5.734400e+04 : f32
// CHECK: arith.truncf %{{.*}} : f32 to f8E5M2
func.func @quantize_e5m2(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xf8E5M2> {
  %q, %amax = amp.fp8_quantize %x, %s : tensor<8xf32> -> tensor<8xf8E5M2>
  return %q : tensor<8xf8E5M2>
}

// -----

// amp.fp8_matmul: an f32 contraction of the widened operands (transpose_rhs
// reads rhs as [n, k]), then one generic scaling by the product of the
// scale inverses, adding the bias and rounding once.

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RHST:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul_bias
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHST]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:   arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK:   arith.extf %{{.*}} : f8E5M2 to f32
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: linalg.generic {indexing_maps = [{{.*}}, {{.*}}, {{.*}}, #[[BIAS]], {{.*}}]
// CHECK: ^bb0(%[[ACC:.*]]: f32, %[[SA:.*]]: f32, %[[SB:.*]]: f32, %[[B:.*]]: bf16, %{{.*}}: bf16):
// CHECK:   %[[S:.*]] = arith.mulf %[[SA]], %[[SB]] : f32
// CHECK:   %[[V:.*]] = arith.mulf %[[ACC]], %[[S]] : f32
// CHECK:   %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:   %[[SUM:.*]] = arith.addf %[[V]], %[[BW]] : f32
// CHECK:   arith.truncf %[[SUM]] : f32 to bf16
func.func @matmul_bias(%a: tensor<4x8xf8E4M3FN>, %b: tensor<2x8xf8E5M2>,
                       %sa: tensor<f32>, %sb: tensor<f32>, %bias: tensor<2xbf16>) -> tensor<4x2xbf16> {
  %y = amp.fp8_matmul %a, %b, %sa, %sb, %bias {transpose_rhs}
      : tensor<4x8xf8E4M3FN>, tensor<2x8xf8E5M2>, tensor<2xbf16> -> tensor<4x2xbf16>
  return %y : tensor<4x2xbf16>
}

// -----

// transpose_lhs reads lhs as [k, m]; an f32 result is not rounded.
// CHECK-DAG: #[[LHST:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @matmul_f32
// CHECK: linalg.generic {indexing_maps = [#[[LHST]],
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @matmul_f32(%a: tensor<8x4xf8E5M2>, %b: tensor<8x2xf8E4M3FN>,
                      %sa: tensor<f32>, %sb: tensor<f32>) -> tensor<4x2xf32> {
  %y = amp.fp8_matmul %a, %b, %sa, %sb {transpose_lhs}
      : tensor<8x4xf8E5M2>, tensor<8x2xf8E4M3FN> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
