// REQUIRES: cuda-toolkit
// f8 tensors through the GPU pipeline: amp-expand-float8 runs at the start
// of the NVVM lowering, so kernels reach NVPTX (and ptxas) with integer
// code for the conversions, and f8 loads and stores of i8 (vectorized by
// amp-gpu-vectorize-elementwise), constants, fills, transposes and copies
// included; the emulated device compiles the same kernels for the host.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-pipeline="format=isa" -o %t/isa.mlir
// RUN: %python %S/Inputs/extract_ptx.py --dir %t < %t/isa.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t/amp_kernels.ptx
// RUN: %ptxas -arch=sm_90 %t/amp_kernels.ptx -o %t/amp_kernels.cubin
// RUN: amp-opt %s --amp-gpu-pipeline="emulator=true" | FileCheck %s --check-prefix=EMU

// PTX-LABEL: .visible .entry quantize_kernel(
// PTX: ld.global.v4.b32
// PTX-NOT: e4m3
// PTX: st.global.v2.b32
// PTX-LABEL: .visible .entry dequantize_kernel(
// PTX: ld.global.v2.b32
// PTX-NOT: e5m2
// PTX: st.global.v4.b32
// Transposes, fills (1.5 in e5m2 is 0x3e: four of them 0x3e3e3e3e =
// 1044266558), f8 constants and copies.
// PTX-LABEL: .visible .entry fill_transpose_kernel(
// PTX: st.global.v2.b32 {{.*}}{1044266558, 1044266558}
// PTX-LABEL: .visible .entry const_add_kernel(
// PTX-LABEL: .visible .entry copy_kernel(

// EMU: gpu.binary @amp_emu_kernels {{.*}}#amp_emu.target
#id = affine_map<(d0) -> (d0)>
func.func @quantize(%x: tensor<1024xf32>) -> tensor<1024xf8E4M3FN> {
  %init = tensor.empty() : tensor<1024xf8E4M3FN>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<1024xf8E4M3FN>) {
  ^bb0(%a: f32, %o: f8E4M3FN):
    %lo = arith.constant -448.0 : f32
    %hi = arith.constant 448.0 : f32
    %c = arith.maximumf %a, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %y = arith.truncf %d : f32 to f8E4M3FN
    linalg.yield %y : f8E4M3FN
  } -> tensor<1024xf8E4M3FN>
  return %r : tensor<1024xf8E4M3FN>
}

func.func @dequantize(%x: tensor<1024xf8E5M2>) -> tensor<1024xbf16> {
  %init = tensor.empty() : tensor<1024xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf8E5M2>) outs(%init : tensor<1024xbf16>) {
  ^bb0(%a: f8E5M2, %o: bf16):
    %y = arith.extf %a : f8E5M2 to bf16
    linalg.yield %y : bf16
  } -> tensor<1024xbf16>
  return %r : tensor<1024xbf16>
}
func.func @fill_transpose(%x: tensor<64x32xf8E4M3FN>) -> (tensor<32x64xf8E4M3FN>, tensor<16x16xf8E5M2>) {
  %e = tensor.empty() : tensor<32x64xf8E4M3FN>
  %t = linalg.transpose ins(%x : tensor<64x32xf8E4M3FN>) outs(%e : tensor<32x64xf8E4M3FN>) permutation = [1, 0]
  %c = arith.constant 1.5 : f8E5M2
  %e2 = tensor.empty() : tensor<16x16xf8E5M2>
  %f = linalg.fill ins(%c : f8E5M2) outs(%e2 : tensor<16x16xf8E5M2>) -> tensor<16x16xf8E5M2>
  return %t, %f : tensor<32x64xf8E4M3FN>, tensor<16x16xf8E5M2>
}

func.func @const_add(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = arith.constant dense<[1.0, 2.0, -448.0, 0.5]> : tensor<4xf8E4M3FN>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %k : tensor<4xf32>, tensor<4xf8E4M3FN>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f8E4M3FN, %o: f32):
    %w = arith.extf %b : f8E4M3FN to f32
    %s = arith.addf %a, %w : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @copy(%x: memref<8xf8E5M2>, %y: memref<8xf8E5M2>) {
  linalg.copy ins(%x : memref<8xf8E5M2>) outs(%y : memref<8xf8E5M2>)
  memref.copy %x, %y : memref<8xf8E5M2> to memref<8xf8E5M2>
  return
}
