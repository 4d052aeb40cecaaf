// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-fp8
// RUN: not amp-opt %s --amp-fp8="history=0" 2>&1 | FileCheck %s --check-prefix=HISTORY
// RUN: not amp-opt %s --amp-fp8="margin=-1" 2>&1 | FileCheck %s --check-prefix=MARGIN

// RUN: not amp-opt %s --amp-fp8="device=tpu" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not amp-opt %s --amp-fp8="select=some" 2>&1 | FileCheck %s --check-prefix=SELECT

// HISTORY: amp-fp8: history must be at least 1, got 0
// DEVICE: amp-fp8: select=cost needs a device model: device model 'tpu' in '{{.*}}devices.json': no such device (the file has: h100_sxm, h200) (select=all chooses without one)
// SELECT: for the --select option: Cannot find option named 'some'!
// MARGIN: amp-fp8: margin must be in [0, 64], got -1

// A step whose precision is assigned but not materialized.
// expected-error @+1 {{amp-fp8: run amp-assign-precision and amp-insert-casts first}}
func.func @not_materialized(%x: tensor<32x16xf32> {amp.role = #amp.role<input>, amp.name = "x"},
                            %w: tensor<32x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<32x16xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %y = amp.linear %x, %w {amp.precision = bf16, amp.precision_rule = "allow"}
      : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x32xf32>
  %loss = amp.reduce_mean %y {axes = array<i64: 0, 1>} : tensor<32x32xf32> -> tensor<f32>
  return %w, %loss : tensor<32x16xf32>, tensor<f32>
}
