// A graph whose gradients underflow in fp16: a regression whose loss is
// weighted by 1e-5 (as an auxiliary loss often is), so the gradient of its
// output, about 1e-9, rounds to zero when the fp16 matmul of the weight
// gradient reads it. Trained with AdamW (weight decay 0) in fp16 without
// loss scaling it stalls (the weights never change); with dynamic loss
// scaling it trains like fp32 (Inputs/loss_scaling_underflow.py).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/loss_scaling_underflow.py %s --opt amp-opt \
// RUN:   --compile amp-compile --work %t | FileCheck %s

// CHECK: PASS fp32 trains: loss {{.*}}
// CHECK: PASS fp16 without loss scaling stalls: the weights never changed, loss {{.*}}
// CHECK: PASS fp16 with dynamic loss scaling trains: loss {{.*}} follows fp32
// CHECK: ALL PASS

func.func @weighted_regression(
    %w: tensor<64x32xf32> {amp.role = #amp.role<parameter>, amp.name = "w"},
    %x: tensor<256x32xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %t: tensor<256x64xf32> {amp.role = #amp.role<label>, amp.name = "target"})
    -> (tensor<f32> {amp.role = #amp.role<loss>, amp.name = "loss"})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.linear %x, %w
      : (tensor<256x32xf32>, tensor<64x32xf32>) -> tensor<256x64xf32>
  %mse = amp.mse_loss %y, %t : tensor<256x64xf32>
  %weight = amp.constant dense<1.0e-5> : tensor<f32>
  %loss = amp.mul %mse, %weight : tensor<f32>
  return %loss : tensor<f32>
}
