"""tests/test_onnx_ops.py - one ONNX operator per model, QOperator and QDQ
forms, int8 and uint8, against onnxruntime bit for bit on several random
inputs (edge cases: groups, depthwise multipliers, dilation, asymmetric pads,
per-channel scales, non-zero weight zero points, scalar operands, padding
counted or not, softmax axes, requantizing concat)."""
import os
import zlib
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

MS = "com.microsoft"
TY = {"u8": (TensorProto.UINT8, np.uint8, 0, 255), "s8": (TensorProto.INT8, np.int8, -128, 127)}


class B:
    """Model builder: an 8-bit input, QOperator nodes with random parameters."""

    def __init__(self, seed, qt):
        self.rng = np.random.default_rng(seed)
        self.qt = qt
        self.ot, self.np, self.lo, self.hi = TY[qt]
        self.inits, self.nodes, self.n = [], [], 0

    def name(self, b):
        self.n += 1
        return "%s%d" % (b, self.n)

    def c(self, arr, b="c"):
        n = self.name(b)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def scale(self, lo=0.005, hi=0.05):
        return self.c(np.float32(self.rng.uniform(lo, hi)), "s")

    def zp(self):
        return self.c(self.np(self.rng.integers(self.lo + 40, self.hi - 40)), "z")

    def qp(self):
        return [self.scale(), self.zp()]

    def node(self, op, ins, domain="", **attrs):
        y = self.name("y")
        self.nodes.append(helper.make_node(op, ins, [y], name=self.name("n"), domain=domain, **attrs))
        return y

    def model(self, x_shape, y, opset=13, x_type=None):
        out_type = TensorProto.FLOAT if x_type == TensorProto.FLOAT else self.ot
        g = helper.make_graph(self.nodes, "t", [helper.make_tensor_value_info("x", x_type or self.ot, x_shape)],
                              [helper.make_tensor_value_info(y, out_type, None)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
        m.ir_version = 8
        return m


def conv_case(b, cin, cout, k, group=1, stride=1, dil=1, pads=(0, 0, 0, 0), per_channel=True, wzp=False, bias=True):
    wt = np.int8 if b.qt == "s8" or not wzp else np.uint8
    wlo, whi = (-127, 127) if wt == np.int8 else (0, 255)
    w = b.c(b.rng.integers(wlo, whi + 1, size=(cout, cin // group, k, k)).astype(wt), "w")
    n = cout if per_channel else 1
    ws = b.c(b.rng.uniform(0.001, 0.01, size=n).astype(np.float32) if per_channel else np.float32(0.005), "ws")
    if wt == np.uint8:
        wz = b.c(b.rng.integers(100, 156, size=n).astype(np.uint8) if per_channel else np.uint8(128), "wz")
    else:
        wz = b.c(np.zeros(n, np.int8) if per_channel else np.int8(0), "wz")
    ins = ["x"] + b.qp() + [w, ws, wz] + [b.scale(0.02, 0.2), b.zp()]
    if bias:
        ins.append(b.c(b.rng.integers(-2000, 2000, size=cout).astype(np.int32), "b"))
    return ins, dict(group=group, strides=[stride, stride], dilations=[dil, dil], pads=list(pads),
                     kernel_shape=[k, k])


def m_conv(qt, seed, **kw):
    b = B(seed, qt)
    shape = kw.pop("shape", (1, 4, 9, 8))
    ins, attrs = conv_case(b, shape[1], kw.pop("cout"), kw.pop("k"), **kw)
    return b.model(list(shape), b.node("QLinearConv", ins, **attrs))


QOP = {
    "conv_basic": lambda qt, s: m_conv(qt, s, cout=6, k=3, pads=(1, 1, 1, 1)),
    "conv_stride_asym_pad": lambda qt, s: m_conv(qt, s, cout=5, k=3, stride=2, pads=(0, 1, 2, 1)),
    "conv_dilation": lambda qt, s: m_conv(qt, s, cout=4, k=3, dil=2, pads=(2, 2, 2, 2)),
    "conv_groups": lambda qt, s: m_conv(qt, s, cout=6, k=3, group=2, pads=(1, 1, 1, 1)),
    "conv_depthwise": lambda qt, s: m_conv(qt, s, cout=4, k=3, group=4, pads=(1, 1, 1, 1)),
    "conv_depth_mult2": lambda qt, s: m_conv(qt, s, cout=8, k=3, group=4, stride=2, pads=(1, 1, 1, 1)),
    "conv_per_tensor": lambda qt, s: m_conv(qt, s, cout=6, k=1, per_channel=False),
    "conv_wzp_nobias": lambda qt, s: m_conv(qt, s, cout=6, k=3, wzp=True, bias=False, pads=(1, 1, 1, 1)),
    "conv_wzp_dw": lambda qt, s: m_conv(qt, s, cout=4, k=3, group=4, wzp=True, pads=(1, 0, 1, 0)),
}


def m_conv_random(qt, seed):
    """A random QLinearConv geometry: channels, groups (dense, grouped,
    depthwise with multipliers), kernel, stride, dilation, asymmetric pads."""
    r = np.random.default_rng(seed)
    kind = seed % 3
    cin = int(r.choice([1, 2, 3, 5, 8, 16]))
    group = 1 if kind == 0 else (cin if kind == 2 else int(r.choice([g for g in (1, 2, 4) if cin % g == 0])))
    cout = group * int(r.integers(1, 4)) if kind else int(r.integers(1, 9))
    k = int(r.integers(1, 5))
    h, w = int(r.integers(k, 12)), int(r.integers(k, 12))
    stride, dil = int(r.integers(1, 3)), int(r.integers(1, 3))
    if (k - 1) * dil + 1 > min(h, w):
        dil = 1
    pads = tuple(int(v) for v in r.integers(0, k, size=4))
    return m_conv(qt, seed, shape=(1, cin, h, w), cout=cout, k=k, group=group, stride=stride, dil=dil, pads=pads,
                  per_channel=bool(r.integers(0, 2)), wzp=bool(r.integers(0, 2)), bias=bool(r.integers(0, 2)))


for _i in range(12):
    QOP["conv_random%d" % _i] = (lambda i: lambda qt, s: m_conv_random(qt, 1000 + i))(_i)


def _add(qt, s, op, scalar=False, vector=False):
    b = B(s, qt)
    if vector:                                  # [1, 3, 5, 7] + [3, 5, 7]: the same elements
        other = [b.c(b.rng.integers(b.lo, b.hi + 1, size=(3, 5, 7)).astype(b.np), "k")]
    elif scalar:
        other = [b.c(b.np(b.rng.integers(b.lo, b.hi + 1)), "k")]
    else:
        ci, ca = _ident_conv(b)
        other = [b.node("QLinearConv", ci, **ca)]
    ins = ["x"] + b.qp() + other + b.qp() + [b.scale(0.01, 0.08), b.zp()]
    return b.model([1, 3, 5, 7], b.node(op, ins, domain=MS))


def _ident_conv(b):
    ins, attrs = conv_case(b, 3, 3, 1)
    return ins, attrs


def _pool(qt, s, op, **attrs):
    b = B(s, qt)
    ins = ["x"] + b.qp() + [b.scale(), b.zp()]
    return b.model([1, 5, 9, 11], b.node(op, ins, domain=MS, **attrs))


def _unary(qt, s, op, shape=(2, 3, 4, 5), **attrs):
    b = B(s, qt)
    ins = ["x"] + b.qp() + [b.scale(0.002, 0.01) if op == "QLinearSigmoid" else b.scale(), b.zp()]
    return b.model(list(shape), b.node(op, ins, domain=MS, **attrs))


def _softmax(qt, s, shape, axis, opset=13):
    b = B(s, qt)
    ins = ["x"] + b.qp() + [b.c(np.float32(1 / 256.0)), b.c(b.np(0 if qt == "u8" else -128))]
    return b.model(list(shape), b.node("QLinearSoftmax", ins, domain=MS, axis=axis, opset=opset))


def _concat(qt, s):
    b = B(s, qt)
    i1, a1 = conv_case(b, 3, 2, 1)
    i2, a2 = conv_case(b, 3, 4, 3, pads=(1, 1, 1, 1))
    c1 = b.node("QLinearConv", i1, **a1)
    c2 = b.node("QLinearConv", i2, **a2)
    ys, yz = b.scale(0.02, 0.2), b.zp()
    # input 3 has the output's own parameters: copied, not requantized
    ins = [ys, yz, c1, b.scale(), b.zp(), "x", b.scale(), b.zp(), c2, ys, yz]
    return b.model([1, 3, 6, 5], b.node("QLinearConcat", ins, domain=MS, axis=1))


def _matmul(qt, s, op):
    b = B(s, qt)
    if op == "QLinearMatMul":
        w = b.c(b.rng.integers(-127, 128, size=(12, 7)).astype(np.int8 if qt == "s8" else np.uint8), "w")
        ins = ["x"] + b.qp() + [w, b.c(np.float32(0.004)), b.c((np.int8 if qt == "s8" else np.uint8)(0 if qt == "s8" else 127))]
        ins += [b.scale(0.05, 0.3), b.zp()]
        return b.model([3, 12], b.node(op, ins))
    wt = np.int8 if qt == "s8" else np.uint8
    w = b.c(b.rng.integers(0 if qt == "u8" else -127, 128, size=(7, 12)).astype(wt), "w")
    ws = b.c(b.rng.uniform(0.001, 0.01, size=7).astype(np.float32))
    wz = b.c(np.zeros(7, wt) if qt == "s8" else b.rng.integers(60, 70, size=7).astype(wt))
    bias = b.c(b.rng.integers(-3000, 3000, size=7).astype(np.int32))
    ins = ["x"] + b.qp() + [w, ws, wz, bias, b.scale(0.05, 0.3), b.zp()]
    return b.model([3, 12], b.node(op, ins, domain=MS, transB=1, alpha=0.75))


QOP.update({
    "add": lambda qt, s: _add(qt, s, "QLinearAdd"),
    "add_scalar": lambda qt, s: _add(qt, s, "QLinearAdd", True),
    "add_const_same_elems": lambda qt, s: _add(qt, s, "QLinearAdd", vector=True),
    "mul_const_same_elems": lambda qt, s: _add(qt, s, "QLinearMul", vector=True),
    "mul": lambda qt, s: _add(qt, s, "QLinearMul"),
    "mul_scalar": lambda qt, s: _add(qt, s, "QLinearMul", True),
    "avgpool": lambda qt, s: _pool(qt, s, "QLinearAveragePool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "avgpool_count_pad": lambda qt, s: _pool(qt, s, "QLinearAveragePool", kernel_shape=[3, 2], strides=[1, 2],
                                             pads=[1, 0, 1, 1], count_include_pad=1),
    "gap": lambda qt, s: _pool(qt, s, "QLinearGlobalAveragePool"),
    "sigmoid": lambda qt, s: _unary(qt, s, "QLinearSigmoid"),
    "leakyrelu": lambda qt, s: _unary(qt, s, "QLinearLeakyRelu", alpha=0.1),
    "softmax_last": lambda qt, s: _softmax(qt, s, (4, 10), -1),
    "softmax_channels": lambda qt, s: _softmax(qt, s, (1, 6, 3, 4), 1),
    "softmax_opset12": lambda qt, s: _softmax(qt, s, (2, 3, 5), 1, opset=12),
    "concat": _concat,
    "matmul": lambda qt, s: _matmul(qt, s, "QLinearMatMul"),
    "qgemm": lambda qt, s: _matmul(qt, s, "QGemm"),
})


def qdq_model(qt, seed, op, shape, attrs=None, n_in=1, weights=None, act=None, opset=13, extra=None):
    """Q(input) -> DQ -> float op -> [activation] -> Q -> DQ -> output, the
    shape onnxruntime's QDQ quantizer writes."""
    b = B(seed, qt)
    xs, xz = b.qp()
    q0 = b.node("QuantizeLinear", ["x", xs, xz])
    ins = []
    for i in range(n_in):
        if i == 0:
            src = q0
        else:                                   # a second activation from a 1x1 conv
            ci, ca = conv_case(b, shape[1], shape[1], 1)
            ci[0] = q0
            ci[1], ci[2] = xs, xz
            src = b.node("QLinearConv", ci, **ca)
            s_, z_ = ci[6], ci[7]
        s_i, z_i = (xs, xz) if i == 0 else (s_, z_)
        ins.append(b.node("DequantizeLinear", [src, s_i, z_i]))
    if weights:
        ins += weights(b)
    y = b.node(op, ins + (extra(b) if extra else []), **(attrs or {}))
    if act:
        y = b.node(act[0], [y] + [b.c(np.float32(v)) for v in act[1:]])
    ys, yz = (b.c(np.float32(1 / 256.0)), b.c(b.np(0 if qt == "u8" else -128))) if op == "Softmax" else \
        (b.scale(0.01, 0.02), b.c(b.np(b.lo))) if act else (b.scale(0.01, 0.1), b.zp())
    q = b.node("QuantizeLinear", [y, ys, yz])
    out = b.node("DequantizeLinear", [q, ys, yz])
    return b.model(list(shape), out, opset=opset, x_type=TensorProto.FLOAT)


def _w_conv(cout, cin, k, group=1):
    def f(b):
        w = b.c(b.rng.integers(-127, 128, size=(cout, cin // group, k, k)).astype(np.int8))
        ws = b.c(b.rng.uniform(0.002, 0.02, size=cout).astype(np.float32))
        wz = b.c(np.zeros(cout, np.int8))
        wd = b.node("DequantizeLinear", [w, ws, wz], axis=0)
        return [wd]
    return f


QDQ = {
    "conv_relu": dict(op="Conv", shape=(1, 4, 8, 8), weights=_w_conv(6, 4, 3),
                      attrs=dict(pads=[1, 1, 1, 1]), act=("Relu",)),
    "conv_clip6": dict(op="Conv", shape=(1, 4, 8, 8), weights=_w_conv(4, 4, 3, group=4),
                       attrs=dict(pads=[1, 1, 1, 1], group=4), act=("Clip", 0.0, 6.0)),
    "conv_clip_inside": dict(op="Conv", shape=(1, 4, 8, 8), weights=_w_conv(4, 4, 3, group=4),
                             attrs=dict(pads=[1, 1, 1, 1], group=4), act=("Clip", 0.0, 1.0)),
    "add": dict(op="Add", shape=(1, 3, 4, 5), n_in=2),
    "mul": dict(op="Mul", shape=(1, 3, 4, 5), n_in=2),
    "avgpool": dict(op="AveragePool", shape=(1, 3, 7, 7), attrs=dict(kernel_shape=[3, 3], strides=[2, 2])),
    "maxpool": dict(op="MaxPool", shape=(1, 3, 7, 7), attrs=dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    "gap": dict(op="GlobalAveragePool", shape=(1, 5, 6, 4)),
    "sigmoid": dict(op="Sigmoid", shape=(2, 50)),
    "softmax": dict(op="Softmax", shape=(3, 10), attrs=dict(axis=-1)),
    "concat": dict(op="Concat", shape=(1, 3, 4, 4), n_in=2, attrs=dict(axis=1)),
    "transpose": dict(op="Transpose", shape=(1, 3, 4, 5), attrs=dict(perm=[0, 2, 3, 1])),
    "flatten": dict(op="Flatten", shape=(1, 3, 4, 5), attrs=dict(axis=1)),
    "reshape": dict(op="Reshape", shape=(2, 3, 4), extra=lambda b: [b.c(np.array([6, -1], np.int64))]),
    "squeeze": dict(op="Squeeze", shape=(1, 3, 1, 5), extra=lambda b: [b.c(np.array([2], np.int64))]),
    "unsqueeze": dict(op="Unsqueeze", shape=(3, 5), extra=lambda b: [b.c(np.array([0, 2], np.int64))]),
    "identity": dict(op="Identity", shape=(2, 7)),   # refused: onnxruntime merges the Q/DQ pairs
    "pad": dict(op="Pad", shape=(1, 3, 4, 5), extra=lambda b: [b.c(np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64))]),
}


def ort_float_ops(path):
    """Op types of the compute nodes onnxruntime leaves in float."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.optimized_model_filepath = path + ".opt.onnx"
    ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    g = onnx.load(so.optimized_model_filepath).graph
    ops = {n.op_type for n in g.node if not n.op_type.startswith(("QLinear", "QGemm", "NhwcQLinear")) and n.op_type not in (
        "QuantizeLinear", "DequantizeLinear", "Transpose", "Reshape", "Flatten", "MaxPool")}
    return ops | {o[len("Fused"):] for o in ops if o.startswith("Fused")}


def check(model, tmp, n=4, refused_float=None):
    """htc's outputs equal onnxruntime's; or, where htc refuses a QDQ group
    because onnxruntime computes it in float, onnxruntime indeed does."""
    path = os.path.join(tmp, "model.onnx")
    onnx.save(model, path)
    sess = O.ort_session(path)
    inputs = O.random_inputs(sess, n, seed=3)
    want = O.ort_outputs(sess, inputs)
    try:
        exe = O.build(path, tmp, flags=["--no-float-fallback"])
    except O.HtcError as e:
        if "DoubleQDQPairsRemover" in str(e):
            # onnxruntime indeed merged two Q/DQ pairs into one
            import onnxruntime as ort
            so = ort.SessionOptions()
            so.log_severity_level = 3
            so.optimized_model_filepath = path + ".opt.onnx"
            ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            nq = lambda g: sum(n.op_type == "QuantizeLinear" for n in g.node)
            assert nq(onnx.load(so.optimized_model_filepath).graph) < nq(model.graph), str(e)
            return
        if "onnxruntime" in str(e) and "float" in str(e) and refused_float:
            floats = ort_float_ops(path)
            assert refused_float in floats, "htc refused (%s) but onnxruntime fused it: %s" % (e, floats)
            if refused_float not in ("Conv", "Add", "Mul"):
                return
            # --float-fallback computes the group in float: bit-exact
            exe = O.build(path, tmp, flags=["--float-fallback"])
            got, _ = O.run(exe, tmp, inputs)
            assert got == want
            return
        raise
    got, _ = O.run(exe, tmp, inputs)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g == w, "input %d: htc %s, onnxruntime %s" % (k, list(g[:16]), list(w[:16]))


@pytest.mark.parametrize("qt", ["u8", "s8"])
@pytest.mark.parametrize("name", sorted(QOP))
def test_qoperator(name, qt, tmp_path):
    check(QOP[name](qt, zlib.crc32(name.encode()) % 1000), str(tmp_path))


@pytest.mark.parametrize("qt", ["u8", "s8"])
@pytest.mark.parametrize("name", sorted(QDQ))
def test_qdq(name, qt, tmp_path):
    kw = dict(QDQ[name])
    check(qdq_model(qt, zlib.crc32(name.encode()) % 1000, **kw), str(tmp_path), refused_float=kw["op"])


# ---- --float-fallback: QDQ groups onnxruntime computes in float ----------

def fconv_model(qt, seed, cin, cout, k, hw, group=1, stride=1, dil=1, pads=(0, 0, 0, 0), per_channel=True,
                bias=True, relu=None):
    """Q(x) -> DQ -> Conv (DQ weights, DQ int32 bias whose scale is twice
    x_scale * w_scale, which onnxruntime does not fuse) -> [Clip] -> Q -> DQ."""
    b = B(seed, qt)
    xs = np.float32(b.rng.uniform(0.01, 0.05))
    xz = b.np(b.rng.integers(b.lo + 40, b.hi - 40))
    sx, zx = b.c(xs, "s"), b.c(xz, "z")
    q0 = b.node("QuantizeLinear", ["x", sx, zx])
    x = b.node("DequantizeLinear", [q0, sx, zx])
    n = cout if per_channel else 1
    ws = b.rng.uniform(0.002, 0.02, size=n).astype(np.float32)
    w = b.c(b.rng.integers(-127, 128, size=(cout, cin // group, k, k)).astype(np.int8))
    wd = b.node("DequantizeLinear", [w, b.c(ws if per_channel else ws[0]), b.c(np.zeros(n, np.int8) if per_channel else np.int8(0))],
                **({"axis": 0} if per_channel else {}))
    ins = [x, wd]
    if bias:
        bs = (np.float32(2) * (xs * ws).astype(np.float32)).astype(np.float32)
        bq = b.c(b.rng.integers(-3000, 3000, size=cout).astype(np.int32))
        ins.append(b.node("DequantizeLinear", [bq, b.c(bs if per_channel else bs[0]),
                                               b.c(np.zeros(n, np.int32) if per_channel else np.int32(0))],
                          **({"axis": 0} if per_channel else {})))
    y = b.node("Conv", ins, group=group, kernel_shape=[k, k], strides=[stride, stride], dilations=[dil, dil],
               pads=list(pads))
    if relu:
        y = b.node("Clip", [y, b.c(np.float32(relu[0])), b.c(np.float32(relu[1]))])
    ys, yz = b.scale(0.02, 0.2), b.zp()
    out = b.node("DequantizeLinear", [b.node("QuantizeLinear", [y, ys, yz]), ys, yz])
    return b.model([1, cin, hw, hw], out, x_type=TensorProto.FLOAT)


FCONV = {
    # K = 144 > 128 with N = 1024 >= K: slices of 128 and 16 taps
    "k144_pad": dict(cin=16, cout=8, k=3, hw=32, pads=(1, 1, 1, 1)),
    # N = 64 < K = 288: slices of 256 and 32
    "k288_n64": dict(cin=32, cout=16, k=3, hw=16, stride=2, pads=(1, 1, 1, 1)),
    # N = 16 < K = 576: one slice of 576 (StrideK 1024)
    "k576_n16": dict(cin=64, cout=8, k=3, hw=4, pads=(1, 1, 1, 1)),
    "pointwise": dict(cin=24, cout=12, k=1, hw=6),
    "depthwise": dict(cin=8, cout=8, k=3, hw=9, group=8, pads=(1, 1, 1, 1)),
    "depth_mult2": dict(cin=4, cout=8, k=3, hw=7, group=4, stride=2, pads=(0, 1, 2, 1)),
    "grouped_dilated": dict(cin=8, cout=6, k=3, hw=11, group=2, dil=2, pads=(2, 2, 2, 2)),
    "per_tensor": dict(cin=6, cout=5, k=3, hw=8, per_channel=False),
    "clip_inside": dict(cin=4, cout=6, k=3, hw=8, pads=(1, 1, 1, 1), relu=(0.0, 0.5)),
}


@pytest.mark.parametrize("qt", ["u8", "s8"])
@pytest.mark.parametrize("name", sorted(FCONV))
def test_float_fallback_conv(name, qt, tmp_path):
    """A Conv group onnxruntime computes in float: refused with --no-float-fallback
    (one line naming the node), bit-exact with it; onnxruntime indeed left
    it in float."""
    model = fconv_model(qt, zlib.crc32(name.encode()) % 1000, **FCONV[name])
    path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(model, path)
    assert "Conv" in ort_float_ops(path)
    p = O.htc("compile", path, "-t", O.TARGET, "-o", os.path.join(str(tmp_path), "m.h"), "--no-float-fallback",
              check=False)
    assert p.returncode == 1 and "--float-fallback" in p.stderr and "Conv" in p.stderr, p.stderr
    sess = O.ort_session(path)
    inputs = O.random_inputs(sess, 4, seed=9)
    exe = O.build(path, str(tmp_path), flags=["--float-fallback"])
    got, _ = O.run(exe, str(tmp_path), inputs)
    want = O.ort_outputs(sess, inputs)
    assert got == want
    c = os.path.join(str(tmp_path), "portable")     # without SIMD: emulated fma
    exe = O.build(path, c, flags=["--float-fallback"], cflags=["-DHTC_NO_SIMD"])
    assert O.run(exe, c, inputs)[0] == want


def shared_binary_model(qt, seed, op):
    """x -> Q -> (DQ -> Op with itself through two DQs, and a second reader
    of the quantized input): the DequantizeLinear/activation is shared, so
    onnxruntime computes the int8 group in float."""
    b = B(seed, qt)
    xs, xz = b.qp()
    q0 = b.node("QuantizeLinear", ["x", xs, xz])
    a = b.node("DequantizeLinear", [q0, xs, xz])
    ys, yz = b.qp()
    y = b.node(op, [a, a])
    q1 = b.node("QuantizeLinear", [y, ys, yz])
    # the quantized input also feeds a second output branch
    zs, zz = b.qp()
    r = b.node("QuantizeLinear", [b.node("Relu", [b.node("DequantizeLinear", [q0, xs, xz])]), zs, zz])
    out = b.node(op, [b.node("DequantizeLinear", [q1, ys, yz]), b.node("DequantizeLinear", [r, zs, zz])])
    fs, fz = b.qp()
    fin = b.node("DequantizeLinear", [b.node("QuantizeLinear", [out, fs, fz]), fs, fz])
    return b.model([2, 3, 5, 4], fin, x_type=TensorProto.FLOAT)


@pytest.mark.parametrize("qt", ["u8", "s8"])
@pytest.mark.parametrize("op", ["Add", "Mul"])
def test_float_fallback_binary(op, qt, tmp_path):
    """Add / Mul groups reading a quantized activation that another branch
    reads too: int8, onnxruntime computes them in float (htc
    --float-fallback: bit-exact); uint8, it fuses them (htc: bit-exact
    without the flag)."""
    path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(shared_binary_model(qt, 5 if op == "Add" else 6, op), path)
    assert (op in ort_float_ops(path)) == (qt == "s8")
    sess = O.ort_session(path)
    inputs = O.random_inputs(sess, 4, seed=4)
    exe = O.build(path, str(tmp_path), flags=["--float-fallback"] if qt == "s8" else [])
    got, _ = O.run(exe, str(tmp_path), inputs)
    assert got == O.ort_outputs(sess, inputs)


def test_float_fallback_unsupported(tmp_path):
    """A float group the fallback does not reproduce (GlobalAveragePool
    reading an int8 activation shared by two nodes): one line naming the
    node and what is reproduced."""
    b = B(3, "s8")
    xs, xz = b.qp()
    q0 = b.node("QuantizeLinear", ["x", xs, xz])
    a = b.node("DequantizeLinear", [q0, xs, xz])
    ys, yz = b.qp()
    p1 = b.node("QuantizeLinear", [b.node("GlobalAveragePool", [a]), ys, yz])
    p2 = b.node("QuantizeLinear", [b.node("GlobalAveragePool", [b.node("Relu", [a])]), ys, yz])
    out = b.node("Add", [b.node("DequantizeLinear", [p1, ys, yz]), b.node("DequantizeLinear", [p2, ys, yz])])
    fs, fz = b.qp()
    fin = b.node("DequantizeLinear", [b.node("QuantizeLinear", [out, fs, fz]), fs, fz])
    path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(b.model([1, 3, 6, 6], fin, x_type=TensorProto.FLOAT), path)
    assert "GlobalAveragePool" in ort_float_ops(path)
    p = O.htc("compile", path, "-t", O.TARGET, "-o", os.path.join(str(tmp_path), "m.h"), "--float-fallback",
              check=False)
    line = p.stderr.strip().splitlines()[-1]
    assert p.returncode == 1 and "GlobalAveragePool" in line and "--float-fallback reproduces Conv, Add, Mul, " in line, \
        p.stderr
    assert not os.path.exists(os.path.join(str(tmp_path), "m.h"))


def softmax_group(path, depth, x_scale, x_zp, opset=13, shape=None, axis=-1):
    """x uint8 -> DequantizeLinear -> Softmax -> QuantizeLinear int8 (1/256,
    -128): the types differ, so onnxruntime computes the Softmax in float
    (as in the tf2onnx MLPerf Tiny models)."""
    f = numpy_helper.from_array
    inits = [f(np.float32(x_scale), "xs"), f(np.uint8(x_zp), "xz"), f(np.float32(1 / 256.0), "ys"), f(np.int8(-128), "yz")]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xd"]),
             helper.make_node("Softmax", ["xd"], ["s"], name="softmax", axis=axis),
             helper.make_node("QuantizeLinear", ["s", "ys", "yz"], ["y"])]
    shape = shape or [1, depth]
    g = helper.make_graph(nodes, "sm", [helper.make_tensor_value_info("x", TensorProto.UINT8, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.INT8, shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, path)


@pytest.mark.parametrize("depth,x_scale", [(2, 0.2), (10, 0.05), (10, 0.7), (12, 0.2), (16, 0.3), (17, 0.2),
                                           (40, 0.1), (100, 0.7)])
def test_float_fallback_softmax(depth, x_scale, tmp_path):
    """A Softmax group onnxruntime computes in float: refused with --no-float-fallback (not the
    flag, and with it MLAS's softmax (exp polynomial by fused multiply-adds,
    the sum in eight lanes, times 1 / sum) then QuantizeLinear, bit-exact on
    200 rows, with the AVX2 build and the portable one. Rows up to 16 give
    the same bits with onnxruntime's AVX-512 kernel (README)."""
    path = os.path.join(str(tmp_path), "model.onnx")
    softmax_group(path, depth, x_scale, 100 + depth)
    assert "Softmax" in ort_float_ops(path)
    refused = os.path.join(str(tmp_path), "refused.h")
    p = O.htc("compile", path, "-t", O.TARGET, "-o", refused, "--no-float-fallback", check=False)
    assert p.returncode == 1 and "Softmax" in p.stderr and "--float-fallback" in p.stderr, p.stderr
    assert not os.path.exists(refused)
    sess = O.ort_session(path)
    inputs = O.random_inputs(sess, 200, seed=depth)
    want = O.ort_outputs(sess, inputs)
    assert len(set(want)) > 20          # not one answer for every input
    exe = O.build(path, str(tmp_path), flags=["--float-fallback"])
    assert O.run(exe, str(tmp_path), inputs)[0] == want
    c = os.path.join(str(tmp_path), "portable")
    exe = O.build(path, c, flags=["--float-fallback"], cflags=["-DHTC_NO_SIMD"])
    assert O.run(exe, c, inputs)[0] == want


@pytest.mark.parametrize("opset,shape,axis", [(13, [2, 3, 6], -1), (13, [1, 5, 2, 3], 1), (11, [2, 3, 4], 1)])
def test_float_fallback_softmax_axes(opset, shape, axis, tmp_path):
    """Float Softmax over the last axis of a batch, over NCHW channels, and
    opset 11's flattening from an axis."""
    path = os.path.join(str(tmp_path), "model.onnx")
    softmax_group(path, 0, 0.3, 120, opset=opset, shape=shape, axis=axis)
    assert "Softmax" in ort_float_ops(path)
    sess = O.ort_session(path)
    inputs = O.random_inputs(sess, 20, seed=opset)
    exe = O.build(path, str(tmp_path), flags=["--float-fallback"])
    assert O.run(exe, str(tmp_path), inputs)[0] == O.ort_outputs(sess, inputs)


def test_qlinearsoftmax_saturates(tmp_path):
    """int8 QLinearSoftmax whose largest probability rounds to 256 / 256:
    onnxruntime 1.31 saturates it to 127 (y_scale 1/256, zero point -128)."""
    f = numpy_helper.from_array
    inits = [f(np.float32(0.2), "xs"), f(np.int8(0), "xz"), f(np.float32(1 / 256.0), "ys"), f(np.int8(-128), "yz")]
    node = helper.make_node("QLinearSoftmax", ["x", "xs", "xz", "ys", "yz"], ["y"], domain=MS, axis=-1, opset=13)
    g = helper.make_graph([node], "q", [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 6])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(m, path)
    sess = O.ort_session(path)
    rng = np.random.default_rng(2)
    inputs = [[np.array([[100, -100, 0, -50, 3, -128]], np.int8)]]
    inputs += [[rng.integers(-128, 128, (1, 6)).astype(np.int8)] for _ in range(50)]
    want = O.ort_outputs(sess, inputs)
    assert np.frombuffer(want[0], np.int8)[0] == 127
    exe = O.build(path, str(tmp_path))
    assert O.run(exe, str(tmp_path), inputs)[0] == want


def test_qlinearadd_fixed_part(tmp_path):
    """QLinearAdd's constant term zpC - (ra * zpA + rb * zpB) as onnxruntime's
    x86-64 build computes it, zpC - fma(ra, zpA, rb * zpB): on these
    parameters (ResNet-8's last residual Add converted by tf2onnx) A = 178,
    B = 124 gives 4.4999971, 4, where the two products rounded separately
    give 4.5000277, 5."""
    f = numpy_helper.from_array
    inits = [f(np.float32(0.08385830372571945), "as"), f(np.uint8(166), "az"),
             f(np.float32(0.21724364161491394), "bs"), f(np.uint8(126), "bz"),
             f(np.float32(0.1270691454410553), "cs"), f(np.uint8(0), "cz")]
    node = helper.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], ["c"], domain=MS)
    g = helper.make_graph([node], "q", [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, 64]),
                                        helper.make_tensor_value_info("b", TensorProto.UINT8, [1, 64])],
                          [helper.make_tensor_value_info("c", TensorProto.UINT8, [1, 64])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(m, path)
    sess = O.ort_session(path)
    rng = np.random.default_rng(4)
    inputs = [[np.full((1, 64), 178, np.uint8), np.full((1, 64), 124, np.uint8)]]
    inputs += [[rng.integers(0, 256, (1, 64)).astype(np.uint8) for _ in range(2)] for _ in range(30)]
    want = O.ort_outputs(sess, inputs)
    assert set(want[0]) == {4}
    exe = O.build(path, str(tmp_path))
    assert O.run(exe, str(tmp_path), inputs)[0] == want
    c = os.path.join(str(tmp_path), "portable")
    exe = O.build(path, c, cflags=["-DHTC_NO_SIMD"])
    assert O.run(exe, c, inputs)[0] == want
