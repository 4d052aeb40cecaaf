// --amp-pipeline runs loss scaling after the precision passes: dynamic by
// default for fp16, none for bf16 (bf16 has f32's exponent range), and the
// scaler's options pass through. On the bundled fp32 MLP training step.

// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O1 precision=fp16" | FileCheck %s --check-prefix=FP16
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O1 precision=bf16" | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O1 precision=fp16 loss-scaling=none" | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O0" | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O1 precision=fp16 loss-scaling=static init-scale=128" | FileCheck %s --check-prefix=STATIC
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O3 precision=fp16 growth-interval=1000 hysteresis=2" | FileCheck %s --check-prefix=NAIVE
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O0 loss-scaling=dynamic error-at-min=true min-scale=4" | FileCheck %s --check-prefix=O0
// RUN: amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="opt-level=O2 precision=fp16 master-weights=true" | FileCheck %s --check-prefix=MASTER
// RUN: not amp-opt %amp_src_root/examples/mlp_train_step.mlir --amp-pipeline="loss-scaling=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

// fp16: GradScaler's defaults (every attribute of amp.update_scale at its
// default: 2, 0.5, 2000, hysteresis 1, min 1, max 2^24).
// FP16-LABEL: func.func @mlp_train_step(
// FP16-SAME: {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>}
// FP16: amp.constant dense<6.553600e+04> : tensor<f32>
// FP16: amp.scale_seed
// FP16: amp.unscale_grads
// FP16: amp.update_scale %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}{{$}}
// FP16-COUNT-6: amp.sgd_update {{.*}} found_inf

// NONE-LABEL: func.func @mlp_train_step(
// NONE-NOT: scaler_state
// NONE-NOT: amp.scale_seed
// NONE-NOT: found_inf
// NONE: return

// STATIC-LABEL: func.func @mlp_train_step(
// STATIC-NOT: scaler_state
// STATIC: amp.constant dense<1.280000e+02> : tensor<f32>
// STATIC: amp.scale_seed
// STATIC: amp.unscale_grads
// STATIC-NOT: amp.update_scale
// STATIC: amp.sgd_update {{.*}} found_inf

// Colossal-AI's naive AMP: everything low, dynamic scaling with hysteresis 2
// and growth interval 1000.
// NAIVE-LABEL: func.func @mlp_train_step(
// NAIVE: amp.update_scale {{.*}} {growth_interval = 1000 : i64, hysteresis = 2 : i64}

// An explicit mode scales even at O0 (fp32), here with error-at-min.
// O0-LABEL: func.func @mlp_train_step(
// O0-SAME: {amp.name = "loss_scale.stuck_at_min", amp.role = #amp.role<scaler_state>}
// O0-NOT: amp.cast
// O0: amp.update_scale {{.*}} {min_scale = 4.000000e+00 : f64}

// O2 with master weights: the fp16 copies of the f32 weights are buffers
// the updates produce.
// MASTER-LABEL: func.func @mlp_train_step(
// MASTER-SAME: %[[FC1_W:[a-z0-9]+]]: tensor<128x64xf32> {amp.name = "fc1.weight", amp.role = #amp.role<parameter>}
// MASTER-SAME: %[[FC1_W16:[a-z0-9]+]]: tensor<128x64xf16> {amp.copy_of = "fc1.weight", amp.name = "fc1.weight.f16", amp.role = #amp.role<buffer>}
// MASTER-SAME: %[[FC2_W16:[a-z0-9]+]]: tensor<10x128xf16> {amp.copy_of = "fc2.weight", amp.name = "fc2.weight.f16", amp.role = #amp.role<buffer>}
// MASTER-SAME: {amp.name = "loss_scale", amp.role = #amp.role<scaler_state>}
// MASTER-NOT: amp.cast %[[FC1_W]]
// MASTER: amp.linear %{{.*}}, %[[FC1_W16]],
// MASTER: %[[NEW:.*]], %{{.*}} = amp.sgd_update %[[FC1_W]], {{.*}} found_inf
// MASTER-NEXT: %[[COPY:.*]] = amp.cast %[[NEW]] : tensor<128x64xf32> to tensor<128x64xf16>
// MASTER: return {{.*}}, %[[COPY]],

// BAD: for the --loss-scaling option: Cannot find option named 'sometimes'!
