// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-gpu-free-early))" | FileCheck %s
// The same through the pass's own flag (implicitly nested on functions).
// RUN: amp-opt %s -split-input-file --amp-gpu-free-early | FileCheck %s

// Each temporary is freed right after its last use, counting uses of
// values derived from it (a view, its aligned pointer as a GEMM call takes
// it) and uses inside nested regions, instead of at the end of the block
// where the deallocation pipeline put it.
// CHECK-LABEL: func.func @early
// CHECK: %[[A:.+]] = memref.alloc() : memref<64xf32>
// CHECK: %[[B:.+]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: linalg.copy ins(%[[X:.+]] : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
// CHECK-NEXT: %[[V:.+]] = memref.subview %[[A]]
// CHECK-NEXT: linalg.copy ins(%[[V]] : memref<32xf32, strided<[1]>>) outs(%[[Y:.+]] : memref<32xf32>)
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[I:.+]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-NEXT: %[[P:.+]] = arith.index_cast %[[I]]
// CHECK-NEXT: %[[Q:.+]] = llvm.inttoptr %[[P]]
// CHECK-NEXT: call @use(%[[Q]])
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: return
func.func private @use(!llvm.ptr)
func.func @early(%x: memref<64xf32>, %y: memref<32xf32>, %z: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %v = memref.subview %a[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  linalg.copy ins(%v : memref<32xf32, strided<[1]>>) outs(%y : memref<32xf32>)
  %i = memref.extract_aligned_pointer_as_index %b : memref<64xf32> -> index
  %p = arith.index_cast %i : index to i64
  %q = llvm.inttoptr %p : i64 to !llvm.ptr
  func.call @use(%q) : (!llvm.ptr) -> ()
  linalg.copy ins(%x : memref<64xf32>) outs(%z : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// A use inside a loop counts as the loop; a buffer allocated in another
// block than its dealloc is left alone.
// CHECK-LABEL: func.func @regions
// CHECK: %[[A:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: %[[O:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: scf.for
// CHECK: memref.store {{.*}} %[[A]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.dealloc %[[O]]
// CHECK: linalg.copy
// CHECK-NEXT: return
func.func @regions(%n: index, %f: f32, %c: i1, %z: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %o = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %a[%i] : memref<4xf32>
  }
  scf.if %c {
    memref.dealloc %o : memref<4xf32>
  }
  linalg.copy ins(%z : memref<4xf32>) outs(%z : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}
