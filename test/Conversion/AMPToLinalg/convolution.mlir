// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// Convolutions and pooling are linalg.generic ops over an input padded with
// tensor.pad (zeros, or -inf for max pooling) whose maps read
// `out * stride + k * dilation`; sums accumulate in an f32 tensor started by
// linalg.fill and are rounded once at the end. Groups are exposed by
// splitting channel dimensions with tensor.expand_shape. The backward ops
// gather from a "dilated" gradient (tensor.insert_slice with the stride into
// a zero buffer) through maps `y + (K - 1) * dilation - k * dilation` and slice
// the padding off with tensor.extract_slice. The numbers are checked by
// test/Integration/CPU/convolution.mlir.

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

// Stride 2, padding [top 1, left 0, bottom 2, right 1], dilation [2, 1],
// groups 2, bias. Loops: n, g, o, oh, ow | c, kh, kw.
// CHECK-DAG: #[[$IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6 * 2, d4 * 2 + d7)>
// CHECK-DAG: #[[$W:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv2d_groups_bias
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x4x7x6xf32>, %[[W:[a-z0-9_]+]]: tensor<6x2x3x2xf32>, %[[B:[a-z0-9_]+]]: tensor<6xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 2, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<2x4x7x6xf32> to tensor<2x4x10x7xf32>
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 10, 7] : tensor<2x4x10x7xf32> into tensor<2x2x2x10x7xf32>
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 2] : tensor<6x2x3x2xf32> into tensor<2x3x2x3x2xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x2x3x3x3xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : tensor<2x2x2x10x7xf32>, tensor<2x3x2x3x2xf32>) outs(%[[INIT]] : tensor<2x2x3x3x3xf32>) {
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: f32, %[[WV:[a-z0-9_]+]]: f32, %[[AV:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[AV]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[ACC]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x3x3xf32> into tensor<2x6x3x3xf32>
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[Y]], %[[B]] : tensor<2x6x3x3xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0(%[[YV:[a-z0-9_]+]]: f32, %[[BV:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[YV]], %[[BV]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: return %[[RES]] : tensor<2x6x3x3xf32>
func.func @conv2d_groups_bias(%x: tensor<2x4x7x6xf32>, %w: tensor<6x2x3x2xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x3xf32> {
  %0 = amp.conv2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64} : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  return %0 : tensor<2x6x3x3xf32>
}

// -----

// f16 without padding: no tensor.pad, the operands are widened in the body,
// the f32 sum is rounded once to f16.
// CHECK-DAG: #[[$IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-LABEL: func.func @conv2d_f16
// CHECK-NOT: tensor.pad
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$IN]], {{.*}}} ins(%{{.+}}, %{{.+}} : tensor<1x1x3x5x5xf16>, tensor<1x4x3x3x3xf16>) outs(%{{.+}} : tensor<1x1x4x3x3xf32>) {
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: f16, %[[WV:[a-z0-9_]+]]: f16, %[[AV:[a-z0-9_]+]]: f32):
// CHECK-DAG: %[[XW:.+]] = arith.extf %[[XV]] : f16 to f32
// CHECK-DAG: %[[WW:.+]] = arith.extf %[[WV]] : f16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[XW]], %[[WW]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[AV]], %[[P]] : f32
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[ACC]] {{.*}} into tensor<1x4x3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<1x4x3x3xf32>) outs(%{{.+}} : tensor<1x4x3x3xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @conv2d_f16(%x: tensor<1x3x5x5xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x3x3xf16> {
  %0 = amp.conv2d %x, %w : (tensor<1x3x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x3x3xf16>
  return %0 : tensor<1x4x3x3xf16>
}

// -----

// The gradient is placed at [(KH-1)*dh + oh*sh, (KW-1)*dw + ow*sw] = [4 + 2 oh,
// 1 + 2 ow] of a zero [Hp + 4, Wp + 1] buffer; padded input row y reads it at
// y + 4 - 2 kh. Loops: n, g, c, y, x | o, kh, kw. The padding is sliced off.
// CHECK-DAG: #[[$G:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 - d6 * 2 + 4, d4 - d7 + 1)>
// CHECK-DAG: #[[$W:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv2d_input_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x6x3x3xf32>, %[[W:[a-z0-9_]+]]: tensor<6x2x3x2xf32>)
// CHECK: %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x6x14x8xf32>)
// CHECK: %[[DIL:.+]] = tensor.insert_slice %[[DY]] into %[[ZEROS]][0, 0, 4, 1] [2, 6, 3, 3] [1, 1, 2, 2] : tensor<2x6x3x3xf32> into tensor<2x6x14x8xf32>
// CHECK: %[[DG:.+]] = tensor.expand_shape %[[DIL]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 14, 8]
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 2]
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x2x2x10x7xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$G]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[DG]], %[[WG]] : tensor<2x2x3x14x8xf32>, tensor<2x3x2x3x2xf32>) outs(%[[INIT]] : tensor<2x2x2x10x7xf32>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: %[[DXP:.+]] = tensor.collapse_shape %[[ACC]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x2x10x7xf32> into tensor<2x4x10x7xf32>
// CHECK: %[[DX:.+]] = tensor.extract_slice %[[DXP]][0, 0, 1, 0] [2, 4, 7, 6] [1, 1, 1, 1] : tensor<2x4x10x7xf32> to tensor<2x4x7x6xf32>
// CHECK: return %[[DX]]
func.func @conv2d_input_grad(%dy: tensor<2x6x3x3xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32> {
  %0 = amp.conv2d_input_grad %dy, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64} : tensor<2x6x3x3xf32>, tensor<6x2x3x2xf32> -> tensor<2x4x7x6xf32>
  return %0 : tensor<2x4x7x6xf32>
}

// -----

// bf16 operands, f32 result: sum over n, oh, ow of grad * padded input; the
// f32 accumulator is the result (no rounding). Loops: g, o, c, kh, kw | n, oh, ow.
// CHECK-DAG: #[[$G:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d1, d6, d7)>
// CHECK-DAG: #[[$IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d2, d6 * 2 + d3 * 2, d7 * 2 + d4)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv2d_weight_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x6x3x3xbf16>, %[[X:[a-z0-9_]+]]: tensor<2x4x7x6xbf16>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 2, 1]
// CHECK: : tensor<2x4x7x6xbf16> to tensor<2x4x10x7xbf16>
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 10, 7]
// CHECK: %[[DG:.+]] = tensor.expand_shape %[[DY]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 3, 3]
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$G]], #[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[DG]], %[[XG]] : tensor<2x2x3x3x3xbf16>, tensor<2x2x2x10x7xbf16>) outs(%{{.+}} : tensor<2x3x2x3x2xf32>)
// CHECK-COUNT-2: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[DW:.+]] = tensor.collapse_shape %[[ACC]] {{\[}}[0, 1], [2], [3], [4]] : tensor<2x3x2x3x2xf32> into tensor<6x2x3x2xf32>
// CHECK-NEXT: return %[[DW]] : tensor<6x2x3x2xf32>
func.func @conv2d_weight_grad(%dy: tensor<2x6x3x3xbf16>, %x: tensor<2x4x7x6xbf16>) -> tensor<6x2x3x2xf32> {
  %0 = amp.conv2d_weight_grad %dy, %x {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64} : tensor<2x6x3x3xbf16>, tensor<2x4x7x6xbf16> -> tensor<6x2x3x2xf32>
  return %0 : tensor<6x2x3x2xf32>
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

// -inf padding; the tensor<3x2xf32> operand only gives kh, kw their bounds.
// Loops: n, c, oh, ow | kh, kw.
// CHECK-DAG: #[[$IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$WIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool2d
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x2x5x6xbf16>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF80 : bf16
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEGINF]] : bf16
// CHECK: %[[WINDOW:.+]] = tensor.empty() : tensor<3x2xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$WIN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAD]], %[[WINDOW]] : tensor<1x2x7x7xbf16>, tensor<3x2xf32>) outs(%[[INIT]] : tensor<1x2x3x3xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: bf16, %{{.+}}: f32, %[[M:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[VW:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[NEW:.+]] = arith.maximumf %[[M]], %[[VW]] : f32
// CHECK-NEXT: linalg.yield %[[NEW]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[MAX]] : tensor<1x2x3x3xf32>) outs(%{{.+}} : tensor<1x2x3x3xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @max_pool2d(%x: tensor<1x2x5x6xbf16>) -> tensor<1x2x3x3xbf16> {
  %0 = amp.max_pool2d %x {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x5x6xbf16> -> tensor<1x2x3x3xbf16>
  return %0 : tensor<1x2x3x3xbf16>
}

// -----

// A two-result reduction finds each window's maximum and its tap
// kh * KW + kw (the first maximum among the input elements; -1 before any);
// the dilated gradient and dilated taps (-1 between windows) are then
// gathered: padded row y takes the gradient at y + 2 - kh where the stored
// tap is kh * 2 + kw.
// CHECK-DAG: #[[$IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$WIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$T:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 - d4 + 2, d3 - d5 + 1)>
// CHECK-LABEL: func.func @max_pool2d_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<1x2x3x3xf32>, %[[X:[a-z0-9_]+]]: tensor<1x2x5x6xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 1]
// CHECK: %[[VALS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: %[[MINUS1:.+]] = arith.constant -1 : i64
// CHECK: %[[TAPS:.+]] = linalg.fill ins(%[[MINUS1]] : i64) outs(%{{.+}} : tensor<1x2x3x3xi64>)
// CHECK: %[[ARG:.+]]:2 = linalg.generic {indexing_maps = [#[[$IN]], #[[$WIN]], #[[$OUT]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAD]], %{{.+}} : tensor<1x2x7x7xf32>, tensor<3x2xf32>) outs(%[[VALS]], %[[TAPS]] : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{.+}}: f32, %[[BEST:[a-z0-9_]+]]: f32, %[[POS:[a-z0-9_]+]]: i64):
// CHECK-DAG: linalg.index 4 : index
// CHECK-DAG: linalg.index 5 : index
// CHECK-DAG: arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-DAG: arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-DAG: arith.cmpf ogt, %[[V]], %[[BEST]] : f32
// CHECK-DAG: arith.cmpf oeq, %[[V]], %[[BEST]] : f32
// CHECK-DAG: arith.cmpi slt, %[[TAP:.+]], %[[POS]] : i64
// CHECK: %[[NB:.+]] = arith.select %[[TAKE:.+]], %[[V]], %[[BEST]] : f32
// CHECK-NEXT: %[[NP:.+]] = arith.select %[[TAKE]], %[[TAP]], %[[POS]] : i64
// CHECK-NEXT: linalg.yield %[[NB]], %[[NP]] : f32, i64
// CHECK: %[[GZ:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x9x8xf32>)
// CHECK: %[[GD:.+]] = tensor.insert_slice %[[DY]] into %[[GZ]][0, 0, 2, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[AZ:.+]] = linalg.fill ins(%{{.+}} : i64) outs(%{{.+}} : tensor<1x2x9x8xi64>)
// CHECK: %[[AD:.+]] = tensor.insert_slice %[[ARG]]#1 into %[[AZ]][0, 0, 2, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$T]], #[[$T]], #[[$WIN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[GD]], %[[AD]], %{{.+}} : tensor<1x2x9x8xf32>, tensor<1x2x9x8xi64>, tensor<3x2xf32>) outs(%{{.+}} : tensor<1x2x7x7xf32>)
// CHECK-NEXT: ^bb0(%[[G:[a-z0-9_]+]]: f32, %[[A:[a-z0-9_]+]]: i64, %{{.+}}: f32, %[[S:[a-z0-9_]+]]: f32):
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[A]], %{{.+}} : i64
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[S]], %[[G]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.select %[[HIT]], %[[SUM]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: %[[DX:.+]] = tensor.extract_slice %[[ACC]][0, 0, 1, 0] [1, 2, 5, 6] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x6xf32>
// CHECK-NEXT: return %[[DX]]
func.func @max_pool2d_grad(%dy: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x6xf32>) -> tensor<1x2x5x6xf32> {
  %0 = amp.max_pool2d_grad %dy, %x {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32> -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// Zero padding counted in the divisor: sum / (3 * 2).
// CHECK-LABEL: func.func @avg_pool2d
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x2x5x6xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[PAD]], %{{.+}} : tensor<1x2x7x7xf32>, tensor<3x2xf32>) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x3x3xf32>) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK-NEXT: ^bb0(%[[S:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[MEAN:.+]] = arith.divf %[[S]], %[[SIX]] : f32
// CHECK-NEXT: linalg.yield %[[MEAN]] : f32
func.func @avg_pool2d(%x: tensor<1x2x5x6xf32>) -> tensor<1x2x3x3xf32> {
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x5x6xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// exclude_padding: the divisor is the window [2 oh, 2 oh + 3) clipped to the
// input rows [1, 6) of the padded input, times the same for the columns.
// CHECK-LABEL: func.func @avg_pool2d_exclude
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x3x3xf32>) outs(%{{.+}} : tensor<1x2x3x3xf16>)
// CHECK-NEXT: ^bb0(%[[S:[a-z0-9_]+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[OH:.+]] = linalg.index 2 : index
// CHECK-NEXT: %[[OW:.+]] = linalg.index 3 : index
// CHECK: %[[R0:.+]] = arith.muli %[[OH]], %{{.+}} : index
// CHECK: %[[R1:.+]] = arith.addi %[[R0]], %{{.+}} : index
// CHECK: %[[RLO:.+]] = arith.maxsi %[[R0]], %{{.+}} : index
// CHECK: %[[RHI:.+]] = arith.minsi %[[R1]], %{{.+}} : index
// CHECK: %[[ROWS:.+]] = arith.subi %[[RHI]], %[[RLO]] : index
// CHECK: %[[C0:.+]] = arith.muli %[[OW]], %{{.+}} : index
// CHECK: %[[COLS:.+]] = arith.subi
// CHECK: %[[N:.+]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NF:.+]] = arith.sitofp %[[N64]] : i64 to f32
// CHECK: %[[MEAN:.+]] = arith.divf %[[S]], %[[NF]] : f32
// CHECK: arith.truncf %[[MEAN]] : f32 to f16
func.func @avg_pool2d_exclude(%x: tensor<1x2x5x6xf16>) -> tensor<1x2x3x3xf16> {
  %0 = amp.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, exclude_padding} : tensor<1x2x5x6xf16> -> tensor<1x2x3x3xf16>
  return %0 : tensor<1x2x3x3xf16>
}

// -----

// grad / 6 dilated into zeros, then each padded position sums its windows.
// CHECK-DAG: #[[$T:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 - d4 + 2, d3 - d5 + 1)>
// CHECK-DAG: #[[$WIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @avg_pool2d_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<1x2x3x3xf32>)
// CHECK: %[[SHARE:.+]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<1x2x3x3xf32>)
// CHECK: arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x9x8xf32>)
// CHECK: %[[D:.+]] = tensor.insert_slice %[[SHARE]] into %[[Z]][0, 0, 2, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$T]], #[[$WIN]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[D]], %{{.+}} : tensor<1x2x9x8xf32>, tensor<3x2xf32>) outs(%{{.+}} : tensor<1x2x7x7xf32>)
// CHECK: arith.addf
// CHECK: %[[DX:.+]] = tensor.extract_slice %[[ACC]][0, 0, 1, 0] [1, 2, 5, 6] [1, 1, 1, 1]
// CHECK-NEXT: return %[[DX]]
func.func @avg_pool2d_grad(%dy: tensor<1x2x3x3xf32>) -> tensor<1x2x5x6xf32> {
  %0 = amp.avg_pool2d_grad %dy {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x3x3xf32> -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// A reduction over the spatial loops into f32 [N, C], a division by H * W
// rounded once to f16, and a reshape to [N, C, 1, 1].
// CHECK-LABEL: func.func @global_avg_pool
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.+}} : tensor<2x3x4x5xf16>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2x3xf16>)
// CHECK: %[[N:.+]] = arith.constant 2.000000e+01 : f32
// CHECK-NEXT: %[[Q:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK-NEXT: arith.truncf %[[Q]] : f32 to f16
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[MEAN]]
// CHECK: %[[RES:.+]] = tensor.expand_shape %[[FLAT]] {{.*}} into tensor<2x3x1x1xf16>
// CHECK: return %[[RES]]
func.func @global_avg_pool(%x: tensor<2x3x4x5xf16>) -> tensor<2x3x1x1xf16> {
  %0 = amp.global_avg_pool %x : tensor<2x3x4x5xf16> -> tensor<2x3x1x1xf16>
  return %0 : tensor<2x3x1x1xf16>
}

//===----------------------------------------------------------------------===//
// gather, gather_grad, slice_grad
//===----------------------------------------------------------------------===//

// -----

// The index (read through a map) is wrapped when negative, clamped to the
// table, and the row is read with tensor.extract.
// CHECK-DAG: #[[$IDS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:[a-z0-9_]+]]: tensor<10x4xf32>, %[[IDS:[a-z0-9_]+]]: tensor<2x3xi64>)
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$IDS]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<2x3xi64>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[I:[a-z0-9_]+]]: i64, %{{.+}}: f32):
// CHECK-NEXT: %[[II:.+]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[NEG:.+]] = arith.cmpi slt, %[[II]], %[[C0]] : index
// CHECK-NEXT: %[[C10:.+]] = arith.constant 10 : index
// CHECK-NEXT: %[[WRAP:.+]] = arith.addi %[[II]], %[[C10]] : index
// CHECK-NEXT: %[[FRONT:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[II]] : index
// CHECK-NEXT: %[[LO:.+]] = arith.maxsi %[[FRONT]], %[[C0]] : index
// CHECK-NEXT: %[[C9:.+]] = arith.constant 9 : index
// CHECK-NEXT: %[[ROW:.+]] = arith.minsi %[[LO]], %[[C9]] : index
// CHECK-NEXT: %[[COL:.+]] = linalg.index 2 : index
// CHECK-NEXT: %[[V:.+]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<10x4xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[RES]]
func.func @gather(%t: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = amp.gather %t, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Axis 1, i32 indices: result[b, k, h] sums grad[b, j, h] over the j with
// indices[j] == k, in token order, in f32 (the segmented sum; the sort is
// checked in gather-padding.mlir). The result element reads its row's
// range of sorted keys and loops over it, the token being key mod 3.
// CHECK-LABEL: func.func @gather_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x3x4xbf16>, %[[IDS:[a-z0-9_]+]]: tensor<3xi32>)
// CHECK: %[[STARTS:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<6xi32>)
// CHECK: %[[RES:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} outs(%{{.+}} : tensor<2x5x4xf32>)
// CHECK-NEXT: ^bb0(%{{.+}}: f32):
// CHECK-NEXT: %[[K:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[STARTS]][%[[K]]] : tensor<6xi32>
// CHECK: tensor.extract %[[STARTS]]
// CHECK: %[[B:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[H:.+]] = linalg.index 2 : index
// CHECK: scf.for %[[I:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32) {
// CHECK-NEXT: %[[KEY:.+]] = tensor.extract %{{.+}}[%[[I]]] : tensor<3xi32>
// CHECK-NEXT: %[[KI:.+]] = arith.index_cast %[[KEY]] : i32 to index
// CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[J:.+]] = arith.remui %[[KI]], %[[C3]] : index
// CHECK-NEXT: %[[G:.+]] = tensor.extract %[[DY]][%[[B]], %[[J]], %[[H]]] : tensor<2x3x4xbf16>
// CHECK-NEXT: %[[GW:.+]] = arith.extf %[[G]] : bf16 to f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ACC]], %[[GW]] : f32
// CHECK-NEXT: scf.yield %[[SUM]] : f32
// CHECK: return %[[RES]] : tensor<2x5x4xf32>
func.func @gather_grad(%dy: tensor<2x3x4xbf16>, %ids: tensor<3xi32>) -> tensor<2x5x4xf32> {
  %0 = amp.gather_grad %dy, %ids {axis = 1 : i64} : (tensor<2x3x4xbf16>, tensor<3xi32>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<2x2xf16>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[ZEROS:.+]] = linalg.fill ins(%[[ZERO]] : f16) outs(%{{.+}} : tensor<4x6xf16>)
// CHECK: %[[RES:.+]] = tensor.insert_slice %[[DY]] into %[[ZEROS]][1, 0] [2, 2] [2, 3] : tensor<2x2xf16> into tensor<4x6xf16>
// CHECK: return %[[RES]]
func.func @slice_grad(%dy: tensor<2x2xf16>) -> tensor<4x6xf16> {
  %0 = amp.slice_grad %dy {starts = array<i64: 1, 0>, limits = array<i64: 4, 6>, strides = array<i64: 2, 3>} : tensor<2x2xf16> -> tensor<4x6xf16>
  return %0 : tensor<4x6xf16>
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

// -----

// One generic with two results. The i-th SplitMix64 output for the seed
// (0x9E3779B97F4A7C15 = -7046029254386353131, 0xBF58476D1CE4E5B9,
// 0x94D049BB133111EB as signed i64) keeps the element when its top 53 bits
// are >= ceil(0.25 * 2^53) = 2251799813685248; kept values are scaled by
// f32(1 / 0.75) in f32 and rounded once to f16.
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf16>, %[[SEED:[a-z0-9_]+]]: tensor<i64>)
// CHECK: %[[RES:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[SEED]] : tensor<4x8xf16>, tensor<i64>) outs(%{{.+}}, %{{.+}} : tensor<4x8xf16>, tensor<4x8xi1>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f16, %[[S:[a-z0-9_]+]]: i64, %{{.+}}: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[I0:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %[[I0]], %[[C8]] : index
// CHECK-NEXT: %[[I1:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[LIN:.+]] = arith.addi %[[ROW]], %[[I1]] : index
// CHECK: %[[LIN64:.+]] = arith.index_cast %[[LIN]] : index to i64
// CHECK-NEXT: %[[CTR:.+]] = arith.addi %[[LIN64]], %{{.+}} : i64
// CHECK-NEXT: %[[GOLDEN:.+]] = arith.constant -7046029254386353131 : i64
// CHECK-NEXT: %[[STEP:.+]] = arith.muli %[[CTR]], %[[GOLDEN]] : i64
// CHECK-NEXT: %[[Z0:.+]] = arith.addi %[[S]], %[[STEP]] : i64
// CHECK-NEXT: %[[C30:.+]] = arith.constant 30 : i64
// CHECK-NEXT: %[[SH0:.+]] = arith.shrui %[[Z0]], %[[C30]] : i64
// CHECK-NEXT: %[[X0:.+]] = arith.xori %[[Z0]], %[[SH0]] : i64
// CHECK-NEXT: %[[M0:.+]] = arith.constant -4658895280553007687 : i64
// CHECK-NEXT: %[[Z1:.+]] = arith.muli %[[X0]], %[[M0]] : i64
// CHECK-NEXT: %[[C27:.+]] = arith.constant 27 : i64
// CHECK-NEXT: %[[SH1:.+]] = arith.shrui %[[Z1]], %[[C27]] : i64
// CHECK-NEXT: %[[X1:.+]] = arith.xori %[[Z1]], %[[SH1]] : i64
// CHECK-NEXT: %[[M1:.+]] = arith.constant -7723592293110705685 : i64
// CHECK-NEXT: %[[Z2:.+]] = arith.muli %[[X1]], %[[M1]] : i64
// CHECK-NEXT: %[[C31:.+]] = arith.constant 31 : i64
// CHECK-NEXT: %[[SH2:.+]] = arith.shrui %[[Z2]], %[[C31]] : i64
// CHECK-NEXT: %[[Z3:.+]] = arith.xori %[[Z2]], %[[SH2]] : i64
// CHECK-NEXT: %[[C11:.+]] = arith.constant 11 : i64
// CHECK-NEXT: %[[BITS:.+]] = arith.shrui %[[Z3]], %[[C11]] : i64
// CHECK-NEXT: %[[THR:.+]] = arith.constant 2251799813685248 : i64
// CHECK-NEXT: %[[KEEP:.+]] = arith.cmpi sge, %[[BITS]], %[[THR]] : i64
// CHECK-NEXT: %[[SCALE:.+]] = arith.constant 1.33333337 : f32
// CHECK-NEXT: %[[VW:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[VW]], %[[SCALE]] : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[KEEP]], %[[SCALED]], %[[ZERO]] : f32
// CHECK-NEXT: %[[OUTH:.+]] = arith.truncf %[[OUT]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[OUTH]], %[[KEEP]] : f16, i1
// CHECK: return %[[RES]]#0, %[[RES]]#1 : tensor<4x8xf16>, tensor<4x8xi1>
func.func @dropout(%x: tensor<4x8xf16>, %seed: tensor<i64>) -> (tensor<4x8xf16>, tensor<4x8xi1>) {
  %0, %1 = amp.dropout %x, %seed {probability = 2.500000e-01 : f64} : tensor<4x8xf16> -> tensor<4x8xi1>
  return %0, %1 : tensor<4x8xf16>, tensor<4x8xi1>
}

