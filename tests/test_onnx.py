"""tests/test_onnx.py - the ONNX front end against onnxruntime and ONNX's own
backend node tests, bit for bit.

- node tests: the quantized operators' cases shipped inside the onnx package
  (onnx.backend.test.case.node), weights/scales/zero points bound with
  --bind (as TensorProto .pb and as raw bytes); the expected outputs are the
  cases' own. Cases htc does not support (float16 scales, 16/4/2-bit and
  float8 types, blocked quantization) must fail with one line naming the node.
- zoo: every model of tests/zoo/zoo.py (built once into $HTC_ZOO, default
  build/zoo) against onnxruntime on several random inputs, every output.
- differential: QOperator and QDQ forms give identical outputs in htc.
"""
import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

NODE_OK = [
    "test_qlinearconv",
    "test_qlinearmatmul_2D_uint8_float32", "test_qlinearmatmul_3D_uint8_float32",
    "test_qlinearmatmul_2D_int8_float32", "test_qlinearmatmul_3D_int8_float32",
    "test_quantizelinear", "test_quantizelinear_axis",
    "test_dequantizelinear", "test_dequantizelinear_axis",
    "test_convinteger_without_padding", "test_convinteger_with_padding",
    "test_matmulinteger",
]
# quantized-operator cases outside htc's int8/uint8 scope: a one-line error
NODE_REFUSED = [
    "test_qlinearmatmul_2D_uint8_float16", "test_qlinearmatmul_3D_uint8_float16",
    "test_qlinearmatmul_2D_int8_float16", "test_qlinearmatmul_3D_int8_float16",
    "test_quantizelinear_uint16", "test_quantizelinear_int16", "test_quantizelinear_uint4",
    "test_quantizelinear_int4", "test_quantizelinear_e4m3fn", "test_quantizelinear_e5m2",
    "test_quantizelinear_blocked_asymmetric", "test_quantizelinear_blocked_symmetric",
    "test_dequantizelinear_uint16", "test_dequantizelinear_int16", "test_dequantizelinear_uint4",
    "test_dequantizelinear_int4", "test_dequantizelinear_e4m3fn", "test_dequantizelinear_e5m2",
    "test_dequantizelinear_blocked", "test_dynamicquantizelinear",
]

_cases = None


def node_case(name):
    global _cases
    if _cases is None:
        from onnx.backend.test.case import node
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import io
            import contextlib
            with contextlib.redirect_stderr(io.StringIO()):
                _cases = {c.name: c for c in node.collect_testcases(None)}
    if name not in _cases:
        pytest.fail("onnx %s ships no node test %s" % (onnx.__version__, name))
    return _cases[name]


def write_case(case, tmp, raw_binds):
    """model.onnx, the first input as data, every other input bound: as a
    TensorProto .pb, or (raw_binds) as raw bytes."""
    os.makedirs(tmp, exist_ok=True)
    model = os.path.join(tmp, "model.onnx")
    onnx.save(case.model, model)
    binds = []
    for k, vi in enumerate(case.model.graph.input[1:], 1):
        a = case.data_sets[0][0][k]
        if isinstance(a, onnx.TensorProto):      # types numpy lacks (int4, float8)
            t = onnx.TensorProto()
            t.CopyFrom(a)
            t.name = vi.name
            p = os.path.join(tmp, "in%d.pb" % k)
            with open(p, "wb") as f:
                f.write(t.SerializeToString())
            binds.append((vi.name, p))
            continue
        a = np.asarray(a)
        if raw_binds:
            p = os.path.join(tmp, "in%d.bin" % k)
            a.tofile(p)
        else:
            p = os.path.join(tmp, "in%d.pb" % k)
            with open(p, "wb") as f:
                f.write(numpy_helper.from_array(a, vi.name).SerializeToString())
        binds.append((vi.name, p))
    return model, binds


@pytest.mark.parametrize("raw", [False, True], ids=["pb", "raw"])
@pytest.mark.parametrize("name", NODE_OK)
def test_node(name, raw, tmp_path):
    case = node_case(name)
    model, binds = write_case(case, str(tmp_path), raw)
    exe = O.build(model, str(tmp_path), binds)
    for ins, outs in case.data_sets:
        for k in range(1, len(ins)):      # bound inputs are those of data set 0
            assert np.array_equal(np.asarray(ins[k]), np.asarray(case.data_sets[0][0][k]))
        got, _ = O.run(exe, str(tmp_path), [[np.asarray(ins[0])]])
        want = b"".join(np.ascontiguousarray(np.asarray(o)).tobytes() for o in outs)
        assert got[0] == want, "%s: htc %s, expected %s" % (
            name, np.frombuffer(got[0], np.asarray(outs[0]).dtype)[:16], np.asarray(outs[0]).ravel()[:16])


@pytest.mark.parametrize("name", NODE_REFUSED)
def test_node_refused(name, tmp_path):
    case = node_case(name)
    model, binds = write_case(case, str(tmp_path), False)
    args = ["compile", model, "-t", O.TARGET, "-o", str(tmp_path / "m.h")]
    for n, p in binds:
        args += ["--bind", "%s=%s" % (n, p)]
    p = O.htc(*args, check=False)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("htc: error: "), p.stderr
    assert not os.path.exists(tmp_path / "m.h")


# ---- the zoo ---------------------------------------------------------------

NETS = ("kws", "vww", "resnet", "ad")
# onnxruntime fuses every QDQ group of these into integer kernels
EXACT = ["%s_%s_%s" % (n, f, t) for n in NETS for f in ("qop", "qdq", "qdq2qop") for t in ("s8", "u8")
         if (n, f, t) != ("resnet", "qdq", "s8")]
EXACT += ["%s_%s_s8" % (n, v) for n in NETS for v in ("pow2qop", "ternaryqop")]
NINPUTS = 4


@pytest.fixture(scope="session")
def zoo():
    return O.ensure_zoo()


_built = {}


def htc_outputs(zoo, name, tmp, inputs):
    exe = _built.get(name)
    if exe is None:
        exe = O.build(os.path.join(zoo, name + ".onnx"), os.path.join(tmp, name))
        _built[name] = exe
    return O.run(exe, os.path.join(tmp, name), inputs)[0]


@pytest.fixture(scope="session")
def ztmp(tmp_path_factory):
    return str(tmp_path_factory.mktemp("zoo"))


@pytest.mark.parametrize("name", EXACT)
def test_zoo_exact(name, zoo, ztmp):
    model = os.path.join(zoo, name + ".onnx")
    sess = O.ort_session(model)
    inputs = O.random_inputs(sess, NINPUTS, seed=hash(name) % 1000)
    want = O.ort_outputs(sess, inputs)
    got = htc_outputs(zoo, name, ztmp, inputs)
    for k, (g, w) in enumerate(zip(got, want)):
        gv, wv = np.frombuffer(g, np.float32), np.frombuffer(w, np.float32)
        assert g == w, "%s input %d: %d of %d outputs differ: htc %s, onnxruntime %s" % (
            name, k, int(np.sum(gv != wv)), gv.size, gv[:8], wv[:8])


def _fused_counts(model):
    """Float and quantized compute ops in onnxruntime's optimised graph."""
    import onnxruntime as ort
    import tempfile
    so = ort.SessionOptions()
    so.log_severity_level = 3
    with tempfile.TemporaryDirectory() as d:
        so.optimized_model_filepath = os.path.join(d, "opt.onnx")
        ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        g = onnx.load(so.optimized_model_filepath).graph
    return sum(n.op_type in ("Conv", "Add", "Gemm", "MatMul") for n in g.node)


@pytest.mark.parametrize("form", ["qdq_s8", "pow2qdq_s8", "ternaryqdq_s8"])
def test_zoo_resnet_qdq_refused(form, zoo):
    """ResNet-8 int8 QDQ: onnxruntime leaves the Conv/Add groups at the
    residual branches in float (checked here; the uint8 model is fused and is
    in EXACT); htc refuses them with one line naming the node instead of
    computing something else."""
    model = os.path.join(zoo, "resnet_%s.onnx" % form)
    assert _fused_counts(model) > 0, "onnxruntime now fuses every group: move resnet_%s to EXACT" % form
    p = O.htc("compile", model, "-t", O.TARGET, "-o", os.devnull, check=False)
    assert p.returncode == 1
    line = p.stderr.strip()
    assert "\n" not in line and "node" in line and "onnxruntime" in line and "float" in line, line


@pytest.mark.parametrize("net", ["kws", "vww", "ad"])
@pytest.mark.parametrize("variant", ["pow2", "ternary"])
def test_zoo_variant_qdq_equals_qop(net, variant, zoo, ztmp):
    """The power-of-two / ternary QDQ files hold the same integers as their
    QOperator conversion (bit-exact against onnxruntime above); htc gives the
    QDQ form the same outputs. (onnxruntime itself leaves some of these QDQ
    groups in float, so it is not the oracle for the QDQ form.)"""
    qop, qdq = "%s_%sqop_s8" % (net, variant), "%s_%sqdq_s8" % (net, variant)
    sess = O.ort_session(os.path.join(zoo, qop + ".onnx"))
    inputs = O.random_inputs(sess, NINPUTS, seed=5)
    assert htc_outputs(zoo, qdq, ztmp, inputs) == htc_outputs(zoo, qop, ztmp, inputs)


@pytest.mark.parametrize("net", ["kws", "vww", "ad", "resnet"])
@pytest.mark.parametrize("qt", ["s8", "u8"])
def test_zoo_differential(net, qt, zoo, ztmp):
    """QOperator and QDQ forms of one network give identical header outputs:
    the QDQ model against its QOperator conversion (same integers: quantize_static
    picks different softmax output parameters for its own QOperator model, so
    that one is only compared with onnxruntime, in EXACT). The int8 ResNet QDQ
    model is refused (see above)."""
    qdq, conv = "%s_qdq_%s" % (net, qt), "%s_qdq2qop_%s" % (net, qt)
    sess = O.ort_session(os.path.join(zoo, conv + ".onnx"))
    inputs = O.random_inputs(sess, NINPUTS, seed=11)
    ref = htc_outputs(zoo, conv, ztmp, inputs)
    if (net, qt) != ("resnet", "s8"):
        assert htc_outputs(zoo, qdq, ztmp, inputs) == ref
    else:
        assert O.ort_outputs(O.ort_session(os.path.join(zoo, conv + ".onnx")), inputs) == ref


@pytest.mark.parametrize("name", ["resnet_qdq_u8", "ad_qop_s8"])
def test_zoo_fma_contraction(name, zoo, tmp_path):
    """The header built with -std=gnu99 -mfma (compilers may contract a*b+c
    into fused multiply-adds; htc__fmaf uses the FMA instruction) gives the
    same bytes as onnxruntime: the float kernels keep their rounding."""
    import subprocess
    # no silent skip: a machine without FMA cannot run this check, and says so
    assert " fma " in open("/proc/cpuinfo").read().replace("\n", " ") + " ", \
        "this test needs a CPU with FMA instructions (x86-64 with FMA3)"
    model = os.path.join(zoo, name + ".onnx")
    O.build(model, str(tmp_path))
    exe = str(tmp_path / "mfma")
    subprocess.run([O.CC, "-O2", "-mfma", "-mavx2", "-std=gnu99", "-o", exe, str(tmp_path / "drv.c"),
                    "-I", str(tmp_path)], check=True)
    sess = O.ort_session(model)
    inputs = O.random_inputs(sess, NINPUTS, seed=21)
    assert O.run(exe, str(tmp_path), inputs)[0] == O.ort_outputs(sess, inputs)


@pytest.mark.parametrize("net", ["kws", "resnet"])
@pytest.mark.parametrize("fmt", ["qdq", "qop"])
@pytest.mark.parametrize("qt", ["u8", "s8"])
def test_quantizer_options(net, fmt, qt, tmp_path):
    """Other quantize_static settings a user may pick: per-tensor weights,
    reduce_range, symmetric activations (which keep the Relus). htc matches
    onnxruntime, or refuses with one line where onnxruntime computes in
    float (a float GlobalAveragePool after a kept Relu, int8 residual
    branches), checked against onnxruntime's optimised graph."""
    import sys as _sys
    _sys.path.insert(0, os.path.join(O.REPO, "tests", "zoo"))
    import zoo as Z
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    fm = Z.NETS[net]()
    src, path = str(tmp_path / "f.onnx"), str(tmp_path / "q.onnx")
    onnx.save(fm, src)
    t = QuantType.QInt8 if qt == "s8" else QuantType.QUInt8
    quantize_static(src, path, Z.Reader(fm), quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
                    activation_type=t, weight_type=t, per_channel=False, reduce_range=True,
                    extra_options={"ActivationSymmetric": True, "DedicatedQDQPair": True})
    sess = O.ort_session(path)
    inputs = O.random_inputs(sess, 3, seed=17)
    try:
        exe = O.build(path, str(tmp_path / "b"))
    except O.HtcError as e:
        line = str(e).split("htc: error: ")[-1]
        assert "onnxruntime" in line and "float" in line, line
        op = "GlobalAveragePool" if "GlobalAveragePool" in line else "Conv" if "Conv" in line else "Add"
        assert op in {n.op_type for n in _optimised(path).node}, line
        return
    assert O.run(exe, str(tmp_path / "b"), inputs)[0] == O.ort_outputs(sess, inputs)


def _optimised(path):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.optimized_model_filepath = path + ".opt.onnx"
    ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return onnx.load(so.optimized_model_filepath).graph
