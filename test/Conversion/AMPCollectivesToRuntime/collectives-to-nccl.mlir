// RUN: amp-opt %s -split-input-file --convert-amp-collectives-to-nccl | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-pipeline="emulator=true model-abi=true" --mlir-print-ir-after=amp-gemm-calls-on-stream --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=STREAM

// A bucket of an f16 and an f32 tensor is one NCCL group: each tensor is
// all-reduced out of place (read through a read-only to_buffer, written to
// a fresh buffer allocated before the group) with the mean
// (AMP_GPU_DP_MEAN = 1), in f32 as on the CPU: the f16 gradient is widened
// by a kernel before the group (AMP_DTYPE_F32 = 0 for both calls) and
// rounded once after the wait. Every call takes a null stream here.

// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[G0:.*]]: tensor<4x8xf16>, %[[G1:.*]]: tensor<8xf32>)
// CHECK: %[[WIDE:.*]] = linalg.generic
// CHECK-SAME: ins(%[[G0]] : tensor<4x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[B0:.*]] = bufferization.to_buffer %[[WIDE]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT: %[[O0:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: %[[B1:.*]] = bufferization.to_buffer %[[G1]] read_only : tensor<8xf32> to memref<8xf32>
// CHECK-NEXT: %[[O1:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT: %[[S0:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: call @amp_gpu_dp_group_begin(%[[S0]]) : (!llvm.ptr) -> ()
// CHECK: memref.extract_aligned_pointer_as_index %[[B0]]
// CHECK: memref.extract_aligned_pointer_as_index %[[O0]]
// CHECK: %[[N0:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[S1:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: call @amp_gpu_dp_all_reduce(%{{.*}}, %{{.*}}, %[[N0]], %[[F32]], %[[MEAN]], %[[S1]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) -> ()
// CHECK: memref.extract_aligned_pointer_as_index %[[B1]]
// CHECK: memref.extract_aligned_pointer_as_index %[[O1]]
// CHECK: %[[N1:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %[[F32B:.*]] = arith.constant 0 : i32
// CHECK: call @amp_gpu_dp_all_reduce(%{{.*}}, %{{.*}}, %[[N1]], %[[F32B]],
// CHECK: call @amp_gpu_dp_group_end(
// CHECK-NEXT: %[[R0:.*]] = bufferization.to_tensor %[[O0]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK: %[[NARROW:.*]] = linalg.generic
// CHECK-SAME: ins(%[[R0]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[R1:.*]] = bufferization.to_tensor %[[O1]] restrict writable
// CHECK-NEXT: return %[[NARROW]], %[[R1]]
// CHECK-DAG: func.func private @amp_gpu_dp_group_begin(!llvm.ptr)
// CHECK-DAG: func.func private @amp_gpu_dp_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr)
// CHECK-DAG: func.func private @amp_gpu_dp_group_end(!llvm.ptr)
// CHECK-NOT: amp.all_reduce

func.func @bucket(%g0: tensor<4x8xf16>, %g1: tensor<8xf32>)
    -> (tensor<4x8xf16>, tensor<8xf32>) {
  %h = amp.all_reduce_start <mean> %g0, %g1 : tensor<4x8xf16>, tensor<8xf32>
  %r:2 = amp.all_reduce_wait %h : tensor<4x8xf16>, tensor<8xf32>
  return %r#0, %r#1 : tensor<4x8xf16>, tensor<8xf32>
}

// -----

// Nothing is read on the host. With `active` (gradient accumulation) every
// micro-step reduces (a sum: AMP_GPU_DP_SUM = 0; the bf16 gradient in f32)
// and the device keeps the result only when active. found_inf becomes an
// f32 all-reduce with max (AMP_GPU_DP_MAX = 2) of 0 or 1, compared with 0,
// the rank's own flag when not active.

// CHECK-LABEL: func.func @flags
// CHECK-SAME: (%[[G:.*]]: tensor<4xbf16>, %[[F:.*]]: tensor<i1>, %[[LAST:.*]]: tensor<i1>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[N:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[F32G:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[SUM:.*]] = arith.constant 0 : i32
// CHECK: call @amp_gpu_dp_all_reduce(%{{.*}}, %{{.*}}, %[[N]], %[[F32G]], %[[SUM]],
// CHECK: %[[REDUCED:.*]] = linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4xbf16>
// CHECK: %[[CHOSEN:.*]] = linalg.generic
// CHECK-SAME: ins(%[[LAST]], %[[REDUCED]], %[[G]] : tensor<i1>, tensor<4xbf16>, tensor<4xbf16>) outs(%[[EMPTY]] : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[IA:.*]]: i1, %[[IR:.*]]: bf16, %[[IG:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[PICK:.*]] = arith.select %[[IA]], %[[IR]], %[[IG]] : bf16
// CHECK-NEXT: linalg.yield %[[PICK]]
// CHECK: %[[FLOAT:.*]] = linalg.generic
// CHECK-SAME: iterator_types = []
// CHECK-SAME: ins(%[[F]] : tensor<i1>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT: %[[IN:.*]] = bufferization.to_buffer %[[FLOAT]] read_only
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[MAX:.*]] = arith.constant 2 : i32
// CHECK: call @amp_gpu_dp_all_reduce(%{{.*}}, %{{.*}}, %[[ONE]], %[[F32]], %[[MAX]],
// CHECK-NEXT: %[[RT:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: %[[RES:.*]] = linalg.generic
// CHECK-SAME: ins(%[[RT]], %[[F]], %[[LAST]] : tensor<f32>, tensor<i1>, tensor<i1>) outs(%{{.*}} : tensor<i1>)
// CHECK-NEXT: ^bb0(%[[R:.*]]: f32, %[[OWN:.*]]: i1, %[[A:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ANY:.*]] = arith.cmpf une, %[[R]], %[[ZERO]] : f32
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[A]], %[[ANY]], %[[OWN]] : i1
// CHECK-NEXT: linalg.yield %[[SEL]] : i1
// CHECK: return %[[CHOSEN]], %[[RES]]

// STREAM-LABEL: func.func @flags
// STREAM: gpu.launch_func
// STREAM: call @amp_gpu_dp_all_reduce
func.func @flags(%g: tensor<4xbf16>, %f: tensor<i1>, %last: tensor<i1>)
    -> (tensor<4xbf16>, tensor<i1>) {
  %h = amp.all_reduce_start <sum> %g active %last : tensor<4xbf16>
  %r = amp.all_reduce_wait %h : tensor<4xbf16>
  %any = amp.all_reduce_any %f active %last
  return %r, %any : tensor<4xbf16>, tensor<i1>
}

// -----

// Gradients made by kernels: after gpu-async-region the group's calls take
// the step's stream (the token the host would otherwise wait for), one
// after the other, and the host does not wait before, between or after
// them; the kernel reading the results follows on the same stream.
// STREAM-LABEL: func.func @chained
// STREAM: %[[K:.*]] = gpu.launch_func async
// STREAM-NOT: gpu.wait [
// STREAM: %[[T:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !gpu.async.token to !llvm.ptr
// STREAM-NEXT: call @amp_gpu_dp_group_begin(%[[T]])
// STREAM-NOT: gpu.wait [
// STREAM: call @amp_gpu_dp_all_reduce({{.*}}) :
// STREAM-NOT: gpu.wait [
// STREAM: call @amp_gpu_dp_all_reduce({{.*}}) :
// STREAM-NOT: gpu.wait [
// STREAM: call @amp_gpu_dp_group_end(
// STREAM-NOT: gpu.wait [
// STREAM: gpu.launch_func async
// STREAM: gpu.wait [
// STREAM-NEXT: return
func.func @chained(%x: tensor<256xf32>, %y: tensor<256xbf16>)
    -> (tensor<256xf32>, tensor<256xbf16>) {
  %g0 = amp.add %x, %x : tensor<256xf32>
  %g1 = amp.add %y, %y : tensor<256xbf16>
  %h = amp.all_reduce_start <mean> %g0, %g1 : tensor<256xf32>, tensor<256xbf16>
  %r:2 = amp.all_reduce_wait %h : tensor<256xf32>, tensor<256xbf16>
  %s = amp.add %r#0, %r#0 : tensor<256xf32>
  return %s, %r#1 : tensor<256xf32>, tensor<256xbf16>
}

// -----

// Without collectives the pass changes nothing.
// CHECK-LABEL: func.func @none
// CHECK-NEXT: return
// CHECK-NOT: amp_gpu_dp
func.func @none(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
