"""test_dla.py - the DLA of Sponner et al. (targets/dla.lua, device model
kernels/dla.c) on the host virtual platform: bit-exact with TFLite Micro
for MLPerf Tiny models and a power-of-two model over several
configurations (PEs, SRAM, input/output parallel, the three depthwise
modes, channel-only and full tiling), every output and intermediate tensor;
the device model's cycles equal the compiler's estimate."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import oracle

DLA = os.path.join(oracle.REPO, "targets", "dla.lua")
OFFLOAD = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def model_path(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def report(model, *args):
    p = subprocess.run([oracle.HTC, "report", model, "-t", DLA, "--json"] + list(args), capture_output=True,
                       text=True, cwd=oracle.REPO)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def pow2_tflite(path, seed=4):
    """conv 3x3 + ReLU, depthwise 3x3 stride 2, conv 1x1, FC; every scale a
    power of two (TFLite's multipliers exactly 2^30, shift only)"""
    import tflite_build as tb
    rng = np.random.default_rng(seed)
    m = tb.Model()
    x = m.input([1, 16, 16, 4], scale=2.0 ** -4, zp=3)
    y = m.conv2d(x, 40, 3, rng, act="RELU", per_channel=False, w_scale=2.0 ** -6, out_scale=2.0 ** -2, out_zp=-5)
    y = m.depthwise_conv2d(y, 3, rng, stride=2, per_channel=False, w_scale=2.0 ** -5, out_scale=2.0 ** -3, out_zp=2)
    y = m.conv2d(y, 70, 1, rng, per_channel=False, w_scale=2.0 ** -7, out_scale=2.0 ** -1, out_zp=-1)
    y = m.reshape(y, [1, 8 * 8 * 70])
    y = m.fully_connected(y, 10, rng, w_scale=2.0 ** -6, out_scale=2.0 ** -2, out_zp=4)
    m.output(y)
    m.save(path)


CONFIGS = [
    ("pes=64", "parallel=output", "depthwise=native", "sram_kib=512"),
    ("pes=128", "parallel=input", "depthwise=conv", "sram_kib=64"),
    ("pes=32", "parallel=output", "depthwise=none", "sram_kib=32", "tiling=any"),
    ("pes=256", "parallel=input", "depthwise=native", "sram_kib=32", "tiling=any"),
]


def check(path, cfg, tmp_path, seeds=(0, 1)):
    args = [a for kv in cfg for a in ("-D", kv)]
    rep = report(path, *args)
    dw_mode = dict(kv.split("=") for kv in cfg).get("depthwise", "native")
    sram = int(dict(kv.split("=") for kv in cfg).get("sram_kib", 512)) * 1024
    n = 0
    for layer in rep["layers"]:
        if layer["source_op"] in OFFLOAD:
            if layer["source_op"] == "DEPTHWISE_CONV_2D" and dw_mode == "none":
                assert layer["engine"] == "host" and "depthwise=none" in layer["reason"], layer
                continue
            assert layer["engine"] == "dla", (layer["index"], layer["reason"])
            assert layer["tile"]["l1_bytes"] + layer["tile"]["w_bytes"] <= sram
            n += 1
    assert n >= 3
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(50 + s) for s in seeds]
    results = oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=DLA, args=args)
    for inputs, (outs, dumps) in zip(sets, results):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
        assert not errors, "\n".join(errors)
        assert compared == len(info.ops) > 0
    # the device model's cycles equal the estimate, layer by layer, up to
    # the DMA's rounding (the estimate divides bytes by the rate, the
    # device rounds each transfer up to a whole cycle)
    x = info.random_inputs(9)
    _, _, stdout = oracle.run_htc(path, x, dump=False, target=DLA, args=args)
    rows = re.findall(r"^\s*(\d+)\s+(\w+)\s+(\w+)\s+(\d+)\s+(\d+)  ", stdout, re.M)
    dla = [r for r in rows if r[2] == "dla"]
    assert len(dla) == n, stdout
    for r in dla:
        assert abs(int(r[3]) - int(r[4])) <= max(8, 0.01 * int(r[3])), (cfg, r)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(c))
def test_vww_bitexact(cfg, tmp_path):
    check(model_path("vww_96_int8"), cfg, tmp_path)


@pytest.mark.parametrize("cfg", CONFIGS[1:3], ids=lambda c: ",".join(c))
def test_kws_bitexact(cfg, tmp_path):
    check(model_path("kws_ref_model"), cfg, tmp_path, seeds=(3,))


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(c))
def test_pow2_bitexact(cfg, tmp_path):
    path = str(tmp_path / "pow2.tflite")
    pow2_tflite(path)
    check(path, cfg, tmp_path)


def test_bad_parameters_name_the_target_line():
    for d, want in (("pes=16", "targets/dla.lua:26: param 'pes'"), ("parallel=both", "targets/dla.lua:30: param 'parallel'"),
                    ("depthwise=yes", "targets/dla.lua:32: param 'depthwise'")):
        p = subprocess.run([oracle.HTC, "report", model_path("kws_ref_model"), "-t", DLA, "-D", d],
                           capture_output=True, text=True, cwd=oracle.REPO)
        assert p.returncode == 1 and p.stderr.startswith("htc: error: ") and want in p.stderr, p.stderr
        assert p.stderr.count("\n") == 1
