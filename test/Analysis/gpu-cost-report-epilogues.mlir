// amp-gpu-cost-report on GEMM calls with a cuBLASLt epilogue
// (amp_gpu_gemm_epilogue, include/amp/Runtime/CUDAKernels.h): the epilogue's
// f32 vector is counted in the GEMM's bytes, read for a bias (n values),
// written for a bias gradient (m values); no launch of its own. By hand
// (m 64, n 32, k 16, bf16 operands):
//  - bias, C in bf16: read A 64*16*2 + B 16*32*2 + bias 32*4 = 3200,
//    written C 64*32*2 = 4096;
//  - bias gradient, C in f32: read 2048 + 1024 = 3072, written C 64*32*4 +
//    the gradient 64*4 = 8448.
// With C and D apart (amp_gpu_gemm_ex, beta 1: a residual added by the
// GEMM), C is read and D written, as when accumulating in place:
//  - bias and an f32 residual: read 2048 + 1024 + C 64*32*4 + bias 128 =
//    11392, written D 8192 ("+bias+c");
//  - no epilogue, a bf16 residual: read 2048 + 1024 + 4096 = 7168, written
//    4096 ("+c").
// FLOPs 2*64*32*16 = 65536 each.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json summary=%t/summary.txt" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=TABLE < %t/summary.txt
// RUN: FileCheck %s --check-prefix=JSON < %t/cost.json

// TABLE: == step ==
// TABLE-NEXT: # what
// TABLE-NEXT: 0 gemm bf16->bf16+bias 1x64x32x16 3200 4096 65536
// TABLE-NEXT: 1 gemm bf16->f32+bgrad_a 1x64x32x16 3072 8448 65536
// TABLE-NEXT: 2 gemm bf16->f32+bias+c 1x64x32x16 11392 8192 65536
// TABLE-NEXT: 3 gemm bf16->bf16+c 1x64x32x16 7168 4096 65536
// TABLE-NEXT: total: 0 launches, 4 GEMMs, 0 syncs, 0 allocations, 49664 bytes, 262144 FLOPs

// JSON: "c_dtype": "bf16",
// JSON-NEXT: "epilogue": "bias",
// JSON: "c_dtype": "f32",
// JSON-NEXT: "epilogue": "bgrad_a",
// JSON: "accumulate": true,
// JSON: "c_apart": true,
// JSON: "c_dtype": "f32",
// JSON-NEXT: "epilogue": "bias",
// JSON: "c_apart": true,
// JSON: "c_dtype": "bf16",
// JSON-NOT: "epilogue"
// JSON: "kind": "gemm"

module {
  func.func private @amp_gpu_gemm_epilogue(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr)
  func.func private @amp_gpu_gemm_ex(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
  func.func @step(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %v: !llvm.ptr, %d: !llvm.ptr, %stream: !llvm.ptr) {
    %bf16 = arith.constant 2 : i32
    %f32 = arith.constant 0 : i32
    %no = arith.constant 0 : i32
    %yes = arith.constant 1 : i32
    %bias = arith.constant 1 : i32
    %bgrad = arith.constant 2 : i32
    %one = arith.constant 1 : i64
    %m = arith.constant 64 : i64
    %n = arith.constant 32 : i64
    %k = arith.constant 16 : i64
    %zero = arith.constant 0 : i64
    %alpha = arith.constant 1.0 : f32
    %beta = arith.constant 0.0 : f32
    call @amp_gpu_gemm_epilogue(%bf16, %bf16, %one, %m, %n, %k, %no, %yes, %a, %zero, %b, %zero, %c, %alpha, %beta, %no, %bias, %v, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm_epilogue(%bf16, %f32, %one, %m, %n, %k, %yes, %no, %a, %zero, %b, %zero, %c, %alpha, %beta, %no, %bgrad, %v, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr) -> ()
    %beta1 = arith.constant 1.0 : f32
    call @amp_gpu_gemm_ex(%bf16, %f32, %one, %m, %n, %k, %no, %yes, %a, %zero, %b, %zero, %c, %alpha, %beta1, %no, %bias, %v, %d, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm_ex(%bf16, %bf16, %one, %m, %n, %k, %no, %yes, %a, %zero, %b, %zero, %c, %alpha, %beta1, %no, %no, %stream, %d, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    return
  }
}
