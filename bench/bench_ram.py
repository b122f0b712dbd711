#!/usr/bin/env python3
"""bench_ram.py - `make bench`: RAM below the per-layer bound (issue 25).

Per model: the layer-by-layer lower bound of the arena (the most bytes live
at one layer boundary, which htc's plan reaches), the arena with cascades
(`htc --cascade`: layers run band by band, gen/cascade.c), their ratio, and
the Cortex-M4 instructions per inference of both builds under qemu, counted
by bench/mcu's harness (bench/mcu/Makefile `htc` and `ref-out` with
HTC_FLAGS; the same firmware, flags and TCG plugin as bench_mcu.py). Both
builds' outputs must equal `htc run` on the host byte for byte.

Both builds use targets/cpu.lua with its memory enlarged (a copy in the
build directory), so that the layer-by-layer build of the 224x224
mobilenet_v2 (2.4 MB) exists and the cascades are the ones --cascade
chooses, not the ones the memory size forces.

Environment: BENCH_RAM_MODELS (subset of the names below), BENCH_DIR (keep
the build there), NO_M4=1 (compile-time figures only).
Exit status 1 when a build fails, outputs differ, or a goal of the issue is
missed (arena / bound: VWW <= 0.5, ResNet-8 <= 0.75, mobilenet_v2 <= 0.25;
each at most 1.10x the layer-by-layer instructions)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import bench_mcu  # noqa: E402  (parse_log: the harness's log format)

MLPERF = os.path.abspath(os.environ.get("HTC_MODELS") or os.path.join(REPO, "..", "shared", "models", "mlperf_tiny"))
EXTRA = os.path.abspath(os.path.join(REPO, "..", "shared", "models", "extra"))
# name -> (file, input seed, goal for arena / bound or None)
MODELS = {
    "kws": (os.path.join(MLPERF, "kws_ref_model.tflite"), "0x6b77", None),
    "vww": (os.path.join(MLPERF, "vww_96_int8.tflite"), "0x767777", 0.5),
    "ic": (os.path.join(MLPERF, "pretrainedResnet_quant.tflite"), "0x6963", 0.75),
    "ad": (os.path.join(MLPERF, "ad01_int8.tflite"), "0x6164", None),
    "mbv2": (os.path.join(EXTRA, "mobilenet_v2_quantized_1x3x224x224.tflite"), "0x6d62", 0.25),
}
TITLE = {"kws": "KWS", "vww": "VWW", "ic": "ResNet-8", "ad": "AD", "mbv2": "mobilenet_v2 224"}
MAX_INSN_RATIO = 1.10


def big_target(bdir):
    """targets/cpu.lua with a 64 MiB activation memory"""
    src = open(os.path.join(REPO, "targets", "cpu.lua")).read()
    out, n = re.subn(r"(L2\s*=\s*\{\s*size\s*=\s*)[^,]*,", r"\g<1>64 * 1024 * 1024,", src, count=1)
    if n != 1:
        sys.exit("bench_ram: cannot find the L2 size in targets/cpu.lua")
    p = os.path.join(bdir, "cpu_big.lua")
    with open(p, "w") as f:
        f.write(out)
    return p


def report(htc, model, target, *flags):
    r = subprocess.run([htc, "report", model, "-t", target, "--json"] + list(flags), capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench_ram: htc report failed: " + r.stderr.strip())
    return json.loads(r.stdout)


def m4_counts(htc, target, names, bdir, flags):
    """instructions per inference (2nd marked run), output hex of the
    firmware and of the host oracle, per model"""
    mk = ["make", "-k", "-s", "-f", os.path.join(HERE, "mcu", "Makefile"), "-j2", "ARCH=m4", "B=" + bdir,
          "MODELS=" + MLPERF, "EXTRA=" + EXTRA,
          "HTC_HOME=" + REPO, "HTC=" + htc, "HTC_TARGET=" + target, "HTC_FLAGS=" + flags, "NRUNS=1", "KEEP_LOG=1",
          "M=" + " ".join(names)]
    for n in names:
        mk += ["FILE_%s=%s" % (n, MODELS[n][0]), "SEED_%s=%s" % (n, MODELS[n][1])]
    r = subprocess.run(mk + ["ref-out", "htc"], capture_output=True, text=True)
    res = {}
    for n in names:
        log = os.path.join(bdir, "m4", "htc", n + ".log")
        x = bench_mcu.parse_log(log, n) if os.path.exists(log) else None
        ref = os.path.join(bdir, "ref", n + ".out.hex")
        res[n] = (x, open(ref).read().strip() if os.path.exists(ref) else None)
    if r.returncode:
        print("bench_ram: the harness reported errors:\n  " + "\n  ".join((r.stdout + r.stderr).splitlines()[-15:]))
    return res


# SRAM of targets/mcu-psram.lua per model for the placement figures (KiB)
SRAM_KIB = {"kws": 32, "vww": 32, "ic": 32, "ad": 32, "mbv2": 256}


def placement(htc, names):
    """Several data memories (targets/mcu-psram.lua: SRAM at cost 1 per byte,
    PSRAM at 4): the modelled access cost (bytes read+written x cost) of
    TFLite Micro's one arena (in SRAM when it fits, else all in PSRAM),
    of htc's exact placement layer by layer (--no-cascade) and of htc's
    default (cascades kept when they save more than their overhead), and
    the bound: everything in SRAM. Compile-time figures of the model, not
    measurements; htc run counts the same bytes by address (tests/test_place.py)."""
    tgt = os.path.join(REPO, "targets", "mcu-psram.lua")
    print("\nbench_ram: placement across SRAM (cost 1/byte) + PSRAM (cost 4/byte), targets/mcu-psram.lua; modelled "
          "access cost = bytes read+written x cost")
    print("%-17s %6s %10s %14s %14s %14s %14s %7s" % ("model", "SRAM", "arena", "one arena", "htc no-casc.",
                                                      "htc (+casc.)", "all in SRAM", "ratio"))
    ok = True
    for n in names:
        kib = SRAM_KIB[n]
        d = ["-D", "sram_kib=%d" % kib]
        one, split, best = (report(htc, MODELS[n][0], tgt, "--no-cascade", "-D", "psram_kib=0", "-D", "sram_kib=4096"),
                            report(htc, MODELS[n][0], tgt, *d, "--no-cascade"), report(htc, MODELS[n][0], tgt, *d))
        acc = sum(a["accessed_bytes"] for a in split.get("arenas", [])) or None
        if acc is None:         # one arena: every buffer in SRAM
            print("%-17s %5dK %10d  fits SRAM: one arena" % (TITLE[n], kib, split["arena_bytes"]))
            continue
        peer = acc * (1 if one["arena_bytes"] <= kib * 1024 else 4)
        over = sum(c["overhead_cycles"] for c in best["cascades"])      # the cascades' modelled cycles count too
        c1, c2 = split["placement"]["access_cost"], best["placement"]["access_cost"] + over
        bound = best["placement"]["access_all_cheapest"]
        print("%-17s %5dK %10d %14s %14s %14s %14s %7.3f" % (TITLE[n], kib, one["arena_bytes"], "{:,}".format(peer),
                                                          "{:,}".format(int(c1)), "{:,}".format(int(c2)),
                                                          "{:,}".format(int(bound)), c2 / peer))
        ok &= c2 <= c1 <= peer and split["placement"]["method"].startswith("exact")
    print("one arena = TFLite Micro's (all in PSRAM when it exceeds the SRAM); htc (+casc.) = access cost plus the "
          "cascades' modelled overhead cycles; ratio = htc / one arena")
    return ok


def main():
    htc = os.path.abspath(os.environ.get("HTC") or os.path.join(REPO, "htc"))
    names = (os.environ.get("BENCH_RAM_MODELS") or " ".join(MODELS)).split()
    bad = [n for n in names if n not in MODELS]
    if bad:
        sys.exit("bench_ram: unknown models %s (known: %s)" % (bad, " ".join(MODELS)))
    names = [n for n in names if os.path.exists(MODELS[n][0])]
    own = not os.environ.get("BENCH_DIR")
    bdir = os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="htc-bench-ram-")
    os.makedirs(bdir, exist_ok=True)
    ok = True
    try:
        tgt = big_target(bdir)
        print("bench_ram: arena below the per-layer bound (htc --cascade; targets/cpu.lua, memory enlarged)")
        comp = {}
        for n in names:
            lbl, cas = report(htc, MODELS[n][0], tgt), report(htc, MODELS[n][0], tgt, "--cascade")
            comp[n] = (lbl["arena_lower_bound"], lbl["arena_bytes"], cas["arena_bytes"], cas["cascades"])
        m4 = None
        if not os.environ.get("NO_M4"):
            miss = bench_mcu.missing_tools("m4")
            if miss:
                print("bench_ram: no Cortex-M4 counts: missing %s" % ", ".join(miss))
            else:
                m4 = (m4_counts(htc, tgt, names, os.path.join(bdir, "lbl"), ""),
                      m4_counts(htc, tgt, names, os.path.join(bdir, "cas"), "--cascade"))
        print("%-17s %12s %12s %7s %9s %14s %14s %7s  %s" % ("model", "per-layer", "cascaded", "ratio", "cascades",
                                                          "M4 layer-by-l.", "M4 cascaded", "ratio", "goal"))
        for n in names:
            bound, arena, cas, cs = comp[n]
            ratio = cas / bound if bound else 1.0
            goal = MODELS[n][2]
            line = "%-17s %12d %12d %7.3f %9d" % (TITLE[n], bound, cas, ratio, len(cs))
            verdict = []
            if goal is not None:
                verdict.append("arena/bound %.3f <= %.2f %s" % (ratio, goal, "ok" if ratio <= goal else "MISSED"))
                ok &= ratio <= goal
            if m4:
                (a, ra), (b, rb) = m4[0][n], m4[1][n]
                if not a or not b or a["insn"] is None or b["insn"] is None or a["exit"] or b["exit"]:
                    line += " %14s %14s %7s" % ("failed", "failed", "-")
                    ok = False
                else:
                    same = a["out"] == b["out"] == ra == rb and ra
                    r = b["insn"] / a["insn"]
                    line += " %14s %14s %7.3f" % ("{:,}".format(a["insn"]), "{:,}".format(b["insn"]), r)
                    verdict.append("instructions %.3fx <= %.2fx %s" % (r, MAX_INSN_RATIO,
                                                                     "ok" if r <= MAX_INSN_RATIO else "MISSED"))
                    verdict.append("outputs equal htc run" if same else "OUTPUTS DIFFER")
                    ok &= bool(same) and (goal is None or r <= MAX_INSN_RATIO)
            print(line + "  " + "; ".join(verdict))
        print("ratio = cascaded arena / layer-by-layer lower bound; M4 = Cortex-M4 instructions per inference "
              "(qemu, bench/mcu harness)")
        ok &= placement(htc, names)
    finally:
        if own:
            shutil.rmtree(bdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
