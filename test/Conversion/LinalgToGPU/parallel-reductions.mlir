// RUN: amp-opt %s -split-input-file --amp-gpu-parallel-reductions | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-parallel-reductions="block-size=128 max-blocks=64" | FileCheck %s --check-prefix=SMALL

// Reductions on device buffers become launches that reduce in parallel:
// rows get one block each (threads stride over the row, gpu.all_reduce over
// the block, thread 0 combines with the output's initial value); full
// reductions a grid of blocks writing partials, then one block. What does
// not match is left alone for the loop mapping.

#x = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row sum of f16 data accumulating in f32 (LayerNorm statistics): one
// block of 256 threads per row, the body's extf cloned into the loop.
// CHECK-LABEL: func.func @row_sum_f16
// CHECK-SAME: (%[[X:.+]]: memref<16384x2048xf16>, %[[OUT:.+]]: memref<16384xf32>)
// CHECK-DAG: %[[ROWS:.+]] = arith.constant 16384 : index
// CHECK-DAG: %[[T:.+]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[ROWS]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[T]],
// CHECK-DAG: %[[ZERO:.+]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[LEN:.+]] = arith.constant 2048 : index
// CHECK: %[[ACC:.+]] = scf.for %[[J:.+]] = %[[TX]] to %[[LEN]] step %{{.+}} iter_args(%[[A:.+]] = %[[ZERO]]) -> (f32) {
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[BX]], %[[J]]] : memref<16384x2048xf16>
// CHECK: %[[E:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK: %[[S:.+]] = arith.addf %[[A]], %[[E]] : f32
// CHECK: scf.yield %[[S]] : f32
// CHECK: %[[SUM:.+]] = gpu.all_reduce add %[[ACC]] uniform
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[TX]], %{{.+}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[INIT:.+]] = memref.load %[[OUT]][%[[BX]]] : memref<16384xf32>
// CHECK: %[[R:.+]] = arith.addf %[[INIT]], %[[SUM]] : f32
// CHECK: memref.store %[[R]], %[[OUT]][%[[BX]]] : memref<16384xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @row_sum_f16(%x: memref<16384x2048xf16>, %out: memref<16384xf32>) {
  linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16384x2048xf16>) outs(%out : memref<16384xf32>) {
  ^bb0(%in: f16, %acc: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A row max (softmax) over a 3-d tensor: the two parallel dimensions are
// the linearized block index, the identity is -inf; rows of 100 elements
// get 128 threads.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[ROWS:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[T:.+]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[ROWS]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[T]],
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[I1:.+]] = arith.remui %[[BX]], %[[C4]] : index
// CHECK-DAG: %[[I0:.+]] = arith.divui %[[BX]], %[[C4]] : index
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for {{.+}} iter_args(%[[A:.+]] = %[[NINF]]) -> (f32) {
// CHECK: memref.load %{{.+}}[%[[I0]], %[[I1]], %{{.+}}] : memref<16x4x100xf32>
// CHECK: arith.maximumf %[[A]], %{{.+}} : f32
// CHECK: gpu.all_reduce maximumf %{{.+}} uniform
// CHECK: memref.load %{{.+}}[%[[I0]], %[[I1]]] : memref<16x4xf32>
// CHECK: arith.maximumf
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[I0]], %[[I1]]] : memref<16x4xf32>
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_max(%x: memref<16x4x100xf32>, %out: memref<16x4xf32>) {
  linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<16x4x100xf32>) outs(%out : memref<16x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Cross-entropy's pick of the target logit, select(c, out + x, out): the
// masked element counts as the identity.
// CHECK-LABEL: func.func @row_pick
// CHECK: gpu.launch
// CHECK: scf.for %[[J:.+]] = {{.+}} iter_args(%[[A:.+]] = %[[ZERO:.+]]) -> (f32) {
// CHECK: %[[T:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: %[[C:.+]] = arith.cmpi eq, %[[J]], %[[T]] : index
// CHECK: %[[M:.+]] = arith.select %[[C]], %{{.+}}, %{{.+}} : f32
// CHECK: arith.addf %[[A]], %[[M]] : f32
// CHECK: gpu.all_reduce add
#x2 = affine_map<(d0, d1) -> (d0, d1)>
#r2 = affine_map<(d0, d1) -> (d0)>
func.func @row_pick(%x: memref<32x1000xf32>, %t: memref<32xi64>, %out: memref<32xf32>) {
  linalg.generic {indexing_maps = [#x2, #r2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x, %t : memref<32x1000xf32>, memref<32xi64>) outs(%out : memref<32xf32>) {
  ^bb0(%in: f32, %target: i64, %acc: f32):
    %0 = linalg.index 1 : index
    %1 = arith.index_cast %target : i64 to index
    %2 = arith.cmpi eq, %0, %1 : index
    %3 = arith.addf %acc, %in : f32
    %4 = arith.select %2, %3, %acc : f32
    linalg.yield %4 : f32
  }
  return
}

// -----

// A full sum of 8192x2048 f32 (the mean loss, a sum of squares for the
// gradient norm): stage 1, 1024 blocks of 256 threads striding over the
// linearized tensor by 1024 * 256, partials in a temporary buffer; stage 2,
// one block reducing the partials and adding the initial value.
// CHECK-LABEL: func.func @full_sum
// CHECK-SAME: (%[[X:.+]]: memref<8192x2048xf32>, %[[OUT:.+]]: memref<f32>)
// CHECK: %[[P:.+]] = memref.alloc() : memref<1024xf32>
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[T:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[G:.+]] = arith.constant 1024 : index
// CHECK: gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[G]], %{{.+}} = %[[C1]], %{{.+}} = %[[C1]]) threads(%[[TX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[T]],
// CHECK: %[[B0:.+]] = arith.muli %[[BX]], %{{.+}} : index
// CHECK: %[[START:.+]] = arith.addi %[[B0]], %[[TX]] : index
// CHECK-DAG: %[[STRIDE:.+]] = arith.constant 262144 : index
// CHECK-DAG: %[[N:.+]] = arith.constant 16777216 : index
// CHECK: scf.for %[[J:.+]] = %[[START]] to %[[N]] step %[[STRIDE]]
// CHECK-DAG: %[[COL:.+]] = arith.remui %[[J]], %{{.+}} : index
// CHECK-DAG: %[[ROW:.+]] = arith.divui %[[J]], %{{.+}} : index
// CHECK: %[[V:.+]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK: arith.mulf %[[V]], %[[V]] : f32
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %[[P]][%[[BX]]] : memref<1024xf32>
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %c1{{(_[0-9]+)?}}, {{.+}} threads(%[[TX2:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %c256{{(_[0-9]+)?}},
// CHECK: scf.for %[[K:.+]] = %[[TX2]] to %{{.+}} step
// CHECK: memref.load %[[P]][%[[K]]] : memref<1024xf32>
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK: %[[INIT:.+]] = memref.load %[[OUT]][] : memref<f32>
// CHECK: %[[R:.+]] = arith.addf %[[INIT]], %{{.+}} : f32
// CHECK: memref.store %[[R]], %[[OUT]][] : memref<f32>
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[P]] : memref<1024xf32>
// CHECK-NOT: linalg.generic
// With block-size=128 max-blocks=64: 64 blocks of 128 threads.
// SMALL-LABEL: func.func @full_sum
// SMALL: memref.alloc() : memref<64xf32>
// SMALL-DAG: arith.constant 128 : index
// SMALL-DAG: arith.constant 64 : index
// SMALL: arith.constant 8192 : index
#xf = affine_map<(d0, d1) -> (d0, d1)>
#s = affine_map<(d0, d1) -> ()>
func.func @full_sum(%x: memref<8192x2048xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#xf, #s], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<8192x2048xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The overflow check of dynamic loss scaling: "any element of the f16
// gradient is inf or nan", an or of i1 reduced as i32. 30M elements: 1024
// blocks, partials of i1.
// CHECK-LABEL: func.func @any_nonfinite
// CHECK: %[[P:.+]] = memref.alloc() : memref<1024xi1>
// CHECK: gpu.launch
// CHECK: %[[FALSE:.+]] = arith.constant false
// CHECK: scf.for {{.+}} iter_args(%[[A:.+]] = %[[FALSE]]) -> (i1) {
// CHECK: math.absf
// CHECK: %[[BAD:.+]] = arith.cmpf ueq
// CHECK: arith.ori %[[A]], %[[BAD]] : i1
// CHECK: %[[W:.+]] = arith.extui %{{.+}} : i1 to i32
// CHECK: %[[OR:.+]] = gpu.all_reduce or %[[W]] uniform
// CHECK: arith.trunci %[[OR]] : i32 to i1
// CHECK: memref.store %{{.+}}, %[[P]]
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK: memref.load %{{.+}}[] : memref<i1>
// CHECK: arith.ori
// CHECK: memref.store %{{.+}}, %{{.+}}[] : memref<i1>
// CHECK: memref.dealloc %[[P]]
#g = affine_map<(d0) -> (d0)>
#s1 = affine_map<(d0) -> ()>
func.func @any_nonfinite(%grad: memref<30000000xf16>, %found: memref<i1>) {
  %inf = arith.constant 0x7F800000 : f32
  linalg.generic {indexing_maps = [#g, #s1], iterator_types = ["reduction"]}
      ins(%grad : memref<30000000xf16>) outs(%found : memref<i1>) {
  ^bb0(%in: f16, %acc: i1):
    %0 = arith.extf %in : f16 to f32
    %1 = math.absf %0 : f32
    %2 = arith.cmpf ueq, %1, %inf : f32
    %3 = arith.ori %acc, %2 : i1
    linalg.yield %3 : i1
  }
  return
}

// -----

// A small full reduction (the mean of 32 per-row losses) is one block of 32
// threads, no partials.
// CHECK-LABEL: func.func @small_full_sum
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.+}}) in (%{{.+}} = %[[C1]], {{.+}} threads({{.+}}) in (%{{.+}} = %[[C32]],
// CHECK: gpu.all_reduce add
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @small_full_sum(%x: memref<32xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<32xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Left alone: a column reduction (bias gradient; the loop mapping gives one
// thread per column), a short row (one thread per row is enough), a
// transposed read, an f16 accumulator, a body whose element part reads the
// output, a combiner gpu.all_reduce does not have.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.launch
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT: gpu.launch
// CHECK: return
#ij = affine_map<(d0, d1) -> (d0, d1)>
#ji = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0)>
#j = affine_map<(d0, d1) -> (d1)>
func.func @left_alone(%x: memref<512x256xf32>, %h: memref<512x256xf16>,
                      %short: memref<512x10xf32>, %cols: memref<256xf32>,
                      %rows: memref<512xf32>, %rows16: memref<512xf16>,
                      %trows: memref<256xf32>) {
  linalg.generic {indexing_maps = [#ij, #j], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<512x256xf32>) outs(%cols : memref<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#ij, #i], iterator_types = ["parallel", "reduction"]}
      ins(%short : memref<512x10xf32>) outs(%rows : memref<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#ji, #i], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x256xf32>) outs(%trows : memref<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#ij, #i], iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<512x256xf16>) outs(%rows16 : memref<512xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %0 = arith.addf %acc, %in : f16
    linalg.yield %0 : f16
  }
  linalg.generic {indexing_maps = [#ij, #i], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x256xf32>) outs(%rows : memref<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %acc, %in : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#ij, #i], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x256xf32>) outs(%rows : memref<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.subf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}
