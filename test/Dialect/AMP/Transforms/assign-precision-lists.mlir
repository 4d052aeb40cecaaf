// RUN: amp-opt %s --amp-assign-precision="deny-add=amp.gelu allow-add=amp.softmax" | FileCheck %s --check-prefix=MOVE
// RUN: amp-opt %s --amp-assign-precision="infer-remove=amp.gelu" 2>&1 | FileCheck %s --check-prefix=REMOVE
// RUN: amp-opt %s --amp-assign-precision="allow-remove=amp.exp" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOOP
// RUN: not amp-opt %s --amp-assign-precision="allow-add=amp.gelux" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %s --amp-assign-precision="deny-add=amp.cast" 2>&1 | FileCheck %s --check-prefix=NOCATEGORY
// RUN: not amp-opt %s --amp-assign-precision="deny-add=amp.gelu infer-add=amp.gelu" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not amp-opt %s --amp-assign-precision="deny-add=amp.gelu deny-remove=amp.gelu" 2>&1 | FileCheck %s --check-prefix=ADDREMOVE
// RUN: not amp-opt %s --amp-assign-precision="precision=fp8" 2>&1 | FileCheck %s --check-prefix=PRECISION

// Per-category list edits from pass options (TF's
// TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_{ALLOW,INFER,DENY,CLEAR}LIST_{ADD,REMOVE}).
// Adding a kind to a list moves it there; removing it from its list leaves it
// in none (f32, with a remark). The rule says where the category came from.

// MOVE: amp.linear {{.*}}"allow"
// MOVE: amp.gelu {{.*}}{amp.precision = f32, amp.precision_rule = "deny (option deny-add)"}
// MOVE: amp.softmax {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (option allow-add)"

// REMOVE: remark: 'amp.gelu' is in no precision list (option infer-remove); it stays f32
// REMOVE: amp.gelu {{.*}}{amp.precision = f32, amp.precision_rule = "unlisted (option infer-remove)"}

// NOOP: warning: op kind 'amp.exp' is not on the allow list (it is deny); nothing to remove

// UNKNOWN: error: unknown op kind 'amp.gelux' in option allow-add; op kinds are written like 'amp.gelu'
// NOCATEGORY: error: op kind 'amp.cast' in option deny-add has no precision category (it does not implement PrecisionOpInterface) and cannot be listed
// TWICE: error: op kind 'amp.gelu' is added to both the infer and the deny lists
// ADDREMOVE: error: op kind 'amp.gelu' is both added to and removed from the deny list
// PRECISION: for the --precision option: Cannot find option named 'fp8'!

func.func @lists(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = amp.linear %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = amp.gelu %0 : tensor<4x8xf32>
  %2 = amp.softmax %1 {axis = -1 : i64} : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
