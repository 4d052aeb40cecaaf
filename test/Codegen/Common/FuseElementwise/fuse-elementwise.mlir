// RUN: amp-opt %s -split-input-file --amp-fuse-elementwise | FileCheck %s

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

// A producer with two uses that reads as many bytes as it writes (x * x)
// is recomputed in each reader instead of being stored and read back.
// CHECK-LABEL: func.func @two_uses
//  CHECK-SAME:     (%[[X:.+]]: tensor<256xf32>)
//       CHECK:   %[[A:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[X]] : tensor<256xf32>)
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[B:.+]] = linalg.generic
//  CHECK-SAME:       ins(%[[X]] : tensor<256xf32>)
//       CHECK:     arith.mulf
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
// second negates before rounding), and too costly to recompute (two f32
// inputs for one f32). The three generics stay.
// CHECK-LABEL: func.func @no_dual_output
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
func.func @no_dual_output(%y: tensor<64x32xf32>, %z: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xbf16>) {
  %e0 = tensor.empty() : tensor<64x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %z : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
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

// -----

#row = affine_map<(d0, d1, d2) -> (d1, 0)>
#col = affine_map<(d0, d1, d2) -> (d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A causal mask computed from two index vectors and read by the forward
// masking and by the backward one is recomputed in each reader, never
// stored (no i1 tensor is left); so are the masked scores read by both
// reductions of a softmax (no 2x4x4 f32 tensor is written between them).
// CHECK-LABEL: func.func @recompute_cheap
//   CHECK-NOT:   tensor<2x4x4xi1>
//       CHECK:   linalg.generic
//  CHECK-SAME:       iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:       ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<4xf32>, tensor<2x4x4xf32>)
//       CHECK:     arith.cmpf oge
//       CHECK:     arith.select
//       CHECK:     arith.maximumf
//       CHECK:   linalg.generic
//  CHECK-SAME:       iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:       ins(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<4xf32>, tensor<2x4x4xf32>, tensor<2x4xf32>)
//       CHECK:     arith.cmpf oge
//       CHECK:     arith.select
//       CHECK:     math.exp
//       CHECK:   linalg.generic
//  CHECK-SAME:       iterator_types = ["parallel", "parallel", "parallel"]
//  CHECK-SAME:       ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<4xf32>, tensor<2x4x4xf32>)
//       CHECK:     arith.cmpf oge
//       CHECK:     arith.select
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   tensor<2x4x4xi1>
func.func @recompute_cheap(%r: tensor<4x1xf32>, %c: tensor<4xf32>, %s: tensor<2x4x4xf32>, %g: tensor<2x4x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x4xf32>) {
  %em = tensor.empty() : tensor<2x4x4xi1>
  %mask = linalg.generic {indexing_maps = [#row, #col, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %c : tensor<4x1xf32>, tensor<4xf32>) outs(%em : tensor<2x4x4xi1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %p = arith.cmpf oge, %a, %b : f32
    linalg.yield %p : i1
  } -> tensor<2x4x4xi1>
  %es = tensor.empty() : tensor<2x4x4xf32>
  %masked = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mask, %s : tensor<2x4x4xi1>, tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%m: i1, %x: f32, %o: f32):
    %k = arith.constant 0.125 : f32
    %big = arith.constant -1.0e4 : f32
    %y = arith.mulf %x, %k : f32
    %z = arith.select %m, %y, %big : f32
    linalg.yield %z : f32
  } -> tensor<2x4x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %max = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%masked : tensor<2x4x4xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  %zero = arith.constant 0.0 : f32
  %init2 = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%masked, %max : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%init2 : tensor<2x4xf32>) {
  ^bb0(%x: f32, %m: f32, %acc: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %a = arith.addf %e, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x4xf32>
  %eg = tensor.empty() : tensor<2x4x4xf32>
  %gm = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mask, %g : tensor<2x4x4xi1>, tensor<2x4x4xf32>) outs(%eg : tensor<2x4x4xf32>) {
  ^bb0(%m: i1, %x: f32, %o: f32):
    %z0 = arith.constant 0.0 : f32
    %z = arith.select %m, %x, %z0 : f32
    linalg.yield %z : f32
  } -> tensor<2x4x4xf32>
  return %max, %sum, %gm : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x4xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A value that reads more bytes than it writes (two f32 inputs for one
// f32), or that needs a transcendental, is computed once and read by each
// reader.
// CHECK-LABEL: func.func @keep_costly
//       CHECK:   %[[V:.+]] = linalg.generic
//       CHECK:     arith.addf
//       CHECK:   linalg.generic
//  CHECK-SAME:       ins(%[[V]] : tensor<4x4xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:       ins(%[[V]] : tensor<4x4xf32>)
//       CHECK:   %[[E:.+]] = linalg.generic
//       CHECK:     math.exp
//       CHECK:   linalg.generic
//  CHECK-SAME:       ins(%[[E]] : tensor<4x4xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:       ins(%[[E]] : tensor<4x4xf32>)
func.func @keep_costly(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %v = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %u1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %u2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %w1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %w2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %u1, %u2, %w1, %w2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// On buffers (the pass fuses tensors): left as it is, no crash.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @buffers
// CHECK: linalg.generic
// CHECK: arith.truncf
func.func @buffers(%a: memref<8xf32>, %b: memref<8xbf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  return
}
