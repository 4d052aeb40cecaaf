// RUN: amp-opt %s -split-input-file --amp-contractions-to-gemm-calls -canonicalize | FileCheck %s

// cuBLASLt epilogues folded by amp-contractions-to-gemm-calls: the bias add
// of a fresh product (written in the add's type), the product narrowed to
// the operands' type where it is only read rounded, and the sum of the
// rows of A (a bias gradient) right after its product. Calls with an
// epilogue are amp_gpu_gemm_epilogue(..., allow_tf32, epilogue, vector,
// stream): epilogue 1 = f32 bias, 2 = bias gradient of A, 3 = bias of the
// output's type (include/amp/Runtime/CUDAKernels.h; dtype f32 = 0,
// bf16 = 2).

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Linear forward: x @ w^T + bias, rounded to bf16: one call writing the
// bf16 result with the bias epilogue; the f32 product and the add kernel
// are gone (the result's allocation moves before the call). cuBLASLt adds
// only a bias of D's type to a bf16 D: the f32 bias is rounded to bf16 into
// a buffer of its own first (a kernel of 128 elements), which the call reads
// (epilogue 3) and which is freed after it.
// CHECK-LABEL: func.func @linear_bias_bf16
// CHECK-SAME: (%[[X:.+]]: memref<32x64xbf16>, %[[W:.+]]: memref<128x64xbf16>, %[[BIAS:.+]]: memref<128xf32>)
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[EPI:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[BETA:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[RB:.+]] = memref.alloc() : memref<128xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[BIAS]] : memref<128xf32>) outs(%[[RB]] : memref<128xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[Y:.+]] = memref.alloc() : memref<32x128xbf16>
// CHECK-NOT: memref.alloc
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: %[[YP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[RB]]
// CHECK: %[[BP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_epilogue(%[[BF16]], %[[BF16]], {{.*}}, %[[YP]], %{{.+}}, %[[BETA]], %{{.+}}, %[[EPI]], %[[BP]], %{{.+}}) :
// CHECK-NEXT: memref.dealloc %[[RB]] : memref<128xbf16>
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return %[[Y]]
// CHECK: func.func private @amp_gpu_gemm_epilogue(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr)
func.func @linear_bias_bf16(%x: memref<32x64xbf16>, %w: memref<128x64xbf16>, %bias: memref<128xf32>) -> memref<32x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xbf16>, memref<128x64xbf16>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %y = memref.alloc() : memref<32x128xbf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<32x128xf32>, memref<128xf32>) outs(%y : memref<32x128xbf16>) {
  ^bb0(%in: f32, %b: f32, %out: bf16):
    %0 = arith.addf %in, %b : f32
    %1 = arith.truncf %0 : f32 to bf16
    linalg.yield %1 : bf16
  }
  memref.dealloc %t : memref<32x128xf32>
  return %y : memref<32x128xbf16>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Not folded: the bias add reads the product after a kernel that may
// write the bias (or the result), and a bias add of a product that is read
// again. Both stay plain f32 products.
// CHECK-LABEL: func.func @bias_not_folded
// CHECK-NOT: amp_gpu_gemm_epilogue
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @bias_not_folded(%x: memref<32x64xbf16>, %w: memref<128x64xbf16>, %bias: memref<128xf32>, %y: memref<32x128xf32>, %z: memref<32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xbf16>, memref<128x64xbf16>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%zero : f32) outs(%bias : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<32x128xf32>, memref<128xf32>) outs(%y : memref<32x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  %u = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xbf16>, memref<128x64xbf16>) outs(%u : memref<32x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u, %bias : memref<32x128xf32>, memref<128xf32>) outs(%y : memref<32x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<32x128xf32>) outs(%z : memref<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %t : memref<32x128xf32>
  memref.dealloc %u : memref<32x128xf32>
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Backward of a linear layer in bf16: dX = dY @ W is read only rounded to
// bf16 (its consumer's truncf goes, the product is a bf16 buffer); dW =
// dY^T @ X with the bias gradient sum_rows(dY) as the BGRADB epilogue (its
// zero fill and reduction go): an f32 product with A transposed, where
// cuBLASLt computes an f32 bias gradient.
// CHECK-LABEL: func.func @linear_backward_bf16
// CHECK-SAME: (%[[DY:.+]]: memref<32x128xbf16>, %{{.+}}: memref<128x64xbf16>, %{{.+}}: memref<32x64xbf16>, %[[DXOUT:.+]]: memref<32x64xf32>)
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK: %[[DX:.+]] = memref.alloc() : memref<32x64xbf16>
// CHECK: call @amp_gpu_gemm(%[[BF16]], %[[BF16]],
// CHECK: linalg.generic {{.*}} ins(%[[DX]] : memref<32x64xbf16>) outs(%[[DXOUT]] : memref<32x64xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[E]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK: %[[DW:.+]] = memref.alloc() : memref<128x64xf32>
// CHECK: %[[DB:.+]] = memref.alloc() : memref<128xf32>
// CHECK-NOT: linalg.fill
// CHECK: memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK: memref.extract_aligned_pointer_as_index %[[DB]]
// CHECK: %[[DBP:.+]] = llvm.inttoptr
// (bf16 and the bias gradient epilogue are both 2 : i32)
// CHECK: call @amp_gpu_gemm_epilogue(%[[BF16]], %[[F32]], {{.*}}, %[[BF16]], %[[DBP]], %{{.+}}) :
// CHECK-NOT: linalg.generic
// CHECK: return %[[DW]], %[[DB]]
func.func @linear_backward_bf16(%dy: memref<32x128xbf16>, %w: memref<128x64xbf16>, %x: memref<32x64xbf16>, %dxout: memref<32x64xf32>) -> (memref<128x64xf32>, memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %dx = memref.alloc() : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%dx : memref<32x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : memref<32x128xbf16>, memref<128x64xbf16>) outs(%dx : memref<32x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx : memref<32x64xf32>) outs(%dxout : memref<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.truncf %in : f32 to bf16
    %1 = arith.extf %0 : bf16 to f32
    %2 = arith.mulf %1, %1 : f32
    linalg.yield %2 : f32
  }
  %dw = memref.alloc() : memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%dw : memref<128x64xf32>)
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x128xbf16>, memref<32x64xbf16>) outs(%dw : memref<128x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %db = memref.alloc() : memref<128xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<32x128xbf16>) outs(%db : memref<128xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %dx : memref<32x64xf32>
  return %dw, %db : memref<128x64xf32>, memref<128xf32>
}

// -----

#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// In f32 likewise: dW = dY^T @ X with the bias gradient sum_rows(dY) as the
// BGRADB epilogue.
// CHECK-LABEL: func.func @linear_backward_f32
// CHECK-SAME: (%[[DY:.+]]: memref<32x128xf32>, %{{.+}}: memref<32x64xf32>)
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[GRAD:.+]] = arith.constant 2 : i32
// CHECK: %[[DW:.+]] = memref.alloc() : memref<128x64xf32>
// CHECK: %[[DB:.+]] = memref.alloc() : memref<128xf32>
// CHECK-NOT: linalg.fill
// CHECK: memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK: memref.extract_aligned_pointer_as_index %[[DB]]
// CHECK: %[[DBP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_epilogue(%[[F32]], %[[F32]], {{.*}}, %[[GRAD]], %[[DBP]], %{{.+}}) :
// CHECK-NOT: linalg.generic
// CHECK: return %[[DW]], %[[DB]]
func.func @linear_backward_f32(%dy: memref<32x128xf32>, %x: memref<32x64xf32>) -> (memref<128x64xf32>, memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %dw = memref.alloc() : memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%dw : memref<128x64xf32>)
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x128xf32>, memref<32x64xf32>) outs(%dw : memref<128x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %db = memref.alloc() : memref<128xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<32x128xf32>) outs(%db : memref<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %out, %in : f32
    linalg.yield %1 : f32
  }
  return %dw, %db : memref<128x64xf32>, memref<128xf32>
}

// -----

#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Not a bias gradient: the sum reads another buffer than A, or its output
// is not zeroed first (it accumulates).
// CHECK-LABEL: func.func @bgrad_not_folded
// CHECK-NOT: amp_gpu_gemm_epilogue
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.generic
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.generic
func.func @bgrad_not_folded(%dy: memref<32x128xbf16>, %other: memref<32x128xbf16>, %x: memref<32x64xbf16>, %dw: memref<128x64xf32>, %db: memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x128xbf16>, memref<32x64xbf16>) outs(%dw : memref<128x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %s = memref.alloc() : memref<128xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%other : memref<32x128xbf16>) outs(%s : memref<128xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x128xbf16>, memref<32x64xbf16>) outs(%dw : memref<128x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<32x128xbf16>) outs(%db : memref<128xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %s : memref<128xf32>
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A residual added with the bias (mlp_stack's fc2 at O1: y = x + (h @ w^T +
// b) in f32): amp_gpu_gemm_ex(..., c = x, alpha 1, beta 1, allow_tf32,
// epilogue 1, bias, d = y, stream), C and D apart; the product and the add
// kernel are gone.
// CHECK-LABEL: func.func @linear_bias_residual
// CHECK-SAME: (%[[X:.+]]: memref<32x64xf32>, %[[H:.+]]: memref<32x128xbf16>, %[[W:.+]]: memref<64x128xbf16>, %[[BIAS:.+]]: memref<64xf32>)
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[EPI:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[Y:.+]] = memref.alloc() : memref<32x64xf32>
// CHECK-NOT: memref.alloc
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK: %[[BP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: %[[YP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_ex(%[[BF16]], %[[F32]], {{.*}}, %[[XP]], %[[ONE]], %[[ONE]], %{{.+}}, %[[EPI]], %[[BP]], %[[YP]], %{{.+}}) :
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return %[[Y]]
// CHECK: func.func private @amp_gpu_gemm_ex(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @linear_bias_residual(%x: memref<32x64xf32>, %h: memref<32x128xbf16>, %w: memref<64x128xbf16>, %bias: memref<64xf32>) -> memref<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %w : memref<32x128xbf16>, memref<64x128xbf16>) outs(%t : memref<32x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %y = memref.alloc() : memref<32x64xf32>
  linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t, %bias : memref<32x64xf32>, memref<32x64xf32>, memref<64xf32>) outs(%y : memref<32x64xf32>) {
  ^bb0(%r: f32, %in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.addf %r, %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %t : memref<32x64xf32>
  return %y : memref<32x64xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A residual alone, in bf16 (extended, added in f32, rounded once to the
// bf16 output, C's type being D's): amp_gpu_gemm_ex with epilogue 0 and a
// null vector.
// CHECK-LABEL: func.func @residual_only_bf16
// CHECK-SAME: (%[[X:.+]]: memref<32x64xbf16>
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[NONE:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[Y:.+]] = memref.alloc() : memref<32x64xbf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: %[[YP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_ex(%[[BF16]], %[[BF16]], {{.*}}, %[[XP]], %[[ONE]], %[[ONE]], %{{.+}}, %[[NONE]], %[[NULL]], %[[YP]], %[[NULL]]) :
// CHECK-NOT: linalg.generic
func.func @residual_only_bf16(%x: memref<32x64xbf16>, %h: memref<32x128xbf16>, %w: memref<64x128xbf16>) -> memref<32x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %w : memref<32x128xbf16>, memref<64x128xbf16>) outs(%t : memref<32x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %y = memref.alloc() : memref<32x64xbf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %x : memref<32x64xf32>, memref<32x64xbf16>) outs(%y : memref<32x64xbf16>) {
  ^bb0(%in: f32, %r: bf16, %out: bf16):
    %0 = arith.extf %r : bf16 to f32
    %1 = arith.addf %0, %in : f32
    %2 = arith.truncf %1 : f32 to bf16
    linalg.yield %2 : bf16
  }
  memref.dealloc %t : memref<32x64xf32>
  return %y : memref<32x64xbf16>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Not folded: the bias add rounded to bf16 before the residual is added
// (mlp_stack's fc2 at O2: two roundings, which cuBLASLt's one cannot make),
// and a bf16 residual added to an f32 output (cuBLASLt's C has D's type).
// Both stay a plain product and the add kernel.
// CHECK-LABEL: func.func @residual_not_folded
// CHECK-NOT: amp_gpu_gemm_ex
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.generic
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.generic
func.func @residual_not_folded(%x: memref<32x64xbf16>, %h: memref<32x128xbf16>, %w: memref<64x128xbf16>, %bias: memref<64xf32>, %y: memref<32x64xf32>, %y2: memref<32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %w : memref<32x128xbf16>, memref<64x128xbf16>) outs(%t : memref<32x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t, %bias : memref<32x64xbf16>, memref<32x64xf32>, memref<64xf32>) outs(%y : memref<32x64xf32>) {
  ^bb0(%r: bf16, %in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.truncf %0 : f32 to bf16
    %2 = arith.extf %r : bf16 to f32
    %3 = arith.extf %1 : bf16 to f32
    %4 = arith.addf %2, %3 : f32
    %5 = arith.truncf %4 : f32 to bf16
    %6 = arith.extf %5 : bf16 to f32
    linalg.yield %6 : f32
  }
  memref.dealloc %t : memref<32x64xf32>
  %t2 = memref.alloc() : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%t2 : memref<32x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %w : memref<32x128xbf16>, memref<64x128xbf16>) outs(%t2 : memref<32x64xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t2, %x : memref<32x64xf32>, memref<32x64xbf16>) outs(%y2 : memref<32x64xf32>) {
  ^bb0(%in: f32, %r: bf16, %out: f32):
    %0 = arith.extf %r : bf16 to f32
    %1 = arith.addf %0, %in : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %t2 : memref<32x64xf32>
  return
}

// -----

#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// An f16 weight gradient read rounded by a kernel that only rounds it (its
// f16 copy is what the overflow check and the update read): once the
// product is narrowed to f16 that kernel would copy it, so the GEMM writes
// the copy's buffer instead: no kernel, one allocation (freed where the
// copy was). The bias gradient after it stays a kernel (cuBLASLt refuses an
// f32 bias gradient beside an f16 product).
// CHECK-LABEL: func.func @rounded_copy_forwarded
// CHECK-SAME: (%[[DY:.+]]: memref<32x128xf16>, %{{.+}}: memref<32x64xf16>, %[[USE:.+]]: memref<128x64xf32>)
// CHECK: %[[DW:.+]] = memref.alloc() : memref<128x64xf16>
// CHECK-NOT: memref.alloc() : memref<128x64xf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[DW]]
// CHECK: call @amp_gpu_gemm(
// CHECK: %[[DB:.+]] = memref.alloc() : memref<128xf32>
// CHECK: linalg.generic {{.*}} ins(%[[DY]] : memref<32x128xf16>) outs(%[[DB]] : memref<128xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[DW]] : memref<128x64xf16>) outs(%[[USE]] : memref<128x64xf32>)
// CHECK: memref.dealloc %[[DW]]
// CHECK-NOT: memref.dealloc
// CHECK: return %[[DB]]
func.func @rounded_copy_forwarded(%dy: memref<32x128xf16>, %x: memref<32x64xf16>, %use: memref<128x64xf32>) -> memref<128xf32> {
  %zero = arith.constant 0.0 : f32
  %dw = memref.alloc() : memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%dw : memref<128x64xf32>)
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x128xf16>, memref<32x64xf16>) outs(%dw : memref<128x64xf32>) {
  ^bb0(%in: f16, %in_1: f16, %acc: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_1 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %dwh = memref.alloc() : memref<128x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dw : memref<128x64xf32>) outs(%dwh : memref<128x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  }
  %db = memref.alloc() : memref<128xf32>
  linalg.fill ins(%zero : f32) outs(%db : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<32x128xf16>) outs(%db : memref<128xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dwh : memref<128x64xf16>) outs(%use : memref<128x64xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  }
  memref.dealloc %dw : memref<128x64xf32>
  memref.dealloc %dwh : memref<128x64xf16>
  return %db : memref<128xf32>
}
