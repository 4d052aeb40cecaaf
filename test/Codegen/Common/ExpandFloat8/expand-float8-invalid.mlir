// RUN: amp-opt %s --amp-expand-float8 --split-input-file --verify-diagnostics

// The pass expands scalars and vectors: a conversion on tensors must be
// bufferized and lowered to loops first (the pipelines run it after that).
func.func @tensor(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'arith.truncf' op on 'tensor<4xf32>': amp-expand-float8 expands f8 conversions of scalars and vectors only; bufferize and lower linalg to loops first}}
  %y = arith.truncf %x : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %y : tensor<4xf8E4M3FN>
}

// -----

// Only round to nearest even is implemented (arith.truncf's default).
func.func @toward_zero(%x: f32) -> f8E5M2 {
  // expected-error @+1 {{'arith.truncf' op rounds toward_zero: amp-expand-float8 implements round to nearest even only}}
  %y = arith.truncf %x toward_zero : f32 to f8E5M2
  return %y : f8E5M2
}

// -----

// f8 to a narrower float is not one of the conversions expanded.
func.func @to_f4(%x: f8E4M3FN) -> f4E2M1FN {
  // expected-error @+1 {{'arith.truncf' op converts 'f8E4M3FN' to 'f4E2M1FN': amp-expand-float8 rounds f16, bf16, f32 and f64 to f8 only}}
  %y = arith.truncf %x : f8E4M3FN to f4E2M1FN
  return %y : f4E2M1FN
}

// -----

func.func @from_f4(%x: f4E2M1FN) -> f8E5M2 {
  // expected-error @+1 {{'arith.extf' op converts 'f4E2M1FN' to 'f8E5M2': amp-expand-float8 widens f8 to f16, bf16, f32 and f64 only}}
  %y = arith.extf %x : f4E2M1FN to f8E5M2
  return %y : f8E5M2
}

// -----

// The other 8-bit formats have no lowering either: a clear error rather
// than an invalid fptrunc later.
func.func @fnuz(%x: f32) -> f8E4M3FNUZ {
  // expected-error @+1 {{'arith.truncf' op converts 'f32' to 'f8E4M3FNUZ': amp-expand-float8 expands conversions of f8E4M3FN and f8E5M2 only}}
  %y = arith.truncf %x : f32 to f8E4M3FNUZ
  return %y : f8E4M3FNUZ
}
