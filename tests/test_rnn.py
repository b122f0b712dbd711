"""test_rnn.py - recurrent layers against TFLite Micro's interpreter.

SVDF (int8 input and output, int16 or int8 state; no Keras layer makes it)
built with tests/tflite_build.py: every run from the reset state (a fresh
interpreter), and streaming: the header compiled with NAME_KEEP_STATE, one
NAME_reset, then consecutive runs against consecutive Invoke()s of one
interpreter (TFLM keeps the variable tensors). The LSTM streams the same way.

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
        bt = "int64" if dtype == "int16" else "int32"   # 16x8: int64 biases
        ins[12 + g] = m.const((rng.normal(0, 1.0, state) / bs).astype(bt), bt, scale=bs, zp=0)
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
    # 16x8 (int16 activations, int64 biases; the converter cannot make it, TFLM runs it)
    "s16": dict(dtype="int16", x_q=(6.0 / 32768, 0), h_q=(1.0 / 32768, 0), steps=6),
    "s16_time_major_clip": dict(dtype="int16", x_q=(4.0 / 32768, 0), h_q=(1.2 / 32768, 0), time_major=True,
                                batch=2, cell_clip=2.0),
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
        assert outs[0].dtype == np.dtype(CASES[case].get("dtype", "int8"))


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
    "int16_zero_point": (dict(dtype="int16", x_q=(1e-3, 5), h_q=(1e-4, 0)), "need zero point 0"),
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


def svdf_model(rng, batch=1, in_dim=8, units=4, rank=2, memory=5, state_type="int16", x_q=(0.05, 3),
               state_q=None, out_q=(0.08, -4), bias=True):
    m = tb.Model("svdf")
    x = m.input([batch, in_dim], scale=x_q[0], zp=x_q[1])
    F = units * rank
    if state_q is None:
        state_q = (2.0 ** -10, 0) if state_type == "int16" else (0.03, 5)
    wfs = state_q[0] * rng.uniform(0.5, 4.0) * (32768 if state_type == "int16" else 128) / (
        x_q[0] * 73 * 73 * np.sqrt(in_dim) * 3)
    wf = m.const(rng.integers(-127, 128, [F, in_dim]).astype(np.int8), "int8", scale=wfs, zp=0)
    tinfo = np.iinfo(np.int16 if state_type == "int16" else np.int8)
    wts = 1.0 / (tinfo.max * 0.6 * np.sqrt(memory))
    wt = m.const(rng.integers(-tinfo.max, tinfo.max + 1, [F, memory]).astype(tinfo.dtype), state_type,
                 scale=wts, zp=0)
    bsc = float(np.float32(np.float32(state_q[0]) * np.float32(wts)))
    b = m.const((rng.normal(0, 0.3, units) / bsc).astype(np.int32), "int32", scale=bsc, zp=0) if bias else -1
    st = m.tensor([batch, F * memory], state_type, scale=state_q[0], zp=state_q[1], name="activation_state")
    m.tensors[st].isVariable = True
    out = m.tensor([batch, units], "int8", scale=out_q[0], zp=out_q[1], name="out")
    m.op("SVDF", [x, wf, wt, b, st], [out], rank=rank)
    m.output(out)
    return m, (st,)


SVDF_CASES = {
    "s16": dict(),
    "s16_batch2_rank1": dict(batch=2, rank=1, units=6, memory=8),
    "s8": dict(state_type="int8"),
    "s8_batch3": dict(state_type="int8", batch=3, rank=3, memory=4, in_dim=5),
}


@pytest.mark.parametrize("case", sorted(SVDF_CASES))
def test_svdf(case, tmp_path):
    """Each run from the reset state: output and state vs a fresh interpreter."""
    rng = np.random.default_rng(sorted(SVDF_CASES).index(case) + 40)
    m, states = svdf_model(rng, **SVDF_CASES[case])
    p = m.save(str(tmp_path / ("svdf_%s.tflite" % case)))
    info = oracle.ModelInfo(p)
    sets = [info.random_inputs(s) for s in range(3)]
    res = oracle.run_htc_batch(p, sets, name="s", info=info)
    for s, (x, (outs, dumps)) in enumerate(zip(sets, res)):
        ref_outs, ref = tflm_states(p, x[0], states)
        errors, compared = oracle.compare_run(info, ref_outs, ref, outs, dumps, label="seed %d: " % s)
        assert not errors and compared == 1, "\n".join(errors[:10])
        for t in states:
            d = oracle.diff(ref[t], dumps[t])
            assert not d, "seed %d: final state: %s" % (s, d)


STREAM_DRIVER = r"""
#define S_KEEP_STATE
#define S_IMPLEMENTATION
#include "model.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    void *arena = aligned_alloc(S_ARENA_ALIGN, (S_ARENA_SIZE + S_ARENA_ALIGN - 1) / S_ARENA_ALIGN * S_ARENA_ALIGN);
    static unsigned char in[S_INPUT_SIZE], out[S_OUTPUT_SIZE];
    int n = atoi(argv[1]), k, again;
    for (again = 0; again < 2; again++) {       /* the second pass after a reset repeats the first */
        s_reset(arena);
        for (k = 0; k < n; k++) {
            if (fread(in, 1, sizeof in, stdin) != sizeof in) return 2;
            if (s_run(in, out, arena)) return 3;
            fwrite(out, 1, sizeof out, stdout);
        }
    }
    return 0;
}
"""


def stream(path, xs, tmp_path):
    """htc with NAME_KEEP_STATE over consecutive inputs (twice, reset between) vs one TFLM interpreter."""
    hdr = str(tmp_path / "model.h")
    oracle.htc("compile", path, "-t", oracle.TARGET, "-o", hdr, "--name", "s")
    drv = tmp_path / "driver.c"
    drv.write_text(STREAM_DRIVER)
    exe = str(tmp_path / "driver")
    subprocess.run([oracle.CC, "-O2", "-std=c11", "-o", exe, str(drv)], check=True)
    data = b"".join(np.ascontiguousarray(x).tobytes() for x in xs) * 2
    got = subprocess.run([exe, str(len(xs))], input=data, capture_output=True, check=True).stdout
    it = oracle.interpreter(path)
    ref = []
    for x in xs:
        it.set_input(x, 0)
        it.invoke()
        ref.append(np.asarray(it.get_output(0)).copy())
    want = b"".join(r.tobytes() for r in ref)
    assert len(got) == 2 * len(want)
    for k, r in enumerate(ref):
        n = r.nbytes
        for half in range(2):
            g = np.frombuffer(got[half * len(want) + k * n:half * len(want) + (k + 1) * n], dtype=r.dtype).reshape(r.shape)
            d = oracle.diff(r, g)
            assert not d, "run %d (pass %d): %s" % (k, half, d)
    return ref


@pytest.mark.parametrize("case", ["s16", "s8_batch3"])
def test_svdf_stream(case, tmp_path):
    """Streaming: the state carried from run to run as TFLM carries its variable tensor."""
    rng = np.random.default_rng(sorted(SVDF_CASES).index(case) + 40)
    m, _ = svdf_model(rng, **SVDF_CASES[case])
    p = m.save(str(tmp_path / "svdf.tflite"))
    info = oracle.ModelInfo(p)
    ref = stream(p, [info.random_inputs(100 + k)[0] for k in range(8)], tmp_path)
    assert len({r.tobytes() for r in ref}) == len(ref)


def test_lstm_stream(tmp_path):
    """An LSTM over consecutive invocations: TFLM continues from the last state."""
    m, _ = lstm_model(np.random.default_rng(5), batch=2, steps=3)
    p = m.save(str(tmp_path / "lstm.tflite"))
    info = oracle.ModelInfo(p)
    stream(p, [info.random_inputs(200 + k)[0] for k in range(4)], tmp_path)


def test_svdf_unsupported(tmp_path):
    m, _ = svdf_model(np.random.default_rng(1), bias=False)
    p = m.save(str(tmp_path / "svdf_nobias.tflite"))
    expect_error(p, "SVDF", "needs a bias")


def test_lstm_shared_state(tmp_path):
    """The state tensors belong to the op: one that is also a graph output or the data input is refused."""
    m, (h, c) = lstm_model(np.random.default_rng(2))
    m.output(h)
    p = m.save(str(tmp_path / "state_out.tflite"))
    expect_error(p, "UNIDIRECTIONAL_SEQUENCE_LSTM", "hidden state", "graph input or output")
    m, (h, c) = lstm_model(np.random.default_rng(2))
    m.operators[0].inputs[19] = m.operators[0].inputs[18]
    p = m.save(str(tmp_path / "state_twice.tflite"))
    expect_error(p, "UNIDIRECTIONAL_SEQUENCE_LSTM", "also used by another operand")
    m, (h, c) = lstm_model(np.random.default_rng(2))
    m.tensors[c].isVariable = False
    p = m.save(str(tmp_path / "state_not_variable.tflite"))
    expect_error(p, "UNIDIRECTIONAL_SEQUENCE_LSTM", "cell state", "not a variable tensor")
