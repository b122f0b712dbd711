"""tests/test_vanilla.py - a second, deliberately different accelerator
(targets/vanilla.lua: Conv2D + bias only, one 16 kB scratchpad holding
input tile, int32 accumulators and weights, host-side requantisation,
y-x-C tiles; templates/vanilla/, device model kernels/vanilla.c) needs no
change to the compiler: power-of-two zoo networks compiled for it run
bit-exact with onnxruntime, plain convolutions on the accelerator, the
rest (depthwise, pooling, FC, softmax, add) on the CPU; the device model
aborts on any scratchpad overflow."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as oo  # noqa: E402

VANILLA = os.path.join(oo.REPO, "targets", "vanilla.lua")


def report(model, target=VANILLA):
    p = subprocess.run([oo.HTC, "report", model, "-t", target, "--json"], capture_output=True, text=True, cwd=oo.REPO)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("net", ["kws", "resnet"])
def test_vanilla_bitexact(net, tmp_path, monkeypatch):
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_pow2qop_s8.onnx" % net)
    rep = report(model)
    on, off = 0, 0
    for layer in rep["layers"]:
        if layer["engine"] == "vanilla":
            assert layer["op"] == "conv2d"
            assert layer["tile"]["l1_bytes"] <= 16 * 1024, layer
            on += 1
        elif layer["op"] == "conv2d":
            assert "grouped or depthwise" in layer["reason"] or "kernel" in layer["reason"], layer
            off += 1
    assert on > 0
    assert any(l["engine"] == "vanilla" and l["tile"]["tiles"] > 1 for l in rep["layers"]), "no layer was split"
    monkeypatch.setattr(oo, "TARGET", VANILLA)
    exe = oo.build(model, str(tmp_path))
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 4, seed=5)
    got, _ = oo.run(exe, str(tmp_path), ins)
    want = oo.ort_outputs(sess, ins)
    for k in range(len(ins)):
        a, b = np.frombuffer(got[k], np.uint8), np.frombuffer(want[k], np.uint8)
        assert a.tobytes() == b.tobytes(), "%s input %d: %d bytes differ" % (net, k, int((a != b).sum()))


def test_vanilla_scratchpad_below_core_refused(tmp_path):
    """A target that states less scratchpad than the core's own buffers (its
    input and output tiles) is refused at compile time, naming the tile
    function's file:line: a target may add to the core's sizes, never shrink
    them."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "kws_pow2qop_s8.onnx")
    src = open(VANILLA).read().replace("l1_bytes = l1,", "l1_bytes = l1 - 4 * (t.K * t.OY * t.OX),")
    assert src != open(VANILLA).read()
    tgt = str(tmp_path / "liar.lua")
    open(tgt, "w").write(src)
    line = next(i + 1 for i, l in enumerate(src.split("\n")) if "l1_bytes = l1 - 4" in l)   # the field's line
    r = subprocess.run([oo.HTC, "compile", model, "-t", tgt, "-o", str(tmp_path / "m.h")], capture_output=True,
                       text=True)
    assert r.returncode == 1 and not os.path.exists(tmp_path / "m.h"), r.stderr
    err = r.stderr.strip().split("\n")
    assert len(err) == 1 and err[0].startswith("htc: error: %s:%d: vanilla.ops.conv2d.tile.l1_bytes is " % (tgt, line)), err
    assert "never shrink" in err[0]


def test_vanilla_scratchpad_overflow_aborts(tmp_path, monkeypatch):
    """The device model checks the declared scratchpad: a target that states
    only the core's buffers and forgets its own (the int32 accumulators and
    weights its template keeps there) compiles, and aborts at run time."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "kws_pow2qop_s8.onnx")
    src = open(VANILLA).read().replace("l1_bytes = l1,", "l1_bytes = t.l1_in + t.l1_out,")
    assert src != open(VANILLA).read()
    tgt = str(tmp_path / "liar.lua")
    open(tgt, "w").write(src)
    monkeypatch.setattr(oo, "TARGET", tgt)
    exe = oo.build(model, str(tmp_path))
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 1, seed=1)
    with pytest.raises(oo.HtcError, match="driver exit"):
        oo.run(exe, str(tmp_path), ins)


def test_no_compiler_change_needed():
    """Nothing in gen/ names the vanilla target or its device model."""
    for f in os.listdir(os.path.join(oo.REPO, "gen")):
        text = open(os.path.join(oo.REPO, "gen", f), errors="replace").read()
        assert "vanilla" not in text and "htc__van" not in text, f
