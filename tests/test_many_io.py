"""tests/test_many_io.py - graphs with more inputs and outputs than any fixed
limit: 40 int8 inputs, 40 outputs (output i = QLinearAdd of inputs i and
i+1), through `htc run` with one file per tensor, against onnxruntime."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

N = 40


def model(path):
    f = numpy_helper.from_array
    inits = [f(np.float32(0.05), "s"), f(np.int8(3), "z"), f(np.float32(0.07), "ys"), f(np.int8(-5), "yz")]
    nodes = [helper.make_node("QLinearAdd", ["x%d" % i, "s", "z", "x%d" % ((i + 1) % N), "s", "z", "ys", "yz"],
                              ["y%d" % i], domain="com.microsoft", name="add%d" % i) for i in range(N)]
    ins = [helper.make_tensor_value_info("x%d" % i, TensorProto.INT8, [1, 8]) for i in range(N)]
    outs = [helper.make_tensor_value_info("y%d" % i, TensorProto.INT8, [1, 8]) for i in range(N)]
    g = helper.make_graph(nodes, "many", ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    onnx.save(m, path)


def test_forty_inputs_and_outputs(tmp_path):
    p = str(tmp_path / "many.onnx")
    model(p)
    rng = np.random.default_rng(1)
    xs = [rng.integers(-128, 128, (1, 8)).astype(np.int8) for _ in range(N)]
    args = [O.HTC, "run", p, "-t", O.TARGET]
    for i, x in enumerate(xs):
        fn = tmp_path / ("x%d.bin" % i)
        x.tofile(fn)
        args += ["--input", str(fn)]
    for i in range(N):
        args += ["--output", str(tmp_path / ("y%d.bin" % i))]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sess = O.ort_session(p)
    want = sess.run(None, {"x%d" % i: xs[i] for i in range(N)})
    assert len(want) == N
    for i in range(N):
        got = np.fromfile(tmp_path / ("y%d.bin" % i), np.int8).reshape(1, 8)
        assert np.array_equal(got, want[i]), i
