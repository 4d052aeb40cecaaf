"""Compares two amp-run --metrics files: every step's loss and lr."""
import json
import sys

runs = [[json.loads(line) for line in open(path)] for path in sys.argv[1:3]]
keys = [[(r["step"], r["loss"], r.get("lr")) for r in run] for run in runs]
print("%d steps: losses and learning rates %s" %
      (len(keys[0]), "identical" if keys[0] == keys[1] else "DIFFER"))
