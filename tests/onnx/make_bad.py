#!/usr/bin/env python3
"""tests/onnx/make_bad.py - writes the corrupt and unsupported ONNX models of
tests/onnx/bad/ (each NAME.onnx with the expected error, a substring of
each line htc writes, in NAME.expect: one line, or for several problems the
line counting them and one per problem). Run it again after changing a case; the files
are small and committed."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad")


def qconv(x_type=TensorProto.UINT8, w=None, w_name="w", dims=(1, 1, 4, 4), extra_inits=(), drop=()):
    """A small QLinearConv model: input uint8 x, 1x1 conv to 2 channels."""
    w = np.array([[[[3]]], [[[-2]]]], dtype=np.int8) if w is None else w
    inits = [numpy_helper.from_array(np.float32(0.5), "xs"), numpy_helper.from_array(np.uint8(128), "xz"),
             numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.float32(0.25), "ws"),
             numpy_helper.from_array(np.int8(0), "wz"), numpy_helper.from_array(np.float32(0.75), "ys"),
             numpy_helper.from_array(np.uint8(100), "yz")] + list(extra_inits)
    inits = [i for i in inits if i.name not in drop]
    n = helper.make_node("QLinearConv", ["x", "xs", "xz", w_name, "ws", "wz", "ys", "yz"], ["y"], name="conv0")
    g = helper.make_graph([n], "bad", [helper.make_tensor_value_info("x", x_type, list(dims))],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def save(name, model_or_bytes, expect):
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString()
    with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
        f.write(data)
    with open(os.path.join(HERE, name + ".expect"), "w") as f:
        f.write(expect + "\n")


def main():
    os.makedirs(HERE, exist_ok=True)
    good = qconv().SerializeToString()
    save("empty", b"", "empty file")
    save("truncated", good[: len(good) * 2 // 3], "not a valid ONNX model")
    save("garbage", bytes(range(7, 250, 3)) * 3, "not a valid ONNX model")
    # a length prefix that runs past the end
    save("length_past_end", b"\x3a\xff\xff\x03" + good[:20], "length runs past the end")
    # graphs nested 45 deep through node attributes
    g = b""
    for _ in range(45):                                     # GraphProto -> node -> attribute -> g
        a = b"\x32" + _varint(len(g)) + g
        nd = b"\x2a" + _varint(len(a)) + a
        g = b"\x0a" + _varint(len(nd)) + nd
    deep = b"\x3a" + _varint(len(g)) + g                    # ModelProto.graph (7)
    save("nested_too_deep", deep, "nested too deeply")
    save("no_graph", helper.make_model(helper.make_graph([], "g", [], [])).SerializeToString()[:0] + b"\x08\x08",
         "has no graph")
    # a graph output without a name: the QDQ fusion compared it with strcmp
    # (a NULL read, found by fuzzing)
    m = qconv()
    m.graph.output[0].ClearField("name")
    save("output_no_name", m, "graph output 0 has no name")
    m = qconv(w=np.ones((2, 1, 1, 1), np.float32))
    save("float_weights", m, "node 0 'conv0' (QLinearConv): weights 'w' are float32, expected int8 or uint8")
    save("missing_initializer", qconv(drop=("w",)),
         "node 0 'conv0' (QLinearConv): input 'w' is not produced by an earlier node, an initializer or a graph input")
    m = qconv()
    m.graph.input[0].type.tensor_type.ClearField("shape")
    save("no_shape", m, "graph input 'x' has no shape (give it with --shape x=DIMS)")
    m = qconv()
    m.graph.node[0].op_type = "QLinearLSTM"
    save("unsupported_op", m, "node 0 'conv0' (QLinearLSTM): unsupported operator")
    m = qconv()
    m.graph.initializer[2].raw_data = m.graph.initializer[2].raw_data[:1]
    save("raw_data_size", m, "initializer 'w' has 1 bytes of raw data, its shape needs 2")
    m = qconv()
    m.graph.initializer[3].CopyFrom(numpy_helper.from_array(np.array([0.25, 0.5, 1.0], np.float32), "ws"))
    save("scale_count", m, "node 0 'conv0' (QLinearConv): w zero point 'wz' has 1 values for 3 scales")
    m = qconv()
    m.graph.initializer[3].CopyFrom(numpy_helper.from_array(np.float32(-1.0), "ws"))
    save("negative_scale", m, "node 0 'conv0' (QLinearConv): w scale 'ws' has the value -1")
    m = qconv()
    m.graph.initializer[1].CopyFrom(numpy_helper.from_array(np.int8(0), "xz"))
    save("zero_point_type", m, "node 0 'conv0' (QLinearConv): x and x_zero_point types differ")
    m = qconv(x_type=TensorProto.FLOAT16)
    save("float16_input", m, "graph input 'x' has type float16, which htc does not support")
    # an unquantized float model (weights with a fraction: integers alone
    # in float tensors are QuantLib's integer form, gen/qlib.c)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])
    w = numpy_helper.from_array(np.full((2, 1, 1, 1), 0.5, np.float32), "w")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="fconv")], "f", [x],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    save("float_model", m, "node 0 'fconv' (Conv): float input 'x': htc compiles quantized graphs (QDQ or QOperator) only")
    m = qconv()
    m.graph.node[0].attribute.extend([helper.make_attribute("group", 3)])
    save("bad_group", m, "node 0 'conv0' (QLinearConv): group 3 does not fit 1 input channels")
    m = qconv()
    m.graph.node[0].attribute.extend([helper.make_attribute("strides", [0, 1])])
    save("stride_zero", m, "strides and dilations must be in 1..1024")
    m = qconv()
    m.graph.node[0].attribute.extend([helper.make_attribute("group", "two")])
    save("attr_type", m, "attribute 'group' must be an integer")
    m = qconv()
    t = m.graph.initializer[2]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    save("external_data", m, "initializer 'w' uses external data")
    m = qconv(dims=(1, 1, 65536, 65536))
    save("input_too_large", m, "graph input 'x' is too large: its first 4 dimensions hold 4294967296 elements, at most 1073741824")
    # a QDQ Conv, then a node without op_type: closing the QDQ group looks
    # ahead at every node (a NULL op_type once crashed there)
    inits = [numpy_helper.from_array(np.float32(0.5), "xs"), numpy_helper.from_array(np.uint8(128), "xz"),
             numpy_helper.from_array(np.array([[[[3]]], [[[-2]]]], np.int8), "wq"),
             numpy_helper.from_array(np.float32(0.25), "ws"), numpy_helper.from_array(np.int8(0), "wz"),
             numpy_helper.from_array(np.float32(0.75), "ys"), numpy_helper.from_array(np.uint8(100), "yz")]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"], name="dqx"),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wf"], name="dqw"),
             helper.make_node("Conv", ["xf", "wf"], ["yf"], name="conv"),
             helper.make_node("QuantizeLinear", ["yf", "ys", "yz"], ["y"], name="q"),
             helper.make_node("Identity", ["y"], ["z"], name="nameless")]
    nodes[4].ClearField("op_type")
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("z", TensorProto.UINT8, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save("no_op_type", m, "node 4 'nameless' (?): node without op_type")
    # the same group with a Conv of one input (no weights): the fused
    # builder read the missing operand (a NULL dereference, found by fuzzing)
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"], name="dqx"),
             helper.make_node("Conv", ["xf"], ["yf"], name="conv"),
             helper.make_node("QuantizeLinear", ["yf", "ys", "yz"], ["y"], name="q")]
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save("qdq_conv_one_input", m, "node 1 'conv' (Conv): missing input 1 (Conv has two operands)")
    # several problems: every one listed at once, in graph order, on a first
    # line counting them, then one line each. A node reading a refused
    # node's output is not checked (its input is unknown) unless htc has no
    # operator for it (node 4); node 3 is not listed.
    conv = ["xs", "xz", "w", "ws", "wz", "ys", "yz"]
    nodes = [helper.make_node("QLinearConv", ["x"] + conv, ["y0"], name="c0"),
             helper.make_node("Einsum", ["y0"], ["y1"], name="e1", equation="ij->ji"),
             helper.make_node("QLinearConv", ["y0", "xs", "xz", "wf"] + conv[3:], ["y2"], name="c2"),
             helper.make_node("QLinearConv", ["y1"] + conv, ["y3"], name="c3"),
             helper.make_node("TopK", ["y1", "k"], ["y4", "i4"], name="t4"),
             helper.make_node("QLinearConv", ["y0"] + conv, ["y5"], name="c5", group=3)]
    inits = qconv().graph.initializer[:] + [numpy_helper.from_array(np.ones((2, 1, 1, 1), np.float32), "wf"),
                                            numpy_helper.from_array(np.array([1], np.int64), "k")]
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info(n, TensorProto.UINT8, None) for n in ("y2", "y3", "y4", "y5")],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save("several_problems", m, "\n".join([
        "4 operators refused, in graph order: node 1 'e1' (Einsum): unsupported operator; node 2 'c2' (QLinearConv): "
        "weights 'wf' are float32, expected int8 or uint8; node 4 't4' (TopK): unsupported operator; node 5 'c5' "
        "(QLinearConv): group 3 does not fit",
        "node 1 'e1' (Einsum): unsupported operator",
        "node 2 'c2' (QLinearConv): weights 'wf' are float32, expected int8 or uint8",
        "node 4 't4' (TopK): unsupported operator",
        "node 5 'c5' (QLinearConv): group 3 does not fit 2 input channels"]))
    # problems of initializers among the nodes' problems: each listed by the
    # first node that reads it (whose other problems are not checked), one
    # no node reads after the nodes
    nodes = [helper.make_node("QLinearConv", ["x"] + conv, ["y0"], name="c0"),
             helper.make_node("Einsum", ["y0"], ["y1"], name="e1", equation="ij->ji"),
             helper.make_node("QLinearConv", ["x", "xs", "xz", "w16"] + conv[3:], ["y2"], name="c2")]
    inits = qconv().graph.initializer[:] + [numpy_helper.from_array(np.ones((2, 1, 1, 1), np.float16), "w16"),
                                            numpy_helper.from_array(np.ones(3, np.int8), "spare")]
    for t in inits:
        if t.name in ("w", "spare"):
            t.ClearField("raw_data")
            t.data_location = TensorProto.EXTERNAL
            t.external_data.add(key="location", value=t.name + ".bin")
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info(n, TensorProto.UINT8, None) for n in ("y1", "y2")], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save("value_problems", m, "\n".join([
        "4 problems, in graph order: node 0 'c0' (QLinearConv): initializer 'w' uses external data",
        "node 0 'c0' (QLinearConv): initializer 'w' uses external data",
        "node 1 'e1' (Einsum): unsupported operator",
        "node 2 'c2' (QLinearConv): initializer 'w16' has type float16, which htc does not support",
        "initializer 'spare' uses external data"]))
    ql_cases()


def ql(nodes, x_shape, inits):
    """A graph in QuantLib's integer form: a float input holding integers,
    standard ops, integer constants."""
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                          [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def ql_cases():
    """QuantLib's reader (gen/qlib.c): every attribute range-checked before
    it divides or is cut to int32, every tensor within 2^30 elements."""
    w = np.ones((2, 1, 3, 3), np.float32)

    def conv(**kw):
        return ql([helper.make_node("Conv", ["x", "w"], ["y"], name="c0", **kw)], (1, 1, 8, 8), {"w": w})
    # strides 0 divided the output size (SIGFPE)
    save("ql_conv_stride_zero", conv(strides=[0, 0]), "node 0 'c0' (Conv): attribute 'strides' holds 0, outside 1..1024")
    save("ql_conv_dilation_huge", conv(dilations=[1 << 62, 1]),
         "node 0 'c0' (Conv): attribute 'dilations' holds 4611686018427387904, outside 1..1024")
    save("ql_conv_pads_negative", conv(pads=[-1, 0, 0, 0]), "node 0 'c0' (Conv): attribute 'pads' holds -1, outside 0..4096")
    save("ql_conv_kernel_too_large", conv(pads=[0, 0, 0, 0], dilations=[4, 1]),
         "node 0 'c0' (Conv): the kernel (9x3 with dilation) is larger than the padded input (8x8)")
    save("ql_conv_group_huge", conv(group=(1 << 32) + 1), "node 0 'c0' (Conv): attribute 'group' is 4294967297, outside 1..1")
    mp = ql([helper.make_node("MaxPool", ["x"], ["y"], name="p0", kernel_shape=[2, 2], strides=[0, 1])], (1, 1, 8, 8), {})
    save("ql_maxpool_stride_zero", mp, "node 0 'p0' (MaxPool): attribute 'strides' holds 0, outside 1..1024")
    # a MaxPool without outputs (MaxPool may have two, so the one-output
    # check let it through to a NULL output name; found by fuzzing)
    mp = ql([helper.make_node("MaxPool", ["x"], ["y"], name="p0", kernel_shape=[2, 2])], (1, 1, 8, 8), {})
    del mp.graph.node[0].output[:]
    save("ql_maxpool_no_output", mp, "node 0 'p0' (MaxPool): node without outputs")
    mp = ql([helper.make_node("MaxPool", ["x"], ["y"], name="p0", kernel_shape=[2, 0])], (1, 1, 8, 8), {})
    save("ql_maxpool_kernel_zero", mp, "node 0 'p0' (MaxPool): the kernel is 2x0 (each side 1..4096)")
    # 131073 x 131073 = 1.7e10 elements
    pad = ql([helper.make_node("Pad", ["x", "p"], ["y"], name="pad0")], (1, 1, 1, 1),
             {"p": np.array([0, 0, 65536, 65536, 0, 0, 65536, 65536], np.int64)})
    save("ql_pad_too_large", pad, "node 0 'pad0' (Pad): 'y' would have 17180131329 elements (at most 1073741824")
    ga = ql([helper.make_node("Gather", ["x", "i"], ["y"], name="g0", axis=1 << 40)], (1, 4), {"i": np.array([0], np.int64)})
    save("ql_gather_axis_huge", ga, "node 0 'g0' (Gather): attribute 'axis' is 1099511627776, outside -2..1")
    # a node without op_type read by a Conv's fusion look-ahead (a NULL
    # strcmp, found by fuzzing): refused before any node is read
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="c0"),
             helper.make_node("Identity", ["y"], ["z"], name="nameless"),
             helper.make_node("RequantShift", ["z", "m", "a"], ["r"], name="rq", domain="PACTOps", div=256, n_levels_out=256,
                              signed=1)]
    nodes[1].ClearField("op_type")
    save("ql_no_op_type", ql(nodes, (1, 1, 8, 8), {"w": w, "m": np.float32(1), "a": np.float32(0)}),
         "node 1 'nameless' (?): node without op_type")
    # several problems in QuantLib's form: listed at once, in graph order;
    # the MaxPool reading the refused Conv's output is not checked
    nodes = [helper.make_node("Conv", ["x", "w"], ["y0"], name="c0", strides=[0, 0]),
             helper.make_node("Frobnicate", ["x"], ["y1"], name="e1", domain="PACTOps"),
             helper.make_node("MaxPool", ["y0"], ["y2"], name="p2", kernel_shape=[2, 2]),
             helper.make_node("Conv", ["x", "w"], ["y3"], name="c3", pads=[-1, 0, 0, 0])]
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y1", "y2", "y3")],
                          [numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save("ql_several_problems", m, "\n".join([
        "3 operators refused, in graph order: node 0 'c0' (Conv): attribute 'strides' holds 0, outside 1..1024; "
        "node 1 'e1' (Frobnicate): unsupported operator in QuantLib's integer form; node 3 'c3' (Conv): attribute "
        "'pads' holds -1, outside 0..4096",
        "node 0 'c0' (Conv): attribute 'strides' holds 0, outside 1..1024",
        "node 1 'e1' (Frobnicate): unsupported operator in QuantLib's integer form",
        "node 3 'c3' (Conv): attribute 'pads' holds -1, outside 0..4096"]))
    b = np.ones((3, 2), np.float32)

    def gemm(c, **kw):
        return ql([helper.make_node("Gemm", ["x", "b", "c"], ["y"], name="gm", **kw)], (1, 3),
                  {"b": b, "c": np.asarray(c, np.float32)})
    # beta 2^52 was cut to int32: a bias of {0, 0}
    save("ql_gemm_beta_huge", gemm([1, 1], beta=float(1 << 52)),
         "node 0 'gm' (Gemm): attribute 'beta' is 4503599627370496, outside -2147483648..2147483647")
    save("ql_gemm_beta_times_c", gemm([1, 1 << 20], beta=4096.0),
         "node 0 'gm' (Gemm): beta x C[1] = 4294967296 does not fit int32")
    save("ql_gemm_alpha_huge", gemm([1, 1], alpha=float(1 << 33)),
         "node 0 'gm' (Gemm): attribute 'alpha' is 8589934592, outside -2147483648..2147483647")


def _varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


if __name__ == "__main__":
    main()
