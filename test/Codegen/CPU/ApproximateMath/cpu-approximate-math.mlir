// RUN: amp-opt %s -split-input-file --amp-cpu-approximate-math | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-approximate-math \
// RUN:   | FileCheck %s --check-prefix=FMA
// RUN: amp-opt %s -split-input-file --amp-cpu-approximate-math=ops=exp \
// RUN:   | FileCheck %s --check-prefix=EXP
// RUN: %expect_error --stderr "no approximation of 'math.sqrt'" -- \
// RUN:   amp-opt %s --amp-cpu-approximate-math=ops=exp,sqrt

// The default set (erf, exp, log, tanh): the f32 op becomes arithmetic,
// llvm.intr.fma and llvm.intr.floor, no call left for convert-math-to-libm;
// f64 keeps libm. (The f64 erf comes last: the CHECK-NOTs cover all the
// expansions before it.)

// CHECK-LABEL: func.func @gelu_parts
// CHECK-NOT: math.erf {{.*}} : f32
// CHECK-NOT: math.exp {{.*}} : f32
// CHECK-NOT: math.fma
// CHECK-NOT: math.floor
// CHECK: %[[D:.+]] = math.erf %{{.+}} : f64
// CHECK-NEXT: return %{{.+}}, %{{.+}}, %[[D]] : f32, f32, f64
// FMA-LABEL: func.func @gelu_parts
// FMA: llvm.intr.fma
// FMA: llvm.intr.floor
// EXP-LABEL: func.func @gelu_parts
// EXP: math.erf %{{.+}} : f32
// EXP-NOT: math.exp {{.*}} : f32
// EXP: math.erf %{{.+}} : f64
func.func @gelu_parts(%x: f32, %d: f64) -> (f32, f32, f64) {
  %e = math.erf %x : f32
  %p = math.exp %x : f32
  %ed = math.erf %d : f64
  return %e, %p, %ed : f32, f32, f64
}

// -----

// Vectors of f32 (as after vectorization) are approximated lane-wise.

// CHECK-LABEL: func.func @vector_log_tanh
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.fma
// CHECK: return
// FMA-LABEL: func.func @vector_log_tanh
// FMA: llvm.intr.fma{{.*}}vector<8xf32>
// EXP-LABEL: func.func @vector_log_tanh
// EXP: math.log
// EXP: math.tanh
func.func @vector_log_tanh(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>) {
  %l = math.log %x : vector<8xf32>
  %t = math.tanh %x : vector<8xf32>
  return %l, %t : vector<8xf32>, vector<8xf32>
}

// -----

// Ops outside the set stay; math.fma written by the user becomes the
// intrinsic too (convert-math-to-libm would call fmaf).

// CHECK-LABEL: func.func @others
// CHECK: math.sqrt %{{.+}} : f32
// CHECK: math.powf %{{.+}} : f32
// CHECK: llvm.intr.fma(%{{.+}}, %{{.+}}, %{{.+}}) : (f32, f32, f32) -> f32
func.func @others(%x: f32, %y: f32) -> (f32, f32, f32) {
  %s = math.sqrt %x : f32
  %p = math.powf %x, %y : f32
  %f = math.fma %x, %y, %x : f32
  return %s, %p, %f : f32, f32, f32
}

// -----

// Tensors are left alone (the CPU pipeline runs the pass on loops over
// buffers; upstream's patterns build scalar and vector code only).

// CHECK-LABEL: func.func @tensors
// CHECK-NEXT: math.exp %{{.+}} : tensor<4xf32>
// CHECK-NEXT: math.fma %{{.+}} : tensor<4xf32>
func.func @tensors(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = math.exp %x : tensor<4xf32>
  %f = math.fma %x, %x, %x : tensor<4xf32>
  return %e, %f : tensor<4xf32>, tensor<4xf32>
}
