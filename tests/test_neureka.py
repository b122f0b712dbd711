"""tests/test_neureka.py - Siracusa's N-EUREKA engine (targets/siracusa.lua
-D engines=neureka|both, kernels/neureka.c, templates/neureka): random
QuantLib-form layers of every supported kind (1x1, 3x3 with and without
padding, depthwise 3x3; signed and unsigned inputs and outputs; input
channels across N-EUREKA's 28 / 32 channel groups) offloaded and bit-exact
against onnxruntime computing the same graph in float (exact: integers
below 2^24) with the RequantShift from its definition in numpy; the
bit-plane weights htc stores checked against a numpy encoding of pulp-nnx's
documented layout; Deeploy's networks (../shared/deeploy-tests) with their
convolutions on N-EUREKA bit-exact with Deeploy's outputs.npz; layers the
engine cannot reproduce exactly stay on the cluster with the reason."""
import json
import os
import re
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
TARGET = os.path.join(REPO, "targets", "siracusa.lua")
TESTS = os.environ.get("HTC_DEEPLOY") or os.path.join(REPO, "..", "shared", "deeploy-tests")


def graph(nodes, ins, outs, inits):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in ins],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outs],
                          [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("PACTOps", 1)])
    m.ir_version = 8
    return m


def rq(x, mul, add, shift, signed):
    y = (x * mul + add + (1 << (shift - 1))) >> shift
    return np.clip(y, -128, 127) if signed else np.clip(y, 0, 255)


def conv_acc(x, w, b, pad, group, stride=1):
    """onnxruntime's float Conv: exact on these integers"""
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[pad] * 4, group=group,
                            kernel_shape=list(w.shape[2:]), strides=[stride, stride])
    m = graph([node], [("x", list(x.shape))], ["y"], {"w": w, "b": b})
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return np.asarray(s.run(None, {"x": x.astype(np.float32)})[0]).astype(np.int64)


def layer(rng, name, x, c, k, kh, dw, signed, stride=1):
    """one Conv + RequantShift: nodes, initializers and its numpy output"""
    group = c if dw else 1
    w = rng.integers(-128, 128, (k, 1 if dw else c, kh, kh))
    b = rng.integers(-3000, 3000, (k,))
    mul = rng.integers(1, 40, (k, 1, 1))
    add = rng.integers(-5000, 5000, (k, 1, 1))
    shift = 14
    pad = 1 if kh == 3 else 0
    acc = conv_acc(x, w, b, pad, group, stride)
    y = rq(acc, mul, add, shift, signed)
    nodes = [helper.make_node("Conv", [name + "x", name + "w", name + "b"], [name + "acc"], pads=[pad] * 4,
                              group=group, kernel_shape=[kh, kh], strides=[stride, stride]),
             helper.make_node("RequantShift", [name + "acc", name + "mul", name + "add"], [name + "y"],
                              div=1 << shift, n_levels_out=256, signed=int(signed))]
    inits = {name + "w": w, name + "b": b, name + "mul": mul, name + "add": add}
    return nodes, inits, y


def htc(args, tmp):
    r = subprocess.run([HTC] + args, capture_output=True, text=True, cwd=str(tmp))
    assert r.returncode == 0, r.stderr
    return r.stdout


# (kernel, depthwise, C, K, H, W): every supported kind, channel counts
# inside, at and across N-EUREKA's 28 / 32-channel groups, K across 32
# (the second layer stride 2 in the last four: a stride-1 job, every other pixel out)
CASES = [(1, 0, 8, 16, 6, 6, 1), (1, 0, 32, 32, 7, 5, 1), (1, 0, 70, 40, 5, 9, 1), (3, 0, 5, 8, 8, 8, 1),
         (3, 0, 28, 33, 6, 7, 1), (3, 0, 60, 20, 9, 4, 1), (3, 1, 20, 20, 8, 8, 1), (3, 1, 60, 60, 7, 13, 1),
         (1, 0, 40, 24, 9, 7, 2), (3, 0, 30, 36, 13, 8, 2), (3, 1, 40, 40, 14, 9, 2), (3, 1, 28, 28, 8, 8, 2)]


@pytest.mark.parametrize("kh,dw,c,k,h,w,stride", CASES)
def test_random_layers(tmp_path, kh, dw, c, k, h, w, stride):
    """two chained layers: the first with a signed input and unsigned output
    (RequantShift signed=0: stored value - 128), so the second reads an
    unsigned input (zero point -128: N-EUREKA's unsigned mode on the bytes
    + 128, padded with 0); both on N-EUREKA, bit-exact; the same bytes with
    engines=both and engines=cluster"""
    rng = np.random.default_rng(kh * 1000 + dw * 100 + c + k + h)
    x = rng.integers(-128, 128, (1, c, h, w))
    n1, i1, y1 = layer(rng, "a", x, c, k if not dw else c, kh, dw, False)
    k2 = k if not dw else c
    n2, i2, y2 = layer(rng, "b", y1, k2, k2 if dw else k, kh, dw, True, stride)
    n1[0].input[0] = "x"
    n2[0].input[0] = "ay"
    m = graph(n1 + n2, [("x", [1, c, h, w])], ["by"], {**i1, **i2})
    p = str(tmp_path / "m.onnx")
    onnx.save(m, p)
    np.savez(str(tmp_path / "in.npz"), x=x.astype(np.int64))
    rep = json.loads(htc(["report", p, "-t", TARGET, "-D", "engines=neureka", "--json", "--input", "in.npz"], tmp_path))
    convs = [l for l in rep["layers"] if l["op"] == "conv2d"]
    assert len(convs) == 2 and all(l["engine"] == "neureka" for l in convs), convs
    for eng in ("neureka", "both", "cluster"):
        htc(["run", p, "-t", TARGET, "-D", "engines=" + eng, "--input", "in.npz", "--output", "out.npz"], tmp_path)
        o = np.load(str(tmp_path / "out.npz"))
        got = o[o.files[0]].astype(np.int64).reshape(y2.shape)
        assert np.array_equal(got, y2), "%s: %d of %d differ" % (eng, int((got != y2).sum()), y2.size)
    out = htc(["verify", p, "-t", TARGET, "-D", "engines=neureka", "-n", "2"], tmp_path)
    assert "0 failed" in out, out


def encode(wt, dw):
    """numpy transcription of pulp-nnx's documented N-EUREKA weight layout
    (test/NeurekaWeight.py's docstring): w + 128, (cout, cin, kh, kw)"""
    u = (wt.astype(np.int64) + 128).astype(np.uint8)
    if dw:
        u = u.transpose(1, 0, 2, 3)
    cout, cin, kh, kw = u.shape
    sub = 28 if kh == 3 else 32
    u = np.pad(u, ((0, 0), (0, -cin % sub), (0, 0), (0, 0)))
    major = u.shape[1] // sub
    bits = np.unpackbits(u.reshape(cout, major, sub, kh * kw, 1), axis=-1, count=8, bitorder="little")
    bits = bits.transpose(0, 1, 4, 3, 2)        # cout, major, bit, tap, channel
    if kh == 3:
        rows = bits.reshape(-1, kh * kw * sub)
        rows = np.pad(rows, ((0, 0), (0, 256 - rows.shape[1])))
    else:
        rows = bits.reshape(cout, major, 8, 1, sub // 4, 4).transpose(0, 1, 3, 4, 2, 5).reshape(-1, 256)
    return np.packbits(rows.reshape(-1, 8), axis=-1, bitorder="little").ravel()


@pytest.mark.parametrize("kh,dw,c,k", [(1, 0, 40, 9), (3, 0, 30, 5), (3, 1, 31, 31)])
def test_weight_layout(tmp_path, kh, dw, c, k):
    """the bit planes in the generated header equal pulp-nnx's layout"""
    rng = np.random.default_rng(c + k)
    x = rng.integers(-128, 128, (1, c, 6, 6))
    n, i, _ = layer(rng, "a", x, c, k, kh, dw, True)
    n[0].input[0] = "x"
    m = graph(n, [("x", [1, c, 6, 6])], ["ay"], i)
    p = str(tmp_path / "m.onnx")
    onnx.save(m, p)
    htc(["compile", p, "-t", TARGET, "-D", "engines=neureka", "-o", "m.h", "--name", "m"], tmp_path)
    text = (tmp_path / "m.h").read_text()
    arr = re.search(r"static const u?int8_t \w+__layer\d+_weights\[\d*\][^=]*= \{([^}]*)\}", text)
    assert arr, "no weight array in the header"
    got = np.array([int(v) % 256 for v in arr.group(1).replace("\n", " ").split(",") if v.strip()], np.uint8)
    want = encode(i["aw"], dw)
    assert np.array_equal(got, want), (got.size, want.size)


def test_inexact_stays_on_cluster(tmp_path):
    """a multiplier whose int32 product can overflow: not offloaded, with the reason"""
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, (1, 16, 6, 6))
    n, i, _ = layer(rng, "a", x, 16, 16, 3, 0, True)
    i["amul"] = np.full((16, 1, 1), 1 << 20)
    n[0].input[0] = "x"
    p = str(tmp_path / "m.onnx")
    onnx.save(graph(n, [("x", [1, 16, 6, 6])], ["ay"], i), p)
    out = htc(["report", p, "-t", TARGET, "-D", "engines=neureka"], tmp_path)
    line = [l for l in out.splitlines() if "conv2d" in l][0]
    assert "cluster" in line and "int32 overflow" in line, line


def test_narrow_clip_stays_on_cluster(tmp_path):
    """a RequantShift to 7 bits (stored clip [-128, -1]): N-EUREKA clips to
    int8 or, with its ReLU, to [0, 255], so the layer stays on the cluster"""
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, (1, 16, 6, 6))
    n, i, _ = layer(rng, "a", x, 16, 16, 3, 0, False)
    for a in n[1].attribute:
        if a.name == "n_levels_out":
            a.i = 128
    n[0].input[0] = "x"
    p = str(tmp_path / "m.onnx")
    onnx.save(graph(n, [("x", [1, 16, 6, 6])], ["ay"], i), p)
    out = htc(["report", p, "-t", TARGET, "-D", "engines=neureka"], tmp_path)
    line = [l for l in out.splitlines() if "conv2d" in l][0]
    assert "cluster" in line and "clip [-128, -1] is not int8" in line, line


@pytest.mark.parametrize("net", ["Kernel_Integer_Conv_DW_2D_RQ", "miniMobileNet", "MLPerf_KeywordSpotting",
                                 "microLlama_INT8_microLlama1"])
def test_deeploy_networks(net, tmp_path):
    """Deeploy's networks with their stride-1 1x1 / 3x3 / depthwise layers
    and MicroLlama's linear layers (1x1 of one pixel) on N-EUREKA, every
    layer it accepts (engines=neureka) or by estimated cycles (both: each of
    these layers, with the estimates in the reason): outputs bit-exact with
    Deeploy's goldens"""
    d = os.path.join(TESTS, net)
    model, inputs = os.path.join(d, "network.onnx"), os.path.join(d, "inputs.npz")
    for eng in ("neureka", "both"):
        rep = json.loads(htc(["report", model, "-t", TARGET, "-D", "engines=" + eng, "--json", "--input", inputs],
                             tmp_path))
        neu = [l for l in rep["layers"] if l["engine"] == "neureka"]
        assert neu
        if eng == "both":
            assert all("N-EUREKA ~" in json.dumps(l) for l in neu), neu[0]
        htc(["run", model, "-t", TARGET, "-D", "engines=" + eng, "--input", inputs, "--output", "out.npz"], tmp_path)
        want, got = np.load(os.path.join(d, "outputs.npz")), np.load(str(tmp_path / "out.npz"))
        assert len(got.files) == len(want.files)
        for gk, wk in zip(got.files, want.files):
            w = want[wk].astype(np.int64)
            assert np.array_equal(got[gk].astype(np.int64).reshape(w.shape), w), (eng, wk)


ALL_NETS = sorted(n for n in (os.listdir(TESTS) if os.path.isdir(TESTS) else [])
                  if os.path.exists(os.path.join(TESTS, n, "network.onnx")))


@pytest.mark.parametrize("net", ALL_NETS)
def test_every_deeploy_network_both(net, tmp_path):
    """every Deeploy network of ../shared/deeploy-tests with engines=both
    (N-EUREKA where its estimate wins, or the reason it refuses): bit-exact
    with Deeploy's outputs"""
    d = os.path.join(TESTS, net)
    htc(["run", os.path.join(d, "network.onnx"), "-t", TARGET, "-D", "engines=both", "--input",
         os.path.join(d, "inputs.npz"), "--output", "out.npz"], tmp_path)
    want, got = np.load(os.path.join(d, "outputs.npz")), np.load(str(tmp_path / "out.npz"))
    assert len(got.files) == len(want.files)
    for gk, wk in zip(got.files, want.files):
        w = want[wk].astype(np.int64)
        assert np.array_equal(got[gk].astype(np.int64).reshape(w.shape), w), wk


def test_header_compiles(tmp_path):
    """KWS with N-EUREKA: the header compiles warning-free as C99 and C++"""
    d = os.path.join(TESTS, "MLPerf_KeywordSpotting")
    htc(["compile", os.path.join(d, "network.onnx"), "-t", TARGET, "-D", "engines=neureka", "-o", "m.h", "--name", "m",
         "--input", os.path.join(d, "inputs.npz")], tmp_path)
    src = '#define M_IMPLEMENTATION\n#include "m.h"\n'
    (tmp_path / "m.c").write_text(src)
    (tmp_path / "m.cpp").write_text(src)
    for cmd in (["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", "m.c", "-o", "m.o"],
                ["c++", "-Wall", "-Wextra", "-Werror", "-c", "m.cpp", "-o", "m2.o"]):
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr


def test_device_model_equals_gvsoc(tmp_path):
    """kernels/neureka.c's device model gives GVSoC's N-EUREKA bytes: the 16
    jobs of tests/neureka/jobs.c (3x3, 1x1, depthwise; ReLU or not; int8 /
    uint8 input; padding; wrapping products) built on the host print the
    bytes tests/neureka/gvsoc_jobs.py recorded from GVSoC (driven through
    its registers)"""
    d = os.path.join(REPO, "tests", "neureka")
    exe = str(tmp_path / "jobs")
    r = subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-o", exe, os.path.join(d, "jobs.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    host = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split("\n")
    want = [l for l in open(os.path.join(d, "gvsoc_jobs.txt")).read().split("\n") if not l.startswith("#")]
    assert sum(l.startswith("job ") for l in want) == 16 and "jobs: 16 done" in want
    assert host == want, next(("line %d: %s != %s" % (i, a, b) for i, (a, b) in enumerate(zip(host, want)) if a != b),
                              "lengths %d %d" % (len(host), len(want)))
