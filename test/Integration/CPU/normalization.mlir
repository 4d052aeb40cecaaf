// Executes the normalizations (layer_norm, rms_norm, group_norm, batch_norm
// in training and eval mode) with their backwards, softmax_grad,
// log_softmax_grad, cross_entropy_grad and mse_loss_grad on the CPU, and
// checks every printed number against PyTorch 1.13.

// RUN: amp-opt %s --amp-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Expected values: PyTorch in float64 on the same inputs (the f32 constants
// below, or their f16 roundings for the f16 case): torch.native_layer_norm
// (output, mean, rstd), RMSNorm as x * rsqrt(mean(x^2) + eps) * w,
// torch.native_group_norm, torch.native_batch_norm and F.batch_norm
// (training: the running statistics it updates in place; eval: the running
// statistics and 1 / sqrt(running_var + eps) as saved statistics),
// torch.softmax / torch.log_softmax, F.cross_entropy, F.mse_loss; every
// gradient (input, weight, bias) from torch.autograd with the same upstream
// gradient. PyTorch's own f32 results are within the tolerances below too
// (on CPU 1.13 has no f16 layer_norm: that case has the float64 reference
// only).
//
// Tolerances. A number v is matched by a regex that accepts the six-digit
// printout of any value within v +- t:
//   f32 results: t = 1e-5 |v| + 1e-5 max|tensor|. The lowering and the
//     reference differ by the f32 rounding of sums of at most 24 terms (a
//     few ulps, 6e-8 each); the absolute part covers gradients that are
//     differences of terms of the tensor's magnitude and come out near 0.
//   f16 results (the f16 layer_norm output and input_grad): half an f16 ulp
//     of v more. The lowering computes in f32 and rounds once, so it is
//     within half an ulp (plus the f32 error) of the exact value.
// The regex lists the decimal buckets of width 10^ceil(log10(2t)) (at least
// 1e-4) that overlap [v - t, v + t], e.g. (1\.2246[0-9]*|1\.2247[0-9]*):
// it accepts a little more than t, and still fails on a wrong formula (a
// biased running variance is off by 8/7, a missing 1/N by N, epsilon 1e-3 in
// the eval case moves rstd by 5e-4, ...).
//
// The inputs are seeded random values with two decimals, written as the
// f32 constants of @main at the end. The lines "// <label>" before each
// tensor's checks say what it is.

// layer_norm f32 axis=-1 output
// CHECK: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.587[89][0-9]*}}, {{1\.222[23][0-9]*}}, {{-2\.213[78][0-9]*}}, {{0\.9586[0-9]*}}, {{-0\.1604[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.3504[0-9]*}}, {{-0\.200[89][0-9]*}}, {{-0\.161[78][0-9]*}}, {{-0\.947[23][0-9]*}}, {{(0\.575(0[0-9]*)?|0\.5751[0-9]*)}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.225[67][0-9]*}}, {{0\.431[45][0-9]*}}, {{0\.336[67][0-9]*}}, {{-1\.758(0[0-9]*)?}}, {{0\.1855[0-9]*}}{{\]}}{{\]}}
// layer_norm f32 axis=-1 mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(-0\.1899[0-9]*|-0\.19(00[0-9]*)?)}}, {{(0\.6659[0-9]*|0\.666(0[0-9]*)?)}}, {{(-0\.3619[0-9]*|-0\.362(0[0-9]*)?)}}{{\]}}
// layer_norm f32 axis=-1 rstd
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{1\.874[67][0-9]*}}, {{(1\.215(0[0-9]*)?|1\.2151[0-9]*)}}, {{1\.932[56][0-9]*}}{{\]}}
// layer_norm f32 axis=-1 input_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.218[12][0-9]*}}, {{-1\.355[0-9]*}}, {{0\.149[34][0-9]*}}, {{1\.547[0-9]*}}, {{-0\.559[89][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.4(00[0-9]*)?}}, {{-0\.120[78][0-9]*}}, {{0\.491[78][0-9]*}}, {{-1\.163[0-9]*}}, {{-0\.608[23][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{3\.899[0-9]*}}, {{-1\.002[56][0-9]*}}, {{-1\.489[0-9]*}}, {{0\.852[12][0-9]*}}, {{-2\.259[0-9]*}}{{\]}}{{\]}}
// layer_norm f32 axis=-1 weight_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [5] strides = [1] data =
// CHECK-NEXT: {{\[}}{{2\.129[0-9]*}}, {{-0\.7883[0-9]*}}, {{(-0\.1259[0-9]*|-0\.126(0[0-9]*)?)}}, {{3\.368[0-9]*}}, {{-1\.82(0[0-9]*)?}}{{\]}}
// layer_norm f32 axis=-1 bias_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [5] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(3\.409[0-9]*|3\.41(0[0-9]*)?)}}, {{(-0\.5499[0-9]*|-0\.55(00[0-9]*)?)}}, {{(0\.7499[0-9]*|0\.75(00[0-9]*)?)}}, {{(-1\.0099[0-9]*|-1\.01(00[0-9]*)?)}}, {{(-2\.089[0-9]*|-2\.09(0[0-9]*)?)}}{{\]}}
// layer_norm f32 axis=1 output
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 3, 4] strides = [12, 4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{0\.306[78][0-9]*}}, {{-0\.253[89][0-9]*}}, {{0\.380[89][0-9]*}}, {{(-0\.952(0[0-9]*)?|-0\.9521[0-9]*)}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.117[0-9]*}}, {{-0\.066[34][0-9]*}}, {{-1\.964[0-9]*}}, {{0\.4631[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{2\.358[0-9]*}}, {{-0\.286[45][0-9]*}}, {{-1\.329[0-9]*}}, {{-0\.010[12][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-1\.397[0-9]*}}, {{-0\.488(0[0-9]*)?}}, {{(0\.138(0[0-9]*)?|0\.1381[0-9]*)}}, {{-0\.128[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-2\.631[0-9]*}}, {{0\.285[34][0-9]*}}, {{(3\.919[0-9]*|3\.92(0[0-9]*)?)}}, {{0\.407[78][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.746[89][0-9]*}}, {{0\.565[23][0-9]*}}, {{-0\.2813[0-9]*}}, {{-1\.412[0-9]*}}{{\]}}{{\]}}{{\]}}
// layer_norm f32 axis=1 mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: {{\[}}{{3\.363[0-9]*}}, {{2\.52(0[0-9]*)?}}{{\]}}
// layer_norm f32 axis=1 rstd
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: {{\[}}{{0\.7066[0-9]*}}, {{1\.0442[0-9]*}}{{\]}}
// layer_norm f32 axis=1 input_grad
// CHECK-NEXT: rank = 3 offset = 0 sizes = [2, 3, 4] strides = [12, 4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{-0\.2056[0-9]*}}, {{0\.067[56][0-9]*}}, {{-0\.415[56][0-9]*}}, {{-0\.291[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.495[67][0-9]*}}, {{0\.148[67][0-9]*}}, {{0\.588[34][0-9]*}}, {{0\.2822[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.3721[0-9]*}}, {{(-0\.232(0[0-9]*)?|-0\.2321[0-9]*)}}, {{-0\.206[78][0-9]*}}, {{0\.388(0[0-9]*)?}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{1\.193[12][0-9]*}}, {{-0\.7634[0-9]*}}, {{-0\.831[67][0-9]*}}, {{-1\.738[67][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.3521[0-9]*}}, {{-1\.0631[0-9]*}}, {{2\.988[0-9]*}}, {{-1\.091[78][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.662[89][0-9]*}}, {{-0\.909[56][0-9]*}}, {{0\.3599[0-9]*}}, {{-0\.1585[0-9]*}}{{\]}}{{\]}}{{\]}}
// layer_norm f32 axis=1 weight_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{-1\.614[34][0-9]*}}, {{1\.613[56][0-9]*}}, {{-0\.863[78][0-9]*}}, {{0\.2495[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.4827[0-9]*}}, {{-0\.981[34][0-9]*}}, {{2\.557[0-9]*}}, {{0\.6241[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.427[89][0-9]*}}, {{0\.4414[0-9]*}}, {{1\.801[12][0-9]*}}, {{0\.194[67][0-9]*}}{{\]}}{{\]}}
// layer_norm f32 axis=1 bias_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{(0\.8599[0-9]*|0\.86(00[0-9]*)?)}}, {{(-1\.1599[0-9]*|-1\.16(00[0-9]*)?)}}, {{(-1\.6299[0-9]*|-1\.63(00[0-9]*)?)}}, {{(-1\.6499[0-9]*|-1\.65(00[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{(-0\.0299[0-9]*|-0\.03(00[0-9]*)?)}}, {{(-0\.2199[0-9]*|-0\.22(00[0-9]*)?)}}, {{(2\.0799[0-9]*|2\.08(00[0-9]*)?)}}, {{(0\.5499[0-9]*|0\.55(00[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{(2\.0299[0-9]*|2\.03(00[0-9]*)?)}}, {{(-1\.4899[0-9]*|-1\.49(00[0-9]*)?)}}, {{(-0\.4199[0-9]*|-0\.42(00[0-9]*)?)}}, {{(0\.4099[0-9]*|0\.41(00[0-9]*)?)}}{{\]}}{{\]}}
// layer_norm f16 axis=-1 output
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 8] strides = [8, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.93[56][0-9]*}}, {{1\.28[0-9]*}}, {{-1\.97[0-9]*}}, {{-1\.38[0-9]*}}, {{0\.0468[0-9]*}}, {{-0\.47(0[0-9]*)?}}, {{(0\.599[0-9]*|0\.6(00[0-9]*)?)}}, {{1\.34[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.55[34][0-9]*}}, {{-2\.78[0-9]*}}, {{-0\.759[0-9]*}}, {{1\.83[0-9]*}}, {{-0\.378[0-9]*}}, {{-0\.302[0-9]*}}, {{-0\.45[89][0-9]*}}, {{1\.44[0-9]*}}{{\]}}{{\]}}
// layer_norm f16 axis=-1 mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: {{\[}}{{-0\.0586[0-9]*}}, {{(-0\.956(0[0-9]*)?|-0\.9561[0-9]*)}}{{\]}}
// layer_norm f16 axis=-1 rstd
// CHECK-NEXT: rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: {{\[}}{{0\.866(0[0-9]*)?}}, {{1\.2212[0-9]*}}{{\]}}
// layer_norm f16 axis=-1 input_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 8] strides = [8, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.922[0-9]*}}, {{-0\.78[23][0-9]*}}, {{(0\.0499[0-9]*|0\.05(00[0-9]*)?)}}, {{-1\.53[0-9]*}}, {{1\.49[0-9]*}}, {{(0\.0799[0-9]*|0\.08(00[0-9]*)?)}}, {{(-0\.028(0[0-9]*)?|-0\.0281[0-9]*)}}, {{-0\.201[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{(1\.49[0-9]*|1\.5(0[0-9]*)?)}}, {{-0\.086[12][0-9]*}}, {{-0\.175[0-9]*}}, {{-0\.55[45][0-9]*}}, {{-0\.402[0-9]*}}, {{-0\.0596[0-9]*}}, {{0\.0061[0-9]*}}, {{-0\.226[0-9]*}}{{\]}}{{\]}}
// layer_norm f16 axis=-1 weight_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [8] strides = [1] data =
// CHECK-NEXT: {{\[}}{{-0\.779[56][0-9]*}}, {{-0\.5005[0-9]*}}, {{-0\.228[23][0-9]*}}, {{1\.139[45][0-9]*}}, {{0\.1915[0-9]*}}, {{0\.1422[0-9]*}}, {{-0\.9493[0-9]*}}, {{-0\.944(0[0-9]*)?}}{{\]}}
// layer_norm f16 axis=-1 bias_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [8] strides = [1] data =
// CHECK-NEXT: {{\[}}{{2\.490[12][0-9]*}}, {{(-1\.9599[0-9]*|-1\.96(00[0-9]*)?)}}, {{(0\.0999[0-9]*|0\.1(000[0-9]*)?)}}, {{-1\.0699[0-9]*}}, {{0\.779[78][0-9]*}}, {{0\.03(00[0-9]*)?}}, {{-1\.180[23][0-9]*}}, {{-0\.7602[0-9]*}}{{\]}}
// rms_norm output
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.441[45][0-9]*}}, {{2\.664[0-9]*}}, {{0\.274[56][0-9]*}}, {{0\.432[89][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.171[89][0-9]*}}, {{-1\.2873[0-9]*}}, {{(-0\.1549[0-9]*|-0\.155(0[0-9]*)?)}}, {{2\.015[56][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.593[78][0-9]*}}, {{1\.075[34][0-9]*}}, {{-1\.435[45][0-9]*}}, {{0\.071[34][0-9]*}}{{\]}}{{\]}}
// rms_norm rstd
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{1\.532[34][0-9]*}}, {{1\.537[67][0-9]*}}, {{0\.902[56][0-9]*}}{{\]}}
// rms_norm input_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.1681[0-9]*}}, {{-0\.411[89][0-9]*}}, {{1\.182[45][0-9]*}}, {{0\.572(0[0-9]*)?}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.874[89][0-9]*}}, {{(-1\.0069[0-9]*|-1\.007(0[0-9]*)?)}}, {{1\.754[23][0-9]*}}, {{-0\.119[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.663(0[0-9]*)?}}, {{-0\.1345[0-9]*}}, {{0\.561[89][0-9]*}}, {{-1\.671[45][0-9]*}}{{\]}}{{\]}}
// rms_norm weight_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: {{\[}}{{-0\.241[45][0-9]*}}, {{-0\.650[23][0-9]*}}, {{-1\.2603[0-9]*}}, {{-1\.749[45][0-9]*}}{{\]}}
// group_norm output
// CHECK-NEXT: rank = 4 offset = 0 sizes = [2, 6, 2, 2] strides = [24, 4, 2, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{\[}}{{-2\.335[0-9]*}}, {{-0\.9034[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.962[45][0-9]*}}, {{0\.705[89][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.5015[0-9]*}}, {{0\.712[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.867[34][0-9]*}}, {{1\.008[56][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{1\.027[45][0-9]*}}, {{(0\.686(0[0-9]*)?|0\.6861[0-9]*)}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.071[23][0-9]*}}, {{-0\.9887[0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-1\.046[89][0-9]*}}, {{-0\.7881[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.453[56][0-9]*}}, {{0\.431[78][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{1\.712[23][0-9]*}}, {{0\.2616[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.1588[0-9]*}}, {{0\.240[56][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-1\.759[89][0-9]*}}, {{2\.156[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.159[67][0-9]*}}, {{(0\.988(0[0-9]*)?|0\.9881[0-9]*)}}{{\]}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{-0\.156[78][0-9]*}}, {{(-1\.232(0[0-9]*)?|-1\.2321[0-9]*)}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.936[56][0-9]*}}, {{-0\.601[78][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.236[45][0-9]*}}, {{(1\.663(0[0-9]*)?|1\.6631[0-9]*)}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.52(00[0-9]*)?}}, {{-0\.126[78][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.4847[0-9]*}}, {{-0\.2661[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.317(0[0-9]*)?}}, {{-0\.597(0[0-9]*)?}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.489[78][0-9]*}}, {{-0\.6304[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.1722[0-9]*}}, {{-1\.953[45][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{1\.270[56][0-9]*}}, {{0\.6765[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.6937[0-9]*}}, {{-0\.554[56][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.2373[0-9]*}}, {{-1\.071[56][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.401[34][0-9]*}}, {{2\.866[0-9]*}}{{\]}}{{\]}}{{\]}}{{\]}}
// group_norm mean
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{(0\.3799[0-9]*|0\.38(00[0-9]*)?)}}, {{(0\.1049[0-9]*|0\.105(0[0-9]*)?)}}, {{(-0\.0199[0-9]*|-0\.02(00[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.307[45][0-9]*}}, {{-0\.1887[0-9]*}}, {{0\.4462[0-9]*}}{{\]}}{{\]}}
// group_norm rstd
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{1\.085[56][0-9]*}}, {{1\.056[12][0-9]*}}, {{0\.987(0[0-9]*)?}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.363[12][0-9]*}}, {{(1\.26(00[0-9]*)?|1\.2601[0-9]*)}}, {{1\.212[56][0-9]*}}{{\]}}{{\]}}
// group_norm input_grad
// CHECK-NEXT: rank = 4 offset = 0 sizes = [2, 6, 2, 2] strides = [24, 4, 2, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{\[}}{{(-0\.244(0[0-9]*)?|-0\.2441[0-9]*)}}, {{-0\.8142[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.586[56][0-9]*}}, {{1\.077[45][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{1\.253[89][0-9]*}}, {{-0\.5065[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.498[12][0-9]*}}, {{0\.318[23][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.194[56][0-9]*}}, {{0\.1832[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.466[78][0-9]*}}, {{0\.3895[0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.758[23][0-9]*}}, {{-0\.223[89][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.199[23][0-9]*}}, {{0\.364[23][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.7994[0-9]*}}, {{-0\.1712[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.5443[0-9]*}}, {{0\.326[56][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{1\.310[34][0-9]*}}, {{1\.514[34][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.866[34][0-9]*}}, {{-0\.7698[0-9]*}}{{\]}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{-1\.432[34][0-9]*}}, {{-2\.585[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.008[78][0-9]*}}, {{(0\.9529[0-9]*|0\.953(0[0-9]*)?)}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.2114[0-9]*}}, {{-0\.3142[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.378[45][0-9]*}}, {{0\.780[67][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.342[34][0-9]*}}, {{-2\.685[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.673[89][0-9]*}}, {{0\.938[89][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-1\.0532[0-9]*}}, {{0\.364[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.829[67][0-9]*}}, {{-0\.410[67][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.3533[0-9]*}}, {{(-1\.5199[0-9]*|-1\.52(00[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.528[34][0-9]*}}, {{1\.3888[0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.510[12][0-9]*}}, {{0\.410[34][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{(-1\.353(0[0-9]*)?|-1\.3531[0-9]*)}}, {{0\.738[56][0-9]*}}{{\]}}{{\]}}{{\]}}{{\]}}
// group_norm weight_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: {{\[}}{{5\.482[0-9]*}}, {{-2\.83[45][0-9]*}}, {{-1\.33(0[0-9]*)?}}, {{2\.941[0-9]*}}, {{-1\.468[0-9]*}}, {{3\.101[0-9]*}}{{\]}}
// group_norm bias_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(-6\.529[0-9]*|-6\.53(0[0-9]*)?)}}, {{(-3\.059[0-9]*|-3\.06(0[0-9]*)?)}}, {{(0\.049[0-9]*|0\.05(0[0-9]*)?)}}, {{(2\.039[0-9]*|2\.04(0[0-9]*)?)}}, {{(3\.309[0-9]*|3\.31(0[0-9]*)?)}}, {{(3\.469[0-9]*|3\.47(0[0-9]*)?)}}{{\]}}
// batch_norm training output
// CHECK-NEXT: rank = 3 offset = 0 sizes = [4, 3, 2] strides = [6, 2, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{-0\.2301[0-9]*}}, {{(-0\.2809[0-9]*|-0\.281(0[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.890[34][0-9]*}}, {{-2\.267[78][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.984[67][0-9]*}}, {{0\.692[67][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.162[67][0-9]*}}, {{-0\.1715[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.509[12][0-9]*}}, {{(-0\.4799[0-9]*|-0\.48(00[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.239[89][0-9]*}}, {{1\.361[45][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.1112[0-9]*}}, {{-0\.144[67][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.8994[0-9]*}}, {{-1\.396[56][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.993[45][0-9]*}}, {{-2\.557[0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.212[67][0-9]*}}, {{-0\.2058[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.006[34][0-9]*}}, {{-0\.988[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{2\.567[0-9]*}}, {{0\.8245[0-9]*}}{{\]}}{{\]}}{{\]}}
// batch_norm training saved_mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(0\.9249[0-9]*|0\.925(0[0-9]*)?)}}, {{(0\.4399[0-9]*|0\.44(00[0-9]*)?)}}, {{(-0\.0649[0-9]*|-0\.065(0[0-9]*)?)}}{{\]}}
// batch_norm training saved_rstd
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{0\.5715[0-9]*}}, {{0\.840[23][0-9]*}}, {{0\.6408[0-9]*}}{{\]}}
// batch_norm training new_running_mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{0\.340[45][0-9]*}}, {{(0\.1529[0-9]*|0\.153(0[0-9]*)?)}}, {{-0\.082[45][0-9]*}}{{\]}}
// batch_norm training new_running_var
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{1\.840[45][0-9]*}}, {{1\.2905[0-9]*}}, {{1\.625[89][0-9]*}}{{\]}}
// batch_norm input_grad
// CHECK-NEXT: rank = 3 offset = 0 sizes = [4, 3, 2] strides = [6, 2, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{-0\.005[12][0-9]*}}, {{0\.003[89][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.537[34][0-9]*}}, {{(0\.5209[0-9]*|0\.521(0[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.311[89][0-9]*}}, {{0\.477[34][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.003[23][0-9]*}}, {{-0\.0184[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.042[12][0-9]*}}, {{0\.339[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.075(0[0-9]*)?}}, {{1\.174[78][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.0207[0-9]*}}, {{0\.0435[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.060[67][0-9]*}}, {{0\.4005[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.436[34][0-9]*}}, {{-0\.0568[0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{0\.0062[0-9]*}}, {{-0\.012[56][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.4263[0-9]*}}, {{-2\.252[56][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.0936[0-9]*}}, {{-1\.888[56][0-9]*}}{{\]}}{{\]}}{{\]}}
// batch_norm weight_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{1\.797(0[0-9]*)?}}, {{0\.9199[0-9]*}}, {{1\.928[12][0-9]*}}{{\]}}
// batch_norm bias_grad
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(-0\.859[0-9]*|-0\.86(0[0-9]*)?)}}, {{(2\.689[0-9]*|2\.69(0[0-9]*)?)}}, {{(6\.429[0-9]*|6\.43(0[0-9]*)?)}}{{\]}}
// batch_norm eval output
// CHECK-NEXT: rank = 3 offset = 0 sizes = [4, 3, 2] strides = [6, 2, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{\[}}{{-0\.216[78][0-9]*}}, {{-0\.300[45][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.452[0-9]*}}, {{-2\.05(0[0-9]*)?}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.325[0-9]*}}, {{0\.896[67][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.1058[0-9]*}}, {{-0\.120[34][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{(1\.0299[0-9]*|1\.03(00[0-9]*)?)}}, {{-0\.067[23][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.471[67][0-9]*}}, {{1\.878[0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{-0\.021[12][0-9]*}}, {{-0\.076[12][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{1\.462[0-9]*}}, {{(-1\.0839[0-9]*|-1\.084(0[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.577[0-9]*}}, {{-3\.87[12][0-9]*}}{{\]}}{{\]}},
// CHECK-NEXT: {{\[}}{{\[}}{{(-0\.188(0[0-9]*)?|-0\.1881[0-9]*)}}, {{-0\.176[78][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{(-0\.651(0[0-9]*)?|-0\.6511[0-9]*)}}, {{(-0\.6309[0-9]*|-0\.631(0[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{3\.647[0-9]*}}, {{1\.090[12][0-9]*}}{{\]}}{{\]}}{{\]}}
// batch_norm eval saved_mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(0\.0899[0-9]*|0\.09(00[0-9]*)?)}}, {{(0\.0299[0-9]*|0\.03(00[0-9]*)?)}}, {{(-0\.0899[0-9]*|-0\.09(00[0-9]*)?)}}{{\]}}
// batch_norm eval saved_rstd
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{0\.940[23][0-9]*}}, {{(0\.932(0[0-9]*)?|0\.9321[0-9]*)}}, {{0\.940[23][0-9]*}}{{\]}}
// batch_norm eval new_running_mean
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(0\.0899[0-9]*|0\.09(00[0-9]*)?)}}, {{(0\.0299[0-9]*|0\.03(00[0-9]*)?)}}, {{(-0\.0899[0-9]*|-0\.09(00[0-9]*)?)}}{{\]}}
// batch_norm eval new_running_var
// CHECK-NEXT: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: {{\[}}{{(1\.1299[0-9]*|1\.13(00[0-9]*)?)}}, {{(1\.1499[0-9]*|1\.15(00[0-9]*)?)}}, {{(1\.1299[0-9]*|1\.13(00[0-9]*)?)}}{{\]}}
// softmax_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.376[45][0-9]*}}, {{0\.150[56][0-9]*}}, {{0\.2691[0-9]*}}, {{-0\.1574[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.2454[0-9]*}}, {{0\.0197[0-9]*}}, {{-0\.2585[0-9]*}}, {{0\.1033[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.6219[0-9]*}}, {{-0\.1703[0-9]*}}, {{-0\.0105[0-9]*}}, {{(0\.054(0[0-9]*)?|0\.0541[0-9]*)}}{{\]}}{{\]}}
// log_softmax_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.5298[0-9]*}}, {{1\.899[34][0-9]*}}, {{-1\.421[67][0-9]*}}, {{-1\.007[45][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.7337[0-9]*}}, {{0\.428[34][0-9]*}}, {{-2\.310[67][0-9]*}}, {{1\.148[45][0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{-1\.455[78][0-9]*}}, {{0\.1057[0-9]*}}, {{-1\.2557[0-9]*}}, {{2\.605[0-9]*}}{{\]}}{{\]}}
// cross_entropy_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.0582[0-9]*}}, {{0\.031(0[0-9]*)?}}, {{0\.0032[0-9]*}}, {{0\.0015[0-9]*}}, {{-0\.094(0[0-9]*)?}}{{\]}},
// CHECK-NEXT: {{\[}}{{-0\.0869[0-9]*}}, {{(0(\.0000[0-9]*)?|[0-9](\.[0-9]*)?e-[0-9]+)}}, {{0\.0797[0-9]*}}, {{0\.0044[0-9]*}}, {{0\.0027[0-9]*}}{{\]}},
// CHECK-NEXT: {{\[}}{{0\.041(0[0-9]*)?}}, {{0\.0027[0-9]*}}, {{-0\.0562[0-9]*}}, {{0\.007(0[0-9]*)?}}, {{0\.0054[0-9]*}}{{\]}}{{\]}}
// mse_loss_grad
// CHECK-NEXT: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}{{0\.2823[0-9]*}}, {{0\.1353[0-9]*}}, {{(-0\.1469[0-9]*|-0\.147(0[0-9]*)?)}}{{\]}},
// CHECK-NEXT: {{\[}}{{(-0\.2519[0-9]*|-0\.252(0[0-9]*)?)}}, {{(0\.3709[0-9]*|0\.371(0[0-9]*)?)}}, {{0\.2823[0-9]*}}{{\]}}{{\]}}

// The printer only reads its argument: without the annotation one-shot
// bufferization assumes a write and cannot print a tensor that is read
// again (eval-mode batch_norm returns its running_mean operand twice).
func.func private @printMemrefF32(tensor<*xf32> {bufferization.access = "read"})

func.func @main() {
  %x1 = amp.constant dense<[[0.05, 0.4, -1.01, 0.22, -0.61], [0.5, 0.23, 0.69, -0.27, 2.18], [0.1, -0.26, -0.15, -1.37, -0.13]]> : tensor<3x5xf32>
  %w1 = amp.constant dense<[1.44, 0.87, 1.31, 1.0, 0.28]> : tensor<5xf32>
  %b1 = amp.constant dense<[-0.06, 0.26, -0.2, 0.19, 0.06]> : tensor<5xf32>
  %g1 = amp.constant dense<[[0.09, -0.86, 0.16, 0.82, -0.76], [0.8, -0.14, 0.32, -1.02, -1.31], [2.52, 0.45, 0.27, -0.81, -0.02]]> : tensor<3x5xf32>
  %y1, %mean1, %rstd1 = amp.layer_norm %x1, %w1, %b1 {axis = -1 : i64, epsilon = 1.0e-05 : f64} : (tensor<3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  %dx1, %dw1, %db1 = amp.layer_norm_grad %g1, %x1, %mean1, %rstd1, %w1 {axis = -1 : i64} : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>) -> (tensor<3x5xf32>, tensor<5xf32>, tensor<5xf32>)
  %y1_u = tensor.cast %y1 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%y1_u) : (tensor<*xf32>) -> ()
  %mean1_u = tensor.cast %mean1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%mean1_u) : (tensor<*xf32>) -> ()
  %rstd1_u = tensor.cast %rstd1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%rstd1_u) : (tensor<*xf32>) -> ()
  %dx1_u = tensor.cast %dx1 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%dx1_u) : (tensor<*xf32>) -> ()
  %dw1_u = tensor.cast %dw1 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%dw1_u) : (tensor<*xf32>) -> ()
  %db1_u = tensor.cast %db1 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%db1_u) : (tensor<*xf32>) -> ()
  %x2 = amp.constant dense<[[[3.62, 3.93, 4.54, 2.43], [4.67, 3.42, 1.4, 4.81], [5.4, 2.29, 0.46, 3.39]], [[1.11, 1.97, 2.75, 2.6], [1.33, 3.55, 4.01, 3.41], [2.87, 3.53, 1.86, 1.26]]]> : tensor<2x3x4xf32>
  %w2 = amp.constant dense<[[1.03, 0.24, 0.41, 1.11], [1.73, 0.34, 2.0, 0.59], [1.5, 0.47, 0.77, 1.05]]> : tensor<3x4xf32>
  %b2 = amp.constant dense<[[0.12, -0.35, 0.04, -0.22], [-0.48, -0.08, 0.81, -0.14], [0.2, 0.07, 0.25, -0.03]]> : tensor<3x4xf32>
  %g2 = amp.constant dense<[[[-0.21, 0.97, -0.8, -0.52], [-0.24, 0.72, 0.23, 1.21], [0.64, -1.11, -1.11, 0.55]], [[1.07, -2.13, -0.83, -1.13], [0.21, -0.94, 1.85, -0.66], [1.39, -0.38, 0.69, -0.14]]]> : tensor<2x3x4xf32>
  %y2, %mean2, %rstd2 = amp.layer_norm %x2, %w2, %b2 {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2xf32>, tensor<2xf32>)
  %dx2, %dw2, %db2 = amp.layer_norm_grad %g2, %x2, %mean2, %rstd2, %w2 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  %y2_u = tensor.cast %y2 : tensor<2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%y2_u) : (tensor<*xf32>) -> ()
  %mean2_u = tensor.cast %mean2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%mean2_u) : (tensor<*xf32>) -> ()
  %rstd2_u = tensor.cast %rstd2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%rstd2_u) : (tensor<*xf32>) -> ()
  %dx2_u = tensor.cast %dx2 : tensor<2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%dx2_u) : (tensor<*xf32>) -> ()
  %dw2_u = tensor.cast %dw2 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%dw2_u) : (tensor<*xf32>) -> ()
  %db2_u = tensor.cast %db2 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%db2_u) : (tensor<*xf32>) -> ()
  %x3 = amp.constant dense<[[-1.22, 1.31, -1.37, -1.56, 0.1, -0.21, 1.08, 1.4], [-0.65, -2.7, -1.26, -0.15, -1.1, -0.62, -1.32, 0.15]]> : tensor<2x8xf32>
  %x3_f16 = amp.cast %x3 : tensor<2x8xf32> to tensor<2x8xf16>
  %w3 = amp.constant dense<[1.08, 1.23, 1.59, 1.41, 1.36, 0.31, 0.74, 1.16]> : tensor<8xf32>
  %b3 = amp.constant dense<[0.15, -0.17, -0.17, 0.45, -0.14, -0.43, -0.13, -0.12]> : tensor<8xf32>
  %g3 = amp.constant dense<[[1.24, -1.41, 0.25, -0.96, 1.05, -0.24, -1.03, -0.95], [1.25, -0.55, -0.15, -0.11, -0.27, 0.27, -0.15, 0.19]]> : tensor<2x8xf32>
  %g3_f16 = amp.cast %g3 : tensor<2x8xf32> to tensor<2x8xf16>
  %y3, %mean3, %rstd3 = amp.layer_norm %x3_f16, %w3, %b3 {axis = -1 : i64, epsilon = 1.0e-05 : f64} : (tensor<2x8xf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf16>, tensor<2xf32>, tensor<2xf32>)
  %dx3, %dw3, %db3 = amp.layer_norm_grad %g3_f16, %x3_f16, %mean3, %rstd3, %w3 {axis = -1 : i64} : (tensor<2x8xf16>, tensor<2x8xf16>, tensor<2xf32>, tensor<2xf32>, tensor<8xf32>) -> (tensor<2x8xf16>, tensor<8xf32>, tensor<8xf32>)
  %y3_p = amp.cast %y3 : tensor<2x8xf16> to tensor<2x8xf32>
  %y3_u = tensor.cast %y3_p : tensor<2x8xf32> to tensor<*xf32>
  call @printMemrefF32(%y3_u) : (tensor<*xf32>) -> ()
  %mean3_u = tensor.cast %mean3 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%mean3_u) : (tensor<*xf32>) -> ()
  %rstd3_u = tensor.cast %rstd3 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%rstd3_u) : (tensor<*xf32>) -> ()
  %dx3_p = amp.cast %dx3 : tensor<2x8xf16> to tensor<2x8xf32>
  %dx3_u = tensor.cast %dx3_p : tensor<2x8xf32> to tensor<*xf32>
  call @printMemrefF32(%dx3_u) : (tensor<*xf32>) -> ()
  %dw3_u = tensor.cast %dw3 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%dw3_u) : (tensor<*xf32>) -> ()
  %db3_u = tensor.cast %db3 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%db3_u) : (tensor<*xf32>) -> ()
  %x4 = amp.constant dense<[[0.67, 1.08, 0.16, 0.25], [-0.26, -0.52, -0.09, 1.16], [1.53, 0.74, -1.42, 0.07]]> : tensor<3x4xf32>
  %w4 = amp.constant dense<[0.43, 1.61, 1.12, 1.13]> : tensor<4xf32>
  %g4 = amp.constant dense<[[-0.17, -0.35, 0.65, 0.27], [1.86, -0.12, 1.09, -0.98], [0.49, -0.25, 0.99, -1.66]]> : tensor<3x4xf32>
  %y4, %rstd4 = amp.rms_norm %x4, %w4 {axis = -1 : i64} : (tensor<3x4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3xf32>)
  %dx4, %dw4 = amp.rms_norm_grad %g4, %x4, %rstd4, %w4 {axis = -1 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  %y4_u = tensor.cast %y4 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%y4_u) : (tensor<*xf32>) -> ()
  %rstd4_u = tensor.cast %rstd4 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%rstd4_u) : (tensor<*xf32>) -> ()
  %dx4_u = tensor.cast %dx4 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%dx4_u) : (tensor<*xf32>) -> ()
  %dw4_u = tensor.cast %dw4 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%dw4_u) : (tensor<*xf32>) -> ()
  %x5 = amp.constant dense<[[[[-1.08, -0.11], [-0.15, 0.98]], [[-0.6, 1.12], [1.34, 1.54]], [[1.34, 1.02], [0.31, -0.55]], [[-0.77, -0.42], [-1.32, 1.23]], [[1.61, -0.46], [-1.06, -0.49]], [[-1.09, 1.39], [-0.71, 0.65]]], [[[0.32, -0.26], [-0.64, 0.08]], [[0.36, 1.97], [0.68, -0.05]], [[0.42, -0.17], [-0.21, -0.43]], [[0.82, -0.45], [0.46, -1.95]], [[1.26, 0.57], [0.59, -0.86]], [[0.36, -0.07], [-0.24, 1.96]]]]> : tensor<2x6x2x2xf32>
  %w5 = amp.constant dense<[1.36, 0.65, 1.01, 0.7, 0.71, 1.6]> : tensor<6xf32>
  %b5 = amp.constant dense<[-0.18, 0.19, -0.29, -0.4, 0.57, -0.07]> : tensor<6xf32>
  %g5 = amp.constant dense<[[[[-1.73, -1.53], [-1.4, 0.41]], [[-0.89, -1.21], [-0.92, 0.49]], [[-0.62, -0.56], [-1.95, -0.02]], [[0.54, -0.9], [-0.58, -0.63]], [[0.29, 0.47], [-0.27, 1.17]], [[1.05, 1.56], [-0.27, -0.0]]], [[[-1.09, -1.68], [0.28, 0.21]], [[-0.43, -1.21], [0.85, 0.26]], [[1.21, -1.39], [2.02, 1.36]], [[0.38, 1.3], [2.32, -0.39]], [[1.27, -1.19], [-0.03, 1.6]], [[0.48, 0.35], [-0.59, 0.89]]]]> : tensor<2x6x2x2xf32>
  %y5, %mean5, %rstd5 = amp.group_norm %x5, %w5, %b5 {num_groups = 3 : i64} : (tensor<2x6x2x2xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %dx5, %dw5, %db5 = amp.group_norm_grad %g5, %x5, %mean5, %rstd5, %w5 {num_groups = 3 : i64} : (tensor<2x6x2x2xf32>, tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>) -> (tensor<2x6x2x2xf32>, tensor<6xf32>, tensor<6xf32>)
  %y5_u = tensor.cast %y5 : tensor<2x6x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%y5_u) : (tensor<*xf32>) -> ()
  %mean5_u = tensor.cast %mean5 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%mean5_u) : (tensor<*xf32>) -> ()
  %rstd5_u = tensor.cast %rstd5 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%rstd5_u) : (tensor<*xf32>) -> ()
  %dx5_u = tensor.cast %dx5 : tensor<2x6x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%dx5_u) : (tensor<*xf32>) -> ()
  %dw5_u = tensor.cast %dw5 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%dw5_u) : (tensor<*xf32>) -> ()
  %db5_u = tensor.cast %db5 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%db5_u) : (tensor<*xf32>) -> ()
  %x6 = amp.constant dense<[[[-0.48, -2.26], [1.95, -1.53], [0.63, 0.32]], [[1.88, 1.57], [1.53, 0.44], [-0.67, 1.03]], [[3.68, 2.51], [1.96, -0.57], [-1.47, -3.13]], [[0.13, 0.37], [-0.14, -0.12], [2.31, 0.46]]]> : tensor<4x3x2xf32>
  %w6 = amp.constant dense<[0.05, 1.08, 1.47]> : tensor<3xf32>
  %b6 = amp.constant dense<[-0.19, -0.48, 0.33]> : tensor<3xf32>
  %rm6 = amp.constant dense<[0.09, 0.03, -0.09]> : tensor<3xf32>
  %rv6 = amp.constant dense<[1.13, 1.15, 1.13]> : tensor<3xf32>
  %g6 = amp.constant dense<[[[-0.47, -0.38], [-0.11, 0.72], [0.58, 1.37]], [[0.13, -0.67], [1.59, 0.71], [0.79, 2.22]], [[-0.48, 1.62], [0.55, 0.68], [1.05, 0.27]], [[0.01, -0.62], [0.75, -2.2], [1.27, -1.12]]]> : tensor<4x3x2xf32>
  %y6, %sm6, %sr6, %rm6n, %rv6n = amp.batch_norm %x6, %w6, %b6, %rm6, %rv6 {momentum = 3.0e-01 : f64} : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %dx6, %dw6, %db6 = amp.batch_norm_grad %g6, %x6, %sm6, %sr6, %w6 : (tensor<4x3x2xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>)
  %y7, %sm7, %sr7, %rm7n, %rv7n = amp.batch_norm %x6, %w6, %b6, %rm6, %rv6 {epsilon = 1.0e-03 : f64, training = false} : (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y6_u = tensor.cast %y6 : tensor<4x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%y6_u) : (tensor<*xf32>) -> ()
  %sm6_u = tensor.cast %sm6 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%sm6_u) : (tensor<*xf32>) -> ()
  %sr6_u = tensor.cast %sr6 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%sr6_u) : (tensor<*xf32>) -> ()
  %rm6n_u = tensor.cast %rm6n : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%rm6n_u) : (tensor<*xf32>) -> ()
  %rv6n_u = tensor.cast %rv6n : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%rv6n_u) : (tensor<*xf32>) -> ()
  %dx6_u = tensor.cast %dx6 : tensor<4x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%dx6_u) : (tensor<*xf32>) -> ()
  %dw6_u = tensor.cast %dw6 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%dw6_u) : (tensor<*xf32>) -> ()
  %db6_u = tensor.cast %db6 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%db6_u) : (tensor<*xf32>) -> ()
  %y7_u = tensor.cast %y7 : tensor<4x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%y7_u) : (tensor<*xf32>) -> ()
  %sm7_u = tensor.cast %sm7 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%sm7_u) : (tensor<*xf32>) -> ()
  %sr7_u = tensor.cast %sr7 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%sr7_u) : (tensor<*xf32>) -> ()
  %rm7n_u = tensor.cast %rm7n : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%rm7n_u) : (tensor<*xf32>) -> ()
  %rv7n_u = tensor.cast %rv7n : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%rv7n_u) : (tensor<*xf32>) -> ()
  %x8 = amp.constant dense<[[-0.49, -1.32, 1.23, -0.39], [-1.03, 0.56, 0.61, -0.21], [-0.21, -0.31, -0.4, 1.45]]> : tensor<3x4xf32>
  %g8 = amp.constant dense<[[0.6, 1.93, -1.03, -0.93], [0.73, 0.41, -2.33, 1.14], [-1.86, -0.26, -1.59, 0.48]]> : tensor<3x4xf32>
  %s8 = amp.softmax %x8 {axis = 0 : i64} : tensor<3x4xf32>
  %ds8 = amp.softmax_grad %g8, %s8 {axis = 0 : i64} : tensor<3x4xf32>
  %l8 = amp.log_softmax %x8 {axis = -1 : i64} : tensor<3x4xf32>
  %dl8 = amp.log_softmax_grad %g8, %l8 {axis = -1 : i64} : tensor<3x4xf32>
  %ds8_u = tensor.cast %ds8 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%ds8_u) : (tensor<*xf32>) -> ()
  %dl8_u = tensor.cast %dl8 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%dl8_u) : (tensor<*xf32>) -> ()
  %z9 = amp.constant dense<[[2.97, 2.34, 0.09, -0.66, 3.19], [3.58, -3.92, 3.58, 0.69, 0.2], [1.62, -1.1, 2.61, -0.14, -0.39]]> : tensor<3x5xf32>
  %lab9 = amp.constant dense<[4, 0, 2]> : tensor<3xi64>
  %gs9 = amp.constant dense<5.000000e-01> : tensor<f32>
  %dz9 = amp.cross_entropy_grad %gs9, %z9, %lab9 : tensor<3x5xf32>, tensor<3xi64>
  %dz9_u = tensor.cast %dz9 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%dz9_u) : (tensor<*xf32>) -> ()
  %p10 = amp.constant dense<[[1.56, 1.17, 0.28], [-1.31, -0.46, 0.15]]> : tensor<2x3xf32>
  %t10 = amp.constant dense<[[0.35, 0.59, 0.91], [-0.23, -2.05, -1.06]]> : tensor<2x3xf32>
  %gs10 = amp.constant dense<7.000000e-01> : tensor<f32>
  %dp10 = amp.mse_loss_grad %gs10, %p10, %t10 : tensor<2x3xf32>
  %dp10_u = tensor.cast %dp10 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%dp10_u) : (tensor<*xf32>) -> ()
  return
}
