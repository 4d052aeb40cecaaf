// RUN: amp-opt %s -split-input-file --amp-cpu-contractions-to-blas -canonicalize | FileCheck %s

// f32 matrix products on dense host buffers become calls to
//   cblas_sgemm(101 /*row-major*/, trans_a, trans_b, m, n, k, alpha,
//               a, lda, b, ldb, beta, c, ldc)
// (111: not transposed, 112: transposed), one per matrix of a batch. A zero
// fill of a fresh output is dropped (beta = 0); otherwise beta = 1.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// linear: x (32x64) times w^T (w is 128x64), as amp's lowering emits it.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.+]]: memref<32x64xf32>, %[[W:.+]]: memref<128x64xf32>)
// CHECK-DAG: %[[ROW:.+]] = arith.constant 101 : i32
// CHECK-DAG: %[[NOTRANS:.+]] = arith.constant 111 : i32
// CHECK-DAG: %[[TRANS:.+]] = arith.constant 112 : i32
// CHECK-DAG: %[[M:.+]] = arith.constant 32 : i32
// CHECK-DAG: %[[N:.+]] = arith.constant 128 : i32
// CHECK-DAG: %[[K:.+]] = arith.constant 64 : i32
// CHECK-DAG: %[[ALPHA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[BETA:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<32x128xf32>
// CHECK-NOT: linalg.fill
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[WP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[OP:.+]] = llvm.inttoptr
// lda = k, ldb = k (w is stored n x k), ldc = n.
// CHECK: call @amp_cpu_sgemm(%[[ROW]], %[[NOTRANS]], %[[TRANS]], %[[M]], %[[N]], %[[K]], %[[ALPHA]], %[[XP]], %[[K]], %[[WP]], %[[K]], %[[BETA]], %[[OP]], %[[N]])
// CHECK-NOT: linalg.generic
// CHECK: func.func private @amp_cpu_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
func.func @linear(%x: memref<32x64xf32>, %w: memref<128x64xf32>) -> memref<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<128x64xf32>) outs(%out : memref<32x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return %out : memref<32x128xf32>
}

// -----

// Weight gradient dW = dY^T X (transposed A, plain B); the output is a
// function argument (it may alias anything): the fill stays, beta = 1.
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @weight_grad
// CHECK-DAG: %[[NOTRANS:.+]] = arith.constant 111 : i32
// CHECK-DAG: %[[TRANS:.+]] = arith.constant 112 : i32
// CHECK-DAG: %[[M:.+]] = arith.constant 10 : i32
// CHECK-DAG: %[[N:.+]] = arith.constant 128 : i32
// CHECK-DAG: %[[K:.+]] = arith.constant 32 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill
// lda = m (dY is stored k x m), ldb = n, ldc = n.
// CHECK: call @amp_cpu_sgemm(%{{.+}}, %[[TRANS]], %[[NOTRANS]], %[[M]], %[[N]], %[[K]], %[[ONE]], %{{.+}}, %[[M]], %{{.+}}, %[[N]], %[[ONE]], %{{.+}}, %[[N]])
func.func @weight_grad(%dy: memref<32x10xf32>, %x: memref<32x128xf32>, %out: memref<10x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<10x128xf32>)
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x10xf32>, memref<32x128xf32>) outs(%out : memref<10x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Named ops: linalg.matmul is one call; linalg.batch_matmul a loop of
// calls whose pointers step by m*k, k*n and m*n elements.
// CHECK-LABEL: func.func @named
// CHECK-DAG: %[[NOTRANS:.+]] = arith.constant 111 : i32
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i32
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : i32
// CHECK: call @amp_cpu_sgemm(%{{.+}}, %[[NOTRANS]], %[[NOTRANS]], %[[C4]], %[[C16]], %[[C8]], %{{.+}}, %{{.+}}, %[[C8]], %{{.+}}, %[[C16]], %{{.+}}, %{{.+}}, %[[C16]])
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[OA:.+]] = arith.muli %[[I64]], %{{.+}} : i64
// CHECK: llvm.getelementptr %{{.+}}[%[[OA]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.getelementptr
// CHECK: llvm.getelementptr
// CHECK: call @amp_cpu_sgemm(
// CHECK-NOT: linalg.
func.func @named(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>,
                 %ba: memref<3x4x8xf32>, %bb: memref<3x8x16xf32>, %bc: memref<3x4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.batch_matmul ins(%ba, %bb : memref<3x4x8xf32>, memref<3x8x16xf32>) outs(%bc : memref<3x4x16xf32>)
  return
}

// -----

// bf16 (and f16) operands accumulating in f32: Debian's OpenBLAS has no
// sbgemm, so each operand is widened to an f32 buffer once, sgemm runs on
// those, and they are freed after the call. The same operand twice (x^T x)
// is widened once.

// CHECK-LABEL: func.func @widened
// CHECK-SAME: (%[[A:.+]]: memref<4x8xbf16>, %[[B:.+]]: memref<8x16xbf16>, %[[C:.+]]: memref<4x16xf32>, %[[X:.+]]: memref<8x8xf16>, %[[G:.+]]: memref<8x8xf32>)
// CHECK: %[[WA:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4x8xbf16>) outs(%[[WA]] : memref<4x8xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[WB:.+]] = memref.alloc() : memref<8x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : memref<8x16xbf16>) outs(%[[WB]] : memref<8x16xf32>)
// CHECK: call @amp_cpu_sgemm
// CHECK-DAG: memref.dealloc %[[WA]]
// CHECK-DAG: memref.dealloc %[[WB]]
// CHECK: %[[WX:.+]] = memref.alloc() : memref<8x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<8x8xf16>) outs(%[[WX]] : memref<8x8xf32>)
// CHECK-NOT: memref.alloc
// CHECK: call @amp_cpu_sgemm
// CHECK: memref.dealloc %[[WX]]
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @widened(%a: memref<4x8xbf16>, %b: memref<8x16xbf16>, %c: memref<4x16xf32>,
                   %x: memref<8x8xf16>, %g: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%x, %x : memref<8x8xf16>, memref<8x8xf16>) outs(%g : memref<8x8xf32>)
  return
}

// -----

// FP8 operands (amp.fp8_matmul's contraction), e5m2 times e4m3: each is
// widened exactly to f32 on its own; a product of bf16 and f32 operands is
// left for the loops.
#ta = affine_map<(d0, d1, d2) -> (d2, d0)>
#tb = affine_map<(d0, d1, d2) -> (d2, d1)>
#tc = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @fp8
// CHECK-SAME: (%[[A:.+]]: memref<8x4xf8E5M2>, %[[B:.+]]: memref<8x16xf8E4M3FN>
// CHECK: %[[WA:.+]] = memref.alloc() : memref<8x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<8x4xf8E5M2>) outs(%[[WA]] : memref<8x4xf32>)
// CHECK: arith.extf %{{.+}} : f8E5M2 to f32
// CHECK: %[[WB:.+]] = memref.alloc() : memref<8x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : memref<8x16xf8E4M3FN>) outs(%[[WB]] : memref<8x16xf32>)
// CHECK: arith.extf %{{.+}} : f8E4M3FN to f32
// CHECK: call @amp_cpu_sgemm
// CHECK-DAG: memref.dealloc %[[WA]]
// CHECK-DAG: memref.dealloc %[[WB]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xbf16>, memref<8x16xf32>)
// CHECK-NOT: amp_cpu_sgemm
// CHECK: return
func.func @fp8(%a: memref<8x4xf8E5M2>, %b: memref<8x16xf8E4M3FN>, %c: memref<4x16xf32>,
               %x: memref<4x8xbf16>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x4xf8E5M2>, memref<8x16xf8E4M3FN>) outs(%c : memref<4x16xf32>) {
  ^bb0(%in: f8E5M2, %in_1: f8E4M3FN, %acc: f32):
    %0 = arith.extf %in : f8E5M2 to f32
    %1 = arith.extf %in_1 : f8E4M3FN to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.matmul ins(%x, %y : memref<4x8xbf16>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Left for the loops: 16-bit operands accumulating in 16 bits (sgemm's
// output is f32), a strided operand, and a max-plus product (not out + a *
// b).
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: amp_cpu_sgemm
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: amp_cpu_sgemm
func.func @left_alone(%a: memref<4x8xbf16>, %b: memref<8x16xbf16>, %c: memref<4x16xbf16>,
                      %s: memref<4x8xf32, strided<[16, 1]>>, %t: memref<8x16xf32>,
                      %u: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xbf16>)
  linalg.matmul ins(%s, %t : memref<4x8xf32, strided<[16, 1]>>, memref<8x16xf32>) outs(%u : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %t : memref<4x8xf32, strided<[16, 1]>>, memref<8x16xf32>) outs(%u : memref<4x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %0 = arith.addf %in, %in_1 : f32
    %1 = arith.maximumf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
