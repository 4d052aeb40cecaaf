#!/usr/bin/env python3
"""Runs amp-translate --import-onnx on every file given and fails if any run
ends in anything but success (0) or a reported error: exit status 1 with an
`error:` line naming the file, and no internal error, crash report or stack
dump. A signal, a sanitizer abort or a hang (60 s) is a failure. Prints one
line per file: `OK NAME exit CODE` or `FAIL NAME exit CODE: why`."""
import concurrent.futures
import os
import shutil
import subprocess
import sys

tool = shutil.which("amp-translate")
# What a reported error must not contain: LLVM's crash output, an importer
# bug (a module that does not verify) or a sanitizer report.
BAD = ("Stack dump", "PLEASE submit", "LLVM ERROR", "internal error",
       "Assertion", "Sanitizer", "runtime error:")


def problem(path, code, stderr):
    """Why the run of `path` is not acceptable, or None."""
    if code == 0:
        return None
    if code != 1:
        return "not a reported error"
    bad = [b for b in BAD if b in stderr]
    if bad:
        return "the output has " + repr(bad[0])
    if f"{os.path.basename(path)}: error: " not in stderr:
        return "no 'error:' line naming the file"
    return None


def run(path):
    """The report line of `path`, and whether it is acceptable."""
    try:
        result = subprocess.run([tool, "--import-onnx", path, "-o", "-",
                                 "--no-weights"], capture_output=True,
                                timeout=60)
        code = result.returncode
        why = problem(path, code, result.stderr.decode(errors="replace"))
    except subprocess.TimeoutExpired:
        code, why = "timeout", "a hang"
    name = path.rsplit('/', 1)[-1]
    if why is None:
        return f"OK {name} exit {code}", True
    return f"FAIL {name} exit {code}: {why}", False


with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
    results = list(pool.map(run, sys.argv[1:]))
for line, _ in results:
    print(line)
sys.exit(0 if all(good for _, good in results) else 1)
