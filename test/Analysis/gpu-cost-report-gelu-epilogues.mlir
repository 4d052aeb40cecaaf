// amp-gpu-cost-report on GEMM calls with cuBLASLt's GELU epilogues
// (amp_gpu_gemm_aux, include/amp/Runtime/CUDAKernels.h): GELU's input (the
// aux matrix, m x n of C's type) is counted written by GELU_AUX_BIAS (4) and
// GELU_AUX (5) and read by DGELU (6), beside D; the bias (n values of C's
// type) read; no launch of its own. C is D's pointer unless a residual is
// added (beta 1, "+c"). By hand (m 64, n 32, k 16, bf16 operands, A
// 64*16*2 = 2048 and B 16*32*2 = 1024 bytes):
//  - gelu_aux_bias, C bf16: read 2048 + 1024 + bias 32*2 = 3136, written
//    D 64*32*2 + aux 4096 = 8192;
//  - gelu_aux, C f32: read 3072, written 8192 + 8192 = 16384;
//  - dgelu, C bf16: read 3072 + aux 4096 = 7168, written 4096;
//  - gelu_aux_bias with a bf16 residual apart: read 3072 + C 4096 + 64 =
//    7232, written 8192.
// FLOPs 2*64*32*16 = 65536 each.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json summary=%t/summary.txt" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=TABLE < %t/summary.txt
// RUN: FileCheck %s --check-prefix=JSON < %t/cost.json

// TABLE: == step ==
// TABLE-NEXT: # what
// TABLE-NEXT: 0 gemm bf16->bf16+gelu_aux_bias 1x64x32x16 3136 8192 65536
// TABLE-NEXT: 1 gemm bf16->f32+gelu_aux 1x64x32x16 3072 16384 65536
// TABLE-NEXT: 2 gemm bf16->bf16+dgelu 1x64x32x16 7168 4096 65536
// TABLE-NEXT: 3 gemm bf16->bf16+gelu_aux_bias+c 1x64x32x16 7232 8192 65536
// TABLE-NEXT: total: 0 launches, 4 GEMMs, 0 syncs, 0 allocations, 57472 bytes, 262144 FLOPs

// JSON: "epilogue": "gelu_aux_bias",
// JSON-NOT: "c_apart"
// JSON: "epilogue": "gelu_aux",
// JSON-NOT: "c_apart"
// JSON: "epilogue": "dgelu",
// JSON-NOT: "c_apart"
// JSON: "c_apart": true,
// JSON: "epilogue": "gelu_aux_bias",

module {
  func.func private @amp_gpu_gemm_aux(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
  func.func @step(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %v: !llvm.ptr, %aux: !llvm.ptr, %d: !llvm.ptr, %stream: !llvm.ptr) {
    %bf16 = arith.constant 2 : i32
    %f32 = arith.constant 0 : i32
    %no = arith.constant 0 : i32
    %yes = arith.constant 1 : i32
    %gelu_bias = arith.constant 4 : i32
    %gelu = arith.constant 5 : i32
    %dgelu = arith.constant 6 : i32
    %one = arith.constant 1 : i64
    %m = arith.constant 64 : i64
    %n = arith.constant 32 : i64
    %k = arith.constant 16 : i64
    %zero = arith.constant 0 : i64
    %alpha = arith.constant 1.0 : f32
    %beta = arith.constant 0.0 : f32
    %beta1 = arith.constant 1.0 : f32
    call @amp_gpu_gemm_aux(%bf16, %bf16, %one, %m, %n, %k, %no, %yes, %a, %zero, %b, %zero, %d, %alpha, %beta, %no, %gelu_bias, %v, %aux, %n, %d, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm_aux(%bf16, %f32, %one, %m, %n, %k, %no, %yes, %a, %zero, %b, %zero, %d, %alpha, %beta, %no, %gelu, %stream, %aux, %n, %d, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm_aux(%bf16, %bf16, %one, %m, %n, %k, %no, %no, %a, %zero, %b, %zero, %d, %alpha, %beta, %no, %dgelu, %stream, %aux, %n, %d, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm_aux(%bf16, %bf16, %one, %m, %n, %k, %no, %yes, %a, %zero, %b, %zero, %c, %alpha, %beta1, %no, %gelu_bias, %v, %aux, %n, %d, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
    return
  }
}
