"""The loop both examples run: train a model with amp (bf16 by default,
cosine schedule) on batches drawn from a seeded synthetic dataset through a
torch DataLoader, train a copy in fp32 with PyTorch on the same batches and
schedule, and compare the losses; then compile the trained weights in fp32
and compare eval-mode logits with PyTorch's."""
import argparse
import copy
import sys
import time
import warnings

import torch

import amp

warnings.filterwarnings("ignore")


def arguments(description, steps=50, batch_size=8, lr=1e-3):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--batch-size", type=int, default=batch_size)
    parser.add_argument("--precision", default="bf16",
                        choices=["fp32", "fp16", "bf16"])
    parser.add_argument("--lr", type=float, default=lr)
    parser.add_argument("--no-eval", action="store_true",
                        help="skip the fp32 eval comparison (a second "
                             "compilation)")
    parser.add_argument("--rtol", type=float, default=0.02,
                        help="relative difference of a loss from PyTorch "
                             "fp32's that is always allowed (bf16: or 3 "
                             "times PyTorch autocast's own)")
    parser.add_argument("--verbose", action="store_true",
                        help="print every step's losses")
    parser.add_argument("--small", action="store_true",
                        help="a reduced model (what the tests run)")
    return parser.parse_args()


def loader(dataset, batch_size, seed=0):
    return torch.utils.data.DataLoader(
        dataset, batch_size=batch_size, shuffle=True, drop_last=True,
        generator=torch.Generator().manual_seed(seed))


def batches(dataset, args):
    """args.steps batches, epoch after epoch, each epoch shuffled with its
    own seed: the same sequence for every run."""
    step, epoch = 0, 0
    while step < args.steps:
        for batch in loader(dataset, args.batch_size, seed=epoch):
            if step == args.steps:
                return
            yield batch
            step += 1
        epoch += 1


def torch_run(model, dataset, args, schedule, autocast_dtype):
    """PyTorch's losses on the same batches and schedule (fp32, or under
    CPU autocast to `autocast_dtype`) and the trained copy."""
    reference = copy.deepcopy(model).train()
    optimizer = torch.optim.AdamW(reference.parameters(), lr=args.lr)
    losses = []
    for step, (x, y) in enumerate(batches(dataset, args)):
        for group in optimizer.param_groups:
            group["lr"] = schedule(step)
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=autocast_dtype or torch.bfloat16,
                            enabled=autocast_dtype is not None):
            loss = torch.nn.functional.cross_entropy(reference(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, reference


def relative_difference(ours, theirs):
    return max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))


def run(model, dataset, args):
    """Trains, compares and prints; exits 1 when a check fails."""
    schedule = amp.schedules.cosine(args.lr, args.steps)
    example, _ = dataset[:args.batch_size]
    start = time.time()
    trainer = amp.compile(model, example_inputs=(example,),
                          loss="cross_entropy", optimizer="adamw", lr=args.lr,
                          precision=args.precision, lr_schedule=schedule)
    print("compiled in %.1f s" % (time.time() - start))

    ours = []
    for x, y in batches(dataset, args):
        ours.append(trainer.step(x, y))
    theirs, reference = torch_run(model, dataset, args, schedule, None)
    worst = relative_difference(ours, theirs)
    print("%d %s steps: loss %.4f -> %.4f (PyTorch fp32 %.4f -> %.4f), "
          "worst relative difference %.2g" %
          (len(ours), args.precision, ours[0], ours[-1], theirs[0],
           theirs[-1], worst))
    # Tolerance: how far PyTorch's own bf16 autocast run drifts from its
    # fp32 run on the same batches measures what bf16 rounding does to this
    # model and schedule (Adam's normalised steps and batch norm amplify it
    # with depth); amp may drift up to 3 times that, and never less than
    # --rtol allows. A wrong gradient or a missing cast is far outside.
    tolerance = args.rtol
    if args.precision == "bf16":
        autocast, _ = torch_run(model, dataset, args, schedule, torch.bfloat16)
        drift = relative_difference(autocast, theirs)
        tolerance = max(args.rtol, 3 * drift)
        print("PyTorch bf16 autocast drifts %.2g from fp32: tolerance %.2g" %
              (drift, tolerance))
    failed = not worst <= tolerance
    if failed or args.verbose:
        for step, (a, b) in enumerate(zip(ours, theirs)):
            print("  step %d: amp %.5f PyTorch fp32 %.5f" % (step, a, b))

    if not args.no_eval:
        failed |= not eval_matches(reference, example)
    print("FAIL" if failed else "PASS")
    sys.exit(1 if failed else 0)


def eval_matches(reference, example):
    """Eval in fp32 from the weights PyTorch trained: the forward alone,
    within 1e-4 of PyTorch's eval mode."""
    evaluator = amp.compile(reference, example_inputs=(example,),
                            precision="fp32")
    reference.eval()
    with torch.no_grad():
        difference = (evaluator.eval(example) -
                      reference(example)).abs().max().item()
    print("fp32 eval logits: max difference %.2g from PyTorch eval mode" %
          difference)
    return difference <= 1e-4
