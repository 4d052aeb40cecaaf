// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// Contractions, reductions, softmax, losses and data movement. Contractions
// and reductions are linalg.generic ops accumulating into a zero- (or -inf-)
// filled f32 tensor whatever the input type; a final all-parallel generic
// rounds to the result type (and adds the bias, or divides the mean).

//===----------------------------------------------------------------------===//
// matmul: loops (batch..., m, n, k), k the reduction
//===----------------------------------------------------------------------===//

// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[MM:.+]] = linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[FILL]] : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4x16xf32>
// CHECK-NEXT: return %[[MM]] : tensor<4x16xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = amp.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// lhs is [k, m].
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_lhs
// CHECK-SAME: (%[[A:.+]]: tensor<8x4xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<8x4xf32>, tensor<8x16xf32>) outs(%[[FILL]] : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @matmul_transpose_lhs(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = amp.matmul %a, %b {transpose_lhs} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// rhs is [n, k].
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_rhs
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<16x8xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<16x8xf32>) outs(%[[FILL]] : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @matmul_transpose_rhs(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %0 = amp.matmul %a, %b {transpose_rhs} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Both operands batched: the batch loop indexes both.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME: (%[[A:.+]]: tensor<2x4x8xf32>, %[[B:.+]]: tensor<2x8x16xf32>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<2x4x16xf32>
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<2x4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%[[FILL]] : tensor<2x4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @matmul_batched(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = amp.matmul %a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// A 2-d rhs is shared by every batch: its map has no batch loop. Here with
// transpose_rhs as well.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_shared_rhs
// CHECK-SAME: (%[[A:.+]]: tensor<3x4x8xf32>, %[[B:.+]]: tensor<16x8xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<3x4x8xf32>, tensor<16x8xf32>) outs(%[[FILL]] : tensor<3x4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @matmul_shared_rhs(%a: tensor<3x4x8xf32>, %b: tensor<16x8xf32>) -> tensor<3x4x16xf32> {
  %0 = amp.matmul %a, %b {transpose_rhs} : tensor<3x4x8xf32>, tensor<16x8xf32> -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// A 2-d lhs is shared by every batch.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_shared_lhs
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<2x8x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<2x8x16xf32>) outs(%{{.+}} : tensor<2x4x16xf32>)
func.func @matmul_shared_lhs(%a: tensor<4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = amp.matmul %a, %b : tensor<4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// f16 operands, f16 result: products are summed in an f32 accumulator and
// the sum is rounded to f16 once, in a second generic.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf16>, %[[B:.+]]: tensor<8x16xf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[ACCUM:.+]] = linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8x16xf16>) outs(%[[FILL]] : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4x16xf32>
// CHECK: %[[EMPTY16:.+]] = tensor.empty() : tensor<4x16xf16>
// CHECK: %[[ROUND:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[ACCUM]] : tensor<4x16xf32>) outs(%[[EMPTY16]] : tensor<4x16xf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK-NEXT: } -> tensor<4x16xf16>
// CHECK-NEXT: return %[[ROUND]] : tensor<4x16xf16>
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = amp.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// bf16 operands with an f32 result: the accumulator is the result, nothing
// is rounded.
// CHECK-LABEL: func.func @matmul_bf16_to_f32
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xbf16>, %[[B:.+]]: tensor<8x16xbf16>)
// CHECK: %[[ACCUM:.+]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4x16xf32>
// CHECK-NEXT: return %[[ACCUM]] : tensor<4x16xf32>
func.func @matmul_bf16_to_f32(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xf32> {
  %0 = amp.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// linear: input [..., in] x weight [out, in]^T (+ bias [out])
//===----------------------------------------------------------------------===//

// Loops (lead..., out, in); the bias is added in f32 in the rounding generic.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$BIAS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @linear_bias_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<2x8x16xbf16>, %[[W:.+]]: tensor<32x16xbf16>, %[[B:.+]]: tensor<32xbf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<2x8x32xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
// CHECK: %[[ACCUM:.+]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<2x8x16xbf16>, tensor<32x16xbf16>) outs(%[[FILL]] : tensor<2x8x32xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.+]]: bf16, %[[WV:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[XV]] : bf16 to f32
// CHECK-NEXT: %[[WW:.+]] = arith.extf %[[WV]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[WX]], %[[WW]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[EMPTYBF:.+]] = tensor.empty() : tensor<2x8x32xbf16>
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$BIAS]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[ACCUM]], %[[B]] : tensor<2x8x32xf32>, tensor<32xbf16>) outs(%[[EMPTYBF]] : tensor<2x8x32xbf16>)
// CHECK-NEXT: ^bb0(%[[SUMV:.+]]: f32, %[[BV:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WB:.+]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[SUMV]], %[[WB]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[ADD]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[RES]] : tensor<2x8x32xbf16>
func.func @linear_bias_bf16(%x: tensor<2x8x16xbf16>, %w: tensor<32x16xbf16>, %b: tensor<32xbf16>) -> tensor<2x8x32xbf16> {
  %0 = amp.linear %x, %w, %b : (tensor<2x8x16xbf16>, tensor<32x16xbf16>, tensor<32xbf16>) -> tensor<2x8x32xbf16>
  return %0 : tensor<2x8x32xbf16>
}

// -----

// Without a bias an f16 result is only rounded.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @linear_no_bias_f16
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf16>, %[[W:.+]]: tensor<4x16xf16>)
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK: %[[ACCUM:.+]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<8x16xf16>, tensor<4x16xf16>) outs(%[[FILL]] : tensor<8x4xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.+]]: f16, %[[WV:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[XV]] : f16 to f32
// CHECK-NEXT: %[[WW:.+]] = arith.extf %[[WV]] : f16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[WX]], %[[WW]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[ACCUM]] : tensor<8x4xf32>) outs(%{{.+}} : tensor<8x4xf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[RES]] : tensor<8x4xf16>
func.func @linear_no_bias_f16(%x: tensor<8x16xf16>, %w: tensor<4x16xf16>) -> tensor<8x4xf16> {
  %0 = amp.linear %x, %w : (tensor<8x16xf16>, tensor<4x16xf16>) -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

// A 1-d input, f32 throughout: the bias generic has no conversions.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @linear_1d
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[ACCUM:.+]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<16xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel"]} ins(%[[ACCUM]], %[[B]] : tensor<8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[SUMV:.+]]: f32, %[[BV:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[SUMV]], %[[BV]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: return %[[RES]] : tensor<8xf32>
func.func @linear_1d(%x: tensor<16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = amp.linear %x, %w, %b : (tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// keep_dims: the reduced [2, 4] tensor is reshaped to [2, 1, 4] through a
// collapse to 1-d and an expand.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$DROP1:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_sum_keep_dims_f16
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP1]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf16>) outs(%[[FILL]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[EMPTY16:.+]] = tensor.empty() : tensor<2x4xf16>
// CHECK: %[[ROUND:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[SUM]] : tensor<2x4xf32>) outs(%[[EMPTY16]] : tensor<2x4xf16>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[ROUND]] {{\[}}[0, 1]] : tensor<2x4xf16> into tensor<8xf16>
// CHECK: %[[KEPT:.+]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1, 2]] output_shape [2, 1, 4] : tensor<8xf16> into tensor<2x1x4xf16>
// CHECK: return %[[KEPT]] : tensor<2x1x4xf16>
func.func @reduce_sum_keep_dims_f16(%x: tensor<2x3x4xf16>) -> tensor<2x1x4xf16> {
  %0 = amp.reduce_sum %x {axes = array<i64: 1>, keep_dims} : tensor<2x3x4xf16> -> tensor<2x1x4xf16>
  return %0 : tensor<2x1x4xf16>
}

// -----

// Negative axes; the mean divides the f32 sum by the number of reduced
// elements (3 * 4) before rounding to bf16.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEEP0:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reduce_mean_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xbf16>)
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$KEEP0]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4xbf16>) outs(%[[FILL]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<2xf32>) outs(%{{.+}} : tensor<2xbf16>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT: %[[N:.+]] = arith.constant 1.200000e+01 : f32
// CHECK-NEXT: %[[DIV:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[DIV]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[MEAN]] : tensor<2xbf16>
func.func @reduce_mean_bf16(%x: tensor<2x3x4xbf16>) -> tensor<2xbf16> {
  %0 = amp.reduce_mean %x {axes = array<i64: -1, -2>} : tensor<2x3x4xbf16> -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// -----

// All axes, keep_dims, f32 result of f16 input: a 0-d accumulator, the mean
// division, then the 0-d value is expanded to [1, 1].
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @reduce_mean_all_keep_dims
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<f32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<f32>) -> tensor<f32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<4x8xf16>) outs(%[[FILL]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]]], iterator_types = []} ins(%[[SUM]] : tensor<f32>) outs(%{{.+}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.constant 3.200000e+01 : f32
// CHECK-NEXT: %[[DIV:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[DIV]] : f32
// CHECK: %[[E1:.+]] = tensor.expand_shape %[[MEAN]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[E2:.+]] = tensor.expand_shape %[[E1]] {{\[}}[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
// CHECK: return %[[E2]] : tensor<1x1xf32>
func.func @reduce_mean_all_keep_dims(%x: tensor<4x8xf16>) -> tensor<1x1xf32> {
  %0 = amp.reduce_mean %x {axes = array<i64: 0, 1>, keep_dims} : tensor<4x8xf16> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// reduce_max starts from -inf and combines with maximumf.
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$KEEP1:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reduce_max_keep_dims_f16
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[EMPTY]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$KEEP1]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<4x8xf16>) outs(%[[FILL]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[ROUND:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[MAX]] : tensor<8xf32>) outs(%{{.+}} : tensor<8xf16>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: %[[KEPT:.+]] = tensor.expand_shape %[[ROUND]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf16> into tensor<1x8xf16>
// CHECK: return %[[KEPT]] : tensor<1x8xf16>
func.func @reduce_max_keep_dims_f16(%x: tensor<4x8xf16>) -> tensor<1x8xf16> {
  %0 = amp.reduce_max %x {axes = array<i64: 0>, keep_dims} : tensor<4x8xf16> -> tensor<1x8xf16>
  return %0 : tensor<1x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

// softmax = exp(x - max) / sum(exp(x - max)): a max reduction, a sum
// reduction reading the max, and an elementwise generic reading both.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_f16
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf16>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x8xf16>) outs(%[[MAXINIT]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<2x8xf16>, tensor<2xf32>) outs(%[[SUMINIT]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %[[MV:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[SHIFT:.+]] = arith.subf %[[W]], %[[MV]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[SHIFT]] : f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<2x8xf16>
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x8xf16>, tensor<2xf32>, tensor<2xf32>) outs(%[[EMPTY]] : tensor<2x8xf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %[[MV:.+]]: f32, %[[SV:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[SHIFT:.+]] = arith.subf %[[W]], %[[MV]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[SHIFT]] : f32
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[E]], %[[SV]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[RES]] : tensor<2x8xf16>
func.func @softmax_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = amp.softmax %x {axis = -1 : i64} : tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))), here along axis 0.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax_f32
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$COL]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<4x8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[MV:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[SHIFT:.+]] = arith.subf %[[V]], %[[MV]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[SHIFT]] : f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$COL]], #[[$COL]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[MV:.+]]: f32, %[[SV:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SHIFT:.+]] = arith.subf %[[V]], %[[MV]] : f32
// CHECK-NEXT: %[[LOG:.+]] = math.log %[[SV]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[SHIFT]], %[[LOG]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: return %[[RES]] : tensor<4x8xf32>
func.func @log_softmax_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = amp.log_softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// cross_entropy = mean over rows of log(sum(exp(x - max))) + max - x[label].
// The label's logit is a reduction over the classes that adds x where the
// class index (linalg.index 1) equals the label.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @cross_entropy_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<4x10xbf16>, %[[L:.+]]: tensor<4xi64>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x10xbf16>) outs(%[[MAXINIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<4x10xbf16>, tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: bf16, %[[MV:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[SHIFT:.+]] = arith.subf %[[W]], %[[MV]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[SHIFT]] : f32
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PICKINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[PICKED:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[L]] : tensor<4x10xbf16>, tensor<4xi64>) outs(%[[PICKINIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: bf16, %[[LV:.+]]: i64, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[CLASS:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[LABEL:.+]] = arith.index_cast %[[LV]] : i64 to index
// CHECK-NEXT: %[[HIT:.+]] = arith.cmpi eq, %[[CLASS]], %[[LABEL]] : index
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: %[[SEL:.+]] = arith.select %[[HIT]], %[[ADD]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[SEL]] : f32
// CHECK: %[[ROWLOSS:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[MAX]], %[[SUM]], %[[PICKED]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[MV:.+]]: f32, %[[SV:.+]]: f32, %[[PV:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[LOG:.+]] = math.log %[[SV]] : f32
// CHECK-NEXT: %[[LSE:.+]] = arith.addf %[[LOG]], %[[MV]] : f32
// CHECK-NEXT: %[[LOSS:.+]] = arith.subf %[[LSE]], %[[PV]] : f32
// CHECK-NEXT: linalg.yield %[[LOSS]] : f32
// CHECK: %[[TOTINIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[TOTAL:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ALL]]], iterator_types = ["reduction"]} ins(%[[ROWLOSS]] : tensor<4xf32>) outs(%[[TOTINIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]]], iterator_types = []} ins(%[[TOTAL]] : tensor<f32>) outs(%{{.+}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[DIV:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[DIV]] : f32
// CHECK: return %[[MEAN]] : tensor<f32>
func.func @cross_entropy_bf16(%x: tensor<4x10xbf16>, %labels: tensor<4xi64>) -> tensor<f32> {
  %0 = amp.cross_entropy %x, %labels : tensor<4x10xbf16>, tensor<4xi64>
  return %0 : tensor<f32>
}

// -----

// i32 labels are cast to index the same way.
// CHECK-LABEL: func.func @cross_entropy_i32_labels
// CHECK: ^bb0(%{{.+}}: f32, %[[LV:.+]]: i32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[CLASS:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[LABEL:.+]] = arith.index_cast %[[LV]] : i32 to index
// CHECK-NEXT: arith.cmpi eq, %[[CLASS]], %[[LABEL]] : index
func.func @cross_entropy_i32_labels(%x: tensor<2x5xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %0 = amp.cross_entropy %x, %labels : tensor<2x5xf32>, tensor<2xi32>
  return %0 : tensor<f32>
}

// -----

// mse_loss = mean((p - t)^2), the squares in f32.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @mse_loss_f16
// CHECK-SAME: (%[[P:.+]]: tensor<4x3xf16>, %[[T:.+]]: tensor<4x3xf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[T]] : tensor<4x3xf16>, tensor<4x3xf16>) outs(%[[EMPTY]] : tensor<4x3xf32>)
// CHECK-NEXT: ^bb0(%[[PV:.+]]: f16, %[[TV:.+]]: f16, %{{.+}}: f32):
// CHECK-DAG: %[[WP:.+]] = arith.extf %[[PV]] : f16 to f32
// CHECK-DAG: %[[WT:.+]] = arith.extf %[[TV]] : f16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[WP]], %[[WT]] : f32
// CHECK-NEXT: %[[D2:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[D2]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[TOTAL:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[SQ]] : tensor<4x3xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]]], iterator_types = []} ins(%[[TOTAL]] : tensor<f32>) outs(%{{.+}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.constant 1.200000e+01 : f32
// CHECK-NEXT: %[[DIV:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[DIV]] : f32
// CHECK: return %[[MEAN]] : tensor<f32>
func.func @mse_loss_f16(%p: tensor<4x3xf16>, %t: tensor<4x3xf16>) -> tensor<f32> {
  %0 = amp.mse_loss %p, %t : tensor<4x3xf16>
  return %0 : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement, constants
//===----------------------------------------------------------------------===//

// A reshape flattens to 1-d (collapse_shape) then expands to the target.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf16>, %[[B:.+]]: tensor<24xi32>, %[[S:.+]]: tensor<f32>, %[[O:.+]]: tensor<1x1xbf16>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf16> into tensor<24xf16>
// CHECK-NEXT: %[[R0:.+]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [6, 4] : tensor<24xf16> into tensor<6x4xf16>
// CHECK-NEXT: %[[R1:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf16> into tensor<24xf16>
// CHECK-NEXT: %[[R2:.+]] = tensor.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xi32> into tensor<4x6xi32>
// CHECK-NEXT: %[[S1:.+]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK-NEXT: %[[R3:.+]] = tensor.expand_shape %[[S1]] {{\[}}[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
// CHECK-NEXT: %[[O1:.+]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1]] : tensor<1x1xbf16> into tensor<1xbf16>
// CHECK-NEXT: %[[R4:.+]] = tensor.collapse_shape %[[O1]] [] : tensor<1xbf16> into tensor<bf16>
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]]
func.func @reshape(%a: tensor<2x3x4xf16>, %b: tensor<24xi32>, %s: tensor<f32>, %o: tensor<1x1xbf16>) -> (tensor<6x4xf16>, tensor<24xf16>, tensor<4x6xi32>, tensor<1x1xf32>, tensor<bf16>) {
  %0 = amp.reshape %a : tensor<2x3x4xf16> -> tensor<6x4xf16>
  %1 = amp.reshape %a : tensor<2x3x4xf16> -> tensor<24xf16>
  %2 = amp.reshape %b : tensor<24xi32> -> tensor<4x6xi32>
  %3 = amp.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %4 = amp.reshape %o : tensor<1x1xbf16> -> tensor<bf16>
  return %0, %1, %2, %3, %4 : tensor<6x4xf16>, tensor<24xf16>, tensor<4x6xi32>, tensor<1x1xf32>, tensor<bf16>
}

// -----

// amp.transpose and linalg.transpose share the convention: result dimension
// i is input dimension permutation[i].
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xbf16>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<4x2x3xbf16>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xbf16>) outs(%[[EMPTY]] : tensor<4x2x3xbf16>) permutation = [2, 0, 1]
// CHECK: return %[[T]] : tensor<4x2x3xbf16>
func.func @transpose(%x: tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16> {
  %0 = amp.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xbf16> -> tensor<4x2x3xbf16>
  return %0 : tensor<4x2x3xbf16>
}

// -----

// Broadcasting aligns trailing dimensions; a size-1 input dimension is read
// at index 0 and a missing one is not read at all. The body is a copy.
// CHECK-DAG: #[[$TRAIL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$UNIT:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<3x1xi32>, %[[C:.+]]: tensor<f16>)
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[R0:.+]] = linalg.generic {indexing_maps = [#[[$TRAIL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%[[E0]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<2x3x4xi32>
// CHECK: %[[R1:.+]] = linalg.generic {indexing_maps = [#[[$UNIT]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<3x1xi32>) outs(%[[E1]] : tensor<2x3x4xi32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<2x3xf16>
// CHECK: %[[R2:.+]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : tensor<f16>) outs(%[[E2]] : tensor<2x3xf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: linalg.yield %[[V]] : f16
// CHECK: return %[[R0]], %[[R1]], %[[R2]]
func.func @broadcast(%a: tensor<4xf32>, %b: tensor<3x1xi32>, %c: tensor<f16>) -> (tensor<2x4xf32>, tensor<2x3x4xi32>, tensor<2x3xf16>) {
  %0 = amp.broadcast %a : tensor<4xf32> -> tensor<2x4xf32>
  %1 = amp.broadcast %b : tensor<3x1xi32> -> tensor<2x3x4xi32>
  %2 = amp.broadcast %c : tensor<f16> -> tensor<2x3xf16>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x3x4xi32>, tensor<2x3xf16>
}

// -----

// Offsets are the starts, sizes the result shape, strides the strides.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x8xf16>)
// CHECK: %[[S:.+]] = tensor.extract_slice %[[X]][1, 1, 0] [1, 2, 3] [1, 1, 3] : tensor<2x3x8xf16> to tensor<1x2x3xf16>
// CHECK: return %[[S]] : tensor<1x2x3xf16>
func.func @slice(%x: tensor<2x3x8xf16>) -> tensor<1x2x3xf16> {
  %0 = amp.slice %x {starts = array<i64: 1, 1, 0>, limits = array<i64: 2, 3, 8>, strides = array<i64: 1, 1, 3>} : tensor<2x3x8xf16> -> tensor<1x2x3xf16>
  return %0 : tensor<1x2x3xf16>
}

// -----

// Each input is inserted at the running offset along the (negative) axis.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x1xf32>, %[[C:.+]]: tensor<2x4xf32>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK-NEXT: %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[EMPTY]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
// CHECK-NEXT: %[[I1:.+]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x8xf32>
// CHECK-NEXT: %[[I2:.+]] = tensor.insert_slice %[[C]] into %[[I1]][0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
// CHECK-NEXT: return %[[I2]] : tensor<2x8xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %0 = amp.concat %a, %b, %c {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// amp.constant becomes arith.constant with the same value; amp.seed is a
// 0-d f32 one, whatever the loss it is tied to.
// CHECK-LABEL: func.func @constant_and_seed
// CHECK-SAME: (%[[LOSS:.+]]: tensor<f32>)
// CHECK-DAG: %[[C0:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf16>
// CHECK-DAG: %[[C1:.+]] = arith.constant dense<[0, 1, 2]> : tensor<3xi64>
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NOT: amp.
// CHECK: return %[[C0]], %[[C1]], %[[ONE]] : tensor<2x2xf16>, tensor<3xi64>, tensor<f32>
func.func @constant_and_seed(%loss: tensor<f32>) -> (tensor<2x2xf16>, tensor<3xi64>, tensor<f32>) {
  %0 = amp.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %1 = amp.constant dense<[0, 1, 2]> : tensor<3xi64>
  %2 = amp.seed %loss
  return %0, %1, %2 : tensor<2x2xf16>, tensor<3xi64>, tensor<f32>
}
