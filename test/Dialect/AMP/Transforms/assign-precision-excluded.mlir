// RUN: amp-opt %s -split-input-file --amp-assign-precision | FileCheck %s

// Regions with autocast disabled (PyTorch's autocast(enabled=False)): every
// op nested in an op marked amp.autocast_disabled stays f32, and a call so
// marked runs its callee with autocast disabled.

// CHECK-LABEL: func.func @region
// CHECK: amp.matmul {{.*}}"allow"
// CHECK: scf.execute_region
// CHECK: amp.matmul {{.*}}{amp.precision = f32, amp.precision_rule = "autocast-disabled"}
// CHECK: amp.add {{.*}}{amp.precision = f32, amp.precision_rule = "autocast-disabled"}
// CHECK: } {amp.autocast_disabled}
// CHECK: amp.matmul {{.*}}"allow"
func.func @region(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = scf.execute_region -> tensor<4x4xf32> {
    %2 = amp.matmul %0, %0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %3 = amp.add %2, %0 : tensor<4x4xf32>
    scf.yield %3 : tensor<4x4xf32>
  } {amp.autocast_disabled}
  %4 = amp.matmul %1, %1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}

// -----

// A whole function.
// CHECK-LABEL: func.func @function
// CHECK-SAME: attributes {amp.autocast_disabled}
// CHECK: amp.matmul {{.*}}"autocast-disabled"
func.func @function(%a: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {amp.autocast_disabled} {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A callee called only with autocast disabled is itself disabled, and so is
// what it calls.
// CHECK-LABEL: func.func private @inner
// CHECK-SAME: attributes {amp.autocast_disabled}
// CHECK: amp.matmul {{.*}}"autocast-disabled"
// CHECK-LABEL: func.func private @only_disabled
// CHECK-SAME: attributes {amp.autocast_disabled}
// CHECK: amp.matmul {{.*}}"autocast-disabled"
// CHECK-LABEL: func.func @caller
// CHECK: call @only_disabled(%arg0) {amp.autocast_disabled}
func.func private @inner(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
func.func private @only_disabled(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = func.call @inner(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
func.func @caller(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = func.call @only_disabled(%a) {amp.autocast_disabled} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A callee also called with autocast enabled is copied: the disabled call
// gets a private copy that stays f32, the other call keeps mixed precision.
// CHECK-LABEL: func.func private @shared
// CHECK-NOT: autocast_disabled
// CHECK: amp.matmul {{.*}}"allow"
// CHECK-LABEL: func.func @two_callers
// CHECK: call @shared_autocast_disabled(%arg0) {amp.autocast_disabled}
// CHECK: call @shared(%arg0)
// CHECK-LABEL: func.func private @shared_autocast_disabled
// CHECK-SAME: attributes {amp.autocast_disabled}
// CHECK: amp.matmul {{.*}}"autocast-disabled"
func.func private @shared(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = amp.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
func.func @two_callers(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = func.call @shared(%a) {amp.autocast_disabled} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = func.call @shared(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}
