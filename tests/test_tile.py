"""tests/test_tile.py - the MILP tiler (gen/tile.c) against brute force.

Single-layer QLinearConv models with power-of-two scales (built here with
onnx.helper) are compiled for tests/tile/tiny.lua, a small-L1 accelerator
whose objective uses products, %, min and max. With HTC_TILE_BRUTE=1 htc
also enumerates every tiling; the MILP optimum must equal the brute-force
optimum on every layer of the sweep. The tiled code (remainder tiles, halos,
padding at the borders, double buffering) runs bit-exact with onnxruntime
on the device model. When nothing fits, the error states the smallest L1."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as oo  # noqa: E402

TINY = os.path.join(os.path.dirname(__file__), "tile", "tiny.lua")


def conv_model(path, c, k, h, w, ks, stride, dw, seed):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)
    group = c if dw else 1
    if dw:
        k = c
    wt = rng.integers(-20, 21, size=(k, c // group, ks, ks)).astype(np.int8)
    b = rng.integers(-500, 501, size=(k,)).astype(np.int32)
    pad = ks // 2
    inits = [numpy_helper.from_array(np.array(2.0 ** -4, np.float32), "xs"),
             numpy_helper.from_array(np.array(3, np.int8), "xz"),
             numpy_helper.from_array(wt, "w"),
             numpy_helper.from_array(np.full((k,), 2.0 ** -6, np.float32), "ws"),
             numpy_helper.from_array(np.zeros((k,), np.int8), "wz"),
             numpy_helper.from_array(np.array(2.0 ** -2, np.float32), "ys"),
             numpy_helper.from_array(np.array(-5, np.int8), "yz"),
             numpy_helper.from_array(b, "b")]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                            kernel_shape=[ks, ks], strides=[stride, stride], pads=[pad] * 4, group=group)
    oh = (h + 2 * pad - ks) // stride + 1
    ow = (w + 2 * pad - ks) // stride + 1
    g = helper.make_graph([node], "conv", [helper.make_tensor_value_info("x", TensorProto.INT8, [1, c, h, w])],
                          [helper.make_tensor_value_info("y", TensorProto.INT8, [1, k, oh, ow])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)


def target(tmp, l1, wsz=4096, double=True):
    src = open(TINY).read().replace("L1_SIZE", str(l1)).replace("W_SIZE", str(wsz))
    src = src.replace("DOUBLE", "true" if double else "false")
    p = os.path.join(tmp, "tiny_%d_%d_%d.lua" % (l1, wsz, double))
    open(p, "w").write(src)
    return p


# (C, K, H, W, kernel, stride, depthwise, L1 bytes)
SWEEP = [(c, k, h, w, ks, s, dw, l1)
         for (c, k, h, w) in [(3, 8, 9, 7), (8, 12, 6, 11), (4, 16, 12, 5)]
         for (ks, s) in [(1, 1), (3, 1), (3, 2)]
         for dw in (False, True)
         for l1 in (600, 2000)]


@pytest.mark.parametrize("case", SWEEP, ids=lambda c: "c%dk%d_%dx%d_k%ds%d%s_l1%d" % (
    c[0], c[1], c[2], c[3], c[4], c[5], "dw" if c[6] else "", c[7]))
def test_milp_equals_brute_force_and_bitexact(case, tmp_path):
    c, k, h, w, ks, s, dw, l1 = case
    model = str(tmp_path / "conv.onnx")
    conv_model(model, c, k, h, w, ks, s, dw, seed=hash(case) & 0xffff)
    tgt = target(str(tmp_path), l1)
    env = dict(os.environ, HTC_TILE_BRUTE="1")
    p = subprocess.run([oo.HTC, "report", model, "-t", tgt, "--json"], capture_output=True, text=True, env=env)
    if p.returncode:
        # nothing fits: the message must name the smallest L1; check it by brute force below
        assert "the smallest tile needs L1 >=" in p.stderr, p.stderr
        need = int(p.stderr.split(">=")[1].split()[0])
        assert need > l1
        # with exactly that L1 it compiles
        p2 = subprocess.run([oo.HTC, "report", model, "-t", target(str(tmp_path), need), "--json"],
                            capture_output=True, text=True)
        assert p2.returncode == 0, p2.stderr
        p3 = subprocess.run([oo.HTC, "report", model, "-t", target(str(tmp_path), need - 1), "--json"],
                            capture_output=True, text=True)
        assert p3.returncode != 0
        return
    rep = json.loads(p.stdout)
    tiled = [l for l in rep["layers"] if "tile" in l]
    assert len(tiled) == 1
    t = tiled[0]["tile"]
    assert "brute" in t, "brute force did not run"
    assert abs(t["objective"] - t["brute"]) <= 1e-6 * max(1.0, abs(t["brute"])), t
    assert t["l1_bytes"] <= l1
    # the tiled code on the device model, bit-exact with onnxruntime
    oo_target = oo.TARGET
    try:
        oo.TARGET = tgt
        exe = oo.build(model, str(tmp_path))
    finally:
        oo.TARGET = oo_target
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 2, seed=1)
    got, _ = oo.run(exe, str(tmp_path), ins)
    assert got == oo.ort_outputs(sess, ins)


def test_sweep_size():
    print("brute-force sweep: %d layers" % len(SWEEP))
    assert len(SWEEP) >= 30


def test_no_fit_states_smallest_l1(tmp_path):
    """3x3 conv, C=8: the smallest tile is K=1, OY=OX=1 with a 3x3x8 input
    halo: (72 + 1) bytes, double buffered = 146 bytes of L1."""
    model = str(tmp_path / "conv.onnx")
    conv_model(model, 8, 12, 6, 11, 3, 1, False, seed=3)
    p = subprocess.run([oo.HTC, "report", model, "-t", target(str(tmp_path), 100)], capture_output=True, text=True)
    assert p.returncode == 1
    assert "the smallest tile needs L1 >= 146 bytes" in p.stderr, p.stderr
    assert subprocess.run([oo.HTC, "report", model, "-t", target(str(tmp_path), 146)], capture_output=True).returncode == 0
    assert subprocess.run([oo.HTC, "report", model, "-t", target(str(tmp_path), 145)], capture_output=True).returncode == 1


@pytest.mark.parametrize("net,tgt", [("kws", "diana"), ("resnet", "diana"), ("ad", "diana"), ("kws", "vanilla")])
def test_enumeration_equals_milp_on_zoo(net, tgt):
    """Small boxes are tiled by exact enumeration (faster); with
    HTC_TILE_BRUTE=1 the MILP runs instead: same optimum on every layer."""
    zoo = oo.ensure_zoo()
    model = os.path.join(zoo, "%s_pow2qop_s8.onnx" % net)
    target = os.path.join(oo.REPO, "targets", tgt + ".lua")
    out = {}
    for mode in ("0", "1"):
        env = dict(os.environ, HTC_TILE_BRUTE=mode)
        p = subprocess.run([oo.HTC, "report", model, "-t", target, "--json"], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        out[mode] = [l["tile"] for l in json.loads(p.stdout)["layers"] if "tile" in l]
    assert out["0"] and len(out["0"]) == len(out["1"])
    assert any(t["method"] == "enumeration" for t in out["0"])
    assert all(t["method"] == "milp" for t in out["1"])
    for a, b in zip(out["0"], out["1"]):
        assert abs(a["objective"] - b["objective"]) <= 1e-6 * max(1.0, abs(b["objective"])), (a, b)


CYCLES = os.path.join(os.path.dirname(__file__), "tile", "cycles.lua")


@pytest.mark.parametrize("case", [(8, 12, 6, 11, 3, 1, False, 1200), (4, 16, 12, 5, 3, 2, False, 900),
                                  (8, 8, 9, 7, 3, 1, True, 700), (3, 8, 9, 7, 1, 1, False, 600)],
                         ids=lambda c: "c%dk%d_%dx%d_k%ds%d%s_l1%d" % (c[0], c[1], c[2], c[3], c[4], c[5],
                                                                       "dw" if c[6] else "", c[7]))
def test_minimise_modelled_cycles(case, tmp_path):
    """An objective that divides by tile variables (cdiv(full, tile) tile
    counts, a / b) and is minimised: the MILP's linearisation (q b = a;
    0 <= q b - a <= b - 1 for cdiv) finds the brute-force optimum, the
    enumeration the same, and the tiled code stays bit-exact."""
    c, k, h, w, ks, s, dw, l1 = case
    model = str(tmp_path / "conv.onnx")
    conv_model(model, c, k, h, w, ks, s, dw, seed=7)
    tgt = str(tmp_path / "cycles.lua")
    open(tgt, "w").write(open(CYCLES).read().replace("L1_SIZE", str(l1)))
    got = {}
    for mode in ("0", "1"):
        env = dict(os.environ, HTC_TILE_BRUTE=mode)
        p = subprocess.run([oo.HTC, "report", model, "-t", tgt, "--json"], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        t = [l["tile"] for l in json.loads(p.stdout)["layers"] if "tile" in l]
        assert len(t) == 1
        got[mode] = t[0]
    assert got["0"]["method"] == "enumeration" and got["1"]["method"] == "milp"
    b = got["1"]["brute"]
    for t in got.values():
        assert abs(t["objective"] - b) <= 1e-6 * max(1.0, abs(b)), (t, b)
    assert got["0"]["l1_bytes"] <= l1
    oo_target = oo.TARGET
    try:
        oo.TARGET = tgt
        exe = oo.build(model, str(tmp_path))
    finally:
        oo.TARGET = oo_target
    sess = oo.ort_session(model)
    ins = oo.random_inputs(sess, 2, seed=2)
    out, _ = oo.run(exe, str(tmp_path), ins)
    assert out == oo.ort_outputs(sess, ins)


SPLIT = os.path.join(os.path.dirname(__file__), "tile", "split.lua")


def split_target(tmp, sp, acc, partial=False):
    src = open(SPLIT).read().replace("SP_SIZE", str(sp)).replace("ACC_SIZE", str(acc))
    src = src.replace("PARTIAL", "true" if partial else "false")
    p = os.path.join(tmp, "split_%d_%d_%d.lua" % (sp, acc, partial))
    open(p, "w").write(src)
    return p


@pytest.mark.parametrize("case", [(8, 12, 6, 11, 3, 1, 400, 200), (4, 16, 12, 5, 3, 2, 700, 600),
                                  (3, 8, 9, 7, 1, 1, 300, 100), (8, 12, 6, 11, 3, 1, 2000, 2000)],
                         ids=lambda c: "c%dk%d_%dx%d_k%ds%d_sp%d_acc%d" % c)
def test_two_memories_milp_equals_brute_force(case, tmp_path):
    """Inputs and weights share the scratchpad SP (the weights from the first
    multiple of 4 after the input tile), the int32 output tiles fill ACC:
    two capacity rows, each respected at the MILP's optimum, which equals
    the brute-force optimum."""
    c, k, h, w, ks, s, sp, acc = case
    model = str(tmp_path / "conv.onnx")
    conv_model(model, c, k, h, w, ks, s, False, seed=7)
    env = dict(os.environ, HTC_TILE_BRUTE="1")
    p = subprocess.run([oo.HTC, "report", model, "-t", split_target(str(tmp_path), sp, acc), "--json"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    t = [l["tile"] for l in json.loads(p.stdout)["layers"] if "tile" in l][0]
    assert abs(t["objective"] - t["brute"]) <= 1e-6 * max(1.0, abs(t["brute"])), t
    z = t["size"]
    assert t["out_bytes"] == 4 * z["K"] * z["OY"] * z["OX"] <= acc, t
    assert (t["l1_bytes"] + 3) // 4 * 4 + t["w_bytes"] <= sp, t
    assert t["l1_bytes"] == c * min((z["OY"] - 1) * s + ks, h) * min((z["OX"] - 1) * s + ks, w), t


def test_two_memories_no_fit_names_the_memory(tmp_path):
    """3x3 conv, C=8: the smallest tile (K=1, OY=OX=1) needs 4 bytes of ACC
    and, in SP, its 72-byte input halo then 72 weight bytes and a 4-byte
    bias: 148 bytes. Each error names the memory and the buffers in it."""
    model = str(tmp_path / "conv.onnx")
    conv_model(model, 8, 12, 6, 11, 3, 1, False, seed=3)
    for sp, acc, want in ((4096, 3, "no tiling fits in ACC (3 bytes) on acc; the smallest tile needs ACC >= 4 bytes"),
                          (147, 4096, "no tiling fits in SP (147 bytes) on acc; the smallest tile needs SP >= 148 bytes")):
        p = subprocess.run([oo.HTC, "report", model, "-t", split_target(str(tmp_path), sp, acc)],
                           capture_output=True, text=True)
        assert p.returncode == 1 and want in p.stderr, p.stderr
        assert ("l1_bytes + w_bytes)" if acc > 4 else "out_bytes)") in p.stderr, p.stderr
        assert p.stderr.count("\n") == 1, p.stderr
    ok = subprocess.run([oo.HTC, "report", model, "-t", split_target(str(tmp_path), 148, 4)], capture_output=True)
    assert ok.returncode == 0, ok.stderr


def walk_dma(c, k, h, w, ks, s, z):
    """DMA bytes of a C-split conv (tile.c walk): per output tile and C tile
    the weights (the core's w_bytes) and the input channels with their
    halo, the output after the last C tile."""
    pad, oh, ow = ks // 2, (h + 2 * (ks // 2) - ks) // s + 1, (w + 2 * (ks // 2) - ks) // s + 1
    total = 0
    for k0 in range(0, k, z["K"]):
        kt = min(z["K"], k - k0)
        for y0 in range(0, oh, z["OY"]):
            yt = min(z["OY"], oh - y0)
            rows = min(h, (y0 + yt - 1) * s - pad + ks) - max(0, y0 * s - pad)
            for x0 in range(0, ow, z["OX"]):
                xt = min(z["OX"], ow - x0)
                cols = min(w, (x0 + xt - 1) * s - pad + ks) - max(0, x0 * s - pad)
                for c0 in range(0, c, z["C"]):
                    cc = min(z["C"], c - c0)
                    total += -(-kt * cc * ks * ks // 4) * 4 + 4 * kt + cc * rows * cols
                    total += kt * yt * xt if c0 + cc == c else 0
    return total


@pytest.mark.parametrize("case", [(16, 8, 6, 6, 3, 1, 250), (16, 8, 6, 6, 3, 1, 4000), (24, 6, 7, 5, 3, 2, 300),
                                  (24, 6, 7, 5, 1, 1, 60)],
                         ids=lambda c: "c%dk%d_%dx%d_k%ds%d_sp%d" % c)
def test_partial_sums_c_tiled_where_memory_forces(case, tmp_path):
    """partial_sums = true: C is split only when no tiling with C whole
    fits (the smallest 3x3 tile with C = 16 needs 292 bytes of SP) or the
    objective is strictly better with it; the optimum equals brute force
    over every C, and the DMA bytes count each C tile's weights again for
    every output tile."""
    c, k, h, w, ks, s, sp = case
    model = str(tmp_path / "conv.onnx")
    conv_model(model, c, k, h, w, ks, s, False, seed=5)
    env = dict(os.environ, HTC_TILE_BRUTE="1")
    rep = {}
    for partial in (True, False):
        p = subprocess.run([oo.HTC, "report", model, "-t", split_target(str(tmp_path), sp, 4096, partial), "--json"],
                           capture_output=True, text=True, env=env)
        rep[partial] = [l["tile"] for l in json.loads(p.stdout)["layers"] if "tile" in l][0] if p.returncode == 0 else None
        assert p.returncode == 0 or (not partial and "no tiling fits in SP" in p.stderr), p.stderr
    t, whole = rep[True], rep[False]
    z = t["size"]
    assert (whole is None) == ((c * ks * ks + 3) // 4 * 4 * 2 + 4 > sp), (whole, sp)
    if whole is not None and z["C"] == c:
        assert "c_tiles" not in t and t["objective"] == whole["objective"], (t, whole)
    else:
        assert z["C"] < c and t["c_tiles"] == -(-c // z["C"]), t
        assert whole is None or t["objective"] > whole["objective"] + 1e-9, (t, whole)
        assert t["dma_bytes"] == walk_dma(c, k, h, w, ks, s, z), t
    assert abs(t["objective"] - t["brute"]) <= 1e-6 * max(1.0, abs(t["brute"])), t
    assert (t["l1_bytes"] + 3) // 4 * 4 + t["w_bytes"] <= sp, t


def test_tie_break_milp_equals_enumeration(tmp_path):
    """tie_break among equal objectives: an objective with many optimal
    tilings (maximize min(K, 4)) and tie_break = -(16 OY + OX) + K (the
    tallest, widest tile, then the fewest channels): the enumeration keeps
    the least tie_break, and the MILP (HTC_TILE_BRUTE=1) reaches the same
    value by a second solve with the objective held at its optimum."""
    model = str(tmp_path / "conv.onnx")
    conv_model(model, 8, 12, 6, 11, 3, 1, False, seed=5)
    src = open(TINY).read()
    a = src.index("              maximize = 1e-3")
    b = src.index("              constraints")
    src = src[:a] + "              maximize = min(t.K, 4),\n              tie_break = t.K - (16 * t.OY + t.OX),\n" + src[b:]
    tgt = tmp_path / "tie.lua"
    tgt.write_text(src.replace("L1_SIZE", "2000").replace("W_SIZE", "4096").replace("DOUBLE", "true"))
    got = {}
    for mode in ("0", "1"):
        p = subprocess.run([oo.HTC, "report", model, "-t", str(tgt), "--json"], capture_output=True, text=True,
                           env=dict(os.environ, HTC_TILE_BRUTE=mode))
        assert p.returncode == 0, p.stderr
        t = [l["tile"] for l in json.loads(p.stdout)["layers"] if "tile" in l][0]
        got[mode] = (t["method"], t["objective"], t["size"]["K"] - (16 * t["size"]["OY"] + t["size"]["OX"]))
    assert got["0"][0] == "enumeration" and got["1"][0] == "milp", got
    assert got["0"][1:] == got["1"][1:] and got["0"][1] == 4, got
