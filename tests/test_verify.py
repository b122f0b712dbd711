"""test_verify.py - `htc verify MODEL -t TARGET`: the model on the target's
virtual platform against the CPU reference (targets/cpu.lua, whose kernels
the other tests check against TFLite Micro and onnxruntime) on random
inputs, every layer compared. Checks: a correct target passes with every
layer compared and the device model's cycles beside the estimate; a device
model with a planted error is caught at the right layer, element and tile;
a second run reuses both builds and an edited target rebuilds only its
side; bad options are one-line errors."""
import os
import re
import shutil
import subprocess

import numpy as np

import oracle

NPU = os.path.join(oracle.REPO, "targets", "npu.lua")


def model(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), p
    return p


def verify(*args):
    return subprocess.run([oracle.HTC, "verify"] + [str(a) for a in args], capture_output=True, text=True,
                          cwd=oracle.REPO, timeout=600)


def test_npu_kws_passes(tmp_path):
    p = verify(model("kws_ref_model"), "-t", NPU, "-n", 4, "--keep", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verify: 4 passed, 0 failed" in p.stdout
    # every one of the 13 layers compared on every set
    assert len(re.findall(r"every layer equal \(13 tensors compared\)", p.stdout)) == 4, p.stdout
    # the offloaded layers: measured cycles beside the estimate (npu.lua's model agrees to a few cycles)
    rows = re.findall(r"^\s*\d+\s+\S+\s+(conv2d|fc)\s+npu\s+(\d+)\s+(\d+)\s+([\d.]+)$", p.stdout, re.M)
    assert len(rows) == 10, p.stdout
    for _, meas, est, ratio in rows:
        assert int(meas) > 0 and abs(int(est) - int(meas)) <= 0.01 * int(meas), (meas, est)


def planted(tmp_path):
    """a copy of targets/npu.lua whose device model adds 900 to the
    accumulator of output row 2, channel 5 of every conv tile"""
    d = tmp_path / "npu_bad"
    (d / "kernels").mkdir(parents=True)
    shutil.copy(NPU, d / "npu.lua")
    shutil.copytree(os.path.join(oracle.REPO, "templates", "npu"), d / "templates" / "npu")
    src = open(os.path.join(oracle.REPO, "kernels", "npu.c")).read()
    old = "out[(HTC__CAST(size_t, y) * ox + x) * k + o] = htc__npu_requant(acc,"
    assert src.count(old) == 1
    (d / "kernels" / "npu.c").write_text(src.replace(old, old[:-4] + "acc + (y == 2 && o == 5 ? 900 : 0),"))
    return d / "npu.lua"


def test_planted_error_named(tmp_path):
    bad = planted(tmp_path)
    p = verify(model("vww_96_int8"), "-t", bad, "-D", "sram_kib=16", "-n", 2, "--keep", tmp_path / "b")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "verify: 0 passed, 2 failed" in p.stdout
    first = re.search(r"first difference: layer 0 \(CONV_2D, conv2d on npu\), tensor \d+ '[^']*': "
                      r"\d+ of 18432 bytes differ, the first at byte 773 = \(y 2, x 0, c 5\)\n"
                      r"  written by tile \(oy 0, ox 0, k 0\) of 3 x 1 x 1; tile size 16x48x8", p.stdout)
    assert first, p.stdout


def test_builds_reused(tmp_path):
    keep = tmp_path / "k"
    t = tmp_path / "t"
    t.mkdir()
    tgt = t / "npu.lua"
    shutil.copy(NPU, tgt)
    shutil.copytree(os.path.join(oracle.REPO, "templates", "npu"), t / "templates" / "npu")
    (t / "kernels").mkdir()
    shutil.copy(os.path.join(oracle.REPO, "kernels", "npu.c"), t / "kernels" / "npu.c")
    args = (model("kws_ref_model"), "-t", tgt, "-n", 1, "--keep", keep)
    assert verify(*args).returncode == 0
    m = {s: os.stat(keep / (s + ".o")).st_mtime_ns for s in ("tgt", "ref")}
    assert verify(*args).returncode == 0
    assert {s: os.stat(keep / (s + ".o")).st_mtime_ns for s in ("tgt", "ref")} == m, "an unchanged run recompiled"
    # the target's estimate changes the header's comments: only its side is rebuilt
    tgt.write_text(tgt.read_text().replace("local STARTUP = 30", "local STARTUP = 31"))
    p = verify(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    assert os.stat(keep / "ref.o").st_mtime_ns == m["ref"]
    assert os.stat(keep / "tgt.o").st_mtime_ns != m["tgt"]


def test_bad_options(tmp_path):
    for args, want in (((model("kws_ref_model"),), "verify: no target given"),
                       (("-t", NPU), "verify: no model file given"),
                       ((model("kws_ref_model"), "-t", NPU, "-n", "0"), "-n '0': expected a number from 1"),
                       ((model("kws_ref_model"), "-t", NPU, "--bogus"), "verify: unknown option '--bogus'"),
                       ((model("kws_ref_model"), "-t", NPU, "-D", "nope=1", "--keep", tmp_path),
                        "declares no parameter 'nope'")):
        p = verify(*args)
        assert p.returncode != 0 and want in p.stderr, (args, p.stderr)
        assert p.stderr.count("\n") == 1, p.stderr


def test_constants_built_apart(tmp_path):
    """htc run and htc verify build the constants apart: their bytes in a
    file the header's assembler statement includes (.incbin), not C text
    (MobileNetV2-224: 4.7 s -> 1.4 s of host compiler). The answer is the
    one of the header compile writes (htc run --keep builds that one)."""
    m = model("kws_ref_model")
    info = oracle.ModelInfo(m)
    x = tmp_path / "x.bin"
    n = int(np.prod(info.tensors[info.inputs[0]]["shape"]))
    x.write_bytes(np.random.default_rng(5).integers(-128, 128, n).astype(np.int8).tobytes())
    outs = []
    for keep in ([], ["--keep", tmp_path / "k"]):
        out = tmp_path / ("y%d.bin" % len(outs))
        oracle.htc("run", m, "-t", oracle.TARGET, "--input", x, "--output", out, *keep)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and len(outs[0]) == 12
    kept = (tmp_path / "k" / "model.h").read_text()
    assert ".incbin" not in kept and "static const int8_t" in kept
    oracle.htc("compile", m, "-t", oracle.TARGET, "-o", tmp_path / "c.h")
    assert ".incbin" not in (tmp_path / "c.h").read_text()
    p = verify(m, "-t", oracle.TARGET, "-n", 1, "--keep", tmp_path / "v")
    assert p.returncode == 0 and "verify: 1 passed, 0 failed" in p.stdout, p.stdout + p.stderr
    for side in ("tgt", "ref"):
        h = (tmp_path / "v" / (side + ".h")).read_text()
        blob = tmp_path / "v" / (side + ".bin")
        got = re.search(r"/\* (\d+) bytes of constants, FNV-1a [0-9a-f]{16} \*/", h)
        assert got and int(got.group(1)) == blob.stat().st_size > 10000, side
        assert h.count(".incbin") == h.count("extern const") > 5
