// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @rank(%q: tensor<4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{query must have rank 4, got 3}}
  %o, %lse = amp.attention %q, %k, %v {scale = 1.0 : f64}
      : (tensor<4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @head_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x32xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{key has shape 2x4x8x32 but must have shape 2x4x8x16}}
  %o, %lse = amp.attention %q, %k, %v {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @value_length(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x9x16xf32>) {
  // expected-error @+1 {{value has shape 2x4x9x16 but must have shape 2x4x8x16}}
  %o, %lse = amp.attention %q, %k, %v {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x9x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @groups(%q: tensor<2x3x8x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>) {
  // expected-error @+1 {{query heads (3) must be a multiple of key heads (2)}}
  %o, %lse = amp.attention %q, %k, %v {scale = 1.0 : f64}
      : (tensor<2x3x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>)
      -> (tensor<2x3x8x16xf32>, tensor<2x3x8xf32>)
  return
}

// -----

func.func @types(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xbf16>) {
  // expected-error @+1 {{key has element type 'f32' but must have 'bf16'}}
  %o, %lse = amp.attention %q, %k, %v {scale = 1.0 : f64}
      : (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xbf16>)
      -> (tensor<2x4x8x16xbf16>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @mask_shape(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %m: tensor<2x2x8x8xi1>) {
  // expected-error @+1 {{mask has shape 2x2x8x8 but must have shape 2x4x8x8}}
  %o, %lse = amp.attention %q, %k, %v mask %m {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x2x8x8xi1>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @mask_type(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x8x16xbf16>, %v: tensor<2x4x8x16xbf16>, %m: tensor<1x1x8x8xf16>) {
  // expected-error @+1 {{mask has element type 'f16' but must have 'bf16' or f32}}
  %o, %lse = amp.attention %q, %k, %v mask %m {scale = 1.0 : f64}
      : (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<1x1x8x8xf16>)
      -> (tensor<2x4x8x16xbf16>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @dropout_range(%q: tensor<2x4x8x16xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{dropout 1.000000e+00 is out of range [0, 1)}}
  %o, %lse = amp.attention %q, %q, %q seed %s {scale = 1.0 : f64, dropout = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<i64>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @dropout_seed(%q: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{dropout needs a seed}}
  %o, %lse = amp.attention %q, %q, %q {scale = 1.0 : f64, dropout = 0.5 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @seed_without_dropout(%q: tensor<2x4x8x16xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{seed given without dropout}}
  %o, %lse = amp.attention %q, %q, %q seed %s {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<i64>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @scale(%q: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{scale must be finite}}
  %o, %lse = amp.attention %q, %q, %q {scale = 0x7FF0000000000000 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @output(%q: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x32xf32>) {
  // expected-error @+1 {{output has shape 2x4x8x16 but must have shape 2x4x8x32}}
  %o, %lse = amp.attention %q, %q, %v {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x32xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @lse(%q: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{lse has shape 2x4x8x1 but must have shape 2x4x8}}
  %o, %lse = amp.attention %q, %q, %q {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8x1xf32>)
  return
}

// -----

func.func @grad_type(%g: tensor<2x4x8x16xf32>, %q: tensor<2x4x8x16xf32>, %lse: tensor<2x4x8xf32>) {
  // expected-error @+1 {{key_grad has type 'tensor<2x4x8x16xbf16>' but must have 'tensor<2x4x8x16xf32>'}}
  %dq, %dk, %dv = amp.attention_grad %g, %q, %q, %q, %q, %lse {scale = 1.0 : f64}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>,
         tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xf32>)
  return
}

// -----

func.func @grad_of_output(%g: tensor<2x4x8x8xf32>, %q: tensor<2x4x8x16xf32>, %lse: tensor<2x4x8xf32>) {
  // expected-error @+1 {{grad has type 'tensor<2x4x8x8xf32>' but must have 'tensor<2x4x8x16xf32>'}}
  %dq, %dk, %dv = amp.attention_grad %g, %q, %q, %q, %q, %lse {scale = 1.0 : f64}
      : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>,
         tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
  return
}
