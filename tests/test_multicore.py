"""tests/test_multicore.py - a multi-core CPU's decisions, what the report
and the header say about them (targets/dual-m33.lua, two Cortex-M33):

- the estimate decides whether a layer is divided at all: with a fork
  dearer than any layer's work nothing is divided, each layer says why
  (split_why) and the header forks nothing; split = "none" keeps a layer
  on one core; the one-core estimate and the speedup are in the report;
- NAME_CORES is defined in every header (1 for one core);
- `htc targets` shows every engine's cores, fork and split.
(The outputs of divided layers are checked in tests/test_cluster.py and
tests/test_dual_m33.sh.)"""
import json
import os
import re
import shutil
import subprocess

import oracle

REPO = oracle.REPO
DUAL = os.path.join(REPO, "targets", "dual-m33.lua")
KWS = os.path.join(oracle.MODELS, "kws_ref_model.tflite")


def htc(*args):
    r = subprocess.run([oracle.HTC, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def report(target, *args):
    return json.loads(htc("report", KWS, "-t", target, "--json", *args))


def variant(tmp_path, name, old, new):
    """targets/dual-m33.lua with one line changed, next to a copy of its includes"""
    src = open(DUAL).read()
    assert src.count(old) == 1, old
    if not (tmp_path / "cpus").exists():
        shutil.copytree(os.path.join(REPO, "targets", "cpus"), tmp_path / "cpus")
    p = tmp_path / name
    p.write_text(src.replace(old, new))
    return str(p)


def test_estimate_divides(tmp_path):
    """KWS on two cores: the convolutions divided, the report's one-core
    estimate and speedup; each divided layer's estimate below its one-core
    one"""
    r = report(DUAL)
    par = [l for l in r["layers"] if l.get("cores", 1) == 2]
    assert sum(l["op"] == "conv2d" for l in par) == 9, [l["op"] for l in par]
    for l in par:
        assert l["est_cycles"] < l["est_cycles_one_core"], l
    assert r["cores"] == 2 and r["est_cycles_one_core"] > r["est_cycles"]
    assert 1.9 < r["speedup_vs_one_core"] < 2.0, r["speedup_vs_one_core"]
    text = htc("report", KWS, "-t", DUAL)
    assert re.search(r"^on one core: \d+ cycles estimated; 2 cores 1\.9\dx faster$", text, re.M), text


def test_fork_too_dear(tmp_path):
    """fork = 10^8 cycles: no layer gains, none is divided, each says why,
    and the header calls HTC_PAR_RUN nowhere (NAME_CORES still 2)"""
    t = variant(tmp_path, "dear.lua", "fork = 60,", "fork = 1e8,")
    r = report(t)
    assert not [l for l in r["layers"] if l.get("cores", 1) > 1]
    why = [l["split_why"] for l in r["layers"] if "split_why" in l]
    assert len(why) >= 11, why        # 9 convolutions, the pool, the fc
    assert all(re.match(r"1 core: 2 cores by (rows|channels) ~\d+ cycles \(fork 1e\+08 \+ slowest share\) >= 1 core ~\d+$", w)
               for w in why), why
    assert r["speedup_vs_one_core"] == 1.0
    text = htc("report", KWS, "-t", t)
    assert "[1 core: 2 cores by rows ~" in text, text
    h = tmp_path / "dear.h"
    htc("compile", KWS, "-t", t, "-o", str(h), "--name", "kws")
    src = h.read_text()
    assert "#define KWS_CORES 2" in src
    assert "HTC_PAR_RUN(kws__" not in src and "HTC_PAR_RUN(" in src     # no layer forked (the hook still described)


def test_split_none(tmp_path):
    """split = "none" for fully connected layers: the fc stays on one core
    with that reason, the convolutions are still divided"""
    t = variant(tmp_path, "none.lua", 'if SPLIT ~= "auto" then return SPLIT end',
                'if SPLIT ~= "auto" then return SPLIT end\n      if op.kind == "fc" then return "none" end')
    r = report(t)
    fc = [l for l in r["layers"] if l["op"] == "fc"]
    assert len(fc) == 1 and "cores" not in fc[0] and fc[0]["split_why"] == "1 core: the target's split says none", fc
    assert sum(l.get("cores", 1) == 2 for l in r["layers"]) == 10


def test_bank_contention(tmp_path):
    """memory.banks = { count, access }: the cores contend for the SRAM's
    banks and each divided layer's share is slowed by 1 + a (1 - (1 - a /
    B)^(cores - 1)). Four banks accessed in a quarter of the cycles: x
    1.015625 on every divided layer's share (the fork not), the same
    layers divided; one bank accessed every cycle: x 2, so no layer gains
    from the second core and each says so with the factor."""
    old = "SRAM = { size = SRAM_KIB * KiB, alignment = 16 },"
    base = report(DUAL)
    four = report(variant(tmp_path, "banks4.lua", old, old[:-2] + ", banks = { count = 4, access = 0.25 } },"))
    one = report(variant(tmp_path, "banks1.lua", old, old[:-2] + ", banks = { count = 1, access = 1 } },"))
    fork = 60
    div = 0
    for b, f, o in zip(base["layers"], four["layers"], one["layers"]):
        assert b.get("cores", 1) == f.get("cores", 1) and "cores" not in o, (b, f, o)
        assert o["est_cycles"] == b["est_cycles_one_core"], (b, o)
        if b.get("cores", 1) == 2:
            div += 1
            assert abs((f["est_cycles"] - fork) - 1.015625 * (b["est_cycles"] - fork)) <= 1, (b, f)      # whole cycles in the report
            assert re.match(r"1 core: 2 cores by \w+ ~\d+ cycles \(fork 60 \+ slowest share x 2\.000 bank contention\) "
                            r">= 1 core ~\d+$", o["split_why"]), o
        else:
            assert f["est_cycles"] == b["est_cycles"], (b, f)
    assert div == 11 and one["speedup_vs_one_core"] == 1.0
    assert 1.85 < four["speedup_vs_one_core"] < base["speedup_vs_one_core"]


def test_cores_macro_always(tmp_path):
    """NAME_CORES in a one-core header too: code written for the two-core
    header compiles against it"""
    for target, args, n in ((os.path.join(REPO, "targets", "cpu.lua"), (), 1), (DUAL, ("-D", "cores=1"), 1),
                            (DUAL, (), 2)):
        h = tmp_path / "m.h"
        htc("compile", KWS, "-t", target, *args, "-o", str(h), "--name", "m")
        assert re.search(r"^#ifndef M_CORES\n#define M_CORES %d\n#endif$" % n, h.read_text(), re.M), (target, args)


def test_targets_show_cores():
    """htc targets: the cpu's cores, fork and split; every engine's cores"""
    out = htc("targets", DUAL)
    assert "; 2 cores, fork 60 cycles, split by the target's function, else the estimate's" in out, out
    out = htc("targets", DUAL, "-D", "cores=1")
    assert re.search(r"^  cpu cpu: requant [^;]*; 1 core;", out, re.M), out
    out = htc("targets", os.path.join(REPO, "targets", "npu.lua"))
    assert len(re.findall(r"; 1 core[;,]", out)) == 2, out
    out = htc("targets", os.path.join(REPO, "targets", "siracusa.lua"), "-D", "cores=8")
    assert re.search(r"; 8 cores, fork \d+ cycles, split by the target's function", out) and "L1 tiles in L1" in out, out


def test_run_tables(tmp_path):
    """htc run: a CPU-only two-core target prints its table of estimates
    (each layer's cores, nothing measured); on an accelerator target the CPU
    layers' measured column is '-', not their estimate again"""
    x = tmp_path / "in.bin"
    x.write_bytes(bytes(range(256)) * 2)
    x.write_bytes(x.read_bytes()[:490])
    out = htc("run", KWS, "-t", DUAL, "--input", str(x), "--output", str(tmp_path / "a.bin"))
    assert "htc run: estimated cycles per layer (target dual-m33, 2 cores;" in out, out
    rows = re.findall(r"^ *(\d+)  (\S+) +cpu +(\S+) +(\d+)  (.*)$", out, re.M)
    assert len(rows) == 12 and all(r[2] == "-" for r in rows), out
    assert sum(r[4].startswith("[2 cores by rows]") for r in rows) == 9, out
    assert re.search(r"^total: estimated \d+ cycles = [\d.]+ ms at 150 MHz$", out, re.M), out
    out = htc("run", KWS, "-t", os.path.join(REPO, "targets", "npu.lua"), "--input", str(x),
              "--output", str(tmp_path / "b.bin"))
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    rows = re.findall(r"^ *(\d+)  (\S+) +(\S+) +(\S+) +(\d+)  (.*)$", out, re.M)
    cpu = [r for r in rows if r[2] == "mcu"]
    npu = [r for r in rows if r[2] == "npu"]
    assert len(cpu) == 2 and all(r[3] == "-" for r in cpu), out
    assert len(npu) == 10 and all(r[3].isdigit() for r in npu), out


M33_CC = "arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb"


def test_stack_per_core_and_flash(tmp_path):
    """--stack-cc on the two-core target: the calling core's stack (with a
    layer function's share) and each other core's (the deepest layer
    function), RAM = arena + both stacks; flash = the object's code +
    constants + data, equal to what arm-none-eabi-size says of the same
    compile; the header's macros carry the report's numbers"""
    r = report(DUAL, "--stack-cc", M33_CC)
    (s,) = r["stack"]
    assert 0 < s["core_stack_bytes"] < s["bytes"] < 16384, s
    assert s["ram_bytes"] == r["arena_bytes"] + s["bytes"] + s["core_stack_bytes"], s
    assert s["flash_bytes"] == s["code_bytes"] + s["const_bytes"] + s["data_bytes"], s
    assert s["const_bytes"] >= r["weight_bytes"] and s["code_bytes"] > 4096, s
    h = tmp_path / "kws.h"
    htc("compile", KWS, "-t", DUAL, "-o", str(h), "--name", "kws", "--stack-cc", M33_CC)
    text = h.read_text()
    for macro, v in (("STACK_SIZE", s["bytes"]), ("CORE_STACK_SIZE", s["core_stack_bytes"]),
                     ("CODE_SIZE", s["code_bytes"]), ("CONST_SIZE", s["const_bytes"]), ("FLASH_SIZE", s["flash_bytes"])):
        assert re.search(r"^#define KWS_%s_ARM_NONE_EABI_GCC %d\b" % (macro, v), text, re.M), macro
    assert "#define KWS_RAM_SIZE_ARM_NONE_EABI_GCC (KWS_ARENA_SIZE + KWS_STACK_SIZE_ARM_NONE_EABI_GCC + " \
           "(KWS_CORES - 1) * KWS_CORE_STACK_SIZE_ARM_NONE_EABI_GCC)" in text
    # the same compile as htc's measurement, sized by binutils
    (tmp_path / "unit.c").write_text("void htc_stack_fork(void (*fn)(void *, int, int), void *ctx, int ncores);\n"
                                     "#define HTC_PAR_RUN(fn, ctx, ncores) htc_stack_fork((fn), (ctx), (ncores))\n"
                                     "#define KWS_IMPLEMENTATION\n#include \"kws.h\"\n")
    subprocess.run(M33_CC.split() + ["-O2", "-std=c99", "-c", "unit.c", "-o", "unit.o"], cwd=tmp_path, check=True)
    size = subprocess.run(["arm-none-eabi-size", "unit.o"], cwd=tmp_path, capture_output=True, text=True, check=True)
    text_b, data_b = [int(v) for v in size.stdout.splitlines()[1].split()[:2]]
    assert (text_b, data_b) == (s["code_bytes"] + s["const_bytes"], s["data_bytes"]), size.stdout
    # one core: no other core's stack
    (s1,) = report(DUAL, "-D", "cores=1", "--stack-cc", M33_CC)["stack"]
    assert "core_stack_bytes" not in s1 and s1["flash_bytes"] > 0, s1
