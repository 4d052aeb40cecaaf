"""The model zoo of the test suite (issue 35): real architectures from
torchvision and Hugging Face, at small sizes, with dropout and stochastic
depth off where their random draws would make the comparison with PyTorch
meaningless (test/python/fx_ops.py checks those draws). Each entry: a
constructor, its example input and the number of classes of its labels."""
import torch


def _torchvision(name, **kwargs):
    def make():
        import torchvision.models as models

        return getattr(models, name)(num_classes=10, **kwargs)

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


def _images(batch=4, size=32):
    return lambda g: torch.randn(batch, 3, size, size, generator=g)


def _tokens(batch=2, length=8):
    return lambda g: torch.randint(0, 100, (batch, length), generator=g)


# name -> (constructor, input maker, label maker)
ZOO = {
    # Batch norm over 8 images of 64x64 (its last stage sees 2x2 maps): on
    # 4 of 32x32 it normalizes 4 values per channel and amplifies rounding
    # past any tolerance from the first forward.
    "resnet50": (_torchvision("resnet50"), _images(8, 64), (10, 8)),
    "mobilenet_v3_small": (_torchvision("mobilenet_v3_small", dropout=0.0),
                           _images(), (10, 4)),
    "efficientnet_b0": (_torchvision("efficientnet_b0", dropout=0.0,
                                     stochastic_depth_prob=0.0),
                        _images(8, 64), (10, 8)),
    "convnext_tiny": (_torchvision("convnext_tiny",
                                   stochastic_depth_prob=0.0),
                      _images(), (10, 4)),
    "vit": (_vit, _images(), (10, 4)),
    "hf_gpt2": (HFGPT2, _tokens(), (100, 16)),
    "hf_bert": (HFBert, _tokens(), (3, 2)),
}
