// RUN: amp-opt %s -split-input-file --amp-fuse-elementwise | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-fuse-elementwise="fuse-into-reductions=false propagate-reshapes=false" | FileCheck %s

// A reduction that repeats an earlier one of its block (same inputs, maps,
// iterators and body, an init filled with the same constant) is that one:
// amp.cross_entropy and its gradient both take the row max of the logits,
// which fused twice read the logits twice.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @repeated_row_max
// CHECK-COUNT-1: arith.maximumf
// CHECK-NOT: arith.maximumf
// CHECK: return %[[R:.+]], %[[R]] :
func.func @repeated_row_max(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %m0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %ninf1 = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %i1 = linalg.fill ins(%ninf1 : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i1 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %m0, %m1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Not the same value: another init, another input.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @different_reductions
// CHECK-COUNT-3: arith.addf
func.func @different_reductions(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %i1 = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i1 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x8xf32>) outs(%i0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %s0, %s1, %s2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
