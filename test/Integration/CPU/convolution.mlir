// Executes the convolution, pooling, gather, slice_grad and dropout lowerings
// on the CPU (--amp-cpu-pipeline, then mlir-runner) and checks every printed
// tensor against PyTorch 1.13 (/usr/bin/python3) on the same inputs:
//   conv2d: F.conv2d(F.pad(x, (left, right, top, bottom)), w, b, stride,
//     dilation=dilation, groups=groups), the input and weight gradients from
//     torch.autograd.grad(y, (x, w), dy) -- three cases: stride 2, padding
//     [1, 0, 2, 1], dilation 2, groups 2, bias (also with f16 operands and
//     result); stride [1, 2], dilation [1, 2]; stride [3, 2], dilation
//     [2, 3], groups 3;
//   max_pool2d: F.max_pool2d(F.pad(x, ..., value=-inf), ...) and its autograd
//     gradient (the input has tied maxima, so this checks that a gradient
//     goes to the first maximum of its window, and all-negative windows, so
//     that it checks the -inf padding);
//   avg_pool2d: F.avg_pool2d(F.pad(x, ...)) (padding counted) and
//     F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), with autograd;
//   global_avg_pool: F.adaptive_avg_pool2d(x, 1) and x.mean(2, keepdim=True);
//   gather / gather_grad: table[ids] with negative and repeated ids, and
//     x[:, ids, :] with i32 ids (axis 1, and -2 for the gradient), with
//     autograd for the scatter-add;
//   slice_grad: autograd of x[1:4:2, 0:6:3].
// dropout has no PyTorch counterpart (its generator is ours): the small case
// is checked element by element against a Python transcription of the
// SplitMix64 stream documented in ConvolutionToLinalg.cpp (keep element i if
// (splitmix64(seed, i) >> 11) >= ceil(p * 2^53)); the 64x64 cases check
//   - the kept count: 2075 of 4096 for p = 0.5 (expected 2048, sd 32) and
//     2886 for p = 0.3 (expected 2867, sd 29), i.e. the keep rate is 1 - p;
//   - output = x / (1 - p) where kept and 0 elsewhere: sum(output) equals
//     2 * sum(x where kept), and the sum of squared differences is 0;
//   - the same seed on another input gives the same mask (0 mismatches), and
//     another seed a different one (2053 mismatches, expected 2048).
//
// Tolerance: none. All inputs are small multiples of 1/2 or 1/4 (and the
// average-pooling gradients multiples of the divisors), so every product and
// every partial sum is exact in f32 whatever the order of accumulation,
// here or in PyTorch (the f16 conv's inputs are exact in f16, it accumulates
// in f32, and its results, half-integers below 2^10, round exactly). The
// only inexact operations are the average-pooling divisions by 3, 6 or 9,
// one correctly rounded f32 division of an exact sum on both sides. So the
// f32 results are bit-identical to PyTorch's, and printMemrefF32's six
// significant digits print the same text.
//
// The ops live in @compute so that they see runtime tensors, not constants
// that folding could bypass.

// RUN: amp-opt %s --amp-cpu-pipeline | mlir-runner -e main \
// RUN:   -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// conv2d s2 pad[1,0,2,1] d2 g2 bias
// CHECK: rank = 4 offset = 0 sizes = [2, 6, 2, 2] strides = [24, 4, 2, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}3.5, 13.5],
// CHECK-NEXT: [3.5, -13.5]],
// CHECK-NEXT: {{\[\[}}7.5, 5.5],
// CHECK-NEXT: [6.5, -2.5]],
// CHECK-NEXT: {{\[\[}}-10, -6],
// CHECK-NEXT: [6, -9]],
// CHECK-NEXT: {{\[\[}}4.5, -6.5],
// CHECK-NEXT: [-3.5, -0.5]],
// CHECK-NEXT: {{\[\[}}-13.5, -8.5],
// CHECK-NEXT: [-0.5, -5.5]],
// CHECK-NEXT: {{\[\[}}4.5, -2.5],
// CHECK-NEXT: [-1.5, -4.5]]],
// CHECK-NEXT: {{\[\[\[}}-4.5, -19.5],
// CHECK-NEXT: [2.5, 12.5]],
// CHECK-NEXT: {{\[\[}}-13.5, -4.5],
// CHECK-NEXT: [6.5, -6.5]],
// CHECK-NEXT: {{\[\[}}12, 11],
// CHECK-NEXT: [-2, 3]],
// CHECK-NEXT: {{\[\[}}7.5, -5.5],
// CHECK-NEXT: [3.5, -2.5]],
// CHECK-NEXT: {{\[\[}}3.5, 0.5],
// CHECK-NEXT: [0.5, 9.5]],
// CHECK-NEXT: {{\[\[}}-4.5, 2.5],
// CHECK-NEXT: [5.5, 3.5]]]]
// conv2d_input_grad
// CHECK: rank = 4 offset = 0 sizes = [2, 4, 5, 5] strides = [100, 25, 5, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [-6, 0, -12, 0, 1],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [9, 0, 3, 0, 2],
// CHECK-NEXT: [0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [-7, 0, 0, 0, -3],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [7, 0, 15, 0, -1],
// CHECK-NEXT: [0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [-4, 0, -9, 0, 4],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [-2, 0, -8, 0, 2],
// CHECK-NEXT: [0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [0, 0, 13, 0, 8],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [-1, 0, 1, 0, -2],
// CHECK-NEXT: [0, 0, 0, 0, 0]]],
// CHECK-NEXT: {{\[\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [-8, 0, 4, 0, 7],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [12, 0, 2, 0, -5],
// CHECK-NEXT: [0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [-1, 0, 8, 0, -3],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [-9, 0, -1, 0, -5],
// CHECK-NEXT: [0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [1, 0, 7, 0, 1],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [9, 0, 7, 0, 10],
// CHECK-NEXT: [0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
// CHECK-NEXT: [4, 0, -5, 0, -7],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [4, 0, 13, 0, 1],
// CHECK-NEXT: [0, 0, 0, 0, 0]]]]
// conv2d_weight_grad
// CHECK: rank = 4 offset = 0 sizes = [6, 2, 3, 2] strides = [12, 6, 2, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}-12, -2],
// CHECK-NEXT: [-12, 3],
// CHECK-NEXT: [9, 2]],
// CHECK-NEXT: {{\[\[}}-11, -11],
// CHECK-NEXT: [4, -20],
// CHECK-NEXT: [14, 7]]],
// CHECK-NEXT: {{\[\[\[}}5, 12],
// CHECK-NEXT: [-2, 2],
// CHECK-NEXT: [4, -3]],
// CHECK-NEXT: {{\[\[}}6, 10],
// CHECK-NEXT: [1, 4],
// CHECK-NEXT: [2, 1]]],
// CHECK-NEXT: {{\[\[\[}}4, 14],
// CHECK-NEXT: [-3, -1],
// CHECK-NEXT: [-1, -6]],
// CHECK-NEXT: {{\[\[}}-7, 10],
// CHECK-NEXT: [-7, -8],
// CHECK-NEXT: [-4, -10]]],
// CHECK-NEXT: {{\[\[\[}}5, -4],
// CHECK-NEXT: [-8, 1],
// CHECK-NEXT: [-10, -9]],
// CHECK-NEXT: {{\[\[}}-10, -3],
// CHECK-NEXT: [14, -2],
// CHECK-NEXT: [3, -7]]],
// CHECK-NEXT: {{\[\[\[}}-5, -6],
// CHECK-NEXT: [7, 4],
// CHECK-NEXT: [4, 7]],
// CHECK-NEXT: {{\[\[}}-8, 5],
// CHECK-NEXT: [3, -22],
// CHECK-NEXT: [-3, 6]]],
// CHECK-NEXT: {{\[\[\[}}3, 2],
// CHECK-NEXT: [5, 13],
// CHECK-NEXT: [-4, -2]],
// CHECK-NEXT: {{\[\[}}-5, 6],
// CHECK-NEXT: [-5, 1],
// CHECK-NEXT: [-6, -2]]]]
// conv2d f16 -> f16 (cast back to f32)
// CHECK: rank = 4 offset = 0 sizes = [2, 6, 2, 2] strides = [24, 4, 2, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}3.5, 13.5],
// CHECK-NEXT: [3.5, -13.5]],
// CHECK-NEXT: {{\[\[}}7.5, 5.5],
// CHECK-NEXT: [6.5, -2.5]],
// CHECK-NEXT: {{\[\[}}-10, -6],
// CHECK-NEXT: [6, -9]],
// CHECK-NEXT: {{\[\[}}4.5, -6.5],
// CHECK-NEXT: [-3.5, -0.5]],
// CHECK-NEXT: {{\[\[}}-13.5, -8.5],
// CHECK-NEXT: [-0.5, -5.5]],
// CHECK-NEXT: {{\[\[}}4.5, -2.5],
// CHECK-NEXT: [-1.5, -4.5]]],
// CHECK-NEXT: {{\[\[\[}}-4.5, -19.5],
// CHECK-NEXT: [2.5, 12.5]],
// CHECK-NEXT: {{\[\[}}-13.5, -4.5],
// CHECK-NEXT: [6.5, -6.5]],
// CHECK-NEXT: {{\[\[}}12, 11],
// CHECK-NEXT: [-2, 3]],
// CHECK-NEXT: {{\[\[}}7.5, -5.5],
// CHECK-NEXT: [3.5, -2.5]],
// CHECK-NEXT: {{\[\[}}3.5, 0.5],
// CHECK-NEXT: [0.5, 9.5]],
// CHECK-NEXT: {{\[\[}}-4.5, 2.5],
// CHECK-NEXT: [5.5, 3.5]]]]
// conv2d s[1,2] pad[0,2,1,0] d[1,2]
// CHECK: rank = 4 offset = 0 sizes = [1, 3, 4, 2] strides = [24, 8, 2, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}3, -1],
// CHECK-NEXT: [11, 5],
// CHECK-NEXT: [-22, -7],
// CHECK-NEXT: [15, 5]],
// CHECK-NEXT: {{\[\[}}6, -17],
// CHECK-NEXT: [-13, 7],
// CHECK-NEXT: [12, 1],
// CHECK-NEXT: [2, -4]],
// CHECK-NEXT: {{\[\[}}-14, 13],
// CHECK-NEXT: [-8, -7],
// CHECK-NEXT: [6, -4],
// CHECK-NEXT: [-7, 7]]]]
// conv2d_input_grad
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 4, 5] strides = [40, 20, 5, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}0, 0, 5, 0, 0],
// CHECK-NEXT: [-27, 0, 6, 0, -1],
// CHECK-NEXT: [-2, 0, 2, 0, 1],
// CHECK-NEXT: [-6, 0, -6, 0, 9]],
// CHECK-NEXT: {{\[\[}}-3, 0, 0, 0, 0],
// CHECK-NEXT: [12, 0, 20, 0, 3],
// CHECK-NEXT: [-14, 0, -18, 0, 3],
// CHECK-NEXT: [21, 0, 18, 0, 4]]]]
// conv2d_weight_grad
// CHECK: rank = 4 offset = 0 sizes = [3, 2, 2, 3] strides = [12, 6, 3, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}-16, -3, 7],
// CHECK-NEXT: [8, -17, -13]],
// CHECK-NEXT: {{\[\[}}-1, -1, 12],
// CHECK-NEXT: [-4, -20, -3]]],
// CHECK-NEXT: {{\[\[\[}}-10, -14, 1],
// CHECK-NEXT: [4, -9, 10]],
// CHECK-NEXT: {{\[\[}}-12, -15, 22],
// CHECK-NEXT: [6, -6, -5]]],
// CHECK-NEXT: {{\[\[\[}}-8, 6, -27],
// CHECK-NEXT: [9, -6, 2]],
// CHECK-NEXT: {{\[\[}}3, 2, -13],
// CHECK-NEXT: [-2, 4, 14]]]]
// conv2d s[3,2] pad[2,1,0,2] d[2,3] g3
// CHECK: rank = 4 offset = 0 sizes = [1, 6, 2, 4] strides = [48, 8, 4, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}8, -3, 5, 0],
// CHECK-NEXT: [0, -5, 5, 7]],
// CHECK-NEXT: {{\[\[}}-1, -5, -13, 0],
// CHECK-NEXT: [-2, 1, 2, 0]],
// CHECK-NEXT: {{\[\[}}-8, -5, 1, 2],
// CHECK-NEXT: [-2, 2, 13, 3]],
// CHECK-NEXT: {{\[\[}}0, -3, 1, -2],
// CHECK-NEXT: [-3, 1, 5, -1]],
// CHECK-NEXT: {{\[\[}}-3, -7, -4, -4],
// CHECK-NEXT: [-2, 2, 9, -1]],
// CHECK-NEXT: {{\[\[}}-6, -13, -4, -4],
// CHECK-NEXT: [-4, 3, 13, 4]]]]
// conv2d_input_grad
// CHECK: rank = 4 offset = 0 sizes = [1, 3, 7, 8] strides = [168, 56, 8, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}0, 2, 9, -2, -1, 0, -2, 0],
// CHECK-NEXT: [0, 0, 5, -1, -3, -5, -1, 0],
// CHECK-NEXT: [0, 2, 3, -6, -2, -4, 6, 0],
// CHECK-NEXT: [0, -3, -1, -1, 0, 1, -1, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0],
// CHECK-NEXT: [0, -5, -7, -3, 5, -5, 3, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, -4, 2, 0, 4, 2, 0],
// CHECK-NEXT: [0, -2, 0, 0, 4, 2, -2, 0],
// CHECK-NEXT: [0, 1, 2, -1, 0, 5, -1, 0],
// CHECK-NEXT: [0, -2, -4, 2, -2, 2, 2, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0],
// CHECK-NEXT: [0, -5, 2, 3, 1, 5, -1, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 6, 0, -4, 0, -6, 0, 0],
// CHECK-NEXT: [0, 2, 3, -2, -2, 2, 2, 0],
// CHECK-NEXT: [0, -2, 0, -1, 5, 0, -1, 0],
// CHECK-NEXT: [0, -8, 0, 8, 0, -10, 0, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0],
// CHECK-NEXT: [0, 2, 1, -2, -6, 3, 6, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0]]]]
// conv2d_weight_grad
// CHECK: rank = 4 offset = 0 sizes = [6, 1, 3, 2] strides = [6, 6, 2, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}-9, 0],
// CHECK-NEXT: [-1, 9],
// CHECK-NEXT: [-13, -5]]],
// CHECK-NEXT: {{\[\[\[}}5, 2],
// CHECK-NEXT: [7, 15],
// CHECK-NEXT: [11, 3]]],
// CHECK-NEXT: {{\[\[\[}}-5, -9],
// CHECK-NEXT: [4, 7],
// CHECK-NEXT: [2, 1]]],
// CHECK-NEXT: {{\[\[\[}}-17, -1],
// CHECK-NEXT: [5, -6],
// CHECK-NEXT: [1, 12]]],
// CHECK-NEXT: {{\[\[\[}}-16, -6],
// CHECK-NEXT: [9, 2],
// CHECK-NEXT: [5, 5]]],
// CHECK-NEXT: {{\[\[\[}}-19, -6],
// CHECK-NEXT: [-4, 10],
// CHECK-NEXT: [2, -7]]]]
// max_pool2d k[3,2] s2 pad[1,0,1,1]
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 3, 3] strides = [18, 9, 3, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}3, 3, 4],
// CHECK-NEXT: [3, 5, 5],
// CHECK-NEXT: [2, 2, 4]],
// CHECK-NEXT: {{\[\[}}-2, -2, -1],
// CHECK-NEXT: [-1, -1, -1],
// CHECK-NEXT: [-3, -1, -2]]]]
// max_pool2d_grad
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 5, 6] strides = [60, 30, 6, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}0, -2, -2, 0, 0, 0],
// CHECK-NEXT: [1, 0, 0, 0, 2, 0],
// CHECK-NEXT: [0, 0, 0, 3, -2, 0],
// CHECK-NEXT: [-3, 0, 0, 0, -2, 0],
// CHECK-NEXT: [0, 0, -1, 0, 0, 0]],
// CHECK-NEXT: {{\[\[}}0, 0, -2, 0, 3, 0],
// CHECK-NEXT: [3, 0, 0, 0, 0, -2],
// CHECK-NEXT: [0, 2, 0, 0, 0, 0],
// CHECK-NEXT: [0, 0, 4, 0, 0, 0],
// CHECK-NEXT: [-1, 0, 0, 0, 1, 0]]]]
// avg_pool2d k[3,2] s2 pad[1,0,1,1] count padding
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 3, 3] strides = [18, 9, 3, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}-0.75, 0.5, -0.333333],
// CHECK-NEXT: [-0.166667, -0.166667, -0.666667],
// CHECK-NEXT: [-0.0833333, -0.666667, 0.0833333]],
// CHECK-NEXT: {{\[\[}}0.916667, -0.166667, 0],
// CHECK-NEXT: [-0.0833333, -0.416667, 0.416667],
// CHECK-NEXT: [-0.583333, -0.416667, 0.416667]]]]
// avg_pool2d_grad
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 5, 6] strides = [60, 30, 6, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}1.5, 1.5, -1, -1, 0, 0],
// CHECK-NEXT: [3, 3, -0.5, -0.5, 0, 0],
// CHECK-NEXT: [1.5, 1.5, 0.5, 0.5, 0, 0],
// CHECK-NEXT: [0.5, 0.5, -1, -1, -1, -1],
// CHECK-NEXT: [-1, -1, -1.5, -1.5, -1, -1]],
// CHECK-NEXT: {{\[\[}}0, 0, -0.5, -0.5, 0, 0],
// CHECK-NEXT: [1.5, 1.5, -0.5, -0.5, -0.5, -0.5],
// CHECK-NEXT: [1.5, 1.5, 0, 0, -0.5, -0.5],
// CHECK-NEXT: [2, 2, -1, -1, -1, -1],
// CHECK-NEXT: [0.5, 0.5, -1, -1, -0.5, -0.5]]]]
// avg_pool2d k3 s2 pad1 exclude_padding
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 3, 3] strides = [18, 9, 3, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}-1.125, 0, 0],
// CHECK-NEXT: [-0.166667, -0.166667, -0.333333],
// CHECK-NEXT: [-0.125, -0.75, 0.0833333]],
// CHECK-NEXT: {{\[\[}}1.375, 0.166667, 0.166667],
// CHECK-NEXT: [-0.0833333, -0.444444, 0.388889],
// CHECK-NEXT: [-0.875, -0.666667, 0.333333]]]]
// avg_pool2d_grad exclude_padding
// CHECK: rank = 4 offset = 0 sizes = [1, 2, 5, 6] strides = [60, 30, 6, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}0, 3, 3, 4.5, 1.5, 1.5],
// CHECK-NEXT: [1.5, 2.5, 1, 4.5, 3.5, 3.5],
// CHECK-NEXT: [1.5, -0.5, -2, 0, 2, 2],
// CHECK-NEXT: [-3, -6.5, -3.5, -3, 0.5, 0.5],
// CHECK-NEXT: [-4.5, -6, -1.5, -3, -1.5, -1.5]],
// CHECK-NEXT: {{\[\[}}-4.5, -7.5, -3, 0, 3, 3],
// CHECK-NEXT: [-1.5, -3.5, -2, 1, 3, 3],
// CHECK-NEXT: [3, 4, 1, 1, 0, 0],
// CHECK-NEXT: [3, 4, 1, 4, 3, 3],
// CHECK-NEXT: [0, 0, 0, 3, 3, 3]]]]
// global_avg_pool 4-d
// CHECK: rank = 4 offset = 0 sizes = [2, 3, 1, 1] strides = [3, 1, 1, 1] data =
// CHECK-NEXT: {{\[\[\[\[}}-0.40625]],
// CHECK-NEXT: {{\[\[}}-0.15625]],
// CHECK-NEXT: {{\[\[}}-0.21875]]],
// CHECK-NEXT: {{\[\[\[}}0.28125]],
// CHECK-NEXT: {{\[\[}}0.34375]],
// CHECK-NEXT: {{\[\[}}0.28125]]]]
// global_avg_pool 3-d
// CHECK: rank = 3 offset = 0 sizes = [2, 2, 1] strides = [2, 1, 1] data =
// CHECK-NEXT: {{\[\[\[}}0.125],
// CHECK-NEXT: [0.125]],
// CHECK-NEXT: {{\[\[}}0],
// CHECK-NEXT: [1]]]
// gather axis 0 (embedding, negative indices)
// CHECK: rank = 3 offset = 0 sizes = [2, 3, 3] strides = [9, 3, 1] data =
// CHECK-NEXT: {{\[\[\[}}-1.5, -3.5, 4],
// CHECK-NEXT: [4, 2.5, -4],
// CHECK-NEXT: [4, 2.5, -4]],
// CHECK-NEXT: {{\[\[}}-1.5, -2.5, -2],
// CHECK-NEXT: [-1.5, -3.5, 4],
// CHECK-NEXT: [-1.5, -3.5, 4]]]
// gather_grad axis 0 (repeated indices)
// CHECK: rank = 2 offset = 0 sizes = [5, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}7, 3, -1],
// CHECK-NEXT: [0, 0, 0],
// CHECK-NEXT: [1, 0, 4],
// CHECK-NEXT: [0, 0, 0],
// CHECK-NEXT: [1, 1, 3]]
// gather axis 1 i32
// CHECK: rank = 3 offset = 0 sizes = [2, 3, 3] strides = [9, 3, 1] data =
// CHECK-NEXT: {{\[\[\[}}1, 3, 0],
// CHECK-NEXT: [3, 0, -3],
// CHECK-NEXT: [1, 3, 0]],
// CHECK-NEXT: {{\[\[}}-4, 4, -1],
// CHECK-NEXT: [2, 1, 2],
// CHECK-NEXT: [-4, 4, -1]]]
// gather_grad axis 1
// CHECK: rank = 3 offset = 0 sizes = [2, 4, 3] strides = [12, 3, 1] data =
// CHECK-NEXT: {{\[\[\[}}-1, 3, 3],
// CHECK-NEXT: [0, 0, 0],
// CHECK-NEXT: [0, 0, 0],
// CHECK-NEXT: [-6, 4, -3]],
// CHECK-NEXT: {{\[\[}}0, -1, -4],
// CHECK-NEXT: [0, 0, 0],
// CHECK-NEXT: [0, 0, 0],
// CHECK-NEXT: [5, -3, 3]]]
// slice_grad starts [1,0] strides [2,3]
// CHECK: rank = 2 offset = 0 sizes = [4, 6] strides = [6, 1] data =
// CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0, 0],
// CHECK-NEXT: [2, 0, 0, -1, 0, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0, 0],
// CHECK-NEXT: [-4, 0, 0, -4, 0, 0]]
// dropout p=0.25 seed 42 output
// CHECK: rank = 2 offset = 0 sizes = [4, 8] strides = [8, 1] data =
// CHECK-NEXT: {{\[\[}}-0.666667, 0, -0.666667, 1.33333, 0, -0.666667, 0, 0.666667],
// CHECK-NEXT: [1.33333, -2.66667, 0, 0.666667, 0, 1.33333, 0.666667, 0],
// CHECK-NEXT: [0, 1.33333, 0, -2, -0.666667, 0, 0.666667, 0.666667],
// CHECK-NEXT: [0, -1.33333, 0, -1.33333, -1.33333, 2, 2, 2]]
// dropout p=0.25 seed 42 mask
// CHECK: rank = 2 offset = 0 sizes = [4, 8] strides = [8, 1] data =
// CHECK-NEXT: {{\[\[}}1, 0, 1, 1, 0, 1, 0, 1],
// CHECK-NEXT: [1, 1, 0, 1, 1, 1, 1, 0],
// CHECK-NEXT: [0, 1, 0, 1, 1, 0, 1, 1],
// CHECK-NEXT: [0, 1, 1, 1, 1, 1, 1, 1]]
// dropout p=0.5 seed 99999 kept count
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [2075]
// dropout sum(output)
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [-311]
// dropout 2 * sum(x where kept)
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [-311]
// dropout sum((output - 2 x where kept)^2)
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [0]
// dropout same seed, other input: mask mismatches
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [0]
// dropout seed 100000: mask mismatches
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [2053]
// dropout p=0.3 kept count
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [2886]

func.func private @printMemrefF32(tensor<*xf32>)

func.func @compute(
    %xa: tensor<2x4x5x5xf32>,
    %wa: tensor<6x2x3x2xf32>,
    %ba: tensor<6xf32>,
    %gya: tensor<2x6x2x2xf32>,
    %xb: tensor<1x2x4x5xf32>,
    %wb: tensor<3x2x2x3xf32>,
    %gyb: tensor<1x3x4x2xf32>,
    %xc: tensor<1x3x7x8xf32>,
    %wc: tensor<6x1x3x2xf32>,
    %gyc: tensor<1x6x2x4xf32>,
    %xm: tensor<1x2x5x6xf32>,
    %gym: tensor<1x2x3x3xf32>,
    %xp: tensor<1x2x5x6xf32>,
    %gyp: tensor<1x2x3x3xf32>,
    %gye: tensor<1x2x3x3xf32>,
    %xg: tensor<2x3x2x4xf32>,
    %xg3: tensor<2x2x4xf32>,
    %table: tensor<5x3xf32>,
    %ids: tensor<2x3xi64>,
    %gyt: tensor<2x3x3xf32>,
    %xs: tensor<2x4x3xf32>,
    %ids1: tensor<3xi32>,
    %gys: tensor<2x3x3xf32>,
    %gsl: tensor<2x2xf32>,
    %xd: tensor<4x8xf32>,
    %da: tensor<64x1xf32>,
    %db: tensor<64xf32>,
    %seed42: tensor<i64>,
    %seed99999: tensor<i64>,
    %seed99999_b: tensor<i64>,
    %seed100000: tensor<i64>)
    -> (tensor<2x6x2x2xf32>, tensor<2x4x5x5xf32>, tensor<6x2x3x2xf32>, tensor<2x6x2x2xf32>, tensor<1x3x4x2xf32>, tensor<1x2x4x5xf32>, tensor<3x2x2x3xf32>, tensor<1x6x2x4xf32>, tensor<1x3x7x8xf32>, tensor<6x1x3x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<2x3x1x1xf32>, tensor<2x2x1xf32>, tensor<2x3x3xf32>, tensor<5x3xf32>, tensor<2x3x3xf32>, tensor<2x4x3xf32>, tensor<4x6xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %conv_a = amp.conv2d %xa, %wa, %ba {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64} : (tensor<2x4x5x5xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>) -> tensor<2x6x2x2xf32>
  %conv_a_dx = amp.conv2d_input_grad %gya, %wa {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64} : tensor<2x6x2x2xf32>, tensor<6x2x3x2xf32> -> tensor<2x4x5x5xf32>
  %conv_a_dw = amp.conv2d_weight_grad %gya, %xa {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64} : tensor<2x6x2x2xf32>, tensor<2x4x5x5xf32> -> tensor<6x2x3x2xf32>
  %xa_h = amp.cast %xa : tensor<2x4x5x5xf32> to tensor<2x4x5x5xf16>
  %wa_h = amp.cast %wa : tensor<6x2x3x2xf32> to tensor<6x2x3x2xf16>
  %ba_h = amp.cast %ba : tensor<6xf32> to tensor<6xf16>
  %conv_a_h = amp.conv2d %xa_h, %wa_h, %ba_h {stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64} : (tensor<2x4x5x5xf16>, tensor<6x2x3x2xf16>, tensor<6xf16>) -> tensor<2x6x2x2xf16>
  %conv_a_f16 = amp.cast %conv_a_h : tensor<2x6x2x2xf16> to tensor<2x6x2x2xf32>

  %conv_b = amp.conv2d %xb, %wb {stride = array<i64: 1, 2>, padding = array<i64: 0, 2, 1, 0>, dilation = array<i64: 1, 2>} : (tensor<1x2x4x5xf32>, tensor<3x2x2x3xf32>) -> tensor<1x3x4x2xf32>
  %conv_b_dx = amp.conv2d_input_grad %gyb, %wb {stride = array<i64: 1, 2>, padding = array<i64: 0, 2, 1, 0>, dilation = array<i64: 1, 2>} : tensor<1x3x4x2xf32>, tensor<3x2x2x3xf32> -> tensor<1x2x4x5xf32>
  %conv_b_dw = amp.conv2d_weight_grad %gyb, %xb {stride = array<i64: 1, 2>, padding = array<i64: 0, 2, 1, 0>, dilation = array<i64: 1, 2>} : tensor<1x3x4x2xf32>, tensor<1x2x4x5xf32> -> tensor<3x2x2x3xf32>

  %conv_c = amp.conv2d %xc, %wc {stride = array<i64: 3, 2>, padding = array<i64: 2, 1, 0, 2>, dilation = array<i64: 2, 3>, groups = 3 : i64} : (tensor<1x3x7x8xf32>, tensor<6x1x3x2xf32>) -> tensor<1x6x2x4xf32>
  %conv_c_dx = amp.conv2d_input_grad %gyc, %wc {stride = array<i64: 3, 2>, padding = array<i64: 2, 1, 0, 2>, dilation = array<i64: 2, 3>, groups = 3 : i64} : tensor<1x6x2x4xf32>, tensor<6x1x3x2xf32> -> tensor<1x3x7x8xf32>
  %conv_c_dw = amp.conv2d_weight_grad %gyc, %xc {stride = array<i64: 3, 2>, padding = array<i64: 2, 1, 0, 2>, dilation = array<i64: 2, 3>, groups = 3 : i64} : tensor<1x6x2x4xf32>, tensor<1x3x7x8xf32> -> tensor<6x1x3x2xf32>

  %maxpool = amp.max_pool2d %xm {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x5x6xf32> -> tensor<1x2x3x3xf32>
  %maxpool_dx = amp.max_pool2d_grad %gym, %xm {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32> -> tensor<1x2x5x6xf32>
  %avgpool = amp.avg_pool2d %xp {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x5x6xf32> -> tensor<1x2x3x3xf32>
  %avgpool_dx = amp.avg_pool2d_grad %gyp {kernel_size = array<i64: 3, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : tensor<1x2x3x3xf32> -> tensor<1x2x5x6xf32>
  %avgpool_ex = amp.avg_pool2d %xp {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, exclude_padding} : tensor<1x2x5x6xf32> -> tensor<1x2x3x3xf32>
  %avgpool_ex_dx = amp.avg_pool2d_grad %gye {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, exclude_padding} : tensor<1x2x3x3xf32> -> tensor<1x2x5x6xf32>
  %gap = amp.global_avg_pool %xg : tensor<2x3x2x4xf32> -> tensor<2x3x1x1xf32>
  %gap3 = amp.global_avg_pool %xg3 : tensor<2x2x4xf32> -> tensor<2x2x1xf32>

  %emb = amp.gather %table, %ids {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x3xi64>) -> tensor<2x3x3xf32>
  %emb_dt = amp.gather_grad %gyt, %ids {axis = 0 : i64} : (tensor<2x3x3xf32>, tensor<2x3xi64>) -> tensor<5x3xf32>
  %gat1 = amp.gather %xs, %ids1 {axis = 1 : i64} : (tensor<2x4x3xf32>, tensor<3xi32>) -> tensor<2x3x3xf32>
  %gat1_dx = amp.gather_grad %gys, %ids1 {axis = -2 : i64} : (tensor<2x3x3xf32>, tensor<3xi32>) -> tensor<2x4x3xf32>
  %slgrad = amp.slice_grad %gsl {starts = array<i64: 1, 0>, limits = array<i64: 4, 6>, strides = array<i64: 2, 3>} : tensor<2x2xf32> -> tensor<4x6xf32>

  %drop_small, %mask_small = amp.dropout %xd, %seed42 {probability = 2.500000e-01 : f64} : tensor<4x8xf32> -> tensor<4x8xi1>
  %ones_small = amp.constant dense<1.0> : tensor<4x8xf32>
  %zeros_small = amp.constant dense<0.0> : tensor<4x8xf32>
  %drop_small_mask = amp.where %mask_small, %ones_small, %zeros_small : tensor<4x8xi1>, tensor<4x8xf32>

  %ba2 = amp.broadcast %da : tensor<64x1xf32> -> tensor<64x64xf32>
  %bb2 = amp.broadcast %db : tensor<64xf32> -> tensor<64x64xf32>
  %xl = amp.add %ba2, %bb2 : tensor<64x64xf32>
  %xl2 = amp.sub %ba2, %bb2 : tensor<64x64xf32>
  %ones = amp.constant dense<1.0> : tensor<64x64xf32>
  %zeros = amp.constant dense<0.0> : tensor<64x64xf32>
  %twos = amp.constant dense<2.0> : tensor<64x64xf32>
  %out, %mask = amp.dropout %xl, %seed99999 {probability = 5.000000e-01 : f64} : tensor<64x64xf32> -> tensor<64x64xi1>
  %out2, %mask2 = amp.dropout %xl2, %seed99999_b {probability = 5.000000e-01 : f64} : tensor<64x64xf32> -> tensor<64x64xi1>
  %out3, %mask3 = amp.dropout %xl, %seed100000 {probability = 5.000000e-01 : f64} : tensor<64x64xf32> -> tensor<64x64xi1>
  %mf = amp.where %mask, %ones, %zeros : tensor<64x64xi1>, tensor<64x64xf32>
  %mf2 = amp.where %mask2, %ones, %zeros : tensor<64x64xi1>, tensor<64x64xf32>
  %mf3 = amp.where %mask3, %ones, %zeros : tensor<64x64xi1>, tensor<64x64xf32>
  %cnt = amp.reduce_sum %mf {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %sum_out = amp.reduce_sum %out {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %xkept = amp.where %mask, %xl, %zeros : tensor<64x64xi1>, tensor<64x64xf32>
  %xkept2 = amp.mul %xkept, %twos : tensor<64x64xf32>
  %sum_kept = amp.reduce_sum %xkept2 {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %d = amp.sub %out, %xkept2 : tensor<64x64xf32>
  %dsq = amp.mul %d, %d : tensor<64x64xf32>
  %sqdiff = amp.reduce_sum %dsq {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %e2 = amp.sub %mf, %mf2 : tensor<64x64xf32>
  %e2sq = amp.mul %e2, %e2 : tensor<64x64xf32>
  %same = amp.reduce_sum %e2sq {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %e3 = amp.sub %mf, %mf3 : tensor<64x64xf32>
  %e3sq = amp.mul %e3, %e3 : tensor<64x64xf32>
  %other = amp.reduce_sum %e3sq {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  %out4, %mask4 = amp.dropout %xl, %seed42 {probability = 3.000000e-01 : f64} : tensor<64x64xf32> -> tensor<64x64xi1>
  %mf4 = amp.where %mask4, %ones, %zeros : tensor<64x64xi1>, tensor<64x64xf32>
  %cnt30 = amp.reduce_sum %mf4 {axes = array<i64: 0, 1>} : tensor<64x64xf32> -> tensor<f32>
  return %conv_a, %conv_a_dx, %conv_a_dw, %conv_a_f16, %conv_b, %conv_b_dx, %conv_b_dw, %conv_c, %conv_c_dx, %conv_c_dw, %maxpool, %maxpool_dx, %avgpool, %avgpool_dx, %avgpool_ex, %avgpool_ex_dx, %gap, %gap3, %emb, %emb_dt, %gat1, %gat1_dx, %slgrad, %drop_small, %drop_small_mask, %cnt, %sum_out, %sum_kept, %sqdiff, %same, %other, %cnt30 : tensor<2x6x2x2xf32>, tensor<2x4x5x5xf32>, tensor<6x2x3x2xf32>, tensor<2x6x2x2xf32>, tensor<1x3x4x2xf32>, tensor<1x2x4x5xf32>, tensor<3x2x2x3xf32>, tensor<1x6x2x4xf32>, tensor<1x3x7x8xf32>, tensor<6x1x3x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<2x3x1x1xf32>, tensor<2x2x1xf32>, tensor<2x3x3xf32>, tensor<5x3xf32>, tensor<2x3x3xf32>, tensor<2x4x3xf32>, tensor<4x6xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

func.func @main() {
  %xa = amp.constant dense<[[[[2.0, 3.0, 3.0, -2.0, -2.0], [1.0, 3.0, -2.0, 0.0, 0.0], [0.0, 3.0, -1.0, -2.0, -1.0], [-2.0, -3.0, 0.0, -1.0, -2.0], [-1.0, 0.0, 0.0, 0.0, 0.0]], [[-1.0, -3.0, 0.0, 0.0, 0.0], [-2.0, 2.0, 0.0, 2.0, -1.0], [1.0, 0.0, -1.0, 3.0, 0.0], [-2.0, -3.0, -3.0, 0.0, -2.0], [2.0, -2.0, 2.0, 1.0, 2.0]], [[-2.0, 0.0, -2.0, -1.0, 3.0], [3.0, 2.0, 2.0, 1.0, -1.0], [3.0, -3.0, -2.0, 0.0, 2.0], [3.0, 1.0, 3.0, 0.0, 3.0], [0.0, -1.0, -1.0, -1.0, -2.0]], [[-2.0, 2.0, 1.0, 3.0, 1.0], [-1.0, -2.0, -2.0, -1.0, 2.0], [-2.0, -1.0, -3.0, -3.0, 1.0], [-3.0, 2.0, 3.0, -2.0, 0.0], [0.0, -1.0, 2.0, -2.0, -1.0]]], [[[-3.0, 3.0, -2.0, -3.0, 0.0], [1.0, -3.0, -2.0, -3.0, -2.0], [2.0, 2.0, 0.0, 1.0, -3.0], [0.0, 2.0, 1.0, -1.0, 2.0], [2.0, -1.0, -1.0, 1.0, 3.0]], [[2.0, 1.0, 1.0, -1.0, 2.0], [3.0, -3.0, 0.0, 1.0, -3.0], [3.0, -3.0, 3.0, -3.0, 0.0], [-1.0, -2.0, 3.0, -3.0, 2.0], [0.0, 1.0, -2.0, -3.0, -3.0]], [[3.0, 1.0, 3.0, 0.0, -3.0], [-2.0, -1.0, 1.0, 3.0, 0.0], [-3.0, 3.0, -3.0, 3.0, 2.0], [1.0, -1.0, 1.0, -1.0, 0.0], [2.0, 2.0, -1.0, 3.0, -3.0]], [[2.0, 0.0, 2.0, -3.0, -2.0], [0.0, -1.0, 2.0, -3.0, 1.0], [-2.0, 0.0, 2.0, 1.0, -3.0], [-3.0, -2.0, 0.0, 0.0, 1.0], [-1.0, 3.0, 0.0, 1.0, -1.0]]]]> : tensor<2x4x5x5xf32>
  %wa = amp.constant dense<[[[[2.0, -2.0], [0.0, 2.0], [-1.0, -2.0]], [[-1.0, -1.0], [2.0, 0.0], [-2.0, -2.0]]], [[[2.0, 0.0], [0.0, 2.0], [-2.0, -1.0]], [[1.0, 1.0], [-1.0, -1.0], [1.0, -2.0]]], [[[2.0, -2.0], [-2.0, -1.0], [-1.0, 2.0]], [[-1.0, -1.0], [2.0, 0.0], [0.0, 2.0]]], [[[0.0, -1.0], [-2.0, 2.0], [1.0, 0.0]], [[0.0, 0.0], [-1.0, -2.0], [-1.0, -2.0]]], [[[2.0, 2.0], [-1.0, -2.0], [-1.0, -2.0]], [[2.0, 2.0], [0.0, 1.0], [-1.0, 0.0]]], [[[-1.0, 2.0], [1.0, 0.0], [1.0, -2.0]], [[2.0, 1.0], [0.0, 0.0], [0.0, 2.0]]]]> : tensor<6x2x3x2xf32>
  %ba = amp.constant dense<[-0.5, 1.5, -2.0, 1.5, 1.5, -1.5]> : tensor<6xf32>
  %gya = amp.constant dense<[[[[-3.0, 1.0], [1.0, 2.0]], [[-2.0, 1.0], [-3.0, -1.0]], [[0.0, 1.0], [-1.0, -1.0]], [[-2.0, -1.0], [0.0, 2.0]], [[3.0, 0.0], [-2.0, 2.0]], [[0.0, -1.0], [1.0, 2.0]]], [[[-2.0, 3.0], [-3.0, 3.0]], [[-1.0, 0.0], [0.0, -3.0]], [[-2.0, -1.0], [-3.0, -3.0]], [[0.0, -1.0], [-2.0, -3.0]], [[-2.0, -3.0], [0.0, -3.0]], [[1.0, -2.0], [2.0, 0.0]]]]> : tensor<2x6x2x2xf32>
  %xb = amp.constant dense<[[[[-3.0, -3.0, -2.0, -1.0, -1.0], [3.0, 0.0, -1.0, 1.0, 1.0], [0.0, 0.0, 3.0, 0.0, 0.0], [1.0, 1.0, -3.0, 1.0, -3.0]], [[1.0, -2.0, -3.0, 0.0, 2.0], [3.0, -2.0, -1.0, 1.0, 0.0], [2.0, 2.0, 2.0, -2.0, 1.0], [-2.0, 1.0, -3.0, -2.0, 3.0]]]]> : tensor<1x2x4x5xf32>
  %wb = amp.constant dense<[[[[0.0, 2.0, -2.0], [-2.0, 0.0, 0.0]], [[-1.0, -2.0, -1.0], [2.0, 2.0, 2.0]]], [[[1.0, 0.0, 1.0], [-2.0, 2.0, -2.0]], [[1.0, -1.0, -1.0], [-2.0, -1.0, -1.0]]], [[[-1.0, 0.0, 1.0], [-1.0, -2.0, 0.0]], [[-1.0, -1.0, 2.0], [2.0, 0.0, -1.0]]]]> : tensor<3x2x2x3xf32>
  %gyb = amp.constant dense<[[[[0.0, 2.0], [-3.0, -3.0], [0.0, 2.0], [-2.0, -1.0]], [[-2.0, 2.0], [-1.0, -2.0], [-1.0, -2.0], [-3.0, 2.0]], [[3.0, 2.0], [3.0, -1.0], [-1.0, 3.0], [3.0, 1.0]]]]> : tensor<1x3x4x2xf32>
  %xc = amp.constant dense<[[[[2.0, -1.0, 3.0, 2.0, -3.0, 0.0, 1.0, 1.0], [2.0, 0.0, -2.0, 3.0, -2.0, 2.0, 0.0, -1.0], [-3.0, -1.0, -2.0, 3.0, -3.0, 0.0, -2.0, 1.0], [2.0, 3.0, -2.0, -3.0, -1.0, -1.0, -3.0, 2.0], [0.0, 1.0, 2.0, 0.0, -3.0, 3.0, 3.0, 3.0], [-3.0, 1.0, -2.0, 0.0, 3.0, 2.0, -2.0, 2.0], [3.0, -1.0, 1.0, -2.0, -1.0, 3.0, -2.0, -3.0]], [[1.0, 2.0, -3.0, -2.0, -1.0, 3.0, 1.0, -1.0], [-3.0, 3.0, 3.0, 1.0, 2.0, -3.0, -1.0, -2.0], [2.0, -3.0, 2.0, 1.0, 1.0, -2.0, -1.0, 3.0], [-2.0, 1.0, 0.0, 3.0, 1.0, -2.0, 1.0, -3.0], [3.0, 2.0, -2.0, 0.0, 3.0, -1.0, -3.0, -1.0], [0.0, 0.0, -1.0, 3.0, -3.0, 2.0, 1.0, 3.0], [-3.0, 0.0, -3.0, -1.0, 1.0, -1.0, -3.0, -2.0]], [[-3.0, -2.0, 2.0, -1.0, 2.0, -2.0, -3.0, -3.0], [1.0, 2.0, 0.0, -3.0, 2.0, 3.0, -1.0, 3.0], [2.0, 3.0, -3.0, -2.0, -3.0, 0.0, -2.0, -1.0], [-1.0, 0.0, -3.0, 2.0, -3.0, 1.0, -1.0, 3.0], [2.0, 2.0, -3.0, 1.0, -2.0, -1.0, 3.0, -3.0], [0.0, 1.0, -2.0, -3.0, 2.0, -2.0, 3.0, -3.0], [-1.0, -1.0, 1.0, 2.0, 0.0, -1.0, 2.0, 0.0]]]]> : tensor<1x3x7x8xf32>
  %wc = amp.constant dense<[[[[2.0, -1.0], [-1.0, 2.0], [1.0, -1.0]]], [[[1.0, -2.0], [-2.0, 1.0], [-2.0, 2.0]]], [[[-1.0, -1.0], [2.0, 2.0], [2.0, -1.0]]], [[[1.0, -1.0], [0.0, 0.0], [1.0, 0.0]]], [[[-1.0, 1.0], [2.0, 0.0], [0.0, 1.0]]], [[[0.0, 0.0], [2.0, 0.0], [-1.0, 2.0]]]]> : tensor<6x1x3x2xf32>
  %gyc = amp.constant dense<[[[[3.0, 0.0, -2.0, -2.0], [1.0, -1.0, -1.0, -3.0]], [[3.0, -1.0, 2.0, 1.0], [-3.0, 2.0, 1.0, 1.0]], [[-2.0, 0.0, 1.0, 2.0], [-2.0, -1.0, 1.0, 1.0]], [[0.0, 1.0, -3.0, 1.0], [2.0, -3.0, 1.0, 3.0]], [[-2.0, 1.0, -3.0, -3.0], [3.0, -2.0, 2.0, -2.0]], [[1.0, 2.0, 1.0, 0.0], [-1.0, -2.0, 2.0, -3.0]]]]> : tensor<1x6x2x4xf32>
  %xm = amp.constant dense<[[[[1.0, 3.0, 3.0, -2.0, 0.0, 2.0], [3.0, -1.0, 2.0, 2.0, 4.0, 4.0], [-1.0, 3.0, 0.0, 5.0, 5.0, 1.0], [2.0, 2.0, 1.0, -3.0, 4.0, 2.0], [0.0, -4.0, 2.0, 2.0, 1.0, 1.0]], [[-5.0, -3.0, -2.0, -7.0, -1.0, -6.0], [-2.0, -4.0, -2.0, -8.0, -3.0, -1.0], [-6.0, -1.0, -9.0, -3.0, -3.0, -2.0], [-4.0, -5.0, -1.0, -2.0, -6.0, -4.0], [-3.0, -3.0, -8.0, -5.0, -2.0, -7.0]]]]> : tensor<1x2x5x6xf32>
  %gym = amp.constant dense<[[[[-2.0, -2.0, 2.0], [1.0, 3.0, -2.0], [-3.0, -1.0, -2.0]], [[3.0, -2.0, 3.0], [2.0, 1.0, -2.0], [-1.0, 3.0, 1.0]]]]> : tensor<1x2x3x3xf32>
  %xp = amp.constant dense<[[[[-2.0, -1.0, -1.0, 0.5, 0.0, 1.5], [0.5, -2.0, 2.0, 1.5, -2.0, -1.5], [0.0, 1.0, -2.0, 1.0, -1.5, -0.5], [-1.0, 0.5, -2.0, -1.5, -0.5, 2.0], [1.0, -1.0, -2.0, 1.5, -1.5, 0.5]], [[1.5, 2.0, -1.0, 2.0, -1.5, 0.0], [2.0, 0.0, -1.0, -1.0, 0.0, 1.5], [-1.0, -1.5, -1.5, 2.0, 0.5, -1.0], [0.0, 0.0, -1.0, 0.0, 1.0, 0.5], [-2.0, -1.5, -1.0, -0.5, 0.5, 0.5]]]]> : tensor<1x2x5x6xf32>
  %gyp = amp.constant dense<[[[[9.0, -6.0, 0.0], [9.0, 3.0, 0.0], [-6.0, -9.0, -6.0]], [[0.0, -3.0, 0.0], [9.0, 0.0, -3.0], [3.0, -6.0, -3.0]]]]> : tensor<1x2x3x3xf32>
  %gye = amp.constant dense<[[[[0.0, 18.0, 9.0], [9.0, -18.0, 18.0], [-18.0, -9.0, -9.0]], [[-18.0, -18.0, 18.0], [18.0, 9.0, 0.0], [0.0, 0.0, 18.0]]]]> : tensor<1x2x3x3xf32>
  %xg = amp.constant dense<[[[[1.0, -1.5, -1.0, -1.25], [1.25, -0.25, -0.5, -1.0]], [[-1.0, 1.25, 0.75, -1.5], [-2.0, 0.25, -0.75, 1.75]], [[0.0, -0.25, 0.0, 1.5], [-0.25, -2.0, -0.5, -0.25]]], [[[-1.5, 0.5, 2.0, 1.25], [0.75, -0.25, -1.5, 1.0]], [[1.75, -2.0, 2.0, 1.0], [2.0, -0.5, -0.5, -1.0]], [[2.0, -2.0, -0.75, -1.75], [2.0, 1.75, -0.5, 1.5]]]]> : tensor<2x3x2x4xf32>
  %xg3 = amp.constant dense<[[[-1.5, -2.0, 3.5, 0.5], [0.5, 2.0, -3.5, 1.5]], [[2.5, -0.5, 0.5, -2.5], [1.5, -1.5, 3.0, 1.0]]]> : tensor<2x2x4xf32>
  %table = amp.constant dense<[[-1.5, -3.5, 4.0], [-1.5, 3.5, 3.5], [-1.5, -2.5, -2.0], [0.5, -4.0, 1.0], [4.0, 2.5, -4.0]]> : tensor<5x3xf32>
  %ids = amp.constant dense<[[0, 4, -1], [2, 0, -5]]> : tensor<2x3xi64>
  %gyt = amp.constant dense<[[[4.0, 2.0, 0.0], [3.0, 1.0, -1.0], [-2.0, 0.0, 4.0]], [[1.0, 0.0, 4.0], [0.0, 3.0, 3.0], [3.0, -2.0, -4.0]]]> : tensor<2x3x3xf32>
  %xs = amp.constant dense<[[[3.0, 0.0, -3.0], [4.0, 3.0, -4.0], [-4.0, 1.0, 0.0], [1.0, 3.0, 0.0]], [[2.0, 1.0, 2.0], [3.0, 0.0, -1.0], [1.0, -2.0, -2.0], [-4.0, 4.0, -1.0]]]> : tensor<2x4x3xf32>
  %ids1 = amp.constant dense<[3, -4, 3]> : tensor<3xi32>
  %gys = amp.constant dense<[[[-2.0, 2.0, 0.0], [-1.0, 3.0, 3.0], [-4.0, 2.0, -3.0]], [[3.0, -4.0, -1.0], [0.0, -1.0, -4.0], [2.0, 1.0, 4.0]]]> : tensor<2x3x3xf32>
  %gsl = amp.constant dense<[[2.0, -1.0], [-4.0, -4.0]]> : tensor<2x2xf32>
  %xd = amp.constant dense<[[-0.5, -0.5, -0.5, 1.0, 2.0, -0.5, -2.0, 0.5], [1.0, -2.0, -2.0, 0.5, 0.0, 1.0, 0.5, 2.0], [-1.5, 1.0, 0.5, -1.5, -0.5, 1.5, 0.5, 0.5], [1.0, -1.0, 0.0, -1.0, -1.0, 1.5, 1.5, 1.5]]> : tensor<4x8xf32>
  %da = amp.constant dense<[[-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0], [-2.0], [-1.0], [0.0], [1.0], [2.0], [3.0], [-3.0]]> : tensor<64x1xf32>
  %db = amp.constant dense<[-1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5, 1.0, -1.0, -0.5, 0.0, 0.5]> : tensor<64xf32>
  %seed42 = amp.constant dense<42> : tensor<i64>
  %seed99999 = amp.constant dense<99999> : tensor<i64>
  %seed99999_b = amp.constant dense<99999> : tensor<i64>
  %seed100000 = amp.constant dense<100000> : tensor<i64>
  %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31 = call @compute(%xa, %wa, %ba, %gya, %xb, %wb, %gyb, %xc, %wc, %gyc, %xm, %gym, %xp, %gyp, %gye, %xg, %xg3, %table, %ids, %gyt, %xs, %ids1, %gys, %gsl, %xd, %da, %db, %seed42, %seed99999, %seed99999_b, %seed100000)
      : (tensor<2x4x5x5xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>, tensor<2x6x2x2xf32>, tensor<1x2x4x5xf32>, tensor<3x2x2x3xf32>, tensor<1x3x4x2xf32>, tensor<1x3x7x8xf32>, tensor<6x1x3x2xf32>, tensor<1x6x2x4xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2x3x2x4xf32>, tensor<2x2x4xf32>, tensor<5x3xf32>, tensor<2x3xi64>, tensor<2x3x3xf32>, tensor<2x4x3xf32>, tensor<3xi32>, tensor<2x3x3xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<64x1xf32>, tensor<64xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
      -> (tensor<2x6x2x2xf32>, tensor<2x4x5x5xf32>, tensor<6x2x3x2xf32>, tensor<2x6x2x2xf32>, tensor<1x3x4x2xf32>, tensor<1x2x4x5xf32>, tensor<3x2x2x3xf32>, tensor<1x6x2x4xf32>, tensor<1x3x7x8xf32>, tensor<6x1x3x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<2x3x1x1xf32>, tensor<2x2x1xf32>, tensor<2x3x3xf32>, tensor<5x3xf32>, tensor<2x3x3xf32>, tensor<2x4x3xf32>, tensor<4x6xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  %u0 = tensor.cast %r0 : tensor<2x6x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<2x4x5x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r2 : tensor<6x2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r3 : tensor<2x6x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %r4 : tensor<1x3x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %r5 : tensor<1x2x4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %u6 = tensor.cast %r6 : tensor<3x2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %u7 = tensor.cast %r7 : tensor<1x6x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  %u8 = tensor.cast %r8 : tensor<1x3x7x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %u9 = tensor.cast %r9 : tensor<6x1x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u9) : (tensor<*xf32>) -> ()
  %u10 = tensor.cast %r10 : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u10) : (tensor<*xf32>) -> ()
  %u11 = tensor.cast %r11 : tensor<1x2x5x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u11) : (tensor<*xf32>) -> ()
  %u12 = tensor.cast %r12 : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  %u13 = tensor.cast %r13 : tensor<1x2x5x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u13) : (tensor<*xf32>) -> ()
  %u14 = tensor.cast %r14 : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u14) : (tensor<*xf32>) -> ()
  %u15 = tensor.cast %r15 : tensor<1x2x5x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u15) : (tensor<*xf32>) -> ()
  %u16 = tensor.cast %r16 : tensor<2x3x1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %u17 = tensor.cast %r17 : tensor<2x2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%u17) : (tensor<*xf32>) -> ()
  %u18 = tensor.cast %r18 : tensor<2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  %u19 = tensor.cast %r19 : tensor<5x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u19) : (tensor<*xf32>) -> ()
  %u20 = tensor.cast %r20 : tensor<2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u20) : (tensor<*xf32>) -> ()
  %u21 = tensor.cast %r21 : tensor<2x4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u21) : (tensor<*xf32>) -> ()
  %u22 = tensor.cast %r22 : tensor<4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u22) : (tensor<*xf32>) -> ()
  %u23 = tensor.cast %r23 : tensor<4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u23) : (tensor<*xf32>) -> ()
  %u24 = tensor.cast %r24 : tensor<4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u24) : (tensor<*xf32>) -> ()
  %u25 = tensor.cast %r25 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u25) : (tensor<*xf32>) -> ()
  %u26 = tensor.cast %r26 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u26) : (tensor<*xf32>) -> ()
  %u27 = tensor.cast %r27 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u27) : (tensor<*xf32>) -> ()
  %u28 = tensor.cast %r28 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u28) : (tensor<*xf32>) -> ()
  %u29 = tensor.cast %r29 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u29) : (tensor<*xf32>) -> ()
  %u30 = tensor.cast %r30 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u30) : (tensor<*xf32>) -> ()
  %u31 = tensor.cast %r31 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u31) : (tensor<*xf32>) -> ()
  return
}
