// amp.fp8_quantize executed through the CPU pipeline (its linalg lowering,
// fusion, bufferization, amp-expand-float8): x * scale clamped to the
// format's largest finite value and rounded to nearest even, which is
// Numerics.h's saturating conversion of x * scale (the expected codes below
// are floatToFloat8E4M3FN / floatToFloat8E5M2 with saturate, as signed
// bytes). The inputs, with scale 2: +-0, 1, 224 (448: the largest e4m3fn),
// 232 (464: the tie above 448, to even 448), 240 (480: past it), +-1e30,
// NaN, 2^-11 (the tie between 0 and e4m3fn's smallest subnormal, to 0),
// 1.5 * 2^-11 (above it), 0.53125 and 0.59375 (ties between e4m3fn
// neighbours 1, 1.125 and 1.25: to even), -3, 20000, 30000, -31000 (-62000:
// past e5m2's tie at 61440), 2^-18 (2^-17, the tie below e5m2's smallest
// subnormal) and +-inf, which become NaN rather than saturate (a finite
// 1e30 saturates): NaN's sign bit is the machine's (x86 makes inf - inf
// negative), so either sign's NaN codes match. The inputs come from a
// mutable global, so nothing folds.
// RUN: amp-opt %s --amp-cpu-pipeline \
// RUN:   | amp-opt --convert-vector-to-llvm --convert-arith-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s

// CHECK-LABEL: e4m3fn
// CHECK-NEXT: 0
// CHECK-NEXT: -128
// CHECK-NEXT: 64
// CHECK-NEXT: 126
// CHECK-NEXT: 126
// CHECK-NEXT: 126
// CHECK-NEXT: 126
// CHECK-NEXT: -2
// CHECK-NEXT: 127
// CHECK-NEXT: 0
// CHECK-NEXT: 1
// CHECK-NEXT: 56
// CHECK-NEXT: 58
// CHECK-NEXT: -52
// CHECK-NEXT: 126
// CHECK-NEXT: 126
// CHECK-NEXT: -2
// CHECK-NEXT: 0
// CHECK-NEXT: {{^(127|-1)$}}
// CHECK-NEXT: {{^(127|-1)$}}
// CHECK-LABEL: e5m2
// CHECK-NEXT: 0
// CHECK-NEXT: -128
// CHECK-NEXT: 64
// CHECK-NEXT: 95
// CHECK-NEXT: 95
// CHECK-NEXT: 96
// CHECK-NEXT: 123
// CHECK-NEXT: -5
// CHECK-NEXT: 126
// CHECK-NEXT: 20
// CHECK-NEXT: 22
// CHECK-NEXT: 60
// CHECK-NEXT: 61
// CHECK-NEXT: -58
// CHECK-NEXT: 121
// CHECK-NEXT: 123
// CHECK-NEXT: -5
// CHECK-NEXT: 0
// CHECK-NEXT: {{^(125|126|127|-3|-2|-1)$}}
// CHECK-NEXT: {{^(125|126|127|-3|-2|-1)$}}

memref.global "private" @inputs : memref<20xf32> = dense<[
  0.0, -0.0, 1.0, 224.0, 232.0, 240.0, 1.0e30, -1.0e30, 0x7FC00000,
  0x3A000000, 0x3A400000, 0.53125, 0.59375, -3.0, 20000.0, 30000.0,
  -31000.0, 0x36800000, 0x7F800000, 0xFF800000]>

func.func @quantize_e4m3fn(%x: tensor<20xf32>, %s: tensor<f32>) -> tensor<20xf8E4M3FN> {
  %q, %amax = amp.fp8_quantize %x, %s : tensor<20xf32> -> tensor<20xf8E4M3FN>
  return %q : tensor<20xf8E4M3FN>
}

func.func @quantize_e5m2(%x: tensor<20xf32>, %s: tensor<f32>) -> tensor<20xf8E5M2> {
  %q, %amax = amp.fp8_quantize %x, %s : tensor<20xf32> -> tensor<20xf8E5M2>
  return %q : tensor<20xf8E5M2>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %m = memref.get_global @inputs : memref<20xf32>
  %x = bufferization.to_tensor %m restrict : memref<20xf32> to tensor<20xf32>
  %two = memref.alloc() : memref<f32>
  %c2 = arith.constant 2.0 : f32
  memref.store %c2, %two[] : memref<f32>
  %s = bufferization.to_tensor %two restrict : memref<f32> to tensor<f32>
  %e4 = call @quantize_e4m3fn(%x, %s) : (tensor<20xf32>, tensor<f32>) -> tensor<20xf8E4M3FN>
  %e5 = call @quantize_e5m2(%x, %s) : (tensor<20xf32>, tensor<f32>) -> tensor<20xf8E5M2>
  vector.print str "e4m3fn\n"
  scf.for %i = %c0 to %c20 step %c1 {
    %v = tensor.extract %e4[%i] : tensor<20xf8E4M3FN>
    %b = arith.bitcast %v : f8E4M3FN to i8
    vector.print %b : i8
  }
  vector.print str "e5m2\n"
  scf.for %i = %c0 to %c20 step %c1 {
    %v = tensor.extract %e5[%i] : tensor<20xf8E5M2>
    %b = arith.bitcast %v : f8E5M2 to i8
    vector.print %b : i8
  }
  return
}
