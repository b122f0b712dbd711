"""test_u8.py - uint8 .tflite models (TFLite's legacy asymmetric
quantization: uint8 activations and weights, per-tensor zero points) equal
LiteRT's reference kernels (ai-edge-litert, OpResolverType.BUILTIN_REF, one
thread), the oracle for uint8 (TFLite Micro refuses uint8), bit for bit:
every output and every operator output htc dumps, on several random inputs.

The models are tests/u8/*.tflite, written by tests/u8/make_u8.py (checked
here to write the same bytes). htc stores a uint8 tensor as int8 (value -
128): its dump is compared after flipping the top bit back (graph outputs
are dumped as the caller gets them, uint8).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import oracle

HERE = os.path.dirname(os.path.abspath(__file__))
U8 = os.path.join(HERE, "u8")
MODELS = sorted(f[:-7] for f in os.listdir(U8) if f.endswith(".tflite"))
SEEDS = (0, 1, 2, 3)


def test_models_reproducible(tmp_path):
    """make_u8.py writes the committed models byte for byte."""
    subprocess.run([sys.executable, os.path.join(U8, "make_u8.py"), str(tmp_path)], check=True)
    made = sorted(f[:-7] for f in os.listdir(tmp_path) if f.endswith(".tflite"))
    assert made == MODELS and len(MODELS) >= 2
    for name in MODELS:
        with open(os.path.join(U8, name + ".tflite"), "rb") as a, open(os.path.join(tmp_path, name + ".tflite"), "rb") as b:
            assert a.read() == b.read(), name


@pytest.mark.parametrize("name", MODELS)
def test_u8_litert(name):
    path = os.path.join(U8, name + ".tflite")
    info = oracle.ModelInfo(path)
    sets = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        sets.append([rng.integers(0, 256, size=info.tensors[i]["shape"]).astype(info.tensors[i]["dtype"])
                     for i in info.inputs])
    got = oracle.run_htc_batch(path, sets)
    compared = 0
    for inputs, (outs, dumps) in zip(sets, got):
        ref, lite = oracle.run_litert(path, inputs)
        assert len(outs) == len(ref)
        for k, (want, have) in enumerate(zip(ref, outs)):
            assert want.dtype == have.dtype and np.array_equal(want, have.reshape(want.shape)), \
                "%s output %d differs in %d of %d values" % (name, k, int((want != have.reshape(want.shape)).sum()), want.size)
        for idx, have in dumps.items():
            if idx not in lite or idx in info.inputs:
                continue
            want = lite[idx]
            if want.dtype == np.uint8 and idx not in info.outputs:     # stored as int8 inside
                have = have.view(np.uint8) ^ 0x80
            have = have.reshape(want.shape)
            assert np.array_equal(want, have), "%s tensor %d ('%s') differs in %d of %d values" % (
                name, idx, info.tensors[idx]["name"], int((want != have).sum()), want.size)
            compared += 1
    # every operator's output, every input set (no op writes a graph input)
    assert compared == len(SEEDS) * len(info.ops), (compared, len(info.ops))


def test_u8_unchecked_refused(tmp_path):
    """A uint8 operator LiteRT's reference kernels refuse too (ABS,
    SQUARED_DIFFERENCE) is refused naming it; every such operator listed at
    once, in graph order."""
    import tflite_build as tb
    m = tb.Model()
    x = m.input([1, 4, 4, 2], scale=0.1, zp=128, dtype="uint8")
    y = m.tensor([1, 4, 4, 2], "uint8", 0.1, 128)
    m.op("ABS", [x], [y])
    z = m.tensor([1, 4, 4, 2], "uint8", 0.1, 128)
    m.op("SQUARED_DIFFERENCE", [x, x], [z])
    m.output(y)
    m.output(z)
    path = m.save(str(tmp_path / "u8_abs.tflite"))
    r = oracle.htc("compile", path, "-t", "targets/cpu.lua", "-o", str(tmp_path / "m.h"), check=False)
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and len(lines) == 3, r.stderr
    assert "2 operators refused, in graph order: operator 0 (ABS): uint8 ABS is not supported" in lines[0], r.stderr
    assert lines[1].endswith("operator 0 (ABS): uint8 ABS is not supported (htc's uint8 operators, those LiteRT's "
                             "reference kernels run: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, "
                             "ADD, SUB, MUL, DIV, MAXIMUM/MINIMUM, comparisons, pooling, SOFTMAX, LOG_SOFTMAX, LOGISTIC, TANH, the RELUs, "
                             "LEAKY_RELU, PRELU, HARD_SWISH, GELU, L2_NORMALIZATION, PAD, RESIZE, MEAN, SUM, "
                             "REDUCE_MAX/MIN, QUANTIZE, DEQUANTIZE, ARG_MAX/MIN and data movement)"), r.stderr
    assert "operator 1 (SQUARED_DIFFERENCE): uint8 SQUARED_DIFFERENCE is not supported" in lines[2], r.stderr
    assert not (tmp_path / "m.h").exists()
