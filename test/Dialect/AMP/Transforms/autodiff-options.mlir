// --amp-autodiff's options and the shape of what it generates: SGD's
// momentum, dampening, Nesterov and weight decay, AdamW's hyper-parameters,
// gradient clipping, loss=mse, optimizer=none.

// RUN: amp-opt %s \
// RUN:   --amp-autodiff="loss=mse momentum=0.9 dampening=0.5 weight-decay=0.01" \
// RUN:   | FileCheck %s --check-prefix=DAMPENING
// RUN: amp-opt %s \
// RUN:   --amp-autodiff="loss=mse momentum=0.9 nesterov=true weight-decay=0.01" \
// RUN:   | FileCheck %s --check-prefix=NESTEROV
// RUN: amp-opt %s --amp-autodiff="loss=mse optimizer=adamw \
// RUN:   beta1=0.8 beta2=0.95 epsilon=1e-6 weight-decay=0" \
// RUN:   | FileCheck %s --check-prefix=ADAMW
// RUN: amp-opt %s \
// RUN:   --amp-autodiff="loss=mse optimizer=none max-grad-norm=0.5" \
// RUN:   | FileCheck %s --check-prefix=GRAD

// loss=mse appends mse_loss and a `target` label of the prediction's type.
// With dampening, PyTorch's first update sets the momentum buffer to the
// (weight-decayed) gradient undamped: on step 0 the buffer passed to
// sgd_update is dampening / momentum times that, which sgd_update's
// momentum * buf + (1 - dampening) * g turns into g.
// DAMPENING-LABEL: func.func @f_train_step(
// DAMPENING-SAME:    %[[W:[^:]*]]: tensor<4x3xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// DAMPENING-SAME:    %[[BUF:[^:]*]]: tensor<4x3xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// DAMPENING-SAME:    %[[STEP:[^:]*]]: tensor<i64> {amp.name = "step", amp.role = #amp.role<optimizer_state>},
// DAMPENING-SAME:    %[[X:[^:]*]]: tensor<2x3xf32> {amp.name = "x", amp.role = #amp.role<input>},
// DAMPENING-SAME:    %[[TARGET:[^:]*]]: tensor<2x4xf32> {amp.name = "target", amp.role = #amp.role<label>},
// DAMPENING-SAME:    %[[LR:[^:]*]]: tensor<f32> {amp.name = "lr", amp.role = #amp.role<hyperparameter>})
// DAMPENING:         %[[Y:.*]] = amp.linear %[[X]], %[[W]]
// DAMPENING-NEXT:    %[[LOSS:.*]] = amp.mse_loss %[[Y]], %[[TARGET]] : tensor<2x4xf32>
// DAMPENING-NEXT:    %[[SEED:.*]] = amp.seed %[[LOSS]]
// DAMPENING-NEXT:    %[[DY:.*]] = amp.mse_loss_grad %[[SEED]], %[[Y]], %[[TARGET]]
// DAMPENING-NEXT:    %[[DW:.*]] = amp.matmul %[[DY]], %[[X]] {transpose_lhs}
// DAMPENING-NEXT:    %[[COUNT:.*]] = tensor.extract %[[STEP]][]
// DAMPENING-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// DAMPENING-NEXT:    %[[NEXT:.*]] = arith.addi %[[COUNT]], %[[ONE]]
// DAMPENING-NEXT:    %[[STEP1:.*]] = tensor.from_elements %[[NEXT]] : tensor<i64>
// DAMPENING-NEXT:    %[[WD:.*]] = amp.constant dense<0.00999999977> : tensor<4x3xf32>
// DAMPENING-NEXT:    %[[DECAY:.*]] = amp.mul %[[WD]], %[[W]]
// DAMPENING-NEXT:    %[[DP:.*]] = amp.add %[[DW]], %[[DECAY]]
// DAMPENING-NEXT:    %[[RATIO:.*]] = amp.constant dense<0.555555582> : tensor<4x3xf32>
// DAMPENING-NEXT:    %[[INIT:.*]] = amp.mul %[[DP]], %[[RATIO]]
// DAMPENING-NEXT:    %[[ZERO:.*]] = amp.constant dense<0> : tensor<i64>
// DAMPENING-NEXT:    %[[FIRST:.*]] = amp.compare eq, %[[STEP]], %[[ZERO]] : tensor<i64> -> tensor<i1>
// DAMPENING-NEXT:    %[[FIRSTB:.*]] = amp.broadcast %[[FIRST]] : tensor<i1> -> tensor<4x3xi1>
// DAMPENING-NEXT:    %[[BUF_IN:.*]] = amp.where %[[FIRSTB]], %[[INIT]], %[[BUF]]
// DAMPENING-NEXT:    %[[NEW_W:.*]], %[[NEW_BUF:.*]] = amp.sgd_update %[[W]], %[[DW]], momentum_buffer %[[BUF_IN]], lr %[[LR]] {dampening = 5.000000e-01 : f64, momentum = 9.000000e-01 : f64, weight_decay = 1.000000e-02 : f64}
// DAMPENING-NEXT:    return %[[NEW_W]], %[[NEW_BUF]], %[[STEP1]], %[[LOSS]]

// NESTEROV-LABEL: func.func @f_train_step(
// NESTEROV-SAME:    %[[W:[^:]*]]: tensor<4x3xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// NESTEROV-SAME:    %[[BUF:[^:]*]]: tensor<4x3xf32> {amp.name = "w.momentum_buffer", amp.role = #amp.role<optimizer_state>},
// NESTEROV-SAME:    %[[X:[^:]*]]: tensor<2x3xf32> {amp.name = "x", amp.role = #amp.role<input>},
// NESTEROV-NOT:     "step"
// NESTEROV:         amp.sgd_update %[[W]], %{{.*}}, momentum_buffer %[[BUF]], lr %{{.*}} {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-02 : f64}

// ADAMW-LABEL: func.func @f_train_step(
// ADAMW-SAME:    {amp.name = "w.exp_avg", amp.role = #amp.role<optimizer_state>}
// ADAMW-SAME:    {amp.name = "w.exp_avg_sq", amp.role = #amp.role<optimizer_state>}
// ADAMW-SAME:    {amp.name = "step", amp.role = #amp.role<optimizer_state>}
// ADAMW:         amp.adamw_update {{.*}} {beta1 = 8.000000e-01 : f64, beta2 = 0.94999999999999996 : f64, epsilon = 9.9999999999999995E-7 : f64, weight_decay = 0.000000e+00 : f64}

// Gradients only: no optimizer state, no lr, no amp.graph; the clipped
// gradients and the norm are returned.
// GRAD-LABEL: func.func @f_grad(
// GRAD-SAME:    %{{[^:]*}}: tensor<4x3xf32> {amp.name = "w", amp.role = #amp.role<parameter>},
// GRAD-SAME:    %{{[^:]*}}: tensor<2x3xf32> {amp.name = "x", amp.role = #amp.role<input>},
// GRAD-SAME:    %{{[^:]*}}: tensor<2x4xf32> {amp.name = "target", amp.role = #amp.role<label>})
// GRAD-SAME:    -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>},
// GRAD-SAME:        tensor<4x3xf32> {amp.name = "w.grad", amp.role = #amp.role<output>},
// GRAD-SAME:        tensor<f32> {amp.name = "grad_norm", amp.role = #amp.role<output>}) {
// GRAD:         %[[CLIPPED:.*]], %[[NORM:.*]] = amp.clip_grad_norm %{{.*}} {max_norm = 5.000000e-01 : f64} : tensor<4x3xf32>
// GRAD-NEXT:    return %{{.*}}, %[[CLIPPED]], %[[NORM]]

func.func @f(%w: tensor<4x3xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
             %x: tensor<2x3xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<2x4xf32> {amp.role = #amp.role<output>, amp.name = "y"})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.linear %x, %w : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
