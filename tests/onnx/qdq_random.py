#!/usr/bin/env python3
"""tests/onnx/qdq_random.py - random QDQ graphs, htc against onnxruntime.

Each seed builds a small QDQ model with onnx.helper from the operators htc
accepts, in the patterns tf2onnx and onnxruntime.quantization write
(Conv -> Relu/Clip -> Q, depthwise and grouped Conv, AveragePool and
GlobalAveragePool in QDQ, Gemm with an int32 bias, MatMul, MatMul + Add of a
dequantized bias, Add/Mul of two activations or a constant, Softmax,
Sigmoid, LeakyRelu, Concat, MaxPool, Pad, Reshape/Flatten/Transpose between
Q and DQ or between DQ and the next op, branches that share a quantized
activation, per-channel and per-tensor weights, int8 and uint8, graph inputs
of either type or float, calibrated and random scales and zero points).
onnxruntime runs it at its default optimisation level on one thread; htc
must give the same bytes on every input, or refuse with one line (then
--float-fallback must give the same bytes or refuse with one line).

    qdq_random.py FIRST LAST [--save DIR] [--ff]   seeds FIRST..LAST, summary
    qdq_random.py SEED --keep DIR                   one seed, files kept

Used by tests/test_qdq_random.py with fixed seeds."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_oracle as O  # noqa: E402

U8, S8 = TensorProto.UINT8, TensorProto.INT8
QRANGE = {U8: (0, 255), S8: (-128, 127)}
NPT = {U8: np.uint8, S8: np.int8, TensorProto.FLOAT: np.float32}


class QV:
    """A quantized activation: its name, NCHW shape, type, scale and zero point."""

    def __init__(self, name, shape, t, s, z):
        self.name, self.shape, self.t, self.s, self.z = name, list(shape), t, np.float32(s), int(z)


class Builder:
    def __init__(self, seed):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0
        self.inputs, self.outputs = [], []
        self.calib = []          # input arrays for calibration
        self.dq_cache = {}       # shared DequantizeLinear per quantized value
        self.share_dq = self.rng.random() < 0.3
        self.desc = []

    # ---- small helpers ---------------------------------------------------------
    def uid(self, base):
        self.n += 1
        return "%s%d" % (base, self.n)

    def init(self, base, arr):
        name = self.uid(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(self, op, ins, outs=None, **attrs):
        outs = outs or [self.uid(op.lower() + "_")]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.uid("n_" + op + "_"), **attrs))
        return outs[0]

    def pick(self, *xs):
        return xs[int(self.rng.integers(len(xs)))]

    def chance(self, p):
        return self.rng.random() < p

    # ---- quantization ------------------------------------------------------------
    def qparams(self, lo, hi, t, relu=False):
        """Scale and zero point covering [lo, hi] (usually), sometimes odd."""
        qmin, qmax = QRANGE[t]
        lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
        if hi - lo < 1e-6:
            hi = lo + 1.0
        r = self.rng.random()
        if r < 0.12:       # symmetric
            s = max(abs(lo), abs(hi)) / (127.0 if t == S8 else 127.5)
            z = 0 if t == S8 else 128
        elif relu and r < 0.5:   # zero point at qmin: the Relu is redundant
            s = hi / (qmax - qmin)
            z = qmin
        else:
            s = (hi - lo) / (qmax - qmin)
            z = int(np.clip(round(qmin - lo / s), qmin, qmax))
        s *= float(self.rng.choice([1.0, 1.0, 0.7, 1.3, 0.25, 3.0]))
        if self.chance(0.05):
            s = 2.0 ** round(np.log2(s))              # power of two
        return np.float32(max(s, 1e-8)), z

    def zp_init(self, t, z):
        return self.init("zp", np.array(z, dtype=NPT[t]))

    def quantize(self, fname, shape, t=None, relu=False, lohi=None):
        """QuantizeLinear of float value fname, parameters from calibration."""
        t = t if t is not None else self.act_t
        lo, hi = lohi if lohi is not None else self.range_of(fname)
        s, z = self.qparams(lo, hi, t, relu)
        ins = [fname, self.init("s", np.float32(s))]
        if t == S8 or z != 0 or self.chance(0.7):
            ins.append(self.zp_init(t, z))
        y = self.node("QuantizeLinear", ins)
        return QV(y, shape, t, s, z)

    def dq(self, v, share_ok=True):
        """A DequantizeLinear of v (shared between consumers when share_dq)."""
        if self.share_dq and share_ok and v.name in self.dq_cache:
            return self.dq_cache[v.name]
        ins = [v.name, self.init("s", np.float32(v.s))]
        if v.t == S8 or v.z != 0 or self.chance(0.7):
            ins.append(self.zp_init(v.t, v.z))
        y = self.node("DequantizeLinear", ins)
        self.dq_cache[v.name] = y
        return y

    def const_dq(self, arr, t, axis=None, per_channel=False):
        """A float constant quantized to t (per tensor or along axis) and its
        DequantizeLinear."""
        qmin, qmax = QRANGE[t]
        if per_channel:
            m = np.max(np.abs(arr), axis=tuple(i for i in range(arr.ndim) if i != axis)) + 1e-6
            s = (m / 127.0).astype(np.float32)
            z = np.zeros(s.shape, NPT[t]) if t == S8 else np.full(s.shape, 128, np.uint8)
            shp = [1] * arr.ndim
            shp[axis] = -1
            q = np.clip(np.round(arr / s.reshape(shp)) + z.astype(np.int32).reshape(shp), qmin, qmax).astype(NPT[t])
        else:
            m = float(np.max(np.abs(arr))) + 1e-6
            s = np.float32(m / 127.0)
            z = np.array(0 if t == S8 else int(self.rng.integers(100, 156)), NPT[t])
            q = np.clip(np.round(arr / s) + int(z), qmin, qmax).astype(NPT[t])
        ins = [self.init("w", q), self.init("ws", s), self.init("wz", z)]
        attrs = {"axis": axis} if per_channel and axis != 1 else {}
        return self.node("DequantizeLinear", ins, **attrs), s

    def bias_dq(self, b, xs, ws):
        """int32 bias with scale x_scale * w_scale (float product), as the
        quantizers write it; rarely a scale that is not exactly that."""
        bs = (np.float32(xs) * np.asarray(ws, np.float32)).astype(np.float32)
        if self.chance(0.08):
            bs = (bs * np.float32(1.0000001)).astype(np.float32)
        q = np.clip(np.round(b / bs), -2**31, 2**31 - 1).astype(np.int32)
        ins = [self.init("b", q), self.init("bs", bs)]
        if self.chance(0.5):
            ins.append(self.init("bz", np.zeros(bs.shape, np.int32)))
        attrs = {"axis": 0} if bs.ndim == 1 and bs.size > 1 else {}
        return self.node("DequantizeLinear", ins, **attrs)

    # ---- calibration: run the graph so far in float, unoptimised ----------------
    def range_of(self, fname):
        import onnxruntime as ort
        g = helper.make_graph(self.nodes, "calib", self.inputs, [helper.make_empty_tensor_value_info(fname)],
                              self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        s = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
        vals = np.concatenate([s.run(None, dict(zip([i.name for i in self.inputs], c)))[0].ravel()
                               for c in self.calib])
        return float(vals.min()), float(vals.max())

    # ---- operators: each takes quantized values, returns one ---------------------
    def op_conv(self, x):
        C = x.shape[1]
        kind = self.pick("full", "full", "dw", "group")
        kh, kw = int(self.rng.integers(1, 4)), int(self.rng.integers(1, 4))
        if kind == "dw":
            mult = self.pick(1, 1, 2)
            M, group, cg = C * mult, C, 1
        elif kind == "group" and C % 2 == 0:
            group = 2
            M, cg = int(self.pick(4, 8)), C // 2
        else:
            group, M, cg = 1, int(self.pick(3, 4, 8, 16)), C
        H, W = x.shape[2], x.shape[3]
        st = int(self.pick(1, 1, 2))
        dil = int(self.pick(1, 1, 1, 2))
        eh, ew = (kh - 1) * dil + 1, (kw - 1) * dil + 1
        pads = [int(self.rng.integers(0, eh)), int(self.rng.integers(0, ew)), int(self.rng.integers(0, eh)),
                int(self.rng.integers(0, ew))]
        oh, ow = (H + pads[0] + pads[2] - eh) // st + 1, (W + pads[1] + pads[3] - ew) // st + 1
        if oh < 1 or ow < 1:
            pads, st, dil, kh, kw, oh, ow = [0, 0, 0, 0], 1, 1, 1, 1, H, W
        w = self.rng.normal(0, np.sqrt(2.0 / (cg * kh * kw)), (M, cg, kh, kw)).astype(np.float32)
        wt = S8 if x.t == S8 or self.chance(0.8) else U8
        pc = self.chance(0.6)
        wd, ws = self.const_dq(w, wt, axis=0, per_channel=pc)
        ins = [self.dq(x), wd]
        if self.chance(0.85):
            ins.append(self.bias_dq(self.rng.normal(0, 0.2, M).astype(np.float32), x.s, ws))
        attrs = dict(kernel_shape=[kh, kw], strides=[st, st], pads=pads, group=group)
        if dil > 1:
            attrs["dilations"] = [dil, dil]
        y = self.node("Conv", ins, **attrs)
        self.desc.append("conv%s %dx%d/%d g%d %s%s" % ("(dw)" if kind == "dw" else "", kh, kw, st, group,
                                                      "pc" if pc else "pt", " u8w" if wt == U8 else ""))
        return self.activation(y, [x.shape[0], M, oh, ow])

    def activation(self, y, shape):
        r = self.rng.random()
        if r < 0.45:
            y = self.node("Relu", [y])
            return self.quantize(y, shape, relu=True)
        if r < 0.55:
            lo, hi = self.pick((0.0, 6.0), (-1.0, 1.0), (0.0, 2.0))
            y = self.node("Clip", [y, self.init("lo", np.float32(lo)), self.init("hi", np.float32(hi))])
            self.desc.append("clip(%g,%g)" % (lo, hi))
            return self.quantize(y, shape, relu=True)
        return self.quantize(y, shape)

    def flat(self, x):
        """x as a 2-D [N, K] quantized value: Flatten or Reshape between Q
        and DQ (the integers move)."""
        if len(x.shape) == 2:
            return x
        k = int(np.prod(x.shape[1:]))
        if self.chance(0.5):
            y = self.node("Flatten", [x.name], axis=1)
        else:
            y = self.node("Reshape", [x.name, self.init("shape", np.array(self.pick([-1, k], [1, k], [0, -1]),
                                                                         np.int64))])
        self.desc.append("flatten")
        return QV(y, [x.shape[0], k], x.t, x.s, x.z)

    def op_fc(self, x):
        xd = None
        if len(x.shape) == 4 and self.chance(0.3):
            # flattened between DequantizeLinear and the op (float domain):
            # onnxruntime moves the DequantizeLinear across Reshape, not Flatten
            k = int(np.prod(x.shape[1:]))
            if self.chance(0.5):
                xd = self.node("Flatten", [self.dq(x, share_ok=False)], axis=1)
                self.desc.append("dq-flatten")
            else:
                xd = self.node("Reshape", [self.dq(x, share_ok=False), self.init("shape", np.array([1, k], np.int64))])
                self.desc.append("dq-reshape")
            x = QV(x.name, [x.shape[0], k], x.t, x.s, x.z)
        else:
            x = self.flat(x)
        K = x.shape[1]
        N = int(self.pick(3, 5, 10, 16))
        w = self.rng.normal(0, np.sqrt(1.0 / K), (K, N)).astype(np.float32)
        b = self.rng.normal(0, 0.3, N).astype(np.float32)
        form = self.pick("gemm", "gemm_t", "matmul", "matmul_add", "matmul_add")
        pc = self.chance(0.3)
        if form == "gemm_t":
            wd, ws = self.const_dq(np.ascontiguousarray(w.T), S8, axis=0, per_channel=pc)
        else:
            wd, ws = self.const_dq(w, S8, axis=1, per_channel=pc)
        xd = xd or self.dq(x)
        if form in ("gemm", "gemm_t"):
            ins = [xd, wd]
            if self.chance(0.85):
                ins.append(self.bias_dq(b, x.s, ws))
            y = self.node("Gemm", ins, transB=1 if form == "gemm_t" else 0)
        elif form == "matmul":
            y = self.node("MatMul", [xd, wd])
        else:
            y = self.node("MatMul", [xd, wd])
            bd = self.bias_dq(b, x.s, ws)
            y = self.node("Add", [y, bd] if self.chance(0.8) else [bd, y])
        self.desc.append(form + (" pc" if pc else ""))
        return self.activation(y, [x.shape[0], N])

    def partner(self, x, live):
        """Another quantized value of x's shape: an earlier one (a shared
        activation) or a new branch from x."""
        same = [v for v in live if v.shape == x.shape and v is not x]
        if same and self.chance(0.6):
            return self.pick(*same)
        if len(x.shape) == 4 and self.chance(0.7):
            C = x.shape[1]
            w = self.rng.normal(0, 0.5, (C, 1, 1, 1)).astype(np.float32)
            wd, ws = self.const_dq(w, S8, axis=0, per_channel=True)
            y = self.node("Conv", [self.dq(x), wd, self.bias_dq(np.zeros(C, np.float32), x.s, ws)],
                          kernel_shape=[1, 1], group=C)
            return self.quantize(y, x.shape)
        y = self.node("Sigmoid", [self.dq(x)])
        return self.quantize(y, x.shape, lohi=(0.0, 1.0))

    def op_binary(self, x, live):
        op = self.pick("Add", "Add", "Mul")
        if self.chance(0.25):      # a constant operand: a scalar or the same shape
            shp = [] if self.chance(0.5) else x.shape
            c = self.rng.normal(0.5 if op == "Mul" else 0, 0.7, shp).astype(np.float32)
            cd, _ = self.const_dq(c, x.t if self.chance(0.7) else self.pick(S8, U8))
            ins = [self.dq(x), cd]
            desc = "%s const%s" % (op.lower(), "" if shp else " scalar")
        else:
            y = self.partner(x, live)
            ins = [self.dq(x), self.dq(y)]
            desc = op.lower()
        if self.chance(0.5):
            ins.reverse()
        f = self.node(op, ins)
        self.desc.append(desc)
        if self.chance(0.3):
            f = self.node("Relu", [f])
            return self.quantize(f, x.shape, relu=True)
        return self.quantize(f, x.shape)

    def op_pool(self, x):
        N, C, H, W = x.shape
        kind = self.pick("avg", "avg", "global", "gap", "max")
        if kind == "gap" or (kind == "global" and self.chance(0.3)):
            f = self.node("GlobalAveragePool", [self.dq(x)])
            self.desc.append("gap")
            return self.quantize(f, [N, C, 1, 1], t=self.out_t(x))
        if kind == "global":        # tf2onnx: AveragePool over the whole image
            k, st, pads = [H, W], [H, W], [0, 0, 0, 0]
        else:
            kh, kw = min(H, int(self.rng.integers(1, 4))), min(W, int(self.rng.integers(1, 4)))
            st = [int(self.pick(1, 2)), int(self.pick(1, 2))]
            pads = [int(self.rng.integers(0, kh)), int(self.rng.integers(0, kw)), int(self.rng.integers(0, kh)),
                    int(self.rng.integers(0, kw))]
            k = [kh, kw]
        oh, ow = (H + pads[0] + pads[2] - k[0]) // st[0] + 1, (W + pads[1] + pads[3] - k[1]) // st[1] + 1
        if kind == "max":
            f = self.node("MaxPool", [self.dq(x)], kernel_shape=k, strides=st, pads=pads)
            self.desc.append("maxpool")
            if self.chance(0.6):    # same parameters: onnxruntime drops the pair
                return self.requant(f, [N, C, oh, ow], x)
            return self.quantize(f, [N, C, oh, ow], t=self.out_t(x))
        attrs = dict(kernel_shape=k, strides=st, pads=pads)
        if self.chance(0.3):
            attrs["count_include_pad"] = 1
        f = self.node("AveragePool", [self.dq(x)], **attrs)
        self.desc.append("avgpool %s" % kind)
        if self.chance(0.5):
            return self.requant(f, [N, C, oh, ow], x)
        return self.quantize(f, [N, C, oh, ow], t=self.out_t(x))

    def out_t(self, x):
        return x.t if self.chance(0.85) else (S8 if x.t == U8 else U8)

    def requant(self, f, shape, like):
        """QuantizeLinear with the parameters of `like` (tf2onnx's pools)."""
        ins = [f, self.init("s", np.float32(like.s)), self.zp_init(like.t, like.z)]
        y = self.node("QuantizeLinear", ins)
        return QV(y, shape, like.t, like.s, like.z)

    def op_unary(self, x):
        op = self.pick("Sigmoid", "LeakyRelu", "Relu", "Softmax", "Softmax")
        if op == "Softmax":
            x = self.flat(x)
            f = self.node("Softmax", [self.dq(x)], axis=-1)
            t = self.out_t(x)
            self.desc.append("softmax")
            if self.chance(0.7):    # what the quantizers write: 1/256 from 0
                s, z = np.float32(1.0 / 256), QRANGE[t][0]
                y = self.node("QuantizeLinear", [f, self.init("s", s), self.zp_init(t, z)])
                return QV(y, x.shape, t, s, z)
            return self.quantize(f, x.shape, t=t, lohi=(0.0, 1.0))
        attrs = {"alpha": float(self.pick(0.1, 0.2, 0.01))} if op == "LeakyRelu" else {}
        f = self.node(op, [self.dq(x)], **attrs)
        self.desc.append(op.lower())
        return self.quantize(f, x.shape, t=self.out_t(x), relu=op == "Relu")

    def op_concat(self, x, live):
        y = self.partner(x, live)
        ins = [self.dq(x), self.dq(y)]
        if self.chance(0.5):
            ins.reverse()
        axis = 1 if len(x.shape) == 4 else -1
        f = self.node("Concat", ins, axis=axis)
        shp = list(x.shape)
        shp[1] *= 2
        self.desc.append("concat")
        if self.chance(0.4):
            return self.requant(f, shp, x)
        return self.quantize(f, shp)

    def op_move(self, x):
        """Data movement in the quantized domain (Q -> op -> DQ) or in a QDQ
        group of its own (DQ -> op -> Q)."""
        if len(x.shape) == 4 and self.chance(0.5):
            perm = self.pick([0, 2, 3, 1], [0, 1, 3, 2], [0, 3, 1, 2])
            shp = [x.shape[p] for p in perm]
            op, ins, attrs = "Transpose", None, {"perm": perm}
        elif len(x.shape) == 4 and self.chance(0.3):
            shp = [x.shape[0], x.shape[1], x.shape[2] + 2, x.shape[3] + 1]
            op, attrs = "Pad", {}
        else:
            return self.flat(x)
        if self.chance(0.5):     # on the integers
            if op == "Pad":
                y = self.node("Pad", [x.name, self.init("pads", np.array([0, 0, 1, 0, 0, 0, 1, 1], np.int64)),
                                      self.init("pv", np.array(x.z, NPT[x.t]))])
            else:
                y = self.node(op, [x.name], **attrs)
            self.desc.append(op.lower() + " int")
            return QV(y, shp, x.t, x.s, x.z)
        if op == "Pad":
            f = self.node("Pad", [self.dq(x), self.init("pads", np.array([0, 0, 1, 0, 0, 0, 1, 1], np.int64))])
        else:
            f = self.node(op, [self.dq(x)], **attrs)
        self.desc.append(op.lower() + " qdq")
        return self.requant(f, shp, x)

    # ---- the model ----------------------------------------------------------------
    def build(self):
        rng = self.rng
        self.opset = int(self.pick(13, 13, 17, 19))
        self.act_t = U8 if rng.random() < 0.5 else S8
        rank4 = rng.random() < 0.8
        shape = [1, int(self.pick(1, 2, 3, 4)), int(rng.integers(3, 9)), int(rng.integers(3, 9))] if rank4 \
            else [1, int(self.pick(8, 16, 24))]
        kind = self.pick("float", "float", "int")
        if kind == "float":
            self.inputs.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, shape))
            self.calib = [[rng.normal(0, 1.0, shape).astype(np.float32)] for _ in range(4)]
            x = self.quantize("x", shape, lohi=(-2.5, 2.5))
        else:
            t = self.act_t
            self.inputs.append(helper.make_tensor_value_info("x", t, shape))
            lo, hi = QRANGE[t]
            self.calib = [[rng.integers(lo, hi + 1, shape).astype(NPT[t])] for _ in range(4)]
            s, z = self.qparams(-1.0, 1.0, t)
            x = QV("x", shape, t, s, z)
        self.desc.append("%s input %s %s" % (kind, "u8" if x.t == U8 else "s8", shape))
        live = [x]
        for _ in range(int(rng.integers(2, 6))):
            r = rng.random()
            if len(x.shape) == 4:
                if r < 0.35:
                    x = self.op_conv(x)
                elif r < 0.5:
                    x = self.op_binary(x, live)
                elif r < 0.62:
                    x = self.op_pool(x)
                elif r < 0.72:
                    x = self.op_unary(x)
                elif r < 0.8:
                    x = self.op_concat(x, live)
                elif r < 0.9:
                    x = self.op_move(x)
                else:
                    x = self.op_fc(x)
            else:
                if r < 0.4:
                    x = self.op_fc(x)
                elif r < 0.6:
                    x = self.op_binary(x, live)
                elif r < 0.85:
                    x = self.op_unary(x)
                else:
                    x = self.op_concat(x, live)
            live.append(x)
            if np.prod(x.shape) > 4096:
                break
        outs = [x]
        if len(live) > 2 and rng.random() < 0.15:
            outs.append(live[int(rng.integers(1, len(live) - 1))])
            self.desc.append("2 outputs")
        for k, v in enumerate(outs):
            if rng.random() < 0.3:       # a float output
                y = self.node("DequantizeLinear", [v.name, self.init("s", v.s), self.zp_init(v.t, v.z)],
                              ["out%d" % k])
                self.outputs.append(helper.make_tensor_value_info(y, TensorProto.FLOAT, v.shape))
            else:
                y = self.node("Identity", [v.name], ["out%d" % k])
                self.outputs.append(helper.make_tensor_value_info(y, v.t, v.shape))
        g = helper.make_graph(self.nodes, "qdq_random_%d" % self.seed, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m


DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#define M_IMPLEMENTATION
#include "m.h"
/* m IN OUT N: N inferences, every input of one inference packed in IN, every
   output packed in OUT */
static const size_t isz[] = {M_INPUT_SIZE_0, 0}, osz[] = {M_OUTPUT_SIZE_0, M_OUTPUT_SIZE_1_OR0, 0};
int main(int argc, char **argv)
{
    long n = atol(argv[3]), k;
    size_t ni = 0, no = 0;
    unsigned char *in, *out, *o1;
    void *arena = NULL;
    FILE *f = fopen(argv[1], "rb"), *g = fopen(argv[2], "wb");
    if (!f || !g || argc != 4) return 2;
    ni = isz[0];
    no = osz[0] + osz[1];
    in = malloc(ni + 1);
    out = malloc(no + 1);
    o1 = out + osz[0];
    if (posix_memalign(&arena, M_ARENA_ALIGN < sizeof(void *) ? sizeof(void *) : M_ARENA_ALIGN, M_ARENA_SIZE)) return 2;
    for (k = 0; k < n; k++) {
        const void *ins[1];
        void *outs[2];
        ins[0] = in;
        outs[0] = out;
        outs[1] = o1;
        if (fread(in, 1, ni, f) != ni) return 2;
        if (m_run_multi(ins, outs, arena)) return 3;
        if (fwrite(out, 1, no, g) != no) return 2;
    }
    fclose(g);
    return 0;
}
"""


def htc_run(model, tmp, inputs, flags=()):
    """Compile and run; returns (None, outputs) or (error line, None)."""
    os.makedirs(tmp, exist_ok=True)
    h = os.path.join(tmp, "m.h")
    p = O.htc("compile", model, "-t", O.TARGET, "-o", h, "--name", "m", *flags, check=False)
    if p.returncode:
        lines = p.stderr.strip().split("\n")
        if p.returncode != 1 or len(lines) != 1 or not lines[0].startswith("htc: error: ") or os.path.exists(h):
            raise AssertionError("htc did not fail with one line (exit %d): %s" % (p.returncode, p.stderr))
        return lines[0], None
    hdr = open(h).read()
    two = "M_OUTPUT_SIZE_1 " in hdr
    src = DRIVER.replace("M_OUTPUT_SIZE_1_OR0", "M_OUTPUT_SIZE_1" if two else "0")
    with open(os.path.join(tmp, "drv.c"), "w") as f:
        f.write("#define _POSIX_C_SOURCE 200809L\n" + src)
    exe = os.path.join(tmp, "m")
    c = subprocess.run([O.CC, "-O1", "-std=c99", "-o", exe, os.path.join(tmp, "drv.c"), "-I", tmp],
                       capture_output=True, text=True)
    if c.returncode:
        raise AssertionError("cc failed: " + c.stderr[-2000:])
    with open(os.path.join(tmp, "in.bin"), "wb") as f:
        for one in inputs:
            f.write(np.ascontiguousarray(one[0]).tobytes())
    r = subprocess.run([exe, os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin"), str(len(inputs))],
                       capture_output=True, text=True)
    if r.returncode:
        raise AssertionError("generated program failed (exit %d)" % r.returncode)
    data = open(os.path.join(tmp, "out.bin"), "rb").read()
    n = len(data) // len(inputs)
    return None, [data[i * n:(i + 1) * n] for i in range(len(inputs))]


def check(seed, tmp, ninputs=3, float_fallback=True):
    """('exact' | 'refused' | 'exact-ff' | 'refused-ff' | 'mismatch', detail)."""
    b = Builder(seed)
    m = b.build()
    path = os.path.join(tmp, "m.onnx")
    onnx.save(m, path)
    sess = O.ort_session(path)
    rng = np.random.default_rng(seed + 1000)
    inp = sess.get_inputs()[0]
    shape = inp.shape
    if inp.type == "tensor(float)":
        inputs = [[rng.normal(0, 1.0, shape).astype(np.float32)] for _ in range(ninputs)]
    elif inp.type == "tensor(uint8)":
        inputs = [[rng.integers(0, 256, shape).astype(np.uint8)] for _ in range(ninputs)]
    else:
        inputs = [[rng.integers(-128, 128, shape).astype(np.int8)] for _ in range(ninputs)]
    want = O.ort_outputs(sess, inputs)
    desc = ", ".join(b.desc)
    err, got = htc_run(path, os.path.join(tmp, "b"), inputs, ["--no-float-fallback"])
    if err is None:
        if got != want:
            return "mismatch", "%s: htc differs from onnxruntime (%s)" % (desc, diff(got, want))
        return "exact", desc
    bad = named_float(err, path)
    if bad:
        return "false-refusal", "%s: %s; %s" % (desc, err, bad)
    if not float_fallback:
        return "refused", "%s: %s" % (desc, err)
    err2, got = htc_run(path, os.path.join(tmp, "f"), inputs, ["--float-fallback"])
    if err2 is None:
        if got != want:
            return "mismatch", "%s: htc --float-fallback differs from onnxruntime (%s); without: %s" % (
                desc, diff(got, want), err)
        return "exact-ff", "%s: %s" % (desc, err)
    return "refused-ff", "%s: %s" % (desc, err2)


FLOAT_OPS = {"Conv", "FusedConv", "Gemm", "FusedGemm", "MatMul", "Add", "Mul", "AveragePool", "GlobalAveragePool",
             "Softmax", "Sigmoid", "LeakyRelu", "Concat"}


def ort_float_nodes(path):
    """Names of the compute nodes onnxruntime's optimised graph leaves in
    float (default level, one thread, as the oracle runs)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    with tempfile.TemporaryDirectory() as d:
        so.optimized_model_filepath = os.path.join(d, "opt.onnx")
        ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        g = onnx.load(so.optimized_model_filepath).graph
    names = {n.name for n in g.node if n.op_type in FLOAT_OPS}
    # onnxruntime renames what it fuses further: "fused NAME" (Conv or Gemm
    # with an activation), "NAME_nchwc" (NCHWc layout)
    return names | {n[6:] for n in names if n.startswith("fused ")} | {n[:-6] for n in names if n.endswith("_nchwc")}


def named_float(err, path):
    """None when the error names a node onnxruntime computes in float (or is
    not about float groups), else the complaint."""
    import re
    if "in float" not in err:
        return None
    names = set(re.findall(r"'([^']*)'", err))
    floats = ort_float_nodes(path)
    if names & floats:
        return None
    return "htc says float, onnxruntime's float nodes are %s" % sorted(floats)


def diff(got, want):
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            a, b = np.frombuffer(g, np.uint8), np.frombuffer(w, np.uint8)
            i = np.nonzero(a != b)[0]
            return "input %d: %d of %d bytes differ, first at %d: %d vs %d" % (k, len(i), len(a), i[0], a[i[0]],
                                                                               b[i[0]])
    return "?"


def main():
    args = sys.argv[1:]
    save = None
    if "--save" in args:
        i = args.index("--save")
        save = args[i + 1]
        del args[i:i + 2]
    keep = None
    if "--keep" in args:
        i = args.index("--keep")
        keep = args[i + 1]
        del args[i:i + 2]
    first = int(args[0])
    last = int(args[1]) if len(args) > 1 else first
    counts = {}
    for seed in range(first, last + 1):
        with tempfile.TemporaryDirectory() as d:
            tmp = keep or d
            os.makedirs(tmp, exist_ok=True)
            try:
                res, detail = check(seed, tmp)
            except AssertionError as e:
                res, detail = "broken", str(e)
            counts[res] = counts.get(res, 0) + 1
            if res in ("mismatch", "broken", "false-refusal") or first == last or "-v" in args:
                print("seed %d: %s: %s" % (seed, res, detail), flush=True)
            if save and res in ("mismatch", "broken", "false-refusal"):
                os.makedirs(save, exist_ok=True)
                import shutil
                shutil.copy(os.path.join(tmp, "m.onnx"), os.path.join(save, "seed%d.onnx" % seed))
    print(" ".join("%s %d" % kv for kv in sorted(counts.items())))


if __name__ == "__main__":
    main()
