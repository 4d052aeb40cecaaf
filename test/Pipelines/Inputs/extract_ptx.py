#!/usr/bin/env python3
"""Prints the PTX held by the gpu.binary ops of an MLIR file (made with
amp-gpu-pipeline{format=isa}), or with --dir DIR writes one DIR/<name>.ptx per
gpu.binary, since ptxas takes one module per file."""
import argparse
import os
import re
import sys

BINARY = re.compile(r'gpu\.binary @([A-Za-z0-9_$.]+).*?assembly = "((?:[^"\\]|\\.)*)"')


def unescape(text):
    # MLIR prints string attributes with \XX hex escapes and \\ / \".
    return re.sub(r'\\([0-9A-Fa-f]{2}|\\|")',
                  lambda m: m.group(1) if m.group(1) in ('\\', '"')
                  else chr(int(m.group(1), 16)), text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir")
    args = parser.parse_args()
    found = 0
    for line in sys.stdin:
        for match in BINARY.finditer(line):
            found += 1
            name, ptx = match.group(1), unescape(match.group(2))
            if args.dir:
                with open(os.path.join(args.dir, name + ".ptx"), "w") as out:
                    out.write(ptx)
            else:
                sys.stdout.write("// gpu.binary @%s\n%s\n" % (name, ptx))
    if not found:
        sys.exit("extract_ptx.py: no gpu.binary with PTX (format=isa) in the input")


if __name__ == "__main__":
    main()
