#!/usr/bin/env python3
"""Damages a compiled model library in many places and checks a tool on each.

    damaged_library.py --input LIB --work DIR [--unchanged PATH]...
                       [--timeout SECONDS] -- COMMAND...

In COMMAND, @IN@ is the damaged copy of the case. Each case flips 8 bytes
(XOR 0xff) of a copy of LIB:

  - in the middle of each of the sections whose damage made the dynamic
    loader or the first call die of SIGSEGV, or ld.so print "symbol lookup
    error" (issue 34, item 3): .dynamic, .dynsym, .gnu.hash, .rela.dyn,
    .rela.plt (each must exist: a library without one would make the case
    pass untried), and in .dynstr, .text, .rodata, .data.rel.ro, .got,
    .got.plt, .init_array, .eh_frame and .data when present;
  - at 16 offsets spread over the file (seeded by its size);
  - in the ELF header, the program and section header tables;
  - in the checksum trailer: its hash, its length, its magic; and the file
    with 8 bytes appended after the trailer.

Every case must exit with status 1 (expect_error.py's rules: no signal, no
crash report, every --unchanged PATH as it was) and name the copy; a case
whose bytes are all past the ELF header and outside the header tables must
say "checksum mismatch" (the ELF check sees nothing wrong there), and the
trailer cases their own reasons. Prints a line per case and exits 1 if any
failed (0 in survey mode, see expect_error.py).
"""

import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect_error  # noqa: E402

REQUIRED = [".dynamic", ".dynsym", ".gnu.hash", ".rela.dyn", ".rela.plt"]
OPTIONAL = [".dynstr", ".text", ".rodata", ".data.rel.ro", ".got",
            ".got.plt", ".init_array", ".eh_frame", ".data"]
MISMATCH = ("checksum mismatch: the library was modified or damaged after "
            "amp-compile wrote it; recompile it")
TRAILER = 32 + 8 + 16


def sections(data):
    """{name: (offset, size)} of the sections that have bytes in the file,
    and the header tables as (offset, size) ranges."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from(
        "<HHHHH", data, 0x36)
    headers = []
    for i in range(shnum):
        headers.append(struct.unpack_from("<IIQQQQIIQQ", data,
                                          shoff + i * shentsize))
    names_offset = headers[shstrndx][4]
    found = {}
    for name, kind, _, _, offset, size, _, _, _, _ in headers:
        end = data.index(b"\0", names_offset + name)
        text = data[names_offset + name:end].decode()
        if kind != 8 and size >= 8:  # not SHT_NOBITS
            found[text] = (offset, size)
    tables = [(0, 64), (phoff, phentsize * phnum), (shoff, shentsize * shnum)]
    return found, tables


def overlaps(start, tables):
    return any(start < offset + size and offset < start + 8
               for offset, size in tables)


def flipped(data, start):
    copy = bytearray(data)
    for i in range(start, start + 8):
        copy[i] ^= 0xFF
    return bytes(copy)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--unchanged", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=300)
    args, command = expect_error.split_command(parser)
    data = open(args.input, "rb").read()
    size = len(data)
    if data[-16:] != b"amp checksum v1\n":
        print("damaged_library: %s has no checksum trailer" % args.input)
        return 1
    found, tables = sections(data)
    missing = [name for name in REQUIRED if name not in found]
    if missing:
        print("damaged_library: %s has no %s" % (args.input,
                                                 ", ".join(missing)))
        return 1

    cases = []  # (name, bytes, expected texts)
    for name in REQUIRED + [n for n in OPTIONAL if n in found]:
        offset, length = found[name]
        start = offset + max(0, length // 2 - 4)
        start = min(start, offset + length - 8)
        cases.append(("section " + name, flipped(data, start), [MISMATCH]))
    rng = random.Random(size)
    body = size - TRAILER
    for start in sorted({rng.randrange(0, body - 8) for _ in range(16)}):
        expected = [] if overlaps(start, tables) else [MISMATCH]
        cases.append(("offset %d" % start, flipped(data, start), expected))
    for name, (offset, length) in [("ELF header", tables[0]),
                                   ("program headers", tables[1]),
                                   ("section headers", tables[2])]:
        cases.append((name, flipped(data, offset + length // 2 - 4), []))
    cases.append(("trailer hash", flipped(data, body + 12), [MISMATCH]))
    cases.append(("trailer length", flipped(data, body + 32),
                  ["its checksum covers"]))
    cases.append(("trailer magic", flipped(data, size - 12),
                  ["it has no checksum"]))
    cases.append(("bytes appended", data + b"\0" * 8, ["it has no checksum"]))

    os.makedirs(args.work, exist_ok=True)
    results = []
    for index, (name, contents, expected) in enumerate(cases):
        path = os.path.join(args.work, "damaged%d.so" % index)
        with open(path, "wb") as f:
            f.write(contents)
        run = [word.replace("@IN@", path) for word in command]
        problems, stderr = expect_error.check(
            run, [os.path.basename(path)] + expected, (), args.unchanged,
            args.timeout)
        results.append(expect_error.report(name, run, problems, stderr))
    failed = results.count(False)
    print("damaged_library: %d cases, %d failed" % (len(results), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
