// RUN: amp-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The TrainingStep view (include/amp/Dialect/AMP/IR/TrainingStep.h) as the
// dialect verifier uses it: state pairs by role and order, not by position;
// attribute arrays are read defensively.

// The k-th argument of each state role is returned by the k-th result of
// that role, wherever the groups sit in the signature.
// CHECK-LABEL: func.func @interleaved_groups
func.func @interleaved_groups(
    %p0: tensor<4xf32> {amp.role = #amp.role<parameter>},
    %m0: tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
    %x: tensor<4xf32> {amp.role = #amp.role<input>},
    %p1: tensor<8xf32> {amp.role = #amp.role<parameter>},
    %b: tensor<2xf32> {amp.role = #amp.role<buffer>})
    -> (tensor<2xf32> {amp.role = #amp.role<buffer>},
        tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<parameter>},
        tensor<4xf32> {amp.role = #amp.role<optimizer_state>},
        tensor<8xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %b, %l, %p0, %m0, %p1
      : tensor<2xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// The same signature with the parameter results swapped pairs the first
// parameter argument with the second parameter's result.
// expected-error @+1 {{'func.func' op 'parameter' #0 is taken as 'tensor<4xf32>' but returned as 'tensor<8xf32>'}}
func.func @parameters_swapped(
    %p0: tensor<4xf32> {amp.role = #amp.role<parameter>},
    %p1: tensor<8xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<8xf32> {amp.role = #amp.role<parameter>},
        tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %p1, %l, %p0 : tensor<8xf32>, tensor<f32>, tensor<4xf32>
}

// -----

// A low-precision copy may come before the parameter it copies.
// CHECK-LABEL: func.func @copy_before_master
func.func @copy_before_master(
    %c: tensor<4xf16> {amp.role = #amp.role<buffer>, amp.copy_of = "w"},
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"})
    -> (tensor<4xf16> {amp.role = #amp.role<buffer>},
        tensor<4xf32> {amp.role = #amp.role<parameter>},
        tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %c, %w, %l : tensor<4xf16>, tensor<4xf32>, tensor<f32>
}

// -----

// amp.graph is verified before func.func checks its attribute arrays: a
// short argument array reads as arguments without roles.
// expected-error @+1 {{'func.func' op is a training step with 1 'parameter' arguments but 2 such results; state must be threaded through}}
"func.func"() <{arg_attrs = [{amp.role = #amp.role<parameter>}],
    function_type = (tensor<4xf32>, tensor<4xf32>)
        -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>),
    res_attrs = [{amp.role = #amp.role<loss>}, {amp.role = #amp.role<parameter>},
                 {amp.role = #amp.role<parameter>}],
    sym_name = "short_argument_attributes"}> ({
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %l = amp.constant dense<0.0> : tensor<f32>
  "func.return"(%l, %a, %b) : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> ()
}) {amp.graph = #amp.graph<training_step>} : () -> ()
