// RUN: amp-opt %s --amp-assign-precision --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLANNED
// RUN: amp-opt %s --amp-assign-precision --amp-insert-casts --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: amp-opt %s --amp-assign-precision --amp-insert-casts --amp-report="format=json output=%t.json" -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.json | FileCheck %s --check-prefix=JSON-CHECK
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: amp-opt %s --amp-assign-precision --amp-insert-casts --amp-report="format=dot" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT
// RUN: amp-opt %s --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: amp-opt %s --amp-assign-precision --amp-report | FileCheck %s --check-prefix=IR
// RUN: not amp-opt %s --amp-report="format=yaml" 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT

// amp-report: every op with its type and rule, the casts, the totals, and
// naive per-op casting for comparison, as text, JSON and Graphviz DOT.
// Before amp-insert-casts it reports the casts that pass will insert.

// PLANNED: amp-report: low precision bf16 (casts planned, amp-insert-casts has not run)
// PLANNED: casts: 2, 576 bytes moved (planned)
// PLANNED: naive per-op casting (PyTorch autocast): 4 casts, 960 bytes moved

// TEXT: amp-report: low precision bf16
// TEXT-EMPTY:
// TEXT-NEXT: function @report
// TEXT-NEXT:   #    op          type rule          location
// TEXT-NEXT:   0    amp.matmul  bf16 allow         report.mlir:[[L:[0-9]+]]:8
// TEXT-NEXT:   1    amp.tanh    bf16 between-allow report.mlir:{{[0-9]+}}:8
// TEXT-NEXT:   2    amp.matmul  bf16 allow         report.mlir:{{[0-9]+}}:8
// TEXT-NEXT:   3    amp.softmax f32  deny          report.mlir:{{[0-9]+}}:8
// TEXT-NEXT:   4    amp.exp     f32  deny          report.mlir:{{[0-9]+}}:8
// TEXT-NEXT:   5    amp.log     f32  deny          report.mlir:{{[0-9]+}}:8
// TEXT-NEXT:   cast f32 -> bf16 384 bytes at report.mlir:{{[0-9]+}}:19
// TEXT-NEXT:   cast f32 -> bf16 192 bytes at report.mlir:{{[0-9]+}}:19
// TEXT-NEXT:   ops: 6 (bf16: 3, f32: 3)
// TEXT-NEXT:   casts: 2, 576 bytes moved
// TEXT-NEXT:   naive per-op casting (PyTorch autocast): 4 casts, 960 bytes moved
// TEXT-NEXT:   low-precision FLOPs: 91.7% of 1152

// JSON-CHECK: @report casts 576 naive 960 fewer low-flops 91.7%
// JSON-CHECK: REPORT OK
// JSON: "low_precision": "bf16"

// DOT: digraph amp_precision {
// DOT: label="@report";
// DOT: [label="amp.matmul\nbf16\nallow", fillcolor="#a1d99b"];
// DOT: [label="amp.softmax\nf32\ndeny", fillcolor="#9ecae1"];
// DOT: [label="cast\nf32 -> bf16\n384 B", shape=ellipse, fillcolor="#d9d9d9"];
// DOT: [label="w\nf32", shape=plaintext, style=""];
// DOT: legend_bf16

// FP32: amp-report: low precision none
// FP32: amp.matmul  f32  not assigned
// FP32: casts: 0, 0 bytes moved

// The report does not change the IR.
// IR: amp.matmul {{.*}}{amp.precision = bf16, amp.precision_rule = "allow"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>

// BAD-FORMAT: for the --format option: Cannot find option named 'yaml'!

func.func @report(%w: tensor<8x8xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
                  %x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = amp.tanh %0 : tensor<4x8xf32>
  %2 = amp.matmul %1, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %3 = amp.softmax %2 {axis = -1 : i64} : tensor<4x8xf32>
  %4 = amp.exp %2 : tensor<4x8xf32>
  %5 = amp.log %2 : tensor<4x8xf32>
  return %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
