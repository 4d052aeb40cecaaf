// The counts of amp-gpu-cost-report on a step written by hand, each computed
// below by hand: a guarded elementwise kernel, a strided row reduction with
// gpu.all_reduce, a batched GEMM with a broadcast operand, a host
// synchronisation and a temporary.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/cost.json summary=%t/summary.txt" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=JSON < %t/cost.json
// RUN: FileCheck %s --check-prefix=TABLE < %t/summary.txt
// The IR is unchanged.
// RUN: amp-opt %s -o %t/in.mlir && diff %t/in.mlir %t/out.mlir
// With the H200 model: GEMM max(21504 B / 4.8e12 B/s, 131072 / (989.4e12 *
// 0.05)) + 3 us = 3.0045 us; a sync 10 us.
// RUN: amp-opt %s --amp-gpu-cost-report="device=h200 output=- summary=%t/h200.txt" -o %t/out.mlir | FileCheck %s --check-prefix=MODEL
// RUN: FileCheck %s --check-prefix=MODEL-TABLE < %t/h200.txt

// k_scale: 4 x 256 threads, 1000 pass the guard (1000/1024): each loads 4 B,
// stores 2 B and does a mulf and an addf: 4000 B read, 2000 B written, 2000
// FLOPs.
// k_rows: 8 blocks of 32 threads; thread t loops ceil((100 - t) / 32) times,
// 100 iterations per row: 8 * 100 loads of 4 B (3200 B) and addf (800
// FLOPs); gpu.all_reduce of 32 threads is 5 butterfly steps per thread (8 *
// 32 * 5 = 1280); thread 0 of each block stores 4 B (32 B). 2080 FLOPs.
// GEMM: 2 * batch 2 * 64 * 32 * 16 = 131072 FLOPs; A 2 * 64 * 16 bf16 (4096
// B), B broadcast (stride 0) 16 * 32 bf16 (1024 B), C not read (beta = 0),
// written 2 * 64 * 32 f32 (16384 B).
// Arguments: 4000 + 3200 + 32 B; peak adds the 2000 B temporary.

// JSON: "functions": [
// JSON:   "allocations": 1,
// JSON:   "argument_bytes": 7232,
// JSON:   "bytes": 30736,
// JSON:   "copies": 0,
// JSON:   "entries": [
// JSON:       "bytes": 2000,
// JSON-NEXT:  "kind": "alloc",
// JSON-NEXT:  "live_bytes": 2000
// JSON:       "accessed_bytes_read": 4000,
// JSON-NEXT:  "accessed_bytes_written": 2000,
// JSON-NEXT:  "block": [
// JSON-NEXT:    256,
// JSON:       "bytes_read": 4000,
// JSON-NEXT:  "bytes_written": 2000,
// JSON-NEXT:  "flops": 2000,
// JSON-NEXT:  "grid": [
// JSON-NEXT:    4,
// JSON:       "kernel": "k_scale::k",
// JSON-NEXT:  "kind": "launch"
// JSON:       "accessed_bytes_read": 3200,
// JSON-NEXT:  "accessed_bytes_written": 32,
// JSON:       "bytes_read": 3200,
// JSON-NEXT:  "bytes_written": 32,
// JSON-NEXT:  "flops": 2080,
// JSON:       "kernel": "k_rows::k",
// JSON:       "bytes": 2000,
// JSON-NEXT:  "kind": "free",
// JSON-NEXT:  "live_bytes": 0
// JSON:       "kind": "sync"
// JSON:       "a_dtype": "bf16",
// JSON-NEXT:  "accumulate": false,
// JSON-NEXT:  "allow_tf32": false,
// JSON-NEXT:  "batch": 2,
// JSON-NEXT:  "bytes_read": 5120,
// JSON-NEXT:  "bytes_written": 16384,
// JSON-NEXT:  "c_dtype": "f32",
// JSON-NEXT:  "flops": 131072,
// JSON-NEXT:  "k": 16,
// JSON-NEXT:  "kind": "gemm",
// JSON-NEXT:  "m": 64,
// JSON-NEXT:  "n": 32,
// JSON-NEXT:  "trans_a": false,
// JSON-NEXT:  "trans_b": true
// JSON:   "flops": 135152,
// JSON-NEXT: "gemms": 1,
// JSON-NEXT: "launches": 2,
// JSON-NEXT: "name": "step",
// JSON-NEXT: "peak_bytes": 9232,
// JSON-NEXT: "syncs": 1
// JSON-NOT: modeled

// TABLE: == step ==
// TABLE: 0 k_scale 4x1x1 x 256x1x1 4000 2000 2000
// TABLE-NEXT: 1 k_rows 8x1x1 x 32x1x1 3200 32 2080
// TABLE-NEXT: 2 host sync 0 0 0
// TABLE-NEXT: 3 gemm bf16->f32 2x64x32x16 5120 16384 131072
// TABLE-NEXT: total: 2 launches, 1 GEMMs, 1 syncs, 1 allocations, 30736 bytes, 135152 FLOPs, peak 9232 bytes (7232 in arguments)

// MODEL: "device": "h200",
// MODEL: "kind": "sync",
// MODEL-NEXT: "modeled_us": 10
// MODEL: "kind": "gemm",
// MODEL: "modeled_us": 3.0044
// MODEL: "modeled_ms": 0.0
// MODEL: "times": "modeled"
// MODEL-TABLE: == step (modeled on h200) ==
// MODEL-TABLE: 2 host sync 0 0 0 10.00
// MODEL-TABLE: 3 gemm bf16->f32 2x64x32x16 5120 16384 131072 3.00
// MODEL-TABLE: total: {{.*}}, modeled 0.0{{[0-9]+}} ms

module attributes {gpu.container_module} {
  gpu.module @k_scale {
    gpu.func @k(%n: index, %x: memref<1000xf32>, %y: memref<1000xbf16>) kernel {
      %c1000 = arith.constant 1000 : index
      %two = arith.constant 2.0 : f32
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %n : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %c1000 : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<1000xf32>
        %m = arith.mulf %v, %two : f32
        %a = arith.addf %m, %two : f32
        %t = arith.truncf %a : f32 to bf16
        memref.store %t, %y[%i] : memref<1000xbf16>
      }
      gpu.return
    }
  }
  gpu.module @k_rows {
    gpu.func @k(%x: memref<8x100xf32>, %out: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c100 = arith.constant 100 : index
      %zero = arith.constant 0.0 : f32
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      %s = scf.for %j = %tid to %c100 step %c32 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%row, %j] : memref<8x100xf32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      %r = gpu.all_reduce add %s uniform {} : (f32) -> f32
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        memref.store %r, %out[%row] : memref<8xf32>
      }
      gpu.return
    }
  }
  func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)
  func.func @step(%x: memref<1000xf32>, %rows: memref<8x100xf32>, %out: memref<8xf32>,
                  %a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %bf16 = arith.constant 2 : i32
    %f32 = arith.constant 0 : i32
    %no = arith.constant 0 : i32
    %yes = arith.constant 1 : i32
    %batch = arith.constant 2 : i64
    %m = arith.constant 64 : i64
    %n = arith.constant 32 : i64
    %k = arith.constant 16 : i64
    %stride_a = arith.constant 1024 : i64
    %stride_b = arith.constant 0 : i64
    %alpha = arith.constant 1.0 : f32
    %beta = arith.constant 0.0 : f32
    %t0 = gpu.wait async
    %y, %t1 = gpu.alloc async [%t0] () : memref<1000xbf16>
    %t2 = gpu.launch_func async [%t1] @k_scale::@k blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%c256 : index, %x : memref<1000xf32>, %y : memref<1000xbf16>)
    %t3 = gpu.launch_func async [%t2] @k_rows::@k blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1) args(%rows : memref<8x100xf32>, %out : memref<8xf32>)
    %t4 = gpu.dealloc async [%t3] %y : memref<1000xbf16>
    gpu.wait [%t4]
    %stream = llvm.mlir.zero : !llvm.ptr
    call @amp_gpu_gemm(%bf16, %f32, %batch, %m, %n, %k, %no, %yes, %a, %stride_a, %b, %stride_b, %c, %alpha, %beta, %no, %stream) : (i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr) -> ()
    return
  }
}
