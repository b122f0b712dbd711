"""test_floordiv.py - int32 FLOOR_DIV and FLOOR_MOD (TFLite Micro has none
for int32) equal LiteRT's reference kernels (ai-edge-litert, BUILTIN_REF):
signs of both operands, broadcasting, INT32_MIN and INT32_MAX, several
random inputs. A zero divisor is left out: LiteRT refuses it."""
import numpy as np

import oracle
import tflite_build as tb


def model(path):
    m = tb.Model(description="htc floor_div / floor_mod")
    a = m.input([2, 3, 16], dtype="int32")
    b = m.input([3, 1], dtype="int32")
    d = m.tensor([2, 3, 16], "int32")
    r = m.tensor([2, 3, 16], "int32")
    m.op("FLOOR_DIV", [a, b], [d])
    m.op("FLOOR_MOD", [a, b], [r])
    c = m.const(np.array([7, -7, 1, -1, 2147483647, -2147483647], dtype=np.int32).reshape(6, 1, 1), "int32")
    e = m.tensor([6, 1, 16], "int32")
    m.op("FLOOR_MOD", [m.reshape(a, [6, 1, 16]), c], [e])
    for t in (d, r, e):
        m.output(t)
    return m.save(path)


def test_floor_div_mod(tmp_path):
    path = model(str(tmp_path / "fd.tflite"))
    rng = np.random.default_rng(5)
    sets = []
    for s in range(4):
        a = rng.integers(-2**31, 2**31, size=[2, 3, 16], dtype=np.int64).astype(np.int32)
        a.flat[:6] = [-2**31, 2**31 - 1, 0, -1, 1, -7]
        if s % 2:
            a = (a % 50 - 25).astype(np.int32)
        b = rng.integers(1, 20, size=[3, 1]).astype(np.int32) * rng.choice([-1, 1], size=[3, 1]).astype(np.int32)
        if s == 3:
            b[:, 0] = [-1, 2**31 - 1, -2**31]
        sets.append([a, b])
    got = oracle.run_htc_batch(path, sets)
    n = 0
    for inputs, (outs, _) in zip(sets, got):
        ref, _ = oracle.run_litert(path, inputs)
        for want, have in zip(ref, outs):
            assert np.array_equal(want, have.reshape(want.shape)), (inputs, want, have)
            n += 1
    assert n == 12
