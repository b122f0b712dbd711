"""test_tutorial.py - docs/accelerator-tutorial.md stays true: every command
it shows runs on examples/tutorial/ and gives what the text says. Step 1's
target runs every layer of AD on the host; step 2's fully connected unit
takes all ten FC layers and `htc verify` finds them bit-exact with the CPU
reference with the estimates the text quotes; step 3's compile-time folded
biases verify too and its header carries them; the sweep prints the four
points of the text."""
import os
import re
import subprocess

import oracle

TUT = os.path.join(oracle.REPO, "examples", "tutorial")
DOC = os.path.join(oracle.REPO, "docs", "accelerator-tutorial.md")
AD = os.path.join(oracle.MODELS, "ad01_int8.tflite")


def htc(*args):
    p = subprocess.run([oracle.HTC] + [str(a) for a in args], capture_output=True, text=True, cwd=oracle.REPO,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_step1_host_alone():
    out = htc("targets", os.path.join(TUT, "step1.lua"))
    assert "cpu host: requant tflite" in out and "memories: RAM 262144 bytes" in out
    rep = htc("report", AD, "-t", os.path.join(TUT, "step1.lua"))
    assert len(re.findall(r"FULLY_CONNECTED#\d+\s+fc\s+host\s", rep)) == 10


def test_step2_verified(tmp_path):
    rep = htc("report", AD, "-t", os.path.join(TUT, "step2.lua"))
    assert len(re.findall(r"FULLY_CONNECTED#\d+\s+fc\s+fcu\s.*fcu accepts it", rep)) == 10
    out = htc("verify", AD, "-t", os.path.join(TUT, "step2.lua"), "--keep", tmp_path)
    assert "verify: 3 passed, 0 failed" in out
    doc = open(DOC).read()
    for line in ("  0  FULLY_CONNECTED        fc          fcu             22908       24112      1.053",
                 "  1  FULLY_CONNECTED        fc          fcu              4952        4996      1.009"):
        assert line in out and line in doc, line


def test_step3_constants(tmp_path):
    out = htc("verify", AD, "-t", os.path.join(TUT, "step3.lua"), "--keep", tmp_path)
    assert "verify: 3 passed, 0 failed" in out
    hdr = open(tmp_path / "tgt.h").read()
    assert "fcu (input zero point folded into" in hdr
    # the template passes zero point 0: no layer of the header subtracts one at run time
    assert not re.search(r"htc__fcu_fc\([^;]*, -?[1-9]\d*, -?\d+, -?\d+, -?\d+\);", hdr)


def test_sweep_as_shown():
    out = htc("sweep", AD, "-t", os.path.join(TUT, "step3.lua"), "-D", "wloc_kib=2,4,16,64")
    doc = open(DOC).read()
    for cfg, tiles, est in (("2", 152, 101118), ("4", 77, 88118), ("16", 30, 80024), ("64", 12, 77204)):
        assert re.search(r"wloc_kib=%s\s+10/10\s+%d\s.*\s%d\s" % (cfg, tiles, est), out), (cfg, out)
        assert re.search(r"wloc_kib=%s\s+10/10\s+%d\s.*\s%d\s" % (cfg, tiles, est), doc), cfg


def test_step6_systolic_as_shown():
    """step 6's fields are the systolic test target's, and its report shows
    the C tiles of ResNet's 3x3 64->64 layer (tile C below 64)"""
    src = open(os.path.join(oracle.REPO, "tests", "targets", "systolic", "systolic.lua")).read()
    for field in ('memory = "SP", weights = "SP", outputs = "ACC"', "partial_sums = true",
                  "w_bytes = t.w_bytes + 8 * t.K", "out_bytes = 4 * t.K * t.OY * t.OX"):
        assert field in src and field in open(DOC).read(), field
    rep = htc("report", os.path.join(oracle.MODELS, "pretrainedResnet_quant.tflite"), "-t",
              os.path.join(oracle.REPO, "tests", "targets", "systolic", "systolic.lua"))
    m = re.search(r"^\s*\d+\s+sa\s+conv\s+64,64,8,8\s+(\d+),(\d+),", rep, re.M)
    assert m and int(m.group(2)) < 64, rep
