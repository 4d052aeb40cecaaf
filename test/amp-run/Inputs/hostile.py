"""Runs a tool on hostile inputs and checks how it fails.

  hostile.py exit1 CMD...
      Runs CMD once; prints its stderr and stdout (for FileCheck) and fails
      unless it exited with status 1 (a signal, 0 or another status fail).
  hostile.py truncate FILE COPY COUNT CMD...
      Writes COUNT truncations of FILE (at offsets spread over the whole
      file, every offset in its first 32 bytes, and every 32nd up to 1024:
      the headers of ELF files and checkpoints) to COPY and runs CMD
      on each: every run must exit with status 1 and name COPY in its
      message. Prints the number of runs and, per distinct reason, one
      message with the offset replaced by N.
  hostile.py flip FILE COPY COUNT CMD...
      The same with COUNT copies of FILE with one bit flipped (the first
      bit of each of the first 32 bytes, then bits spread over the file).
"""
import re
import subprocess
import sys


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    return result.returncode, result.stderr + result.stdout


def expect_exit1(cmd):
    status, output = run(cmd)
    sys.stdout.write(output)
    if status != 1:
        sys.exit("hostile.py: expected exit status 1, got %d" % status)


def truncation_offsets(size, count):
    head = list(range(min(size, 32))) + list(range(32, min(size, 1024), 32))
    spread = [size * k // count for k in range(count)]
    return sorted(set(head + spread + [size - 1]))


def flip_bits(size, count):
    head = [8 * k for k in range(min(size, 32))]
    spread = [(size * 8 * k) // count + k % 8 for k in range(count)]
    return sorted(set(head + spread))


def mutate(kind, data, where):
    if kind == "truncate":
        return data[:where]
    copy = bytearray(data)
    copy[where // 8] ^= 1 << (where % 8)
    return bytes(copy)


def check_mutations(kind, path, copy, count, cmd):
    with open(path, "rb") as f:
        data = f.read()
    places = (truncation_offsets(len(data), count) if kind == "truncate"
              else flip_bits(len(data), count))
    reasons = {}
    failures = 0
    for where in places:
        with open(copy, "wb") as f:
            f.write(mutate(kind, data, where))
        status, output = run(cmd)
        if status != 1 or copy not in output:
            failures += 1
            print("FAIL at %d: exit %d: %s" % (where, status, output.strip()))
            continue
        line = output.strip().splitlines()[-1]
        reason = re.sub(r"\b\d+\b", "N", line.replace(copy, "COPY"))
        reasons.setdefault(reason, line)
    print("%d %s runs, %d failures" % (len(places), kind, failures))
    for reason in sorted(reasons):
        print("reason:", reason)
    if failures:
        sys.exit(1)


def main():
    kind = sys.argv[1]
    if kind == "exit1":
        expect_exit1(sys.argv[2:])
    else:
        path, copy, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
        check_mutations(kind, path, copy, count, sys.argv[5:])


if __name__ == "__main__":
    main()
