// Bad options of amp-gpu-cost-report name the option, the file and the
// reason; a failing run leaves an existing report as it was.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"devices": {"x": {"name": "X"}}}' > %t/partial.json
// RUN: echo 'not json' > %t/bad.json
// RUN: echo kept > %t/kept.json
// RUN: not amp-opt %s --amp-gpu-cost-report="device=h300 output=%t/kept.json" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: FileCheck %s --check-prefix=KEPT < %t/kept.json
// RUN: not amp-opt %s --amp-gpu-cost-report="device=x devices=%t/partial.json" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not amp-opt %s --amp-gpu-cost-report="device=x devices=%t/bad.json" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not amp-opt %s --amp-gpu-cost-report="device=x devices=%t/missing.json" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %s --amp-gpu-cost-report="output=%t/no/such/dir/cost.json" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not amp-opt %s --amp-gpu-cost-report="output= summary=%t" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// A summary that cannot be written keeps the JSON report from replacing
// the existing one.
// RUN: not amp-opt %s --amp-gpu-cost-report="output=%t/kept.json summary=%t/no/dir/summary.txt" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=KEPT < %t/kept.json
// A device is written in place, through a link and directly.
// RUN: ln -s /dev/null %t/null
// RUN: amp-opt %s --amp-gpu-cost-report="output=%t/null summary=/dev/null" -o %t/out.mlir
// RUN: test -c /dev/null && test -L %t/null

// UNKNOWN: error: amp-gpu-cost-report: device model 'h300' in '{{.*}}data/devices.json': no such device (the file has: h100_sxm, h200)
// KEPT: kept
// PARTIAL: device model 'x' in '{{.*}}partial.json': "hbm_bytes_per_s" must be a positive number
// BAD: device model 'x' in '{{.*}}bad.json': not JSON:
// MISSING: device model 'x' in '{{.*}}missing.json': cannot read the file: {{.*}}
// OUTPUT: error: amp-gpu-cost-report: output: {{.*}}no/such/dir/cost.json
// SUMMARY: error: amp-gpu-cost-report: summary: {{.*}}

func.func @step() {
  return
}
