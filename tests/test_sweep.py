"""test_sweep.py - htc sweep: the cross product of target parameters x
models on the fast path (no C compiled), its CSV / JSON / HTML outputs, the
estimate against the device model's cycles (--measure), the plot rendered
by headless Chromium, and bad sweeps."""
import csv
import json
import os
import re
import shutil
import subprocess


import oracle

NPU = os.path.join(oracle.REPO, "targets", "npu.lua")
DLA = os.path.join(oracle.REPO, "targets", "dla.lua")
# the estimate of every point is within this fraction of the device model's
# cycles (measured in the same sweep); README states the same bound
EST_ERROR = 0.05


def model(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def sweep(*args, ok=True):
    p = subprocess.run([oracle.HTC, "sweep"] + list(args), capture_output=True, text=True, cwd=oracle.REPO)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def test_cross_product_csv_json(tmp_path):
    kws, vww = model("kws_ref_model"), model("vww_96_int8")
    out = tmp_path / "s.csv"
    p = sweep(kws, vww, "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=16,256", "-j", "2", "--csv", str(out), "--json")
    rows = json.loads(p.stdout)
    assert len(rows) == 8
    assert [(os.path.basename(r["model"]), r["params"]["pes"], r["params"]["sram_kib"]) for r in rows][:4] == [
        ("kws_ref_model.tflite", "64", "16"), ("kws_ref_model.tflite", "64", "256"),
        ("kws_ref_model.tflite", "128", "16"), ("kws_ref_model.tflite", "128", "256")]
    for r in rows:
        assert "error" not in r, r
        assert r["offloaded"] > 0 and r["tiles"] >= r["offloaded"]
        assert 0 < r["ideal_cycles"] <= r["est_cycles"]
        assert abs(sum(r["classes"].values()) - r["est_cycles"]) <= 6
        assert r["l1_kib"] <= int(r["params"]["sram_kib"])
    # more PEs: fewer cycles, same model and memory
    by = {(r["model"], r["params"]["pes"], r["params"]["sram_kib"]): r["est_cycles"] for r in rows}
    for (m, pes, s), c in by.items():
        if pes == "64":
            assert by[(m, "128", s)] < c
    # each point equals a report of that configuration alone
    rep = subprocess.run([oracle.HTC, "report", vww, "-t", NPU, "-D", "pes=128", "-D", "sram_kib=16", "--json"],
                         capture_output=True, text=True, cwd=oracle.REPO)
    assert rep.returncode == 0, rep.stderr
    lay = json.loads(rep.stdout)
    layers = lay["layers"] if isinstance(lay, dict) else lay
    total = sum(l.get("est_cycles", 0) for l in layers)
    pt = [r for r in rows if r["model"] == vww and r["params"] == {"pes": "128", "sram_kib": "16"}][0]
    assert abs(total - pt["est_cycles"]) <= len(layers)
    with open(out) as f:
        c = list(csv.DictReader(f))
    assert len(c) == 8 and [int(x["est_cycles"]) for x in c] == [r["est_cycles"] for r in rows]


def test_measure_estimate_within_error():
    kws = model("kws_ref_model")
    p = sweep(kws, "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=8,64", "-j", "2", "--measure", "--json")
    rows = json.loads(p.stdout)
    assert len(rows) == 4
    for r in rows:
        assert r["measured_cycles"] > 0, r
        err = abs(r["est_cycles"] - r["measured_cycles"]) / r["measured_cycles"]
        assert err <= EST_ERROR, (r["params"], r["est_cycles"], r["measured_cycles"])


def test_html_renders_in_chromium(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "no chromium on PATH: make test installs it (.ci/deps.sh), or apt-get install chromium"
    html = tmp_path / "s.html"
    ms = [model("kws_ref_model"), model("vww_96_int8"), model("pretrainedResnet_quant"), model("ad01_int8")]
    sweep(*ms, "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=8,32,128", "-j", "2", "--html", str(html))
    text = html.read_text()
    assert "<script src" not in text and "http" not in text.replace("http://www.w3.org/2000/svg", "")
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", html.as_uri()],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'data-points-shown="(\d+)"', p.stdout)
    assert m, p.stderr[-2000:]
    assert int(m.group(1)) == 4 * 6


def test_bad_sweeps(tmp_path):
    kws = model("kws_ref_model")
    p = sweep(kws, "-t", NPU, "-D", "nope=1,2", ok=False)
    assert p.returncode == 1 and p.stderr.startswith("htc: error: -D nope=1: ") and "declares no parameter" in p.stderr
    p = sweep(kws, "-t", NPU, "-D", "pes=", ok=False)
    assert p.returncode == 1 and p.stderr == "htc: error: sweep: -D needs NAME=V1,V2,..., got 'pes='\n"
    p = sweep(kws, "-t", NPU, "-D", "pes=64,,128", ok=False)
    assert p.returncode == 1 and "empty value" in p.stderr
    p = sweep("-t", NPU, ok=False)
    assert p.returncode == 1 and "no model file" in p.stderr
    out = tmp_path / "x.csv"
    p = sweep(kws, "-t", NPU, "-D", "pes=64,99", "--csv", str(out), "--json")
    rows = json.loads(p.stdout)
    assert "error" not in rows[0] and "is not one of 64, 128" in rows[1]["error"]
    assert "1 of 2 points failed" in p.stderr
    p = sweep(str(tmp_path / "missing.tflite"), "-t", NPU, ok=False)
    assert p.returncode == 1 and "cannot open" in p.stderr and not out.with_suffix(".tmp").exists()


def report_point(m, target, params):
    """htc report --json of one configuration: its JSON, or its error line"""
    args = [oracle.HTC, "report", m, "-t", target, "--json"]
    for k, v in sorted(params.items()):
        args += ["-D", "%s=%s" % (k, v)]
    p = subprocess.run(args, capture_output=True, text=True, cwd=oracle.REPO)
    if p.returncode:
        assert p.stderr.startswith("htc: error: "), p.stderr
        return None, p.stderr[len("htc: error: "):].rstrip("\n")
    return json.loads(p.stdout), None


def test_every_point_equals_report():
    """a sweep point is htc report of its -D values: the same pipeline,
    cascades included (vww on cpu.lua: 40 KiB fits only with cascades, 16
    KiB not at all), and on accelerators (tiles) and a cluster"""
    vww, kws = model("vww_96_int8"), model("kws_ref_model")
    cases = [([vww], os.path.join(oracle.REPO, "targets", "cpu.lua"), ["-D", "l2_kib=16,40,64"]),
             ([kws, vww], NPU, ["-D", "pes=64,128", "-D", "sram_kib=8,64"]),
             ([kws], os.path.join(oracle.REPO, "targets", "siracusa.lua"), ["-D", "cores=1,8", "-D", "l2_kib=48,2048"])]
    points = cascaded = errors = 0
    for ms, target, dargs in cases:
        rows = json.loads(sweep(*ms, "-t", target, *dargs, "-j", "2", "--json", ok=False).stdout)
        for r in rows:
            rep, err = report_point(r["model"], target, r["params"])
            points += 1
            if err is not None:
                errors += 1
                assert r.get("error") == err, (r, err)
                continue
            assert "error" not in r, (r, "report planned %d bytes" % rep["arena_bytes"])
            layers = rep["layers"]
            tiled = [l["tile"] for l in layers if "tile" in l]
            assert round(r["arena_kib"] * 1024) == rep["arena_bytes"], (r, rep["arena_bytes"])
            assert r["est_cycles"] == rep["est_cycles"], (r, rep["est_cycles"])
            assert r["ops"] == len(layers) and r["offloaded"] == len(tiled), r
            assert r["tiles"] == sum(t["tiles"] for t in tiled), r
            cascaded += bool(rep.get("cascades"))
    assert points == 3 + 8 + 4
    assert cascaded >= 1 and errors >= 1, (cascaded, errors)
