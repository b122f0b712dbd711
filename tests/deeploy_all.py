"""tests/deeploy_all.py - every network of Deeploy's test tree (DeeployTest/Tests
of a clone of github.com/pulp-platform/Deeploy, CC-BY-ND-4.0: read in place,
never copied into this repository) through `htc run` on the CPU target,
outputs compared bit for bit with Deeploy's outputs.npz (and, where it ships
activations.npz, every 8-bit activation with a tensor htc dumped, as
tests/test_deeploy.py does); prints one line per
network and a pass table. Usage:
    DEEPLOY_TESTS=/path/to/Deeploy/DeeployTest/Tests python tests/deeploy_all.py [SUBSTRING...]
(`make deeploy-all DEEPLOY_TESTS=...`). Networks whose directory names FP32,
BF16, Mixed or training, and graphs without a QuantLib op whose float
constants have fractions, are Deeploy's float tests: listed as float, not
counted; an integer network htc refuses or gets wrong is a failure. Exit
status 1 when any integer network fails."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_deeploy     # noqa: E402  (its dumped(): htc's tensors by name)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
TARGET = os.path.join(REPO, "targets", "cpu.lua")


def networks(root):
    for d, _, files in sorted(os.walk(root)):
        if "network.onnx" in files:
            yield os.path.relpath(d, root)


QL_OPS = {"RequantShift", "iGELU", "iHardswish", "TrueIntegerDiv", "iSoftmax", "ITAMax", "ITAPartialMax",
          "iLayerNorm", "iRMSNorm", "iNoNorm", "IntegerMean"}


def floatish(root, rel):
    """Deeploy's float tests by name (FP32, BF16, Mixed, training), else a
    graph with no QuantLib op and a float constant with a fraction."""
    if any(p in ("FP32", "BF16", "Mixed") for p in rel.split(os.sep)) or "_Train" in rel:
        return True
    import onnx
    from onnx import numpy_helper
    g = onnx.load(os.path.join(root, rel, "network.onnx")).graph
    if any(n.op_type in QL_OPS for n in g.node):
        return False
    consts = list(g.initializer) + [a.t for n in g.node if n.op_type == "Constant" for a in n.attribute if a.t.dims or a.t.raw_data]
    for t in consts:
        a = numpy_helper.to_array(t)
        if a.dtype.kind == "f" and a.size and not np.all(np.floor(a) == a):
            return True
    return False


def check(root, rel, tmp):
    d = os.path.join(root, rel)
    for f in ("inputs.npz", "outputs.npz"):
        if not os.path.exists(os.path.join(d, f)):
            return "absent", "no %s in this clone" % f
    out, dump = os.path.join(tmp, "out.npz"), os.path.join(tmp, "dump")
    if os.path.exists(out):
        os.remove(out)
    shutil.rmtree(dump, ignore_errors=True)
    act = os.path.join(d, "activations.npz")
    try:
        r = subprocess.run([HTC, "run", os.path.join(d, "network.onnx"), "-t", TARGET, "--input",
                            os.path.join(d, "inputs.npz"), "--output", out] +
                           (["--dump", dump] if os.path.exists(act) else []),
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
    if not os.path.exists(act) or not np.load(act).files:
        return "pass", "%d output values bit-exact" % n
    # intermediate tensors: every 8-bit one must equal a tensor htc dumped
    # (the comparison of tests/test_deeploy.py)
    acts = np.load(act)
    tensors = test_deeploy.dumped(os.path.join(d, "network.onnx"), os.path.join(d, "inputs.npz"), dump)
    tensors["outputs"] = [got[k].astype(np.int64) for k in got.files]
    checked, missing = 0, []
    for k in acts.files:
        a = acts[k].astype(np.int64)
        if a.size == 0 or a.min() < -128 or a.max() > 255 or "_pact_conv2d_pass" in k or "_pact_lin_pass" in k:
            continue
        checked += 1
        if not any(c.shape == a.shape and np.array_equal(c, a) for cs in tensors.values() for c in cs):
            missing.append(k)
    if missing:
        return "FAIL", "%d of %d 8-bit activations match no tensor (%s ...)" % (len(missing), checked, missing[0])
    return "pass", "%d output values and %d 8-bit activations bit-exact" % (n, checked)


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
            if floatish(root, rel):
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
