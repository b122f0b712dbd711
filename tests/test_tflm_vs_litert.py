"""test_tflm_vs_litert.py - where the desktop TFLite interpreter
(ai-edge-litert, reference kernels) and TFLite Micro (htc's oracle) differ,
and that the difference is exactly what htc's README says and nothing else.

- FULLY_CONNECTED: for every FC layer, ai-edge-litert's output equals a
  numpy model of round(double(acc) * double(in_scale) * double(w_scale) /
  double(out_scale)) + out_zp, clamped; TFLM's equals a numpy model of
  MultiplyByQuantizedMultiplier(acc, QuantizeMultiplier(...)) + out_zp,
  clamped (TFLM's fully_connected_common.cc). Both from the accumulators of
  the layer's own input in that interpreter, the weights and the bias.
- MUL: the multiplier; ai-edge-litert's is QuantizeMultiplier of
  float(a_scale * b_scale) / out_scale evaluated in float, TFLM's of
  double(a_scale) * double(b_scale) / double(out_scale). Both outputs equal
  a numpy model of MultiplyByQuantizedMultiplier with their multiplier; they
  differ on a few products for some scales (tests/test_ops.py MUL_SCALES).
- LOGISTIC: ai-edge-litert's output equals its float table (LUTPopulate:
  1 / (1 + exp(-x)) in float, rounded), TFLM's equals gemmlowp's fixed-point
  logistic (htc reproduces TFLM; tests/test_ops.py); they differ on rare
  inputs. None of the MLPerf Tiny models has a LOGISTIC.
- Every other operator whose inputs are identical in both interpreters
  produces identical outputs.

The models: the four MLPerf Tiny int8 models (AD is FC only, KWS ends in FC,
VWW and IC have none) and small built models with per-tensor and per-channel
FC layers between other operators.
"""
import math
import os

import numpy as np
import pytest

import oracle
import tflite_build as tb

MLPERF = ("ad01_int8", "kws_ref_model", "vww_96_int8", "pretrainedResnet_quant")
SEEDS = (0, 1, 2)


# ---- numpy models of the two FC rescalings --------------------------------------------

def quantize_multiplier(real):
    """TFLite's QuantizeMultiplier: (Q31 multiplier, shift)."""
    if real == 0.0:
        return 0, 0
    q, e = math.frexp(real)
    qf = int(math.floor(abs(q) * (1 << 31) + 0.5)) * (1 if q >= 0 else -1)   # TfLiteRound
    if qf == 1 << 31:
        qf //= 2
        e += 1
    if e < -31:
        return 0, 0
    return qf, e


def mul_by_quantized_multiplier(x, m, shift):
    """MultiplyByQuantizedMultiplier (double rounding) on an int64 array."""
    x = np.asarray(x, dtype=np.int64)
    left, right = max(shift, 0), max(-shift, 0)
    x = ((x << left) + 2**31) % 2**32 - 2**31                          # int32 wrap
    ab = x * m
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    h = (ab + nudge)
    h = np.where(h >= 0, h // 2**31, -((-h) // 2**31))                 # truncating division
    h = np.where((x == -2**31) & (m == -2**31), 2**31 - 1, h)
    mask = (1 << right) - 1
    rem = h & mask
    thr = (mask >> 1) + (h < 0)
    return (h >> right) + (rem > thr)


def round_half_away(x):
    """std::round on doubles, exactly (no +0.5 rounding error)."""
    t = np.trunc(x)
    d = x - t
    return t + np.where(d >= 0.5, 1.0, 0.0) - np.where(d <= -0.5, 1.0, 0.0)


def act_bounds(act, scale, zp):
    """CalculateActivationRangeQuantized for int8 (Quantize in float)."""
    def q(f):
        return zp + int(round_half_away(np.float32(f) / np.float32(scale)))
    lo, hi = -128, 127
    if act == "RELU":
        lo = q(0.0)
    elif act == "RELU6":
        lo, hi = q(0.0), q(6.0)
    elif act == "RELU_N1_TO_1":
        lo, hi = q(-1.0), q(1.0)
    return max(lo, -128), min(hi, 127)


ACT_NAME = {v: k for k, v in tb.ACT.items() if k is not None}


class FcLayer:
    """One FULLY_CONNECTED operator of a model file: weights, bias, scales."""

    def __init__(self, model, info, k):
        op = info.ops[k]
        sg = model.subgraphs[0]
        o = sg.operators[k]
        self.index, self.x, self.y = k, op["inputs"][0], op["outputs"][0]

        def const(t, dtype):
            b = model.buffers[sg.tensors[t].buffer].data
            return np.frombuffer(bytes(bytearray(b)), dtype=dtype).reshape(info.tensors[t]["shape"])
        self.w = const(op["inputs"][1], np.int8).astype(np.int64)
        nb = len(op["inputs"]) > 2 and op["inputs"][2] >= 0
        self.b = const(op["inputs"][2], np.int32).astype(np.int64) if nb else np.zeros(self.w.shape[0], np.int64)
        tx, tw, ty = info.tensors[self.x], info.tensors[op["inputs"][1]], info.tensors[self.y]
        self.in_scale, self.in_zp = np.float32(tx["scale"][0]), tx["zero_point"][0]
        self.w_scale = np.asarray(tw["scale"], dtype=np.float32)
        self.w_zp = tw["zero_point"][0] if len(tw["scale"]) == 1 else 0    # per-channel: not applied
        self.out_scale, self.out_zp = np.float32(ty["scale"][0]), ty["zero_point"][0]
        act = ACT_NAME[o.builtinOptions.fusedActivationFunction]
        self.lo, self.hi = act_bounds(act, self.out_scale, self.out_zp)
        self.per_channel = len(tw["scale"]) > 1

    def acc(self, x):
        depth = self.w.shape[1]
        x = np.asarray(x, dtype=np.int64).reshape(-1, depth)
        return (x - self.in_zp) @ (self.w - self.w_zp).T + self.b       # [batches, units]

    def litert(self, x):
        """ai-edge-litert 2.x: round(double(acc) * scale) + zp, clamped."""
        s = [float(self.in_scale) * float(ws) / float(self.out_scale) for ws in self.w_scale]
        scale = np.asarray(s if self.per_channel else s * self.w.shape[0], dtype=np.float64)
        y = round_half_away(self.acc(x).astype(np.float64) * scale).astype(np.int64) + self.out_zp
        return np.clip(y, self.lo, self.hi)

    def tflm(self, x):
        """TFLite Micro: fixed-point multiplier and shift."""
        if self.per_channel:
            reals = [float(self.in_scale) * float(ws) / float(self.out_scale) for ws in self.w_scale]
        else:   # GetQuantizedConvolutionMultipler: the product in float
            reals = [float(np.float32(self.in_scale * self.w_scale[0])) / float(self.out_scale)] * self.w.shape[0]
        acc = self.acc(x)
        y = np.empty_like(acc)
        for c, r in enumerate(reals):
            m, sh = quantize_multiplier(r)
            y[:, c] = mul_by_quantized_multiplier(acc[:, c], m, sh)
        return np.clip(y + self.out_zp, self.lo, self.hi)


class MulLayer:
    """One MUL operator: quantization of both inputs and the output."""

    def __init__(self, model, info, k):
        op = info.ops[k]
        self.a, self.b = op["inputs"][0], op["inputs"][1]
        ta, tb_, ty = (info.tensors[i] for i in (self.a, self.b, op["outputs"][0]))
        self.sa, self.sb, self.so = (np.float32(t["scale"][0]) for t in (ta, tb_, ty))
        self.za, self.zb, self.zo = (t["zero_point"][0] for t in (ta, tb_, ty))
        o = model.subgraphs[0].operators[k]
        act = ACT_NAME[o.builtinOptions.fusedActivationFunction] if o.builtinOptions is not None else "NONE"
        self.lo, self.hi = act_bounds(act, self.so, self.zo)

    def run(self, a, b, real):
        m, sh = quantize_multiplier(real)
        p = (np.asarray(a, np.int64) - self.za) * (np.asarray(b, np.int64) - self.zb)
        return np.clip(mul_by_quantized_multiplier(p, m, sh) + self.zo, self.lo, self.hi)

    def litert(self, a, b):
        return self.run(a, b, float(np.float32(np.float32(self.sa * self.sb) / self.so)))

    def tflm(self, a, b):
        return self.run(a, b, float(self.sa) * float(self.sb) / float(self.so))


def logistic_litert_table(in_scale, in_zp):
    """ai-edge-litert's int8 LOGISTIC table (LUTPopulate, float arithmetic)."""
    v = np.arange(-128, 128)
    deq = np.float32(in_scale) * (v - in_zp).astype(np.float32)
    with np.errstate(over="ignore"):
        tr = np.float32(1) / (np.float32(1) + np.exp(-deq, dtype=np.float32))
    q = round_half_away((tr * np.float32(256)).astype(np.float32)).astype(np.int64) - 128
    return dict(zip(v.tolist(), np.clip(q, -128, 127).tolist()))


# ---- the comparison --------------------------------------------------------------------

def compare(path, sets):
    """Per input set: both interpreters, every operator checked as the module
    docstring says. Returns a dict of counts: fc (FC layers checked against
    both models), fc_diff (of them, where the runtimes differ), fc_elems
    (elements that differ), other (other operators compared: same inputs in
    both runtimes), logistic_elems and mul_elems (LOGISTIC and MUL elements
    that differ), skipped
    (operators downstream of a differing FC: inputs differ)."""
    info = oracle.ModelInfo(path)
    model = tb.read_model(path)
    fcs = {k: FcLayer(model, info, k) for k, op in enumerate(info.ops) if op["op"] == "FULLY_CONNECTED"}
    muls = {k: MulLayer(model, info, k) for k, op in enumerate(info.ops) if op["op"] == "MUL"}
    n = dict(fc=0, fc_diff=0, fc_elems=0, other=0, logistic_elems=0, mul_elems=0, skipped=0)
    for inputs in sets:
        t_outs, tflm = oracle.run_interpreter(path, inputs, info=info)
        l_outs, lite = oracle.run_litert(path, inputs)
        for k, x in zip(info.inputs, inputs):
            tflm[k] = lite[k] = np.asarray(x)
        for k, op in enumerate(info.ops):
            y = op["outputs"][0]
            t_y, l_y = tflm[y].astype(np.int64), lite[y].astype(np.int64)
            act_in = [i for i in op["inputs"] if i >= 0 and not info.tensors[i]["const"]]
            if k in fcs:
                fc = fcs[k]
                got_t, got_l = t_y.reshape(-1, fc.w.shape[0]), l_y.reshape(-1, fc.w.shape[0])
                assert np.array_equal(fc.tflm(tflm[fc.x]), got_t), "op %d: TFLM != fixed-point model" % k
                assert np.array_equal(fc.litert(lite[fc.x]), got_l), "op %d: ai-edge-litert != double model" % k
                d = int(np.count_nonzero(got_t != got_l))
                n["fc"] += 1
                n["fc_diff"] += d > 0
                n["fc_elems"] += d
            elif all(np.array_equal(tflm[i], lite[i]) for i in act_in):
                if op["op"] == "LOGISTIC":
                    tx = info.tensors[act_in[0]]
                    table = logistic_litert_table(tx["scale"][0], tx["zero_point"][0])
                    want = np.vectorize(table.get)(lite[act_in[0]].astype(np.int64))
                    assert np.array_equal(want, l_y), "op %d: ai-edge-litert != its float table" % k
                    d = t_y != l_y
                    assert np.all(np.abs(t_y - l_y)[d] == 1)
                    n["logistic_elems"] += int(np.count_nonzero(d))
                elif op["op"] == "MUL":
                    ml = muls[k]
                    assert np.array_equal(ml.litert(lite[ml.a], lite[ml.b]), l_y), "op %d: litert != float model" % k
                    assert np.array_equal(ml.tflm(tflm[ml.a], tflm[ml.b]), t_y), "op %d: TFLM != double model" % k
                    n["mul_elems"] += int(np.count_nonzero(t_y != l_y))
                else:
                    assert np.array_equal(t_y, l_y), "op %d %s: same inputs, different outputs" % (k, op["op"])
                n["other"] += 1
            else:
                n["skipped"] += 1
        for a, i in zip(t_outs, info.outputs):
            assert np.array_equal(np.asarray(a).reshape(tflm[i].shape), tflm[i])
        for a, i in zip(l_outs, info.outputs):
            assert np.array_equal(np.asarray(a).reshape(lite[i].shape), lite[i])
    return n


def model_path(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


@pytest.mark.parametrize("name", MLPERF)
def test_mlperf(name):
    path = model_path(name)
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(20_000 + s) for s in SEEDS]
    n = compare(path, sets)
    n_fc = sum(op["op"] == "FULLY_CONNECTED" for op in info.ops)
    assert n["fc"] == n_fc * len(SEEDS)
    assert n["fc"] + n["other"] + n["skipped"] == len(info.ops) * len(SEEDS)
    # only operators after a FC layer that differed go uncompared
    first_fc = min([k for k, op in enumerate(info.ops) if op["op"] == "FULLY_CONNECTED"] + [len(info.ops)])
    assert n["other"] >= first_fc * len(SEEDS)
    if n["fc_diff"] == 0:
        assert n["skipped"] == 0
    if name == "ad01_int8":
        assert n["fc_diff"] > 0, "AD: the two runtimes agree, the test shows nothing"
    print(name, n)


def fc_graph(m, rng):
    """conv -> reshape -> FC; an MLP on 8 rows: FC (per channel) -> FC (per
    tensor, RELU) -> FC with a multiplier ~0.15 (its rounding shows) ->
    softmax; a LOGISTIC beside."""
    x = m.input([1, 4, 4, 3], 0.05, -3)
    c = m.conv2d(x, 4, 3, rng, stride=2, out_scale=0.1, out_zp=-1)
    m.output(m.fully_connected(m.reshape(c, [1, 16]), 5, rng))
    h = m.input([8, 64], 0.05, -7)
    a = m.fully_connected(h, 64, rng, per_channel=True, out_zp=5)
    b = m.fully_connected(a, 48, rng, act="RELU", out_zp=-128, spread=0.5)
    f = m.fully_connected(b, 32, rng, w_range=3, out_scale=0.05 * 0.02 / 0.15, out_zp=-10)
    m.output(m.softmax(f, 1.0))
    m.output(m.logistic(m.input([1, 256], 1.0 / 128, 127)))


def test_fc_graph(tmp_path):
    m = tb.Model(description="htc tflm vs litert")
    fc_graph(m, np.random.default_rng(7))
    path = m.save(str(tmp_path / "fc_graph.tflite"))
    info = oracle.ModelInfo(path)
    sets = []
    for s in range(4):
        xs = info.random_inputs(30_000 + s)
        xs[2] = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)     # every LOGISTIC input
        sets.append(xs)
    n = compare(path, sets)
    print(n)
    assert n["fc"] == 4 * len(sets)
    assert n["fc"] + n["other"] + n["skipped"] == len(info.ops) * len(sets)
    assert n["fc_diff"] > 0, "the two FC rescalings agree on every element: the test shows nothing"
    assert n["other"] >= 3 * len(sets)           # conv, reshape, logistic (softmax while its FC agrees)
    assert n["logistic_elems"] > 0, "the two LOGISTIC kernels agree on every input: the test shows nothing"


def test_mul(tmp_path):
    import test_ops
    m = tb.Model(description="htc mul sweep")
    test_ops.mul_sweep_model(m)
    path = m.save(str(tmp_path / "mul_sweep.tflite"))
    n = compare(path, [test_ops.every_pair_inputs(2 * len(test_ops.MUL_SCALES))])
    print(n)
    assert n["other"] == len(test_ops.MUL_SCALES) and n["fc"] == 0 and n["skipped"] == 0
    assert n["mul_elems"] > 0, "the two MUL multipliers agree everywhere: the test shows nothing"
