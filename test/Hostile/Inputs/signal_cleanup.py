#!/usr/bin/env python3
"""Signals a running tool and checks that it cleaned up.

    signal_cleanup.py --signal NAME --wait-for GLOB [--stop-first]
                      [--clean DIR]... [--empty DIR]... [--unchanged PATH]...
                      [--ends-processes TEXT] [--timeout SECONDS]
                      -- COMMAND...

Starts COMMAND (SIGINT, SIGTERM and SIGHUP at their default action, as from
an interactive shell; its output in a file), waits until a file matches
GLOB (the marker: a temporary the tool made, so the signal comes while it
exists), sends the signal and waits for the command to end. Then

  - the command must have been ended by that signal (its exit status says
    so: the tool cleaned up and re-raised it);
  - no temporary file (NAME.tmp-XXXXXX) may be left under any --clean DIR;
  - every --empty DIR must be empty (amp-bisect's trial folders are in it);
  - every --unchanged PATH must be as it was (expect_error.py's rule);
  - with --ends-processes TEXT, the processes under the command whose
    command line held TEXT when the signal was sent (at least one: the trial
    amp-run) must be gone.

--stop-first stops the command (SIGSTOP) as soon as the marker appears and
checks that it still exists before sending the signal and SIGCONT: the
signal then surely comes while the temporary exists (a checkpoint being
saved). When the command finished the temporary in between, the case is
tried again (up to 5 times) from the files as they were (an --unchanged
PATH that was missing is removed again: the finished try made it).

Every wait is bounded by --timeout (default 120 s) so that a loaded machine
is slow, not wrong. Prints `signal_cleanup: OK ...` and exits 0, or lists
the problems and the command's output and exits 1.
"""

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect_error  # noqa: E402


def default_signals():
    # A shell running a command in the background ignores SIGINT for it; the
    # tools keep an ignored signal ignored (nohup), so reset it here.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


def process_table():
    """{pid: (parent pid, state, command line)} of every process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8",
                                                               "replace")
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(entry)] = (int(fields[1]), fields[0], cmdline)
    return table


def descendants_with(root, text):
    """The live descendants of process `root` whose command line holds
    `text`."""
    table = process_table()
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, state, cmdline) in table.items():
            if ppid == parent:
                frontier.append(pid)
                if text in cmdline and state != "Z":
                    found.append(pid)
    return found


def alive(pid):
    """Whether process `pid` exists and is not a zombie."""
    entry = process_table().get(pid)
    return entry is not None and entry[1] != "Z"


def wait_stopped(pid, deadline):
    """Waits until process `pid` is stopped (SIGSTOP arrives
    asynchronously)."""
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                    return
        except OSError:
            return
        time.sleep(0.0005)


def temporaries(directory):
    """The temporary files (NAME.tmp-XXXXXX) under `directory`."""
    found = []
    for root, dirs, files in os.walk(directory):
        found += [os.path.join(root, name) for name in files + dirs
                  if ".tmp-" in name]
    return found


def wait_for_marker(process, pattern, deadline):
    """The first path matching `pattern`, or None when the command ended or
    the deadline passed first."""
    while time.monotonic() < deadline:
        matches = glob.glob(pattern)
        if matches:
            return matches[0]
        if process.poll() is not None:
            return None
        time.sleep(0.0005)
    return None


def attempt(args, command, log):
    """One run; returns (problems, retry)."""
    deadline = time.monotonic() + args.timeout
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT,
                               preexec_fn=default_signals)
    try:
        marker = wait_for_marker(process, args.wait_for, deadline)
        if args.stop_first and marker:
            process.send_signal(signal.SIGSTOP)
            wait_stopped(process.pid, deadline)
            if not os.path.exists(marker):
                # Finished in between: the signal would come too late.
                process.send_signal(signal.SIGCONT)
                process.wait(timeout=args.timeout)
                return [], True
        if not marker:
            ended = process.poll()
            return ["no file matched %s before the command %s" % (
                args.wait_for, "ended (%s)" % expect_error.status_text(ended)
                if ended is not None else "timed out")], False
        others = descendants_with(process.pid, args.ends_processes) \
            if args.ends_processes else []
        if args.ends_processes and not others:
            return ["no process held %r in its command line when the signal "
                    "was sent" % args.ends_processes], False
        number = getattr(signal, "SIG" + args.signal)
        process.send_signal(number)
        if args.stop_first:
            process.send_signal(signal.SIGCONT)
        try:
            returncode = process.wait(timeout=max(deadline - time.monotonic(),
                                                  1))
        except subprocess.TimeoutExpired:
            return ["did not end within %s s of SIG%s" % (args.timeout,
                                                         args.signal)], False
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    problems = []
    if returncode != -number:
        problems.append("%s, expected to be killed by SIG%s" % (
            expect_error.status_text(returncode), args.signal))
    while others and time.monotonic() < deadline:
        others = [pid for pid in others if alive(pid)]
        time.sleep(0.05)
    for pid in others:
        problems.append("process %d (%r in its command line) outlived the "
                        "signal" % (pid, args.ends_processes))
        os.kill(pid, signal.SIGKILL)
    return problems, False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--signal", required=True,
                        choices=["INT", "TERM", "HUP"])
    parser.add_argument("--wait-for", required=True, metavar="GLOB")
    parser.add_argument("--stop-first", action="store_true")
    parser.add_argument("--clean", action="append", default=[],
                        metavar="DIR")
    parser.add_argument("--empty", action="append", default=[],
                        metavar="DIR")
    parser.add_argument("--unchanged", action="append", default=[],
                        metavar="PATH")
    parser.add_argument("--ends-processes", metavar="TEXT")
    parser.add_argument("--timeout", type=float, default=120)
    args, command = expect_error.split_command(parser)

    before = {path: expect_error.path_state(path) for path in args.unchanged}
    saved = tempfile.mkdtemp()
    for index, path in enumerate(args.unchanged):
        if before[path][0] == "file":
            shutil.copyfile(path, os.path.join(saved, str(index)))
    with tempfile.TemporaryFile() as log:
        for tries in range(1, 6):
            log.seek(0)
            log.truncate()
            problems, retry = attempt(args, command, log)
            if not retry:
                break
            # The run finished: put the files back for the next try, and
            # remove what it made where nothing was (its output), so that
            # the next try is checked, not this one.
            for index, path in enumerate(args.unchanged):
                if before[path][0] == "file":
                    shutil.copyfile(os.path.join(saved, str(index)), path)
                elif before[path][0] == "missing" and os.path.isfile(path):
                    os.unlink(path)
        else:
            problems = ["the command finished its temporary before it could "
                        "be stopped, 5 times"]
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
    shutil.rmtree(saved)
    for directory in args.clean:
        for path in temporaries(directory):
            problems.append("temporary file %s is left" % path)
    for directory in args.empty:
        left = os.listdir(directory) if os.path.isdir(directory) else []
        if left:
            problems.append("%s is not empty: %s" % (directory, sorted(left)))
    for path, state in before.items():
        after = expect_error.path_state(path)
        if after != state:
            problems.append("%s changed: was %s, is %s" % (
                path, expect_error.describe_state(state),
                expect_error.describe_state(after)))
    name = "SIG%s to %s" % (args.signal, os.path.basename(command[0]))
    if not problems:
        print("signal_cleanup: OK %s (try %d)" % (name, tries))
        return 0
    print("signal_cleanup: FAIL %s: %s" % (name, "; ".join(problems)))
    print("  command: %s" % " ".join(command))
    for line in output.strip().splitlines()[-15:]:
        print("  output: %s" % line[:300])
    return 1


if __name__ == "__main__":
    sys.exit(main())
