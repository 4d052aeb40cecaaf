#!/usr/bin/env python3
"""Runs a command that must fail cleanly on hostile input.

    expect_error.py [--stderr TEXT]... [--stderr-re REGEX]...
                    [--unchanged PATH]... [--timeout SECONDS] -- COMMAND...

The command must
  - exit with status 1 exactly: not a signal (a crash, an abort, a sanitizer
    report), not another status;
  - print no crash report (stack dump, LLVM ERROR, assertion, sanitizer
    report, uncaught exception) on stderr;
  - print every TEXT (a plain substring) and match every REGEX (Python re,
    searched) on stderr: the file or option at fault and the reason;
  - leave every PATH as it was: a regular file's bytes (SHA-256), a
    symbolic link's target, a device's number, a directory's entries
    (recursively), or its absence;
  - leave /dev/null and /dev/full character devices (a tool that renames a
    temporary over a device as root replaces it; they are restored and the
    case fails);
  - finish within the timeout (default 300 s): hostile input must not hang.

Prints `expect_error: OK ...` and exits 0, or lists what went wrong with the
command's stderr and exits 1. The sweep scripts next to this file use
check() directly.

Survey mode: with AMP_HOSTILE_KEEP_GOING=FILE in the environment (lit passes
it on), every case appends its result line to FILE and exits 0, so that one
run lists every failing case instead of stopping each test at its first;
a regular file in --unchanged that a failing case changed is restored so
that the cases after it start from the same files.
"""

import argparse
import hashlib
import os
import re
import signal
import stat
import subprocess
import sys

# What a tool prints when it crashes instead of reporting an error.
CRASH_MARKERS = [
    "Stack dump",
    "PLEASE submit a bug report",
    "LLVM ERROR",
    "Assertion",
    "terminate called",
    "Sanitizer",
    "runtime error:",
    "Segmentation fault",
]

def path_state(path):
    """What a path is, comparable before and after a run."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ("missing",)
    if stat.S_ISLNK(info.st_mode):
        return ("link", os.readlink(path), path_state(os.path.realpath(path))
                if os.path.realpath(path) != path else None)
    if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
        return ("device", info.st_rdev)
    if stat.S_ISFIFO(info.st_mode):
        return ("fifo",)
    if stat.S_ISDIR(info.st_mode):
        return ("directory", tuple((name, path_state(os.path.join(path, name)))
                                   for name in sorted(os.listdir(path))))
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return ("file", digest.hexdigest())


def describe_state(state):
    if state[0] == "file":
        return "a file with SHA-256 " + state[1][:16] + "..."
    if state[0] == "directory":
        return "a directory with %d entries %s" % (
            len(state[1]), [name for name, _ in state[1]])
    return " ".join(str(part) for part in state)


CHECK_DEVICES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "..", "scripts", "check-devices.sh")


def check_devices():
    """Problems with /dev/null and /dev/full, which scripts/check-devices.sh
    also restores (as root)."""
    result = subprocess.run(["bash", CHECK_DEVICES], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if result.returncode == 0:
        return []
    return [line.replace("check-devices: ", "") for line in
            result.stderr.decode("utf-8", "replace").splitlines()]


def status_text(returncode):
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return "was killed by %s" % name
    return "exited with status %d" % returncode


def check(command, stderr_texts=(), stderr_regexes=(), unchanged=(),
          timeout=300, stdin=subprocess.DEVNULL):
    """Runs `command`; returns (problems, stderr)."""
    before = {path: path_state(path) for path in unchanged}
    saved = {path: open(path, "rb").read() for path in unchanged
             if keep_going() and before[path][0] == "file"}
    try:
        result = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=timeout)
        returncode, stderr = result.returncode, result.stderr.decode(
            "utf-8", "replace")
    except subprocess.TimeoutExpired as expired:
        returncode = None
        stderr = (expired.stderr or b"").decode("utf-8", "replace")
    problems = []
    if returncode is None:
        problems.append("did not finish within %s s" % timeout)
    elif returncode != 1:
        problems.append("%s, expected status 1" % status_text(returncode))
    for marker in CRASH_MARKERS:
        if marker in stderr:
            problems.append("stderr has a crash report (%r)" % marker)
    for text in stderr_texts:
        if text not in stderr:
            problems.append("stderr does not say %r" % text)
    for regex in stderr_regexes:
        if not re.search(regex, stderr):
            problems.append("stderr does not match %r" % regex)
    for path, state in before.items():
        after = path_state(path)
        if after != state:
            problems.append("%s changed: was %s, is %s" % (
                path, describe_state(state), describe_state(after)))
            if path in saved and after[0] in ("file", "missing"):
                # Survey mode: the next cases start from the same files.
                with open(path, "wb") as f:
                    f.write(saved[path])
    problems += check_devices()
    return problems, stderr


def keep_going():
    return os.environ.get("AMP_HOSTILE_KEEP_GOING")


def survey(line):
    """Appends a result line to the survey file (survey mode only)."""
    if keep_going():
        with open(keep_going(), "a") as f:
            f.write(line + "\n")


def report(name, command, problems, stderr, out=sys.stdout):
    """Prints one case's result; returns whether it passed (always true in
    survey mode, which records failures instead)."""
    if not problems:
        first = stderr.strip().splitlines()[:1]
        line = "OK %s: %s" % (name, first[0] if first else "")
        print("expect_error: " + line, file=out)
        survey(line + "\n  command: " + " ".join(command))
        return True
    line = "FAIL %s: %s" % (name, "; ".join(problems))
    print("expect_error: " + line, file=out)
    print("  command: %s" % " ".join(command), file=out)
    tail = stderr.strip().splitlines()[-15:]
    for text in tail:
        print("  stderr: %s" % text, file=out)
    survey(line + "\n  command: " + " ".join(command) + "".join(
        "\n  stderr: " + text for text in tail[-4:]))
    return bool(keep_going())


def split_command(parser, argv=None):
    """Parses the options before `--`; returns them and the command after."""
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("no command given (after --)")
    split = argv.index("--")
    return parser.parse_args(argv[:split]), argv[split + 1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stderr", action="append", default=[],
                        metavar="TEXT")
    parser.add_argument("--stderr-re", action="append", default=[],
                        metavar="REGEX")
    parser.add_argument("--unchanged", action="append", default=[],
                        metavar="PATH")
    parser.add_argument("--timeout", type=float, default=300)
    args, command = split_command(parser)
    problems, stderr = check(command, args.stderr, args.stderr_re,
                             args.unchanged, args.timeout)
    name = " ".join([os.path.basename(command[0])] + args.stderr)
    return 0 if report(name, command, problems, stderr) else 1


if __name__ == "__main__":
    sys.exit(main())
