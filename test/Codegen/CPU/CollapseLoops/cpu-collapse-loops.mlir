// RUN: amp-opt %s -split-input-file --amp-cpu-collapse-loops | FileCheck %s

// An SGD momentum update of a 3x3 convolution weight (a scalar learning
// rate beside): every operand is read at the loop indices, so the four
// loops become one over 8 * 4 * 3 * 3 = 288 elements.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>

// CHECK-DAG: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR1:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @momentum
// CHECK-SAME: (%[[W:.+]]: memref<8x4x3x3xf32>, %[[G:.+]]: memref<8x4x3x3xf32>, %[[LR:.+]]: memref<f32>, %[[OUT:.+]]: memref<8x4x3x3xf32>)
// CHECK-DAG: %[[W1:.+]] = memref.collapse_shape %[[W]] {{\[}}[0, 1, 2, 3]] : memref<8x4x3x3xf32> into memref<288xf32>
// CHECK-DAG: %[[G1:.+]] = memref.collapse_shape %[[G]] {{\[}}[0, 1, 2, 3]]
// CHECK-DAG: %[[OUT1:.+]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1, 2, 3]]
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[SCALAR1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[W1]], %[[G1]], %[[LR]] : memref<288xf32>, memref<288xf32>, memref<f32>) outs(%[[OUT1]] : memref<288xf32>)
// CHECK: arith.mulf
// CHECK: arith.subf
func.func @momentum(%w: memref<8x4x3x3xf32>, %g: memref<8x4x3x3xf32>,
                    %lr: memref<f32>, %out: memref<8x4x3x3xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #scalar, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %g, %lr : memref<8x4x3x3xf32>, memref<8x4x3x3xf32>, memref<f32>)
      outs(%out : memref<8x4x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %0 = arith.mulf %r, %b : f32
    %1 = arith.subf %a, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The same update in place (amp-state-updates-in-place): the weight is read
// and written, and both operands take one view of it, so the outlined
// kernel gets one pointer (two aliasing ones keep LLVM's vectorizer on its
// scalar fallback).

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>

// CHECK-LABEL: func.func @momentum_in_place
// CHECK-SAME: (%[[W:.+]]: memref<8x4x3x3xf32>, %[[G:.+]]: memref<8x4x3x3xf32>, %[[LR:.+]]: memref<f32>)
// CHECK: %[[W1:.+]] = memref.collapse_shape %[[W]] {{\[}}[0, 1, 2, 3]] : memref<8x4x3x3xf32> into memref<288xf32>
// CHECK-NOT: memref.collapse_shape %[[W]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[W1]], %{{.+}}, %[[LR]] : memref<288xf32>, memref<288xf32>, memref<f32>) outs(%[[W1]] : memref<288xf32>)
func.func @momentum_in_place(%w: memref<8x4x3x3xf32>, %g: memref<8x4x3x3xf32>,
                             %lr: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #id, #scalar, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %g, %lr : memref<8x4x3x3xf32>, memref<8x4x3x3xf32>, memref<f32>)
      outs(%w : memref<8x4x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %0 = arith.mulf %r, %b : f32
    %1 = arith.subf %a, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The input-gradient transposition of a convolution weight: the two
// transposed loops stay, the 3x3 window after them becomes one loop of 9.

// CHECK-LABEL: func.func @transpose_weight
// CHECK-DAG: memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : memref<8x4x3x3xf32> into memref<8x4x9xf32>
// CHECK-DAG: memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : memref<4x8x3x3xf32> into memref<4x8x9xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%{{.+}} : memref<8x4x9xf32>) outs(%{{.+}} : memref<4x8x9xf32>)
func.func @transpose_weight(%w: memref<8x4x3x3xf32>, %out: memref<4x8x3x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : memref<8x4x3x3xf32>) outs(%out : memref<4x8x3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Left alone: a bias broadcast (its map reads only the last loop, so the
// two loops are not contiguous in it), a window read (not a projected
// permutation: im2col), a reduction, an op using linalg.index, an operand
// with a strided layout (not contiguous in memory), one with a contiguous
// but offset layout (upstream could collapse it; the pass takes identity
// layouts only) and one with a dynamic shape.

// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: memref.collapse_shape
// CHECK-COUNT-7: linalg.generic
// CHECK-NOT: memref.collapse_shape
// CHECK: return
func.func @unchanged(%x: memref<4x8xf32>, %bias: memref<8xf32>,
                     %image: memref<4x10xf32>, %rows: memref<4xf32>,
                     %strided: memref<4x8xf32, strided<[16, 1]>>,
                     %offset: memref<4x8xf32, strided<[8, 1], offset: 4>>,
                     %dynamic: memref<?x8xf32>,
                     %out: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : memref<4x8xf32>, memref<8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 2)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%image : memref<4x10xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%rows : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%strided : memref<4x8xf32, strided<[16, 1]>>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%offset : memref<4x8xf32, strided<[8, 1], offset: 4>>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%dynamic : memref<?x8xf32>) {
  ^bb0(%o: f32):
    %0 = arith.mulf %o, %o : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Tensors (before bufferization) are not this pass's business.

// CHECK-LABEL: func.func @tensors
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
func.func @tensors(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %1 = arith.mulf %a, %a : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
