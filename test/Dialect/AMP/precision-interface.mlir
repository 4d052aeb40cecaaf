// Every op of the amp dialect answers the mixed-precision passes through
// PrecisionOpInterface (category, f32 accumulation, widenable results, and
// per-operand roles with defaults from those traits) or, for ops whose types
// the passes never change, FixedPrecisionOpInterface. The pass fails, naming
// the op, when an op implements neither or both; the table below lists the
// answers of every op kind, so an op added without its line, or a category
// changed by accident, fails here too (docs/AddingOpsAndPasses.md, 1.2).

// RUN: amp-opt %s -test-amp-precision-interface -o %t | FileCheck %s

// CHECK:      amp.adamw_update: fixed
// CHECK-NEXT: amp.add: infer
// CHECK-NEXT: amp.all_reduce_any: fixed
// CHECK-NEXT: amp.all_reduce_start: fixed
// CHECK-NEXT: amp.all_reduce_wait: fixed
// CHECK-NEXT: amp.attention: allow, f32 accumulation
// CHECK-NEXT: amp.attention_grad: allow, f32 accumulation
// CHECK-NEXT: amp.avg_pool2d: infer, f32 accumulation
// CHECK-NEXT: amp.avg_pool2d_grad: infer, f32 accumulation
// CHECK-NEXT: amp.batch_norm: infer, f32 accumulation
// CHECK-NEXT: amp.batch_norm_grad: infer, f32 accumulation
// CHECK-NEXT: amp.broadcast: clear
// CHECK-NEXT: amp.cast: fixed
// CHECK-NEXT: amp.check_indices: fixed
// CHECK-NEXT: amp.clip_grad_norm: fixed
// CHECK-NEXT: amp.compare: clear
// CHECK-NEXT: amp.concat: clear
// CHECK-NEXT: amp.constant: clear
// CHECK-NEXT: amp.conv2d: allow, f32 accumulation, widenable results
// CHECK-NEXT: amp.conv2d_input_grad: allow, f32 accumulation, widenable results
// CHECK-NEXT: amp.conv2d_weight_grad: allow, f32 accumulation, widenable results
// CHECK-NEXT: amp.cos: deny
// CHECK-NEXT: amp.cross_entropy: deny, f32 accumulation
// CHECK-NEXT: amp.cross_entropy_grad: deny, f32 accumulation
// CHECK-NEXT: amp.div: infer
// CHECK-NEXT: amp.dropout: infer
// CHECK-NEXT: amp.dropout_grad: infer
// CHECK-NEXT: amp.erf: infer
// CHECK-NEXT: amp.exp: deny
// CHECK-NEXT: amp.fp8_matmul: fixed
// CHECK-NEXT: amp.fp8_quantize: fixed
// CHECK-NEXT: amp.gather: clear
// CHECK-NEXT: amp.gather_elements: clear
// CHECK-NEXT: amp.gather_grad: infer, f32 accumulation, widenable results
// CHECK-NEXT: amp.gelu: infer
// CHECK-NEXT: amp.gelu_grad: infer
// CHECK-NEXT: amp.global_avg_pool: deny, f32 accumulation
// CHECK-NEXT: amp.group_norm: deny, f32 accumulation
// CHECK-NEXT: amp.group_norm_grad: deny, f32 accumulation
// CHECK-NEXT: amp.layer_norm: deny, f32 accumulation
// CHECK-NEXT: amp.layer_norm_grad: deny, f32 accumulation
// CHECK-NEXT: amp.linear: allow, f32 accumulation, widenable results
// CHECK-NEXT: amp.log: deny
// CHECK-NEXT: amp.log_softmax: deny, f32 accumulation
// CHECK-NEXT: amp.log_softmax_grad: deny, f32 accumulation
// CHECK-NEXT: amp.matmul: allow, f32 accumulation, widenable results
// CHECK-NEXT: amp.max_pool2d: clear
// CHECK-NEXT: amp.max_pool2d_grad: clear
// CHECK-NEXT: amp.maximum: clear
// CHECK-NEXT: amp.minimum: clear
// CHECK-NEXT: amp.mse_loss: deny, f32 accumulation
// CHECK-NEXT: amp.mse_loss_grad: deny, f32 accumulation
// CHECK-NEXT: amp.mul: infer
// CHECK-NEXT: amp.neg: clear
// CHECK-NEXT: amp.pow: deny
// CHECK-NEXT: amp.reduce_max: clear
// CHECK-NEXT: amp.reduce_mean: deny, f32 accumulation, widenable results
// CHECK-NEXT: amp.reduce_sum: deny, f32 accumulation, widenable results
// CHECK-NEXT: amp.relu: clear
// CHECK-NEXT: amp.relu_grad: clear
// CHECK-NEXT: amp.reshape: clear
// CHECK-NEXT: amp.rms_norm: deny, f32 accumulation
// CHECK-NEXT: amp.rms_norm_grad: deny, f32 accumulation
// CHECK-NEXT: amp.rsqrt: deny
// CHECK-NEXT: amp.scale_seed: fixed
// CHECK-NEXT: amp.scatter_add_elements: infer, f32 accumulation, widenable results
// CHECK-NEXT: amp.seed: fixed
// CHECK-NEXT: amp.sgd_update: fixed
// CHECK-NEXT: amp.sigmoid: infer
// CHECK-NEXT: amp.sigmoid_grad: infer
// CHECK-NEXT: amp.silu: infer
// CHECK-NEXT: amp.silu_grad: infer
// CHECK-NEXT: amp.sin: deny
// CHECK-NEXT: amp.slice: clear
// CHECK-NEXT: amp.slice_grad: clear
// CHECK-NEXT: amp.softmax: deny, f32 accumulation
// CHECK-NEXT: amp.softmax_grad: deny, f32 accumulation
// CHECK-NEXT: amp.softplus: deny
// CHECK-NEXT: amp.sqrt: infer
// CHECK-NEXT: amp.sub: infer
// CHECK-NEXT: amp.tanh: infer
// CHECK-NEXT: amp.tanh_grad: infer
// CHECK-NEXT: amp.transpose: clear
// CHECK-NEXT: amp.unscale_grads: fixed
// CHECK-NEXT: amp.update_scale: fixed
// CHECK-NEXT: amp.where: clear
// CHECK-NEXT: 86 amp op kinds answer

module {}
