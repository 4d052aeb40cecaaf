// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: env CUDA_HOME=%cuda_root amp-opt %s --amp-gpu-pipeline="format=isa" -o %t/isa.mlir
// RUN: %python %S/Inputs/extract_ptx.py --dir %t < %t/isa.mlir
// RUN: %ptxas -arch=sm_90 %t/add_f32_kernel.ptx -o %t/add_f32.cubin
// RUN: %ptxas -arch=sm_90 %t/gelu_f16_kernel.ptx -o %t/gelu_f16.cubin
// RUN: %ptxas -arch=sm_90 %t/gelu_bf16_kernel.ptx -o %t/gelu_bf16.cubin
// The default format: MLIR runs ptxas and fatbinary itself.
// RUN: not grep -c __nv_ %t/gelu_f16_kernel.ptx %t/gelu_bf16_kernel.ptx
// RUN: env CUDA_HOME=%cuda_root PATH=%cuda_bin:%PATH% amp-opt %s --amp-gpu-pipeline | FileCheck %s

// The PTX the pipeline emits is accepted by the toolkit's ptxas for sm_90
// With the toolkit found (CUDA_HOME), MLIR links libdevice into the kernels:
// erf and tanh are inlined, no unresolved __nv_* calls remain. Without it
// ptxas fails with "Unresolved extern function '__nv_erff'".

// CHECK-COUNT-3: gpu.binary @{{[a-z0-9_]+}}_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{{.*}}ISAToBinaryTimeInMs
func.func @add_f32(%a: tensor<16x512xf32>, %b: tensor<16x512xf32>) -> tensor<16x512xf32> {
  %0 = amp.add %a, %b : tensor<16x512xf32>
  return %0 : tensor<16x512xf32>
}

func.func @gelu_f16(%a: tensor<1000xf16>) -> tensor<1000xf16> {
  %0 = amp.gelu %a : tensor<1000xf16>
  return %0 : tensor<1000xf16>
}

func.func @gelu_bf16(%a: tensor<1000xbf16>) -> tensor<1000xbf16> {
  %0 = amp.gelu %a approximate = tanh : tensor<1000xbf16>
  return %0 : tensor<1000xbf16>
}
