// RUN: amp-opt %s -split-input-file --amp-cpu-wide-sums | FileCheck %s

// A row sum into a zero fill: the same generic on an f64 accumulator filled
// with 0.0, each term widened, then one rounding to f32.
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%{{.*}} : tensor<4xf64>) -> tensor<4xf64>
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>) outs(%[[FILL]] : tensor<4xf64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK-NEXT: %[[EXT:.*]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[ACC]], %[[EXT]] : f64
// CHECK-NEXT: linalg.yield %[[ADD]] : f64
// CHECK: %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: return %[[ROUNDED]] : tensor<4xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// Two sums in one generic (a normalization's weight and bias gradients):
// the term's computation stays in f32, both accumulators become f64; an
// initial value that is not a constant fill is widened.
// CHECK-LABEL: func.func @weight_and_bias
// CHECK-SAME: (%[[G:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>, %[[INIT:.*]]: tensor<8xf32>)
// CHECK: %[[W0:.*]] = linalg.generic {{.*}} ins(%[[INIT]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<8xf64>)
// CHECK: %[[WIDE:.*]]:2 = linalg.generic {{.*}} ins(%[[G]], %[[X]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[W0]], %[[FILL]] : tensor<8xf64>, tensor<8xf64>)
// CHECK-NEXT: ^bb0(%[[GI:.*]]: f32, %[[XI:.*]]: f32, %[[WA:.*]]: f64, %[[BA:.*]]: f64):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[XI]], %[[XI]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[GI]], %[[SQ]] : f32
// CHECK-NEXT: %[[TE:.*]] = arith.extf %[[T]] : f32 to f64
// CHECK-NEXT: %[[WS:.*]] = arith.addf %[[WA]], %[[TE]] : f64
// CHECK-NEXT: %[[GE:.*]] = arith.extf %[[GI]] : f32 to f64
// CHECK-NEXT: %[[BS:.*]] = arith.addf %[[BA]], %[[GE]] : f64
// CHECK-NEXT: linalg.yield %[[WS]], %[[BS]] : f64, f64
// CHECK-COUNT-2: arith.truncf %{{.*}} : f64 to f32
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @weight_and_bias(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>, %init: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8xf32>) -> tensor<8xf32>
  %sums:2 = linalg.generic {indexing_maps = [#id, #id, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%g, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init, %fill : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%gi: f32, %xi: f32, %w: f32, %b: f32):
    %sq = arith.mulf %xi, %xi : f32
    %t = arith.mulf %gi, %sq : f32
    %ws = arith.addf %w, %t : f32
    %bs = arith.addf %b, %gi : f32
    linalg.yield %ws, %bs : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %sums#0, %sums#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A product with a per-channel weight (a normalization's sum of grad *
// weight) is a sum to widen, not a contraction.
// CHECK-LABEL: func.func @weighted_sum
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8xf64>)
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.extf %[[P]] : f32 to f64
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @weighted_sum(%g: tensor<4x8xf32>, %w: tensor<8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {indexing_maps = [#id, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%g, %w : tensor<4x8xf32>, tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%gi: f32, %wi: f32, %acc: f32):
    %0 = arith.mulf %gi, %wi : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// Left alone: a matrix product (products of two input elements, which
// become BLAS calls), a maximum, an f32 sum whose accumulator is read
// elsewhere in the body, and a generic on buffers.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: f64
// CHECK: return
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%x: tensor<4x8xf32>, %y: tensor<8x3xf32>, %init: tensor<4x3xf32>, %r: tensor<4xf32>, %buf: memref<4x8xf32>, %out: memref<4xf32>)
    -> (tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<8x3xf32>) outs(%init : tensor<4x3xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x3xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%r : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%r : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %acc, %in : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%buf : memref<4x8xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return %mm, %max, %scaled : tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>
}
