"""PyTorch reference for data_movement.mlir (see compare_with_torch.py).

Data movement copies values, so every result must be exact: no tolerance
(the inputs are short multiples of 1/32 that print exactly and are exact
in f16 and bf16 as well).
"""

import torch

EXACT = {}


def reference(c):
    x, m, row, col = c["x"], c["m"], c["row"], c["col"]
    b214, single, c1, c2 = c["b214"], c["single"], c["c1"], c["c2"]
    out = [
        ("reshape 2x3x4 -> 6x4", x.reshape(6, 4)),
        ("reshape 2x3x4 -> 4x3x2", x.reshape(4, 3, 2)),
        ("reshape 2x3x4 -> 24", x.reshape(24)),
        ("reshape 1x1 -> scalar", single.reshape(())),
        ("transpose 2,0,1", x.permute(2, 0, 1)),
        ("transpose 1,0", m.t()),
        ("transpose then reshape", x.permute(0, 2, 1).reshape(8, 3)),
        ("broadcast 4 -> 3x4", row.expand(3, 4)),
        ("broadcast 3x1 -> 3x4", col.expand(3, 4)),
        ("broadcast 4 -> 2x3x4", row.expand(2, 3, 4)),
        ("broadcast 2x1x4 -> 2x3x4", b214.expand(2, 3, 4)),
        ("slice strides 1,1,2", x[0:2, 1:3, 0:4:2]),
        ("slice strides 2,3", m[1:6:2, 0:4:3]),
        ("slice offset", m[2:5, 1:4]),
        ("strided slice then reshape", x[1:2, 0:3:2, 1:4:2].reshape(4)),
        ("concat axis 1", torch.cat([x, c1, c2], 1)),
        ("concat axis -1", torch.cat([x, x], -1)),
        ("concat axis 0 of a transpose", torch.cat([m.t(), m.t()], 0)),
    ]
    for name, low in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
        moved = x.to(low).permute(1, 2, 0)[0:3:2, 1:4:2, 0:2]
        out.append((f"transpose slice concat {name}",
                    torch.cat([moved, moved], 2).float()))
    return [(label, expected, EXACT) for label, expected in out]
