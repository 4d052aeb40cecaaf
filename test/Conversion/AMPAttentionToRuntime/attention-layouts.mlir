// RUN: amp-opt %s -split-input-file --convert-amp-attention-to-runtime -cse | FileCheck %s --check-prefix=CPU
// RUN: amp-opt %s -split-input-file --convert-amp-attention-to-runtime=gpu=true -cse | FileCheck %s --check-prefix=GPU

// The head split and merge of a transformer need no copy: the calls read
// q, k and v where the fused projection wrote them and write the output
// where the merge reads it (include/amp/Runtime/Attention.h, "Layouts":
// offset, stride_batch, stride_head, stride_seq of q, k, v and out, after
// the other arguments). B 2, S 16, H 2, D 8: the projection is
// [2, 16, 48]; q, k, v are its columns 0, 16 and 32, seen as heads with
// strides (16 * 48, 8, 48); out is written as [2, 16, 2, 8] (strides
// (256, 8, 16)). No amp.transpose, reshape or slice is left. cuDNN takes
// the same layouts (R4, R16, R19: bf16 strides multiples of 8 elements,
// offsets of 32 and 64 bytes).

// CPU-LABEL: func.func @fused_projection
// CPU-NOT: amp.transpose
// CPU-NOT: amp.slice
// CPU: bufferization.to_buffer %arg0 read_only : tensor<2x16x48xbf16>
// CPU: %[[OUT:.*]] = memref.alloc() : memref<2x16x2x8xbf16>
// CPU: call @amp_cpu_attention_fwd({{.*}}, %c0_i64, %c768_i64, %c8_i64, %c48_i64, %c16_i64, %c768_i64, %c8_i64, %c48_i64, %c32_i64, %c768_i64, %c8_i64, %c48_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64)
// CPU: %[[M:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x16x2x8xbf16>
// CPU-NOT: amp.transpose
// CPU: %[[R:.*]] = amp.reshape %[[M]] : tensor<2x16x2x8xbf16> -> tensor<2x16x16xbf16>
// CPU: return %[[R]]

// GPU-LABEL: func.func @fused_projection
// GPU-NOT: amp.transpose
// GPU: call @amp_gpu_attention_fwd_strided({{.*}}, %c0_i64, %c768_i64, %c8_i64, %c48_i64, %c16_i64, %c768_i64, %c8_i64, %c48_i64, %c32_i64, %c768_i64, %c8_i64, %c48_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %{{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, f32, i32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
// GPU-NOT: amp.transpose

func.func @fused_projection(%x: tensor<2x16x48xbf16>) -> tensor<2x16x16xbf16> {
  %q0 = amp.slice %x {starts = array<i64: 0, 0, 0>, limits = array<i64: 2, 16, 16>, strides = array<i64: 1, 1, 1>} : tensor<2x16x48xbf16> -> tensor<2x16x16xbf16>
  %q1 = amp.reshape %q0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %q = amp.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %k0 = amp.slice %x {starts = array<i64: 0, 0, 16>, limits = array<i64: 2, 16, 32>, strides = array<i64: 1, 1, 1>} : tensor<2x16x48xbf16> -> tensor<2x16x16xbf16>
  %k1 = amp.reshape %k0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %k = amp.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %v0 = amp.slice %x {starts = array<i64: 0, 0, 32>, limits = array<i64: 2, 16, 48>, strides = array<i64: 1, 1, 1>} : tensor<2x16x48xbf16> -> tensor<2x16x16xbf16>
  %v1 = amp.reshape %v0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %v = amp.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %o, %lse = amp.attention %q, %k, %v {scale = 0.35 : f64, causal}
      : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>)
      -> (tensor<2x2x16x8xbf16>, tensor<2x2x16xf32>)
  %m = amp.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x8xbf16> -> tensor<2x16x2x8xbf16>
  %r = amp.reshape %m : tensor<2x16x2x8xbf16> -> tensor<2x16x16xbf16>
  return %r : tensor<2x16x16xbf16>
}

// -----

// The backward of the same block: the output's gradient comes from the
// output projection's input gradient, [32, 16] rows (strides (256, 8, 16)
// as heads); out is the forward's [2, 16, 2, 8] merge; dq, dk and dv go
// straight into the columns of the fused projection's gradient, the
// [2, 16, 48] concatenation (offsets 0, 16, 32, strides (768, 8, 48)): no
// transpose and no concat left.

// CPU-LABEL: func.func @fused_gradient
// CPU-NOT: amp.transpose
// CPU: bufferization.to_buffer %arg1 read_only : tensor<2x16x2x8xbf16>
// CPU: bufferization.to_buffer %arg2 read_only : tensor<32x16xbf16>
// CPU: %[[G:.*]] = memref.alloc() : memref<2x16x48xbf16>
// CPU: call @amp_cpu_attention_bwd({{.*}}, %c0_i64, %c768_i64, %c8_i64, %c48_i64, %c16_i64, %c768_i64, %c8_i64, %c48_i64, %c32_i64, %c768_i64, %c8_i64, %c48_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c768_i64, %c8_i64, %c48_i64, %c16_i64, %c768_i64, %c8_i64, %c48_i64, %c32_i64, %c768_i64, %c8_i64, %c48_i64)
// CPU: %[[T:.*]] = bufferization.to_tensor %[[G]] restrict writable : memref<2x16x48xbf16>
// CPU-NOT: amp.concat
// CPU-NOT: amp.transpose
// CPU: return %[[T]]

// GPU-LABEL: func.func @fused_gradient
// GPU: %[[G:.*]] = memref.alloc() : memref<2x16x48xbf16>
// GPU: call @amp_gpu_attention_bwd_strided({{.*}}, %c0_i64, %c768_i64, %c8_i64, %c48_i64, %c16_i64, %c768_i64, %c8_i64, %c48_i64, %c32_i64, %c768_i64, %c8_i64, %c48_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c768_i64, %c8_i64, %c48_i64, %c16_i64, %c768_i64, %c8_i64, %c48_i64, %c32_i64, %c768_i64, %c8_i64, %c48_i64, %{{.*}})
// GPU-NOT: amp.concat
// GPU-NOT: amp.transpose

func.func @fused_gradient(%x: tensor<2x16x48xbf16>, %ob: tensor<2x16x2x8xbf16>,
                          %g: tensor<32x16xbf16>, %lse: tensor<2x2x16xf32>)
    -> tensor<2x16x48xbf16> {
  %q0 = amp.slice %x {starts = array<i64: 0, 0, 0>, limits = array<i64: 2, 16, 16>, strides = array<i64: 1, 1, 1>} : tensor<2x16x48xbf16> -> tensor<2x16x16xbf16>
  %q1 = amp.reshape %q0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %q = amp.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %k0 = amp.slice %x {starts = array<i64: 0, 0, 16>, limits = array<i64: 2, 16, 32>, strides = array<i64: 1, 1, 1>} : tensor<2x16x48xbf16> -> tensor<2x16x16xbf16>
  %k1 = amp.reshape %k0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %k = amp.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %v0 = amp.slice %x {starts = array<i64: 0, 0, 32>, limits = array<i64: 2, 16, 48>, strides = array<i64: 1, 1, 1>} : tensor<2x16x48xbf16> -> tensor<2x16x16xbf16>
  %v1 = amp.reshape %v0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %v = amp.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %o = amp.transpose %ob {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %g0 = amp.reshape %g : tensor<32x16xbf16> -> tensor<2x16x16xbf16>
  %g1 = amp.reshape %g0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %go = amp.transpose %g1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %dq, %dk, %dv = amp.attention_grad %go, %q, %k, %v, %o, %lse {scale = 0.35 : f64, causal}
      : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>,
         tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16xf32>)
      -> (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>)
  %mv = amp.transpose %dv {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x8xbf16> -> tensor<2x16x2x8xbf16>
  %rv = amp.reshape %mv : tensor<2x16x2x8xbf16> -> tensor<2x16x16xbf16>
  %mk = amp.transpose %dk {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x8xbf16> -> tensor<2x16x2x8xbf16>
  %rk = amp.reshape %mk : tensor<2x16x2x8xbf16> -> tensor<2x16x16xbf16>
  %mq = amp.transpose %dq {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x8xbf16> -> tensor<2x16x2x8xbf16>
  %rq = amp.reshape %mq : tensor<2x16x2x8xbf16> -> tensor<2x16x16xbf16>
  %c = amp.concat %rq, %rk, %rv {axis = 2 : i64}
      : (tensor<2x16x16xbf16>, tensor<2x16x16xbf16>, tensor<2x16x16xbf16>) -> tensor<2x16x48xbf16>
  return %c : tensor<2x16x48xbf16>
}

// -----

// A layout cuDNN refuses: q's columns start 4 elements (8 bytes) into the
// projection (R16: 16-byte aligned tensors). The CPU kernel reads them
// there (offset 4); cuDNN gets the slice, copied densely (the deepest view
// it takes: strides (256, 8, 16)), still without the transpose. A result
// read elsewhere too (%o returned) is written in its merge's layout and
// read back through a transpose.

// CPU-LABEL: func.func @unaligned_columns
// CPU: call @amp_cpu_attention_fwd({{.*}}, %c4_i64, %c832_i64, %c8_i64, %c52_i64, %c20_i64, %c832_i64, %c8_i64, %c52_i64, %c36_i64, %c832_i64, %c8_i64, %c52_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64)
// CPU: %[[M:.*]] = bufferization.to_tensor
// CPU: %[[O:.*]] = amp.transpose %[[M]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
// CPU: return %[[O]], %[[M]]

// GPU-LABEL: func.func @unaligned_columns
// GPU: %[[Q:.*]] = amp.slice %arg0 {{.*}}starts = array<i64: 0, 0, 4>
// GPU: bufferization.to_buffer %[[Q]] read_only : tensor<2x16x16xbf16>
// GPU: call @amp_gpu_attention_fwd_strided({{.*}}, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %c0_i64, %c256_i64, %c8_i64, %c16_i64, %{{.*}})
func.func @unaligned_columns(%x: tensor<2x16x52xbf16>)
    -> (tensor<2x2x16x8xbf16>, tensor<2x16x2x8xbf16>) {
  %q0 = amp.slice %x {starts = array<i64: 0, 0, 4>, limits = array<i64: 2, 16, 20>, strides = array<i64: 1, 1, 1>} : tensor<2x16x52xbf16> -> tensor<2x16x16xbf16>
  %q1 = amp.reshape %q0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %q = amp.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %k0 = amp.slice %x {starts = array<i64: 0, 0, 20>, limits = array<i64: 2, 16, 36>, strides = array<i64: 1, 1, 1>} : tensor<2x16x52xbf16> -> tensor<2x16x16xbf16>
  %k1 = amp.reshape %k0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %k = amp.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %v0 = amp.slice %x {starts = array<i64: 0, 0, 36>, limits = array<i64: 2, 16, 52>, strides = array<i64: 1, 1, 1>} : tensor<2x16x52xbf16> -> tensor<2x16x16xbf16>
  %v1 = amp.reshape %v0 : tensor<2x16x16xbf16> -> tensor<2x16x2x8xbf16>
  %v = amp.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %o, %lse = amp.attention %q, %k, %v {scale = 0.35 : f64}
      : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>)
      -> (tensor<2x2x16x8xbf16>, tensor<2x2x16xf32>)
  %m = amp.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x8xbf16> -> tensor<2x16x2x8xbf16>
  return %o, %m : tensor<2x2x16x8xbf16>, tensor<2x16x2x8xbf16>
}
