#!/usr/bin/env python3
"""Reads an amp-report JSON file and checks what the report promises.

    check_report.py REPORT.json

Checks that the document has the documented structure, that the totals are
the sums over the functions and the casts listed, and prints, per function,
one line comparing the inserted cast bytes with naive per-op casting:

    @NAME casts BYTES naive NAIVE_BYTES fewer|not-fewer low-flops PERCENT

Exits non-zero on a structural error.
"""

import json
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        report = json.load(f)
    for key in ("low_precision", "functions", "totals"):
        if key not in report:
            fail(f"missing key '{key}'")
    total_bytes = 0
    total_naive = 0
    for function in report["functions"]:
        totals = function["totals"]
        listed = sum(cast["bytes"] for cast in function["cast_ops"])
        if not totals["casts"]["planned"] and listed != totals["casts"]["bytes"]:
            fail(f"@{function['name']}: cast bytes {totals['casts']['bytes']} "
                 f"are not the sum of the casts listed ({listed})")
        if len(function["ops"]) != sum(totals["ops_per_type"].values()):
            fail(f"@{function['name']}: ops per type do not add up")
        for op in function["ops"]:
            for key in ("index", "op", "type", "rule", "location", "flops"):
                if key not in op:
                    fail(f"@{function['name']}: op without '{key}'")
        ours = totals["casts"]["bytes"]
        naive = totals["naive_per_op_casts"]["bytes"]
        total_bytes += ours
        total_naive += naive
        share = totals["flops"]["low_precision_share"] * 100
        verdict = "fewer" if ours < naive else "not-fewer"
        print(f"@{function['name']} casts {ours} naive {naive} {verdict} "
              f"low-flops {share:.1f}%")
    if total_bytes != report["totals"]["casts"]["bytes"]:
        fail("module cast bytes are not the sum over the functions")
    if total_naive != report["totals"]["naive_per_op_casts"]["bytes"]:
        fail("module naive bytes are not the sum over the functions")
    print("REPORT OK")


if __name__ == "__main__":
    main()
