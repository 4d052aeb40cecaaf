// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// amp.check_indices (amp-check-indices): the least and the greatest index
// as two 0-d reductions (i32 indices widened to i64), the out-of-range
// flag from both, and the pair as a tensor<2xi64>; all linalg, nothing
// read on the host (the GPU pipeline maps it like any reduction).

// CHECK-LABEL: func.func @check_indices
// CHECK-SAME: (%[[IDS:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK: %[[MAXI:.+]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[MININIT:.+]] = linalg.fill ins(%[[MAXI]] : i64) outs(%{{.+}} : tensor<i64>)
// CHECK: %[[MIN:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[IDS]] : tensor<2x3xi32>) outs(%[[MININIT]] : tensor<i64>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: i32, %[[ACC:[a-z0-9_]+]]: i64):
// CHECK-NEXT: %[[WIDE:.+]] = arith.extsi %[[X]] : i32 to i64
// CHECK-NEXT: %[[R:.+]] = arith.minsi %[[ACC]], %[[WIDE]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i64
// CHECK: %[[MINI:.+]] = arith.constant -9223372036854775808 : i64
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[MINI]] : i64) outs(%{{.+}} : tensor<i64>)
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} ins(%[[IDS]] : tensor<2x3xi32>) outs(%[[MAXINIT]] : tensor<i64>)
// CHECK: arith.maxsi
// CHECK: %[[BAD:.+]] = linalg.generic {{.*}} ins(%[[MIN]], %[[MAX]] : tensor<i64>, tensor<i64>) outs(%{{.+}} : tensor<i1>)
// CHECK-NEXT: ^bb0(%[[LO:[a-z0-9_]+]]: i64, %[[HI:[a-z0-9_]+]]: i64, %{{.+}}: i1):
// CHECK-NEXT: %[[LOWER:.+]] = arith.constant -7 : i64
// CHECK-NEXT: %[[BELOW:.+]] = arith.cmpi slt, %[[LO]], %[[LOWER]] : i64
// CHECK-NEXT: %[[UPPER:.+]] = arith.constant 7 : i64
// CHECK-NEXT: %[[ABOVE:.+]] = arith.cmpi sge, %[[HI]], %[[UPPER]] : i64
// CHECK-NEXT: %[[EITHER:.+]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK-NEXT: linalg.yield %[[EITHER]] : i1
// CHECK: %[[PAIR:.+]] = linalg.generic {{.*}} ins(%[[MIN]], %[[MAX]] : tensor<i64>, tensor<i64>) outs(%{{.+}} : tensor<2xi64>)
// CHECK: arith.select
// CHECK: return %[[BAD]], %[[PAIR]] : tensor<i1>, tensor<2xi64>
func.func @check_indices(%ids: tensor<2x3xi32>) -> (tensor<i1>, tensor<2xi64>) {
  %bad, %range = amp.check_indices %ids {lower = -7 : i64, upper = 7 : i64} : tensor<2x3xi32> -> tensor<i1>, tensor<2xi64>
  return %bad, %range : tensor<i1>, tensor<2xi64>
}
