"""The model zoo of the test suite (issue 35): real architectures from
torchvision, Hugging Face and timm, and a diffusion-style UNet written the
way such code is, at small sizes, with dropout and stochastic depth off
where their random draws would make the comparison with PyTorch
meaningless (test/python/fx_ops.py checks those draws). Each entry
(Entry): a constructor, a maker of the model's inputs and one of its
labels from a torch.Generator, the loss, and the seed of the generator
that draws the checked batches (1 unless a model needs another: see
timm_resnet18d)."""
import collections
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import front_door_models

Entry = collections.namedtuple("Entry", "make inputs labels loss batch_seed",
                               defaults=(1,))


def _torchvision(name, dropout=None, **kwargs):
    """torchvision's `name` with 10 classes; `dropout` set on the
    classifier's Dropout after construction, as torchvision 0.14 (Debian's,
    with PyTorch 1.13) takes no dropout argument for EfficientNet."""
    def make():
        import torchvision.models as models

        model = getattr(models, name)(num_classes=10, **kwargs)
        if dropout is not None:
            for module in model.modules():
                if isinstance(module, nn.Dropout):
                    module.p = dropout
        return model

    return make


def _vit():
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                             num_heads=2, hidden_dim=32, mlp_dim=64,
                             num_classes=10)


class HFGPT2(torch.nn.Module):
    """GPT2LMHeadModel's logits, flattened for cross-entropy per token."""

    def __init__(self):
        super().__init__()
        import transformers

        config = transformers.GPT2Config(
            n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=16,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
            bos_token_id=0, eos_token_id=0)
        self.model = transformers.GPT2LMHeadModel(config)

    def forward(self, ids):
        return self.model(input_ids=ids).logits.reshape(-1, 100)


class HFBert(torch.nn.Module):
    def __init__(self):
        super().__init__()
        import transformers

        config = transformers.BertConfig(
            num_hidden_layers=2, num_attention_heads=2, hidden_size=32,
            intermediate_size=64, vocab_size=100, max_position_embeddings=16,
            num_labels=3, hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0)
        self.model = transformers.BertForSequenceClassification(config)

    def forward(self, ids):
        return self.model(input_ids=ids).logits


def timestep_embedding(t, dim):
    """The sinusoidal embedding of diffusion timesteps (DDPM's)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) *
                      torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    """A diffusion UNet's residual block: GroupNorm, SiLU, convolutions and
    the timestep embedding added per channel."""

    def __init__(self, cin, cout, tdim, groups=4):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.time = nn.Linear(tdim, cout)
        self.norm2 = nn.GroupNorm(groups, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.time(F.silu(temb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return h + self.skip(x)


class AttentionBlock(nn.Module):
    """Self-attention over the pixels of a feature map (DDPM's)."""

    def __init__(self, channels, groups=4):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        self.qkv = nn.Conv2d(channels, 3 * channels, 1)
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, 3, c, h * w).unbind(1)
        weights = torch.softmax(q.transpose(1, 2) @ k / math.sqrt(c), dim=-1)
        out = (v @ weights.transpose(1, 2)).reshape(b, c, h, w)
        return x + self.proj(out)


class UNet(nn.Module):
    """A diffusion-style UNet predicting the noise of an image at timestep
    t: two resolutions down (strided convolutions), attention at the lower
    ones, up by nn.Upsample and by ConvTranspose2d, skip concatenations."""

    def __init__(self, channels=3, base=16, tdim=32):
        super().__init__()
        self.tdim = tdim
        self.time = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(),
                                  nn.Linear(tdim, tdim))
        self.conv_in = nn.Conv2d(channels, base, 3, padding=1)
        self.down1 = ResBlock(base, base, tdim)
        self.pool1 = nn.Conv2d(base, base, 3, stride=2, padding=1)
        self.down2 = ResBlock(base, 2 * base, tdim)
        self.attn2 = AttentionBlock(2 * base)
        self.pool2 = nn.Conv2d(2 * base, 2 * base, 3, stride=2, padding=1)
        self.mid = ResBlock(2 * base, 2 * base, tdim)
        self.mid_attn = AttentionBlock(2 * base)
        self.up2 = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"),
                                 nn.Conv2d(2 * base, 2 * base, 3, padding=1))
        self.dec2 = ResBlock(4 * base, 2 * base, tdim)
        self.up1 = nn.ConvTranspose2d(2 * base, base, 4, stride=2, padding=1)
        self.dec1 = ResBlock(2 * base, base, tdim)
        self.norm_out = nn.GroupNorm(4, base)
        self.conv_out = nn.Conv2d(base, channels, 3, padding=1)

    def forward(self, x, t):
        temb = self.time(timestep_embedding(t, self.tdim))
        h1 = self.down1(self.conv_in(x), temb)
        h2 = self.attn2(self.down2(self.pool1(h1), temb))
        h = self.mid_attn(self.mid(self.pool2(h2), temb))
        h = self.dec2(torch.cat([self.up2(h), h2], dim=1), temb)
        h = self.dec1(torch.cat([self.up1(h), h1], dim=1), temb)
        return self.conv_out(F.silu(self.norm_out(h)))


def _timm(name, **kwargs):
    def make():
        import timm

        return timm.create_model(name, pretrained=False, num_classes=10,
                                 **kwargs)

    return make


def _images(batch=4, size=32):
    return lambda g: (torch.randn(batch, 3, size, size, generator=g),)


def _tokens(batch=2, length=8, vocab=100):
    return lambda g: (torch.randint(0, vocab, (batch, length), generator=g),)


def _classes(classes, count):
    return lambda g: torch.randint(0, classes, (count,), generator=g)


def _noisy_images(batch=4, size=16):
    """A noisy image and its timestep (as a float, as DDPM code passes it);
    the label is the noise (_noise)."""
    return lambda g: (torch.randn(batch, 3, size, size, generator=g),
                      torch.randint(0, 1000, (batch,), generator=g).float())


def _noise(batch=4, size=16):
    return lambda g: torch.randn(batch, 3, size, size, generator=g)


def _classifier(make, inputs, classes, count, batch_seed=1):
    return Entry(make, inputs, _classes(classes, count), "cross_entropy",
                 batch_seed)


ZOO = {
    # Batch norm over 8 images of 64x64 (its last stage sees 2x2 maps): on
    # 4 of 32x32 it normalizes 4 values per channel and amplifies rounding
    # past any tolerance from the first forward.
    "resnet50": _classifier(_torchvision("resnet50"), _images(8, 64), 10, 8),
    "mobilenet_v3_small": _classifier(
        _torchvision("mobilenet_v3_small", dropout=0.0), _images(), 10, 4),
    "efficientnet_b0": _classifier(
        _torchvision("efficientnet_b0", dropout=0.0,
                     stochastic_depth_prob=0.0), _images(8, 64), 10, 8),
    "convnext_tiny": _classifier(
        _torchvision("convnext_tiny", stochastic_depth_prob=0.0), _images(),
        10, 4),
    "vit": _classifier(_vit, _images(), 10, 4),
    "hf_gpt2": _classifier(HFGPT2, _tokens(), 100, 16),
    "hf_bert": _classifier(HFBert, _tokens(), 3, 2),
    "unet": Entry(UNet, _noisy_images(), _noise(), "mse"),
    # The front door's own decoders (front_door_models.py, as their authors
    # write them): nanoGPT with tied embeddings and its torch.triu mask, and
    # a LLaMA-style block (RMSNorm, RoPE from buffers, causal SDPA on 2.x,
    # SwiGLU); next-token cross-entropy over 4 x 8 tokens.
    "nanogpt": _classifier(lambda: front_door_models.GPT(),
                           _tokens(4, 8, 40), 40, 32),
    "llama_block": _classifier(lambda: front_door_models.LlamaBlock(),
                               _tokens(4, 8, 40), 40, 32),
    # timm (PyPI, in the torch 2.x venv): EfficientNet-Lite (ReLU6, no
    # squeeze-excitation) and a two-stage Swin (windowed attention with a
    # relative position bias table indexed by a buffer, F.pad).
    "timm_efficientnet_lite0": _classifier(_timm("efficientnet_lite0"),
                                           _images(8, 64), 10, 8),
    # ResNet-D (deep stem, 2x2 average pooling with ceil_mode in the
    # shortcuts). On the batches of seed 1 one output of the stem's first
    # batch norm (channel 8) is 3.8e-8 in float64, within float32's
    # rounding of the ReLU's kink: amp's fp32 lands on the other side, and
    # as the batch norms after it cancel most of the gradient, that one
    # element moves the first convolution's weight gradient of that channel
    # by 16% (float64 with that one ReLU mask element flipped agrees with
    # amp within 1.4e-6). Seed 2's batches have no such element.
    "timm_resnet18d": _classifier(_timm("resnet18d"), _images(8, 64), 10, 8,
                                  batch_seed=2),
    "timm_swin": _classifier(
        _timm("swin_tiny_patch4_window7_224", img_size=32, patch_size=2,
              window_size=4, depths=(1, 1), num_heads=(1, 2), embed_dim=16,
              drop_path_rate=0.0),
        _images(), 10, 4),
}
