"""test_rnn.py - recurrent layers against TFLite Micro's interpreter.

UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16 cell
state) built with tests/tflite_build.py over the parameters the Keras
models of the zoo (tests/test_keras.py) do not vary: time-major and
batch-major inputs, batches, cell clipping, cell state scales that give
each case of TFLM's tanh input shift (left shift, none, rounding right
shift; a scale that is not a power of two), hidden state zero points. Each
model: the output sequence, the final hidden state and the final cell
state (TFLM's variable tensors, read after invoke) bit for bit on three
inputs, each on a fresh interpreter (TFLM keeps variable tensors from one
invoke to the next until reset; htc's kernel resets them at every run, as a
fresh interpreter starts). Also: the LSTM forms TFLM has no kernel for, and
control flow, give one error line naming the operator.
"""
import os
import subprocess

import numpy as np
import pytest

import oracle
import tflite_build as tb
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras", "models")


def lstm_model(rng, batch=1, steps=5, in_dim=6, state=4, time_major=False, cell_clip=0.0, cell_scale=2.0 ** -11,
               x_q=(0.05, 3), h_q=(1.0 / 128, -2), dtype="int8", drop=(), extra=()):
    """One LSTM layer; returns (Model, (hidden, cell) state tensor indices).
    drop: TFLite input positions left absent; extra: optional positions given."""
    m = tb.Model("lstm")
    shape = [steps, batch, in_dim] if time_major else [batch, steps, in_dim]
    x = m.input(shape, scale=x_q[0], zp=x_q[1], dtype=dtype)
    ins = [x] + [-1] * 23
    for g in range(4):
        ws = 3.0 / (np.sqrt(in_dim) * 3.5 * 73) * rng.uniform(0.5, 2.0)
        rs = 2.0 / (np.sqrt(state) * 0.5 * 73) * rng.uniform(0.5, 2.0)
        ins[1 + g] = m.const(rng.integers(-127, 128, [state, in_dim]).astype(np.int8), "int8", scale=ws, zp=0)
        ins[5 + g] = m.const(rng.integers(-127, 128, [state, state]).astype(np.int8), "int8", scale=rs, zp=0)
        bs = x_q[0] * ws
        ins[12 + g] = m.const((rng.normal(0, 1.0, state) / bs).astype(np.int32), "int32", scale=bs, zp=0)
    for k in extra:
        ins[k] = m.const(rng.integers(-127, 128, [state]).astype(np.int8), "int8", scale=0.01, zp=0)
    for k in drop:
        ins[k] = -1
    h = m.tensor([batch, state], dtype, scale=h_q[0], zp=h_q[1], name="hidden_state")
    c = m.tensor([batch, state], "int16", scale=cell_scale, zp=0, name="cell_state")
    for t in (h, c):
        m.tensors[t].isVariable = True
    ins[18], ins[19] = h, c
    out = m.tensor(shape[:2] + [state], dtype, scale=h_q[0], zp=h_q[1], name="sequence")
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [out], fusedActivationFunction=S.ActivationFunctionType.TANH,
         cellClip=float(cell_clip), timeMajor=bool(time_major))
    m.output(out)
    return m, (h, c)


def tflm_states(path, x, states):
    """Fresh TFLM interpreter: (outputs, {tensor: array}) for every op output and the states."""
    info = oracle.ModelInfo(path)
    it = oracle.interpreter(path, info)
    outs, tensors = oracle.run_interpreter(path, [x], it=it, info=info)
    for t in states:
        g = it.GetTensor(t, 0)
        tensors[t] = np.asarray(g["tensor_data"]).copy().reshape([int(s) for s in g["shape"]])
    return outs, tensors


CASES = {
    "batch_major": dict(),
    "batch3": dict(batch=3, steps=4),
    "time_major": dict(time_major=True, batch=2, steps=6),
    "time_major_b1": dict(time_major=True),
    "clip": dict(cell_clip=1.5, steps=12),
    "clip_wide": dict(cell_clip=100.0, cell_scale=2.0 ** -12),   # clip / scale above 32767: 32767
    "cell_2^-9": dict(cell_scale=2.0 ** -9, steps=8),             # tanh: left shift 3
    "cell_2^-12": dict(cell_scale=2.0 ** -12),                    # no shift
    "cell_2^-14": dict(cell_scale=2.0 ** -14),                    # rounding right shift 2
    "cell_not_pow2": dict(cell_scale=3.1e-4, steps=8),             # CheckedLog2 rounds to 2^-12
    "wide": dict(in_dim=20, state=12, steps=7, x_q=(0.1, -20), h_q=(0.009, 5)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_lstm(case, tmp_path):
    rng = np.random.default_rng(sorted(CASES).index(case) + 7)
    m, states = lstm_model(rng, **CASES[case])
    p = m.save(str(tmp_path / ("lstm_%s.tflite" % case.replace("^", ""))))
    info = oracle.ModelInfo(p)
    sets = [info.random_inputs(s) for s in range(3)]
    res = oracle.run_htc_batch(p, sets, name="l", info=info)
    for s, (x, (outs, dumps)) in enumerate(zip(sets, res)):
        ref_outs, ref = tflm_states(p, x[0], states)
        errors, compared = oracle.compare_run(info, ref_outs, ref, outs, dumps, label="seed %d: " % s)
        assert not errors, "\n".join(errors[:10])
        assert compared == 1
        for t in states:
            assert t in dumps, "htc did not dump state tensor %d" % t
            d = oracle.diff(ref[t], dumps[t])
            assert not d, "seed %d: final %s: %s" % (s, info.tensors[t]["name"], d)
        assert len(np.unique(outs[0])) > 4, "degenerate output sequence"


@pytest.mark.parametrize("name", ["lstm_kws_int8", "lstm_batch2_fio"])
def test_lstm_zoo_states(name):
    """The zoo's converter-made LSTMs: the final hidden and cell state of every layer as well."""
    p = os.path.join(MODELS_DIR, name + ".tflite")
    info = oracle.ModelInfo(p)
    lstms = [op for op in info.ops if op["op"] == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    assert lstms
    states = [t for op in lstms for t in (op["inputs"][18], op["inputs"][19])]
    sets = [info.random_inputs(s) for s in range(2)]
    res = oracle.run_htc_batch(p, sets, name="z", info=info)
    for s, (x, (outs, dumps)) in enumerate(zip(sets, res)):
        ref_outs, ref = tflm_states(p, x[0], states)
        for t in states:
            d = oracle.diff(ref[t], dumps[t])
            assert not d, "seed %d: final %s: %s" % (s, info.tensors[t]["name"], d)


def expect_error(path, *want):
    r = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", path + ".h", check=False)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("htc: error: "), r.stderr
    for w in (path,) + want:
        assert w in lines[0], lines[0]
    assert not os.path.exists(path + ".h")


BAD = {
    "peephole": (dict(extra=(10,)), "peephole connections"),
    "projection": (dict(extra=(16,)), "a projection"),
    "layer_norm": (dict(extra=(21,)), "layer normalization"),
    "cifg": (dict(drop=(1, 5)), "no input gate (CIFG)"),
    "int16": (dict(dtype="int16", x_q=(1e-3, 0), h_q=(1e-4, 0)), "int16 (16x8) LSTM is not supported"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_lstm_unsupported(case, tmp_path):
    kw, want = BAD[case]
    m, _ = lstm_model(np.random.default_rng(1), **kw)
    p = m.save(str(tmp_path / ("bad_%s.tflite" % case)))
    expect_error(p, "UNIDIRECTIONAL_SEQUENCE_LSTM", want)


def test_while_refused(tmp_path):
    """A Keras RNN without unroll=True is a WHILE loop over subgraphs: one line naming WHILE."""
    m = tb.Model("while")
    x = m.input([1, 4], scale=0.1, zp=0)
    y = m.tensor([1, 4], scale=0.1, zp=0)
    m.op("WHILE", [x], [y], condSubgraphIndex=1, bodySubgraphIndex=2)
    m.output(y)
    for k in range(2):
        sg = S.SubGraphT()
        sg.tensors, sg.inputs, sg.outputs, sg.operators = [], [], [], []
        m.extra_subgraphs.append(sg)
    p = m.save(str(tmp_path / "while.tflite"))
    expect_error(p, "WHILE", "control flow", "unroll=True")
