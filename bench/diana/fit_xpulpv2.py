#!/usr/bin/env python3
"""bench/diana/fit_xpulpv2.py - the data and the fit behind
targets/cpus/xpulpv2.lua: HTVM's four int8 networks (tests/zoo/htvm_nets.py)
CPU only on GVSoC (bench/diana/gvsoc.py: one XpulpV2 core of its Siracusa
model), each layer's cycles beside the features of its kernel call (the
same terms as xpulpv2.lua's), a least-squares fit per kind, and the
estimate of `htc report` (targets/diana.lua) with its error. Layers whose
weights GVSoC's L1 could not hold (in L2: ~15 cycles a load, where DIANA's
host loads in one) are shown and left out of the fit.
    GVSOC=DIR python bench/diana/fit_xpulpv2.py"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
sys.path.insert(0, os.path.join(REPO, "tests", "zoo"))
import gvsoc  # noqa: E402
import ort_oracle as oo  # noqa: E402
import htvm_nets  # noqa: E402

DIANA = os.path.join(REPO, "targets", "diana.lua")
FIXED = {"conv": 1000.0}     # the call cost held (collinear with the rest)


def c4(x):
    return (x + 3) // 4


def features(l):
    """(kind, {term: count}) of a report layer, as targets/cpus/xpulpv2.lua counts them"""
    op, i, o = l["op"], l["in_shape"], l["out_shape"]
    if op == "conv2d" and not l["depthwise"]:
        C, OH, OW, OC = i[3], o[1], o[2], o[3]
        kh, kw = l["kernel"]
        pw = kh == 1 and kw == 1 and l["stride"] == [1, 1] and i[1] == OH and i[2] == OW
        K = kh * kw * C
        K4 = K if pw else c4(K) * 4
        P = OH * OW
        blocks = (P + 1) // 2 * c4(OC)
        return "conv", {"call": 1, "wsum": OC * K, "block": blocks, "word": blocks * (K4 // 4),
                        "field": 0 if pw else P * K, "frow": 0 if pw else P * kh}
    if op == "conv2d":
        C, OH, OW = i[3], o[1], o[2]
        tr = OH > OW            # lines along the longer output dimension (as htc__dwxg_tr, when they fit)
        return "dw", {"group": C // 4 if C % 4 == 0 else C, "px": C * i[1] * i[2], "out": OH * OW * C,
                      "line": C * (OW if tr else OH)}
    if op == "fc":
        R = int(np.prod(i[:-1]))
        b = R * c4(o[-1])
        return "fc", {"call": 1, "block": b, "word": b * c4(i[-1]), "out": R * o[-1]}
    if op == "avgpool":
        return "pool", {"call": 1, "in": int(np.prod(i)), "out": o[-1]}
    if op == "add":
        return "add", {"call": 1, "elem": int(np.prod(o))}
    return None, None


def main():
    if not gvsoc.gvsoc_dir():
        sys.exit("fit_xpulpv2.py: set GVSOC=DIR (an installed GVSoC)")
    hn = htvm_nets.ensure()
    tmp = tempfile.mkdtemp()
    data = {}
    print("per layer: GVSoC cycles (%s), htc's estimate" % gvsoc.CORE)
    for net in ("ds_cnn", "resnet", "mobilenet", "dae"):
        model = os.path.join(hn, "%s_int8.onnx" % net)
        rep = json.loads(subprocess.run([oo.HTC, "report", model, "-t", DIANA, "-D", "engines=none", "--json"],
                                        capture_output=True, text=True, check=True).stdout)
        h = os.path.join(tmp, net + ".h")
        subprocess.run([oo.HTC, "compile", model, "-t", DIANA, "-D", "engines=none", "-o", h, "--name", "m"], check=True)
        x = oo.random_inputs(oo.ort_session(model), 1, 5)[0]
        c = gvsoc.firmware_cycles(h, os.path.join(tmp, net), b"".join(a.tobytes() for a in x))
        l2 = gvsoc.l2_layers(os.path.join(tmp, net, "m.h"), c["l2_names"])
        for l in rep["layers"]:
            cyc = c["layers"].get(l["index"], (0,))[0]
            if l["op"] == "reshape":
                continue
            k, f = features(l)
            print("  %-9s %3d %-10s %9d est %9.0f %+6.1f%%%s" % (net, l["index"], l["op"], cyc, l["est_cycles"],
                                                               100.0 * (l["est_cycles"] / max(cyc, 1) - 1),
                                                               "  weights in L2: not fitted" if l["index"] in l2 else ""))
            if k and l["index"] not in l2:
                data.setdefault(k, []).append((f, cyc))
    print("least squares per kind (calls held: %s)" % FIXED)
    for k, rows in data.items():
        names = list(rows[0][0].keys())
        A = np.array([[f[n] for n in names] for f, _ in rows], float)
        y = np.array([c for _, c in rows], float)
        if k in FIXED:
            coef = np.concatenate([[FIXED[k]], np.linalg.lstsq(A[:, 1:], y - FIXED[k] * A[:, 0], rcond=None)[0]])
        else:
            coef = np.linalg.lstsq(A, y, rcond=None)[0]
        err = (A @ coef) / y - 1
        print("  %-5s %s  (%d layers, error %+.1f%% .. %+.1f%%)" % (
            k, ", ".join("%s_%s = %.4g" % (k, n, v) for n, v in zip(names, coef)), len(rows), 100 * err.min(),
            100 * err.max()))


if __name__ == "__main__":
    main()
