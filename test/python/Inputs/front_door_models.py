"""The models of the front-door tests, written the way their authors write
them (test/python/front_door.py): each trains under Debian's PyTorch 1.13
(captured through torch.onnx) and current PyTorch 2.x (torch.export)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class CNN(nn.Module):
    """Convolutions with BatchNorm: its running statistics are buffers the
    forward updates."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention with the causal mask built by torch.triu in the
    forward."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        att = att.masked_fill(mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class GPTBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads)
        self.ln_2 = nn.LayerNorm(width)
        self.c_fc = nn.Linear(width, 4 * width)
        self.c_proj = nn.Linear(4 * width, width)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)),
                                      approximate="tanh"))


class GPT(nn.Module):
    """A nanoGPT-style decoder: token and position embeddings, the output
    projection tied to the token embedding."""

    def __init__(self, vocab=40, block=8, width=16, heads=2, layers=2):
        super().__init__()
        self.vocab = vocab
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(block, width)
        self.h = nn.ModuleList([GPTBlock(width, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(0, T, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x)).view(-1, self.vocab)


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * \
            self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    """A LLaMA-style block: RMSNorm, rotary position embeddings from cos/sin
    buffers (not parameters: they must never train), causal attention,
    SwiGLU."""

    def __init__(self, vocab=40, block=8, width=16, heads=2):
        super().__init__()
        self.heads = heads
        self.vocab = vocab
        self.embed = nn.Embedding(vocab, width)
        self.norm1 = RMSNorm(width)
        self.wq = nn.Linear(width, width, bias=False)
        self.wk = nn.Linear(width, width, bias=False)
        self.wv = nn.Linear(width, width, bias=False)
        self.wo = nn.Linear(width, width, bias=False)
        self.norm2 = RMSNorm(width)
        self.w1 = nn.Linear(width, 2 * width, bias=False)
        self.w3 = nn.Linear(width, 2 * width, bias=False)
        self.w2 = nn.Linear(2 * width, width, bias=False)
        self.head = nn.Linear(width, vocab, bias=False)
        dim = width // heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        freqs = torch.outer(torch.arange(block).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin(), persistent=False)

    def attention(self, x):
        B, T, C = x.shape
        shape = (B, T, self.heads, C // self.heads)
        q = self.wq(x).view(shape).transpose(1, 2)
        k = self.wk(x).view(shape).transpose(1, 2)
        v = self.wv(x).view(shape).transpose(1, 2)
        cos, sin = self.cos[:T], self.sin[:T]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if HAS_SDPA:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
            mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
            y = att.masked_fill(mask, float("-inf")).softmax(-1) @ v
        return self.wo(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, idx):
        x = self.embed(idx)
        x = x + self.attention(self.norm1(x))
        h = self.norm2(x)
        x = x + self.w2(F.silu(self.w1(h)) * self.w3(h))
        return self.head(x).view(-1, self.vocab)


class SDPAEncoder(nn.Module):
    """A transformer encoder layer on F.scaled_dot_product_attention
    (PyTorch 2.x), classifying the mean of its outputs."""

    def __init__(self, width=16, heads=2, classes=5):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm1 = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, 32), nn.ReLU(),
                                nn.Linear(32, width))
        self.norm2 = nn.LayerNorm(width)
        self.classifier = nn.Linear(width, classes)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads,
                                   C // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        x = self.norm1(x + self.out(y.transpose(1, 2).reshape(B, T, C)))
        x = self.norm2(x + self.ff(x))
        return self.classifier(x.mean(1))


class PaddedEmbedding(nn.Module):
    """nn.Embedding with padding_idx: the padding row is read but never
    gets a gradient."""

    def __init__(self, vocab=30, width=8, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, width, padding_idx=0)
        with torch.no_grad():
            self.embed.weight[0].fill_(0.25)  # so that its reads matter
        self.fc = nn.Linear(width, classes)

    def forward(self, ids):
        return self.fc(self.embed(ids).mean(1))


class FrozenBackbone(nn.Module):
    """Fine-tuning: a frozen backbone (requires_grad=False) under a
    trainable head."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.Tanh(),
                                      nn.Linear(32, 32))
        self.backbone.requires_grad_(False)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))
