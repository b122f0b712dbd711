"""tests/test_qlib_ops.py - QuantLib-form ops that ../shared/deeploy-tests
does not exercise (Deeploy's other tests do: make deeploy-all): 1-D Conv
with its RequantShift, 1-D MaxPool, Slice (several axes, negative steps),
Concat with an empty input (a KV cache with no past rows), Constant, Pad,
Sub, ReduceSum, a RequantShift folded into its softmax. Small graphs
built here on random integers held in float; the oracle is onnxruntime
running the same graph in float (exact: every value is an integer below
2^24), with the RequantShift computed by numpy from its
definition. ITAPartialMax, which onnxruntime does not have, is compared with
a numpy transcription of Deeploy's ITAPartialMax_s8 (its network test is
Models/CCT/Int/ICCT_ITA under make deeploy-all)."""
import json
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
TARGET = os.path.join(REPO, "targets", "cpu.lua")


def run_htc(tmp, model, inputs):
    p = str(tmp / "m.onnx")
    onnx.save(model, p)
    np.savez(str(tmp / "in.npz"), **{k: v.astype(np.int64) for k, v in inputs.items()})
    r = subprocess.run([HTC, "run", p, "-t", TARGET, "--input", str(tmp / "in.npz"), "--output", str(tmp / "out.npz")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    o = np.load(str(tmp / "out.npz"))
    return [o[k].astype(np.int64) for k in o.files]


def run_ort(model, inputs):
    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return [np.asarray(v) for v in s.run(None, {k: v.astype(np.float32) for k, v in inputs.items()})]


def graph(nodes, ins, outs, inits, domain_ops=False):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in ins],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outs],
                          [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in inits.items()])
    ops = [helper.make_opsetid("", 13)] + ([helper.make_opsetid("PACTOps", 1)] if domain_ops else [])
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 8
    return m


def rq(x, mul, add, div, signed=True):
    k = int(np.log2(div))
    y = (x * mul + add + (div // 2)) >> k
    return np.clip(y, -128, 127) if signed else np.clip(y, 0, 255)


@pytest.mark.parametrize("stride,pad,dil,group", [(1, 0, 1, 1), (2, 1, 1, 1), (1, 2, 2, 1), (1, 1, 1, 4)])
def test_conv1d_requant(tmp_path, stride, pad, dil, group):
    rng = np.random.default_rng(stride * 7 + pad + dil * 3 + group)
    x = rng.integers(-128, 128, (1, 8, 20))
    w = rng.integers(-20, 21, (8, 8 // group, 3))
    b = rng.integers(-500, 500, (8,))
    mul, add = rng.integers(1, 64, (8, 1)), rng.integers(-2000, 2000, (8, 1))    # [C, 1]: per channel
    conv = helper.make_node("Conv", ["x", "w", "b"], ["acc"], strides=[stride], pads=[pad, pad], dilations=[dil],
                            group=group, kernel_shape=[3])
    m = graph([conv], [("x", [1, 8, 20])], ["acc"], {"w": w, "b": b})
    acc = run_ort(m, {"x": x})[0].astype(np.int64)
    assert np.array_equal(run_htc(tmp_path, m, {"x": x})[0].reshape(acc.shape), acc)      # the int32 accumulator
    node = helper.make_node("RequantShift", ["acc", "mul", "add"], ["y"], div=4096, n_levels_out=256, signed=1)
    m = graph([conv, node], [("x", [1, 8, 20])], ["y"], {"w": w, "b": b, "mul": mul, "add": add}, True)
    want = rq(acc, mul, add, 4096)
    assert np.array_equal(run_htc(tmp_path, m, {"x": x})[0].reshape(want.shape), want)


def test_maxpool1d(tmp_path):
    x = np.random.default_rng(3).integers(-128, 128, (1, 5, 17))
    m = graph([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3], strides=[2], pads=[1, 1])],
              [("x", [1, 5, 17])], ["y"], {})
    want = run_ort(m, {"x": x})[0].astype(np.int64)
    assert np.array_equal(run_htc(tmp_path, m, {"x": x})[0].reshape(want.shape), want)


@pytest.mark.parametrize("starts,ends,axes,steps", [
    ([1, 0], [3, 6], [1, 2], [1, 2]),
    ([-1, 4], [-100, 0], [2, 1], [-2, -1]),
    ([0], [100], [0], [1]),
    ([2, 1, 1], [-1, 4, 5], [-1, 1, 0], [3, 1, 1]),
])
def test_slice(tmp_path, starts, ends, axes, steps):
    x = np.random.default_rng(5).integers(-128, 128, (2, 5, 7))
    m = graph([helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])], [("x", [2, 5, 7])], ["y"], {})
    for k, v in (("s", starts), ("e", ends), ("a", axes), ("p", steps)):
        m.graph.initializer.append(numpy_helper.from_array(np.array(v, np.int64), k))
    want = run_ort(m, {"x": x})[0].astype(np.int64)
    got = run_htc(tmp_path, m, {"x": x})[0]
    assert got.size == want.size and np.array_equal(got.reshape(want.shape), want)


def test_concat_empty_and_constant(tmp_path):
    """A KV cache with no past rows ([1, 2, 0, 4], an input) concatenated with
    this step's row, plus a Constant node added to it."""
    rng = np.random.default_rng(9)
    past, new = np.zeros((1, 2, 0, 4), np.int64), rng.integers(-100, 100, (1, 2, 1, 4))
    c = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.full((4,), 3.0, np.float32)))
    m = graph([helper.make_node("Concat", ["past", "new"], ["kv"], axis=-2), c,
               helper.make_node("Add", ["kv", "c"], ["y"])],
              [("past", [1, 2, 0, 4]), ("new", [1, 2, 1, 4])], ["kv", "y"], {})
    want = run_ort(m, {"past": past, "new": new})
    got = run_htc(tmp_path, m, {"past": past, "new": new})
    for g, w in zip(got, want):
        assert np.array_equal(g.reshape(w.shape), w.astype(np.int64))


def ita_partial_max(x, group, n_levels=256):
    """Deeploy's ITAPartialMax_s8 (TargetLibraries/Generic/src/Softmax_s8.c), in numpy."""
    y = np.zeros_like(x)
    for r in range(x.shape[0]):
        row, part, gmax = x[r], 0, -128
        for g in range(row.size // group):
            blk = row[g * group:(g + 1) * group]
            cmax = int(blk.max())
            sh = (cmax - gmax + 16) >> 5 if cmax > gmax else 0
            gmax = max(gmax, cmax)
            part = (part >> sh) + int(sum(256 >> ((gmax - int(v) + 16) >> 5) for v in blk))
        inv = ((n_levels // 2 - 1) * 256) // part
        y[r] = [(inv >> ((gmax - int(v) + 16) >> 5)) - n_levels // 2 for v in row]
    return y


@pytest.mark.parametrize("group", [4, 8, 32])
def test_ita_partial_max(tmp_path, group):
    rng = np.random.default_rng(group)
    x = rng.integers(-128, 128, (1, 3, 6, 32))
    x[0, 0, 0] = np.arange(32) * 8 - 128            # a max growing group by group
    x[0, 1, 0] = 127 - np.arange(32) * 8            # and shrinking
    n = helper.make_node("ITAPartialMax", ["x"], ["y"], domain="PACTOps", group_width=group,
                         n_levels=numpy_helper.from_array(np.array([256.0], np.float32)))
    m = graph([n], [("x", [1, 3, 6, 32])], ["y"], {}, True)
    want = ita_partial_max(x.reshape(-1, 32), group).reshape(x.shape)
    got = run_htc(tmp_path, m, {"x": x})[0]
    # ITAPartialMax's output is unsigned (0..127 here): htc writes uint8 values, Deeploy int8 value - 128
    assert np.array_equal(got.reshape(x.shape) - 128, want)


@pytest.mark.parametrize("case", ["pad", "sub", "sub_const", "reducesum", "reducesum_last"])
def test_pad_sub_reducesum(tmp_path, case):
    rng = np.random.default_rng(len(case))
    x, x2 = rng.integers(-128, 128, (1, 6, 5, 7)), rng.integers(-128, 128, (1, 6, 5, 7))
    inits, ins, feed = {}, [("x", [1, 6, 5, 7])], {"x": x}
    if case == "pad":
        node = helper.make_node("Pad", ["x", "p", "v"], ["y"], mode="constant")
        extra = [numpy_helper.from_array(np.array([0, 1, 2, 0, 0, 0, 1, 3], np.int64), "p"),
                 numpy_helper.from_array(np.array(-7.0, np.float32), "v")]
    elif case.startswith("sub"):
        node = helper.make_node("Sub", ["x", "x2"], ["y"])
        extra = []
        if case == "sub":
            ins.append(("x2", [1, 6, 5, 7]))
            feed["x2"] = x2
        else:
            inits["x2"] = rng.integers(-1000, 1000, (5, 1))
    else:
        axes = [1, 2] if case == "reducesum" else [3]
        node = helper.make_node("ReduceSum", ["x", "a"], ["y"], keepdims=int(case == "reducesum"))
        extra = [numpy_helper.from_array(np.array(axes, np.int64), "a")]
    m = graph([node], ins, ["y"], inits)
    m.graph.initializer.extend(extra)
    want = run_ort(m, feed)[0].astype(np.int64)
    got = run_htc(tmp_path, m, feed)[0]
    assert got.size == want.size and np.array_equal(got.reshape(want.shape), want)


def report_ops(tmp, model):
    p = str(tmp / "r.onnx")
    onnx.save(model, p)
    r = subprocess.run([HTC, "report", p, "-t", TARGET, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [l["op"] for l in json.loads(r.stdout)["layers"]]


@pytest.mark.parametrize("mul,add,div", [(3, -200, 4), (1, 0, 1), (37, 1000, 64)])
def test_softmax_requant_folded(tmp_path, mul, add, div):
    """A RequantShift that alone reads a softmax folds into its store (one
    softmax layer with a byte table, gen/qlib.c h_softmax): equal to the
    numpy definition and to the same RequantShift as a layer of its own
    (the softmax's output also a graph output, so read twice)"""
    rng = np.random.default_rng(mul + div)
    x = rng.integers(-128, 128, (1, 3, 6, 32))
    sm = helper.make_node("ITAPartialMax", ["x"], ["s"], domain="PACTOps", group_width=8,
                          n_levels=numpy_helper.from_array(np.array([256.0], np.float32)))
    node = helper.make_node("RequantShift", ["s", "mul", "add"], ["y"], div=div, n_levels_out=256, signed=1)
    inits = {"mul": np.array(mul), "add": np.array(add)}
    want = rq(ita_partial_max(x.reshape(-1, 32), 8).reshape(x.shape) + 128, mul, add, div)
    folded = graph([sm, node], [("x", [1, 3, 6, 32])], ["y"], inits, True)
    assert report_ops(tmp_path, folded) == ["softmax"]
    got = run_htc(tmp_path, folded, {"x": x})[0]
    assert np.array_equal(got.reshape(x.shape), want)
    apart = graph([sm, node], [("x", [1, 3, 6, 32])], ["y", "s"], inits, True)
    ops = report_ops(tmp_path, apart)
    assert ops[0] == "softmax" and "table" in ops, ops
    outs = [o.reshape(x.shape) for o in run_htc(tmp_path, apart, {"x": x})]
    assert any(np.array_equal(o, want) for o in outs)


def i_softmax(x, a, b, c, log2, n_levels=256):
    """QuantLib's iSoftmax (I-BERT's integer exponential, arXiv 2101.01321)
    over the last axis, from its definition, in numpy int64: xt = x - max,
    z = floor(-xt / log2), e = (a (xt + z log2 + b)^2 + c) >> z, out =
    floor(e (n_levels - 1) / sum e), in [0, n_levels - 1]"""
    xt = x - x.max(axis=-1, keepdims=True)
    z = np.minimum((-xt) // log2, 31)
    q = xt + z * log2 + b
    e = (a * q * q + c) >> z
    return e * (n_levels - 1) // e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("a,b,c,log2,s32", [(1, 86, 3888, 64, 1), (1, 345, 62395, 255, 1), (1, 60000, 5, 7, 0),
                                             (3, 40000, 123456, 100, 0), (2, 1000, 7, 1000000, 0)])
def test_isoftmax_32_and_64_bit(tmp_path, a, b, c, log2, s32):
    """iSoftmax's two loops (kernels/qlib_norm.c): the 32-bit one where its
    values fit (gen/qlib.c decides once: the header's s32), else the
    64-bit one (also for a log2 above 65536, whose bound would overflow
    int64); both equal to the definition on random rows of 24"""
    rng = np.random.default_rng(b)
    x = rng.integers(-128, 128, (1, 2, 5, 24))
    f = lambda v: numpy_helper.from_array(np.array([float(v)], np.float32))
    sm = helper.make_node("iSoftmax", ["x"], ["y"], coeffA=f(a), coeffB=f(b), coeffC=f(c), log2=f(log2), n_levels=f(256))
    m = graph([sm], [("x", [1, 2, 5, 24])], ["y"], {})
    got = run_htc(tmp_path, m, {"x": x})[0]
    assert np.array_equal(got.reshape(x.shape), i_softmax(x, a, b, c, log2))
    h = tmp_path / "m.h"
    r = subprocess.run([HTC, "compile", str(tmp_path / "m.onnx"), "-t", TARGET, "-o", str(h)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "HTC__F(s32) %d" % s32 in h.read_text()
