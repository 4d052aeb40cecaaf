// RUN: amp-opt %s -split-input-file -verify-diagnostics

// The training-graph contract of lib/Dialect/AMP/IR/AMPDialect.cpp:
// `amp.role` and `amp.name` on function arguments and results, and
// `amp.graph` on functions. Each split holds exactly one error.

//===----------------------------------------------------------------------===//
// amp.role: what each role may be attached to
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'parameter' but is not a tensor of f32, f16 or bf16}}
func.func @parameter_integer(%p: tensor<4xi32> {amp.role = #amp.role<parameter>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'parameter' but is not a tensor of f32, f16 or bf16}}
func.func @parameter_result_not_tensor(%p: f32) -> (f32 {amp.role = #amp.role<parameter>}) {
  return %p : f32
}

// -----

// An external declaration is checked too.
// expected-error @+1 {{'func.func' op argument #1 has amp.role 'parameter' but is not a tensor of f32, f16 or bf16}}
func.func private @parameter_memref_declaration(tensor<4xf32>, memref<4xf32> {amp.role = #amp.role<parameter>})

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'buffer' but is not a tensor of f32, f16 or bf16}}
func.func @buffer_integer(%b: tensor<4xi64> {amp.role = #amp.role<buffer>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'loss' but a loss is a result, not an argument}}
func.func @loss_argument(%l: tensor<f32> {amp.role = #amp.role<loss>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'loss' but a loss must be a 0-d tensor of f32}}
func.func @loss_not_scalar(%l: tensor<1xf32>) -> (tensor<1xf32> {amp.role = #amp.role<loss>}) {
  return %l : tensor<1xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'loss' but a loss must be a 0-d tensor of f32}}
func.func @loss_f16(%l: tensor<f16>) -> (tensor<f16> {amp.role = #amp.role<loss>}) {
  return %l : tensor<f16>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'skipped' but 'skipped' is a result, not an argument}}
func.func @skipped_argument(%s: tensor<i1> {amp.role = #amp.role<skipped>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'skipped' but 'skipped' must be a 0-d tensor of i1}}
func.func @skipped_not_i1(%s: tensor<i32>) -> (tensor<i32> {amp.role = #amp.role<skipped>}) {
  return %s : tensor<i32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'skipped' but 'skipped' must be a 0-d tensor of i1}}
func.func @skipped_not_scalar(%s: tensor<2xi1>) -> (tensor<2xi1> {amp.role = #amp.role<skipped>}) {
  return %s : tensor<2xi1>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'input' but this role is for arguments only}}
func.func @input_result(%x: tensor<4xf32>) -> (tensor<4xf32> {amp.role = #amp.role<input>}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #1 has amp.role 'label' but this role is for arguments only}}
func.func @label_result(%x: tensor<4xf32>, %y: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64> {amp.role = #amp.role<label>}) {
  return %x, %y : tensor<4xf32>, tensor<4xi64>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'hyperparameter' but this role is for arguments only}}
func.func @hyperparameter_result(%lr: tensor<f32>) -> (tensor<f32> {amp.role = #amp.role<hyperparameter>}) {
  return %lr : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'input' but is not a ranked tensor}}
func.func @input_unranked(%x: tensor<*xf32> {amp.role = #amp.role<input>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'label' but is not a ranked tensor}}
func.func @label_scalar(%y: i64 {amp.role = #amp.role<label>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'hyperparameter' but is not a ranked tensor}}
func.func @hyperparameter_float(%lr: f32 {amp.role = #amp.role<hyperparameter>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'output' but 'output' is a result, not an argument}}
func.func @output_argument(%x: tensor<4xf32> {amp.role = #amp.role<output>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has amp.role 'optimizer_state' but is not a ranked tensor}}
func.func @optimizer_state_memref(%m: memref<4xf32> {amp.role = #amp.role<optimizer_state>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 has amp.role 'scaler_state' but is not a ranked tensor}}
func.func @scaler_state_unranked(%s: tensor<*xf32>) -> (tensor<*xf32> {amp.role = #amp.role<scaler_state>}) {
  return %s : tensor<*xf32>
}

//===----------------------------------------------------------------------===//
// Malformed contract attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op argument #0: 'amp.role' must be an #amp.role<...> attribute}}
func.func @role_string(%p: tensor<4xf32> {amp.role = "parameter"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0: 'amp.role' must be an #amp.role<...> attribute}}
func.func @role_graph_kind(%l: tensor<f32>) -> (tensor<f32> {amp.role = #amp.graph<forward>}) {
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0: 'amp.name' must be a non-empty string}}
func.func @name_empty(%p: tensor<4xf32> {amp.name = ""}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0: 'amp.name' must be a non-empty string}}
func.func @name_integer(%l: tensor<f32>) -> (tensor<f32> {amp.name = 3 : i64}) {
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op argument #1: unknown amp attribute 'amp.rol'}}
func.func @unknown_argument_attribute(%x: tensor<4xf32>, %p: tensor<4xf32> {amp.rol = #amp.role<parameter>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0: unknown amp attribute 'amp.graph'}}
func.func @graph_on_result(%l: tensor<f32>) -> (tensor<f32> {amp.graph = #amp.graph<forward>}) {
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// amp attributes on operations
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op unknown amp attribute 'amp.role' on an operation}}
func.func @role_on_function() attributes {amp.role = #amp.role<parameter>} {
  return
}

// -----

func.func @unknown_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.neg' op unknown amp attribute 'amp.unknown' on an operation}}
  %0 = amp.neg %x {amp.unknown = "f16"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'builtin.module' op 'amp.graph' is only valid on a function}}
module attributes {amp.graph = #amp.graph<forward>} {
}

// -----

func.func @graph_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.relu' op 'amp.graph' is only valid on a function}}
  %0 = amp.relu %x {amp.graph = #amp.graph<training_step>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'amp.graph' must be #amp.graph<forward> or #amp.graph<training_step>}}
func.func @graph_string() attributes {amp.graph = "forward"} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'amp.graph' must be #amp.graph<forward> or #amp.graph<training_step>}}
func.func @graph_role_attr() attributes {amp.graph = #amp.role<loss>} {
  return
}

//===----------------------------------------------------------------------===//
// amp.graph: losses
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op is a forward model with 2 loss results; mark at most one}}
func.func @forward_two_losses(%a: tensor<f32>, %b: tensor<f32>)
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<forward>} {
  return %a, %b : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op is a training step with 0 loss results; it must return exactly one}}
func.func @training_step_no_loss(%p: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<4xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  return %p : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a training step with 2 loss results; it must return exactly one}}
func.func @training_step_two_losses(%a: tensor<f32>)
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<training_step>} {
  return %a, %a : tensor<f32>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// amp.graph<training_step>: state is threaded through
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op is a training step with 2 'parameter' arguments but 1 such results; state must be threaded through}}
func.func @training_step_parameter_dropped(
    %w: tensor<4x4xf32> {amp.role = #amp.role<parameter>},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4x4xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'parameter' #1 is taken as 'tensor<4xf32>' but returned as 'tensor<4xf16>'}}
func.func @training_step_parameter_type_changes(
    %w: tensor<4x4xf32> {amp.role = #amp.role<parameter>},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<4x4xf32> {amp.role = #amp.role<parameter>},
        tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf16> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  %b16 = amp.cast %b : tensor<4xf32> to tensor<4xf16>
  return %w, %l, %b16 : tensor<4x4xf32>, tensor<f32>, tensor<4xf16>
}

// -----

// expected-error @+1 {{'func.func' op 'parameter' #0 is taken as 'tensor<4x4xf32>' but returned as 'tensor<4xf32>'}}
func.func @training_step_parameters_reordered(
    %w: tensor<4x4xf32> {amp.role = #amp.role<parameter>},
    %b: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<parameter>},
        tensor<4x4xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %b, %w : tensor<f32>, tensor<4xf32>, tensor<4x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op is a training step with 0 'optimizer_state' arguments but 1 such results; state must be threaded through}}
func.func @training_step_optimizer_state_created(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<parameter>},
        tensor<4xf32> {amp.role = #amp.role<optimizer_state>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w, %w : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'optimizer_state' #0 is taken as 'tensor<4xf32>' but returned as 'tensor<4xbf16>'}}
func.func @training_step_optimizer_state_type(
    %m: tensor<4xf32> {amp.role = #amp.role<optimizer_state>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xbf16> {amp.role = #amp.role<optimizer_state>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  %m16 = amp.cast %m : tensor<4xf32> to tensor<4xbf16>
  return %l, %m16 : tensor<f32>, tensor<4xbf16>
}

// -----

// expected-error @+1 {{'func.func' op is a training step with 3 'scaler_state' arguments but 2 such results; state must be threaded through}}
func.func @training_step_scaler_state_dropped(
    %scale: tensor<f32> {amp.role = #amp.role<scaler_state>},
    %growth: tensor<i64> {amp.role = #amp.role<scaler_state>},
    %hyst: tensor<i64> {amp.role = #amp.role<scaler_state>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<f32> {amp.role = #amp.role<scaler_state>},
        tensor<i64> {amp.role = #amp.role<scaler_state>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %scale, %growth : tensor<f32>, tensor<f32>, tensor<i64>
}

// -----

// expected-error @+1 {{'func.func' op 'scaler_state' #1 is taken as 'tensor<i64>' but returned as 'tensor<i32>'}}
func.func @training_step_scaler_state_type(
    %scale: tensor<f32> {amp.role = #amp.role<scaler_state>},
    %growth: tensor<i64> {amp.role = #amp.role<scaler_state>},
    %bad: tensor<i32>)
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<f32> {amp.role = #amp.role<scaler_state>},
        tensor<i32> {amp.role = #amp.role<scaler_state>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %scale, %bad : tensor<f32>, tensor<f32>, tensor<i32>
}

// -----

// expected-error @+1 {{'func.func' op is a training step with 1 'buffer' arguments but 0 such results; state must be threaded through}}
func.func @training_step_buffer_dropped(
    %w: tensor<4xf32> {amp.role = #amp.role<parameter>},
    %rm: tensor<4xf32> {amp.role = #amp.role<buffer>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf32> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'buffer' #0 is taken as 'tensor<4xf32>' but returned as 'tensor<4xf16>'}}
func.func @training_step_buffer_type(
    %rm: tensor<4xf32> {amp.role = #amp.role<buffer>})
    -> (tensor<f32> {amp.role = #amp.role<loss>},
        tensor<4xf16> {amp.role = #amp.role<buffer>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  %h = amp.cast %rm : tensor<4xf32> to tensor<4xf16>
  return %l, %h : tensor<f32>, tensor<4xf16>
}

// -----
// Regression tests: the contract check runs before func.func checks its
// attribute arrays, and must not read past them.

// expected-error @+1 {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 2}}
"func.func"() <{function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>), sym_name = "short_result_attrs", res_attrs = [{amp.role = #amp.role<loss>}]}> ({
^bb0(%a: tensor<f32>):
  "func.return"(%a, %a) : (tensor<f32>, tensor<f32>) -> ()
}) {amp.graph = #amp.graph<forward>} : () -> ()

// -----

// expected-error @+1 {{'func.func' op entry block must have 2 arguments to match function signature}}
"func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> (), sym_name = "short_entry_block", arg_attrs = [{}, {amp.role = #amp.role<input>}]}> ({
^bb0(%a: tensor<f32>):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// The contract depends on the signature only: declarations follow it too.
// expected-error @+1 {{'func.func' op is a training step with 0 loss results; it must return exactly one}}
func.func private @declared_step(tensor<4xf32> {amp.role = #amp.role<parameter>}) attributes {amp.graph = #amp.graph<training_step>}

// -----
// amp.copy_of: the low-precision copy of a master weight names an f32
// parameter of the same shape, and is itself an f16/bf16 buffer.

// expected-error @+1 {{'func.func' op argument #1: 'amp.copy_of' must be a non-empty string}}
func.func @copy_of_not_a_string(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %c: tensor<4xf16> {amp.role = #amp.role<buffer>, amp.copy_of = 3}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 is 'amp.copy_of' "w" but is not a 'buffer'}}
func.func @copy_of_on_a_parameter(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %c: tensor<4xf16> {amp.role = #amp.role<parameter>, amp.copy_of = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<parameter>}, tensor<4xf16> {amp.role = #amp.role<parameter>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w, %c : tensor<f32>, tensor<4xf32>, tensor<4xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #1 is 'amp.copy_of' "v" but no 'parameter' argument has that amp.name}}
func.func @copy_of_unknown(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %c: tensor<4xf16> {amp.role = #amp.role<buffer>, amp.copy_of = "v"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<parameter>}, tensor<4xf16> {amp.role = #amp.role<buffer>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w, %c : tensor<f32>, tensor<4xf32>, tensor<4xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #1 is 'amp.copy_of' "w" but is 'tensor<8xf16>', not an f16 or bf16 tensor of the shape of that f32 parameter ('tensor<4xf32>')}}
func.func @copy_of_wrong_shape(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %c: tensor<8xf16> {amp.role = #amp.role<buffer>, amp.copy_of = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<parameter>}, tensor<8xf16> {amp.role = #amp.role<buffer>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w, %c : tensor<f32>, tensor<4xf32>, tensor<8xf16>
}

// -----

// expected-error @+1 {{'func.func' op argument #1 is 'amp.copy_of' "w" but is 'tensor<4xf32>', not an f16 or bf16 tensor of the shape of that f32 parameter ('tensor<4xf32>')}}
func.func @copy_of_not_low_precision(%w: tensor<4xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %c: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.copy_of = "w"})
    -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<4xf32> {amp.role = #amp.role<parameter>}, tensor<4xf32> {amp.role = #amp.role<buffer>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.constant dense<0.0> : tensor<f32>
  return %l, %w, %c : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Zero-size dimensions: a training step's tensors hold at least one element
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op argument #0 is 'tensor<32x0xf32>', which has a zero-size dimension; the tensors of a training step (and of a forward model amp-compile compiles) need every dimension to be at least 1}}
func.func @zero_size_argument(%x: tensor<32x0xf32> {amp.role = #amp.role<input>})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<training_step>} {
  %l = amp.reduce_mean %x {axes = array<i64: 0, 1>} : tensor<32x0xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op result #1 is 'tensor<0x4xf32>', which has a zero-size dimension}}
func.func private @zero_size_result_declaration(tensor<4xf32>) -> (tensor<f32> {amp.role = #amp.role<loss>}, tensor<0x4xf32> {amp.role = #amp.role<output>})
    attributes {amp.graph = #amp.graph<training_step>}

// -----

func.func @zero_size_intermediate(%x: tensor<4x8xf32> {amp.role = #amp.role<input>})
    -> (tensor<f32> {amp.role = #amp.role<loss>})
    attributes {amp.graph = #amp.graph<training_step>} {
  // expected-error @+1 {{'amp.constant' op result #0 is 'tensor<0x8xf32>', which has a zero-size dimension}}
  %e = amp.constant dense<> : tensor<0x8xf32>
  %l = amp.reduce_mean %x {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Forward models may hold empty tensors (ONNX allows them; amp-compile
// refuses to compile them), and so may functions outside the contract.
func.func @zero_size_forward(%x: tensor<0x2xf32> {amp.role = #amp.role<input>})
    -> (tensor<3x0xf32> {amp.role = #amp.role<output>})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.reshape %x : tensor<0x2xf32> -> tensor<3x0xf32>
  return %y : tensor<3x0xf32>
}
func.func @zero_size_elsewhere(%x: tensor<32x0xf32>) -> tensor<32x0xf32> {
  return %x : tensor<32x0xf32>
}
