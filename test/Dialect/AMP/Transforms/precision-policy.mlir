// A valid YAML and a valid JSON policy:
// RUN: amp-opt %s --amp-assign-precision="policy=%S/Inputs/policy.yaml" 2>&1 | FileCheck %s --check-prefix=FROM-YAML
// RUN: amp-opt %s --amp-assign-precision="policy=%S/Inputs/policy.json" | FileCheck %s --check-prefix=FROM-JSON
// Pass options add to the policy; a setting given in both must agree:
// RUN: amp-opt %s --amp-assign-precision="policy=%S/Inputs/policy.yaml precision=fp16 allow-add=amp.tanh" 2>/dev/null | FileCheck %s --check-prefix=OPTION
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/policy.yaml precision=bf16" 2>&1 | FileCheck %s --check-prefix=CONFLICT
// Invalid files: every error names the file, the line and the key or value.
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/unknown-key.yaml" 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/unknown-op.yaml" 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/no-category.yaml" 2>&1 | FileCheck %s --check-prefix=NO-CATEGORY
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/trailing-comma.json" 2>&1 | FileCheck %s --check-prefix=JSON-SYNTAX
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/bad-level.json" 2>&1 | FileCheck %s --check-prefix=BAD-LEVEL
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/bad-precision.yaml" 2>&1 | FileCheck %s --check-prefix=BAD-PRECISION
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/bad-pin.yaml" 2>&1 | FileCheck %s --check-prefix=BAD-PIN
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/missing-pin-name.yaml" 2>&1 | FileCheck %s --check-prefix=MISSING-NAME
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/twice.yaml" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/not-a-list.yaml" 2>&1 | FileCheck %s --check-prefix=NOT-A-LIST
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/bad-bool.yaml" 2>&1 | FileCheck %s --check-prefix=BAD-BOOL
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/empty.yaml" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/does-not-exist.yaml" 2>&1 | FileCheck %s --check-prefix=MISSING
// Contradicting pins (the op's amp.pin and the policy's), a pin matching no op:
// RUN: not amp-opt %s --amp-assign-precision="policy=%S/Inputs/pin-add-bf16.yaml" 2>&1 | FileCheck %s --check-prefix=PIN-CONFLICT
// RUN: amp-opt %s --amp-assign-precision="policy=%S/Inputs/unused-pin.yaml" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNUSED-PIN

// The YAML policy: fp16; gelu moved to DENY, tanh removed from INFER (f32
// with a remark), sigmoid made CLEAR, the op named head.softmax pinned to
// f16.
// FROM-YAML: remark: 'amp.tanh' is in no precision list (policy {{.*}}policy.yaml:9:7); it stays f32
// FROM-YAML: amp.linear {{.*}}{amp.precision = f16, amp.precision_rule = "allow"}
// FROM-YAML: amp.gelu {{.*}}{amp.precision = f32, amp.precision_rule = "deny (policy {{.*}}policy.yaml:6:9)"}
// FROM-YAML: amp.tanh {{.*}}{amp.precision = f32, amp.precision_rule = "unlisted (policy {{.*}}policy.yaml:9:7)"}
// FROM-YAML: amp.sigmoid {{.*}}{amp.precision = f16, amp.precision_rule = "between-allow"}
// FROM-YAML: amp.matmul {{.*}}{amp.precision = f16, amp.precision_rule = "allow", transpose_lhs}
// FROM-YAML: amp.softmax {{.*}}{amp.precision = f16, amp.precision_rule = "pin (policy {{.*}}policy.yaml:13:11)"
// FROM-YAML: amp.add {{.*}}{amp.pin = f32, amp.precision = f32, amp.precision_rule = "pin"}

// The JSON policy: bf16, level infer-as-deny, softmax ALLOW, the op named
// block.gelu pinned to bf16.
// FROM-JSON: amp.gelu {{.*}}{amp.precision = bf16, amp.precision_rule = "pin (policy {{.*}}policy.json:5:21)"}
// FROM-JSON: amp.tanh {{.*}}{amp.precision = f32, amp.precision_rule = "deny (level infer-as-deny)"}
// FROM-JSON: amp.softmax {{.*}}{amp.precision = bf16, amp.precision_rule = "allow (policy {{.*}}policy.json:4:21)"

// OPTION: amp.tanh {{.*}}{amp.precision = f16, amp.precision_rule = "allow (option allow-add)"}

// CONFLICT: policy.yaml:2:12: error: precision policy: 'precision' is 'f16' but the pass option precision is 'bf16'
// UNKNOWN-KEY: unknown-key.yaml:2:1: error: precision policy: unknown key 'alow'
// UNKNOWN-OP: unknown-op.yaml:2:19: error: unknown op kind 'amp.gelux' in deny.add; op kinds are written like 'amp.gelu'
// NO-CATEGORY: no-category.yaml:3:7: error: op kind 'amp.seed' in allow.add has no precision category (it does not implement PrecisionOpInterface) and cannot be listed
// JSON-SYNTAX: trailing-comma.json:3:32: error: precision policy: invalid JSON: Expected object key
// BAD-LEVEL: bad-level.json:3:12: error: precision policy: 'level' is 'fastest'; expected default, tensor-cores-only, unsafe-force-all or infer-as-deny
// BAD-PRECISION: bad-precision.yaml:1:12: error: precision policy: 'precision' is 'fp8'; expected fp16 or bf16
// BAD-PIN: bad-pin.yaml:3:16: error: precision policy: pin 'head.softmax': 'precision' is 'int8'; expected f32, f16 or bf16
// MISSING-NAME: missing-pin-name.yaml:2:5: error: precision policy: missing required key 'name'
// TWICE: twice.yaml:4:9: error: op kind 'amp.gelu' is added to both the allow and the deny lists
// TWICE: twice.yaml:2:9: note: first added here
// NOT-A-LIST: not-a-list.yaml:2:8: error: precision policy: not a sequence
// BAD-BOOL: bad-bool.yaml:1:10: error: precision policy: 'lp-norm' is 'maybe'; expected true or false
// EMPTY: empty.yaml:1:1: error: precision policy: the file is empty
// MISSING: error: cannot open precision policy '{{.*}}does-not-exist.yaml'
// PIN-CONFLICT: error: {{.*}}contradicting pins: amp.pin = 'f32' but the precision policy pins 'head.add' to 'bf16'
// PIN-CONFLICT: pin-add-bf16.yaml:2:11: note: policy pin
// UNUSED-PIN: unused-pin.yaml:2:11: warning: precision policy: pin 'no.such.op' matches no op location

func.func @policy(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = amp.linear %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("block.fc")
  %1 = amp.gelu %0 : tensor<4x8xf32> loc("block.gelu")
  %2 = amp.tanh %1 : tensor<4x8xf32>
  %3 = amp.sigmoid %0 : tensor<4x8xf32>
  %4 = amp.matmul %3, %x {transpose_lhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %5 = amp.softmax %4 {axis = -1 : i64} : tensor<8x8xf32> loc("head.softmax")
  %6 = amp.transpose %2 {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %7 = amp.matmul %6, %2 : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %8 = amp.add %5, %7 {amp.pin = f32} : tensor<8x8xf32> loc("head.add")
  return %8 : tensor<8x8xf32>
}
