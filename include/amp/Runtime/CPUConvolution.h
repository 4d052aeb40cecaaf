/*===- CPUConvolution.h - the convolutions of compiled CPU steps -*- C -*-===*\
|*                                                                            *|
|* What compiled CPU steps call for an f32 2-d convolution and its two        *|
|* gradients (amp-cpu-convolutions-to-dnnl, docs/Lowering.md): oneDNN's       *|
|* kernels on the model runtime's threads (lib/Runtime/CPUConvolution.cpp),   *|
|* with results that do not depend on the number of threads.                  *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_CPUCONVOLUTION_H
#define AMP_RUNTIME_CPUCONVOLUTION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shared leading arguments of the three calls, amp.conv2d's meaning:
   n, c, h, w: the input [N, C, H, W]; o, kh, kw: the weight
   [O, C / groups, KH, KW]; oh, ow: the output [N, O, OH, OW]; strides,
   padding (top, left, bottom, right), dilations and groups. Every tensor is
   a dense row-major (NCHW, OIHW) f32 buffer.

   The work is cut into pieces (ranges of images or of channels) whose
   bounds depend on these arguments alone; each piece is computed by one
   single-threaded oneDNN primitive with a scratchpad of the thread that
   runs it, and the pieces run on the threads of amp_cpu_parallel_for. A
   weight gradient's images are cut into blocks too, whose partial
   gradients are added in a fixed pairwise tree. So every element is
   computed by the same kernels in the same order whatever the thread
   count. oneDNN (libdnnl.so.2) is
   opened on the first call; when it cannot be, or rejects a convolution,
   the call prints why and aborts. */

/* output = conv2d(input, weight) (+ bias[o] when bias is not null). */
void amp_cpu_conv2d_forward(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh,
    int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, const float *input,
    const float *weight, const float *bias, float *output);

/* input_grad = the gradient of conv2d's input, from the output gradient
   `grad` ([N, O, OH, OW]) and `weight`; input positions no window reads
   get 0. */
void amp_cpu_conv2d_backward_data(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh,
    int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, const float *grad,
    const float *weight, float *input_grad);

/* weight_grad = the gradient of conv2d's weight, from the output gradient
   `grad` and the forward `input`. */
void amp_cpu_conv2d_backward_weights(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh,
    int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, const float *grad,
    const float *input, float *weight_grad);

#ifdef __cplusplus
}
constexpr const char kCPUConvForwardFunc[] = "amp_cpu_conv2d_forward";
constexpr const char kCPUConvBackwardDataFunc[] =
    "amp_cpu_conv2d_backward_data";
constexpr const char kCPUConvBackwardWeightsFunc[] =
    "amp_cpu_conv2d_backward_weights";
#endif

#endif /* AMP_RUNTIME_CPUCONVOLUTION_H */
