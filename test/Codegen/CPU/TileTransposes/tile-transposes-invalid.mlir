// RUN: amp-opt %s --amp-cpu-tile-transposes=tile=0 -verify-diagnostics

// A tile of no iterations is refused, naming the option.
// expected-error @+1 {{amp-cpu-tile-transposes: tile must be at least 1, got 0}}
func.func @f() {
  return
}
