"""test_bench_mcu.py - `make bench-mcu` (bench/bench_mcu.py) on the cheapest
cases: AD on RV32 (its table parses, the count it reports is the one
examples/ad measures independently: minstret under qemu -icount, not the TCG
plugin the benchmark uses; the firmware's output equals `htc run`; the
peers' recorded figures and htc's ratio to them are printed), the MNIST CNN
on the Cortex-M55 (MVE instructions and beats counted, output equal to `htc
run`), and a missing cross toolchain is named, not a crash.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODELS = os.environ.get("HTC_MODELS") or os.path.join(ROOT, "..", "shared", "models", "mlperf_tiny")
SCRIPT = os.path.join(ROOT, "bench", "bench_mcu.py")
# tests/run.sh exports HTC=./htc; the makes below run in other directories
HTC = os.path.abspath(os.environ.get("HTC") or os.path.join(ROOT, "htc"))
os.environ["HTC"] = HTC


def bench(env_extra, path=None):
    env = {k: v for k, v in os.environ.items() if k != "BENCH_DIR"}
    env.update(HTC_MODELS=os.path.abspath(MODELS), **env_extra)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, env=env, timeout=300)


def test_htc_only_ad_rv32():
    r = bench({"BENCH_MODELS": "ad", "BENCH_ARCHS": "rv32"})
    assert r.returncode == 0, r.stdout + r.stderr
    # the peer's recorded figure and the ratio to it
    assert re.search(r"^ad\s+TFLM ref\s+2,480,276\s+377,132\s+7,428\s+recorded$", r.stdout, re.M), r.stdout
    assert "TFLite Micro 90b983c" in r.stdout
    rows = re.findall(r"^ad\s+htc\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+(.*)$", r.stdout, re.M)
    assert len(rows) == 1, r.stdout
    insn, flash, ram = (int(x.replace(",", "")) for x in rows[0][:3])
    assert rows[0][3].strip() == "= htc run", r.stdout
    assert flash > 270000 and 0 < ram < 64 * 1024          # AD's weights are 270,880 bytes
    # the same inference counted by another harness and another counter
    with tempfile.TemporaryDirectory() as b:
        e = subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "examples", "ad"), "rv32", "B=" + b,
                            "HTC_MODELS=" + os.path.abspath(MODELS)], capture_output=True, text=True, timeout=300)
    m = re.search(r"prof: ad total (\d+) instructions on rv32", e.stdout)
    assert m, e.stdout + e.stderr
    assert abs(insn - int(m.group(1))) <= 0.01 * insn, (insn, m.group(1))
    ratio = re.search(r"^ad\s+htc/ref\s+([\d.]+)\s", r.stdout, re.M)
    assert ratio and abs(float(ratio.group(1)) - insn / 2480276) < 0.001, r.stdout


def test_m55_mnist_beats():
    if not shutil.which("arm-none-eabi-gcc") or not shutil.which("qemu-system-arm"):
        raise AssertionError("arm-none-eabi-gcc and qemu-system-arm are needed (.ci/deps.sh)")
    r = bench({"BENCH_MODELS": "mnist", "BENCH_ARCHS": "m55"})
    assert r.returncode == 0, r.stdout + r.stderr
    rows = re.findall(r"^mnist\s+htc\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+(.*)$", r.stdout, re.M)
    assert len(rows) == 1, r.stdout
    insn, flash, ram, mve, beats = (int(x.replace(",", "")) for x in rows[0][:5])
    assert rows[0][5].strip() == "= htc run", r.stdout
    assert 0 < mve < insn and beats == 4 * mve, r.stdout          # the MVE paths ran
    assert re.search(r"^mnist\s+TFLM\+CMSIS\s+661,057\s", r.stdout, re.M), r.stdout
    ratio = re.search(r"^mnist\s+htc/cmsis\s+([\d.]+)\s", r.stdout, re.M)
    assert ratio and abs(float(ratio.group(1)) - insn / 661057) < 0.001, r.stdout


def test_missing_toolchain_is_named():
    with tempfile.TemporaryDirectory() as d:
        for t in ("cc", "make", "xxd", "timeout"):
            os.symlink(shutil.which(t), os.path.join(d, t))
        r = bench({"BENCH_MODELS": "ad", "BENCH_ARCHS": "rv32"}, path=d)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "rv32 skipped: not found: riscv64-unknown-elf-gcc" in r.stdout, r.stdout
    assert "qemu-system-riscv32" in r.stdout and "nothing measured" in r.stdout
    assert "Traceback" not in r.stderr
