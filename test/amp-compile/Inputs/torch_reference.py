"""The parity tests' shared pieces: the MLP they train, the amp side
(amp-run from a checkpoint on saved inputs), the same training run with
torch.optim.SGD, and the comparison line the tests check."""
import json
import os
import subprocess

import numpy as np
import torch

import amp_checkpoint


def parity_mlp():
    """The MLP of the parity tests (LayerNorm 64, Linear 64->128, GELU,
    Linear 128->10, as examples/mlp_train_step.mlir) with non-trivial norm
    parameters, a batch of 32 inputs and their labels; seeded."""
    torch.manual_seed(0)
    model = torch.nn.Sequential()
    model.add_module("ln", torch.nn.LayerNorm(64))
    model.add_module("fc1", torch.nn.Linear(64, 128))
    model.add_module("gelu", torch.nn.GELU())
    model.add_module("fc2", torch.nn.Linear(128, 10))
    with torch.no_grad():  # non-trivial norm parameters
        model.ln.weight.uniform_(0.5, 1.5)
        model.ln.bias.uniform_(-0.2, 0.2)
    x = torch.randn(32, 64)
    labels = torch.randint(0, 10, (32,))
    return model, x, labels


def momentum_sgd_state(parameters, lr):
    """Checkpoint entries for an SGD step with momentum: `parameters`
    (name, array) pairs, zero momentum buffers and the learning rate."""
    state = list(parameters)
    state += [(k + ".momentum_buffer", np.zeros_like(v)) for k, v in state]
    state.append(("lr", np.array(lr, np.float32)))
    return state


def amp_run_losses(amp_run, library, workdir, state, inputs, steps=20):
    """Trains `library` with amp-run for `steps` steps from the checkpoint
    `state` ((name, array) pairs) on `inputs` (name -> array), with files in
    `workdir`; returns the loss of every step."""
    checkpoint = os.path.join(workdir, "init.ckpt")
    metrics = os.path.join(workdir, "metrics.jsonl")
    amp_checkpoint.write(checkpoint, state)
    command = [amp_run, library, "--steps", str(steps), "--load", checkpoint,
               "--metrics", metrics]
    for name, value in inputs.items():
        path = os.path.join(workdir, name + ".npy")
        np.save(path, value)
        command += ["--input", f"{name}={path}"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(metrics) as f:
        return [json.loads(line)["loss"] for line in f]


def sgd_cross_entropy_losses(model, x, labels, steps=20, lr=0.05,
                             momentum=0.9):
    """Trains `model` in place; returns the loss before each step."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def report(ours, theirs):
    """Prints the worst relative difference and both curves; returns it."""
    worst = max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))
    print("steps %d worst relative difference %.2e" % (len(ours), worst))
    print("loss %.3f -> %.3f (torch %.3f -> %.3f)" % (ours[0], ours[-1],
                                                      theirs[0], theirs[-1]))
    return worst
