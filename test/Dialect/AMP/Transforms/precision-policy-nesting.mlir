// A policy file nested 50,000 deep (JSON arrays, YAML flow lists, YAML
// block lists) used to overflow the stack inside llvm::json or llvm::yaml:
// its nesting is bounded before parsing, with an error naming the file, the
// line and column, and the limit (exit code 1, no crash).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "print('{\"allow\": {\"add\": ' + '[' * 50000 + ']' * 50000 + '}}')" > %t/deep.json
// RUN: %python -c "print('allow:\n  add: ' + '[' * 50000 + ']' * 50000)" > %t/flow.yaml
// RUN: %python -c "print('allow:\n  add:\n    ' + '- ' * 50000 + 'amp.gelu')" > %t/block.yaml
// RUN: sh -c 'amp-opt %s --amp-assign-precision="policy=%t/deep.json" 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=JSON
// JSON: deep.json:1:1017: error: precision policy: the policy file nests deeper than 1000 levels
// JSON: exit=1
// RUN: sh -c 'amp-opt %s --amp-assign-precision="policy=%t/flow.yaml" 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=FLOW
// FLOW: flow.yaml:2:1006: error: precision policy: the policy file nests deeper than 1000 levels
// FLOW: exit=1
// RUN: sh -c 'amp-opt %s --amp-assign-precision="policy=%t/block.yaml" 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=BLOCK
// BLOCK: block.yaml:3:1999: error: precision policy: the policy file nests deeper than 1000 levels
// BLOCK: exit=1

// Brackets in quoted strings and comments do not count; a normal policy
// still reads.
// RUN: %python -c "print('# ' + '[' * 5000 + '\nprecision: \"bf16\"\ndeny:\n  add: [amp.gelu]  # ' + '{' * 5000 + '\npins:\n  - name: \"' + '[' * 5000 + '\"\n    precision: f32')" > %t/fine.yaml
// RUN: amp-opt %s --amp-assign-precision="policy=%t/fine.yaml" 2>&1 | FileCheck %s --check-prefix=FINE
// FINE: amp.gelu {{.*}}amp.precision = f32, amp.precision_rule = "deny (policy {{.*}}fine.yaml:4:9)"

func.func @policy(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = amp.linear %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = amp.gelu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
