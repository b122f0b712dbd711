"""tests/test_shapes.py - symbolic graph input dimensions and --shape.

ONNX: a symbolic dimension (dim_param, or no value) is 1 with a note, or the
value --shape NAME=DIMS gives; the compiled model matches onnxruntime run
with that shape. TFLite: shape_signature -1 compiles the stored shape (what
TFLite Micro runs); --shape may only confirm it. Every impossible --shape is
a one-line error, exit 1, no output file."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

MODELS = os.environ.get("HTC_MODELS") or os.path.join(O.REPO, "..", "shared", "models", "mlperf_tiny")


def batch_model(path, dim=None):
    """uint8 QDQ: x [N, 2, 6, 6] -> Conv 3x3 (4 filters, bias) -> Relu -> Q
    -> Reshape [-1, 64] -> Gemm (5, bias) -> Q -> Reshape [0, 5, 1]. dim: the
    batch as dim_param 'N' (None: no value at all)."""
    rng = np.random.default_rng(5)
    f = numpy_helper.from_array
    inits = [
        f(np.float32(0.02), "xs"), f(np.uint8(128), "xz"),
        f(rng.integers(-127, 128, (4, 2, 3, 3)).astype(np.int8), "w"), f(np.float32(0.01), "ws"),
        f(np.int8(0), "wz"), f(rng.integers(-500, 500, 4).astype(np.int32), "b"), f(np.float32(0.0002), "bs"),
        f(np.int32(0), "bz"), f(np.float32(0.015), "ys"), f(np.uint8(0), "yz"),
        f(np.array([-1, 64], np.int64), "shape1"),
        f(rng.integers(-127, 128, (64, 5)).astype(np.int8), "w2"), f(np.float32(0.02), "w2s"), f(np.int8(0), "w2z"),
        f(rng.integers(-300, 300, 5).astype(np.int32), "b2"), f(np.float32(0.0003), "b2s"),
        f(np.float32(0.1), "zs"), f(np.uint8(120), "zz"), f(np.array([0, 5, 1], np.int64), "shape2"),
    ]
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"]),
        helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"]),
        helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], name="conv", kernel_shape=[3, 3], pads=[0, 0, 0, 0]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["y"]),
        helper.make_node("Reshape", ["y", "shape1"], ["y2"], name="reshape1"),
        helper.make_node("DequantizeLinear", ["y2", "ys", "yz"], ["y2d"]),
        helper.make_node("DequantizeLinear", ["w2", "w2s", "w2z"], ["w2d"]),
        helper.make_node("DequantizeLinear", ["b2", "b2s"], ["b2d"]),
        helper.make_node("Gemm", ["y2d", "w2d", "b2d"], ["g"], name="gemm"),
        helper.make_node("QuantizeLinear", ["g", "zs", "zz"], ["z"]),
        helper.make_node("Reshape", ["z", "shape2"], ["out"], name="reshape2"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.UINT8, ["N", 2, 6, 6])
    if dim is None:
        x.type.tensor_type.shape.dim[0].ClearField("dim_param")
    g = helper.make_graph(nodes, "batch", [x], [helper.make_tensor_value_info("out", TensorProto.UINT8, ["N", 5, 1])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return path


def compile_err(*args, out):
    p = O.htc("compile", *args, "-t", O.TARGET, "-o", out, check=False)
    assert p.returncode == 1, "exit %d: %s" % (p.returncode, p.stderr)
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("htc: error: "), p.stderr
    assert not os.path.exists(out) and not os.path.exists(out + ".tmp")
    return lines[0]


@pytest.mark.parametrize("dim", ["N", None], ids=["dim_param", "unset"])
def test_symbolic_batch_is_1(dim, tmp_path):
    """A symbolic batch compiles as 1, with one note naming the input; the
    output equals onnxruntime's for batch 1."""
    model = batch_model(str(tmp_path / "b.onnx"), dim)
    p = O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "n.h"))
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("htc: note: ") and "graph input 'x'" in lines[0] \
        and "compiled as 1x2x6x6" in lines[0] and "--shape x=" in lines[0], p.stderr
    assert ("('N')" if dim else "('?')") in lines[0], lines[0]
    exe = O.build(model, str(tmp_path / "b"))
    sess = O.ort_session(model)
    rng = np.random.default_rng(1)
    inputs = [[rng.integers(0, 256, (1, 2, 6, 6)).astype(np.uint8)] for _ in range(4)]
    assert O.run(exe, str(tmp_path / "b"), inputs)[0] == O.ort_outputs(sess, inputs)


def test_shape_option_batch(tmp_path):
    """--shape x=3x2x6x6: no note, Reshape's -1 and 0 follow the batch, and the
    output equals onnxruntime's run on batch 3."""
    model = batch_model(str(tmp_path / "b.onnx"))
    p = O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "n.h"), "--shape", "x=3x2x6x6")
    assert p.stderr == "", p.stderr
    exe = O.build(model, str(tmp_path / "b"), flags=["--shape", "x=3x2x6x6"])
    sess = O.ort_session(model)
    rng = np.random.default_rng(2)
    inputs = [[rng.integers(0, 256, (3, 2, 6, 6)).astype(np.uint8)] for _ in range(3)]
    want = O.ort_outputs(sess, inputs)
    assert len(want[0]) == 15
    assert O.run(exe, str(tmp_path / "b"), inputs)[0] == want


def test_shape_option_static_equal(tmp_path):
    """--shape of a static input is accepted when it equals the model's."""
    model = batch_model(str(tmp_path / "b.onnx"))
    m = onnx.load(model)
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 2
    onnx.save(m, model)
    O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "n.h"), "--shape", "x=2x2x6x6")
    line = compile_err(model, "--shape", "x=1x2x6x6", out=str(tmp_path / "m.h"))
    assert "--shape x: dimension 0 is 1, the model fixes it at 2" in line, line


@pytest.mark.parametrize("opt,expect", [
    ("x=1x2x6", "--shape x: 3 dimensions, graph input 'x' has rank 4"),
    ("x=1x2x6x6x1", "--shape x: 5 dimensions, graph input 'x' has rank 4"),
    ("x=0x2x6x6", "--shape x=0x2x6x6: dimension 0 is 0; dimensions must be at least 1"),
    ("x=-2x2x6x6", "--shape x=-2x2x6x6: dimension 0 is -2; dimensions must be at least 1"),
    ("y=1x2x6x6", "--shape y: the model has no graph input of that name"),
    ("x=1x3x6x6", "--shape x: dimension 1 is 3, the model fixes it at 2"),
    ("x=99999999999x2x6x6", "too many elements"),
    ("x=20000000x2x6x6", "too many elements"),
    ("x=1x2x6xx6", "is not a list of dimensions like 1x49x10x1"),
    ("x=1,2,6,6", "is not a list of dimensions like 1x49x10x1"),
    ("x", "--shape needs NAME=DIMS"),
    ("=1x2x6x6", "--shape needs NAME=DIMS"),
    ("x=1x1x1x1x1x1x1", "more than 6 dimensions"),
])
def test_bad_shape_onnx(opt, expect, tmp_path):
    model = batch_model(str(tmp_path / "b.onnx"))
    line = compile_err(model, "--shape", opt, out=str(tmp_path / "m.h"))
    assert expect in line, "expected '%s' in: %s" % (expect, line)


def test_bad_shape_twice(tmp_path):
    model = batch_model(str(tmp_path / "b.onnx"))
    line = compile_err(model, "--shape", "x=1x2x6x6", "--shape", "x=2x2x6x6", out=str(tmp_path / "m.h"))
    assert "--shape: graph input 'x' is given twice" in line, line


def test_shape_conflicts_with_graph(tmp_path):
    """A batch the graph cannot take (Reshape to a fixed [2, 64]) is a
    one-line error naming the node."""
    model = batch_model(str(tmp_path / "b.onnx"))
    m = onnx.load(model)
    for i in m.graph.initializer:
        if i.name == "shape1":
            i.CopyFrom(numpy_helper.from_array(np.array([2, 64], np.int64), "shape1"))
    onnx.save(m, model)
    line = compile_err(model, "--shape", "x=3x2x6x6", out=str(tmp_path / "m.h"))
    assert "'reshape1' (Reshape)" in line and "reshape changes the number of elements" in line, line


def test_no_shape_needs_option(tmp_path):
    """An input without any shape compiles with --shape and matches
    onnxruntime."""
    model = batch_model(str(tmp_path / "b.onnx"))
    m = onnx.load(model)
    m.graph.input[0].type.tensor_type.ClearField("shape")
    onnx.save(m, model)
    line = compile_err(model, out=str(tmp_path / "m.h"))
    assert "graph input 'x' has no shape (give it with --shape x=DIMS)" in line, line
    exe = O.build(model, str(tmp_path / "b"), flags=["--shape", "x=2x2x6x6"])
    sess = O.ort_session(model)
    rng = np.random.default_rng(3)
    inputs = [[rng.integers(0, 256, (2, 2, 6, 6)).astype(np.uint8)] for _ in range(2)]
    assert O.run(exe, str(tmp_path / "b"), inputs)[0] == O.ort_outputs(sess, inputs)


# ---- TFLite ---------------------------------------------------------------------

def _tflite_patch(tmp_path, fn):
    import importlib.util     # tests/bad/make_bad.py (tests/onnx has its own make_bad)
    spec = importlib.util.spec_from_file_location("tflite_make_bad", os.path.join(O.REPO, "tests", "bad", "make_bad.py"))
    make_bad = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_bad)
    data = open(os.path.join(MODELS, "kws_ref_model.tflite"), "rb").read()
    p = str(tmp_path / "k.tflite")
    with open(p, "wb") as f:
        f.write(make_bad.patched(data, fn))
    return p


def _sig(i, d, v):
    def fn(f):
        s, n = f.vec(f.tensor(i), 7, "shape_signature")
        f.put_i32(s + 4 + 4 * d, v)
    return fn


def test_tflite_dynamic_batch_silent(tmp_path):
    """Every MLPerf Tiny model has shape_signature -1 for the batch: compiled
    for the stored batch 1, silently; --shape may confirm the stored shape."""
    kws = os.path.join(MODELS, "kws_ref_model.tflite")
    p = O.htc("compile", kws, "-t", O.TARGET, "-o", str(tmp_path / "k.h"))
    assert p.stderr == "", p.stderr
    p = O.htc("compile", kws, "-t", O.TARGET, "-o", str(tmp_path / "k.h"), "--shape", "input_1=1x49x10x1")
    assert p.stderr == "", p.stderr


@pytest.mark.parametrize("opt,expect", [
    ("input_1=2x49x10x1", "--shape input_1: htc compiles a .tflite model for the shapes stored in it, and input 0 "
                          "('input_1') is stored as 1x49x10x1"),
    ("input_1=1x49x10", "is stored as 1x49x10x1"),
    ("nosuch=1x49x10x1", "--shape nosuch: the model has no graph input of that name"),
])
def test_bad_shape_tflite(opt, expect, tmp_path):
    kws = os.path.join(MODELS, "kws_ref_model.tflite")
    line = compile_err(kws, "--shape", opt, out=str(tmp_path / "m.h"))
    assert expect in line and kws in line, line


def test_tflite_dynamic_input_dim(tmp_path):
    """An input dynamic beyond the batch (and the activations after it)
    compiles for the stored shape with one note; the header is the one the
    unpatched model gives."""
    def fn(f):
        _sig(0, 1, -1)(f)
        _sig(22, 1, -1)(f)
    model = _tflite_patch(tmp_path, fn)
    p = O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "k.h"), "--name", "k")
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("htc: note: ") and "graph input 0 ('input_1') has dynamic " \
        "dimensions 0, 1 (shape_signature -1): compiled for its stored shape 1x49x10x1" in lines[0], p.stderr
    p = O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "k2.h"), "--name", "k",
              "--shape", "input_1=1x49x10x1")
    assert p.stderr == "", p.stderr
    O.htc("compile", os.path.join(MODELS, "kws_ref_model.tflite"), "-t", O.TARGET, "-o", str(tmp_path / "r.h"),
          "--name", "k")

    def body(h):   # the header without its top comment (command line, hash) and #line markers
        t = open(h).read()
        return "\n".join(ln for ln in t[t.index("#ifndef"):].split("\n") if not ln.startswith("#line "))
    assert body(str(tmp_path / "k.h")) == body(str(tmp_path / "r.h"))


def test_tflite_dynamic_activation_static_input(tmp_path):
    """A dynamic dimension after the batch with static inputs: htc computes
    the tensor's shape from its operator's inputs (gen/tflite.c
    infer_shape), here the stored one, and the header is the unpatched
    model's. (A dynamic shape htc cannot compute -- an operator without a
    shape rule after a changed input, or a shape read from non-constant data
    -- is an error naming the operator: tests/test_keras.py, tests/test_ops.py.)"""
    model = _tflite_patch(tmp_path, _sig(22, 1, -1))
    os.makedirs(str(tmp_path / "a"))
    os.makedirs(str(tmp_path / "b"))
    p = O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "a" / "k.h"), "--name", "k")
    assert p.stderr == "", p.stderr
    O.htc("compile", os.path.join(MODELS, "kws_ref_model.tflite"), "-t", O.TARGET, "-o", str(tmp_path / "b" / "k.h"),
          "--name", "k")

    def body(h):   # without the top comment; #line directives name the header's own path
        t = open(h).read()
        return t[t.index("#ifndef"):].replace(os.path.dirname(h), "DIR")
    assert body(str(tmp_path / "a" / "k.h")) == body(str(tmp_path / "b" / "k.h"))
