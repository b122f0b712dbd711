"""tflite_build.py - write small int8 TFLite models for the operator tests.

Built with the flatbuffers object API of the TFLite schema that ships with
tflite-micro, so the files are what the TFLite converter would write:
schema version 3, buffer 0 the empty sentinel, every constant in its own
buffer (16-byte aligned), both deprecated_builtin_code and builtin_code set.

    m = Model()
    x = m.input([1, 8, 8, 3], scale=0.05, zp=-3)
    y = m.conv2d(x, out_ch=4, kernel=3, out_scale=0.1, out_zp=5, rng=rng)
    m.output(y)
    m.save("conv.tflite")

Low level: m.tensor(...), m.const(...), m.op(NAME, inputs, outputs, **options).
The helpers (conv2d, depthwise_conv2d, fully_connected, add, mul, pool,
mean, pad, concat, reshape, softmax, logistic, quantize, dequantize) compute
the output shape the way TFLite does and draw random weights from `rng`.
"""
import math

import flatbuffers
import numpy as np

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

TYPES = {
    "int8": (S.TensorType.INT8, np.int8),
    "uint8": (S.TensorType.UINT8, np.uint8),
    "int16": (S.TensorType.INT16, np.int16),
    "int32": (S.TensorType.INT32, np.int32),
    "int64": (S.TensorType.INT64, np.int64),
    "float32": (S.TensorType.FLOAT32, np.float32),
    "bool": (S.TensorType.BOOL, np.bool_),
    # read only (tests/tflm_suite.py: TFLM's audio preprocessors), htc refuses them
    "uint16": (S.TensorType.UINT16, np.uint16),
    "uint32": (S.TensorType.UINT32, np.uint32),
    "uint64": (S.TensorType.UINT64, np.uint64),
}
NP_OF_TFL = {code: npt for code, npt in TYPES.values()}

ACT = {
    None: S.ActivationFunctionType.NONE,
    "NONE": S.ActivationFunctionType.NONE,
    "RELU": S.ActivationFunctionType.RELU,
    "RELU6": S.ActivationFunctionType.RELU6,
    "RELU_N1_TO_1": S.ActivationFunctionType.RELU_N1_TO_1,
}
PADDING = {"SAME": S.Padding.SAME, "VALID": S.Padding.VALID}

# op name -> (options union type, options class or None, operator version as
# the converter writes it for int8)
OPS = {
    "CONV_2D": (S.BuiltinOptions.Conv2DOptions, S.Conv2DOptionsT, 3),
    "DEPTHWISE_CONV_2D": (S.BuiltinOptions.DepthwiseConv2DOptions, S.DepthwiseConv2DOptionsT, 3),
    "FULLY_CONNECTED": (S.BuiltinOptions.FullyConnectedOptions, S.FullyConnectedOptionsT, 4),
    "ADD": (S.BuiltinOptions.AddOptions, S.AddOptionsT, 2),
    "MUL": (S.BuiltinOptions.MulOptions, S.MulOptionsT, 2),
    "AVERAGE_POOL_2D": (S.BuiltinOptions.Pool2DOptions, S.Pool2DOptionsT, 2),
    "MAX_POOL_2D": (S.BuiltinOptions.Pool2DOptions, S.Pool2DOptionsT, 2),
    "MEAN": (S.BuiltinOptions.ReducerOptions, S.ReducerOptionsT, 2),
    "PAD": (S.BuiltinOptions.PadOptions, S.PadOptionsT, 2),
    "PADV2": (S.BuiltinOptions.PadV2Options, S.PadV2OptionsT, 2),
    "CONCATENATION": (S.BuiltinOptions.ConcatenationOptions, S.ConcatenationOptionsT, 2),
    "RESHAPE": (S.BuiltinOptions.ReshapeOptions, S.ReshapeOptionsT, 1),
    "SOFTMAX": (S.BuiltinOptions.SoftmaxOptions, S.SoftmaxOptionsT, 2),
    "LOGISTIC": (S.BuiltinOptions.NONE, None, 2),
    "QUANTIZE": (S.BuiltinOptions.QuantizeOptions, S.QuantizeOptionsT, 2),
    "DEQUANTIZE": (S.BuiltinOptions.DequantizeOptions, S.DequantizeOptionsT, 2),
    # beyond the convolutional core (tests/test_ops.py, the Keras zoo's operators)
    "TANH": (S.BuiltinOptions.NONE, None, 2),
    "HARD_SWISH": (S.BuiltinOptions.NONE, None, 1),
    "RELU": (S.BuiltinOptions.NONE, None, 2),
    "RELU6": (S.BuiltinOptions.NONE, None, 2),
    "LEAKY_RELU": (S.BuiltinOptions.LeakyReluOptions, S.LeakyReluOptionsT, 2),
    "RSQRT": (S.BuiltinOptions.NONE, None, 2),
    "ABS": (S.BuiltinOptions.NONE, None, 2),
    "ELU": (S.BuiltinOptions.NONE, None, 1),
    "GELU": (S.BuiltinOptions.GeluOptions, S.GeluOptionsT, 2),
    "NEG": (S.BuiltinOptions.NegOptions, S.NegOptionsT, 1),
    "SUB": (S.BuiltinOptions.SubOptions, S.SubOptionsT, 2),
    "SQUARED_DIFFERENCE": (S.BuiltinOptions.SquaredDifferenceOptions, S.SquaredDifferenceOptionsT, 2),
    "MAXIMUM": (S.BuiltinOptions.MaximumMinimumOptions, S.MaximumMinimumOptionsT, 2),
    "MINIMUM": (S.BuiltinOptions.MaximumMinimumOptions, S.MaximumMinimumOptionsT, 2),
    "PRELU": (S.BuiltinOptions.NONE, None, 1),
    "BATCH_MATMUL": (S.BuiltinOptions.BatchMatMulOptions, S.BatchMatMulOptionsT, 2),
    "TRANSPOSE_CONV": (S.BuiltinOptions.TransposeConvOptions, S.TransposeConvOptionsT, 2),
    "RESIZE_BILINEAR": (S.BuiltinOptions.ResizeBilinearOptions, S.ResizeBilinearOptionsT, 3),
    "RESIZE_NEAREST_NEIGHBOR": (S.BuiltinOptions.ResizeNearestNeighborOptions, S.ResizeNearestNeighborOptionsT, 3),
    "TILE": (S.BuiltinOptions.TileOptions, S.TileOptionsT, 2),
    "TRANSPOSE": (S.BuiltinOptions.TransposeOptions, S.TransposeOptionsT, 2),
    "STRIDED_SLICE": (S.BuiltinOptions.StridedSliceOptions, S.StridedSliceOptionsT, 2),
    "SLICE": (S.BuiltinOptions.SliceOptions, S.SliceOptionsT, 2),
    "SPLIT": (S.BuiltinOptions.SplitOptions, S.SplitOptionsT, 2),
    "SPLIT_V": (S.BuiltinOptions.SplitVOptions, S.SplitVOptionsT, 2),
    "PACK": (S.BuiltinOptions.PackOptions, S.PackOptionsT, 2),
    "UNPACK": (S.BuiltinOptions.UnpackOptions, S.UnpackOptionsT, 2),
    "GATHER": (S.BuiltinOptions.GatherOptions, S.GatherOptionsT, 2),
    "SUM": (S.BuiltinOptions.ReducerOptions, S.ReducerOptionsT, 2),
    "REDUCE_MAX": (S.BuiltinOptions.ReducerOptions, S.ReducerOptionsT, 2),
    "L2_NORMALIZATION": (S.BuiltinOptions.L2NormOptions, S.L2NormOptionsT, 2),
    "SPACE_TO_BATCH_ND": (S.BuiltinOptions.SpaceToBatchNDOptions, S.SpaceToBatchNDOptionsT, 2),
    "BATCH_TO_SPACE_ND": (S.BuiltinOptions.BatchToSpaceNDOptions, S.BatchToSpaceNDOptionsT, 2),
    "SHAPE": (S.BuiltinOptions.ShapeOptions, S.ShapeOptionsT, 1),
    "DEPTH_TO_SPACE": (S.BuiltinOptions.DepthToSpaceOptions, S.DepthToSpaceOptionsT, 2),
    "SPACE_TO_DEPTH": (S.BuiltinOptions.SpaceToDepthOptions, S.SpaceToDepthOptionsT, 2),
    "BROADCAST_TO": (S.BuiltinOptions.BroadcastToOptions, S.BroadcastToOptionsT, 2),
    "REDUCE_MIN": (S.BuiltinOptions.ReducerOptions, S.ReducerOptionsT, 2),
    "REVERSE_V2": (S.BuiltinOptions.ReverseV2Options, S.ReverseV2OptionsT, 2),
    "ARG_MAX": (S.BuiltinOptions.ArgMaxOptions, S.ArgMaxOptionsT, 2),
    "ARG_MIN": (S.BuiltinOptions.ArgMinOptions, S.ArgMinOptionsT, 2),
    "MIRROR_PAD": (S.BuiltinOptions.MirrorPadOptions, S.MirrorPadOptionsT, 2),
    # recurrent (tests/test_rnn.py)
    "UNIDIRECTIONAL_SEQUENCE_LSTM": (S.BuiltinOptions.UnidirectionalSequenceLSTMOptions,
                                     S.UnidirectionalSequenceLSTMOptionsT, 3),
    "SVDF": (S.BuiltinOptions.SVDFOptions, S.SVDFOptionsT, 3),
    "WHILE": (S.BuiltinOptions.WhileOptions, S.WhileOptionsT, 1),
    # TFLite Micro parity (tests/test_ops_parity.py)
    "EQUAL": (S.BuiltinOptions.EqualOptions, S.EqualOptionsT, 2),
    "NOT_EQUAL": (S.BuiltinOptions.NotEqualOptions, S.NotEqualOptionsT, 2),
    "LESS": (S.BuiltinOptions.LessOptions, S.LessOptionsT, 2),
    "LESS_EQUAL": (S.BuiltinOptions.LessEqualOptions, S.LessEqualOptionsT, 2),
    "GREATER": (S.BuiltinOptions.GreaterOptions, S.GreaterOptionsT, 2),
    "GREATER_EQUAL": (S.BuiltinOptions.GreaterEqualOptions, S.GreaterEqualOptionsT, 2),
    "LOGICAL_AND": (S.BuiltinOptions.LogicalAndOptions, S.LogicalAndOptionsT, 1),
    "LOGICAL_OR": (S.BuiltinOptions.LogicalOrOptions, S.LogicalOrOptionsT, 1),
    "LOGICAL_NOT": (S.BuiltinOptions.LogicalNotOptions, S.LogicalNotOptionsT, 1),
    "SELECT_V2": (S.BuiltinOptions.SelectV2Options, S.SelectV2OptionsT, 2),
    "CAST": (S.BuiltinOptions.CastOptions, S.CastOptionsT, 2),
    "FILL": (S.BuiltinOptions.FillOptions, S.FillOptionsT, 2),
    "ZEROS_LIKE": (S.BuiltinOptions.ZerosLikeOptions, S.ZerosLikeOptionsT, 1),
    "GATHER_ND": (S.BuiltinOptions.GatherNdOptions, S.GatherNdOptionsT, 2),
    "EMBEDDING_LOOKUP": (S.BuiltinOptions.NONE, None, 2),
    "DYNAMIC_UPDATE_SLICE": (S.BuiltinOptions.DynamicUpdateSliceOptions, S.DynamicUpdateSliceOptionsT, 1),
    "ADD_N": (S.BuiltinOptions.AddNOptions, S.AddNOptionsT, 1),
    "DIV": (S.BuiltinOptions.DivOptions, S.DivOptionsT, 2),
    "CUMSUM": (S.BuiltinOptions.CumsumOptions, S.CumsumOptionsT, 1),
    "BROADCAST_ARGS": (S.BuiltinOptions.NONE, None, 1),
    "REDUCE_ALL": (S.BuiltinOptions.ReducerOptions, S.ReducerOptionsT, 1),
    "LOG_SOFTMAX": (S.BuiltinOptions.LogSoftmaxOptions, S.LogSoftmaxOptionsT, 2),
}

OP_NAME = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}


def builtin_name(opcode):
    """Operator name of an OperatorCodeT (old files only set the deprecated code)."""
    return OP_NAME[max(opcode.builtinCode, opcode.deprecatedBuiltinCode)]


class _AlignedBufferT(S.BufferT):
    """BufferT whose data starts on a 16-byte boundary, as the converter aligns it."""

    def Pack(self, builder):
        data = None
        if self.data is not None:
            payload = bytes(self.data)
            builder.StartVector(1, len(payload), 16)
            builder.head = builder.head - len(payload)
            builder.Bytes[builder.head:builder.head + len(payload)] = payload
            builder.vectorNumElems = len(payload)
            data = builder.EndVector()
        S.BufferStart(builder)
        if data is not None:
            S.BufferAddData(builder, data)
        return S.BufferEnd(builder)


def _as_list(v):
    if v is None:
        return None
    if isinstance(v, (list, tuple, np.ndarray)):
        return [x for x in v]
    return [v]


def same_out(size, stride):
    return (size + stride - 1) // stride


def valid_out(size, kernel, stride, dilation=1):
    eff = (kernel - 1) * dilation + 1
    return (size - eff + stride) // stride


def out_size(padding, size, kernel, stride, dilation=1):
    return same_out(size, stride) if padding == "SAME" else valid_out(size, kernel, stride, dilation)


class Model:
    def __init__(self, description="htc test model"):
        self.description = description
        self.tensors = []          # TensorT
        self.buffers = [S.BufferT()]  # buffer 0: the empty sentinel
        self.operators = []        # OperatorT
        self.opcodes = []          # OperatorCodeT
        self._opcode_index = {}
        self.inputs = []
        self.outputs = []
        self.extra_subgraphs = []  # SubGraphT after the main one (control flow bodies)

    # ---- tensors -----------------------------------------------------------
    def tensor(self, shape, dtype="int8", scale=None, zp=None, axis=0, data=None, name=None):
        """Add a tensor; returns its index. scale/zp: number (per tensor) or list
        (per channel along `axis`). data: numpy array for a constant."""
        t = S.TensorT()
        t.shape = [int(s) for s in shape]
        t.type = TYPES[dtype][0]
        t.name = name or "t%d" % len(self.tensors)
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale = [float(s) for s in _as_list(scale)]
            zps = _as_list(zp if zp is not None else 0)
            if len(zps) == 1 and len(q.scale) > 1:
                zps = zps * len(q.scale)
            q.zeroPoint = [int(z) for z in zps]
            q.quantizedDimension = int(axis)
            t.quantization = q
        if data is not None:
            arr = np.asarray(data, dtype=TYPES[dtype][1])
            if list(arr.shape) != t.shape and arr.size != int(np.prod(t.shape, dtype=np.int64)):
                raise ValueError("data shape %s does not fit tensor shape %s" % (arr.shape, t.shape))
            b = _AlignedBufferT()
            b.data = np.frombuffer(arr.astype(arr.dtype.newbyteorder("<")).tobytes(), dtype=np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        else:
            b = S.BufferT()  # activations get their own empty buffer, like the converter
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def const(self, data, dtype=None, scale=None, zp=None, axis=0, name=None):
        arr = np.asarray(data)
        if dtype is None:
            dtype = str(arr.dtype)
        return self.tensor(arr.shape, dtype, scale, zp, axis, data=arr, name=name)

    def input(self, shape, scale=None, zp=None, dtype="int8", name=None):
        i = self.tensor(shape, dtype, scale, zp, name=name or "input%d" % len(self.inputs))
        self.inputs.append(i)
        return i

    def output(self, idx):
        self.outputs.append(idx)
        return idx

    def shape(self, idx):
        return list(self.tensors[idx].shape)

    def quant(self, idx):
        q = self.tensors[idx].quantization
        return (q.scale[0], q.zeroPoint[0]) if q is not None and q.scale else (None, None)

    def dtype(self, idx):
        for k, (code, _) in TYPES.items():
            if code == self.tensors[idx].type:
                return k
        raise KeyError(self.tensors[idx].type)

    # ---- operators ---------------------------------------------------------
    def op(self, name, inputs, outputs, **options):
        """Add operator NAME (a BuiltinOperator name); options are the fields of
        its options table (e.g. padding=S.Padding.SAME, strideW=2)."""
        code = getattr(S.BuiltinOperator, name)
        opt_type, opt_cls, version = OPS.get(name, (S.BuiltinOptions.NONE, None, 1))
        if name not in self._opcode_index:
            oc = S.OperatorCodeT()
            oc.deprecatedBuiltinCode = min(code, 127)
            oc.builtinCode = code
            oc.version = version
            self.opcodes.append(oc)
            self._opcode_index[name] = len(self.opcodes) - 1
        o = S.OperatorT()
        o.opcodeIndex = self._opcode_index[name]
        o.inputs = [int(i) for i in inputs]
        o.outputs = [int(i) for i in outputs]
        if opt_cls is not None:
            opts = opt_cls()
            for k, v in options.items():
                if not hasattr(opts, k):
                    raise AttributeError("%s has no option %s" % (opt_cls.__name__, k))
                setattr(opts, k, v)
            o.builtinOptionsType = opt_type
            o.builtinOptions = opts
        elif options:
            raise AttributeError("%s takes no options" % name)
        self.operators.append(o)
        return outputs[0] if len(outputs) == 1 else outputs

    # ---- serialization -------------------------------------------------------
    def to_bytes(self):
        sg = S.SubGraphT()
        sg.tensors = self.tensors
        sg.inputs = list(self.inputs)
        sg.outputs = list(self.outputs)
        sg.operators = self.operators
        sg.name = "main"
        m = S.ModelT()
        m.version = 3
        m.operatorCodes = self.opcodes
        m.subgraphs = [sg] + list(self.extra_subgraphs)
        m.description = self.description
        m.buffers = self.buffers
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())
        return path

    # ---- helpers: one operator each, output shape computed as TFLite does ----
    def _weights(self, rng, shape, lo=-127, hi=127):
        return rng.integers(lo, hi + 1, size=shape, dtype=np.int64).astype(np.int8)

    def _bias(self, rng, n, in_scale, w_scales, spread=2000, name=None):
        b = rng.integers(-spread, spread + 1, size=[n], dtype=np.int64).astype(np.int32)
        scales = [in_scale * s for s in w_scales]
        return self.const(b, "int32", scale=scales if len(scales) > 1 else scales[0], zp=0, name=name)

    @staticmethod
    def _with_bias(x, wt, b, bias):
        """bias=True: [x, w, b]; False: [x, w]; "optional": [x, w, -1]."""
        if bias == "optional":
            return [x, wt, -1]
        return [x, wt, b] if bias else [x, wt]

    @staticmethod
    def auto_out_scale(in_scale, w_scale, depth, spread=1.0):
        """An output scale that spans about +-3 sigma of the accumulator of
        `depth` products of uniform int8 values (smaller spread: saturates)."""
        sigma = in_scale * w_scale * math.sqrt(depth) * 74.0 * 73.0
        return float(np.float32(max(sigma * 3.0 * spread / 128.0, 1e-6)))

    def conv2d(self, x, out_ch, kernel, rng, stride=1, dilation=1, padding="SAME", act=None,
               per_channel=True, bias=True, w_zp=0, out_scale=None, out_zp=0, spread=1.0,
               w_scale=0.02, w_range=127, name=None):
        n, h, w, c = self.shape(x)
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
        in_scale, _ = self.quant(x)
        if per_channel:
            w_scales = [float(np.float32(w_scale * (0.5 + rng.random()))) for _ in range(out_ch)]
        else:
            w_scales = [float(np.float32(w_scale))]
        wt = self.const(self._weights(rng, [out_ch, kh, kw, c], lo=-w_range, hi=w_range), "int8",
                        scale=w_scales if per_channel else w_scales[0], zp=w_zp, axis=0)
        b = self._bias(rng, out_ch, in_scale, w_scales) if bias is True else -1
        if out_scale is None:
            out_scale = self.auto_out_scale(in_scale, w_scale, kh * kw * c, spread)
        oh = out_size(padding, h, kh, sh, dh)
        ow = out_size(padding, w, kw, sw, dw)
        y = self.tensor([n, oh, ow, out_ch], "int8", out_scale, out_zp, name=name)
        return self.op("CONV_2D", self._with_bias(x, wt, b, bias), [y], padding=PADDING[padding], strideH=sh, strideW=sw,
                       dilationHFactor=dh, dilationWFactor=dw, fusedActivationFunction=ACT[act])

    def depthwise_conv2d(self, x, kernel, rng, depth_multiplier=1, stride=1, dilation=1, padding="SAME",
                         act=None, per_channel=True, bias=True, out_scale=None, out_zp=0, spread=1.0,
                         w_scale=0.02, w_range=127, name=None):
        n, h, w, c = self.shape(x)
        oc = c * depth_multiplier
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        in_scale, _ = self.quant(x)
        if per_channel:
            w_scales = [float(np.float32(w_scale * (0.5 + rng.random()))) for _ in range(oc)]
        else:
            w_scales = [float(np.float32(w_scale))]
        wt = self.const(self._weights(rng, [1, kh, kw, oc], lo=-w_range, hi=w_range), "int8",
                        scale=w_scales if per_channel else w_scales[0], zp=0, axis=3)
        b = self._bias(rng, oc, in_scale, w_scales) if bias is True else -1
        if out_scale is None:
            out_scale = self.auto_out_scale(in_scale, w_scale, kh * kw, spread)
        oh = out_size(padding, h, kh, sh, dilation)
        ow = out_size(padding, w, kw, sw, dilation)
        y = self.tensor([n, oh, ow, oc], "int8", out_scale, out_zp, name=name)
        return self.op("DEPTHWISE_CONV_2D", self._with_bias(x, wt, b, bias), [y], padding=PADDING[padding], strideH=sh,
                       strideW=sw, depthMultiplier=depth_multiplier, dilationHFactor=dilation,
                       dilationWFactor=dilation, fusedActivationFunction=ACT[act])

    def fully_connected(self, x, units, rng, act=None, per_channel=False, bias=True, out_scale=None,
                        out_zp=0, spread=1.0, w_scale=0.02, w_range=127, name=None):
        shape = self.shape(x)
        depth = shape[-1]
        batches = int(np.prod(shape)) // depth
        in_scale, _ = self.quant(x)
        if per_channel:
            w_scales = [float(np.float32(w_scale * (0.5 + rng.random()))) for _ in range(units)]
        else:
            w_scales = [float(np.float32(w_scale))]
        wt = self.const(self._weights(rng, [units, depth], lo=-w_range, hi=w_range), "int8",
                        scale=w_scales if per_channel else w_scales[0], zp=0, axis=0)
        b = self._bias(rng, units, in_scale, w_scales) if bias is True else -1
        if out_scale is None:
            out_scale = self.auto_out_scale(in_scale, w_scale, depth, spread)
        y = self.tensor([batches, units], "int8", out_scale, out_zp, name=name)
        return self.op("FULLY_CONNECTED", self._with_bias(x, wt, b, bias), [y], fusedActivationFunction=ACT[act])

    def _binary(self, opname, a, b, out_scale, out_zp, act, name):
        sa, sb = self.shape(a), self.shape(b)
        r = max(len(sa), len(sb))
        sa = [1] * (r - len(sa)) + sa
        sb = [1] * (r - len(sb)) + sb
        so = [max(p, q) for p, q in zip(sa, sb)]
        y = self.tensor(so, "int8", out_scale, out_zp, name=name)
        return self.op(opname, [a, b], [y], fusedActivationFunction=ACT[act])

    def add(self, a, b, out_scale, out_zp=0, act=None, name=None):
        return self._binary("ADD", a, b, out_scale, out_zp, act, name)

    def mul(self, a, b, out_scale, out_zp=0, act=None, name=None):
        return self._binary("MUL", a, b, out_scale, out_zp, act, name)

    def pool(self, kind, x, filter, stride=1, padding="VALID", act=None, name=None):
        n, h, w, c = self.shape(x)
        fh, fw = (filter, filter) if isinstance(filter, int) else filter
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        scale, zp = self.quant(x)
        y = self.tensor([n, out_size(padding, h, fh, sh), out_size(padding, w, fw, sw), c], "int8",
                        scale, zp, name=name)
        return self.op({"avg": "AVERAGE_POOL_2D", "max": "MAX_POOL_2D"}[kind], [x], [y],
                       padding=PADDING[padding], strideH=sh, strideW=sw, filterHeight=fh,
                       filterWidth=fw, fusedActivationFunction=ACT[act])

    def mean(self, x, axes, keep_dims, out_scale=None, out_zp=None, name=None):
        shape = self.shape(x)
        scale, zp = self.quant(x)
        out_scale = scale if out_scale is None else out_scale
        out_zp = zp if out_zp is None else out_zp
        axes = [a % len(shape) for a in axes]
        if keep_dims:
            oshape = [1 if i in axes else s for i, s in enumerate(shape)]
        else:
            oshape = [s for i, s in enumerate(shape) if i not in axes]
        ax = self.const(np.array(axes, dtype=np.int32), "int32")
        y = self.tensor(oshape, "int8", out_scale, out_zp, name=name)
        return self.op("MEAN", [x, ax], [y], keepDims=bool(keep_dims))

    def pad(self, x, paddings, constant=None, name=None):
        shape = self.shape(x)
        scale, zp = self.quant(x)
        p = self.const(np.array(paddings, dtype=np.int32), "int32")
        oshape = [s + a + b for s, (a, b) in zip(shape, paddings)]
        y = self.tensor(oshape, self.dtype(x), scale, zp, name=name)
        if constant is None:
            return self.op("PAD", [x, p], [y])
        cv = self.const(np.array([constant], dtype=np.int8), "int8", scale=scale, zp=zp)
        return self.op("PADV2", [x, p, cv], [y])

    def concat(self, xs, axis, name=None):
        shapes = [self.shape(x) for x in xs]
        oshape = list(shapes[0])
        oshape[axis] = sum(s[axis] for s in shapes)
        scale, zp = self.quant(xs[0])
        y = self.tensor(oshape, "int8", scale, zp, name=name)
        return self.op("CONCATENATION", list(xs), [y], axis=axis)

    def reshape(self, x, new_shape, name=None):
        scale, zp = self.quant(x)
        s = self.const(np.array(new_shape, dtype=np.int32), "int32")
        y = self.tensor(new_shape, self.dtype(x), scale, zp, name=name)
        return self.op("RESHAPE", [x, s], [y], newShape=list(new_shape))

    def softmax(self, x, beta=1.0, name=None):
        y = self.tensor(self.shape(x), "int8", 1.0 / 256, -128, name=name)
        return self.op("SOFTMAX", [x], [y], beta=float(beta))

    def logistic(self, x, name=None):
        y = self.tensor(self.shape(x), "int8", 1.0 / 256, -128, name=name)
        return self.op("LOGISTIC", [x], [y])

    def quantize(self, x, out_scale, out_zp, dtype="int8", name=None):
        y = self.tensor(self.shape(x), dtype, out_scale, out_zp, name=name)
        return self.op("QUANTIZE", [x], [y])

    def dequantize(self, x, name=None):
        y = self.tensor(self.shape(x), "float32", name=name)
        return self.op("DEQUANTIZE", [x], [y])


def read_model(path_or_bytes):
    """ModelT of a .tflite file (for tests that inspect or edit models)."""
    buf = path_or_bytes
    if isinstance(path_or_bytes, str):
        with open(path_or_bytes, "rb") as f:
            buf = f.read()
    return S.ModelT.InitFromPackedBuf(bytearray(buf), 0)
