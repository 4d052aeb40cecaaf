// RUN: amp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(gpu-async-region,amp-gemm-calls-on-stream))' | FileCheck %s
// The same through the passes' own flags (implicitly nested on functions).
// RUN: amp-opt %s -split-input-file --gpu-async-region --amp-gemm-calls-on-stream | FileCheck %s

// gpu-async-region makes the host wait before every call and starts a new
// stream after it; amp_gpu_gemm calls take the stream instead (the token
// cast to !llvm.ptr, which gpu-to-llvm makes the token's stream), the work
// after them continues on the same token, and the only host wait left is
// the one at the end.

func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)

// CHECK-LABEL: func.func @two_gemms_between_kernels
// CHECK: %[[T0:.+]] = gpu.wait async
// CHECK: %[[T1:.+]] = gpu.memset async [%[[T0]]]
// CHECK-NOT: gpu.wait
// CHECK: %[[S1:.+]] = builtin.unrealized_conversion_cast %[[T1]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @amp_gpu_gemm({{.*}}, %[[S1]])
// CHECK-NOT: gpu.wait
// CHECK: %[[S2:.+]] = builtin.unrealized_conversion_cast %[[T1]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @amp_gpu_gemm({{.*}}, %[[S2]])
// CHECK-NOT: gpu.wait
// CHECK: %[[T2:.+]] = gpu.memcpy async [%[[T1]]]
// CHECK-NEXT: gpu.wait [%[[T2]]]
// CHECK-NEXT: return
func.func @two_gemms_between_kernels(%a: memref<4x4xf32>, %c: memref<4x4xf32>, %p: !llvm.ptr) {
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %i0 = arith.constant 0 : i32
  %l4 = arith.constant 4 : i64
  %l1 = arith.constant 1 : i64
  %null = llvm.mlir.zero : !llvm.ptr
  gpu.memset %a, %f0 : memref<4x4xf32>, f32
  call @amp_gpu_gemm(%i0, %i0, %l1, %l4, %l4, %l4, %i0, %i0, %p, %l1, %p, %l1, %p, %f1, %f0, %i0, %null) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
  call @amp_gpu_gemm(%i0, %i0, %l1, %l4, %l4, %l4, %i0, %i0, %p, %l1, %p, %l1, %p, %f1, %f1, %i0, %null) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
  gpu.memcpy %c, %a : memref<4x4xf32>, memref<4x4xf32>
  return
}

// -----

// Another host side effect after the GEMM still needs the host to wait: the
// wait moves after the GEMM. A GEMM with no device work before it keeps the
// runtime's stream.

func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)
func.func private @host_side_effect()

// CHECK-LABEL: func.func @gemm_then_host_call
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: call @amp_gpu_gemm({{.*}}, %[[NULL]])
// CHECK: %[[T1:.+]] = gpu.memset async
// CHECK-NOT: gpu.wait
// CHECK: %[[S:.+]] = builtin.unrealized_conversion_cast %[[T1]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @amp_gpu_gemm({{.*}}, %[[S]])
// CHECK-NEXT: gpu.wait [%[[T1]]]
// CHECK-NEXT: call @host_side_effect()
func.func @gemm_then_host_call(%a: memref<4x4xf32>, %p: !llvm.ptr) {
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %i0 = arith.constant 0 : i32
  %l4 = arith.constant 4 : i64
  %l1 = arith.constant 1 : i64
  %null = llvm.mlir.zero : !llvm.ptr
  call @amp_gpu_gemm(%i0, %i0, %l1, %l4, %l4, %l4, %i0, %i0, %p, %l1, %p, %l1, %p, %f1, %f0, %i0, %null) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
  gpu.memset %a, %f0 : memref<4x4xf32>, f32
  call @amp_gpu_gemm(%i0, %i0, %l1, %l4, %l4, %l4, %i0, %i0, %p, %l1, %p, %l1, %p, %f1, %f0, %i0, %null) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
  call @host_side_effect() : () -> ()
  return
}

// -----

// The GELU GEMM (amp_gpu_gemm_aux) and the strided cuDNN attention call
// (amp_gpu_attention_fwd_strided) only queue work on their stream too.

func.func private @amp_gpu_gemm_aux(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
func.func private @amp_gpu_attention_fwd_strided(i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr)

// CHECK-LABEL: func.func @aux_gemm_and_strided_attention
// CHECK: %[[T1:.+]] = gpu.memset async
// CHECK-NOT: gpu.wait
// CHECK: %[[S1:.+]] = builtin.unrealized_conversion_cast %[[T1]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @amp_gpu_gemm_aux({{.*}}, %[[S1]])
// CHECK-NOT: gpu.wait
// CHECK: %[[S2:.+]] = builtin.unrealized_conversion_cast %[[T1]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @amp_gpu_attention_fwd_strided({{.*}}, %[[S2]])
// CHECK-NOT: gpu.wait
// CHECK: %[[T2:.+]] = gpu.memcpy async [%[[T1]]]
// CHECK-NEXT: gpu.wait [%[[T2]]]
func.func @aux_gemm_and_strided_attention(%a: memref<4x4xf32>, %c: memref<4x4xf32>, %p: !llvm.ptr) {
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %i0 = arith.constant 0 : i32
  %i5 = arith.constant 5 : i32
  %l8 = arith.constant 8 : i64
  %l1 = arith.constant 1 : i64
  %l0 = arith.constant 0 : i64
  %null = llvm.mlir.zero : !llvm.ptr
  gpu.memset %a, %f0 : memref<4x4xf32>, f32
  call @amp_gpu_gemm_aux(%i0, %i0, %l1, %l8, %l8, %l8, %i0, %i0, %p, %l1, %p, %l1, %p, %f1, %f0, %i0, %i5, %null, %p, %l8, %p, %null) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
  call @amp_gpu_attention_fwd_strided(%i0, %l1, %l1, %l1, %l8, %l8, %l8, %l8, %p, %p, %p, %i0, %null, %l0, %l0, %f1, %i0, %p, %p, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %l0, %null) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
  gpu.memcpy %c, %a : memref<4x4xf32>, memref<4x4xf32>
  return
}
