#!/usr/bin/env python3
"""bench/bench_diana.py - DIANA on the host virtual platform: HTVM's
Table I (CPU only / digital / analog / both, table1 below); the four power-of-two MLPerf Tiny networks (cycles measured by the device
model, ms at 260 MHz, ratio to the ideal), the Fig. 4 L1 sweep (no
heuristics / eq. 3-4 / eq. 3-5) and compile time including all tiling (enumeration / MILPs)."""
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
import ort_oracle as oo  # noqa: E402

DIANA = os.path.join(REPO, "targets", "diana.lua")
DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
static unsigned long long total, per[4096];
#define HTC_DEVICE_LAYER(l, c) (total += (c), per[(l) < 0 ? 4095 : (l)] += (c))
#define M_IMPLEMENTATION
#include "m.h"
int main(void)
{
    static unsigned char in[M_INPUT_SIZE + 1], out[M_OUTPUT_SIZE + 1];
    void *arena = aligned_alloc(64, (M_ARENA_SIZE + 63) / 64 * 64);
    if (m_run(in, out, arena)) return 1;
    {
        int i;
        printf("%llu\n", total);
        for (i = 0; i < 4095; i++)
            if (per[i]) printf("%d %llu\n", i, per[i]);
    }
    return 0;
}
"""


def measure(model, target, tmp, layers=None, args=()):
    """measured cycles of the whole network, or of the given layer indices;
    args: more htc options (-D target parameters)"""
    subprocess.run([oo.HTC, "compile", model, "-t", target, "-o", os.path.join(tmp, "m.h"), "--name", "m"] + list(args),
                   check=True, capture_output=True)
    open(os.path.join(tmp, "d.c"), "w").write(DRIVER)
    subprocess.run(["cc", "-O2", "-o", os.path.join(tmp, "d"), os.path.join(tmp, "d.c"), "-I", tmp], check=True)
    out = subprocess.run([os.path.join(tmp, "d")], capture_output=True, text=True, check=True).stdout.split("\n")
    if layers is None:
        return int(out[0])
    return sum(int(l.split()[1]) for l in out[1:] if l and int(l.split()[0]) in layers)


def report(model, target):
    p = subprocess.run([oo.HTC, "report", model, "-t", target, "--json"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


# HTVM paper, Table I: TVM CPU ms; digital peak / HTVM; analog peak / HTVM; both
PAPER = {"kws": ("48.24", "1.70 / 1.75", "13.51 / 13.51", "1.66", "59 / 60 / 93 / 81"),
         "vww": ("OoM", "5.42 / 5.68", "40.67 / 40.67", "5.39", "289 / 306 / 239 / 292"),
         "resnet": ("134.11", "0.66 / 1.19", "1.52 / 1.53", "0.61", "122 / 107 / 129 / 107"),
         "ad": ("4.70", "0.30 / 0.36", "0.80 / 0.80", "0.49", "287 / 315 / 171 / 274")}
MAIN = "#define M_IMPLEMENTATION\n#include \"m.h\"\nint main(void) { static unsigned char a[M_ARENA_SIZE]" \
       " __attribute__((aligned(64))), i[M_INPUT_SIZE], o[M_OUTPUT_SIZE]; return m_run(i, o, a); }\n"


def rv32_kb(tmp):
    """code + constants (text + data) of the RV32 object of m.h with a
    minimal main, in kB; the device model's simulated memories are bss"""
    open(os.path.join(tmp, "main.c"), "w").write(MAIN)
    obj = os.path.join(tmp, "main.o")
    subprocess.run(["riscv64-unknown-elf-gcc", "--specs=picolibc.specs", "-march=rv32imc", "-mabi=ilp32", "-O2", "-c",
                    os.path.join(tmp, "main.c"), "-I", tmp, "-o", obj], check=True, capture_output=True)
    out = subprocess.run(["riscv64-unknown-elf-size", obj], capture_output=True, text=True, check=True).stdout
    text, data = out.split("\n")[1].split()[:2]
    return (int(text) + int(data)) / 1000.0


def table1(zoo, tmp):
    """HTVM Table I on the virtual platform: CPU only (the pow2 model,
    cycles from the target's CPU cost model -- not qemu instructions),
    CPU + digital (the pow2 int8 model), CPU + analog and CPU + both (the
    ternary model; both: cost-based dispatch). Latency from the device
    model at 260 MHz, peak = the ideal of `htc report`, sizes of RV32 builds."""
    print("\nTable I (HTVM paper) on the virtual platform: ms at 260 MHz, peak / measured (device model); paper below")
    print("%-7s %10s %17s %17s %17s %s" % ("net", "CPU", "digital", "analog", "both", "RV32 kB cpu/dig/ana/both"))
    cfg = (("none", "pow2qop"), ("digital", "pow2qop"), ("analog", "ternaryqop"), ("both", "ternaryqop"))
    for net in ("kws", "vww", "resnet", "ad"):
        ms, peak, kb = [], [], []
        for engines, kind in cfg:
            model = os.path.join(zoo, "%s_%s_s8.onnx" % (net, kind))
            args = ["-D", "engines=" + engines]
            cyc = measure(model, DIANA, tmp, args=args)
            p = subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + args, capture_output=True, text=True,
                               check=True)
            if engines == "none":       # no device model in a CPU-only build: the same CPU cost model, from the report
                cyc = json.loads(p.stdout)["est_cycles"]
            ms.append(cyc / 260e3)
            peak.append(json.loads(p.stdout).get("ideal_cycles", 0) / 260e3)   # none when nothing is offloaded
            kb.append(rv32_kb(tmp))
        print("%-7s %10.2f %8.2f / %6.2f %8.2f / %6.2f %8.2f / %6.2f %s%s" % (
            net, ms[0], peak[1], ms[1], peak[2], ms[2], peak[3], ms[3], " / ".join("%.0f" % k for k in kb),
            "" if ms[3] <= min(ms[2], ms[1]) else "   (both slower than the better single engine)"))
        pp = PAPER[net]
        print("%-7s %10s %17s %17s %17s %s" % ("  paper", pp[0], pp[1] + " HTVM", pp[2] + " HTVM", pp[3], pp[4]))


def main():
    zoo = oo.ensure_zoo()
    tmp = tempfile.mkdtemp()
    print("DIANA digital (virtual platform), power-of-two MLPerf Tiny models")
    print("%-8s %12s %9s %12s %7s %10s %8s %12s" % ("net", "cycles", "ms@260", "ideal", "ratio", "est", "tile ms",
                                                    "compile ms"))
    for net in ("kws", "vww", "resnet", "ad"):
        model = os.path.join(zoo, "%s_pow2qop_s8.onnx" % net)
        t0 = time.perf_counter()
        subprocess.run([oo.HTC, "compile", model, "-t", DIANA, "-o", os.path.join(tmp, "c.h")], check=True)
        ct = (time.perf_counter() - t0) * 1e3
        rep = report(model, DIANA)
        cyc = measure(model, DIANA, tmp)
        print("%-8s %12d %9.3f %12.0f %7.2f %10.0f %8.1f %12.1f" % (net, cyc, cyc / 260e3, rep["ideal_cycles"],
              cyc / rep["ideal_cycles"], rep["est_cycles"], rep["tile_ms"], ct))
    table1(zoo, tmp)
    # Fig. 4: one conv layer, L1 budget swept downwards
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from test_tile import conv_model
    model = os.path.join(tmp, "fig4.onnx")
    conv_model(model, 32, 64, 32, 32, 3, 1, False, seed=4)
    conv = [l["index"] for l in report(model, DIANA)["layers"] if l["engine"] == "digital"]
    print("\nFig. 4: conv 32->64, 32x32, 3x3; measured cycles of the conv layer by L1 budget")
    print("%8s %12s %12s %12s %8s" % ("L1 kB", "none", "eq. 3-4", "eq. 3-5", "gain"))
    for kb in (128, 64, 32, 16, 8, 4):
        row = []
        for h in ("none", "3-4", "3-5"):        # the target's parameters, set with -D
            try:
                row.append(measure(model, DIANA, tmp, conv, ["-D", "heuristics=" + h, "-D", "l1_kib=%d" % kb]))
            except subprocess.CalledProcessError:
                row.append(None)
        fmt = lambda v: "%12s" % ("-" if v is None else v)
        gain = "%.2fx" % (row[0] / row[2]) if row[0] and row[2] else "-"
        print("%8d %s %s %s %8s" % (kb, fmt(row[0]), fmt(row[1]), fmt(row[2]), gain))


if __name__ == "__main__":
    main()
