#!/usr/bin/env python3
"""tests/onnx/make_bad.py - writes the corrupt and unsupported ONNX models of
tests/onnx/bad/ (each NAME.onnx with the expected one-line error, a
substring, in NAME.expect). Run it again after changing a case; the files
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
