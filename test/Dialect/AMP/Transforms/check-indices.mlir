// RUN: amp-opt %amp_src_root/test/amp-run/Inputs/embedding_padding.mlir --amp-autodiff="optimizer=adamw" --amp-loss-scaling --amp-check-indices | FileCheck %s --check-prefix=STEP
// RUN: amp-opt %s -split-input-file --amp-check-indices | FileCheck %s

// An embedding trained with AdamW and dynamic loss scaling: the ids are
// checked once (the gather and its gradient read the same ids, with the
// same range [-10, 10): negative ids count from the end, as ONNX's
// Gather), the updates skip on the overflow flag or an id out of range,
// every other state result (AdamW's step counter, the loss scaler) keeps
// its argument on such a step, and the ranges are returned last.

// STEP-LABEL: func.func @embedding_train_step(
// STEP-SAME: %[[TABLE:[a-z0-9]+]]: tensor<10x4xf32> {amp.name = "emb.weight", amp.role = #amp.role<parameter>}
// STEP-SAME: %[[IDS:[a-z0-9]+]]: tensor<2x5xi64> {amp.name = "ids", amp.role = #amp.role<input>}
// STEP-SAME: tensor<i1> {amp.name = "skipped", amp.role = #amp.role<skipped>}
// STEP-SAME: tensor<4xi64> {amp.name = "amp.index_ranges", amp.role = #amp.role<output>})
// STEP-SAME: amp_index_sites = ["amp.gather\09{{.*}}embedding_padding.mlir:{{[0-9]+}}:{{[0-9]+}}"]
// STEP-NEXT: %[[BAD:.*]], %[[RANGE:.*]] = amp.check_indices %[[IDS]] {lower = -10 : i64, upper = 10 : i64} : tensor<2x5xi64> -> tensor<i1>, tensor<2xi64>
// STEP-NEXT: %[[BOUNDS:.*]] = amp.constant dense<[-10, 10]> : tensor<2xi64>
// STEP-NEXT: %[[RECORD:.*]] = amp.concat %[[RANGE]], %[[BOUNDS]] {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
// STEP: amp.gather %[[TABLE]], %[[IDS]]
// STEP-NOT: amp.check_indices
// STEP: amp.gather_grad %{{.*}}, %[[IDS]]
// STEP: %{{.*}}, %[[FOUND:.*]] = amp.unscale_grads
// STEP: %[[SKIP:.*]] = amp.where %[[FOUND]], %[[FOUND]], %[[BAD]] : tensor<i1>, tensor<i1>
// STEP-NEXT: %[[P:.*]], %[[M:.*]], %[[V:.*]] = amp.adamw_update %[[TABLE]], {{.*}} found_inf %[[SKIP]]
// STEP-NEXT: %[[COUNTED:.*]] = amp.where %[[FOUND]], %[[STEP:.*]], %{{.*}} : tensor<i1>, tensor<i64>
// STEP-NEXT: %[[HELD:.*]] = amp.where %[[BAD]], %[[STEP]], %[[COUNTED]] : tensor<i1>, tensor<i64>
// STEP-NEXT: %[[SCALE:.*]] = amp.where %[[BAD]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<f32>
// STEP-NEXT: %[[GROWTH:.*]] = amp.where %[[BAD]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<i64>
// STEP-NEXT: %[[HYST:.*]] = amp.where %[[BAD]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<i64>
// STEP-NEXT: return %[[P]], %[[M]], %[[V]], %[[HELD]], %[[SCALE]], %[[GROWTH]], %[[HYST]], %{{.*}}, %[[FOUND]], %[[RECORD]] :

// Without a training step (the second RUN line): the forward model gets
// the check and the result, and nothing else changes.

// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>}, tensor<4xi64> {amp.name = "amp.index_ranges", amp.role = #amp.role<output>})
// CHECK-NEXT: %[[BAD:.*]], %[[RANGE:.*]] = amp.check_indices %arg1 {lower = -10 : i64, upper = 10 : i64}
// CHECK-NOT: amp.where
// CHECK: return %{{.*}}, %{{.*}} : tensor<f32>, tensor<4xi64>
func.func @embedding(
    %table: tensor<10x4xf32> {amp.role = #amp.role<parameter>, amp.name = "emb.weight"},
    %ids: tensor<2x5xi64> {amp.role = #amp.role<input>, amp.name = "ids"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %e = amp.gather %table, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  %l = amp.reduce_sum %e {axes = array<i64: 0, 1, 2>} : tensor<2x5x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Two index tensors (the second an i32 gather along axis 1, whose ids are
// computed in the graph), and class labels computed in the graph: three
// sites, one row of four each. Labels that are arguments are checked by
// the runtime before the step, not here.

// CHECK-LABEL: func.func @three_sites(
// CHECK-SAME: tensor<12xi64> {amp.name = "amp.index_ranges", amp.role = #amp.role<output>})
// CHECK-SAME: amp_index_sites = ["amp.gather\09{{.*}}", "amp.gather\09{{.*}}", "amp.cross_entropy\09{{.*}}"]
// CHECK: amp.check_indices %arg1 {lower = -6 : i64, upper = 6 : i64} : tensor<3xi64>
// CHECK: %[[COLS:.*]] = amp.constant dense<[0, 2]> : tensor<2xi32>
// CHECK-NEXT: amp.check_indices %[[COLS]] {lower = -3 : i64, upper = 3 : i64} : tensor<2xi32>
// CHECK: %[[LABELS:.*]] = amp.constant dense<[1, 0, 4]> : tensor<3xi64>
// CHECK-NEXT: amp.check_indices %[[LABELS]] {lower = 0 : i64, upper = 3 : i64} : tensor<3xi64>
// CHECK: %[[ANY:.*]] = amp.where
// CHECK-NEXT: amp.where
// CHECK-NEXT: amp.concat {{.*}} -> tensor<12xi64>
// CHECK-NOT: amp.check_indices
func.func @three_sites(
    %table: tensor<6x3xf32> {amp.role = #amp.role<parameter>, amp.name = "table"},
    %ids: tensor<3xi64> {amp.role = #amp.role<input>, amp.name = "ids"},
    %labels: tensor<3xi64> {amp.role = #amp.role<label>, amp.name = "labels"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<f32> {amp.role = #amp.role<output>, amp.name = "other"})
    attributes {amp.graph = #amp.graph<forward>} {
  %rows = amp.gather %table, %ids {axis = 0 : i64} : (tensor<6x3xf32>, tensor<3xi64>) -> tensor<3x3xf32>
  %cols = amp.constant dense<[0, 2]> : tensor<2xi32>
  %picked = amp.gather %rows, %cols {axis = 1 : i64} : (tensor<3x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  %s = amp.reduce_sum %picked {axes = array<i64: 0, 1>} : tensor<3x2xf32> -> tensor<f32>
  %computed = amp.constant dense<[1, 0, 4]> : tensor<3xi64>
  %l = amp.cross_entropy %rows, %computed : tensor<3x3xf32>, tensor<3xi64>
  %l2 = amp.cross_entropy %rows, %labels : tensor<3x3xf32>, tensor<3xi64>
  return %l, %s : tensor<f32>, tensor<f32>
}

// -----

// No op reads through indices: nothing changes.

// CHECK-LABEL: func.func @no_indices(
// CHECK-SAME: -> (tensor<f32> {amp.name = "loss", amp.role = #amp.role<loss>})
// CHECK-NOT: amp_index_sites
// CHECK-NOT: amp.check_indices
func.func @no_indices(
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %l = amp.reduce_sum %x {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// torch.gather (amp.gather_elements): its indices are checked against the
// gathered axis, [-10, 10); its gradient (the scatter-add) reads the same
// indices with the same range and is not checked again.

// CHECK-LABEL: func.func @gather_elements(
// CHECK-SAME: amp_index_sites = ["amp.gather_elements\09{{.*}}"]
// CHECK-NEXT: amp.check_indices %arg1 {lower = -10 : i64, upper = 10 : i64} : tensor<4x3xi64>
// CHECK-NOT: amp.check_indices
func.func @gather_elements(
    %x: tensor<4x10xf32> {amp.role = #amp.role<parameter>, amp.name = "x"},
    %idx: tensor<4x3xi64> {amp.role = #amp.role<input>, amp.name = "idx"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<4x10xf32> {amp.role = #amp.role<output>, amp.name = "dx"})
    attributes {amp.graph = #amp.graph<forward>} {
  %g = amp.gather_elements %x, %idx {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  %l = amp.reduce_sum %g {axes = array<i64: 0, 1>} : tensor<4x3xf32> -> tensor<f32>
  %dx = amp.scatter_add_elements %g, %idx {axis = -1 : i64} : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
  return %l, %dx : tensor<f32>, tensor<4x10xf32>
}

// -----

// PyTorch's embedding (non_negative): ids are valid in [0, 10), and its
// gradient's check, [-10, 10), is implied by the gather's and left out.

// CHECK-LABEL: func.func @torch_embedding(
// CHECK-NEXT: amp.check_indices %arg1 {lower = 0 : i64, upper = 10 : i64} : tensor<2x5xi64>
// CHECK-NEXT: amp.constant dense<[0, 10]> : tensor<2xi64>
// CHECK-NOT: amp.check_indices
func.func @torch_embedding(
    %table: tensor<10x4xf32> {amp.role = #amp.role<parameter>, amp.name = "emb.weight"},
    %ids: tensor<2x5xi64> {amp.role = #amp.role<input>, amp.name = "ids"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"},
        tensor<10x4xf32> {amp.role = #amp.role<output>, amp.name = "grad"})
    attributes {amp.graph = #amp.graph<forward>} {
  %e = amp.gather %table, %ids {non_negative} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  %l = amp.reduce_sum %e {axes = array<i64: 0, 1, 2>} : tensor<2x5x4xf32> -> tensor<f32>
  %g = amp.gather_grad %e, %ids : (tensor<2x5x4xf32>, tensor<2x5xi64>) -> tensor<10x4xf32>
  return %l, %g : tensor<f32>, tensor<10x4xf32>
}
