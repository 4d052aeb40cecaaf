#!/usr/bin/env python3
"""Generates many hostile variants of one input and checks a tool on each.

    sweep.py truncate --input FILE --work DIR [--count N] [--onnx]
                      [common options] -- COMMAND...
    sweep.py bitflip  --input CKPT --work DIR [common options] -- COMMAND...
    sweep.py outputs  --work DIR [common options] -- COMMAND...
    sweep.py devices  --work DIR [--keep PATH]... -- COMMAND...

In COMMAND, @IN@ is the hostile file of the case, @OUT@ the output path of
the case (outputs, devices). Common options, as expect_error.py's:
--stderr TEXT, --stderr-re REGEX, --unchanged PATH. Each case checks that
stderr names the option at fault (the --stderr texts) or, without them, the
file of the case (@IN@'s base name; for outputs, @OUT@'s and the reason).

truncate: every prefix at N offsets (the first bytes, evenly spread ones, the
  last byte) must be refused. With --onnx, prefixes that end exactly on a
  top-level field of the ModelProto after its graph are skipped: such a
  prefix is a valid, smaller model.
bitflip: one bit flipped in every structural byte of an amp checkpoint
  (header, names, dtypes, ranks, shapes, byte counts; in version 1 not the
  tensor data, whose flips give another valid checkpoint; from version 2 on,
  whose CRC-32 covers the data, also the checksum and sampled data bytes)
  must be refused, and the file (which COMMAND may also name as --save) must
  stay as it was.
outputs: the output @OUT@ on a full disk (a link to /dev/full), in a missing
  directory, through a dangling link into a missing directory, under a
  regular file, and on a non-empty directory must each be refused with the
  reason, leaving the work directory (the link too) and /dev/full as they
  were.
devices: the output @OUT@ as a link to /dev/null and as a FIFO must succeed
  (exit 0) with the data written through them, leaving both in place.

Prints a line per case and exits 1 if any case failed (0 in survey mode,
see expect_error.py).
"""

import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect_error  # noqa: E402


def substitute(command, **values):
    out = []
    for word in command:
        for key, value in values.items():
            word = word.replace("@%s@" % key, value)
        out.append(word)
    return out


def run_case(args, name, command, path, unchanged=()):
    # The message names the option at fault when --stderr gives it (e.g.
    # --load), else the file of the case.
    texts = args.stderr or [os.path.basename(path)]
    problems, stderr = expect_error.check(
        command, texts, args.stderr_re,
        list(args.unchanged) + list(unchanged), args.timeout)
    return expect_error.report(name, command, problems, stderr)


def finish(results):
    failed = results.count(False)
    print("sweep: %d cases, %d failed" % (len(results), failed))
    return 1 if failed else 0


def offsets(size, count):
    """The first bytes, `count` spread offsets and the last byte."""
    chosen = {0, 1, 3, 4, 5, 8, 16, 63, 64, 65, size // 2, size - 1}
    rng = random.Random(size)
    chosen.update(rng.randrange(size) for _ in range(count // 2))
    chosen.update(size * i // (count // 2) for i in range(count // 2))
    return sorted(o for o in chosen if 0 <= o < size)


def read_varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def onnx_valid_prefixes(data):
    """Ends of the top-level fields after ModelProto.graph (field 7)."""
    pos, ends, seen_graph = 0, set(), False
    while pos < len(data):
        key, pos = read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = read_varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = read_varint(data, pos)
            pos += length
        elif wire == 5:
            pos += 4
        else:
            raise ValueError("not a protobuf message")
        seen_graph = seen_graph or field == 7
        if seen_graph:
            ends.add(pos)
    return ends


def truncate(args):
    data = open(args.input, "rb").read()
    skip = onnx_valid_prefixes(data) if args.onnx else set()
    ext = os.path.splitext(args.input)[1]
    results = []
    for offset in offsets(len(data), args.count):
        if offset in skip:
            continue
        path = os.path.join(args.work, "trunc-%d%s" % (offset, ext))
        with open(path, "wb") as f:
            f.write(data[:offset])
        command = substitute(args.command, IN=path)
        results.append(run_case(args, "%s truncated to %d of %d bytes" % (
            os.path.basename(args.input), offset, len(data)), command, path,
            unchanged=[path]))
        os.remove(path)
    return finish(results)


def checkpoint_structure(data):
    """Offsets of the bytes of an amp checkpoint (docs/Driver.md) whose flip
    must be detected: the structure (header, names, dtypes, ranks, shapes,
    byte counts) and, from version 2 on, which ends in a CRC-32 of all the
    bytes before it, the checksum and a sample of the tensor data too."""
    if data[:8] != b"AMPSTATE":
        raise ValueError("not an amp checkpoint")
    (version, count) = struct.unpack_from("<II", data, 8)
    detected = list(range(16))
    payload = []
    pos = 16
    for _ in range(count):
        (name_length,) = struct.unpack_from("<I", data, pos)
        (rank,) = struct.unpack_from("<i", data, pos + 4 + name_length + 4)
        header = 4 + name_length + 4 + 4 + 8 * rank + 8
        (nbytes,) = struct.unpack_from("<Q", data, pos + header - 8)
        detected += range(pos, pos + header)
        payload += range(pos + header, pos + header + nbytes)
        pos += header + nbytes
    checksum = 4 if version >= 2 else 0
    if pos + checksum != len(data):
        raise ValueError("checkpoint has %d trailing bytes" %
                         (len(data) - pos - checksum))
    if checksum:
        detected += range(pos, pos + checksum)
        detected += payload[::max(1, len(payload) // 16)]
    return sorted(detected)


def bitflip(args):
    data = open(args.input, "rb").read()
    results = []
    for offset in checkpoint_structure(data):
        bit = offset % 8
        flipped = bytearray(data)
        flipped[offset] ^= 1 << bit
        path = os.path.join(args.work, "flip-%d-%d.ckpt" % (offset, bit))
        with open(path, "wb") as f:
            f.write(flipped)
        command = substitute(args.command, IN=path)
        results.append(run_case(args, "byte %d bit %d flipped" % (offset, bit),
                                command, path, unchanged=[path]))
        os.remove(path)
    return finish(results)


# The bad output locations: (kind, how to make it, reason regex).
BAD_OUTPUTS = [
    ("full", "full", r"(?i)no space left on device"),
    ("missing", "missing-dir/out", r"(?i)no such file or directory"),
    ("dangling", "dangling", r"(?i)missing-dir/out.*no such file or directory"),
    ("under-file", "a-file/out", r"(?i)not a directory"),
    ("directory", "a-directory", r"(?i)is a directory|directory not empty"),
]


def outputs(args):
    results = []
    for kind, relative, reason in BAD_OUTPUTS:
        work = os.path.join(args.work, kind)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        os.symlink("/dev/full", os.path.join(work, "full"))
        os.symlink("missing-dir/out", os.path.join(work, "dangling"))
        with open(os.path.join(work, "a-file"), "w") as f:
            f.write("a regular file\n")
        os.makedirs(os.path.join(work, "a-directory"))
        with open(os.path.join(work, "a-directory", "inside"), "w") as f:
            f.write("kept\n")
        out = os.path.join(work, relative)
        command = substitute(args.command, OUT=out)
        problems, stderr = expect_error.check(
            command, [os.path.basename(out)] + args.stderr,
            args.stderr_re + [reason],
            list(args.unchanged) + [work, "/dev/full"], args.timeout)
        results.append(expect_error.report("output %s (%s)" % (kind, out),
                                           command, problems, stderr))
    return finish(results)


def devices(args):
    """Outputs through a link to /dev/null and into a FIFO succeed."""
    results = []
    os.makedirs(args.work, exist_ok=True)
    null = os.path.join(args.work, "null")
    if not os.path.lexists(null):
        os.symlink("/dev/null", null)
    fifo = os.path.join(args.work, "fifo")
    if not os.path.lexists(fifo):
        os.mkfifo(fifo)
    for out in (null, fifo):
        received = []
        reader = None
        if out == fifo:
            # Opening a FIFO for reading blocks until a writer opens it; a
            # tool that renames a file over it never does, so read without
            # blocking the test.
            def read_fifo():
                with open(fifo, "rb") as f:
                    received.append(f.read())
            reader = threading.Thread(target=read_fifo, daemon=True)
            reader.start()
        command = substitute(args.command, OUT=out)
        before = {path: expect_error.path_state(path)
                  for path in [out] + args.keep}
        try:
            result = subprocess.run(command, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE,
                                    timeout=args.timeout)
            returncode = result.returncode
            stderr = result.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            returncode, stderr = None, ""
        problems = []
        if returncode != 0:
            problems.append("exited with %s, expected 0" % returncode)
        if reader:
            reader.join(10)
            if reader.is_alive():
                # Unblock the reader: open the FIFO for writing once.
                problems.append("nothing was written to the FIFO")
                if expect_error.path_state(fifo) == ("fifo",):
                    with open(fifo, "wb"):
                        pass
                reader.join(10)
            elif not received or not received[0]:
                problems.append("the FIFO received no data")
        for path, state in before.items():
            after = expect_error.path_state(path)
            if after != state:
                problems.append("%s changed: was %s, is %s" % (
                    path, expect_error.describe_state(state),
                    expect_error.describe_state(after)))
        problems += expect_error.check_devices()
        name = "output to %s" % ("a FIFO" if out == fifo else "a /dev/null link")
        if problems:
            print("sweep: FAIL %s: %s" % (name, "; ".join(problems)))
            print("  command: %s" % " ".join(command))
            for line in stderr.strip().splitlines()[-10:]:
                print("  stderr: %s" % line)
            expect_error.survey("FAIL %s: %s\n  command: %s" % (
                name, "; ".join(problems), " ".join(command)))
        else:
            print("sweep: OK %s" % name)
            expect_error.survey("OK %s\n  command: %s" % (name,
                                                          " ".join(command)))
        results.append(not problems or bool(expect_error.keep_going()))
    return finish(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["truncate", "bitflip", "outputs",
                                         "devices"])
    parser.add_argument("--input")
    parser.add_argument("--work", required=True)
    parser.add_argument("--count", type=int, default=48)
    parser.add_argument("--onnx", action="store_true")
    parser.add_argument("--stderr", action="append", default=[])
    parser.add_argument("--stderr-re", action="append", default=[])
    parser.add_argument("--unchanged", action="append", default=[])
    parser.add_argument("--keep", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=300)
    args, command = expect_error.split_command(parser)
    args.command = command
    os.makedirs(args.work, exist_ok=True)
    return {"truncate": truncate, "bitflip": bitflip, "outputs": outputs,
            "devices": devices}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
