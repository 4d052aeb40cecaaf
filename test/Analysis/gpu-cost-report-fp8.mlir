// amp-gpu-cost-report on FP8 GEMM calls (amp_gpu_gemm_fp8, include/amp/
// Runtime/CUDAKernels.h): one byte per operand element, the two f32 scales
// (8 bytes) and a bf16 bias (2 bytes per column) read, D written; modeled
// at the FP8 tensor peak (peak_fp8_flops in data/devices.json, twice bf16's
// on an H200). By hand:
//  - e4m3 x e4m3 -> bf16 with a bias, m = n = k = 4096: read 4096*4096 * 2
//    + 8 + 4096*2 = 33562632, written 4096*4096*2 = 33554432, FLOPs
//    2*4096^3 = 137438953472;
//  - e5m2 x e4m3 -> f32, no bias (a null pointer), m 64, n 32, k 16: read
//    64*16 + 16*32 + 8 = 1544, written 64*32*4 = 8192, FLOPs 65536;
//  - the same large product in bf16 (amp_gpu_gemm): read 67108864, written
//    33554432.
// Modeled on the H200: 137438953472 FLOPs run at 0.7069 of the peak
// (gemm_efficiency, interpolated in log(FLOPs) between 1e11 and 1e12): FP8
// 137438953472 / (1978.9e12 * 0.7069) + 3 us launch = 101.2 us, bf16
// 196.5 + 3 = 199.5 us: FP8 pays for a large GEMM.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json summary=%t/summary.txt" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=TABLE < %t/summary.txt
// RUN: FileCheck %s --check-prefix=JSON < %t/cost.json
// RUN: amp-opt %s --amp-gpu-cost-report="device=h200 output=%t/h200.json" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=MODEL < %t/h200.json

// TABLE: == step ==
// TABLE-NEXT: # what
// TABLE-NEXT: 0 gemm f8E4M3FNxf8E4M3FN->bf16+bias 1x4096x4096x4096 33562632 33554432 137438953472
// TABLE-NEXT: 1 gemm f8E5M2xf8E4M3FN->f32 1x64x32x16 1544 8192 65536
// TABLE-NEXT: 2 gemm bf16->bf16 1x4096x4096x4096 67108864 33554432 137438953472

// JSON: "a_dtype": "f8E4M3FN",
// JSON: "b_dtype": "f8E4M3FN",
// JSON: "c_dtype": "bf16",
// JSON-NEXT: "epilogue": "bias",
// JSON-NEXT: "fast_accumulation": true,
// JSON: "a_dtype": "f8E5M2",
// JSON: "b_dtype": "f8E4M3FN",
// JSON: "c_dtype": "f32",
// JSON-NEXT: "fast_accumulation": false,
// JSON: "a_dtype": "bf16",
// JSON-NOT: "b_dtype"
// JSON: "kind": "gemm"

// MODEL: "a_dtype": "f8E4M3FN",
// MODEL: "modeled_us": 101.2
// MODEL: "a_dtype": "bf16",
// MODEL: "modeled_us": 199.5

module {
  func.func private @amp_gpu_gemm_fp8(i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr)
  func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)
  func.func @step(%a: !llvm.ptr, %b: !llvm.ptr, %sa: !llvm.ptr, %sb: !llvm.ptr, %bias: !llvm.ptr, %d: !llvm.ptr) {
    %e4m3 = arith.constant 6 : i32
    %e5m2 = arith.constant 7 : i32
    %bf16 = arith.constant 2 : i32
    %f32 = arith.constant 0 : i32
    %no = arith.constant 0 : i32
    %yes = arith.constant 1 : i32
    %one = arith.constant 1 : i64
    %big = arith.constant 4096 : i64
    %m = arith.constant 64 : i64
    %n = arith.constant 32 : i64
    %k = arith.constant 16 : i64
    %zero = arith.constant 0 : i64
    %alpha = arith.constant 1.0 : f32
    %beta = arith.constant 0.0 : f32
    %null = llvm.mlir.zero : !llvm.ptr
    call @amp_gpu_gemm_fp8(%e4m3, %e4m3, %bf16, %big, %big, %big, %no, %yes, %a, %b, %sa, %sb, %bias, %yes, %d, %null) : (i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm_fp8(%e5m2, %e4m3, %f32, %m, %n, %k, %no, %yes, %a, %b, %sa, %sb, %null, %no, %d, %null) : (i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
    call @amp_gpu_gemm(%bf16, %bf16, %one, %big, %big, %big, %no, %no, %a, %zero, %b, %zero, %d, %alpha, %beta, %no, %null) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
    return
  }
}
