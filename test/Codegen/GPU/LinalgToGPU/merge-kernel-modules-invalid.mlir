// amp-gpu-merge-kernel-modules refuses to merge into a name another symbol
// holds, and two modules that define one symbol after renaming.
// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-gpu-merge-kernel-modules
// An empty name is a bad option, not a module without a symbol name.
// RUN: not amp-opt %s -split-input-file --amp-gpu-merge-kernel-modules="name=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: amp-gpu-merge-kernel-modules: the option 'name' is empty; the merged gpu.module needs a symbol name

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k() kernel { gpu.return }
  }
  // expected-error @below {{cannot merge the kernel modules into 'amp_kernels': the name is taken}}
  func.func @amp_kernels() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// @x's helper @y__h is renamed from `h`; @y's kernel keeps its module's name,
// so @x__... and @y clash only when a module defines `<other>__<symbol>`.
module attributes {gpu.container_module} {
  gpu.module @x {
    gpu.func @k() kernel { gpu.return }
    gpu.func @k2() kernel { gpu.return }
  }
  gpu.module @x__k {
    // expected-error @below {{two merged modules define "x__k"}}
    gpu.func @x__k() kernel { gpu.return }
  }
}
