// RUN: amp-opt %s -split-input-file --amp-cpu-convolutions-to-dnnl="weight-gradients=true" -canonicalize | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-convolutions-to-dnnl="weight-gradients=false" -canonicalize | FileCheck %s --check-prefix=NO-WEIGHT

// A grouped, strided, dilated, unevenly padded f32 convolution with a bias
// becomes one call of the runtime's oneDNN forward: n, c, h, w = 2, 4, 9, 7;
// o, kh, kw = 6, 3, 2; oh, ow = 4, 7; stride 2, 1; padding (top, left,
// bottom, right) 1, 0, 2, 1; dilation 2, 1; groups 2; then the input,
// weight and bias buffers (read only) and a fresh output buffer.

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[XT:.+]]: tensor<2x4x9x7xf32>, %[[WT:.+]]: tensor<6x2x3x2xf32>, %[[BT:.+]]: tensor<6xf32>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : i64
// CHECK-DAG: %[[C9:.+]] = arith.constant 9 : i64
// CHECK: bufferization.to_buffer %[[XT]] read_only : tensor<2x4x9x7xf32> to memref<2x4x9x7xf32>
// CHECK: %[[X:.+]] = llvm.inttoptr
// CHECK: bufferization.to_buffer %[[WT]] read_only : tensor<6x2x3x2xf32> to memref<6x2x3x2xf32>
// CHECK: %[[W:.+]] = llvm.inttoptr
// CHECK: bufferization.to_buffer %[[BT]] read_only : tensor<6xf32> to memref<6xf32>
// CHECK: %[[B:.+]] = llvm.inttoptr
// CHECK: %[[ALLOC:.+]] = memref.alloc() : memref<2x6x4x7xf32>
// CHECK: %[[OUT:.+]] = llvm.inttoptr
// CHECK: call @amp_cpu_conv2d_forward(%[[C2]], %[[C4]], %[[C9]], %[[C7]], %[[C6]], %[[C3]], %[[C2]], %[[C4]], %[[C7]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]], %[[C1]], %[[C2]], %[[X]], %[[W]], %[[B]], %[[OUT]]) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: %[[Y:.+]] = bufferization.to_tensor %[[ALLOC]] restrict writable : memref<2x6x4x7xf32> to tensor<2x6x4x7xf32>
// CHECK: return %[[Y]]
// CHECK: func.func private @amp_cpu_conv2d_forward(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @forward(%x: tensor<2x4x9x7xf32>, %w: tensor<6x2x3x2xf32>,
                   %b: tensor<6xf32>) -> tensor<2x6x4x7xf32> {
  %y = amp.conv2d %x, %w, %b {stride = array<i64: 2, 1>,
                              padding = array<i64: 1, 0, 2, 1>,
                              dilation = array<i64: 2, 1>, groups = 2 : i64}
      : (tensor<2x4x9x7xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>)
      -> tensor<2x6x4x7xf32>
  return %y : tensor<2x6x4x7xf32>
}

// -----

// Without a bias the bias pointer is null.

// CHECK-LABEL: func.func @no_bias
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @amp_cpu_conv2d_forward({{.*}}, %[[NULL]], %{{[^,]+}}) :
func.func @no_bias(%x: tensor<1x3x5x5xf32>, %w: tensor<8x3x3x3xf32>)
    -> tensor<1x8x3x3xf32> {
  %y = amp.conv2d %x, %w : (tensor<1x3x5x5xf32>, tensor<8x3x3x3xf32>)
      -> tensor<1x8x3x3xf32>
  return %y : tensor<1x8x3x3xf32>
}

// -----

// The input gradient takes the forward input's shape from its result
// (n, c, h, w = 2, 4, 9, 7) and the output's from the gradient (oh, ow =
// 4, 7); the gradient and the weight are read, the result written.

// CHECK-LABEL: func.func @input_grad
// CHECK-SAME: (%[[GT:.+]]: tensor<2x6x4x7xf32>, %[[WT:.+]]: tensor<6x2x3x2xf32>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : i64
// CHECK-DAG: %[[C9:.+]] = arith.constant 9 : i64
// CHECK: bufferization.to_buffer %[[GT]] read_only
// CHECK: %[[G:.+]] = llvm.inttoptr
// CHECK: bufferization.to_buffer %[[WT]] read_only
// CHECK: %[[W:.+]] = llvm.inttoptr
// CHECK: %[[ALLOC:.+]] = memref.alloc() : memref<2x4x9x7xf32>
// CHECK: %[[OUT:.+]] = llvm.inttoptr
// CHECK: call @amp_cpu_conv2d_backward_data(%[[C2]], %[[C4]], %[[C9]], %[[C7]], %[[C6]], %[[C3]], %[[C2]], %[[C4]], %[[C7]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]], %[[C1]], %[[C2]], %[[G]], %[[W]], %[[OUT]]) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: bufferization.to_tensor %[[ALLOC]] restrict writable
func.func @input_grad(%g: tensor<2x6x4x7xf32>, %w: tensor<6x2x3x2xf32>)
    -> tensor<2x4x9x7xf32> {
  %dx = amp.conv2d_input_grad %g, %w {stride = array<i64: 2, 1>,
                                      padding = array<i64: 1, 0, 2, 1>,
                                      dilation = array<i64: 2, 1>,
                                      groups = 2 : i64}
      : tensor<2x6x4x7xf32>, tensor<6x2x3x2xf32> -> tensor<2x4x9x7xf32>
  return %dx : tensor<2x4x9x7xf32>
}

// -----

// The weight gradient takes the weight's shape from its result. With
// weight-gradients=false it stays for the packed GEMMs.
// NO-WEIGHT-LABEL: func.func @weight_grad
// NO-WEIGHT: amp.conv2d_weight_grad
// NO-WEIGHT-NOT: call

// CHECK-LABEL: func.func @weight_grad
// CHECK-SAME: (%[[GT:.+]]: tensor<2x6x4x7xf32>, %[[XT:.+]]: tensor<2x4x9x7xf32>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : i64
// CHECK-DAG: %[[C9:.+]] = arith.constant 9 : i64
// CHECK: bufferization.to_buffer %[[GT]] read_only
// CHECK: %[[G:.+]] = llvm.inttoptr
// CHECK: bufferization.to_buffer %[[XT]] read_only
// CHECK: %[[X:.+]] = llvm.inttoptr
// CHECK: %[[ALLOC:.+]] = memref.alloc() : memref<6x2x3x2xf32>
// CHECK: %[[OUT:.+]] = llvm.inttoptr
// CHECK: call @amp_cpu_conv2d_backward_weights(%[[C2]], %[[C4]], %[[C9]], %[[C7]], %[[C6]], %[[C3]], %[[C2]], %[[C4]], %[[C7]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]], %[[C1]], %[[C2]], %[[G]], %[[X]], %[[OUT]])
// CHECK: bufferization.to_tensor %[[ALLOC]] restrict writable
func.func @weight_grad(%g: tensor<2x6x4x7xf32>, %x: tensor<2x4x9x7xf32>)
    -> tensor<6x2x3x2xf32> {
  %dw = amp.conv2d_weight_grad %g, %x {stride = array<i64: 2, 1>,
                                       padding = array<i64: 1, 0, 2, 1>,
                                       dilation = array<i64: 2, 1>,
                                       groups = 2 : i64}
      : tensor<2x6x4x7xf32>, tensor<2x4x9x7xf32> -> tensor<6x2x3x2xf32>
  return %dw : tensor<6x2x3x2xf32>
}

// -----

// 16-bit convolutions stay for convert-amp-to-linalg.

// CHECK-LABEL: func.func @bf16
// CHECK: amp.conv2d
// CHECK: amp.conv2d_weight_grad
// CHECK-NOT: call
func.func @bf16(%x: tensor<1x3x5x5xbf16>, %w: tensor<8x3x3x3xbf16>,
                %g: tensor<1x8x3x3xbf16>)
    -> (tensor<1x8x3x3xf32>, tensor<8x3x3x3xbf16>) {
  %y = amp.conv2d %x, %w : (tensor<1x3x5x5xbf16>, tensor<8x3x3x3xbf16>)
      -> tensor<1x8x3x3xf32>
  %dw = amp.conv2d_weight_grad %g, %x
      : tensor<1x8x3x3xbf16>, tensor<1x3x5x5xbf16> -> tensor<8x3x3x3xbf16>
  return %y, %dw : tensor<1x8x3x3xf32>, tensor<8x3x3x3xbf16>
}
