#!/usr/bin/env python3
"""bench/bench.py - `make bench`: for each MLPerf Tiny model print

  compile   median wall time of `htc compile` (ms, whole process)
  htc       host time per inference of the generated header (`htc run --repeat N`,
            compiled by $CC -O2 as htc run does)
  ref       the TFLite interpreter with its reference kernels (BUILTIN_REF),
            measured in the same run: invoke() timed over many iterations
            after warm-up
  htc vs ref  ref time / htc time ("2.0x faster": the generated code takes half the time)
  opt       for context: the interpreter with its default optimised kernels
            (XNNPACK, one thread), and htc vs opt
  arena     bytes of the arena the header asks for (htc report --json)
  weights   bytes of constant data (htc report --json)

It measures and prints; it asserts nothing. Environment: HTC (default ./htc),
HTC_MODELS (default ../shared/models/mlperf_tiny), BENCH_SECONDS (time per
measurement, default 1.0), CC.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
TARGET = os.path.join(REPO, "targets", "cpu.lua")
MODELS_DIR = os.path.abspath(os.path.join(REPO, os.environ.get("HTC_MODELS") or "../shared/models/mlperf_tiny"))
MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
SECONDS = float(os.environ.get("BENCH_SECONDS") or 1.0)
COMPILE_RUNS = 7


def htc(*args):
    p = subprocess.run([HTC] + [str(a) for a in args], capture_output=True, text=True, cwd=REPO)
    if p.returncode != 0:
        raise RuntimeError("htc %s failed: %s" % (" ".join(map(str, args)), p.stderr.strip()))
    return p.stdout


def compile_ms(model, tmp):
    out = os.path.join(tmp, "bench.h")
    times = []
    for _ in range(COMPILE_RUNS):
        t = time.perf_counter()
        htc("compile", model, "-t", TARGET, "-o", out, "--name", "bench")
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), os.path.getsize(out)


def htc_us(model, tmp, in_arrays):
    args = ["run", model, "-t", TARGET]
    for k, a in enumerate(in_arrays):
        p = os.path.join(tmp, "in%d.bin" % k)
        a.tofile(p)
        args += ["--input", p]
    for k in range(n_outputs(model)):
        args += ["--output", os.path.join(tmp, "out%d.bin" % k)]

    def once(n):
        out = htc(*args, "--repeat", n)
        m = re.search(r"htc run: (\d+) inferences, ([0-9.]+) us per inference", out)
        if not m:
            raise RuntimeError("no timing line in htc run output: %r" % out)
        return float(m.group(2))

    est = once(10)                                  # estimate, then ~SECONDS of inferences
    n = int(min(max(SECONDS * 1e6 / max(est, 1e-3), 20), 1_000_000))
    return once(n), n


_interp = {}


def interp_us(model, in_arrays, resolver):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    kind = {"ref": OpResolverType.BUILTIN_REF, "opt": OpResolverType.AUTO}[resolver]
    it = Interpreter(model_path=model, experimental_op_resolver_type=kind, num_threads=1)
    it.allocate_tensors()
    for d, a in zip(it.get_input_details(), in_arrays):
        it.set_tensor(d["index"], a.reshape(d["shape"]))
    for _ in range(5):                              # warm-up
        it.invoke()
    t0 = time.perf_counter()
    it.invoke()
    est = max(time.perf_counter() - t0, 1e-7)
    n = int(min(max(SECONDS / est, 20), 1_000_000))
    t0 = time.perf_counter()
    for _ in range(n):
        it.invoke()
    return (time.perf_counter() - t0) / n * 1e6, n


def n_outputs(model):
    from ai_edge_litert.interpreter import Interpreter
    if model not in _interp:
        it = Interpreter(model_path=model)
        _interp[model] = (it.get_input_details(), it.get_output_details())
    return len(_interp[model][1])


def inputs(model):
    n_outputs(model)
    rng = np.random.default_rng(7)
    xs = []
    for d in _interp[model][0]:
        ii = np.iinfo(d["dtype"])
        xs.append(rng.integers(ii.min, ii.max + 1, size=d["shape"], dtype=np.int64).astype(d["dtype"]))
    return xs


def ratio(peer_us, htc_us):
    r = peer_us / htc_us
    return "%.2fx faster" % r if r >= 1 else "%.2fx slower" % (1 / r)


def fmt_bytes(n):
    return "%d" % n if n < 10 * 1024 else "%.1f KiB" % (n / 1024.0)


def main():
    if not os.access(HTC, os.X_OK):
        sys.exit("bench: no %s (run make first)" % HTC)
    print("htc bench: target %s, models in %s, CC=%s, %.1f s per timing" % (
        os.path.relpath(TARGET, REPO), MODELS_DIR, os.environ.get("CC", "cc"), SECONDS))
    rows = []
    with tempfile.TemporaryDirectory(prefix="htc-bench-") as tmp:
        for name in MODELS:
            model = os.path.join(MODELS_DIR, name + ".tflite")
            if not os.path.isfile(model):
                print("%s: not found" % model)
                continue
            try:
                rep = json.loads(htc("report", model, "-t", TARGET, "--json"))
                c_ms, hdr_bytes = compile_ms(model, tmp)
                xs = inputs(model)
                h_us, h_n = htc_us(model, tmp, xs)
                r_us, r_n = interp_us(model, xs, "ref")
                o_us, o_n = interp_us(model, xs, "opt")
            except Exception as e:  # a benchmark reports, it does not stop
                print("%s: %s" % (name, e))
                continue
            rows.append((name, c_ms, h_us, h_n, r_us, r_n, o_us, rep.get("arena_bytes"), rep.get("weight_bytes"),
                         hdr_bytes, len(rep.get("layers", []))))

    head = ("model", "layers", "compile ms", "htc us/inf", "ref us/inf", "htc vs ref", "opt us/inf", "htc vs opt",
            "arena", "weights", "header")
    table = [head]
    for (name, c_ms, h_us, h_n, r_us, r_n, o_us, arena, weights, hdr, nl) in rows:
        table.append((name, str(nl), "%.1f" % c_ms, "%.1f" % h_us, "%.1f" % r_us, ratio(r_us, h_us),
                      "%.1f" % o_us, ratio(o_us, h_us), fmt_bytes(arena) if arena is not None else "?",
                      fmt_bytes(weights) if weights is not None else "?", fmt_bytes(hdr)))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    print()
    for k, r in enumerate(table):
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            print("  ".join("-" * w for w in widths))
    print()
    memory_table()
    onnx_table()
    print("compile: median of %d `htc compile` processes; htc: generated header built with the host compiler"
          " (-O2), `htc run --repeat N`;" % COMPILE_RUNS)
    print("ref: TFLite interpreter, reference kernels (BUILTIN_REF), same inputs, same run; opt: default kernels"
          " (for context);\n"
          "htc vs X: X's time / htc's time (\"faster\": htc's generated code is faster than X).")


CROSS = (("arm", "arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb"),
         ("rv32", "riscv64-unknown-elf-gcc --specs=picolibc.specs -march=rv32imc -misa-spec=2.2 -mabi=ilp32"))


def memory_table():
    """The static memory plan against its lower bound and against greedy by
    size (TFLite Micro's planner), planning time, and total RAM with the
    stack measured by each cross compiler."""
    head = ("model", "arena", "lower bound", "greedy by size", "arena/greedy", "plan ms", "stack arm",
            "stack rv32", "RAM arm", "method")
    table = [head]
    for name in MODELS:
        model = os.path.join(MODELS_DIR, name + ".tflite")
        args = []
        for _, cc in CROSS:
            args += ["--stack-cc", cc]
        try:
            rep = json.loads(htc("report", model, "-t", TARGET, "--json", *args))
        except Exception as e:  # a benchmark reports, it does not stop
            print("%s: %s" % (name, e))
            continue
        st = {s["cc"]: s for s in rep["stack"]}
        table.append((name, str(rep["arena_bytes"]), str(rep["arena_lower_bound"]), str(rep["arena_greedy"]),
                      "%.3f" % (rep["arena_bytes"] / max(rep["arena_greedy"], 1)), "%.3f" % rep["plan_total_ms"],
                      str(st[CROSS[0][1]]["bytes"]), str(st[CROSS[1][1]]["bytes"]), str(st[CROSS[0][1]]["ram_bytes"]),
                      rep["plan_method"]))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    print()
    for k, r in enumerate(table):
        print("  ".join(c.ljust(w) if i in (0, len(head) - 1) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            print("  ".join("-" * w for w in widths))
    print()
    print("memory: bytes; greedy by size is TFLite Micro's GreedyMemoryPlanner strategy, computed in the same run;")
    print("stack: deepest frame chain below NAME_run from -fstack-usage/-fcallgraph-info; RAM = arena + stack.")
    print()


ONNX_MODELS = [(net, form) for net in ("kws", "vww", "resnet", "ad")
               for form in ("qdq_s8", "qdq_u8", "qop_s8", "qop_u8")]


# onnxruntime computes some groups of these in float: htc --float-fallback
FLOAT_FALLBACK = {"resnet_qdq_s8"}


def ort_us(sess, feed):
    for _ in range(5):                              # warm-up
        sess.run(None, feed)
    t0 = time.perf_counter()
    sess.run(None, feed)
    est = max(time.perf_counter() - t0, 1e-7)
    n = int(min(max(SECONDS / est, 20), 1_000_000))
    t0 = time.perf_counter()
    for _ in range(n):
        sess.run(None, feed)
    return (time.perf_counter() - t0) / n * 1e6


def onnx_table():
    """The ONNX zoo (tests/zoo/zoo.py, built into $HTC_ZOO): htc's generated
    code against onnxruntime (CPU provider, one thread, default graph
    optimisations) on the same input, in the same run."""
    sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
    try:
        import ort_oracle as O
        zoo = O.ensure_zoo()
    except Exception as e:  # a benchmark reports, it does not stop
        print("onnx: %s" % e)
        return
    head = ("onnx model", "compile ms", "htc us/inf", "ort us/inf", "htc vs ort", "bit-exact")
    table = [head]
    with tempfile.TemporaryDirectory(prefix="htc-bench-onnx-") as tmp:
        for net, form in ONNX_MODELS:
            name = "%s_%s" % (net, form)
            model = os.path.join(zoo, name + ".onnx")
            flags = ["--float-fallback"] if name in FLOAT_FALLBACK else []
            try:
                t0 = time.perf_counter()
                O.htc("compile", model, "-t", TARGET, "-o", os.path.join(tmp, "c.h"), *flags)
                c_ms = (time.perf_counter() - t0) * 1e3
                exe = O.build(model, os.path.join(tmp, name), flags=flags)
                sess = O.ort_session(model, exact=False)   # timed: the model as users run it
                xs = O.random_inputs(sess, 1, 7)
                est = float(O.run(exe, os.path.join(tmp, name), xs, repeat=10)[1].split()[0])
                n = int(min(max(SECONDS * 1e6 / max(est, 1e-3), 20), 1_000_000))
                got, out = O.run(exe, os.path.join(tmp, name), xs, repeat=n)
                h_us = float(out.split()[0])
                feed = dict(zip([i.name for i in sess.get_inputs()], xs[0]))
                o_us = ort_us(sess, feed)
                exact = "yes" if got == O.ort_outputs(O.ort_session(model), xs) else "NO"
            except Exception as e:  # a benchmark reports, it does not stop
                table.append((name, "-", "-", "-", "-", str(e).split("\n")[0][-60:]))
                continue
            table.append((name, "%.1f" % c_ms, "%.1f" % h_us, "%.1f" % o_us, ratio(o_us, h_us), exact))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for k, r in enumerate(table):
        print("  ".join(c.ljust(w) if i in (0, len(head) - 1) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            print("  ".join("-" * w for w in widths))
    print()
    print("onnx: zoo models (tests/zoo/zoo.py); htc: generated header, cc -O2, one input repeated; ort: onnxruntime")
    print("CPU provider, 1 thread, default graph optimisations, same input, same run; int8 ResNet QDQ is compiled")
    print("with --float-fallback (onnxruntime computes its residual groups in float; htc does too, bit-exact).")
    print()


if __name__ == "__main__":
    main()
