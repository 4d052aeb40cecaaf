// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// Round trip of the collectives of data-parallel training
// (docs/DataParallel.md): a bucket of mixed float types, the optional
// `active` flag, and the found_inf reduction.

// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[G0:.*]]: tensor<4x8xf16>, %[[G1:.*]]: tensor<4xf32>)
func.func @bucket(%g0: tensor<4x8xf16>, %g1: tensor<4xf32>)
    -> (tensor<4x8xf16>, tensor<4xf32>) {
  // CHECK: %[[H:.*]] = amp.all_reduce_start <mean> %[[G0]], %[[G1]] : tensor<4x8xf16>, tensor<4xf32>
  %h = amp.all_reduce_start <mean> %g0, %g1 : tensor<4x8xf16>, tensor<4xf32>
  // CHECK: %[[R:.*]]:2 = amp.all_reduce_wait %[[H]] : tensor<4x8xf16>, tensor<4xf32>
  %r:2 = amp.all_reduce_wait %h : tensor<4x8xf16>, tensor<4xf32>
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %r#0, %r#1 : tensor<4x8xf16>, tensor<4xf32>
}

// CHECK-LABEL: func.func @active_sum
// CHECK-SAME: (%[[G:.*]]: tensor<3xbf16>, %[[LAST:.*]]: tensor<i1>)
func.func @active_sum(%g: tensor<3xbf16>, %last: tensor<i1>) -> tensor<3xbf16> {
  // CHECK: %[[H:.*]] = amp.all_reduce_start <sum> %[[G]] active %[[LAST]] : tensor<3xbf16>
  %h = amp.all_reduce_start <sum> %g active %last : tensor<3xbf16>
  // CHECK: amp.all_reduce_wait %[[H]] : tensor<3xbf16>
  %r = amp.all_reduce_wait %h : tensor<3xbf16>
  return %r : tensor<3xbf16>
}

// CHECK-LABEL: func.func @found_inf
// CHECK-SAME: (%[[F:.*]]: tensor<i1>, %[[LAST:.*]]: tensor<i1>)
func.func @found_inf(%f: tensor<i1>, %last: tensor<i1>) -> (tensor<i1>, tensor<i1>) {
  // CHECK: amp.all_reduce_any %[[F]]{{$}}
  %0 = amp.all_reduce_any %f
  // CHECK: amp.all_reduce_any %[[F]] active %[[LAST]]
  %1 = amp.all_reduce_any %f active %last
  return %0, %1 : tensor<i1>, tensor<i1>
}

// Not Pure: a canonicalization keeps an all-reduce whose results are
// unused, since every rank must take part in it.
// CHECK-LABEL: func.func @unused
func.func @unused(%g: tensor<4xf32>, %f: tensor<i1>) {
  // CHECK: amp.all_reduce_start
  // CHECK: amp.all_reduce_wait
  // CHECK: amp.all_reduce_any
  %h = amp.all_reduce_start <sum> %g : tensor<4xf32>
  %r = amp.all_reduce_wait %h : tensor<4xf32>
  %0 = amp.all_reduce_any %f
  return
}
