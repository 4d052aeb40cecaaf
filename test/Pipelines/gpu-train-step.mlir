// Whole training steps through amp-gpu-pipeline with model-abi=true (the MLP
// step of examples/ in fp16 with O1 and dynamic loss scaling, and bf16 with O2),
// made by amp-compile --emit=mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-compile %amp_src_root/examples/mlp_train_step.mlir --emit=mlir --precision=fp16 --opt-level=O1 -o %t/fp16.mlir
// RUN: amp-compile %amp_src_root/examples/mlp_train_step.mlir --emit=mlir --precision=bf16 --opt-level=O2 -o %t/bf16.mlir
// The IR dumps are per function; without threading they come in module order.
// RUN: amp-opt %t/fp16.mlir --amp-gpu-pipeline="format=isa model-abi=true" --mlir-print-ir-after=amp-gemm-calls-on-stream --mlir-disable-threading -o %t/fp16.out.mlir 2> %t/fp16.host.mlir
// RUN: FileCheck %s --check-prefixes=HOST,HOST16 < %t/fp16.host.mlir
// RUN: FileCheck %s --check-prefix=ABI < %t/fp16.out.mlir
// RUN: %python %S/Inputs/extract_ptx.py < %t/fp16.out.mlir > %t/fp16.ptx
// RUN: FileCheck %s --check-prefix=PTX16 < %t/fp16.ptx
// RUN: amp-opt %t/bf16.mlir --amp-gpu-pipeline="format=isa model-abi=true" --mlir-print-ir-after=amp-gemm-calls-on-stream --mlir-disable-threading -o %t/bf16.out.mlir 2> %t/bf16.host.mlir
// RUN: FileCheck %s --check-prefixes=HOST,HOST-BF16 < %t/bf16.host.mlir
// RUN: FileCheck %s --check-prefix=SYNC < %t/bf16.host.mlir
// RUN: %python %S/Inputs/extract_ptx.py < %t/bf16.out.mlir > %t/bf16.ptx
// RUN: FileCheck %s --check-prefix=PTX-BF16 < %t/bf16.ptx
// RUN: grep -A6 cvt.f32.bf16 %t/bf16.ptx | grep -E 'add.rn.f32[[:space:]]+(%%r[0-9]+), \1, %%r' | FileCheck %s --check-prefix=ACC-BF16
// allow-tf32 only affects f32 GEMMs: the fp32 step passes allow_tf32 = 1.
// RUN: amp-compile %amp_src_root/examples/mlp_train_step.mlir --emit=mlir -o %t/fp32.mlir
// RUN: amp-opt %t/fp32.mlir --amp-gpu-pipeline="format=isa model-abi=true allow-tf32=true" --mlir-print-ir-after=amp-gemm-calls-on-stream --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TF32

// Host code before the LLVM lowering: temporaries are gpu.alloc'ed (device
// memory, not host_shared) and freed with gpu.dealloc, the six GEMMs of the
// step (two Linear forward, their weight and input gradients) are calls to
// amp_gpu_gemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, ...)
// accumulating in f32, or amp_gpu_gemm_epilogue(..., epilogue, vector,
// stream) where a bias add (epilogue 1) or a bias gradient (2) is folded
// into the call; the product is written in the low precision (c_dtype 1 or
// 2) where only its rounded value is read. The 0-d loss-scale and
// mean-loss code runs in single-thread launches, and no memref.load/store
// or loop is left on the host.
// HOST-LABEL: IR Dump After GemmCallsOnStreamPass
// HOST: func.func @mlp_train_step(
// HOST-NOT: memref.load
// HOST-NOT: memref.store
// HOST-NOT: scf.for
// HOST-NOT: host_shared
// HOST: gpu.alloc async
// x (32x64) @ fc1.weight^T (128x64) + fc1.bias: m = 32, n = 128, k = 64,
// trans_b, written in the low precision, with the bias rounded to that
// precision first (epilogue 3: cuBLASLt's bias of D's type).
// HOST16: call @amp_gpu_gemm_epilogue(%c1_i32, %c1_i32, %c1_i64, %c32_i64, %c128_i64, %c64_i64, %c0_i32, %c1_i32, {{.*}}, %c3_i32, %{{.+}}, %{{.+}}) :
// HOST-BF16: call @amp_gpu_gemm_epilogue(%c2_i32, %c2_i32, %c1_i64, %c32_i64, %c128_i64, %c64_i64, %c0_i32, %c1_i32, {{.*}}, %c3_i32, %{{.+}}, %{{.+}}) :
// h (32x128) @ fc2.weight^T (10x128) + fc2.bias: f32 logits.
// HOST16: call @amp_gpu_gemm_epilogue(%c1_i32, %c0_i32, %c1_i64, %c32_i64, %c10_i64, %c128_i64, %c0_i32, %c1_i32,
// HOST-BF16: call @amp_gpu_gemm_epilogue(%c2_i32, %c0_i32, %c1_i64, %c32_i64, %c10_i64, %c128_i64, %c0_i32, %c1_i32,
// The mean loss: the sum of the per-row losses is one block
// (gpu-parallel-reductions.mlir), its division by the batch size a 0-d op on
// one thread.
// HOST: gpu.launch_func async {{.*}} blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// dW2 = dlogits^T (32x10) @ h: trans_a, k = 32, written in the low
// precision; fc2.bias's gradient stays a column sum (cuBLASLt computes no
// f32 bias gradient beside a 16-bit product).
// HOST16: call @amp_gpu_gemm(%c1_i32, %c1_i32, %c1_i64, %c10_i64, %c128_i64, %c32_i64, %c1_i32, %c0_i32,
// HOST-BF16: call @amp_gpu_gemm(%c2_i32, %c2_i32, %c1_i64, %c10_i64, %c128_i64, %c32_i64, %c1_i32, %c0_i32,
// dh = dlogits @ fc2.weight: k = 10.
// HOST16: call @amp_gpu_gemm(%c1_i32, %c1_i32, %c1_i64, %c32_i64, %c128_i64, %c10_i64, %c0_i32, %c0_i32,
// HOST-BF16: call @amp_gpu_gemm(%c2_i32, %c2_i32, %c1_i64, %c32_i64, %c128_i64, %c10_i64, %c0_i32, %c0_i32,
// dW1 = dh^T @ x: 128x64, k = 32 (in fp16 the f16 copy of dW1 is gone, the
// product is written where the copy was); fc1.bias's gradient a column sum.
// HOST16: call @amp_gpu_gemm(%c1_i32, %c1_i32, %c1_i64, %c128_i64, %c64_i64, %c32_i64, %c1_i32, %c0_i32,
// HOST-BF16: call @amp_gpu_gemm(%c2_i32, %c2_i32, %c1_i64, %c128_i64, %c64_i64, %c32_i64, %c1_i32, %c0_i32,
// dx = dh @ fc1.weight: 32x64, k = 128 (f32 in fp16 O1, whose reader does
// more than round it).
// HOST16: call @amp_gpu_gemm(%c1_i32, %c0_i32, %c1_i64, %c32_i64, %c64_i64, %c128_i64, %c0_i32, %c0_i32,
// HOST-BF16: call @amp_gpu_gemm(%c2_i32, %c2_i32, %c1_i64, %c32_i64, %c64_i64, %c128_i64, %c0_i32, %c0_i32,
// HOST-NOT: call @amp_gpu_gemm
// HOST: gpu.dealloc async
// HOST-NOT: memref.load
// HOST-NOT: memref.store
// HOST: return
// HOST-DAG: func.func private @amp_gpu_gemm_epilogue(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, i32, !llvm.ptr, !llvm.ptr)
// HOST-DAG: func.func private @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)

// The GEMMs take the step's stream (the async token of the work before them,
// which gpu-to-llvm makes a stream) instead of the host waiting for it: the
// only blocking wait of the step is at its end.
// SYNC-LABEL: func.func @mlp_train_step(
// SYNC-NOT: gpu.wait [
// SYNC: %[[STREAM:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !gpu.async.token to !llvm.ptr
// SYNC-NEXT: call @amp_gpu_gemm{{(_epilogue)?}}({{.*}}, %[[STREAM]]) :
// SYNC-NOT: gpu.wait [
// SYNC: gpu.wait [%{{.+}}]
// SYNC-NEXT: return

// TF32: call @amp_gpu_gemm(%c0_i32, %c0_i32, {{.*}}, %c1_i32, %{{.+}}) :

// With model-abi=true results are out-parameters and every memref a bare device
// pointer (18 arguments and 17 results of the step, of which the 15 state
// updates are written into their arguments' buffers: 2 out-parameters);
// device memory comes from mgpuMemAlloc.
// ABI: llvm.func @mlp_train_step(
// ABI-SAME: %arg0: !llvm.ptr,
// ABI-SAME: %arg19: !llvm.ptr)
// ABI-SAME: amp.updated_in_place = array<i32: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14>
// ABI-NOT: llvm.load
// One stream for the whole step; the GEMMs are queued on it with no host
// wait before them.
// ABI: %[[STREAM:.+]] = llvm.call @mgpuStreamCreate()
// ABI-NOT: mgpuStreamSynchronize
// ABI: llvm.call @mgpuMemAlloc
// ABI-NOT: mgpuStreamSynchronize
// ABI: llvm.call @amp_gpu_gemm({{.*}}, %[[STREAM]]) :
// ABI-NOT: mgpuStreamCreate
// ABI: llvm.call @mgpuMemFree
// ABI: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// ABI-NEXT: llvm.call @mgpuStreamDestroy(%[[STREAM]])
// ABI-NOT: mgpuStreamCreate
// ABI: llvm.func @amp_gpu_gemm(i32, i32, i64, i64, i64, i64, i32, i32, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, f32, f32, i32, !llvm.ptr)

// Reductions of f16/bf16 data accumulate in f32 (the bias gradient: widen
// each element, add in f32); LayerNorm computes in f32 with fma.
// (the ACC lines are the PTX filtered to a widening followed by an f32 add;
// in bf16 the LayerNorm weight and bias gradients are one column sum,
// amp-gpu-prepare-linalg, whose loop adds the widened gradient to its f32
// accumulator a few instructions after the widening; in fp16 at O1 no
// kernel sums f16 data any more: fc1's bias gradient is dW1's epilogue and
// fc2's is summed from the f32 logits gradient)
// PTX16: .target sm_90
// PTX16: cvt.f32.f16
// PTX16: fma.rn.f32
// PTX-BF16: .target sm_90
// PTX-BF16: cvt.f32.bf16
// PTX-BF16: fma.rn.f32
// ACC-BF16: add.rn.f32 [[A:%r[0-9]+]], [[A]], %r{{[0-9]+}};
