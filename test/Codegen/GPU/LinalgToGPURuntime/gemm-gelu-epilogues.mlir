// RUN: amp-opt %s -split-input-file --amp-contractions-to-gemm-calls="gelu-epilogues=true" -canonicalize | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-contractions-to-gemm-calls -canonicalize | FileCheck %s --check-prefix=OFF

// GELU in its tanh form (amp.gelu approximate = tanh as amp-to-linalg
// writes it, the form cuBLASLt computes) folded into the GEMM calls with
// gelu-epilogues: after the product (with its bias) as GELU_AUX_BIAS (4) or
// GELU_AUX (5), which keep GELU's input in the aux matrix, and its gradient
// as DGELU (6), which reads it: amp_gpu_gemm_aux(a_dtype, c_dtype, batch, m,
// n, k, trans_a, trans_b, a, stride_a, b, stride_b, c, alpha, beta,
// allow_tf32, epilogue, vector, aux, aux_ld, d, stream)
// (include/amp/Runtime/CUDAKernels.h; dtype f32 = 0, bf16 = 2). Without
// the option (the default) nothing is fused (OFF).

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// The MLP's first linear and its GELU, bf16: the call adds the bias
// (rounded to bf16 first, as for BIAS_C_TYPE), writes GELU's input h (the
// add's output, which the backward reads) as the aux matrix with leading
// dimension n = 128, and GELU's output g as D (C is D's pointer, beta 0).
// The add and the GELU kernels and the f32 product are gone.
// CHECK-LABEL: func.func @linear_bias_gelu_bf16
// CHECK-SAME: (%[[X:.+]]: memref<32x64xbf16>, %[[W:.+]]: memref<128x64xbf16>, %[[BIAS:.+]]: memref<128xf32>)
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[EPI:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[LD:.+]] = arith.constant 128 : i64
// CHECK-DAG: %[[BETA:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[RB:.+]] = memref.alloc() : memref<128xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[BIAS]] : memref<128xf32>) outs(%[[RB]] : memref<128xbf16>)
// CHECK: %[[G:.+]] = memref.alloc() : memref<32x128xbf16>
// CHECK: %[[H:.+]] = memref.alloc() : memref<32x128xbf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: %[[GP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[RB]]
// CHECK: %[[BP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[H]]
// CHECK: %[[HP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_aux(%[[BF16]], %[[BF16]], {{.*}}, %[[GP]], %{{.+}}, %[[BETA]], %{{.+}}, %[[EPI]], %[[BP]], %[[HP]], %[[LD]], %[[GP]], %{{.+}}) :
// CHECK-NEXT: memref.dealloc %[[RB]]
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: return %[[H]], %[[G]]
// CHECK: func.func private @amp_gpu_gemm_aux(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
// OFF-LABEL: func.func @linear_bias_gelu_bf16
// OFF: call @amp_gpu_gemm_epilogue
// OFF: linalg.generic
// OFF: math.tanh
func.func @linear_bias_gelu_bf16(%x: memref<32x64xbf16>, %w: memref<128x64xbf16>, %bias: memref<128xf32>) -> (memref<32x128xbf16>, memref<32x128xbf16>) {
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
  %h = memref.alloc() : memref<32x128xbf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<32x128xf32>, memref<128xf32>) outs(%h : memref<32x128xbf16>) {
  ^bb0(%in: f32, %b: f32, %out: bf16):
    %0 = arith.addf %in, %b : f32
    %1 = arith.truncf %0 : f32 to bf16
    linalg.yield %1 : bf16
  }
  memref.dealloc %t : memref<32x128xf32>
  %g = memref.alloc() : memref<32x128xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<32x128xbf16>) outs(%g : memref<32x128xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.mulf %2, %k3 : f32
    %4 = arith.addf %0, %3 : f32
    %5 = arith.mulf %4, %k : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %6, %one : f32
    %8 = arith.mulf %7, %half : f32
    %9 = arith.mulf %0, %8 : f32
    %10 = arith.truncf %9 : f32 to bf16
    linalg.yield %10 : bf16
  }
  return %h, %g : memref<32x128xbf16>, memref<32x128xbf16>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// f32, no bias, the formula's operands commuted (as canonicalization may
// leave them): GELU_AUX, the product (GELU's input) as the aux matrix.
// CHECK-LABEL: func.func @linear_gelu_f32
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[EPI:.+]] = arith.constant 5 : i32
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[T:.+]] = memref.alloc() : memref<32x128xf32>
// CHECK: %[[G:.+]] = memref.alloc() : memref<32x128xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: %[[GP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[T]]
// CHECK: %[[TP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_aux(%[[F32]], %[[F32]], {{.*}}, %[[GP]], {{.*}}, %[[EPI]], %[[NULL]], %[[TP]], %{{.+}}, %[[GP]], %[[NULL]])
// CHECK-NOT: linalg.generic
// CHECK: return %[[T]], %[[G]]
func.func @linear_gelu_f32(%x: memref<32x64xf32>, %w: memref<128x64xf32>) -> (memref<32x128xf32>, memref<32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<128x64xf32>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %g = memref.alloc() : memref<32x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x128xf32>) outs(%g : memref<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %1 = arith.mulf %in, %in : f32
    %2 = arith.mulf %in, %1 : f32
    %3 = arith.mulf %k3, %2 : f32
    %4 = arith.addf %3, %in : f32
    %5 = arith.mulf %k, %4 : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %one, %6 : f32
    %8 = arith.mulf %half, %7 : f32
    %9 = arith.mulf %8, %in : f32
    linalg.yield %9 : f32
  }
  return %t, %g : memref<32x128xf32>, memref<32x128xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// GELU's erf form (amp.gelu's default) is not what cuBLASLt computes: not
// fused.
// CHECK-LABEL: func.func @linear_gelu_erf
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.generic
// CHECK: math.erf
func.func @linear_gelu_erf(%x: memref<32x64xf32>, %w: memref<128x64xf32>) -> (memref<32x128xf32>, memref<32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<128x64xf32>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %g = memref.alloc() : memref<32x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x128xf32>) outs(%g : memref<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.constant 0.707106769 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %1 = arith.mulf %in, %s : f32
    %2 = math.erf %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.mulf %3, %half : f32
    %5 = arith.mulf %in, %4 : f32
    linalg.yield %5 : f32
  }
  return %t, %g : memref<32x128xf32>, memref<32x128xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A tanh-GELU whose constant is not GELU's (0.0447, not 0.044715) is
// another function: not fused. Nor is n = 12 (the aux matrix's leading
// dimension must be a multiple of 8).
// CHECK-LABEL: func.func @not_gelu_constant
// CHECK: call @amp_gpu_gemm(
// CHECK: math.tanh
// CHECK-LABEL: func.func @gelu_n12
// CHECK: call @amp_gpu_gemm(
// CHECK: math.tanh
func.func @not_gelu_constant(%x: memref<32x64xf32>, %w: memref<128x64xf32>) -> (memref<32x128xf32>, memref<32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<128x64xf32>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %g = memref.alloc() : memref<32x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x128xf32>) outs(%g : memref<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %k3 = arith.constant 4.470000e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %1 = arith.mulf %in, %in : f32
    %2 = arith.mulf %1, %in : f32
    %3 = arith.mulf %2, %k3 : f32
    %4 = arith.addf %in, %3 : f32
    %5 = arith.mulf %4, %k : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %6, %one : f32
    %8 = arith.mulf %7, %half : f32
    %9 = arith.mulf %in, %8 : f32
    linalg.yield %9 : f32
  }
  return %t, %g : memref<32x128xf32>, memref<32x128xf32>
}
func.func @gelu_n12(%x: memref<32x64xf32>, %w: memref<12x64xf32>) -> (memref<32x12xf32>, memref<32x12xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x12xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x12xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<12x64xf32>) outs(%t : memref<32x12xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %g = memref.alloc() : memref<32x12xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x12xf32>) outs(%g : memref<32x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %1 = arith.mulf %in, %in : f32
    %2 = arith.mulf %1, %in : f32
    %3 = arith.mulf %2, %k3 : f32
    %4 = arith.addf %in, %3 : f32
    %5 = arith.mulf %4, %k : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %6, %one : f32
    %8 = arith.mulf %7, %half : f32
    %9 = arith.mulf %in, %8 : f32
    linalg.yield %9 : f32
  }
  return %t, %g : memref<32x12xf32>, memref<32x12xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Something between the product and the GELU writes the GELU's input: the
// call would write D before it, so nothing is fused.
// CHECK-LABEL: func.func @input_written_between
// CHECK: call @amp_gpu_gemm(
// CHECK: linalg.fill
// CHECK: math.tanh
func.func @input_written_between(%x: memref<32x64xf32>, %w: memref<128x64xf32>) -> (memref<32x128xf32>, memref<32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %one_ = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<128x64xf32>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%one_ : f32) outs(%t : memref<32x128xf32>)
  %g = memref.alloc() : memref<32x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x128xf32>) outs(%g : memref<32x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %1 = arith.mulf %in, %in : f32
    %2 = arith.mulf %1, %in : f32
    %3 = arith.mulf %2, %k3 : f32
    %4 = arith.addf %in, %3 : f32
    %5 = arith.mulf %4, %k : f32
    %6 = math.tanh %5 : f32
    %7 = arith.addf %6, %one : f32
    %8 = arith.mulf %7, %half : f32
    %9 = arith.mulf %in, %8 : f32
    linalg.yield %9 : f32
  }
  return %t, %g : memref<32x128xf32>, memref<32x128xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// GELU's gradient, bf16 (as amp-autodiff and amp-to-linalg write it): the
// f32 product dy W (seen as [2, 16, 128] through a reshape), rounded to
// bf16 and widened back, times gelu'(h) with h GELU's bf16 input, rounded:
// DGELU (6) with h as the aux matrix writes dh directly (without the first
// rounding). The product, its reshape and the kernel are gone.
// CHECK-LABEL: func.func @gelu_grad_bf16
// CHECK-SAME: (%[[DY:.+]]: memref<32x32xbf16>, %[[W:.+]]: memref<32x128xbf16>, %[[H:.+]]: memref<2x16x128xbf16>)
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[EPI:.+]] = arith.constant 6 : i32
// CHECK-DAG: %[[LD:.+]] = arith.constant 128 : i64
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[DH:.+]] = memref.alloc() : memref<2x16x128xbf16>
// CHECK-NOT: memref.alloc
// CHECK: memref.extract_aligned_pointer_as_index %[[DH]]
// CHECK: %[[DHP:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[H]]
// CHECK: %[[HP:.+]] = llvm.inttoptr
// CHECK: call @amp_gpu_gemm_aux(%[[BF16]], %[[BF16]], {{.*}}, %[[DHP]], {{.*}}, %[[EPI]], %[[NULL]], %[[HP]], %[[LD]], %[[DHP]], %[[NULL]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.expand_shape
// CHECK: return %[[DH]]
// Without the option the product is written in bf16 (its reader rounds it
// first), through the reshape, and the kernel stays.
// OFF-LABEL: func.func @gelu_grad_bf16
// OFF-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// OFF: %[[P:.+]] = memref.alloc() : memref<32x128xbf16>
// OFF: call @amp_gpu_gemm(%[[BF16]], %[[BF16]],
// OFF: %[[V:.+]] = memref.expand_shape %[[P]] {{.*}} into memref<2x16x128xbf16>
// OFF: linalg.generic {{.*}} ins(%[[V]], %{{.+}} : memref<2x16x128xbf16>, memref<2x16x128xbf16>)
// OFF: math.tanh
func.func @gelu_grad_bf16(%dy: memref<32x32xbf16>, %w: memref<32x128xbf16>, %h: memref<2x16x128xbf16>) -> memref<2x16x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : memref<32x32xbf16>, memref<32x128xbf16>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %tv = memref.expand_shape %t [[0, 1], [2]] output_shape [2, 16, 128] : memref<32x128xf32> into memref<2x16x128xf32>
  %dh = memref.alloc() : memref<2x16x128xbf16>
  linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%tv, %h : memref<2x16x128xf32>, memref<2x16x128xbf16>) outs(%dh : memref<2x16x128xbf16>) {
  ^bb0(%in: f32, %in_1: bf16, %out: bf16):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %k33 = arith.constant 1.341450e-01 : f32
    %21 = arith.truncf %in : f32 to bf16
    %22 = arith.extf %21 : bf16 to f32
    %23 = arith.extf %in_1 : bf16 to f32
    %24 = arith.mulf %23, %23 : f32
    %25 = arith.mulf %24, %23 : f32
    %26 = arith.mulf %25, %k3 : f32
    %27 = arith.addf %23, %26 : f32
    %28 = arith.mulf %27, %k : f32
    %29 = math.tanh %28 : f32
    %30 = arith.mulf %29, %29 : f32
    %31 = arith.subf %one, %30 : f32
    %32 = arith.mulf %24, %k33 : f32
    %33 = arith.addf %32, %one : f32
    %34 = arith.mulf %33, %k : f32
    %35 = arith.mulf %31, %34 : f32
    %36 = arith.mulf %23, %half : f32
    %37 = arith.mulf %36, %35 : f32
    %38 = arith.addf %29, %one : f32
    %39 = arith.mulf %38, %half : f32
    %40 = arith.addf %39, %37 : f32
    %41 = arith.mulf %22, %40 : f32
    %42 = arith.truncf %41 : f32 to bf16
    linalg.yield %42 : bf16
  }
  memref.dealloc %t : memref<32x128xf32>
  return %dh : memref<2x16x128xbf16>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Not DGELU: the derivative with 1 - t (not 1 - t^2) is another function;
// and an f32 gradient with a bf16 GELU input (cuBLASLt's aux has D's type).
// CHECK-LABEL: func.func @not_gelu_derivative
// CHECK: call @amp_gpu_gemm(
// CHECK: math.tanh
// CHECK-LABEL: func.func @gelu_grad_aux_type
// CHECK: call @amp_gpu_gemm(
// CHECK: math.tanh
func.func @not_gelu_derivative(%dy: memref<32x32xf32>, %w: memref<32x128xf32>, %h: memref<32x128xf32>) -> memref<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : memref<32x32xf32>, memref<32x128xf32>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %acc: f32):
    %2 = arith.mulf %in, %in_1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %dh = memref.alloc() : memref<32x128xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %h : memref<32x128xf32>, memref<32x128xf32>) outs(%dh : memref<32x128xf32>) {
  ^bb0(%g: f32, %x: f32, %out: f32):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %k33 = arith.constant 1.341450e-01 : f32
    %24 = arith.mulf %x, %x : f32
    %25 = arith.mulf %24, %x : f32
    %26 = arith.mulf %25, %k3 : f32
    %27 = arith.addf %x, %26 : f32
    %28 = arith.mulf %27, %k : f32
    %29 = math.tanh %28 : f32
    %31 = arith.subf %one, %29 : f32
    %32 = arith.mulf %24, %k33 : f32
    %33 = arith.addf %32, %one : f32
    %34 = arith.mulf %33, %k : f32
    %35 = arith.mulf %31, %34 : f32
    %36 = arith.mulf %x, %half : f32
    %37 = arith.mulf %36, %35 : f32
    %38 = arith.addf %29, %one : f32
    %39 = arith.mulf %38, %half : f32
    %40 = arith.addf %39, %37 : f32
    %41 = arith.mulf %g, %40 : f32
    linalg.yield %41 : f32
  }
  memref.dealloc %t : memref<32x128xf32>
  return %dh : memref<32x128xf32>
}
func.func @gelu_grad_aux_type(%dy: memref<32x32xbf16>, %w: memref<32x128xbf16>, %h: memref<32x128xbf16>) -> memref<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x128xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : memref<32x32xbf16>, memref<32x128xbf16>) outs(%t : memref<32x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %dh = memref.alloc() : memref<32x128xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %h : memref<32x128xf32>, memref<32x128xbf16>) outs(%dh : memref<32x128xf32>) {
  ^bb0(%g: f32, %in_1: bf16, %out: f32):
    %k3 = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %k33 = arith.constant 1.341450e-01 : f32
    %x = arith.extf %in_1 : bf16 to f32
    %24 = arith.mulf %x, %x : f32
    %25 = arith.mulf %24, %x : f32
    %26 = arith.mulf %25, %k3 : f32
    %27 = arith.addf %x, %26 : f32
    %28 = arith.mulf %27, %k : f32
    %29 = math.tanh %28 : f32
    %30 = arith.mulf %29, %29 : f32
    %31 = arith.subf %one, %30 : f32
    %32 = arith.mulf %24, %k33 : f32
    %33 = arith.addf %32, %one : f32
    %34 = arith.mulf %33, %k : f32
    %35 = arith.mulf %31, %34 : f32
    %36 = arith.mulf %x, %half : f32
    %37 = arith.mulf %36, %35 : f32
    %38 = arith.addf %29, %one : f32
    %39 = arith.mulf %38, %half : f32
    %40 = arith.addf %39, %37 : f32
    %41 = arith.mulf %g, %40 : f32
    linalg.yield %41 : f32
  }
  memref.dealloc %t : memref<32x128xf32>
  return %dh : memref<32x128xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// With or without GELU epilogues: an f32 product read, through a reshape,
// only by its rounding into a fresh buffer (an input gradient split into
// heads for the attention's backward) is written in bf16 (one rounding, as
// before), and the copy goes: its readers read the reshaped product, which
// its deallocation frees.
// CHECK-LABEL: func.func @rounded_through_reshape
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i32
// CHECK: %[[P:.+]] = memref.alloc() : memref<32x32xbf16>
// CHECK: call @amp_gpu_gemm(%[[BF16]], %[[BF16]],
// CHECK: %[[V:.+]] = memref.expand_shape %[[P]] {{.*}} into memref<2x16x4x8xbf16>
// CHECK-NOT: linalg.generic
// CHECK: call @use(%[[V]])
// CHECK-NEXT: memref.dealloc %[[P]] : memref<32x32xbf16>
// OFF-LABEL: func.func @rounded_through_reshape
// OFF: %[[P:.+]] = memref.alloc() : memref<32x32xbf16>
// OFF: %[[V:.+]] = memref.expand_shape %[[P]]
// OFF-NOT: linalg.generic
// OFF: call @use(%[[V]])
// OFF-NEXT: memref.dealloc %[[P]]
func.func private @use(memref<2x16x4x8xbf16>)
func.func @rounded_through_reshape(%dy: memref<32x32xbf16>, %w: memref<32x32xbf16>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : memref<32x32xbf16>, memref<32x32xbf16>) outs(%t : memref<32x32xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_1 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %tv = memref.expand_shape %t [[0, 1], [2, 3]] output_shape [2, 16, 4, 8] : memref<32x32xf32> into memref<2x16x4x8xf32>
  %r = memref.alloc() : memref<2x16x4x8xbf16>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%tv : memref<2x16x4x8xf32>) outs(%r : memref<2x16x4x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %t : memref<32x32xf32>
  call @use(%r) : (memref<2x16x4x8xbf16>) -> ()
  memref.dealloc %r : memref<2x16x4x8xbf16>
  return
}
