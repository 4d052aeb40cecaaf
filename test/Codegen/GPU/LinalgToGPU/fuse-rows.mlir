// RUN: amp-opt %s -split-input-file --amp-gpu-fuse-rows="max-unrolled-strides=0" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-fuse-rows | FileCheck %s --check-prefix=UNROLL
// RUN: not amp-opt %s -split-input-file --amp-gpu-fuse-rows="max-unrolled-strides=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: amp-gpu-fuse-rows: block-size must be at least 32, max-unrolled-strides at least 0

// Chains of row-wise generics over the same rows (the bufferized lowering of
// amp.softmax, amp.log_softmax, amp.layer_norm, amp.layer_norm_grad, taken
// from the GPU pipeline before amp-gpu-parallel-reductions) become one
// gpu.launch with a block per row: reductions are strided accumulations and
// gpu.all_reduce, the per-row scalars stay in registers, elementwise stages
// are strided loops over the row. Per-row buffers only the chain uses
// disappear; those read after it are stored by thread 0. The checks below
// show the loops (max-unrolled-strides=0); by default a thread's few
// strides over a row are straight-line code (UNROLL).

// Softmax f32: row max, sum of exp(x - max), divide; 4 rows of 128, a block
// of 128 threads per row. The max and the sum never go through memory.
// By default (UNROLL) the thread's one element is straight-line code,
// loaded once and held in a register for the sum and the divide: the row
// is read from memory once.
// UNROLL-LABEL: func.func @softmax
//   UNROLL-NOT: scf.for
//       UNROLL: gpu.launch
//       UNROLL: %[[V:.+]] = memref.load %{{.+}} : memref<4x128xf32>
//   UNROLL-NOT: memref.load
//       UNROLL: gpu.all_reduce maximumf
//       UNROLL: arith.subf %[[V]]
//       UNROLL: math.exp
//       UNROLL: gpu.all_reduce add
//       UNROLL: arith.subf %[[V]]
//       UNROLL: math.exp
//       UNROLL: arith.divf
//   UNROLL-NOT: memref.load
//       UNROLL: memref.store
//   UNROLL-NOT: scf.for
//       UNROLL: gpu.terminator
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: memref<4x128xf32>, %[[Y:.+]]: memref<4x128xf32>)
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ROWS:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[T:.+]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[ROWS]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[T]],
// CHECK: %[[MACC:.+]] = scf.for %[[J:.+]] = %[[TX]] to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %{{.+}}) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[BX]], %[[J]]] : memref<4x128xf32>
// CHECK: arith.maximumf %[[A]], %[[V]] : f32
// CHECK: %[[MRED:.+]] = gpu.all_reduce maximumf %[[MACC]] uniform
// CHECK: %[[MAX:.+]] = arith.maximumf %[[NINF]], %[[MRED]] : f32
// CHECK: %[[SACC:.+]] = scf.for %[[J:.+]] = %[[TX]] to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %{{.+}}) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[BX]], %[[J]]] : memref<4x128xf32>
// CHECK: %[[D:.+]] = arith.subf %[[V]], %[[MAX]] : f32
// CHECK: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK: arith.addf %[[A]], %[[E]] : f32
// CHECK: %[[SRED:.+]] = gpu.all_reduce add %[[SACC]] uniform
// CHECK: %[[SUM:.+]] = arith.addf %[[ZERO]], %[[SRED]] : f32
// CHECK: scf.for %[[J:.+]] = %[[TX]] to %{{.+}} step %{{.+}} {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[BX]], %[[J]]] : memref<4x128xf32>
// CHECK: %[[D:.+]] = arith.subf %[[V]], %[[MAX]] : f32
// CHECK: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK: %[[Q:.+]] = arith.divf %[[E]], %[[SUM]] : f32
// CHECK: memref.store %[[Q]], %[[Y]][%[[BX]], %[[J]]] : memref<4x128xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @softmax(%arg0: memref<4x128xf32>, %arg1: memref<4x128xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x128xf32>) outs(%alloc : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_1 : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0, %alloc : memref<4x128xf32>, memref<4xf32>) outs(%alloc_1 : memref<4xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %0 = arith.subf %in, %in_2 : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc, %alloc_1 : memref<4x128xf32>, memref<4xf32>, memref<4xf32>) outs(%arg1 : memref<4x128xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %0 = arith.subf %in, %in_2 : f32
    %1 = math.exp %0 : f32
    %2 = arith.divf %1, %in_3 : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %alloc : memref<4xf32>
  memref.dealloc %alloc_1 : memref<4xf32>
  return
}

// -----

// Softmax with f16 input and output: loads widened, the result rounded
// once; the statistics in f32 registers.
// CHECK-LABEL: func.func @softmax_f16
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: memref.load %{{.+}} : memref<4x128xf16>
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: gpu.all_reduce maximumf
// CHECK: gpu.all_reduce add
// CHECK: scf.for
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[Q:.+]] = arith.divf
// CHECK: %[[H:.+]] = arith.truncf %[[Q]] : f32 to f16
// CHECK: memref.store %[[H]], %{{.+}} : memref<4x128xf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @softmax_f16(%arg0: memref<4x128xf16>, %arg1: memref<4x128xf16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x128xf16>) outs(%alloc : memref<4xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.maximumf %out, %0 : f32
    linalg.yield %1 : f32
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_1 : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0, %alloc : memref<4x128xf16>, memref<4xf32>) outs(%alloc_1 : memref<4xf32>) {
  ^bb0(%in: f16, %in_2: f32, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.subf %0, %in_2 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc, %alloc_1 : memref<4x128xf16>, memref<4xf32>, memref<4xf32>) outs(%arg1 : memref<4x128xf16>) {
  ^bb0(%in: f16, %in_2: f32, %in_3: f32, %out: f16):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.subf %0, %in_2 : f32
    %2 = math.exp %1 : f32
    %3 = arith.divf %2, %in_3 : f32
    %4 = arith.truncf %3 : f32 to f16
    linalg.yield %4 : f16
  }
  memref.dealloc %alloc : memref<4xf32>
  memref.dealloc %alloc_1 : memref<4xf32>
  return
}

// -----

// Log-softmax: x - max - log(sum); the log of the per-row sum is computed
// in the row loop from the register.
// CHECK-LABEL: func.func @log_softmax
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: %[[MRED:.+]] = gpu.all_reduce maximumf
// CHECK: %[[MAX:.+]] = arith.maximumf %{{.+}}, %[[MRED]] : f32
// CHECK: %[[SRED:.+]] = gpu.all_reduce add
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %[[SRED]] : f32
// CHECK: scf.for
// CHECK: %[[D:.+]] = arith.subf %{{.+}}, %[[MAX]] : f32
// CHECK: %[[L:.+]] = math.log %[[SUM]] : f32
// CHECK: %[[R:.+]] = arith.subf %[[D]], %[[L]] : f32
// CHECK: memref.store %[[R]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @log_softmax(%arg0: memref<4x128xf32>, %arg1: memref<4x128xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x128xf32>) outs(%alloc : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_1 : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0, %alloc : memref<4x128xf32>, memref<4xf32>) outs(%alloc_1 : memref<4xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %0 = arith.subf %in, %in_2 : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc, %alloc_1 : memref<4x128xf32>, memref<4xf32>, memref<4xf32>) outs(%arg1 : memref<4x128xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %0 = arith.subf %in, %in_2 : f32
    %1 = math.log %in_3 : f32
    %2 = arith.subf %0, %1 : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %alloc : memref<4xf32>
  memref.dealloc %alloc_1 : memref<4xf32>
  return
}

// -----

// LayerNorm forward (f16 input, f32 weight and bias): sum -> mean (a
// per-row scalar stage), sum of squared deviations -> rstd, normalize. The
// sums are registers (their buffers are gone); mean and rstd are results,
// stored by thread 0 after the row loop (no barrier: the chain never read
// them from memory).
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: memref<4x64xf16>, %[[W:.+]]: memref<64xf32>, %[[B:.+]]: memref<64xf32>, %[[Y:.+]]: memref<4x64xf16>, %[[MEAN:.+]]: memref<4xf32>, %[[RSTD:.+]]: memref<4xf32>)
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in ({{.+}}) threads(%[[TX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[T:[^,]+]],
// CHECK: %[[S1:.+]] = gpu.all_reduce add
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %[[S1]] : f32
// CHECK: %[[M:.+]] = arith.divf %[[SUM]], %{{.+}} : f32
// CHECK: scf.for
// CHECK: arith.subf %{{.+}}, %[[M]] : f32
// CHECK: %[[S2:.+]] = gpu.all_reduce add
// CHECK: %[[VAR:.+]] = arith.addf %{{.+}}, %[[S2]] : f32
// CHECK: %[[SQ:.+]] = math.sqrt
// CHECK: %[[R:.+]] = arith.divf %{{.+}}, %[[SQ]] : f32
// CHECK: scf.for %[[J:.+]] = %[[TX]]
// CHECK-DAG: memref.load %[[X]][%[[BX]], %[[J]]] : memref<4x64xf16>
// CHECK-DAG: memref.load %[[W]][%[[J]]] : memref<64xf32>
// CHECK-DAG: memref.load %[[B]][%[[J]]] : memref<64xf32>
// CHECK: arith.mulf %{{.+}}, %[[R]] : f32
// CHECK: memref.store %{{.+}}, %[[Y]][%[[BX]], %[[J]]] : memref<4x64xf16>
// CHECK: }
// CHECK-NOT: gpu.barrier
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[TX]], %{{.+}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %[[M]], %[[MEAN]][%[[BX]]] : memref<4xf32>
// CHECK: memref.store %[[R]], %[[RSTD]][%[[BX]]] : memref<4xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @layer_norm(%arg0: memref<4x64xf16>, %arg1: memref<64xf32>, %arg2: memref<64xf32>, %arg3: memref<4x64xf16>, %arg4: memref<4xf32>, %arg5: memref<4xf32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 9.99999974E-6 : f32
  %cst_1 = arith.constant 6.400000e+01 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_2 : f32) outs(%alloc : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x64xf16>) outs(%alloc : memref<4xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%alloc : memref<4xf32>) outs(%arg4 : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %cst_1 : f32
    linalg.yield %0 : f32
  }
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_2 : f32) outs(%alloc_3 : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg4 : memref<4x64xf16>, memref<4xf32>) outs(%alloc_3 : memref<4xf32>) {
  ^bb0(%in: f16, %in_4: f32, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.subf %0, %in_4 : f32
    %2 = arith.mulf %1, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%alloc_3 : memref<4xf32>) outs(%arg5 : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %cst_1 : f32
    %1 = arith.addf %0, %cst_0 : f32
    %2 = math.sqrt %1 : f32
    %3 = arith.divf %cst, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg4, %arg5, %arg1, %arg2 : memref<4x64xf16>, memref<4xf32>, memref<4xf32>, memref<64xf32>, memref<64xf32>) outs(%arg3 : memref<4x64xf16>) {
  ^bb0(%in: f16, %in_4: f32, %in_5: f32, %in_6: f32, %in_7: f32, %out: f16):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.subf %0, %in_4 : f32
    %2 = arith.mulf %1, %in_5 : f32
    %3 = arith.mulf %2, %in_6 : f32
    %4 = arith.addf %3, %in_7 : f32
    %5 = arith.truncf %4 : f32 to f16
    linalg.yield %5 : f16
  }
  memref.dealloc %alloc : memref<4xf32>
  memref.dealloc %alloc_3 : memref<4xf32>
  return
}

// -----

// LayerNorm backward (f16): two row reductions and the input gradient are
// one launch; the column reductions after it (weight and bias gradients)
// are left alone.
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK: gpu.launch
// CHECK: gpu.all_reduce add
// CHECK: gpu.all_reduce add
// CHECK: scf.for
// CHECK: memref.store %{{.+}} : memref<4x64xf16>
// CHECK: gpu.terminator
// CHECK: memref.alloc() {{.*}} : memref<64xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
func.func @layer_norm_grad(%arg0: memref<4x64xf16>, %arg1: memref<4x64xf16>, %arg2: memref<4xf32>, %arg3: memref<4xf32>, %arg4: memref<64xf16>, %arg5: memref<4x64xf16>, %arg6: memref<64xf16>, %arg7: memref<64xf16>) {
  %cst = arith.constant 6.400000e+01 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg4 : memref<4x64xf16>, memref<64xf16>) outs(%alloc : memref<4xf32>) {
  ^bb0(%in: f16, %in_4: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_4 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc_1 : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1, %arg4, %arg2, %arg3 : memref<4x64xf16>, memref<4x64xf16>, memref<64xf16>, memref<4xf32>, memref<4xf32>) outs(%alloc_1 : memref<4xf32>) {
  ^bb0(%in: f16, %in_4: f16, %in_5: f16, %in_6: f32, %in_7: f32, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_4 : f16 to f32
    %2 = arith.extf %in_5 : f16 to f32
    %3 = arith.mulf %0, %2 : f32
    %4 = arith.subf %1, %in_6 : f32
    %5 = arith.mulf %4, %in_7 : f32
    %6 = arith.mulf %3, %5 : f32
    %7 = arith.addf %out, %6 : f32
    linalg.yield %7 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1, %arg4, %arg2, %arg3, %alloc, %alloc_1 : memref<4x64xf16>, memref<4x64xf16>, memref<64xf16>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) outs(%arg5 : memref<4x64xf16>) {
  ^bb0(%in: f16, %in_4: f16, %in_5: f16, %in_6: f32, %in_7: f32, %in_8: f32, %in_9: f32, %out: f16):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_4 : f16 to f32
    %2 = arith.subf %1, %in_6 : f32
    %3 = arith.mulf %2, %in_7 : f32
    %4 = arith.extf %in_5 : f16 to f32
    %5 = arith.mulf %0, %4 : f32
    %6 = arith.divf %in_9, %cst : f32
    %7 = arith.mulf %3, %6 : f32
    %8 = arith.subf %5, %7 : f32
    %9 = arith.divf %in_8, %cst : f32
    %10 = arith.subf %8, %9 : f32
    %11 = arith.mulf %in_7, %10 : f32
    %12 = arith.truncf %11 : f32 to f16
    linalg.yield %12 : f16
  }
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc_2 : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg0, %arg1, %arg2, %arg3 : memref<4x64xf16>, memref<4x64xf16>, memref<4xf32>, memref<4xf32>) outs(%alloc_2 : memref<64xf32>) {
  ^bb0(%in: f16, %in_4: f16, %in_5: f32, %in_6: f32, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_4 : f16 to f32
    %2 = arith.subf %1, %in_5 : f32
    %3 = arith.mulf %2, %in_6 : f32
    %4 = arith.mulf %0, %3 : f32
    %5 = arith.addf %out, %4 : f32
    linalg.yield %5 : f32
  }
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc_3 : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg0 : memref<4x64xf16>) outs(%alloc_3 : memref<64xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%alloc_2 : memref<64xf32>) outs(%arg6 : memref<64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%alloc_3 : memref<64xf32>) outs(%arg7 : memref<64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  }
  memref.dealloc %alloc : memref<4xf32>
  memref.dealloc %alloc_1 : memref<4xf32>
  memref.dealloc %alloc_2 : memref<64xf32>
  memref.dealloc %alloc_3 : memref<64xf32>
  return
}

// -----

// Left alone: the divide reads rows of another length (a row max of 4x128,
// then a stage over 4x64), and a transposed read of the row.
// CHECK-LABEL: func.func @other_lengths
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-LABEL: func.func @transposed_read
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK: linalg.generic
#x = affine_map<(d0, d1) -> (d0, d1)>
#xt = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @other_lengths(%x: memref<4x128xf32>, %z: memref<4x64xf32>, %y: memref<4x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<4xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<4xf32>)
  linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%max : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%z, %max : memref<4x64xf32>, memref<4xf32>) outs(%y : memref<4x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %max : memref<4xf32>
  return
}
func.func @transposed_read(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<64xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<64xf32>)
  linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%max : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#xt, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<64x64xf32>, memref<64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %max : memref<64xf32>
  return
}
