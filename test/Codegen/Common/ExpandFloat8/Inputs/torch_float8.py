"""Numerics.h's f8 conversions against PyTorch 2.x's.

Usage: torch_float8.py CHECK, where CHECK is Inputs/float8_check.cpp built.
Runs `CHECK convert` on every bf16 bit pattern (as f32), the f32 values
around every f8 value (neighbours, midpoints and either side of them) and
a few million random f32 bit patterns, and compares its bytes with
torch.float8_e4m3fn and torch.float8_e5m2 conversions (round to nearest
even); the saturating variants against PyTorch's conversion of the value
clamped to +-max (448, 57344). PyTorch's e5m2 overflows to infinity, as
APFloat; its e4m3fn saturates to +-448 in 2.15 (infinity too) where
APFloat gives NaN: the plain comparison takes the Numerics.h variant that
matches the installed PyTorch's behaviour on 1e6 and infinity, and says
which. Widening every f8 bit pattern against torch's too. NaN
results compare as NaN of the same sign: PyTorch writes every e5m2 NaN as
S.11111.11, APFloat (and Numerics.h) keep a payload bit. Prints PASS lines,
or FAIL with the first differences.
"""

import subprocess
import sys

import numpy as np
import torch

FORMATS = [
    # name, dtype, largest finite, byte offset in convert's output
    ("f8E4M3FN", torch.float8_e4m3fn, 448.0, 0),
    ("f8E5M2", torch.float8_e5m2, 57344.0, 1),
]


def is_nan8(codes, name):
    magnitude = codes & 0x7F
    return magnitude == 0x7F if name == "f8E4M3FN" else magnitude > 0x7C


def widen_reference(check):
    """Numerics.h's f32 bits of the 256 e4m3fn and the 256 e5m2 codes."""
    out = subprocess.run([check, "convert", "widen"], capture_output=True,
                         check=True).stdout
    return np.frombuffer(out, dtype="<u4").reshape(2, 256)


def inputs(widened):
    """The f32 bit patterns converted: every bf16 value first."""
    parts = [np.arange(1 << 16, dtype=np.uint32) << 16]  # every bf16
    # Around every f8 value: neighbours and midpoints, either side.
    values = widened.view(np.float32).astype(np.float64).ravel()
    values = np.unique(values[np.isfinite(values)])
    mids = (values[1:] + values[:-1]) / 2
    near = np.concatenate([values, mids]).astype(np.float32).view(np.uint32)
    parts += [near, near + 1, near - 1]
    rng = np.random.default_rng(39)
    parts.append(rng.integers(0, 1 << 32, size=3_000_000, dtype=np.uint32))
    # Random values in and around the f8 ranges (exponents 2^-27 .. 2^33).
    exponents = rng.integers(100, 160, size=1_000_000, dtype=np.uint32)
    mantissas = rng.integers(0, 1 << 23, size=1_000_000, dtype=np.uint32)
    signs = rng.integers(0, 2, size=1_000_000, dtype=np.uint32) << 31
    parts.append(signs | (exponents << 23) | mantissas)
    return np.concatenate(parts).astype("<u4")


def compare(got, want, name):
    """Indices where `got` and `want` (f8 bytes) differ; NaNs are equal
    where their signs are."""
    got_nan = is_nan8(got, name)
    want_nan = is_nan8(want, name)
    same = np.where(want_nan, got_nan & ((got & 0x80) == (want & 0x80)),
                    got == want)
    return np.flatnonzero(~same)


def main():
    check = sys.argv[1]
    widened = widen_reference(check)
    bits = inputs(widened)
    out = subprocess.run([check, "convert"], input=bits.tobytes(),
                         capture_output=True, check=True).stdout
    codes = np.frombuffer(out, dtype=np.uint8).reshape(-1, 4)
    x = torch.from_numpy(bits.view(np.int32).copy()).view(torch.float32)
    failed = False
    for name, dtype, largest, column in FORMATS:
        plain = x.to(dtype).view(torch.uint8).numpy()
        clamped = x.clamp(-largest, largest).to(dtype).view(torch.uint8).numpy()
        # How this PyTorch's conversion overflows: NaN (e4m3fn) or infinity
        # (e5m2) as APFloat, or to the largest finite value.
        overflow = torch.tensor([1e6, float("inf")]).to(dtype).view(
            torch.uint8).tolist()
        nan_or_inf = [0x7F, 0x7F] if name == "f8E4M3FN" else [0x7C, 0x7C]
        largest_code = [0x7E, 0x7E] if name == "f8E4M3FN" else [0x7B, 0x7B]
        if overflow == nan_or_inf:
            print("torch %s overflow: %s" % (
                name, "NaN" if name == "f8E4M3FN" else "infinity"))
            plain_column = column
        elif overflow == largest_code:
            print("torch %s overflow: saturates" % name)
            plain_column = column + 2
        else:
            print("FAIL torch %s overflow: 1e6 and infinity give %s" % (
                name, overflow))
            failed = True
            continue
        for label, got, want in [
                ("f32", codes[:, plain_column], plain),
                ("f32 saturated", codes[:, column + 2], clamped)]:
            bad = compare(got, want, name)
            for i in bad[:5]:
                print("FAIL %s %s: input 0x%08x: Numerics.h 0x%02x, torch "
                      "0x%02x" % (name, label, bits[i], got[i], want[i]))
            failed |= len(bad) > 0
            print("%s %s %s: %d inputs, %d differences" % (
                "FAIL" if len(bad) else "PASS", name, label, len(bits),
                len(bad)))
        # bf16 -> f8 in torch itself, against Numerics.h's f32 of the bf16.
        bf16 = torch.arange(1 << 16, dtype=torch.int32).to(torch.int16)
        bf16 = bf16.view(torch.bfloat16).to(dtype).view(torch.uint8).numpy()
        bad = compare(codes[: 1 << 16, plain_column], bf16, name)
        for i in bad[:5]:
            print("FAIL %s bf16: input 0x%04x: Numerics.h 0x%02x, torch 0x%02x"
                  % (name, i, codes[i, plain_column], bf16[i]))
        failed |= len(bad) > 0
        print("%s %s bf16: 65536 inputs, %d differences" % (
            "FAIL" if len(bad) else "PASS", name, len(bad)))
        # Widening every f8 bit pattern.
        row = 0 if name == "f8E4M3FN" else 1
        torch_bits = (torch.arange(256, dtype=torch.int32).to(torch.uint8)
                      .view(dtype).float().view(torch.int32).numpy()
                      .view(np.uint32))
        ours = widened[row]
        ours_nan = np.isnan(ours.view(np.float32))
        torch_nan = np.isnan(torch_bits.view(np.float32))
        same = np.where(torch_nan, ours_nan & ((ours >> 31) == (torch_bits >> 31)),
                        ours == torch_bits)
        bad = np.flatnonzero(~same)
        for i in bad[:5]:
            print("FAIL %s widen: code 0x%02x: Numerics.h 0x%08x, torch 0x%08x"
                  % (name, i, ours[i], torch_bits[i]))
        failed |= len(bad) > 0
        print("%s %s widen: 256 codes, %d differences" % (
            "FAIL" if len(bad) else "PASS", name, len(bad)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
