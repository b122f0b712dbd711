#!/usr/bin/env python3
"""tests/targets/make_qconv.py - writes tests/targets/qconv.onnx, the small
QLinearConv model (int8, 8 -> 16 channels, 3x3 on 16x16) that the tile_*
bad targets are compiled with: their accelerator takes the conv and runs
its tile function. The file is small and committed; run this again only
to change it."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
inits = [numpy_helper.from_array(np.array(2.0 ** -4, np.float32), "xs"),
         numpy_helper.from_array(np.array(0, np.int8), "xz"),
         numpy_helper.from_array(rng.integers(-20, 21, size=(16, 8, 3, 3)).astype(np.int8), "w"),
         numpy_helper.from_array(np.array(2.0 ** -6, np.float32), "ws"),
         numpy_helper.from_array(np.array(0, np.int8), "wz"),
         numpy_helper.from_array(np.array(2.0 ** -2, np.float32), "ys"),
         numpy_helper.from_array(np.array(0, np.int8), "yz")]
node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"], name="conv",
                        kernel_shape=[3, 3], pads=[1, 1, 1, 1])
g = helper.make_graph([node], "qconv", [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 8, 16, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 16, 16, 16])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, os.path.join(os.path.dirname(os.path.abspath(__file__)), "qconv.onnx"))
