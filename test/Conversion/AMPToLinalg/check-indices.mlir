// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-amp-to-linalg))" | FileCheck %s

// amp.check_indices (amp-check-indices): full reductions over 32-bit values
// only (what the GPU reduces in parallel). i32 indices: their min and max
// and the OR of the out-of-range test in one reduction; the pair is the
// extremes widened to i64. All linalg, nothing read on the host.

// CHECK-LABEL: func.func @check_indices
// CHECK-SAME: (%[[IDS:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK: %[[IMAX:.+]] = arith.constant 2147483647 : i32
// CHECK: %[[MININIT:.+]] = linalg.fill ins(%[[IMAX]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: %[[IMIN:.+]] = arith.constant -2147483648 : i32
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[IMIN]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: %[[FALSE:.+]] = arith.constant false
// CHECK: %[[BADINIT:.+]] = linalg.fill ins(%[[FALSE]] : i1) outs(%{{.+}} : tensor<i1>)
// CHECK: %[[R:.+]]:3 = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[IDS]] : tensor<2x3xi32>) outs(%[[MININIT]], %[[MAXINIT]], %[[BADINIT]] : tensor<i32>, tensor<i32>, tensor<i1>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: i32, %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[ANY:[a-z0-9_]+]]: i1):
// CHECK-NEXT: %[[WIDE:.+]] = arith.extsi %[[X]] : i32 to i64
// CHECK-NEXT: %[[LOWER:.+]] = arith.constant -7 : i64
// CHECK-NEXT: %[[BELOW:.+]] = arith.cmpi slt, %[[WIDE]], %[[LOWER]] : i64
// CHECK-NEXT: %[[UPPER:.+]] = arith.constant 7 : i64
// CHECK-NEXT: %[[ABOVE:.+]] = arith.cmpi sge, %[[WIDE]], %[[UPPER]] : i64
// CHECK-NEXT: %[[EITHER:.+]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK-NEXT: %[[MIN:.+]] = arith.minsi %[[LO]], %[[X]] : i32
// CHECK-NEXT: %[[MAX:.+]] = arith.maxsi %[[HI]], %[[X]] : i32
// CHECK-NEXT: %[[OR:.+]] = arith.ori %[[ANY]], %[[EITHER]] : i1
// CHECK-NEXT: linalg.yield %[[MIN]], %[[MAX]], %[[OR]] : i32, i32, i1
// CHECK: %[[PAIR:.+]] = linalg.generic {{.*}} ins(%[[R]]#0, %[[R]]#1 : tensor<i32>, tensor<i32>) outs(%{{.+}} : tensor<2xi64>)
// CHECK: %[[PICK:.+]] = arith.select
// CHECK-NEXT: %[[EXT:.+]] = arith.extsi %[[PICK]] : i32 to i64
// CHECK-NEXT: linalg.yield %[[EXT]] : i64
// CHECK: return %[[R]]#2, %[[PAIR]] : tensor<i1>, tensor<2xi64>
func.func @check_indices(%ids: tensor<2x3xi32>) -> (tensor<i1>, tensor<2xi64>) {
  %bad, %range = amp.check_indices %ids {lower = -7 : i64, upper = 7 : i64} : tensor<2x3xi32> -> tensor<i1>, tensor<2xi64>
  return %bad, %range : tensor<i1>, tensor<2xi64>
}

// -----

// i64 indices: stage 1 reduces the high words (signed) and the flag; stage 2
// the low words (unsigned) of the indices whose high word is the extreme
// (the others give minui's and maxui's identities); the pair joins the words.

// CHECK-LABEL: func.func @check_indices_i64
// CHECK-SAME: (%[[IDS:[a-z0-9_]+]]: tensor<8xi64>)
// CHECK: %[[HIGH:.+]]:3 = linalg.generic {{.*}} ins(%[[IDS]] : tensor<8xi64>) outs({{.*}} : tensor<i32>, tensor<i32>, tensor<i1>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: i64, %[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{.+}}: i1):
// CHECK-NEXT: %[[C32:.+]] = arith.constant 32 : i64
// CHECK-NEXT: %[[SHR:.+]] = arith.shrsi %[[X]], %[[C32]] : i64
// CHECK-NEXT: %[[HI:.+]] = arith.trunci %[[SHR]] : i64 to i32
// CHECK: arith.cmpi slt, %[[X]], %{{.+}} : i64
// CHECK: arith.cmpi sge, %[[X]], %{{.+}} : i64
// CHECK: arith.minsi %[[A]], %[[HI]] : i32
// CHECK-NEXT: arith.maxsi %[[B]], %[[HI]] : i32
// CHECK: %[[ONES:.+]] = arith.constant -1 : i32
// CHECK: %[[MININIT:.+]] = linalg.fill ins(%[[ONES]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: %[[LOW:.+]]:2 = linalg.generic {{.*}} ins(%[[IDS]], %[[HIGH]]#0, %[[HIGH]]#1 : tensor<8xi64>, tensor<i32>, tensor<i32>) outs(%[[MININIT]], %[[MAXINIT]] : tensor<i32>, tensor<i32>)
// CHECK-NEXT: ^bb0(%[[Y:[a-z0-9_]+]]: i64, %[[HMIN:[a-z0-9_]+]]: i32, %[[HMAX:[a-z0-9_]+]]: i32, %[[C:[a-z0-9_]+]]: i32, %[[D:[a-z0-9_]+]]: i32):
// CHECK: %[[H:.+]] = arith.trunci %{{.+}} : i64 to i32
// CHECK-NEXT: %[[L:.+]] = arith.trunci %[[Y]] : i64 to i32
// CHECK-NEXT: %[[ATMIN:.+]] = arith.cmpi eq, %[[H]], %[[HMIN]] : i32
// CHECK-NEXT: %[[ATMAX:.+]] = arith.cmpi eq, %[[H]], %[[HMAX]] : i32
// CHECK: %[[FORMIN:.+]] = arith.select %[[ATMIN]], %[[L]], %{{.+}} : i32
// CHECK: %[[FORMAX:.+]] = arith.select %[[ATMAX]], %[[L]], %{{.+}} : i32
// CHECK-NEXT: arith.minui %[[C]], %[[FORMIN]] : i32
// CHECK-NEXT: arith.maxui %[[D]], %[[FORMAX]] : i32
// CHECK: %[[PAIR:.+]] = linalg.generic {{.*}} ins(%[[HIGH]]#0, %[[HIGH]]#1, %[[LOW]]#0, %[[LOW]]#1 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) outs(%{{.+}} : tensor<2xi64>)
// CHECK: %[[HW:.+]] = arith.extsi %{{.+}} : i32 to i64
// CHECK: %[[LW:.+]] = arith.extui %{{.+}} : i32 to i64
// CHECK: %[[UP:.+]] = arith.shli %[[HW]], %{{.+}} : i64
// CHECK-NEXT: %[[JOIN:.+]] = arith.ori %[[UP]], %[[LW]] : i64
// CHECK-NEXT: linalg.yield %[[JOIN]] : i64
// CHECK: return %[[HIGH]]#2, %[[PAIR]] : tensor<i1>, tensor<2xi64>
func.func @check_indices_i64(%ids: tensor<8xi64>) -> (tensor<i1>, tensor<2xi64>) {
  %bad, %range = amp.check_indices %ids {lower = 0 : i64, upper = 50304 : i64} : tensor<8xi64> -> tensor<i1>, tensor<2xi64>
  return %bad, %range : tensor<i1>, tensor<2xi64>
}
