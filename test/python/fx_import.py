# The torch.export importer (python/amp/fx) on real exporter output: each op
# family's handlers on small modules, the roles the graph signature gives
# (trainable and frozen parameters, buffers, mutated buffers, constants),
# and its errors (the op, the module path and the user's source line).
# REQUIRES: torch2
# RUN: %amp_python2 %s | FileCheck %s
import torch
import torch.nn as nn
import torch.nn.functional as F

import amp
from amp import fx


def show(name, model, *inputs):
    print("// case: " + name)
    print(fx.to_mlir(model, inputs, input_names=["x"]))


class Roles(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.frozen = nn.Linear(3, 3)
        self.frozen.requires_grad_(False)
        self.bn = nn.BatchNorm1d(3)
        self.register_buffer("table", torch.ones(3))

    def forward(self, x):
        return self.bn(self.frozen(self.fc(x))) * self.table


# CHECK-LABEL: // case: roles
# CHECK: %x: tensor<2x4xf32> {amp.name = "x", amp.role = #amp.role<input>}
# CHECK-NEXT: {amp.name = "fc.weight", amp.role = #amp.role<parameter>}
# CHECK-NEXT: {amp.name = "fc.bias", amp.role = #amp.role<parameter>}
# CHECK-NEXT: {amp.name = "frozen.weight", amp.role = #amp.role<buffer>}
# CHECK-NEXT: {amp.name = "frozen.bias", amp.role = #amp.role<buffer>}
# CHECK-NEXT: {amp.name = "bn.weight", amp.role = #amp.role<parameter>}
# CHECK: {amp.name = "table", amp.role = #amp.role<buffer>}
# CHECK: -> (tensor<2x3xf32> {amp.name = "output", amp.role = #amp.role<output>}, tensor<3xf32> {amp.name = "bn.running_mean", amp.role = #amp.role<buffer>}, tensor<3xf32> {amp.name = "bn.running_var", amp.role = #amp.role<buffer>})
# CHECK-NOT: num_batches_tracked
# CHECK: "amp.linear"({{.*}}) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> (tensor<2x3xf32>) loc("aten.linear in module 'fc'
# CHECK: "amp.batch_norm"({{.*}}) {epsilon = {{.*}} : f64, momentum = {{.*}} : f64, training = true}
show("roles", Roles(), torch.randn(2, 4))


class Elementwise(nn.Module):
    def forward(self, x):
        y = torch.where(x > 0, x * 2.0 + 1.0, -x)
        return F.gelu(y, approximate="tanh") + F.silu(x).pow(2) - \
            torch.sigmoid(x) / torch.exp(x)


# CHECK-LABEL: // case: elementwise
# CHECK: "amp.compare"({{.*}}) {direction = 4 : i32} : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xi1>)
# CHECK: "amp.where"
# CHECK: "amp.gelu"({{.*}}) {approximate = 1 : i32}
# CHECK: "amp.silu"
# CHECK: "amp.mul"
# CHECK: "amp.sigmoid"
# CHECK: "amp.exp"
# CHECK: "amp.div"
show("elementwise", Elementwise(), torch.randn(2, 4))


class Shapes(nn.Module):
    def forward(self, x):
        a, b = x.split(2, dim=1)
        y = torch.cat([b, a], dim=1).transpose(0, 1)
        return y[1:3].reshape(4).unsqueeze(0).expand(3, 4)


# CHECK-LABEL: // case: shapes
# CHECK: "amp.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 2, 2>, strides = array<i64: 1, 1>}
# CHECK: "amp.slice"(%x) {starts = array<i64: 0, 2>, limits = array<i64: 2, 4>, strides = array<i64: 1, 1>}
# CHECK: "amp.concat"({{.*}}) {axis = 1 : i64}
# CHECK: "amp.transpose"({{.*}}) {permutation = array<i64: 1, 0>}
# CHECK: "amp.reshape"
# CHECK: "amp.broadcast"({{.*}}) : (tensor<1x4xf32>) -> (tensor<3x4xf32>)
show("shapes", Shapes(), torch.randn(2, 4))


class Masked(nn.Module):
    """A causal mask built in the forward: computed at import time."""

    def forward(self, x):
        T = x.shape[1]
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        return x.masked_fill(mask, float("-inf")).softmax(-1)


# CHECK-LABEL: // case: masked
# CHECK: "amp.constant"() {value = dense<{{\[\[}}false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>}
# CHECK: "amp.where"
# CHECK: "amp.softmax"({{.*}}) {axis = -1 : i64}
show("masked", Masked(), torch.randn(2, 3, 3))


class Attention(nn.Module):
    def forward(self, x):
        return F.scaled_dot_product_attention(x, x, x, is_causal=True)


# One amp.attention (no score matrix): [H, S, D] operands get a batch of 1,
# the default scale is 1 / sqrt(8).
# CHECK-LABEL: // case: attention
# CHECK: "amp.reshape"(%x) : (tensor<2x4x8xf32>) -> (tensor<1x2x4x8xf32>)
# 0x3FD6A09E667F3BCC = 1 / sqrt(8).
# CHECK: %[[A:.*]]:2 = "amp.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {scale = 0x3FD6A09E667F3BCC : f64, causal, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
# CHECK: "amp.reshape"(%[[A]]#0) : (tensor<1x2x4x8xf32>) -> (tensor<2x4x8xf32>)
# CHECK-NOT: amp.softmax
show("attention", Attention(), torch.randn(2, 4, 8))


class MaskedAttention(nn.Module):
    def forward(self, q, k, v, keep):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=keep,
                                              dropout_p=0.1, enable_gqa=True)


# A per-batch padding mask [B, 1, 1, S] broadcast over the queries; grouped
# query heads; dropout draws from a seed of the step.
# CHECK-LABEL: // case: masked_attention
# CHECK: "amp.broadcast"(%{{.*}}) : (tensor<2x1x1x6xi1>) -> (tensor<2x1x5x6xi1>)
# CHECK: "amp.attention"(%q, %k, %v, %{{.*}}, %dropout_seed_{{[0-9]+}}) {scale = 0x3FE0000000000000 : f64, dropout = 0x3FB999999999999A : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<2x4x5x4xf32>, tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>, tensor<2x1x5x6xi1>, tensor<i64>) -> (tensor<2x4x5x4xf32>, tensor<2x4x5xf32>)
if hasattr(F, "scaled_dot_product_attention") and "enable_gqa" in \
        F.scaled_dot_product_attention.__doc__:
    print("// case: masked_attention")
    print(fx.to_mlir(MaskedAttention(), (
        torch.randn(2, 4, 5, 4), torch.randn(2, 2, 6, 4),
        torch.randn(2, 2, 6, 4), torch.rand(2, 1, 1, 6) > 0.3),
        input_names=["q", "k", "v", "keep"]))


class Convolutional(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, stride=2, padding=1, groups=2)
        self.pool = nn.AvgPool2d(2)

    def forward(self, x):
        y = F.max_pool2d(self.conv(x), 2, 1)
        return F.adaptive_avg_pool2d(self.pool(x), 1) + y.mean((2, 3), True)


# CHECK-LABEL: // case: convolutional
# CHECK: "amp.conv2d"({{.*}}) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64}
# CHECK: "amp.max_pool2d"({{.*}}) {kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>}
# CHECK: "amp.avg_pool2d"
# CHECK: "amp.reduce_mean"({{.*}}) {axes = array<i64: 2, 3>, keep_dims}
# CHECK: "amp.reduce_mean"({{.*}}) {axes = array<i64: 2, 3>, keep_dims}
show("convolutional", Convolutional(), torch.randn(1, 2, 8, 8))


class Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4, padding_idx=1)
        self.out = nn.Linear(4, 10, bias=False)
        self.out.weight = self.embed.weight  # tied: one parameter

    def forward(self, x):
        return self.out(self.embed(x))


# CHECK-LABEL: // case: embedding
# CHECK: %x: tensor<2x3xi64>
# CHECK-NEXT: amp.role = #amp.role<parameter>
# CHECK-NOT: amp.role = #amp.role<parameter>
# CHECK: "amp.gather"({{.*}}, %x) {axis = 0 : i64, non_negative, padding_idx = 1 : i64}
show("embedding", Embedding(), torch.randint(0, 10, (2, 3)))


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(4, 4), nn.Softsign())

    def forward(self, x):
        return self.inner(x)


def attempt(what, call):
    try:
        call()
        print(what, "-> no error")
    except Exception as error:
        print(what, "->", type(error).__name__ + ":", error)


# CHECK-LABEL: unsupported op ->
# CHECK-SAME: ImportError_: aten.abs in module 'inner.1' (fx_import.py:[[#@LINE-12]]): amp has no import for this op
attempt("unsupported op", lambda: fx.to_mlir(Unsupported(), (torch.randn(2, 4),)))


class UserLine(nn.Module):
    def forward(self, x):
        return torch.cumprod(x, 1)


# CHECK-LABEL: source line ->
# CHECK-SAME: aten.cumprod (fx_import.py:[[#@LINE-4]]): amp has no import for this op
attempt("source line", lambda: fx.to_mlir(UserLine(), (torch.randn(2, 4),)))

# CHECK-LABEL: compile error ->
# CHECK-SAME: CompileError: amp.compile: cannot import Unsupported: aten.abs in module 'inner.1'
attempt("compile error", lambda: amp.compile(Unsupported(), (torch.randn(2, 4),)))
