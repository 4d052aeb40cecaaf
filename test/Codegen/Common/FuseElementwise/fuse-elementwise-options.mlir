// RUN: amp-opt %s -split-input-file --amp-fuse-elementwise | FileCheck %s --check-prefix=GPU
// RUN: amp-opt %s -split-input-file --amp-fuse-elementwise="fuse-into-reductions=false propagate-reshapes=false" | FileCheck %s --check-prefix=CPU
// RUN: not amp-opt %s -split-input-file --amp-fuse-elementwise="fuse-into-reductions=maybe" 2>&1 | FileCheck %s --check-prefix=BAD

// The options the CPU pipeline sets. By default (the GPU pipeline) an
// elementwise value is fused into the reduction reading it and a reshape is
// moved through elementwise ops; with the CPU's options neither: the CPU
// turns convolutions (reductions that are not contractions) into im2col and
// OpenBLAS calls only when their operands are tensors of their own, and an
// optimizer update must keep its parameter's shape to update it in place.

// BAD: for the --fuse-into-reductions option: 'maybe' is invalid value for boolean argument

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>


// GPU-LABEL: func.func @into_reduction
//       GPU:   linalg.fill
//  GPU-NEXT:   linalg.generic
//  GPU-SAME:       iterator_types = ["parallel", "reduction"]
//   GPU-NOT:   linalg.generic
// CPU-LABEL: func.func @into_reduction
//       CPU:   linalg.generic
//  CPU-SAME:       iterator_types = ["parallel", "parallel"]
//       CPU:     arith.subf
//       CPU:     arith.mulf
//       CPU:   linalg.generic
//  CPU-SAME:       iterator_types = ["parallel", "reduction"]
//       CPU:     arith.addf
func.func @into_reduction(%x: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %y = arith.subf %a, %c : f32
    %z = arith.mulf %y, %y : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>


// The SGD-like update of a 4-d parameter reads a gradient computed as a
// matrix and reshaped: by default the reshape moves to the inputs and the
// two generics fuse on 4-d tensors; with the CPU's options the gradient is
// computed as a matrix, reshaped, and the update is a 4-d generic of its own.
// GPU-LABEL: func.func @update_through_reshape
//       GPU:   tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2, 3]]
//       GPU:   tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2, 3]]
//       GPU:   linalg.generic
//  GPU-SAME:       ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>)
//   GPU-NOT:   linalg.generic
// CPU-LABEL: func.func @update_through_reshape
//       CPU:   %[[SUM:.+]] = linalg.generic
//  CPU-SAME:       ins(%{{.+}}, %{{.+}} : tensor<4x18xf32>, tensor<4x18xf32>)
//       CPU:   %[[GRAD:.+]] = tensor.expand_shape %[[SUM]]
//       CPU:   linalg.generic
//  CPU-SAME:       ins(%{{.+}}, %[[GRAD]] : tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>)
func.func @update_through_reshape(%g: tensor<4x18xf32>, %h: tensor<4x18xf32>, %p: tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32> {
  %e = tensor.empty() : tensor<4x18xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %h : tensor<4x18xf32>, tensor<4x18xf32>) outs(%e : tensor<4x18xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %y = arith.addf %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<4x18xf32>
  %x = tensor.expand_shape %s [[0], [1, 2, 3]] output_shape [4, 2, 3, 3] : tensor<4x18xf32> into tensor<4x2x3x3xf32>
  %e4 = tensor.empty() : tensor<4x2x3x3xf32>
  %u = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %x : tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>) outs(%e4 : tensor<4x2x3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %k = arith.constant 0.01 : f32
    %y = arith.mulf %c, %k : f32
    %z = arith.subf %a, %y : f32
    linalg.yield %z : f32
  } -> tensor<4x2x3x3xf32>
  return %u : tensor<4x2x3x3xf32>
}
