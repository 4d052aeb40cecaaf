"""Reads and writes amp checkpoints (lib/Runtime/Checkpoint.cpp).

Layout, little-endian: b"AMPSTATE", u32 version (1 or 2), u32 count, then
per tensor: u32 name length, name, i32 dtype, i32 rank, i64 shape[rank],
u64 byte count, raw data; version 2 ends with the u32 CRC-32 (zlib's) of
everything before it. write() makes version 1, which the runtime reads too.
"""
import struct
import zlib

import numpy as np

DTYPES = {0: np.float32, 1: np.float16, 3: np.int64, 4: np.int32, 5: np.bool_}
CODES = {np.dtype(v): k for k, v in DTYPES.items()}


def write(path, tensors):
    """tensors: list of (name, numpy array) in any order."""
    with open(path, "wb") as f:
        f.write(b"AMPSTATE" + struct.pack("<II", 1, len(tensors)))
        for name, array in tensors:
            array = np.array(array, copy=True, order="C")  # keeps 0-d
            raw = name.encode()
            f.write(struct.pack("<I", len(raw)) + raw)
            f.write(struct.pack("<ii", CODES[array.dtype], array.ndim))
            f.write(struct.pack("<%dq" % array.ndim, *array.shape))
            data = array.tobytes()
            f.write(struct.pack("<Q", len(data)) + data)


def read(path):
    """Returns {name: numpy array}; bf16 tensors come back widened to f32."""
    with open(path, "rb") as f:
        blob = f.read()
    assert blob[:8] == b"AMPSTATE", "not an amp checkpoint"
    version, count = struct.unpack_from("<II", blob, 8)
    assert version in (1, 2), "checkpoint version %d" % version
    if version == 2:
        (crc,) = struct.unpack_from("<I", blob, len(blob) - 4)
        assert zlib.crc32(blob[:-4]) == crc, "checksum mismatch"
    offset, tensors = 16, {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", blob, offset)
        name = blob[offset + 4:offset + 4 + length].decode()
        offset += 4 + length
        dtype, rank = struct.unpack_from("<ii", blob, offset)
        shape = struct.unpack_from("<%dq" % rank, blob, offset + 8)
        offset += 8 + 8 * rank
        (size,) = struct.unpack_from("<Q", blob, offset)
        offset += 8
        if dtype == 2:  # bf16: numpy has none, widen to f32 (exact)
            raw = np.frombuffer(blob[offset:offset + size], np.uint16)
            array = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            array = np.frombuffer(blob[offset:offset + size], DTYPES[dtype])
        tensors[name] = array.reshape(shape)
        offset += size
    return tensors
