// Accuracy of the default approximations, by running them. For each op,
// 200003 f32 inputs spread over a range (linearly, or as e^t for t spread
// linearly: "e^[a, b]"), each result against the f64 libm function of the
// same input, in units of max(|exact| 2^-23, 2^-149) (one unit is at most
// an ulp of the result, at least half of one; a subnormal result counts in
// subnormal steps). Ranges: erf on [-6, 6]
// (beyond, erf is +-1 in f32) and on e^[-103, 1.8] (down to subnormal
// inputs); exp on [-110, 88.7] (from where it underflows to 0, through
// subnormal results, to overflow); log on e^[-103, 88] (subnormal inputs
// to FLT_MAX); tanh on [-10, 10] and e^[-103, 2.3]. The bounds are those
// docs/Lowering.md states, just above what the approximations measure
// (libm's own f32 functions measure 0.5-1.3 units the same way). Then the
// special values, read from a buffer so that folding cannot compute them
// at compile time.

// RUN: amp-opt %s --amp-cpu-approximate-math --convert-vector-to-scf \
// RUN:   --convert-scf-to-cf --convert-vector-to-llvm --convert-math-to-libm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm \
// RUN:   --finalize-memref-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: erf within 2.3 units: 1, max
// CHECK: erf_tiny within 2.3 units: 1, max
// CHECK: exp within 2.1 units: 1, max
// CHECK: log within 0.7 units: 1, max
// CHECK: tanh within 2.3 units: 1, max
// CHECK: tanh_tiny within 2.3 units: 1, max

// erf(inf, -inf, nan), exp(inf, -inf, nan, 89, -104), log(inf, 0, -1, nan),
// tanh(inf, -inf, nan):
// CHECK-NEXT: ( 1, -1, nan, inf, 0, nan, inf, 0, inf, -inf, nan, nan, 1, -1, nan )

// Prints whether the largest error of math.OP over the range is within
// `bound` ulps (1: yes), and that error.
func.func @check_erf() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200003 : index
  %zero = arith.constant 0.0 : f64
  %ulp_of_one = arith.constant 1.1920928955078125e-07 : f64
  %subnormal_step = arith.constant 1.401298464324817e-45 : f64
  %lo = arith.constant -6.0 : f64
  %step = arith.constant 5.99991000134998e-05 : f64
  %bound = arith.constant 2.3 : f64
  %max = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %t0 = arith.mulf %kf, %step : f64
    %t = arith.addf %t0, %lo : f64
    %u = arith.addf %t, %zero : f64
    %x = arith.truncf %u : f64 to f32
    %xd = arith.extf %x : f32 to f64
    %y = math.erf %x : f32
    %yd = arith.extf %y : f32 to f64
    %exact = math.erf %xd : f64
    %d = arith.subf %yd, %exact : f64
    %error = math.absf %d : f64
    %magnitude = math.absf %exact : f64
    %ulp0 = arith.mulf %magnitude, %ulp_of_one : f64
    %ulp = arith.maximumf %ulp0, %subnormal_step : f64
    %ulps = arith.divf %error, %ulp : f64
    %m2 = arith.maximumf %m, %ulps : f64
    scf.yield %m2 : f64
  }
  %ok = arith.cmpf ole, %max, %bound : f64
  %oki = arith.extui %ok : i1 to i64
  vector.print str "erf within 2.3 units: "
  vector.print %oki : i64 punctuation <no_punctuation>
  vector.print str ", max "
  vector.print %max : f64
  return
}

func.func @check_erf_tiny() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200003 : index
  %zero = arith.constant 0.0 : f64
  %ulp_of_one = arith.constant 1.1920928955078125e-07 : f64
  %subnormal_step = arith.constant 1.401298464324817e-45 : f64
  %lo = arith.constant -103.0 : f64
  %step = arith.constant 0.0005239921401178982 : f64
  %bound = arith.constant 2.3 : f64
  %max = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %t0 = arith.mulf %kf, %step : f64
    %t = arith.addf %t0, %lo : f64
    %u = math.exp %t : f64
    %x = arith.truncf %u : f64 to f32
    %xd = arith.extf %x : f32 to f64
    %y = math.erf %x : f32
    %yd = arith.extf %y : f32 to f64
    %exact = math.erf %xd : f64
    %d = arith.subf %yd, %exact : f64
    %error = math.absf %d : f64
    %magnitude = math.absf %exact : f64
    %ulp0 = arith.mulf %magnitude, %ulp_of_one : f64
    %ulp = arith.maximumf %ulp0, %subnormal_step : f64
    %ulps = arith.divf %error, %ulp : f64
    %m2 = arith.maximumf %m, %ulps : f64
    scf.yield %m2 : f64
  }
  %ok = arith.cmpf ole, %max, %bound : f64
  %oki = arith.extui %ok : i1 to i64
  vector.print str "erf_tiny within 2.3 units: "
  vector.print %oki : i64 punctuation <no_punctuation>
  vector.print str ", max "
  vector.print %max : f64
  return
}

func.func @check_exp() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200003 : index
  %zero = arith.constant 0.0 : f64
  %ulp_of_one = arith.constant 1.1920928955078125e-07 : f64
  %subnormal_step = arith.constant 1.401298464324817e-45 : f64
  %lo = arith.constant -110.0 : f64
  %step = arith.constant 0.000993485097723534 : f64
  %bound = arith.constant 2.1 : f64
  %max = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %t0 = arith.mulf %kf, %step : f64
    %t = arith.addf %t0, %lo : f64
    %u = arith.addf %t, %zero : f64
    %x = arith.truncf %u : f64 to f32
    %xd = arith.extf %x : f32 to f64
    %y = math.exp %x : f32
    %yd = arith.extf %y : f32 to f64
    %exact = math.exp %xd : f64
    %d = arith.subf %yd, %exact : f64
    %error = math.absf %d : f64
    %magnitude = math.absf %exact : f64
    %ulp0 = arith.mulf %magnitude, %ulp_of_one : f64
    %ulp = arith.maximumf %ulp0, %subnormal_step : f64
    %ulps = arith.divf %error, %ulp : f64
    %m2 = arith.maximumf %m, %ulps : f64
    scf.yield %m2 : f64
  }
  %ok = arith.cmpf ole, %max, %bound : f64
  %oki = arith.extui %ok : i1 to i64
  vector.print str "exp within 2.1 units: "
  vector.print %oki : i64 punctuation <no_punctuation>
  vector.print str ", max "
  vector.print %max : f64
  return
}

func.func @check_log() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200003 : index
  %zero = arith.constant 0.0 : f64
  %ulp_of_one = arith.constant 1.1920928955078125e-07 : f64
  %subnormal_step = arith.constant 1.401298464324817e-45 : f64
  %lo = arith.constant -103.0 : f64
  %step = arith.constant 0.0009549856752148717 : f64
  %bound = arith.constant 0.7 : f64
  %max = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %t0 = arith.mulf %kf, %step : f64
    %t = arith.addf %t0, %lo : f64
    %u = math.exp %t : f64
    %x = arith.truncf %u : f64 to f32
    %xd = arith.extf %x : f32 to f64
    %y = math.log %x : f32
    %yd = arith.extf %y : f32 to f64
    %exact = math.log %xd : f64
    %d = arith.subf %yd, %exact : f64
    %error = math.absf %d : f64
    %magnitude = math.absf %exact : f64
    %ulp0 = arith.mulf %magnitude, %ulp_of_one : f64
    %ulp = arith.maximumf %ulp0, %subnormal_step : f64
    %ulps = arith.divf %error, %ulp : f64
    %m2 = arith.maximumf %m, %ulps : f64
    scf.yield %m2 : f64
  }
  %ok = arith.cmpf ole, %max, %bound : f64
  %oki = arith.extui %ok : i1 to i64
  vector.print str "log within 0.7 units: "
  vector.print %oki : i64 punctuation <no_punctuation>
  vector.print str ", max "
  vector.print %max : f64
  return
}

func.func @check_tanh() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200003 : index
  %zero = arith.constant 0.0 : f64
  %ulp_of_one = arith.constant 1.1920928955078125e-07 : f64
  %subnormal_step = arith.constant 1.401298464324817e-45 : f64
  %lo = arith.constant -10.0 : f64
  %step = arith.constant 9.999850002249966e-05 : f64
  %bound = arith.constant 2.3 : f64
  %max = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %t0 = arith.mulf %kf, %step : f64
    %t = arith.addf %t0, %lo : f64
    %u = arith.addf %t, %zero : f64
    %x = arith.truncf %u : f64 to f32
    %xd = arith.extf %x : f32 to f64
    %y = math.tanh %x : f32
    %yd = arith.extf %y : f32 to f64
    %exact = math.tanh %xd : f64
    %d = arith.subf %yd, %exact : f64
    %error = math.absf %d : f64
    %magnitude = math.absf %exact : f64
    %ulp0 = arith.mulf %magnitude, %ulp_of_one : f64
    %ulp = arith.maximumf %ulp0, %subnormal_step : f64
    %ulps = arith.divf %error, %ulp : f64
    %m2 = arith.maximumf %m, %ulps : f64
    scf.yield %m2 : f64
  }
  %ok = arith.cmpf ole, %max, %bound : f64
  %oki = arith.extui %ok : i1 to i64
  vector.print str "tanh within 2.3 units: "
  vector.print %oki : i64 punctuation <no_punctuation>
  vector.print str ", max "
  vector.print %max : f64
  return
}

func.func @check_tanh_tiny() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200003 : index
  %zero = arith.constant 0.0 : f64
  %ulp_of_one = arith.constant 1.1920928955078125e-07 : f64
  %subnormal_step = arith.constant 1.401298464324817e-45 : f64
  %lo = arith.constant -103.0 : f64
  %step = arith.constant 0.0005264921026184608 : f64
  %bound = arith.constant 2.3 : f64
  %max = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %t0 = arith.mulf %kf, %step : f64
    %t = arith.addf %t0, %lo : f64
    %u = math.exp %t : f64
    %x = arith.truncf %u : f64 to f32
    %xd = arith.extf %x : f32 to f64
    %y = math.tanh %x : f32
    %yd = arith.extf %y : f32 to f64
    %exact = math.tanh %xd : f64
    %d = arith.subf %yd, %exact : f64
    %error = math.absf %d : f64
    %magnitude = math.absf %exact : f64
    %ulp0 = arith.mulf %magnitude, %ulp_of_one : f64
    %ulp = arith.maximumf %ulp0, %subnormal_step : f64
    %ulps = arith.divf %error, %ulp : f64
    %m2 = arith.maximumf %m, %ulps : f64
    scf.yield %m2 : f64
  }
  %ok = arith.cmpf ole, %max, %bound : f64
  %oki = arith.extui %ok : i1 to i64
  vector.print str "tanh_tiny within 2.3 units: "
  vector.print %oki : i64 punctuation <no_punctuation>
  vector.print str ", max "
  vector.print %max : f64
  return
}

// Special values: the ops on the inputs above, loaded from a buffer (not
// constants the pass's folding could evaluate), results in one vector.
memref.global "private" @special_inputs : memref<15xf32> = dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800000, 0xFF800000, 0x7FC00000, 89.0, -104.0, 0x7F800000, 0.0, -1.0, 0x7FC00000, 0x7F800000, 0xFF800000, 0x7FC00000]>

func.func @special() {
  %inputs = memref.get_global @special_inputs : memref<15xf32>
  %v = arith.constant dense<0.0> : vector<15xf32>
  %c0 = arith.constant 0 : index
  %in0 = memref.load %inputs[%c0] : memref<15xf32>
  %r0 = math.erf %in0 : f32
  %v0 = vector.insert %r0, %v [0] : f32 into vector<15xf32>
  %c1 = arith.constant 1 : index
  %in1 = memref.load %inputs[%c1] : memref<15xf32>
  %r1 = math.erf %in1 : f32
  %v1 = vector.insert %r1, %v0 [1] : f32 into vector<15xf32>
  %c2 = arith.constant 2 : index
  %in2 = memref.load %inputs[%c2] : memref<15xf32>
  %r2 = math.erf %in2 : f32
  %v2 = vector.insert %r2, %v1 [2] : f32 into vector<15xf32>
  %c3 = arith.constant 3 : index
  %in3 = memref.load %inputs[%c3] : memref<15xf32>
  %r3 = math.exp %in3 : f32
  %v3 = vector.insert %r3, %v2 [3] : f32 into vector<15xf32>
  %c4 = arith.constant 4 : index
  %in4 = memref.load %inputs[%c4] : memref<15xf32>
  %r4 = math.exp %in4 : f32
  %v4 = vector.insert %r4, %v3 [4] : f32 into vector<15xf32>
  %c5 = arith.constant 5 : index
  %in5 = memref.load %inputs[%c5] : memref<15xf32>
  %r5 = math.exp %in5 : f32
  %v5 = vector.insert %r5, %v4 [5] : f32 into vector<15xf32>
  %c6 = arith.constant 6 : index
  %in6 = memref.load %inputs[%c6] : memref<15xf32>
  %r6 = math.exp %in6 : f32
  %v6 = vector.insert %r6, %v5 [6] : f32 into vector<15xf32>
  %c7 = arith.constant 7 : index
  %in7 = memref.load %inputs[%c7] : memref<15xf32>
  %r7 = math.exp %in7 : f32
  %v7 = vector.insert %r7, %v6 [7] : f32 into vector<15xf32>
  %c8 = arith.constant 8 : index
  %in8 = memref.load %inputs[%c8] : memref<15xf32>
  %r8 = math.log %in8 : f32
  %v8 = vector.insert %r8, %v7 [8] : f32 into vector<15xf32>
  %c9 = arith.constant 9 : index
  %in9 = memref.load %inputs[%c9] : memref<15xf32>
  %r9 = math.log %in9 : f32
  %v9 = vector.insert %r9, %v8 [9] : f32 into vector<15xf32>
  %c10 = arith.constant 10 : index
  %in10 = memref.load %inputs[%c10] : memref<15xf32>
  %r10 = math.log %in10 : f32
  %v10 = vector.insert %r10, %v9 [10] : f32 into vector<15xf32>
  %c11 = arith.constant 11 : index
  %in11 = memref.load %inputs[%c11] : memref<15xf32>
  %r11 = math.log %in11 : f32
  %v11 = vector.insert %r11, %v10 [11] : f32 into vector<15xf32>
  %c12 = arith.constant 12 : index
  %in12 = memref.load %inputs[%c12] : memref<15xf32>
  %r12 = math.tanh %in12 : f32
  %v12 = vector.insert %r12, %v11 [12] : f32 into vector<15xf32>
  %c13 = arith.constant 13 : index
  %in13 = memref.load %inputs[%c13] : memref<15xf32>
  %r13 = math.tanh %in13 : f32
  %v13 = vector.insert %r13, %v12 [13] : f32 into vector<15xf32>
  %c14 = arith.constant 14 : index
  %in14 = memref.load %inputs[%c14] : memref<15xf32>
  %r14 = math.tanh %in14 : f32
  %v14 = vector.insert %r14, %v13 [14] : f32 into vector<15xf32>
  vector.print %v14 : vector<15xf32>
  return
}

func.func @main() {
  call @check_erf() : () -> ()
  call @check_erf_tiny() : () -> ()
  call @check_exp() : () -> ()
  call @check_log() : () -> ()
  call @check_tanh() : () -> ()
  call @check_tanh_tiny() : () -> ()
  call @special() : () -> ()
  return
}
