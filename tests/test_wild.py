"""test_wild.py - published models nobody here made, against their oracle.

tests/wild/okay_nabu.tflite (microWakeWord's "Okay Nabu", shipped in the
pymicro-wakeword wheel: tests/wild/NOTICE) is a streaming int8 model that
keeps six ring buffers in resource variables: CALL_ONCE runs a subgraph of
VAR_HANDLE / ASSIGN_VARIABLE setting them, then every invoke READ_VARIABLE
-> CONCATENATION with the new frames -> STRIDED_SLICE -> ASSIGN_VARIABLE.
htc keeps each variable as an arena variable (reset to CALL_ONCE's value
by NAME_reset, kept between runs with NAME_KEEP_STATE). Checked against
TFLite Micro: every output and every operator output from the reset state
(a fresh interpreter), and 12 consecutive runs against 12 Invoke()s of one
interpreter, with a ring buffer's contents made the graph output (the
probability is 0 on these inputs). The same wheel's alexa, hey_jarvis and
hey_mycroft (the same form) are checked from the reset state too."""
import hashlib
import os

import numpy as np
import pytest

import oracle
import tflite_build as tb
from test_rnn import stream
from tflite_build import S

WILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wild")
NABU = os.path.join(WILD, "okay_nabu.tflite")
# microWakeWord's models in the pymicro-wakeword 2.5.0 wheel (tests/wild/NOTICE):
# sha256, ASSIGN_VARIABLEs, operator outputs compared per run
MWW = {"okay_nabu": ("d89128c4d16a72de429119fb2254ce46649553c2a24f5dd840175c80d7b9d094", 6, 51),
       "alexa": ("9011a8155b04de858c48038529235cbc0e42e9fca05a55bf588cb80a653a723b", 6, 32),
       "hey_jarvis": ("21a7976add39ee24ec96c63d96b7aaa18e24d1d9824b963e451da8feb4b78b77", 6, 32),
       "hey_mycroft": ("c2a9b6ed51182db72e014781d5a4ece1929dc232a40b5b4be384f0295f0e1571", 6, 32)}


def frames(n, seed):
    """n inputs [1, 3, 40] of int8 features: noise over a moving ripple."""
    rng = np.random.default_rng(seed)
    k = np.arange(40)
    return [(rng.integers(-40, 40, size=(1, 3, 40)) + 60 * np.sin(k / 4.0 + 0.7 * j)).clip(-128, 127).astype(np.int8)
            for j in range(n)]


def rvar_model(init=3, bad=None, dtype="int8"):
    """The same form, small: a ring buffer of 2 frames of 4 in a resource
    variable (CALL_ONCE sets it to `init`), the output the 3 frames the
    layer reads (also the fuzz corpus seed tests/fuzz/corpus/rvar.tflite);
    `init` a number (a memset reset) or a [1, 2, 4] array (a copied one)."""
    m = tb.Model("resource variable")
    x = m.input([1, 1, 4], scale=0.1, zp=3, dtype=dtype)

    def handle(sg_tensors, name):
        t = S.TensorT()
        t.shape, t.type, t.name = [], 13, name      # RESOURCE
        sg_tensors.append(t)
        return len(sg_tensors) - 1

    def var_handle(o):
        o.builtinOptionsType = S.BuiltinOptions.VarHandleOptions
        o.builtinOptions = S.VarHandleOptionsT()
        o.builtinOptions.sharedName = "ring"
        return o

    init_val = np.full([1, 2, 4], init, dtype) if np.isscalar(init) else np.asarray(init, dtype)
    c0 = m.const(init_val, dtype, scale=0.1, zp=3)
    m.op("CALL_ONCE", [], [])
    m.operators[-1].builtinOptionsType = S.BuiltinOptions.CallOnceOptions
    m.operators[-1].builtinOptions = S.CallOnceOptionsT()
    m.operators[-1].builtinOptions.initSubgraphIndex = 1
    h = handle(m.tensors, "h")
    m.op("VAR_HANDLE", [], [h])
    var_handle(m.operators[-1])
    st = m.tensor([1, 2, 4], dtype, scale=0.1, zp=3)
    m.op("READ_VARIABLE", [h], [st])
    c = m.tensor([1, 3, 4], dtype, scale=0.1, zp=3)
    m.op("CONCATENATION", [st, x], [c], axis=1)
    b = m.const(np.array([0, 1, 0], np.int32), "int32")
    e = m.const(np.array([1, 3, 4], np.int32), "int32")
    one = m.const(np.array([1, 1, 1], np.int32), "int32")
    ns = m.tensor([1, 2, 4], dtype, scale=0.1, zp=3)
    m.op("STRIDED_SLICE", [c, b, e, one], [ns])
    m.op("ASSIGN_VARIABLE", [h, ns], [])
    m.output(c)
    sg = S.SubGraphT()
    sg.tensors, sg.inputs, sg.outputs, sg.operators = [], [], [], []
    h1 = handle(sg.tensors, "h1")
    sg.tensors.append(m.tensors[c0])
    for name, ins, outs in (("VAR_HANDLE", [], [h1]), ("ASSIGN_VARIABLE", [h1, 1], [])):
        m.op(name, ins, outs)
        o = m.operators.pop()
        if name == "VAR_HANDLE":
            var_handle(o)
        if bad == "other_op" and name == "ASSIGN_VARIABLE":
            o.opcodeIndex = m._opcode_index["CONCATENATION"]
        sg.operators.append(o)
    m.extra_subgraphs.append(sg)
    return m


def test_rvar_small(tmp_path):
    """Three consecutive runs from the reset state, and a fresh run: TFLM's answers."""
    p = rvar_model().save(str(tmp_path / "rvar.tflite"))
    xs = [np.array([[[10 * k + j for j in range(4)]]], np.int8) for k in range(3)]
    ref = stream(p, xs, tmp_path)
    # run k reads the frames of runs k-2 and k-1 kept in the variable (the reset value 3 before)
    assert ref[0].tolist() == [[[3] * 4, [3] * 4, [0, 1, 2, 3]]]
    assert ref[2].tolist() == [[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]]]
    want, _ = oracle.run_interpreter(p, [xs[0]])
    (outs, _), = oracle.run_htc_batch(p, [[xs[0]]])
    assert np.array_equal(want[0], outs[0].reshape(want[0].shape))


def test_rvar_not_uniform(tmp_path):
    """A variable starting from a constant of differing values (NAME_reset
    copies it): 4 consecutive runs twice with a reset between, and a fresh
    run, equal to TFLM."""
    init = np.array([[[-128, -1, 0, 127], [5, -7, 33, -90]]], np.int8)
    p = rvar_model(init=init).save(str(tmp_path / "rvar_init.tflite"))
    xs = [np.array([[[10 * k + j - 20 for j in range(4)]]], np.int8) for k in range(4)]
    ref = stream(p, xs, tmp_path)
    assert ref[0].tolist() == [init[0].tolist() + [[-20, -19, -18, -17]]]
    assert ref[1].tolist() == [[init[0, 1].tolist(), [-20, -19, -18, -17], [-10, -9, -8, -7]]]
    want, _ = oracle.run_interpreter(p, [xs[2]])
    (outs, _), = oracle.run_htc_batch(p, [[xs[2]]])
    assert np.array_equal(want[0], outs[0].reshape(want[0].shape)) and want[0][0, 0].tolist() == init[0, 0].tolist()
    hdr = (tmp_path / "model.h").read_text()
    assert "memcpy(" in hdr and "128,255,0,127,5,249,33,166" in hdr, "the reset copies the constant's bytes"


def test_rvar_uint8(tmp_path):
    """uint8 variables (stored as int8, the reset value flipped as the
    constants), a repeated byte and differing bytes: LiteRT's answer (TFLM
    refuses uint8) from the reset state."""
    x = np.array([[[0, 77, 128, 255]]], np.uint8)
    for name, init in (("byte", 200), ("bytes", np.array([[[0, 1, 127, 128], [129, 200, 254, 255]]], np.uint8))):
        p = rvar_model(init=init, dtype="uint8").save(str(tmp_path / ("rvar_u8_%s.tflite" % name)))
        want, _ = oracle.run_litert(p, [x])
        (outs, _), = oracle.run_htc_batch(p, [[x]])
        assert want[0].dtype == np.uint8 and np.array_equal(want[0], outs[0].reshape(want[0].shape)), (name, want, outs)
        assert want[0][0, :2].tolist() == np.broadcast_to(init, (1, 2, 4))[0].tolist()


def test_rvar_refused(tmp_path):
    """What htc does not read of CALL_ONCE's subgraph: one line naming it."""
    for bad, want in (("other_op", "htc reads only VAR_HANDLE and ASSIGN_VARIABLE of constants there"),):
        p = rvar_model(bad=bad).save(str(tmp_path / (bad + ".tflite")))
        r = oracle.htc("compile", p, "-t", oracle.TARGET, "-o", tmp_path / "m.h", check=False)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and want in r.stderr, r.stderr
        assert not (tmp_path / "m.h").exists()


@pytest.mark.parametrize("name", sorted(MWW))
def test_mww_unchanged(name):
    with open(os.path.join(WILD, name + ".tflite"), "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == MWW[name][0]


@pytest.mark.parametrize("name", sorted(MWW))
def test_mww_fresh_state(name):
    path = os.path.join(WILD, name + ".tflite")
    info = oracle.ModelInfo(path)
    assert sum(o["op"] == "ASSIGN_VARIABLE" for o in info.ops) == MWW[name][1]
    sets = [[x] for x in frames(3, 0)]
    got = oracle.run_htc_batch(path, sets)
    compared = 0
    for ins, (outs, dumps) in zip(sets, got):
        ref, tens = oracle.run_interpreter(path, ins)
        for want, have in zip(ref, outs):
            assert np.array_equal(want, have.reshape(want.shape))
        for t, want in tens.items():
            if t in dumps:
                assert np.array_equal(want.reshape(-1), dumps[t].reshape(-1)), info.tensors[t]["name"]
                compared += 1
    # every operator output but the handles and the CALL_ONCE / ASSIGN_VARIABLE (no outputs)
    assert compared == 3 * MWW[name][2], compared


def test_nabu_streaming(tmp_path):
    """Consecutive runs keep the ring buffers, as TFLM's interpreter does."""
    m = tb.read_model(NABU)
    sg = m.subgraphs[0]
    names = [t.name.decode() for t in sg.tensors]
    ring = [k for k, n in enumerate(names) if n == "model_1/stream_11/concat"]
    assert len(ring) == 1, names
    # the output: ring buffer stream_11 as the last layer reads it (16 kept frames x 64 + the new one)
    sg.outputs = ring
    import flatbuffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    path = str(tmp_path / "nabu3.tflite")
    with open(path, "wb") as f:
        f.write(bytes(b.Output()))
    xs = frames(12, 1)
    ref = stream(path, xs, tmp_path)
    # the ring buffer moved: later runs see earlier frames' results
    assert len({r.tobytes() for r in ref}) == 12


if __name__ == "__main__":
    # the fuzz corpus seed: .venv/bin/python tests/test_wild.py tests/fuzz/corpus/rvar.tflite
    import sys
    rvar_model().save(sys.argv[1])
