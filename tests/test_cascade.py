"""test_cascade.py - cascades (gen/cascade.c): layers run band by band with
--cascade are bit-exact with TFLite Micro, and the arena falls below the
layer-by-layer lower bound.

Per model, one header compiled with --cascade runs several inputs (one for
the 224x224 mobilenet_v2); the outputs and every operator output that
exists whole are compared with the tflite-micro interpreter. The tensors
inside a cascade exist only as bands: the test checks that exactly those
(the band buffers `htc report --json` lists) are not dumped, and compares
all the others. Also: --ram-limit (met, or the error naming the least
reachable peak), cascades chosen automatically when the layer-by-layer
arena exceeds the target's memory, and --check (AddressSanitizer, each
cascade touching only its planned buffers).
"""
import json
import os
import re

import pytest

import oracle
import piecewise

EXTRA = os.path.abspath(os.path.join(oracle.REPO, "..", "shared", "models", "extra"))
KERAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras", "models")
MBV2 = os.path.join(EXTRA, "mobilenet_v2_quantized_1x3x224x224.tflite")

# name -> (path, seeds, the largest arena / per-layer bound the issue asks for, or None)
MODELS = {
    "kws": (os.path.join(oracle.MODELS, "kws_ref_model.tflite"), (0, 1), None),
    "vww": (os.path.join(oracle.MODELS, "vww_96_int8.tflite"), (0, 1, 2), 0.5),
    "resnet": (os.path.join(oracle.MODELS, "pretrainedResnet_quant.tflite"), (0, 1, 2), 0.75),
    "ad": (os.path.join(oracle.MODELS, "ad01_int8.tflite"), (0,), None),
    "mobilenet_v2": (MBV2, (0,), 0.25),
    "keras_mobilenet_v2": (os.path.join(KERAS, "mobilenet_v2_035_int8.tflite"), (0, 1), None),
    "keras_mobilenet_v3": (os.path.join(KERAS, "mobilenet_v3_small_int8.tflite"), (0, 1), None),
    "keras_unet": (os.path.join(KERAS, "unet_bilinear_int8.tflite"), (0, 1), None),
}
# no cascade lowers these: AD has no spatial layer; in KWS (DS-CNN) every
# tensor is 25x5x64 up to a pooling over the whole image, so a cascade's
# whole output plus its band buffers is never below two whole tensors
NO_CASCADE = {"ad", "kws"}


def report(path, *args):
    return json.loads(oracle.htc("report", path, "-t", oracle.TARGET, "--json", *args).stdout)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_cascade_bit_exact(name):
    path, seeds, ratio = MODELS[name]
    assert os.path.isfile(path), "model %s not found" % path
    info = oracle.ModelInfo(path)
    rep = report(path, "--cascade")
    banded = {b["tensor"] for c in rep["cascades"] for b in c["buffers"]}
    if name in NO_CASCADE:
        assert not rep["cascades"] and rep["arena_bytes"] == report(path)["arena_bytes"]
    else:
        assert rep["cascades"] and banded, "%s: no cascade chosen" % name
        assert rep["arena_bytes"] < rep["per_layer_bound"], rep["arena_bytes"]
        # the modelled peak of every cascade is what the planner's bound counts there
        assert max(c["ram_after"] for c in rep["cascades"]) <= rep["arena_lower_bound"]
        for c in rep["cascades"]:
            assert c["extra_macs"] <= 0, c          # a kept halo: no row computed twice
    if ratio is not None:
        assert rep["arena_bytes"] <= ratio * rep["per_layer_bound"], (rep["arena_bytes"], rep["per_layer_bound"])
    sets = [info.random_inputs(20_000 + s) for s in seeds]
    results = oracle.run_htc_batch(path, sets, name="m", args=["--cascade"], info=info)
    # the int32 shape arithmetic htc evaluates at compile time (test_keras.py)
    folded = {t for k in piecewise.shape_arithmetic(info) for t in info.ops[k]["outputs"]}
    ops = [(t, op) for t, op in info.op_outputs() if t not in folded]
    compared = 0
    for inputs, (outs, dumps) in zip(sets, results):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs)
        for k, (e, g) in enumerate(zip(ref_outs, outs)):
            d = oracle.diff(e, g)
            assert d is None, "%s output %d: %s" % (name, k, d)
        for t, op in ops:
            if t in banded:
                assert t not in dumps, "%s: tensor %d lives in a band buffer but was traced whole" % (name, t)
                continue
            assert t in dumps, "%s: op %d -> tensor %d not dumped" % (name, op["index"], t)
            d = oracle.diff(ref_tensors[t], dumps[t])
            assert d is None, "%s: op %d %s -> tensor %d: %s" % (name, op["index"], op["op"], t, d)
            compared += 1
    n = len(ops) - len(banded)
    assert compared == n * len(seeds) and n > 0


def test_ram_limit():
    """--ram-limit: the least overhead within the limit; below the least
    reachable peak, an error that names it."""
    path = MODELS["vww"][0]
    base = report(path)["arena_bytes"]
    rep = report(path, "--ram-limit", "40000")
    assert rep["arena_lower_bound"] <= 40000 and rep["cascades"] and base == 55296
    r = oracle.htc("report", path, "-t", oracle.TARGET, "--ram-limit", "1000", check=False)
    assert r.returncode == 1 and not r.stdout
    m = re.fullmatch(r"htc: error: .*vww_96_int8\.tflite: cascades cannot bring the activations under 1000 bytes "
                     r"\(at least (\d+): the modelled peak of the best cascades\)\n", r.stderr)
    assert m and 1000 < int(m.group(1)) <= 27648, r.stderr
    for bad in ("-5", "x", "1.5"):
        r = oracle.htc("report", path, "-t", oracle.TARGET, "--ram-limit", bad, check=False)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "--ram-limit" in r.stderr, r.stderr


def test_fit_memory(tmp_path):
    """A target whose memory is below the layer-by-layer arena: cascades
    are chosen without being asked for, and the result is bit-exact."""
    src = open(oracle.TARGET).read()
    small, n = re.subn(r"L2 = \{ size = [^,]*,", "L2 = { size = 32 * KiB,", src)
    assert n == 1
    tgt = tmp_path / "cpu32k.lua"
    tgt.write_text(small)
    path = MODELS["vww"][0]
    rep = json.loads(oracle.htc("report", path, "-t", str(tgt), "--json").stdout)
    assert rep["cascades"] and rep["arena_bytes"] <= 32 * 1024
    info = oracle.ModelInfo(path)
    inputs = info.random_inputs(7)
    outs, dumps, _ = oracle.run_htc(path, inputs, dump=False, target=str(tgt), workdir=str(tmp_path))
    ref_outs, _ = oracle.run_interpreter(path, inputs)
    assert all(oracle.diff(e, g) is None for e, g in zip(ref_outs, outs))
    # too small even for cascades: the plan's error
    tiny = tmp_path / "cpu4k.lua"
    tiny.write_text(re.sub(r"L2 = \{ size = [^,]*,", "L2 = { size = 4 * KiB,", src))
    r = oracle.htc("report", path, "-t", str(tiny), check=False)
    assert r.returncode == 1 and re.fullmatch(r"htc: error: .*: the arena needs \d+ bytes but memory L2 of target "
                                              r"'cpu' has 4096\n", r.stderr), r.stderr


@pytest.mark.parametrize("name,cascades", [("vww", True), ("vww", False), ("kws", True), ("resnet", True)])
def test_arena_hint(name, cascades):
    """The arena error names the target parameter and a value that fits:
    that value compiles (and one KiB less is refused: it is the least)."""
    path = MODELS[name][0]
    flags = [] if cascades else ["--no-cascade"]
    r = oracle.htc("report", path, "-t", "targets/cpu.lua", "-D", "l2_kib=4", *flags, check=False)
    m = re.fullmatch(r"htc: error: .*: the arena needs (\d+) bytes but memory L2 of target 'cpu' has 4096: "
                     r"-D l2_kib=(\d+) fits it\n", r.stderr)
    assert r.returncode == 1 and m, r.stderr
    need, kib = int(m.group(1)), int(m.group(2))
    assert kib == (need + 1023) // 1024
    r = oracle.htc("report", path, "-t", "targets/cpu.lua", "-D", "l2_kib=%d" % kib, *flags, check=False)
    assert r.returncode == 0, r.stderr
    r = oracle.htc("report", path, "-t", "targets/cpu.lua", "-D", "l2_kib=%d" % (kib - 1), *flags, check=False)
    assert r.returncode == 1 and "fits it" in r.stderr, r.stderr


def test_cascade_check(tmp_path):
    """htc run --check: each cascade touches only the buffers planned for it."""
    path = MODELS["resnet"][0]
    info = oracle.ModelInfo(path)
    inputs = info.random_inputs(3)
    outs, _, _ = oracle.run_htc(path, inputs, dump=False, workdir=str(tmp_path), args=["--cascade", "--check"])
    ref_outs, _ = oracle.run_interpreter(path, inputs)
    assert all(oracle.diff(e, g) is None for e, g in zip(ref_outs, outs))


def test_cascade_svg(tmp_path):
    """--svg draws each cascade over the layers it interleaves."""
    path = MODELS["vww"][0]
    svg = tmp_path / "p.svg"
    oracle.htc("report", path, "-t", oracle.TARGET, "--cascade", "--svg", str(svg))
    text = svg.read_text()
    rep = report(path, "--cascade")
    marks = re.findall(r'<g class="cascade" data-first="(\d+)" data-last="(\d+)">', text)
    assert marks == [(str(c["first"]), str(c["last"])) for c in rep["cascades"]] and marks


def test_maxpool_band(tmp_path):
    """MAX_POOL_2D inside cascades: a 3x3 stride-2 SAME window (top padding,
    overlapping bands) with a RELU6 clamp and a 2x2 stride-2 VALID one,
    between convolutions, run band by band bit-exact with TFLite Micro
    (outputs and every tensor that exists whole), at several RAM limits."""
    import numpy as np
    import tflite_build as tb
    rng = np.random.default_rng(11)
    m = tb.Model()
    x = m.input([1, 40, 24, 3], scale=0.05, zp=-3)
    a = m.conv2d(x, out_ch=8, kernel=3, rng=rng, act="RELU")
    p = m.pool("max", a, filter=3, stride=2, padding="SAME", act="RELU6")
    b = m.conv2d(p, out_ch=8, kernel=3, rng=rng)
    q = m.pool("max", b, filter=2, stride=2, padding="VALID")
    c = m.conv2d(q, out_ch=4, kernel=1, rng=rng)
    m.output(c)
    path = str(tmp_path / "maxpool.tflite")
    m.save(path)
    info = oracle.ModelInfo(path)
    pools = [k for k, op in enumerate(info.ops) if op["op"] == "MAX_POOL_2D"]
    assert len(pools) == 2
    base = report(path)
    seen = set()
    for args in (["--cascade", "--max-overhead", "50"], ["--ram-limit", str(base["arena_bytes"] * 2 // 3)]):
        rep = report(path, *args)
        assert rep["cascades"] and rep["arena_bytes"] < base["arena_bytes"], (args, rep["arena_bytes"])
        banded = {b["tensor"] for c in rep["cascades"] for b in c["buffers"]}
        # the layers of the cascades, by their source operator
        inside = {rep["layers"][k]["source_index"] for c in rep["cascades"] for k in range(c["first"], c["last"] + 1)}
        seen |= inside & set(pools)
        inputs = info.random_inputs(77)
        (tmp_path / args[0][2:]).mkdir()
        outs, dumps, _ = oracle.run_htc(path, inputs, workdir=str(tmp_path / args[0][2:]), args=args)
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs)
        assert all(oracle.diff(e, g) is None for e, g in zip(ref_outs, outs))
        n = 0
        for t, op in info.op_outputs():
            if t in banded:
                assert t not in dumps
                continue
            assert oracle.diff(ref_tensors[t], dumps[t]) is None, (args, t)
            n += 1
        assert n == len(info.op_outputs()) - len(banded)
    assert seen == set(pools), seen
