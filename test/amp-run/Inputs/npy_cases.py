"""Writes .npy files for test/amp-run/inputs.test into a folder: a good
one for a float32 tensor of shape (32, 64), and one per way its header can
be wrong (each field: magic, version, header length, dict syntax, dtype,
fortran_order, shape, data size)."""
import os
import struct
import sys

import numpy as np

folder = sys.argv[1]
good = np.zeros((32, 64), np.float32)


def npy(header, data=good.tobytes(), version=b"\x01\x00", length=None):
    header = header.encode()
    header += b" " * ((-len(header) - 11) % 64) + b"\n"
    if length is None:
        length = len(header)
    size = struct.pack("<H" if version[0] == 1 else "<I", length)
    return b"\x93NUMPY" + version + size + header + data


def dict_header(descr="'<f4'", order="False", shape="(32, 64)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
        descr, order, shape)


cases = {
    "good": npy(dict_header()),
    "version2": npy(dict_header(), version=b"\x02\x00"),
    "magic": b"\x93NUMPZ" + npy(dict_header())[6:],
    "version": npy(dict_header(), version=b"\x04\x00"),
    "length": npy(dict_header(), length=60000),
    "preamble": b"\x93NUMPY\x01",
    "syntax": npy("{'descr': '<f4' 'fortran_order': False, 'shape': (32, 64)}"),
    "key": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (32, 64), "
               "'extra': 1}"),
    "missing": npy("{'descr': '<f4', 'shape': (32, 64)}"),
    "descr": npy(dict_header(descr="'<f8'")),
    "bigendian": npy(dict_header(descr="'>f4'")),
    "order": npy(dict_header(order="1")),
    "fortran": npy(dict_header(order="True")),
    "shape": npy(dict_header(shape="(32, -64)")),
    "transposed": npy(dict_header(shape="(64, 32)")),
    "flat": npy(dict_header(shape="(2048,)")),
    "short": npy(dict_header(), data=good.tobytes()[:-4]),
    "long": npy(dict_header(), data=good.tobytes() + b"\0" * 4),
    "trailing": npy(dict_header() + " x"),
}
for name, contents in cases.items():
    with open(os.path.join(folder, name + ".npy"), "wb") as f:
        f.write(contents)
# numpy reads the good ones (the writer above is right).
assert np.load(os.path.join(folder, "good.npy")).shape == (32, 64)
assert np.load(os.path.join(folder, "version2.npy")).shape == (32, 64)
