"""tests/test_tf2onnx.py - third-party QDQ models: the four MLPerf Tiny
.tflite models converted by tf2onnx (opsets 13 and 18, committed in
tests/onnx/tf2onnx/, made by tests/onnx/make_tf2onnx.py).

With --no-float-fallback each compiles (its symbolic batch as 1, with a
note) and equals onnxruntime bit for bit on 16 random inputs, or htc
refuses with one line naming a node onnxruntime's optimised graph leaves
in float; with --float-fallback, the default, all eight compile and are
exact (also built without SIMD). EXPECT records which, so a change in
either direction shows up here."""
import os
import re
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402
import qdq_random as R  # noqa: E402

DIR = os.path.join(os.path.dirname(__file__), "onnx", "tf2onnx")
NETS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
# (--no-float-fallback, --float-fallback = the default): "exact" or the op
# htc names as float.
# tf2onnx's graphs read the int8 graph input straight into the first
# Conv/Gemm (onnxruntime on x86-64 computes int8 Conv in float), and quantize
# AveragePool, Gemm and Softmax to int8 from uint8 inputs (its int8->uint8
# rewrite of lone QuantizeLinear/DequantizeLinear pairs), which it computes
# in float; --float-fallback reproduces the float Conv, Add, AveragePool,
# one-row Gemm and Softmax, so every conversion compiles with it, bit-exact.
EXPECT = {
    "kws_ref_model": ("Conv", "exact"),
    "vww_96_int8": ("Conv", "exact"),
    "pretrainedResnet_quant": ("Conv", "exact"),
    "ad01_int8": ("Gemm", "exact"),
}
CASES = ["%s_op%d" % (n, o) for n in NETS for o in (13, 18)]


def outcome(model, tmp, flags, inputs, sess):
    os.makedirs(tmp, exist_ok=True)
    p = O.htc("compile", model, "-t", O.TARGET, "-o", os.path.join(tmp, "m.h"), "--name", "m", *flags, check=False)
    notes = [ln for ln in p.stderr.strip().split("\n") if ln.startswith("htc: note: ")]
    if p.returncode:
        lines = p.stderr.strip().split("\n")
        # one line, or several problems: the line counting them, then one line each
        many = re.search(r": (\d+) operators refused, in graph order: ", lines[0])
        assert p.returncode == 1 and len(lines) == (int(many.group(1)) + 1 if many else 1), p.stderr
        assert all(ln.startswith("htc: error: ") for ln in lines), p.stderr
        assert not os.path.exists(os.path.join(tmp, "m.h"))
        line = lines[1] if many else lines[0]      # the first problem
        assert "in float" in line, line
        floats = R.ort_float_nodes(model)
        named = set(re.findall(r"(\w+) '([^']*)'", line))
        hit = [op for op, name in named if name in floats]
        assert hit, "htc names %s; onnxruntime leaves %s in float" % (sorted(named), sorted(floats))
        return hit[0]
    # the batch is symbolic (tf2onnx writes unk__N): compiled as 1, with a note
    assert any("symbolic dimension 0" in n and "compiled as 1x" in n for n in notes), p.stderr
    want = O.ort_outputs(sess, inputs)
    for cflags in ([], ["-DHTC_NO_SIMD"]):     # the float kernels' AVX2 and portable paths
        exe = O.build(model, tmp + "".join(cflags), flags=flags, cflags=cflags)
        got = O.run(exe, tmp + "".join(cflags), inputs)[0]
        for k, (g, w) in enumerate(zip(got, want)):
            assert g == w, "%sinput %d: htc %s, onnxruntime %s" % (" ".join(cflags), k, np.frombuffer(g, np.int8),
                                                                 np.frombuffer(w, np.int8))
    return "exact"


@pytest.mark.parametrize("name", CASES)
def test_tf2onnx(name, tmp_path):
    model = os.path.join(DIR, name + ".onnx")
    sess = O.ort_session(model)
    rng = np.random.default_rng(len(name))
    inp = sess.get_inputs()[0]
    shape = [1] + list(inp.shape[1:])
    inputs = [[rng.integers(-128, 128, shape).astype(np.int8)] for _ in range(16)]
    plain = outcome(model, str(tmp_path / "p"), ["--no-float-fallback"], inputs, sess)
    ff = outcome(model, str(tmp_path / "f"), ["--float-fallback"], inputs, sess)
    assert (plain, ff) == EXPECT[name.rsplit("_op", 1)[0]], (plain, ff)
    # the default is --float-fallback: every conversion compiles, exact
    assert outcome(model, str(tmp_path / "d"), [], inputs, sess) == "exact"


def test_conversions_present():
    assert sorted(os.listdir(DIR)) == sorted([c + ".onnx" for c in CASES] + ["README"])
