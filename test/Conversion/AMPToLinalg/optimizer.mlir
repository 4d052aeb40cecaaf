// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// Loss scaling and optimizer ops become linalg.generic ops on tensors.
// Scalars that depend only on 0-d operands (1 / scale, the clipping
// coefficient, AdamW's step size and bias correction) come from one 0-d
// generic and are read, like lr and found_inf, through a map to no loops.
// Updates write every result (parameter, buffer, moments) from one generic,
// compute in f32 and round once; a set found_inf selects the incoming
// element. Nothing is read back to the host (no tensor.extract, no scf.if).

//===----------------------------------------------------------------------===//
// scale_seed
//===----------------------------------------------------------------------===//

// CHECK: #[[$S:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @scale_seed
// CHECK-SAME: (%[[SEED:.+]]: tensor<f32>, %[[SCALE:.+]]: tensor<f32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<f32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$S]], #[[$S]], #[[$S]]], iterator_types = []} ins(%[[SEED]], %[[SCALE]] : tensor<f32>, tensor<f32>) outs(%[[INIT]] : tensor<f32>) {
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
// CHECK: return %[[R]] : tensor<f32>
func.func @scale_seed(%seed: tensor<f32>, %scale: tensor<f32>) -> tensor<f32> {
  %0 = amp.scale_seed %seed, %scale
  return %0 : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// unscale_grads
//===----------------------------------------------------------------------===//

// The reciprocal is computed once, in f64 and rounded to f32 (as GradScaler's
// scale.double().reciprocal().float()); each gradient is multiplied by it;
// found_inf is a chain of i1 or-reductions over the incoming gradients, the
// second starting from the first's flag.
// CHECK-DAG: #[[$S:.+]] = affine_map<() -> ()>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SC2:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$SC1:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @unscale_grads
// CHECK-SAME: (%[[SCALE:.+]]: tensor<f32>, %[[G0:.+]]: tensor<4x8xf16>, %[[G1:.+]]: tensor<8xf32>)
// CHECK: %[[INV:.+]] = linalg.generic {indexing_maps = [#[[$S]], #[[$S]]], iterator_types = []} ins(%[[SCALE]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[WS:.+]] = arith.extf %[[S]] : f32 to f64
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[R:.+]] = arith.divf %[[ONE]], %[[WS]] : f64
// CHECK-NEXT: %[[R32:.+]] = arith.truncf %[[R]] : f64 to f32
// CHECK-NEXT: linalg.yield %[[R32]] : f32
// CHECK: %[[U0:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$SC2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G0]], %[[INV]] : tensor<4x8xf16>, tensor<f32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[I:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[WX]], %[[I]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[U1:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$SC1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[G1]], %[[INV]] : tensor<8xf32>, tensor<f32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[I:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[X]], %[[I]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[FALSE:.+]] = arith.constant false
// CHECK: %[[NONE:.+]] = linalg.fill ins(%[[FALSE]] : i1) outs(%{{.+}} : tensor<i1>) -> tensor<i1>
// CHECK: %[[F0:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$SC2]]], iterator_types = ["reduction", "reduction"]} ins(%[[G0]] : tensor<4x8xf16>) outs(%[[NONE]] : tensor<i1>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[ACC:.+]]: i1):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[ABS:.+]] = math.absf %[[WX]] : f32
// CHECK-NEXT: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[BAD:.+]] = arith.cmpf ueq, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT: %[[OR:.+]] = arith.ori %[[ACC]], %[[BAD]] : i1
// CHECK-NEXT: linalg.yield %[[OR]] : i1
// CHECK: %[[F1:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$SC1]]], iterator_types = ["reduction"]} ins(%[[G1]] : tensor<8xf32>) outs(%[[F0]] : tensor<i1>)
// CHECK: arith.cmpf ueq
// CHECK: arith.ori
// CHECK: return %[[U0]], %[[U1]], %[[F1]] : tensor<4x8xf32>, tensor<8xf32>, tensor<i1>
func.func @unscale_grads(%scale: tensor<f32>, %g0: tensor<4x8xf16>, %g1: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<i1>) {
  %u0, %u1, %found = amp.unscale_grads %scale, %g0, %g1 : tensor<4x8xf16>, tensor<8xf32> -> tensor<4x8xf32>, tensor<8xf32>
  return %u0, %u1, %found : tensor<4x8xf32>, tensor<8xf32>, tensor<i1>
}

// -----

// An f16 gradient kept f16: the f32 product is rounded once.
// CHECK-LABEL: func.func @unscale_grads_f16
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[I:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[WX]], %[[I]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK-NEXT: } -> tensor<8xf16>
func.func @unscale_grads_f16(%scale: tensor<f32>, %g: tensor<8xf16>) -> (tensor<8xf16>, tensor<i1>) {
  %u, %found = amp.unscale_grads %scale, %g : tensor<8xf16> -> tensor<8xf16>
  return %u, %found : tensor<8xf16>, tensor<i1>
}

// -----

//===----------------------------------------------------------------------===//
// update_scale
//===----------------------------------------------------------------------===//

// One 0-d generic with three results, all selects. Overflow: growth 0,
// hysteresis - 1, back off (max with min_scale 1.0) once that is <= 0.
// Clean: growth + 1; at the interval grow (min with max_scale 2^24, only if
// finite), growth 0, hysteresis reset to 2.
// CHECK: #[[$S:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @update_scale
// CHECK-SAME: (%[[SCALE:.+]]: tensor<f32>, %[[GROWTH:.+]]: tensor<i64>, %[[HYST:.+]]: tensor<i64>, %[[FOUND:.+]]: tensor<i1>)
// CHECK-NOT: tensor.extract
// CHECK: %[[R:.+]]:3 = linalg.generic {indexing_maps = [#[[$S]], #[[$S]], #[[$S]], #[[$S]], #[[$S]], #[[$S]], #[[$S]]], iterator_types = []} ins(%[[SCALE]], %[[GROWTH]], %[[HYST]], %[[FOUND]] : tensor<f32>, tensor<i64>, tensor<i64>, tensor<i1>) outs(%{{.+}}, %{{.+}}, %{{.+}} : tensor<f32>, tensor<i64>, tensor<i64>) {
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %[[G:.+]]: i64, %[[H:.+]]: i64, %[[F:.+]]: i1, %{{.+}}: f32, %{{.+}}: i64, %{{.+}}: i64):
// CHECK-NEXT: %[[WS:.+]] = arith.extf %[[S]] : f32 to f64
// CHECK-NEXT: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[HDOWN:.+]] = arith.subi %[[H]], %[[C1]] : i64
// CHECK-NEXT: %[[EXHAUSTED:.+]] = arith.cmpi sle, %[[HDOWN]], %[[C0]] : i64
// CHECK-NEXT: %[[BACKOFF:.+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT: %[[SHRUNK:.+]] = arith.mulf %[[WS]], %[[BACKOFF]] : f64
// CHECK-NEXT: %[[SHRUNK32:.+]] = arith.truncf %[[SHRUNK]] : f64 to f32
// CHECK-NEXT: %[[MIN:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[BACKED:.+]] = arith.maximumf %[[SHRUNK32]], %[[MIN]] : f32
// CHECK-NEXT: %[[OSCALE:.+]] = arith.select %[[EXHAUSTED]], %[[BACKED]], %[[S]] : f32
// CHECK-NEXT: %[[COUNTED:.+]] = arith.addi %[[G]], %[[C1]] : i64
// CHECK-NEXT: %[[INTERVAL:.+]] = arith.constant 1000 : i64
// CHECK-NEXT: %[[DUE:.+]] = arith.cmpi sge, %[[COUNTED]], %[[INTERVAL]] : i64
// CHECK-NEXT: %[[GF:.+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: %[[BIG:.+]] = arith.mulf %[[WS]], %[[GF]] : f64
// CHECK-NEXT: %[[BIG32:.+]] = arith.truncf %[[BIG]] : f64 to f32
// CHECK-NEXT: %[[MAX:.+]] = arith.constant 0x4B800000 : f32
// CHECK-NEXT: %[[GROWN:.+]] = arith.minimumf %[[BIG32]], %[[MAX]] : f32
// CHECK-NEXT: %[[ABS:.+]] = math.absf %[[GROWN]] : f32
// CHECK-NEXT: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[FINITE:.+]] = arith.cmpf one, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT: %[[GROW:.+]] = arith.andi %[[DUE]], %[[FINITE]] : i1
// CHECK-NEXT: %[[CSCALE:.+]] = arith.select %[[GROW]], %[[GROWN]], %[[S]] : f32
// CHECK-NEXT: %[[CGROWTH:.+]] = arith.select %[[DUE]], %[[C0]], %[[COUNTED]] : i64
// CHECK-NEXT: %[[HYSTERESIS:.+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[CHYST:.+]] = arith.select %[[DUE]], %[[HYSTERESIS]], %[[H]] : i64
// CHECK-NEXT: %[[NS:.+]] = arith.select %[[F]], %[[OSCALE]], %[[CSCALE]] : f32
// CHECK-NEXT: %[[NG:.+]] = arith.select %[[F]], %[[C0]], %[[CGROWTH]] : i64
// CHECK-NEXT: %[[NH:.+]] = arith.select %[[F]], %[[HDOWN]], %[[CHYST]] : i64
// CHECK-NEXT: linalg.yield %[[NS]], %[[NG]], %[[NH]] : f32, i64, i64
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @update_scale(%scale: tensor<f32>, %growth: tensor<i64>, %hyst: tensor<i64>, %found: tensor<i1>) -> (tensor<f32>, tensor<i64>, tensor<i64>) {
  %s, %g, %h = amp.update_scale %scale, %growth, %hyst, %found {growth_interval = 1000 : i64, hysteresis = 2 : i64}
  return %s, %g, %h : tensor<f32>, tensor<i64>, tensor<i64>
}

// -----

//===----------------------------------------------------------------------===//
// clip_grad_norm
//===----------------------------------------------------------------------===//

// f32 sums of squares per gradient; one 0-d generic for the norm and
// min(max_norm / (norm + 1e-6), 1); one generic per gradient scales it.
// CHECK-DAG: #[[$S:.+]] = affine_map<() -> ()>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SC2:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @clip_grad_norm
// CHECK-SAME: (%[[G0:.+]]: tensor<4x8xf16>, %[[G1:.+]]: tensor<8xf32>)
// CHECK: %[[ZERO:.+]] = linalg.fill
// CHECK: %[[SQ0:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$SC2]]], iterator_types = ["reduction", "reduction"]} ins(%[[G0]] : tensor<4x8xf16>) outs(%[[ZERO]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[X2:.+]] = arith.mulf %[[WX]], %[[WX]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ACC]], %[[X2]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[SQ1:.+]] = linalg.generic {{.+}} ins(%[[G1]] : tensor<8xf32>)
// CHECK: %[[NC:.+]]:2 = linalg.generic {indexing_maps = [#[[$S]], #[[$S]], #[[$S]], #[[$S]]], iterator_types = []} ins(%[[SQ0]], %[[SQ1]] : tensor<f32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[TOTAL:.+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[NORM:.+]] = math.sqrt %[[TOTAL]] : f32
// CHECK-NEXT: %[[TINY:.+]] = arith.constant 9.99999997E-7 : f32
// CHECK-NEXT: %[[SHIFTED:.+]] = arith.addf %[[NORM]], %[[TINY]] : f32
// CHECK-NEXT: %[[MAXNORM:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[COEF:.+]] = arith.divf %[[MAXNORM]], %[[SHIFTED]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[CLAMPED:.+]] = arith.minimumf %[[COEF]], %[[ONE]] : f32
// CHECK-NEXT: linalg.yield %[[NORM]], %[[CLAMPED]] : f32, f32
// CHECK: %[[C0:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$SC2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G0]], %[[NC]]#1 : tensor<4x8xf16>, tensor<f32>) outs(%{{.+}} : tensor<4x8xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[K:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[WX:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[Y:.+]] = arith.mulf %[[WX]], %[[K]] : f32
// CHECK-NEXT: %[[Y16:.+]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[Y16]] : f16
// CHECK: %[[C1:.+]] = linalg.generic {{.+}} ins(%[[G1]], %[[NC]]#1 : tensor<8xf32>, tensor<f32>)
// CHECK: return %[[C0]], %[[C1]], %[[NC]]#0 : tensor<4x8xf16>, tensor<8xf32>, tensor<f32>
func.func @clip_grad_norm(%g0: tensor<4x8xf16>, %g1: tensor<8xf32>) -> (tensor<4x8xf16>, tensor<8xf32>, tensor<f32>) {
  %c0, %c1, %norm = amp.clip_grad_norm %g0, %g1 {max_norm = 1.000000e+00 : f64} : tensor<4x8xf16>, tensor<8xf32>
  return %c0, %c1, %norm : tensor<4x8xf16>, tensor<8xf32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// sgd_update
//===----------------------------------------------------------------------===//

// Weight decay, momentum, Nesterov, an f16 gradient, found_inf: one generic
// writes the parameter and the buffer; lr and found_inf are 0-d inputs.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SC:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @sgd_nesterov
// CHECK-SAME: (%[[P:.+]]: tensor<4x8xf32>, %[[G:.+]]: tensor<4x8xf16>, %[[M:.+]]: tensor<4x8xf32>, %[[LR:.+]]: tensor<f32>, %[[FOUND:.+]]: tensor<i1>)
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]], #[[$SC]], #[[$SC]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[G]], %[[M]], %[[LR]], %[[FOUND]] : tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<f32>, tensor<i1>) outs(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[PX:.+]]: f32, %[[GX:.+]]: f16, %[[MX:.+]]: f32, %[[LRX:.+]]: f32, %[[F:.+]]: i1, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GX]] : f16 to f32
// CHECK-NEXT: %[[WD:.+]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT: %[[DECAY:.+]] = arith.mulf %[[WD]], %[[PX]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.addf %[[WG]], %[[DECAY]] : f32
// CHECK-NEXT: %[[MU:.+]] = arith.constant 0.899999976 : f32
// CHECK-NEXT: %[[OLD:.+]] = arith.mulf %[[MU]], %[[MX]] : f32
// CHECK-NEXT: %[[BUF:.+]] = arith.addf %[[OLD]], %[[D]] : f32
// CHECK-NEXT: %[[AHEAD:.+]] = arith.mulf %[[MU]], %[[BUF]] : f32
// CHECK-NEXT: %[[STEP:.+]] = arith.addf %[[D]], %[[AHEAD]] : f32
// CHECK-NEXT: %[[DELTA:.+]] = arith.mulf %[[LRX]], %[[STEP]] : f32
// CHECK-NEXT: %[[NEWP:.+]] = arith.subf %[[PX]], %[[DELTA]] : f32
// CHECK-NEXT: %[[OUTP:.+]] = arith.select %[[F]], %[[PX]], %[[NEWP]] : f32
// CHECK-NEXT: %[[OUTM:.+]] = arith.select %[[F]], %[[MX]], %[[BUF]] : f32
// CHECK-NEXT: linalg.yield %[[OUTP]], %[[OUTM]] : f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @sgd_nesterov(%p: tensor<4x8xf32>, %g: tensor<4x8xf16>, %m: tensor<4x8xf32>, %lr: tensor<f32>, %found: tensor<i1>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1 = amp.sgd_update %p, %g, momentum_buffer %m, lr %lr, found_inf %found {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-02 : f64} : tensor<4x8xf32>, tensor<4x8xf16>
  return %p1, %m1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Dampening scales the gradient by 1 - dampening; without Nesterov the step
// is the new buffer; without found_inf there is no select.
// CHECK-LABEL: func.func @sgd_dampening
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[PX:.+]]: f32, %[[GX:.+]]: f32, %[[MX:.+]]: f32, %[[LRX:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[MU:.+]] = arith.constant 8.000000e-01 : f32
// CHECK-NEXT: %[[OLD:.+]] = arith.mulf %[[MU]], %[[MX]] : f32
// CHECK-NEXT: %[[KEEP:.+]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT: %[[FRESH:.+]] = arith.mulf %[[KEEP]], %[[GX]] : f32
// CHECK-NEXT: %[[BUF:.+]] = arith.addf %[[OLD]], %[[FRESH]] : f32
// CHECK-NEXT: %[[DELTA:.+]] = arith.mulf %[[LRX]], %[[BUF]] : f32
// CHECK-NEXT: %[[NEWP:.+]] = arith.subf %[[PX]], %[[DELTA]] : f32
// CHECK-NEXT: linalg.yield %[[NEWP]], %[[BUF]] : f32, f32
func.func @sgd_dampening(%p: tensor<8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %lr: tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %p1, %m1 = amp.sgd_update %p, %g, momentum_buffer %m, lr %lr {dampening = 2.500000e-01 : f64, momentum = 8.000000e-01 : f64} : tensor<8xf32>, tensor<8xf32>
  return %p1, %m1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Plain SGD on bf16: widened, one rounding of p - lr * g.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$SC:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sgd_plain_bf16
// CHECK-SAME: (%[[P:.+]]: tensor<8xbf16>, %[[G:.+]]: tensor<8xbf16>, %[[LR:.+]]: tensor<f32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$SC]], #[[$ID]]], iterator_types = ["parallel"]} ins(%[[P]], %[[G]], %[[LR]] : tensor<8xbf16>, tensor<8xbf16>, tensor<f32>) outs(%{{.+}} : tensor<8xbf16>)
// CHECK-NEXT: ^bb0(%[[PX:.+]]: bf16, %[[GX:.+]]: bf16, %[[LRX:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT: %[[WP:.+]] = arith.extf %[[PX]] : bf16 to f32
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GX]] : bf16 to f32
// CHECK-NEXT: %[[DELTA:.+]] = arith.mulf %[[LRX]], %[[WG]] : f32
// CHECK-NEXT: %[[NEWP:.+]] = arith.subf %[[WP]], %[[DELTA]] : f32
// CHECK-NEXT: %[[R16:.+]] = arith.truncf %[[NEWP]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R16]] : bf16
// CHECK: return %[[R]] : tensor<8xbf16>
func.func @sgd_plain_bf16(%p: tensor<8xbf16>, %g: tensor<8xbf16>, %lr: tensor<f32>) -> tensor<8xbf16> {
  %p1 = amp.sgd_update %p, %g, lr %lr : tensor<8xbf16>, tensor<8xbf16>
  return %p1 : tensor<8xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// adamw_update
//===----------------------------------------------------------------------===//

// A 0-d generic computes -lr / (1 - beta1^step), sqrt(1 - beta2^step) and
// 1 - lr * weight_decay in f64 (as PyTorch's Python floats), rounded to f32;
// one generic then updates the parameter and both moments.
// CHECK-DAG: #[[$S:.+]] = affine_map<() -> ()>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SC:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @adamw
// CHECK-SAME: (%[[P:.+]]: tensor<4x8xf32>, %[[G:.+]]: tensor<4x8xf32>, %[[M:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<4x8xf32>, %[[STEP:.+]]: tensor<i64>, %[[LR:.+]]: tensor<f32>, %[[FOUND:.+]]: tensor<i1>)
// CHECK: %[[K:.+]]:3 = linalg.generic {indexing_maps = [#[[$S]], #[[$S]], #[[$S]], #[[$S]], #[[$S]]], iterator_types = []} ins(%[[STEP]], %[[LR]] : tensor<i64>, tensor<f32>) outs(%{{.+}}, %{{.+}}, %{{.+}} : tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[T:.+]]: i64, %[[LRX:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[TF:.+]] = arith.sitofp %[[T]] : i64 to f64
// CHECK-NEXT: %[[LR64:.+]] = arith.extf %[[LRX]] : f32 to f64
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[B1:.+]] = arith.constant 9.000000e-01 : f64
// CHECK-NEXT: %[[B1T:.+]] = math.powf %[[B1]], %[[TF]] : f64
// CHECK-NEXT: %[[BC1:.+]] = arith.subf %[[ONE]], %[[B1T]] : f64
// CHECK-NEXT: %[[SS:.+]] = arith.divf %[[LR64]], %[[BC1]] : f64
// CHECK-NEXT: %[[NSS:.+]] = arith.negf %[[SS]] : f64
// CHECK-NEXT: %[[B2:.+]] = arith.constant 0.99899999999999999 : f64
// CHECK-NEXT: %[[B2T:.+]] = math.powf %[[B2]], %[[TF]] : f64
// CHECK-NEXT: %[[BC2:.+]] = arith.subf %[[ONE]], %[[B2T]] : f64
// CHECK-NEXT: %[[BC2S:.+]] = math.sqrt %[[BC2]] : f64
// CHECK-NEXT: %[[NSS32:.+]] = arith.truncf %[[NSS]] : f64 to f32
// CHECK-NEXT: %[[BC2S32:.+]] = arith.truncf %[[BC2S]] : f64 to f32
// CHECK-NEXT: %[[WD:.+]] = arith.constant 1.000000e-02 : f64
// CHECK-NEXT: %[[LRWD:.+]] = arith.mulf %[[LR64]], %[[WD]] : f64
// CHECK-NEXT: %[[DECAY:.+]] = arith.subf %[[ONE]], %[[LRWD]] : f64
// CHECK-NEXT: %[[DECAY32:.+]] = arith.truncf %[[DECAY]] : f64 to f32
// CHECK-NEXT: linalg.yield %[[NSS32]], %[[BC2S32]], %[[DECAY32]] : f32, f32, f32
// CHECK: %[[R:.+]]:3 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]], #[[$ID]], #[[$SC]], #[[$SC]], #[[$SC]], #[[$SC]], #[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[G]], %[[M]], %[[V]], %[[K]]#0, %[[K]]#1, %[[K]]#2, %[[FOUND]] : {{.+}}) outs(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[PX:.+]]: f32, %[[GX:.+]]: f32, %[[MX:.+]]: f32, %[[VX:.+]]: f32, %[[NSSX:.+]]: f32, %[[BC2SX:.+]]: f32, %[[DECAYX:.+]]: f32, %[[F:.+]]: i1, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[PD:.+]] = arith.mulf %[[PX]], %[[DECAYX]] : f32
// CHECK-NEXT: %[[B1F:.+]] = arith.constant 0.899999976 : f32
// CHECK-NEXT: %[[MOLD:.+]] = arith.mulf %[[B1F]], %[[MX]] : f32
// CHECK-NEXT: %[[OMB1:.+]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: %[[MNEW:.+]] = arith.mulf %[[OMB1]], %[[GX]] : f32
// CHECK-NEXT: %[[M1:.+]] = arith.addf %[[MOLD]], %[[MNEW]] : f32
// CHECK-NEXT: %[[B2F:.+]] = arith.constant 9.990000e-01 : f32
// CHECK-NEXT: %[[VOLD:.+]] = arith.mulf %[[B2F]], %[[VX]] : f32
// CHECK-NEXT: %[[OMB2:.+]] = arith.constant 1.000000e-03 : f32
// CHECK-NEXT: %[[GS:.+]] = arith.mulf %[[OMB2]], %[[GX]] : f32
// CHECK-NEXT: %[[VNEW:.+]] = arith.mulf %[[GS]], %[[GX]] : f32
// CHECK-NEXT: %[[V1:.+]] = arith.addf %[[VOLD]], %[[VNEW]] : f32
// CHECK-NEXT: %[[ROOT:.+]] = math.sqrt %[[V1]] : f32
// CHECK-NEXT: %[[CORR:.+]] = arith.divf %[[ROOT]], %[[BC2SX]] : f32
// CHECK-NEXT: %[[EPS:.+]] = arith.constant 9.99999993E-9 : f32
// CHECK-NEXT: %[[DENOM:.+]] = arith.addf %[[CORR]], %[[EPS]] : f32
// CHECK-NEXT: %[[NUM:.+]] = arith.mulf %[[NSSX]], %[[M1]] : f32
// CHECK-NEXT: %[[UPD:.+]] = arith.divf %[[NUM]], %[[DENOM]] : f32
// CHECK-NEXT: %[[P1:.+]] = arith.addf %[[PD]], %[[UPD]] : f32
// CHECK-NEXT: %[[OP:.+]] = arith.select %[[F]], %[[PX]], %[[P1]] : f32
// CHECK-NEXT: %[[OM:.+]] = arith.select %[[F]], %[[MX]], %[[M1]] : f32
// CHECK-NEXT: %[[OV:.+]] = arith.select %[[F]], %[[VX]], %[[V1]] : f32
// CHECK-NEXT: linalg.yield %[[OP]], %[[OM]], %[[OV]] : f32, f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @adamw(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %step: tensor<i64>, %lr: tensor<f32>, %found: tensor<i1>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1, %v1 = amp.adamw_update %p, %g, %m, %v, step %step, lr %lr, found_inf %found : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %p1, %m1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Without weight decay there is no decay factor; an f16 gradient is
// widened once; without found_inf the results are the updates.
// CHECK-LABEL: func.func @adamw_f16_grad_no_decay
// CHECK: %[[K:.+]]:2 = linalg.generic
// CHECK-NOT: arith.mulf %{{.+}}, %cst{{.*}} : f64
// CHECK: linalg.yield %{{.+}}, %{{.+}} : f32, f32
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[K]]#0, %[[K]]#1 : tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[PX:.+]]: f32, %[[GX:.+]]: f16, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[WG:.+]] = arith.extf %[[GX]] : f16 to f32
// CHECK-NOT: arith.select
// CHECK: %[[P1:.+]] = arith.addf %[[PX]], %{{.+}} : f32
// CHECK-NEXT: linalg.yield %[[P1]], %{{.+}}, %{{.+}} : f32, f32, f32
func.func @adamw_f16_grad_no_decay(%p: tensor<8xf32>, %g: tensor<8xf16>, %m: tensor<8xf32>, %v: tensor<8xf32>, %step: tensor<i64>, %lr: tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %p1, %m1, %v1 = amp.adamw_update %p, %g, %m, %v, step %step, lr %lr {weight_decay = 0.000000e+00 : f64} : tensor<8xf32>, tensor<8xf16>, tensor<8xf32>
  return %p1, %m1, %v1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
