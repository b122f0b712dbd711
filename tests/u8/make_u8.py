"""make_u8.py - small uint8 .tflite models in TFLite's legacy asymmetric
quantization (the TF1 converter's: uint8 activations and weights, one scale
and zero point per tensor, int32 biases at in_scale * w_scale), written with
tests/tflite_build.py's flatbuffer writer. The models are committed next to
this script; `python3 tests/u8/make_u8.py tests/u8` writes them again
(deterministic: fixed seeds).

- u8_mobilenet.tflite: a MobileNet v1 block stack: CONV 3x3 stride 2 RELU6,
  depthwise 3x3 RELU6, pointwise CONV RELU6, depthwise stride 2 (depth
  multiplier 2), pointwise, ADD of two branches, global AVERAGE_POOL_2D,
  a 1x1 CONV as classifier, RESHAPE, SOFTMAX (uint8 output 1/256, zp 0).
- u8_ops.tflite: MAX_POOL_2D, PAD, AVERAGE_POOL_2D 3x3 SAME (the border
  averages fewer values), MUL of two activations, CONCATENATION, LOGISTIC,
  TANH, FULLY_CONNECTED with RELU, QUANTIZE uint8 -> int8, DEQUANTIZE.
- u8_resize.tflite: RESIZE_BILINEAR up (plain, half-pixel centers, align
  corners) and down, RESIZE_NEAREST_NEIGHBOR; CONCATENATION of three inputs
  each quantized unlike the output; MEAN over height and width.
- u8_act.tflite: RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1 (LiteRT rescales
  uint8 to the output's quantization, then clamps), HARD_SWISH,
  LEAKY_RELU, SUB (of two activations, with a fused RELU6, and of a
  broadcast constant), L2_NORMALIZATION.
- u8_more.tflite: MAXIMUM, MINIMUM, SUM, REDUCE_MAX / REDUCE_MIN,
  EQUAL / LESS / GREATER_EQUAL of inputs quantized unlike each other,
  PRELU with a per-channel constant alpha, LOG_SOFTMAX, GELU.
- u8_div.tflite: DIV (LiteRT's uint8 reference_ops::Div: reciprocal of
  the divisor, negative divisors flipped) of an activation by a shifted
  activation (never 0), by a broadcast constant with negative values, and
  with a fused RELU6. No divisor equals its zero point (undefined in
  LiteRT).
- u8_tconv.tflite: TRANSPOSE_CONV (LiteRT's uint8 reference_ops::
  TransposeConv: input and weight zero points, one scale) stride 2 SAME
  with a bias and RELU, stride 1 VALID 3x3 without bias, stride 2 VALID
  2x3 kernel.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tflite_build as tb  # noqa: E402


def f32(v):
    return float(np.float32(v))


class U8:
    """uint8 layers on a tb.Model."""

    def __init__(self, m, rng):
        self.m = m
        self.rng = rng

    def act(self, shape, scale, zp, name=None):
        return self.m.tensor(shape, "uint8", f32(scale), int(zp), name=name)

    def conv(self, x, out_ch, k, stride=1, act=None, padding="SAME", dw=False, mult=1, out_zp=None, name=None):
        m, rng = self.m, self.rng
        n, h, w, c = m.shape(x)
        in_scale, _ = m.quant(x)
        w_scale = f32(0.004 + 0.02 * rng.random())
        w_zp = int(rng.integers(100, 156))
        oc = c * mult if dw else out_ch
        wshape = [1, k, k, oc] if dw else [oc, k, k, c]
        wt = m.const(rng.integers(0, 256, size=wshape).astype(np.uint8), "uint8", scale=w_scale, zp=w_zp)
        b = m.const(rng.integers(-3000, 3001, size=[oc]).astype(np.int32), "int32", scale=f32(in_scale * w_scale), zp=0)
        depth = k * k * (1 if dw else c)
        out_scale = tb.Model.auto_out_scale(in_scale, w_scale, depth) * (0.6 if act else 1.0)
        oh, ow = tb.out_size(padding, h, k, stride), tb.out_size(padding, w, k, stride)
        y = self.act([n, oh, ow, oc], out_scale, out_zp if out_zp is not None else rng.integers(60, 200), name)
        opts = dict(padding=tb.PADDING[padding], strideH=stride, strideW=stride, fusedActivationFunction=tb.ACT[act])
        if dw:
            return m.op("DEPTHWISE_CONV_2D", [x, wt, b], [y], depthMultiplier=mult, **opts)
        return m.op("CONV_2D", [x, wt, b], [y], **opts)

    def fc(self, x, units, act=None, name=None):
        m, rng = self.m, self.rng
        depth = m.shape(x)[-1]
        batches = int(np.prod(m.shape(x))) // depth
        in_scale, _ = m.quant(x)
        w_scale = f32(0.004 + 0.02 * rng.random())
        wt = m.const(rng.integers(0, 256, size=[units, depth]).astype(np.uint8), "uint8", scale=w_scale,
                     zp=int(rng.integers(100, 156)))
        b = m.const(rng.integers(-3000, 3001, size=[units]).astype(np.int32), "int32", scale=f32(in_scale * w_scale), zp=0)
        out_scale = tb.Model.auto_out_scale(in_scale, w_scale, depth) * (0.6 if act else 1.0)
        y = self.act([batches, units], out_scale, rng.integers(60, 200), name)
        return m.op("FULLY_CONNECTED", [x, wt, b], [y], fusedActivationFunction=tb.ACT[act])

    def pool(self, kind, x, k, stride, padding="VALID", name=None):
        m = self.m
        n, h, w, c = m.shape(x)
        s, z = m.quant(x)
        y = self.act([n, tb.out_size(padding, h, k, stride), tb.out_size(padding, w, k, stride), c], s, z, name)
        return m.op({"avg": "AVERAGE_POOL_2D", "max": "MAX_POOL_2D"}[kind], [x], [y], padding=tb.PADDING[padding],
                    strideH=stride, strideW=stride, filterHeight=k, filterWidth=k,
                    fusedActivationFunction=tb.ACT[None])

    def binary(self, op, a, b, out_scale, out_zp, act=None, name=None):
        y = self.act(self.m.shape(a), out_scale, out_zp, name)
        return self.m.op(op, [a, b], [y], fusedActivationFunction=tb.ACT[act])

    def unary(self, op, x, out_scale, out_zp, name=None):
        y = self.act(self.m.shape(x), out_scale, out_zp, name)
        return self.m.op(op, [x], [y])


def mobilenet():
    rng = np.random.default_rng(36)
    m = tb.Model(description="htc uint8 test: MobileNet v1 blocks")
    u = U8(m, rng)
    x = m.input([1, 16, 16, 3], scale=f32(1 / 128), zp=128, dtype="uint8")
    y = u.conv(x, 8, 3, stride=2, act="RELU6", out_zp=0)
    y = u.conv(y, 0, 3, dw=True, act="RELU6", out_zp=0)
    y = u.conv(y, 16, 1, act="RELU6", out_zp=0)
    y = u.conv(y, 0, 3, stride=2, dw=True, mult=2)
    a = u.conv(y, 16, 1)
    b = u.conv(y, 16, 1, act="RELU")
    y = u.binary("ADD", a, b, f32(m.quant(a)[0] * 1.5), 120, act="RELU6")
    y = u.pool("avg", y, 4, 4)
    y = u.conv(y, 10, 1)
    s, z = m.quant(y)
    r = m.const(np.array([1, 10], dtype=np.int32), "int32")
    y2 = u.act([1, 10], s, z)
    m.op("RESHAPE", [y, r], [y2], newShape=[1, 10])
    out = u.act([1, 10], 1 / 256, 0)
    m.op("SOFTMAX", [y2], [out], beta=1.0)
    m.output(out)
    return m


def ops():
    rng = np.random.default_rng(360)
    m = tb.Model(description="htc uint8 test: operators")
    u = U8(m, rng)
    x = m.input([1, 8, 8, 4], scale=0.05, zp=131, dtype="uint8")
    s, z = m.quant(x)
    mp = u.pool("max", x, 2, 2)
    p = m.const(np.array([[0, 0], [1, 1], [1, 1], [0, 0]], dtype=np.int32), "int32")
    pd = u.act([1, 10, 10, 4], s, z)
    m.op("PAD", [x, p], [pd])
    ap = u.pool("avg", pd, 3, 1, padding="SAME")
    ap2 = u.pool("avg", x, 3, 2, padding="SAME")
    mul = u.binary("MUL", ap2, mp, 0.09, 97)
    cv = u.conv(x, 4, 3, stride=2)
    cs, cz = m.quant(cv)
    cat_in = u.act([1, 4, 4, 8], cs, cz)
    m.op("CONCATENATION", [cv, cv], [cat_in], axis=3, fusedActivationFunction=tb.ACT[None])
    lg = u.unary("LOGISTIC", mul, 1 / 256, 0)
    th = u.unary("TANH", cat_in, 1 / 128, 128)
    r = m.const(np.array([1, 64], dtype=np.int32), "int32")
    fl = u.act([1, 64], *m.quant(lg))
    m.op("RESHAPE", [lg, r], [fl], newShape=[1, 64])
    fc = u.fc(fl, 12, act="RELU")
    q = m.tensor([1, 12], "int8", f32(m.quant(fc)[0] * 2), -5)
    m.op("QUANTIZE", [fc], [q])
    dq = m.tensor(m.shape(th), "float32")
    m.op("DEQUANTIZE", [th], [dq])
    for t in (ap, q, dq, th):
        m.output(t)
    return m


def resize():
    rng = np.random.default_rng(361)
    m = tb.Model(description="htc uint8 test: resize")
    u = U8(m, rng)
    x = m.input([1, 5, 7, 3], scale=0.07, zp=119, dtype="uint8")
    s, z = m.quant(x)
    sz = m.const(np.array([9, 12], dtype=np.int32), "int32")
    sd = m.const(np.array([3, 4], dtype=np.int32), "int32")
    outs = []
    for name, size, shape, opts in (("RESIZE_BILINEAR", sz, [1, 9, 12, 3], {}),
                                    ("RESIZE_BILINEAR", sz, [1, 9, 12, 3], {"halfPixelCenters": True}),
                                    ("RESIZE_BILINEAR", sz, [1, 9, 12, 3], {"alignCorners": True}),
                                    ("RESIZE_BILINEAR", sd, [1, 3, 4, 3], {"halfPixelCenters": True}),
                                    ("RESIZE_NEAREST_NEIGHBOR", sz, [1, 9, 12, 3], {"halfPixelCenters": True})):
        y = u.act(shape, s, z)
        if name == "RESIZE_BILINEAR":
            o = tb.S.ResizeBilinearOptionsT()
            ot = tb.S.BuiltinOptions.ResizeBilinearOptions
        else:
            o = tb.S.ResizeNearestNeighborOptionsT()
            ot = tb.S.BuiltinOptions.ResizeNearestNeighborOptions
        for k, v in opts.items():
            setattr(o, k, v)
        m.op(name, [x, size], [y])
        m.operators[-1].builtinOptionsType = ot
        m.operators[-1].builtinOptions = o
        outs.append(y)
    # CONCATENATION of inputs quantized unlike the output (LiteRT rescales each)
    a = u.conv(x, 4, 3)
    b = u.conv(x, 5, 1)
    cat = u.act([1, 5, 7, 12], f32(m.quant(a)[0] * 1.3), 101)
    m.op("CONCATENATION", [a, b, x], [cat], axis=3, fusedActivationFunction=tb.ACT[None])
    outs.append(cat)
    # MEAN over the spatial axes (keep_dims, and not), requantized
    for keep, (os_, oz) in ((True, (f32(m.quant(cat)[0] * 0.4), 77)), (False, m.quant(cat))):
        ax = m.const(np.array([1, 2], dtype=np.int32), "int32")
        y = u.act([1, 1, 1, 12] if keep else [1, 12], os_, oz)
        m.op("MEAN", [cat, ax], [y], keepDims=keep)
        outs.append(y)
    for y in outs:
        m.output(y)
    return m


def act():
    rng = np.random.default_rng(362)
    m = tb.Model(description="htc uint8 test: activations, SUB, L2_NORMALIZATION")
    u = U8(m, rng)
    x = m.input([1, 6, 6, 5], scale=0.06, zp=121, dtype="uint8")
    s, z = m.quant(x)
    outs = [u.unary("RELU", x, f32(s * 0.7), 9),
            u.unary("RELU6", x, f32(s * 0.45), 3),       # 6 / scale inside the range: the upper clamp bites
            u.unary("RELU_N1_TO_1", x, f32(1 / 100), 131),
            u.unary("RELU_0_TO_1", x, f32(1 / 200), 17),
            u.unary("HARD_SWISH", x, f32(s * 0.8), 140)]
    lk = u.act(m.shape(x), f32(s * 0.9), 100)
    m.op("LEAKY_RELU", [x], [lk], alpha=0.2)
    outs.append(lk)
    cv = u.conv(x, 5, 3)
    outs.append(u.binary("SUB", x, cv, f32(s * 1.7), 126))
    outs.append(u.binary("SUB", cv, x, f32(s * 1.1), 130, act="RELU6"))
    c = m.const(rng.integers(0, 256, size=[1, 1, 1, 5]).astype(np.uint8), "uint8", scale=f32(0.03), zp=110)
    outs.append(u.binary("SUB", x, c, f32(s * 1.3), 128))      # broadcast of a constant
    outs.append(u.unary("L2_NORMALIZATION", cv, f32(1 / 128), 128))
    for y in outs:
        m.output(y)
    return m


def more():
    rng = np.random.default_rng(363)
    m = tb.Model(description="htc uint8 test: min/max, reductions, comparisons, PRELU, LOG_SOFTMAX, GELU")
    u = U8(m, rng)
    x = m.input([1, 5, 4, 6], scale=0.05, zp=120, dtype="uint8")
    x2 = m.input([1, 5, 4, 6], scale=0.04, zp=133, dtype="uint8")
    s, z = m.quant(x)
    outs = []
    for op in ("MAXIMUM", "MINIMUM"):
        y = u.act(m.shape(x), s, z)
        m.op(op, [x, x], [y])
        outs.append(y)
    ax = m.const(np.array([1, 2], dtype=np.int32), "int32")
    y = u.act([1, 1, 1, 6], f32(s * 9), 40)
    m.op("SUM", [x, ax], [y], keepDims=True)
    outs.append(y)
    for op in ("REDUCE_MAX", "REDUCE_MIN"):         # LiteRT requires the input's quantization
        y = u.act([1, 6], s, z)
        m.op(op, [x, ax], [y], keepDims=False)
        outs.append(y)
    for op in ("EQUAL", "LESS", "GREATER_EQUAL"):   # rescaled to a common scale
        y = m.tensor(m.shape(x), "bool")
        m.op(op, [x, x2], [y])
        outs.append(y)
    al = m.const(rng.integers(0, 256, size=[6]).astype(np.uint8), "uint8", scale=f32(0.008), zp=60)
    y = u.act(m.shape(x), f32(s * 0.8), 110)
    m.op("PRELU", [x2, al], [y])
    outs.append(y)
    y = u.act(m.shape(x), f32(16 / 256), 255)       # LiteRT's uint8 LOG_SOFTMAX output
    m.op("LOG_SOFTMAX", [x], [y])
    outs.append(y)
    y = u.act(m.shape(x), f32(s * 0.7), 30)
    m.op("GELU", [x2], [y])
    outs.append(y)
    for y in outs:
        m.output(y)
    return m


def div():
    rng = np.random.default_rng(3636)
    m = tb.Model(description="htc uint8 test: DIV")
    u = U8(m, rng)
    x = m.input([1, 4, 5, 6], scale=0.05, zp=120, dtype="uint8")
    x2 = m.input([1, 4, 5, 6], scale=0.03, zp=0, dtype="uint8")
    # x2 + 0.3 (10 steps), zero point 0: the divisor is 10..255, never 0
    c = m.const(np.full([1], 10, np.uint8), "uint8", scale=0.03, zp=0)
    d = u.binary("ADD", x2, c, 0.03, 0)
    outs = [u.binary("DIV", x, d, 0.08, 110)]
    k = rng.integers(0, 256, size=[6]).astype(np.uint8)
    k[k == 128] = 77                                # negative, positive, never the zero point
    kc = m.const(k, "uint8", scale=0.02, zp=128)
    outs.append(u.binary("DIV", x, kc, 0.9, 128))
    outs.append(u.binary("DIV", d, kc, 0.05, 0, act="RELU6"))
    outs.append(u.binary("DIV", x, d, 0.011, 3))     # large quotients saturate
    for y in outs:
        m.output(y)
    return m


def tconv():
    rng = np.random.default_rng(3637)
    m = tb.Model(description="htc uint8 test: TRANSPOSE_CONV")
    x = m.input([1, 5, 4, 3], scale=0.04, zp=117, dtype="uint8")
    outs = []
    for oc, kh, kw, st, pad, bias, act in ((4, 3, 3, 2, "SAME", True, "RELU"), (5, 3, 3, 1, "VALID", False, None),
                                           (3, 2, 3, 2, "VALID", True, None)):
        n, h, w, c = m.shape(x)
        oh, ow = (h * st, w * st) if pad == "SAME" else ((h - 1) * st + kh, (w - 1) * st + kw)
        ws = f32(0.004 + 0.02 * rng.random())
        wt = m.const(rng.integers(0, 256, size=[oc, kh, kw, c]).astype(np.uint8), "uint8", scale=ws,
                     zp=int(rng.integers(100, 156)))
        shape = m.const(np.array([n, oh, ow, oc], np.int32), "int32")
        ins = [shape, wt, x]
        if bias:
            ins.append(m.const(rng.integers(-3000, 3001, size=[oc]).astype(np.int32), "int32",
                               scale=f32(0.04 * ws), zp=0))
        out_scale = tb.Model.auto_out_scale(0.04, ws, kh * kw * c // (st * st) + 1)
        y = m.tensor([n, oh, ow, oc], "uint8", f32(out_scale), int(rng.integers(60, 200)))
        outs.append(m.op("TRANSPOSE_CONV", ins, [y], padding=tb.PADDING[pad], strideH=st, strideW=st,
                         fusedActivationFunction=tb.ACT[act]))
    for y in outs:
        m.output(y)
    return m


MODELS = {"u8_mobilenet": mobilenet, "u8_ops": ops, "u8_resize": resize, "u8_act": act, "u8_more": more,
          "u8_div": div, "u8_tconv": tconv}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    for name, fn in MODELS.items():
        fn().save(os.path.join(out, name + ".tflite"))


if __name__ == "__main__":
    main()
