"""test_tflm_models.py - the models of TFLite Micro's own repository that htc
refused (issue 22; tests/tflm_suite.py runs the whole repository), each case
bit-exact against the tflite-micro interpreter. The repository is not on a
CI machine, so each case is a small model built here with the feature that
was refused (tests/tflite_build.py), or a model of ../shared/models/extra:

- person_detect.tflite (extra/): biases carrying their filter's
  quantized_dimension 3 at rank 1, which TFLM never reads;
- SOFTMAX int8 -> int16 (models/keyword_scrambled*): TFLM's
  reference_ops::Softmax with an int16 output;
- TRANSPOSE_CONV whose output_shape is a graph input
  (integration_tests/seanet/transpose_conv*): TFLM takes the output
  tensor's static shape and never reads it;
- custom operators (the audio preprocessors' Signal* ops on uint32 tensors):
  one error line naming the first custom operator.
"""
import os

import numpy as np
import pytest

import oracle
import tflite_build as tb
import test_ops

EXTRA = os.path.abspath(os.path.join(oracle.REPO, os.environ.get("HTC_EXTRA") or "../shared/models/extra"))


def extra(name):
    p = os.path.join(EXTRA, name)
    assert os.path.exists(p), "%s is missing (../shared/models/extra, or HTC_EXTRA)" % p
    return p


def sets_of(path, n=3, extreme=True):
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(s) for s in range(n)]
    if extreme:
        sets.append(test_ops.extreme_inputs(info, 0))
    return info, sets


def compile_error(path, tmp_path):
    out = tmp_path / "m.h"
    p = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", out, check=False)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1 and lines[0].startswith("htc: error: "), p.stderr
    assert not out.exists()
    return lines[0]


# ---- quantized_dimension: TFLM reads it only for a convolution's filter --------------

def test_person_detect():
    """examples/person_detection's model: every output and intermediate tensor."""
    path = extra("person_detect.tflite")
    info, sets = sets_of(path)
    bad = [t for t in info.tensors if len(t["scale"]) > 1 and len(t["shape"]) == 1]
    assert bad, "person_detect no longer has per-channel rank-1 biases"
    assert test_ops.check(path, sets) == len(info.op_outputs()) * len(sets)


def _qdim_model(tmp_path, target, qdim):
    """A depthwise convolution (multiplier 8, as person_detect's first layer)
    and a 1x1 convolution; `target` ('bias' or 'filter') of the depthwise
    one gets quantized_dimension qdim."""
    rng = np.random.default_rng(22)
    m = tb.Model(description="htc qdim " + target)
    x = m.input([1, 9, 9, 1], 0.05, -3)
    d = m.depthwise_conv2d(x, 3, rng, depth_multiplier=8, stride=2, act="RELU6")
    m.output(m.conv2d(d, 4, 1, rng))
    op = m.operators[0]
    t = op.inputs[2] if target == "bias" else op.inputs[1]
    m.tensors[t].quantization.quantizedDimension = qdim
    return m.save(str(tmp_path / ("qdim_%s_%d.tflite" % (target, qdim))))


@pytest.mark.parametrize("qdim", [3, -1, 7])
def test_bias_quantized_dimension_ignored(qdim, tmp_path):
    path = _qdim_model(tmp_path, "bias", qdim)
    info, sets = sets_of(path)
    assert test_ops.check(path, sets) == len(info.op_outputs()) * len(sets)


def test_filter_quantized_dimension_checked(tmp_path):
    """A filter's axis is read (PopulateConvolutionQuantizationParams): out of
    range, htc refuses naming the weights (TFLM would read past the dims)."""
    line = compile_error(_qdim_model(tmp_path, "filter", 5), tmp_path)
    assert "operator 0 (DEPTHWISE_CONV_2D)" in line and "quantized_dimension 5 out of range for rank 4" in line, line


# ---- SOFTMAX int8 -> int16 ---------------------------------------------------------------

SOFTMAX16 = {   # name: (shape, beta, input scale, input zero point)
    "beta1": ((4, 12), 1.0, 0.1, 0),
    "beta0.5-zp": ((3, 10), 0.5, 0.25, -7),
    "wide-logits": ((2, 16), 1.0, 1.0, 5),
    "very-wide": ((2, 7), 1.0, 4.0, 3),
    "narrow": ((2, 10), 1.0, 0.001, 0),
    "beta2-4d": ((1, 2, 3, 20), 2.0, 0.05, 10),
    "one-class": ((5, 1), 1.0, 0.1, 0),
    "kws-like": ((1, 4), 1.0, 0.2177, 34),     # keyword_scrambled's last layer: 4 classes
}


def _softmax16(m, shape, beta, scale, zp):
    x = m.input(list(shape), scale, zp)
    y = m.tensor(list(shape), "int16", 1.0 / 65536, -32768)
    return m.op("SOFTMAX", [x], [y], beta=float(beta))


@pytest.mark.parametrize("name", sorted(SOFTMAX16))
def test_softmax_int8_int16(name, tmp_path):
    m = tb.Model(description="htc softmax int8->int16 " + name)
    m.output(_softmax16(m, *SOFTMAX16[name]))
    path = m.save(str(tmp_path / "s.tflite"))
    info, sets = sets_of(path, n=4)
    # every int8 value against every other in some row: each row an arithmetic run
    shape = info.tensors[info.inputs[0]]["shape"]
    n = int(np.prod(shape))
    sets.append([(np.arange(n) * 37 % 256 - 128).astype(np.int8).reshape(shape)])
    assert test_ops.check(path, sets) == len(sets)


@pytest.mark.parametrize("q", [(1.0 / 65536, 0), (1.0 / 32768, -32768)])
def test_softmax_int8_int16_refused(q, tmp_path):
    """TFLM's Prepare checks the int16 output: zero point -32768, scale 1/65536."""
    m = tb.Model(description="htc softmax int8->int16 refused")
    x = m.input([1, 8], 0.1, 0)
    m.output(m.op("SOFTMAX", [x], [m.tensor([1, 8], "int16", q[0], q[1])], beta=1.0))
    path = m.save(str(tmp_path / "r.tflite"))
    with pytest.raises(RuntimeError):
        oracle.run_interpreter(path, oracle.ModelInfo(path).random_inputs(0))
    line = compile_error(path, tmp_path)
    assert "operator 0 (SOFTMAX)" in line and "scale 1/65536 and zero point -32768" in line, line


# ---- TRANSPOSE_CONV: output_shape a graph input --------------------------------------------

def _tconv_shape_input(m, rng, dtype, shape=(1, 2, 7, 6), out_ch=5, kernel=(3, 4), stride=2, padding="SAME"):
    n, h, w, c = shape
    kh, kw = kernel
    if padding == "SAME":
        oh, ow = h * stride, w * stride
    else:
        oh, ow = (h - 1) * stride + kh, (w - 1) * stride + kw
    shp = m.input([4], dtype="int32", name="output_shape")
    wsc = [float(np.float32(0.02 * (1 + 0.1 * k))) for k in range(out_ch)]
    wt = m.const(rng.integers(-127, 128, size=[out_ch, kh, kw, c]).astype(np.int8), "int8", scale=wsc, zp=0)
    if dtype == "int16":
        x = m.input(list(shape), 0.002, 0, dtype="int16")
        b = m.const(rng.integers(-2 ** 20, 2 ** 20, size=[out_ch]).astype(np.int64), "int64",
                    scale=[0.002 * s for s in wsc], zp=0)
        y = m.tensor([n, oh, ow, out_ch], "int16", 0.004, 0)
    else:
        x = m.input(list(shape), 0.05, -3)
        b = m.const(rng.integers(-900, 900, size=[out_ch]).astype(np.int32), "int32",
                    scale=[0.05 * s for s in wsc], zp=0)
        y = m.tensor([n, oh, ow, out_ch], "int8", 0.12, 5)
    return m.op("TRANSPOSE_CONV", [shp, wt, x, b], [y], padding=tb.PADDING[padding], strideH=stride,
                strideW=stride)


@pytest.mark.parametrize("dtype,padding", [("int16", "SAME"), ("int16", "VALID"), ("int8", "SAME")])
def test_transpose_conv_shape_input(dtype, padding, tmp_path):
    """seanet's form: output_shape is the first graph input. Fed the output's
    shape, and fed garbage: both runtimes ignore it."""
    rng = np.random.default_rng(5)
    m = tb.Model(description="htc tconv shape input")
    y = m.output(_tconv_shape_input(m, rng, dtype, padding=padding))
    path = m.save(str(tmp_path / "t.tflite"))
    info, sets = sets_of(path)
    out_shape = np.array(m.shape(y), dtype=np.int32)
    for k, s in enumerate(sets):
        s[0] = out_shape if k % 2 == 0 else np.array([7, -1, 0, 123456], dtype=np.int32)
    assert test_ops.check(path, sets) == len(sets)


# ---- custom operators: named first --------------------------------------------------------

@pytest.mark.parametrize("where", [0, 1])
def test_custom_operator_named_first(where, tmp_path):
    """A custom operator (TFLM's signal library, uint32 tensors around it) at
    operator `where`: the one error line names it, not a tensor type."""
    m = tb.Model(description="htc custom")
    x = m.input([1, 16], dtype="int16", name="audio")
    if where:
        x = m.op("RESHAPE", [x], [m.tensor([16], "int16")], newShape=[16])
    e = m.tensor([9], "uint32", name="signal_energy")
    m.op("CUSTOM", [x], [e])
    m.opcodes[m.operators[-1].opcodeIndex].customCode = "SignalEnergy"
    m.output(m.op("CAST", [e], [m.tensor([9], "int32")]))
    path = m.save(str(tmp_path / "c.tflite"))
    line = compile_error(path, tmp_path)
    assert "operator %d (CUSTOM 'SignalEnergy'): unsupported operator" % where in line, line


# ---- memory sizes are target parameters ---------------------------------------------------

def _memories(target, *defines):
    out = oracle.htc("targets", target, *defines).stdout
    line = next(x for x in out.splitlines() if x.strip().startswith("memories:"))
    mems = {}
    for part in line.split(":", 1)[1].split(","):
        w = part.split()
        mems[w[0]] = int(w[1])
    params = {}
    for x in out.splitlines():
        w = x.split()
        if len(w) > 2 and w[0].endswith("_kib") and "(default" in x:
            lo, hi = x.split("(default", 1)[1].split(";")[1].split(")")[0].strip().split("..")
            params[w[0]] = (int(w[1]), int(lo), int(hi))
    return mems, params


# a memory whose size follows another parameter (not a size in KiB)
DERIVED = {("diana.lua", "WA"): ("ana_rows", 64)}


@pytest.mark.parametrize("target", sorted(f for f in os.listdir(os.path.join(oracle.REPO, "targets"))
                                          if f.endswith(".lua")))
def test_memory_sizes_are_parameters(target):
    """Every memory of every bundled target changes size with a -D parameter;
    the defaults are the sizes the targets had (memory sizes in KiB)."""
    path = os.path.join(oracle.REPO, "targets", target)
    base, params = _memories(path)
    assert "l2_kib" in params and base["L2"] == params["l2_kib"][0] * 1024
    covered = set()
    for name, (value, lo, hi) in params.items():
        new = value * 2 if value * 2 <= hi else value // 2
        assert lo <= new <= hi
        mems, _ = _memories(path, "-D", "%s=%d" % (name, new))
        changed = {m for m in mems if mems[m] != base[m]}
        assert changed, "-D %s=%d changed no memory" % (name, new)
        assert all(mems[m] == new * 1024 for m in changed), (name, mems)
        covered |= changed
    for (t, m), (name, v) in DERIVED.items():
        if t == target:
            mems, _ = _memories(path, "-D", "%s=%d" % (name, v))
            assert mems[m] != base[m]
            covered.add(m)
    assert covered == set(base), "memories without a parameter: %s" % sorted(set(base) - covered)


def test_mobilenet_v2_arena_parameter(tmp_path):
    """mobilenet_v2 224x224 (2.45 MB arena): refused by the default 512 KiB
    CPU target naming the memory, bit-exact with TFLM with -D l2_kib=2400
    (every operator output compared)."""
    path = extra("mobilenet_v2_quantized_1x3x224x224.tflite")
    line = compile_error(path, tmp_path)
    assert "memory L2 of target 'cpu' has 524288" in line, line
    info = oracle.ModelInfo(path)
    xs = info.random_inputs(0)
    outs, dumps, _ = oracle.run_htc(path, xs, args=["-D", "l2_kib=2400"])
    ref_outs, ref_tensors = oracle.run_interpreter(path, xs, info=info)
    errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
    assert not errors, "\n".join(errors[:10])
    assert compared == len(info.op_outputs())
