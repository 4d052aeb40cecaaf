"""The sorted (segmented) gather_grad and the 32-bit check_indices on the CPU,
against references computed here (see gather_grad_segments.test).

`make DIR` writes DIR/case.mlir: constant inputs, the ops, and their
results printed with printMemrefI32/I64, floats as their bit patterns.
`check OUT` parses mlir-runner's output and compares:
  - gather_grad: with the bits of a float32 sum over the tokens naming each
    row, in token order from +0 (what the dense formulation computed, and
    what the segmented one must keep), ids clamped as amp.gather clamps
    them (negative ids wrap once, then [0, size - 1]); the padding row zero.
    Also, within 1e-5, with PyTorch's embedding backward (index_add in
    float64) where the ids are in range;
  - check_indices: the flag and the exact least and greatest index, with
    i64 ids whose high words differ in sign and size (the low words are then
    compared only among the ids at the extreme high word).
"""
import re
import sys

import numpy as np

SIZE = 37  # rows of the table
WIDTH = 5
RNG = np.random.default_rng(1234)

# 4 x 12 ids: repeats (row 3 twelve times), the padding row 7, negative ids
# (wrapped: -1 -> 36) and ids past the table (clamped to 36 and 0).
IDS = RNG.integers(0, 12, size=(4, 12))
IDS[:, 0] = 3
IDS[1, :] = 3
IDS[0, 5] = 7
IDS[2, 7] = 7
IDS[3, 3] = -1
IDS[3, 4] = 40
IDS[3, 5] = -60
IDS[2, 2] = 36
GRAD = RNG.standard_normal((4, 12, WIDTH)).astype(np.float32) * np.float32(
    1e3) ** RNG.integers(-1, 2, size=(4, 12, 1)).astype(np.float32)
PADDING = 7

# Axis 1 with i32 ids: grad [2, 6, 3] -> result [2, 9, 3].
IDS1 = np.array([4, 0, 4, 8, 4, -2], dtype=np.int32)
GRAD1 = RNG.standard_normal((2, 6, 3)).astype(np.float32)
SIZE1 = 9

# 300 tokens over 50 rows (nine merge passes, the last runs partial), ids
# in [-55, 60): some wrap, some clamp; padding_idx 5.
IDS2 = RNG.integers(-55, 60, size=(3, 100))
GRAD2 = RNG.standard_normal((3, 100, 3)).astype(np.float32) * np.float32(
    1e2) ** RNG.integers(-1, 2, size=(3, 100, 1)).astype(np.float32)
SIZE2 = 50

# check_indices cases: (ids, lower, upper).
CHECKS = [
    (np.array([5, -3, 2 ** 33 + 7, 2 ** 33 + 2, -(2 ** 40) + 5,
               -(2 ** 40) + 9, 0], dtype=np.int64), 0, 50304),
    (np.array([[17, 3, 3], [50303, 0, 12]], dtype=np.int64), 0, 50304),
    (np.array([2 ** 32 - 1, 2 ** 32, 2 ** 31, 1], dtype=np.int64), -5, 2 ** 32),
    (np.array([-7, 4, -2 ** 31, 2 ** 31 - 1], dtype=np.int32), -2 ** 31, 2 ** 31 - 1),
]


def dense(values, mlir_type):
    flat = ", ".join(repr(float(v)) if values.dtype.kind == "f" else str(int(v))
                     for v in values.reshape(-1))
    return "dense<[%s]> : %s" % (flat, mlir_type) if values.ndim == 1 else \
        "dense<%s> : %s" % (nested(values), mlir_type)


def nested(values):
    if values.ndim == 0:
        v = values.item()
        return repr(float(v)) if isinstance(v, float) else str(int(v))
    return "[" + ", ".join(nested(v) for v in values) + "]"


def tensor_type(shape, element):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), element)


def make(directory):
    lines = ["func.func private @printMemrefI32(tensor<*xi32>)",
             "func.func private @printMemrefI64(tensor<*xi64>)",
             ""]
    body = []
    counter = [0]

    def fresh():
        counter[0] += 1
        return "%%v%d" % counter[0]

    def print_f32_bits(value, shape):
        t = tensor_type(shape, "f32")
        ti = tensor_type(shape, "i32")
        rank = len(shape)
        dims = ", ".join("d%d" % i for i in range(rank))
        empty, bits, cast = fresh(), fresh(), fresh()
        body.append("%s = tensor.empty() : %s" % (empty, ti))
        body.append(
            "%s = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>, "
            "affine_map<(%s) -> (%s)>], iterator_types = [%s]} ins(%s : %s) "
            "outs(%s : %s) {\n^bb0(%%x: f32, %%o: i32):\n"
            "  %%b = arith.bitcast %%x : f32 to i32\n  linalg.yield %%b : i32\n"
            "} -> %s" % (bits, dims, dims, dims, dims,
                         ", ".join(['"parallel"'] * rank), value, t, empty, ti,
                         ti))
        body.append("%s = tensor.cast %s : %s to tensor<*xi32>" % (cast, bits, ti))
        body.append("call @printMemrefI32(%s) : (tensor<*xi32>) -> ()" % cast)

    def gather_grad(grad, ids, result_shape, attrs, id_type):
        g, i, r = fresh(), fresh(), fresh()
        gt = tensor_type(grad.shape, "f32")
        it = tensor_type(ids.shape, id_type)
        rt = tensor_type(result_shape, "f32")
        body.append("%s = arith.constant %s" % (g, dense(grad, gt)))
        body.append("%s = arith.constant %s" % (i, dense(ids, it)))
        body.append("%s = amp.gather_grad %s, %s {%s} : (%s, %s) -> %s"
                    % (r, g, i, attrs, gt, it, rt))
        print_f32_bits(r, result_shape)

    gather_grad(GRAD, IDS, (SIZE, WIDTH), "padding_idx = %d : i64" % PADDING,
                "i64")
    gather_grad(GRAD, IDS, (SIZE, WIDTH), "axis = 0 : i64", "i64")
    gather_grad(GRAD1, IDS1, (2, SIZE1, 3), "axis = 1 : i64", "i32")

    for ids, lower, upper in CHECKS:
        element = "i64" if ids.dtype == np.int64 else "i32"
        i, bad, rng, one, flag, c1, c2 = (fresh() for _ in range(7))
        it = tensor_type(ids.shape, element)
        body.append("%s = arith.constant %s" % (i, dense(ids, it)))
        body.append("%s, %s = amp.check_indices %s {lower = %d : i64, upper = "
                    "%d : i64} : %s -> tensor<i1>, tensor<2xi64>"
                    % (bad, rng, i, lower, upper, it))
        body.append("%s = tensor.extract %s[] : tensor<i1>" % (one, bad))
        body.append("%s_w = arith.extui %s : i1 to i32" % (one, one))
        body.append("%s = tensor.from_elements %s_w : tensor<1xi32>" % (flag, one))
        body.append("%s = tensor.cast %s : tensor<1xi32> to tensor<*xi32>"
                    % (c1, flag))
        body.append("call @printMemrefI32(%s) : (tensor<*xi32>) -> ()" % c1)
        body.append("%s = tensor.cast %s : tensor<2xi64> to tensor<*xi64>"
                    % (c2, rng))
        body.append("call @printMemrefI64(%s) : (tensor<*xi64>) -> ()" % c2)

    gather_grad(GRAD2, IDS2, (SIZE2, 3), "padding_idx = 5 : i64", "i64")

    lines.append("func.func @main() {")
    lines += ["  " + line.replace("\n", "\n  ") for line in body]
    lines += ["  return", "}"]
    with open(directory + "/case.mlir", "w") as f:
        f.write("\n".join(lines) + "\n")


def clamp(index, size):
    if index < 0:
        index += size
    return min(max(index, 0), size - 1)


def reference(grad, ids, size, axis, padding=None):
    """float32 sums in token order from +0, ids clamped."""
    grad = np.moveaxis(grad, axis, 0).reshape(ids.size, -1)
    out = np.zeros((size, grad.shape[1]), dtype=np.float32)
    for t, index in enumerate(ids.reshape(-1)):
        k = clamp(int(index), size)
        if k == padding:
            continue
        out[k] = out[k] + grad[t]  # one f32 rounding per token, in order
    return out


def parse(text):
    """The printed tensors, flattened, in order."""
    tensors = []
    for block in re.split(r"Unranked Memref", text)[1:]:
        data = block.split("data =", 1)[1]
        tensors.append(np.array([int(x) for x in re.findall(r"-?\d+", data)],
                                dtype=np.int64))
    return tensors


def check(path):
    import torch
    tensors = parse(open(path).read())
    ok = True

    def report(name, good, detail=""):
        nonlocal ok
        ok = ok and good
        print("%s %s%s" % ("PASS" if good else "FAIL", name, detail))

    def as_f32(bits):
        return bits.astype(np.int64).astype(np.uint32).view(np.float32)

    cases = [("axis 0 padding_idx", GRAD, IDS, SIZE, 0, PADDING),
             ("axis 0", GRAD, IDS, SIZE, 0, None)]
    for n, (name, grad, ids, size, axis, padding) in enumerate(cases):
        got = as_f32(tensors[n]).reshape(size, WIDTH)
        want = reference(grad, ids, size, axis, padding)
        same = np.array_equal(got.view(np.uint32), want.view(np.uint32))
        report("gather_grad %s: bits of the token-order f32 sums" % name, same)
        # PyTorch, for the ids in range, in float64.
        in_range = (IDS >= -SIZE) & (IDS < SIZE)
        flat = np.where(IDS < 0, IDS + SIZE, IDS)[in_range]
        g = torch.from_numpy(GRAD[in_range].astype(np.float64))
        torch_ids = torch.from_numpy(flat.astype(np.int64))
        weight = torch.zeros(size, WIDTH, dtype=torch.float64,
                             requires_grad=True)
        torch.nn.functional.embedding(torch_ids, weight,
                                      padding_idx=padding).backward(g)
        expected = weight.grad.numpy().copy()
        for t in np.flatnonzero(~in_range.reshape(-1)):
            k = clamp(int(IDS.reshape(-1)[t]), size)
            if k != padding:
                expected[k] += GRAD.reshape(-1, WIDTH)[t]
        err = np.max(np.abs(got - expected) / (1 + np.abs(expected)))
        report("gather_grad %s: PyTorch's embedding backward" % name,
               err < 1e-5, " (max rel err %.1e)" % err)
        if padding is not None:
            report("gather_grad %s: padding row zero" % name,
                   np.all(got[padding].view(np.uint32) == 0))

    got = as_f32(tensors[2]).reshape(2, SIZE1, 3)
    want = np.stack([reference(GRAD1[b:b + 1], IDS1, SIZE1, 1)
                     for b in range(2)])
    report("gather_grad axis 1 i32: bits of the token-order f32 sums",
           np.array_equal(got.view(np.uint32), want.view(np.uint32)))

    for n, (ids, lower, upper) in enumerate(CHECKS):
        flag = int(tensors[3 + 2 * n][0])
        least, greatest = (int(x) for x in tensors[4 + 2 * n])
        want = (int(ids.min() < lower or ids.max() >= upper),
                int(ids.min()), int(ids.max()))
        report("check_indices case %d: flag %d, range [%d, %d]"
               % (n, flag, least, greatest), (flag, least, greatest) == want)
    got = as_f32(tensors[-1]).reshape(SIZE2, 3)
    want = reference(GRAD2, IDS2, SIZE2, 0, 5)
    report("gather_grad 300 tokens, 50 rows, padding_idx: bits of the "
           "token-order f32 sums",
           np.array_equal(got.view(np.uint32), want.view(np.uint32)))
    print("ALL PASS" if ok else "SOME FAILED")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2])
