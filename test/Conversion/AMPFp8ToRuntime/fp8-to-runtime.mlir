// RUN: amp-opt %s -split-input-file -convert-amp-fp8-to-runtime -cse | FileCheck %s
// RUN: amp-opt %s -split-input-file "-convert-amp-fp8-to-runtime=remarks=true" -verify-diagnostics > /dev/null

// amp.fp8_matmul on the GPU: one call of amp_gpu_gemm_fp8 in cuBLASLt's TN
// layout (lhs stored m x k, rhs stored n x k), where cuBLASLt runs it
// (include/amp/Runtime/CublasLtFp8Rules.h, sm_90).

// A linear layer's forward (rhs is the [out, in] weight: transpose_rhs) is
// already TN: no copy. The bf16 bias is cuBLASLt's BIAS epilogue; fast
// accumulation is passed on.
// CHECK-LABEL: func.func @linear_forward
// CHECK-NOT: linalg.generic
// CHECK: %[[D:.*]] = memref.alloc() : memref<32x16xbf16>
// CHECK-DAG: %[[E4M3:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i32
// CHECK: bufferization.to_buffer %arg0 read_only : tensor<32x64xf8E4M3FN> to memref<32x64xf8E4M3FN>
// CHECK: bufferization.to_buffer %arg1 read_only : tensor<16x64xf8E4M3FN> to memref<16x64xf8E4M3FN>
// The scale inverses are elements of the step's vector of inverses: views
// at an offset, passed as the element's address.
// CHECK: %[[SX:.*]] = bufferization.to_buffer %arg2 read_only : tensor<f32> to memref<f32, strided<[], offset: ?>>
// CHECK: %[[SXP:.*]] = memref.extract_aligned_pointer_as_index %[[SX]]
// CHECK: %{{.*}}, %[[SXO:.*]] = memref.extract_strided_metadata %[[SX]]
// CHECK: %[[SXB:.*]] = arith.muli %[[SXO]], %{{.*}} : index
// CHECK: arith.addi %[[SXP]], %[[SXB]] : index
// CHECK: bufferization.to_buffer %arg3 read_only : tensor<f32> to memref<f32, strided<[], offset: ?>>
// CHECK: bufferization.to_buffer %arg4 read_only : tensor<16xbf16> to memref<16xbf16>
// CHECK: %[[STREAM:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @amp_gpu_gemm_fp8(%[[E4M3]], %[[E4M3]], %[[BF16]], %[[M]], %[[N]], %[[K]], %[[NO]], %[[YES]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[YES]], %{{.*}}, %[[STREAM]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[D]] restrict writable : memref<32x16xbf16> to tensor<32x16xbf16>
// CHECK: return %[[R]]
// CHECK-NOT: amp.fp8_matmul
// CHECK: func.func private @amp_gpu_gemm_fp8(i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr)
func.func @linear_forward(%x: tensor<32x64xf8E4M3FN>, %w: tensor<16x64xf8E4M3FN>,
                          %sx: tensor<f32>, %sw: tensor<f32>,
                          %b: tensor<16xbf16>) -> tensor<32x16xbf16> {
  %y = amp.fp8_matmul %x, %w, %sx, %sw, %b {transpose_rhs, fast_accumulation}
      : tensor<32x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>, tensor<16xbf16> -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

// -----

// The weight gradient dW = dY^T X: dY (stored k x m) and X (stored k x n)
// are both copied transposed, to m x k and n x k; no bias (a null pointer),
// an f32 result, no fast accumulation.
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @weight_grad
// CHECK: %[[DYT:.*]] = linalg.generic {indexing_maps = [#[[SWAP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x16xf8E5M2>) outs(%{{.*}} : tensor<16x64xf8E5M2>)
// CHECK: %[[XT:.*]] = linalg.generic {indexing_maps = [#[[SWAP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<64x32xf8E4M3FN>) outs(%{{.*}} : tensor<32x64xf8E4M3FN>)
// CHECK: memref.alloc() : memref<16x32xf32>
// CHECK-DAG: %[[E5M2:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[E4M3:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[YES:.*]] = arith.constant 1 : i32
// CHECK: bufferization.to_buffer %[[DYT]] read_only : tensor<16x64xf8E5M2>
// CHECK: bufferization.to_buffer %[[XT]] read_only : tensor<32x64xf8E4M3FN>
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @amp_gpu_gemm_fp8(%[[E5M2]], %[[E4M3]], %[[F32]], %[[M]], %[[N]], %[[K]], %[[F32]], %[[YES]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[F32]], %{{.*}}, %{{.*}})
func.func @weight_grad(%dy: tensor<64x16xf8E5M2>, %x: tensor<64x32xf8E4M3FN>,
                       %a: tensor<f32>, %b: tensor<f32>) -> tensor<16x32xf32> {
  %dw = amp.fp8_matmul %dy, %x, %a, %b {transpose_lhs}
      : tensor<64x16xf8E5M2>, tensor<64x32xf8E4M3FN> -> tensor<16x32xf32>
  return %dw : tensor<16x32xf32>
}

// -----

// The input gradient dX = dY W: W (stored k x n) is copied transposed.
// CHECK-LABEL: func.func @input_grad
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<16x64xf8E4M3FN>) outs(%{{.*}} : tensor<64x16xf8E4M3FN>)
// CHECK: call @amp_gpu_gemm_fp8
// CHECK-NOT: amp.fp8_matmul
func.func @input_grad(%dy: tensor<32x16xf8E5M2>, %w: tensor<16x64xf8E4M3FN>,
                      %a: tensor<f32>, %b: tensor<f32>) -> tensor<32x64xbf16> {
  %dx = amp.fp8_matmul %dy, %w, %a, %b
      : tensor<32x16xf8E5M2>, tensor<16x64xf8E4M3FN> -> tensor<32x64xbf16>
  return %dx : tensor<32x64xbf16>
}

// -----

// What cuBLASLt refuses stays for convert-amp-to-linalg, with a remark
// naming the rule.
// CHECK-LABEL: func.func @k_not_16
// CHECK-NOT: call
// CHECK: amp.fp8_matmul
func.func @k_not_16(%x: tensor<32x24xf8E4M3FN>, %w: tensor<16x24xf8E4M3FN>,
                    %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<32x16xbf16> {
  // expected-remark @below {{amp.fp8_matmul left for the linalg lowering (cuBLASLt on sm_90 does not run it): F5: cuBLASLt's FP8 GEMMs need k to be a multiple of 16}}
  %y = amp.fp8_matmul %x, %w, %sx, %sw {transpose_rhs}
      : tensor<32x24xf8E4M3FN>, tensor<16x24xf8E4M3FN> -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

// -----

// CHECK-LABEL: func.func @n_not_16
// CHECK: amp.fp8_matmul
func.func @n_not_16(%x: tensor<32x32xf8E4M3FN>, %w: tensor<8x32xf8E5M2>,
                    %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<32x8xbf16> {
  // expected-remark @below {{F5: cuBLASLt's FP8 GEMMs need n to be a multiple of 16}}
  %y = amp.fp8_matmul %x, %w, %sx, %sw {transpose_rhs}
      : tensor<32x32xf8E4M3FN>, tensor<8x32xf8E5M2> -> tensor<32x8xbf16>
  return %y : tensor<32x8xbf16>
}

// -----

// cuBLASLt's FP8 GEMMs take no f32 bias: beside an f32 result the call
// writes the scaled product and an elementwise add (one rounding to f32,
// as the op's) adds the bias.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @f32_bias
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @amp_gpu_gemm_fp8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}}, %{{.*}}, %[[NULL]])
// CHECK: %[[P:.*]] = bufferization.to_tensor
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[COL]], #[[ROW]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %arg4 : tensor<32x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y]]
func.func @f32_bias(%x: tensor<32x32xf8E4M3FN>, %w: tensor<16x32xf8E4M3FN>,
                    %sx: tensor<f32>, %sw: tensor<f32>,
                    %b: tensor<16xf32>) -> tensor<32x16xf32> {
  %y = amp.fp8_matmul %x, %w, %sx, %sw, %b {transpose_rhs}
      : tensor<32x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>, tensor<16xf32> -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic
// CHECK: amp.fp8_matmul
func.func @dynamic(%x: tensor<?x32xf8E4M3FN>, %w: tensor<16x32xf8E4M3FN>,
                   %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<?x16xbf16> {
  // expected-remark @below {{dynamic shapes (the call's sizes are compile-time constants)}}
  %y = amp.fp8_matmul %x, %w, %sx, %sw {transpose_rhs}
      : tensor<?x32xf8E4M3FN>, tensor<16x32xf8E4M3FN> -> tensor<?x16xbf16>
  return %y : tensor<?x16xbf16>
}
