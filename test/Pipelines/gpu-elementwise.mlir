// RUN: amp-opt %s --amp-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=HOST
// RUN: amp-opt %s --amp-gpu-pipeline="format=isa" | %python %S/Inputs/extract_ptx.py | FileCheck %s --check-prefix=PTX
// RUN: amp-opt %s --amp-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=BINARY

// amp-gpu-pipeline on elementwise graphs: one kernel per fused chain, the
// innermost dimension tiled by 256 threads per block, each thread taking 16
// bytes of the narrowest type (amp-gpu-vectorize-elementwise: ld.global.v4
// and st.global.v4), PTX for sm_90 (ISA 8.0). Elementwise ops compute in f32 and round once to the result type
// (docs/Lowering.md): f16/bf16 loads are widened with cvt.f32.{f16,bf16}
// and results rounded with cvt.rn.{f16,bf16}.f32. Where the whole op is a
// single IEEE operation (add, mul) LLVM's NVPTX backend narrows
// ext -> f32 op -> trunc to the native half operation (add.rn.f16,
// mul.rn.bf16, in pairs: add.rn.f16x2), which gives the same correctly
// rounded result. erf and tanh
// come from libdevice where a toolkit is configured (gpu-ptxas.mlir checks
// that none stays unresolved).

// All kernels are one gpu.binary (amp-gpu-merge-kernel-modules): one PTX
// module for sm_90 (ISA 8.0) holding every kernel.
// BINARY: gpu.binary @amp_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// BINARY-NOT: gpu.binary
// PTX-LABEL: // gpu.binary @amp_kernels
// PTX: .version 8.0
// PTX: .target sm_90

// Without model-abi the host functions take memref descriptors; launches
// go on a stream (gpu-async-region), synchronized before returning.
// HOST-LABEL: llvm.func @add_f32(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64
// HOST: gpu.launch_func <%{{.+}} : !llvm.ptr> @amp_kernels::@add_f32_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64
// PTX-LABEL: .visible .entry add_f32_kernel(
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: add.rn.f32
// PTX: st.global.v4.b32
func.func @add_f32(%a: tensor<1000x8xf32>, %b: tensor<1000x8xf32>) -> tensor<1000x8xf32> {
  %0 = amp.add %a, %b : tensor<1000x8xf32>
  return %0 : tensor<1000x8xf32>
}

// gelu (erf form) on f16 with f32 compute, fused with the add that follows
// into one kernel; 1024 = 128 threads of 8 elements, one block (the block
// keeps its 256 threads, the guard leaves half idle).
// HOST-LABEL: llvm.func @gelu_add_f16
// HOST: %[[B:.+]] = llvm.mlir.constant(1 : index) : i64
// HOST: gpu.launch_func <%{{.+}} : !llvm.ptr> @amp_kernels::@gelu_add_f16_kernel blocks in (%[[B]],
// HOST-NOT: gpu.launch_func
// HOST-LABEL: llvm.func @gelu_tanh_bf16
// PTX-LABEL: .visible .entry gelu_add_f16_kernel(
// PTX: ld.global.v4.b32
// PTX: cvt.f32.f16
// PTX: mul.rn.f32
// PTX: cvt.rn.f16x2.f32
// PTX: add.rn.f16x2
// PTX: st.global.v4.b32
func.func @gelu_add_f16(%a: tensor<1024xf16>, %b: tensor<1024xf16>) -> tensor<1024xf16> {
  %0 = amp.gelu %a : tensor<1024xf16>
  %1 = amp.add %0, %b : tensor<1024xf16>
  return %1 : tensor<1024xf16>
}

// gelu (tanh form) on bf16: 300 is no multiple of 8, so 4 elements per
// thread (8 bytes, ld.global.v4.b16); the 4 x 75 loop is one loop of 300
// (amp-gpu-coalesce-parallel-loops), not a multiple of 256: a bounds guard
// on the linear index, which addresses the contiguous buffer directly.
// PTX-LABEL: .visible .entry gelu_tanh_bf16_kernel(
// PTX: mad.lo.s64 %[[IDX:rd[0-9]+]], %{{rd[0-9]+}}, %{{rd[0-9]+}}, %{{rd[0-9]+}};
// PTX-NEXT: setp.ge.u64 %{{p[0-9]+}}, %[[IDX]],
// PTX: ld.global.v4.b16
// PTX: cvt.f32.bf16
// PTX: mul.rn.f32
// PTX: cvt.rn.bf16x2.f32
func.func @gelu_tanh_bf16(%a: tensor<4x300xbf16>) -> tensor<4x300xbf16> {
  %0 = amp.gelu %a approximate = tanh : tensor<4x300xbf16>
  return %0 : tensor<4x300xbf16>
}

// A bias added along rows: one loop over 64 x 75 vectors of 4, the column
// recovered as the linear index modulo 75, a multiplication by a constant
// (mul.hi), not a division.
// PTX-LABEL: .visible .entry bias_add_kernel(
// PTX-NOT: rem.s64
// PTX-NOT: div.s64
// PTX: mul.hi.s64
// PTX: ret;
func.func @bias_add(%a: tensor<64x300xf32>, %b: tensor<300xf32>) -> tensor<64x300xf32> {
  %0 = amp.broadcast %b : tensor<300xf32> -> tensor<64x300xf32>
  %1 = amp.add %a, %0 : tensor<64x300xf32>
  return %1 : tensor<64x300xf32>
}

// PTX-LABEL: .visible .entry mul_bf16_kernel(
// PTX: mul.rn.bf16x2
func.func @mul_bf16(%a: tensor<300xbf16>, %b: tensor<300xbf16>) -> tensor<300xbf16> {
  %0 = amp.mul %a, %b : tensor<300xbf16>
  return %0 : tensor<300xbf16>
}

// PTX-LABEL: .visible .entry cast_f32_f16_kernel(
// PTX: cvt.rn.f16x2.f32
func.func @cast_f32_f16(%a: tensor<64xf32>) -> tensor<64xf16> {
  %0 = amp.cast %a : tensor<64xf32> to tensor<64xf16>
  return %0 : tensor<64xf16>
}
