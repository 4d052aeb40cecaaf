// bf16 arithmetic runs in f32 between explicit, expanded conversions: no
// `bfloat` operation reaches LLVM, which would round it through calls to
// __truncsfbf2 on CPUs without AVX512-BF16 (libgcc 12 has no such helper,
// so a hardsigmoid model in bf16 failed to load).
// RUN: amp-opt %s --amp-cpu-pipeline | FileCheck %s

// CHECK-LABEL: llvm.func @clamp_bf16
// CHECK-NOT: llvm.f{{[a-z]+}} {{.*}}: bf16
// CHECK-NOT: llvm.intr.{{[a-z]+}}{{.*}}bf16
// CHECK: llvm.fadd {{.*}} : f32
// CHECK-NOT: llvm.f{{[a-z]+}} {{.*}}: bf16
// CHECK-NOT: llvm.intr.{{[a-z]+}}{{.*}}bf16
// CHECK: llvm.return
func.func @clamp_bf16(%x: bf16, %y: bf16) -> bf16 {
  %zero = arith.constant 0.0 : bf16
  %sum = arith.addf %x, %y : bf16
  %max = arith.maximumf %sum, %zero : bf16
  return %max : bf16
}
