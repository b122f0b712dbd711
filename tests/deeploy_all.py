"""tests/deeploy_all.py - every network of Deeploy's test tree (DeeployTest/Tests
of a clone of github.com/pulp-platform/Deeploy, CC-BY-ND-4.0: read in place,
never copied into this repository) through `htc run` on the CPU target,
outputs compared bit for bit with Deeploy's outputs.npz; prints one line per
network and a pass table. Usage:
    DEEPLOY_TESTS=/path/to/Deeploy/DeeployTest/Tests python tests/deeploy_all.py [SUBSTRING...]
(`make deeploy-all DEEPLOY_TESTS=...`). Networks whose directory names FP32 or
BF16, or whose graph takes float data QuantLib's form does not have
(Deeploy's float kernel tests, Kernels/Mixed), are listed as float and not
counted; an integer network htc refuses or gets wrong is a failure. Exit
status 1 when any integer network fails."""
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
TARGET = os.path.join(REPO, "targets", "cpu.lua")


def networks(root):
    for d, _, files in sorted(os.walk(root)):
        if "network.onnx" in files:
            yield os.path.relpath(d, root)


def floatish(rel):
    return any(p in ("FP32", "BF16", "Mixed") for p in rel.split(os.sep)) or "_Train" in rel


def check(root, rel, tmp):
    d = os.path.join(root, rel)
    for f in ("inputs.npz", "outputs.npz"):
        if not os.path.exists(os.path.join(d, f)):
            return "absent", "no %s in this clone" % f
    out = os.path.join(tmp, "out.npz")
    if os.path.exists(out):
        os.remove(out)
    try:
        r = subprocess.run([HTC, "run", os.path.join(d, "network.onnx"), "-t", TARGET, "--input",
                            os.path.join(d, "inputs.npz"), "--output", out],
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "FAIL", "htc run timed out"
    if r.returncode != 0:
        return "FAIL", (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1][:150]
    want, got = np.load(os.path.join(d, "outputs.npz")), np.load(out)
    if len(got.files) != len(want.files):
        return "FAIL", "%d outputs, Deeploy has %d" % (len(got.files), len(want.files))
    n = 0
    for gk, wk in zip(got.files, want.files):
        w, g = want[wk].astype(np.int64), got[gk].astype(np.int64)
        if g.size != w.size:
            return "FAIL", "%s: %d values, Deeploy has %d" % (wk, g.size, w.size)
        bad = int((g.reshape(w.shape) != w).sum())
        if bad:
            return "FAIL", "%s: %d of %d values differ" % (wk, bad, w.size)
        n += w.size
    return "pass", "%d output values bit-exact" % n


def main():
    root = os.environ.get("DEEPLOY_TESTS")
    if not root or not os.path.isdir(root):
        sys.exit("deeploy_all: set DEEPLOY_TESTS to a clone's DeeployTest/Tests (got %r)" % root)
    sel = sys.argv[1:]
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rel in networks(root):
            if sel and not any(s in rel for s in sel):
                continue
            if floatish(rel):
                st, why = "float", "a float network (not QuantLib's integer form)"
            else:
                st, why = check(root, rel, tmp)
            counts[st] = counts.get(st, 0) + 1
            print("%-6s %-48s %s" % (st, rel, why), flush=True)
    print()
    print("| result | networks |")
    print("|---|---|")
    for st in ("pass", "FAIL", "absent", "float"):
        print("| %s | %d |" % (st, counts.get(st, 0)))
    print("%d passed, %d failed" % (counts.get("pass", 0), counts.get("FAIL", 0)))
    sys.exit(1 if counts.get("FAIL") else 0)


if __name__ == "__main__":
    main()
