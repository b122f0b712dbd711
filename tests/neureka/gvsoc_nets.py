#!/usr/bin/env python3
"""gvsoc_nets.py - Deeploy's networks (../shared/deeploy-tests) compiled for
targets/siracusa.lua and run on GVSoC's Siracusa (an installed GVSoC, never
built here) with examples/siracusa/netrun.c: -D engines=cluster, neureka and
both; each output compared with `htc run` of the same header on the host
(tests/test_neureka.py checks the host against Deeploy's outputs.npz) and
with Deeploy's golden bytes; per layer and in total the cluster cycles
(mcycle of core 0 around each layer: N-EUREKA driven through its registers
from core 0, the cluster layers forked to 8 cores).

Usage: GVSOC=DIR tests/neureka/gvsoc_nets.py [NET ...]
  NETS default: Kernel_Integer_Conv_DW_2D_RQ miniMobileNet MLPerf_KeywordSpotting
  ENGINES (default "cluster neureka both"), CORES (default 8)
Exit 0 when every run equals htc run and Deeploy's goldens."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HTC = os.path.join(TOP, "htc")
TARGET = os.path.join(TOP, "targets", "siracusa.lua")
SIR = os.path.join(TOP, "examples", "siracusa")
TESTS = os.environ.get("HTC_DEEPLOY") or os.path.join(TOP, "..", "shared", "deeploy-tests")
NETS = ["Kernel_Integer_Conv_DW_2D_RQ", "miniMobileNet", "MLPerf_KeywordSpotting"]
# the firmware's memories per network (default: mem=l1, l1_kib=64, sir-l1.ld
# linked when it fits, else sir-l2.ld): CCT_Int_ICCT's arena (72 KiB) and
# weights (232 KiB) do not fit Siracusa's 256 KiB of L1 together: its
# weights in L2 (mem=l2, sir-l2.ld), its arena in 128 KiB of L1 (engines=
# cluster: the plan's L1; with N-EUREKA l1_kib is the 64 KiB of its tiles,
# netrun.c's SIR_NEU_L1_SIZE, and the arena is planned apart)
NET_MEM = {"CCT_Int_ICCT": ("l2", 128)}


def mem_flags(net, engines="cluster"):
    """the flags of htc's memories for `net` (htc run, compile, report)"""
    mem, kib = NET_MEM.get(net, ("l1", 64))
    return ["-D", "l1_kib=%d" % (kib if engines == "cluster" else 64), "-D", "mem=" + mem]


def carr(name, b):
    body = ",".join(str(x) for x in b)
    return "static const uint8_t %s[%d] = {%s};\n" % (name, len(b), body)


def run_net(net, engines, cores, tmp, gvsoc):
    d = os.path.join(TESTS, net)
    model, inputs = os.path.join(d, "network.onnx"), os.path.join(d, "inputs.npz")
    # mem=l1: what netrun.c runs (the arena in L1, the cluster's layers
    # without L1 tiles; the weights in L1 unless only sir-l2.ld links);
    # mem=l2 (NET_MEM): the weights in L2, sir-l2.ld
    flags = ["-t", TARGET, "-D", "engines=" + engines, "-D", "cores=%d" % cores] + mem_flags(net, engines)
    w = os.path.join(tmp, "%s-%s" % (net, engines))
    os.makedirs(w, exist_ok=True)
    keep = os.path.join(w, "keep")
    r = subprocess.run([HTC, "run", model] + flags + ["--input", inputs, "--output", os.path.join(w, "out.bin"),
                                                      "--keep", keep], capture_output=True, text=True)
    if r.returncode:
        return None, "htc run failed: " + r.stderr[-500:]
    host = open(os.path.join(w, "out.bin"), "rb").read()
    # net_run's input: the inputs' bytes one after the other (in0.bin,
    # in1.bin, ...: MatMul_Regular_RQ's two)
    inp, i = b"", 0
    while os.path.exists(os.path.join(keep, "in%d.bin" % i)):
        inp += open(os.path.join(keep, "in%d.bin" % i), "rb").read()
        i += 1
    want = np.load(os.path.join(d, "outputs.npz"))
    gold = want[want.files[0]].astype(np.int64).ravel()
    # the output's bytes as int8, uint8 or (4 bytes an element: an int32
    # output, e.g. Add_Regular's, Hardswish_Regular's) int32
    views = [np.int8, np.uint8] + ([np.int32] if len(host) == 4 * gold.size else [])
    deeploy_ok = len(want.files) == 1 and any(
        np.array_equal(np.frombuffer(host, t).astype(np.int64), gold) for t in views)
    r = subprocess.run([HTC, "compile", model] + flags + ["--input", inputs, "-o", os.path.join(w, "net.h"),
                                                          "--name", "net"], capture_output=True, text=True)
    if r.returncode:
        return None, "htc compile failed: " + r.stderr[-500:]
    with open(os.path.join(w, "net_io.h"), "w") as f:
        f.write(carr("NET_IN", inp) + carr("NET_WANT", host))
    rep = subprocess.run([HTC, "report", model] + flags + ["--input", inputs], capture_output=True, text=True).stdout
    elf = os.path.join(w, "net.elf")
    for mem in ("l1", "l2") if NET_MEM.get(net, ("l1",))[0] == "l1" else ("l2",):
        cc = ["riscv64-unknown-elf-gcc", "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "--specs=picolibc.specs",
              "-DSIR_CORES=%d" % cores, "-DHTC_XPULPV2", "-DSIR_NEUREKA", "-I" + SIR, "-I" + w, "-O2", "-std=c99",
              "-o", elf, os.path.join(SIR, "netrun.c"), os.path.join(SIR, "crt0.S"), os.path.join(SIR, "siracusa.c"),
              "-nostartfiles", "-L" + SIR, "-T", "sir-%s.ld" % mem, "-Wl,--gc-sections,--no-warn-rwx-segments"]
        r = subprocess.run(cc, capture_output=True, text=True)
        if r.returncode == 0:
            break
    if r.returncode:
        return None, "build failed: " + r.stderr[-800:]
    r = subprocess.run([os.path.join(SIR, "run.sh"), elf, os.path.join(w, "gv")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=dict(os.environ, GVSOC=gvsoc))
    m = re.search(r"prof: total (\d+) cycles", r.stdout)
    layers = {int(a): int(b) for a, b in re.findall(r"prof: layer\s+(\d+) (\d+) cycles", r.stdout)}
    eng = {}
    for line in rep.splitlines():
        mm = re.match(r"\s*(\d+)\s+\S+\s+(\w+)\s+(cluster|neureka)\b", line)
        if mm:
            eng[int(mm.group(1))] = (mm.group(2), mm.group(3))
    return dict(ok=r.returncode == 0 and "equal to htc run" in r.stdout, deeploy=deeploy_ok,
                total=int(m.group(1)) if m else None, layers=layers, eng=eng, log=r.stdout[-1500:], mem=mem), None


def main():
    gvsoc = os.environ.get("GVSOC")
    if not gvsoc:
        print("gvsoc_nets: set GVSOC=DIR, the install directory of GVSoC", file=sys.stderr)
        return 2
    nets = sys.argv[1:] or NETS
    engines = os.environ.get("ENGINES", "cluster neureka both").split()
    cores = int(os.environ.get("CORES", "8"))
    ok = True
    with tempfile.TemporaryDirectory(prefix="neu_nets.") as tmp:
        for net in nets:
            res = {}
            for e in engines:
                r, err = run_net(net, e, cores, tmp, gvsoc)
                if err:
                    print("gvsoc_nets: %s engines=%s: %s" % (net, e, err))
                    ok = False
                    continue
                if not (r["ok"] and r["deeploy"]):
                    print("gvsoc_nets: %s engines=%s: GVSoC %s htc run, host %s Deeploy\n%s" % (
                        net, e, "equal to" if r["ok"] else "DIFFERENT from", "equal to" if r["deeploy"] else
                        "DIFFERENT from", r["log"]))
                    ok = False
                res[e] = r
            if not res:
                continue
            print("\n%s on GVSoC's siracusa, %d cores (cluster cycles per layer)" % (net, cores))
            print("layer  op          " + "".join("%22s" % ("engines=" + e) for e in res))
            idx = sorted(set().union(*[set(r["layers"]) for r in res.values()]))
            for i in idx:
                name = next((r["eng"].get(i, ("?", ""))[0] for r in res.values()), "?")
                print("%5d  %-10s  " % (i, name) + "".join(
                    "%14s %-7s" % ("{:,}".format(r["layers"][i]) if i in r["layers"] else "-", r["eng"].get(i, ("", ""))[1])
                    for r in res.values()))
            print("total%13s" % "" + "".join("%14s %-7s" % ("{:,}".format(r["total"]) if r["total"] else "-", "") for r in res.values()))
            print("  outputs: " + ", ".join("%s %s" % (e, "= htc run = Deeploy" if r["ok"] and r["deeploy"] else "MISMATCH")
                                           for e, r in res.items()))
    print("gvsoc_nets: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
