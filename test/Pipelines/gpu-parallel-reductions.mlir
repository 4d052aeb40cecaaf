// REQUIRES: cuda-toolkit
// Reductions in whole training steps reduce in parallel
// (amp-gpu-fuse-rows for chains of row-wise ops, amp-gpu-parallel-reductions
// for the rest): the MLP step of examples/ in fp16 with O1
// and dynamic loss scaling, and the transformer block in bf16 with AdamW
// (also with gradient clipping).
// RUN: rm -rf %t && mkdir -p %t/mlp %t/transformer %t/clip
// RUN: amp-compile %amp_src_root/examples/mlp_train_step.mlir --emit=mlir --precision=fp16 --opt-level=O1 -o %t/mlp.mlir
// RUN: amp-opt %t/mlp.mlir --amp-gpu-pipeline="format=isa model-abi=true" --mlir-print-ir-after=gpu-async-region --mlir-print-ir-module-scope --mlir-disable-threading -o %t/mlp.isa.mlir 2> %t/mlp.host.mlir
// RUN: %python %S/Inputs/launch_summary.py < %t/mlp.host.mlir | FileCheck %s --check-prefix=MLP
// RUN: %python %S/Inputs/extract_ptx.py < %t/mlp.isa.mlir | FileCheck %s --check-prefix=PTX
// RUN: %python %S/Inputs/extract_ptx.py --dir %t/mlp < %t/mlp.isa.mlir
// RUN: %python %S/Inputs/ptxas_all.py %ptxas sm_90 %t/mlp | FileCheck %s --check-prefix=PTXAS
// RUN: amp-compile %amp_src_root/examples/transformer_block.mlir --emit=mlir --precision=bf16 --optimizer=adamw -o %t/transformer.mlir
// RUN: amp-opt %t/transformer.mlir --amp-gpu-pipeline="format=isa model-abi=true" --mlir-print-ir-after=gpu-async-region --mlir-print-ir-module-scope --mlir-disable-threading -o %t/transformer.isa.mlir 2> %t/transformer.host.mlir
// RUN: %python %S/Inputs/launch_summary.py < %t/transformer.host.mlir | FileCheck %s --check-prefix=TRANSFORMER
// RUN: %python %S/Inputs/extract_ptx.py < %t/transformer.isa.mlir | FileCheck %s --check-prefix=PTX
// RUN: %python %S/Inputs/extract_ptx.py --dir %t/transformer < %t/transformer.isa.mlir
// RUN: %python %S/Inputs/ptxas_all.py %ptxas sm_90 %t/transformer | FileCheck %s --check-prefix=PTXAS
// RUN: amp-compile %amp_src_root/examples/transformer_block.mlir --emit=mlir --precision=bf16 --optimizer=adamw --max-grad-norm=1.0 -o %t/clip.mlir
// RUN: amp-opt %t/clip.mlir --amp-gpu-pipeline="format=isa model-abi=true" --mlir-print-ir-after=gpu-async-region --mlir-print-ir-module-scope --mlir-disable-threading -o %t/clip.isa.mlir 2> %t/clip.host.mlir
// RUN: %python %S/Inputs/launch_summary.py < %t/clip.host.mlir | FileCheck %s --check-prefix=CLIP
// RUN: %python %S/Inputs/extract_ptx.py --dir %t/clip < %t/clip.isa.mlir
// RUN: %python %S/Inputs/ptxas_all.py %ptxas sm_90 %t/clip | FileCheck %s --check-prefix=PTXAS

// The launches of the MLP step in order (grid x block; `loop`: the kernel
// has a loop, `all_reduce`: it reduces across its block). Where the block
// divides a row into at most 8 strides, each thread's elements are
// straight-line code, no loop (max-unrolled-strides). LayerNorm (32
// rows of 64: mean, variance, normalize) is one launch of a block of 64
// threads per row (amp-gpu-fuse-rows), and so are the softmax rows of
// cross-entropy (10 classes: max, sum of exponentials, the label's logit;
// a block of 32 threads per row). The sum of the per-row losses (32 values)
// is one block of 32 threads; its division by 32 is 0-d and runs on one
// thread.
// MLP: launch 32x1x1 x 64x1x1: all_reduce
// MLP: launch 32x1x1 x 32x1x1: loop all_reduce
// MLP: launch 1x1x1 x 32x1x1: all_reduce
// MLP-NEXT: launch 1x1x1 x 1x1x1:
// The overflow check over every gradient (dynamic loss scaling): six
// independent `or` reductions into the same flag, batched into one launch
// pair (amp-gpu-parallel-reductions, batch-full-reductions): stage 1 gives
// every gradient its own blocks (fc1's weight gradient, 128x64 = 8192 f16
// values, four; the others one each: 9 blocks of 256 threads writing
// partials [6, 4]), stage 2 is one block looping over the six gradients.
// Without the batching: one or two launches per gradient (7).
// MLP: launch 9x1x1 x 256x1x1: loop all_reduce
// MLP-NEXT: launch 1x1x1 x 32x1x1: loop all_reduce
// MLP-NEXT: launch 1x1x1 x 1x1x1:
// MLP-NOT: all_reduce
// No reduction is left in a single-thread kernel: those only update 0-d
// state (the loss scale, its trackers).
// 18 launches: independent elementwise loops side by side are one launch
// (amp-gpu-batch-loops: the SGD updates, the weight casts, also across the
// GEMM calls that leave their buffers alone; 28 before), and the loss sum
// starts from its zero fill's constant (the fill goes). 25
// before that: the f16 weight gradients are written by their GEMMs where
// the copies that rounded them were (amp-contractions-to-gemm-calls), so
// fc1's bias gradient is dW1's epilogue (two copies, a fill and a column sum
// fewer: 29 before); LayerNorm's weight and bias gradients are one column
// sum reading the output gradient once (amp-gpu-prepare-linalg; 30 before
// that), the two bias adds are the GEMMs' epilogues (32 before that). Three
// more: fc1's f32 bias rounded to f16 for its f16 GEMM's epilogue (cuBLASLt
// adds only a bias of D's type to a 16-bit D), and the two bias gradients
// beside f16 weight gradients as column sums (cuBLASLt computes no f32 bias
// gradient there).
// MLP: single-thread launches with a loop: 0
// MLP-NEXT: launches: 18

// The transformer block: every LayerNorm (32 tokens of 64; forward, its
// recomputation in the backward, and the backward) is one launch of a
// block per row (amp-gpu-fuse-rows), in order; the two 1-block launches
// are the mean loss and the gradient norm. The attention is cuDNN's fused
// attention (amp-raise-attention, amp_gpu_attention_fwd/bwd_strided): its
// softmax (128 rows of 16 keys; forward, recomputation and backward, three
// launches of their own before) is inside cuDNN's kernels, which read q, k,
// v where the projections wrote them and write the output and the gradients
// where the head merges put them (37 launches with the split and merge
// copies). 81 launches before the
// fused attention (86 before the weight gradients read through a rounding
// copy were written by their GEMMs in the copy's place,
// amp-contractions-to-gemm-calls; 103 before AdamW's bias corrections were
// computed once for all 16 parameters instead of one single-thread launch
// each, amp-fuse-elementwise, and the two LayerNorms' weight and bias
// gradients became one column sum each, amp-gpu-prepare-linalg; 106
// before residual adds became GEMMs with C and D apart and f32 gradients
// were rounded by the kernel computing them, 115 before bias adds and bias
// gradients became GEMM epilogues, 152 when every stage had its own). No
// single-thread kernel loops.
// TRANSFORMER: launch 32x1x1 x 64x1x1: all_reduce
// TRANSFORMER: launch 32x1x1 x 64x1x1: all_reduce
// TRANSFORMER: launch 1x1x1 x 256x1x1: all_reduce
// TRANSFORMER: launch 32x1x1 x 64x1x1: all_reduce
// TRANSFORMER: launch 32x1x1 x 64x1x1: all_reduce
// TRANSFORMER: launch 1x1x1 x 256x1x1: all_reduce
// TRANSFORMER: launch 32x1x1 x 64x1x1: all_reduce
// TRANSFORMER-NOT: all_reduce
// TRANSFORMER: single-thread launches with a loop: 0
// 40 launches: independent elementwise loops side by side are one launch
// (amp-gpu-batch-loops: AdamW's updates of all 16 parameters in a few
// launches, the weight casts, also across GEMM calls that leave their
// buffers alone; 88 before), and reductions start from their outputs'
// zero-fill constants (the fills go). 41 before the state was updated in
// place: the optimizer's batched kernel then took out-buffers too and did
// not fit one launch's parameters.
// (One launch rounds the f32 bias of the 16-bit GEMM with a bias epilogue;
// eight are bias gradients beside 16-bit weight gradients, which cuBLASLt
// does not compute in the GEMM: 81 before both. 90 before the causal mask
// and the masked scores were recomputed in each reader instead of stored,
// amp-fuse-elementwise.) 37 since the attention is cuDNN's: its three
// softmax launches went.
// TRANSFORMER-NEXT: launches: 33

// With gradient clipping (--max-grad-norm=1.0), the global gradient norm
// sums the squares of each of the 16 gradients separately: one launch pair
// for all of them (34 blocks in stage 1: 1 or 2 per small gradient, 8 per
// 256x64 weight), 43 launches (39 with the state updated in place and
// each linear's input gradient before its weight gradient: amp-autodiff
// now emits the weight gradient first, which frees the activations both
// read earlier (mlp_stack's peak, docs/benchmarks.md) but here leaves four
// small bias-gradient and LayerNorm-gradient loops in launches of their
// own; 40 before the state was updated in place; 83 before amp-gpu-batch-loops and the
// reductions' fills going; one rounds a 16-bit GEMM's f32 bias for its
// epilogue; 85 before the causal mask and masked scores were recomputed by
// their readers; 84 before the bias rounding, 89 before the rounding copies went, 106
// before the bias corrections were shared and the LayerNorm weight and bias
// gradients merged, as above; 109 before
// the residual and rounding
// fusions, 118 without the GEMM epilogues; 153 with
// a launch pair or one block per gradient, and a launch per fill of their
// 0-d accumulators, which now sit together and fuse). 40 since the
// attention is cuDNN's (its three softmax launches went), 36 since it reads
// and writes the heads in the projections' buffers.
// CLIP: launch 34x1x1 x 256x1x1: loop all_reduce
// CLIP-NEXT: launch 1x1x1 x 32x1x1: loop all_reduce
// CLIP: single-thread launches with a loop: 0
// CLIP-NEXT: launches: 36

// gpu.all_reduce becomes warp shuffles (butterfly) and a shared-memory
// exchange between warps with barriers (convert-gpu-to-nvvm).
// PTX: .shared .align 4 .b8 {{[a-z0-9_]+}}____wg_{{[a-z0-9_]+}}_kernel
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: st.shared.b32

// PTXAS: ptxas accepted {{[1-9][0-9]+}} kernels
