// RUN: amp-opt %s -split-input-file --amp-gpu-fuse-elementwise | FileCheck %s

// Elementwise fusion as linalg-fuse-elementwise-ops does it, except that
// nothing is fused into or out of a contraction: matrix products keep the
// `out + ext(a) * ext(b)` form amp-contractions-to-gemm-calls matches.

#id = affine_map<(d0) -> (d0)>

// An elementwise chain becomes one generic (one kernel); each op still
// rounds where it did.
// CHECK-LABEL: func.func @chain
//  CHECK-SAME:     (%[[X:.+]]: tensor<256xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<256xf16>
//       CHECK:   %[[R:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[X]] : tensor<256xf32>) outs(%[[E]] : tensor<256xf16>)
//       CHECK:     %[[M:.+]] = arith.mulf
//       CHECK:     %[[T:.+]] = arith.truncf %[[M]] : f32 to f16
//       CHECK:     linalg.yield %[[T]] : f16
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
func.func @chain(%x: tensor<256xf32>) -> tensor<256xf16> {
  %e0 = tensor.empty() : tensor<256xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e0 : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  %e1 = tensor.empty() : tensor<256xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%0 : tensor<256xf32>) outs(%e1 : tensor<256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256xf16>
  return %1 : tensor<256xf16>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// The cast of the weight is not fused into the GEMM, nor the GEMM into the
// activation after it (upstream fuses the cast into the contraction).
// CHECK-LABEL: func.func @around_contraction
//       CHECK:   %[[WH:.+]] = linalg.generic
//  CHECK-SAME:       iterator_types = ["parallel", "parallel"]
//       CHECK:     arith.truncf
//       CHECK:   %[[MM:.+]] = linalg.generic
//  CHECK-SAME:       iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:       ins(%{{.+}}, %[[WH]] : tensor<32x64xf16>, tensor<64x128xf16>)
//   CHECK-NOT:     arith.truncf
//       CHECK:     arith.extf
//       CHECK:     arith.extf
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[R:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[MM]] : tensor<32x128xf32>)
//       CHECK:     arith.maximumf
//       CHECK:   return %[[R]]
func.func @around_contraction(%x: tensor<32x64xf16>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  %e = tensor.empty() : tensor<64x128xf16>
  %wh = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x128xf32>) outs(%e : tensor<64x128xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wh : tensor<32x64xf16>, tensor<64x128xf16>) outs(%acc : tensor<32x128xf32>) {
  ^bb0(%in: f16, %in_1: f16, %o: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_1 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<32x128xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x128xf32>) outs(%e1 : tensor<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.maximumf %in, %zero : f32
    linalg.yield %z : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A producer with two uses is not fused (it would be computed twice).
// CHECK-LABEL: func.func @two_uses
//       CHECK:   %[[P:.+]] = linalg.generic
//       CHECK:     arith.mulf
//       CHECK:   %[[A:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[P]] : tensor<256xf32>)
//       CHECK:     arith.addf
//       CHECK:   %[[B:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[P]] : tensor<256xf32>)
//       CHECK:     arith.subf
//       CHECK:   return %[[A]], %[[B]]
func.func @two_uses(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<256xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.subf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %a, %b : tensor<256xf32>, tensor<256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d1)>

// A value read by several ops, one of which only rounds it (the mse
// gradient in f32, its bf16 copy for the GEMM, and its column sum for the
// bias gradient): the rounding becomes a second output of the producer,
// which writes both (one kernel); the column sum reads the f32 output.
// CHECK-LABEL: func.func @dual_output
//       CHECK:   %[[R:.+]]:2 = linalg.generic
//  CHECK-SAME:       outs(%{{.+}}, %{{.+}} : tensor<64x32xf32>, tensor<64x32xbf16>)
//       CHECK:     %[[G:.+]] = arith.mulf
//       CHECK:     %[[T:.+]] = arith.truncf %[[G]] : f32 to bf16
//       CHECK:     linalg.yield %[[G]], %[[T]] : f32, bf16
//       CHECK:   %[[S:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[R]]#0 : tensor<64x32xf32>)
//       CHECK:   return %[[R]]#1, %[[S]]
func.func @dual_output(%y: tensor<64x32xf32>, %t: tensor<64x32xf32>) -> (tensor<64x32xbf16>, tensor<32xf32>) {
  %c = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %t : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %m = arith.mulf %d, %c : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  %e1 = tensor.empty() : tensor<64x32xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<64x32xf32>) outs(%e1 : tensor<64x32xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64x32xbf16>
  %e2 = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "parallel"]}
      ins(%g : tensor<64x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  } -> tensor<32xf32>
  return %r, %s : tensor<64x32xbf16>, tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Not fused: a value read by several ops, none of which only casts it (the
// second negates before rounding). The three generics stay.
// CHECK-LABEL: func.func @no_dual_output
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
func.func @no_dual_output(%y: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xbf16>) {
  %e0 = tensor.empty() : tensor<64x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %y : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.divf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  %e1 = tensor.empty() : tensor<64x32xbf16>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<64x32xf32>) outs(%e1 : tensor<64x32xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.negf %in : f32
    %1 = arith.truncf %0 : f32 to bf16
    linalg.yield %1 : bf16
  } -> tensor<64x32xbf16>
  return %u, %n : tensor<64x32xf32>, tensor<64x32xbf16>
}

// -----

#s = affine_map<() -> ()>

// Identical 0-d computations on the same inputs (AdamW's bias corrections,
// one per parameter) are computed once; one on other inputs, with another body,
// or reading its output (another initial value) stays.
// CHECK-LABEL: func.func @shared_scalars
// CHECK: %[[A:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<f32>, tensor<f32>)
// CHECK: arith.mulf
// CHECK: %[[B:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg1, %arg0 : tensor<f32>, tensor<f32>)
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: arith.subf
// CHECK: %[[D:.*]] = linalg.generic
// CHECK: arith.addf %{{.*}}, %out
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: arith.addf %{{.*}}, %out
// CHECK-NOT: linalg.generic
// CHECK: return %[[A]]#0, %[[A]]#1, %[[A]]#0, %[[A]]#1, %[[B]]#0, %[[B]]#1, %[[C]], %[[D]], %[[E]]
func.func @shared_scalars(%a: tensor<f32>, %b: tensor<f32>, %acc: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %e0 = tensor.empty() : tensor<f32>
  %e1 = tensor.empty() : tensor<f32>
  %x:2 = linalg.generic {indexing_maps = [#s, #s, #s, #s], iterator_types = []}
      ins(%a, %b : tensor<f32>, tensor<f32>) outs(%e0, %e1 : tensor<f32>, tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %o0: f32, %o1: f32):
    %m = arith.mulf %p, %q : f32
    %n = arith.addf %p, %q : f32
    linalg.yield %m, %n : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  %e2 = tensor.empty() : tensor<f32>
  %e3 = tensor.empty() : tensor<f32>
  %y:2 = linalg.generic {indexing_maps = [#s, #s, #s, #s], iterator_types = []}
      ins(%a, %b : tensor<f32>, tensor<f32>) outs(%e2, %e3 : tensor<f32>, tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %o0: f32, %o1: f32):
    %m = arith.mulf %p, %q : f32
    %n = arith.addf %p, %q : f32
    linalg.yield %m, %n : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  %z:2 = linalg.generic {indexing_maps = [#s, #s, #s, #s], iterator_types = []}
      ins(%b, %a : tensor<f32>, tensor<f32>) outs(%e2, %e3 : tensor<f32>, tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %o0: f32, %o1: f32):
    %m = arith.mulf %p, %q : f32
    %n = arith.addf %p, %q : f32
    linalg.yield %m, %n : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  %w = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
      ins(%a, %b : tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %o0: f32):
    %m = arith.subf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %v = linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%a : tensor<f32>) outs(%acc : tensor<f32>) {
  ^bb0(%p: f32, %o0: f32):
    %m = arith.addf %p, %o0 : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %u = linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%a : tensor<f32>) outs(%b : tensor<f32>) {
  ^bb0(%p: f32, %o0: f32):
    %m = arith.addf %p, %o0 : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %x#0, %x#1, %y#0, %y#1, %z#0, %z#1, %w, %v, %u : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
