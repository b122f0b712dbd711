#!/usr/bin/env python3
"""bench_gvsoc.py - `make bench` with GVSOC=DIR: the four MLPerf Tiny models
on GVSoC's Siracusa model (an installed GVSoC, never built here), cluster
cycles per layer and in total at 1 and 8 cores, the speedup, milliseconds at
the target's cluster clock beside Deeploy's published figures (Siracusa,
8 cores, no NPU), and the host estimate's error against GVSoC per layer.

Each model is compiled with targets/siracusa.lua (-D cores=N), built as the
firmware example examples/<model> for the bare-metal runtime examples/siracusa
(Debian's riscv64-unknown-elf-gcc, -DHTC_XPULPV2, main on cluster core 0,
layers forked to N cores; the arena in L1, the weights in L1 when they fit
beside it, else arena and weights in L2 and every tiled layer computing
from L1 tiles that the cluster DMA fills, double-buffered (only the
weights in L2 when no layer has L1 tiles): examples/siracusa/sir-l1.ld,
sir-tile.ld, sir-l2.ld), and run on
GVSoC; the per-layer counts are cluster
core 0's mcycle around each layer (fork and join included). The output bytes
GVSoC prints are compared with `htc run` (the same header on the host) on the
same input. The estimate is `htc report --json`'s est_cycles per layer.
DS-CNN also runs in the form Deeploy measured, its QuantLib graph
(../shared/deeploy-tests/MLPerf_KeywordSpotting through tests/neureka/
gvsoc_nets.py, engines=cluster, outputs equal to htc run and Deeploy's),
and a last table puts each network's forms beside Deeploy's published ms.

Environment:
  GVSOC         the install directory of GVSoC (DIR/bin/gvsoc); without it
                the bench prints that it is skipped and exits 0
  GVSOC_PYTHON  the python3 that runs GVSoC's launcher (default: DIR/venv/
                bin/python3 when present, else python3)
  HTC_MODELS    the .tflite files (default ../shared/models/mlperf_tiny)
  BENCH_MODELS  subset of "kws vww ic ad" (default: all)
  BENCH_CORES   core counts (default "1 8")
  BENCH_DIR     build directory (default: a temporary one, removed)
  XPULPV2       0 builds the portable kernels instead of the XpulpV2 ones
  BENCH_NEUREKA 0 skips bench/bench_neureka.py (Deeploy's networks and
                MicroLlama, cluster-only vs cluster + N-EUREKA), run after these
Exit status: 0 when every run matched `htc run`, 1 otherwise."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HTC = os.path.join(TOP, "htc")
TARGET = os.path.join(TOP, "targets", "siracusa.lua")

# example directory, .tflite, Deeploy's published ms (8 cores, no NPU; DORY's
# are the same): Deeploy's presentation, "Putting Deeploy into Practice -
# Siracusa" (../shared/seeds/002_*.txt); ToyAdmos (ad) has no published figure
MODELS = [
    ("kws", "kws_ref_model.tflite", "DS-CNN", 1.4),
    ("vww", "vww_96_int8.tflite", "MobileNetV1", 5.6),
    ("ic", "pretrainedResnet_quant.tflite", "ResNet", 3.7),
    ("ad", "ad01_int8.tflite", "ToyAdmos", None),
]


def say(*a):
    print(*a, flush=True)


def fill(n, seed):
    """examples/common/platform.c platform_fill: xorshift32, the top byte"""
    x = seed or 0x9E3779B9
    out = bytearray(n)
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x >> 24
    return bytes(out)


def fnv1a(b):
    h = 2166136261
    for c in b:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def parse_gvsoc(text):
    """per-layer cycles, total, input fnv, output bytes from the firmware's lines"""
    layers, total, in_fnv, out = {}, None, None, {}
    for line in text.splitlines():
        m = re.match(r"prof: layer\s+(\d+)\s+(\S+)\s+(\d+) cycles", line)
        if m:
            layers[int(m.group(1))] = (m.group(2), int(m.group(3)))
        m = re.match(r"prof: \S+ total (\d+) cycles on siracusa", line)
        if m:
            total = int(m.group(1))
        m = re.match(r"result: \S+ input (\d+) bytes fnv1a ([0-9a-f]+)", line)
        if m:
            in_fnv = int(m.group(2), 16)
        m = re.match(r"save: --write-output (\d+) ([0-9a-f]+)", line)
        if m:
            out.setdefault("n", int(m.group(1)))
            out["hex"] = out.get("hex", "") + m.group(2)
    data = bytes.fromhex(out["hex"]) if "hex" in out else None
    if data is not None and len(data) != out["n"]:
        data = None
    return layers, total, in_fnv, data


def dw_line(what, layers, rep, cores):
    """the depthwise layers' MACs per cycle per core (their cycles summed)"""
    dw = [l for l in rep["layers"] if l["op"] == "conv2d" and l.get("depthwise") and l["index"] in layers]
    if not dw:
        return f"{what}: no depthwise layer"
    macs = sum(l["macs"] for l in dw)
    cyc = sum(layers[l["index"]][1] for l in dw)
    return f"{what}: depthwise layers {macs:,} MACs in {cyc:,} cycles: {macs / cyc / cores:.3f} MAC/cycle/core"


def est_line(what, errs, layer=True, nocode=0):
    """the estimate's per-layer errors (%, layer) in one line; nocode: the
    layers that run no code (reshapes sharing their input's storage: no
    profile hooks, estimated 0 cycles), listed apart"""
    if not errs:
        return f"{what}: no layer to compare"
    w = max(errs, key=lambda e: abs(e[0]))
    return (f"{what}: estimate within 15% of GVSoC: {sum(abs(e) <= 15 for e, _ in errs)}/{len(errs)} layers, "
            f"worst layer {'%d ' % w[1] if layer else ''}{w[0]:+.1f}%"
            + (f" ({nocode} reshapes share their input's storage: no code, estimated 0)" if nocode else ""))


def nocode(rep):
    """the report's layers that run no code: reshapes sharing storage"""
    return {l["index"] for l in rep["layers"] if l["op"] == "reshape" and l.get("storage") == "alias"
            and l["est_cycles"] == 0}


# the .tflite example beside the QuantLib graph of the same network that
# Deeploy measured (../shared/deeploy-tests): DS-CNN only (Deeploy's
# MobileNetV1 and ResNet graphs are not among its published tests)
QL_FORMS = [("kws", "MLPerf_KeywordSpotting")]


def ql_form(net, cores_list, bench_dir, gvsoc, env):
    """Deeploy's QuantLib graph on GVSoC (tests/neureka/gvsoc_nets.py's
    build: everything in L1, engines=cluster) at each core count: per layer
    cycles beside the estimate (htc report -D mem=l1, the layout it runs)"""
    sys.path.insert(0, os.path.join(TOP, "tests", "neureka"))
    import gvsoc_nets
    d = os.path.join(gvsoc_nets.TESTS, net)
    if not os.path.isfile(os.path.join(d, "network.onnx")):
        say(f"bench_gvsoc: {d}: missing, the QuantLib form is skipped")
        return None
    res, ok = {}, True
    old = os.environ.get("GVSOC_PYTHON")
    if env.get("GVSOC_PYTHON"):
        os.environ["GVSOC_PYTHON"] = env["GVSOC_PYTHON"]
    try:
        for n in cores_list:
            w = os.path.join(bench_dir, "ql-%s-%d" % (net, n))
            os.makedirs(w, exist_ok=True)
            r, err = gvsoc_nets.run_net(net, "cluster", n, w, gvsoc)
            if err or not (r["ok"] and r["deeploy"]):
                say(f"bench_gvsoc: {net} cores={n}: {err or 'output differs from htc run or Deeploy'}")
                ok = False
                continue
            rep = json.loads(run([HTC, "report", os.path.join(d, "network.onnx"), "-t", TARGET, "-D", f"cores={n}",
                                  "-D", "l1_kib=64", "-D", "mem=l1", "--input", os.path.join(d, "inputs.npz"),
                                  "--json"]).stdout)
            res[n] = dict(layers=r["layers"], total=r["total"], est=rep)
    finally:
        if old is None:
            os.environ.pop("GVSOC_PYTHON", None)
        else:
            os.environ["GVSOC_PYTHON"] = old
    if not res:
        return dict(ok=False, res={})
    ns = sorted(res)
    say(f"\n{net} (Deeploy's QuantLib graph of the same network): cluster cycles on GVSoC's siracusa, "
        f"everything in L1, engines=cluster; output = htc run = Deeploy's")
    say("layer  op          " + "".join(f"{'cores=%d' % n:>12}{'est(%d)' % n:>12}{'err':>8}" for n in ns))
    ops = {l["index"]: l["op"] for l in res[ns[-1]]["est"]["layers"]}
    for n in ns:
        res[n]["errs"] = []
    for i in sorted(set().union(*[set(res[n]["layers"]) | nocode(res[n]["est"]) for n in ns])):
        line = f"{i:5d}  {ops.get(i, '?'):<10}  "
        for n in ns:
            c = res[n]["layers"].get(i)
            lay = [l for l in res[n]["est"]["layers"] if l["index"] == i]
            e = lay[0]["est_cycles"] if lay else None
            line += f"{c:>12,}" if c else f"{'no code' if i in nocode(res[n]['est']) else '-':>12}"
            line += f"{e:>12,}" if e is not None else f"{'-':>12}"
            if c and e is not None:
                err = 100.0 * (e - c) / c
                res[n]["errs"].append((err, i))
                line += f"{err:>+7.1f}%"
            else:
                line += f"{'-':>8}"
        say(line)
    for n in ns:
        say(dw_line(f"{net} cores={n}", {i: ("", c) for i, c in res[n]["layers"].items()}, res[n]["est"], n))
        say(est_line(f"{net} cores={n}", res[n]["errs"], nocode=len(nocode(res[n]["est"]))))
        e, t = res[n]["est"]["est_cycles"], res[n]["total"]
        say(f"{net} cores={n}: {t:,} cycles, estimate {e:,} ({100.0 * (e - t) / t:+.1f}%)")
    return dict(ok=ok, res=res)


def like_for_like(summary, qlres, clock):
    """each network in the form Deeploy measured and as .tflite, htc's ms
    beside Deeploy's published ms (8 cores, no NPU)"""
    say(f"\nlike for like: htc on GVSoC's siracusa vs Deeploy's published figures (8 cores, no NPU, {clock} MHz)")
    say(f"  {'network':<12} {'form':<46} {'cores':>5} {'htc ms':>8} {'Deeploy':>8} {'ratio':>6}  {'est total':>9}  "
        "estimate per layer")
    bylabel = {label: (res, dms) for label, res, dms in summary}
    for ex, tfl, label, dms in MODELS:
        if dms is None:
            continue
        rows = []
        q = qlres.get(ex)
        if q and q["res"]:
            n = max(q["res"])
            net = dict(QL_FORMS)[ex]
            rows.append((f"QuantLib ({net})", n, q["res"][n]["total"], q["res"][n]["errs"], q["res"][n]["est"]))
        elif ex not in dict(QL_FORMS):
            rows.append(("QuantLib: not among Deeploy's published tests", None, None, None, None))
        if label in bylabel:
            res, _ = bylabel[label]
            n = max(res)
            rows.append((f".tflite ({tfl})", n, res[n]["total"], res[n].get("errs", []), res[n]["est"]))
        for form, n, cyc, errs, rep in rows:
            if cyc is None:
                say(f"  {label:<12} {form:<46}")
                continue
            ms = cyc / (clock * 1000.0)
            within = "-"
            if errs:
                w = max(errs, key=lambda e: abs(e[0]))
                within = (f"{sum(abs(e) <= 15 for e, _ in errs)}/{len(errs)} layers within 15%, "
                          f"worst layer {w[1]} {w[0]:+.1f}%")
            et = f"{100.0 * (rep['est_cycles'] - cyc) / cyc:+.1f}%"
            say(f"  {label:<12} {form:<46} {n:>5} {ms:>8.2f} {dms:>8} {ms / dms:>6.2f}  {et:>9}  {within}")


def main():
    gvsoc = os.environ.get("GVSOC", "")
    if not gvsoc:
        say("bench_gvsoc: skipped: GVSOC is not set (GVSOC=DIR names an installed GVSoC; see examples/siracusa/README.md)")
        return 0
    if not os.path.isfile(os.path.join(gvsoc, "bin", "gvsoc")):
        say(f"bench_gvsoc: {gvsoc}/bin/gvsoc: no such file (GVSOC must name an installed GVSoC)")
        return 1
    env = dict(os.environ)
    if "GVSOC_PYTHON" not in env and os.path.exists(os.path.join(gvsoc, "venv", "bin", "python3")):
        env["GVSOC_PYTHON"] = os.path.join(gvsoc, "venv", "bin", "python3")
    if not os.path.exists(TARGET):
        say(f"bench_gvsoc: {TARGET}: no such file")
        return 1
    models_dir = os.environ.get("HTC_MODELS", os.path.join(TOP, "..", "shared", "models", "mlperf_tiny"))
    want = os.environ.get("BENCH_MODELS", "kws vww ic ad").split()
    cores_list = [int(c) for c in os.environ.get("BENCH_CORES", "1 8").split()]
    xp = os.environ.get("XPULPV2", "1") != "0"
    bench_dir = os.environ.get("BENCH_DIR")
    tmp = None
    if not bench_dir:
        tmp = bench_dir = tempfile.mkdtemp(prefix="bench_gvsoc.")
    bench_dir = os.path.abspath(bench_dir)
    if run(["make", "-C", TOP, "htc"]).returncode:
        say("bench_gvsoc: make htc failed")
        return 1

    ok = True
    summary = []
    qlres = {}
    clock = None
    try:
        for ex, tfl, label, deeploy_ms in MODELS:
            if ex not in want:
                continue
            model = os.path.join(models_dir, tfl)
            if not os.path.exists(model):
                say(f"bench_gvsoc: {model}: missing")
                ok = False
                continue
            src = open(os.path.join(TOP, "examples", ex, "main.c")).read()
            seed = int(re.search(r"platform_fill\(input, sizeof input, (0x[0-9a-fA-F]+)u?\)", src).group(1), 16)
            res = {}
            for n in cores_list:
                b = os.path.join(bench_dir, ex)
                elf = os.path.join(b, f"siracusa-{n}", f"{ex}.elf")
                cmd = ["make", "-s", "-C", os.path.join(TOP, "examples", ex), f"B={b}", f"CORES={n}",
                       f"HTC_MODELS={os.path.abspath(models_dir)}", elf]
                if not xp:
                    cmd.append("SIR_XP=")
                mem = "l1"
                r = run(cmd + ["SIR_MEM=l1"])
                if r.returncode and ("overflowed" in r.stdout or "does not fit" in r.stdout):
                    # the weights do not fit L1 beside the arena: arena and
                    # weights in L2, the layers' L1 tiles moved by the DMA
                    # (constants only in L2 when no layer has L1 tiles)
                    rj = json.loads(run([HTC, "report", model, "-t", TARGET, "-D", f"cores={n}", "--json"]).stdout)
                    mem = "tile" if any("l1" in l for l in rj["layers"]) else "l2"
                    r = run(cmd + [f"SIR_MEM={mem}"])
                if r.returncode:
                    say(f"bench_gvsoc: {ex} cores={n}: build failed:\n{r.stdout[-2000:]}")
                    ok = False
                    continue
                r = run([os.path.join(TOP, "examples", "siracusa", "run.sh"), elf,
                         os.path.join(b, f"siracusa-{n}", "gvsoc")], env=env)
                layers, total, in_fnv, data = parse_gvsoc(r.stdout)
                if r.returncode or total is None or data is None:
                    say(f"bench_gvsoc: {ex} cores={n}: GVSoC run failed (exit {r.returncode}):\n{r.stdout[-2000:]}")
                    ok = False
                    continue
                # the estimate, then the same header on the host with the same input
                # (-D mem: the layout the firmware was built with, examples/common/platform.mk)
                rep = json.loads(run([HTC, "report", model, "-t", TARGET, "-D", f"cores={n}", "-D", f"mem={mem}",
                                      "--json"]).stdout)
                clock = rep.get("clock_mhz", clock)
                with open(os.path.join(b, f"siracusa-{n}", f"{ex}.h")) as f:
                    m = re.search(r"#define %s_INPUT_SIZE (\d+)" % ex.upper(), f.read())
                    hdr_in = int(m.group(1))
                inp = fill(hdr_in, seed)
                if in_fnv != fnv1a(inp):
                    say(f"bench_gvsoc: {ex} cores={n}: input checksum {in_fnv:08x} differs from the bench's {fnv1a(inp):08x}")
                    ok = False
                inf = os.path.join(b, f"in-{n}.bin")
                outf = os.path.join(b, f"out-{n}.bin")
                with open(inf, "wb") as f:
                    f.write(inp)
                h = run([HTC, "run", model, "-t", TARGET, "-D", f"cores={n}", "--input", inf, "--output", outf])
                host = open(outf, "rb").read() if h.returncode == 0 and os.path.exists(outf) else None
                same = host is not None and host == data
                if not same:
                    ok = False
                res[n] = dict(layers=layers, total=total, est=rep, same=same, nbytes=len(data), mem=mem)
            if not res:
                continue
            mem = res[max(res)]["mem"]
            where = {"l1": "weights and arena in L1", "l2": "weights in L2, arena in L1",
                     "tile": "weights and arena in L2, layers in L1 tiles (weights and bands of rows by DMA)"}[mem]
            say(f"\n{label} ({ex}, {tfl}): cluster cycles on GVSoC's siracusa, XpulpV2 {'on' if xp else 'off'}, {where}")
            ns = sorted(res)
            head = "layer  op          " + "".join(f"{'cores=%d' % n:>12}" for n in ns)
            if len(ns) > 1:
                head += f"{'speedup':>9}"
            head += "".join(f"{'est(%d)' % n:>12}{'err':>8}" for n in ns)
            say(head)
            idx = sorted(set().union(*[set(res[n]["layers"]) | nocode(res[n]["est"]) for n in ns]))
            for i in idx:
                name = next((res[n]["layers"][i][0] for n in ns if i in res[n]["layers"]), "reshape")
                cyc = [res[n]["layers"].get(i, ("", None))[1] for n in ns]
                line = f"{i:5d}  {name:<10}  " + "".join(
                    f"{c:>12,}" if c is not None else f"{'no code' if i in nocode(res[n]['est']) else '-':>12}"
                    for n, c in zip(ns, cyc))
                if len(ns) > 1:
                    line += f"{cyc[0] / cyc[-1]:>8.2f}x" if cyc[0] and cyc[-1] else f"{'-':>9}"
                for n, c in zip(ns, cyc):
                    lay = [l for l in res[n]["est"]["layers"] if l["index"] == i]
                    e = lay[0]["est_cycles"] if lay else None
                    line += f"{e:>12,}" if e is not None else f"{'-':>12}"
                    line += f"{100.0 * (e - c) / c:>+7.1f}%" if e is not None and c else f"{'-':>8}"
                say(line)
            for n in ns:
                # the estimate against GVSoC per layer: how many within 15%, the worst
                errs = []
                for i in idx:
                    c = res[n]["layers"].get(i, ("", None))[1]
                    lay = [l for l in res[n]["est"]["layers"] if l["index"] == i]
                    if c and lay:
                        errs.append((100.0 * (lay[0]["est_cycles"] - c) / c, i))
                res[n]["errs"] = errs
                res[n]["nocode"] = len(nocode(res[n]["est"]))
                say(est_line(f"{label} cores={n}", errs, nocode=res[n]["nocode"]))
            tot = [res[n]["total"] for n in ns]
            line = f"total{'':13}" + "".join(f"{t:>12,}" for t in tot)
            if len(ns) > 1:
                line += f"{tot[0] / tot[-1]:>8.2f}x"
            for n, t in zip(ns, tot):
                e = res[n]["est"]["est_cycles"]
                line += f"{e:>12,}{100.0 * (e - t) / t:>+7.1f}%"
            say(line)
            if len(ns) > 1:
                # the convolutions (depthwise included): their cycles summed at
                # the fewest and the most cores, and how many layers reach 6x
                conv = [i for i in idx if all(res[n]["layers"].get(i, ("", None))[0] == "conv2d" for n in ns)]
                c0 = sum(res[ns[0]]["layers"][i][1] for i in conv)
                c1 = sum(res[ns[-1]]["layers"][i][1] for i in conv)
                fast = sum(1 for i in conv if res[ns[0]]["layers"][i][1] >= 6 * res[ns[-1]]["layers"][i][1])
                if c1:
                    say(f"{label} conv layers: {c0:,} -> {c1:,} cycles, cores={ns[-1]} speedup {c0 / c1:.2f}x over cores={ns[0]}; "
                        f"{fast}/{len(conv)} conv layers individually >= 6x")
                    res[ns[-1]]["conv"] = (c0 / c1, fast, len(conv))
            for n in ns:
                say(dw_line(f"{label} cores={n}", res[n]["layers"], res[n]["est"], n))
            for n in ns:
                ms = res[n]["total"] / (clock * 1000.0)
                say(f"{label} cores={n}: {res[n]['total']:,} cycles = {ms:.2f} ms at {clock} MHz"
                    + (f" (Deeploy, 8 cores, no NPU: {deeploy_ms} ms; ratio {ms / deeploy_ms:.2f})" if deeploy_ms and n == 8 else "")
                    + f"; output {res[n]['nbytes']} bytes {'equal to' if res[n]['same'] else 'DIFFERENT from'} htc run")
            summary.append((label, res, deeploy_ms))
        # the same network in the form Deeploy measured: its QuantLib graph
        # (../shared/deeploy-tests), engines=cluster
        for ex, net in QL_FORMS:
            if ex not in want:
                continue
            r = ql_form(net, cores_list, bench_dir, gvsoc, env)
            if r is None:
                continue
            ok = ok and r["ok"]
            qlres[ex] = r
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if summary:
        say("\nbench_gvsoc summary (ms at %s MHz cluster clock)" % clock)
        for label, res, dms in summary:
            ns = sorted(res)
            cv = res[ns[-1]].get("conv")
            ms8 = res[ns[-1]]["total"] / (clock * 1000.0)
            say(f"  {label:<12}" + "".join(f" cores={n}: {res[n]['total'] / (clock * 1000.0):7.2f} ms" for n in ns)
                + (f"  speedup {res[ns[0]]['total'] / res[ns[-1]]['total']:.2f}x" if len(ns) > 1 else "")
                + (f"  conv {cv[0]:.2f}x, {cv[1]}/{cv[2]} conv layers >= 6x" if cv else "")
                + (f"  Deeploy {dms} ms" if dms else "") + (f" (ratio {ms8 / dms:.2f})" if dms and ns[-1] == 8 else ""))
        for n in sorted({n for _, res, _ in summary for n in res}):
            errs = [e for _, res, _ in summary if n in res for e in res[n].get("errs", [])]
            say(est_line(f"  all models cores={n}", errs, layer=False))
    if summary or qlres:
        like_for_like(summary, qlres, clock or 360)
    say("bench_gvsoc: %s" % ("ok: every output equal to htc run" if ok else "FAILED"))
    if os.environ.get("BENCH_NEUREKA", "1") != "0":
        # Deeploy's networks and MicroLlama with and without N-EUREKA (bench/bench_neureka.py)
        sys.path.insert(0, os.path.join(TOP, "bench"))
        import bench_neureka
        ok = bench_neureka.main() == 0 and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
