"""tests/test_bench_diana.py - the Table I harness of bench/bench_diana.py
(bench/diana/rv32.py) on the smallest network, ToyAdmos (ad): every
configuration built for RV32IMC, run under qemu (output bit-exact with
onnxruntime, else table1_row raises), instructions counted with the device
model left out, sizes parsed with the model left out, and the row
consistent with itself. Not timed: the figures are the bench's."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import bench_diana as bd  # noqa: E402

rv32 = bd.rv32


@pytest.fixture(scope="module")
def ad_row(tmp_path_factory):
    zoo = bd.oo.ensure_zoo()
    rv32.check_tools()          # a missing toolchain fails here, naming it
    return bd.table1_row("ad", zoo, str(tmp_path_factory.mktemp("t1")), bd.CONFIGS + bd.CHECK)


def test_row_counts_and_sizes(ad_row):
    for name, r in ad_row.items():
        assert r["instr"] > 0 and r["cpu_layers"] > 0, name
        assert r["instr"] == r["cpu_layers"] + r["issue"] + r["glue"], name
        assert 0 <= r["glue"] < 2000, (name, r["glue"])           # run_multi's glue and the counters themselves
        assert r["ms"] == pytest.approx((r["instr"] + r["dev_cycles"]) / 260e3), name
        assert 0 < r["io"] <= r["cpu_layers"], name                  # the zoo nets have float input and output
        assert r["size"]["code"] > 1000 and r["size"]["total"] == r["size"]["code"] + r["size"]["const"], name
        # the constants hold at least the weights (ToyAdmos: ~270 kB of FC weights)
        assert r["size"]["const"] > 250000, (name, r["size"])
    cpu = ad_row["cpu"]
    assert cpu["dev_cycles"] == 0 and cpu["issue"] == 0 and cpu["model_instr"] == 0
    assert cpu["engines"] == {"riscv": sum(cpu["engines"].values())}
    for name in ("digital", "analog", "both", "mixed", "dig/tern"):
        r = ad_row[name]
        assert r["dev_cycles"] > 0 and r["issue"] > 0, name
        assert r["ideal_dev"] > 0, name
        # the digital core is simulated with its own constants in every
        # configuration (HTC_DEV_DIGITAL_*, whichever engine comes first)
        assert not bd.core_mismatch(ad_row, name), name
        assert r["ideal_dev"] <= r["dev_cycles"], name            # the ideal is a bound of the measured
        assert r["peak"] <= r["ms"], name
        assert r["peak"] == pytest.approx((r["instr"] + r["ideal_dev"]) / 260e3), name
        # the model ran (and its instructions were left out): it simulates every MAC, so it dwarfs the issue loops
        assert r["model_instr"] > 10 * r["issue"], name
        assert r["instr"] < cpu["instr"] / 2, name                   # every FC layer offloaded
        assert sum(n for e, n in r["engines"].items() if e != "riscv") >= 10, (name, r["engines"])
    assert ad_row["both"]["engines"].get("analog", 0) > 0
    # mixed: first and last FC on digital, the rest on analog
    assert ad_row["mixed"]["engines"].get("digital") == 2 and ad_row["mixed"]["engines"].get("analog", 0) >= 8


def test_table_prints_row(ad_row, capsys, monkeypatch, tmp_path):
    """table1 prints the row next to the paper's and the check line"""
    monkeypatch.setattr(bd, "table1_row", lambda net, zoo, tmp, configs: ad_row)
    bd.table1("unused", str(tmp_path), nets=("ad",))
    out = capsys.readouterr().out
    assert re.search(r"^ToyAdmos +[\d.]+ +[\d.]+ / +[\d.]+ +[\d.]+ / +[\d.]+ +[\d.]+ +[\d.]+ +\d+ / \d+ / \d+ / \d+ / \d+$", out,
                     re.M), out
    assert "  paper         4.70       0.30 / 0.36       0.80 / 0.80              0.49   287 / 315 / 171 / 274" in out
    # the original int8 .tflite network, CPU only, bit-exact with TFLite Micro under qemu
    t = ad_row["tflite"]
    assert 0 < t["instr"] < ad_row["cpu"]["instr"] and t["io"] == 0 and t["dev_cycles"] == 0
    assert re.search(r"^ToyAdmos +%d +[\d.]+ +\d+ +4.70$" % t["instr"], out, re.M), out
    assert "WARNING" not in out, out
    assert re.search(r"^ToyAdmos +total +both +[\d.]+ ms, best single +[\d.]+ ms \((digital|analog)\): (ok|SLOWER)", out, re.M)


def test_missing_toolchain(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(rv32, "QEMU_BIN", "no-such-qemu-system-riscv32")
    with pytest.raises(rv32.Rv32Error, match="missing no-such-qemu-system-riscv32 .*apt-get install"):
        rv32.check_tools()
    bd.table1("unused", str(tmp_path), nets=("ad",))
    assert "Table I: skipped - missing no-such-qemu-system-riscv32" in capsys.readouterr().out


def test_model_left_out(tmp_path):
    """the header rewrites: every device call of the layer code bracketed;
    the size build has the model's prototypes only (no state, no bodies)"""
    zoo = bd.oo.ensure_zoo()
    h = str(tmp_path / "m.h")
    rv32.compile_header(bd.oo.HTC, os.path.join(zoo, "ad_ternaryqop_s8.onnx"), bd.DIANA, h, ["-D", "engines=both"])
    text = open(h).read()
    pre, model, post = rv32.split_model(text)
    assert "htc__dev_job" in model and "htc__dev_state" in model
    calls = len(re.findall(r"\bhtc__dev_\w+\(", post))
    assert calls > 10
    br = rv32.bracket_device_calls(text)
    assert len(re.findall(r"HTC_BENCH_DEV\(htc__dev_\w+, ", br)) == calls
    assert not re.search(r"\bhtc__dev_\w+\(", rv32.split_model(br)[2])
    pr = rv32.model_as_prototypes(text)
    assert "htc__dev_state" not in pr and "htc__dev_job" not in pr
    assert re.search(r"^void htc__dev_sync\(int32_t layer\);$", pr, re.M)
    # a CPU-only header has no model: unchanged
    rv32.compile_header(bd.oo.HTC, os.path.join(zoo, "ad_pow2qop_s8.onnx"), bd.DIANA, h, ["-D", "engines=none"])
    text = open(h).read()
    assert rv32.split_model(text)[1] == "" and rv32.model_as_prototypes(text) == text


def test_bad_header_is_an_error(tmp_path):
    with pytest.raises(rv32.Rv32Error, match="without its"):
        rv32.split_model("x\n" + rv32.MODEL_BEGIN + "\nstatic int y;\n")


def test_layer_table(capsys, tmp_path):
    """--layers: one line per layer of the report, offloaded layers with
    their device cycles, CPU layers with '-'"""
    bd.layer_table("ad", "digital", bd.oo.ensure_zoo(), str(tmp_path))
    out = capsys.readouterr().out
    rows = re.findall(r"^ +(\d+) (\w+) +(\w+) +(\d+) +(\d+) +(\d+|-) +(\d+)  (.+)$", out, re.M)
    assert [int(r[0]) for r in rows] == list(range(12)), out
    for r in rows:
        assert (r[2] == "riscv") == (r[5] == "-"), r
        if r[2] == "digital":
            assert int(r[5]) > 0 and r[1] == "fc", r
    assert sum(int(r[3]) for r in rows) > 0


@pytest.fixture(scope="module")
def htvm_dae(tmp_path_factory):
    rv32.check_tools()
    return bd.htvm_row("dae", bd.htvm_nets.ensure(), str(tmp_path_factory.mktemp("htvm")))


def test_htvm_row(htvm_dae):
    """HTVM's ToyAdmos (tests/zoo/htvm_nets.py) on RV32IMFC in every
    configuration (output bit-exact with onnxruntime and its float twin,
    else htvm_row raises): the paper's peak is the whole run without the
    issue loops, with the accelerator jobs from trigger to completion"""
    cpu = htvm_dae["cpu"]
    assert cpu["dev_cycles"] == 0 and cpu["trig"] == 0 and cpu["peak_ms"] == pytest.approx(cpu["ms"])
    assert cpu["engines"] == {"riscv fc": 10}
    for name in ("digital", "analog", "mixed", "both"):
        r = htvm_dae[name]
        assert 0 < r["trig"] <= r["dev_cycles"] + r["issue"], name
        assert r["peak_ms"] == pytest.approx((r["instr"] - r["issue"] + r["trig"]) / 260e3), name
        # every layer offloaded: issue loops and glue only (instructions
        # under qemu; cycles on GVSoC, with its instruction cache cold)
        assert r["instr"] < (8000 if r["how"].startswith("GVSoC") else 2000), (name, r["instr"])
        assert "-march=rv32imafc" in rv32.FPU_FLAGS
    assert htvm_dae["digital"]["engines"] == {"digital fc": 10}
    assert htvm_dae["analog"]["engines"] == {"analog fc": 10}
    assert htvm_dae["mixed"]["engines"] == {"digital fc": 2, "analog fc": 8}


def test_htvm_table_prints_cells(htvm_dae, capsys, monkeypatch, tmp_path):
    """every paper cell of the network beside htc's, with the ratio"""
    monkeypatch.setattr(bd, "htvm_row", lambda net, nets, tmp: htvm_dae)
    bd.htvm_table(str(tmp_path), nets=("dae",))
    out = capsys.readouterr().out
    cells = re.findall(r"^ToyAdmos +(CPU TVM|Dig\. peak|Dig\. HTVM|Ana\. peak|Ana\. HTVM|Both peak) +(\w+) +([\d.]+) +"
                       r"([\d.]+) +([\d.]+)\*? +(\d+) +(\d+) +([\d.]+)\*?  (GVSoC.*|cost model)$", out, re.M)
    assert [c[0] for c in cells] == list(bd.HTVM_COLUMNS), out
    assert [float(c[3]) for c in cells] == list(bd.HTVM_PAPER["dae"][0])
    assert [int(c[6]) for c in cells] == list(bd.HTVM_PAPER["dae"][1])
    for c, (cfg, meas), paper in zip(cells, bd.HTVM_CELLS, bd.HTVM_PAPER["dae"][0]):
        assert c[1] == cfg and c[4] == "%.2f" % (htvm_dae[cfg][meas] / paper), c
    assert re.search(r"^ToyAdmos +digital +\d+ +0 +- +\d+ +\d+ +\d+ +1280 ", out, re.M), out


def test_htvm_layers(capsys, tmp_path):
    """--htvm-layers: one line per layer, offloaded layers with their device
    and trigger-to-completion cycles (the latter at most the former plus
    the weight loads that overlap), CPU layers with '-'"""
    bd.htvm_layers("dae", "mixed", str(tmp_path))
    out = capsys.readouterr().out
    rows = re.findall(r"^ +(\d+) (\w+) +(\w+) +(\d+) +(\d+|-) +(\d+) +(\d+|-) +(\d+|-)  (.+)$", out, re.M)
    assert [r[1] for r in rows] == ["fc"] * 10, out
    assert [r[2] for r in rows] == ["digital"] + ["analog"] * 8 + ["digital"], out
    for r in rows:
        assert r[4] == "-" and int(r[6]) > 0 and int(r[7]) > 0 and r[8].startswith("mixed: "), r


def test_htvm_row_how(htvm_dae):
    """each configuration says how its CPU part was measured: GVSoC when
    GVSOC names an installed one, else the cost model (whose CPU layers are
    then `htc report`'s estimates for targets/diana.lua's XpulpV2 host)"""
    for name, r in htvm_dae.items():
        assert r["how"].startswith("GVSoC" if bd.gvsoc.gvsoc_dir() else "cost model"), (name, r["how"])
    assert htvm_dae["cpu"]["cpu_layers"] > 0


def test_gvsoc_firmware_layout(tmp_path, monkeypatch):
    """bench/diana/gvsoc.py builds DIANA-host firmware for GVSoC's Siracusa
    without running it: ToyAdmos's constants (271 kB) do not all fit its
    256 KiB L1, so the smallest go to L1 and one 640 x 128 weight array
    (81,920 bytes: layer 0's or 9's) stays in L2, which l2_layers names; the device model's
    state is placed in L2; no GVSoC: firmware_cycles says so"""
    gv = bd.gvsoc
    model = os.path.join(bd.htvm_nets.ensure(), "dae_int8.onnx")
    h = str(tmp_path / "m.h")
    rv32.compile_header(bd.oo.HTC, model, bd.DIANA, h, ["-D", "engines=digital"])
    elf, ro_l1, ro_l2, l2 = gv.build(h, str(tmp_path / "fw"), bytes(640))
    assert os.path.exists(elf) and ro_l1 > 150000 and len(l2) == 1 and ro_l2 == 81920
    ld = open(str(tmp_path / "fw" / "diana-host.ld")).read()
    assert "*(.bss.htc__dev)" in ld and "__worker_stack_size = 0;" in ld
    nm = subprocess.run([rv32.CC.replace("gcc", "nm"), elf], capture_output=True, text=True, check=True).stdout
    syms = {f[2]: f[0] for f in (l.split() for l in nm.splitlines()) if len(f) == 3}
    assert int(syms["htc__dev"], 16) >> 24 == 0x1c        # L2
    assert int(syms["arena"], 16) >> 24 == 0x10           # L1
    assert gv.l2_layers(str(tmp_path / "fw" / "m.h"), l2) in ({0}, {9})
    monkeypatch.delenv("GVSOC", raising=False)
    with pytest.raises(gv.GvsocError, match="GVSOC=DIR"):
        gv.firmware_cycles(h, str(tmp_path / "fw2"), bytes(640))
