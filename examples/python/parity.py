"""The loop both examples run: train a model with amp (bf16 by default,
cosine schedule, gradients accumulated over 2 micro-batches per optimizer
step) on batches drawn from a seeded synthetic dataset through a torch
DataLoader, train a copy in fp32 with PyTorch on the same batches, schedule
and accumulation, and compare the losses (per optimizer step: the mean over
its micro-batches); then compile the trained weights in fp32 and compare
eval-mode logits with PyTorch's."""
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
    parser.add_argument("--steps", type=int, default=steps,
                        help="optimizer steps")
    parser.add_argument("--batch-size", type=int, default=batch_size,
                        help="samples per micro-batch")
    parser.add_argument("--accumulate", type=int, default=2,
                        help="micro-batches per optimizer step")
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
    """The micro-batches of args.steps optimizer steps, epoch after epoch,
    each epoch shuffled with its own seed: the same sequence for every
    run."""
    step, epoch, total = 0, 0, args.steps * args.accumulate
    while step < total:
        for batch in loader(dataset, args.batch_size, seed=epoch):
            if step == total:
                return
            yield batch
            step += 1
        epoch += 1


def torch_run(model, dataset, args, schedule, autocast_dtype):
    """PyTorch's losses per optimizer step on the same micro-batches,
    schedule and accumulation (fp32, or under CPU autocast to
    `autocast_dtype`) and the trained copy."""
    reference = copy.deepcopy(model).train()
    optimizer = torch.optim.AdamW(reference.parameters(), lr=args.lr)
    micro_losses = []
    for micro, (x, y) in enumerate(batches(dataset, args)):
        if micro % args.accumulate == 0:
            for group in optimizer.param_groups:
                group["lr"] = schedule(micro // args.accumulate)
            optimizer.zero_grad()
        with torch.autocast("cpu", dtype=autocast_dtype or torch.bfloat16,
                            enabled=autocast_dtype is not None):
            loss = torch.nn.functional.cross_entropy(reference(x), y)
        (loss / args.accumulate).backward()
        micro_losses.append(loss.item())
        if (micro + 1) % args.accumulate == 0:
            optimizer.step()
    return per_step(micro_losses, args), reference


def per_step(micro_losses, args):
    """The loss of each optimizer step: the mean over its micro-batches."""
    n = args.accumulate
    return [sum(micro_losses[i:i + n]) / n
            for i in range(0, len(micro_losses), n)]


def relative_difference(ours, theirs):
    return max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))


def run(model, dataset, args):
    """Trains, compares and prints; exits 1 when a check fails."""
    schedule = amp.schedules.cosine(args.lr, args.steps)
    example, _ = dataset[:args.batch_size]
    start = time.time()
    trainer = amp.compile(model, example_inputs=(example,),
                          loss="cross_entropy", optimizer="adamw", lr=args.lr,
                          precision=args.precision, lr_schedule=schedule,
                          accumulate=args.accumulate)
    print("compiled in %.1f s" % (time.time() - start))

    ours = per_step([trainer.step(x, y) for x, y in batches(dataset, args)],
                    args)
    assert trainer.steps == args.steps, (trainer.steps, args.steps)
    theirs, reference = torch_run(model, dataset, args, schedule, None)
    worst = relative_difference(ours, theirs)
    print("%d %s steps of %d micro-batches: loss %.4f -> %.4f (PyTorch fp32 "
          "%.4f -> %.4f), worst relative difference %.2g" %
          (len(ours), args.precision, args.accumulate, ours[0], ours[-1],
           theirs[0], theirs[-1], worst))
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
