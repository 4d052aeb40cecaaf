// Two state tensors, one the step can update in place and one it cannot:
// `s` is read (by the loss) before its update, `c` after it, so One-Shot
// Bufferize writes s + 2 into s's buffer but gives c + 1 a buffer of its
// own (test/amp-run/state-in-place.test). Both start at zero; the loss of
// step k (from 1) is 10 * c + s before the step: 12 * (k - 1).
func.func @counters(
    %s: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "s"},
    %c: tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "c"},
    %x: tensor<4xf32> {amp.role = #amp.role<input>, amp.name = "x"})
    -> (tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "s"},
        tensor<4xf32> {amp.role = #amp.role<buffer>, amp.name = "c"},
        tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<training_step>} {
  %one = amp.constant dense<1.0> : tensor<4xf32>
  %two = amp.constant dense<2.0> : tensor<4xf32>
  %ten = amp.constant dense<10.0> : tensor<f32>
  %s_sum = amp.reduce_mean %s {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s_new = amp.add %s, %two : tensor<4xf32>
  %c_new = amp.add %c, %one : tensor<4xf32>
  %c_sum = amp.reduce_mean %c {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %c_ten = amp.mul %c_sum, %ten : tensor<f32>
  %loss = amp.add %c_ten, %s_sum : tensor<f32>
  return %s_new, %c_new, %loss : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
