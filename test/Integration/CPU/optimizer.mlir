// Executes the loss-scaling and optimizer ops on the CPU (--amp-cpu-pipeline,
// then mlir-runner) and compares the printed results with PyTorch 1.13 on
// the same inputs (Inputs/optimizer.py holds the reference and the
// tolerances, with their reasoning): three SGD steps (momentum, Nesterov,
// weight decay), SGD with dampening from a given buffer and with an f16
// gradient, three AdamW steps against torch.optim.AdamW, AdamW's first
// update alone and a resumed step, skipped steps (found_inf = true with
// inf/NaN gradients: every result bit-identical to its operand),
// unscale_grads (clean, an overflowed f16 gradient, a NaN), clip_grad_norm
// against torch.nn.utils.clip_grad_norm_, and update_scale sequences against
// GradScaler's and Megatron-LM's update rules (growth after the interval,
// back-off, hysteresis 2, min/max clamps, never growing to inf). The ops live
// in functions called from @main so that they see runtime tensors.

// RUN: %python %S/Inputs/compare_with_torch.py %s --opt amp-opt \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// The exact results (flags, scaler sequences) are also checked as printed.
// RUN: amp-opt %s --amp-cpu-pipeline | mlir-runner -e main \
// RUN:   -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s --check-prefix=EXACT

// CHECK: PASS tensor 0 (scale_seed 1 * 65536) 
// CHECK-NEXT: PASS tensor 1 (scale_seed 0.75 * 3) 
// CHECK-NEXT: PASS tensor 2 (sgd nesterov param step 1) 
// CHECK-NEXT: PASS tensor 3 (sgd nesterov param step 2) 
// CHECK-NEXT: PASS tensor 4 (sgd nesterov param step 3) 
// CHECK-NEXT: PASS tensor 5 (sgd nesterov buffer step 3) 
// CHECK-NEXT: PASS tensor 6 (sgd dampening param step 2) 
// CHECK-NEXT: PASS tensor 7 (sgd dampening buffer step 2) 
// CHECK-NEXT: PASS tensor 8 (sgd plain f16 grad) 
// CHECK-NEXT: PASS tensor 9 (adamw param step 1) 
// CHECK-NEXT: PASS tensor 10 (adamw param step 2) 
// CHECK-NEXT: PASS tensor 11 (adamw param step 3) 
// CHECK-NEXT: PASS tensor 12 (adamw exp_avg step 3) 
// CHECK-NEXT: PASS tensor 13 (adamw exp_avg_sq step 3) 
// CHECK-NEXT: PASS tensor 14 (adamw first update) 
// CHECK-NEXT: PASS tensor 15 (adamw resumed param) 
// CHECK-NEXT: PASS tensor 16 (adamw resumed exp_avg) 
// CHECK-NEXT: PASS tensor 17 (adamw resumed exp_avg_sq) 
// CHECK-NEXT: PASS tensor 18 (skipped step keeps sgd param) 
// CHECK-NEXT: PASS tensor 19 (skipped step keeps sgd buffer) 
// CHECK-NEXT: PASS tensor 20 (skipped step keeps adamw param) 
// CHECK-NEXT: PASS tensor 21 (skipped step keeps adamw exp_avg) 
// CHECK-NEXT: PASS tensor 22 (skipped step keeps adamw exp_avg_sq) 
// CHECK-NEXT: PASS tensor 23 (unscale f16->f32) 
// CHECK-NEXT: PASS tensor 24 (unscale f32) 
// CHECK-NEXT: PASS tensor 25 (unscale f16->f16) 
// CHECK-NEXT: PASS tensor 26 (unscale found_inf clean) 
// CHECK-NEXT: PASS tensor 27 (unscale inf f16->f32) 
// CHECK-NEXT: PASS tensor 28 (unscale f32 scale 3) 
// CHECK-NEXT: PASS tensor 29 (unscale found_inf inf) 
// CHECK-NEXT: PASS tensor 30 (unscale nan) 
// CHECK-NEXT: PASS tensor 31 (unscale found_inf nan) 
// CHECK-NEXT: PASS tensor 32 (clip max_norm 1 grad 0) 
// CHECK-NEXT: PASS tensor 33 (clip max_norm 1 grad 1) 
// CHECK-NEXT: PASS tensor 34 (clip max_norm 1 norm) 
// CHECK-NEXT: PASS tensor 35 (clip max_norm 100 grad 0 (unchanged)) 
// CHECK-NEXT: PASS tensor 36 (clip max_norm 100 grad 1 (unchanged)) 
// CHECK-NEXT: PASS tensor 37 (clip max_norm 100 norm) 
// CHECK-NEXT: PASS tensor 38 (clip f16 grad) 
// CHECK-NEXT: PASS tensor 39 (clip f16 grad, f32 grad) 
// CHECK-NEXT: PASS tensor 40 (clip f16 norm) 
// CHECK-NEXT: PASS tensor 41 (update_scale a: GradScaler, interval 3: scale) 
// CHECK-NEXT: PASS tensor 42 (update_scale a: GradScaler, interval 3: growth tracker) 
// CHECK-NEXT: PASS tensor 43 (update_scale a: GradScaler, interval 3: hysteresis tracker) 
// CHECK-NEXT: PASS tensor 44 (update_scale b: hysteresis 2, interval 2: scale) 
// CHECK-NEXT: PASS tensor 45 (update_scale b: hysteresis 2, interval 2: growth tracker) 
// CHECK-NEXT: PASS tensor 46 (update_scale b: hysteresis 2, interval 2: hysteresis tracker) 
// CHECK-NEXT: PASS tensor 47 (update_scale c: min/max clamps, growth 3, backoff 0.25: scale) 
// CHECK-NEXT: PASS tensor 48 (update_scale c: min/max clamps, growth 3, backoff 0.25: growth tracker) 
// CHECK-NEXT: PASS tensor 49 (update_scale c: min/max clamps, growth 3, backoff 0.25: hysteresis tracker) 
// CHECK-NEXT: PASS tensor 50 (update_scale d: never grows to inf: scale) 
// CHECK-NEXT: PASS tensor 51 (update_scale d: never grows to inf: growth tracker) 
// CHECK-NEXT: PASS tensor 52 (update_scale d: never grows to inf: hysteresis tracker) 
// CHECK-NEXT: ALL 53 TENSORS PASS
// CHECK-NOT: FAIL

// The five equality flags of the skipped steps (all 1), then found_inf of
// the clean, overflowed and NaN unscale_grads.
// EXACT-COUNT-5: {{\[}}[1,   1,   1],
// EXACT: [0]
// EXACT: [1]
// EXACT: [1]
// update_scale sequence a (GradScaler, interval 3): FFFF T FFF TT FFF
// EXACT: [65536,  65536,  131072,  131072,  65536,  65536,  65536,  131072,  65536,  32768,  32768,  32768,  65536]
// EXACT: [1,  2,  0,  1,  0,  1,  2,  0,  0,  0,  1,  2,  0]
// EXACT: [1,  1,  1,  1,  0,  0,  0,  1,  0,  -1,  -1,  -1,  1]
// b (hysteresis 2, interval 2): T F TTT FF T FF
// EXACT: [1024,  1024,  512,  256,  128,  128,  256,  256,  256,  512]
// EXACT: [0,  1,  0,  0,  0,  1,  0,  0,  1,  0]
// EXACT: [1,  1,  0,  -1,  -2,  -2,  2,  1,  1,  2]
// c (growth 3, backoff 0.25, interval 1, min 2, max 50): TT FFFF T FF
// EXACT: [2,  2,  6,  18,  50,  50,  12.5,  37.5,  50]
// EXACT: [0,  0,  0,  0,  0,  0,  0,  0,  0]
// EXACT: [0,  -1,  1,  1,  1,  1,  0,  1,  1]
// d (max_scale 1e39 is inf in f32; 2e38 * 2 overflows): FF T F
// EXACT: [2e+38,  2e+38,  1e+38,  2e+38]
// EXACT: [0,  0,  0,  0]
// EXACT: [1,  1,  0,  1]

!t = tensor<2x3xf32>

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @scale_seed(%seed: tensor<f32>, %scale: tensor<f32>) -> tensor<f32> {
  %0 = amp.scale_seed %seed, %scale
  return %0 : tensor<f32>
}

// Three SGD steps with momentum, Nesterov and weight decay, starting from a
// zero buffer (= PyTorch's first step, buf = grad, since dampening is 0).
// The second step passes found_inf = false.
func.func @sgd_nesterov(%p: !t, %g1: !t, %g2: !t, %g3: !t, %buf: !t,
                        %lr: tensor<f32>, %no: tensor<i1>) -> (!t, !t, !t, !t) {
  %p1, %b1 = amp.sgd_update %p, %g1, momentum_buffer %buf, lr %lr {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-01 : f64} : !t, !t
  %p2, %b2 = amp.sgd_update %p1, %g2, momentum_buffer %b1, lr %lr, found_inf %no {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-01 : f64} : !t, !t
  %p3, %b3 = amp.sgd_update %p2, %g3, momentum_buffer %b2, lr %lr {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-01 : f64} : !t, !t
  return %p1, %p2, %p3, %b3 : !t, !t, !t, !t
}

// Two steps with dampening from a given (non-zero) buffer, and one plain
// step (no momentum) with weight decay and an f16 gradient of an f32
// parameter.
func.func @sgd_dampening(%p: !t, %g1: !t, %g2: !t, %buf: !t, %g16: tensor<2x3xf16>,
                         %lr: tensor<f32>) -> (!t, !t, !t) {
  %p1, %b1 = amp.sgd_update %p, %g1, momentum_buffer %buf, lr %lr {dampening = 2.500000e-01 : f64, momentum = 8.000000e-01 : f64} : !t, !t
  %p2, %b2 = amp.sgd_update %p1, %g2, momentum_buffer %b1, lr %lr {dampening = 2.500000e-01 : f64, momentum = 8.000000e-01 : f64} : !t, !t
  %q = amp.sgd_update %p, %g16, lr %lr {weight_decay = 2.000000e-02 : f64} : !t, tensor<2x3xf16>
  return %p2, %b2, %q : !t, !t, !t
}

// Three AdamW steps from zero moments (steps 1, 2, 3).
func.func @adamw_steps(%p: !t, %g1: !t, %g2: !t, %g3: !t, %zero: !t, %lr: tensor<f32>,
                       %s1: tensor<i64>, %s2: tensor<i64>, %s3: tensor<i64>,
                       %no: tensor<i1>) -> (!t, !t, !t, !t, !t) {
  %p1, %m1, %v1 = amp.adamw_update %p, %g1, %zero, %zero, step %s1, lr %lr {weight_decay = 1.000000e-01 : f64} : !t, !t, !t
  %p2, %m2, %v2 = amp.adamw_update %p1, %g2, %m1, %v1, step %s2, lr %lr, found_inf %no {weight_decay = 1.000000e-01 : f64} : !t, !t, !t
  %p3, %m3, %v3 = amp.adamw_update %p2, %g3, %m2, %v2, step %s3, lr %lr {weight_decay = 1.000000e-01 : f64} : !t, !t, !t
  return %p1, %p2, %p3, %m3, %v3 : !t, !t, !t, !t, !t
}

// One AdamW step from zero (no weight decay): the result is the first
// update itself, -lr * g / (|g| + eps * ...), which exposes the bias
// corrections and where eps is added (gradients down to 1e-7 ~ eps).
// Then a resumed step (step 5, non-default hyper-parameters and state).
func.func @adamw_single(%zero: !t, %g: !t, %lr: tensor<f32>, %s1: tensor<i64>,
                        %rp: !t, %rg: !t, %rm: !t, %rv: !t, %rlr: tensor<f32>,
                        %s5: tensor<i64>) -> (!t, !t, !t, !t) {
  %p1, %m1, %v1 = amp.adamw_update %zero, %g, %zero, %zero, step %s1, lr %lr {weight_decay = 0.000000e+00 : f64} : !t, !t, !t
  %p5, %m5, %v5 = amp.adamw_update %rp, %rg, %rm, %rv, step %s5, lr %rlr {beta1 = 8.000000e-01 : f64, beta2 = 9.900000e-01 : f64, epsilon = 9.9999999999999995E-7 : f64, weight_decay = 5.000000e-02 : f64} : !t, !t, !t
  return %p1, %p5, %m5, %v5 : !t, !t, !t, !t
}

// A skipped step: the gradient holds inf and NaN and found_inf is true;
// every result must equal its incoming operand bit for bit (1.0 where
// equal). Without found_inf the same step would produce NaN.
func.func @skipped(%p: !t, %num: !t, %den: !t, %buf: !t, %m: !t, %v: !t,
                   %lr: tensor<f32>, %s: tensor<i64>, %yes: tensor<i1>,
                   %one: !t, %zero: !t) -> (!t, !t, !t, !t, !t) {
  %g = amp.div %num, %den : !t
  %p1, %b1 = amp.sgd_update %p, %g, momentum_buffer %buf, lr %lr, found_inf %yes {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-01 : f64} : !t, !t
  %p2, %m2, %v2 = amp.adamw_update %p, %g, %m, %v, step %s, lr %lr, found_inf %yes : !t, !t, !t
  %e0 = amp.compare eq, %p1, %p : !t -> tensor<2x3xi1>
  %e1 = amp.compare eq, %b1, %buf : !t -> tensor<2x3xi1>
  %e2 = amp.compare eq, %p2, %p : !t -> tensor<2x3xi1>
  %e3 = amp.compare eq, %m2, %m : !t -> tensor<2x3xi1>
  %e4 = amp.compare eq, %v2, %v : !t -> tensor<2x3xi1>
  %f0 = amp.where %e0, %one, %zero : tensor<2x3xi1>, !t
  %f1 = amp.where %e1, %one, %zero : tensor<2x3xi1>, !t
  %f2 = amp.where %e2, %one, %zero : tensor<2x3xi1>, !t
  %f3 = amp.where %e3, %one, %zero : tensor<2x3xi1>, !t
  %f4 = amp.where %e4, %one, %zero : tensor<2x3xi1>, !t
  return %f0, %f1, %f2, %f3, %f4 : !t, !t, !t, !t, !t
}

// found_inf as an f32 0-d tensor (1.0 or 0.0) for printing.
func.func @flag(%f: tensor<i1>) -> tensor<f32> {
  %b = tensor.extract %f[] : tensor<i1>
  %x = arith.uitofp %b : i1 to f32
  %t = tensor.from_elements %x : tensor<f32>
  return %t : tensor<f32>
}

// Finite gradients (f16 widened to f32, f32, f16 kept f16): found_inf = 0.
func.func @unscale_clean(%scale: tensor<f32>, %g0: tensor<2x3xf16>, %g1: tensor<4xf32>,
                         %g2: tensor<3xf16>) -> (!t, tensor<4xf32>, tensor<3xf32>, tensor<f32>) {
  %u0, %u1, %u2, %found = amp.unscale_grads %scale, %g0, %g1, %g2 : tensor<2x3xf16>, tensor<4xf32>, tensor<3xf16> -> tensor<2x3xf32>, tensor<4xf32>, tensor<3xf16>
  %w2 = amp.cast %u2 : tensor<3xf16> to tensor<3xf32>
  %f = call @flag(%found) : (tensor<i1>) -> tensor<f32>
  return %u0, %u1, %w2, %f : !t, tensor<4xf32>, tensor<3xf32>, tensor<f32>
}

// An f16 gradient that overflowed (70000 -> inf) and a non-power-of-two
// scale; then a NaN (0/0) in the second gradient only: found_inf = 1 both
// times.
func.func @unscale_overflow(%scale: tensor<f32>, %big: !t, %g1: tensor<4xf32>,
                            %num: tensor<4xf32>, %den: tensor<4xf32>)
    -> (!t, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>) {
  %g0 = amp.cast %big : !t to tensor<2x3xf16>
  %u0, %u1, %found = amp.unscale_grads %scale, %g0, %g1 : tensor<2x3xf16>, tensor<4xf32> -> tensor<2x3xf32>, tensor<4xf32>
  %f = call @flag(%found) : (tensor<i1>) -> tensor<f32>
  %nan = amp.div %num, %den : tensor<4xf32>
  %clean = amp.cast %big : !t to tensor<2x3xf32>
  %v0, %v1, %found2 = amp.unscale_grads %scale, %clean, %nan : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>, tensor<4xf32>
  %f2 = call @flag(%found2) : (tensor<i1>) -> tensor<f32>
  return %u0, %u1, %f, %v1, %f2 : !t, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>
}

// clip_grad_norm: clipped (max_norm 1), not clipped (max_norm 100), and an
// f16 gradient clipped in f32 and rounded back to f16.
func.func @clip(%g0: !t, %g1: tensor<4xf32>, %h0: tensor<2x3xf16>)
    -> (!t, tensor<4xf32>, tensor<f32>, !t, tensor<4xf32>, tensor<f32>, !t, tensor<4xf32>, tensor<f32>) {
  %c0, %c1, %n = amp.clip_grad_norm %g0, %g1 {max_norm = 1.000000e+00 : f64} : !t, tensor<4xf32>
  %d0, %d1, %n2 = amp.clip_grad_norm %g0, %g1 {max_norm = 1.000000e+02 : f64} : !t, tensor<4xf32>
  %e0, %e1, %n3 = amp.clip_grad_norm %h0, %g1 {max_norm = 5.000000e-01 : f64} : tensor<2x3xf16>, tensor<4xf32>
  %w0 = amp.cast %e0 : tensor<2x3xf16> to !t
  return %c0, %c1, %n, %d0, %d1, %n2, %w0, %e1, %n3 : !t, tensor<4xf32>, tensor<f32>, !t, tensor<4xf32>, tensor<f32>, !t, tensor<4xf32>, tensor<f32>
}

// Scaler sequence a: found_inf = FFFFTFFFTTFFF (T = overflow).
func.func @scaler_a(%s0: tensor<f32>, %g0: tensor<i64>, %h0: tensor<i64>, %yes: tensor<i1>, %no: tensor<i1>)
    -> (tensor<13xf32>, tensor<13xi64>, tensor<13xi64>) {
  %s1, %g1, %h1 = amp.update_scale %s0, %g0, %h0, %no {growth_interval = 3 : i64}
  %s2, %g2, %h2 = amp.update_scale %s1, %g1, %h1, %no {growth_interval = 3 : i64}
  %s3, %g3, %h3 = amp.update_scale %s2, %g2, %h2, %no {growth_interval = 3 : i64}
  %s4, %g4, %h4 = amp.update_scale %s3, %g3, %h3, %no {growth_interval = 3 : i64}
  %s5, %g5, %h5 = amp.update_scale %s4, %g4, %h4, %yes {growth_interval = 3 : i64}
  %s6, %g6, %h6 = amp.update_scale %s5, %g5, %h5, %no {growth_interval = 3 : i64}
  %s7, %g7, %h7 = amp.update_scale %s6, %g6, %h6, %no {growth_interval = 3 : i64}
  %s8, %g8, %h8 = amp.update_scale %s7, %g7, %h7, %no {growth_interval = 3 : i64}
  %s9, %g9, %h9 = amp.update_scale %s8, %g8, %h8, %yes {growth_interval = 3 : i64}
  %s10, %g10, %h10 = amp.update_scale %s9, %g9, %h9, %yes {growth_interval = 3 : i64}
  %s11, %g11, %h11 = amp.update_scale %s10, %g10, %h10, %no {growth_interval = 3 : i64}
  %s12, %g12, %h12 = amp.update_scale %s11, %g11, %h11, %no {growth_interval = 3 : i64}
  %s13, %g13, %h13 = amp.update_scale %s12, %g12, %h12, %no {growth_interval = 3 : i64}
  %xs1 = tensor.extract %s1[] : tensor<f32>
  %xg1 = tensor.extract %g1[] : tensor<i64>
  %xh1 = tensor.extract %h1[] : tensor<i64>
  %xs2 = tensor.extract %s2[] : tensor<f32>
  %xg2 = tensor.extract %g2[] : tensor<i64>
  %xh2 = tensor.extract %h2[] : tensor<i64>
  %xs3 = tensor.extract %s3[] : tensor<f32>
  %xg3 = tensor.extract %g3[] : tensor<i64>
  %xh3 = tensor.extract %h3[] : tensor<i64>
  %xs4 = tensor.extract %s4[] : tensor<f32>
  %xg4 = tensor.extract %g4[] : tensor<i64>
  %xh4 = tensor.extract %h4[] : tensor<i64>
  %xs5 = tensor.extract %s5[] : tensor<f32>
  %xg5 = tensor.extract %g5[] : tensor<i64>
  %xh5 = tensor.extract %h5[] : tensor<i64>
  %xs6 = tensor.extract %s6[] : tensor<f32>
  %xg6 = tensor.extract %g6[] : tensor<i64>
  %xh6 = tensor.extract %h6[] : tensor<i64>
  %xs7 = tensor.extract %s7[] : tensor<f32>
  %xg7 = tensor.extract %g7[] : tensor<i64>
  %xh7 = tensor.extract %h7[] : tensor<i64>
  %xs8 = tensor.extract %s8[] : tensor<f32>
  %xg8 = tensor.extract %g8[] : tensor<i64>
  %xh8 = tensor.extract %h8[] : tensor<i64>
  %xs9 = tensor.extract %s9[] : tensor<f32>
  %xg9 = tensor.extract %g9[] : tensor<i64>
  %xh9 = tensor.extract %h9[] : tensor<i64>
  %xs10 = tensor.extract %s10[] : tensor<f32>
  %xg10 = tensor.extract %g10[] : tensor<i64>
  %xh10 = tensor.extract %h10[] : tensor<i64>
  %xs11 = tensor.extract %s11[] : tensor<f32>
  %xg11 = tensor.extract %g11[] : tensor<i64>
  %xh11 = tensor.extract %h11[] : tensor<i64>
  %xs12 = tensor.extract %s12[] : tensor<f32>
  %xg12 = tensor.extract %g12[] : tensor<i64>
  %xh12 = tensor.extract %h12[] : tensor<i64>
  %xs13 = tensor.extract %s13[] : tensor<f32>
  %xg13 = tensor.extract %g13[] : tensor<i64>
  %xh13 = tensor.extract %h13[] : tensor<i64>
  %scales = tensor.from_elements %xs1, %xs2, %xs3, %xs4, %xs5, %xs6, %xs7, %xs8, %xs9, %xs10, %xs11, %xs12, %xs13 : tensor<13xf32>
  %growth = tensor.from_elements %xg1, %xg2, %xg3, %xg4, %xg5, %xg6, %xg7, %xg8, %xg9, %xg10, %xg11, %xg12, %xg13 : tensor<13xi64>
  %hyst = tensor.from_elements %xh1, %xh2, %xh3, %xh4, %xh5, %xh6, %xh7, %xh8, %xh9, %xh10, %xh11, %xh12, %xh13 : tensor<13xi64>
  return %scales, %growth, %hyst : tensor<13xf32>, tensor<13xi64>, tensor<13xi64>
}

// Scaler sequence b: found_inf = TFTTTFFTFF (T = overflow).
func.func @scaler_b(%s0: tensor<f32>, %g0: tensor<i64>, %h0: tensor<i64>, %yes: tensor<i1>, %no: tensor<i1>)
    -> (tensor<10xf32>, tensor<10xi64>, tensor<10xi64>) {
  %s1, %g1, %h1 = amp.update_scale %s0, %g0, %h0, %yes {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s2, %g2, %h2 = amp.update_scale %s1, %g1, %h1, %no {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s3, %g3, %h3 = amp.update_scale %s2, %g2, %h2, %yes {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s4, %g4, %h4 = amp.update_scale %s3, %g3, %h3, %yes {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s5, %g5, %h5 = amp.update_scale %s4, %g4, %h4, %yes {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s6, %g6, %h6 = amp.update_scale %s5, %g5, %h5, %no {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s7, %g7, %h7 = amp.update_scale %s6, %g6, %h6, %no {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s8, %g8, %h8 = amp.update_scale %s7, %g7, %h7, %yes {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s9, %g9, %h9 = amp.update_scale %s8, %g8, %h8, %no {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %s10, %g10, %h10 = amp.update_scale %s9, %g9, %h9, %no {growth_interval = 2 : i64, hysteresis = 2 : i64}
  %xs1 = tensor.extract %s1[] : tensor<f32>
  %xg1 = tensor.extract %g1[] : tensor<i64>
  %xh1 = tensor.extract %h1[] : tensor<i64>
  %xs2 = tensor.extract %s2[] : tensor<f32>
  %xg2 = tensor.extract %g2[] : tensor<i64>
  %xh2 = tensor.extract %h2[] : tensor<i64>
  %xs3 = tensor.extract %s3[] : tensor<f32>
  %xg3 = tensor.extract %g3[] : tensor<i64>
  %xh3 = tensor.extract %h3[] : tensor<i64>
  %xs4 = tensor.extract %s4[] : tensor<f32>
  %xg4 = tensor.extract %g4[] : tensor<i64>
  %xh4 = tensor.extract %h4[] : tensor<i64>
  %xs5 = tensor.extract %s5[] : tensor<f32>
  %xg5 = tensor.extract %g5[] : tensor<i64>
  %xh5 = tensor.extract %h5[] : tensor<i64>
  %xs6 = tensor.extract %s6[] : tensor<f32>
  %xg6 = tensor.extract %g6[] : tensor<i64>
  %xh6 = tensor.extract %h6[] : tensor<i64>
  %xs7 = tensor.extract %s7[] : tensor<f32>
  %xg7 = tensor.extract %g7[] : tensor<i64>
  %xh7 = tensor.extract %h7[] : tensor<i64>
  %xs8 = tensor.extract %s8[] : tensor<f32>
  %xg8 = tensor.extract %g8[] : tensor<i64>
  %xh8 = tensor.extract %h8[] : tensor<i64>
  %xs9 = tensor.extract %s9[] : tensor<f32>
  %xg9 = tensor.extract %g9[] : tensor<i64>
  %xh9 = tensor.extract %h9[] : tensor<i64>
  %xs10 = tensor.extract %s10[] : tensor<f32>
  %xg10 = tensor.extract %g10[] : tensor<i64>
  %xh10 = tensor.extract %h10[] : tensor<i64>
  %scales = tensor.from_elements %xs1, %xs2, %xs3, %xs4, %xs5, %xs6, %xs7, %xs8, %xs9, %xs10 : tensor<10xf32>
  %growth = tensor.from_elements %xg1, %xg2, %xg3, %xg4, %xg5, %xg6, %xg7, %xg8, %xg9, %xg10 : tensor<10xi64>
  %hyst = tensor.from_elements %xh1, %xh2, %xh3, %xh4, %xh5, %xh6, %xh7, %xh8, %xh9, %xh10 : tensor<10xi64>
  return %scales, %growth, %hyst : tensor<10xf32>, tensor<10xi64>, tensor<10xi64>
}

// Scaler sequence c: found_inf = TTFFFFTFF (T = overflow).
func.func @scaler_c(%s0: tensor<f32>, %g0: tensor<i64>, %h0: tensor<i64>, %yes: tensor<i1>, %no: tensor<i1>)
    -> (tensor<9xf32>, tensor<9xi64>, tensor<9xi64>) {
  %s1, %g1, %h1 = amp.update_scale %s0, %g0, %h0, %yes {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s2, %g2, %h2 = amp.update_scale %s1, %g1, %h1, %yes {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s3, %g3, %h3 = amp.update_scale %s2, %g2, %h2, %no {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s4, %g4, %h4 = amp.update_scale %s3, %g3, %h3, %no {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s5, %g5, %h5 = amp.update_scale %s4, %g4, %h4, %no {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s6, %g6, %h6 = amp.update_scale %s5, %g5, %h5, %no {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s7, %g7, %h7 = amp.update_scale %s6, %g6, %h6, %yes {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s8, %g8, %h8 = amp.update_scale %s7, %g7, %h7, %no {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %s9, %g9, %h9 = amp.update_scale %s8, %g8, %h8, %no {backoff_factor = 2.500000e-01 : f64, growth_factor = 3.000000e+00 : f64, growth_interval = 1 : i64, max_scale = 5.000000e+01 : f64, min_scale = 2.000000e+00 : f64}
  %xs1 = tensor.extract %s1[] : tensor<f32>
  %xg1 = tensor.extract %g1[] : tensor<i64>
  %xh1 = tensor.extract %h1[] : tensor<i64>
  %xs2 = tensor.extract %s2[] : tensor<f32>
  %xg2 = tensor.extract %g2[] : tensor<i64>
  %xh2 = tensor.extract %h2[] : tensor<i64>
  %xs3 = tensor.extract %s3[] : tensor<f32>
  %xg3 = tensor.extract %g3[] : tensor<i64>
  %xh3 = tensor.extract %h3[] : tensor<i64>
  %xs4 = tensor.extract %s4[] : tensor<f32>
  %xg4 = tensor.extract %g4[] : tensor<i64>
  %xh4 = tensor.extract %h4[] : tensor<i64>
  %xs5 = tensor.extract %s5[] : tensor<f32>
  %xg5 = tensor.extract %g5[] : tensor<i64>
  %xh5 = tensor.extract %h5[] : tensor<i64>
  %xs6 = tensor.extract %s6[] : tensor<f32>
  %xg6 = tensor.extract %g6[] : tensor<i64>
  %xh6 = tensor.extract %h6[] : tensor<i64>
  %xs7 = tensor.extract %s7[] : tensor<f32>
  %xg7 = tensor.extract %g7[] : tensor<i64>
  %xh7 = tensor.extract %h7[] : tensor<i64>
  %xs8 = tensor.extract %s8[] : tensor<f32>
  %xg8 = tensor.extract %g8[] : tensor<i64>
  %xh8 = tensor.extract %h8[] : tensor<i64>
  %xs9 = tensor.extract %s9[] : tensor<f32>
  %xg9 = tensor.extract %g9[] : tensor<i64>
  %xh9 = tensor.extract %h9[] : tensor<i64>
  %scales = tensor.from_elements %xs1, %xs2, %xs3, %xs4, %xs5, %xs6, %xs7, %xs8, %xs9 : tensor<9xf32>
  %growth = tensor.from_elements %xg1, %xg2, %xg3, %xg4, %xg5, %xg6, %xg7, %xg8, %xg9 : tensor<9xi64>
  %hyst = tensor.from_elements %xh1, %xh2, %xh3, %xh4, %xh5, %xh6, %xh7, %xh8, %xh9 : tensor<9xi64>
  return %scales, %growth, %hyst : tensor<9xf32>, tensor<9xi64>, tensor<9xi64>
}

// Scaler sequence d: found_inf = FFTF (T = overflow).
func.func @scaler_d(%s0: tensor<f32>, %g0: tensor<i64>, %h0: tensor<i64>, %yes: tensor<i1>, %no: tensor<i1>)
    -> (tensor<4xf32>, tensor<4xi64>, tensor<4xi64>) {
  %s1, %g1, %h1 = amp.update_scale %s0, %g0, %h0, %no {growth_interval = 1 : i64, max_scale = 1.000000e+39 : f64}
  %s2, %g2, %h2 = amp.update_scale %s1, %g1, %h1, %no {growth_interval = 1 : i64, max_scale = 1.000000e+39 : f64}
  %s3, %g3, %h3 = amp.update_scale %s2, %g2, %h2, %yes {growth_interval = 1 : i64, max_scale = 1.000000e+39 : f64}
  %s4, %g4, %h4 = amp.update_scale %s3, %g3, %h3, %no {growth_interval = 1 : i64, max_scale = 1.000000e+39 : f64}
  %xs1 = tensor.extract %s1[] : tensor<f32>
  %xg1 = tensor.extract %g1[] : tensor<i64>
  %xh1 = tensor.extract %h1[] : tensor<i64>
  %xs2 = tensor.extract %s2[] : tensor<f32>
  %xg2 = tensor.extract %g2[] : tensor<i64>
  %xh2 = tensor.extract %h2[] : tensor<i64>
  %xs3 = tensor.extract %s3[] : tensor<f32>
  %xg3 = tensor.extract %g3[] : tensor<i64>
  %xh3 = tensor.extract %h3[] : tensor<i64>
  %xs4 = tensor.extract %s4[] : tensor<f32>
  %xg4 = tensor.extract %g4[] : tensor<i64>
  %xh4 = tensor.extract %h4[] : tensor<i64>
  %scales = tensor.from_elements %xs1, %xs2, %xs3, %xs4 : tensor<4xf32>
  %growth = tensor.from_elements %xg1, %xg2, %xg3, %xg4 : tensor<4xi64>
  %hyst = tensor.from_elements %xh1, %xh2, %xh3, %xh4 : tensor<4xi64>
  return %scales, %growth, %hyst : tensor<4xf32>, tensor<4xi64>, tensor<4xi64>
}

func.func @main() {
  %seed = amp.constant dense<1.0> : tensor<f32>
  %seed_scale = amp.constant dense<65536.0> : tensor<f32>
  %seed_b = amp.constant dense<0.75> : tensor<f32>
  %seed_scale_b = amp.constant dense<3.0> : tensor<f32>
  %sgd_p = amp.constant dense<[[0.5, -1.25, 2.0], [0.75, -0.3, 1.5]]> : tensor<2x3xf32>
  %sgd_g1 = amp.constant dense<[[0.1, -0.4, 0.25], [1.5, -0.05, 0.6]]> : tensor<2x3xf32>
  %sgd_g2 = amp.constant dense<[[-0.2, 0.3, 0.5], [1.1, 0.2, -0.7]]> : tensor<2x3xf32>
  %sgd_g3 = amp.constant dense<[[0.05, -0.6, 0.15], [0.9, 0.35, -0.25]]> : tensor<2x3xf32>
  %sgd_buf0 = amp.constant dense<0.0> : tensor<2x3xf32>
  %sgd_buf = amp.constant dense<[[0.2, -0.1, 0.05], [-0.3, 0.4, 0.15]]> : tensor<2x3xf32>
  %sgd_g16 = amp.constant dense<[[0.125, -0.375, 1.5], [0.0625, -2.25, 0.8125]]> : tensor<2x3xf16>
  %sgd_lr = amp.constant dense<0.05> : tensor<f32>
  %no = amp.constant dense<false> : tensor<i1>
  %yes = amp.constant dense<true> : tensor<i1>
  %adam_p = amp.constant dense<[[0.5, -0.25, 0.125], [-0.75, 0.3, 0.05]]> : tensor<2x3xf32>
  %adam_g1 = amp.constant dense<[[0.3, -1.2, 0.05], [2.0, -0.4, 0.7]]> : tensor<2x3xf32>
  %adam_g2 = amp.constant dense<[[-0.1, -0.8, 0.02], [1.5, 0.6, -0.9]]> : tensor<2x3xf32>
  %adam_g3 = amp.constant dense<[[0.25, -1.5, -0.04], [0.5, 0.2, 0.35]]> : tensor<2x3xf32>
  %adam_zero = amp.constant dense<0.0> : tensor<2x3xf32>
  %adam_lr = amp.constant dense<0.1> : tensor<f32>
  %step1 = amp.constant dense<1> : tensor<i64>
  %step2 = amp.constant dense<2> : tensor<i64>
  %step3 = amp.constant dense<3> : tensor<i64>
  %adam_g_wide = amp.constant dense<[[1.0e-07, -3.0e-07, 1.0e-03], [-0.5, 2.0, 10.0]]> : tensor<2x3xf32>
  %resume_p = amp.constant dense<[[1.5, -0.5, 0.25], [0.125, -2.0, 0.75]]> : tensor<2x3xf32>
  %resume_g = amp.constant dense<[[0.4, -0.3, 0.02], [-1.0, 0.6, 0.0]]> : tensor<2x3xf32>
  %resume_m = amp.constant dense<[[0.1, -0.05, 0.01], [-0.2, 0.15, 0.03]]> : tensor<2x3xf32>
  %resume_v = amp.constant dense<[[0.02, 0.01, 0.0005], [0.05, 0.03, 0.002]]> : tensor<2x3xf32>
  %resume_lr = amp.constant dense<0.01> : tensor<f32>
  %step5 = amp.constant dense<5> : tensor<i64>
  %bad_num = amp.constant dense<[[1.0, -1.0, 0.0], [0.5, 2.0, -3.0]]> : tensor<2x3xf32>
  %bad_den = amp.constant dense<[[0.0, 0.0, 0.0], [1.0, 4.0, 2.0]]> : tensor<2x3xf32>
  %unscale_scale = amp.constant dense<1024.0> : tensor<f32>
  %unscale_g0 = amp.constant dense<[[512.0, -1024.0, 3072.0], [0.5, 65504.0, -7.25]]> : tensor<2x3xf16>
  %unscale_g1 = amp.constant dense<[1.0, -3.5, 2048.0, 1.0e-03]> : tensor<4xf32>
  %unscale_g2 = amp.constant dense<[3.0, -6144.0, 9.765625e-04]> : tensor<3xf16>
  %unscale_scale3 = amp.constant dense<3.0> : tensor<f32>
  %unscale_big = amp.constant dense<[[1.0, 7.0e+04, -2.0], [0.1, -0.2, 5.0]]> : tensor<2x3xf32>
  %unscale_num = amp.constant dense<[1.0, 0.0, -2.0, 4.0]> : tensor<4xf32>
  %unscale_den = amp.constant dense<[2.0, 0.0, 8.0, 1.0]> : tensor<4xf32>
  %scale_a = amp.constant dense<65536.0> : tensor<f32>
  %scale_b = amp.constant dense<1024.0> : tensor<f32>
  %scale_c = amp.constant dense<4.0> : tensor<f32>
  %scale_d = amp.constant dense<2.0e+38> : tensor<f32>
  %tracker0 = amp.constant dense<0> : tensor<i64>
  %hyst1 = amp.constant dense<1> : tensor<i64>
  %hyst2 = amp.constant dense<2> : tensor<i64>
  %clip_g0 = amp.constant dense<[[0.3, -1.2, 0.05], [2.0, -0.4, 0.7]]> : tensor<2x3xf32>
  %clip_g1 = amp.constant dense<[0.25, -1.5, -0.04, 0.5]> : tensor<4xf32>
  %clip_g16 = amp.constant dense<[[0.5, -1.25, 0.0625], [2.0, -0.375, 0.75]]> : tensor<2x3xf16>
  %ones = amp.constant dense<1.0> : !t
  %zeros = amp.constant dense<0.0> : !t
  %sd0 = call @scale_seed(%seed, %seed_scale) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %sd1 = call @scale_seed(%seed_b, %seed_scale_b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %u0 = tensor.cast %sd0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %sd1 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %sgd:4 = call @sgd_nesterov(%sgd_p, %sgd_g1, %sgd_g2, %sgd_g3, %sgd_buf0, %sgd_lr, %no) : (!t, !t, !t, !t, !t, tensor<f32>, tensor<i1>) -> (!t, !t, !t, !t)
  %u2 = tensor.cast %sgd#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %sgd#1 : !t to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %sgd#2 : !t to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %sgd#3 : !t to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %damp:3 = call @sgd_dampening(%sgd_p, %sgd_g1, %sgd_g2, %sgd_buf, %sgd_g16, %sgd_lr) : (!t, !t, !t, !t, tensor<2x3xf16>, tensor<f32>) -> (!t, !t, !t)
  %u6 = tensor.cast %damp#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %u7 = tensor.cast %damp#1 : !t to tensor<*xf32>
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  %u8 = tensor.cast %damp#2 : !t to tensor<*xf32>
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %adam:5 = call @adamw_steps(%adam_p, %adam_g1, %adam_g2, %adam_g3, %adam_zero, %adam_lr, %step1, %step2, %step3, %no) : (!t, !t, !t, !t, !t, tensor<f32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>) -> (!t, !t, !t, !t, !t)
  %u9 = tensor.cast %adam#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u9) : (tensor<*xf32>) -> ()
  %u10 = tensor.cast %adam#1 : !t to tensor<*xf32>
  call @printMemrefF32(%u10) : (tensor<*xf32>) -> ()
  %u11 = tensor.cast %adam#2 : !t to tensor<*xf32>
  call @printMemrefF32(%u11) : (tensor<*xf32>) -> ()
  %u12 = tensor.cast %adam#3 : !t to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  %u13 = tensor.cast %adam#4 : !t to tensor<*xf32>
  call @printMemrefF32(%u13) : (tensor<*xf32>) -> ()
  %single:4 = call @adamw_single(%adam_zero, %adam_g_wide, %adam_lr, %step1, %resume_p, %resume_g, %resume_m, %resume_v, %resume_lr, %step5) : (!t, !t, tensor<f32>, tensor<i64>, !t, !t, !t, !t, tensor<f32>, tensor<i64>) -> (!t, !t, !t, !t)
  %u14 = tensor.cast %single#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u14) : (tensor<*xf32>) -> ()
  %u15 = tensor.cast %single#1 : !t to tensor<*xf32>
  call @printMemrefF32(%u15) : (tensor<*xf32>) -> ()
  %u16 = tensor.cast %single#2 : !t to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %u17 = tensor.cast %single#3 : !t to tensor<*xf32>
  call @printMemrefF32(%u17) : (tensor<*xf32>) -> ()
  %skip:5 = call @skipped(%adam_p, %bad_num, %bad_den, %sgd_buf, %resume_m, %resume_v, %adam_lr, %step2, %yes, %ones, %zeros) : (!t, !t, !t, !t, !t, !t, tensor<f32>, tensor<i64>, tensor<i1>, !t, !t) -> (!t, !t, !t, !t, !t)
  %u18 = tensor.cast %skip#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  %u19 = tensor.cast %skip#1 : !t to tensor<*xf32>
  call @printMemrefF32(%u19) : (tensor<*xf32>) -> ()
  %u20 = tensor.cast %skip#2 : !t to tensor<*xf32>
  call @printMemrefF32(%u20) : (tensor<*xf32>) -> ()
  %u21 = tensor.cast %skip#3 : !t to tensor<*xf32>
  call @printMemrefF32(%u21) : (tensor<*xf32>) -> ()
  %u22 = tensor.cast %skip#4 : !t to tensor<*xf32>
  call @printMemrefF32(%u22) : (tensor<*xf32>) -> ()
  %uc:4 = call @unscale_clean(%unscale_scale, %unscale_g0, %unscale_g1, %unscale_g2) : (tensor<f32>, tensor<2x3xf16>, tensor<4xf32>, tensor<3xf16>) -> (!t, tensor<4xf32>, tensor<3xf32>, tensor<f32>)
  %u23 = tensor.cast %uc#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u23) : (tensor<*xf32>) -> ()
  %u24 = tensor.cast %uc#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u24) : (tensor<*xf32>) -> ()
  %u25 = tensor.cast %uc#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u25) : (tensor<*xf32>) -> ()
  %u26 = tensor.cast %uc#3 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u26) : (tensor<*xf32>) -> ()
  %uo:5 = call @unscale_overflow(%unscale_scale3, %unscale_big, %unscale_g1, %unscale_num, %unscale_den) : (tensor<f32>, !t, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (!t, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>)
  %u27 = tensor.cast %uo#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u27) : (tensor<*xf32>) -> ()
  %u28 = tensor.cast %uo#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u28) : (tensor<*xf32>) -> ()
  %u29 = tensor.cast %uo#2 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u29) : (tensor<*xf32>) -> ()
  %u30 = tensor.cast %uo#3 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u30) : (tensor<*xf32>) -> ()
  %u31 = tensor.cast %uo#4 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u31) : (tensor<*xf32>) -> ()
  %cl:9 = call @clip(%clip_g0, %clip_g1, %clip_g16) : (!t, tensor<4xf32>, tensor<2x3xf16>) -> (!t, tensor<4xf32>, tensor<f32>, !t, tensor<4xf32>, tensor<f32>, !t, tensor<4xf32>, tensor<f32>)
  %u32 = tensor.cast %cl#0 : !t to tensor<*xf32>
  call @printMemrefF32(%u32) : (tensor<*xf32>) -> ()
  %u33 = tensor.cast %cl#1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u33) : (tensor<*xf32>) -> ()
  %u34 = tensor.cast %cl#2 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u34) : (tensor<*xf32>) -> ()
  %u35 = tensor.cast %cl#3 : !t to tensor<*xf32>
  call @printMemrefF32(%u35) : (tensor<*xf32>) -> ()
  %u36 = tensor.cast %cl#4 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u36) : (tensor<*xf32>) -> ()
  %u37 = tensor.cast %cl#5 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u37) : (tensor<*xf32>) -> ()
  %u38 = tensor.cast %cl#6 : !t to tensor<*xf32>
  call @printMemrefF32(%u38) : (tensor<*xf32>) -> ()
  %u39 = tensor.cast %cl#7 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u39) : (tensor<*xf32>) -> ()
  %u40 = tensor.cast %cl#8 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u40) : (tensor<*xf32>) -> ()
  %sc_a:3 = call @scaler_a(%scale_a, %tracker0, %hyst1, %yes, %no) : (tensor<f32>, tensor<i64>, tensor<i64>, tensor<i1>, tensor<i1>) -> (tensor<13xf32>, tensor<13xi64>, tensor<13xi64>)
  %u41 = tensor.cast %sc_a#0 : tensor<13xf32> to tensor<*xf32>
  call @printMemrefF32(%u41) : (tensor<*xf32>) -> ()
  %u42 = tensor.cast %sc_a#1 : tensor<13xi64> to tensor<*xi64>
  call @printMemrefI64(%u42) : (tensor<*xi64>) -> ()
  %u43 = tensor.cast %sc_a#2 : tensor<13xi64> to tensor<*xi64>
  call @printMemrefI64(%u43) : (tensor<*xi64>) -> ()
  %sc_b:3 = call @scaler_b(%scale_b, %tracker0, %hyst2, %yes, %no) : (tensor<f32>, tensor<i64>, tensor<i64>, tensor<i1>, tensor<i1>) -> (tensor<10xf32>, tensor<10xi64>, tensor<10xi64>)
  %u44 = tensor.cast %sc_b#0 : tensor<10xf32> to tensor<*xf32>
  call @printMemrefF32(%u44) : (tensor<*xf32>) -> ()
  %u45 = tensor.cast %sc_b#1 : tensor<10xi64> to tensor<*xi64>
  call @printMemrefI64(%u45) : (tensor<*xi64>) -> ()
  %u46 = tensor.cast %sc_b#2 : tensor<10xi64> to tensor<*xi64>
  call @printMemrefI64(%u46) : (tensor<*xi64>) -> ()
  %sc_c:3 = call @scaler_c(%scale_c, %tracker0, %hyst1, %yes, %no) : (tensor<f32>, tensor<i64>, tensor<i64>, tensor<i1>, tensor<i1>) -> (tensor<9xf32>, tensor<9xi64>, tensor<9xi64>)
  %u47 = tensor.cast %sc_c#0 : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%u47) : (tensor<*xf32>) -> ()
  %u48 = tensor.cast %sc_c#1 : tensor<9xi64> to tensor<*xi64>
  call @printMemrefI64(%u48) : (tensor<*xi64>) -> ()
  %u49 = tensor.cast %sc_c#2 : tensor<9xi64> to tensor<*xi64>
  call @printMemrefI64(%u49) : (tensor<*xi64>) -> ()
  %sc_d:3 = call @scaler_d(%scale_d, %tracker0, %hyst1, %yes, %no) : (tensor<f32>, tensor<i64>, tensor<i64>, tensor<i1>, tensor<i1>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xi64>)
  %u50 = tensor.cast %sc_d#0 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u50) : (tensor<*xf32>) -> ()
  %u51 = tensor.cast %sc_d#1 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u51) : (tensor<*xi64>) -> ()
  %u52 = tensor.cast %sc_d#2 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u52) : (tensor<*xi64>) -> ()
  return
}
