//===- AMPOps.td - amp dialect operations ------------------*- tablegen -*-===//
//
// Conventions: axes may be negative (counted from the end, as in PyTorch and
// ONNX); images are NCHW; 2-d padding is [top, left, bottom, right] (ONNX
// order); statistics (means, reciprocal standard deviations, running
// statistics) are always f32 tensors.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_TD
#define AMP_DIALECT_AMP_IR_AMPOPS_TD

include "amp/Dialect/AMP/IR/AMPBase.td"
include "amp/Dialect/AMP/IR/AMPInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

// An op with a backward rule for reverse-mode autodiff (`--amp-autodiff`).
// The rules (`buildGradients`) are in lib/Dialect/AMP/IR/AMPGradients.cpp;
// gradient ops, optimizer and loss-scaling ops have none.
defvar AMP_Differentiable = DeclareOpInterfaceMethods<AMP_GradientOpInterface>;

class AMP_Op<string mnemonic, list<Trait> traits = []>
    : Op<AMP_Dialect, mnemonic, traits>;

// An op the mixed-precision passes assign a precision to. Its precision
// answers come from its traits (category, AMP_F32Accumulation,
// AMP_WidenableResults); `precisionAnswers` names the PrecisionOpInterface
// methods the op answers itself in AMPOps.cpp.
class AMP_ComputeOp<string mnemonic, Trait category, list<Trait> traits = [],
                    list<string> precisionAnswers = []>
    : AMP_Op<mnemonic, !listconcat([Pure, category,
          DeclareOpInterfaceMethods<AMP_PrecisionOpInterface,
                                    precisionAnswers>], traits)>;

// An op whose types the mixed-precision passes never change (casts, seeds,
// loss scaling, optimizer updates); `precisionAnswers` as above, for
// FixedPrecisionOpInterface.
class AMP_FixedOp<string mnemonic, list<Trait> traits = [],
                  list<string> precisionAnswers = []>
    : AMP_Op<mnemonic, !listconcat([Pure,
          DeclareOpInterfaceMethods<AMP_FixedPrecisionOpInterface,
                                    precisionAnswers>], traits)>;

// A normalization op: its statistics operands and results stay f32, its
// affine parameters may be f32, and the gradients of the affine parameters
// have the parameters' types.
class AMP_NormOp<string mnemonic, Trait category, list<Trait> traits = []>
    : AMP_ComputeOp<mnemonic, category, traits,
                    ["isStatisticOperand", "isStatisticResult",
                     "isF32CompatibleOperand", "getTypeTiedOperand"]> {
  let hasVerifier = 1;
}

class AMP_UnaryOp<string mnemonic, Trait category, list<Trait> traits = []>
    : AMP_ComputeOp<mnemonic, category,
                    !listconcat([SameOperandsAndResultType, Elementwise],
                                traits)> {
  let arguments = (ins AMP_FloatTensor:$input);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

class AMP_BinaryOp<string mnemonic, Trait category, list<Trait> traits = []>
    : AMP_ComputeOp<mnemonic, category,
                    !listconcat([SameOperandsAndResultType, Elementwise],
                                traits)> {
  let arguments = (ins AMP_FloatTensor:$lhs, AMP_FloatTensor:$rhs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

// The backward of an elementwise activation: `grad` times the derivative at
// `input` (or at the forward `output` where that is cheaper).
class AMP_ActivationGradOp<string mnemonic, Trait category,
                           list<Trait> traits = []>
    : AMP_ComputeOp<mnemonic, category,
                    !listconcat([SameOperandsAndResultType, Elementwise],
                                traits)> {
  let arguments = !con((ins AMP_FloatTensor:$grad),
                       (ins AMP_FloatTensor:$forward));
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $forward attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Elementwise forward ops
//===----------------------------------------------------------------------===//

def AMP_AddOp : AMP_BinaryOp<"add", AMP_InferPrecision,
    [Commutative, AMP_Differentiable]> {
  let summary = "elementwise addition";
  let description = [{
    Adds two tensors of the same type elementwise. Broadcasting is explicit
    (`amp.broadcast`), so that every gradient rule is local.

    ```mlir
    %0 = amp.add %a, %b : tensor<4x8xf32>
    ```
  }];
}
def AMP_SubOp : AMP_BinaryOp<"sub", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise subtraction";
}
def AMP_MulOp : AMP_BinaryOp<"mul", AMP_InferPrecision,
    [Commutative, AMP_Differentiable]> {
  let summary = "elementwise multiplication";
}
def AMP_DivOp : AMP_BinaryOp<"div", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise division";
}
def AMP_PowOp : AMP_BinaryOp<"pow", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise power `lhs ^ rhs`";
}
def AMP_MaximumOp : AMP_BinaryOp<"maximum", AMP_ClearPrecision,
    [Commutative, AMP_Differentiable]> {
  let summary = "elementwise maximum";
}
def AMP_MinimumOp : AMP_BinaryOp<"minimum", AMP_ClearPrecision,
    [Commutative, AMP_Differentiable]> {
  let summary = "elementwise minimum";
}

def AMP_NegOp : AMP_UnaryOp<"neg", AMP_ClearPrecision,
    [Involution, AMP_Differentiable]> {
  let summary = "elementwise negation";
}
def AMP_ExpOp : AMP_UnaryOp<"exp", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise exponential";
}
def AMP_LogOp : AMP_UnaryOp<"log", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise natural logarithm";
}
def AMP_SqrtOp : AMP_UnaryOp<"sqrt", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise square root";
}
def AMP_RsqrtOp : AMP_UnaryOp<"rsqrt", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise reciprocal square root";
}
def AMP_TanhOp : AMP_UnaryOp<"tanh", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise hyperbolic tangent";
}
def AMP_SigmoidOp : AMP_UnaryOp<"sigmoid", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise logistic sigmoid";
}
def AMP_ReluOp : AMP_UnaryOp<"relu", AMP_ClearPrecision,
    [Idempotent, AMP_Differentiable]> {
  let summary = "elementwise rectified linear unit";
}
def AMP_SiluOp : AMP_UnaryOp<"silu", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise SiLU (swish): `x * sigmoid(x)`";
}
def AMP_ErfOp : AMP_UnaryOp<"erf", AMP_InferPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise Gauss error function";
}
// sin and cos run in f32 (DENY): their arguments are phases such as a
// diffusion timestep times a frequency (up to 1000 radians), which bf16
// holds to within 4 radians, so its sine would be noise.
def AMP_SinOp : AMP_UnaryOp<"sin", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise sine";
}
def AMP_CosOp : AMP_UnaryOp<"cos", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise cosine";
}
def AMP_SoftplusOp : AMP_UnaryOp<"softplus", AMP_DenyPrecision,
    [AMP_Differentiable]> {
  let summary = "elementwise softplus `log(1 + exp(x))`";
  let description = [{
    A smooth ReLU, computed stably as `max(x, 0) + log1p(exp(-|x|))` so that
    no `exp` overflows. Like `exp` and `log` it runs in f32 (DENY), as on
    PyTorch autocast's fp32 list. Its gradient is `grad * sigmoid(x)`.

    ```mlir
    %0 = amp.softplus %x : tensor<4x8xf32>
    ```
  }];
}

def AMP_GeluOp : AMP_ComputeOp<"gelu", AMP_InferPrecision,
                               [SameOperandsAndResultType, Elementwise,
                                AMP_Differentiable]> {
  let summary = "elementwise GELU in its erf or tanh form";
  let description = [{
    `approximate = none` computes `x * 0.5 * (1 + erf(x / sqrt(2)))`;
    `approximate = tanh` the tanh approximation used by GPT-2.

    ```mlir
    %0 = amp.gelu %x approximate = tanh : tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$input,
      DefaultValuedAttr<AMP_GeluApproximation,
                        "::mlir::amp::GeluApproximation::None">:$approximate);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($result)
  }];
}

def AMP_CompareOp : AMP_ComputeOp<"compare", AMP_ClearPrecision,
    [SameTypeOperands, AllShapesMatch<["lhs", "result"]>, Elementwise]> {
  let summary = "elementwise comparison producing i1";
  let description = [{
    ```mlir
    %mask = amp.compare gt, %x, %zero : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins AMP_CompareDirection:$direction,
                       AMP_NumericTensor:$lhs, AMP_NumericTensor:$rhs);
  let results = (outs AMP_BoolTensor:$result);
  let assemblyFormat = [{
    $direction `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)
  }];
}

def AMP_WhereOp : AMP_ComputeOp<"where", AMP_ClearPrecision,
    [AllTypesMatch<["true_value", "false_value", "result"]>,
     AllShapesMatch<["condition", "result"]>, Elementwise,
     AMP_Differentiable]> {
  let summary = "elementwise select";
  let description = [{
    Picks `true_value` where `condition` holds and `false_value` elsewhere.

    ```mlir
    %0 = amp.where %mask, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AMP_BoolTensor:$condition, AMP_AnyTensor:$true_value,
                       AMP_AnyTensor:$false_value);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def AMP_MatmulOp : AMP_ComputeOp<"matmul", AMP_AllowPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults, SameOperandsElementType,
     AMP_Differentiable], ["estimateFlops"]> {
  let summary = "batched matrix multiplication with optional transposes";
  let description = [{
    Multiplies `[batch..., m, k]` by `[batch..., k, n]` (after the optional
    transposes of the last two dimensions). Either side may have no batch
    dimensions, in which case it is shared across the batch. The result
    element type is the operands' or `f32` (accumulation is always `f32`).

    ```mlir
    %0 = amp.matmul %q, %k {transpose_rhs}
        : tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x16xf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$lhs, AMP_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def AMP_LinearOp : AMP_ComputeOp<"linear", AMP_AllowPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults, AMP_Differentiable],
    ["isF32CompatibleOperand", "estimateFlops"]> {
  let summary = "fully connected layer `input * weight^T + bias`";
  let description = [{
    PyTorch's `nn.Linear`: `input` is `[..., in]`, `weight` is `[out, in]`,
    the optional `bias` is `[out]`, the result `[..., out]`.

    ```mlir
    %0 = amp.linear %x, %w, %b
        : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_FloatTensor:$weight,
                       Optional<AMP_FloatTensor>:$bias);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class AMP_Conv2DAttrs {
  dag convAttrs = (ins
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<AMP_I64Attr, "1">:$groups);
}

def AMP_Conv2DOp : AMP_ComputeOp<"conv2d", AMP_AllowPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults, AMP_Differentiable],
    ["isF32CompatibleOperand", "estimateFlops"]>, AMP_Conv2DAttrs {
  let summary = "2-d convolution (NCHW, OIHW weights)";
  let description = [{
    `input` is `[N, C, H, W]`, `weight` `[O, C / groups, KH, KW]`, the
    optional `bias` `[O]`. `padding` is `[top, left, bottom, right]`.

    ```mlir
    %0 = amp.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins AMP_FloatTensor:$input, AMP_FloatTensor:$weight,
                            Optional<AMP_FloatTensor>:$bias), convAttrs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def AMP_Conv2DInputGradOp : AMP_ComputeOp<"conv2d_input_grad",
    AMP_AllowPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults, AMP_Differentiable],
    ["estimateFlops"]>, AMP_Conv2DAttrs {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    A transposed convolution of the output gradient `grad` with `weight`;
    the result type is the forward input's type. It is also the forward op of
    a transposed convolution (`nn.ConvTranspose2d`, ONNX `ConvTranspose`,
    whose weight layout `[C_in, C_out / groups, KH, KW]` is this op's):
    `output_padding` is the result's extra rows and columns, which the
    verifier accepts while the conv2d of the result still gives `grad`'s
    shape (output_padding < stride).
  }];
  let arguments = !con((ins AMP_FloatTensor:$grad, AMP_FloatTensor:$weight),
                       convAttrs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $weight attr-dict `:` type($grad) `,` type($weight) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def AMP_Conv2DWeightGradOp : AMP_ComputeOp<"conv2d_weight_grad",
    AMP_AllowPrecision, [AMP_F32Accumulation, AMP_WidenableResults],
    ["estimateFlops"]>, AMP_Conv2DAttrs {
  let summary = "gradient of conv2d with respect to its weight";
  let description = [{
    Correlates the forward `input` with the output gradient `grad`; the
    result type is the weight's type.
  }];
  let arguments = !con((ins AMP_FloatTensor:$grad, AMP_FloatTensor:$input),
                       convAttrs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input attr-dict `:` type($grad) `,` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, softmax
//===----------------------------------------------------------------------===//

class AMP_ReduceOp<string mnemonic, Trait category, list<Trait> traits = [],
                   list<string> precisionAnswers = []>
    : AMP_ComputeOp<mnemonic, category, traits, precisionAnswers> {
  let arguments = (ins AMP_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keep_dims);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

// Computed in f32, a sum or mean widens its input itself.
def AMP_ReduceSumOp : AMP_ReduceOp<"reduce_sum", AMP_DenyPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults, AMP_Differentiable],
    ["getOperandPrecisionRole"]> {
  let summary = "sum over axes";
  let description = [{
    Reduces `axes` (unique, possibly negative); `keep_dims` keeps them as
    size 1. The result element type is the input's or `f32`.

    ```mlir
    %0 = amp.reduce_sum %x {axes = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
    ```
  }];
}
def AMP_ReduceMeanOp : AMP_ReduceOp<"reduce_mean", AMP_DenyPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults, AMP_Differentiable],
    ["getOperandPrecisionRole"]> {
  let summary = "mean over axes";
}
def AMP_ReduceMaxOp : AMP_ReduceOp<"reduce_max", AMP_ClearPrecision,
                                   [AMP_Differentiable]> {
  let summary = "maximum over axes";
}

class AMP_SoftmaxBase<string mnemonic>
    : AMP_ComputeOp<mnemonic, AMP_DenyPrecision,
                    [SameOperandsAndResultType, AMP_F32Accumulation,
                     AMP_Differentiable]> {
  let arguments = (ins AMP_FloatTensor:$input, AMP_I64Attr:$axis);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}
def AMP_SoftmaxOp : AMP_SoftmaxBase<"softmax"> {
  let summary = "softmax along an axis";
  let description = [{
    ```mlir
    %0 = amp.softmax %x {axis = -1 : i64} : tensor<2x8xf32>
    ```
  }];
}
def AMP_LogSoftmaxOp : AMP_SoftmaxBase<"log_softmax"> {
  let summary = "log of softmax along an axis";
}

class AMP_SoftmaxGradBase<string mnemonic>
    : AMP_ComputeOp<mnemonic, AMP_DenyPrecision,
                    [SameOperandsAndResultType, AMP_F32Accumulation]> {
  let arguments = (ins AMP_FloatTensor:$grad, AMP_FloatTensor:$output,
                       AMP_I64Attr:$axis);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($result)";
  let hasVerifier = 1;
}
def AMP_SoftmaxGradOp : AMP_SoftmaxGradBase<"softmax_grad"> {
  let summary = "softmax backward from the forward output";
  let description = [{
    `output * (grad - sum(grad * output, axis))`.
  }];
}
def AMP_LogSoftmaxGradOp : AMP_SoftmaxGradBase<"log_softmax_grad"> {
  let summary = "log_softmax backward from the forward output";
  let description = [{
    `grad - exp(output) * sum(grad, axis)`.
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def AMP_AttentionMask : AnyTypeOf<[AMP_BoolTensor, AMP_FloatTensor]>;

// Both attention ops compute the same scores; docs/Attention.md and
// include/amp/Runtime/Attention.h define them.
class AMP_AttentionBase<string mnemonic, list<Trait> traits,
                        list<string> precisionAnswers>
    : AMP_ComputeOp<mnemonic, AMP_AllowPrecision,
                    !listconcat([AMP_F32Accumulation, AttrSizedOperandSegments],
                                traits),
                    !listconcat(["isF32CompatibleOperand", "estimateFlops"],
                                precisionAnswers)> {
  dag attentionAttrs = (ins F64Attr:$scale, UnitAttr:$causal,
                            DefaultValuedAttr<F64Attr, "0.0">:$dropout);
  let hasVerifier = 1;
}

def AMP_AttentionOp : AMP_AttentionBase<"attention",
    [DeclareOpInterfaceMethods<AMP_GradientOpInterface,
                               ["isDifferentiableOperand"]>],
    ["isStatisticResult"]> {
  let summary = "scaled dot-product attention without the score matrix";
  let description = [{
    `softmax(scale * query key^T + mask) value` for `query`
    `[B, Hq, Sq, D]`, `key` `[B, Hkv, Skv, D]` and `value`
    `[B, Hkv, Skv, Dv]`, with `Hq` a multiple of `Hkv` (query head `h` reads
    key and value head `h / (Hq / Hkv)`). `causal` hides key `j` from query
    `i` when `j > i` (PyTorch's `is_causal`). The optional `mask` is
    `[1|B, 1|Hq, Sq, Skv]`: `i1` keeps the keys where it is true (PyTorch's
    boolean `attn_mask`), a float mask is added to the scaled scores.
    `dropout` drops probabilities with amp.dropout's random stream of `seed`
    over the `[B, Hq, Sq, Skv]` probabilities (given iff `dropout > 0`).

    Besides the `[B, Hq, Sq, Dv]` output, returns the f32 log-sum-exp `lse`
    `[B, Hq, Sq]` of each query's scores, from which the backward recomputes
    the probabilities: no `Sq x Skv` tensor is kept, and the lowerings never
    hold one for all heads at once.

    ```mlir
    %o, %lse = amp.attention %q, %k, %v {scale = 0.125 : f64, causal}
        : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>,
           tensor<2x4x16x64xbf16>)
        -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
    ```
  }];
  let arguments = !con((ins AMP_FloatTensor:$query, AMP_FloatTensor:$key,
                            AMP_FloatTensor:$value,
                            Optional<AMP_AttentionMask>:$mask,
                            Optional<AMP_I64Scalar>:$seed),
                       attentionAttrs);
  let results = (outs AMP_FloatTensor:$output, AMP_F32Tensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? (`seed` $seed^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def AMP_AttentionGradOp : AMP_AttentionBase<"attention_grad", [],
    ["isStatisticOperand"]> {
  let summary = "attention backward from the saved log-sum-exp";
  let description = [{
    The gradients of `query`, `key` and `value` of the amp.attention that
    gave `output` and `lse`, from the output's gradient `grad`; same mask,
    seed and attributes. Recomputes the probabilities from `lse`.
  }];
  let arguments = !con((ins AMP_FloatTensor:$grad, AMP_FloatTensor:$query,
                            AMP_FloatTensor:$key, AMP_FloatTensor:$value,
                            AMP_FloatTensor:$output, AMP_F32Tensor:$lse,
                            Optional<AMP_AttentionMask>:$mask,
                            Optional<AMP_I64Scalar>:$seed),
                       attentionAttrs);
  let results = (outs AMP_FloatTensor:$query_grad, AMP_FloatTensor:$key_grad,
                      AMP_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $grad `,` $query `,` $key `,` $value `,` $output `,` $lse
    (`mask` $mask^)? (`seed` $seed^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def AMP_LayerNormOp : AMP_NormOp<"layer_norm", AMP_DenyPrecision,
                                 [AMP_F32Accumulation, AMP_Differentiable]> {
  let summary = "layer normalization over the dimensions from `axis` on";
  let description = [{
    Normalizes over `input` dimensions `[axis, rank)`; `weight` and `bias`
    have those dimensions' shape and the input's element type or `f32`.
    Also returns the f32 statistics `mean` and `rstd` (reciprocal standard
    deviation) with the leading dimensions' shape, for the backward.

    ```mlir
    %y, %mean, %rstd = amp.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-5 : f64}
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
        -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_FloatTensor:$weight,
                       AMP_FloatTensor:$bias,
                       DefaultValuedAttr<AMP_I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs AMP_FloatTensor:$output, AMP_F32Tensor:$mean,
                      AMP_F32Tensor:$rstd);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict `:`
    functional-type(operands, results)
  }];
}

def AMP_LayerNormGradOp : AMP_NormOp<"layer_norm_grad", AMP_DenyPrecision,
                                     [AMP_F32Accumulation]> {
  let summary = "layer_norm backward from the saved statistics";
  let arguments = (ins AMP_FloatTensor:$grad, AMP_FloatTensor:$input,
                       AMP_F32Tensor:$mean, AMP_F32Tensor:$rstd,
                       AMP_FloatTensor:$weight,
                       DefaultValuedAttr<AMP_I64Attr, "-1">:$axis);
  let results = (outs AMP_FloatTensor:$input_grad,
                      AMP_FloatTensor:$weight_grad,
                      AMP_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $mean `,` $rstd `,` $weight attr-dict `:`
    functional-type(operands, results)
  }];
}

def AMP_RmsNormOp : AMP_NormOp<"rms_norm", AMP_DenyPrecision,
                               [AMP_F32Accumulation, AMP_Differentiable]> {
  let summary = "root-mean-square normalization";
  let description = [{
    `input * rstd * weight` with `rstd = 1 / sqrt(mean(input^2) + epsilon)`
    over dimensions `[axis, rank)`; `rstd` is returned for the backward.
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_FloatTensor:$weight,
                       DefaultValuedAttr<AMP_I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-6">:$epsilon);
  let results = (outs AMP_FloatTensor:$output, AMP_F32Tensor:$rstd);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` functional-type(operands, results)
  }];
}

def AMP_RmsNormGradOp : AMP_NormOp<"rms_norm_grad", AMP_DenyPrecision,
                                   [AMP_F32Accumulation]> {
  let summary = "rms_norm backward from the saved statistic";
  let arguments = (ins AMP_FloatTensor:$grad, AMP_FloatTensor:$input,
                       AMP_F32Tensor:$rstd, AMP_FloatTensor:$weight,
                       DefaultValuedAttr<AMP_I64Attr, "-1">:$axis);
  let results = (outs AMP_FloatTensor:$input_grad,
                      AMP_FloatTensor:$weight_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $rstd `,` $weight attr-dict `:`
    functional-type(operands, results)
  }];
}

def AMP_GroupNormOp : AMP_NormOp<"group_norm", AMP_DenyPrecision,
                                 [AMP_F32Accumulation, AMP_Differentiable]> {
  let summary = "group normalization of `[N, C, ...]` in `num_groups` groups";
  let description = [{
    Statistics `mean` and `rstd` are `[N, num_groups]` f32; `weight` and
    `bias` are `[C]`.
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_FloatTensor:$weight,
                       AMP_FloatTensor:$bias, AMP_I64Attr:$num_groups,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs AMP_FloatTensor:$output, AMP_F32Tensor:$mean,
                      AMP_F32Tensor:$rstd);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict `:`
    functional-type(operands, results)
  }];
}

def AMP_GroupNormGradOp : AMP_NormOp<"group_norm_grad", AMP_DenyPrecision,
                                     [AMP_F32Accumulation]> {
  let summary = "group_norm backward from the saved statistics";
  let arguments = (ins AMP_FloatTensor:$grad, AMP_FloatTensor:$input,
                       AMP_F32Tensor:$mean, AMP_F32Tensor:$rstd,
                       AMP_FloatTensor:$weight, AMP_I64Attr:$num_groups);
  let results = (outs AMP_FloatTensor:$input_grad,
                      AMP_FloatTensor:$weight_grad,
                      AMP_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $mean `,` $rstd `,` $weight attr-dict `:`
    functional-type(operands, results)
  }];
}

def AMP_BatchNormOp : AMP_NormOp<"batch_norm", AMP_InferPrecision,
    [AMP_F32Accumulation,
     // The running statistics get no gradient.
     DeclareOpInterfaceMethods<AMP_GradientOpInterface,
                               ["isDifferentiableOperand"]>]> {
  let summary = "batch normalization of `[N, C, ...]` over all but `C`";
  let description = [{
    In training mode (the default) normalizes with the batch statistics,
    returns them (`saved_mean`, `saved_rstd`) for the backward, and returns
    the running statistics updated with `momentum` as PyTorch does (the
    running variance uses the unbiased batch variance). With
    `training = false` it normalizes with the running statistics, which it
    returns unchanged. All statistics are `[C]` f32.
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_FloatTensor:$weight,
                       AMP_FloatTensor:$bias, AMP_F32Tensor:$running_mean,
                       AMP_F32Tensor:$running_var,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                       DefaultValuedAttr<BoolAttr, "true">:$training);
  let results = (outs AMP_FloatTensor:$output, AMP_F32Tensor:$saved_mean,
                      AMP_F32Tensor:$saved_rstd,
                      AMP_F32Tensor:$new_running_mean,
                      AMP_F32Tensor:$new_running_var);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias `,` $running_mean `,` $running_var attr-dict
    `:` functional-type(operands, results)
  }];
}

def AMP_BatchNormGradOp : AMP_NormOp<"batch_norm_grad", AMP_InferPrecision,
                                     [AMP_F32Accumulation]> {
  let summary = "batch_norm (training mode) backward";
  let arguments = (ins AMP_FloatTensor:$grad, AMP_FloatTensor:$input,
                       AMP_F32Tensor:$saved_mean, AMP_F32Tensor:$saved_rstd,
                       AMP_FloatTensor:$weight);
  let results = (outs AMP_FloatTensor:$input_grad,
                      AMP_FloatTensor:$weight_grad,
                      AMP_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $saved_mean `,` $saved_rstd `,` $weight attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class AMP_Pool2DAttrs {
  dag poolAttrs = (ins DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding);
}

def AMP_MaxPool2DOp : AMP_ComputeOp<"max_pool2d", AMP_ClearPrecision,
    [SameOperandsAndResultElementType, AMP_Differentiable]>, AMP_Pool2DAttrs {
  let summary = "2-d max pooling (NCHW)";
  let description = [{
    ```mlir
    %0 = amp.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
        : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = !con((ins AMP_FloatTensor:$input), poolAttrs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def AMP_AvgPool2DOp : AMP_ComputeOp<"avg_pool2d", AMP_InferPrecision,
    [SameOperandsAndResultElementType, AMP_F32Accumulation,
     AMP_Differentiable]>, AMP_Pool2DAttrs {
  let summary = "2-d average pooling (NCHW)";
  let description = [{
    Padding counts in the divisor unless `exclude_padding` is set
    (PyTorch's `count_include_pad = False`).
  }];
  let arguments = !con((ins AMP_FloatTensor:$input), poolAttrs,
                       (ins UnitAttr:$exclude_padding));
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def AMP_MaxPool2DGradOp : AMP_ComputeOp<"max_pool2d_grad", AMP_ClearPrecision,
    [SameOperandsAndResultElementType]>, AMP_Pool2DAttrs {
  let summary = "max_pool2d backward: routes each gradient to its maximum";
  let arguments = !con((ins AMP_FloatTensor:$grad, AMP_FloatTensor:$input),
                       poolAttrs);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input attr-dict `:` type($grad) `,` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def AMP_AvgPool2DGradOp : AMP_ComputeOp<"avg_pool2d_grad", AMP_InferPrecision,
    [SameOperandsAndResultElementType, AMP_F32Accumulation]>, AMP_Pool2DAttrs {
  let summary = "avg_pool2d backward; the result type is the input's";
  let arguments = !con((ins AMP_FloatTensor:$grad), poolAttrs,
                       (ins UnitAttr:$exclude_padding));
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def AMP_GlobalAvgPoolOp : AMP_ComputeOp<"global_avg_pool", AMP_DenyPrecision,
    [SameOperandsAndResultElementType, AMP_F32Accumulation,
     AMP_Differentiable]> {
  let summary = "mean over the spatial dimensions: `[N, C, ...]` to `[N, C, 1...]`";
  let arguments = (ins AMP_FloatTensor:$input);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def AMP_ReshapeOp : AMP_ComputeOp<"reshape", AMP_ClearPrecision,
    [SameOperandsAndResultElementType, AMP_Differentiable]> {
  let summary = "reshape to a type with the same number of elements";
  let description = [{
    ```mlir
    %0 = amp.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins AMP_AnyTensor:$input);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_TransposeOp : AMP_ComputeOp<"transpose", AMP_ClearPrecision,
    [SameOperandsAndResultElementType, AMP_Differentiable]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %0 = amp.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins AMP_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_BroadcastOp : AMP_ComputeOp<"broadcast", AMP_ClearPrecision,
    [SameOperandsAndResultElementType, AMP_Differentiable]> {
  let summary = "broadcast to a larger shape (NumPy rules)";
  let description = [{
    Aligns the input's dimensions with the result's trailing ones; each
    input dimension is 1 or equal to the result's.

    ```mlir
    %0 = amp.broadcast %b : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AMP_AnyTensor:$input);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_SliceOp : AMP_ComputeOp<"slice", AMP_ClearPrecision,
    [SameOperandsAndResultElementType, AMP_Differentiable]> {
  let summary = "static strided slice";
  let description = [{
    Takes `[starts[i], limits[i])` with `strides[i]` along each dimension.
  }];
  let arguments = (ins AMP_AnyTensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits,
                       DenseI64ArrayAttr:$strides);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def AMP_SliceGradOp : AMP_ComputeOp<"slice_grad", AMP_ClearPrecision,
    [SameOperandsAndResultElementType]> {
  let summary = "slice backward: scatters `grad` into zeros of the input's type";
  let arguments = (ins AMP_FloatTensor:$grad, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits,
                       DenseI64ArrayAttr:$strides);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def AMP_ConcatOp : AMP_ComputeOp<"concat", AMP_ClearPrecision,
    [SameOperandsAndResultElementType, AMP_Differentiable]> {
  let summary = "concatenate along an axis";
  let arguments = (ins Variadic<AMP_AnyTensor>:$inputs, AMP_I64Attr:$axis);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_GatherOp : AMP_ComputeOp<"gather", AMP_ClearPrecision,
                                 [AMP_Differentiable]> {
  let summary = "gather slices along an axis (ONNX Gather; embedding lookup)";
  let description = [{
    The result shape is `input[:axis] + indices + input[axis+1:]`. An
    embedding lookup is a gather along axis 0 of the table.

    `padding_idx` (axis 0 only, `0 <= padding_idx < input.shape[0]`) is
    PyTorch's `nn.Embedding(padding_idx=p)`: the forward still reads row
    `p`, but the index entries equal to `p` contribute no gradient (the
    autodiff rule passes it to `amp.gather_grad`), so that row never trains.

    A negative index counts from the end (ONNX's Gather), unless
    `non_negative` is set (PyTorch's embedding and index_select): then the
    valid indices are `[0, n)`. An index outside the valid range is
    reported by the step (amp-check-indices).

    ```mlir
    %0 = amp.gather %table, %ids {axis = 0 : i64}
        : (tensor<100x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>
    %1 = amp.gather %table, %ids {axis = 0 : i64, padding_idx = 0 : i64}
        : (tensor<100x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>
    ```
  }];
  let arguments = (ins AMP_AnyTensor:$input, AMP_IntegerTensor:$indices,
                       DefaultValuedAttr<AMP_I64Attr, "0">:$axis,
                       OptionalAttr<AMP_I64Attr>:$padding_idx,
                       UnitAttr:$non_negative);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_GatherGradOp : AMP_ComputeOp<"gather_grad", AMP_InferPrecision,
    [AMP_F32Accumulation, AMP_WidenableResults]> {
  let summary = "gather backward: scatter-add `grad` into the input's type";
  let description = [{
    Index entries equal to `padding_idx` (axis 0 only, as on `amp.gather`)
    are skipped: that row of the result is zero (PyTorch's
    `embedding_dense_backward` with `padding_idx`).
  }];
  let arguments = (ins AMP_FloatTensor:$grad, AMP_IntegerTensor:$indices,
                       DefaultValuedAttr<AMP_I64Attr, "0">:$axis,
                       OptionalAttr<AMP_I64Attr>:$padding_idx);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def AMP_GatherElementsOp : AMP_ComputeOp<"gather_elements",
    AMP_ClearPrecision, [AMP_Differentiable]> {
  let summary = "gather elements along an axis (torch.gather, ONNX GatherElements)";
  let description = [{
    `indices` has the rank of `input`, and the result the shape of
    `indices`: `result[i] = input[i with i[axis] replaced by indices[i]]`.
    Away from `axis`, `indices` may be shorter than `input` (as
    torch.gather allows). A negative index counts from the end (ONNX),
    unless `non_negative` is set (torch.gather): the valid indices are then
    `[0, n)` rather than `[-n, n)`, `n = input.shape[axis]`. An index
    outside them is reported by the step (amp-check-indices).

    ```mlir
    %0 = amp.gather_elements %x, %idx {axis = 1 : i64}
        : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins AMP_AnyTensor:$input, AMP_IntegerTensor:$indices,
                       DefaultValuedAttr<AMP_I64Attr, "0">:$axis,
                       UnitAttr:$non_negative);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def AMP_ScatterAddElementsOp : AMP_ComputeOp<"scatter_add_elements",
    AMP_InferPrecision, [AMP_F32Accumulation, AMP_WidenableResults]> {
  let summary = "gather_elements backward: scatter-add `grad` into the result";
  let description = [{
    A zero tensor of the result's type into which every element of `grad`
    is added at the position `amp.gather_elements` read it from
    (`torch.Tensor.scatter_add_` on zeros): positions read several times
    get the sum.

    ```mlir
    %0 = amp.scatter_add_elements %dy, %idx {axis = 1 : i64}
        : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$grad, AMP_IntegerTensor:$indices,
                       DefaultValuedAttr<AMP_I64Attr, "0">:$axis);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

// Not differentiable and never retyped: amp-check-indices adds it to a
// finished step (include/amp/Runtime/NonfiniteABI.h, index range checks).
def AMP_CheckIndicesOp : AMP_FixedOp<"check_indices"> {
  let summary = "whether integer indices leave [lower, upper), and their range";
  let description = [{
    The run-time range check of the indices an op reads through (added by
    `amp-check-indices`): `out_of_range` is set when an element of
    `indices` is below `lower` or not below `upper`; `range` holds the least
    and the greatest element, from which the runtime names an offending
    value. The ops that read through indices clamp them so that no access
    leaves a tensor; this op is how the step reports what PyTorch raises an
    IndexError for.

    ```mlir
    %bad, %range = amp.check_indices %ids {lower = -100 : i64, upper = 100 : i64}
        : tensor<2x8xi64> -> tensor<i1>, tensor<2xi64>
    ```
  }];
  let arguments = (ins AMP_IntegerTensor:$indices, AMP_I64Attr:$lower,
                       AMP_I64Attr:$upper);
  let results = (outs AMP_I1Scalar:$out_of_range,
                      RankedTensorOf<[I64]>:$range);
  let assemblyFormat = [{
    $indices attr-dict `:` type($indices) `->` type($out_of_range) `,`
    type($range)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$indices, "int64_t":$lower,
                   "int64_t":$upper)>
  ];
}

def AMP_ConstantOp : AMP_Op<"constant", [ConstantLike, Pure,
    AMP_ClearPrecision, AMP_PrecisionOpInterface,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor constant";
  let description = [{
    ```mlir
    %0 = amp.constant dense<1.0> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AMP_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def AMP_DropoutOp : AMP_ComputeOp<"dropout", AMP_InferPrecision,
    [AllTypesMatch<["input", "output"]>, AllShapesMatch<["input", "mask"]>,
     AMP_Differentiable]> {
  let summary = "inverted dropout with an explicit seed";
  let description = [{
    Zeroes each element with probability `probability` and scales the rest
    by `1 / (1 - probability)`. The random stream is a pure function of
    `seed` (a 0-d i64 the step takes as an argument), so a step stays a
    pure function. The keep `mask` is returned for the backward.
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_I64Scalar:$seed,
                       F64Attr:$probability);
  let results = (outs AMP_FloatTensor:$output, AMP_BoolTensor:$mask);
  let assemblyFormat = [{
    $input `,` $seed attr-dict `:` type($input) `->` type($mask)
  }];
  let hasVerifier = 1;
}

def AMP_DropoutGradOp : AMP_ComputeOp<"dropout_grad", AMP_InferPrecision,
    [AllTypesMatch<["grad", "result"]>, AllShapesMatch<["grad", "mask"]>]> {
  let summary = "dropout backward from the saved keep mask";
  let arguments = (ins AMP_FloatTensor:$grad, AMP_BoolTensor:$mask,
                       F64Attr:$probability);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $mask attr-dict `:` type($grad) `,` type($mask)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Activation gradients
//===----------------------------------------------------------------------===//

def AMP_ReluGradOp : AMP_ActivationGradOp<"relu_grad", AMP_ClearPrecision> {
  let summary = "relu backward: `grad` where `input > 0`, else 0";
}
def AMP_SiluGradOp : AMP_ActivationGradOp<"silu_grad", AMP_InferPrecision> {
  let summary = "silu backward from the forward input";
}
def AMP_SigmoidGradOp : AMP_ActivationGradOp<"sigmoid_grad",
                                             AMP_InferPrecision> {
  let summary = "sigmoid backward from the forward output: `grad * y * (1 - y)`";
}
def AMP_TanhGradOp : AMP_ActivationGradOp<"tanh_grad", AMP_InferPrecision> {
  let summary = "tanh backward from the forward output: `grad * (1 - y^2)`";
}
def AMP_GeluGradOp : AMP_ComputeOp<"gelu_grad", AMP_InferPrecision,
                                   [SameOperandsAndResultType, Elementwise]> {
  let summary = "gelu backward from the forward input";
  let arguments = (ins AMP_FloatTensor:$grad, AMP_FloatTensor:$forward,
      DefaultValuedAttr<AMP_GeluApproximation,
                        "::mlir::amp::GeluApproximation::None">:$approximate);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $forward (`approximate` `=` $approximate^)? attr-dict `:`
    type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// The loss is f32; computed in f32, the op widens its logits itself.
def AMP_CrossEntropyOp : AMP_ComputeOp<"cross_entropy", AMP_DenyPrecision,
    [AMP_F32Accumulation, AMP_Differentiable],
    ["getOperandPrecisionRole", "getResultPrecisionRole"]> {
  let summary = "mean softmax cross-entropy of `[N, C]` logits and `[N]` labels";
  let description = [{
    ```mlir
    %loss = amp.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi64>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$logits, AMP_IntegerTensor:$labels);
  let results = (outs AMP_F32Scalar:$loss);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels)
  }];
  let hasVerifier = 1;
}

// The 0-d output gradient `grad` of a loss is f32.
def AMP_CrossEntropyGradOp : AMP_ComputeOp<"cross_entropy_grad",
    AMP_DenyPrecision, [AMP_F32Accumulation,
                        AllTypesMatch<["logits", "result"]>],
    ["getOperandPrecisionRole"]> {
  let summary = "cross_entropy backward: `(softmax(logits) - onehot) * grad / N`";
  let arguments = (ins AMP_F32Scalar:$grad, AMP_FloatTensor:$logits,
                       AMP_IntegerTensor:$labels);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $logits `,` $labels attr-dict `:` type($logits) `,`
    type($labels)
  }];
  let hasVerifier = 1;
}

def AMP_MseLossOp : AMP_ComputeOp<"mse_loss", AMP_DenyPrecision,
    [AMP_F32Accumulation, SameTypeOperands, AMP_Differentiable],
    ["getResultPrecisionRole"]> {
  let summary = "mean squared error";
  let arguments = (ins AMP_FloatTensor:$prediction, AMP_FloatTensor:$target);
  let results = (outs AMP_F32Scalar:$loss);
  let assemblyFormat = [{
    $prediction `,` $target attr-dict `:` type($prediction)
  }];
}

def AMP_MseLossGradOp : AMP_ComputeOp<"mse_loss_grad", AMP_DenyPrecision,
    [AMP_F32Accumulation,
     AllTypesMatch<["prediction", "target", "result"]>],
    ["getOperandPrecisionRole"]> {
  let summary = "mse_loss backward: `2 * (prediction - target) * grad / numel`";
  let arguments = (ins AMP_F32Scalar:$grad, AMP_FloatTensor:$prediction,
                       AMP_FloatTensor:$target);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $prediction `,` $target attr-dict `:` type($prediction)
  }];
}

//===----------------------------------------------------------------------===//
// Autodiff seed, precision cast
//===----------------------------------------------------------------------===//

def AMP_SeedOp : AMP_FixedOp<"seed"> {
  let summary = "the backward seed d loss / d loss (1.0)";
  let description = [{
    Where the backward pass starts: a 0-d f32 one, tied to the loss it
    differentiates. Loss scaling replaces its use by `amp.scale_seed`.

    ```mlir
    %dloss = amp.seed %loss
    ```
  }];
  let arguments = (ins AMP_F32Scalar:$loss);
  let results = (outs AMP_F32Scalar:$result);
  let assemblyFormat = "$loss attr-dict";
}

// Any float input: casts are what the passes insert.
def AMP_CastOp : AMP_FixedOp<"cast",
    [SameOperandsAndResultShape, AMP_Differentiable],
    ["isFlexibleOperand", "estimateFlops"]> {
  let summary = "convert between f32, f16 and bf16";
  let description = [{
    Rounds to nearest even when narrowing. Folds a cast to the same type,
    and a cast of a cast when the inner cast is exact (a widening).

    ```mlir
    %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$input);
  let results = (outs AMP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// FP8 (docs/Precision.md, section "FP8")
//===----------------------------------------------------------------------===//

def AMP_Fp8QuantizeOp : AMP_FixedOp<"fp8_quantize"> {
  let summary = "scale, saturate and round a tensor to FP8; its amax";
  let description = [{
    `result = round(clamp(input * scale, -max, max))` in the result's FP8
    format (max 448 for f8E4M3FN, 57344 for f8E5M2; round to nearest even;
    the product is taken in f32; a finite input saturates, a NaN or
    infinite one becomes NaN, so that it is seen downstream rather than
    trained on as +-max), and `amax = max |input|`
    over all elements in f32 (NaN when any element is NaN), which the
    delayed scaling of `amp-fp8` records for the next steps' scales.

    ```mlir
    %q, %amax = amp.fp8_quantize %x, %scale
        : tensor<64x32xbf16> -> tensor<64x32xf8E4M3FN>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$input, AMP_F32Scalar:$scale);
  let results = (outs AMP_Float8Tensor:$result, AMP_F32Scalar:$amax);
  let assemblyFormat = [{
    $input `,` $scale attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def AMP_Fp8MatmulOp : AMP_FixedOp<"fp8_matmul", [], ["estimateFlops"]> {
  let summary = "matrix product of FP8 operands with their scale inverses";
  let description = [{
    `result[i][j] = round((sum_l op(lhs)[i][l] * op(rhs)[l][j])
    * (lhs_scale_inv * rhs_scale_inv) + bias[j])`: the products and their
    sum in f32, the scale inverses multiplied together first, the optional
    bias (`[n]`, of the result type) added in f32, and one rounding to the
    result type (bf16 or f32). 2-D operands; `op` transposes the last two
    dimensions when `transpose_lhs` / `transpose_rhs` is set. The operand
    formats are e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3 (what cuBLASLt's FP8
    GEMMs take). `fast_accumulation` lets the GPU's GEMM use its faster,
    less precise accumulation (forward GEMMs); the CPU backend and the
    emulated device accumulate in f32 either way.

    ```mlir
    %y = amp.fp8_matmul %dy, %w, %dy_inv, %w_inv
        : tensor<64x32xf8E5M2>, tensor<32x16xf8E4M3FN> -> tensor<64x16xbf16>
    ```
  }];
  let arguments = (ins AMP_Float8Tensor:$lhs, AMP_Float8Tensor:$rhs,
                       AMP_F32Scalar:$lhs_scale_inv,
                       AMP_F32Scalar:$rhs_scale_inv,
                       Optional<AMP_BF16OrF32Tensor>:$bias,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       UnitAttr:$fast_accumulation);
  let results = (outs AMP_BF16OrF32Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $lhs_scale_inv `,` $rhs_scale_inv (`,` $bias^)?
    attr-dict `:` type($lhs) `,` type($rhs) (`,` type($bias)^)?
    `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def AMP_ScaleSeedOp : AMP_FixedOp<"scale_seed"> {
  let summary = "scale the backward seed by the loss scale";
  let description = [{
    ```mlir
    %scaled = amp.scale_seed %seed, %scale
    ```
  }];
  let arguments = (ins AMP_F32Scalar:$seed, AMP_F32Scalar:$scale);
  let results = (outs AMP_F32Scalar:$result);
  let assemblyFormat = "$seed `,` $scale attr-dict";
}

// A gradient with an f32 result is flexible: it is widened exactly.
def AMP_UnscaleGradsOp : AMP_FixedOp<"unscale_grads", [],
                                     ["isFlexibleOperand"]> {
  let summary = "unscale every gradient and report any non-finite value";
  let description = [{
    One pass over all gradients: multiplies each by `1 / scale` (optionally
    widening it to f32) and sets `found_inf` if any element of any
    gradient is infinite or NaN.

    ```mlir
    %g0u, %g1u, %found_inf = amp.unscale_grads %scale, %g0, %g1
        : tensor<4x4xf16>, tensor<4xf32> -> tensor<4x4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AMP_F32Scalar:$scale,
                       Variadic<AMP_FloatTensor>:$gradients);
  let results = (outs Variadic<AMP_FloatTensor>:$unscaled,
                      AMP_I1Scalar:$found_inf);
  let assemblyFormat = [{
    $scale `,` $gradients attr-dict `:` type($gradients) `->` type($unscaled)
  }];
  let hasVerifier = 1;
}

def AMP_UpdateScaleOp : AMP_FixedOp<"update_scale"> {
  let summary = "dynamic loss-scale update with hysteresis";
  let description = [{
    GradScaler's rule with Megatron's hysteresis. On overflow
    (`found_inf`) the growth tracker resets and the hysteresis tracker
    counts down; the scale backs off (clamped to `min_scale`) once it
    reaches zero. Otherwise the growth tracker counts up; after
    `growth_interval` clean steps the scale grows (clamped to `max_scale`,
    never to infinity) and the hysteresis tracker is reset to `hysteresis`.
    With `hysteresis = 1` this is exactly GradScaler.

    ```mlir
    %s, %g, %h = amp.update_scale %scale, %growth, %hyst, %found_inf
        {growth_interval = 2000 : i64}
    ```
  }];
  let arguments = (ins AMP_F32Scalar:$scale, AMP_I64Scalar:$growth_tracker,
                       AMP_I64Scalar:$hysteresis_tracker,
                       AMP_I1Scalar:$found_inf,
                       DefaultValuedAttr<F64Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F64Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<AMP_I64Attr, "2000">:$growth_interval,
                       DefaultValuedAttr<AMP_I64Attr, "1">:$hysteresis,
                       DefaultValuedAttr<F64Attr, "1.0">:$min_scale,
                       DefaultValuedAttr<F64Attr, "16777216.0">:$max_scale);
  let results = (outs AMP_F32Scalar:$new_scale,
                      AMP_I64Scalar:$new_growth_tracker,
                      AMP_I64Scalar:$new_hysteresis_tracker);
  let assemblyFormat = [{
    $scale `,` $growth_tracker `,` $hysteresis_tracker `,` $found_inf
    attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

def AMP_ClipGradNormOp : AMP_FixedOp<"clip_grad_norm", [
    RangedTypesMatchWith<"clipped gradients have the gradients' types",
                         "gradients", "clipped", "$_self">]> {
  let summary = "clip gradients by their global L2 norm";
  let description = [{
    Computes the L2 norm of all gradients together (in f32) and scales each
    by `min(1, max_norm / (norm + 1e-6))`, as
    `torch.nn.utils.clip_grad_norm_`. Returns the clipped gradients and the
    norm before clipping.
  }];
  let arguments = (ins Variadic<AMP_FloatTensor>:$gradients, F64Attr:$max_norm);
  let results = (outs Variadic<AMP_FloatTensor>:$clipped,
                      AMP_F32Scalar:$total_norm);
  let assemblyFormat = [{
    $gradients attr-dict `:` type($gradients)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$gradients, "double":$max_norm)>
  ];
}

// The gradient may have any float type: the update widens it to f32.
def AMP_SgdUpdateOp : AMP_FixedOp<"sgd_update", [AttrSizedOperandSegments],
                                  ["isFlexibleOperand"]> {
  let summary = "SGD step (momentum, dampening, Nesterov, weight decay)";
  let description = [{
    `torch.optim.SGD`'s update of one parameter. `momentum_buffer` is
    present exactly when `momentum` is non-zero, and then the new buffer is
    the second result. When `found_inf` is present and true the parameter
    and buffer are returned unchanged: the step is skipped on the device.
    The buffer is used as given: a zero buffer reproduces PyTorch's first
    step (`buf = grad`) when `dampening` is 0; otherwise the training step
    initialises the buffer from the first gradient. The buffer has the
    parameter's type.

    ```mlir
    %p1, %m1 = amp.sgd_update %p, %g, momentum_buffer %m, lr %lr
        {momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$param, AMP_FloatTensor:$grad,
                       Optional<AMP_FloatTensor>:$momentum_buffer,
                       AMP_F32Scalar:$lr, Optional<AMP_I1Scalar>:$found_inf,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       UnitAttr:$nesterov,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs AMP_FloatTensor:$new_param,
                      Optional<AMP_FloatTensor>:$new_momentum_buffer);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def AMP_AdamWUpdateOp : AMP_FixedOp<"adamw_update",
    [AllTypesMatch<["param", "new_param"]>,
     AllTypesMatch<["exp_avg", "exp_avg_sq", "new_exp_avg",
                    "new_exp_avg_sq"]>], ["isFlexibleOperand"]> {
  let summary = "AdamW step with bias correction and decoupled weight decay";
  let description = [{
    `torch.optim.AdamW`'s update of one parameter. `step` is the 1-based
    number of this update (used for bias correction). When `found_inf` is
    present and true, the parameter and moments are returned unchanged.

    ```mlir
    %p1, %m1, %v1 = amp.adamw_update %p, %g, %m, %v, step %t, lr %lr
        {weight_decay = 0.01 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$param, AMP_FloatTensor:$grad,
                       AMP_FloatTensor:$exp_avg, AMP_FloatTensor:$exp_avg_sq,
                       AMP_I64Scalar:$step, AMP_F32Scalar:$lr,
                       Optional<AMP_I1Scalar>:$found_inf,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.01">:$weight_decay);
  let results = (outs AMP_FloatTensor:$new_param,
                      AMP_FloatTensor:$new_exp_avg,
                      AMP_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` `step` $step `,`
    `lr` $lr (`,` `found_inf` $found_inf^)? attr-dict `:` type($param) `,`
    type($grad) `,` type($exp_avg)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data parallelism (docs/DataParallel.md)
//===----------------------------------------------------------------------===//

def AMP_ReductionKind : I32EnumAttr<"ReductionKind",
    "how an all-reduce combines the ranks' tensors", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Mean", 1, "mean">
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}
def AMP_ReductionKindAttr : AMP_EnumAttr<AMP_ReductionKind, "reduction">;

def AMP_CollectiveType : TypeDef<AMP_Dialect, "Collective"> {
  let mnemonic = "collective";
  let summary = "an all-reduce in flight";
  let description = [{
    The handle `amp.all_reduce_start` returns and `amp.all_reduce_wait`
    consumes: communication runs between the two.
  }];
}

// Collectives are not Pure: where they run is what the data-parallel pass
// decides (start early, wait late), and every rank must run the same
// collectives in the same order, so no pass may move, merge or drop one.
// Their types are fixed like loss scaling's.
class AMP_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : AMP_Op<mnemonic, !listconcat([MemoryEffects<[MemWrite]>,
          DeclareOpInterfaceMethods<AMP_FixedPrecisionOpInterface>],
          traits)>;

def AMP_AllReduceStartOp : AMP_CollectiveOp<"all_reduce_start",
                                              [AttrSizedOperandSegments]> {
  let summary = "start summing or averaging a bucket of tensors over ranks";
  let description = [{
    Starts a non-blocking all-reduce of `inputs` (one bucket, of any float
    types: the runtime reduces in f32) over the data-parallel ranks and
    returns its handle; the matching `amp.all_reduce_wait` returns the
    results. Work between the two overlaps the communication. `mean`
    divides the sum by the number of ranks. When `active` is given and
    false, nothing is communicated and the wait returns `inputs` unchanged
    (the micro-batches of gradient accumulation that do not complete an
    update, as PyTorch DDP's `no_sync`); every rank must pass the same value.

    ```mlir
    %h = amp.all_reduce_start mean %g0, %g1 : tensor<4x8xf16>, tensor<4xf32>
    ...
    %r:2 = amp.all_reduce_wait %h : tensor<4x8xf16>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AMP_ReductionKindAttr:$kind,
                       Variadic<AMP_FloatTensor>:$inputs,
                       Optional<AMP_I1Scalar>:$active);
  let results = (outs AMP_CollectiveType:$handle);
  let assemblyFormat = [{
    $kind $inputs (`active` $active^)? attr-dict `:` type($inputs)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The wait that completes this all-reduce (the verifier ensures one).
    AllReduceWaitOp getWait();
  }];
}

def AMP_AllReduceWaitOp : AMP_CollectiveOp<"all_reduce_wait"> {
  let summary = "wait for an all-reduce and return its results";
  let description = [{
    Blocks until the all-reduce of `handle` completed on this rank and
    returns the reduced tensors, with the types of the start's inputs.
  }];
  let arguments = (ins AMP_CollectiveType:$handle);
  let results = (outs Variadic<AMP_FloatTensor>:$results);
  let assemblyFormat = "$handle attr-dict `:` type($results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The all-reduce this wait completes (the verifier ensures one).
    AllReduceStartOp getStart();
  }];
}

def AMP_AllReduceAnyOp : AMP_CollectiveOp<"all_reduce_any"> {
  let summary = "whether a 0-d i1 flag is set on any rank";
  let description = [{
    The logical or (max) of `flag` over the data-parallel ranks: the
    found_inf of loss scaling, so that every rank takes the same skip
    decision and the same new scale. Blocking: everything after it depends
    on it. With `active` false it returns `flag` without communicating.

    ```mlir
    %any = amp.all_reduce_any %found_inf
    ```
  }];
  let arguments = (ins AMP_I1Scalar:$flag, Optional<AMP_I1Scalar>:$active);
  let results = (outs AMP_I1Scalar:$result);
  let assemblyFormat = "$flag (`active` $active^)? attr-dict";
}

#endif // AMP_DIALECT_AMP_IR_AMPOPS_TD
