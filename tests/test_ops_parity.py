"""test_ops_parity.py - the operators of TFLite Micro's MicroMutableOpResolver
that int8 graphs use beyond tests/test_ops.py: comparisons, LOGICAL_*,
SELECT_V2, CAST, FILL, ZEROS_LIKE, GATHER_ND, EMBEDDING_LOOKUP,
DYNAMIC_UPDATE_SLICE, BROADCAST_ARGS (folded at compile time), ADD_N, DIV,
CUMSUM, REDUCE_ALL, LOG_SOFTMAX. Oracle: TFLite Micro's interpreter (tflite-micro), every operator
output bit for bit on four input sets (three random, one of range ends),
with broadcast shapes, negative zero points and saturating scales.
"""
import numpy as np
import pytest

import tflite_build as tb
from test_ops import check, _seed

CASES = {}


def case(name):
    def reg(fn):
        assert name not in CASES, name
        CASES[name] = fn
        return fn
    return reg


def group(name, *builders):
    """One model holding several cases (one header compile, one TFLM run per input set)."""
    case(name)(lambda m, rng, gens: [b(m, rng, gens) for b in builders])


def _t(m, shape, dtype="int8", q=None, name=None):
    if q is None:
        return m.tensor(shape, dtype, name=name)
    return m.tensor(shape, dtype, q[0], q[1], name=name)


# ---- comparisons -------------------------------------------------------------------

CMP = ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")


def _cmp_model(ops, a_shape, b_shape, out_shape, dtype, a_q=None, b_q=None, const_b=None):
    """One model: each comparison of `ops` on the same two operands."""
    ops = (ops,) if isinstance(ops, str) else ops

    def build(m, rng, gens):
        a = m.input(a_shape, *(a_q or (None, None)), dtype=dtype)
        if const_b is not None:
            b = m.const(np.asarray(const_b, dtype=tb.TYPES[dtype][1]).reshape(b_shape), dtype,
                        scale=b_q[0] if b_q else None, zp=b_q[1] if b_q else None)
        else:
            b = m.input(b_shape, *(b_q or (None, None)), dtype=dtype)
        for op in ops:
            m.output(m.op(op, [a, b], [_t(m, out_shape, "bool")]))
    return build


# int8 (TFLM rescales both operands): different scales and zero points broadcast
# both ways; equal quantizations (equal stored values compare equal); scales close
# to each other and to 1 (the rescaled values tie on a few inputs)
group("compare-s8",
      _cmp_model(CMP, [2, 1, 5], [3, 1], [2, 3, 5], "int8", (0.05, -3), (0.07, 10)),
      _cmp_model(CMP, [4, 8], [4, 8], [4, 8], "int8", (0.02, -128), (0.02, -128)),
      _cmp_model(CMP, [256], [1], [256], "int8", (0.9, 127), (0.899, -1), const_b=[5]))
group("compare-s32-s64-bool",
      _cmp_model(CMP, [2, 3], [3], [2, 3], "int32"),
      _cmp_model(CMP, [3, 4], [1, 4], [3, 4], "int64"),
      _cmp_model(("EQUAL", "NOT_EQUAL"), [2, 5], [2, 1], [2, 5], "bool"))


# ---- logical ops and SELECT_V2 -------------------------------------------------------

@case("logical-and-or-not")
def _logical(m, rng, gens):
    a = m.input([2, 3, 4], dtype="bool")
    b = m.input([3, 1], dtype="bool")
    x = m.op("LOGICAL_AND", [a, b], [_t(m, [2, 3, 4], "bool")])
    y = m.op("LOGICAL_OR", [x, b], [_t(m, [2, 3, 4], "bool")])
    m.output(m.op("LOGICAL_NOT", [y], [_t(m, [2, 3, 4], "bool")]))


def _select(dtype, c_shape, x_shape, y_shape, out_shape, q=(0.05, -7)):
    def build(m, rng, gens):
        qq = q if dtype != "float32" else (None, None)
        c = m.input(c_shape, dtype="bool")
        x = m.input(x_shape, *qq, dtype=dtype)
        y = m.input(y_shape, *qq, dtype=dtype)
        m.output(m.op("SELECT_V2", [c, x, y], [_t(m, out_shape, dtype, qq if qq[0] else None)]))
    return build


group("select_v2-s8-s16-f32",
      _select("int8", [2, 1, 4], [1, 3, 4], [2, 3, 1], [2, 3, 4]),
      _select("int8", [3, 5], [3, 5], [3, 5], [3, 5]),
      _select("int16", [4, 1], [1, 6], [4, 6], [4, 6], q=(0.001, 0)),
      _select("float32", [2, 3], [2, 3], [], [2, 3]))


@case("where-greater-select")
def _where(m, rng, gens):
    """tf.where(x > 0.1, x, y): a rescaled comparison with a constant, then SELECT_V2."""
    x = m.input([1, 6, 8], 0.03, -20)
    y = m.input([1, 1, 8], 0.03, -20)
    t = m.const(np.array([12], np.int8), "int8", scale=0.01, zp=2)
    c = m.op("GREATER", [x, t], [_t(m, [1, 6, 8], "bool")])
    m.output(m.op("SELECT_V2", [c, x, y], [_t(m, [1, 6, 8], "int8", (0.03, -20))]))


# ---- CAST, FILL, ZEROS_LIKE ---------------------------------------------------------------

CASTS = (("int8", "int32"), ("int32", "int8"), ("bool", "int8"), ("bool", "float32"), ("int16", "float32"),
         ("float32", "int32"), ("float32", "int8"), ("int32", "float32"), ("int8", "int16"), ("int16", "int8"),
         ("bool", "int32"))


def _cast(pairs, shape=(3, 7)):
    """One CAST per (source, destination) pair, one input per source type."""
    def build(m, rng, gens):
        ins = {}
        for src, dst in pairs:
            if src not in ins:
                ins[src] = x = m.input(list(shape), dtype=src)
                if src == "int32":
                    gens[x] = lambda r: r.integers(-1000, 1000, size=shape).astype(np.int32)   # wraps in int8/int16
                if src == "float32":
                    gens[x] = lambda r: (r.uniform(-100, 100, size=shape) * (r.random(shape) < 0.8)).astype(np.float32)
            m.output(m.op("CAST", [ins[src]], [_t(m, list(shape), dst)]))
    return build


case("cast-all-pairs")(_cast(CASTS))


@case("fill-int8-int32-float32")
def _fill(m, rng, gens):
    d = m.const(np.array([2, 3, 4], np.int32), "int32")
    for dtype in ("int8", "int32", "float32"):
        q = (0.1, 3) if dtype == "int8" else None
        v = m.input([], *(q or (None, None)), dtype=dtype)
        m.output(m.op("FILL", [d, v], [_t(m, [2, 3, 4], dtype, q)]))


@case("zeros_like-int8-int32-float32")
def _zeros(m, rng, gens):
    for dtype in ("int8", "int32", "float32"):
        q = (0.1, -5) if dtype == "int8" else None
        x = m.input([3, 4], *(q or (None, None)), dtype=dtype)
        m.output(m.op("ZEROS_LIKE", [x], [_t(m, [3, 4], dtype, q)]))


# ---- GATHER_ND, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE, BROADCAST_ARGS -------------------

def _gnd1(m, rng, gens):
    x = m.input([4, 3, 2], 0.05, -3)
    # [0, 5] is outside axis 1 but inside the tensor: TFLM checks the flat position only
    i = m.const(np.array([[0, 1], [3, 2], [2, 0], [0, 5]], np.int32), "int32")
    m.output(m.op("GATHER_ND", [x, i], [_t(m, [4, 2], "int8", (0.05, -3))]))


def _gnd2(m, rng, gens):
    x = m.input([4, 3, 2], 0.05, -3)
    i = m.input([2, 2, 1], dtype="int32")
    gens[i] = lambda r: r.integers(0, 4, size=[2, 2, 1]).astype(np.int32)
    m.output(m.op("GATHER_ND", [x, i], [_t(m, [2, 2, 3, 2], "int8", (0.05, -3))]))


def _gnd3(m, rng, gens):
    x = m.input([2, 3, 4], dtype="float32")
    i = m.input([5, 3], dtype="int32")
    gens[i] = lambda r: np.stack([r.integers(0, n, size=5) for n in (2, 3, 4)], axis=1).astype(np.int32)
    m.output(m.op("GATHER_ND", [x, i], [_t(m, [5], "float32")]))


def _emb(m, rng, gens):
    ids = m.input([6], dtype="int32")
    gens[ids] = lambda r: r.integers(0, 5, size=[6]).astype(np.int32)
    table = m.const(rng.integers(-128, 128, size=[5, 4]).astype(np.int8), "int8", scale=0.02, zp=-1)
    m.output(m.op("EMBEDDING_LOOKUP", [ids, table], [_t(m, [6, 4], "int8", (0.02, -1))]))


def _emb_h(m, rng, gens):
    """int8 table, float32 rows: float(q) * scale (TFLM's EvalHybrid; zero point 0)."""
    ids = m.input([5], dtype="int32")
    gens[ids] = lambda r: r.integers(0, 3, size=[5]).astype(np.int32)
    table = m.const(rng.integers(-128, 128, size=[3, 2, 4]).astype(np.int8), "int8", scale=0.0123, zp=0)
    m.output(m.op("EMBEDDING_LOOKUP", [ids, table], [_t(m, [5, 2, 4], "float32")]))


group("gather_nd-embedding_lookup", _gnd1, _gnd2, _gnd3, _emb, _emb_h)


def _reduce_all(shape, axes, keep, out_shape):
    def build(m, rng, gens):
        x = m.input(shape, dtype="bool")
        gens[x] = lambda r: r.random(shape) < 0.85          # mostly true: some all-true groups
        ax = m.const(np.array(axes, np.int32), "int32")
        m.output(m.op("REDUCE_ALL", [x, ax], [_t(m, out_shape, "bool")], keepDims=keep))
    return build


group("reduce_all",
      _reduce_all([3, 4, 2], [1], False, [3, 2]),
      _reduce_all([3, 4, 2], [0, -1], True, [1, 4, 1]),
      _reduce_all([2, 3], [0, 1], False, []))


def _g_rt1(m, rng, gens):
    x = m.input([2, 5, 3], 0.05, -7)
    i = m.input([2, 2], dtype="int32")
    gens[i] = lambda r: r.integers(0, 5, size=[2, 2]).astype(np.int32)
    m.output(m.op("GATHER", [x, i], [_t(m, [2, 2, 2, 3], "int8", (0.05, -7))], axis=1))


def _g_rt2(m, rng, gens):
    x = m.input([3, 4], dtype="float32")
    i = m.input([5], dtype="int32")
    gens[i] = lambda r: r.integers(0, 4, size=[5]).astype(np.int32)
    m.output(m.op("GATHER", [x, i], [_t(m, [3, 5], "float32")], axis=-1))


def _g_bd(m, rng, gens):
    x = m.input([2, 4, 3], 0.05, 2)
    i = m.const(np.array([[3, 0, 1], [2, 2, 0]], np.int32), "int32")
    m.output(m.op("GATHER", [x, i], [_t(m, [2, 3, 3], "int8", (0.05, 2))], axis=1, batchDims=1))


group("gather-runtime", _g_rt1, _g_rt2, _g_bd)


def _dus(dtype, start, idx_type="int32", runtime=False):
    def build(m, rng, gens):
        q = (0.05, 4) if dtype in ("int8", "int16") else None
        x = m.input([4, 5, 3], *(q or (None, None)), dtype=dtype)
        u = m.input([2, 3, 3], *(q or (None, None)), dtype=dtype)
        if runtime:
            s = m.input([3], dtype=idx_type)
            gens[s] = lambda r: r.integers(-3, 6, size=[3]).astype(tb.TYPES[idx_type][1])
        else:
            s = m.const(np.array(start, tb.TYPES[idx_type][1]), idx_type)
        m.output(m.op("DYNAMIC_UPDATE_SLICE", [x, u, s], [_t(m, [4, 5, 3], dtype, q)]))
    return build


group("dynamic_update_slice",
      _dus("int8", [1, 3, 0]),
      _dus("int8", None, runtime=True),
      _dus("int16", [3, -2, 0], "int64"),
      _dus("float32", [0, 1, 0]),
      _dus("int32", None, runtime=True))


@case("broadcast_args-reshape")
def _bargs(m, rng, gens):
    """BROADCAST_ARGS of constant shapes: evaluated at compile time (the
    RESHAPE's shape); TFLM computes it and RESHAPE keeps the stored shape."""
    x = m.input([2, 4, 3], 0.05, 1)
    s1 = m.const(np.array([2, 1, 3], np.int32), "int32")
    s2 = m.const(np.array([4, 1], np.int32), "int32")
    s = m.op("BROADCAST_ARGS", [s1, s2], [_t(m, [3], "int32")])
    r = m.op("RESHAPE", [x, s], [_t(m, [2, 4, 3], "int8", (0.05, 1))], newShape=[2, 4, 3])
    m.output(m.op("ADD", [r, r], [_t(m, [2, 4, 3], "int8", (0.1, 1))]))


# ---- ADD_N, DIV, CUMSUM -------------------------------------------------------------------

def _addn(n, q, out_q, shape=(3, 7)):
    def build(m, rng, gens):
        xs = [m.input(list(shape), *q) for _ in range(n)]
        m.output(m.op("ADD_N", xs, [_t(m, list(shape), "int8", out_q)]))
    return build


group("add_n",
      _addn(2, (0.05, -3), (0.1, 5)),
      _addn(3, (0.02, -128), (0.05, -100)),
      _addn(4, (0.1, 7), (0.01, 0)))


def _div(a_shape, b_shape, out_shape, a_q, b_q, out_q, act=None, const_b=None):
    def build(m, rng, gens):
        a = m.input(a_shape, *a_q)
        if const_b is not None:
            b = m.const(np.asarray(const_b, np.int8).reshape(b_shape), "int8", scale=b_q[0], zp=b_q[1])
        else:
            b = m.input(b_shape, *b_q)
            # a divisor equal to its zero point is a division by zero (TFLM: undefined)
            gens[b] = lambda r: np.where(_ri8(r, b_shape) == b_q[1], b_q[1] + (1 if b_q[1] < 127 else -1),
                                         _ri8(r, b_shape)).astype(np.int8)
        m.output(m.op("DIV", [a, b], [_t(m, out_shape, "int8", out_q)], fusedActivationFunction=tb.ACT[act]))
    return build


def _ri8(r, shape):
    return r.integers(-128, 128, size=shape).astype(np.int8)


group("div",
      _div([4, 8], [4, 8], [4, 8], (0.05, -3), (0.02, 10), (0.2, 0)),
      _div([2, 1, 6], [3, 1], [2, 3, 6], (0.1, 20), (0.03, -50), (0.5, -10), act="RELU"),
      _div([256], [1], [256], (0.5, -128), (0.001, 0), (0.1, 3), const_b=[3]),
      _div([256, 1], [3], [256, 3], (0.05, 0), (0.04, 0), (0.02, 1), const_b=[-128, -1, 77]))


def _cumsum(shape, axis, exclusive, reverse, q=(0.05, -3), out_q=(0.2, 4)):
    def build(m, rng, gens):
        x = m.input(list(shape), *q)
        ax = m.const(np.array([axis], np.int32).reshape([]), "int32")
        m.output(m.op("CUMSUM", [x, ax], [_t(m, list(shape), "int8", out_q)], exclusive=exclusive, reverse=reverse))
    return build


group("cumsum",
      _cumsum([2, 5, 3], 1, False, False),
      _cumsum([2, 5, 3], 1, True, False),
      _cumsum([3, 6], -1, False, True),
      _cumsum([8, 4], 0, True, True, q=(0.1, -128), out_q=(0.05, 0)))


def _log_softmax(shape, in_q):
    def build(m, rng, gens):
        x = m.input(shape, *in_q)
        m.output(m.op("LOG_SOFTMAX", [x], [_t(m, shape, "int8", (16.0 / 256, 127))]))
    return build


group("log_softmax",
      _log_softmax([4, 10], (0.05, -3)),
      _log_softmax([3, 40], (0.5, 20)),
      _log_softmax([2, 3, 16], (0.004, -128)),
      _log_softmax([5, 1], (0.25, 0)))


@case("log_softmax-random-scales")
def _lsm_random(m, rng, gens):
    """Eight input scales, log-uniform in [1e-3, 4]: every int8 value in one row."""
    for _ in range(8):
        s = float(np.float32(np.exp(rng.uniform(np.log(1e-3), np.log(4)))))
        x = m.input([2, 256], s, int(rng.integers(-128, 128)))
        gens[x] = lambda r: np.stack([np.arange(-128, 128), r.integers(-128, 128, 256)]).astype(np.int8)
        m.output(m.op("LOG_SOFTMAX", [x], [_t(m, [2, 256], "int8", (16.0 / 256, 127))]))


# ---- the test ------------------------------------------------------------------------------

def _inputs(info, gens, seed, extreme=False):
    rng = np.random.default_rng(seed)
    xs = []
    for i in info.inputs:
        t = info.tensors[i]
        shape, dt = t["shape"], t["dtype"]
        if i in gens:
            xs.append(np.asarray(gens[i](rng), dtype=dt).reshape(shape))
        elif dt == np.bool_:
            xs.append(rng.random(shape) < 0.5)
        elif dt == np.float32:
            xs.append(rng.uniform(-8, 8, size=shape).astype(np.float32))
        elif dt in (np.int32, np.int64):
            xs.append(rng.integers(-3, 4, size=shape).astype(dt))
        else:
            ii = np.iinfo(dt)
            if extreme:
                xs.append(np.where(rng.random(shape) < 0.5, ii.min, ii.max).astype(dt))
            else:
                xs.append(rng.integers(ii.min, ii.max + 1, size=shape, dtype=np.int64).astype(dt))
    return xs


@pytest.mark.parametrize("name", sorted(CASES))
def test_parity(name, tmp_path):
    import oracle
    rng = np.random.default_rng(_seed(name))
    m = tb.Model(description="htc parity " + name)
    gens = {}
    CASES[name](m, rng, gens)
    path = m.save(str(tmp_path / (name + ".tflite")))
    info = oracle.ModelInfo(path)
    sets = [_inputs(info, gens, s) for s in (0, 1, 2)] + [_inputs(info, gens, 3, extreme=True)]
    assert check(path, sets) > 0


# ---- refusals: one error line, exit 1, no header ------------------------------------------

REFUSED = {
    # TFLM's LessEval has no bool case
    "less-bool": (_cmp_model("LESS", [4], [4], [4], "bool"), "bool operands"),
    # QuantizeMultiplierSmallerThanOneExp: TFLM aborts on a scale >= 1
    "greater-s8-scale-2": (_cmp_model("GREATER", [4], [4], [4], "int8", (2.0, 0), (0.5, 0)), "not in (0, 1)"),
    # TFLM's int16 GREATER uses rescaling parameters its Prepare never sets
    "greater-s16": (_cmp_model("GREATER", [4], [4], [4], "int16", (0.001, 0), (0.001, 0)), "int16 inputs"),
    # TFLM's ADD_N needs two inputs
    "add_n-1": (_addn(1, (0.05, 20), (0.04, -20)), "at least 2"),
    # TFLM's CAST has no bool output
    "cast-int8-bool": (_cast([("int8", "bool")]), "to bool is not supported"),
    # TFLM checks LOG_SOFTMAX's output quantization
    "log_softmax-out-q": (lambda m, rng, gens: m.output(m.op("LOG_SOFTMAX", [m.input([4], 0.1, 0)],
                                                              [_t(m, [4], "int8", (0.1, 0))])), "scale 16/256"),
    "gather_nd-too-deep": (lambda m, rng, gens: m.output(m.op(
        "GATHER_ND", [m.input([3, 2], 0.1, 0), m.const(np.zeros([2, 3], np.int32), "int32")],
        [_t(m, [2], "int8", (0.1, 0))])), "index depth 3"),
    "fill-vector-value": (lambda m, rng, gens: m.output(m.op(
        "FILL", [m.const(np.array([2, 2], np.int32), "int32"), m.input([2], dtype="int32")],
        [_t(m, [2, 2], "int32")])), "must be a scalar"),
    "dynamic_update_slice-too-big": (lambda m, rng, gens: m.output(m.op(
        "DYNAMIC_UPDATE_SLICE", [m.input([2, 3], 0.1, 0), m.input([3, 3], 0.1, 0),
                                 m.const(np.zeros([2], np.int32), "int32")], [_t(m, [2, 3], "int8", (0.1, 0))])),
        "does not fit"),
    "div-tiny-multiplier": (_div([4], [4], [4], (1e-9, 0), (0.9, 0), (1.0, 0)), "outside [2^-26"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_parity_refused(name, tmp_path):
    import oracle
    build, msg = REFUSED[name]
    m = tb.Model(description="htc refused " + name)
    build(m, np.random.default_rng(0), {})
    path = m.save(str(tmp_path / "r.tflite"))
    out = tmp_path / "r.h"
    p = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", out, check=False)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1 and lines[0].startswith("htc: error: "), p.stderr
    assert "operator 0 (" in lines[0] and msg in lines[0], lines[0]
    assert not out.exists()


# ---- the kernels compile warning-free for every toolchain -----------------------------------

def _all_kernels(m):
    """One model using every kernel entry point of kernels/logic.c and kernels/arith8.c."""
    a = m.input([2, 3], 0.05, -3)
    b = m.input([3], 0.04, 2)
    i32 = m.input([2, 3], dtype="int32")
    i64 = m.input([2, 3], dtype="int64")
    c = m.op("LESS", [a, b], [_t(m, [2, 3], "bool")])
    c2 = m.op("EQUAL", [i32, i32], [_t(m, [2, 3], "bool")])
    c3 = m.op("GREATER", [i64, i64], [_t(m, [2, 3], "bool")])
    c4 = m.op("NOT_EQUAL", [c, c2], [_t(m, [2, 3], "bool")])
    c5 = m.op("LOGICAL_OR", [c3, c4], [_t(m, [2, 3], "bool")])
    c6 = m.op("LOGICAL_NOT", [c5], [_t(m, [2, 3], "bool")])
    s = m.op("SELECT_V2", [c6, a, a], [_t(m, [2, 3], "int8", (0.05, -3))])
    k = m.op("CAST", [s], [_t(m, [2, 3], "float32")])
    z = m.op("ZEROS_LIKE", [i32], [_t(m, [2, 3], "int32")])
    g = m.op("GATHER_ND", [s, m.const(np.array([[1], [0]], np.int32), "int32")], [_t(m, [2, 3], "int8", (0.05, -3))])
    u = m.op("DYNAMIC_UPDATE_SLICE", [g, s, m.const(np.array([0, 0], np.int32), "int32")],
             [_t(m, [2, 3], "int8", (0.05, -3))])
    n = m.op("ADD_N", [u, g, s], [_t(m, [2, 3], "int8", (0.1, 0))])
    cs = m.op("CUMSUM", [n, m.const(np.array(1, np.int32), "int32")], [_t(m, [2, 3], "int8", (0.2, 0))])
    f = m.op("FILL", [m.const(np.array([2, 3], np.int32), "int32"), m.const(np.array(5, np.int8), "int8", 0.1, 0)],
             [_t(m, [2, 3], "int8", (0.1, 0))])
    ls = m.op("LOG_SOFTMAX", [cs], [_t(m, [2, 3], "int8", (16.0 / 256, 127))])
    for t in (k, z, ls, f):
        m.output(t)


@pytest.mark.parametrize("cc", [
    ["cc", "-std=c99", "-pedantic"],
    ["g++", "-x", "c++", "-std=c++11"],
    ["arm-none-eabi-gcc", "-std=c99", "-mcpu=cortex-m4", "-mthumb", "--specs=picolibc.specs"],
    ["riscv64-unknown-elf-gcc", "-std=c99", "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "--specs=picolibc.specs"],
])
def test_parity_header_compiles(cc, tmp_path):
    import subprocess
    import oracle
    m = tb.Model(description="htc parity kernels")
    _all_kernels(m)
    path = m.save(str(tmp_path / "k.tflite"))
    h = tmp_path / "k.h"
    oracle.htc("compile", path, "-t", oracle.TARGET, "-o", h, "--name", "k")
    src = tmp_path / "k.c"
    src.write_text('#define K_IMPLEMENTATION\n#include "k.h"\n')
    p = subprocess.run(cc + ["-O2", "-Wall", "-Wextra", "-Werror", "-c", str(src), "-o", str(tmp_path / "k.o"),
                             "-I", str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0 and not p.stderr, p.stderr[:2000]


def test_parity_all_kernels(tmp_path):
    """The same model bit-exact against TFLM (every kernel in one header)."""
    import oracle
    m = tb.Model(description="htc parity kernels")
    _all_kernels(m)
    path = m.save(str(tmp_path / "k.tflite"))
    info = oracle.ModelInfo(path)
    sets = [_inputs(info, {}, s) for s in (0, 1)] + [_inputs(info, {}, 2, extreme=True)]
    assert check(path, sets) > 0


def test_div_every_pair(tmp_path):
    """DIV on all 65536 (dividend, divisor) pairs at the fixed case and five
    random quantizations, divisor equal to its zero point included: TFLM's
    result is the exactly rounded quotient, except for small dividends where
    div.h's shifts pass 31 bits (its x86 results, reproduced)."""
    import oracle
    rng = np.random.default_rng(_seed("div every pair"))
    m = tb.Model(description="htc div every pair")
    for k in range(6):
        lsc = [float(np.float32(np.exp(rng.uniform(np.log(1e-3), np.log(hi))))) for hi in (1, 1, 4)]
        zps = [int(z) for z in rng.integers(-128, 128, 3)]
        if k == 0:
            lsc, zps = [0.05, 0.02, 0.2], [-3, 10, 0]
        a = m.input([256, 1], lsc[0], zps[0])
        b = m.input([1, 256], lsc[1], zps[1])
        m.output(m.op("DIV", [a, b], [_t(m, [256, 256], "int8", (lsc[2], zps[2]))],
                      fusedActivationFunction=tb.ACT[[None, "RELU"][k % 2]]))
    path = m.save(str(tmp_path / "div.tflite"))
    xs = [np.arange(-128, 128, dtype=np.int8).reshape(s) for s in ([256, 1], [1, 256]) * 6]
    assert check(path, [xs]) == 6


def test_indices_out_of_range(tmp_path):
    """Run-time indices outside the tensor (TFLM fails the inference or reads
    outside it): htc writes zero slices, and its checked build (--check:
    AddressSanitizer and the planned-buffer checks) reads nothing outside."""
    import oracle
    m = tb.Model(description="htc parity out of range")
    x = m.input([4, 3], 0.05, 1)
    i = m.input([3, 1], dtype="int32")
    j = m.input([3], dtype="int32")
    m.output(m.op("GATHER_ND", [x, i], [_t(m, [3, 3], "int8", (0.05, 1))]))
    m.output(m.op("GATHER", [x, j], [_t(m, [3, 3], "int8", (0.05, 1))], axis=0))
    m.output(m.op("EMBEDDING_LOOKUP", [j, x], [_t(m, [3, 3], "int8", (0.05, 1))]))
    path = m.save(str(tmp_path / "oor.tflite"))
    xv = np.arange(1, 13, dtype=np.int8).reshape(4, 3)
    idx = np.array([2, -1, 4], np.int32)
    outs, _, _ = oracle.run_htc(path, [xv, idx.reshape(3, 1), idx], args=["--check"])
    for o in outs:
        assert o[0].tolist() == xv[2].tolist() and not o[1].any() and not o[2].any(), o
