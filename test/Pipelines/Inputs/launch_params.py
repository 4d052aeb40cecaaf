#!/usr/bin/env python3
"""Checks that every gpu.launch_func of an amp-gpu-pipeline{format=isa}
output passes as many arguments as its kernel's PTX .entry declares
.params: cuLaunchKernel reads one pointer per kernel parameter from the
array the host builds, so a mismatch (bare pointers on the host, memref
descriptors in the kernel) reads past it. Prints one line per mismatch and
a summary `launches N, mismatched M`."""
import re
import sys

from extract_ptx import BINARY, unescape

LAUNCH = re.compile(r"gpu\.launch_func .*?@([A-Za-z0-9_$.]+)::@([A-Za-z0-9_$.]+)"
                    r".*? args\((.*)\)\s*$")
ENTRY = re.compile(r"\.entry\s+([A-Za-z0-9_$]+)\s*\((.*?)\)", re.S)

text = sys.stdin.read()
params = {}
for binary in BINARY.finditer(text):
    for entry in ENTRY.finditer(unescape(binary.group(2))):
        params[(binary.group(1), entry.group(1))] = \
            entry.group(2).count(".param")

launches = mismatched = 0
for line in text.splitlines():
    match = LAUNCH.search(line)
    if not match:
        continue
    launches += 1
    module, kernel, args = match.groups()
    passed = len(re.findall(r"%[A-Za-z0-9_#]+ :", args))
    expected = params.get((module, kernel))
    if expected != passed:
        mismatched += 1
        print("%s::%s: the host passes %d arguments, the kernel takes %s" %
              (module, kernel, passed, expected))
print("launches %d, mismatched %d" % (launches, mismatched))
sys.exit(1 if mismatched or not launches else 0)
