// RUN: amp-opt %s --amp-cpu-parallel-kernels="min-work=0" -verify-diagnostics

// expected-error@below {{amp-cpu-parallel-kernels: min-work and task-work must be at least 1}}
module {
}
