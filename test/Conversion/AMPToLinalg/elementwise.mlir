// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// Every elementwise amp op becomes one all-parallel linalg.generic over a
// tensor.empty of the result type. Float bodies compute in f32: f16 and bf16
// operands are widened with arith.extf and the result is rounded once with
// arith.truncf. Bodies whose op order depends on the C++ evaluation order of
// builder arguments are checked with CHECK-DAG along their data flow.

//===----------------------------------------------------------------------===//
// Binary arithmetic: add sub mul div pow maximum minimum
//===----------------------------------------------------------------------===//

// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_f32
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK-NEXT: } -> tensor<4x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<4x8xf32>
func.func @add_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = amp.add %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The operands keep their order (lhs - rhs), and the f16 difference is
// computed in f32.
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sub_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4xf16>, %[[B:.+]]: tensor<4xf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xf16>, tensor<4xf16>) outs(%[[INIT]] : tensor<4xf16>) {
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK-NEXT: } -> tensor<4xf16>
// CHECK-NEXT: return %[[RES]] : tensor<4xf16>
func.func @sub_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.sub %a, %b : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @mul_bf16
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xbf16>, %[[B:.+]]: tensor<2x3x4xbf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3x4xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x3x4xbf16>, tensor<2x3x4xbf16>) outs(%[[INIT]] : tensor<2x3x4xbf16>) {
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[P]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK-NEXT: } -> tensor<2x3x4xbf16>
func.func @mul_bf16(%a: tensor<2x3x4xbf16>, %b: tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16> {
  %0 = amp.mul %a, %b : tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}

// -----

// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @div_f32
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[Q]] : f32
func.func @div_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.div %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @pow_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4xf16>, %[[B:.+]]: tensor<4xf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xf16>, tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[P:.+]] = math.powf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[P]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @pow_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.pow %a, %b : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// maximumf/minimumf (not maxnumf/minnumf): NaN propagates, as in PyTorch.
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @maximum_minimum
// CHECK-SAME: (%[[A:.+]]: tensor<4xbf16>, %[[B:.+]]: tensor<4xbf16>)
// CHECK: %[[INIT0:.+]] = tensor.empty() : tensor<4xbf16>
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xbf16>, tensor<4xbf16>) outs(%[[INIT0]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: %[[INIT1:.+]] = tensor.empty() : tensor<4xbf16>
// CHECK: %[[MIN:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xbf16>, tensor<4xbf16>) outs(%[[INIT1]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.minimumf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[MAX]], %[[MIN]]
func.func @maximum_minimum(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = amp.maximum %a, %b : tensor<4xbf16>
  %1 = amp.minimum %a, %b : tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Unary math: neg exp log sqrt rsqrt tanh erf
//===----------------------------------------------------------------------===//

// f32 operands need no conversion: the body is the math op alone.
// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @unary_f32
// CHECK-SAME: (%[[A:.+]]: tensor<2x4xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<2x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.exp %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.log %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.sqrt %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.rsqrt %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.tanh %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.erf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @unary_f32(%a: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = amp.neg %a : tensor<2x4xf32>
  %1 = amp.exp %a : tensor<2x4xf32>
  %2 = amp.log %a : tensor<2x4xf32>
  %3 = amp.sqrt %a : tensor<2x4xf32>
  %4 = amp.rsqrt %a : tensor<2x4xf32>
  %5 = amp.tanh %a : tensor<2x4xf32>
  %6 = amp.erf %a : tensor<2x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// sin and cos: math.sin and math.cos (libm on the CPU, libdevice on the
// GPU); a bf16 operand is widened once and the result rounded once.
// CHECK-LABEL: func.func @sin_cos
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.sin %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[V:.+]] = math.cos %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @sin_cos(%a: tensor<2x4xf32>, %b: tensor<3xbf16>) -> (tensor<2x4xf32>, tensor<3xbf16>) {
  %0 = amp.sin %a : tensor<2x4xf32>
  %1 = amp.cos %b : tensor<3xbf16>
  return %0, %1 : tensor<2x4xf32>, tensor<3xbf16>
}

// -----

// Transcendental functions of f16 values are evaluated in f32 and rounded
// once.
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @unary_f16
// CHECK-SAME: (%[[A:.+]]: tensor<8xf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<8xf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<8xf16>) outs(%[[INIT]] : tensor<8xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = arith.negf %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = math.exp %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = math.log %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = math.sqrt %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = math.rsqrt %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = math.tanh %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[V:.+]] = math.erf %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @unary_f16(%a: tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>) {
  %0 = amp.neg %a : tensor<8xf16>
  %1 = amp.exp %a : tensor<8xf16>
  %2 = amp.log %a : tensor<8xf16>
  %3 = amp.sqrt %a : tensor<8xf16>
  %4 = amp.rsqrt %a : tensor<8xf16>
  %5 = amp.tanh %a : tensor<8xf16>
  %6 = amp.erf %a : tensor<8xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>
}

// -----

// A 0-d tensor gives a generic with no loops.
// CHECK: #[[$MAP:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @exp_0d_bf16
// CHECK-SAME: (%[[A:.+]]: tensor<bf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<bf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = []} ins(%[[A]] : tensor<bf16>) outs(%[[INIT]] : tensor<bf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[V:.+]] = math.exp %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @exp_0d_bf16(%a: tensor<bf16>) -> tensor<bf16> {
  %0 = amp.exp %a : tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

//===----------------------------------------------------------------------===//
// Activations: sigmoid relu silu gelu
//===----------------------------------------------------------------------===//

// sigmoid(x) = 1 / (1 + exp(-x))
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sigmoid_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4xf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf16>) outs(%[[INIT]] : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.negf %[[W]] : f32
// CHECK-NEXT: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[SIG:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[SIG]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @sigmoid_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.sigmoid %a : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// relu(x) = maximumf(x, 0), which propagates NaN like torch.relu.
// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @relu_bf16
// CHECK-SAME: (%[[A:.+]]: tensor<2x4xbf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x4xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<2x4xbf16>) outs(%[[INIT]] : tensor<2x4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[W]], %[[ZERO]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @relu_bf16(%a: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %0 = amp.relu %a : tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

// silu(x) = x * sigmoid(x)
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @silu_f32
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[SIG:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: %[[SILU:.+]] = arith.mulf %[[X]], %[[SIG]] : f32
// CHECK-NEXT: linalg.yield %[[SILU]] : f32
func.func @silu_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.silu %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// softplus(x) = max(x, 0) + log1p(exp(-|x|)), widened once and rounded once.
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @softplus_bf16
// CHECK-SAME: (%[[A:.+]]: tensor<4xbf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xbf16>) outs(%[[INIT]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[POS:.+]] = arith.maximumf %[[W]], %[[ZERO]] : f32
// CHECK-NEXT: %[[ABS:.+]] = math.absf %[[W]] : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.negf %[[ABS]] : f32
// CHECK-NEXT: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[TAIL:.+]] = math.log1p %[[EXP]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[POS]], %[[TAIL]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @softplus_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = amp.softplus %a : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2)))
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @gelu_erf_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4xf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf16>) outs(%[[INIT]] : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RSQRT2:.+]] = arith.constant 0.707106769 : f32
// CHECK-DAG: %[[SCALED:.+]] = arith.mulf %[[W]], %[[RSQRT2]] : f32
// CHECK-DAG: %[[ERF:.+]] = math.erf %[[SCALED]] : f32
// CHECK-DAG: %[[ONEPLUS:.+]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK-DAG: %[[CDF:.+]] = arith.mulf %[[HALF]], %[[ONEPLUS]] : f32
// CHECK-DAG: %[[GELU:.+]] = arith.mulf %[[W]], %[[CDF]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[GELU]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @gelu_erf_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.gelu %a : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// gelu(x) = x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @gelu_tanh_bf16
// CHECK-SAME: (%[[A:.+]]: tensor<4xbf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C:.+]] = arith.constant 4.471500e-02 : f32
// CHECK-DAG: %[[K:.+]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[X2:.+]] = arith.mulf %[[W]], %[[W]] : f32
// CHECK-DAG: %[[X3:.+]] = arith.mulf %[[X2]], %[[W]] : f32
// CHECK-DAG: %[[CX3:.+]] = arith.mulf %[[C]], %[[X3]] : f32
// CHECK-DAG: %[[POLY:.+]] = arith.addf %[[W]], %[[CX3]] : f32
// CHECK-DAG: %[[INNER:.+]] = arith.mulf %[[K]], %[[POLY]] : f32
// CHECK-DAG: %[[T:.+]] = math.tanh %[[INNER]] : f32
// CHECK-DAG: %[[ONEPLUS:.+]] = arith.addf %[[ONE]], %[[T]] : f32
// CHECK-DAG: %[[CDF:.+]] = arith.mulf %[[HALF]], %[[ONEPLUS]] : f32
// CHECK-DAG: %[[GELU:.+]] = arith.mulf %[[W]], %[[CDF]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[GELU]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @gelu_tanh_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = amp.gelu %a approximate = tanh : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Activation gradients: relu_grad silu_grad sigmoid_grad tanh_grad gelu_grad
// (operands: the incoming gradient, then the forward input or output)
//===----------------------------------------------------------------------===//

// relu_grad(g, x) = x > 0 ? g : 0
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu_grad_f16
// CHECK-SAME: (%[[G:.+]]: tensor<4xf16>, %[[F:.+]]: tensor<4xf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[F]] : tensor<4xf16>, tensor<4xf16>) outs(%[[INIT]] : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f16, %[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GRAD]] : f16 to f32
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[POS:.+]] = arith.cmpf ogt, %[[WX]], %[[ZERO]] : f32
// CHECK-NEXT: %[[ZERO2:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SEL:.+]] = arith.select %[[POS]], %[[WG]], %[[ZERO2]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[SEL]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @relu_grad_f16(%g: tensor<4xf16>, %x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.relu_grad %g, %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// silu_grad(g, x) = g * s * (1 + x * (1 - s)), s = sigmoid(x)
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @silu_grad_f32
// CHECK-SAME: (%[[G:.+]]: tensor<4xf32>, %[[F:.+]]: tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[F]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: %[[ONE2:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[OMS:.+]] = arith.subf %[[ONE2]], %[[S]] : f32
// CHECK-NEXT: %[[XOMS:.+]] = arith.mulf %[[X]], %[[OMS]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ONE2]], %[[XOMS]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.mulf %[[S]], %[[SUM]] : f32
// CHECK-NEXT: %[[RES:.+]] = arith.mulf %[[GRAD]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[RES]] : f32
func.func @silu_grad_f32(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.silu_grad %g, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sigmoid_grad(g, y) = g * y * (1 - y), y the forward output
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sigmoid_grad_bf16
// CHECK-SAME: (%[[G:.+]]: tensor<4xbf16>, %[[F:.+]]: tensor<4xbf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[F]] : tensor<4xbf16>, tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: bf16, %[[Y:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GRAD]] : bf16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[OMY:.+]] = arith.subf %[[ONE]], %[[WY]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.mulf %[[WY]], %[[OMY]] : f32
// CHECK-NEXT: %[[RES:.+]] = arith.mulf %[[WG]], %[[D]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[RES]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @sigmoid_grad_bf16(%g: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = amp.sigmoid_grad %g, %y : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// tanh_grad(g, y) = g * (1 - y^2), y the forward output
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @tanh_grad_f16
// CHECK-SAME: (%[[G:.+]]: tensor<4xf16>, %[[F:.+]]: tensor<4xf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[F]] : tensor<4xf16>, tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GRAD]] : f16 to f32
// CHECK-NEXT: %[[WY:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[Y2:.+]] = arith.mulf %[[WY]], %[[WY]] : f32
// CHECK-DAG: %[[D:.+]] = arith.subf %[[ONE]], %[[Y2]] : f32
// CHECK-DAG: %[[RES:.+]] = arith.mulf %[[WG]], %[[D]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[RES]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @tanh_grad_f16(%g: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.tanh_grad %g, %y : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// gelu_grad(g, x) = g * (cdf(x) + x * exp(-x^2 / 2) / sqrt(2 pi))
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @gelu_grad_erf_f32
// CHECK-SAME: (%[[G:.+]]: tensor<4xf32>, %[[F:.+]]: tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[F]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RSQRT2:.+]] = arith.constant 0.707106769 : f32
// CHECK-DAG: %[[MHALF:.+]] = arith.constant -5.000000e-01 : f32
// CHECK-DAG: %[[RSQRT2PI:.+]] = arith.constant 0.398942292 : f32
// CHECK-DAG: %[[SCALED:.+]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
// CHECK-DAG: %[[ERF:.+]] = math.erf %[[SCALED]] : f32
// CHECK-DAG: %[[X2:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-DAG: %[[EXPARG:.+]] = arith.mulf %[[X2]], %[[MHALF]] : f32
// CHECK-DAG: %[[EXP:.+]] = math.exp %[[EXPARG]] : f32
// CHECK-DAG: %[[PDF:.+]] = arith.mulf %[[RSQRT2PI]], %[[EXP]] : f32
// CHECK-DAG: %[[XPDF:.+]] = arith.mulf %[[X]], %[[PDF]] : f32
// CHECK-DAG: %[[ONEPLUS:.+]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK-DAG: %[[CDF:.+]] = arith.mulf %[[HALF]], %[[ONEPLUS]] : f32
// CHECK-DAG: %[[D:.+]] = arith.addf %[[CDF]], %[[XPDF]] : f32
// CHECK-DAG: %[[RES:.+]] = arith.mulf %[[GRAD]], %[[D]] : f32
// CHECK: linalg.yield %[[RES]] : f32
func.func @gelu_grad_erf_f32(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.gelu_grad %g, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gelu_grad(g, x) = g * (0.5 (1 + t) + x * 0.5 * (1 - t^2) * k * (1 + 3 c x^2))
// with t = tanh(k (x + c x^3)), k = sqrt(2 / pi), c = 0.044715
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @gelu_grad_tanh_f16
// CHECK-SAME: (%[[G:.+]]: tensor<4xf16>, %[[F:.+]]: tensor<4xf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[F]] : tensor<4xf16>, tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f16, %[[X:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GRAD]] : f16 to f32
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C:.+]] = arith.constant 4.471500e-02 : f32
// CHECK-DAG: %[[K:.+]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[C3:.+]] = arith.constant 1.341450e-01 : f32
// CHECK-DAG: %[[K2:.+]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[X2:.+]] = arith.mulf %[[WX]], %[[WX]] : f32
// CHECK-DAG: %[[X3:.+]] = arith.mulf %[[X2]], %[[WX]] : f32
// CHECK-DAG: %[[CX3:.+]] = arith.mulf %[[C]], %[[X3]] : f32
// CHECK-DAG: %[[POLY:.+]] = arith.addf %[[WX]], %[[CX3]] : f32
// CHECK-DAG: %[[INNER:.+]] = arith.mulf %[[K]], %[[POLY]] : f32
// CHECK-DAG: %[[T:.+]] = math.tanh %[[INNER]] : f32
// CHECK-DAG: %[[T2:.+]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK-DAG: %[[SECH2:.+]] = arith.subf %[[ONE]], %[[T2]] : f32
// CHECK-DAG: %[[C3X2:.+]] = arith.mulf %[[C3]], %[[X2]] : f32
// CHECK-DAG: %[[DPOLY:.+]] = arith.addf %[[ONE]], %[[C3X2]] : f32
// CHECK-DAG: %[[DINNER:.+]] = arith.mulf %[[K2]], %[[DPOLY]] : f32
// CHECK-DAG: %[[CHAIN:.+]] = arith.mulf %[[SECH2]], %[[DINNER]] : f32
// CHECK-DAG: %[[XHALF:.+]] = arith.mulf %[[WX]], %[[HALF]] : f32
// CHECK-DAG: %[[REST:.+]] = arith.mulf %[[XHALF]], %[[CHAIN]] : f32
// CHECK-DAG: %[[ONEPLUS:.+]] = arith.addf %[[ONE]], %[[T]] : f32
// CHECK-DAG: %[[CDF:.+]] = arith.mulf %[[HALF]], %[[ONEPLUS]] : f32
// CHECK-DAG: %[[D:.+]] = arith.addf %[[CDF]], %[[REST]] : f32
// CHECK-DAG: %[[RES:.+]] = arith.mulf %[[WG]], %[[D]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[RES]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @gelu_grad_tanh_f16(%g: tensor<4xf16>, %x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.gelu_grad %g, %x approximate = tanh : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

// Narrowing rounds once; widening is exact; f16 <-> bf16 goes through f32.
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf16>, %[[C:.+]]: tensor<4xbf16>)
// CHECK: %[[INIT0:.+]] = tensor.empty() : tensor<4xbf16>
// CHECK: %[[NARROW:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%[[INIT0]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[X]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: %[[INIT1:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[WIDEN:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[B]] : tensor<4xf16>) outs(%[[INIT1]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT: %[[R:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: %[[INIT2:.+]] = tensor.empty() : tensor<4xbf16>
// CHECK: %[[TOBF16:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[B]] : tensor<4xf16>) outs(%[[INIT2]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: %[[INIT3:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: %[[TOF16:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[C]] : tensor<4xbf16>) outs(%[[INIT3]] : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[W]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[NARROW]], %[[WIDEN]], %[[TOBF16]], %[[TOF16]]
func.func @cast(%a: tensor<4xf32>, %b: tensor<4xf16>, %c: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>) {
  %0 = amp.cast %a : tensor<4xf32> to tensor<4xbf16>
  %1 = amp.cast %b : tensor<4xf16> to tensor<4xf32>
  %2 = amp.cast %b : tensor<4xf16> to tensor<4xbf16>
  %3 = amp.cast %c : tensor<4xbf16> to tensor<4xf16>
  return %0, %1, %2, %3 : tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// compare, where, dropout_grad
//===----------------------------------------------------------------------===//

// Float comparisons are ordered except ne (unordered, true on NaN, as IEEE
// and PyTorch's !=); they compare the operands as they are, without widening.
// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @compare_float
// CHECK-SAME: (%[[A:.+]]: tensor<2x4xf16>, %[[B:.+]]: tensor<2x4xf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x4xi1>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x4xf16>, tensor<2x4xf16>) outs(%[[INIT]] : tensor<2x4xi1>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf oeq, %[[X]], %[[Y]] : f16
// CHECK-NEXT: linalg.yield %[[C]] : i1
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf une, %[[X]], %[[Y]] : f16
// CHECK-NEXT: linalg.yield %[[C]] : i1
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf olt, %[[X]], %[[Y]] : f16
// CHECK-NEXT: linalg.yield %[[C]] : i1
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf ole, %[[X]], %[[Y]] : f16
// CHECK-NEXT: linalg.yield %[[C]] : i1
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf ogt, %[[X]], %[[Y]] : f16
// CHECK-NEXT: linalg.yield %[[C]] : i1
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf oge, %[[X]], %[[Y]] : f16
// CHECK-NEXT: linalg.yield %[[C]] : i1
func.func @compare_float(%a: tensor<2x4xf16>, %b: tensor<2x4xf16>) -> (tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  %0 = amp.compare eq, %a, %b : tensor<2x4xf16> -> tensor<2x4xi1>
  %1 = amp.compare ne, %a, %b : tensor<2x4xf16> -> tensor<2x4xi1>
  %2 = amp.compare lt, %a, %b : tensor<2x4xf16> -> tensor<2x4xi1>
  %3 = amp.compare le, %a, %b : tensor<2x4xf16> -> tensor<2x4xi1>
  %4 = amp.compare gt, %a, %b : tensor<2x4xf16> -> tensor<2x4xi1>
  %5 = amp.compare ge, %a, %b : tensor<2x4xf16> -> tensor<2x4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}

// -----

// Integer comparisons are signed.
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @compare_integer
// CHECK-SAME: (%[[A:.+]]: tensor<4xi64>, %[[B:.+]]: tensor<4xi64>, %[[C:.+]]: tensor<4xi32>, %[[D:.+]]: tensor<4xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xi64>, tensor<4xi64>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i64, %[[Y:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT: %[[R:.+]] = arith.cmpi eq, %[[X]], %[[Y]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[X:.+]]: i64, %[[Y:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT: %[[R:.+]] = arith.cmpi ne, %[[X]], %[[Y]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ins(%[[C]], %[[D]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i1):
// CHECK-NEXT: %[[R:.+]] = arith.cmpi slt, %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i1):
// CHECK-NEXT: %[[R:.+]] = arith.cmpi sle, %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i1):
// CHECK-NEXT: %[[R:.+]] = arith.cmpi sgt, %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i1):
// CHECK-NEXT: %[[R:.+]] = arith.cmpi sge, %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i1
func.func @compare_integer(%a: tensor<4xi64>, %b: tensor<4xi64>, %c: tensor<4xi32>, %d: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = amp.compare eq, %a, %b : tensor<4xi64> -> tensor<4xi1>
  %1 = amp.compare ne, %a, %b : tensor<4xi64> -> tensor<4xi1>
  %2 = amp.compare lt, %c, %d : tensor<4xi32> -> tensor<4xi1>
  %3 = amp.compare le, %c, %d : tensor<4xi32> -> tensor<4xi1>
  %4 = amp.compare gt, %c, %d : tensor<4xi32> -> tensor<4xi1>
  %5 = amp.compare ge, %c, %d : tensor<4xi32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[M:.+]]: tensor<2x4xi1>, %[[A:.+]]: tensor<2x4xbf16>, %[[B:.+]]: tensor<2x4xbf16>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x4xbf16>
// CHECK: %[[RES:.+]] = linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[M]], %[[A]], %[[B]] : tensor<2x4xi1>, tensor<2x4xbf16>, tensor<2x4xbf16>) outs(%[[INIT]] : tensor<2x4xbf16>)
// CHECK-NEXT: ^bb0(%[[C:.+]]: i1, %[[X:.+]]: bf16, %[[Y:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[S:.+]] = arith.select %[[C]], %[[X]], %[[Y]] : bf16
// CHECK-NEXT: linalg.yield %[[S]] : bf16
// CHECK: return %[[RES]]
func.func @where(%m: tensor<2x4xi1>, %a: tensor<2x4xbf16>, %b: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %0 = amp.where %m, %a, %b : tensor<2x4xi1>, tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

// dropout_grad(g, mask) = mask ? g / (1 - p) : 0, here 1 / (1 - 0.25).
// CHECK: #[[$MAP:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @dropout_grad_f16
// CHECK-SAME: (%[[G:.+]]: tensor<8xf16>, %[[M:.+]]: tensor<8xi1>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<8xf16>
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel"]} ins(%[[G]], %[[M]] : tensor<8xf16>, tensor<8xi1>) outs(%[[INIT]] : tensor<8xf16>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f16, %[[KEEP:.+]]: i1, %{{.+}}: f16):
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 1.33333337 : f32
// CHECK-DAG: %[[WG:.+]] = arith.extf %[[GRAD]] : f16 to f32
// CHECK-DAG: %[[SCALED:.+]] = arith.mulf %[[WG]], %[[SCALE]] : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[SEL:.+]] = arith.select %[[KEEP]], %[[SCALED]], %[[ZERO]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[SEL]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @dropout_grad_f16(%g: tensor<8xf16>, %m: tensor<8xi1>) -> tensor<8xf16> {
  %0 = amp.dropout_grad %g, %m {probability = 0.25 : f64} : tensor<8xf16>, tensor<8xi1>
  return %0 : tensor<8xf16>
}

// -----

// CHECK: #[[$MAP:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dropout_grad_f32
// CHECK-SAME: (%[[G:.+]]: tensor<2x4xf32>, %[[M:.+]]: tensor<2x4xi1>)
// CHECK: linalg.generic {indexing_maps = [#[[$MAP]], #[[$MAP]], #[[$MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[M]] : tensor<2x4xf32>, tensor<2x4xi1>)
// CHECK-NEXT: ^bb0(%[[GRAD:.+]]: f32, %[[KEEP:.+]]: i1, %{{.+}}: f32):
// CHECK-NEXT: %[[SCALE:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[GRAD]], %[[SCALE]] : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SEL:.+]] = arith.select %[[KEEP]], %[[SCALED]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[SEL]] : f32
func.func @dropout_grad_f32(%g: tensor<2x4xf32>, %m: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %0 = amp.dropout_grad %g, %m {probability = 0.5 : f64} : tensor<2x4xf32>, tensor<2x4xi1>
  return %0 : tensor<2x4xf32>
}
