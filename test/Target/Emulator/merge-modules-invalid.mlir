// Two modules whose renamed definitions would collide are an error naming
// the symbol, not a module with two definitions of it.
// RUN: amp-opt %s --pass-pipeline='builtin.module(gpu.module(amp-emulator-lower-kernels),amp-emulator-merge-modules)' -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @a__b {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  gpu.module @a {
    // expected-error @below {{two merged modules define "a__b"}}
    gpu.func @b() kernel {
      gpu.return
    }
    gpu.func @c() kernel {
      gpu.return
    }
  }
}
