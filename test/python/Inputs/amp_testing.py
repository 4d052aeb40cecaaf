"""Shared pieces of the Python package's tests: seeded synthetic data
through a torch DataLoader, a PyTorch reference loop and the comparisons."""
import copy
import math
import sys
import warnings

import torch

warnings.filterwarnings("ignore")
torch.set_num_threads(1)


def attempt(what, call):
    """Prints what `call` raised (type and message), or that it raised
    nothing: the error tests FileCheck it."""
    try:
        call()
        print(what, "-> no error")
    except Exception as error:
        print(what, "->", type(error).__name__ + ":", error)


def loader(shape, classes, batches, batch_size, seed=0, shuffle=True,
           batch=None):
    """A DataLoader over a seeded synthetic classification dataset
    (inputs N(0, 1), labels uniform) of batches * batch_size samples, in
    batches of batch_size (the partial last one dropped) or, with `batch`,
    of that size (the partial last one kept)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn((batches * batch_size,) + tuple(shape),
                    generator=generator)
    y = torch.randint(0, classes, (batches * batch_size,),
                      generator=generator)
    dataset = torch.utils.data.TensorDataset(x, y)
    return torch.utils.data.DataLoader(
        dataset, batch_size=batch or batch_size, shuffle=shuffle,
        drop_last=batch is None,
        generator=torch.Generator().manual_seed(seed + 1))


def torch_losses(model, data, epochs, make_optimizer, schedule=None,
                 accumulate=1):
    """Trains a copy of `model` in fp32 with PyTorch; the losses (one per
    batch) and the trained copy. `schedule(step)` gives each optimizer
    step's lr; with `accumulate`, each step sums the gradients of that many
    batches of loss / accumulate (PyTorch's accumulation loop)."""
    model = copy.deepcopy(model).train()
    optimizer = make_optimizer(model.parameters())
    losses, step, micro = [], 0, 0
    for _ in range(epochs):
        for x, y in data:
            if micro == 0:
                if schedule is not None:
                    for group in optimizer.param_groups:
                        group["lr"] = schedule(step)
                optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            (loss / accumulate).backward()
            losses.append(loss.item())
            micro += 1
            if micro == accumulate:
                optimizer.step()
                step, micro = step + 1, 0
    return losses, model


def amp_losses(trainer, data, epochs):
    return [trainer.step(x, y) for _ in range(epochs) for x, y in data]


def train_like_torch(name, model, shape, classes, rtol, **options):
    """Ten AdamW steps (lr 1e-2, cross-entropy) on seeded batches of
    `shape` and labels in [0, classes), through amp.compile(**options) and
    through PyTorch fp32 on a copy; checks the losses within rtol and
    returns the trainer."""
    import amp
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    batches = [(torch.randn(*shape, generator=generator),
                torch.randint(0, classes, (shape[0],), generator=generator))
               for _ in range(10)]
    trainer = amp.compile(model, example_inputs=(batches[0][0],), lr=1e-2,
                          **options)
    ours = [trainer.step(x, y) for x, y in batches]
    ref = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    theirs = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(ref(x), y)
        loss.backward()
        optimizer.step()
        theirs.append(loss.item())
    check_close(name, ours, theirs, rtol)
    return trainer


def check_close(what, ours, theirs, rtol):
    """Every loss within rtol relative; prints the worst and exits 1 when
    one is not."""
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    worst = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(ours, theirs))
    if not worst <= rtol or any(math.isnan(a) for a in ours):
        print("%s: FAIL, worst relative difference %.3g > %.3g" %
              (what, worst, rtol))
        for i, (a, b) in enumerate(zip(ours, theirs)):
            print("  step %d: amp %.7g torch %.7g" % (i, a, b))
        sys.exit(1)
    print("%s: %d losses within %g" % (what, len(ours), rtol))
    return worst


def check_max_abs(what, ours, theirs, atol):
    difference = (ours.float() - theirs.float()).abs().max().item()
    if not difference <= atol:
        print("%s: FAIL, max difference %.3g > %.3g" % (what, difference, atol))
        sys.exit(1)
    print("%s: within %g" % (what, atol))


def mlp():
    """The MLP of the parity tests (LayerNorm, Linear, GELU, Linear), seeded."""
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.LayerNorm(32), torch.nn.Linear(32, 64),
                               torch.nn.GELU(), torch.nn.Linear(64, 10))


def mlp_data():
    """A fresh loader per run: the same shuffled batches, epoch by epoch."""
    return loader((32,), 10, batches=8, batch_size=16)
