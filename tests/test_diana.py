"""tests/test_diana.py - the DIANA target on the host virtual platform:
every power-of-two MLPerf Tiny model (tests/zoo) compiled for
targets/diana.lua runs bit-exact with onnxruntime (every output, several
random inputs), every eligible layer is offloaded to the digital engine,
and the device model (kernels/diana.c) checks every L1 / weight-memory
access (an overflow aborts the program)."""
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as oo  # noqa: E402

DIANA = os.path.join(oo.REPO, "targets", "diana.lua")
NETS = ["kws", "vww", "resnet", "ad"]


_BUILDS = {}


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("diana_builds")


def build(build_dir, model, flags=()):
    """oo.build for targets/diana.lua, once per (model, flags) in this module
    (several tests run the same program: the C compile is the cost)."""
    key = (model, tuple(flags))
    if key not in _BUILDS:
        d = os.path.join(str(build_dir), "b%d" % len(_BUILDS))
        saved = oo.TARGET
        oo.TARGET = DIANA
        try:
            _BUILDS[key] = (oo.build(model, d, flags=list(flags)), d)
        finally:
            oo.TARGET = saved
    return _BUILDS[key]


def report(model, target=DIANA, env=None, args=()):
    import subprocess
    p = subprocess.run([oo.HTC, "report", model, "-t", target, "--json"] + list(args), capture_output=True, text=True,
                       cwd=oo.REPO, env=env)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("net", NETS)
def test_pow2_bitexact_on_diana(net, build_dir):
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_pow2qop_s8.onnx" % net)
    exe, d = build(build_dir, model)
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 4, seed=7)
    got, _ = oo.run(exe, d, ins)
    want = oo.ort_outputs(sess, ins)
    for k in range(len(ins)):
        a, b = np.frombuffer(got[k], np.uint8), np.frombuffer(want[k], np.uint8)
        assert a.tobytes() == b.tobytes(), "%s input %d: %d bytes differ" % (net, k, int((a != b).sum()))


@pytest.mark.parametrize("net", NETS)
def test_eligible_layers_offloaded(net):
    """Conv (k 1/3/5/7, stride <= 2, groups 1 or depthwise), FC and add with
    exact power-of-two requantisation must all run on the digital engine."""
    zoo = oo.ensure_zoo()
    rep = report(os.path.join(zoo, "%s_pow2qop_s8.onnx" % net))
    n_off = 0
    for layer in rep["layers"]:
        if layer["op"] not in ("conv2d", "fc", "add"):
            continue
        why = layer["reason"]
        if layer["engine"] == "digital":
            n_off += 1
            assert layer["tile"]["l1_bytes"] <= 256 * 1024
            continue
        # the only accepted refusal in the zoo: the 10x4 KWS input filter
        assert "kernel 10x4" in why, (net, layer["index"], why)
    assert n_off > 0


@pytest.mark.parametrize("net,l1_kib", [("resnet", 12), ("kws", 6), ("ad", 2)])
def test_pow2_bitexact_small_l1(net, l1_kib, build_dir):
    """The same networks with a small L1 (-D l1_kib=N): real layers split
    into many tiles (remainders, halos, padded borders, double buffering),
    still bit-exact."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_pow2qop_s8.onnx" % net)
    args = ["-D", "l1_kib=%d" % l1_kib]
    rep = report(model, args=args)
    assert rep["params"]["l1_kib"] == str(l1_kib)
    assert max(l["tile"]["tiles"] for l in rep["layers"] if "tile" in l) > 1
    assert max(l["tile"]["l1_bytes"] for l in rep["layers"] if "tile" in l) <= l1_kib * 1024
    exe, d = build(build_dir, model, args)
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 3, seed=11)
    got, _ = oo.run(exe, d, ins)
    assert got == oo.ort_outputs(sess, ins)


def test_htc_run_prints_measured_cycles(tmp_path):
    """`htc run` on an accelerator target prints the device model's cycles
    per layer and their total; its output equals onnxruntime's."""
    import re
    import subprocess
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "kws_pow2qop_s8.onnx")
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 1, seed=3)
    inp, outp = str(tmp_path / "in.bin"), str(tmp_path / "out.bin")
    open(inp, "wb").write(np.ascontiguousarray(ins[0][0]).tobytes())
    p = subprocess.run([oo.HTC, "run", model, "-t", DIANA, "--input", inp, "--output", outp], capture_output=True,
                       text=True, cwd=oo.REPO)
    assert p.returncode == 0, p.stderr
    assert open(outp, "rb").read() == oo.ort_outputs(sess, ins)[0]
    rows = re.findall(r"^\s*(\d+)\s+(\w+)\s+(\w+)\s+(\d+|-)\s+(\d+)  (.*)$", p.stdout, re.M)
    assert any(r[2] == "digital" and r[3] != "-" and int(r[3]) > 0 for r in rows), p.stdout
    assert all(r[5] for r in rows), p.stdout          # every layer says why it runs where it does
    # CPU layers are not measured by a device model ('-'): the total counts their estimate
    assert all((r[3] == "-") == (r[2] == "riscv") for r in rows), p.stdout
    total = int(re.search(r"^total: (\d+) cycles", p.stdout, re.M).group(1))
    assert total == sum(int(r[3]) if r[3] != "-" else int(r[4]) for r in rows)
    rep = report(model)
    assert "measured / ideal" in p.stdout and total >= rep["ideal_cycles"] * 0.999


@pytest.mark.parametrize("net,l1_kib", [("kws", None), ("vww", None), ("resnet", None), ("kws", 6)])
def test_global_avgpool_offloaded(net, l1_kib, build_dir):
    """The zoo networks' final QLinearGlobalAveragePool runs on the digital
    engine (pool geometry: tiles over C, the whole window in L1; at 6 kB the
    KWS pool splits its channels), and the network stays bit-exact."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_pow2qop_s8.onnx" % net)
    args = ["-D", "l1_kib=%d" % l1_kib] if l1_kib else []
    rep = report(model, args=args)
    pools = [layer for layer in rep["layers"] if layer["op"] == "avgpool"]
    assert pools, net
    for layer in pools:
        assert layer["engine"] == "digital", layer["reason"]
        assert layer["tile"]["geom"] == "pool"
        assert layer["tile"]["l1_bytes"] <= (l1_kib or 256) * 1024
        if l1_kib:
            assert layer["tile"]["tiles"] > 1
    exe, d = build(build_dir, model, args)
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 4, seed=5)
    got, _ = oo.run(exe, d, ins)
    assert got == oo.ort_outputs(sess, ins)


def pow2_tflite(path, seed=3):
    """A small .tflite network whose scales are all powers of two (TFLite's
    multipliers are then exactly 2^30): conv 3x3 + ReLU, depthwise 3x3
    stride 2, conv 1x1, fully connected."""
    import tflite_build as tb
    rng = np.random.default_rng(seed)
    m = tb.Model()
    x = m.input([1, 16, 16, 4], scale=2.0 ** -4, zp=3)
    y = m.conv2d(x, 8, 3, rng, act="RELU", per_channel=False, w_scale=2.0 ** -6, out_scale=2.0 ** -2, out_zp=-5)
    y = m.depthwise_conv2d(y, 3, rng, stride=2, per_channel=False, w_scale=2.0 ** -5, out_scale=2.0 ** -3, out_zp=2)
    y = m.conv2d(y, 16, 1, rng, per_channel=False, w_scale=2.0 ** -7, out_scale=2.0 ** -1, out_zp=-1)
    y = m.reshape(y, [1, 8 * 8 * 16])
    y = m.fully_connected(y, 10, rng, w_scale=2.0 ** -6, out_scale=2.0 ** -2, out_zp=4)
    m.output(y)
    m.save(path)


def test_pow2_tflite_offloaded_as_shift(tmp_path):
    """A .tflite model whose scales are exact powers of two is recognised as
    shift requantization with TFLite's rounding: DIANA (shift:tflite) runs
    its conv, depthwise and FC layers, bit-exact with TFLite Micro; vanilla
    (shift rounded half to even only) refuses them and says why."""
    import oracle
    path = str(tmp_path / "pow2.tflite")
    pow2_tflite(path)
    rep = report(path)
    done = [l for l in rep["layers"] if l["source_op"] in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")]
    assert len(done) == 4
    for layer in done:
        assert layer["engine"] == "digital", layer["reason"]
        assert layer["requant"] == "tflite" and "tile" in layer
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(40 + s) for s in range(3)]
    for inputs, (outs, dumps) in zip(sets, oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=DIANA)):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
        assert not errors and compared == len(info.ops), errors
    van = report(path, os.path.join(oo.REPO, "targets", "vanilla.lua"))
    conv = [l for l in van["layers"] if l["source_op"] == "CONV_2D"]
    assert conv and all(l["engine"] == "cpu" for l in conv)
    assert "this op's is tflite (a power-of-two shift with TFLite's rounding: shift:tflite)" in conv[0]["reason"], conv[0]


# Table I's configurations: CPU only, CPU + digital, CPU + analog, CPU + both
# (cost-based dispatch), and the paper's "mixed" (both, -D dispatch=mixed)
CONFIGS = ["none", "digital", "analog", "both", "mixed"]


def config_flags(config):
    if config == "mixed":
        return ["-D", "engines=both", "-D", "dispatch=mixed"]
    return ["-D", "engines=" + config]


# The mixed-precision variants skip CPU only and CPU + digital: there they
# run the same kernels as the ternary ones (8-bit weights on the CPU and on
# digital are covered by the pow2 and ternary runs), and each build costs
# about a second of C compile.
@pytest.mark.parametrize("variant,net,engines",
                         [("ternary", n, c) for n in NETS for c in CONFIGS] +
                         [("mixed", n, c) for n in NETS for c in ("analog", "both", "mixed")])
def test_ternary_bitexact_configs(variant, net, engines, build_dir):
    """The ternary and mixed-precision zoo variants run bit-exact with
    onnxruntime in every configuration; the device model aborts on any L1 /
    weight-memory overflow and on non-ternary analog weights."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_%sqop_s8.onnx" % (net, variant))
    exe, d = build(build_dir, model, config_flags(engines))
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 3, seed=11)
    got, _ = oo.run(exe, d, ins)
    want = oo.ort_outputs(sess, ins)
    for k in range(len(ins)):
        a, b = np.frombuffer(got[k], np.uint8), np.frombuffer(want[k], np.uint8)
        assert a.tobytes() == b.tobytes(), "%s %s input %d: %d bytes differ" % (net, engines, k, int((a != b).sum()))


@pytest.mark.parametrize("net", NETS)
def test_analog_dispatch(net):
    """Ternary convs reach the analog core when it is the only accelerator;
    with both, every conv the two accept says why it went where it went."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_ternaryqop_s8.onnx" % net)
    rep = report(model, args=["-D", "engines=analog"])
    n_ana = sum(1 for layer in rep["layers"] if layer["engine"] == "analog")
    assert n_ana > 0, net
    for layer in rep["layers"]:
        if layer["engine"] == "analog":
            assert layer["tile"]["l1_bytes"] <= 256 * 1024
    rep = report(model, args=["-D", "engines=both"])
    for layer in rep["layers"]:
        if layer["op"] in ("conv2d", "fc") and layer["engine"] in ("analog", "digital"):
            assert layer["reason"].startswith(("cost: ", "only ")), (net, layer["index"], layer["reason"])
    rep = report(model, args=["-D", "engines=both", "-D", "dispatch=bits"])
    for layer in rep["layers"]:
        if layer["reason"].startswith("bits: ternary"):
            assert layer["engine"] == "analog"


def weighted_layers(model):
    """(node index, depthwise, weight integers) of every QLinearConv / QGemm
    of a QOperator model, read with onnx (not htc)."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(model)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    res = []
    for k, n in enumerate(m.graph.node):
        if n.op_type in ("QLinearConv", "QGemm"):
            w = inits[n.input[3]]
            group = next((a.i for a in n.attribute if a.name == "group"), 1)
            res.append((k, group > 1 and group == w.shape[0], w))
    return res


@pytest.mark.parametrize("net", NETS)
def test_mixed_dispatch(net):
    """-D dispatch=mixed (the HTVM paper's mixed configuration) on the
    mixed-precision zoo variants: their first and last Conv/Gemm have 8-bit
    weights (checked with onnx), the others ternary; every depthwise and the
    first and last accelerator-eligible layers (op.eligible_index) run on
    digital, the other Conv2D/FC layers on analog."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_mixedqop_s8.onnx" % net)
    lin = weighted_layers(model)
    tern = [bool(w.min() >= -1 and w.max() <= 1) for _, _, w in lin]
    assert not tern[0] and not tern[-1] and all(tern[1:-1]), tern
    dw = {k: d for k, d, _ in lin}
    rep = report(model, args=["-D", "engines=both", "-D", "dispatch=mixed"])
    assert rep["params"]["dispatch"] == "mixed"
    layers = [l for l in rep["layers"] if l["op"] in ("conv2d", "fc")]
    assert len(layers) == len(lin)
    eligible = [l for l in layers if l["engine"] != "riscv"]
    assert len(eligible) >= 3
    for i, layer in enumerate(eligible):
        first, last = i == 0, i == len(eligible) - 1
        if dw[layer["source_index"]]:
            want, why = "digital", "mixed: depthwise -> digital"
        elif first or last:
            want = "digital"
            why = "mixed: %s eligible layer (%d of %d) -> digital" % ("first" if first else "last", i + 1, len(eligible))
        else:
            want, why = "analog", "mixed: eligible layer %d of %d, not first or last -> analog" % (i + 1, len(eligible))
        assert (layer["engine"], layer["reason"]) == (want, why), (net, layer["index"])
    for layer in layers:       # on the CPU only where no accelerator accepts the layer
        if layer["engine"] == "riscv":
            assert layer["reason"].startswith("fallback: "), layer
    # the same dispatch for the all-ternary variant: first and last layers go
    # to digital although analog accepts them
    rep = report(os.path.join(zoo, "%s_ternaryqop_s8.onnx" % net), args=["-D", "engines=both", "-D", "dispatch=mixed"])
    eligible = [l for l in rep["layers"] if l["op"] in ("conv2d", "fc") and l["engine"] != "riscv"]
    assert eligible[-1]["engine"] == "digital" and eligible[-1]["reason"].startswith("mixed: last eligible layer")


@pytest.fixture(scope="module")
def big_rows_model(tmp_path_factory):
    """A small ternary network whose layers exceed the analog array's 1152
    rows: conv 160->48 3x3 (1440 rows: 2 passes), conv 48->64 5x5 (1200
    rows: 2 passes), FC 4096->10 (4 passes); built with the zoo's
    quantize / ternary rescale / QOperator conversion (tests/zoo/zoo.py)."""
    from onnx import helper
    sys.path.insert(0, os.path.join(oo.REPO, "tests", "zoo"))
    import zoo
    out = str(tmp_path_factory.mktemp("bigrows"))
    n = zoo.Net("bigrows", 5)
    x = n.conv("input", 160, 48, 3, ternary=True)
    x = n.conv(x, 48, 64, 5, ternary=True)
    f = n.uid("flatten")
    n.nodes.append(helper.make_node("Flatten", [x], [f], name=f, axis=1))
    x = n.gemm(f, 64 * 8 * 8, 10, ternary=True)
    tp = os.path.join(out, "bigrows_tfloat.onnx")
    zoo.quantize(n.model("input", [1, 160, 8, 8], x), tp, "qdq", "s8")
    p = os.path.join(out, "bigrows_ternaryqdq_s8.onnx")
    zoo.rescale(tp, p, weights="ternary")
    zoo.qdq_to_qop(p, p.replace("qdq", "qop"))
    return p.replace("qdq", "qop")


@pytest.mark.parametrize("flags", [["-D", "engines=analog"], ["-D", "engines=analog", "-D", "l1_kib=12"],
                                   ["-D", "engines=both"]])
def test_analog_row_passes(big_rows_model, flags, build_dir):
    """Layers with C*kh*kw over the array's 1152 rows run on the analog core
    in passes (int32 partial sums in L1 between passes, one requantisation
    after the last), bit-exact with onnxruntime, alone, with many spatial
    tiles (12 kB L1) and next to the digital core."""
    model = big_rows_model
    rows = [int(np.prod(w.shape[1:])) for _, _, w in weighted_layers(model)]
    assert rows == [1440, 1200, 4096]
    rep = report(model, args=flags)
    ana = [l for l in rep["layers"] if l["engine"] == "analog"]
    for layer, n in zip(ana, (1440, 1200, 4096)):
        assert layer["reason"].endswith("; %d rows: %d passes over the 1152-row array, int32 partial sums in L1"
                                        % (n, -(-n // 1152))), layer["reason"]
    if "engines=analog" in flags:
        assert len(ana) == 3
        for layer in ana:       # the partial sums are counted in the L1 bytes
            size = layer["tile"]["size"]
            outs = size["K"] * size["OY"] * size["OX"]
            assert layer["tile"]["l1_bytes"] >= 4 * outs + 2 * outs, layer
    if "l1_kib=12" in flags:
        assert max(l["tile"]["tiles"] for l in ana) > 1
        assert max(l["tile"]["l1_bytes"] for l in ana) <= 12 * 1024
    exe, d = build(build_dir, model, flags)
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 3, seed=13)
    got, _ = oo.run(exe, d, ins)
    assert got == oo.ort_outputs(sess, ins)


def test_analog_row_passes_cycles(big_rows_model, tmp_path):
    """`htc run`: the device model counts every pass of a multi-pass layer:
    each layer's measured cycles are at least its weight DMA, every row
    programmed once, and per pass a startup and one activation per output
    pixel (targets/diana.lua: ANA_W_BPC 32, ANA_PROG_ROWS 1, ANA_STARTUP 50)."""
    import re
    import subprocess
    model = big_rows_model
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 1, seed=3)
    inp, outp = str(tmp_path / "in.bin"), str(tmp_path / "out.bin")
    open(inp, "wb").write(np.ascontiguousarray(ins[0][0]).tobytes())
    p = subprocess.run([oo.HTC, "run", model, "-t", DIANA, "-D", "engines=analog", "--input", inp, "--output", outp],
                       capture_output=True, text=True, cwd=oo.REPO)
    assert p.returncode == 0, p.stderr
    assert open(outp, "rb").read() == oo.ort_outputs(sess, ins)[0]
    measured = {int(m[0]): int(m[1]) for m in re.findall(r"^\s*(\d+)\s+(?:conv2d|fc)\s+analog\s+(\d+)", p.stdout, re.M)}
    rep = report(model, args=["-D", "engines=analog"])
    layers = [l for l in rep["layers"] if l["engine"] == "analog"]
    assert len(layers) == 3 and set(measured) == {l["index"] for l in layers}, p.stdout
    for layer, rows in zip(layers, (1440, 1200, 4096)):
        full = layer["tile"]["full"]
        passes = -(-rows // 1152)
        floor = -(-full["K"] * rows // 32) + rows + passes * (50 + full["OY"] * full["OX"])
        assert measured[layer["index"]] >= floor, (layer["index"], measured[layer["index"]], floor)


def test_ternary_qdq_float_groups_on_cpu(build_dir):
    """The ternary QDQ zoo model with stale biases (tests/zoo/zoo.py: a
    quantizer that rescaled weights without their biases): onnxruntime
    leaves its Convs in float (the bias scale is not x_scale * w_scale),
    so htc refuses them with one
    line naming onnxruntime's reason, or with --float-fallback computes them
    in float on the CPU (no DIANA core reproduces fp32 arithmetic), the
    report saying why per layer; bit-exact with onnxruntime."""
    import subprocess
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "kws_ternaryqdq_stalebias_s8.onnx")
    p = subprocess.run([oo.HTC, "compile", model, "-t", DIANA, "-o", os.path.join(str(build_dir), "stalebias.h"),
                        "--no-float-fallback"],
                       capture_output=True, text=True,
                       cwd=oo.REPO)
    assert p.returncode == 1 and p.stderr.count("\n") == 1, p.stderr
    assert "bias scale of Conv" in p.stderr and "onnxruntime does not fuse this group" in p.stderr, p.stderr
    rep = report(model, args=["--float-fallback"])
    fp32 = [l for l in rep["layers"] if l["requant"] == "fp32"]
    assert fp32
    for layer in fp32:
        assert layer["engine"] == "riscv"
        assert "this op's is fp32" in layer["reason"], layer["reason"]
        assert "(fp32: onnxruntime computes this group in float: the bias scale of" in layer["reason"], layer["reason"]
    exe, d = build(build_dir, model, ["--float-fallback"])
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 3, seed=17)
    got, _ = oo.run(exe, d, ins)
    assert got == oo.ort_outputs(sess, ins)


@pytest.mark.parametrize("net", ["resnet", "ad"])
def test_analog_small_array(net, build_dir):
    """A 64 x 16 analog array (-D ana_rows, -D ana_cols; the weight memory
    follows) and a 16 kB L1: the ternary zoo layers run in many row passes,
    K tiles of at most 16 columns and many spatial tiles at once, bit-exact
    with onnxruntime."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_ternaryqop_s8.onnx" % net)
    flags = ["-D", "engines=analog", "-D", "ana_rows=64", "-D", "ana_cols=16", "-D", "l1_kib=16"]
    rep = report(model, args=flags)
    ana = [l for l in rep["layers"] if l["engine"] == "analog"]
    rows = [int(np.prod(w.shape[1:])) for _, _, w in weighted_layers(model)]
    assert len(ana) == len(rows)
    assert all(l["tile"]["size"]["K"] <= 16 for l in ana)
    assert any(l["tile"]["size"]["K"] < l["tile"]["full"]["K"] for l in ana)
    assert max(rows) > 4 * 64                      # at least 5 passes
    if net == "resnet":
        assert max(l["tile"]["tiles"] for l in ana) > 16
    exe, d = build(build_dir, model, flags)
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 3, seed=19)
    got, _ = oo.run(exe, d, ins)
    assert got == oo.ort_outputs(sess, ins)
