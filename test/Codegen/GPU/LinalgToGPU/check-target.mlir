// RUN: rm -rf %t && split-file %s %t
// RUN: mkdir -p %t/cuda/nvvm/libdevice %t/empty
// RUN: touch %t/cuda/nvvm/libdevice/libdevice.10.bc
// RUN: amp-opt %t/module.mlir --amp-gpu-check-target="toolkit=%t/cuda" | FileCheck %s
// RUN: amp-opt %t/module.mlir --amp-gpu-check-target | FileCheck %s
// RUN: amp-opt %t/not-a-directory.mlir --amp-gpu-check-target="toolkit=%t/missing" -verify-diagnostics
// RUN: amp-opt %t/no-libdevice.mlir --amp-gpu-check-target="toolkit=%t/empty" -verify-diagnostics
// RUN: amp-opt %t/module.mlir --amp-gpu-check-target="chip=sm_90 toolkit=%t/cuda" | FileCheck %s
// RUN: amp-opt %t/unknown-chip.mlir --amp-gpu-check-target="chip=sm_900" -verify-diagnostics
// RUN: amp-opt %t/unknown-chip-name.mlir --amp-gpu-check-target="chip=gfx90a" -verify-diagnostics

// A known architecture passes; one LLVM's NVPTX backend does not know is an
// error (it would only warn, then emit PTX for a processor that does not
// exist). A toolkit root with nvvm/libdevice/libdevice.10.bc passes, and so
// does no toolkit at all (MLIR searches for one); the IR is not changed. A root that
// is not a directory or lacks libdevice is an error on the module, before
// anything is lowered (gpu-module-to-binary would only warn and emit calls
// to unresolved __nv_* functions).

// CHECK-LABEL: func.func @f
//  CHECK-NEXT:   return

//--- module.mlir
func.func @f() {
  return
}

//--- not-a-directory.mlir
// expected-error-re @below {{amp-gpu-pipeline: the CUDA toolkit '{{.*}}/missing' (option toolkit) is not a directory}}
module {
}

//--- no-libdevice.mlir
// expected-error-re @below {{amp-gpu-pipeline: the CUDA toolkit '{{.*}}/empty' has no libdevice ({{.*}}/empty/nvvm/libdevice/libdevice.10.bc)}}
module {
}

//--- unknown-chip.mlir
// expected-error @below {{amp-gpu-pipeline: 'sm_900' (option chip) is not an architecture LLVM's NVPTX backend knows, such as sm_90}}
module {
}

//--- unknown-chip-name.mlir
// expected-error @below {{amp-gpu-pipeline: 'gfx90a' (option chip) is not an architecture LLVM's NVPTX backend knows, such as sm_90}}
module {
}
