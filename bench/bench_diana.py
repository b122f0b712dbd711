#!/usr/bin/env python3
"""bench/bench_diana.py - DIANA on the host virtual platform: the four
power-of-two MLPerf Tiny networks (cycles measured by the device model, ms
at 260 MHz, ratio to the ideal, compile time including all tiling), HTVM's
Table I on RV32 (table1: CPU only / digital / analog / both; htc's RISC-V
code counted under qemu-system-riscv32 by bench/diana/rv32.py, the device
model's cycles for the offloaded layers, RV32 binary sizes, the paper's
figures beside them, the both-vs-single check), Table I again on HTVM's
own four networks (htvm_table: tests/zoo/htvm_nets.py, every cell of the
paper beside htc's with the ratio, HTVM and peak as the paper times them),
and the Fig. 4 L1 sweep
(no heuristics / eq. 3-4 / eq. 3-5). `--layers NET CONFIG`: one Table I
cell layer by layer; `--htvm-layers NET CONFIG`: the same for HTVM's
networks; `--htvm`: only the table of HTVM's networks. With GVSOC=DIR (an
installed GVSoC) the HTVM-network table measures the host's layers on
GVSoC (bench/diana/gvsoc.py: one XpulpV2 core of its Siracusa model),
without it they take targets/diana.lua's cost model; each row says
which."""
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
import ort_oracle as oo  # noqa: E402
sys.path.insert(0, os.path.join(REPO, "bench", "diana"))
import rv32  # noqa: E402
import gvsoc  # noqa: E402
sys.path.insert(0, os.path.join(REPO, "tests", "zoo"))
import htvm_nets  # noqa: E402

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


# HTVM paper, Table I: TVM CPU ms; digital peak / HTVM; analog peak / HTVM; both; kB CPU / digital / analog / both
PAPER = {"kws": ("48.24", "1.70 / 1.75", "13.51 / 13.51", "1.66", "59 / 60 / 93 / 81"),
         "vww": ("OoM", "5.42 / 5.68", "40.67 / 40.67", "5.39", "289 / 306 / 239 / 292"),
         "resnet": ("134.11", "0.66 / 1.19", "1.52 / 1.53", "0.61", "122 / 107 / 129 / 107"),
         "ad": ("4.70", "0.30 / 0.36", "0.80 / 0.80", "0.49", "287 / 315 / 171 / 274")}
NAMES = {"kws": "DS-CNN", "vww": "MobileNet", "resnet": "ResNet", "ad": "ToyAdmos"}
# the configurations: name, target parameters, zoo variant (8-bit
# power-of-two weights for CPU and digital, ternary for analog and both;
# mixed: the paper's mixed configuration on the mixed-precision network,
# 8-bit first and last layers, ternary elsewhere)
CONFIGS = (("cpu", ("engines=none",), "pow2qop"), ("digital", ("engines=digital",), "pow2qop"),
           ("analog", ("engines=analog",), "ternaryqop"), ("both", ("engines=both",), "ternaryqop"),
           ("mixed", ("engines=both", "dispatch=mixed"), "mixedqop"))
CHECK = (("dig/tern", ("engines=digital",), "ternaryqop"),)


def table1_row(net, zoo, tmp, configs=CONFIGS, seed=5):
    """one network through every configuration on RV32 (bench/diana/rv32.py):
    {config: dict(ms, peak, instr, dev_cycles, size, ..., exact)}. Every
    firmware output is compared with onnxruntime's (an Rv32Error if not
    bit-exact). The check configuration 'digital/ternary' (the ternary
    network on the digital core alone) makes the both-vs-single check
    compare one network."""
    sess = None
    res = {}
    for name, params, kind in configs:
        model = os.path.join(zoo, "%s_%s_s8.onnx" % (net, kind))
        args = [a for p in params for a in ("-D", p)]
        rep = json.loads(subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + args, capture_output=True,
                                        text=True, check=True).stdout)
        sess = oo.ort_session(model)
        x = oo.random_inputs(sess, 1, seed)[0]
        want = oo.ort_outputs(sess, [x])[0]
        r = rv32.row(oo.HTC, model, DIANA, os.path.join(tmp, net, name), b"".join(a.tobytes() for a in x),
                     {l["index"]: (l["engine"], l["op"]) for l in rep["layers"]}, args)
        if r["out"] != want:
            raise rv32.Rv32Error("%s %s: the RV32 firmware's output differs from onnxruntime's" % (net, name))
        # peak: the offloaded layers at their ideal cycles (`htc report`'s per
        # tile ideal: MACs at the peak rate + weight transfer), the CPU part as
        # measured (the report's ideal_cycles would add the CPU cost model's)
        ideal = [l["tile"]["ideal_cycles"] for l in rep["layers"] if l["engine"] != "riscv" and "tile" in l]
        if len(ideal) != sum(1 for l in rep["layers"] if l["engine"] != "riscv"):
            raise rv32.Rv32Error("%s %s: an offloaded layer without its ideal cycles in the report" % (net, name))
        r["ideal_dev"] = sum(ideal)
        r["peak"] = (r["instr"] + r["ideal_dev"]) / (rv32.MHZ * 1e3)
        r["engines"] = {}
        for l in rep["layers"]:
            r["engines"][l["engine"]] = r["engines"].get(l["engine"], 0) + 1
        res[name] = r
    return res


CORE = tuple("DIGITAL_" + k for k in ("ROWS", "COLS", "W_SIZE", "W_DMA_BPC", "W_DMA_SETUP", "STARTUP", "ACT_SIZE", "DMA_BPC"))


def core_mismatch(r, c):
    """the digital core's HTC_DEV_* constants of configuration c that differ
    from the digital-only build's (a tuple of 'NAME value (digital alone:
    value)'), empty when they agree"""
    return tuple("%s %s (digital alone: %s)" % (k, r[c]["defines"].get(k), r["digital"]["defines"].get(k))
                 for k in CORE if r[c]["defines"].get(k) != r["digital"]["defines"].get(k))


TFLITE = {"kws": "kws_ref_model", "vww": "vww_96_int8", "resnet": "pretrainedResnet_quant", "ad": "ad01_int8"}


def tflite_cpu_row(net, tmp, seed=5):
    """the original MLPerf Tiny int8 .tflite network (TFLite's integer
    requantization, int8 input and output) CPU only on RV32, its output
    checked against TFLite Micro's interpreter"""
    sys.path.insert(0, os.path.join(REPO, "tests"))
    import oracle
    model = os.path.join(oracle.MODELS, TFLITE[net] + ".tflite")
    if not os.path.exists(model):
        raise rv32.Rv32Error("no %s (HTC_MODELS: the MLPerf Tiny .tflite models)" % model)
    info = oracle.ModelInfo(model)
    x = info.random_inputs(seed)
    want, _ = oracle.run_interpreter(model, x, info=info)
    args = ["-D", "engines=none"]
    rep = json.loads(subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + args, capture_output=True,
                                    text=True, check=True).stdout)
    r = rv32.row(oo.HTC, model, DIANA, os.path.join(tmp, net, "tflite"), b"".join(a.tobytes() for a in x),
                 {l["index"]: (l["engine"], l["op"]) for l in rep["layers"]}, args)
    if r["out"] != b"".join(a.tobytes() for a in want):
        raise rv32.Rv32Error("%s .tflite: the RV32 firmware's output differs from TFLite Micro's" % net)
    return r


def table1(zoo, tmp, nets=("kws", "vww", "resnet", "ad")):
    """HTVM Table I on RV32 + the device model: htc's own RISC-V code counted
    under qemu, the offloaded layers' cycles from the device model"""
    try:
        rv32.check_tools()
    except rv32.Rv32Error as e:
        print("\nTable I: skipped - %s" % e)
        return
    configs = CONFIGS + CHECK
    print("\nTable I (HTVM paper) on the zoo's MLPerf Tiny networks (tests/zoo/zoo.py: float-trained topologies"
          "\n  quantized with onnxruntime, not HTVM's networks: those are the table after this one): ms at 260 MHz ="
          "\n  (RV32IMC instructions under qemu, 1 instruction per cycle,"
          "\n  + device-model cycles of the offloaded layers) / 260 MHz, sequential (no CPU / accelerator overlap);"
          "\n  the device model's own instructions are not counted. peak = the same instructions + the offloaded"
          "\n  layers' ideal cycles (`htc report`: MACs at the peak rate + weight transfer). kB = .text + .rodata"
          "\n  + .data of the RV32 object (-march=rv32imc -O2) of the header with a minimal main, the device model"
          "\n  replaced by its API (no driver, no libc counted)."
          "\n  CPU, digital: the power-of-two 8-bit zoo networks; analog, both (cost-based dispatch): the ternary ones;"
          "\n  mixed: the mixed-precision ones (8-bit first and last layers) with -D dispatch=mixed (first and last"
          "\n  eligible layers and depthwise on digital, the rest on analog). Outputs bit-exact with onnxruntime under"
          "\n  qemu. Paper below each row (its 'Both' under mixed; its kB CPU / dig / ana / both).")
    print("%-10s %9s %17s %17s %8s %8s   %s" % ("net", "CPU", "digital", "analog", "both", "mixed",
                                                 "kB CPU / dig / ana / both / mixed"))
    rows = {}
    for net in nets:
        t0 = time.perf_counter()
        r = table1_row(net, zoo, tmp, configs)
        rows[net] = r
        kb = " / ".join("%.0f" % (r[c]["size"]["total"] / 1e3) for c in ("cpu", "digital", "analog", "both", "mixed"))
        print("%-10s %9.2f %8.2f / %6.2f %8.2f / %6.2f %8.2f %8.2f   %s" % (
            NAMES[net], r["cpu"]["ms"], r["digital"]["peak"], r["digital"]["ms"], r["analog"]["peak"], r["analog"]["ms"],
            r["both"]["ms"], r["mixed"]["ms"], kb))
        pp = PAPER[net]
        print("%-10s %9s %17s %17s %8s %8s   %s" % ("  paper", pp[0], pp[1], pp[2], "", pp[3], pp[4]))
        sys.stdout.flush()
        rows[net]["seconds"] = time.perf_counter() - t0
    print("\nTable I, CPU only on the original int8 .tflite networks (TFLite's integer requantization, int8 input"
          "\n  and output; outputs bit-exact with TFLite Micro), same measurement")
    print("%-10s %12s %9s %9s %9s" % ("net", "instr", "ms", "kB", "paper"))
    for net in nets:
        t = tflite_cpu_row(net, tmp)
        rows[net]["tflite"] = t
        print("%-10s %12d %9.2f %9.0f %9s" % (NAMES[net], t["instr"], t["ms"], t["size"]["total"] / 1e3, PAPER[net][0]))
    print("\nTable I detail: host instructions per inference = CPU layers (of which float I/O: the zoo networks'"
          "\n  QuantizeLinear of the float input and DequantizeLinear of the output, soft-float on RV32IMC) + the"
          "\n  offloaded layers' issue loops + run glue; device-model cycles, the offloaded layers' ideal cycles; ms,"
          "\n  and ms without the float I/O; code + constant bytes; 'dig/tern' = the ternary network on the digital"
          "\n  core alone (for the check)")
    print("%-10s %-9s %12s %12s %10s %7s %6s %11s %9s %8s %8s %9s  %s" % (
        "net", "config", "instr", "CPU layers", "float I/O", "issue", "glue", "dev cycles", "ideal", "ms", "no I/O",
        "code+const B",
        "layers per engine"))
    for net, r in rows.items():
        for c, _, _ in configs:
            v = r[c]
            print("%-10s %-9s %12d %12d %10d %7d %6d %11d %9d %8.3f %8.3f %6d+%-6d  %s" % (
                NAMES[net], c, v["instr"], v["cpu_layers"], v["io"], v["issue"], v["glue"], v["dev_cycles"],
                v["ideal_dev"], v["ms"],
                v["ms_no_io"], v["size"]["code"], v["size"]["const"],
                ", ".join("%s %d" % kv for kv in sorted(v["engines"].items()))))
    bad = {}
    for net, r in rows.items():
        for c in ("both", "mixed"):
            if c in r and r[c]["engines"].get("digital"):
                d = core_mismatch(r, c)
                if d:
                    bad.setdefault(d, []).append("%s %s" % (NAMES[net], c))
    for d, where in bad.items():
        print("\nWARNING: the digital core's device-model constants in %s differ from the digital-only build's:"
              "\n  HTC_DEV_%s;\n  their digital layers are simulated with another engine's array / weight memory"
              % (", ".join(where), ", HTC_DEV_".join(d)))
    print("\nTable I check: both never slower than the better single accelerator on the same (ternary) network;"
          "\n  then the same without the float I/O layers (identical ops in every configuration, whose instruction"
          "\n  counts still differ by a few hundred with gcc's register allocation of the one inlined run function)")
    for net, r in rows.items():
        for key, what in (("ms", "total"), ("ms_no_io", "no I/O")):
            best = min(r["dig/tern"][key], r["analog"][key])
            who = "digital" if r["dig/tern"][key] <= r["analog"][key] else "analog"
            ok = r["both"][key] <= best
            print("%-10s %-6s both %9.4f ms, best single %9.4f ms (%s): %s" % (
                NAMES[net], what, r["both"][key], best, who, "ok" if ok else "SLOWER by %.4f ms (%.2f%%)" % (
                    r["both"][key] - best, 100.0 * (r["both"][key] / best - 1))))
    return rows


# ---- Table I on HTVM's own networks (tests/zoo/htvm_nets.py) ----------------

HTVM_NETS = ("ds_cnn", "mobilenet", "resnet", "dae")
HTVM_NAMES = {"ds_cnn": "DS-CNN", "mobilenet": "MobileNet", "resnet": "ResNet", "dae": "ToyAdmos"}
# the paper's Table I: latency in ms and size in kB per column, in its order
# CPU (TVM), CPU + Dig. (Peak, HTVM), CPU + Ana. (Peak, HTVM), CPU + Both
# (its header reads "Peak" for Both); None: OoM
HTVM_COLUMNS = ("CPU TVM", "Dig. peak", "Dig. HTVM", "Ana. peak", "Ana. HTVM", "Both peak")
HTVM_PAPER = {"ds_cnn": ((48.24, 1.70, 1.75, 13.51, 13.51, 1.66), (59, 59, 60, 93, 93, 81)),
              "mobilenet": ((None, 5.42, 5.68, 40.67, 40.67, 5.39), (289, 305, 306, 239, 239, 292)),
              "resnet": ((134.11, 0.66, 1.19, 1.52, 1.53, 0.61), (122, 107, 107, 129, 129, 107)),
              "dae": ((4.70, 0.30, 0.36, 0.80, 0.80, 0.49), (287, 315, 315, 171, 171, 274))}
# HTVM's driver.py --conf: cpu (weight_bits 8, target "c"), digital (8),
# analog (2, digital disabled), mixed (2, mixed); pool=cpu: the average pool
# on the RISC-V as TVM runs it. htc's own: both = the mixed network with
# htc's cost-based dispatch.
HTVM_CONFIGS = (("cpu", "int8", ("engines=none",)),
                ("digital", "int8", ("engines=digital", "pool=cpu")),
                ("analog", "ternary", ("engines=analog", "pool=cpu")),
                ("mixed", "mixed", ("engines=both", "dispatch=mixed", "pool=cpu")),
                ("both", "mixed", ("engines=both", "pool=cpu")))
# each paper column: htc's configuration and measure
HTVM_CELLS = (("cpu", "ms"), ("digital", "peak_ms"), ("digital", "ms"), ("analog", "peak_ms"), ("analog", "ms"),
              ("mixed", "peak_ms"))
OFF = 1.25          # a cell this far from the paper's (either way) is flagged


def htvm_row(net, nets, tmp, configs=HTVM_CONFIGS, seed=5):
    """one HTVM network through the configurations on RV32IMFC (DIANA's
    host has the F extension) + the device model: {config: rv32.row dict +
    engines}. The firmware's output must equal onnxruntime's on the QOperator
    graph and on its float twin (htvm_nets.float_twin: exact on any host),
    else Rv32Error."""
    import onnx
    import onnxruntime as ort
    res = {}
    for name, variant, params in configs:
        model = os.path.join(nets, "%s_%s.onnx" % (net, variant))
        args = [a for p in params for a in ("-D", p)]
        rep = json.loads(subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + args, capture_output=True,
                                        text=True, check=True).stdout)
        sess = oo.ort_session(model)
        so = ort.SessionOptions()
        so.log_severity_level = 3
        twin = ort.InferenceSession(htvm_nets.float_twin(onnx.load(model)).SerializeToString(), so,
                                    providers=["CPUExecutionProvider"])
        x = oo.random_inputs(sess, 1, seed)[0]
        want = oo.ort_outputs(sess, [x])[0]
        if oo.ort_outputs(twin, [x])[0] != want:
            raise rv32.Rv32Error("%s %s: onnxruntime's int8 kernels differ from its exact float twin on this host"
                                 % (net, name))
        layers = {l["index"]: (l["engine"], l["op"]) for l in rep["layers"]}
        xb = b"".join(a.tobytes() for a in x)
        if gvsoc.gvsoc_dir():
            # the host's cycles on GVSoC (XpulpV2 kernels), the device model's for offloaded layers
            r = gvsoc.row(oo.HTC, model, DIANA, os.path.join(tmp, net, name), xb, layers, args)
            r["how"] = "GVSoC" + (" (weights of CPU layer%s %s in L2)" % (
                "s" if len(r["l2_cpu_layers"]) > 1 else "", ", ".join(map(str, r["l2_cpu_layers"])))
                if r["l2_cpu_layers"] else "")
        else:
            # no GVSoC: the CPU layers at the cost model's cycles (targets/cpus/xpulpv2.lua, fitted on
            # GVSoC), the issue loops and glue as RV32IMFC instructions under qemu
            r = rv32.row(oo.HTC, model, DIANA, os.path.join(tmp, net, name), xb, layers, args, flags=rv32.FPU_FLAGS)
            est = sum(l["est_cycles"] for l in rep["layers"] if l["engine"] == "riscv")
            mhz = rv32.MHZ * 1e3
            r["instr"] += est - r["cpu_layers"]
            r["cpu_layers"] = est
            r["ms"] = (r["instr"] + r["dev_cycles"]) / mhz
            r["peak_ms"] = (r["instr"] - r["issue"] + r["trig"]) / mhz
            r["how"] = "cost model"
        if r["out"] != want:
            raise rv32.Rv32Error("%s %s: the firmware's output differs from onnxruntime's" % (net, name))
        r["engines"] = {}
        for l in rep["layers"]:
            key = "%s %s" % (l["engine"], l["op"])
            r["engines"][key] = r["engines"].get(key, 0) + 1
        r["report"] = rep
        res[name] = r
    return res


# HTVM's relay_soma_layout_transform (reshape, reverse every 4 bytes,
# reshape), bytes per inference as its relay_*.py add them (b216dde): in
# every accelerator configuration around the pool / dense / output
# (ds_cnn 8000 + 64 + 12, mobilenet the input 27648 + 2304 + 256 + 4, resnet
# 4096 + 64 + 12, dae input and output 640 + 640), and in the analog
# configuration of ds_cnn / mobilenet after every Conv2D but the last
# ("weight_bits == 2 and not mixed")
def htvm_layout_bytes(net, config, model):
    if config == "cpu":
        return 0
    fixed = {"ds_cnn": 8000 + 64 + 12, "mobilenet": 27648 + 2304 + 256 + 4, "resnet": 4096 + 64 + 12, "dae": 1280}[net]
    if config != "analog" or net not in ("ds_cnn", "mobilenet"):
        return fixed
    import onnx
    m = onnx.shape_inference.infer_shapes(onnx.load(model))
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in m.graph.value_info}
    convs = [n.output[0] for n in m.graph.node if n.op_type == "QLinearConv"]
    per = 0
    for y in convs[:-1]:
        sh = shapes[y]
        per += sh[0] * sh[1] * sh[2] * sh[3]
    return fixed + per


# TVM's fused kernel for one layout transform: out[4i + j] = in[4i + 3 - j]
LAYOUT_C = r"""
#define N %d
static int8_t src[N], dst[N];
static void init(void) { int i; for (i = 0; i < N; i++) src[i] = (int8_t)(i * 7); }
static void __attribute__((noinline)) work(void)
{
    int i, j;
    for (i = 0; i < N / 4; i++)
        for (j = 0; j < 4; j++) dst[4 * i + j] = src[4 * i + 3 - j];
}
static long check(void) { return dst[0] + dst[N - 1]; }
"""
# relay.cast to float + nn.softmax over the logits: max, expf (picolibc),
# sum, divide, in float32 with the F extension
SOFTMAX_C = r"""
#include <math.h>
#define N %d
static volatile int8_t logit[N];
static volatile float prob[N];
static void init(void) { int i; for (i = 0; i < N; i++) logit[i] = (int8_t)(i * 37 - 100); }
static void __attribute__((noinline)) work(void)
{
    float x[N], m, s = 0.0f;
    int i;
    for (i = 0; i < N; i++) x[i] = (float)logit[i];
    m = x[0];
    for (i = 1; i < N; i++) m = x[i] > m ? x[i] : m;
    for (i = 0; i < N; i++) { x[i] = expf(x[i] - m); s += x[i]; }
    for (i = 0; i < N; i++) prob[i] = x[i] / s;
}
static long check(void) { return (long)(prob[0] * 1e6f); }
"""
CLASSES = {"ds_cnn": 12, "mobilenet": 4, "resnet": 12, "dae": 0}


def htvm_extras(tmp):
    """RV32IMFC instructions of the CPU work HTVM's networks do and htc's do
    not: per byte of layout transform (over 8000 bytes) and the float
    softmax of each network's logits"""
    per_byte = rv32.snippet_count(LAYOUT_C % 8000, os.path.join(tmp, "lt"), rv32.FPU_FLAGS) / 8000.0
    soft = {}
    for net, n in CLASSES.items():
        soft[net] = rv32.snippet_count(SOFTMAX_C % n, os.path.join(tmp, "sm%d" % n), rv32.FPU_FLAGS, ["-lm"]) if n else 0
    return per_byte, soft


def htvm_table(tmp, nets=HTVM_NETS):
    """Table I on HTVM's own networks: every cell of the paper beside htc's"""
    try:
        rv32.check_tools()
    except rv32.Rv32Error as e:
        print("\nTable I, HTVM's networks: skipped - %s" % e)
        return
    hn = htvm_nets.ensure()
    how = ("GVSoC: " + gvsoc.CORE) if gvsoc.gvsoc_dir() else \
        ("no GVSoC (GVSOC=DIR): the CPU layers at targets/cpus/xpulpv2.lua's cycles (fitted on GVSoC), the issue"
         "\n  loops and glue as RV32IMFC instructions under qemu")
    print("\nTable I on HTVM's own networks (tests/zoo/htvm_nets.py: HTVM b216dde relay_*.py, layer for layer; shift-4"
          "\n  requantization, int8 input). The host (DIANA's RV32IMCFXpulpV2 core) runs htc's XpulpV2 kernels, measured"
          "\n  on %s;"
          "\n  + the device model's cycles of the offloaded layers, at 260 MHz. HTVM = the whole run; peak ="
          "\n  CPU kernels in full + each offloaded layer's accelerator jobs from trigger to completion (weight loads"
          "\n  included; no issue loops, no activation DMA). kB = .text + .rodata + .data of the RV32 object (device"
          "\n  model replaced by its API). cpu, digital: the int8 network; analog: the ternary one; mixed (the paper's"
          "\n  Both): the mixed one, -D dispatch=mixed; both: the mixed one, htc's cost dispatch (no paper cell)."
          "\n  Outputs bit-exact with onnxruntime (QOperator graph and its exact float twin). ratio = htc / paper;"
          "\n  '*': more than %.2fx off either way; 'how': how the CPU part was measured." % (how, OFF))
    print("%-10s %-10s %-8s %9s %9s %7s %8s %8s %7s  %s" % ("net", "cell", "config", "htc ms", "paper ms", "ratio", "htc kB",
                                                            "paper kB", "ratio", "how"))
    rows = {}
    for net in nets:
        r = htvm_row(net, hn, tmp)
        rows[net] = r
        lat, size = HTVM_PAPER[net]
        for k, (col, (cfg, meas)) in enumerate(zip(HTVM_COLUMNS, HTVM_CELLS)):
            v, kb = r[cfg][meas], r[cfg]["size"]["total"] / 1e3
            pl, ps = lat[k], size[k]
            rl = "%.2f%s" % (v / pl, "*" if not 1 / OFF <= v / pl <= OFF else "") if pl else "-"
            rs = "%.2f%s" % (kb / ps, "*" if not 1 / OFF <= kb / ps <= OFF else "")
            print("%-10s %-10s %-8s %9.2f %9s %7s %8.0f %8d %7s  %s" % (HTVM_NAMES[net], col, cfg, v,
                                                                       "%.2f" % pl if pl else "OoM", rl, kb, ps, rs,
                                                                       r[cfg]["how"]))
        for cfg, meas, col in (("mixed", "ms", "Both HTVM"), ("both", "peak_ms", "both peak"), ("both", "ms", "both HTVM")):
            print("%-10s %-10s %-8s %9.2f %9s %7s %8.0f %8s %7s  %s" % (HTVM_NAMES[net], col, cfg, r[cfg][meas], "-", "-",
                                                                       r[cfg]["size"]["total"] / 1e3, "-", "-",
                                                                       r[cfg]["how"]))
        sys.stdout.flush()
    per_byte, soft = htvm_extras(tmp)
    print("\nTable I, HTVM's networks, detail: instructions (CPU layers, of which the NCHW input's transpose; the"
          "\n  offloaded layers' issue loops), device cycles (timeline, trigger-to-completion), and the CPU work"
          "\n  HTVM's build does that htc's does not (measured on RV32IMFC: its layout transforms, %.2f instructions"
          "\n  per byte, and the float softmax: %s instructions), in ms" % (
              per_byte, ", ".join("%s %d" % (HTVM_NAMES[n], v) for n, v in soft.items() if v)))
    print("%-10s %-8s %11s %10s %8s %7s %10s %10s %8s %8s %9s  %s" % (
        "net", "config", "instr", "CPU layers", "transpose", "issue", "dev cyc", "trig cyc", "LT bytes", "LT ms",
        "softmax ms", "layers per engine"))
    for net, r in rows.items():
        for cfg, variant, _ in HTVM_CONFIGS:
            v = r[cfg]
            tr = 0
            for l in v["report"]["layers"]:
                if l["op"] == "transpose":
                    tr += 1
            lt = htvm_layout_bytes(net, cfg, os.path.join(hn, "%s_%s.onnx" % (net, variant)))
            v["layout_bytes"] = lt
            v["layout_ms"] = lt * per_byte / (rv32.MHZ * 1e3)
            v["softmax_ms"] = soft[net] / (rv32.MHZ * 1e3)
            print("%-10s %-8s %11d %10d %8s %7d %10d %10d %8d %8.3f %9.3f  %s" % (
                HTVM_NAMES[net], cfg, v["instr"], v["cpu_layers"], "yes" if tr else "-", v["issue"], v["dev_cycles"],
                v["trig"], lt, v["layout_ms"], v["softmax_ms"],
                ", ".join("%s %d" % kv for kv in sorted(v["engines"].items()) if not kv[0].endswith("reshape"))))
    return rows


def htvm_layers(net, config, tmp, seed=5):
    """`bench_diana.py --htvm-layers NET CONFIG`: one cell of the HTVM-network
    table layer by layer (RV32IMFC instructions, the device model's cycles
    and its trigger-to-completion cycles of offloaded layers)"""
    rv32.check_tools()
    variant, params = {c[0]: (c[1], c[2]) for c in HTVM_CONFIGS}[config]
    model = os.path.join(htvm_nets.ensure(), "%s_%s.onnx" % (net, variant))
    args = [a for p in params for a in ("-D", p)]
    rep = json.loads(subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + args, capture_output=True,
                                    text=True, check=True).stdout)
    x = oo.random_inputs(oo.ort_session(model), 1, seed)[0]
    h = os.path.join(tmp, "l.h")
    rv32.compile_header(oo.HTC, model, DIANA, h, args)
    if gvsoc.gvsoc_dir():
        c = gvsoc.firmware_cycles(h, os.path.join(tmp, "lgv"), b"".join(a.tobytes() for a in x))
        print("%s %s (%s): per layer, host cycles on %s (%d bytes of constants in L2); est = targets/diana.lua's "
              "estimate" % (HTVM_NAMES[net], config, " ".join(args), gvsoc.CORE, c["ro_l2"]))
        unit = "host cycles"
    else:
        c = rv32.firmware_count(h, os.path.join(tmp, "lfw"), b"".join(a.tobytes() for a in x), flags=rv32.FPU_FLAGS)
        print("%s %s (%s): per layer on RV32IMFC under qemu (portable kernels, no XpulpV2); est = targets/diana.lua's "
              "estimate (XpulpV2)" % (HTVM_NAMES[net], config, " ".join(args)))
        unit = "host instr"
    print("%5s %-11s %-8s %12s %10s %10s %10s %10s  %s" % ("layer", "op", "engine", unit, "est", "MACs", "dev cycles",
                                                           "trig", "why"))
    for l in rep["layers"]:
        host, _, cyc, trig = c["layers"].get(l["index"], (0, 0, 0, 0))
        off = l["engine"] != "riscv"
        print("%5d %-11s %-8s %12d %10s %10d %10s %10s  %s" % (l["index"], l["op"], l["engine"], host,
                                                               "-" if off else "%.0f" % l["est_cycles"], l["macs"],
                                                               cyc if off else "-", trig if off else "-", l["reason"]))


def layer_table(net, config, zoo, tmp, seed=5):
    """`bench_diana.py --layers NET CONFIG`: one Table I cell layer by layer
    (host instructions under qemu, the device model's instructions left out
    and its cycles, htc's estimate, the dispatch reason)"""
    rv32.check_tools()
    params, kind = {c[0]: (c[1], c[2]) for c in CONFIGS + CHECK}[config]
    model = os.path.join(zoo, "%s_%s_s8.onnx" % (net, kind))
    args = [a for p in params for a in ("-D", p)]
    rep = json.loads(subprocess.run([oo.HTC, "report", model, "-t", DIANA, "--json"] + args, capture_output=True,
                                    text=True, check=True).stdout)
    sess = oo.ort_session(model)
    x = oo.random_inputs(sess, 1, seed)[0]
    h = os.path.join(tmp, "l.h")
    rv32.compile_header(oo.HTC, model, DIANA, h, args)
    c = rv32.firmware_count(h, os.path.join(tmp, "lfw"), b"".join(a.tobytes() for a in x))
    print("%s %s (%s): per layer, host instructions (device model's left out), device cycles of offloaded layers"
          % (NAMES[net], config, " ".join(args)))
    print("%5s %-11s %-8s %12s %12s %10s %10s  %s" % ("layer", "op", "engine", "host instr", "model instr",
                                                       "dev cycles", "est", "why"))
    for l in rep["layers"]:
        host, mod, cyc, _ = c["layers"].get(l["index"], (0, 0, 0, 0))
        off = l["engine"] != "riscv"
        print("%5d %-11s %-8s %12d %12d %10s %10d  %s" % (l["index"], l["op"], l["engine"], host, mod,
                                                          cyc if off else "-", l["est_cycles"], l["reason"]))


def main():
    zoo = oo.ensure_zoo()
    tmp = tempfile.mkdtemp()
    if len(sys.argv) == 4 and sys.argv[1] == "--layers":
        layer_table(sys.argv[2], sys.argv[3], zoo, tmp)
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--htvm-layers" and sys.argv[2] in HTVM_NETS and \
            sys.argv[3] in [c[0] for c in HTVM_CONFIGS]:
        htvm_layers(sys.argv[2], sys.argv[3], tmp)
        return
    if sys.argv[1:] == ["--htvm"]:
        htvm_table(tmp)
        return
    if len(sys.argv) > 1:
        sys.exit("usage: bench_diana.py [--htvm | --layers kws|vww|resnet|ad %s | --htvm-layers %s %s]" % (
            "|".join(c[0] for c in CONFIGS + CHECK), "|".join(HTVM_NETS), "|".join(c[0] for c in HTVM_CONFIGS)))
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
    htvm_table(tmp)
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
