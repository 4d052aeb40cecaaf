// f8 tensors through the CPU pipeline: amp-expand-float8 turns the
// conversions into integer code before arith-to-llvm (LLVM has no f8
// types), and f8 elements are loaded and stored as i8, constants, fills,
// transposes and copies included; the result translates to LLVM IR. The
// values are checked by
// test/Codegen/Common/ExpandFloat8/expand-float8-execution.test.
// RUN: amp-opt %s --amp-cpu-pipeline | FileCheck %s --implicit-check-not=arith.
// RUN: amp-opt %s --amp-cpu-pipeline | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-LABEL: llvm.func @quantize_kernel
// CHECK: llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.store %{{.+}}, %{{.+}} : i8, !llvm.ptr
// CHECK-LABEL: llvm.func @dequantize_kernel
// CHECK: llvm.load %{{.+}} : !llvm.ptr -> i8
// CHECK-NOT: llvm.fpext
// CHECK: llvm.store %{{.+}}, %{{.+}} : bf16, !llvm.ptr

// An f8 constant tensor is bytes (1, 2, -448, 0.5 in e4m3fn); the fill
// stores 1.5 in e5m2 (0x3e).
// IR: @__constant_4xf8E4M3FN = private constant [4 x i8] c"8@\FE0"
// IR-LABEL: define {{.*}} @fill_transpose_kernel
// IR: store i8 62,
// IR-LABEL: define {{.*}} @const_add_kernel
// IR: load i8,
#id = affine_map<(d0) -> (d0)>
func.func @quantize(%x: tensor<1024xf32>) -> tensor<1024xf8E4M3FN> {
  %init = tensor.empty() : tensor<1024xf8E4M3FN>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<1024xf8E4M3FN>) {
  ^bb0(%a: f32, %o: f8E4M3FN):
    %lo = arith.constant -448.0 : f32
    %hi = arith.constant 448.0 : f32
    %c = arith.maximumf %a, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %y = arith.truncf %d : f32 to f8E4M3FN
    linalg.yield %y : f8E4M3FN
  } -> tensor<1024xf8E4M3FN>
  return %r : tensor<1024xf8E4M3FN>
}

func.func @dequantize(%x: tensor<1024xf8E5M2>) -> tensor<1024xbf16> {
  %init = tensor.empty() : tensor<1024xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf8E5M2>) outs(%init : tensor<1024xbf16>) {
  ^bb0(%a: f8E5M2, %o: bf16):
    %y = arith.extf %a : f8E5M2 to bf16
    linalg.yield %y : bf16
  } -> tensor<1024xbf16>
  return %r : tensor<1024xbf16>
}

func.func @fill_transpose(%x: tensor<64x32xf8E4M3FN>) -> (tensor<32x64xf8E4M3FN>, tensor<16x16xf8E5M2>) {
  %e = tensor.empty() : tensor<32x64xf8E4M3FN>
  %t = linalg.transpose ins(%x : tensor<64x32xf8E4M3FN>) outs(%e : tensor<32x64xf8E4M3FN>) permutation = [1, 0]
  %c = arith.constant 1.5 : f8E5M2
  %e2 = tensor.empty() : tensor<16x16xf8E5M2>
  %f = linalg.fill ins(%c : f8E5M2) outs(%e2 : tensor<16x16xf8E5M2>) -> tensor<16x16xf8E5M2>
  return %t, %f : tensor<32x64xf8E4M3FN>, tensor<16x16xf8E5M2>
}

func.func @const_add(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = arith.constant dense<[1.0, 2.0, -448.0, 0.5]> : tensor<4xf8E4M3FN>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %k : tensor<4xf32>, tensor<4xf8E4M3FN>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f8E4M3FN, %o: f32):
    %w = arith.extf %b : f8E4M3FN to f32
    %s = arith.addf %a, %w : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @copy(%x: memref<8xf8E5M2>, %y: memref<8xf8E5M2>) {
  linalg.copy ins(%x : memref<8xf8E5M2>) outs(%y : memref<8xf8E5M2>)
  memref.copy %x, %y : memref<8xf8E5M2> to memref<8xf8E5M2>
  return
}
