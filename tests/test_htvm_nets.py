"""tests/test_htvm_nets.py - HTVM's four Table I networks (tests/zoo/htvm_nets.py)
compiled for targets/diana.lua in HTVM's configurations (CPU, digital,
analog, mixed) and htc's cost-based "both", run on the host virtual platform
(the device model for the cores), every output bit-exact with onnxruntime,
several random inputs. The oracle is host-independent: onnxruntime's answer
on the int8 QOperator graph must equal its answer on the network's float
twin (htvm_nets.float_twin: integers below 2^24 in float32, exact on any
CPU), so a host whose fused int8 kernels were inexact would fail here
instead of making htc look wrong. The dispatch is HTVM's (checked from the
report), and the int8 Relu fold (gen/onnx.c int_clamp) is exercised by
every ReLU layer. RV32 (qemu) runs are bench/bench_diana.py's; one network
runs there in tests/test_bench_diana.py."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "zoo"))
import htvm_nets  # noqa: E402
import ort_oracle as oo  # noqa: E402

DIANA = os.path.join(oo.REPO, "targets", "diana.lua")
NETS = list(htvm_nets.NETS)
# HTVM's driver.py configurations (+ htc's cost dispatch on the mixed network)
CONFIGS = {"cpu": ("int8", ["-D", "engines=none"]),
           "digital": ("int8", ["-D", "engines=digital", "-D", "pool=cpu"]),
           "analog": ("ternary", ["-D", "engines=analog", "-D", "pool=cpu"]),
           "mixed": ("mixed", ["-D", "engines=both", "-D", "dispatch=mixed", "-D", "pool=cpu"]),
           "both": ("mixed", ["-D", "engines=both", "-D", "pool=cpu"])}


@pytest.fixture(scope="module")
def nets():
    return htvm_nets.ensure()


def report(model, args):
    p = subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + list(args), capture_output=True, text=True,
                       cwd=oo.REPO)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def oracle(model, ins):
    """onnxruntime's outputs, checked against its exact float twin"""
    import onnx
    import onnxruntime as ort
    want = oo.ort_outputs(oo.ort_session(model), ins)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    twin = ort.InferenceSession(htvm_nets.float_twin(onnx.load(model)).SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    exact = oo.ort_outputs(twin, ins)
    assert want == exact, "%s: onnxruntime's int8 kernels are not exact on this host" % model
    return want


def run_diana(model, args, ins, tmp):
    saved = oo.TARGET
    oo.TARGET = DIANA
    try:
        exe = oo.build(model, str(tmp), flags=args)
    finally:
        oo.TARGET = saved
    got, _ = oo.run(exe, str(tmp), ins)
    return got


@pytest.mark.parametrize("variant", ["htvm", "narrow"])
@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("net", NETS)
def test_bitexact(net, config, variant, nets, tmp_path):
    """every configuration, HTVM's weight distribution (saturating) and the
    narrow one (weights in {-1, 0, 1}: outputs that depend on every product),
    3 random int8 inputs"""
    kind, args = CONFIGS[config]
    if variant == "narrow":
        kind = "narrow"
    model = os.path.join(nets, "%s_%s.onnx" % (net, kind))
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 3, seed=21)
    want = oracle(model, ins)
    got = run_diana(model, args, ins, tmp_path)
    for k in range(len(ins)):
        a, b = np.frombuffer(got[k], np.uint8), np.frombuffer(want[k], np.uint8)
        assert a.tobytes() == b.tobytes(), "%s %s %s input %d: %d bytes differ" % (net, config, kind, k,
                                                                                  int((a != b).sum()))
    if variant == "narrow":     # the comparison is discriminating: most outputs are not clamped
        dt = np.int8 if net == "dae" else np.float32
        out = np.concatenate([np.frombuffer(w, dt) for w in want]).astype(np.int32)
        assert np.mean((out > -128) & (out < 127)) > 0.5, (net, out)


def test_networks_as_htvm(nets):
    """shapes, types and weight precisions as HTVM's relay_*.py build them"""
    import onnx
    from onnx import numpy_helper
    convs = {"ds_cnn": 9, "mobilenet": 27, "resnet": 9, "dae": 0}
    denses = {"ds_cnn": 1, "mobilenet": 1, "resnet": 1, "dae": 10}
    for net in NETS:
        for kind in ("int8", "ternary", "mixed"):
            m = onnx.load(os.path.join(nets, "%s_%s.onnx" % (net, kind)))
            g = m.graph
            assert g.input[0].type.tensor_type.elem_type == onnx.TensorProto.INT8
            inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
            layers = [n for n in g.node if n.op_type in ("QLinearConv", "QGemm")]
            assert sum(n.op_type == "QLinearConv" for n in layers) == convs[net], net
            assert sum(n.op_type == "QGemm" for n in layers) == denses[net], net
            for i, n in enumerate(layers):
                w = inits[n.input[3]]
                dw = n.op_type == "QLinearConv" and w.shape[1] == 1 and w.shape[2] == 3
                tern = w.min() >= -1 and w.max() <= 1
                first, last = i == 0, i == len(layers) - 1
                if kind == "int8" or dw:
                    want8 = True
                elif kind == "ternary":
                    want8 = False
                else:           # mixed: conv1, dense, and the files' extra int8 layers
                    extra = {"mobilenet": len(layers) - 2, "resnet": 8}.get(net, -1)
                    want8 = first or last or i == extra
                assert tern != want8, (net, kind, i, n.name, int(w.min()), int(w.max()))
                if want8:
                    assert w.min() < -100 and w.max() > 100, (net, kind, i)       # the full int8 range
                b = inits[n.input[8] if n.op_type == "QLinearConv" else n.input[6]].astype(np.int64)
                fan = np.abs(w.astype(np.int64)).reshape(w.shape[0], -1).sum(axis=1)
                assert (np.abs(b) + 128 * fan < 2 ** 24).all()
            if net == "ds_cnn":
                c1 = layers[0]
                w = inits[c1.input[3]]
                at = {a.name: onnx.helper.get_attribute_value(a) for a in c1.attribute}
                assert w.shape == (64, 1, 5, 7) and list(at["strides"]) == [2, 2] and list(at["pads"]) == [2, 3, 2, 3]
                assert [d.dim_value for d in g.input[0].type.tensor_type.shape.dim] == [1, 1, 10, 49]


def test_htvm_dispatch(nets):
    """where each layer runs: HTVM's placement (avgpool on the CPU; analog:
    depthwise and adds on the CPU; mixed: conv1, dense, depthwise and the
    int8 layers on digital, the ternary Conv2D/FC on analog)"""
    for net in NETS:
        rep = report(os.path.join(nets, "%s_int8.onnx" % net), CONFIGS["digital"][1])
        for l in rep["layers"]:
            if l["op"] in ("conv2d", "fc", "add"):
                assert l["engine"] == "digital", (net, l)
            if l["op"] == "avgpool":
                assert l["engine"] == "riscv" and "pool=cpu" in l["reason"], l
        rep = report(os.path.join(nets, "%s_ternary.onnx" % net), CONFIGS["analog"][1])
        for l in rep["layers"]:
            if l["op"] in ("conv2d", "fc"):
                dw = l["op"] == "conv2d" and "not ternary" in l["reason"]
                assert l["engine"] == ("riscv" if dw else "analog"), (net, l)
            if l["op"] == "add":
                assert l["engine"] == "riscv", l
        mixed = os.path.join(nets, "%s_mixed.onnx" % net)
        rep = report(mixed, CONFIGS["mixed"][1])
        bits = report(mixed, ["-D", "engines=both", "-D", "dispatch=bits", "-D", "pool=cpu"])
        # HTVM dispatches by weight precision; its mixed networks make the
        # paper's rule (first / last eligible and depthwise on digital) the same
        assert [l["engine"] for l in rep["layers"]] == [l["engine"] for l in bits["layers"]], net
        assert all(l["engine"] != "riscv" for l in rep["layers"] if l["op"] in ("conv2d", "fc", "add")), net


def test_int_relu_refusals(tmp_path):
    """Relu / Clip on an int8 tensor fold into the op that writes it; where
    that is not possible, one line naming the node"""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
    zero = numpy_helper.from_array(np.array(0, np.int8), "zero")

    def model(nodes, inits=()):
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 8])], [one, zero] + list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14), helper.make_opsetid("com.microsoft", 1)])
        m.ir_version = 8
        p = str(tmp_path / ("m%d.onnx" % len(os.listdir(str(tmp_path)))))
        onnx.save(m, p)
        return p

    p = model([helper.make_node("Relu", ["x"], ["y"], name="r")])
    r = oo.htc("compile", p, "-t", oo.TARGET, "-o", str(tmp_path / "m.h"), check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "node 0 'r' (Relu)" in r.stderr and "not into a graph input" in r.stderr, r.stderr
    w = numpy_helper.from_array(np.eye(8, dtype=np.int8) * 3, "w")
    b = numpy_helper.from_array(np.zeros(8, np.int32), "b")
    lo = numpy_helper.from_array(np.array(-5, np.int8), "lo")
    hi = numpy_helper.from_array(np.array(9, np.int8), "hi")
    gemm = helper.make_node("QGemm", ["x", "one", "zero", "w", "one", "zero", "b", "one", "zero"], ["g"],
                            domain="com.microsoft", transB=1, name="fc")
    p = model([gemm, helper.make_node("Clip", ["g", "lo", "hi"], ["y"], name="c")], [w, b, lo, hi])
    sess = oo.ort_session(p)
    ins = [[np.arange(-4, 4, dtype=np.int8).reshape(1, 8) * 1]]
    exe = oo.build(p, str(tmp_path / "b"))
    got, _ = oo.run(exe, str(tmp_path / "b"), ins)
    assert got == oo.ort_outputs(sess, ins)
    assert set(np.frombuffer(got[0], np.int8).tolist()) <= set(range(-5, 10))
    # a second reader of the integer result: not folded
    p = model([gemm, helper.make_node("Relu", ["g"], ["r"], name="r"),
               helper.make_node("QLinearAdd", ["g", "one", "zero", "r", "one", "zero", "one", "zero"], ["y"],
                                domain="com.microsoft", name="add")], [w, b])
    r = oo.htc("compile", p, "-t", oo.TARGET, "-o", str(tmp_path / "m.h"), check=False)
    assert r.returncode == 1 and "which has other readers" in r.stderr, r.stderr


@pytest.mark.parametrize("sa,za,sb,zb,sc,zc", [(1, 0, 1, 0, 1, 0), (0.5, 3, 0.25, -7, 0.5, 2), (2, -128, 1, 127, 4, -5),
                                               (2 ** -6, 10, 2 ** -3, -20, 2 ** -4, 0), (1, 0, 1, 0, 2 ** -8, 1),
                                               (0.75, 0, 1, 0, 1, 0)])
def test_qlinearadd_shift(sa, za, sb, zb, sc, zc, tmp_path):
    """QLinearAdd whose float formula is exact (power-of-two ratios, HTVM's
    residual add among them) runs in integers on the CPU
    (kernels/ort_eltwise.c htc__qadd_s8_int): bit-exact with onnxruntime on
    every pair of int8 values; the last case (a ratio of 0.75 with y_scale
    2^-8 elsewhere) and non-exact ones keep the float path"""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits = [numpy_helper.from_array(np.array(v, t), n) for v, t, n in
             ((sa, np.float32, "sa"), (za, np.int8, "za"), (sb, np.float32, "sb"), (zb, np.int8, "zb"),
              (sc, np.float32, "sc"), (zc, np.int8, "zc"))]
    node = helper.make_node("QLinearAdd", ["a", "sa", "za", "b", "sb", "zb", "sc", "zc"], ["y"], domain="com.microsoft")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.INT8, [256, 256]) for n in "ab"],
                          [helper.make_tensor_value_info("y", TensorProto.INT8, [256, 256])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    p = str(tmp_path / "add.onnx")
    onnx.save(m, p)
    v = np.arange(-128, 128, dtype=np.int8)
    ins = [[np.repeat(v, 256).reshape(256, 256), np.tile(v, 256).reshape(256, 256)]]
    exe = oo.build(p, str(tmp_path / "b"))
    got, _ = oo.run(exe, str(tmp_path / "b"), ins)
    assert got == oo.ort_outputs(oo.ort_session(p), ins)
