#!/usr/bin/env python3
"""tests/zoo/htvm_nets.py - the four networks HTVM measured for its Table I
(KULeuven-MICAS/htvm at b216dde, 2023-04-05, diana/byoc/mlperf_tiny/
relay_{ds_cnn,mobilenet,resnet,dae}.py and diana/byoc/utils.py), rebuilt
layer for layer as int8 QOperator ONNX graphs (htc's ONNX front end;
onnxruntime runs them, the oracle). No HTVM code is copied: the shapes,
layer order and choices below are read from those files.

    python tests/zoo/htvm_nets.py [OUTDIR]     (default: build/htvm)

Writes OUTDIR/<net>_<variant>.onnx for net in ds_cnn mobilenet resnet dae
(HTVM's --net names) and variant in
  int8     weight_bits = 8: HTVM's CPU and digital configurations
  ternary  weight_bits = 2: its analog configuration
  mixed    weight_bits = 2, mixed = True: its mixed ("Both") configuration
  narrow   the int8 topology with weights in {-1, 0, 1} and biases in
           +-1024 (not HTVM's: for the tests, see below)
Seeded (one numpy Generator per file), so re-running with the same numpy
and onnx gives the same bytes.

What each layer is, and where it comes from:
- Conv / dense layer = utils.py relay_soma_conv2d / relay_soma_dense:
  int32 conv (or dense) + bias_add + right_shift(4) + clip + cast int8, the
  clip [0, 127] when act=True, else [-128, 127]. Here: QLinearConv / QGemm
  with x_scale = y_scale = 1, w_scale = 2^-4, zero points 0 and the int32
  bias at scale 2^-4, so the requantization is (acc + bias) * 2^-4 rounded
  and saturated to int8 (htc: an exact shift by 4, DIANA's `shift` kind);
  act=True is an int8 Relu after it (opset 14), which htc folds into the
  layer's clamp [0, 127] (gen/onnx.c int_clamp) and onnxruntime applies to
  the stored integers. One difference: TVM's right_shift floors, ONNX's
  QuantizeLinear rounds half to even; no ONNX form onnxruntime runs
  floors an int32 sum with an integer bias at scale x_scale * w_scale
  (floor(v / 16) = round((v - 7.5) / 16) needs a half-integer bias). The
  rounding is free on DIANA's output unit (the device model's cycles do
  not depend on it) and no layer's shape or cost changes.
- Element-wise add = relay_soma_add: cast int32, add, right_shift by its
  default shift_bits = 0, clip [-128, 127], cast int8 (resnet passes no
  shift_bits). Here QLinearAdd with every scale 1 and zero point 0: the
  saturated sum, exactly.
- Weights = create_random_array: uniform integers over the full int8 range
  [-128, 127] ('int8'), or [-1, 1] ('int2': ternary). Biases: HTVM draws
  them uniformly over the full int32 range; here uniformly over
  +-(2^24 - 1 - 128 * sum |w|) per output channel, the range in which
  onnxruntime's float requantization is exact (float(acc) of |acc| < 2^24)
  and htc recognizes the exact shift. Either way (acc + bias) >> 4
  saturates almost every activation, as in HTVM's random networks.
- Depthwise layers: always int8 (HTVM: create_random_array(..., 'int8') in
  every configuration). Mixed: as each file's `mixed` branches, conv1 and
  the dense layer int8 (and MobileNet's conv27, ResNet's conv9, ToyAdmos's
  dense1 and dense10), the other Conv2D/FC ternary.
- Dense in the ternary variant: HTVM writes it as a 1x1 conv2d on the
  reshaped (1, C, 1, 1) vector for the analog core; here it stays a Gemm
  with ternary weights, which htc's analog engine maps as a 1x1 conv.
- DS-CNN's first layer as HTVM adapted it (relay_ds_cnn.py, "Use transpose
  for better performance", the paper's footnote "Input filter size adapted
  to [7,5]"): input (1, 1, 10, 49), kernel (5, 7), stride 2, padding (2, 3)
  on both sides, output (1, 64, 5, 25).
- Average pool = relay.nn.avg_pool2d with the whole feature map as its
  window ((5, 25), (3, 3), (8, 8)) on the CPU: QLinearAveragePool with that
  kernel (not the global pool, which htc's DIANA target would offload; HTVM
  runs it with TVM on the RISC-V). onnxruntime's mean rounds half to even;
  TVM's integer average divides (the layer's cost is the same).
- I/O: the input is a raw int8 tensor (relay.var 'input_0', int8). DS-CNN,
  MobileNet and ResNet end with relay.cast(x, 'float32') and softmax: here
  DequantizeLinear with scale 1 and zero point 0 (the cast, exactly); the
  float softmax is not in the graph (htc's ONNX front end computes
  integer graphs; bench/bench_diana.py measures what a float softmax of the
  logits costs on RV32IMC). ToyAdmos ends in int8 (no cast).
- Not in the graphs: HTVM's relay_soma_layout_transform (reshape, reverse
  every 4 bytes, reshape: the byte order DIANA's accelerators expect),
  which HTVM adds around the accelerator layers; htc's device model reads
  and writes the CPU's layout. bench/bench_diana.py measures their cost.
- Class counts as HTVM changed them: MobileNet 4 ("made 4 to support diana
  accelerator"), ResNet 12 (same note), DS-CNN 12.
The narrow variant (same topology as int8, weights in {-1, 0, 1}, biases in
+-1024) keeps most activations away from the clamp, so the bit-exact tests
compare values that depend on every product, which HTVM's saturating
distribution hardly does."""
import hashlib
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 14              # Relu on int8
NETS = ("ds_cnn", "mobilenet", "resnet", "dae")
VARIANTS = ("int8", "ternary", "mixed", "narrow")
SEEDS = {"ds_cnn": 1, "mobilenet": 2, "resnet": 3, "dae": 4}
EXACT = 2 ** 24         # float(acc) is exact below this


class Net:
    """A QOperator graph builder for HTVM's layer types. variant: see the
    module docstring; a layer's `bits` is 8 or 2 as HTVM's file gives it."""

    def __init__(self, name, variant):
        self.name, self.variant = name, variant
        self.rng = np.random.default_rng([SEEDS[name], VARIANTS.index(variant)])
        self.nodes = []
        self.inits = [numpy_helper.from_array(np.array(1.0, np.float32), "one"),
                      numpy_helper.from_array(np.array(2.0 ** -4, np.float32), "w_scale"),
                      numpy_helper.from_array(np.array(0, np.int8), "zero")]
        self.n = 0

    def uid(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def const(self, base, arr):
        name = self.uid(base)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def bits(self, layer_bits, mixed_bits):
        """the weight precision of a layer: HTVM's f'int{weight_bits}' (layer_bits
        when the file fixes it), or in the mixed network the file's mixed choice"""
        if self.variant == "narrow":
            return 2
        if self.variant == "mixed":
            return mixed_bits
        return 8 if self.variant == "int8" else layer_bits

    def weights(self, shape, bits):
        lo, hi = (-128, 127) if bits == 8 else (-1, 1)
        w = self.rng.integers(lo, hi + 1, size=shape).astype(np.int8)
        fan = int(np.prod(shape[1:]))
        bound = EXACT - 1 - 128 * np.abs(w.astype(np.int64)).reshape(shape[0], fan).sum(axis=1)
        assert (bound > 0).all(), self.name
        if self.variant == "narrow":
            bound = np.minimum(bound, 1024)
        b = np.array([self.rng.integers(-m, m + 1) for m in bound], dtype=np.int32)
        return w, b

    def relu(self, y):
        r = self.uid("relu")
        self.nodes.append(helper.make_node("Relu", [y], [r], name=r))
        return r

    def conv(self, x, cin, cout, k, stride=1, pad=(0, 0), groups=1, act=True, bits=8):
        """relay_soma_conv2d: padding (ph, pw) on both sides"""
        kh, kw = k
        w, b = self.weights((cout, cin // groups, kh, kw), bits)
        y = self.uid("conv")
        self.nodes.append(helper.make_node(
            "QLinearConv", [x, "one", "zero", self.const("w", w), "w_scale", "zero", "one", "zero", self.const("b", b)],
            [y], name=y, kernel_shape=[kh, kw], strides=[stride, stride], pads=[pad[0], pad[1], pad[0], pad[1]],
            group=groups))
        return self.relu(y) if act else y

    def dense(self, x, nin, nout, act=False, bits=8):
        """relay_soma_dense (nn.dense: weights [out, in])"""
        w, b = self.weights((nout, nin), bits)
        y = self.uid("dense")
        self.nodes.append(helper.make_node(
            "QGemm", [x, "one", "zero", self.const("w", w), "w_scale", "zero", self.const("b", b), "one", "zero"],
            [y], name=y, domain="com.microsoft", transB=1))
        return self.relu(y) if act else y

    def add(self, a, b):
        """relay_soma_add with shift_bits = 0: the saturated int8 sum"""
        y = self.uid("add")
        self.nodes.append(helper.make_node("QLinearAdd", [a, "one", "zero", b, "one", "zero", "one", "zero"], [y],
                                           name=y, domain="com.microsoft"))
        return y

    def avgpool(self, x, kh, kw):
        y = self.uid("avgpool")
        self.nodes.append(helper.make_node("QLinearAveragePool", [x, "one", "zero", "one", "zero"], [y], name=y,
                                           domain="com.microsoft", kernel_shape=[kh, kw]))
        return y

    def reshape(self, x, shape):
        y = self.uid("reshape")
        self.nodes.append(helper.make_node("Reshape", [x, self.const("shape", np.array(shape, np.int64))], [y], name=y))
        return y

    def to_float(self, x):
        """relay.cast(x, 'float32'): DequantizeLinear with scale 1, zero point 0"""
        y = self.uid("cast")
        self.nodes.append(helper.make_node("DequantizeLinear", [x, "one", "zero"], [y], name=y))
        return y

    def model(self, shape, out, out_type, out_shape):
        g = helper.make_graph(self.nodes, "htvm_%s_%s" % (self.name, self.variant),
                              [helper.make_tensor_value_info("input_0", TensorProto.INT8, list(shape))],
                              [helper.make_tensor_value_info(out, out_type, list(out_shape))], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)],
                              producer_name="htc-htvm-nets")
        m.ir_version = 8
        m = onnx.shape_inference.infer_shapes(m)
        onnx.checker.check_model(m)
        return m


def ds_cnn(variant):
    """relay_ds_cnn.py: transposed input, conv1 (5, 7) stride 2 pad (2, 3),
    four depthwise-separable blocks of 64 channels, avg pool (5, 25),
    dense 64 -> 12, cast to float"""
    n = Net("ds_cnn", variant)
    x = n.conv("input_0", 1, 64, (5, 7), stride=2, pad=(2, 3), bits=n.bits(2, 8))
    for _ in range(4):
        x = n.conv(x, 64, 64, (3, 3), pad=(1, 1), groups=64, bits=n.bits(8, 8))
        x = n.conv(x, 64, 64, (1, 1), bits=n.bits(2, 2))
    x = n.reshape(n.avgpool(x, 5, 25), [1, 64])
    x = n.dense(x, 64, 12, bits=n.bits(2, 8))
    return n.model((1, 1, 10, 49), n.to_float(x), TensorProto.FLOAT, (1, 12))


# MobileNet's depthwise-separable blocks: (depthwise stride, in, out channels)
MOBILENET_BLOCKS = ((1, 8, 16), (2, 16, 32), (1, 32, 32), (2, 32, 64), (1, 64, 64), (2, 64, 128)) + \
                   ((1, 128, 128),) * 5 + ((2, 128, 256), (1, 256, 256))


def mobilenet(variant):
    """relay_mobilenet.py: conv1 3x3 stride 2 (8 channels), 13 depthwise-
    separable blocks, avg pool (3, 3), dense 256 -> 4, cast to float; mixed:
    conv1, the last pointwise conv (conv27) and the dense layer int8"""
    n = Net("mobilenet", variant)
    x = n.conv("input_0", 3, 8, (3, 3), stride=2, pad=(1, 1), bits=n.bits(2, 8))
    for i, (s, cin, cout) in enumerate(MOBILENET_BLOCKS):
        x = n.conv(x, cin, cin, (3, 3), stride=s, pad=(1, 1), groups=cin, bits=n.bits(8, 8))
        last = i == len(MOBILENET_BLOCKS) - 1
        x = n.conv(x, cin, cout, (1, 1), bits=n.bits(2, 8 if last else 2))
    x = n.reshape(n.avgpool(x, 3, 3), [1, 256])
    x = n.dense(x, 256, 4, bits=n.bits(2, 8))
    return n.model((1, 3, 96, 96), n.to_float(x), TensorProto.FLOAT, (1, 4))


def resnet(variant):
    """relay_resnet.py: conv1 3x3 (16), three stacks (the residual branch two
    3x3 convs, the second without ReLU; stacks 2 and 3 a 1x1 stride-2
    shortcut), the add without ReLU, avg pool (8, 8), dense 64 -> 12, cast
    to float; mixed: conv1, conv9 (the last shortcut) and dense int8"""
    n = Net("resnet", variant)
    x = n.conv("input_0", 3, 16, (3, 3), pad=(1, 1), bits=n.bits(2, 8))
    y = n.conv(x, 16, 16, (3, 3), pad=(1, 1), bits=n.bits(2, 2))
    y = n.conv(y, 16, 16, (3, 3), pad=(1, 1), act=False, bits=n.bits(2, 2))
    x = n.add(x, y)
    cin = 16
    for cout, last in ((32, False), (64, True)):
        y = n.conv(x, cin, cout, (3, 3), stride=2, pad=(1, 1), bits=n.bits(2, 2))
        y = n.conv(y, cout, cout, (3, 3), pad=(1, 1), act=False, bits=n.bits(2, 2))
        x = n.conv(x, cin, cout, (1, 1), stride=2, act=False, bits=n.bits(2, 8 if last else 2))
        x = n.add(x, y)
        cin = cout
    x = n.reshape(n.avgpool(x, 8, 8), [1, 64])
    x = n.dense(x, 64, 12, bits=n.bits(2, 8))
    return n.model((1, 3, 32, 32), n.to_float(x), TensorProto.FLOAT, (1, 12))


def dae(variant):
    """relay_dae.py (ToyAdmos): dense 640 -> 128 x4 -> 8 -> 128 x4 -> 640,
    ReLU on all but the last, int8 output; mixed: dense1 and dense10 int8"""
    n = Net("dae", variant)
    x, d = "input_0", 640
    widths = (128, 128, 128, 128, 8, 128, 128, 128, 128, 640)
    for i, w in enumerate(widths):
        first, last = i == 0, i == len(widths) - 1
        x = n.dense(x, d, w, act=not last, bits=n.bits(2, 8 if first or last else 2))
        d = w
    return n.model((1, 640), x, TensorProto.INT8, (1, 640))


BUILD = {"ds_cnn": ds_cnn, "mobilenet": mobilenet, "resnet": resnet, "dae": dae}


def float_twin(model):
    """The same network in float ONNX ops on integer values, for onnxruntime:
    Cast the int8 input to float; QLinearConv / QGemm -> Conv / Gemm with
    the integer weights and bias as floats, Mul 2^-4, Round (half to even),
    Clip [-128, 127]; QLinearAdd -> Add, Clip; QLinearAveragePool ->
    AveragePool, Round; Relu as it is; DequantizeLinear (the cast) dropped;
    an int8 output Cast back. Exact on any host: every value is an integer,
    and every partial sum of a layer is below 2^24 in magnitude (the biases'
    bound, htvm_nets.Net.weights), so float32 holds it whatever the order of
    the sums -- unlike onnxruntime's fused int8 kernels, whose arithmetic may
    depend on the CPU (the oracle of tests/test_htvm_nets.py checks that
    both agree)."""
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    nodes, new_inits = [], []

    def fconst(name, arr):
        new_inits.append(numpy_helper.from_array(np.asarray(arr, np.float32), name))
        return name

    fconst("f_scale", 2.0 ** -4)
    fconst("f_lo", -128.0)
    fconst("f_hi", 127.0)
    nodes.append(helper.make_node("Cast", ["input_0"], ["input_0.f"], to=TensorProto.FLOAT))
    name = {"input_0": "input_0.f"}

    def requant(acc, y):
        nodes.append(helper.make_node("Mul", [acc, "f_scale"], [y + ".s"]))
        nodes.append(helper.make_node("Round", [y + ".s"], [y + ".r"]))
        nodes.append(helper.make_node("Clip", [y + ".r", "f_lo", "f_hi"], [y]))

    for n in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        y = n.output[0]
        if n.op_type == "QLinearConv":
            w, b = fconst(n.input[3] + ".f", inits[n.input[3]]), fconst(n.input[8] + ".f", inits[n.input[8]])
            nodes.append(helper.make_node("Conv", [name[n.input[0]], w, b], [y + ".acc"], **attrs))
            requant(y + ".acc", y)
        elif n.op_type == "QGemm":
            w, b = fconst(n.input[3] + ".f", inits[n.input[3]]), fconst(n.input[6] + ".f", inits[n.input[6]])
            nodes.append(helper.make_node("Gemm", [name[n.input[0]], w, b], [y + ".acc"], **attrs))
            requant(y + ".acc", y)
        elif n.op_type == "QLinearAdd":
            nodes.append(helper.make_node("Add", [name[n.input[0]], name[n.input[3]]], [y + ".acc"]))
            nodes.append(helper.make_node("Clip", [y + ".acc", "f_lo", "f_hi"], [y]))
        elif n.op_type == "QLinearAveragePool":
            nodes.append(helper.make_node("AveragePool", [name[n.input[0]]], [y + ".avg"], **attrs))
            nodes.append(helper.make_node("Round", [y + ".avg"], [y]))
        elif n.op_type == "Relu":
            nodes.append(helper.make_node("Relu", [name[n.input[0]]], [y]))
        elif n.op_type == "Reshape":
            new_inits.append(numpy_helper.from_array(inits[n.input[1]], n.input[1]))
            nodes.append(helper.make_node("Reshape", [name[n.input[0]], n.input[1]], [y]))
        elif n.op_type == "DequantizeLinear":
            nodes.append(helper.make_node("Identity", [name[n.input[0]]], [y]))
        else:
            raise ValueError("float_twin: %s" % n.op_type)
        name[y] = y
    out = g.output[0]
    o = out.name
    if out.type.tensor_type.elem_type == TensorProto.INT8:
        nodes.append(helper.make_node("Cast", [o], [o + ".i8"], to=TensorProto.INT8))
        o += ".i8"
    fg = helper.make_graph(nodes, g.name + "_float", list(g.input),
                           [helper.make_tensor_value_info(o, out.type.tensor_type.elem_type,
                                                          [d.dim_value for d in out.type.tensor_type.shape.dim])],
                           new_inits)
    m = helper.make_model(fg, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="htc-htvm-nets")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def build(outdir, nets=NETS, variants=VARIANTS):
    os.makedirs(outdir, exist_ok=True)
    written = []
    for net in nets:
        for v in variants:
            p = os.path.join(outdir, "%s_%s.onnx" % (net, v))
            onnx.save(BUILD[net](v), p)
            written.append(p)
    return written


def ensure(outdir=None):
    """Build the networks into outdir ($HTC_HTVM_NETS or build/htvm) unless
    they are there for this script and these numpy / onnx versions; built in
    a temporary directory and renamed, so concurrent runs never see half."""
    import shutil
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = outdir or os.environ.get("HTC_HTVM_NETS") or os.path.join(here, "..", "..", "build", "htvm")
    key = "%s numpy %s onnx %s\n" % (hashlib.sha256(open(os.path.abspath(__file__), "rb").read()).hexdigest(),
                                      np.__version__, onnx.__version__)
    stamp = os.path.join(outdir, ".complete")
    if os.path.exists(stamp) and open(stamp).read() == key:
        return outdir
    parent = os.path.dirname(os.path.abspath(outdir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".htvm-", dir=parent)
    build(tmp)
    with open(os.path.join(tmp, ".complete"), "w") as f:
        f.write(key)
    old = None
    if os.path.exists(outdir):
        old = tempfile.mkdtemp(prefix=".htvm-old-", dir=parent)
        os.rename(outdir, os.path.join(old, "htvm"))
    try:
        os.rename(tmp, outdir)
    except OSError:                 # another run won the race: use its networks
        shutil.rmtree(tmp, ignore_errors=True)
    if old:
        shutil.rmtree(old, ignore_errors=True)
    return outdir


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "build", "htvm")
    for p in build(out):
        print(p)
