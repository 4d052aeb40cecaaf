// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// Normalizations compute their statistics with f32 reductions (linalg.fill
// of an f32 init, "reduction" iterators over the normalized loops): the
// mean, then the sum of squared deviations from it, then
// rstd = 1 / sqrt(var + epsilon). Outputs and gradients are one
// linalg.generic each that widens f16/bf16 operands with arith.extf,
// computes in f32 and rounds once with arith.truncf. Statistics and affine
// parameters are read through projected maps (leading loops, channel loop,
// [group, channel-in-group] loops).

//===----------------------------------------------------------------------===//
// layer_norm, layer_norm_grad
//===----------------------------------------------------------------------===//

// f16 input, f32 weight and bias: f32 statistics over the last axis.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$VEC:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @layer_norm_f16_f32_affine
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf16>, %[[W:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf16>) outs(%[[ZERO]] : tensor<4xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<4xf32>)
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.divf
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<4x8xf16>, tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[XS:.+]]: f16, %[[MS:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[XS]] : f16 to f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[WX]], %[[MS]] : f32
// CHECK-NEXT: %[[D2:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: %[[NEW:.+]] = arith.addf %[[ACC]], %[[D2]] : f32
// CHECK-NEXT: linalg.yield %[[NEW]] : f32
// CHECK: %[[RSTD:.+]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]]], iterator_types = ["parallel"]} ins(%[[SQ]] : tensor<4xf32>)
// CHECK: %[[VAR:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[SHIFTED:.+]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK: %[[STD:.+]] = math.sqrt %[[SHIFTED]] : f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: arith.divf %[[ONE]], %[[STD]] : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$COL]], #[[$COL]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[B]] : tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<4x8xf16>)
// CHECK-NEXT: ^bb0(%[[XE:.+]]: f16, %[[ME:.+]]: f32, %[[RE:.+]]: f32, %[[WE:.+]]: f32, %[[BE:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[WXE:.+]] = arith.extf %[[XE]] : f16 to f32
// CHECK-NEXT: %[[C:.+]] = arith.subf %[[WXE]], %[[ME]] : f32
// CHECK-NEXT: %[[XHAT:.+]] = arith.mulf %[[C]], %[[RE]] : f32
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[XHAT]], %[[WE]] : f32
// CHECK-NEXT: %[[OUT:.+]] = arith.addf %[[SCALED]], %[[BE]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[OUT]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[Y]], %[[MEAN]], %[[RSTD]] : tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>
func.func @layer_norm_f16_f32_affine(%x: tensor<4x8xf16>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>) {
  %y, %mean, %rstd = amp.layer_norm %x, %w, %b {axis = -1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>)
  return %y, %mean, %rstd : tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>
}

// -----

// axis = -2 of a 3-d input: statistics per d0, a 2-d weight over (d1, d2).
// input_grad = rstd * (g*w - xhat * sum(g*w*xhat)/n - sum(g*w)/n), n = 12;
// weight_grad and bias_grad reduce the leading loop.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$AFF:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$STAT:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @layer_norm_grad_axis_m2
// CHECK-SAME: (%[[G:[^:]+]]: tensor<2x3x4xf32>, %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[M:[^:]+]]: tensor<2xf32>, %[[R:[^:]+]]: tensor<2xf32>, %[[W:[^:]+]]: tensor<3x4xf32>)
// CHECK: %[[SGW:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$AFF]], #[[$STAT]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[G]], %[[W]] : tensor<2x3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[SGWX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$AFF]], #[[$STAT]], #[[$STAT]], #[[$STAT]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[G]], %[[X]], %[[W]], %[[M]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f32, %[[x:.+]]: f32, %[[w:.+]]: f32, %[[m:.+]]: f32, %[[r:.+]]: f32, %[[acc:.+]]: f32):
// CHECK-NEXT: %[[gw:.+]] = arith.mulf %[[g]], %[[w]] : f32
// CHECK-NEXT: %[[c:.+]] = arith.subf %[[x]], %[[m]] : f32
// CHECK-NEXT: %[[xhat:.+]] = arith.mulf %[[c]], %[[r]] : f32
// CHECK-NEXT: %[[t:.+]] = arith.mulf %[[gw]], %[[xhat]] : f32
// CHECK-NEXT: %[[s:.+]] = arith.addf %[[acc]], %[[t]] : f32
// CHECK-NEXT: linalg.yield %[[s]] : f32
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$AFF]], #[[$STAT]], #[[$STAT]], #[[$STAT]], #[[$STAT]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[G]], %[[X]], %[[W]], %[[M]], %[[R]], %[[SGW]], %[[SGWX]] : {{.+}}) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f32, %[[x:.+]]: f32, %[[w:.+]]: f32, %[[m:.+]]: f32, %[[r:.+]]: f32, %[[sgw:.+]]: f32, %[[sgwx:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[n:.+]] = arith.constant 1.200000e+01 : f32
// CHECK-NEXT: %[[c:.+]] = arith.subf %[[x]], %[[m]] : f32
// CHECK-NEXT: %[[xhat:.+]] = arith.mulf %[[c]], %[[r]] : f32
// CHECK-NEXT: %[[gw:.+]] = arith.mulf %[[g]], %[[w]] : f32
// CHECK-NEXT: %[[mgwx:.+]] = arith.divf %[[sgwx]], %[[n]] : f32
// CHECK-NEXT: %[[proj:.+]] = arith.mulf %[[xhat]], %[[mgwx]] : f32
// CHECK-NEXT: %[[t1:.+]] = arith.subf %[[gw]], %[[proj]] : f32
// CHECK-NEXT: %[[mgw:.+]] = arith.divf %[[sgw]], %[[n]] : f32
// CHECK-NEXT: %[[t2:.+]] = arith.subf %[[t1]], %[[mgw]] : f32
// CHECK-NEXT: %[[dx:.+]] = arith.mulf %[[r]], %[[t2]] : f32
// CHECK-NEXT: linalg.yield %[[dx]] : f32
// CHECK: %[[DW:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$STAT]], #[[$STAT]], #[[$AFF]]], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[G]], %[[X]], %[[M]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f32, %[[x:.+]]: f32, %[[m:.+]]: f32, %[[r:.+]]: f32, %[[acc:.+]]: f32):
// CHECK-NEXT: %[[c:.+]] = arith.subf %[[x]], %[[m]] : f32
// CHECK-NEXT: %[[xhat:.+]] = arith.mulf %[[c]], %[[r]] : f32
// CHECK-NEXT: %[[t:.+]] = arith.mulf %[[g]], %[[xhat]] : f32
// CHECK-NEXT: %[[s:.+]] = arith.addf %[[acc]], %[[t]] : f32
// CHECK: %[[DB:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$AFF]]], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[G]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: return %[[DX]], %[[DW]], %[[DB]] : tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
func.func @layer_norm_grad_axis_m2(%g: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %mean: tensor<2xf32>, %rstd: tensor<2xf32>, %w: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %dx, %dw, %db = amp.layer_norm_grad %g, %x, %mean, %rstd, %w {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  return %dx, %dw, %db : tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// f16 gradient, input and weight: the input gradient is rounded once to f16,
// the f32 weight and bias sums once each to the weight's f16.
// CHECK-LABEL: func.func @layer_norm_grad_f16
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<4x8xf16>)
// CHECK-NOT: arith.truncf
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK-NEXT: linalg.yield %{{.+}} : f16
// CHECK: %[[DW32:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]{{.+}} outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[DB32:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]{{.+}} outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[DW:.+]] = linalg.generic {{.+}} ins(%[[DW32]] : tensor<8xf32>) outs(%{{.+}} : tensor<8xf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[DB:.+]] = linalg.generic {{.+}} ins(%[[DB32]] : tensor<8xf32>) outs(%{{.+}} : tensor<8xf16>)
// CHECK: return %{{.+}}, %[[DW]], %[[DB]] : tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>
func.func @layer_norm_grad_f16(%g: tensor<4x8xf16>, %x: tensor<4x8xf16>, %mean: tensor<4xf32>, %rstd: tensor<4xf32>, %w: tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>) {
  %dx, %dw, %db = amp.layer_norm_grad %g, %x, %mean, %rstd, %w : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>)
  return %dx, %dw, %db : tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// rms_norm, rms_norm_grad
//===----------------------------------------------------------------------===//

// No mean: rstd = 1 / sqrt(sum(x^2) / n + 1e-6), output x * rstd * w.
// CHECK-LABEL: func.func @rms_norm_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xbf16>, %[[W:.+]]: tensor<8xbf16>)
// CHECK: %[[SQ:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[XS:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[XS]] : bf16 to f32
// CHECK-NEXT: %[[X2:.+]] = arith.mulf %[[WX]], %[[WX]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[X2]] : f32
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[SQ]] : tensor<4xf32>)
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.constant 9.99999997E-7 : f32
// CHECK: math.sqrt
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} ins(%[[X]], %[[RSTD]], %[[W]] : tensor<4x8xbf16>, tensor<4xf32>, tensor<8xbf16>) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK-NEXT: ^bb0(%[[XE:.+]]: bf16, %[[RE:.+]]: f32, %[[WE:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WXE:.+]] = arith.extf %[[XE]] : bf16 to f32
// CHECK-NEXT: %[[XHAT:.+]] = arith.mulf %[[WXE]], %[[RE]] : f32
// CHECK-NEXT: %[[WWE:.+]] = arith.extf %[[WE]] : bf16 to f32
// CHECK-NEXT: %[[OUT:.+]] = arith.mulf %[[XHAT]], %[[WWE]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[OUT]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[Y]], %[[RSTD]] : tensor<4x8xbf16>, tensor<4xf32>
func.func @rms_norm_bf16(%x: tensor<4x8xbf16>, %w: tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4xf32>) {
  %y, %rstd = amp.rms_norm %x, %w : (tensor<4x8xbf16>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4xf32>)
  return %y, %rstd : tensor<4x8xbf16>, tensor<4xf32>
}

// -----

// input_grad = rstd * (g*w - x*rstd * sum(g*w*x*rstd)/n): no mean terms.
// CHECK-LABEL: func.func @rms_norm_grad
// CHECK-SAME: (%[[G:[^:]+]]: tensor<4x8xf32>, %[[X:[^:]+]]: tensor<4x8xf32>, %[[R:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<8xf32>)
// CHECK: %[[SGWX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[G]], %[[X]], %[[W]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[DX:.+]] = linalg.generic {{.+}} ins(%[[G]], %[[X]], %[[W]], %[[R]], %[[SGWX]] : {{.+}}) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f32, %[[x:.+]]: f32, %[[w:.+]]: f32, %[[r:.+]]: f32, %[[sgwx:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[n:.+]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[xhat:.+]] = arith.mulf %[[x]], %[[r]] : f32
// CHECK-NEXT: %[[gw:.+]] = arith.mulf %[[g]], %[[w]] : f32
// CHECK-NEXT: %[[mgwx:.+]] = arith.divf %[[sgwx]], %[[n]] : f32
// CHECK-NEXT: %[[proj:.+]] = arith.mulf %[[xhat]], %[[mgwx]] : f32
// CHECK-NEXT: %[[t:.+]] = arith.subf %[[gw]], %[[proj]] : f32
// CHECK-NEXT: %[[dx:.+]] = arith.mulf %[[r]], %[[t]] : f32
// CHECK-NEXT: linalg.yield %[[dx]] : f32
// CHECK: %[[DW:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]} ins(%[[G]], %[[X]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<8xf32>)
// CHECK: return %[[DX]], %[[DW]] : tensor<4x8xf32>, tensor<8xf32>
func.func @rms_norm_grad(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>, %rstd: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %dx, %dw = amp.rms_norm_grad %g, %x, %rstd, %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return %dx, %dw : tensor<4x8xf32>, tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// group_norm, group_norm_grad
//===----------------------------------------------------------------------===//

// [2, 6, 5] in 3 groups is viewed as [2, 3, 2, 5]: statistics over the last
// two loops (n = 10), weight and bias [6] viewed as [3, 2] over (d1, d2).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$STAT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[$AFF:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func.func @group_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x6x5xf32>, %[[W:.+]]: tensor<6xf32>, %[[B:.+]]: tensor<6xf32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[X]]
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[FLAT]] {{.+}} output_shape [2, 3, 2, 5] : tensor<60xf32> into tensor<2x3x2x5xf32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$STAT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[XG]] : tensor<2x3x2x5xf32>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<2x3xf32>)
// CHECK: arith.constant 1.000000e+01 : f32
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$STAT]], #[[$STAT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[XG]], %[[MEAN]] : tensor<2x3x2x5xf32>, tensor<2x3xf32>)
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[SQ]] : tensor<2x3xf32>)
// CHECK-DAG: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK-DAG: %[[BG:.+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: %[[YG:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$STAT]], #[[$STAT]], #[[$AFF]], #[[$AFF]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[XG]], %[[MEAN]], %[[RSTD]], %[[WG]], %[[BG]] : {{.+}}) outs(%{{.+}} : tensor<2x3x2x5xf32>)
// CHECK: %[[YFLAT:.+]] = tensor.collapse_shape %[[YG]]
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[YFLAT]] {{.+}} into tensor<2x6x5xf32>
// CHECK: return %[[Y]], %[[MEAN]], %[[RSTD]] : tensor<2x6x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>
func.func @group_norm(%x: tensor<2x6x5xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<2x6x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %y, %mean, %rstd = amp.group_norm %x, %w, %b {num_groups = 3 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return %y, %mean, %rstd : tensor<2x6x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The affine gradients reduce loops 0 and 3 of the grouped view into [3, 2]
// and are collapsed back to [6].
// CHECK-LABEL: func.func @group_norm_grad
// CHECK-SAME: (%[[G:[^:]+]]: tensor<2x6x5xf32>, %[[X:[^:]+]]: tensor<2x6x5xf32>, %[[M:[^:]+]]: tensor<2x3xf32>, %[[R:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<6xf32>)
// CHECK: %[[GG:.+]] = tensor.expand_shape {{.+}} into tensor<2x3x2x5xf32>
// CHECK: %[[XG:.+]] = tensor.expand_shape {{.+}} into tensor<2x3x2x5xf32>
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{.+}} into tensor<3x2xf32>
// CHECK: %[[SGW:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[GG]], %[[WG]] : {{.+}}) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[SGWX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[GG]], %[[XG]], %[[WG]], %[[M]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[DXG:.+]] = linalg.generic {{.+}} ins(%[[GG]], %[[XG]], %[[WG]], %[[M]], %[[R]], %[[SGW]], %[[SGWX]] : {{.+}}) outs(%{{.+}} : tensor<2x3x2x5xf32>)
// CHECK: arith.constant 1.000000e+01 : f32
// CHECK: %[[DWG:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "parallel", "reduction"]} ins(%[[GG]], %[[XG]], %[[M]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<3x2xf32>)
// CHECK: %[[DBG:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "parallel", "reduction"]} ins(%[[GG]] : tensor<2x3x2x5xf32>) outs(%{{.+}} : tensor<3x2xf32>)
// CHECK: %[[DXF:.+]] = tensor.collapse_shape %[[DXG]]
// CHECK: %[[DX:.+]] = tensor.expand_shape %[[DXF]] {{.+}} into tensor<2x6x5xf32>
// CHECK: %[[DW:.+]] = tensor.collapse_shape %[[DWG]] {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
// CHECK: %[[DB:.+]] = tensor.collapse_shape %[[DBG]] {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
// CHECK: return %[[DX]], %[[DW]], %[[DB]]
func.func @group_norm_grad(%g: tensor<2x6x5xf32>, %x: tensor<2x6x5xf32>, %mean: tensor<2x3xf32>, %rstd: tensor<2x3xf32>, %w: tensor<6xf32>) -> (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) {
  %dx, %dw, %db = amp.group_norm_grad %g, %x, %mean, %rstd, %w {num_groups = 3 : i64} : (tensor<2x6x5xf32>, tensor<2x6x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>) -> (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>)
  return %dx, %dw, %db : tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

//===----------------------------------------------------------------------===//
// batch_norm, batch_norm_grad
//===----------------------------------------------------------------------===//

// Training: statistics over loops 0 and 2 (n = 10); running statistics
// (1 - 0.25) * running + 0.25 * batch, the variance unbiased (sum / 9).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[$VEC:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x5xf32>, %[[W:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>, %[[RM:[^:]+]]: tensor<3xf32>, %[[RV:[^:]+]]: tensor<3xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x5xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK: arith.constant 1.000000e+01 : f32
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x3x5xf32>, tensor<3xf32>)
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[SQ]] : tensor<3xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[B]] : {{.+}}) outs(%{{.+}} : tensor<2x3x5xf32>)
// CHECK: %[[NM:.+]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$VEC]]], iterator_types = ["parallel"]} ins(%[[RM]], %[[MEAN]] : tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[rm:.+]]: f32, %[[m:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[KEEP:.+]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT: %[[K:.+]] = arith.mulf %[[rm]], %[[KEEP]] : f32
// CHECK-NEXT: %[[MOM:.+]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[A:.+]] = arith.mulf %[[m]], %[[MOM]] : f32
// CHECK-NEXT: %[[NEW:.+]] = arith.addf %[[K]], %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[NEW]] : f32
// CHECK: %[[NV:.+]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$VEC]], #[[$VEC]]], iterator_types = ["parallel"]} ins(%[[RV]], %[[SQ]] : tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[rv:.+]]: f32, %[[sq:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[NM1:.+]] = arith.constant 9.000000e+00 : f32
// CHECK-NEXT: %[[UNBIASED:.+]] = arith.divf %[[sq]], %[[NM1]] : f32
// CHECK-NEXT: %[[KEEP:.+]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT: %[[K:.+]] = arith.mulf %[[rv]], %[[KEEP]] : f32
// CHECK-NEXT: %[[MOM:.+]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[A:.+]] = arith.mulf %[[UNBIASED]], %[[MOM]] : f32
// CHECK-NEXT: %[[NEW:.+]] = arith.addf %[[K]], %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[NEW]] : f32
// CHECK: return %[[Y]], %[[MEAN]], %[[RSTD]], %[[NM]], %[[NV]]
func.func @batch_norm_training(%x: tensor<2x3x5xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %sm, %sr, %nm, %nv = amp.batch_norm %x, %w, %b, %rm, %rv {momentum = 2.5e-1 : f64} : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %sm, %sr, %nm, %nv : tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Eval: no reduction; normalizes with the running statistics and returns
// them unchanged, with 1 / sqrt(running_var + epsilon) as saved_rstd.
// CHECK-LABEL: func.func @batch_norm_eval
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x5xf16>, %[[W:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>, %[[RM:[^:]+]]: tensor<3xf32>, %[[RV:[^:]+]]: tensor<3xf32>)
// CHECK-NOT: reduction
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[RV]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[v:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[v]], %[[EPS]] : f32
// CHECK-NEXT: %[[SQRT:.+]] = math.sqrt %[[S]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[INV:.+]] = arith.divf %[[ONE]], %[[SQRT]] : f32
// CHECK-NEXT: linalg.yield %[[INV]] : f32
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} ins(%[[X]], %[[RM]], %[[RSTD]], %[[W]], %[[B]] : {{.+}}) outs(%{{.+}} : tensor<2x3x5xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: return %[[Y]], %[[RM]], %[[RSTD]], %[[RM]], %[[RV]]
func.func @batch_norm_eval(%x: tensor<2x3x5xf16>, %w: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<2x3x5xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %sm, %sr, %nm, %nv = amp.batch_norm %x, %w, %b, %rm, %rv {epsilon = 1.0e-3 : f64, training = false} : (tensor<2x3x5xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %sm, %sr, %nm, %nv : tensor<2x3x5xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// The training-mode backward: the same formula as layer_norm_grad with the
// statistics and the weight per channel; all five reductions run over loops
// 0 and 2.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_grad
// CHECK-SAME: (%[[G:[^:]+]]: tensor<2x3x5xf32>, %[[X:[^:]+]]: tensor<2x3x5xf32>, %[[M:[^:]+]]: tensor<3xf32>, %[[R:[^:]+]]: tensor<3xf32>, %[[W:[^:]+]]: tensor<3xf32>)
// CHECK: %[[SGW:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[G]], %[[W]] : {{.+}})
// CHECK: %[[SGWX:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[G]], %[[X]], %[[W]], %[[M]], %[[R]] : {{.+}})
// CHECK: %[[DX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[G]], %[[X]], %[[W]], %[[M]], %[[R]], %[[SGW]], %[[SGWX]] : {{.+}})
// CHECK: arith.constant 1.000000e+01 : f32
// CHECK: %[[DW:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[G]], %[[X]], %[[M]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[DB:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[G]] : tensor<2x3x5xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: return %[[DX]], %[[DW]], %[[DB]]
func.func @batch_norm_grad(%g: tensor<2x3x5xf32>, %x: tensor<2x3x5xf32>, %sm: tensor<3xf32>, %sr: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dw, %db = amp.batch_norm_grad %g, %x, %sm, %sr, %w : (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw, %db : tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// softmax_grad, log_softmax_grad
//===----------------------------------------------------------------------===//

// axis = 0: the row statistic is per column (d1).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_grad_axis0
// CHECK-SAME: (%[[G:.+]]: tensor<3x4xf32>, %[[Y:.+]]: tensor<3x4xf32>)
// CHECK: %[[DOT:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[G]], %[[Y]] : tensor<3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f32, %[[y:.+]]: f32, %[[acc:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[g]], %[[y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[acc]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$COL]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[Y]], %[[DOT]] : tensor<3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f32, %[[y:.+]]: f32, %[[s:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[g]], %[[s]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[y]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: return %[[RES]] : tensor<3x4xf32>
func.func @softmax_grad_axis0(%g: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = amp.softmax_grad %g, %y {axis = 0 : i64} : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// grad - exp(output) * sum(grad), f16 in and out, f32 inside.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @log_softmax_grad_f16
// CHECK-SAME: (%[[G:.+]]: tensor<3x4xf16>, %[[Y:.+]]: tensor<3x4xf16>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[G]] : tensor<3x4xf16>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[Y]], %[[SUM]] : tensor<3x4xf16>, tensor<3x4xf16>, tensor<3xf32>) outs(%{{.+}} : tensor<3x4xf16>)
// CHECK-NEXT: ^bb0(%[[g:.+]]: f16, %[[y:.+]]: f16, %[[s:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[g]] : f16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[y]] : f16 to f32
// CHECK-NEXT: %[[P:.+]] = math.exp %[[WY]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.mulf %[[P]], %[[s]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[WG]], %[[T]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[RES]] : tensor<3x4xf16>
func.func @log_softmax_grad_f16(%g: tensor<3x4xf16>, %y: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %0 = amp.log_softmax_grad %g, %y {axis = -1 : i64} : tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// cross_entropy_grad, mse_loss_grad
//===----------------------------------------------------------------------===//

// (softmax(logits) - onehot(labels)) * grad / N with the row max and the
// sum of exp(x - max) in f32; the 0-d grad is read through a map to ().
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @cross_entropy_grad_f16
// CHECK-SAME: (%[[GRAD:.+]]: tensor<f32>, %[[Z:.+]]: tensor<4x10xf16>, %[[L:.+]]: tensor<4xi32>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[Z]] : tensor<4x10xf16>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[Z]], %[[MAX]] : tensor<4x10xf16>, tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$SCALAR]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[Z]], %[[L]], %[[MAX]], %[[SUM]], %[[GRAD]] : tensor<4x10xf16>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%{{.+}} : tensor<4x10xf16>)
// CHECK-NEXT: ^bb0(%[[z:.+]]: f16, %[[l:.+]]: i32, %[[m:.+]]: f32, %[[s:.+]]: f32, %[[g:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[WZ:.+]] = arith.extf %[[z]] : f16 to f32
// CHECK-NEXT: %[[SH:.+]] = arith.subf %[[WZ]], %[[m]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[SH]] : f32
// CHECK-NEXT: %[[P:.+]] = arith.divf %[[E]], %[[s]] : f32
// CHECK-NEXT: %[[C:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[LI:.+]] = arith.index_cast %[[l]] : i32 to index
// CHECK-NEXT: %[[HIT:.+]] = arith.cmpi eq, %[[C]], %[[LI]] : index
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[T:.+]] = arith.select %[[HIT]], %[[ONE]], %[[ZERO]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[SCALE:.+]] = arith.divf %[[g]], %[[N]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[P]], %[[T]] : f32
// CHECK-NEXT: %[[V:.+]] = arith.mulf %[[D]], %[[SCALE]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[RES]] : tensor<4x10xf16>
func.func @cross_entropy_grad_f16(%grad: tensor<f32>, %z: tensor<4x10xf16>, %labels: tensor<4xi32>) -> tensor<4x10xf16> {
  %0 = amp.cross_entropy_grad %grad, %z, %labels : tensor<4x10xf16>, tensor<4xi32>
  return %0 : tensor<4x10xf16>
}

// -----

// 2 * (p - t) * grad / numel: one generic, the factor 2/6 folded.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @mse_loss_grad_bf16
// CHECK-SAME: (%[[GRAD:.+]]: tensor<f32>, %[[P:.+]]: tensor<2x3xbf16>, %[[T:.+]]: tensor<2x3xbf16>)
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$SCALAR]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[T]], %[[GRAD]] : tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<f32>) outs(%{{.+}} : tensor<2x3xbf16>)
// CHECK-NEXT: ^bb0(%[[p:.+]]: bf16, %[[t:.+]]: bf16, %[[g:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT: %[[WP:.+]] = arith.extf %[[p]] : bf16 to f32
// CHECK-NEXT: %[[WT:.+]] = arith.extf %[[t]] : bf16 to f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[WP]], %[[WT]] : f32
// CHECK-NEXT: %[[F:.+]] = arith.constant 0.333333343 : f32
// CHECK-NEXT: %[[S:.+]] = arith.mulf %[[g]], %[[F]] : f32
// CHECK-NEXT: %[[V:.+]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[RES]] : tensor<2x3xbf16>
func.func @mse_loss_grad_bf16(%grad: tensor<f32>, %p: tensor<2x3xbf16>, %t: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = amp.mse_loss_grad %grad, %p, %t : tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}
