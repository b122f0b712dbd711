"""test_rq_exact.py - the CPU kernels' short requantizations where the
generator's per-channel checks (gen/emit.c rq_flags) admit them: dead
channels (multiplier 0, written as 2^30 / -31), biases near +-2^30 with
right shifts up to 31, beside channels the checks must refuse. Convolution,
pointwise (input offset folded), depthwise and fully connected layers, each
against TFLite Micro on the host's x86 paths, the Arm DSP paths (emulated in
C, tests/kernels/cc_dsp_emu.sh) and the portable paths (-DHTC_NO_SIMD)."""
import os
import re

import numpy as np
import pytest

import oracle
import tflite_build as tb

HERE = os.path.dirname(os.path.abspath(__file__))
IN_SCALE, IN_ZP = 0.05, -7


def _scales_bias(rng, n, k, in_scale, refuse):
    """per-channel weight scales and an int32 bias: channel 0 dead (scale 0,
    weights 0, bias near 2^30), 1 and 2 biases near +-2^30 with effective
    scales near 2^-28 (shift -28 .. -30), 3 a bias at 2^31 - 2^21 with a
    multiplier near 1 and shift -31 (refused by the DSP check) when refuse,
    the others ordinary"""
    ws = [float(np.float32(0.02 * (0.5 + rng.random()))) for _ in range(n)]
    b = rng.integers(-2000, 2001, size=[n]).astype(np.int64)
    ws[0] = 0.0
    b[0] = (1 << 30) - 5
    ws[1] = float(np.float32(2.0 ** -29 / in_scale * 1.7))
    b[1] = (1 << 30) - 3 * k * 128
    ws[2] = float(np.float32(2.0 ** -30 / in_scale * 1.3))
    b[2] = -(1 << 30)
    if refuse:
        ws[3] = float(np.float32(2.0 ** -31 / in_scale * 1.99))
        b[3] = (1 << 31) - (1 << 21)
    return ws, b.astype(np.int32)


def _weights(rng, shape, axis):
    w = rng.integers(-127, 128, size=shape).astype(np.int8)
    idx = [slice(None)] * len(shape)
    idx[axis] = 0
    w[tuple(idx)] = 0
    return w


def _model(kind, refuse):
    rng = np.random.default_rng(7)
    m = tb.Model(description="htc rq exact " + kind)
    out_scale, out_zp = 1.0, -128
    if kind == "fc":
        x = m.input([2, 40], IN_SCALE, IN_ZP)
        n, k = 12, 40
        ws, b = _scales_bias(rng, n, k, IN_SCALE, refuse)
        w = m.const(_weights(rng, [n, k], 0), "int8", scale=ws, zp=0, axis=0)
        bt = m.const(b, "int32", scale=[IN_SCALE * s for s in ws], zp=0)
        y = m.tensor([2, n], "int8", out_scale, out_zp)
        return m, m.op("FULLY_CONNECTED", [x, w, bt], [y])
    x = m.input([1, 6, 6, 8], IN_SCALE, IN_ZP)
    if kind == "dw":
        n, k = 8, 9
        ws, b = _scales_bias(rng, n, k, IN_SCALE, refuse)
        w = m.const(_weights(rng, [1, 3, 3, n], 3), "int8", scale=ws, zp=0, axis=3)
        bt = m.const(b, "int32", scale=[IN_SCALE * s for s in ws], zp=0)
        y = m.tensor([1, 6, 6, n], "int8", out_scale, out_zp)
        return m, m.op("DEPTHWISE_CONV_2D", [x, w, bt], [y], padding=tb.PADDING["SAME"], strideH=1, strideW=1,
                       depthMultiplier=1, dilationHFactor=1, dilationWFactor=1)
    kk = 3 if kind == "conv" else 1
    n, k = 12, kk * kk * 8
    ws, b = _scales_bias(rng, n, k, IN_SCALE, refuse)
    w = m.const(_weights(rng, [n, kk, kk, 8], 0), "int8", scale=ws, zp=0, axis=0)
    bt = m.const(b, "int32", scale=[IN_SCALE * s for s in ws], zp=0)
    y = m.tensor([1, 6, 6, n], "int8", out_scale, out_zp)
    return m, m.op("CONV_2D", [x, w, bt], [y], padding=tb.PADDING["SAME"], strideH=1, strideW=1,
                   dilationHFactor=1, dilationWFactor=1)


PATHS = {"x86": (None, "x86"), "arm-dsp": (os.path.join(HERE, "kernels", "cc_dsp_emu.sh"), "arm-dsp"),
         "portable": ("-DHTC_NO_SIMD", "portable")}


@pytest.mark.parametrize("refuse", [False, True])
@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("kind", ["conv", "pointwise", "dw", "fc"])
def test_rq_exact(kind, path, refuse, tmp_path, monkeypatch):
    m, y = _model(kind, refuse)
    m.output(y)
    model = m.save(str(tmp_path / (kind + ".tflite")))
    info = oracle.ModelInfo(model)
    rng = np.random.default_rng(11)
    t = info.tensors[info.inputs[0]]
    sets = [[rng.integers(-128, 128, t["shape"]).astype(np.int8)] for _ in range(3)]
    sets += [[np.full(t["shape"], v, np.int8)] for v in (-128, 127)]
    # the generator's decision: the dead channel rewritten, the layer on the DSP path
    hdr = tmp_path / "m.h"
    oracle.htc("compile", model, "-t", oracle.TARGET, "-D", "isa=" + PATHS[path][1], "-o", hdr, "--name", "m")
    text = hdr.read_text()
    mult = re.search(r"m__layer\d+_mult\[\d+\] = \{(-?\d+), ", text)
    shift = re.search(r"m__layer\d+_shift\[\d+\] = \{(-?\d+), ", text)
    assert mult and shift and (int(mult.group(1)), int(shift.group(1))) == (1 << 30, -31), "dead channel not rewritten"
    rq = re.search(r"HTC__F\(rq\) (\d+)", text)
    # HTC__RQ_SET | HTC__RQ_PRQ | HTC__RQ_DSP, or HTC__RQ_SET alone with the channel near 2^31
    assert rq and int(rq.group(1)) == (4 if refuse else 7), "rq %s" % rq.group(1)
    cc, isa = PATHS[path]
    if cc and cc.startswith("-"):
        wrap = tmp_path / "cc.sh"
        wrap.write_text('#!/bin/sh\nexec ${HOST_CC:-cc} %s "$@"\n' % cc)
        wrap.chmod(0o755)
        cc = str(wrap)
    if cc:
        monkeypatch.setattr(oracle, "CC", cc)
    got = oracle.run_htc_batch(model, sets, args=("-D", "isa=" + isa), info=info)
    for s, inputs in enumerate(sets):
        ref, _ = oracle.run_interpreter(model, inputs)
        assert np.array_equal(np.asarray(got[s][0][0]), np.asarray(ref[0])), "%s %s set %d differs from TFLM" % (kind, path, s)
