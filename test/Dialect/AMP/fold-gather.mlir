// RUN: amp-opt %s --canonicalize --split-input-file | FileCheck %s

// amp.gather of constants folds (lib/Dialect/AMP/IR/AMPFolders.cpp).

// CHECK-LABEL: func.func @rows
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<{{\[}}{{\[}}[5.000000e+00, 6.000000e+00], [1.000000e+00, 2.000000e+00]]]> : tensor<1x2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @rows() -> tensor<1x2x2xf32> {
  %t = amp.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %i = amp.constant dense<[[2, 0]]> : tensor<1x2xi64>
  %0 = amp.gather %t, %i {axis = 0 : i64} : (tensor<3x2xf32>, tensor<1x2xi64>) -> tensor<1x2x2xf32>
  return %0 : tensor<1x2x2xf32>
}

// -----

// A negative axis, i32 indices, bf16 data.
// CHECK-LABEL: func.func @columns
// CHECK-NEXT: %[[C:.*]] = amp.constant dense<{{\[}}[2.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
// CHECK-NEXT: return %[[C]]
func.func @columns() -> tensor<2x2xbf16> {
  %t = amp.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %i = amp.constant dense<[1, 1]> : tensor<2xi32>
  %0 = amp.gather %t, %i {axis = -1 : i64} : (tensor<2x2xbf16>, tensor<2xi32>) -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// -----

// i1 data, and a splat whose gather is a splat.
// CHECK-LABEL: func.func @bools_and_splat
// CHECK-DAG: %[[B:.*]] = amp.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: %[[S:.*]] = amp.constant dense<7> : tensor<3x2xi64>
// CHECK: return %[[B]], %[[S]]
func.func @bools_and_splat() -> (tensor<2xi1>, tensor<3x2xi64>) {
  %b = amp.constant dense<[true, false, true]> : tensor<3xi1>
  %i = amp.constant dense<[1, 2]> : tensor<2xi64>
  %0 = amp.gather %b, %i : (tensor<3xi1>, tensor<2xi64>) -> tensor<2xi1>
  %s = amp.constant dense<7> : tensor<4x2xi64>
  %j = amp.constant dense<[0, 3, 3]> : tensor<3xi64>
  %1 = amp.gather %s, %j : (tensor<4x2xi64>, tensor<3xi64>) -> tensor<3x2xi64>
  return %0, %1 : tensor<2xi1>, tensor<3x2xi64>
}

// -----

// An index out of range, or data computed at run time, does not fold.
// CHECK-LABEL: func.func @not_folded
// CHECK: amp.gather
// CHECK: amp.gather
func.func @not_folded(%x: tensor<3xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %t = amp.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %bad = amp.constant dense<[3]> : tensor<1xi64>
  %0 = amp.gather %t, %bad : (tensor<3xf32>, tensor<1xi64>) -> tensor<1xf32>
  %ok = amp.constant dense<[1]> : tensor<1xi64>
  %1 = amp.gather %x, %ok : (tensor<3xf32>, tensor<1xi64>) -> tensor<1xf32>
  return %0, %1 : tensor<1xf32>, tensor<1xf32>
}
