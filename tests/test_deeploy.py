"""tests/test_deeploy.py - QuantLib's integer ONNX form (gen/qlib.c): every
network of Deeploy's tests in ../shared/deeploy-tests (verbatim copies,
CC-BY-ND-4.0, read in place) through `htc run` on the CPU target with
`--input inputs.npz --output out.npz`, bit-exact against Deeploy's
outputs.npz. Where Deeploy ships activations.npz (intermediate tensors,
named by QuantLib module, not by ONNX tensor), every 8-bit activation (a
RequantShift's or norm's output, values in -128..255, not a PACT conv /
linear accumulator) must equal one tensor htc's
--dump wrote (in ONNX or NHWC order; unsigned tensors hold value - 128);
the int32 accumulators htc fused into their RequantShift have no tensor.
A missing ../shared/deeploy-tests is a failure, not a skip. test_vanilla_accelerator:
QuantLib convolutions offloaded to targets/vanilla.lua's engine, bit-exact."""
import json
import os
import subprocess

import numpy as np
import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
TARGET = os.path.join(REPO, "targets", "cpu.lua")
TESTS = os.environ.get("HTC_DEEPLOY") or os.path.join(REPO, "..", "shared", "deeploy-tests")
NETS = sorted(d for d in os.listdir(TESTS) if os.path.isfile(os.path.join(TESTS, d, "network.onnx"))) \
    if os.path.isdir(TESTS) else []


def test_test_data_present():
    assert os.path.isdir(TESTS), "Deeploy's test networks are missing: %s" % TESTS
    assert len(NETS) >= 18, NETS


def dumped(model, inputs, dump):
    """{tensor name: candidate int64 arrays} for every tensor --dump wrote."""
    r = subprocess.run([HTC, "report", model, "-t", TARGET, "--json", "--input", inputs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    shapes = {l["output"]: l["out_shape"] for l in j["layers"]}
    out = {}
    for b in j["buffers"]:
        p = os.path.join(dump, "%d.bin" % b["tensor"])
        if not os.path.exists(p) or b["name"] not in shapes:
            continue
        shape = shapes[b["name"]]
        n = int(np.prod(shape))
        raw = open(p, "rb").read()
        cands = []
        if len(raw) == n:
            s8 = np.frombuffer(raw, np.int8).astype(np.int64)
            cands += [s8, s8 + 128, np.frombuffer(raw, np.uint8).astype(np.int64)]
        elif len(raw) == 4 * n:
            cands.append(np.frombuffer(raw, np.int32).astype(np.int64))
        arrays = []
        for c in cands:
            a = c.reshape(shape)
            arrays.append(a)
            if a.ndim == 4:
                arrays.append(a.transpose(0, 3, 1, 2))     # NHWC -> NCHW
        out[b["name"]] = arrays
    return out


@pytest.mark.parametrize("net", NETS)
def test_network(net, tmp_path):
    d = os.path.join(TESTS, net)
    model = os.path.join(d, "network.onnx")
    dump = str(tmp_path / "dump")
    out = str(tmp_path / "out.npz")
    r = subprocess.run([HTC, "run", model, "-t", TARGET, "--input", os.path.join(d, "inputs.npz"), "--output", out,
                        "--dump", dump], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = np.load(os.path.join(d, "outputs.npz"))
    got = np.load(out)
    assert len(got.files) == len(want.files)
    for gk, wk in zip(got.files, want.files):
        w = want[wk].astype(np.int64)
        g = got[gk].astype(np.int64)
        assert g.size == w.size, (gk, g.shape, w.shape)
        assert np.array_equal(g.reshape(w.shape), w), "%s: %d of %d values differ" % (
            wk, int((g.reshape(w.shape) != w).sum()), w.size)
    act = os.path.join(d, "activations.npz")
    if not os.path.exists(act):
        return
    acts = np.load(act)
    if not acts.files:
        return
    tensors = dumped(model, os.path.join(d, "inputs.npz"), dump)
    tensors["outputs"] = [got[k].astype(np.int64) for k in got.files]    # checked above
    checked, missing = 0, []
    for k in acts.files:
        a = acts[k].astype(np.int64)
        if a.size == 0 or a.min() < -128 or a.max() > 255 or "_pact_conv2d_pass" in k or "_pact_lin_pass" in k:
            continue        # an int32 accumulator (QuantLib's PACT conv / linear): fused into its RequantShift
        checked += 1
        if not any(c.shape == a.shape and np.array_equal(c, a) for cs in tensors.values() for c in cs):
            missing.append(k)
    assert checked > 0
    assert not missing, "%d of %d 8-bit activations match no tensor: %s" % (len(missing), checked, missing[:5])


VANILLA = os.path.join(REPO, "targets", "vanilla.lua")


@pytest.mark.parametrize("net", ["MLPerf_KeywordSpotting", "miniMobileNet", "CCT_Int_ICCT", "Kernel_Integer_Conv_Regular_2D_RQ"])
def test_vanilla_accelerator(net, tmp_path):
    """QuantLib convolutions offloaded: targets/vanilla.lua's engine declares
    the quantlib requant kind (the host applies RequantShift to its int32
    accumulators, kernels/vanilla.c htc__van_requant_ql); the network stays
    bit-exact against Deeploy's outputs.npz and its header compiles
    warning-free."""
    d = os.path.join(TESTS, net)
    model, inputs = os.path.join(d, "network.onnx"), os.path.join(d, "inputs.npz")
    r = subprocess.run([HTC, "report", model, "-t", VANILLA, "--json", "--input", inputs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    off = [l for l in json.loads(r.stdout)["layers"] if l["engine"] == "vanilla"]
    assert off and all(l["requant"] == "quantlib" and l["op"] == "conv2d" and l["tile"] for l in off), off
    out = str(tmp_path / "out.npz")
    r = subprocess.run([HTC, "run", model, "-t", VANILLA, "--input", inputs, "--output", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want, got = np.load(os.path.join(d, "outputs.npz")), np.load(out)
    assert len(got.files) == len(want.files)
    for gk, wk in zip(got.files, want.files):
        w = want[wk].astype(np.int64)
        assert np.array_equal(got[gk].astype(np.int64).reshape(w.shape), w), wk
    h = str(tmp_path / "m.h")
    r = subprocess.run([HTC, "compile", model, "-t", VANILLA, "-o", h, "--name", "m", "--input", inputs],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    c = tmp_path / "m.c"
    c.write_text('#define M_IMPLEMENTATION\n#include "m.h"\n')
    r = subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(c), "-o", str(tmp_path / "m.o")],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
