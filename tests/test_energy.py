"""test_energy.py - energy in target files (gen/energy.c): the report's
per-layer energy and breakdown recomputed from the report's own counts and
the target's figures, `htc run`'s energy from the device model's measured
cycles, and every bundled target with an energy model reporting one.
(Schema errors: tests/targets/bad/energy_*.lua.)"""
import json
import os
import re
import subprocess

import pytest

import oracle

MLPERF = ["ad01_int8", "kws_ref_model", "vww_96_int8", "pretrainedResnet_quant"]


def model(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def htc(*args, env=None):
    p = subprocess.run([oracle.HTC] + list(args), capture_output=True, text=True, cwd=oracle.REPO, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def report(m, target, *d):
    return json.loads(htc("report", m, "-t", target, "--json", *d))


# a CPU-only target with every kind of figure: the model by hand
TINY = """
return target "tiny" {
  clock_mhz = 50,
  memory = { RAM = { size = 1048576, energy = { pj_per_byte = 0.75, static_mw = 0.5 } } },
  cpu = { memory = "RAM", requant = { "tflite" },
          ops = { fc = { cycles_per_mac = 2 }, reshape = { cycles_per_elem = 0 }, softmax = { cycles_per_elem = 20 },
                  conv2d = { cycles_per_mac = 2 }, avgpool = { cycles_per_mac = 2 }, add = { cycles_per_elem = 3 } },
          energy = { pj_per_mac = 1.5, pj_per_elem = 4, pj_per_cycle = 3, static_mw = 2 } },
}
"""


def test_report_energy_by_hand(tmp_path):
    """ToyAdmos (fc layers) on a one-memory CPU: each layer's compute =
    MACs x pj_per_mac (elements x pj_per_elem without MACs) + cycles x
    pj_per_cycle, memory = bytes in + out x pj_per_byte, static = 2.5 mW
    for its cycles at 50 MHz; totals and breakdown are the sums."""
    t = tmp_path / "tiny.lua"
    t.write_text(TINY)
    r = report(model("ad01_int8"), str(t))
    sizes = {b["tensor"]: b["bytes"] for b in r["buffers"]}
    e = r["energy"]
    tot = {"compute": 0.0, "memory": 0.0, "static": 0.0}
    n = 0
    for L in r["layers"]:
        le = L["energy_pj"]
        cyc = L["est_cycles"]
        comp = L["macs"] * 1.5 + cyc * 3 if L["macs"] else None
        if comp is not None:
            assert le["compute"] == pytest.approx(comp, rel=1e-5), L
            n += 1
        assert le["static"] == pytest.approx(2.5 * 1e3 / 50 * cyc, rel=1e-5)
        assert le["total"] == pytest.approx(le["compute"] + le["memory"] + le["static"], rel=1e-5)
        assert le["fixed"] + le["per_cycle"] * cyc == pytest.approx(le["total"], rel=1e-5)
        # bytes read and written: at least the output and the weights
        assert le["memory"] >= 0.75 * (L["bytes"] + L["weight_bytes"]) * (1 - 1e-6)
        for k in tot:
            tot[k] += le[k]
    assert n == len(r["layers"]) == 10
    assert e["compute_pj"] == pytest.approx(tot["compute"], rel=1e-5)
    assert e["memory_pj"] == pytest.approx(tot["memory"], rel=1e-5)
    assert e["static_pj"] == pytest.approx(tot["static"], rel=1e-5)
    assert e["uj"] == pytest.approx(sum(tot.values()) * 1e-6, rel=1e-5)
    assert e["static_pj_per_cycle"] == pytest.approx(2.5 * 1e3 / 50, rel=1e-9)
    assert e["engines"]["cpu"]["compute_pj"] == pytest.approx(tot["compute"], rel=1e-5)
    assert e["engines"]["cpu"]["static_pj"] + e["memories"]["RAM"]["static_pj"] == pytest.approx(tot["static"], rel=1e-5)
    assert e["memories"]["RAM"]["access_pj"] == pytest.approx(tot["memory"], rel=1e-5)
    # the text report: the same total
    text = htc("report", model("ad01_int8"), "-t", str(t))
    m = re.search(r"^energy: ([0-9.]+) uJ per inference", text, re.M)
    assert m and float(m.group(1)) == pytest.approx(e["uj"], abs=1e-3)
    assert len(re.findall(r"^\s*\d+\s+fc\s+cpu\s", text, re.M)) == 10


def test_no_energy_model(tmp_path):
    """A target without energy figures reports none."""
    t = tmp_path / "plain.lua"
    t.write_text(re.sub(r",\s*energy = \{[^}]*\}", "", TINY))
    assert "energy" not in t.read_text()
    r = report(model("ad01_int8"), str(t))
    assert "energy" not in r and all("energy_pj" not in L for L in r["layers"])
    assert "energy:" not in htc("report", model("ad01_int8"), "-t", str(t))


@pytest.mark.parametrize("target", ["cpu", "npu", "dla", "vanilla", "qvanilla", "diana", "siracusa"])
def test_bundled_targets(target):
    """Every bundled target with an energy model: a positive energy per
    inference of KWS, whose parts add up."""
    r = report(model("kws_ref_model"), os.path.join(oracle.REPO, "targets", target + ".lua"))
    e = r["energy"]
    assert e["uj"] > 0
    assert e["uj"] == pytest.approx((e["compute_pj"] + e["memory_pj"] + e["static_pj"]) * 1e-6, rel=1e-6)
    assert sum(L["energy_pj"]["total"] for L in r["layers"]) * 1e-6 == pytest.approx(e["uj"], rel=1e-6)


def test_accelerator_energy():
    """An offloaded layer costs its MACs at the engine's figure (the npu:
    DIANA's digital core's, 2/14 pJ) and its bytes moved."""
    r = report(model("kws_ref_model"), os.path.join(oracle.REPO, "targets", "npu.lua"))
    off = [L for L in r["layers"] if "tile" in L and L["macs"]]
    assert off, "no layer offloaded"
    for L in off:
        assert L["energy_pj"]["compute"] == pytest.approx(L["macs"] * 2 / 14, rel=1e-6), L
        assert L["energy_pj"]["memory"] > 0
    assert r["energy"]["engines"]["npu"]["compute_pj"] == pytest.approx(sum(L["energy_pj"]["compute"] for L in off), rel=1e-6)


def test_run_measured(tmp_path):
    """htc run on an accelerator target (the DLA, KWS: 2 cycles apart):
    energy from the device model's
    cycles. With static power only, the run's energy is the report's minus
    the static power over the estimated cycles plus over the measured."""
    t = tmp_path / "dla_static.lua"
    t.write_text('local t = include "dla.lua"\n'
                 't.engines.dla.energy = { pj_per_mac = 0.25, static_mw = 3 }\n'
                 't.cpu.energy = { static_mw = 1 }\n'
                 'return t\n')
    env = dict(os.environ, HTC_HOME=oracle.REPO)
    m = model("kws_ref_model")
    r = json.loads(htc("report", m, "-t", str(t), "--json", env=env))
    inp = tmp_path / "in.bin"
    inp.write_bytes(bytes(range(256)) * 2)
    inp.write_bytes(inp.read_bytes()[:490])
    out = htc("run", m, "-t", str(t), "--input", str(inp), "--output", str(tmp_path / "out.bin"), env=env)
    measured = int(re.search(r"^total: (\d+) cycles", out, re.M).group(1))
    got = re.search(r"^energy: ([0-9.]+) uJ per inference = compute ([0-9.]+) \+ memory ([0-9.]+) \+ static ([0-9.]+) uJ "
                    r"\(measured cycles", out, re.M)
    assert got, out
    est = r["est_cycles"]
    assert measured != est
    e = r["energy"]
    assert float(got.group(2)) == pytest.approx(e["compute_pj"] * 1e-6, rel=1e-5)
    assert float(got.group(3)) == pytest.approx(e["memory_pj"] * 1e-6, rel=1e-5)
    assert float(got.group(4)) == pytest.approx(4 * 1e3 / r["clock_mhz"] * measured * 1e-6, abs=2e-6)
    assert float(got.group(4)) != pytest.approx(4 * 1e3 / r["clock_mhz"] * est * 1e-6, abs=2e-6)
    assert e["static_pj"] == pytest.approx(4 * 1e3 / r["clock_mhz"] * est, rel=1e-5)
    # per layer: the same parts, adding up to the total
    rows = re.findall(r"^\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$",
                      out.split("per layer (nJ)")[1], re.M)
    assert len(rows) == len(r["layers"])
    assert sum(float(x[4]) for x in rows) * 1e-3 == pytest.approx(float(got.group(1)), abs=2e-5)
    assert sum(float(x[3]) for x in rows) * 1e-3 == pytest.approx(float(got.group(4)), abs=2e-5)
