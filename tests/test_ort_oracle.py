"""tests/test_ort_oracle.py - the ONNX oracle is the same on every host.

onnxruntime's uint8 x int8 integer kernels saturate on x86-64 without VNNI
(tests/onnx/ort_oracle.py, exact_model); the oracle runs each such product
with its weights stored as uint8 (w + 128, zero point + 128), which
onnxruntime computes exactly everywhere. Checked here: that the rewrite
changes none of onnxruntime's fusion decisions (the optimised graph has the
same nodes) and none of the model's values (the unoptimised graph, float
QDQ arithmetic, gives the same bytes); that on a product built to saturate
the oracle equals the exact integer arithmetic (numpy, int64) and htc; and
that onnxruntime's own default session differs from it exactly on the hosts
whose u8s8 kernels saturate (x86-64 with AVX2, without AVX-VNNI /
AVX512-VNNI / AMX-INT8), which is why the oracle does not use it."""
import os
import platform
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

# every integer zoo model with int8 weights (the float ones have none)
KINDS = ("qop_s8", "qop_u8", "qdq_s8", "qdq_u8", "qdq2qop_s8", "qdq2qop_u8", "pow2qop_s8", "pow2qdq_s8",
         "ternaryqop_s8", "ternaryqdq_s8", "mixedqdq_s8", "mixedqop_s8")
ZOO = ["%s_%s" % (n, k) for n in ("kws", "vww", "resnet", "ad") for k in KINDS]


@pytest.fixture(scope="module")
def zoo():
    return O.ensure_zoo()


def optimised_nodes(model):
    """(op type, domain, name) of every node of onnxruntime's optimised graph
    (default level, one thread, as the oracle runs)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    with tempfile.TemporaryDirectory() as d:
        so.optimized_model_filepath = os.path.join(d, "opt.onnx")
        ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        g = onnx.load(so.optimized_model_filepath).graph
    return [(n.op_type, n.domain, n.name) for n in g.node]


@pytest.mark.parametrize("name", ZOO)
def test_rewrite_keeps_graph(name, zoo):
    """The same fused / float nodes with and without the rewrite; u8
    activation models do get rewritten (else this checks nothing)."""
    model = os.path.join(zoo, name + ".onnx")
    exact, count = O.exact_model(model)
    # int8 weights are rewritten where the activations are uint8: in the
    # QDQ models (x86-64 turns their int8 activations uint8) and in the
    # uint8 QOperator ones that have int8 weights; not beside int8 activations
    s8_weights = any(i.data_type == TensorProto.INT8 and len(i.dims) >= 2 for i in onnx.load(model).graph.initializer)
    assert (count > 0) == (s8_weights and ("qdq_" in name or name.endswith("qop_u8")) or "qdq_stale" in name), name
    assert optimised_nodes(exact) == optimised_nodes(model)


@pytest.mark.parametrize("name", [z for z in ZOO if "qdq" in z and "qop" not in z])
def test_rewrite_keeps_values(name, zoo):
    """Unoptimised (DequantizeLinear -> float op -> QuantizeLinear, no
    integer kernel), the rewritten model gives the original's bytes."""
    import onnxruntime as ort
    model = os.path.join(zoo, name + ".onnx")
    plain = O.ort_session(model, level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL, exact=False)
    exact = O.ort_session(model, level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    inputs = O.random_inputs(plain, 2, seed=7)
    assert O.ort_outputs(exact, inputs) == O.ort_outputs(plain, inputs)


def saturating_model(path, form):
    """x uint8 [1, 8, 3, 3] -> 1x1 convolution, 4 int8 filters of +-127
    (pairs of products of 255 * 127 leave int16) -> uint8. form: "qop"
    (QLinearConv) or "qdq"."""
    rng = np.random.default_rng(3)
    w = rng.choice(np.array([-127, 127, 126, -128], np.int8), (4, 8, 1, 1))
    b = rng.integers(-3000, 3000, 4).astype(np.int32)
    f = numpy_helper.from_array
    inits = [f(np.float32(0.05), "xs"), f(np.uint8(3), "xz"), f(w, "w"), f(np.float32(0.004), "ws"),
             f(np.int8(0), "wz"), f(b, "b"), f(np.float32(0.05 * 0.004), "bs"), f(np.int32(0), "bz"),
             f(np.float32(9.0), "ys"), f(np.uint8(128), "yz")]
    if form == "qop":
        nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                                  name="conv")]
    else:
        nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xd"]),
                 helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"]),
                 helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"]),
                 helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], name="conv"),
                 helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["y"])]
    g = helper.make_graph(nodes, "sat", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 8, 3, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 4, 3, 3])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return w, b


def exact_qlinearconv(x, w, b):
    """QLinearConv with int64 sums and onnxruntime's requantization
    (MlasRequantizeOutput: float32 acc * (xs * ws / ys), clamped, rounded
    half to even, + zero point)."""
    acc = np.einsum("nchw,oc->nohw", x.astype(np.int64) - 3, w[:, :, 0, 0].astype(np.int64)) + b[None, :, None, None]
    scale = np.float32(np.float32(0.05) * np.float32(0.004)) / np.float32(9.0)
    v = acc.astype(np.float32) * scale
    v = np.clip(v, np.float32(-128), np.float32(127))
    return (np.rint(v).astype(np.int32) + 128).astype(np.uint8)


def saturating_hosts():
    """Whether this host's onnxruntime u8s8 kernels sum pairs in 16 bits
    (MLAS platform.cpp: AVX2 or AVX-512 core without VNNI / AMX)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        flags = set(next(ln for ln in open("/proc/cpuinfo") if ln.startswith("flags")).split(":")[1].split())
    except (OSError, StopIteration):
        pytest.fail("no /proc/cpuinfo: cannot tell which onnxruntime kernels this host runs")
    return "avx2" in flags and not flags & {"avx_vnni", "avx512_vnni", "amx_int8"}


@pytest.mark.parametrize("form", ["qop", "qdq"])
def test_saturating_product(form, tmp_path):
    path = str(tmp_path / "sat.onnx")
    w, b = saturating_model(path, form)
    rng = np.random.default_rng(5)
    inputs = [[rng.integers(200, 256, (1, 8, 3, 3)).astype(np.uint8)] for _ in range(3)]
    want = [exact_qlinearconv(i[0], w, b).tobytes() for i in inputs]
    # the products do leave int16: x * w + x' * w' > 32767 somewhere
    xz = inputs[0][0].astype(np.int64)
    assert max(abs(int(xz[0, c, 0, 0]) * int(w[o, c, 0, 0]) + int(xz[0, c + 1, 0, 0]) * int(w[o, c + 1, 0, 0]))
               for o in range(4) for c in range(0, 8, 2)) > 32767
    assert O.ort_outputs(O.ort_session(path), inputs) == want
    exe = O.build(path, str(tmp_path / "b"))
    assert O.run(exe, str(tmp_path / "b"), inputs)[0] == want
    default = O.ort_outputs(O.ort_session(path, exact=False), inputs)
    assert (default != want) == saturating_hosts(), "onnxruntime's default session on this host: %s" % (
        "differs from the exact result" if default != want else "exact")
