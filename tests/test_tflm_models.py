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
- custom operators htc has no kernel for: one error line naming the first
  (the audio preprocessors' Signal* ops: tests/test_signal.py).
"""
import os
import subprocess

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
    """A custom operator htc has no kernel for (uint32 tensors around it) at
    operator `where`: the one error line names it, not a tensor type."""
    m = tb.Model(description="htc custom")
    x = m.input([1, 16], dtype="int16", name="audio")
    if where:
        x = m.op("RESHAPE", [x], [m.tensor([16], "int16")], newShape=[16])
    e = m.tensor([9], "uint32", name="my_energy")
    m.op("CUSTOM", [x], [e])
    m.opcodes[m.operators[-1].opcodeIndex].customCode = "MyEnergy"
    m.output(m.op("CAST", [e], [m.tensor([9], "int32")]))
    path = m.save(str(tmp_path / "c.tflite"))
    line = compile_error(path, tmp_path)
    assert "operator %d (CUSTOM 'MyEnergy'): unsupported operator" % where in line, line


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
    if "L2" in base:       # mcu-psram (SRAM, PSRAM) and dual-m33 (SRAM) name theirs sram_kib, psram_kib
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
    """mobilenet_v2 224x224: its layer-by-layer arena (TFLM's too) is
    2,451,840 bytes. -D l2_kib=2395 holds it: every one of the 84 operator
    outputs bit-exact with TFLM; -D l2_kib=64 is below even the cascaded
    plan (README, cascades): refused naming the memory and its size."""
    path = extra("mobilenet_v2_quantized_1x3x224x224.tflite")
    p = oracle.htc("compile", path, "-t", oracle.TARGET, "-D", "l2_kib=64", "-o", tmp_path / "m.h", check=False)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1 and "memory L2 of target 'cpu' has 65536" in lines[0], p.stderr
    assert not (tmp_path / "m.h").exists()
    info = oracle.ModelInfo(path)
    xs = info.random_inputs(0)
    outs, dumps, _ = oracle.run_htc(path, xs, args=["-D", "l2_kib=2395"])
    ref_outs, ref_tensors = oracle.run_interpreter(path, xs, info=info)
    errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
    assert not errors, "\n".join(errors[:10])
    assert compared == len(info.op_outputs()) == 84


# ---- float32 models: TFLM's float reference kernels -----------------------------------------
# hello_world_float / sine_float (FULLY_CONNECTED + RELU), mnist_lstm's
# trained_lstm (UNIDIRECTIONAL_SEQUENCE_LSTM, RESHAPE, FULLY_CONNECTED,
# SOFTMAX): every float compared by its bits.

def float_sets(info, n=3, scale=4.0):
    sets = []
    for s in range(n):
        rng = np.random.default_rng(100 + s)
        xs = []
        for i in info.inputs:
            t = info.tensors[i]
            v = rng.normal(0, scale, size=t["shape"]).astype(np.float32)
            flat = v.reshape(-1)
            special = np.array([0.0, -0.0, 1e-30, -1e-30, 50.0, -50.0, 1e30, -1e30, 3e-39], dtype=np.float32)
            k = min(flat.size, special.size) if s == n - 1 else 0
            flat[:k] = special[:k]
            xs.append(v)
        sets.append(xs)
    return sets


def _ffc(m, rng, x, units, act=None, bias=True, w_scale=1.0):
    depth = m.shape(x)[-1]
    w = m.const(rng.normal(0, w_scale / np.sqrt(depth), size=[units, depth]).astype(np.float32), "float32")
    ins = [x, w]
    if bias:
        ins.append(m.const(rng.normal(0, 0.5, size=[units]).astype(np.float32), "float32"))
    y = m.tensor(m.shape(x)[:-1] + [units], "float32")
    return m.op("FULLY_CONNECTED", ins, [y], fusedActivationFunction=tb.ACT[act])


FLOAT_FC = {     # name: (input shape, [(units, act, bias)])
    "hello-world": ([1, 1], [(16, "RELU", True), (16, "RELU", True), (1, None, True)]),
    "batch-acts": ([5, 24], [(40, "RELU6", True), (33, "RELU_N1_TO_1", False), (7, None, True)]),
    "deep-sum": ([2, 700], [(9, None, True)]),
}


@pytest.mark.parametrize("name", sorted(FLOAT_FC))
def test_float_fully_connected(name, tmp_path):
    shape, layers = FLOAT_FC[name]
    rng = np.random.default_rng(3)
    m = tb.Model(description="htc float fc " + name)
    x = m.input(shape, dtype="float32")
    for units, act, bias in layers:
        x = _ffc(m, rng, x, units, act, bias)
    m.output(x)
    path = m.save(str(tmp_path / "f.tflite"))
    info = oracle.ModelInfo(path)
    sets = float_sets(info)
    assert test_ops.check(path, sets) == len(layers) * len(sets)


SOFTMAXF = {"beta1": ((3, 10), 1.0, 3.0), "beta0.3-wide": ((2, 40), 0.3, 40.0), "beta2.5": ((1, 2, 8), 2.5, 1.0),
            "one-class": ((4, 1), 1.0, 5.0), "huge-logits": ((2, 16), 1.0, 1e4)}


@pytest.mark.parametrize("name", sorted(SOFTMAXF))
def test_float_softmax(name, tmp_path):
    shape, beta, scale = SOFTMAXF[name]
    m = tb.Model(description="htc float softmax " + name)
    x = m.input(list(shape), dtype="float32")
    m.output(m.op("SOFTMAX", [x], [m.tensor(list(shape), "float32")], beta=float(beta)))
    path = m.save(str(tmp_path / "s.tflite"))
    info = oracle.ModelInfo(path)
    sets = float_sets(info, n=4, scale=scale)
    assert test_ops.check(path, sets) == len(sets)


def flstm_model(rng, batch=1, steps=6, in_dim=5, state=4, time_major=False, cell_clip=0.0, w_scale=1.0):
    """One float LSTM layer and a FULLY_CONNECTED + SOFTMAX head (trained_lstm's
    form); returns (Model, (hidden, cell) state tensor indices)."""
    m = tb.Model("float lstm")
    shape = [steps, batch, in_dim] if time_major else [batch, steps, in_dim]
    x = m.input(shape, dtype="float32")
    ins = [x] + [-1] * 23
    for g in range(4):
        ins[1 + g] = m.const(rng.normal(0, w_scale / np.sqrt(in_dim), [state, in_dim]).astype(np.float32), "float32")
        ins[5 + g] = m.const(rng.normal(0, w_scale / np.sqrt(state), [state, state]).astype(np.float32), "float32")
        ins[12 + g] = m.const(rng.normal(0, 0.5, state).astype(np.float32), "float32")
    h = m.tensor([batch, state], "float32", name="hidden_state")
    c = m.tensor([batch, state], "float32", name="cell_state")
    for t in (h, c):
        m.tensors[t].isVariable = True
    ins[18], ins[19] = h, c
    out = m.tensor(shape[:2] + [state], "float32", name="sequence")
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [out], fusedActivationFunction=tb.S.ActivationFunctionType.TANH,
         cellClip=float(cell_clip), timeMajor=bool(time_major))
    flat = m.op("RESHAPE", [out, m.const(np.array([shape[0], shape[1] * state], np.int32), "int32")],
                [m.tensor([shape[0], shape[1] * state], "float32")], newShape=[shape[0], shape[1] * state])
    y = _ffc(m, rng, flat, 3)
    m.output(m.op("SOFTMAX", [y], [m.tensor(m.shape(y), "float32")], beta=1.0))
    return m, (h, c)


FLSTM = {
    "batch-major": dict(),
    "batch3": dict(batch=3, steps=4),
    "time-major-b2": dict(time_major=True, batch=2, steps=5),
    "clip": dict(cell_clip=0.8, steps=10, w_scale=3.0),
    "wide": dict(in_dim=28, state=20, steps=8),         # trained_lstm's sizes, fewer steps
}


@pytest.mark.parametrize("case", sorted(FLSTM))
def test_float_lstm(case, tmp_path):
    """The output sequence, every intermediate and the final hidden and cell
    state (TFLM's variable tensors) bit for bit."""
    import test_rnn
    rng = np.random.default_rng(sorted(FLSTM).index(case) + 11)
    m, states = flstm_model(rng, **FLSTM[case])
    p = m.save(str(tmp_path / "fl.tflite"))
    info = oracle.ModelInfo(p)
    sets = float_sets(info, scale=2.0)
    res = oracle.run_htc_batch(p, sets, name="l", info=info)
    for s, (x, (outs, dumps)) in enumerate(zip(sets, res)):
        ref_outs, ref = test_rnn.tflm_states(p, x[0], states)
        errors, compared = oracle.compare_run(info, ref_outs, ref, outs, dumps, label="set %d: " % s)
        assert not errors, "\n".join(errors[:10])
        assert compared == len(info.op_outputs())
        for t in states:
            d = oracle.diff(ref[t], dumps[t])
            assert not d, "set %d: final %s: %s" % (s, info.tensors[t]["name"], d)
        assert len(np.unique(dumps[info.ops[0]["outputs"][0]])) > 10, "degenerate sequence"


LIBM_DRIVER = r"""
#include <math.h>
#include <stdio.h>
#include "htc.h"
typedef struct { int32_t size; } unused_;
#include "kernels/float.c"
int main(void)
{
    unsigned long long n = 0, bad = 0, u;
    uint64_t s = 88172645463325252ull;
    int i;
    /* every 997th float, and every 256th in [-20, 20] */
    for (u = 0; u < 0x100000000ull; u += 997) {
        uint32_t b = (uint32_t)u;
        float x, r[6];
        int k;
        memcpy(&x, &b, 4);
        r[0] = expf(x); r[1] = htc__expf(x); r[2] = tanhf(x); r[3] = htc__tanhf(x);
        r[4] = expm1f(x); r[5] = htc__expm1f(x);
        for (k = 0; k < 6; k += 2) if (memcmp(&r[k], &r[k + 1], 4)) { if (bad++ < 5) printf("f%d %a: %a %a\n", k, x, r[k], r[k + 1]); }
        n++;
    }
    for (u = 0; u < 0x100000000ull; u += 256) {
        uint32_t b = (uint32_t)u;
        float x, r[4];
        memcpy(&x, &b, 4);
        if (!(x >= -20.0f && x <= 20.0f)) continue;
        r[0] = expf(x); r[1] = htc__expf(x); r[2] = tanhf(x); r[3] = htc__tanhf(x);
        if (memcmp(&r[0], &r[1], 4) || memcmp(&r[2], &r[3], 4)) { if (bad++ < 5) printf("g %a\n", x); }
        n++;
    }
    for (i = 0; i < 1000000; i++) {     /* the emulated fma against the C library's */
        double v[3], a, b;
        int k;
        for (k = 0; k < 3; k++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            v[k] = htc__f64((s & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1023 - 40 + (s >> 52) % 80) << 52));
        }
        if (i % 3 == 0) v[2] = -v[0] * v[1];         /* cancellation */
        a = fma(v[0], v[1], v[2]);
        b = htc__fma(v[0], v[1], v[2]);
        if (htc__u64(a) != htc__u64(b)) { if (bad++ < 5) printf("fma %a %a %a\n", v[0], v[1], v[2]); }
        n++;
    }
    printf("%llu compared, %llu differ\n", n, bad);
    return bad != 0;
}
"""


def test_libm_bits(tmp_path):
    """kernels/float.c's expf, tanhf and expm1f equal the C library's (glibc,
    which TFLM's interpreter calls) bit for bit on a sample of every float
    range and more densely on [-20, 20], and its fma emulation (the path
    without a fused multiply-add instruction) equals fma(). Built with -O2
    -ffp-contract=fast and with -O3 -march=native (hardware fma, contraction
    allowed). (Every one of the 2^32 floats was compared once by hand: README.)"""
    src = tmp_path / "libm.c"
    src.write_text(LIBM_DRIVER)
    for flags in (["-O2", "-ffp-contract=fast"], ["-O3", "-march=native"]):
        exe = tmp_path / "libm"
        c = subprocess.run([oracle.CC, "-std=c99", *flags, "-I", oracle.REPO, "-o", str(exe), str(src), "-lm"],
                           capture_output=True, text=True)
        assert c.returncode == 0, c.stderr
        r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0 and " 0 differ" in r.stdout, (flags, r.stdout)
        assert int(r.stdout.split()[-4]) > 10 ** 7, r.stdout


def test_float_strict_compile(tmp_path):
    """A float LSTM + FC + SOFTMAX header compiles warning-free in C99 and C++11
    (gcc, g++, arm-none-eabi-gcc, riscv64-unknown-elf-gcc)."""
    m, _ = flstm_model(np.random.default_rng(1))
    p = m.save(str(tmp_path / "fl.tflite"))
    h = str(tmp_path / "model.h")
    oracle.htc("compile", p, "-t", oracle.TARGET, "-o", h)
    test_ops.strict_compile(h, tmp_path)


@pytest.mark.parametrize("act", [None, "RELU", "RELU6", "RELU_N1_TO_1"])
def test_float_elementwise(act, tmp_path):
    """float ADD and MUL (same shapes and broadcast, fused activation), RELU,
    RELU6, LOGISTIC, TANH: reference_ops' arithmetic, TFLM's clamps."""
    rng = np.random.default_rng(9)
    m = tb.Model(description="htc float elementwise")
    x = m.input([2, 3, 4, 5], dtype="float32")
    y = m.input([2, 3, 4, 5], dtype="float32")
    c = m.const(rng.normal(0, 2, size=[4, 1]).astype(np.float32), "float32")
    t = [2, 3, 4, 5]
    a = m.op("ADD", [x, y], [m.tensor(t, "float32")], fusedActivationFunction=tb.ACT[act])
    b = m.op("MUL", [a, c], [m.tensor(t, "float32")], fusedActivationFunction=tb.ACT[act])
    d = m.op("ADD", [b, x], [m.tensor(t, "float32")])
    for op in ("RELU", "RELU6", "LOGISTIC", "TANH"):
        m.output(m.op(op, [d], [m.tensor(t, "float32")]))
    m.output(m.op("MUL", [x, y], [m.tensor(t, "float32")]))
    path = m.save(str(tmp_path / "e.tflite"))
    info = oracle.ModelInfo(path)
    sets = float_sets(info, n=3, scale=6.0)
    assert test_ops.check(path, sets) == 8 * len(sets)


def test_float_unsupported(tmp_path):
    """A float operator TFLM has but htc does not: one line naming it."""
    m = tb.Model(description="htc float unsupported")
    x = m.input([8], dtype="float32")
    m.output(m.op("ELU", [x], [m.tensor([8], "float32")]))
    path = m.save(str(tmp_path / "u.tflite"))
    line = compile_error(path, tmp_path)
    assert "operator 0 (ELU)" in line and "float32 ELU is not supported" in line, line
