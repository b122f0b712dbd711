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
import zlib
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
# the power-of-two and ternary QDQ forms too (biases requantized to
# x_scale * w_scale: fused), but ResNet-8's (residual branches: FLOAT_GROUPS)
EXACT += ["%s_%s_s8" % (n, v) for n in NETS for v in ("pow2qdq", "ternaryqdq") if n != "resnet"]
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
    inputs = O.random_inputs(sess, NINPUTS, seed=zlib.crc32(name.encode()) % 1000)
    want = O.ort_outputs(sess, inputs)
    got = htc_outputs(zoo, name, ztmp, inputs)
    for k, (g, w) in enumerate(zip(got, want)):
        gv, wv = np.frombuffer(g, np.float32), np.frombuffer(w, np.float32)
        assert g == w, "%s input %d: %d of %d outputs differ: htc %s, onnxruntime %s" % (
            name, k, int(np.sum(gv != wv)), gv.size, gv[:8], wv[:8])


def ort_float_nodes(model):
    """Names of the compute nodes onnxruntime's optimised graph leaves in
    float (one intra-op thread, as the oracle runs)."""
    import onnxruntime as ort
    import tempfile
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    with tempfile.TemporaryDirectory() as d:
        so.optimized_model_filepath = os.path.join(d, "opt.onnx")
        ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        g = onnx.load(so.optimized_model_filepath).graph
    return {n.name for n in g.node if n.op_type in ("Conv", "FusedConv", "Add", "Mul", "Gemm", "MatMul")}


def htc_float_nodes(stderr):
    """Nodes htc --float-fallback computes in float, from its notes."""
    import re
    return set(re.findall(r"node \d+ '([^']*)' \(\w+\) computed in float", stderr))


# int8 QDQ models with groups onnxruntime computes in float: the residual
# branches of ResNet-8 (activations shared by two nodes; the same groups in
# its power-of-two form, not run here, and its ternary one beside fused
# ternary Convs) and, in the stale-bias variants (a quantizer that rescaled
# weights without their biases, tests/zoo/zoo.py), every Conv whose bias
# scale is not x_scale * w_scale
FLOAT_GROUPS = ["resnet_qdq_s8", "resnet_ternaryqdq_s8"]
FLOAT_GROUPS += ["%s_%sqdq_stalebias_s8" % (n, v) for n in ("kws", "vww") for v in ("pow2", "ternary")]


@pytest.mark.parametrize("name", FLOAT_GROUPS)
def test_zoo_float_refused(name, zoo, tmp_path):
    """With --no-float-fallback htc refuses a model onnxruntime partly
    computes in float, with one line naming those nodes (several: the line
    counting them, then one line each)."""
    model = os.path.join(zoo, name + ".onnx")
    floats = ort_float_nodes(model)
    # every model here has float groups, or it tests nothing of the fallback
    assert floats, "onnxruntime fuses every group of %s: not a float-fallback model" % name
    p = O.htc("compile", model, "-t", O.TARGET, "-o", str(tmp_path / "m.h"), "--no-float-fallback", check=False)
    assert p.returncode == 1
    lines = p.stderr.strip().split("\n")
    line = lines[0]
    import re
    many = re.search(r": (\d+) operators refused, in graph order: ", line)
    assert len(lines) == (int(many.group(1)) + 1 if many else 1), p.stderr
    assert all(ln.startswith("htc: error: ") for ln in lines), p.stderr
    assert "float" in line and "--float-fallback" in line, line
    named = [n for op, n in re.findall(r"(\w+) '([^']*)'", line) if op in ("Conv", "Add", "Mul", "Gemm", "MatMul")]
    assert named and named[0] in floats, "htc names %s, onnxruntime leaves %s in float" % (named, sorted(floats))


@pytest.mark.parametrize("name", FLOAT_GROUPS)
def test_zoo_float_fallback(name, zoo, ztmp):
    """With --float-fallback: htc computes in float exactly the nodes
    onnxruntime leaves in float (same names), and every output is bit-exact
    against onnxruntime (MLAS's tap order, fused multiply-adds, K slices),
    with the AVX2+FMA kernel and with the portable one (-DHTC_NO_SIMD:
    fused multiply-add emulated in double)."""
    model = os.path.join(zoo, name + ".onnx")
    tmp = os.path.join(ztmp, name + "_ff")
    p = O.htc("compile", model, "-t", O.TARGET, "-o", os.path.join(ztmp, name + "_ff.h"), "--float-fallback")
    assert htc_float_nodes(p.stderr) == ort_float_nodes(model)
    exe = O.build(model, tmp, flags=["--float-fallback"])
    sess = O.ort_session(model)
    inputs = O.random_inputs(sess, NINPUTS, seed=zlib.crc32(name.encode()) % 1000)
    got, want = O.run(exe, tmp, inputs)[0], O.ort_outputs(sess, inputs)
    assert len(got) == len(want) == NINPUTS
    for k, (g, w) in enumerate(zip(got, want)):
        assert g == w, "%s input %d differs" % (name, k)
    exe = O.build(model, tmp + "_c", flags=["--float-fallback"], cflags=["-DHTC_NO_SIMD"])
    assert O.run(exe, tmp + "_c", inputs)[0] == want, "%s: the portable kernel differs" % name


@pytest.mark.parametrize("net", ["kws", "vww", "ad", "resnet"])
@pytest.mark.parametrize("qt", ["s8", "u8"])
def test_zoo_differential(net, qt, zoo, ztmp):
    """QOperator and QDQ forms of one network give identical header outputs:
    the QDQ model against its QOperator conversion (same integers: quantize_static
    picks different softmax output parameters for its own QOperator model, so
    that one is only compared with onnxruntime, in EXACT). The int8 ResNet QDQ
    model has float groups (see above): compiled with --float-fallback; its
    conversion is also compared with onnxruntime."""
    qdq, conv = "%s_qdq_%s" % (net, qt), "%s_qdq2qop_%s" % (net, qt)
    sess = O.ort_session(os.path.join(zoo, conv + ".onnx"))
    inputs = O.random_inputs(sess, NINPUTS, seed=11)
    ref = htc_outputs(zoo, conv, ztmp, inputs)
    if (net, qt) != ("resnet", "s8"):
        assert htc_outputs(zoo, qdq, ztmp, inputs) == ref
    else:
        # float groups (--float-fallback) against the integer conversion:
        # equal on these inputs, as onnxruntime's two forms are
        assert O.ort_outputs(O.ort_session(os.path.join(zoo, conv + ".onnx")), inputs) == ref
        tmp = os.path.join(ztmp, qdq + "_diff")
        exe = O.build(os.path.join(zoo, qdq + ".onnx"), tmp, flags=["--float-fallback"])
        assert O.run(exe, tmp, inputs)[0] == ref


@pytest.mark.parametrize("name", ["resnet_qdq_u8", "ad_qop_s8", "resnet_qdq_s8"])
def test_zoo_fma_contraction(name, zoo, tmp_path):
    """The header built with -std=gnu99 -mfma (compilers may contract a*b+c
    into fused multiply-adds; htc__fmaf uses the FMA instruction) gives the
    same bytes as onnxruntime: the float kernels keep their rounding."""
    import subprocess
    # no silent skip: a machine without FMA cannot run this check, and says so
    assert " fma " in open("/proc/cpuinfo").read().replace("\n", " ") + " ", \
        "this test needs a CPU with FMA instructions (x86-64 with FMA3)"
    model = os.path.join(zoo, name + ".onnx")
    O.build(model, str(tmp_path), flags=["--float-fallback"] if name in FLOAT_GROUPS else [])
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
        exe = O.build(path, str(tmp_path / "b"), flags=["--no-float-fallback"])
    except O.HtcError as e:
        line = str(e).split("htc: error: ")[-1]
        assert "onnxruntime" in line and "float" in line, line
        op = "GlobalAveragePool" if "GlobalAveragePool" in line else "Conv" if "Conv" in line else "Add"
        assert op in {n.op_type for n in _optimised(path).node}, line
        # the same model with --float-fallback: bit-exact, or (for a float
        # group it does not reproduce) one line saying which
        try:
            exe = O.build(path, str(tmp_path / "f"), flags=["--float-fallback"])
        except O.HtcError as e2:
            line = str(e2).split("htc: error: ")[-1]
            assert "--float-fallback reproduces Conv, Add, Mul, " in line, line
            return
        assert O.run(exe, str(tmp_path / "f"), inputs)[0] == O.ort_outputs(sess, inputs)
        return
    assert O.run(exe, str(tmp_path / "b"), inputs)[0] == O.ort_outputs(sess, inputs)


def _optimised(path):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.optimized_model_filepath = path + ".opt.onnx"
    ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return onnx.load(so.optimized_model_filepath).graph


@pytest.mark.parametrize("cc", [
    ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
    ["arm-none-eabi-gcc", "-mcpu=cortex-m0", "-mthumb"],
    ["riscv64-unknown-elf-gcc", "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32"],
])
def test_float_fallback_header_cross(cc, zoo, tmp_path):
    """The header of a model with float groups (int8 QDQ ResNet-8) compiles
    warning-free for microcontrollers with (Cortex-M4F: VFMA) and without
    a floating-point unit."""
    import subprocess
    model = os.path.join(zoo, "resnet_qdq_s8.onnx")
    h = str(tmp_path / "r.h")
    O.htc("compile", model, "-t", O.TARGET, "-o", h, "--name", "r", "--float-fallback")
    src = tmp_path / "r.c"
    src.write_text('#define R_IMPLEMENTATION\n#include "r.h"\n')
    p = subprocess.run(cc + ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", "--specs=picolibc.specs",
                             "-c", str(src), "-o", str(tmp_path / "r.o"), "-I", str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 0 and not p.stderr, p.stderr[:2000]


def test_float_fallback_check(zoo, tmp_path):
    """htc run --check (AddressSanitizer; each layer may touch only its
    planned buffers) on the int8 ResNet-8 with its float groups: clean, and
    the output equals onnxruntime's."""
    model = os.path.join(zoo, "resnet_qdq_s8.onnx")
    sess = O.ort_session(model)
    xs = O.random_inputs(sess, 1, seed=2)
    inp, outp = str(tmp_path / "in.bin"), str(tmp_path / "out.bin")
    xs[0][0].tofile(inp)
    O.htc("run", model, "-t", O.TARGET, "--float-fallback", "--check", "--input", inp, "--output", outp)
    assert open(outp, "rb").read() == O.ort_outputs(sess, xs)[0]
