#!/usr/bin/env python3
"""tests/zoo/zoo.py - the ONNX model zoo: float MLPerf Tiny topologies built
with onnx.helper (deterministic weights), quantized with
onnxruntime.quantization.quantize_static calibrated on random data, written
as int8/uint8 QDQ and QOperator models, plus a power-of-two variant (every
scale an exact power of two) and a ternary-weight variant.

    python tests/zoo/zoo.py [OUTDIR]        (default: build/zoo)

Writes OUTDIR/<net>_float.onnx and OUTDIR/<net>_<form>_<type>.onnx for
net in kws vww resnet ad, form in qdq qop, type in s8 u8, and the int8
variants <net>_pow2{qdq,qop}_s8.onnx, <net>_qdq2qop_<type>.onnx (the QDQ
model converted to QOperator form, same integers), <net>_ternary{qdq,qop}_s8.onnx
and <net>_mixed{qdq,qop}_s8.onnx (ternary but the first and last layer): the
QOperator one is converted from the QDQ one (qdq_to_qop), same integers.
Their int32 biases are requantized to x_scale * w_scale, so onnxruntime
fuses their QDQ groups as it does the plain int8 ones (ResNet-8's residual
branches stay float in every int8 QDQ form). On purpose it does not in
<net>_pow2qdq_stalebias_s8.onnx and <net>_ternaryqdq_stalebias_s8.onnx
(net in STALE): a quantizer that rescaled weights without their biases,
whose Convs onnxruntime leaves in float (for --float-fallback's tests).
Re-running with the same versions of onnx/onnxruntime gives the same files.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


class Net:
    """A tiny NCHW graph builder: conv/dw/relu/add/pool/gemm with folded BN."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.n = 0

    def uid(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def const(self, base, arr):
        name = self.uid(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name))
        return name

    def conv(self, x, cin, cout, k, stride=1, group=1, relu=True, ternary=False):
        kh, kw = (k, k) if isinstance(k, int) else k
        fan = cin // group * kh * kw
        w = self.rng.normal(0, np.sqrt(2.0 / fan), size=(cout, cin // group, kh, kw)).astype(np.float32)
        if ternary:
            alpha = np.abs(w).mean(axis=(1, 2, 3), keepdims=True)
            t = np.where(w > 0.7 * alpha, 1.0, np.where(w < -0.7 * alpha, -1.0, 0.0))
            w = (t * alpha).astype(np.float32)
        b = self.rng.normal(0, 0.1, size=(cout,)).astype(np.float32)
        y = self.uid("conv")
        pads = [(kh - 1) // 2, (kw - 1) // 2, kh - 1 - (kh - 1) // 2, kw - 1 - (kw - 1) // 2]
        if stride > 1:   # TF "SAME": extra padding at the end
            pads = [(kh - 1) // 2, (kw - 1) // 2, (kh - 1) - (kh - 1) // 2, (kw - 1) - (kw - 1) // 2]
        self.nodes.append(helper.make_node("Conv", [x, self.const("w", w), self.const("b", b)], [y], name=y,
                                           kernel_shape=[kh, kw], strides=[stride, stride], pads=pads, group=group))
        return self.relu(y) if relu else y

    def relu(self, x):
        y = self.uid("relu")
        self.nodes.append(helper.make_node("Relu", [x], [y], name=y))
        return y

    def add(self, a, b):
        y = self.uid("add")
        self.nodes.append(helper.make_node("Add", [a, b], [y], name=y))
        return y

    def gap(self, x):
        y = self.uid("gap")
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], [y], name=y))
        f = self.uid("flatten")
        self.nodes.append(helper.make_node("Flatten", [y], [f], name=f, axis=1))
        return f

    def maxpool(self, x, k, s):
        y = self.uid("maxpool")
        self.nodes.append(helper.make_node("MaxPool", [x], [y], name=y, kernel_shape=[k, k], strides=[s, s]))
        return y

    def gemm(self, x, nin, nout, relu=False, ternary=False):
        w = self.rng.normal(0, np.sqrt(2.0 / nin), size=(nout, nin)).astype(np.float32)
        if ternary:
            alpha = np.abs(w).mean(axis=1, keepdims=True)
            t = np.where(w > 0.7 * alpha, 1.0, np.where(w < -0.7 * alpha, -1.0, 0.0))
            w = (t * alpha).astype(np.float32)
        b = self.rng.normal(0, 0.1, size=(nout,)).astype(np.float32)
        y = self.uid("gemm")
        self.nodes.append(helper.make_node("Gemm", [x, self.const("w", w), self.const("b", b)], [y], name=y, transB=1))
        return self.relu(y) if relu else y

    def softmax(self, x):
        y = self.uid("softmax")
        self.nodes.append(helper.make_node("Softmax", [x], [y], name=y, axis=-1))
        return y

    def model(self, inp, shape, out):
        g = helper.make_graph(self.nodes, self.name,
                              [helper.make_tensor_value_info(inp, TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="htc-zoo")
        m.ir_version = 8
        m = onnx.shape_inference.infer_shapes(m)
        onnx.checker.check_model(m)
        return m


# t: False (float weights), True (ternary), "mixed" (the first and last layer
# float, ternary elsewhere)
def kws(t=False):
    """DS-CNN (MLPerf Tiny KWS): 49x10 MFCC, 64 channels, 4 DS blocks, 12 classes."""
    n = Net("kws", 1)
    x = n.conv("input", 1, 64, (10, 4), stride=2, ternary=t is True)
    for _ in range(4):
        x = n.conv(x, 64, 64, 3, group=64, ternary=bool(t))
        x = n.conv(x, 64, 64, 1, ternary=bool(t))
    x = n.softmax(n.gemm(n.gap(x), 64, 12, ternary=t is True))
    return n.model("input", [1, 1, 49, 10], x)


def vww(t=False):
    """MobileNetV1 alpha 0.25 (MLPerf Tiny VWW), 96x96x3, 2 classes."""
    n = Net("vww", 2)
    x = n.conv("input", 3, 8, 3, stride=2, ternary=t is True)
    cfg = [(8, 16, 1), (16, 32, 2), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 128, 2),
           (128, 128, 1), (128, 128, 1), (128, 128, 1), (128, 128, 1), (128, 128, 1), (128, 256, 2), (256, 256, 1)]
    for cin, cout, s in cfg:
        x = n.conv(x, cin, cin, 3, stride=s, group=cin, ternary=bool(t))
        x = n.conv(x, cin, cout, 1, ternary=bool(t))
    x = n.softmax(n.gemm(n.gap(x), 256, 2, ternary=t is True))
    return n.model("input", [1, 3, 96, 96], x)


def resnet(t=False):
    """ResNet-8 (MLPerf Tiny IC), 32x32x3 CIFAR-10, 10 classes."""
    n = Net("resnet", 3)
    x = n.conv("input", 3, 16, 3, ternary=t is True)
    cin = 16
    for cout, s in ((16, 1), (32, 2), (64, 2)):
        y = n.conv(x, cin, cout, 3, stride=s, ternary=bool(t))
        y = n.conv(y, cout, cout, 3, relu=False, ternary=bool(t))
        sc = x if (s == 1 and cin == cout) else n.conv(x, cin, cout, 1, stride=s, relu=False, ternary=bool(t))
        x = n.relu(n.add(y, sc))
        cin = cout
    x = n.softmax(n.gemm(n.gap(x), 64, 10, ternary=t is True))
    return n.model("input", [1, 3, 32, 32], x)


def ad(t=False):
    """FC autoencoder (MLPerf Tiny AD): 640 -> 128 x4 -> 8 -> 128 x4 -> 640."""
    n = Net("ad", 4)
    x, d = "input", 640
    for i, w in enumerate((128, 128, 128, 128, 8, 128, 128, 128, 128)):
        x = n.gemm(x, d, w, relu=True, ternary=bool(t) and (t is True or i > 0))
        d = w
    x = n.gemm(x, d, 640, ternary=t is True)
    return n.model("input", [1, 640], x)


NETS = {"kws": kws, "vww": vww, "resnet": resnet, "ad": ad}


class Reader:
    def __init__(self, model, n=16, seed=7):
        inp = model.graph.input[0]
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        rng = np.random.default_rng(seed)
        self.data = iter([{inp.name: rng.normal(0, 1, size=shape).astype(np.float32)} for _ in range(n)])

    def get_next(self):
        return next(self.data, None)


def quantize(fmodel, path, fmt, qtype, per_channel=True):
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    src = path + ".float.onnx"
    onnx.save(fmodel, src)
    quantize_static(src, path, Reader(fmodel),
                    quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
                    activation_type=QuantType.QInt8 if qtype == "s8" else QuantType.QUInt8,
                    weight_type=QuantType.QInt8 if qtype == "s8" else QuantType.QUInt8,
                    per_channel=per_channel,
                    extra_options={"ActivationSymmetric": False, "WeightSymmetric": qtype == "s8",
                                   "DedicatedQDQPair": True})
    os.remove(src)


def _pow2(s):
    return np.float32(2.0 ** np.round(np.log2(np.asarray(s, dtype=np.float64))))


def rescale(path, out, weights=None, bias="rescale"):
    """Rewrite a QDQ model: every scale to the nearest power of two (weights
    requantized to their new scale), or with `weights="ternary"` every weight
    to {-1, 0, 1} times a per-channel power-of-two scale (`"mixed"`: all but
    the first and last Conv/Gemm's, which stay 8-bit); int32 biases are
    requantized to scale x_scale * w_scale so ORT still fuses the pattern.
    `bias="stale"` on purpose does not: a quantizer that rescaled weights
    without their biases (the int32 biases keep their integers, their scale
    is only rounded to a power of two on its own), so a Conv's bias scale
    is in general not x_scale * w_scale and onnxruntime leaves these Convs
    in float (its Gemms it fuses all the same, as the zoo's AD shows)."""
    assert bias in ("rescale", "stale"), bias
    m = onnx.load(path)
    inits = {i.name: i for i in m.graph.initializer}
    arr = {k: numpy_helper.to_array(v) for k, v in inits.items()}
    dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear"]
    prod = {o: n for n in m.graph.node for o in n.output}
    lin = [n for n in m.graph.node if n.op_type in ("Conv", "Gemm")]
    keep8 = {prod[n.input[1]].input[0] for n in (lin[0], lin[-1])} if weights == "mixed" else set()
    real = {}
    for n in dq:                                   # float value of every quantized constant
        if n.input[0] in arr:
            q, s = arr[n.input[0]].astype(np.float64), arr[n.input[1]].astype(np.float64)
            z = arr[n.input[2]].astype(np.float64) if len(n.input) > 2 and n.input[2] else 0.0
            ax = next((a.i for a in n.attribute if a.name == "axis"), 1)
            if s.ndim == 1 and q.ndim > 1:
                sh = [1] * q.ndim
                sh[ax] = -1
                s, z = s.reshape(sh), (z.reshape(sh) if np.ndim(z) else z)
            real[n.input[0]] = (q - z) * s
    newscale = {}
    for name, a in arr.items():                    # activation and weight scales
        if a.dtype == np.float32 and name.endswith("_scale"):
            newscale[name] = _pow2(a)
    # weights: requantize their real values with the new scale (ternary: sign)
    for n in dq:
        w = n.input[0]
        if w not in arr or arr[w].dtype == np.int32:
            continue
        s = newscale[n.input[1]]
        q = arr[w]
        ax = next((a.i for a in n.attribute if a.name == "axis"), 1)
        sh = [1] * q.ndim
        if s.ndim == 1 and q.ndim > 1:
            sh[ax] = -1
        z = arr[n.input[2]] if len(n.input) > 2 and n.input[2] else np.zeros_like(s, dtype=q.dtype)
        r = real[w]
        if weights in ("ternary", "mixed") and w not in keep8:
            t = np.sign(r)
            mag = np.abs(r).max(axis=tuple(i for i in range(r.ndim) if i != ax), keepdims=True) if s.ndim == 1 and q.ndim > 1 else np.abs(r).max()
            s = _pow2(np.maximum(np.asarray(mag).reshape(s.shape), 1e-12))
            newscale[n.input[1]] = s
            qn = t + np.asarray(z).reshape(sh if np.ndim(z) else ())
        else:
            qn = np.round(r / s.reshape(sh if s.ndim else ())) + np.asarray(z).reshape(sh if np.ndim(z) else ())
        info = np.iinfo(q.dtype)
        arr[w] = np.clip(qn, info.min, info.max).astype(q.dtype)
    # biases: scale = x_scale * w_scale of the consumer
    for n in m.graph.node:
        if bias == "stale" or n.op_type not in ("Conv", "Gemm") or len(n.input) < 3:
            continue
        xdq, wdq, bdq = (prod.get(i) for i in n.input[:3])
        if not (bdq and xdq and wdq) or bdq.input[0] not in arr:
            continue
        sb = newscale[xdq.input[1]] * newscale[wdq.input[1]]
        arr[bdq.input[0]] = np.round(real[bdq.input[0]].reshape(-1) / sb).astype(np.int32)
        newscale[bdq.input[1]] = sb.astype(np.float32)
    for name, a in newscale.items():
        arr[name] = a.astype(np.float32)
    for name, init in inits.items():
        init.CopyFrom(numpy_helper.from_array(arr[name], name))
    onnx.save(m, out)


def qdq_to_qop(path, out):
    """The QOperator form of a QDQ model with the same integers: every
    DequantizeLinear -> float op -> QuantizeLinear group of the zoo's
    topologies becomes QLinearConv / QGemm / QLinearAdd /
    QLinearGlobalAveragePool; Flatten runs on the integers."""
    m = onnx.load(path)
    g = m.graph
    # duplicated QuantizeLinear nodes (DedicatedQDQPair) become one
    first, rename = {}, {}
    for n in g.node:
        if n.op_type == "QuantizeLinear":
            key = tuple(n.input)
            if key in first:
                rename[n.output[0]] = first[key]
            else:
                first[key] = n.output[0]
    keep = [n for n in g.node if not (n.op_type == "QuantizeLinear" and n.output[0] in rename)]
    for n in keep:
        for k, i in enumerate(n.input):
            if i in rename:
                n.input[k] = rename[i]
    del g.node[:]
    g.node.extend(keep)
    prod = {o: n for n in g.node for o in n.output}
    cons = {}
    for n in g.node:
        for i in n.input:
            cons.setdefault(i, []).append(n)
    nodes, done = [], set()

    def dq_in(name):
        d = prod[name]
        assert d.op_type == "DequantizeLinear", name
        return list(d.input) + ([""] * (3 - len(d.input)))

    for n in g.node:
        if n.name in done:
            continue
        if n.op_type in ("DequantizeLinear", "QuantizeLinear"):
            if n.op_type == "QuantizeLinear" and n.input[0] in prod and prod[n.input[0]].op_type not in ("DequantizeLinear",):
                continue            # written with its float op
            if n.op_type == "DequantizeLinear" and all(c.op_type != "QuantizeLinear" for c in cons.get(n.output[0], [])) \
                    and n.output[0] not in [o.name for o in g.output]:
                continue            # read by a float op
            nodes.append(n)
            continue
        if n.op_type in ("Conv", "Gemm", "Add", "GlobalAveragePool", "Flatten", "Softmax"):
            q = cons[n.output[0]][0] if n.op_type != "Flatten" else None
            if n.op_type == "Flatten":
                # on the integers: the QuantizeLinear after it has the same parameters
                x = dq_in(n.input[0])
                q = cons[n.output[0]][0]
                assert q.op_type == "QuantizeLinear" and list(q.input[1:]) == x[1:len(q.input)], n.name
                done.add(q.name)
                nodes.append(helper.make_node("Flatten", [x[0]], [q.output[0]], name=n.name, axis=1))
                continue
            y = [q.output[0], q.input[1], q.input[2]]
            done.add(q.name)
            if n.op_type == "Conv":
                x, w = dq_in(n.input[0]), dq_in(n.input[1])
                ins = [x[0], x[1], x[2], w[0], w[1], w[2], y[1], y[2]] + ([dq_in(n.input[2])[0]] if len(n.input) > 2 else [])
                nodes.append(helper.make_node("QLinearConv", ins, [y[0]], name=n.name,
                                              **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
            elif n.op_type == "Gemm":
                x, w = dq_in(n.input[0]), dq_in(n.input[1])
                ins = [x[0], x[1], x[2], w[0], w[1], w[2], dq_in(n.input[2])[0] if len(n.input) > 2 else "", y[1], y[2]]
                nodes.append(helper.make_node("QGemm", ins, [y[0]], name=n.name, domain="com.microsoft",
                                              **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
            elif n.op_type == "Add":
                a, b = dq_in(n.input[0]), dq_in(n.input[1])
                nodes.append(helper.make_node("QLinearAdd", [a[0], a[1], a[2], b[0], b[1], b[2], y[1], y[2]], [y[0]],
                                              name=n.name, domain="com.microsoft"))
            elif n.op_type == "Softmax":
                x = dq_in(n.input[0])
                axis = next((a.i for a in n.attribute if a.name == "axis"), -1)
                nodes.append(helper.make_node("QLinearSoftmax", [x[0], x[1], x[2], y[1], y[2]], [y[0]],
                                              name=n.name, domain="com.microsoft", axis=axis, opset=OPSET))
            else:
                x = dq_in(n.input[0])
                nodes.append(helper.make_node("QLinearGlobalAveragePool", [x[0], x[1], x[2], y[1], y[2]], [y[0]],
                                              name=n.name, domain="com.microsoft", channels_last=0))
            continue
        raise ValueError("qdq_to_qop: %s" % n.op_type)
    # drop DequantizeLinear nodes whose output nobody reads any more
    used = {i for n in nodes for i in n.input} | {o.name for o in g.output}
    nodes = [n for n in nodes if n.op_type != "DequantizeLinear" or n.output[0] in used]
    used = {i for n in nodes for i in n.input}
    inits = [i for i in g.initializer if i.name in used]
    ng = helper.make_graph(nodes, g.name, list(g.input), list(g.output), inits)
    nm = helper.make_model(ng, opset_imports=list(m.opset_import) + [helper.make_opsetid("com.microsoft", 1)],
                           producer_name="htc-zoo")
    nm.ir_version = m.ir_version
    onnx.save(nm, out)


# the nets with stale-bias variants (their Convs left in float by onnxruntime,
# for --float-fallback's tests; ResNet-8's QDQ forms have float groups
# anyway, and AD's Gemms are fused either way)
STALE = ("kws", "vww")


def build(outdir, nets=None):
    os.makedirs(outdir, exist_ok=True)
    written = []
    for net, fn in NETS.items():
        if nets and net not in nets:
            continue
        fm = fn()
        onnx.save(fm, os.path.join(outdir, "%s_float.onnx" % net))
        for fmt in ("qdq", "qop"):
            for qt in ("s8", "u8"):
                p = os.path.join(outdir, "%s_%s_%s.onnx" % (net, fmt, qt))
                quantize(fm, p, fmt, qt)
                written.append(p)
                if fmt == "qdq":        # the same integers in QOperator form
                    qdq_to_qop(p, p.replace("_qdq_", "_qdq2qop_"))
                    written.append(p.replace("_qdq_", "_qdq2qop_"))
        base = os.path.join(outdir, "%s_qdq_s8.onnx" % net)
        p = os.path.join(outdir, "%s_pow2qdq_s8.onnx" % net)
        rescale(base, p)
        qdq_to_qop(p, p.replace("pow2qdq", "pow2qop"))
        written += [p, p.replace("pow2qdq", "pow2qop")]
        if net in STALE:
            rescale(base, p[:-len("_s8.onnx")] + "_stalebias_s8.onnx", bias="stale")
            written.append(p[:-len("_s8.onnx")] + "_stalebias_s8.onnx")
        tp = os.path.join(outdir, "%s_tfloat.onnx" % net)
        quantize(fn(t=True), tp, "qdq", "s8")
        p = os.path.join(outdir, "%s_ternaryqdq_s8.onnx" % net)
        rescale(tp, p, weights="ternary")
        qdq_to_qop(p, p.replace("ternaryqdq", "ternaryqop"))
        if net in STALE:
            rescale(tp, p[:-len("_s8.onnx")] + "_stalebias_s8.onnx", weights="ternary", bias="stale")
            written.append(p[:-len("_s8.onnx")] + "_stalebias_s8.onnx")
        os.remove(tp)
        written += [p, p.replace("ternaryqdq", "ternaryqop")]
        mp = os.path.join(outdir, "%s_mfloat.onnx" % net)
        quantize(fn(t="mixed"), mp, "qdq", "s8")
        p = os.path.join(outdir, "%s_mixedqdq_s8.onnx" % net)
        rescale(mp, p, weights="mixed")
        qdq_to_qop(p, p.replace("mixedqdq", "mixedqop"))
        os.remove(mp)
        written += [p, p.replace("mixedqdq", "mixedqop")]
    return written


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "build", "zoo")
    for p in build(out, sys.argv[2:]):
        print(p)
