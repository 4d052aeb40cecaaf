"""Reads amp-run's summary line on stdin and fails unless the loss fell."""
import re
import sys

text = sys.stdin.read()
match = re.search(r"loss (\S+) -> (\S+); skipped steps (\d+)", text)
if not match:
    sys.exit("no amp-run summary in: %r" % text)
first, last = float(match.group(1)), float(match.group(2))
print("loss falls" if last < first else "loss does not fall",
      "%s -> %s" % (match.group(1), match.group(2)))
sys.exit(0 if last < first else 1)
