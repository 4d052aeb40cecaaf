// RUN: amp-opt %s --amp-expand-float8 --split-input-file | FileCheck %s

// amp-expand-float8: conversions to and from f8E4M3FN and f8E5M2 become
// integer code (LLVM has no f8 types). The constants checked are the
// format's: the rounding increment (half an f8 unit less one), the rebias,
// the smallest normal, the largest finite code and the NaN/infinity code.
// expand-float8-execution.test runs the code on every case that matters.

// f32 -> e4m3fn: bias 127 -> 7, 3 of 23 mantissa bits kept (20 dropped).
// CHECK-LABEL: func.func @truncf_f32_e4m3fn
// CHECK-SAME: (%[[X:.+]]: f32)
// CHECK-NOT: arith.truncf
// CHECK-DAG: %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK-DAG: arith.constant 2147483647 : i32
// CHECK-DAG: arith.constant 524287 : i32
// CHECK-DAG: arith.constant 960 : i32
// CHECK-DAG: arith.constant 1015021568 : i32
// CHECK-DAG: arith.constant 126 : i32
// CHECK-DAG: arith.constant 2139095040 : i32
// CHECK: %[[BYTE:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK: %[[F8:.+]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
// CHECK: return %[[F8]]
func.func @truncf_f32_e4m3fn(%x: f32) -> f8E4M3FN {
  %y = arith.truncf %x : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// f16 -> e5m2: the same bias (no rebias), 8 mantissa bits dropped; the
// 16-bit source is widened to i32 for the arithmetic. Past 57344 (code
// 123) gives infinity (124); NaN keeps a payload bit (126 | bit).
// CHECK-LABEL: func.func @truncf_f16_e5m2
// CHECK-SAME: (%[[X:.+]]: f16)
// CHECK: %[[BITS:.+]] = arith.bitcast %[[X]] : f16 to i16
// CHECK: arith.extui %[[BITS]] : i16 to i32
// CHECK-DAG: arith.constant 127 : i32
// CHECK-DAG: arith.constant 1024 : i32
// CHECK-DAG: arith.constant 123 : i32
// CHECK-DAG: arith.constant 124 : i32
// CHECK-DAG: arith.constant 126 : i32
// CHECK-DAG: arith.constant 31744 : i32
// CHECK: arith.trunci %{{.+}} : i32 to i8
// CHECK: arith.bitcast %{{.+}} : i8 to f8E5M2
// CHECK-NOT: arith.truncf
func.func @truncf_f16_e5m2(%x: f16) -> f8E5M2 {
  %y = arith.truncf %x : f16 to f8E5M2
  return %y : f8E5M2
}

// -----

// bf16 vectors -> e4m3fn: the same code on vectors, constants splat.
// CHECK-LABEL: func.func @truncf_bf16_vector_e4m3fn
// CHECK: arith.bitcast %{{.+}} : vector<8xbf16> to vector<8xi16>
// CHECK: arith.extui %{{.+}} : vector<8xi16> to vector<8xi32>
// CHECK-DAG: arith.constant dense<7> : vector<8xi32>
// CHECK-DAG: arith.constant dense<960> : vector<8xi32>
// CHECK-DAG: arith.constant dense<15488> : vector<8xi32>
// CHECK: arith.trunci %{{.+}} : vector<8xi32> to vector<8xi8>
// CHECK: arith.bitcast %{{.+}} : vector<8xi8> to vector<8xf8E4M3FN>
// CHECK-NOT: arith.truncf
func.func @truncf_bf16_vector_e4m3fn(%x: vector<8xbf16>) -> vector<8xf8E4M3FN> {
  %y = arith.truncf %x : vector<8xbf16> to vector<8xf8E4M3FN>
  return %y : vector<8xf8E4M3FN>
}

// -----

// f64 -> e5m2 computes in i64.
// CHECK-LABEL: func.func @truncf_f64_e5m2
// CHECK: arith.bitcast %{{.+}} : f64 to i64
// CHECK: arith.trunci %{{.+}} : i64 to i8
// CHECK-NOT: arith.truncf
func.func @truncf_f64_e5m2(%x: f64) -> f8E5M2 {
  %y = arith.truncf %x : f64 to f8E5M2
  return %y : f8E5M2
}

// -----

// e5m2 -> f32 on vectors: normals rebias (+112), subnormals are their
// mantissa converted exactly with the exponent lowered by 16 (2^27 in the
// bits), exponent 31 is infinity or a quiet NaN.
// CHECK-LABEL: func.func @extf_e5m2_vector_f32
// CHECK: arith.bitcast %{{.+}} : vector<4xf8E5M2> to vector<4xi8>
// CHECK: arith.extui %{{.+}} : vector<4xi8> to vector<4xi32>
// CHECK-DAG: arith.constant dense<112> : vector<4xi32>
// CHECK-DAG: arith.uitofp %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-DAG: arith.constant dense<134217728> : vector<4xi32>
// CHECK-DAG: arith.constant dense<2143289344> : vector<4xi32>
// CHECK-DAG: arith.constant dense<2139095040> : vector<4xi32>
// CHECK: %[[R:.+]] = arith.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-NOT: arith.extf
// CHECK: return %[[R]]
func.func @extf_e5m2_vector_f32(%x: vector<4xf8E5M2>) -> vector<4xf32> {
  %y = arith.extf %x : vector<4xf8E5M2> to vector<4xf32>
  return %y : vector<4xf32>
}

// -----

// e4m3fn -> f16: the f32 bits rebiased (>> 13, - 112 << 10); the NaN is
// 0x7f80 (payload all ones, as APFloat widens it).
// CHECK-LABEL: func.func @extf_e4m3fn_f16
// CHECK-DAG: arith.constant 2146435072 : i32
// CHECK-DAG: arith.constant 13 : i32
// CHECK-DAG: arith.constant 114688 : i32
// CHECK-DAG: arith.constant 32640 : i32
// CHECK: arith.trunci %{{.+}} : i32 to i16
// CHECK: arith.bitcast %{{.+}} : i16 to f16
// CHECK-NOT: arith.extf
func.func @extf_e4m3fn_f16(%x: f8E4M3FN) -> f16 {
  %y = arith.extf %x : f8E4M3FN to f16
  return %y : f16
}

// -----

// e4m3fn -> bf16: the top half of the f32 bits.
// CHECK-LABEL: func.func @extf_e4m3fn_bf16
// CHECK: %[[SIXTEEN:.+]] = arith.constant 16 : i32
// CHECK: %[[HIGH:.+]] = arith.shrui %{{.+}}, %[[SIXTEEN]] : i32
// CHECK: %[[HALF:.+]] = arith.trunci %[[HIGH]] : i32 to i16
// CHECK: arith.bitcast %[[HALF]] : i16 to bf16
// CHECK-NOT: arith.extf
func.func @extf_e4m3fn_bf16(%x: f8E4M3FN) -> bf16 {
  %y = arith.extf %x : f8E4M3FN to bf16
  return %y : bf16
}

// -----

// e5m2 -> f64: exactly to f32, then f32 -> f64 (an ordinary fpext).
// CHECK-LABEL: func.func @extf_e5m2_f64
// CHECK: %[[F32:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: arith.extf %[[F32]] : f32 to f64
// CHECK-NOT: f8E5M2 to
func.func @extf_e5m2_f64(%x: f8E5M2) -> f64 {
  %y = arith.extf %x : f8E5M2 to f64
  return %y : f64
}

// -----

// Arithmetic on f8 runs in f32 between conversions, which are expanded
// too: no arith op on f8 is left.
// CHECK-LABEL: func.func @maximumf_e4m3fn
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.+}} : i8 to f8E4M3FN
// CHECK: return
func.func @maximumf_e4m3fn(%x: f8E4M3FN, %y: f8E4M3FN) -> f8E4M3FN {
  %m = arith.maximumf %x, %y : f8E4M3FN
  return %m : f8E4M3FN
}

// -----

// Comparisons of f8 values too.
// CHECK-LABEL: func.func @cmpf_e5m2
// CHECK: arith.cmpf olt, %{{.+}}, %{{.+}} : f32
// CHECK-NOT: arith.extf
func.func @cmpf_e5m2(%x: f8E5M2, %y: f8E5M2) -> i1 {
  %c = arith.cmpf olt, %x, %y : f8E5M2
  return %c : i1
}

// -----

// What LLVM lowers already stays: other conversions, loads, stores,
// constants and selects of f8 (the LLVM type converter makes them i8).
// CHECK-LABEL: func.func @untouched
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: arith.constant 1.500000e+00 : f8E4M3FN
// CHECK: memref.load %{{.+}} : memref<4xf8E4M3FN>
// CHECK: arith.select %{{.+}} : f8E4M3FN
// CHECK: memref.store %{{.+}} : memref<4xf8E4M3FN>
func.func @untouched(%x: f32, %m: memref<4xf8E4M3FN>, %i: index, %c: i1) -> bf16 {
  %b = arith.truncf %x : f32 to bf16
  %k = arith.constant 1.5 : f8E4M3FN
  %v = memref.load %m[%i] : memref<4xf8E4M3FN>
  %s = arith.select %c, %v, %k : f8E4M3FN
  memref.store %s, %m[%i] : memref<4xf8E4M3FN>
  return %b : bf16
}
