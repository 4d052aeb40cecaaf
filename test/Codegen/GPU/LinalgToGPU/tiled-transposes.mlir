// RUN: amp-opt %s -split-input-file --amp-gpu-prepare-linalg | FileCheck %s

// A transposed copy of a dense 2-D buffer (the TN operand copies of FP8
// GEMMs) becomes a launch of 32 x 32 tiles through workgroup memory, 32 x 8
// threads a tile: lanes read consecutive input columns into tile rows and,
// after a barrier, write consecutive output columns from tile columns.

// CHECK-LABEL: func.func @transpose_f8
//  CHECK-SAME:     (%[[IN:[[:alnum:]_]+]]: memref<64x96xf8E4M3FN>, %[[OUT:[[:alnum:]_]+]]: memref<96x64xf8E4M3FN>)
//   CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C2:.+]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C3:.+]] = arith.constant 3 : index
//   CHECK-DAG:   %[[C8:.+]] = arith.constant 8 : index
//   CHECK-DAG:   %[[C32:.+]] = arith.constant 32 : index
//       CHECK:   gpu.launch blocks(%[[BX:[[:alnum:]_]+]], %[[BY:[[:alnum:]_]+]], %{{[[:alnum:]_]+}}) in (%{{[[:alnum:]_]+}} = %[[C3]], %{{[[:alnum:]_]+}} = %[[C2]], %{{[[:alnum:]_]+}} = %[[C1]])
//  CHECK-SAME:     threads(%[[TX:[[:alnum:]_]+]], %[[TY:[[:alnum:]_]+]], %{{[[:alnum:]_]+}}) in (%{{[[:alnum:]_]+}} = %[[C32]], %{{[[:alnum:]_]+}} = %[[C8]], %{{[[:alnum:]_]+}} = %[[C1]])
//  CHECK-SAME:     workgroup(%[[TILE:[[:alnum:]_]+]] : memref<32x33xf8E4M3FN, #gpu.address_space<workgroup>>)
//       CHECK:     %[[ROW0:.+]] = arith.muli %[[BY]], %{{.+}}
//       CHECK:     %[[COL0:.+]] = arith.muli %[[BX]], %{{.+}}
//       CHECK:     %[[R:.+]] = arith.addi %[[TY]], %{{.+}}
//       CHECK:     %[[ROW:.+]] = arith.addi %[[ROW0]], %[[R]]
//       CHECK:     %[[COL:.+]] = arith.addi %[[COL0]], %[[TX]]
//       CHECK:     %[[V:.+]] = memref.load %[[IN]][%[[ROW]], %[[COL]]]
//       CHECK:     memref.store %[[V]], %[[TILE]][%[[R]], %[[TX]]]
// CHECK-COUNT-3:   memref.store %{{.+}}, %[[TILE]]
//   CHECK-NOT:     memref.store
//       CHECK:     gpu.barrier
//       CHECK:     %[[C:.+]] = arith.addi %[[TY]], %{{.+}}
//       CHECK:     %[[OROW:.+]] = arith.addi %[[COL0]], %[[C]]
//       CHECK:     %[[OCOL:.+]] = arith.addi %[[ROW0]], %[[TX]]
//       CHECK:     %[[W:.+]] = memref.load %[[TILE]][%[[TX]], %[[C]]]
//       CHECK:     memref.store %[[W]], %[[OUT]][%[[OROW]], %[[OCOL]]]
// CHECK-COUNT-3:   memref.store %{{.+}}, %[[OUT]]
//   CHECK-NOT:     memref.store
//       CHECK:     gpu.terminator
//   CHECK-NOT:   linalg.generic
func.func @transpose_f8(%in: memref<64x96xf8E4M3FN>, %out: memref<96x64xf8E4M3FN>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : memref<64x96xf8E4M3FN>) outs(%out : memref<96x64xf8E4M3FN>) {
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN):
    linalg.yield %a : f8E4M3FN
  }
  return
}

// -----

// Sizes 32 does not divide: the last tiles guard their accesses (input
// rows and columns when loading, output rows and columns when storing).

// CHECK-LABEL: func.func @transpose_ragged
//  CHECK-SAME:     (%[[IN:[[:alnum:]_]+]]: memref<40x33xbf16>, %[[OUT:[[:alnum:]_]+]]: memref<33x40xbf16>)
//       CHECK:   gpu.launch
//       CHECK:     arith.addi
//       CHECK:     %[[ROW:.+]] = arith.addi
//       CHECK:     %[[COL:.+]] = arith.addi
//       CHECK:     %[[C40:.+]] = arith.constant 40 : index
//       CHECK:     %[[IR:.+]] = arith.cmpi ult, %[[ROW]], %[[C40]]
//       CHECK:     %[[C33:.+]] = arith.constant 33 : index
//       CHECK:     %[[IC:.+]] = arith.cmpi ult, %[[COL]], %[[C33]]
//       CHECK:     %[[IN_BOUNDS:.+]] = arith.andi %[[IR]], %[[IC]]
//       CHECK:     scf.if %[[IN_BOUNDS]] {
//       CHECK:       memref.load %[[IN]][%[[ROW]], %[[COL]]]
//       CHECK:     gpu.barrier
//       CHECK:     arith.addi
//       CHECK:     %[[OROW:.+]] = arith.addi
//       CHECK:     %[[OCOL:.+]] = arith.addi
//       CHECK:     %[[D33:.+]] = arith.constant 33 : index
//       CHECK:     %[[OR:.+]] = arith.cmpi ult, %[[OROW]], %[[D33]]
//       CHECK:     %[[D40:.+]] = arith.constant 40 : index
//       CHECK:     %[[OC:.+]] = arith.cmpi ult, %[[OCOL]], %[[D40]]
//       CHECK:     %[[OUT_BOUNDS:.+]] = arith.andi %[[OR]], %[[OC]]
//       CHECK:     scf.if %[[OUT_BOUNDS]] {
//       CHECK:       memref.load
//       CHECK:       memref.store %{{.+}}, %[[OUT]][%[[OROW]], %[[OCOL]]]
func.func @transpose_ragged(%in: memref<40x33xbf16>, %out: memref<33x40xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : memref<40x33xbf16>) outs(%out : memref<33x40xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    linalg.yield %a : bf16
  }
  return
}

// -----

// Not plain transposed copies: left for the loop mapping.

// CHECK-LABEL: func.func @not_transposes
//   CHECK-NOT:   gpu.launch
//       CHECK:   linalg.generic
//       CHECK:     arith.negf
//       CHECK:   linalg.generic
//       CHECK:   linalg.generic
//   CHECK-NOT:   gpu.launch
func.func @not_transposes(%in: memref<64x96xf32>, %out: memref<96x64xf32>, %view: memref<96x64xf32, strided<[128, 1]>>, %same: memref<64x96xf32>) {
  // Computes on the way.
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : memref<64x96xf32>) outs(%out : memref<96x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  // Into a strided view.
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : memref<64x96xf32>) outs(%view : memref<96x64xf32, strided<[128, 1]>>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  // A plain copy.
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : memref<64x96xf32>) outs(%same : memref<64x96xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// The copied buffer is an FP8 quantization's output: the launch computes
// it in the quantization's place (the scale read once per thread), stores
// it and copies it transposed through the tile (cast_transpose). The FP8
// GEMM between them only reads the buffer; the copy's output allocation
// moves up with the copy.

// CHECK-LABEL: func.func @cast_transpose
//  CHECK-SAME:     (%[[X:[[:alnum:]_]+]]: memref<64x32xbf16>, %[[SCALE:[[:alnum:]_]+]]: memref<f32>
//       CHECK:   %[[Q:.+]] = memref.alloc() : memref<64x32xf8E4M3FN>
//       CHECK:   %[[T:.+]] = memref.alloc() : memref<32x64xf8E4M3FN>
//       CHECK:   gpu.launch
//       CHECK:     %[[S:.+]] = memref.load %[[SCALE]][]
//       CHECK:     arith.addi
//       CHECK:     %[[ROW:.+]] = arith.addi
//       CHECK:     %[[COL:.+]] = arith.addi
//       CHECK:     %[[V:.+]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
//       CHECK:     %[[E:.+]] = arith.extf %[[V]]
//       CHECK:     %[[M:.+]] = arith.mulf %[[E]], %[[S]]
//       CHECK:     %[[F:.+]] = arith.truncf %[[M]] : f32 to f8E4M3FN
//       CHECK:     memref.store %[[F]], %[[Q]][%[[ROW]], %[[COL]]]
//       CHECK:     memref.store %[[F]], %{{.+}}[%{{.+}}, %{{.+}}] : memref<32x33xf8E4M3FN, #gpu.address_space<workgroup>>
//       CHECK:     gpu.barrier
//       CHECK:     memref.store %{{.+}}, %[[T]]
//       CHECK:   call @amp_gpu_gemm_fp8
//   CHECK-NOT:   linalg.generic
func.func private @amp_gpu_gemm_fp8(i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr)
func.func @cast_transpose(%x: memref<64x32xbf16>, %scale: memref<f32>, %w: memref<16x32xf8E4M3FN>, %sa: memref<f32>, %sb: memref<f32>) -> memref<32x64xf8E4M3FN> {
  %q = memref.alloc() : memref<64x32xf8E4M3FN>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %scale : memref<64x32xbf16>, memref<f32>) outs(%q : memref<64x32xf8E4M3FN>) {
  ^bb0(%a: bf16, %s: f32, %o: f8E4M3FN):
    %e = arith.extf %a : bf16 to f32
    %m = arith.mulf %e, %s : f32
    %f = arith.truncf %m : f32 to f8E4M3FN
    linalg.yield %f : f8E4M3FN
  }
  // The forward product reads %q.
  %d = memref.alloc() : memref<64x16xbf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.constant 64 : i64
  %n = arith.constant 16 : i64
  %k = arith.constant 32 : i64
  %pq = memref.extract_aligned_pointer_as_index %q : memref<64x32xf8E4M3FN> -> index
  %iq = arith.index_cast %pq : index to i64
  %ptrq = llvm.inttoptr %iq : i64 to !llvm.ptr
  %pw = memref.extract_aligned_pointer_as_index %w : memref<16x32xf8E4M3FN> -> index
  %iw = arith.index_cast %pw : index to i64
  %ptrw = llvm.inttoptr %iw : i64 to !llvm.ptr
  %pa = memref.extract_aligned_pointer_as_index %sa : memref<f32> -> index
  %ia = arith.index_cast %pa : index to i64
  %ptra = llvm.inttoptr %ia : i64 to !llvm.ptr
  %pb = memref.extract_aligned_pointer_as_index %sb : memref<f32> -> index
  %ib = arith.index_cast %pb : index to i64
  %ptrb = llvm.inttoptr %ib : i64 to !llvm.ptr
  %pd = memref.extract_aligned_pointer_as_index %d : memref<64x16xbf16> -> index
  %id = arith.index_cast %pd : index to i64
  %ptrd = llvm.inttoptr %id : i64 to !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  call @amp_gpu_gemm_fp8(%c0, %c0, %c0, %m, %n, %k, %c0, %c1, %ptrq, %ptrw, %ptra, %ptrb, %null, %c0, %ptrd, %null) : (i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
  %t = memref.alloc() : memref<32x64xf8E4M3FN>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q : memref<64x32xf8E4M3FN>) outs(%t : memref<32x64xf8E4M3FN>) {
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN):
    linalg.yield %a : f8E4M3FN
  }
  return %t : memref<32x64xf8E4M3FN>
}

// -----

// Something between the quantization and the copy writes the buffer (the
// GEMM's result is the quantized buffer here): the copy stays where it is,
// reading the buffer, and the quantization is left for the loop mapping.

// CHECK-LABEL: func.func @written_between
//       CHECK:   linalg.generic
//       CHECK:     arith.truncf
//       CHECK:   call @amp_gpu_gemm_fp8
//       CHECK:   gpu.launch
//       CHECK:     memref.load %{{.+}} : memref<64x32xf8E4M3FN>
//   CHECK-NOT:     arith.truncf
//       CHECK:     gpu.barrier
func.func private @amp_gpu_gemm_fp8(i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr)
func.func @written_between(%x: memref<64x32xbf16>, %scale: memref<f32>, %w: memref<16x32xf8E4M3FN>) -> memref<32x64xf8E4M3FN> {
  %q = memref.alloc() : memref<64x32xf8E4M3FN>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %scale : memref<64x32xbf16>, memref<f32>) outs(%q : memref<64x32xf8E4M3FN>) {
  ^bb0(%a: bf16, %s: f32, %o: f8E4M3FN):
    %e = arith.extf %a : bf16 to f32
    %m = arith.mulf %e, %s : f32
    %f = arith.truncf %m : f32 to f8E4M3FN
    linalg.yield %f : f8E4M3FN
  }
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.constant 64 : i64
  %n = arith.constant 32 : i64
  %k = arith.constant 32 : i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<16x32xf8E4M3FN> -> index
  %iw = arith.index_cast %pw : index to i64
  %ptrw = llvm.inttoptr %iw : i64 to !llvm.ptr
  %pq = memref.extract_aligned_pointer_as_index %q : memref<64x32xf8E4M3FN> -> index
  %iq = arith.index_cast %pq : index to i64
  %ptrq = llvm.inttoptr %iq : i64 to !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  call @amp_gpu_gemm_fp8(%c0, %c0, %c0, %m, %n, %k, %c0, %c1, %ptrw, %ptrw, %null, %null, %null, %c0, %ptrq, %null) : (i32, i32, i32, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
  %t = memref.alloc() : memref<32x64xf8E4M3FN>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q : memref<64x32xf8E4M3FN>) outs(%t : memref<32x64xf8E4M3FN>) {
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN):
    linalg.yield %a : f8E4M3FN
  }
  return %t : memref<32x64xf8E4M3FN>
}
