"""test_npu.py - .tflite models on an accelerator: targets/npu.lua (an
NPU-like engine whose requantization unit implements TFLite's fixed-point
arithmetic, device model kernels/npu.c) runs the four MLPerf Tiny models
with every convolution and fully connected layer offloaded, and the
result equals TFLite Micro's interpreter bit for bit: the outputs and
every operator's output tensor, on several random inputs. The report and
`htc run` say which engine runs each layer and why; the device model
measures the cycles (it checks every SRAM access: an overflow aborts)."""
import json
import os
import re
import subprocess

import pytest

import oracle

NPU = os.path.join(oracle.REPO, "targets", "npu.lua")
MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
OFFLOAD = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def model_path(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def report(model, *args):
    """htc report --json on the NPU target; args: more options (-D ...)"""
    p = subprocess.run([oracle.HTC, "report", model, "-t", NPU, "--json"] + list(args), capture_output=True,
                       text=True, cwd=oracle.REPO)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def check_bitexact(path, target, seeds, tmp_path, args=()):
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(30_000 + s) for s in seeds]
    results = oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=target, args=args)
    for s, inputs, (outs, dumps) in zip(seeds, sets, results):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label="seed %d: " % s)
        assert not errors, "\n".join(errors)
        assert compared == len(info.ops) > 0


@pytest.mark.parametrize("name", MODELS)
def test_mlperf_tflite_on_npu(name, tmp_path):
    """Every CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED runs on the
    NPU, the rest on the host with the reason; bit-exact with TFLM."""
    path = model_path(name)
    rep = report(path)
    offloaded = 0
    for layer in rep["layers"]:
        assert layer["reason"], layer
        if layer["source_op"] in OFFLOAD:
            assert layer["engine"] == "npu", (layer["index"], layer["source_op"], layer["reason"])
            assert layer["requant"] == "tflite"
            assert layer["tile"]["l1_bytes"] <= 128 * 1024 and layer["tile"]["w_bytes"] <= 64 * 1024
            offloaded += 1
        else:
            assert layer["engine"] == "mcu" and layer["reason"].startswith("fallback: npu"), layer
    assert offloaded >= 4
    check_bitexact(path, NPU, (0, 1, 2), tmp_path)


def test_htc_run_prints_engines_reasons_cycles(tmp_path):
    """`htc run` on the NPU target: the device model's cycles per layer,
    the engine and the reason; the output equals TFLM's."""
    path = model_path("kws_ref_model")
    info = oracle.ModelInfo(path)
    x = info.random_inputs(7)
    outs, _, stdout = oracle.run_htc(path, x, dump=False, target=NPU)
    ref, _ = oracle.run_interpreter(path, x, info=info)
    assert oracle.diff(ref[0], outs[0]) is None
    rows = re.findall(r"^\s*(\d+)\s+(\w+)\s+(\w+)\s+(\d+|-)\s+(\d+)  (.+)$", stdout, re.M)
    assert {r[2] for r in rows} == {"npu", "mcu"}, stdout
    assert all(int(r[3]) > 0 for r in rows if r[2] == "npu"), stdout
    # CPU layers are not measured ('-'): the total counts their estimate
    assert all(r[3] == "-" for r in rows if r[2] == "mcu"), stdout
    total = int(re.search(r"^total: (\d+) cycles", stdout, re.M).group(1))
    assert total == sum(int(r[3]) if r[3] != "-" else int(r[4]) for r in rows)
    assert any(r[5].startswith("fallback: npu: npu has no softmax kernel") for r in rows), stdout


@pytest.mark.parametrize("name", ["pretrainedResnet_quant", "vww_96_int8", "ad01_int8"])
def test_small_srams_bitexact(name, tmp_path):
    """-D sram_kib=8 -D wsram_kib=4: layers split into many tiles (K tiles,
    remainders, halos, padded borders); still bit-exact with TFLM, and every
    tile fits the SRAMs (the device model aborts on an overflow)."""
    path = model_path(name)
    args = ("-D", "sram_kib=8", "-D", "wsram_kib=4")
    rep = report(path, *args)
    assert rep["params"] == {"pes": "64", "sram_kib": "8", "wsram_kib": "4", "l2_kib": "512"}
    tiled = [l for l in rep["layers"] if "tile" in l]
    assert tiled and max(l["tile"]["tiles"] for l in tiled) > 1
    assert all(l["tile"]["l1_bytes"] <= 8 * 1024 and l["tile"]["w_bytes"] <= 4 * 1024 for l in tiled)
    check_bitexact(path, NPU, (5,), tmp_path, args)


def test_param_sweep_changes_device_and_report(tmp_path):
    """A parameter sweep with -D, no copy of the target file or the device
    model: the PE array size (pes) and the SRAM size reach the device model
    through generated defines, so its measured cycles change with them, and
    so do the report's estimates; the output stays TFLM's."""
    path = model_path("kws_ref_model")
    info = oracle.ModelInfo(path)
    x = info.random_inputs(11)
    ref, _ = oracle.run_interpreter(path, x, info=info)
    measured, estimated = {}, {}
    for pes in (64, 128):
        for sram in (128, 8):
            args = ["-D", "pes=%d" % pes, "-D", "sram_kib=%d" % sram]
            outs, _, stdout = oracle.run_htc(path, x, dump=False, target=NPU, args=args)
            assert oracle.diff(ref[0], outs[0]) is None
            measured[pes, sram] = int(re.search(r"^total: (\d+) cycles", stdout, re.M).group(1))
            rep = report(path, *args)
            assert rep["params"]["pes"] == str(pes) and rep["params"]["sram_kib"] == str(sram)
            estimated[pes, sram] = rep["est_cycles"]
            hdr = str(tmp_path / "m.h")
            oracle.htc("compile", path, "-t", NPU, "-o", hdr, *args)
            text = open(hdr).read()
            assert "params:  pes=%d (-D) sram_kib=%d (-D) wsram_kib=64" % (pes, sram) in text
            assert "#define HTC_DEV_ROWS %d" % (pes // 8) in text
            assert "#define HTC_DEV_ACT_SIZE %d" % (sram * 1024) in text
    # twice the PEs: fewer cycles, measured and estimated; a smaller SRAM: more
    for sram in (128, 8):
        assert measured[128, sram] < measured[64, sram] and estimated[128, sram] < estimated[64, sram]
    for pes in (64, 128):
        assert measured[pes, 8] > measured[pes, 128] and estimated[pes, 8] > estimated[pes, 128]


def test_params_listed_and_checked():
    """htc targets FILE lists the parameters; a -D outside the declaration
    or for an undeclared name is one error line naming the file:line."""
    r = oracle.htc("targets", NPU)
    assert re.search(r"^\s+pes\s+64\s+.*\(default 64; 64, 128\)", r.stdout, re.M), r.stdout
    assert re.search(r"^\s+sram_kib\s+128\s+.*\(default 128; 4\.\.1024\)", r.stdout, re.M), r.stdout
    r = oracle.htc("targets", NPU, "-D", "pes=128")
    assert re.search(r"^\s+pes\s+128\s", r.stdout, re.M) and "array 16x8" in r.stdout, r.stdout
    for d, want in (("pes=96", "targets/npu.lua:%d: param 'pes': -D pes=96 is not one of 64, 128"),
                    ("sram_kib=2", "targets/npu.lua:%d: param 'sram_kib': -D sram_kib=2 is outside 4..1024"),
                    ("sram_kib=big", "-D sram_kib=big is not an integer"),
                    ("cores=2", "-D cores=2: %s declares no parameter 'cores' (its parameters: pes, sram_kib, wsram_kib, l2_kib)")):
        r = oracle.htc("report", model_path("kws_ref_model"), "-t", NPU, "-D", d, check=False)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("htc: error: "), r.stderr
        line = [i + 1 for i, l in enumerate(open(NPU)) if 'param "%s"' % d.split("=")[0] in l]
        want = want % (line[0] if "%d" in want else NPU) if "%" in want else want
        assert want in r.stderr, (want, r.stderr)


def test_dispatch_gets_estimates(tmp_path):
    """dispatch(op, candidates, estimates): each candidate's estimated cycles
    by engine name (its cost model before tiling), so a cost-aware rule needs
    no copy of the engines' cost models. A rule that keeps the CPU unless the
    NPU is 2x cheaper, with the figures in its reason: every CPU layer's
    report estimate is the figure the rule saw, and each choice follows it."""
    src = open(NPU).read()
    rule = ('  dispatch = function(op, cand, est)\n'
            '    local host = cand[#cand]\n'
            '    for _, e in ipairs(cand) do\n'
            '      if e ~= host and est[e] * 2 <= est[host] then\n'
            '        return e, string.format("%s %.0f <= cpu %.0f / 2", e, est[e], est[host])\n'
            '      end\n'
            '    end\n'
            '    return cand[#cand], string.format("est %.0f", est[cand[#cand]])\n'
            '  end,\n}\n')
    assert src.rstrip().endswith("}")
    tgt = tmp_path / "npu_cost.lua"
    tgt.write_text(src.rstrip()[:-1] + rule)
    p = subprocess.run([oracle.HTC, "report", model_path("kws_ref_model"), "-t", str(tgt), "--json"],
                       capture_output=True, text=True, cwd=oracle.REPO)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    seen = 0
    for l in rep["layers"]:
        m = re.fullmatch(r"(\w+) (\d+) <= cpu (\d+) / 2", l["reason"])
        if m:
            assert l["engine"] == m.group(1) != "mcu" and 2 * int(m.group(2)) <= int(m.group(3)) + 1, l
            seen += 1
        m = re.fullmatch(r"est (\d+)", l["reason"])
        if m:
            assert l["engine"] == "mcu" and abs(l["est_cycles"] - int(m.group(1))) <= 1, l
            seen += 1
    assert seen >= 5, [l["reason"] for l in rep["layers"]]
    assert any(l["engine"] != "cpu" for l in rep["layers"])


def test_tile_dma_bytes_objective(tmp_path):
    """t.dma_bytes in a tile function is the layer's DMA bytes as htc counts
    them (the report's figure, no hand formula: issue 38 item 7). An
    objective minimising it, on SRAMs small enough to tile VWW: every conv
    layer's objective equals its report dma_bytes and is at most the DMA of
    the bundled cycle objective's tiling (which is feasible for it too).
    Ties between equal DMA go to the fewest tiles (no 1x1-pixel tiles), or
    to the target's tie_break: the most tiles, the same DMA, never fewer
    tiles."""
    src = open(NPU).read()
    old = "minimize = layer_cycles(t, op, w),"
    assert src.count(old) == 1
    path = model_path("vww_96_int8")
    args = ("-D", "sram_kib=8", "-D", "wsram_kib=4")
    base = {l["index"]: l["tile"] for l in report(path, *args)["layers"] if "tile" in l}

    def run(name, repl):
        tgt = tmp_path / name
        tgt.write_text(src.replace(old, repl))
        p = subprocess.run([oracle.HTC, "report", path, "-t", str(tgt), "--json"] + list(args),
                           capture_output=True, text=True, cwd=oracle.REPO)
        assert p.returncode == 0, p.stderr
        return {l["index"]: l["tile"] for l in json.loads(p.stdout)["layers"] if "tile" in l}

    dma = run("npu_dma.lua", "minimize = t.dma_bytes,")
    most = run("npu_most.lua", "minimize = t.dma_bytes, tie_break = -t.tiles,")
    convs = [i for i, t in dma.items() if t["geom"] != "fc"]
    assert len(convs) >= 20 and set(dma) == set(base)
    smaller = 0
    for i in convs:
        t, b, m = dma[i], base[i], most[i]
        assert t["objective"] == t["dma_bytes"] <= b["dma_bytes"], (i, t, b)
        smaller += t["dma_bytes"] < b["dma_bytes"]
        assert t["size"]["OY"] * t["size"]["OX"] > 1, (i, t)
        assert m["dma_bytes"] == t["dma_bytes"] and m["tiles"] >= t["tiles"], (i, t, m)
    assert smaller >= 5
    assert any(most[i]["tiles"] > dma[i]["tiles"] for i in convs)
    # layer 0: 8 kB SRAM, 3x3 conv 3 -> 8 channels at 48x48
    assert (dma[0]["dma_bytes"], dma[0]["tiles"]) == (47265, 6), dma[0]


def test_dispatch_gets_dma(tmp_path):
    """dispatch(op, candidates, estimates, dma): dma[name] is the layer's DMA
    bytes on that engine, from the tiling htc would choose there (the same
    figure the report then prints for the chosen engine; the CPU without
    an L1: 0). A rule that offloads only layers moving under 20 kB: each
    offloaded layer's report dma_bytes is the figure the rule saw."""
    src = open(NPU).read()
    rule = ('  dispatch = function(op, cand, est, dma)\n'
            '    local host = cand[#cand]\n'
            '    for _, e in ipairs(cand) do\n'
            '      if e ~= host and dma[e] and dma[e] < 20000 then\n'
            '        return e, string.format("%s dma %d, %s dma %d", e, dma[e], host, dma[host])\n'
            '      end\n'
            '    end\n'
            '    return host, string.format("%s dma %s", cand[1], tostring(dma[cand[1]]))\n'
            '  end,\n}\n')
    tgt = tmp_path / "npu_dma_rule.lua"
    tgt.write_text(src.rstrip()[:-1] + rule)
    args = ["-D", "sram_kib=8", "-D", "wsram_kib=4"]
    p = subprocess.run([oracle.HTC, "report", model_path("vww_96_int8"), "-t", str(tgt), "--json"] + args,
                       capture_output=True, text=True, cwd=oracle.REPO)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    off = kept = 0
    for l in rep["layers"]:
        m = re.fullmatch(r"(\w+) dma (\d+), mcu dma 0", l["reason"])
        if m:
            assert l["engine"] == m.group(1) and l["tile"]["dma_bytes"] == int(m.group(2)) < 20000, l
            off += 1
        m = re.fullmatch(r"npu dma (\d+)", l["reason"])
        if m:
            assert l["engine"] == "mcu" and int(m.group(1)) >= 20000, l
            kept += 1
    assert off >= 3 and kept >= 10, [l["reason"] for l in rep["layers"]]
