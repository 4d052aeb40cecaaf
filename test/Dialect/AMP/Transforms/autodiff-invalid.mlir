// Diagnostics of --amp-autodiff: errors for models it cannot differentiate
// and a warning (with a zero gradient) for a parameter that does not reach
// the loss.

// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-autodiff

// expected-error@+1 {{forward model @no_loss has no loss: mark its scalar loss result with amp.role = #amp.role<loss>, or append a loss to its logits with loss=cross_entropy or loss=mse}}
func.func @no_loss(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<4xf32> {amp.role = #amp.role<output>}, tensor<4xf32> {amp.role = #amp.role<output>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.tanh %w : tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error@+1 {{the loss of forward model @vector_loss must be a scalar (a 0-d f32 tensor), but its result is 'tensor<4xf32>'; return a scalar loss, or append one with loss=cross_entropy or loss=mse}}
func.func @vector_loss(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"}) -> tensor<4xf32>
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.tanh %w : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A gradient op in a forward model has no gradient rule itself.
func.func @no_rule(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                   %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.tanh %w : tensor<4xf32>
  // expected-error@+1 {{'amp.tanh_grad' has no gradient rule, but it is on a path from parameter 'w' to the loss of @no_rule}}
  %z = amp.tanh_grad %x, %y : tensor<4xf32>
  %l = amp.reduce_sum %z {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Calls are not differentiated through (inline first).
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>

func.func @call(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "layer.weight"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  // expected-error@+1 {{'func.call' has no gradient rule, but it is on a path from parameter 'layer.weight' to the loss of @call}}
  %y = func.call @helper(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %l = amp.reduce_sum %y {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An op without a rule is fine off the path from the parameters: here it
// only sees data.
func.func @off_path(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %d = amp.tanh_grad %x, %x : tensor<4xf32>
  %y = amp.mul %w, %d : tensor<4xf32>
  %l = amp.reduce_sum %y {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The statistics a norm returns are for its backward, not for the loss.
func.func @statistic(%x: tensor<2x4xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
                     %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                     %b: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "b"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  // expected-error@+1 {{'amp.layer_norm' op result #1 (a saved statistic) is used on a path to the loss; autodiff differentiates only the normalized output}}
  %y, %mean, %rstd = amp.layer_norm %x, %w, %b
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>)
  %l = amp.reduce_sum %mean {axes = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter the loss does not depend on (or depends on only through a
// non-differentiable operand, like a comparison) gets a warning and a zero
// gradient; the step is still generated.
func.func @unused(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                  // expected-warning@+1 {{parameter 'unused' (argument #1 of @unused) does not reach the loss; its gradient is zero}}
                  %u: tensor<3xf32> {amp.role = #amp.role<parameter>, amp.name = "unused"},
                  // expected-warning@+1 {{parameter 'threshold' (argument #2 of @unused) does not reach the loss; its gradient is zero}}
                  %t: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "threshold"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %c = amp.compare gt, %w, %t : tensor<4xf32> -> tensor<4xi1>
  %z = amp.where %c, %w, %w : tensor<4xi1>, tensor<4xf32>
  %l = amp.reduce_sum %z {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @state_argument(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    // expected-error@+1 {{forward model @state_argument argument #1 has amp.role 'optimizer_state'; a forward model takes parameters, buffers, inputs, labels and hyper-parameters}}
    %m: tensor<4xf32> {amp.role = #amp.role<optimizer_state>, amp.name = "w.momentum_buffer"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error@+1 {{forward model @parameter_result result #1 has amp.role 'parameter'; a forward model returns its loss, updated buffers and outputs}}
func.func @parameter_result(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error@+1 {{forward model @stray_buffer result #1 is an updated buffer that matches no buffer argument (by amp.name or by order)}}
func.func @stray_buffer(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                        %a: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "a"},
                        %b: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "b"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "c"})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l, %a : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error@+1 {{cannot generate @taken_train_step for forward model @taken: the symbol already exists}}
func.func @taken(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @taken_train_step() {
  return
}

// -----

func.func @declared(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// expected-error@+1 {{declaration of @declared_train_step has type '(tensor<4xf32>) -> tensor<f32>' but the step generated from @declared has type '(tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)'}}
func.func private @declared_train_step(tensor<4xf32>) -> tensor<f32>

// -----

// expected-error@+1 {{forward model @buffer_type takes buffer #0 (argument #1) as 'tensor<4xf32>' but returns it (result #1) as 'tensor<4xf16>'}}
func.func @buffer_type(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                       %a: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "a"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf16> {amp.role = #amp.role<buffer>, amp.name = "a"})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %w {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %a16 = amp.cast %a : tensor<4xf32> to tensor<4xf16>
  return %l, %a16 : tensor<f32>, tensor<4xf16>
}

// -----

// A learned additive attention bias (a relative position bias) gets no
// gradient from amp.attention: refused rather than silently not trained.
func.func @attention_learned_mask(
    %q: tensor<1x1x4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "q"},
    %bias: tensor<1x1x4x4xf32> {amp.role = #amp.role<parameter>, amp.name = "rel_bias"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  // expected-error@+1 {{operand #3 of 'amp.attention' depends on parameter 'rel_bias', but 'amp.attention' has no gradient for it}}
  %o, %lse = amp.attention %q, %q, %q mask %bias {scale = 1.0 : f64}
      : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>,
         tensor<1x1x4x4xf32>)
      -> (tensor<1x1x4x8xf32>, tensor<1x1x4xf32>)
  %l = amp.reduce_sum %o {axes = array<i64: 0, 1, 2, 3>}
      : tensor<1x1x4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @attention_lse_loss(
    %q: tensor<1x1x4x8xf32> {amp.role = #amp.role<parameter>, amp.name = "q"})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  // expected-error@+1 {{'amp.attention' op the log-sum-exp result has no gradient rule}}
  %o, %lse = amp.attention %q, %q, %q {scale = 1.0 : f64}
      : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>)
      -> (tensor<1x1x4x8xf32>, tensor<1x1x4xf32>)
  %l = amp.reduce_sum %lse {axes = array<i64: 0, 1, 2>}
      : tensor<1x1x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
