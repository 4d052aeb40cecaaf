// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --amp-gpu-pipeline="format=isa" -o %t/isa.mlir
// RUN: %python %S/Inputs/extract_ptx.py --dir %t < %t/isa.mlir
// RUN: %ptxas -arch=sm_90 %t/amp_kernels.ptx -o %t/amp_kernels.cubin
// RUN: grep -c "^.visible .entry" %t/amp_kernels.ptx | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: 3
// The default format: MLIR runs ptxas and fatbinary itself.
// RUN: not grep -c __nv_ %t/amp_kernels.ptx
// RUN: env -u CUDA_HOME -u CUDA_ROOT -u CUDA_PATH PATH=/usr/bin:/bin amp-opt %s --amp-gpu-pipeline | FileCheck %s
// An explicit toolkit without libdevice is an error naming the path.
// RUN: not amp-opt %s --amp-gpu-pipeline="format=isa toolkit=%t/no-toolkit" 2>&1 | FileCheck %s --check-prefix=NOTOOLKIT

// The PTX the pipeline emits is accepted by the toolkit's ptxas for sm_90.
// The pipeline uses the toolkit amp was configured with, whatever PATH and
// CUDA_HOME say, and links its libdevice into the kernels: erf and tanh are
// inlined, no unresolved __nv_* calls remain (ptxas would fail with
// "Unresolved extern function '__nv_erff'").

// NOTOOLKIT: error: amp-gpu-pipeline: the CUDA toolkit '{{.*}}no-toolkit' (option toolkit) is not a directory
// RUN: mkdir -p %t/empty-toolkit
// RUN: not amp-opt %s --amp-gpu-pipeline="toolkit=%t/empty-toolkit" 2>&1 | FileCheck %s --check-prefix=NOLIBDEVICE
// NOLIBDEVICE: error: amp-gpu-pipeline: the CUDA toolkit '{{.*}}empty-toolkit' has no libdevice ({{.*}}empty-toolkit/nvvm/libdevice/libdevice.10.bc)

// The three kernels are one module (amp-gpu-merge-kernel-modules): one
// ptxas run, which optimizes on all cores (--split-compile=0).
// CHECK: gpu.binary @amp_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{{.*}}ISAToBinaryTimeInMs
// CHECK-NOT: gpu.binary
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
