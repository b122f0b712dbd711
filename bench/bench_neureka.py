#!/usr/bin/env python3
"""bench_neureka.py - Siracusa with and without its N-EUREKA engine on GVSoC
(an installed GVSoC, GVSOC=DIR; bench/bench_gvsoc.py runs it after the
MLPerf Tiny models, `make bench`): per network the cluster cycles and ms
with -D engines=cluster (8 cores) and -D engines=both (N-EUREKA for the
layers its estimate wins, driven through its registers), beside Deeploy's
published figures; every output equal to `htc run` and Deeploy's goldens.

  Deeploy's networks (../shared/deeploy-tests): KeywordSpotting,
  miniMobileNet, Conv_DW_2D_RQ (tests/neureka/gvsoc_nets.py's run).
  Per layer the estimate's error against GVSoC and a count of the layers
  within 15%. Net key "kernels" (not in the default list): Deeploy's
  kernel test networks (KERNEL_NETS: Attention, MatMul, GEMM, Softmax,
  RMSNorm, iNoNorm, ReduceMean, Add, Conv, Hardswish, TrueIntegerDiv, and
  CCT_Int_ICCT, a compact convolutional transformer),
  engines=cluster (and both where N-EUREKA takes a layer), the same
  per-layer tables and the layers within 15% over all of them.
  MicroLlama: examples/llama (16 autoregressive steps, KV cache carried),
  cluster cycles per token and tokens/s at the target's clock beside
  Deeploy's 340 tokens/s: cluster-only (constants in L2), with N-EUREKA
  constants in L2 and in L1 (LLAMA_MEM); the results' hashes equal to the
  host's; the cycles of the last step per operator kind.

Environment: GVSOC (required), BENCH_NEUREKA_NETS (default "kws mini dw
llama"), BENCH_NEUREKA_CORES (Deeploy's networks' core counts, default
"8"; e.g. "1 8": the per-layer estimate table at each, the summary table
at 8). Exit 0 when every output matched."""
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HTC = os.path.join(TOP, "htc")
TARGET = os.path.join(TOP, "targets", "siracusa.lua")
# Deeploy's published figures (../shared/seeds/002_*.txt, Siracusa, 8 cores,
# no NPU: DS-CNN 1.4 ms; MicroLlama with N-EUREKA: 340 tokens/s, no clock given)
NETS = [("kws", "MLPerf_KeywordSpotting", "DS-CNN 1.4 ms (8 cores, no NPU)"),
        ("mini", "miniMobileNet", None), ("dw", "Kernel_Integer_Conv_DW_2D_RQ", None)]
# Deeploy's other test networks (net key "kernels", not in the default list):
# one or a few operators each, the estimate's per-layer error on each graph form
KERNEL_NETS = ["Kernel_Integer_Attention", "Kernel_Integer_MatMul_Regular_RQ", "Kernel_Integer_GEMM_Regular_RQPerRow",
               "Kernel_Integer_Softmax_Regular", "Kernel_Integer_RMSNorm", "Kernel_Integer_iNoNorm",
               "Kernel_Integer_ReduceMean", "Kernel_Integer_Add_Regular", "Kernel_Integer_Add_Regular_RQ",
               "Kernel_Integer_Conv_Regular_2D_RQ", "Kernel_Integer_Hardswish_Regular",
               "Kernel_Integer_Hardswish_Regular_RQ", "Kernel_Integer_TrueIntegerDiv", "CCT_Int_ICCT"]
# (CCT_Int_ICCT: its weights in L2 and its arena in 128 KiB of L1, gvsoc_nets.py NET_MEM)
NETS += [("kernels", n, None) for n in KERNEL_NETS]
DEEPLOY_TOKENS_S = 340
# Deeploy's energy: 490 uJ a token (../shared/seeds/002_*.txt, "340 Tokens/sec
# @ 490 uJ/Token"; a measure of the chip)
DEEPLOY_UJ_TOKEN = 490
LLAMA_ONNX = "microLlama_INT8_microLlama1/network.onnx"


def say(*a):
    print(*a, flush=True)


def gvsoc_nets():
    spec = importlib.util.spec_from_file_location("gvsoc_nets", os.path.join(TOP, "tests", "neureka", "gvsoc_nets.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# MicroLlama's memories: "l2" (sir-l2.ld) its constants in L2, the arena and
# KV cache in L1, N-EUREKA's tiles in 64 KiB of L1 (cluster-only: its
# 551,616 bytes of weights do not fit L1); "l1" (sir-l1.ld, engines=both:
# the weights in N-EUREKA's weight memory) the remaining constants too in L1
# (~146 KiB: tables, norm weights, scales), N-EUREKA's tiles in 16 KiB
LLAMA_MEM = {"l2": ("l2", 64), "l1": ("l1", 16)}


def llama(engines, tmp, gvsoc, mem):
    """examples/llama on GVSoC: (cycles per token, result lines, per-layer cycles)"""
    b = os.path.join(tmp, "llama-%s-%s" % (engines, mem))
    ld, l1_kib = LLAMA_MEM[mem]
    r = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "examples", "llama"), "siracusa", "GVSOC=" + gvsoc,
                        "CORES=8", "SIR_MEM=" + ld, "B=" + b,
                        "SIR_XP=-DHTC_XPULPV2 -DSIR_NEUREKA -DPLATFORM_MAX_LAYERS=512 -DSIR_NEU_L1_SIZE=%d" % (l1_kib * 1024),
                        "SIR_HTC_FLAGS=-D cores=8 -D engines=%s -D l1_kib=%d%s" % (engines, l1_kib,
                                                                                 " -D mem=l1" if mem == "l1" else "")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r"llama: \d+ tokens, (\d+) cluster cycles per token", r.stdout)
    results = [l for l in r.stdout.splitlines() if l.startswith("result: ")]
    layers = {int(a): int(c) for a, c in re.findall(r"prof: layer\s+(\d+) \S+\s+(\d+) cycles", r.stdout)}
    return (int(m.group(1)) if m else None), results, layers, r.stdout[-1500:]


def llama_energy(deeploy_dir, engines, l1_kib, layers=None, cycles=None):
    """MicroLlama's uJ a token by targets/siracusa.lua's energy model (GVSoC's
    power models; docs/targets.md, "Energy"): from GVSoC's cycles per layer
    (each layer's fixed energy + its energy a cycle x its cycles, the cycles
    outside every layer at the static power), or from the estimate"""
    rep = subprocess.run([HTC, "report", os.path.join(deeploy_dir, LLAMA_ONNX), "-t", TARGET, "-D", "cores=8",
                          "-D", "engines=" + engines, "-D", "l1_kib=%d" % l1_kib, "--json"], capture_output=True, text=True)
    if rep.returncode:
        return None
    r = json.loads(rep.stdout)
    if layers is None:
        return r["energy"]["uj"]
    pj = sum(L["energy_pj"]["fixed"] + L["energy_pj"]["per_cycle"] * layers.get(L["index"], 0) for L in r["layers"])
    pj += r["energy"]["static_pj_per_cycle"] * max(0, cycles - sum(layers.values()))
    return pj * 1e-6


def energy_line(what, uj):
    say("MicroLlama energy (%s): %s; Deeploy: %d uJ/token (a chip measure)" % (
        what, ", ".join("%s %.1f uJ/token" % (k, v) for k, v in uj if v is not None), DEEPLOY_UJ_TOKEN))


def offloads(net, deeploy_dir):
    """whether -D engines=both gives N-EUREKA a layer of the network"""
    d = os.path.join(deeploy_dir, net)
    r = subprocess.run([HTC, "report", os.path.join(d, "network.onnx"), "-t", TARGET, "-D", "engines=both",
                        "-D", "cores=8"] + gvsoc_nets().mem_flags(net, "both") + ["--input", os.path.join(d, "inputs.npz"),
                        "--json"], capture_output=True, text=True)
    return r.returncode != 0 or any(l["engine"] == "neureka" for l in json.loads(r.stdout)["layers"])


def est_table(net, res, deeploy_dir, cores=8):
    """per layer GVSoC's cycles beside `htc report`'s estimate (the flags
    gvsoc_nets.py builds with: `cores` cores, its mem_flags) for each
    engines setting; the count of layers within 15% and the totals"""
    d = os.path.join(deeploy_dir, net)
    reps = {}
    for e in res:
        r = subprocess.run([HTC, "report", os.path.join(d, "network.onnx"), "-t", TARGET, "-D", "engines=" + e,
                            "-D", "cores=%d" % cores] + gvsoc_nets().mem_flags(net, e) + ["--input", os.path.join(d, "inputs.npz"),
                            "--json"], capture_output=True, text=True)
        if r.returncode:
            say("bench_neureka: %s: htc report failed: %s" % (net, r.stderr[-300:]))
            return
        reps[e] = {l["index"]: l for l in json.loads(r.stdout)["layers"]}
        reps[e]["total"] = json.loads(r.stdout)["est_cycles"]
    say("\n%s: cluster cycles on GVSoC per layer beside the estimate (%d cores)" % (net, cores))
    say("layer  op        " + "".join("%-9s%10s%10s%8s  " % ("", e, "est", "err") for e in res))
    errs = {e: [] for e in res}
    for i in sorted(k for k in reps[next(iter(res))] if k != "total"):
        line = "%5d  %-9s " % (i, reps[next(iter(res))][i]["op"])
        for e, r in res.items():
            lay, c = reps[e].get(i), r["layers"].get(i)
            est = lay["est_cycles"] if lay else None
            line += "%-9s" % (lay["engine"] if lay else "")
            line += "%10s" % ("{:,}".format(c) if c else "no code" if est == 0 else "-")
            line += "%10s" % ("{:,}".format(int(est)) if est is not None else "-")
            if c and est is not None:
                errs[e].append((100.0 * (est - c) / c, i))
                line += "%+7.1f%%  " % errs[e][-1][0]
            else:
                line += "%8s  " % "-"
        say(line)
    out = {}
    for e, r in res.items():
        out[e] = (sum(abs(x) <= 15 for x, _ in errs[e]), len(errs[e]))
        w = max(errs[e], key=lambda x: abs(x[0])) if errs[e] else (0.0, -1)
        say("%s engines=%s cores=%d: estimate within 15%% of GVSoC: %d/%d layers, worst layer %d %+.1f%%; total %s "
            "cycles, estimate %s (%+.1f%%)" % (net, e, cores, sum(abs(x) <= 15 for x, _ in errs[e]), len(errs[e]), w[1], w[0],
                                       "{:,}".format(r["total"]), "{:,}".format(int(reps[e]["total"])),
                                       100.0 * (reps[e]["total"] - r["total"]) / r["total"]))
    return out


def main():
    gvsoc = os.environ.get("GVSOC", "")
    deeploy_dir = os.environ.get("HTC_DEEPLOY") or os.path.join(TOP, "..", "shared", "deeploy-tests")
    if not gvsoc:
        # without GVSoC: the estimate's energy (targets/siracusa.lua's cycle model)
        energy_line("estimated cycles, no GVSoC",
                    [("cluster-only", llama_energy(deeploy_dir, "cluster", LLAMA_MEM["l2"][1])),
                     ("with N-EUREKA", llama_energy(deeploy_dir, "both", LLAMA_MEM["l1"][1]))])
        say("bench_neureka: skipped: GVSOC is not set")
        return 0
    want = os.environ.get("BENCH_NEUREKA_NETS", "kws mini dw llama").split()
    gn = gvsoc_nets()
    ok = True
    rows = []
    rep = subprocess.run([HTC, "report", os.path.join(deeploy_dir, NETS[0][1], "network.onnx"), "-t", TARGET, "--json"],
                         capture_output=True, text=True)
    clock = json.loads(rep.stdout)["clock_mhz"] if rep.returncode == 0 else None
    if not clock:
        say("bench_neureka: htc report failed: " + rep.stderr[-300:])
        return 1
    kpass = collections.defaultdict(lambda: [0, 0])
    with tempfile.TemporaryDirectory(prefix="bench_neureka.") as tmp:
        cores_list = [int(c) for c in os.environ.get("BENCH_NEUREKA_CORES", "8").split()]
        for key, net, deeploy in NETS:
            if key not in want:
                continue
            res8 = {}
            engines = ("cluster", "both")
            if key == "kernels" and not offloads(net, deeploy_dir):
                engines = ("cluster",)  # engines=both runs the same code
            for cores in cores_list:
                res = {}
                for e in engines:
                    r, err = gn.run_net(net, e, cores, tmp, gvsoc)
                    if err or not (r["ok"] and r["deeploy"]):
                        say("bench_neureka: %s engines=%s cores=%d: %s" % (net, e, cores, err or "output DIFFERENT"))
                        ok = False
                        continue
                    res[e] = r
                if res:
                    for e, (k, n) in (est_table(net, res, deeploy_dir, cores) or {}).items():
                        if key == "kernels":
                            kpass[e, cores][0] += k
                            kpass[e, cores][1] += n
                if cores == 8:
                    res8 = res
            res = res8
            if len(res) == 2 and key != "kernels":
                c, b = res["cluster"]["total"], res["both"]["total"]
                nneu = sum(1 for v in res["both"]["eng"].values() if v[1] == "neureka")
                rows.append((net, c, b, nneu, deeploy))
        for (e, cores), (k, n) in sorted(kpass.items()):
            say("kernels engines=%s cores=%d: estimate within 15%% of GVSoC: %d/%d layers (%d networks)" % (
                e, cores, k, n, len(KERNEL_NETS)))
        if "llama" in want:
            host = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "examples", "llama"), "host",
                                   "B=" + os.path.join(tmp, "llama-host")], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            hres = [l for l in host.stdout.splitlines() if l.startswith("result: ")]
            lres = {}
            for e, mem in (("cluster", "l2"), ("both", "l2"), ("both", "l1")):
                cyc, results, layers, log = llama(e, tmp, gvsoc, mem)
                if cyc is None or results != hres or not hres:
                    say("bench_neureka: MicroLlama engines=%s SIR_MEM=%s: %s\n%s" % (
                        e, mem, "no cycles" if cyc is None else "results DIFFERENT from the host", log))
                    ok = False
                    continue
                lres[e, mem] = (cyc, layers)
            if len(lres) == 3:
                rows.append(("microLlama, constants in L2", lres["cluster", "l2"][0], lres["both", "l2"][0], None, None))
                rows.append(("microLlama, constants in L1", lres["cluster", "l2"][0], lres["both", "l1"][0], None, None))
    say("\nbench_neureka: cluster cycles on GVSoC's siracusa, 8 cores, ms at %d MHz (targets/siracusa.lua)" % clock)
    say("%-26s %14s %10s %14s %10s %8s  %s" % ("network", "cluster-only", "ms", "+N-EUREKA", "ms", "speedup", "Deeploy"))
    for net, c, b, nneu, deeploy in rows:
        say("%-26s %14s %10.3f %14s %10.3f %7.2fx  %s" % (net, "{:,}".format(c), c / (clock * 1e3), "{:,}".format(b),
                                                        b / (clock * 1e3), c / b, deeploy or "-"))
    if "llama" in want and len(rows) and rows[-1][0].startswith("microLlama"):
        c, b2, b = rows[-1][1], rows[-2][2], rows[-1][2]
        say("MicroLlama: %.1f tokens/s cluster-only, %.1f tokens/s with N-EUREKA (constants in L2), %.1f tokens/s "
            "with N-EUREKA (constants in L1) at %d MHz (Deeploy: %d tokens/s, N-EUREKA + 8 cores; ratio %.2f)" % (
                clock * 1e6 / c, clock * 1e6 / b2, clock * 1e6 / b, clock, DEEPLOY_TOKENS_S,
                clock * 1e6 / b / DEEPLOY_TOKENS_S))
        # where the cycles go (the last step, per operator kind)
        rep = subprocess.run([HTC, "report", os.path.join(deeploy_dir, "microLlama_INT8_microLlama1", "network.onnx"),
                              "-t", TARGET, "-D", "cores=8", "-D", "engines=both", "-D", "l1_kib=%d" % LLAMA_MEM["l1"][1],
                              "-D", "mem=l1", "--json"],
                             capture_output=True, text=True)
        kinds = {l["index"]: (l["op"], l["engine"]) for l in json.loads(rep.stdout)["layers"]} if rep.returncode == 0 else {}
        agg, n = collections.Counter(), collections.Counter()
        for i, cyc in lres["both", "l1"][1].items():
            k = "%s (%s)" % kinds.get(i, ("?", "?"))
            agg[k] += cyc
            n[k] += 1
        tot = sum(agg.values()) or 1
        # energy a token from GVSoC's cycles of the last token's layers
        energy_line("GVSoC's cycles per layer, htc's energy model",
                    [("cluster-only", llama_energy(deeploy_dir, "cluster", LLAMA_MEM["l2"][1], lres["cluster", "l2"][1],
                                                   c)),
                     ("with N-EUREKA, constants in L1",
                      llama_energy(deeploy_dir, "both", LLAMA_MEM["l1"][1], lres["both", "l1"][1], b))])
        say("MicroLlama with N-EUREKA (constants in L1), the last token per operator kind (cluster cycles):")
        for k, cyc in agg.most_common():
            say("  %-22s %4d layers %10s %5.1f%%" % (k, n[k], "{:,}".format(cyc), 100.0 * cyc / tot))
        # the estimate per layer (the report above: the flags the bench
        # compiles with) against GVSoC's last token
        if rep.returncode == 0:
            est = {l["index"]: l for l in json.loads(rep.stdout)["layers"]}
            errs = []
            say("MicroLlama with N-EUREKA (constants in L1), the last token per layer: GVSoC, estimate, error")
            for i, cyc in sorted(lres["both", "l1"][1].items()):
                lay = est.get(i)
                if not lay or not cyc:
                    continue
                errs.append((100.0 * (lay["est_cycles"] - cyc) / cyc, i))
                say("  %5d %-10s %-8s c%-2s %8s %8s %+7.1f%%" % (i, lay["op"], lay["engine"], lay.get("cores", 1),
                                                            "{:,}".format(cyc), "{:,}".format(int(lay["est_cycles"])),
                                                            errs[-1][0]))
            w = max(errs, key=lambda x: abs(x[0])) if errs else (0.0, -1)
            e_tot = sum(est[i]["est_cycles"] for _, i in errs)
            m_tot = sum(lres["both", "l1"][1][i] for _, i in errs) or 1
            say("microLlama engines=both: estimate within 15%% of GVSoC: %d/%d layers, worst layer %d %+.1f%%; "
                "layers' total %s cycles, estimate %s (%+.1f%%)" % (
                    sum(abs(x) <= 15 for x, _ in errs), len(errs), w[1], w[0], "{:,}".format(m_tot),
                    "{:,}".format(int(e_tot)), 100.0 * (e_tot - m_tot) / m_tot))
    say("bench_neureka: %s" % ("ok: every output equal to htc run and Deeploy" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
