"""extract-object.py MLIR OUT [KIND]: writes the contents of the first
gpu.object's KIND string (bin, the default, or assembly) of an MLIR file to
OUT ("-" for standard output): the emulated device's kernel object for
amp-cuda-emulator-check, or its host LLVM IR for FileCheck. MLIR prints the
string with \\XX hex escapes for bytes that are not printable, and \\\\ and
\\" for the backslash and the quote."""
import re
import sys

text = open(sys.argv[1], encoding="latin-1").read()
kind = sys.argv[3] if len(sys.argv) > 3 else "bin"
match = re.search(kind + r' = "((?:[^"\\]|\\.)*)"', text)
if not match:
    sys.exit("no gpu.object with %s = \"...\" in %s" % (kind, sys.argv[1]))
escaped = match.group(1)
data = bytearray()
i = 0
while i < len(escaped):
    c = escaped[i]
    if c != "\\":
        data.append(ord(c))
        i += 1
    elif escaped[i + 1] in "\\\"":
        data.append(ord(escaped[i + 1]))
        i += 2
    else:
        data.append(int(escaped[i + 1:i + 3], 16))
        i += 3
if sys.argv[2] == "-":
    sys.stdout.buffer.write(bytes(data))
else:
    open(sys.argv[2], "wb").write(bytes(data))
