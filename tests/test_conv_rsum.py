"""test_conv_rsum.py - padded convolutions whose receptive field exceeds the
column buffers (path C of the portable and DSP kernels) read their
per-kernel-row weight sums times the input offset from the parameter block
(htc__conv_params.rsum, gen/emit.c emit_rsum) instead of summing weights
at every call: the array is written for isa=portable and isa=arm-dsp (not
for isa=x86), and the outputs equal TFLite Micro's on the portable
(-DHTC_NO_SIMD) and Arm DSP (emulated in C, tests/kernels/cc_dsp_emu.sh)
paths: stride 1 and 2, dilation 2, an odd channel count (the last channel
pair / quad short), inputs at the extremes."""
import os
import re

import numpy as np
import pytest

import oracle
import tflite_build as tb

HERE = os.path.dirname(os.path.abspath(__file__))
PATHS = {"arm-dsp": os.path.join(HERE, "kernels", "cc_dsp_emu.sh"), "portable": "-DHTC_NO_SIMD"}
CASES = {"s1": (1, 1, 13), "s2": (2, 1, 16), "d2": (1, 2, 7)}      # stride, dilation, out_c


def _model(stride, dil, n):
    rng = np.random.default_rng(5 + stride + 3 * dil)
    m = tb.Model(description="htc conv rsum")
    x = m.input([1, 9, 8, 32], 0.05, -21)
    ws = [float(np.float32(0.004 * (0.5 + rng.random()))) for _ in range(n)]
    w = m.const(rng.integers(-127, 128, size=[n, 3, 3, 32]).astype(np.int8), "int8", scale=ws, zp=0, axis=0)
    bt = m.const(rng.integers(-3000, 3001, size=[n]).astype(np.int32), "int32", scale=[0.05 * s for s in ws], zp=0)
    oh, ow = (9 + stride - 1) // stride, (8 + stride - 1) // stride
    y = m.tensor([1, oh, ow, n], "int8", 0.5, 3)
    m.output(m.op("CONV_2D", [x, w, bt], [y], padding=tb.PADDING["SAME"], strideH=stride, strideW=stride,
                  dilationHFactor=dil, dilationWFactor=dil))
    return m


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_rsum(case, path, tmp_path, monkeypatch):
    stride, dil, n = CASES[case]
    model = _model(stride, dil, n).save(str(tmp_path / "c.tflite"))
    info = oracle.ModelInfo(model)
    # the sums in the parameter block for this isa, none for x86's
    for isa, want in ((path, True), ("x86", False)):
        hdr = tmp_path / ("m_%s.h" % isa)
        oracle.htc("compile", model, "-t", oracle.TARGET, "-D", "isa=" + isa, "-o", hdr, "--name", "m")
        arr = re.search(r"m__layer\d+_rsum\[(\d+)\] = \{", hdr.read_text())
        assert bool(arr) == want, "%s: rsum %s" % (isa, "written" if arr else "missing")
        if arr:
            assert int(arr.group(1)) == n * 3, arr.group(0)
    rng = np.random.default_rng(17)
    t = info.tensors[info.inputs[0]]
    sets = [[rng.integers(-128, 128, t["shape"]).astype(np.int8)] for _ in range(3)]
    sets += [[np.full(t["shape"], v, np.int8)] for v in (-128, 127)]
    cc = PATHS[path]
    if cc.startswith("-"):
        wrap = tmp_path / "cc.sh"
        wrap.write_text('#!/bin/sh\nexec ${HOST_CC:-cc} %s "$@"\n' % cc)
        wrap.chmod(0o755)
        cc = str(wrap)
    monkeypatch.setattr(oracle, "CC", cc)
    got = oracle.run_htc_batch(model, sets, args=("-D", "isa=" + path), info=info)
    for s, inputs in enumerate(sets):
        ref, _ = oracle.run_interpreter(model, inputs)
        assert np.array_equal(np.asarray(got[s][0][0]), np.asarray(ref[0])), "%s %s set %d differs from TFLM" % (case, path, s)
