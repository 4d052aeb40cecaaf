#!/usr/bin/env python3
"""Runs amp-translate --import-onnx on every file given and fails if any run
ends in anything but success (0) or a reported error (1): a signal, a
sanitizer abort or a hang (60 s) is a failure. Prints one line per file."""
import shutil
import subprocess
import sys

tool = shutil.which("amp-translate")
ok = True
for path in sys.argv[1:]:
    try:
        result = subprocess.run([tool, "--import-onnx", path, "-o", "-",
                                 "--no-weights"], capture_output=True,
                                timeout=60)
        code = result.returncode
    except subprocess.TimeoutExpired:
        code = "timeout"
    good = code in (0, 1)
    ok &= good
    print(f"{'OK' if good else 'FAIL'} {path.rsplit('/', 1)[-1]} exit {code}")
sys.exit(0 if ok else 1)
