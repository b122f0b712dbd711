#!/usr/bin/env python3
"""bench/bench_scale.py - how htc scales (issue 34): the QuantLib reader on
200,000-node graphs (in order and listed last first) and the cascade
planner on 160 chained 3x3 depthwise layers of 4,096 rows. Prints one line
per case: the command and its wall-clock and CPU (user + system) seconds.
A benchmark, not a test: the figures depend on the machine.

The reading cases stop after the reader: the target file does not exist,
and htc opens it only after reading the model (`htc: error: ... cannot
open`), so those seconds are the read alone."""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
sys.path.insert(0, os.path.join(REPO, "tests"))


def ql_chain(path, n, reverse):
    """Add (a constant) then RequantShift, alternating: every RequantShift
    fuses into its Add (the reader's name table, readers and fusion)."""
    inits = [nh.from_array(np.float32([3]), "c"), nh.from_array(np.float32([1]), "m"),
             nh.from_array(np.float32([0]), "a")]
    nodes, prev = [], "x"
    for i in range(n):
        o = "v%d" % i if i < n - 1 else "y"
        if i % 2 == 0:
            nodes.append(h.make_node("Add", [prev, "c"], [o]))
        else:
            nodes.append(h.make_node("RequantShift", [prev, "m", "a"], [o], div=2, n_levels_out=256, signed=1,
                                     domain="PACTOps"))
        prev = o
    if reverse:
        nodes.reverse()
    g = h.make_graph(nodes, "chain", [h.make_tensor_value_info("x", T.FLOAT, [1, 16])],
                     [h.make_tensor_value_info("y", T.FLOAT, [1, 16])], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13), h.make_opsetid("PACTOps", 1)])
    m.ir_version = 8
    onnx.save(m, path)


def dw_chain(path, layers, rows):
    """`layers` chained 3x3 depthwise convolutions (stride 1, SAME) on a
    rows x 8 x 8 int8 image."""
    import tflite_build as tb
    rng = np.random.default_rng(0)
    m = tb.Model()
    x = m.input([1, rows, 8, 8], scale=0.05, zp=0)
    for _ in range(layers):
        x = m.depthwise_conv2d(x, kernel=3, rng=rng, out_scale=0.05, out_zp=0)
    m.output(x)
    m.save(path)


def timed(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return p, wall, cpu


def main():
    d = tempfile.mkdtemp(prefix="htc-bench-scale-")
    cases = []
    for rev in (False, True):
        f = os.path.join(d, "ql200k%s.onnx" % ("_rev" if rev else ""))
        ql_chain(f, 200000, rev)
        cases.append(("QuantLib read, 200,000 nodes%s" % (", listed last first" if rev else ""),
                      [HTC, "compile", f, "-t", os.path.join(d, "none.lua"), "-o", os.path.join(d, "x.h")],
                      "cannot open"))
    f = os.path.join(d, "dw160.tflite")
    dw_chain(f, 160, 4096)
    cases.append(("cascade plan, 160 chained 3x3 depthwise layers, 4,096 rows",
                  [HTC, "report", f, "-t", os.path.join(REPO, "targets", "cpu.lua"), "--cascade"], None))
    for what, args, want_err in cases:
        p, wall, cpu = timed(args)
        ok = (p.returncode == 1 and want_err in p.stderr) if want_err else p.returncode == 0
        print("%-62s %6.2f s wall %6.2f s cpu%s" % (what, wall, cpu, "" if ok else "  FAILED: " + p.stderr.strip()[:200]))
        print("    " + " ".join(os.path.relpath(a, REPO) if a.startswith(REPO) else a for a in args))
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
