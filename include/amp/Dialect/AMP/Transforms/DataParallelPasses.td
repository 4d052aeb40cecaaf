//===- DataParallelPasses.td - data-parallel training -----*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_DATAPARALLELPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_DATAPARALLELPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPDataParallelPass : Pass<"amp-data-parallel", "::mlir::ModuleOp"> {
  let summary = "All-reduce gradients in buckets and found_inf across ranks";
  let description = [{
    Makes every training step one replica of data-parallel training (as
    PyTorch's DistributedDataParallel; docs/DataParallel.md):

    - the gradients, where they enter the optimizer end (the operands of
      `amp.unscale_grads` in a loss-scaled step, else of the clip, else of
      the updates), are grouped into buckets of at most `bucket-cap-mb` MiB
      in the order the backward pass produces them;
    - each bucket's `amp.all_reduce_start` is placed right after its last
      gradient is computed, and its `amp.all_reduce_wait` right before the
      first op that reads one of them, so the rest of the backward pass
      runs while the bucket is in flight;
    - every `found_inf` of `amp.unscale_grads` is or-ed over the ranks
      (`amp.all_reduce_any`) before the scale update, the optimizer and the
      `skipped` result read it: every rank skips the same steps and keeps
      the same scale. Clipping reads the reduced gradients, so its norm is
      the global one.

    Run it after `amp-loss-scaling` and, when the step accumulates, after
    `amp-accumulate-gradients`: the accumulated sums are reduced, only on
    the micro-batch that completes an update (the collectives take its
    `active` flag), as DDP's `no_sync`.

    ```
    amp-opt step.mlir --amp-data-parallel="bucket-cap-mb=25 reduction=mean"
    ```
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
  let options = [
    Option<"bucketCapMB", "bucket-cap-mb", "double", /*default=*/"25.0",
           "Largest bucket of gradients per all-reduce, in MiB (> 0; "
           "PyTorch DDP's bucket_cap_mb)">,
    Option<"reduction", "reduction", "::mlir::amp::ReductionKind",
           /*default=*/"::mlir::amp::ReductionKind::Mean",
           "How the ranks' gradients combine",
           [{::llvm::cl::values(
               clEnumValN(::mlir::amp::ReductionKind::Mean, "mean",
                          "the gradient of the global batch's mean loss, "
                          "as DDP"),
               clEnumValN(::mlir::amp::ReductionKind::Sum, "sum",
                          "the sum of the ranks' gradients"))}]>,
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_DATAPARALLELPASSES_TD
