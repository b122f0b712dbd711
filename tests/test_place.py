"""test_place.py - several data memories (gen/plan.c, place): a target whose
CPU lists memory = { "SRAM", "PSRAM" } gets one arena per memory, each
buffer placed to minimise bytes read+written x the memory's cost.

- VWW on targets/mcu-psram.lua (32 KiB SRAM + PSRAM) is bit-exact with the
  tflite-micro interpreter (outputs and every operator output) with the
  split arenas, the hot buffers in SRAM, and `htc run`'s count of accesses
  by address equals the report's modelled cost;
- on a small model whose optimum is known (worked out below, and checked
  against every assignment), htc finds it where greedy by accesses per byte
  does not;
- bad memory declarations give one-line errors naming the target file:line;
- the header compiles warning-free (C99, C++11) with several arenas.
"""
import itertools
import json
import os
import re
import subprocess

import numpy as np
import pytest

import oracle
import tflite_build as tb

PSRAM = os.path.join(oracle.REPO, "targets", "mcu-psram.lua")
VWW = os.path.join(oracle.MODELS, "vww_96_int8.tflite")
CXX = os.environ.get("CXX") or "g++"


def report(path, *args, target=PSRAM):
    return json.loads(oracle.htc("report", path, "-t", target, "--json", *args).stdout)


def test_vww_split_bit_exact(tmp_path):
    """layer by layer (--no-cascade): 27,648 bytes in SRAM, the rest in PSRAM"""
    rep = report(VWW, "--no-cascade")
    arenas = {a["memory"]: a for a in rep["arenas"]}
    assert set(arenas) == {"SRAM", "PSRAM"}
    assert 0 < arenas["SRAM"]["size"] <= 32 * 1024 and arenas["PSRAM"]["size"] > 0
    assert rep["arena_bytes"] == arenas["SRAM"]["size"] + arenas["PSRAM"]["size"]
    pl = rep["placement"]
    assert pl["method"].startswith("exact"), pl
    assert pl["access_cost"] == pl["access_bound"]
    # the hot buffers in SRAM: more bytes read+written there than in PSRAM,
    # and the cost below everything-in-PSRAM
    assert arenas["SRAM"]["accessed_bytes"] > arenas["PSRAM"]["accessed_bytes"]
    total = arenas["SRAM"]["accessed_bytes"] + arenas["PSRAM"]["accessed_bytes"]
    assert pl["access_cost"] == arenas["SRAM"]["accessed_bytes"] + 4 * arenas["PSRAM"]["accessed_bytes"]
    assert pl["access_cost"] < 4 * total
    roots = [b for b in rep["buffers"] if b["storage"] == "arena"]
    assert roots and all(b["memory"] in ("SRAM", "PSRAM") and b["why"].startswith(b["memory"]) for b in roots)
    info = oracle.ModelInfo(VWW)
    compared = 0
    for seed in (0, 1):
        inputs = info.random_inputs(31_000 + seed)
        (tmp_path / str(seed)).mkdir()
        outs, dumps, stdout = oracle.run_htc(VWW, inputs, target=PSRAM, workdir=str(tmp_path / str(seed)),
                                             args=["--no-cascade"])
        ref_outs, ref_tensors = oracle.run_interpreter(VWW, inputs)
        errors, n = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
        assert not errors, errors[:5]
        compared += n
        # the virtual platform's count, by address, is the modelled cost
        got = {m: (int(b), float(c)) for m, b, c in
               re.findall(r"^  (\w+) +(\d+) bytes x \S+ = (\d+)$", stdout, re.M)}
        assert got == {a: (arenas[a]["accessed_bytes"], arenas[a]["accessed_bytes"] * arenas[a]["cost"]) for a in arenas}, stdout
        assert re.search(r"^access cost: %d$" % pl["access_cost"], stdout, re.M), stdout
    assert compared == 2 * len(info.op_outputs()) and compared > 0
    # --check: each layer touches only its planned buffers, in both arenas
    inputs = info.random_inputs(31_007)
    (tmp_path / "check").mkdir()
    outs, _, _ = oracle.run_htc(VWW, inputs, dump=False, target=PSRAM, workdir=str(tmp_path / "check"),
                                 args=["--check", "--no-cascade"])
    ref_outs, _ = oracle.run_interpreter(VWW, inputs)
    assert all(oracle.diff(e, g) is None for e, g in zip(ref_outs, outs))


def vp_counts(stdout):
    return {m: int(b) for m, b in re.findall(r"^  (\w+) +(\d+) bytes x \S+ = \d+$", stdout, re.M)}


def test_cascades_and_placement(tmp_path):
    """The placement spills layer by layer: cascades towards the SRAM's size
    are tried and kept when the access cost they save exceeds their
    modelled overhead. 32 KiB: everything in SRAM; 16 KiB: cascades and a
    split (whole tensors spilled); bit-exact either way."""
    lbl = report(VWW, "--no-cascade")["placement"]["access_cost"]
    rep = report(VWW)
    assert rep["cascades"] and rep["arenas"][1]["size"] == 0 and rep["arenas"][1]["buffers"] == 0, rep["arenas"]
    assert rep["placement"]["access_cost"] == rep["placement"]["access_all_cheapest"] < lbl
    assert re.fullmatch(r"layer by layer the placement spills \(access cost %d\); with cascades \d+ \+ \d+ cycles of "
                        r"modelled overhead: cascades kept" % lbl, rep["placement"]["cascades"]), rep["placement"]
    rep16 = report(VWW, "-D", "sram_kib=16")
    mems = {b["memory"] for b in rep16["buffers"] if b["storage"] == "arena"}
    assert rep16["cascades"] and mems == {"SRAM", "PSRAM"}
    banded = {b["tensor"] for c in rep16["cascades"] for b in c["buffers"]}
    # band buffers: the most bytes read+written per byte of buffer, all in SRAM
    assert {b["memory"] for b in rep16["buffers"] if b["tensor"] in banded} == {"SRAM"}
    assert rep16["placement"]["access_cost"] < report(VWW, "-D", "sram_kib=16", "--no-cascade")["placement"]["access_cost"]
    info = oracle.ModelInfo(VWW)
    for k, (args, r) in enumerate((((), rep), (("-D", "sram_kib=16"), rep16))):
        inputs = info.random_inputs(32_000 + k)
        (tmp_path / str(k)).mkdir()
        outs, dumps, stdout = oracle.run_htc(VWW, inputs, target=PSRAM, workdir=str(tmp_path / str(k)), args=list(args))
        ref_outs, ref_tensors = oracle.run_interpreter(VWW, inputs)
        assert all(oracle.diff(e, g) is None for e, g in zip(ref_outs, outs))
        bands = {b["tensor"] for c in r["cascades"] for b in c["buffers"]}
        n = 0
        for t, op in info.op_outputs():
            if t in bands:
                continue
            assert oracle.diff(ref_tensors[t], dumps[t]) is None, t
            n += 1
        assert n == len(info.op_outputs()) - len(bands) > 0
        assert vp_counts(stdout) == {a["memory"]: a["accessed_bytes"] for a in r["arenas"]}, stdout


def test_one_memory_unchanged():
    """-D psram_kib=0 lists one memory: the one-arena plan of targets/cpu.lua."""
    a = report(VWW, "-D", "psram_kib=0", "-D", "sram_kib=512")
    b = report(VWW, target=oracle.TARGET)
    assert "arenas" not in a and a["arena_bytes"] == b["arena_bytes"]


def small_model(path):
    """a = conv(x) is read by b = conv(a), c = conv(a) and cat = concat(a, b, c)
    (channels, not in place); cat feeds the output conv. 512-byte a, b, c,
    1536-byte cat. Live: {a}, {a,b}, {a,b,c}, {a,b,c,cat}, {cat}.
    Bytes read+written: a 4 x 512, b and c 2 x 512, cat 2 x 1536.
    With 2 KiB SRAM (cost 1) the layer of cat needs 3072 bytes: spill b and
    c (1024 + 1024 bytes accessed, 3 more each) or cat (3072) or a with one
    of b, c. The optimum spills b and c: cost 2048 + 3072 + 4 x 2048 = 13312;
    greedy by accesses per byte keeps a, b, c (cat comes last) and spills
    cat: 4096 + 4 x 3072 = 16384."""
    rng = np.random.default_rng(5)
    m = tb.Model()
    x = m.input([1, 8, 8, 8], scale=0.05, zp=0)
    a = m.conv2d(x, out_ch=8, kernel=1, rng=rng, out_scale=0.1)
    b = m.conv2d(a, out_ch=8, kernel=1, rng=rng, out_scale=0.1)
    c = m.conv2d(a, out_ch=8, kernel=1, rng=rng, out_scale=0.1)
    cat = m.concat([a, b, c], axis=3)
    y = m.conv2d(cat, out_ch=4, kernel=1, rng=rng)
    m.output(y)
    m.save(path)


def model_accesses(info):
    """bytes read+written per arena tensor, from the model itself: each op
    reads each input and writes each output once (graph inputs, outputs
    and constants are not arena buffers)."""
    acc = {}
    outside = set(info.inputs) | set(info.outputs)
    for op in info.ops:
        for t in list(op["inputs"]) + list(op["outputs"]):
            if t < 0 or t in outside or info.tensors[t]["const"]:
                continue
            acc[t] = acc.get(t, 0) + int(np.prod(info.tensors[t]["shape"])) * info.tensors[t]["dtype"].itemsize
    return acc


def test_small_model_optimum(tmp_path):
    path = str(tmp_path / "branch.tflite")
    small_model(path)
    info = oracle.ModelInfo(path)
    rep = report(path, "-D", "sram_kib=2", "--no-cascade")
    bufs = {b["tensor"]: b for b in rep["buffers"] if b["storage"] == "arena"}
    acc = model_accesses(info)
    assert {t: b["accessed_bytes"] for t, b in bufs.items()} == acc
    # every assignment: the least cost whose live bytes fit 2 KiB at each layer
    cost = {"SRAM": 1, "PSRAM": 4}
    ts = sorted(bufs)
    best = None
    for mems in itertools.product(("SRAM", "PSRAM"), repeat=len(ts)):
        fits = all(sum(bufs[t]["buffer_bytes"] for t, m in zip(ts, mems)
                       if m == "SRAM" and bufs[t]["first"] <= s <= bufs[t]["last"]) <= 2048
                   for s in range(len(rep["layers"])))
        c = sum(acc[t] * cost[m] for t, m in zip(ts, mems))
        if fits and (best is None or c < best):
            best = c
    assert best == 13312 and rep["placement"]["access_cost"] == best, rep["placement"]
    sizes = sorted((bufs[t]["buffer_bytes"], bufs[t]["memory"]) for t in ts)
    assert sizes == [(512, "PSRAM"), (512, "PSRAM"), (512, "SRAM"), (1536, "SRAM")], sizes
    hot = max(ts, key=lambda t: acc[t] / bufs[t]["buffer_bytes"])     # a: 4 accesses per byte
    assert acc[hot] == 2048 and bufs[hot]["memory"] == "SRAM"
    # and the header runs it bit-exactly
    inputs = info.random_inputs(3)
    (tmp_path / "run").mkdir()
    outs, dumps, _ = oracle.run_htc(path, inputs, target=PSRAM, workdir=str(tmp_path / "run"), args=["-D", "sram_kib=2", "--no-cascade"])
    ref_outs, ref_tensors = oracle.run_interpreter(path, inputs)
    errors, n = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
    assert not errors and n == len(info.op_outputs()), errors


BASE = """local m4 = include "cpus/cortex-m4.lua"
return target "bad" {
  clock_mhz = 100,
  memory = {
    SRAM = { size = 4096, cost = 1 },
    PSRAM = { size = 1048576, COST },
    other = { size = 65536 },
  },
  cpu = m4 {
    name = "cpu",
    memory = LIST,
    requant = { "tflite" },
  },
}
"""
BAD = {
    "negative cost": ("cost = -1", '{ "SRAM", "PSRAM" }', 6, r"memory\.PSRAM\.cost: must be in \[1e-06, 1000000\], got -1"),
    "cost not a number": ('cost = "x"', '{ "SRAM", "PSRAM" }', 6, r"memory\.PSRAM\.cost: expected a number, got string"),
    "unknown memory": ("cost = 4", '{ "SRAM", "NOPE" }', 11, r"cpu\.memory: entry 2: no memory named 'NOPE' in the memory table"),
    "twice": ("cost = 4", '{ "SRAM", "SRAM" }', 11, r"cpu\.memory: entry 2: memory 'SRAM' is listed twice"),
    "empty": ("cost = 4", "{}", 11, r"cpu\.memory: expected a memory name or a list of names"),
    "not a list": ("cost = 4", "{ fast = \"SRAM\" }", 11, r"cpu\.memory: expected a memory name or a list of names"),
    "not a name": ("cost = 4", '{ "SRAM", 7 }', 11, r"cpu\.memory: entry 2: expected a memory name, got number"),
    "unknown field": ("speed = 4", '{ "SRAM", "PSRAM" }', 6, r"memory\.PSRAM\.speed: unknown field \(expected one of: size, alignment, dma, cost, energy, banks\)"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_memories(tmp_path, case):
    cost, lst, line, msg = BAD[case]
    tgt = tmp_path / "bad.lua"
    tgt.write_text(BASE.replace("COST", cost).replace("LIST", lst))
    r = oracle.htc("report", VWW, "-t", str(tgt), check=False)
    assert r.returncode == 1 and not r.stdout, r
    assert re.fullmatch(r"htc: error: %s:%d: %s[^\n]*\n" % (re.escape(str(tgt)), line, msg), r.stderr), r.stderr


def test_bad_memory_names(tmp_path):
    """arena macros are named after the memories: C identifiers, distinct
    once upper-cased; and an accelerator names one memory."""
    src = BASE.replace("COST", "cost = 4")
    cases = [
        (src.replace("other =", '["o-ther"] =').replace("LIST", '{ "SRAM", "o-ther" }'), 11,
         r"cpu\.memory: entry 2: 'o-ther' is not a C identifier \(the header names its arena after it\)"),
        (src.replace("other =", "sram =").replace("LIST", '{ "SRAM", "sram" }'), 11,
         r"cpu\.memory: entries 1 and 2: 'SRAM' and 'sram' give the same arena macro once upper-cased"),
    ]
    for text, line, msg in cases:
        tgt = tmp_path / "bad.lua"
        tgt.write_text(text)
        r = oracle.htc("report", VWW, "-t", str(tgt), check=False)
        assert r.returncode == 1 and re.fullmatch(r"htc: error: %s:%d: %s\n" % (re.escape(str(tgt)), line, msg),
                                                  r.stderr), r.stderr


def test_too_small(tmp_path):
    """when the memories together cannot hold the buffers, cascades are tried;
    below what they reach, the error names the arena and memory."""
    r = oracle.htc("report", VWW, "-t", PSRAM, "-D", "sram_kib=4", "-D", "psram_kib=4", check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert re.fullmatch(r"htc: error: .*vww_96_int8\.tflite: the arenas need \d+ bytes in all; the one in memory \w+ needs "
                        r"\d+ bytes but \w+ of target 'mcu-psram' has 4096: -D \w+_kib=\d+ at least \(the split over "
                        r"the memories moves with their sizes\)\n", r.stderr), r.stderr


def test_too_small_hint():
    """Several arenas: the memories' split moves with their sizes, so the
    hint is the least the short memory must grow to, said as such; the
    memory given that much is no longer the short one."""
    r = oracle.htc("report", VWW, "-t", PSRAM, "-D", "sram_kib=4", "-D", "psram_kib=32", check=False)
    m = re.fullmatch(r"htc: error: .*: the arenas need \d+ bytes in all; the one in memory PSRAM needs (\d+) bytes but "
                     r"PSRAM of target 'mcu-psram' has 32768: -D psram_kib=(\d+) at least \(the split over the "
                     r"memories moves with their sizes\)\n", r.stderr)
    assert r.returncode == 1 and m, r.stderr
    assert int(m.group(2)) == (int(m.group(1)) + 1023) // 1024


DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include "vww.h"
static int8_t in[VWW_INPUT_SIZE], out[VWW_OUTPUT_SIZE];
#ifdef __cplusplus
alignas(16)
#endif
static uint8_t sram[VWW_ARENA_SRAM_SIZE] __attribute__((aligned(VWW_ARENA_SRAM_ALIGN)));
static uint8_t psram[VWW_ARENA_PSRAM_SIZE] __attribute__((aligned(VWW_ARENA_PSRAM_ALIGN)));
int main(void)
{
    int rc = vww_run(in, out, sram, psram);
    printf("%d %d %d %d\n", rc, VWW_ARENAS, (int)out[0], (int)out[1]);
    return rc != 0 || VWW_ARENAS != 2 || VWW_ARENA_SIZE != VWW_ARENA_SRAM_SIZE + VWW_ARENA_PSRAM_SIZE;
}
"""


def test_header_compiles(tmp_path):
    hdr = tmp_path / "vww.h"
    oracle.htc("compile", VWW, "-t", PSRAM, "-o", str(hdr), "--name", "vww")
    text = hdr.read_text()
    assert "int vww_run(const void *input, void *output, void *arena_SRAM, void *arena_PSRAM);" in text
    assert re.search(r"static uint8_t arena_SRAM\[VWW_ARENA_SRAM_SIZE\]", text)
    impl = tmp_path / "impl.c"
    impl.write_text('#define VWW_IMPLEMENTATION\n#include "vww.h"\n')
    main = tmp_path / "main.c"
    main.write_text(DRIVER)
    outs = []
    for cc, std, ext in ((oracle.CC, "-std=c99", "c"), (CXX, "-std=c++11", "cc")):
        src_impl, src_main = tmp_path / ("impl." + ext), tmp_path / ("main." + ext)
        src_impl.write_text(impl.read_text())
        src_main.write_text(main.read_text())
        exe = tmp_path / ("run_" + ext)
        c = subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-gnu-alignof-expression", "-O1",
                            "-I", str(tmp_path), "-o", str(exe), str(src_impl), str(src_main)],
                           capture_output=True, text=True)
        assert c.returncode == 0, c.stderr[-3000:]
        r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    # the same output as the interpreter for the zero input
    ref, _ = oracle.run_interpreter(VWW, [np.zeros((1, 96, 96, 3), np.int8)])
    assert outs[0].split()[2:] == [str(int(v)) for v in ref[0].ravel()]


def test_svg_arenas(tmp_path):
    """--svg stacks the arenas: each buffer drawn inside its own memory's band."""
    svg = tmp_path / "p.svg"
    oracle.htc("report", VWW, "-t", PSRAM, "--no-cascade", "--svg", str(svg))
    text = svg.read_text()
    line = re.findall(r'<line class="arena" x1="[\d.]+" y1="([\d.]+)"[^>]*/><text[^>]*>(\w+)</text>', text)
    assert [m for _, m in line] == ["PSRAM"]
    split = float(line[0][0])
    rects = re.findall(r'<g class="buffer" data-tensor="\d+"><rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" '
                       r'height="([\d.]+)"[^>]*><title>[^<]* in (\w+), live', text)
    assert len(rects) == 29 and {m for _, _, m in rects} == {"SRAM", "PSRAM"}
    for y, h, m in rects:
        y, h = float(y), float(h)
        assert (y + h <= split + 0.1) if m == "SRAM" else (y >= split - 0.1), (y, h, m)


def test_verify(tmp_path):
    """htc verify links the split arenas' header with the CPU reference: every
    layer equal; with cascades (-D sram_kib=16) the band tensors, which the
    target never holds whole, are left out of the comparison."""
    for defs, cmp in ((["-D", "psram_cost=1"], 31), (["-D", "sram_kib=16"], 25)):
        r = oracle.htc("verify", VWW, "-t", PSRAM, *defs, "-n", "2", "--keep", str(tmp_path / defs[1]))
        assert r.stdout.endswith("verify: 2 passed, 0 failed\n"), r.stdout
        assert r.stdout.count("every layer equal (%d tensors compared)" % cmp) == 2, r.stdout
    rep = report(VWW, "-D", "psram_cost=1")
    assert not rep["cascades"] and all(a["buffers"] for a in rep["arenas"]), rep["arenas"]


def test_cluster_split(tmp_path):
    """A cluster CPU (targets/siracusa.lua's 8 cores and L1 tiles) with its
    data in two memories: 32 KiB of L2 and an L3 at cost 4; the forked layers
    reach both arenas through their context. Bit-exact with the interpreter."""
    src = open(os.path.join(oracle.REPO, "targets", "siracusa.lua")).read()
    src, n1 = re.subn(r"    L2 = \{ size = L2_KIB \* KiB, alignment = 16,[^\n]*\},",
                      "    L2 = { size = 32 * KiB, alignment = 16 },\n    L3 = { size = 8192 * KiB, alignment = 16, cost = 4 },", src)
    src, n2 = re.subn(r'    memory = ARENA_PLAN,\n    cores = CORES,', '    memory = { "L2", "L3" },\n    cores = CORES,', src)
    assert n1 == n2 == 1
    tgt = tmp_path / "sir2.lua"
    tgt.write_text(src)
    rep = report(VWW, "--no-cascade", target=str(tgt))
    assert [a["memory"] for a in rep["arenas"]] == ["L2", "L3"] and all(a["buffers"] for a in rep["arenas"])
    assert any(l.get("cores", 1) > 1 for l in rep["layers"])
    info = oracle.ModelInfo(VWW)
    inputs = info.random_inputs(33_000)
    (tmp_path / "run").mkdir()
    outs, _, _ = oracle.run_htc(VWW, inputs, dump=False, target=str(tgt), workdir=str(tmp_path / "run"),
                                args=["--no-cascade"])
    ref_outs, _ = oracle.run_interpreter(VWW, inputs)
    assert all(oracle.diff(e, g) is None for e, g in zip(ref_outs, outs))


def test_state_split(tmp_path):
    """An LSTM's variable tensors (reset by name_reset, which then takes every
    arena) and scratch split across 1 KiB of SRAM and PSRAM: the sequence and
    the final states bit-exact with TFLite Micro."""
    import test_rnn
    m, states = test_rnn.lstm_model(np.random.default_rng(3), batch=2, steps=8, in_dim=32, state=96)
    path = m.save(str(tmp_path / "lstm.tflite"))
    rep = report(path, "-D", "sram_kib=1")
    mem = {b["name"]: b["memory"] for b in rep["buffers"] if b["storage"] == "arena"}
    assert set(mem.values()) == {"SRAM", "PSRAM"}, mem
    info = oracle.ModelInfo(path)
    for s in range(2):
        x = info.random_inputs(40 + s)
        (tmp_path / str(s)).mkdir()
        outs, dumps, _ = oracle.run_htc(path, x, target=PSRAM, workdir=str(tmp_path / str(s)), args=["-D", "sram_kib=1"])
        ref_outs, ref = test_rnn.tflm_states(path, x[0], states)
        errors, compared = oracle.compare_run(info, ref_outs, ref, outs, dumps)
        assert not errors and compared == 1, errors
        for t in states:
            assert oracle.diff(ref[t], dumps[t]) is None, t


def test_chain_exact(tmp_path):
    """A chain of 300 1x1 convolutions (buffers of 1,024 and 512 bytes) with
    1 KiB of SRAM: two neighbours of 1,536 bytes cannot share it. The MILP
    (with its cover cuts) proves its placement optimal; a dynamic program
    over the chain finds the same cost."""
    rng = np.random.default_rng(1)
    m = tb.Model()
    x = m.input([1, 8, 8, 8], scale=0.05, zp=0)
    for k in range(300):
        x = m.conv2d(x, out_ch=8 if k % 3 else 16, kernel=1, rng=rng, out_scale=0.1)
    m.output(x)
    path = m.save(str(tmp_path / "chain.tflite"))
    rep = report(path, "-D", "sram_kib=1", "--no-cascade")
    assert rep["placement"]["method"].startswith("exact"), rep["placement"]
    bufs = sorted((b for b in rep["buffers"] if b["storage"] == "arena"), key=lambda b: b["first"])
    assert len(bufs) == 299 and all(b["last"] == b["first"] + 1 for b in bufs)
    # DP: best[c] = least cost so far with the last buffer in SRAM (c = 1) or not
    best = {0: 4 * bufs[0]["accessed_bytes"], 1: bufs[0]["accessed_bytes"]}
    for prev, b in zip(bufs, bufs[1:]):
        nb = {}
        for c, cost in ((0, 4), (1, 1)):
            ok = [pc for pc in (0, 1) if not (c and pc and prev["buffer_bytes"] + b["buffer_bytes"] > 1024)]
            nb[c] = min(best[pc] for pc in ok) + cost * b["accessed_bytes"]
        best = nb
    assert rep["placement"]["access_cost"] == min(best.values())
