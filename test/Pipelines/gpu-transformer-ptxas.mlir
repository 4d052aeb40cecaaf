// REQUIRES: cuda-toolkit
// The training step of examples/transformer_block.mlir (attention with
// softmax, LayerNorm, GELU MLP, AdamW) in bf16 and fp16: every kernel the
// pipeline emits is accepted by ptxas for sm_90, and the default fatbin
// format (MLIR runs ptxas, on all cores, and fatbinary) builds, once for
// all kernels (amp-gpu-merge-kernel-modules).
// RUN: rm -rf %t && mkdir -p %t/bf16 %t/fp16
// RUN: amp-compile %amp_src_root/examples/transformer_block.mlir --emit=mlir --precision=bf16 --optimizer=adamw -o %t/bf16.mlir
// RUN: amp-opt %t/bf16.mlir --amp-gpu-pipeline="format=isa model-abi=true" -o %t/bf16.isa.mlir
// RUN: %python %S/Inputs/extract_ptx.py --dir %t/bf16 < %t/bf16.isa.mlir
// RUN: %python %S/Inputs/ptxas_all.py %ptxas sm_90 %t/bf16 | FileCheck %s
// RUN: FileCheck %s --check-prefix=HOST < %t/bf16.isa.mlir
// RUN: amp-compile %amp_src_root/examples/transformer_block.mlir --emit=mlir --precision=fp16 --opt-level=O2 --optimizer=adamw -o %t/fp16.mlir
// RUN: amp-opt %t/fp16.mlir --amp-gpu-pipeline="model-abi=true" | FileCheck %s --check-prefix=FATBIN

// CHECK: ptxas accepted {{[1-9][0-9]+}} kernels

// The attention and projection GEMMs are cuBLASLt calls.
// HOST: llvm.func @transformer_block(%arg0: !llvm.ptr,
// HOST-COUNT-14: llvm.call @amp_gpu_gemm

// FATBIN: gpu.binary @amp_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{{.*}}ISAToBinaryTimeInMs
// FATBIN-NOT: gpu.binary
