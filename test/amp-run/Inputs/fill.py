"""fill.py FILE COUNT VALUE: COUNT little-endian f32 VALUEs, a raw input."""
import struct
import sys

path, count, value = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with open(path, "wb") as f:
    f.write(struct.pack("<%df" % count, *([value] * count)))
