#!/usr/bin/env python3
"""Runs ptxas on every DIR/*.ptx (written by extract_ptx.py --dir: one per
gpu.binary, which holds all of a step's kernels) and prints how many kernels
(.entry functions) it accepted; exits non-zero, naming the file, on the
first one it rejects."""
import glob
import os
import subprocess
import sys

ptxas, arch, directory = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted(glob.glob(os.path.join(directory, "*.ptx")))
if not files:
    sys.exit("ptxas_all.py: no .ptx file in %s" % directory)
kernels = 0
for path in files:
    result = subprocess.run([ptxas, "-arch=" + arch, path, "-o", os.devnull],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("ptxas rejected %s:\n%s" % (path, result.stderr))
    with open(path) as ptx:
        kernels += sum(line.lstrip().startswith(".visible .entry ")
                       for line in ptx)
print("ptxas accepted %d kernels" % kernels)
