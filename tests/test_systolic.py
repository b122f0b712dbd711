"""test_systolic.py - tests/targets/systolic: a DIM x DIM weight-stationary
systolic array with a scratchpad (inputs, weights) and a separate int32
accumulator (the output tiles), HWIO weights and biases with the input zero
point folded in, both made at compile time by the target's `constants`.
Checks: `htc verify` runs the four MLPerf Tiny models on it against the CPU
reference (whose kernels the other tests check against TFLite Micro),
every layer equal on random inputs, the device model's cycles within 10%
of the estimate; every plain convolution and FC is on the array; C is
tiled in ResNet's 3x3 64->64 layers and AD's 640-wide FC layers, where
the 4 KiB scratchpad cannot hold a tile with C whole; the header carries
the HWIO weights and the folded biases, and the template does no
arithmetic on them."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import oracle

TARGET = os.path.join(oracle.REPO, "tests", "targets", "systolic", "systolic.lua")
MODELS = {"ad01_int8": 10, "kws_ref_model": 13, "pretrainedResnet_quant": 16, "vww_96_int8": 31}


def model(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def report(name):
    p = subprocess.run([oracle.HTC, "report", model(name), "-t", TARGET, "--json"], capture_output=True, text=True,
                       cwd=oracle.REPO, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["layers"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_verify_bitexact(name, tmp_path):
    p = subprocess.run([oracle.HTC, "verify", model(name), "-t", TARGET, "-n", "2", "--keep", str(tmp_path)],
                       capture_output=True, text=True, cwd=oracle.REPO, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verify: 2 passed, 0 failed" in p.stdout, p.stdout
    n = len(re.findall(r"every layer equal \((\d+) tensors compared\)", p.stdout))
    assert n == 2, p.stdout
    counts = {int(c) for c in re.findall(r"every layer equal \((\d+) tensors compared\)", p.stdout)}
    assert counts == {MODELS[name]}, p.stdout
    m = re.search(r"offloaded layers: measured (\d+), estimated (\d+) cycles", p.stdout)
    assert m and 0.9 <= int(m.group(2)) / int(m.group(1)) <= 1.1, p.stdout
    # the header: HWIO weights and folded biases, made at compile time
    hdr = open(os.path.join(tmp_path, "tgt.h")).read()
    layers = [l for l in report(name) if l.get("tile")]
    assert layers
    for l in layers[:3]:
        check_constants(hdr, name, l)


def c_array(hdr, name):
    m = re.search(r"static const \w+ %s\[\d+\][^=]*= \{([^}]*)\}" % re.escape(name), hdr)
    assert m, name
    return np.array([int(v) for v in re.findall(r"-?\d+", m.group(1))], np.int64)


def check_constants(hdr, name, layer):
    """layer's weights in the header are the model's, HWIO ([kh][kw][C][K]),
    its biases b - in_zp * sum w (the model's data read by ai-edge-litert)"""
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_path=model(name))
    op = it._get_ops_details()[layer["source_index"]]
    det = {d["index"]: d for d in it.get_tensor_details()}
    w = it.get_tensor(int(op["inputs"][1])).astype(np.int64)
    b = it.get_tensor(int(op["inputs"][2])).astype(np.int64)
    in_zp = det[int(op["inputs"][0])]["quantization"][1]
    if w.ndim == 2:
        w = w[:, None, None, :]                         # fc: [K][C] as [K][1][1][C]
    li = layer["index"]
    assert (c_array(hdr, "tgt__layer%d_weights" % li) == w.transpose(1, 2, 3, 0).reshape(-1)).all(), li
    assert (c_array(hdr, "tgt__layer%d_bias" % li) == b - in_zp * w.sum(axis=(1, 2, 3))).all(), li
    assert in_zp != 0 or name != "ad01_int8"


def test_every_conv_and_fc_on_the_array():
    for name in MODELS:
        for l in report(name):
            if l["op"] in ("conv2d", "fc") and not (l["op"] == "conv2d" and l.get("tile", {}).get("geom") == "dw"):
                if l["engine"] != "sa":
                    # only depthwise convolutions stay on the host
                    assert "depthwise" in l.get("reason", "") or "grouped" in l.get("reason", ""), (name, l)


def test_c_tiled_where_the_scratchpad_forces_it():
    """K tiles are at least 8 channels (the array): the smallest tile of a
    3x3 64->64 layer with C whole needs 8*64*9 = 4608 bytes of weights, of
    a 640-wide FC 8*640 = 5120, more than the 4 KiB scratchpad."""
    seen = {"resnet": 0, "ad": 0}
    for name, key in (("pretrainedResnet_quant", "resnet"), ("ad01_int8", "ad")):
        for l in report(name):
            t = l.get("tile")
            if not t:
                continue
            f, z = t["full"], t["size"]
            taps = 9 if key == "resnet" else 1
            if (key == "resnet" and f["K"] == 64 and f["C"] == 64) or (key == "ad" and f["C"] == 640):
                assert 8 * f["C"] * taps > 4096
                assert z["C"] < f["C"] and t["c_tiles"] == -(-f["C"] // z["C"]), t
                seen[key] += 1
            assert t["out_bytes"] == 4 * z["K"] * z["OY"] * z["OX"] <= 8192, t
            assert (t["l1_bytes"] + 3) // 4 * 4 + t["w_bytes"] <= 4096, t
    assert seen == {"resnet": 1, "ad": 1}, seen


def test_targets_lists_the_memories():
    p = subprocess.run([oracle.HTC, "targets", TARGET], capture_output=True, text=True, cwd=oracle.REPO, timeout=60)
    assert p.returncode == 0, p.stderr
    assert ("engine sa: requant tflite; array 8x8; tiles in SP, weights in SP, outputs in ACC; 1 core; "
            "ops conv2d (C tiled, partial sums) fc (C tiled, partial sums)") in p.stdout, p.stdout
