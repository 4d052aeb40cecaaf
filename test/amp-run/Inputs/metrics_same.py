"""Compares two amp-run --metrics files: every step's loss, lr, loss scale
and skipped flag."""
import json
import sys

runs = [[json.loads(line) for line in open(path)] for path in sys.argv[1:3]]
keys = [[(r["step"], r["loss"], r.get("lr"), r.get("scale"), r.get("skipped"))
         for r in run] for run in runs]
print("%d steps: losses, learning rates and loss scales %s" %
      (len(keys[0]), "identical" if keys[0] == keys[1] else "DIFFER"))
