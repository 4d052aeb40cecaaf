#!/usr/bin/env python3
"""Reads host code with its kernel modules (amp-opt --mlir-print-ir-after=
gpu-async-region --mlir-print-ir-module-scope) and prints, for every
gpu.launch_func, one line `launch <grid> x <block>: <kernel facts>` where the
facts are `loop` when the kernel has an scf.for/scf.while and `all_reduce`
when it reduces across its block; then a line counting the single-thread
launches that run a loop (a sequential reduction), and one with the number
of launches."""
import re
import sys

text = sys.stdin.read()
# Only the last dump; it holds the host code and the kernels (gpu.module).
text = text.split("IR Dump After")[-1]
modules = {}
for match in re.finditer(r"gpu\.module @(\w+)", text):
    start = match.end()
    end = text.find("gpu.module @", start)
    body = text[start:end if end >= 0 else len(text)]
    modules[match.group(1)] = body

launch = re.compile(r"gpu\.launch_func[^@]*@(\w+)::@\w+ blocks in \(([^)]*)\) "
                    r"threads in \(([^)]*)\)")
sequential = 0
count = 0
for match in launch.finditer(text):
    name, grid, block = match.groups()
    size = lambda dims: "x".join(d.strip().lstrip("%c") for d in dims.split(","))
    body = modules.get(name, "")
    facts = []
    if "scf.for" in body or "scf.while" in body:
        facts.append("loop")
    if "gpu.all_reduce" in body:
        facts.append("all_reduce")
    count += 1
    single = size(grid) == "1x1x1" and size(block) == "1x1x1"
    if single and "loop" in facts:
        sequential += 1
    print("launch %s x %s: %s" % (size(grid), size(block), " ".join(facts)))
print("single-thread launches with a loop: %d" % sequential)
print("launches: %d" % count)
