// f8 tensors through the CPU pipeline: amp-expand-float8 turns the
// conversions into integer code before arith-to-llvm (LLVM has no f8
// types), and f8 elements are loaded and stored as i8. The values are
// checked by test/Codegen/Common/ExpandFloat8/expand-float8-execution.test.
// RUN: amp-opt %s --amp-cpu-pipeline | FileCheck %s --implicit-check-not=arith. --implicit-check-not=f8E

// CHECK-LABEL: llvm.func @quantize_kernel
// CHECK: llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.store %{{.+}}, %{{.+}} : i8, !llvm.ptr
// CHECK-LABEL: llvm.func @dequantize_kernel
// CHECK: llvm.load %{{.+}} : !llvm.ptr -> i8
// CHECK-NOT: llvm.fpext
// CHECK: llvm.store %{{.+}}, %{{.+}} : bf16, !llvm.ptr
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
