"""test_plan.py - the static memory plan, checked independently of htc.

For the four MLPerf Tiny models and for random branching graphs: every
arena buffer lies inside the arena, aligned, and no two buffers live at the
same step share a byte (checked here from `htc report --json`, not by htc);
the arena equals the lower bound on the MLPerf models; and `htc run
--check` (AddressSanitizer poisons everything but a layer's planned
buffers) runs bit-exact against the TFLite reference interpreter.
"""
import json
import os

import numpy as np
import pytest

import oracle
from tflite_build import Model

MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")


def report(path):
    r = oracle.htc("report", path, "-t", oracle.TARGET, "--json")
    return json.loads(r.stdout)


def check_plan(rep):
    """Independent plan checker; returns the number of arena buffers."""
    arena, align = rep["arena_bytes"], 16
    bufs = [b for b in rep["buffers"] if b["storage"] == "arena"]
    roots = {b["tensor"]: b for b in bufs}
    for b in rep["buffers"]:
        # an alias (reshape, in-place op, concat slice) lies inside its root
        if b["storage"] == "alias" and b["root"] in roots:
            r = roots[b["root"]]
            assert r["offset"] <= b["offset"] and b["offset"] + b["bytes"] <= r["offset"] + r["bytes"], (b, r)
            assert r["first"] <= b["first"] and b["last"] <= r["last"], (b, r)
    for b in bufs:
        assert b["offset"] % align == 0, b
        assert 0 <= b["offset"] and b["offset"] + b["bytes"] <= arena, b
        assert b["first"] <= b["last"], b
    for i, a in enumerate(bufs):
        for c in bufs[i + 1:]:
            live_together = a["first"] <= c["last"] and c["first"] <= a["last"]
            disjoint = a["offset"] + a["bytes"] <= c["offset"] or c["offset"] + c["bytes"] <= a["offset"]
            assert not live_together or disjoint, "buffers %s and %s overlap while both live" % (a["name"], c["name"])
    # the lower bound is what this checker computes too
    steps = max([b["last"] for b in bufs] + [0]) + 1
    live = [sum(-(-b["bytes"] // align) * align for b in bufs if b["first"] <= s <= b["last"]) for s in range(steps)]
    assert rep["arena_lower_bound"] == max(live + [0])
    assert rep["arena_bytes"] >= rep["arena_lower_bound"]
    assert rep["arena_bytes"] <= rep["arena_greedy"]
    return len(bufs)


def run_checked(path, seed):
    """htc run --check with --dump, compared with the interpreter."""
    info = oracle.ModelInfo(path)
    inputs = info.random_inputs(seed)
    ref_outs, ref_tensors = oracle.run_interpreter(path, inputs)
    import tempfile, shutil
    d = tempfile.mkdtemp(prefix="htc-plan-")
    try:
        args = ["run", path, "-t", oracle.TARGET, "--check", "--dump", os.path.join(d, "dump")]
        for k, x in enumerate(inputs):
            p = os.path.join(d, "in%d.bin" % k)
            np.ascontiguousarray(x).tofile(p)
            args += ["--input", p]
        for k in range(len(info.outputs)):
            args += ["--output", os.path.join(d, "out%d.bin" % k)]
        oracle.htc(*args)
        outs = [oracle._decode(open(os.path.join(d, "out%d.bin" % k), "rb").read(), info.tensors[i])
                for k, i in enumerate(info.outputs)]
        dumps = oracle._read_dumps(info, os.path.join(d, "dump"))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
    assert not errors, "\n".join(errors)
    assert compared == len(info.op_outputs()) > 0


@pytest.mark.parametrize("name", MODELS)
def test_mlperf_plan_optimal(name):
    path = os.path.join(oracle.MODELS, name + ".tflite")
    rep = report(path)
    assert check_plan(rep) > 0
    assert rep["arena_bytes"] == rep["arena_lower_bound"], rep["plan_method"]
    assert rep["plan_ms"] < 1000


@pytest.mark.parametrize("name", MODELS)
def test_mlperf_checked_run(name):
    run_checked(os.path.join(oracle.MODELS, name + ".tflite"), 7)


def random_graph(seed, path):
    """A random branching int8 graph: convs, adds (in place candidates),
    concats, pools, reshapes and logistics over a few live branches."""
    rng = np.random.default_rng(seed)
    m = Model("random plan graph %d" % seed)
    x = m.input([1, 8, 8, 4], scale=0.05, zp=0)
    live = [x]
    for _ in range(int(rng.integers(6, 14))):
        a = live[int(rng.integers(len(live)))]
        kind = rng.choice(["conv", "conv", "add", "concat", "pool", "reshape", "logistic"])
        sh = m.shape(a)
        if kind == "conv":
            y = m.conv2d(a, out_ch=int(rng.choice([2, 4, 8])), kernel=int(rng.choice([1, 3])), rng=rng,
                         act="RELU" if rng.random() < 0.5 else None)
        elif kind == "add":
            same = [t for t in live if m.shape(t) == sh]
            b = same[int(rng.integers(len(same)))]
            y = m.add(a, b, out_scale=0.08, out_zp=int(rng.integers(-5, 5)))
        elif kind == "concat" and len(sh) == 4:
            # axis 1 is contiguous slices: the producers write in place
            axis = int(rng.choice([1, 3]))
            keep = [d for d in range(4) if d != axis]
            same = [t for t in live if t != a and [m.shape(t)[d] for d in keep] == [sh[d] for d in keep]
                    and m.quant(t) == m.quant(a)]
            if not same:
                continue
            b = same[int(rng.integers(len(same)))]
            y = m.concat([a, b], axis=axis)
        elif kind == "pool" and len(sh) == 4 and sh[1] >= 2:
            y = m.pool("avg", a, filter=2, stride=1, padding="SAME")
        elif kind == "reshape" and len(sh) == 4:
            y = m.reshape(a, [1, sh[1] * sh[2], sh[3], 1])
        elif kind == "logistic" and len(sh) == 4:
            y = m.logistic(a)
        else:
            continue
        live.append(y)
        if rng.random() < 0.3 and len(live) > 2:
            live.pop(int(rng.integers(1, len(live) - 1)))
    m.output(live[-1])
    if len(live) > 2 and live[-2] != x:
        m.output(live[-2])
    m.save(path)


@pytest.mark.parametrize("seed", range(16))
def test_random_graph_plan(seed, tmp_path):
    path = str(tmp_path / ("g%d.tflite" % seed))
    random_graph(seed, path)
    rep = report(path)
    check_plan(rep)
    run_checked(path, seed)


def test_svg_lists_every_buffer(tmp_path):
    """report --svg draws one named rectangle per arena buffer."""
    path = os.path.join(oracle.MODELS, "pretrainedResnet_quant.tflite")
    svg = str(tmp_path / "plan.svg")
    oracle.htc("report", path, "-t", oracle.TARGET, "--svg", svg)
    rep = report(path)
    text = open(svg).read()
    n = sum(1 for b in rep["buffers"] if b["storage"] == "arena")
    assert text.count('class="buffer"') == n > 0
    for b in rep["buffers"]:
        if b["storage"] == "arena":
            assert 'data-tensor="' in text and ("(tensor %d)" % b["tensor"]) in text


@pytest.mark.parametrize("name", MODELS)
def test_svg_renders_in_browser(name, tmp_path):
    """Headless Chromium renders the plan; every buffer gets a visible box."""
    import shutil
    import subprocess
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is not installed (bash .ci/deps.sh all installs it)"
    path = os.path.join(oracle.MODELS, name + ".tflite")
    svg = tmp_path / "plan.svg"
    oracle.htc("report", path, "-t", oracle.TARGET, "--svg", str(svg))
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><html><body>" + svg.read_text() + """
<script>
var n = 0, empty = 0;
document.querySelectorAll('g.buffer rect').forEach(function (r) {
  var b = r.getBoundingClientRect();
  if (b.width > 0 && b.height > 0) n++; else empty++;
});
document.title = 'rendered=' + n + ' empty=' + empty;
</script></body></html>""")
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--user-data-dir=" + str(tmp_path / "profile"), "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    n = sum(1 for b in report(path)["buffers"] if b["storage"] == "arena")
    assert ("<title>rendered=%d empty=0</title>" % n) in r.stdout, r.stdout[-500:] + r.stderr[-500:]


CROSS = ("arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb",
         "riscv64-unknown-elf-gcc --specs=picolibc.specs -march=rv32imc -misa-spec=2.2 -mabi=ilp32")


@pytest.mark.parametrize("name", MODELS)
def test_total_ram_with_measured_stack(name, tmp_path):
    """--stack-cc: the run function's stack from the cross compilers'
    -fstack-usage/-fcallgraph-info, in the report and as header macros."""
    path = os.path.join(oracle.MODELS, name + ".tflite")
    args = []
    for cc in CROSS:
        args += ["--stack-cc", cc]
    rep = json.loads(oracle.htc("report", path, "-t", oracle.TARGET, "--json", *args).stdout)
    assert [s["cc"] for s in rep["stack"]] == list(CROSS)
    for s in rep["stack"]:
        assert 0 < s["bytes"] < 16384 and s["ram_bytes"] == rep["arena_bytes"] + s["bytes"]
    hdr = tmp_path / "m.h"
    oracle.htc("compile", path, "-t", oracle.TARGET, "-o", str(hdr), "--name", "m", *args)
    text = hdr.read_text()
    for tag, s in zip(("ARM_NONE_EABI_GCC", "RISCV64_UNKNOWN_ELF_GCC"), rep["stack"]):
        assert "#define M_STACK_SIZE_%s %d\n" % (tag, s["bytes"]) in text
        assert "#define M_RAM_SIZE_%s (M_ARENA_SIZE + M_STACK_SIZE_%s)" % (tag, tag) in text


def test_host_stack_dynamic_bounded():
    """The host compiler realigns the AVX2 convolution's frame: gcc reports
    it "dynamic,bounded" with its bound, which counts (a plain "dynamic"
    frame would not); VWW's run function gets a measured stack."""
    path = os.path.join(oracle.MODELS, "vww_96_int8.tflite")
    rep = json.loads(oracle.htc("report", path, "-t", oracle.TARGET, "--json", "--stack-cc", "gcc -O2").stdout)
    (s,) = rep["stack"]
    assert s["cc"] == "gcc -O2" and 0 < s["bytes"] < 65536, s
    assert s["ram_bytes"] == rep["arena_bytes"] + s["bytes"]
