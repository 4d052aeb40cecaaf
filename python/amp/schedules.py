"""Learning-rate schedules: callables from the step index (0 for the first
step) to the learning rate of that step, as PyTorch's LambdaLR multiplies
the base rate by lr_lambda(step). Pass one as amp.compile(...,
lr_schedule=...); trainer.step(x, y, lr=...) overrides a step's rate."""
import math

__all__ = ["constant", "linear_warmup", "cosine", "step_decay", "lambda_lr",
           "warmup_cosine"]


class Schedule:
    """A schedule: lr(step), and how the base rate scales."""

    def __init__(self, function, description):
        self._function = function
        self._description = description

    def __call__(self, step):
        return float(self._function(step))

    def __repr__(self):
        return "amp.schedules." + self._description


def _check(name, value, low=0.0):
    if not isinstance(value, (int, float)) or not math.isfinite(value) or \
            value < low:
        raise ValueError("%s must be a finite number >= %g, got %r" %
                         (name, low, value))


def constant(lr):
    _check("lr", lr)
    return Schedule(lambda step: lr, "constant(%g)" % lr)


def linear_warmup(lr, warmup_steps, start_factor=0.0):
    """Rises linearly from start_factor*lr to lr over warmup_steps steps (as
    torch.optim.lr_scheduler.LinearLR), then stays at lr."""
    _check("lr", lr)
    _check("warmup_steps", warmup_steps, 1)
    _check("start_factor", start_factor)

    def rate(step):
        if step >= warmup_steps:
            return lr
        return lr * (start_factor + (1 - start_factor) * step / warmup_steps)

    return Schedule(rate, "linear_warmup(%g, %d)" % (lr, warmup_steps))


def cosine(lr, total_steps, min_lr=0.0):
    """torch.optim.lr_scheduler.CosineAnnealingLR(T_max=total_steps,
    eta_min=min_lr): min_lr + (lr - min_lr) * (1 + cos(pi*step/T)) / 2."""
    _check("lr", lr)
    _check("total_steps", total_steps, 1)
    _check("min_lr", min_lr)

    def rate(step):
        step = min(step, total_steps)
        return min_lr + (lr - min_lr) * (1 + math.cos(math.pi * step /
                                                      total_steps)) / 2

    return Schedule(rate, "cosine(%g, %d)" % (lr, total_steps))


def warmup_cosine(lr, warmup_steps, total_steps, min_lr=0.0):
    """linear_warmup for warmup_steps, then cosine over the rest."""
    warm = linear_warmup(lr, warmup_steps)
    decay = cosine(lr, max(1, total_steps - warmup_steps), min_lr)
    return Schedule(lambda step: warm(step) if step < warmup_steps else
                    decay(step - warmup_steps),
                    "warmup_cosine(%g, %d, %d)" % (lr, warmup_steps,
                                                   total_steps))


def step_decay(lr, step_size, gamma=0.1):
    """torch.optim.lr_scheduler.StepLR: lr * gamma ** (step // step_size)."""
    _check("lr", lr)
    _check("step_size", step_size, 1)
    _check("gamma", gamma)
    return Schedule(lambda step: lr * gamma ** (step // step_size),
                    "step_decay(%g, %d, %g)" % (lr, step_size, gamma))


def lambda_lr(lr, lr_lambda):
    """torch.optim.lr_scheduler.LambdaLR: lr * lr_lambda(step)."""
    _check("lr", lr)
    if not callable(lr_lambda):
        raise TypeError("lr_lambda must be callable, got %r" % (lr_lambda,))
    return Schedule(lambda step: lr * lr_lambda(step), "lambda_lr(%g)" % lr)
