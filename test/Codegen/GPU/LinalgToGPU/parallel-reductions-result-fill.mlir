// RUN: amp-opt %s -split-input-file --amp-gpu-parallel-reductions | FileCheck %s

// A reduction into a result buffer of the function (an out-parameter after
// buffer-results-to-out-params) that was just filled with a constant starts
// from the constant, as a fresh buffer does: the fill, which would be a
// one-thread launch, goes (amp.check_indices's flag returned as it is).

// CHECK-LABEL: func.func @flag_result
// CHECK-SAME: (%[[IDS:.+]]: memref<8192xi64>, %[[OUT:.+]]: memref<i1>)
// CHECK-NEXT: %[[FALSE:.+]] = arith.constant false
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK: %[[TOTAL:.+]] = arith.ori %[[FALSE]], %{{.+}} : i1
// CHECK: memref.store %[[TOTAL]], %[[OUT]][] : memref<i1>
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @flag_result(%ids: memref<8192xi64>, %out: memref<i1>) {
  %false = arith.constant false
  linalg.fill ins(%false : i1) outs(%out : memref<i1>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%ids : memref<8192xi64>) outs(%out : memref<i1>) {
  ^bb0(%x: i64, %acc: i1):
    %c0 = arith.constant 0 : i64
    %bad = arith.cmpi slt, %x, %c0 : i64
    %r = arith.ori %acc, %bad : i1
    linalg.yield %r : i1
  }
  return
}

// -----

// The result buffer is read between the fill and the reduction: the fill
// stays, and the reduction combines with the buffer's value.

// CHECK-LABEL: func.func @read_before
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: %[[OLD:.+]] = memref.load %{{.+}}[] : memref<i1>
// CHECK-NEXT: arith.ori %[[OLD]]
func.func @read_before(%ids: memref<8192xi64>, %out: memref<i1>, %copy: memref<i1>) {
  %false = arith.constant false
  linalg.fill ins(%false : i1) outs(%out : memref<i1>)
  memref.copy %out, %copy : memref<i1> to memref<i1>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%ids : memref<8192xi64>) outs(%out : memref<i1>) {
  ^bb0(%x: i64, %acc: i1):
    %c0 = arith.constant 0 : i64
    %bad = arith.cmpi slt, %x, %c0 : i64
    %r = arith.ori %acc, %bad : i1
    linalg.yield %r : i1
  }
  return
}
