// RUN: amp-opt %s -split-input-file --convert-amp-collectives-to-runtime | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-pipeline="model-abi=true" | FileCheck %s --check-prefix=LLVM

// A bucket of an f16 and an f32 tensor: the runtime gets 40 elements in
// all, each tensor's pointer (read through a read-only to_buffer) at its
// offset with its dtype (AMP_DTYPE_F16 = 1, AMP_DTYPE_F32 = 0), and after
// the wait writes fresh buffers that become the results.

// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[G0:.*]]: tensor<4x8xf16>, %[[G1:.*]]: tensor<8xf32>)
// CHECK: %[[N:.*]] = arith.constant 40 : i64
// CHECK-NEXT: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ACTIVE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[H:.*]] = call @amp_dp_bucket_begin(%[[N]], %[[MEAN]], %[[ACTIVE]]) : (i64, i32, i32) -> i64
// CHECK: %[[B0:.*]] = bufferization.to_buffer %[[G0]] read_only : tensor<4x8xf16> to memref<4x8xf16>
// CHECK: %[[P0:.*]] = llvm.inttoptr
// CHECK: %[[OFF0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[N0:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @amp_dp_bucket_pack(%[[H]], %[[OFF0]], %[[P0]], %[[N0]], %[[F16]]) : (i64, i64, !llvm.ptr, i64, i32) -> ()
// CHECK: bufferization.to_buffer %[[G1]] read_only : tensor<8xf32> to memref<8xf32>
// CHECK: %[[OFF1:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[N1:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @amp_dp_bucket_pack(%[[H]], %[[OFF1]], %{{.*}}, %[[N1]], %[[F32]])
// CHECK: call @amp_dp_bucket_start(%[[H]]) : (i64) -> ()
// CHECK: call @amp_dp_bucket_wait(%[[H]]) : (i64) -> ()
// CHECK: %[[O0:.*]] = memref.alloc() : memref<4x8xf16>
// CHECK: %[[O1:.*]] = memref.alloc() : memref<8xf32>
// CHECK: call @amp_dp_bucket_unpack(%[[H]],
// CHECK: call @amp_dp_bucket_unpack(%[[H]],
// CHECK: %[[R0:.*]] = bufferization.to_tensor %[[O0]] restrict writable
// CHECK: %[[R1:.*]] = bufferization.to_tensor %[[O1]] restrict writable
// CHECK: return %[[R0]], %[[R1]]
// CHECK-DAG: func.func private @amp_dp_bucket_begin(i64, i32, i32) -> i64
// CHECK-DAG: func.func private @amp_dp_bucket_pack(i64, i64, !llvm.ptr, i64, i32)
// CHECK-NOT: amp.all_reduce

// LLVM-LABEL: llvm.func @bucket
// LLVM: llvm.call @amp_dp_bucket_begin
// LLVM: llvm.call @amp_dp_bucket_start
// LLVM: llvm.call @amp_dp_bucket_wait
// LLVM: llvm.call @amp_dp_bucket_unpack
func.func @bucket(%g0: tensor<4x8xf16>, %g1: tensor<8xf32>)
    -> (tensor<4x8xf16>, tensor<8xf32>) {
  %h = amp.all_reduce_start <mean> %g0, %g1 : tensor<4x8xf16>, tensor<8xf32>
  %r:2 = amp.all_reduce_wait %h : tensor<4x8xf16>, tensor<8xf32>
  return %r#0, %r#1 : tensor<4x8xf16>, tensor<8xf32>
}

// -----

// `active` and the found_inf flag are read from their 0-d tensors.

// CHECK-LABEL: func.func @flags
// CHECK-SAME: (%[[G:.*]]: tensor<4xbf16>, %[[F:.*]]: tensor<i1>, %[[LAST:.*]]: tensor<i1>)
// CHECK: %[[A:.*]] = tensor.extract %[[LAST]][] : tensor<i1>
// CHECK: %[[AI:.*]] = arith.extui %[[A]] : i1 to i32
// CHECK: call @amp_dp_bucket_begin(%{{.*}}, %{{.*}}, %[[AI]])
// CHECK: %[[FV:.*]] = tensor.extract %[[F]][] : tensor<i1>
// CHECK: %[[FI:.*]] = arith.extui %[[FV]] : i1 to i32
// CHECK: %[[A2:.*]] = tensor.extract %[[LAST]][] : tensor<i1>
// CHECK: %[[A2I:.*]] = arith.extui %[[A2]] : i1 to i32
// CHECK: %[[ANY:.*]] = call @amp_dp_any(%[[FI]], %[[A2I]]) : (i32, i32) -> i32
// CHECK: %[[SET:.*]] = arith.cmpi ne, %[[ANY]], %{{.*}} : i32
// CHECK: tensor.from_elements %[[SET]] : tensor<i1>
// LLVM-LABEL: llvm.func @flags
// LLVM: llvm.call @amp_dp_any
func.func @flags(%g: tensor<4xbf16>, %f: tensor<i1>, %last: tensor<i1>)
    -> (tensor<4xbf16>, tensor<i1>) {
  %h = amp.all_reduce_start <sum> %g active %last : tensor<4xbf16>
  %r = amp.all_reduce_wait %h : tensor<4xbf16>
  %any = amp.all_reduce_any %f active %last
  return %r, %any : tensor<4xbf16>, tensor<i1>
}
