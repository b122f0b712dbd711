#!/usr/bin/env python3
# make_bad.py - writes the bad TFLite models that tests/bad/test_bad_models.sh
# feeds to htc: real MLPerf Tiny models truncated or patched in place, and
# tiny synthetic models built here. Plain Python 3, no packages.
#
#   make_bad.py OUTDIR            OUTDIR/<case>.tflite for every case
#   make_bad.py --seeds OUTDIR    small valid models (fuzz corpus seeds)
#
# The expected error for <case> is in tests/bad/<case>.expect. Models come
# from $HTC_MODELS (default ../shared/models/mlperf_tiny next to the repo).
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.environ.get("HTC_MODELS") or os.path.join(HERE, "..", "..", "..", "shared", "models", "mlperf_tiny")

# TFLite schema numbers used below (schema.fbs).
FLOAT32, FLOAT16, INT32, UINT8, INT64, STRING, BOOL, INT16, INT8, BFLOAT16 = 0, 1, 2, 3, 4, 5, 6, 7, 9, 18
ADD, AVERAGE_POOL_2D, CONCATENATION, CONV_2D, DEPTHWISE_CONV_2D = 0, 1, 2, 3, 4
DEQUANTIZE, FULLY_CONNECTED, LOGISTIC, MAX_POOL_2D, MUL, RESHAPE = 6, 9, 14, 17, 18, 22
SOFTMAX, TANH, CUSTOM, PAD, MEAN, SQUEEZE, PADV2, TRANSPOSE_CONV = 25, 28, 32, 34, 40, 43, 60, 67
EXPAND_DIMS, QUANTIZE, BATCH_MATMUL, GELU = 70, 114, 126, 150
SIN, LOG = 66, 73
OPT_CONV, OPT_DW, OPT_POOL, OPT_FC, OPT_SOFTMAX, OPT_CONCAT = 1, 2, 5, 8, 9, 10
OPT_ADD, OPT_MUL, OPT_REDUCER = 11, 21, 27


# ---- reading a flatbuffer, to find the byte to patch ---------------------------

class FB:
    def __init__(self, data):
        self.b = bytearray(data)

    def u16(self, p): return struct.unpack_from("<H", self.b, p)[0]
    def u32(self, p): return struct.unpack_from("<I", self.b, p)[0]
    def i32(self, p): return struct.unpack_from("<i", self.b, p)[0]
    def put_u8(self, p, v): self.b[p] = v & 0xFF
    def put_u32(self, p, v): struct.pack_into("<I", self.b, p, v & 0xFFFFFFFF)
    def put_i32(self, p, v): struct.pack_into("<i", self.b, p, v)

    def field(self, t, slot):
        """Position of field `slot` of the table at t, or None."""
        vt = t - self.i32(t)
        if 4 + 2 * slot + 2 > self.u16(vt):
            return None
        off = self.u16(vt + 4 + 2 * slot)
        return t + off if off else None

    def need(self, t, slot, what):
        p = self.field(t, slot)
        if p is None:
            raise SystemExit("make_bad.py: the model has no %s field to patch" % what)
        return p

    def ref(self, p): return p + self.u32(p)
    def table(self, t, slot, what="table"): return self.ref(self.need(t, slot, what))
    def vec(self, t, slot, what="vector"):
        """(position of the length word, count)."""
        v = self.ref(self.need(t, slot, what))
        return v, self.u32(v)
    def vec_table(self, t, slot, i): return self.ref(self.vec(t, slot)[0] + 4 + 4 * i)

    # model structure
    def model(self): return self.u32(0)
    def subgraph(self): return self.vec_table(self.model(), 2, 0)
    def tensor(self, i): return self.vec_table(self.subgraph(), 0, i)
    def op(self, i): return self.vec_table(self.subgraph(), 3, i)
    def opcode(self, i): return self.vec_table(self.model(), 1, i)

    def op_code(self, i):
        c = self.opcode(self.u32(self.need(self.op(i), 0, "opcode_index")) if self.field(self.op(i), 0) else 0)
        dep = self.field(c, 0)
        new = self.field(c, 3)
        return max(struct.unpack_from("<b", self.b, dep)[0] if dep else 0, self.i32(new) if new else 0)

    def find_op(self, code):
        n = self.vec(self.subgraph(), 3)[1]
        for i in range(n):
            if self.op_code(i) == code:
                return i
        raise SystemExit("make_bad.py: no operator %d in the model" % code)


# ---- writing a flatbuffer, for the synthetic models ------------------------------
# Values: T(fields) a table with fields {slot: (kind, value)}; kinds are the
# scalar formats of struct ("b", "B", "i", "I", "f", "Q", "q"), "table",
# "str", "vec:<fmt>" (scalars), "vec:table". Laid out front to back: a parent
# comes before its children, so every uoffset is positive; a table object
# referenced twice is written once (the second reference must come earlier
# in the file than the table, as in a vector of tables).

class T:
    def __init__(self, **fields):
        self.fields = {}
        for k, v in fields.items():
            self.fields[int(k[1:])] = v      # keys are s0, s1, ...


class Builder:
    def __init__(self):
        self.b = bytearray()
        self.done = {}

    def align(self, n, rem=0):
        while len(self.b) % n != rem:
            self.b.append(0)

    def patch(self, at, target):
        struct.pack_into("<I", self.b, at, target - at)

    def table(self, t):
        if id(t) in self.done:
            return self.done[id(t)]
        slots = sorted(t.fields)
        nslots = slots[-1] + 1 if slots else 0
        self.align(2)
        vt = len(self.b)
        self.b += bytes(4 + 2 * nslots)
        # table: soffset, then fields, biggest first, each aligned in the file
        self.align(8, 4) if any(t.fields[s][0] in ("Q", "q") for s in slots) else self.align(4)
        start = len(self.b)
        self.done[id(t)] = start
        self.b += struct.pack("<i", start - vt)
        later = []
        order = sorted(slots, key=lambda s: -self.size(t.fields[s][0]))
        for s in order:
            kind, val = t.fields[s]
            sz = self.size(kind)
            while len(self.b) % sz:
                self.b.append(0)
            struct.pack_into("<H", self.b, vt + 4 + 2 * s, len(self.b) - start)
            if len(kind) == 1:
                self.b += struct.pack("<" + kind, val)
            else:
                later.append((len(self.b), kind, val))
                self.b += bytes(4)
        struct.pack_into("<HH", self.b, vt, 4 + 2 * nslots, len(self.b) - start)
        for at, kind, val in later:
            self.patch(at, self.obj(kind, val))
        return start

    @staticmethod
    def size(kind):
        return struct.calcsize("<" + kind) if len(kind) == 1 else 4

    def obj(self, kind, val):
        if kind == "table":
            return self.table(val)
        if kind == "str":
            self.align(4)
            p = len(self.b)
            raw = val.encode() if isinstance(val, str) else val
            self.b += struct.pack("<I", len(raw)) + raw + b"\0"
            return p
        if kind == "vec:table":
            self.align(4)
            p = len(self.b)
            self.b += struct.pack("<I", len(val)) + bytes(4 * len(val))
            for i, t in enumerate(val):
                self.patch(p + 4 + 4 * i, self.table(t))
            return p
        fmt = kind[4:]
        sz = struct.calcsize("<" + fmt)
        self.align(max(4, sz), 4 if sz == 8 else 0)   # elements aligned, too
        if sz == 1:
            self.align(16, 12)                        # buffer data: force_align 16
        p = len(self.b)
        self.b += struct.pack("<I", len(val))
        self.b += b"".join(struct.pack("<" + fmt, x) for x in val)
        return p

    def finish(self, root):
        self.b += bytes(8)
        self.b[4:8] = b"TFL3"
        self.patch(0, self.table(root))
        self.align(4)
        return bytes(self.b)


def tensor(name, shape, ttype=INT8, buffer=0, scale=None, zp=None, qdim=None, sig=None, extra=None):
    f = {"s0": ("vec:i", shape), "s1": ("b", ttype), "s2": ("I", buffer), "s3": ("str", name)}
    if scale is not None:
        q = {"s2": ("vec:f", scale), "s3": ("vec:q", zp if zp is not None else [0] * len(scale))}
        if qdim is not None:
            q["s6"] = ("i", qdim)
        f["s4"] = ("table", T(**q))
    if sig is not None:
        f["s7"] = ("vec:i", sig)
    if extra:
        f.update(extra)
    return T(**f)


def operator(opcode, ins, outs, opt_type=0, opt=None):
    f = {"s0": ("I", opcode), "s1": ("vec:i", ins), "s2": ("vec:i", outs)}
    if opt_type:
        f["s3"] = ("B", opt_type)
    if opt is not None:
        f["s4"] = ("table", T(**opt))
    return T(**f)


def model(codes, tensors, ops, inputs, outputs, buffers, version=3, nsub=1):
    """codes: builtin codes, or (code, custom name); buffers: bytes or T."""
    oc = []
    for c in codes:
        code, custom = c if isinstance(c, tuple) else (c, None)
        f = {"s0": ("b", min(code, 127)), "s3": ("i", code)}
        if custom:
            f["s1"] = ("str", custom)
        oc.append(T(**f))
    bufs = [b if isinstance(b, T) else T(s0=("vec:B", list(b))) if b else T() for b in buffers]
    sg = T(s0=("vec:table", tensors), s1=("vec:i", inputs), s2=("vec:i", outputs),
           s3=("vec:table", ops), s4=("str", "main"))
    root = T(s0=("I", version), s1=("vec:table", oc), s2=("vec:table", [sg] * nsub),
             s3=("str", "htc test"), s4=("vec:table", bufs))
    return Builder().finish(root)


def i32s(*v): return struct.pack("<%di" % len(v), *v)


# ---- synthetic models -------------------------------------------------------------

def conv_model(code=CONV_2D, opt_type=OPT_CONV, opt=None, w_extra=None, inputs=None, outputs=None):
    """input [1,4,4,2] -> op(input, weights [3,1,1,2], bias [3]) -> [1,4,4,3]."""
    if opt is None:
        opt = {"s0": ("b", 0), "s1": ("i", 1), "s2": ("i", 1), "s3": ("b", 1)}
    ts = [tensor("input", [1, 4, 4, 2], scale=[0.5], zp=[-1], sig=[-1, 4, 4, 2]),
          tensor("weights", [3, 1, 1, 2], buffer=1, scale=[0.1, 0.2, 0.3], zp=[0, 0, 0], qdim=0, extra=w_extra),
          tensor("bias", [3], INT32, buffer=2, scale=[0.05, 0.1, 0.15], zp=[0, 0, 0]),
          tensor("output", [1, 4, 4, 3], scale=[0.25], zp=[3], sig=[-1, 4, 4, 3])]
    return model([code], ts, [operator(0, [0, 1, 2], [3], opt_type, opt)],
                 inputs if inputs is not None else [0], outputs if outputs is not None else [3],
                 [b"", bytes([1, 2, 3, 4, 5, 6]), i32s(1, -2, 3)])


def all_ops_model():
    """One of every operator the reader maps, chained on a [1,4,4,4] int8
    activation; a valid flatbuffer that the TFLite interpreter also loads."""
    q = dict(scale=[0.5], zp=[0])
    ts = [tensor("in", [1, 4, 4, 4], **q),                                  # 0
          tensor("w_conv", [4, 1, 1, 4], buffer=1, scale=[0.1] * 4, zp=[0] * 4, qdim=0),
          tensor("b_conv", [4], INT32, buffer=2, scale=[0.05] * 4, zp=[0] * 4),
          tensor("conv", [1, 4, 4, 4], **q),                                # 3
          tensor("w_dw", [1, 3, 3, 4], buffer=3, scale=[0.1] * 4, zp=[0] * 4, qdim=3),
          tensor("dw", [1, 4, 4, 4], **q),                                  # 5
          tensor("add", [1, 4, 4, 4], **q),
          tensor("mul", [1, 4, 4, 4], **q),
          tensor("avg", [1, 2, 2, 4], **q),                                 # 8
          tensor("max", [1, 2, 2, 4], **q),
          tensor("pads", [4, 2], INT32, buffer=4),
          tensor("pad", [1, 4, 4, 4], **q),                                 # 11
          tensor("padv2", [1, 4, 4, 4], **q),
          tensor("cv", [], INT8, buffer=5, **q),
          tensor("concat", [1, 4, 4, 8], **q),                              # 14
          tensor("axes", [2], INT32, buffer=6),
          tensor("mean", [1, 1, 1, 8], **q),                                # 16
          tensor("shape", [2], INT32, buffer=7),
          tensor("flat", [1, 8], **q),                                      # 18
          tensor("w_fc", [3, 8], buffer=8, **q),
          tensor("fc", [1, 3], **q),                                        # 20
          tensor("sq", [3], **q),
          tensor("ed_axis", [], INT32, buffer=9),
          tensor("ed", [1, 3], **q),                                        # 23
          tensor("sm", [1, 3], scale=[1 / 256], zp=[-128]),
          tensor("lg", [1, 3], scale=[1 / 256], zp=[-128]),                 # 25
          tensor("f", [1, 3], FLOAT32),
          tensor("q", [1, 3], **q)]                                         # 27
    codes = [CONV_2D, DEPTHWISE_CONV_2D, ADD, MUL, AVERAGE_POOL_2D, MAX_POOL_2D, PAD, PADV2,
             CONCATENATION, MEAN, RESHAPE, FULLY_CONNECTED, SQUEEZE, EXPAND_DIMS, SOFTMAX, LOGISTIC,
             DEQUANTIZE, QUANTIZE]
    c = {k: i for i, k in enumerate(codes)}
    pool = {"s0": ("b", 1), "s1": ("i", 2), "s2": ("i", 2), "s3": ("i", 2), "s4": ("i", 2)}
    ops = [operator(c[CONV_2D], [0, 1, 2], [3], OPT_CONV, {"s1": ("i", 1), "s2": ("i", 1), "s3": ("b", 1)}),
           operator(c[DEPTHWISE_CONV_2D], [3, 4, -1], [5], OPT_DW,
                    {"s1": ("i", 1), "s2": ("i", 1), "s3": ("i", 1), "s4": ("b", 3)}),
           operator(c[ADD], [3, 5], [6], OPT_ADD, {"s0": ("b", 0)}),
           operator(c[MUL], [6, 5], [7], OPT_MUL, {}),
           operator(c[AVERAGE_POOL_2D], [7], [8], OPT_POOL, pool),
           operator(c[MAX_POOL_2D], [7], [9], OPT_POOL, pool),
           operator(c[PAD], [7, 10], [11]),
           operator(c[PADV2], [7, 10, 13], [12]),
           operator(c[CONCATENATION], [11, 12], [14], OPT_CONCAT, {"s0": ("i", -1)}),
           operator(c[MEAN], [14, 15], [16], OPT_REDUCER, {"s0": ("B", 1)}),
           operator(c[RESHAPE], [16, 17], [18]),
           operator(c[FULLY_CONNECTED], [18, 19, -1], [20], OPT_FC, {"s0": ("b", 0)}),
           operator(c[SQUEEZE], [20], [21]),
           operator(c[EXPAND_DIMS], [21, 22], [23]),
           operator(c[SOFTMAX], [23], [24], OPT_SOFTMAX, {"s0": ("f", 1.0)}),
           operator(c[LOGISTIC], [24], [25]),
           operator(c[DEQUANTIZE], [25], [26]),
           operator(c[QUANTIZE], [26], [27])]
    bufs = [b"", bytes(range(16)), i32s(1, 2, 3, 4), bytes(range(36)), i32s(0, 0, 0, 0, 0, 0, 0, 0),
            bytes([0]), i32s(1, -2), i32s(1, 8), bytes(range(24)), i32s(0)]
    return model(codes, ts, ops, [0], [27], bufs)


def offset_buffer_model(off_delta=0):
    """Weights in Buffer.offset/size (large-model layout) after the flatbuffer."""
    ts = [tensor("in", [1, 4], scale=[0.5], zp=[0]),
          tensor("w", [2, 4], buffer=1, scale=[0.1], zp=[0]),
          tensor("out", [1, 2], scale=[0.5], zp=[0])]
    def build(offset):
        buf1 = T(s1=("Q", offset), s2=("Q", 8))
        return model([FULLY_CONNECTED], ts, [operator(0, [0, 1, -1], [2], OPT_FC, {"s0": ("b", 0)})],
                     [0], [2], [b"", buf1])
    start = (len(build(0)) + 15) // 16 * 16     # the size does not depend on the value
    fb = build(start + off_delta)
    return fb + bytes(start - len(fb)) + bytes(range(8))


def misc_types_model():
    """The other tensor types, int64 MEAN axes and an int64 constant whose
    Buffer.offset is not 8-aligned (the reader copies it)."""
    ts = [tensor("in", [1, 2, 2, 3], INT16, scale=[0.5], zp=[0]),
          tensor("axes", [1], INT64, buffer=1),
          tensor("mean", [1, 3], INT16, scale=[0.5], zp=[0]),
          tensor("flags", [2], BOOL, buffer=2),
          tensor("u8", [2], UINT8, buffer=3, scale=[0.1], zp=[128]),
          tensor("big", [1], INT64, buffer=4)]
    def build(offset):
        return model([MEAN], ts, [operator(0, [0, 1], [2], OPT_REDUCER, {"s0": ("B", 0)})], [0], [2],
                     [b"", struct.pack("<q", -3), bytes([1, 0]), bytes([7, 9]),
                      T(s1=("Q", offset), s2=("Q", 8))])
    start = (len(build(0)) + 15) // 16 * 16 + 4
    fb = build(start)
    return fb + bytes(start - len(fb)) + struct.pack("<q", 1 << 40)


def shared_blowup_model():
    """Every entry of the tensor vector is the same tensor, whose per-channel
    quantization is long: cheap in bytes, quadratic to read naively."""
    n = 20000
    t = tensor("big", [n], scale=[0.5] * n, zp=[0] * n, qdim=0)
    return model([], [t] * 16384, [], [0], [0], [b""])


def unused_bad_tensors_model():
    """conv_model with a fused TANH (refused), a FLOAT16 graph input no
    operator reads and a BFLOAT16 tensor nobody uses: the tensors' problems
    are listed too, the graph input first, the unused tensor last."""
    opt = {"s0": ("b", 0), "s1": ("i", 1), "s2": ("i", 1), "s3": ("b", 4)}
    ts = [tensor("input", [1, 4, 4, 2], scale=[0.5], zp=[-1]),
          tensor("weights", [3, 1, 1, 2], buffer=1, scale=[0.1, 0.2, 0.3], zp=[0, 0, 0], qdim=0),
          tensor("bias", [3], INT32, buffer=2, scale=[0.05, 0.1, 0.15], zp=[0, 0, 0]),
          tensor("output", [1, 4, 4, 3], scale=[0.25], zp=[3]),
          tensor("spare_in", [1, 2], FLOAT16),
          tensor("spare", [3], BFLOAT16)]
    return model([CONV_2D], ts, [operator(0, [0, 1, 2], [3], OPT_CONV, opt)], [0, 4], [3],
                 [b"", bytes([1, 2, 3, 4, 5, 6]), i32s(1, -2, 3)])


def synthetic():
    fc = {"s0": ("b", 0), "s1": ("b", 1)}
    mean_ts = [tensor("in", [1, 4, 4, 2], scale=[0.5], zp=[0]),
               tensor("axes", [2], INT32),
               tensor("out", [1, 2], scale=[0.5], zp=[0])]
    sparse = {"s6": ("table", T(s0=("vec:i", [0, 1])))}
    return {
        "custom_op": model([(CUSTOM, "MyCustomOp")], [tensor("a", [1]), tensor("b", [1])],
                  [operator(0, [0], [1])], [0], [1], [b""]),
        "transpose_conv": conv_model(code=TRANSPOSE_CONV, opt_type=0),
        "batch_matmul": conv_model(code=BATCH_MATMUL, opt_type=0),
        "gelu_code_150": conv_model(code=GELU, opt_type=0),
        "unknown_code_999": conv_model(code=999, opt_type=0),
        "fc_shuffled_weights": model([FULLY_CONNECTED],
                                     [tensor("in", [1, 4]), tensor("w", [2, 4]), tensor("out", [1, 2])],
                                     [operator(0, [0, 1], [2], OPT_FC, fc)], [0], [2], [b""]),
        "mean_axes_not_constant": model([MEAN], mean_ts, [operator(0, [0, 1], [2], OPT_REDUCER, {})],
                                        [0], [2], [b""]),
        "conv_wrong_options": conv_model(opt_type=OPT_POOL),
        "conv_dilation_zero": conv_model(opt={"s1": ("i", 1), "s2": ("i", 1), "s4": ("i", 0)}),
        "conv_missing_input": conv_model(),   # patched below: input 0 = -1
        "string_tensor": conv_model(w_extra={"s1": ("b", STRING)}),
        "sparse_tensor": conv_model(w_extra=sparse),
        "no_outputs": conv_model(outputs=[]),
        # 100000 x 100000 int8: the error states the numbers
        "tensor_too_large": model([LOGISTIC], [tensor("x", [1, 4]), tensor("big", [100000, 100000])],
                                  [operator(0, [0], [1])], [0], [1], [b""]),
        # 50000 x 20000 int32: 1e9 elements fit, 4e9 bytes do not
        "tensor_bytes_too_large": model([LOGISTIC], [tensor("x", [1, 4]), tensor("wide", [50000, 20000], INT32)],
                                        [operator(0, [0], [1])], [0], [1], [b""]),
        # input -> output with nothing in between (the output is the input)
        "no_operators": model([], [tensor("x", [1, 4])], [], [0], [0], [b""]),
        "graph_input_twice": conv_model(inputs=[0, 0]),
        "too_many_outputs": conv_model(outputs=[3] * 17),
        "no_subgraph": model([], [], [], [], [], [b""], nsub=0),
        "buffer_offset_out_of_bounds": offset_buffer_model(off_delta=4),
        "buffer_index_out_of_range": conv_model(w_extra={"s2": ("I", 7)}),
        "quant_zero_point_missing": conv_model(w_extra={"s4": ("table", T(s2=("vec:f", [0.5, 0.5, 0.5])))}),
        "quant_scale_nan": conv_model(w_extra={"s4": ("table", T(s2=("vec:f", [0.5, float("nan"), 0.5]),
                                                                  s3=("vec:q", [0, 0, 0])))}),
        "shared_data_blowup": shared_blowup_model(),
        "tensor_problems_unused": unused_bad_tensors_model(),
    }


# ---- cases from the real models ---------------------------------------------------

def load(name):
    with open(os.path.join(MODELS, name), "rb") as f:
        return f.read()


def patched(data, fn):
    fb = FB(data)
    fn(fb)
    return bytes(fb.b)


def real_cases():
    kws = load("kws_ref_model.tflite")
    resnet = load("pretrainedResnet_quant.tflite")
    c = {}
    c["empty"] = b""
    c["truncated_6_bytes"] = kws[:6]
    c["truncated_header"] = kws[:16]
    c["truncated_half"] = kws[:len(kws) // 2]
    c["truncated_last_byte"] = kws[:-1] if FB(kws).u32(0) else kws
    c["bad_identifier"] = kws[:4] + b"XYZ9" + kws[8:]
    c["root_offset_out_of_bounds"] = struct.pack("<I", 0x7FFFFFF0) + kws[4:]
    c["root_offset_misaligned"] = patched(kws, lambda f: f.put_u32(0, f.u32(0) + 2))
    c["version_4"] = patched(kws, lambda f: f.put_u32(f.need(f.model(), 0, "version"), 4))

    def two_subgraphs(f):
        v, n = f.vec(f.model(), 2)
        f.put_u32(v, 2)
    c["two_subgraphs"] = patched(kws, two_subgraphs)

    def softmax_to(code):
        def fn(f):
            op = f.find_op(SOFTMAX)
            oc = f.opcode(f.u32(f.need(f.op(op), 0, "opcode_index")))
            f.put_u8(f.need(oc, 0, "deprecated_builtin_code"), min(code, 127))
            p = f.field(oc, 3)
            if p is not None:
                f.put_i32(p, code)
        return fn
    c["unsupported_op_sin"] = patched(kws, softmax_to(SIN))
    c["unsupported_op_log"] = patched(resnet, softmax_to(LOG))
    c["custom_op_in_real_model"] = patched(kws, softmax_to(CUSTOM))

    def op_input(op, k, value):
        def fn(f):
            v, n = f.vec(f.op(op), 1, "inputs")
            f.put_i32(v + 4 + 4 * k, value)
        return fn
    c["op_input_out_of_range"] = patched(kws, op_input(0, 1, 9999))
    c["op_input_absent_required"] = patched(kws, op_input(0, 0, -1))
    c["op_input_negative"] = patched(kws, op_input(0, 1, -7))
    c["opcode_index_out_of_range"] = patched(kws, lambda f: f.put_u32(f.need(f.op(1), 0, "opcode_index"), 77))

    def act(code):
        def fn(f):
            opt = f.table(f.op(0), 4, "builtin_options")
            f.put_u8(f.need(opt, 3, "fused_activation_function"), code)
        return fn
    c["fused_activation_tanh"] = patched(kws, act(4))
    c["stride_zero"] = patched(kws, lambda f: f.put_i32(f.need(f.table(f.op(0), 4), 1, "stride_w"), 0))

    def pool_padding(f):
        opt = f.table(f.op(f.find_op(AVERAGE_POOL_2D)), 4, "builtin_options")
        f.put_u8(f.need(opt, 0, "padding"), 5)
    c["padding_unknown"] = patched(kws, pool_padding)

    def ttype(i, t):
        return lambda f: f.put_u8(f.need(f.tensor(i), 1, "type"), t)
    c["tensor_type_float16"] = patched(kws, ttype(17, FLOAT16))
    c["tensor_type_unknown"] = patched(kws, ttype(17, 99))

    def shape_dim(i, d, v):
        def fn(f):
            s, n = f.vec(f.tensor(i), 0, "shape")
            f.put_i32(s + 4 + 4 * d, v)
        return fn
    c["buffer_size_mismatch"] = patched(kws, shape_dim(16, 0, 13))
    c["negative_dimension"] = patched(kws, shape_dim(22, 2, -5))

    def sig_dim(i, d, v):
        def fn(f):
            s, n = f.vec(f.tensor(i), 7, "shape_signature")
            f.put_i32(s + 4 + 4 * d, v)
        return fn
    c["shape_signature_mismatch"] = patched(kws, sig_dim(22, 1, 26))
    c["rank_too_large"] = patched(kws, lambda f: f.put_u32(f.vec(f.tensor(22), 0)[0], 7))
    c["shape_vector_out_of_bounds"] = patched(kws, lambda f: f.put_u32(f.vec(f.tensor(22), 0)[0], 0x3FFFFFFF))
    c["quantized_dimension_wrong"] = patched(
        kws, lambda f: f.put_i32(f.need(f.table(f.tensor(5), 4), 6, "quantized_dimension"), 1))

    def vtable(f):
        t = f.tensor(3)
        f.put_i32(t, -0x100000)
    c["tensor_vtable_out_of_bounds"] = patched(kws, vtable)

    def vtable_size(f):
        t = f.tensor(3)
        vt = t - f.i32(t)
        struct.pack_into("<H", f.b, vt + 2, 0xFFFF)
    c["tensor_table_size_too_large"] = patched(kws, vtable_size)

    def name_unterminated(f):
        s = f.ref(f.need(f.tensor(0), 3, "name"))
        n = f.u32(s)
        f.b[s + 4 + n] = ord("x")
    c["name_not_terminated"] = patched(kws, name_unterminated)
    c["buffer_data_vector_too_long"] = patched(
        kws, lambda f: f.put_u32(f.ref(f.need(f.vec_table(f.model(), 4, f.u32(f.need(f.tensor(17), 2, "buffer"))), 0, "data")),
                                 0x7FFFFFF0))

    def graph_output(v):
        def fn(f):
            s, n = f.vec(f.subgraph(), 2, "outputs")
            f.put_i32(s + 4, v)
        return fn
    c["graph_output_out_of_range"] = patched(kws, graph_output(35))

    # several refusals, found by the reader (operators 0, 12) and lower
    # (operator 5: uint8 weights under int8 activations): every one listed,
    # in graph order (several_problems.expect: the first line, then one each)
    def several(f):
        softmax_to(SIN)(f)
        act(4)(f)
        ttype(11, UINT8)(f)
    c["several_problems"] = patched(kws, several)

    # tensor problems (tensor 17: conv 0's weights, 22: its output, read by
    # operator 1, 16: FULLY_CONNECTED 11's weights) among operator problems
    # (lower's uint8 weights at 5, SIN at 12): each listed once, by the first
    # operator that uses the tensor; operator 1 (its input's problem listed
    # by operator 0) is left out without a line of its own
    def tensors_and_ops(f):
        ttype(17, FLOAT16)(f)
        sig_dim(22, 1, 26)(f)
        shape_dim(16, 0, 13)(f)
        ttype(11, UINT8)(f)
        softmax_to(SIN)(f)
    c["tensor_problems_in_graph_order"] = patched(kws, tensors_and_ops)

    # operator problems the reader finds (stride 0 at operator 0, an unknown
    # padding at the AVERAGE_POOL_2D, SIN at 12) and lower's (uint8 weights
    # at 5): every one listed, in graph order
    def reader_ops(f):
        f.put_i32(f.need(f.table(f.op(0), 4), 1, "stride_w"), 0)
        pool_padding(f)
        ttype(11, UINT8)(f)
        softmax_to(SIN)(f)
    c["operator_problems_in_graph_order"] = patched(kws, reader_ops)
    return c


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--seeds":
        out = args[1]
        os.makedirs(out, exist_ok=True)
        seeds = {"all_ops": all_ops_model(), "conv": conv_model(), "offset_buffer": offset_buffer_model(),
                 "misc_types": misc_types_model()}
        for name, data in seeds.items():
            with open(os.path.join(out, name + ".tflite"), "wb") as f:
                f.write(data)
        return
    if len(args) != 1:
        raise SystemExit("usage: make_bad.py OUTDIR | --seeds OUTDIR")
    out = args[0]
    os.makedirs(out, exist_ok=True)
    cases = real_cases()
    syn = synthetic()

    # conv_missing_input: a required input given as -1
    fb = FB(syn["conv_missing_input"])
    v, n = fb.vec(fb.op(0), 1)
    fb.put_i32(v + 4, -1)
    syn["conv_missing_input"] = bytes(fb.b)

    cases.update(syn)
    for name, data in sorted(cases.items()):
        with open(os.path.join(out, name + ".tflite"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
