//===- Passes.td - amp analysis passes ---------------------*- tablegen -*-===//

#ifndef AMP_ANALYSIS_PASSES_TD
#define AMP_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUCostReportPass
    : Pass<"amp-gpu-cost-report", "::mlir::ModuleOp"> {
  let summary = "Static cost report of a GPU-lowered step (modeled, not "
                "measured)";
  let description = [{
    Runs on the output of the GPU pipeline while kernels are still
    `gpu.func` bodies and launches are `gpu.launch_func` (after
    `gpu-kernel-outlining` and `gpu-async-region`, before the NVVM
    lowering and `gpu-module-to-binary`). For every function with a body it
    lists, in program order: each launch (kernel, grid, block, device-memory
    bytes read and written as the footprint of each memref operand the
    kernel loads or stores, bytes the loads and stores access, and FLOPs:
    floating-point arithmetic executed, loops by their trip counts, guards
    by the fraction of threads that pass them), each `amp_gpu_gemm` call
    (m, n, k, batch, dtypes, FLOPs, bytes), each host synchronisation
    (`gpu.wait` without a token), device allocation, free and copy; and the
    peak device memory (arguments plus the live temporaries). With
    `device`, the device model of `devices` gives every entry a modeled
    time (docs/CostModel.md). The IR is unchanged.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the JSON report ('-': standard output; empty: "
           "none)">,
    Option<"summary", "summary", "std::string", /*default=*/"\"\"",
           "Where to write the readable summary table ('-': standard "
           "output; empty: none)">,
    Option<"device", "device", "std::string", /*default=*/"\"\"",
           "Device model for modeled times (a key of the devices file, "
           "e.g. h100_sxm or h200); empty: counts only">,
    Option<"devices", "devices", "std::string", /*default=*/"\"\"",
           "The device models file (default: data/devices.json of the "
           "source tree amp was built from)">,
  ];
}

#endif // AMP_ANALYSIS_PASSES_TD
