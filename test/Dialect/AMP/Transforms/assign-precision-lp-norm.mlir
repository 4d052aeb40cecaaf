// RUN: amp-opt %s --amp-assign-precision | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-assign-precision="lp-norm" 2>&1 | FileCheck %s --check-prefix=LP
// RUN: amp-opt %s --amp-assign-precision="lp-norm" --amp-insert-casts 2>/dev/null | FileCheck %s --check-prefix=LP-CASTS

// Composer's low-precision LayerNorm/GroupNorm (opt-in, with a warning):
// the norms and their gradients run low; their statistics stay f32.

// DEFAULT: amp.layer_norm {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// DEFAULT: amp.layer_norm_grad {{.*}}{amp.precision = f32, amp.precision_rule = "deny"}
// DEFAULT: amp.group_norm {{.*}}{amp.precision = f32, amp.precision_rule = "deny", num_groups = 2 : i64}

// LP: warning: lp-norm: layer_norm, group_norm and rms_norm (and their gradients) run in 'bf16' (Composer's low-precision norms); this can cause loss spikes. Their statistics stay f32.
// LP: amp.layer_norm {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (lp-norm)"}
// LP: amp.layer_norm_grad {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (lp-norm)"}
// LP: amp.group_norm {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (lp-norm)", num_groups = 2 : i64}

// The affine parameters stay f32 (the norm accepts them next to a bf16
// input); mean and rstd stay f32.
// LP-CASTS: %[[X:.*]] = amp.cast %arg0 : tensor<4x8xf32> to tensor<4x8xbf16>
// LP-CASTS: amp.layer_norm %[[X]], %arg1, %arg2 {{.*}} : (tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>)
// LP-CASTS: amp.layer_norm_grad {{.*}} : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>)
// LP-CASTS: amp.group_norm {{.*}} : (tensor<2x4x3x3xbf16>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xbf16>, tensor<2x2xf32>, tensor<2x2xf32>)

func.func @norms(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>,
                 %img: tensor<2x4x3x3xf32>, %gw: tensor<4xf32>, %gb: tensor<4xf32>)
    -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x4x3x3xf32>) {
  %y, %mean, %rstd = amp.layer_norm %x, %w, %b
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %dx, %dw, %db = amp.layer_norm_grad %y, %x, %mean, %rstd, %w
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %g, %gmean, %grstd = amp.group_norm %img, %gw, %gb {num_groups = 2 : i64}
      : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %dx, %dw, %db, %g : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x4x3x3xf32>
}
