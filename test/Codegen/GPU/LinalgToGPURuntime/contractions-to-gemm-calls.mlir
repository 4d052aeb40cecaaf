// RUN: amp-opt %s -split-input-file --amp-contractions-to-gemm-calls -canonicalize | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-contractions-to-gemm-calls="allow-tf32=true" -canonicalize | FileCheck %s --check-prefix=TF32

// Matrix products on dense device buffers become calls to the runtime's
//   amp_gpu_gemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b,
//                a, stride_a, b, stride_b, c, alpha, beta, allow_tf32, stream)
// with a null stream (the runtime's) until amp-gemm-calls-on-stream.
// (include/amp/Runtime/CUDAKernels.h; dtype f32 = 0, f16 = 1, bf16 = 2).
// A zero fill of a fresh output is dropped (beta = 0); otherwise beta = 1.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// linear: x (32x64, f16) times w^T (w is 128x64, f16), accumulated in f32.
// CHECK-LABEL: func.func @linear_f16
// CHECK-SAME: (%[[X:.+]]: memref<32x64xf16>, %[[W:.+]]: memref<128x64xf16>)
// (f16 = trans = 1 : i32; f32 = no trans = no tf32 = 0 : i32)
// CHECK-DAG: %[[F16:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.+]] = arith.constant 32 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 128 : i64
// CHECK-DAG: %[[K:.+]] = arith.constant 64 : i64
// CHECK-DAG: %[[ALPHA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[BETA:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<32x128xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[XI:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XI64:.+]] = arith.index_cast %[[XI]] : index to i64
// CHECK: %[[XP:.+]] = llvm.inttoptr %[[XI64]] : i64 to !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[WP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[OP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm(%[[F16]], %[[F32]], %[[ONE]], %[[M]], %[[N]], %[[K]], %[[F32]], %[[F16]], %[[XP]], %{{.+}}, %[[WP]], %{{.+}}, %[[OP]], %[[ALPHA]], %[[BETA]], %[[F32]], %[[NULL]])
// CHECK-NOT: linalg.generic
// CHECK: func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)
// CHECK-NOT: llvm.emit_c_interface
func.func @linear_f16(%x: memref<32x64xf16>, %w: memref<128x64xf16>) -> memref<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf16>, memref<128x64xf16>) outs(%out : memref<32x128xf32>) {
  ^bb0(%in: f16, %in_1: f16, %acc: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_1 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return %out : memref<32x128xf32>
}

// -----

// Weight gradient dW = dY^T X in bf16 (transposed A, plain B); the output
// is a function argument (it may alias anything): the fill stays, beta = 1.
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @weight_grad_bf16
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[M:.+]] = arith.constant 10 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 128 : i64
// CHECK-DAG: %[[K:.+]] = arith.constant 32 : i64
// CHECK-DAG: %[[TRANS:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill
// CHECK: call @amp_gpu_gemm(%[[BF16]], %[[F32]], %{{.+}}, %[[M]], %[[N]], %[[K]], %[[TRANS]], %[[F32]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ONE]], %[[ONE]], %[[F32]], %{{.+}})
func.func @weight_grad_bf16(%dy: memref<32x10xbf16>, %x: memref<32x128xbf16>, %out: memref<10x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<10x128xf32>)
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %x : memref<32x10xbf16>, memref<32x128xbf16>) outs(%out : memref<10x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Batched attention scores Q K^T over (batch, heads): two batch dimensions
// flatten to batch = 8, both operands batched (strides m*k and n*k).
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
// CHECK-LABEL: func.func @attention_scores
// CHECK-DAG: %[[B:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[S:.+]] = arith.constant 16 : i64
// CHECK-DAG: %[[D:.+]] = arith.constant 32 : i64
// CHECK-DAG: %[[STRIDE:.+]] = arith.constant 512 : i64
// CHECK-DAG: %[[NOTRANS:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[TRANS:.+]] = arith.constant 1 : i32
// CHECK: call @amp_gpu_gemm(%[[TRANS]], %[[NOTRANS]], %[[B]], %[[S]], %[[S]], %[[D]], %[[NOTRANS]], %[[TRANS]], %{{.+}}, %[[STRIDE]], %{{.+}}, %[[STRIDE]], %{{.+}}
func.func @attention_scores(%q: memref<2x4x16x32xf16>, %k: memref<2x4x16x32xf16>) -> memref<2x4x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<2x4x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<2x4x16x16xf32>)
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x4x16x32xf16>, memref<2x4x16x32xf16>) outs(%out : memref<2x4x16x16xf32>) {
  ^bb0(%in: f16, %in_1: f16, %acc: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_1 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return %out : memref<2x4x16x16xf32>
}

// -----

// A linear layer on (batch, seq, features) activations: the shared weight
// makes batch * seq rows of one GEMM (m = 2 * 16). The weight gradient of
// the same layer reduces over batch and seq (k = 2 * 16).
#x3 = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (n, k)>
#y3 = affine_map<(b, s, n, k) -> (b, s, n)>
#dy3 = affine_map<(n, k, b, s) -> (b, s, n)>
#xk = affine_map<(n, k, b, s) -> (b, s, k)>
#dw = affine_map<(n, k, b, s) -> (n, k)>
// CHECK-LABEL: func.func @linear_3d_f32
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.+]] = arith.constant 32 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 48 : i64
// CHECK-DAG: %[[K:.+]] = arith.constant 64 : i64
// CHECK-DAG: %[[TRANS:.+]] = arith.constant 1 : i32
// CHECK: call @amp_gpu_gemm(%[[F32]], %[[F32]], %[[ONE]], %[[M]], %[[N]], %[[K]], %[[F32]], %[[TRANS]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[F32]], %{{.+}})
// CHECK: call @amp_gpu_gemm(%[[F32]], %[[F32]], %[[ONE]], %[[N]], %[[K]], %[[M]], %[[TRANS]], %[[F32]],
// TF32-LABEL: func.func @linear_3d_f32
// TF32-DAG: %[[YES:.+]] = arith.constant 1 : i32
// TF32: call @amp_gpu_gemm({{.*}}, %[[YES]], %{{.+}}) :
func.func @linear_3d_f32(%x: memref<2x16x64xf32>, %w: memref<48x64xf32>, %y: memref<2x16x48xf32>, %dy: memref<2x16x48xf32>, %dw: memref<48x64xf32>) {
  linalg.generic {indexing_maps = [#x3, #w, #y3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x16x64xf32>, memref<48x64xf32>) outs(%y : memref<2x16x48xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#dy3, #xk, #dw], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%dy, %x : memref<2x16x48xf32>, memref<2x16x64xf32>) outs(%dw : memref<48x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// linalg.matmul (f16 result, accumulated in f32 by cuBLASLt: c_dtype = 1).
// CHECK-LABEL: func.func @named_matmul
// CHECK-DAG: %[[F16:.+]] = arith.constant 1 : i32
// CHECK: call @amp_gpu_gemm(%[[F16]], %[[F16]],
func.func @named_matmul(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf16>) {
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf16>)
  return
}

// -----

// Left alone: a strided (non-identity) operand, an integer product, a
// reduction that is not a product, an f64 product, mixed operand types,
// and tensors (not bufferized).
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @negative
// CHECK-NOT: call @amp_gpu_gemm
// CHECK-COUNT-6: linalg.
// CHECK-NOT: call @amp_gpu_gemm
// CHECK: return
func.func @negative(%s: memref<8x16xf32, strided<[32, 1]>>, %b: memref<16x4xf32>, %c: memref<8x4xf32>,
                    %ia: memref<8x16xi32>, %ib: memref<16x4xi32>, %ic: memref<8x4xi32>,
                    %da: memref<8x16xf64>, %db: memref<16x4xf64>, %dc: memref<8x4xf64>,
                    %h: memref<8x16xf16>, %t: tensor<8x16xf32>, %tb: tensor<16x4xf32>, %tc: tensor<8x4xf32>) -> tensor<8x4xf32> {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %b : memref<8x16xf32, strided<[32, 1]>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ia, %ib : memref<8x16xi32>, memref<16x4xi32>) outs(%ic : memref<8x4xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %0 = arith.muli %x, %y : i32
    %1 = arith.addi %acc, %0 : i32
    linalg.yield %1 : i32
  }
  // max(a * b): not a sum of products.
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %b : memref<8x16xf32, strided<[32, 1]>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.maximumf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%da, %db : memref<8x16xf64>, memref<16x4xf64>) outs(%dc : memref<8x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %0 = arith.mulf %x, %y : f64
    %1 = arith.addf %acc, %0 : f64
    linalg.yield %1 : f64
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %b : memref<8x16xf16>, memref<16x4xf32>) outs(%c : memref<8x4xf32>) {
  ^bb0(%x: f16, %y: f32, %acc: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.mulf %0, %y : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %2 : f32
  }
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %tb : tensor<8x16xf32>, tensor<16x4xf32>) outs(%tc : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// An elementwise generic and a row reduction (no M/N split) stay.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @not_contractions
// CHECK-NOT: call @amp_gpu_gemm
// CHECK-COUNT-2: linalg.generic
func.func @not_contractions(%a: memref<8x16xf32>, %b: memref<8x16xf32>, %c: memref<8x16xf32>, %r: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x16xf32>, memref<8x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : memref<8x16xf32>, memref<8x16xf32>) outs(%r : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
