// Every kernel launch passes as many arguments as the kernel's PTX .entry
// declares .params (cuLaunchKernel reads one pointer per parameter from the
// array the host builds), with model-abi=true (the public functions take
// bare pointers, the launches memref descriptors) and without.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-compile %amp_src_root/examples/mlp_train_step.mlir --emit=mlir --precision=fp16 -o %t/mlp.mlir
// RUN: amp-opt %t/mlp.mlir --amp-gpu-pipeline="format=isa model-abi=true" -o %t/mlp-abi.mlir
// RUN: cd %S/Inputs && %python launch_params.py < %t/mlp-abi.mlir | FileCheck %s
// RUN: amp-opt %t/mlp.mlir --amp-gpu-pipeline="format=isa" -o %t/mlp-plain.mlir
// RUN: cd %S/Inputs && %python launch_params.py < %t/mlp-plain.mlir | FileCheck %s
// RUN: amp-compile %amp_src_root/examples/transformer_block.mlir --emit=mlir --precision=bf16 --optimizer=adamw -o %t/transformer.mlir
// RUN: amp-opt %t/transformer.mlir --amp-gpu-pipeline="format=isa model-abi=true" -o %t/transformer-abi.mlir
// RUN: cd %S/Inputs && %python launch_params.py < %t/transformer-abi.mlir | FileCheck %s
// The public function keeps the bare-pointer model ABI.
// RUN: FileCheck %s --check-prefix=ABI < %t/mlp-abi.mlir

// CHECK-NOT: the host passes
// CHECK: launches {{[1-9][0-9]*}}, mismatched 0
// ABI: llvm.func @mlp_train_step(%arg0: !llvm.ptr, %arg1: !llvm.ptr,
