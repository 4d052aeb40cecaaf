"""PyTorch reference for optimizer.mlir (see compare_with_torch.py).

SGD, AdamW and clip_grad_norm run PyTorch 1.13 itself (torch.optim.SGD,
torch.optim.AdamW, torch.nn.utils.clip_grad_norm_) on the test's constants.
GradScaler's CUDA kernels (_amp_foreach_non_finite_check_and_unscale_,
_amp_update_scale_) have no CPU implementation in this PyTorch, so unscaling
and the scale update are written out below from their sources, together with
Megatron-LM's DynamicGradScaler (hysteresis) and the op's min/max clamps.

Tolerances (on top of the harness's allowance for the six printed digits):
- EXACT: the lowering performs the same IEEE operations as the reference in
  the same order (a product, a reciprocal, a select, integer counters), so
  the results are bit-identical.
- Optimizer steps: the lowering evaluates PyTorch's formula operation for
  operation in f32, but PyTorch's CPU kernels for add(alpha=), addcmul and
  addcdiv may fuse a multiply and an add into one FMA (one rounding instead
  of two) depending on the vector width and the tail loop. Each of the <= 10
  roundings per step is at most half an ulp of a value no larger than the
  largest intermediate M of that element (|param|, |lr * update|, |buffer|,
  |grad|), and errors carried from earlier steps are damped (factors < 1:
  momentum, beta, 1 - lr * wd). 16 f32 ulps of M over three steps covers
  this with margin and is far below what a wrong formula changes (the
  smallest such change checked here, AdamW's bias corrections computed in
  f32 instead of f64, moves the first update by 6e-6 relative, 75 to 90
  ulps, where "adamw first update" allows 16 ulps plus the printout's).
- Gradient norm: sums of n squares in any order are within gamma_n of the
  exact sum (gamma_n = n u / (1 - n u), u = 2^-24); PyTorch takes the norm
  of per-tensor norms. The norm, the coefficient max_norm / (norm + 1e-6)
  and the clipped gradients are each within (n + 4) u relative.
"""

import math

import numpy as np
import torch

U = 2.0 ** -24  # f32 unit roundoff

EXACT = {}


def f32(x):
    with np.errstate(over="ignore"):  # 2e38 * 2 and 1e39 round to inf
        return float(np.float32(x))


def scaled_ulps(magnitude, ulps):
    """`ulps` f32 ulps at |magnitude| (elementwise), as an absolute bound."""
    m = magnitude.double().abs().clamp_min(2.0 ** -126)
    exponent = torch.floor(torch.log2(m))
    return ulps * torch.pow(2.0, exponent - 23)


def optimizer_tolerance(*magnitudes):
    m = torch.stack([t.double().abs() for t in magnitudes]).amax(dim=0)
    return {"atol": scaled_ulps(m, 16)}


# --- torch.optim ------------------------------------------------------------

def run_sgd(p, grads, lr, buffer=None, **options):
    """torch.optim.SGD steps; returns the params after each step and the
    final momentum buffer."""
    param = p.clone().requires_grad_(True)
    opt = torch.optim.SGD([param], lr=lr, **options)
    if buffer is not None:
        opt.state[param]["momentum_buffer"] = buffer.clone()
    params, magnitude = [], [p.abs()]
    for g in grads:
        param.grad = g.float().clone()
        opt.step()
        params.append(param.detach().clone())
        magnitude.append(param.detach().abs())
        if options.get("momentum"):
            magnitude.append(opt.state[param]["momentum_buffer"].abs())
        magnitude.append(g.float().abs())
    buf = opt.state[param].get("momentum_buffer")
    return params, buf, magnitude


def run_adamw(p, grads, lr, state=None, **options):
    param = p.clone().requires_grad_(True)
    opt = torch.optim.AdamW([param], lr=lr, **options)
    if state is not None:
        opt.state[param].update(
            {k: (v.clone() if torch.is_tensor(v) else v)
             for k, v in state.items()})
    params, magnitude = [], [p.abs()]
    for g in grads:
        param.grad = g.clone()
        opt.step()
        params.append(param.detach().clone())
        st = opt.state[param]
        magnitude += [param.detach().abs(), st["exp_avg"].abs(),
                      st["exp_avg_sq"].abs(), g.abs()]
    st = opt.state[param]
    return params, st["exp_avg"].clone(), st["exp_avg_sq"].clone(), magnitude


# --- GradScaler / Megatron, from their sources -------------------------------

def unscale(scale, grads, result_dtypes):
    """_amp_foreach_non_finite_check_and_unscale_ as GradScaler calls it:
    inv_scale = scale.double().reciprocal().float(); each element is
    checked (before scaling) and multiplied by inv_scale in f32, then
    stored in the result type."""
    inv = scale.double().reciprocal().float()
    found = any(not torch.isfinite(g.float()).all() for g in grads)
    out = [(g.float() * inv).to(dtype) for g, dtype in zip(grads, result_dtypes)]
    return out, torch.tensor(float(found))


def update_scale(scale, growth, hyst, found, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, hysteresis=1,
                 min_scale=1.0, max_scale=16777216.0):
    """Megatron-LM's DynamicGradScaler.update with GradScaler's arithmetic
    (float scale times double factor, rounded once) and the op's clamps:
    back off to at least min_scale; grow to at most max_scale, and only to a
    finite value (GradScaler's isfinite check)."""
    if found:
        growth = 0
        hyst -= 1
        if hyst <= 0:
            scale = max(f32(scale * backoff_factor), f32(min_scale))
    else:
        growth += 1
        if growth == growth_interval:
            growth = 0
            hyst = hysteresis
            grown = min(f32(scale * growth_factor), f32(max_scale))
            if math.isfinite(grown):
                scale = grown
    return scale, growth, hyst


def grad_scaler_update(scale, growth, found, growth_factor=2.0,
                       backoff_factor=0.5, growth_interval=2000):
    """torch.cuda.amp.GradScaler's _amp_update_scale_ (its CUDA kernel)."""
    if found:
        return f32(scale * backoff_factor), 0
    successful = growth + 1
    if successful == growth_interval:
        new_scale = f32(scale * growth_factor)
        if math.isfinite(new_scale):
            scale = new_scale
        return scale, 0
    return scale, successful


def scaler_sequence(scale, hyst, pattern, **attrs):
    scales, growths, hysts = [], [], []
    growth = 0
    for ch in pattern:
        scale, growth, hyst = update_scale(scale, growth, hyst, ch == "T",
                                           **attrs)
        scales.append(scale)
        growths.append(growth)
        hysts.append(hyst)
    return (torch.tensor(scales, dtype=torch.float64),
            torch.tensor(growths, dtype=torch.float64),
            torch.tensor(hysts, dtype=torch.float64))


# --- clip_grad_norm_ --------------------------------------------------------

def clip(grads, max_norm):
    copies = [g.float().clone().requires_grad_(True) for g in grads]
    for c, g in zip(copies, grads):
        c.grad = g.float().clone()
    norm = torch.nn.utils.clip_grad_norm_(copies, max_norm)
    clipped = [c.grad.to(g.dtype) for c, g in zip(copies, grads)]
    return clipped, norm


def clip_tolerance(n):
    return {"rtol": (n + 4) * U}


def reference(c):
    out = []

    # scale_seed: one f32 product.
    out.append(("scale_seed 1 * 65536", c["seed"] * c["seed_scale"], EXACT))
    out.append(("scale_seed 0.75 * 3", c["seed_b"] * c["seed_scale_b"], EXACT))

    # SGD: momentum 0.9, Nesterov, weight decay 0.1, three steps.
    lr = c["sgd_lr"].item()
    params, buf, mag = run_sgd(
        c["sgd_p"], [c["sgd_g1"], c["sgd_g2"], c["sgd_g3"]], lr,
        momentum=0.9, nesterov=True, weight_decay=0.1)
    tol = optimizer_tolerance(*mag)
    for i, p in enumerate(params, 1):
        out.append((f"sgd nesterov param step {i}", p, tol))
    out.append(("sgd nesterov buffer step 3", buf, tol))

    # SGD: momentum 0.8, dampening 0.25 from a given buffer, two steps.
    params, buf, mag = run_sgd(
        c["sgd_p"], [c["sgd_g1"], c["sgd_g2"]], lr, buffer=c["sgd_buf"],
        momentum=0.8, dampening=0.25)
    tol = optimizer_tolerance(*mag)
    out.append(("sgd dampening param step 2", params[-1], tol))
    out.append(("sgd dampening buffer step 2", buf, tol))
    # Plain SGD with weight decay and an f16 gradient (widened exactly).
    params, _, mag = run_sgd(c["sgd_p"], [c["sgd_g16"]], lr, weight_decay=0.02)
    out.append(("sgd plain f16 grad", params[-1], optimizer_tolerance(*mag)))

    # AdamW: three steps, weight decay 0.1, default betas and eps.
    lr = c["adam_lr"].item()
    params, m, v, mag = run_adamw(
        c["adam_p"], [c["adam_g1"], c["adam_g2"], c["adam_g3"]], lr,
        weight_decay=0.1)
    tol = optimizer_tolerance(*mag)
    for i, p in enumerate(params, 1):
        out.append((f"adamw param step {i}", p, tol))
    out.append(("adamw exp_avg step 3", m, tol))
    out.append(("adamw exp_avg_sq step 3", v, tol))

    # AdamW: the first update alone (from zero, no weight decay).
    params, _, _, mag = run_adamw(c["adam_zero"], [c["adam_g_wide"]], lr,
                                  weight_decay=0.0)
    out.append(("adamw first update", params[-1], optimizer_tolerance(*params)))

    # AdamW resumed at step 5 with non-default hyper-parameters.
    state = {"step": torch.tensor(4.0), "exp_avg": c["resume_m"],
             "exp_avg_sq": c["resume_v"]}
    params, m, v, mag = run_adamw(
        c["resume_p"], [c["resume_g"]], c["resume_lr"].item(), state=state,
        betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05)
    tol = optimizer_tolerance(*mag)
    out.append(("adamw resumed param", params[-1], tol))
    out.append(("adamw resumed exp_avg", m, tol))
    out.append(("adamw resumed exp_avg_sq", v, tol))

    # Skipped steps: every result equals its operand (printed as 1.0).
    ones = torch.ones(2, 3)
    for label in ["sgd param", "sgd buffer", "adamw param", "adamw exp_avg",
                  "adamw exp_avg_sq"]:
        out.append((f"skipped step keeps {label}", ones, EXACT))

    # unscale_grads, clean: f16 -> f32, f32 -> f32, f16 -> f16.
    (u0, u1, u2), found = unscale(
        c["unscale_scale"], [c["unscale_g0"], c["unscale_g1"], c["unscale_g2"]],
        [torch.float32, torch.float32, torch.float16])
    out += [("unscale f16->f32", u0, EXACT), ("unscale f32", u1, EXACT),
            ("unscale f16->f16", u2.float(), EXACT),
            ("unscale found_inf clean", found, EXACT)]
    # An overflowed f16 gradient (70000 -> inf), scale 3 (inexact reciprocal).
    g0 = c["unscale_big"].to(torch.float16)
    (u0, u1), found = unscale(c["unscale_scale3"], [g0, c["unscale_g1"]],
                              [torch.float32, torch.float32])
    out += [("unscale inf f16->f32", u0, EXACT), ("unscale f32 scale 3", u1, EXACT),
            ("unscale found_inf inf", found, EXACT)]
    nan = c["unscale_num"] / c["unscale_den"]
    (_, v1), found = unscale(c["unscale_scale3"], [c["unscale_big"], nan],
                             [torch.float32, torch.float32])
    out += [("unscale nan", v1, EXACT), ("unscale found_inf nan", found, EXACT)]

    # clip_grad_norm_: clipped, unclipped, f16 gradient.
    g0, g1, h0 = c["clip_g0"], c["clip_g1"], c["clip_g16"]
    n = g0.numel() + g1.numel()
    (c0, c1), norm = clip([g0, g1], 1.0)
    out += [("clip max_norm 1 grad 0", c0, clip_tolerance(n)),
            ("clip max_norm 1 grad 1", c1, clip_tolerance(n)),
            ("clip max_norm 1 norm", norm, clip_tolerance(n))]
    (d0, d1), norm = clip([g0, g1], 100.0)
    out += [("clip max_norm 100 grad 0 (unchanged)", d0, EXACT),
            ("clip max_norm 100 grad 1 (unchanged)", d1, EXACT),
            ("clip max_norm 100 norm", norm, clip_tolerance(n))]
    # f16: the reference clips the exactly widened gradient in f32; the
    # lowering rounds the f32 product once to f16 (half an f16 ulp more).
    (e0, e1), norm = clip([h0.float(), g1], 0.5)
    f16_tol = dict(clip_tolerance(n), ulp=0.5, ulp_type=torch.float16)
    out += [("clip f16 grad", e0, f16_tol),
            ("clip f16 grad, f32 grad", e1, clip_tolerance(n)),
            ("clip f16 norm", norm, clip_tolerance(n))]

    # update_scale sequences (must match the SEQS in optimizer.mlir).
    seqs = [
        ("a: GradScaler, interval 3", c["scale_a"].item(), 1, "FFFFTFFFTTFFF",
         dict(growth_interval=3)),
        ("b: hysteresis 2, interval 2", c["scale_b"].item(), 2, "TFTTTFFTFF",
         dict(growth_interval=2, hysteresis=2)),
        ("c: min/max clamps, growth 3, backoff 0.25", c["scale_c"].item(), 1,
         "TTFFFFTFF", dict(growth_factor=3.0, backoff_factor=0.25,
                           growth_interval=1, min_scale=2.0, max_scale=50.0)),
        ("d: never grows to inf", c["scale_d"].item(), 1, "FFTF",
         dict(growth_interval=1, max_scale=1e39)),
    ]
    for label, scale, hyst, pattern, attrs in seqs:
        scales, growths, hysts = scaler_sequence(scale, hyst, pattern, **attrs)
        if label.startswith("a"):
            # With hysteresis 1, the scale and growth tracker are
            # GradScaler's (the clamps are not reached here).
            s, g = scale, 0
            for i, ch in enumerate(pattern):
                s, g = grad_scaler_update(s, g, ch == "T", growth_interval=3)
                assert (s, g) == (scales[i].item(), growths[i].item()), label
        out += [(f"update_scale {label}: scale", scales, EXACT),
                (f"update_scale {label}: growth tracker", growths, EXACT),
                (f"update_scale {label}: hysteresis tracker", hysts, EXACT)]
    return out
