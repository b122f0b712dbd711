"""tests/test_cluster.py - multi-core clusters (targets/siracusa.lua, cores
1..8): every MLPerf Tiny model and every Deeploy network of
../shared/deeploy-tests with cores = 1, 2, 3 and 8, bit-exact against
TFLite Micro's interpreter (outputs and every operator's output) and
Deeploy's outputs.npz; cores = 8 gives the bytes of cores = 1 (every
dumped tensor). The header's default HTC_PAR_RUN runs each core's share in
turn, so each share is computed by the kernels' parallel entry points
exactly as on a cluster; examples/cluster runs them on threads
(test_threads_tsan)."""
import json
import re
import os
import subprocess

import numpy as np
import pytest

import oracle
import test_deeploy

REPO = oracle.REPO
SIRACUSA = os.path.join(REPO, "targets", "siracusa.lua")
MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
CORES = (1, 2, 3, 8)

_runs = {}


def tiny(name, cores):
    """One input set (seed 0) through the siracusa header built for `cores`."""
    key = (name, cores)
    if key not in _runs:
        path = os.path.join(oracle.MODELS, name + ".tflite")
        assert os.path.isfile(path), path
        info = oracle.ModelInfo(path)
        inputs = info.random_inputs(20_000)
        (outs, dumps), = oracle.run_htc_batch(path, [inputs], target=SIRACUSA, name="m", args=("-D", "cores=%d" % cores))
        _runs[key] = (info, inputs, outs, dumps)
    return _runs[key]


def parallel_layers(model, cores, extra=()):
    """The report's layers that run forked over the cluster."""
    r = subprocess.run([oracle.HTC, "report", model, "-t", SIRACUSA, "-D", "cores=%d" % cores, "--json", *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [l for l in json.loads(r.stdout)["layers"] if l.get("cores", 1) > 1]


@pytest.mark.parametrize("cores", CORES)
@pytest.mark.parametrize("name", MODELS)
def test_tiny_tflm(name, cores):
    info, inputs, outs, dumps = tiny(name, cores)
    ref_outs, ref_tensors = oracle.run_interpreter(info.path, inputs)
    errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label="cores=%d: " % cores)
    assert not errors, "%s cores=%d: %d mismatches:\n%s" % (name, cores, len(errors), "\n".join(errors[:10]))
    assert compared == len(info.op_outputs()) > 0
    if cores > 1:   # the convolutions and fully connected layers really are divided
        par = parallel_layers(info.path, cores)
        assert any(l["op"] in ("conv2d", "fc") for l in par), par


@pytest.mark.parametrize("name", MODELS)
def test_tiny_8_equals_1(name):
    _, _, outs1, dumps1 = tiny(name, 1)
    _, _, outs8, dumps8 = tiny(name, 8)
    assert sorted(dumps1) == sorted(dumps8) and dumps1
    for k in dumps1:
        assert np.asarray(dumps1[k]).tobytes() == np.asarray(dumps8[k]).tobytes(), "tensor %d" % k
    for a, b in zip(outs1, outs8):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def deeploy_run(net, cores, tmp):
    d = os.path.join(test_deeploy.TESTS, net)
    out = os.path.join(tmp, "out%d.npz" % cores)
    dump = os.path.join(tmp, "dump%d" % cores)
    r = subprocess.run([oracle.HTC, "run", os.path.join(d, "network.onnx"), "-t", SIRACUSA, "-D", "cores=%d" % cores,
                        "--input", os.path.join(d, "inputs.npz"), "--output", out, "--dump", dump],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return np.load(out), dump


@pytest.mark.parametrize("net", test_deeploy.NETS)
def test_deeploy_cores(net, tmp_path):
    d = os.path.join(test_deeploy.TESTS, net)
    want = np.load(os.path.join(d, "outputs.npz"))
    dumps = {}
    for cores in CORES:
        got, dumps[cores] = deeploy_run(net, cores, str(tmp_path))
        assert len(got.files) == len(want.files)
        for gk, wk in zip(got.files, want.files):
            w = want[wk].astype(np.int64)
            g = got[gk].astype(np.int64)
            assert g.size == w.size and np.array_equal(g.reshape(w.shape), w), "cores=%d %s differs" % (cores, wk)
    files = sorted(os.listdir(dumps[1]))
    assert files and files == sorted(os.listdir(dumps[8]))
    for f in files:
        with open(os.path.join(dumps[1], f), "rb") as a, open(os.path.join(dumps[8], f), "rb") as b:
            assert a.read() == b.read(), "%s: cores=8 differs from cores=1 at tensor %s" % (net, f)


@pytest.mark.parametrize("net", test_deeploy.NETS)
def test_deeploy_xpulpv2_twin(net, tmp_path):
    """Deeploy's networks through the kernels' XpulpV2 paths (-DHTC_XPULPV2
    on the host: each instruction's C twin, htc.h HTC__XP; QuantLib's
    Conv / MatMul / MaxPool on the cluster's fast paths) on 8 cores' shares:
    Deeploy's outputs, and the bytes of the portable build."""
    d = os.path.join(test_deeploy.TESTS, net)
    cc = tmp_path / "cc-xpulpv2"
    cc.write_text('#!/bin/sh\nexec "${HTC_TEST_CC:-cc}" -DHTC_XPULPV2 "$@"\n')
    cc.chmod(0o755)
    want = np.load(os.path.join(d, "outputs.npz"))
    outs = {}
    for label, env in (("xpulpv2", dict(os.environ, CC=str(cc))), ("portable", dict(os.environ))):
        out = str(tmp_path / ("out-%s.npz" % label))
        r = subprocess.run([oracle.HTC, "run", os.path.join(d, "network.onnx"), "-t", SIRACUSA, "-D", "cores=8",
                            "--input", os.path.join(d, "inputs.npz"), "--output", out],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        outs[label] = np.load(out)
    got = outs["xpulpv2"]
    assert len(got.files) == len(want.files)
    for gk, wk, pk in zip(got.files, want.files, outs["portable"].files):
        w = want[wk].astype(np.int64)
        g = got[gk].astype(np.int64)
        assert g.size == w.size and np.array_equal(g.reshape(w.shape), w), "%s differs from Deeploy's" % wk
        assert np.array_equal(got[gk], outs["portable"][pk])


@pytest.mark.parametrize("net,adds", (("Kernel_Integer_Add_Regular_RQ", 1), ("Kernel_Integer_Attention", 2),
                                      ("microLlama_INT8_microLlama1", 16)))
def test_ql_add_tables(net, adds, tmp_path):
    """QuantLib's Adds with a RequantShift through their tables in final
    form (mem=l1: gen/quant.c quant_qladd, checked on every pair of bytes;
    kernels/mul.c htc__ql_xadd, htc.h htc__xadd_run): the header names the
    kernel for each such Add, and the XpulpV2 build (each instruction's C
    twin) and the portable one both give Deeploy's outputs."""
    d = os.path.join(test_deeploy.TESTS, net)
    flags = ["-t", SIRACUSA, "-D", "cores=8", "-D", "mem=l1", "--input", os.path.join(d, "inputs.npz")]
    hdr = tmp_path / "m.h"
    r = subprocess.run([oracle.HTC, "compile", os.path.join(d, "network.onnx"), "-o", str(hdr), "--name", "m"] + flags,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = hdr.read_text()
    assert len(re.findall(r"htc__ql_xadd(?:_par)?\(&m__layer\d+_params", text)) == adds
    assert len(re.findall(r"static const int32_t m__layer\d+_xq\[513\]", text)) == adds
    cc = tmp_path / "cc-xpulpv2"
    cc.write_text('#!/bin/sh\nexec "${HTC_TEST_CC:-cc}" -DHTC_XPULPV2 "$@"\n')
    cc.chmod(0o755)
    want = np.load(os.path.join(d, "outputs.npz"))
    for label, env in (("xpulpv2", dict(os.environ, CC=str(cc))), ("portable", dict(os.environ))):
        out = str(tmp_path / ("out-%s.npz" % label))
        r = subprocess.run([oracle.HTC, "run", os.path.join(d, "network.onnx"), "--output", out] + flags,
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        got = np.load(out)
        for gk, wk in zip(got.files, want.files):
            w = want[wk].astype(np.int64)
            assert np.array_equal(got[gk].astype(np.int64).reshape(w.shape), w), "%s %s differs from Deeploy's" % (label, wk)


@pytest.mark.parametrize("name,records,mem", (("kws_ref_model", 8, "l1"), ("vww_96_int8", 8, "l1"), ("pretrainedResnet_quant", 4, "l1"),
                                              ("vww_96_int8", 27, "tile")))
def test_tiny_xpulpv2_twin(name, records, mem, tmp_path):
    """The .tflite models through the kernels' XpulpV2 paths (-DHTC_XPULPV2
    on the host, each instruction's C twin) on 8 cores' shares, TFLite's
    requantization in final form where the generator found it exact
    (htc__conv_params.xq2, gen/quant.c quant_xq2, a dense layer's
    three-product quant_xq3, weight sums folded at compile time; ResNet's
    four layers with a fused ReLU, right shifts 7..11; its ADDs on
    htc__add_xp):
    every layer's output equals the portable build's, which test_tiny_tflm
    holds to TFLite Micro. mem=tile (constants in L2): the records of the
    depthwise layers, and of the dense ones moved into L1 with their
    weights (siracusa.lua cpu.requant_records "tiled"), MobileNetV1's 13
    and 11 (test_l1_records_xpulpv2 runs them from L1); its 27 with
    records include 20, 22 and 24, whose windows quant_xq3 cuts to the
    accumulators their int8 inputs and weights reach."""
    path = os.path.join(oracle.MODELS, name + ".tflite")
    hdr = tmp_path / "m.h"
    # mem=l1: every layer's records with the constants in L1 (siracusa.lua cpu.requant_records)
    r = subprocess.run([oracle.HTC, "compile", path, "-t", SIRACUSA, "-D", "cores=8", "-D", "mem=" + mem, "-o", str(hdr), "--name", "m"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    n = len(re.findall(r"static const int32_t m__layer\d+_xq\[", hdr.read_text()))
    assert n >= records, "%s: only %d layers with final-form requantization records" % (name, n)
    if mem == "tile":
        assert n == records, "%s mem=tile: %d layers with records, want %d" % (name, n, records)
    info = oracle.ModelInfo(path)
    inp = tmp_path / "in.npz"
    np.savez(str(inp), *info.random_inputs(7))
    cc = tmp_path / "cc-xpulpv2"
    cc.write_text('#!/bin/sh\nexec "${HTC_TEST_CC:-cc}" -DHTC_XPULPV2 "$@"\n')
    cc.chmod(0o755)
    dumps = {}
    for label, env in (("xpulpv2", dict(os.environ, CC=str(cc))), ("portable", dict(os.environ))):
        d = tmp_path / ("dump-" + label)
        r = subprocess.run([oracle.HTC, "run", path, "-t", SIRACUSA, "-D", "cores=8", "-D", "mem=" + mem, "--input", str(inp),
                            "--output", str(tmp_path / ("out-%s.npz" % label)), "--dump", str(d)],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        dumps[label] = {f: (d / f).read_bytes() for f in os.listdir(d)}
    assert dumps["xpulpv2"] and sorted(dumps["xpulpv2"]) == sorted(dumps["portable"])
    for f, b in dumps["portable"].items():
        assert dumps["xpulpv2"][f] == b, "%s: tensor %s differs between the XpulpV2 twin and the portable build" % (name, f)


@pytest.mark.parametrize("name", MODELS)
def test_threads_tsan(name, tmp_path):
    """examples/cluster: HTC_PAR_RUN on 8 POSIX threads (examples/common/
    htc_pool.h) and the L1 tiles' bands moved by a DMA thread into a
    separate L1 buffer (MODEL_L1), built with ThreadSanitizer (any data
    race fails the run: a missing HTC_DMA_WAIT would be one); four runs,
    so every layer goes through the pool's choices (divided, one core,
    divided, the faster), each output equal to the first; the output equals
    TFLite Micro's."""
    path = os.path.join(oracle.MODELS, name + ".tflite")
    info = oracle.ModelInfo(path)
    assert len(info.inputs) == 1 and len(info.outputs) == 1
    inputs = info.random_inputs(30_000)
    oracle.htc("compile", path, "-t", SIRACUSA, "-D", "cores=8", "-o", str(tmp_path / "model.h"), "--name", "model")
    exe = str(tmp_path / "cluster")
    c = subprocess.run([oracle.CC, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O1", "-g", "-fsanitize=thread", "-pthread",
                        "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path), "-I", os.path.join(REPO, "examples", "common"),
                        os.path.join(REPO, "examples", "cluster", "main.c"), "-o", exe], capture_output=True, text=True)
    assert c.returncode == 0, c.stderr[-3000:]
    x = inputs[0]
    np.ascontiguousarray(x, dtype=info.tensors[info.inputs[0]]["dtype"]).tofile(str(tmp_path / "in.bin"))
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1 exitcode=66")
    r = subprocess.run([exe, str(tmp_path / "in.bin"), str(tmp_path / "out.bin"), "4"], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0 and "WARNING: ThreadSanitizer" not in r.stderr, r.stderr[-3000:]
    assert "8 cores (8 threads), 4 runs" in r.stdout, r.stdout
    par = parallel_layers(path, 8)
    assert len(par) >= 3, par
    ref_outs, _ = oracle.run_interpreter(path, inputs)
    want = np.ascontiguousarray(ref_outs[0]).tobytes()
    got = open(str(tmp_path / "out.bin"), "rb").read()
    assert got == want, "%s: the threaded run differs from TFLite Micro" % name


def test_l1_records_xpulpv2(tmp_path):
    """MobileNetV1 mem=tile (siracusa.lua cpu.requant_records "tiled"): its
    dense layers with records (pruned channels' constant ones among them)
    read them from L1, where the band run moves
    them with the weights (gen/emit.c emit_band_run); examples/cluster
    built with -DHTC_XPULPV2 (each instruction's C twin), its bands moved
    by the DMA thread into MODEL_L1: the output equals TFLite Micro's."""
    name = "vww_96_int8"
    path = os.path.join(oracle.MODELS, name + ".tflite")
    hdr = tmp_path / "model.h"
    oracle.htc("compile", path, "-t", SIRACUSA, "-D", "cores=8", "-D", "mem=tile", "-o", str(hdr), "--name", "model")
    text = hdr.read_text()
    moved = re.findall(r"HTC_DMA_START\(l1 \+ \d+, model__layer(\d+)_params\.xq2, (\d+)\)", text)
    in_l1 = re.findall(r"p\.xq2 = \(const int32_t \*\)\(const void \*\)\(ctx->l1 \+ \d+\)", text)
    # all 14: 10..18 and 26 by their pruned channels' constant records
    # (every weight 0: gen/quant.c quant_xq3), 20, 22 and 24 by windows
    # cut to the accumulators their int8 inputs and weights reach
    assert len(moved) == 14 and len(in_l1) == 14, (moved, len(in_l1))
    assert {"20", "22", "24"} <= {li for li, _ in moved}, moved
    rep = subprocess.run([oracle.HTC, "report", path, "-t", SIRACUSA, "-D", "cores=8", "-D", "mem=tile", "--json"],
                         capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    layers = json.loads(rep.stdout)["layers"]
    for li, nbytes in moved:
        out_c = layers[int(li)]["out_shape"][-1]
        assert int(nbytes) in (4 * (1 + 9 * out_c), 4 * (1 + 7 * out_c)), (li, nbytes, out_c)
    info = oracle.ModelInfo(path)
    inputs = info.random_inputs(31_000)
    exe = str(tmp_path / "cluster")
    c = subprocess.run([oracle.CC, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-DHTC_XPULPV2", "-O1", "-pthread",
                        "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path), "-I", os.path.join(REPO, "examples", "common"),
                        os.path.join(REPO, "examples", "cluster", "main.c"), "-o", exe], capture_output=True, text=True)
    assert c.returncode == 0, c.stderr[-3000:]
    np.ascontiguousarray(inputs[0], dtype=info.tensors[info.inputs[0]]["dtype"]).tofile(str(tmp_path / "in.bin"))
    r = subprocess.run([exe, str(tmp_path / "in.bin"), str(tmp_path / "out.bin"), "2"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    ref_outs, _ = oracle.run_interpreter(path, inputs)
    got = open(str(tmp_path / "out.bin"), "rb").read()
    assert got == np.ascontiguousarray(ref_outs[0]).tobytes(), "the XpulpV2 build with records in L1 differs from TFLite Micro"


RV32_CC = "riscv64-unknown-elf-gcc"
QEMU_RV32 = "qemu-system-riscv32"


@pytest.mark.parametrize("name,harts", [("kws_ref_model", 8), ("pretrainedResnet_quant", 4)])
def test_rv32_harts(name, harts, tmp_path):
    """examples/cluster/rv32_harts.c: the RV32IMC build on qemu-system-riscv32
    -smp N under -icount, one hart per core. minstret around every share:
    every hart works, the shares are balanced, the critical path (the
    largest share of each fork, summed) is close to 1/N of the work, and
    the output equals TFLite Micro's."""
    path = os.path.join(oracle.MODELS, name + ".tflite")
    info = oracle.ModelInfo(path)
    inputs = info.random_inputs(40_000)
    oracle.htc("compile", path, "-t", SIRACUSA, "-D", "cores=%d" % harts, "-o", str(tmp_path / "model.h"), "--name", "model")
    x = np.ascontiguousarray(inputs[0], dtype=info.tensors[info.inputs[0]]["dtype"]).tobytes()
    (tmp_path / "input.h").write_text("static const unsigned char model_input[%d] = {%s};\n" % (
        len(x), ",".join(str(b) for b in x)))
    elf = str(tmp_path / "fw.elf")
    c = subprocess.run([RV32_CC, "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "-O2", "-std=c99", "-Wall", "-Wextra",
                        "-Werror", "-I", str(tmp_path), "--specs=picolibc.specs", "--oslib=semihost", "-nostartfiles",
                        "-Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x800000",
                        "-Wl,--defsym=__ram=0x80800000,--defsym=__ram_size=0x1000000",
                        os.path.join(REPO, "examples", "cluster", "rv32_harts.c"), "-l:crt0-semihost.o", "-o", elf],
                       capture_output=True, text=True)
    assert c.returncode == 0, c.stderr[-3000:]
    r = subprocess.run([QEMU_RV32, "-M", "virt", "-smp", str(harts), "-m", "64M", "-bios", "none", "-nographic",
                        "-monitor", "none", "-serial", "none", "-semihosting-config", "enable=on,target=native",
                        "-icount", "shift=0,sleep=off", "-kernel", elf], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    out = r.stdout + r.stderr          # semihosting writes to stderr when stdout is a pipe
    work = [int(w) for w in re.findall(r"^hart \d+ work (\d+)$", out, re.M)]
    m = re.search(r"^serial (\d+) critical (\d+) total (\d+)$", out, re.M)
    got = bytes(int(b, 16) for b in re.search(r"^output((?: [0-9a-f]{2})*)$", out, re.M).group(1).split())
    ref_outs, _ = oracle.run_interpreter(path, inputs)
    assert got == np.ascontiguousarray(ref_outs[0]).tobytes(), "%s on %d harts differs from TFLite Micro" % (name, harts)
    assert len(work) == harts and min(work) > 0, out
    mean = sum(work) / harts
    critical, total = int(m.group(2)), int(m.group(3))
    print("%s, %d harts: work per hart %s; critical path %d of %d instructions in shares (%.2fx); serial layers %s" % (
        name, harts, work, critical, total, total / critical, m.group(1)))
    assert max(work) / mean < 1.25, work
    assert total / critical > 0.7 * harts, (critical, total)


@pytest.mark.parametrize("cores", (1, 8))
@pytest.mark.parametrize("name", MODELS)
def test_l1_tiles(name, cores):
    """Every convolution and pooling layer on the cluster is tiled into its
    256 KiB L1 (one core too), within the L1; the bands cover the output and
    every band moves its input and output by DMA."""
    path = os.path.join(oracle.MODELS, name + ".tflite")
    r = subprocess.run([oracle.HTC, "report", path, "-t", SIRACUSA, "-D", "cores=%d" % cores, "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    layers = json.loads(r.stdout)["layers"]
    want = [l for l in layers if l["op"] in ("conv2d", "avgpool", "maxpool")]
    assert want or name == "ad01_int8"
    for l in want:
        assert "l1" in l, l
        t = l["l1"]
        oh = l["out_shape"][1]
        assert 0 < t["l1_bytes"] <= 256 * 1024 and t["tiles"] == -(-oh // t["rows"]), t
        assert t["dma_bytes"] >= l["bytes"] and t["candidates"] >= 1, t
        assert l["est_cycles"] >= max(t["compute_cycles"], 1), (l["est_cycles"], t)


TOY = """return target "toy" {
  clock_mhz = 100,
  memory = { SRAM = { size = 1048576 } },
  cpu = {
    name = "c", memory = "SRAM", cores = 3, fork = 100, overhead = 10,
    split = function(op) if op.kind == "conv2d" and op.depthwise == 0 then return "rows" end end,
    requant = { "tflite" },
    ops = {
      conv2d = { cycles_per_mac = 1, cycles = function(op, s)
        if op.depthwise == 1 then return %s end
        return s.rows * s.cols * s.channels + 1000 * s.in_rows
      end },
      fc = { cycles_per_mac = 2 }, avgpool = { cycles_per_mac = 1 }, reshape = {}, softmax = { cycles_per_elem = 3 },
    },
  },
}
"""


def test_share_cycles(tmp_path):
    """cpu op `cycles = function(op, share)`: the estimate is overhead + fork
    + the slowest core's call, every core's share as the kernels divide the
    layer (htc.h htc__share, htc__rows_view); nil falls back to the per-MAC
    cost of the largest share; a bad return value is a one-line error."""
    t = tmp_path / "toy.lua"
    t.write_text(TOY % "nil")
    model = os.path.join(oracle.MODELS, "kws_ref_model.tflite")
    r = subprocess.run([oracle.HTC, "report", model, "-t", str(t), "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    checked = 0
    for l in json.loads(r.stdout)["layers"]:
        if l["op"] != "conv2d":
            continue
        n, oh, ow, oc = l["cores"], l["out_shape"][1], l["out_shape"][2], l["out_shape"][3]
        if l["depthwise"]:      # nil: the largest share of the per-MAC cost
            items = oc if l["split"] == "channels" else oh
            assert l["est_cycles"] == round(l["macs"] * (-(-items // n)) / items + 100), l
            continue
        kh, sh, ph, ih = l["kernel"][0], l["stride"][0], l["pad"][0], l["in_shape"][1]
        pw = l["kernel"] == [1, 1] and l["stride"] == [1, 1] and l["pad"] == [0, 0] and ih == oh
        worst = 0
        for c in range(n):
            if pw:      # divided by pixels
                px = oh * ow * (c + 1) // n - oh * ow * c // n
                cyc = px * oc + 1000
            else:
                y0, y1 = oh * c // n, oh * (c + 1) // n
                first, last = max(0, y0 * sh - ph), min(ih - 1, (y1 - 1) * sh - ph + kh - 1)
                cyc = (y1 - y0) * ow * oc + 1000 * (last - first + 1)
            worst = max(worst, cyc)
        assert l["split"] == "rows" and l["est_cycles"] == 10 + 100 + worst, (l["index"], l["est_cycles"], worst)
        checked += 1
    assert checked == 5
    t.write_text(TOY % '"fast"')
    r = subprocess.run([oracle.HTC, "report", model, "-t", str(t)], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert re.search(r"toy\.lua:\d+: cpu\.ops\.conv2d\.cycles returned string for operator 1 ", r.stderr), r.stderr


def test_siracusa_mem():
    """-D mem says where the firmware puts the arena and weights: with l1 or
    l2 (arena in L1) no layer has L1 tiles and every layer is estimated from
    its plain calls; with N-EUREKA too (engines=both, mem=l1: netrun.c's
    layout) the cluster's layers have no L1 tiles and the layer overhead
    is mem=l1's, the arena still planned apart from N-EUREKA's L1."""
    model = os.path.join(oracle.MODELS, "kws_ref_model.tflite")
    for mem in ("l1", "l2"):
        r = subprocess.run([oracle.HTC, "report", model, "-t", SIRACUSA, "-D", "mem=" + mem, "--json"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        layers = json.loads(r.stdout)["layers"]
        assert not any("l1" in l for l in layers), layers
        assert all((l["est_cycles"] == 0) == (l["op"] == "reshape") for l in layers), layers
    kws = os.path.join(test_deeploy.TESTS, "MLPerf_KeywordSpotting")
    rep = {}
    for mem in ("tile", "l1"):
        r = subprocess.run([oracle.HTC, "report", os.path.join(kws, "network.onnx"), "-t", SIRACUSA, "-D", "mem=" + mem,
                            "-D", "engines=both", "-D", "cores=8", "-D", "l1_kib=64", "--json"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rep[mem] = json.loads(r.stdout)
    pool = [[l for l in rep[m]["layers"] if l["op"] == "maxpool"][0] for m in ("tile", "l1")]
    assert "l1" in pool[0] and "l1" not in pool[1] and pool[1]["est_cycles"] < pool[0]["est_cycles"], pool
    assert [l["engine"] for l in rep["tile"]["layers"]] == [l["engine"] for l in rep["l1"]["layers"]]
    assert rep["tile"]["arena_bytes"] == rep["l1"]["arena_bytes"]


def test_alias_reshape_runs_nothing(tmp_path):
    """A reshape that shares its input's storage runs no code: the header
    has no profile hooks around it (the firmware measures nothing) and
    its estimate is 0 cycles, on every target."""
    model = os.path.join(oracle.MODELS, "kws_ref_model.tflite")
    h = tmp_path / "m.h"
    r = subprocess.run([oracle.HTC, "compile", model, "-t", SIRACUSA, "-o", str(h), "--name", "m"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = h.read_text()
    assert "/* reshape: shares storage with its input */" in text
    assert 'HTC_PROFILE_BEGIN("m", 10, "reshape")' not in text and 'HTC_PROFILE_BEGIN("m", 9, "avgpool")' in text
    for t in (SIRACUSA, os.path.join(REPO, "targets", "vanilla.lua")):
        r = subprocess.run([oracle.HTC, "report", model, "-t", t, "--json"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        lay = json.loads(r.stdout)["layers"][10]
        assert lay["op"] == "reshape" and lay["storage"] == "alias" and lay["est_cycles"] == 0, lay


def test_op_fork(tmp_path):
    """An op entry's own fork (siracusa's transpose: 392 cycles, not the
    cpu's 952): the divided layer's estimate is the overhead + that fork +
    the slowest call, so moving it by 1000 moves the layer by 1000; the
    undivided layer keeps its estimate; a negative fork is refused."""
    import shutil
    net = os.path.join(test_deeploy.TESTS, "Kernel_Integer_Conv_DW_2D_RQ", "network.onnx")
    shutil.copytree(os.path.join(REPO, "targets", "cpus"), tmp_path / "cpus")
    src = open(SIRACUSA).read()
    # the forks' line (FORK_TRANSPOSE the second value), whatever the others' values
    m = re.search(r"\nlocal FORK_TABLE, FORK_TRANSPOSE([^=]*)= (\d+), 392(,[^\n]*)\n", src)
    assert m, "siracusa.lua: no FORK_TABLE, FORK_TRANSPOSE line with the transpose's fork 392"
    old = m.group(0)

    def est(fork, cores):
        t = tmp_path / ("s%d.lua" % fork)
        t.write_text(src.replace(old, "\nlocal FORK_TABLE, FORK_TRANSPOSE%s= %s, %d%s\n" % (m.group(1), m.group(2), fork, m.group(3))))
        r = subprocess.run([oracle.HTC, "report", net, "-t", str(t), "-D", "cores=%d" % cores, "-D", "mem=l1", "--json"],
                           capture_output=True, text=True)
        return r, (json.loads(r.stdout)["layers"] if r.returncode == 0 else None)
    _, a = est(392, 8)
    _, b = est(1392, 8)
    tp = [i for i, l in enumerate(a) if l["op"] == "transpose"]
    assert len(tp) == 2 and all(a[i].get("cores") == 8 for i in tp), a
    assert all(b[i]["est_cycles"] - a[i]["est_cycles"] == 1000 for i in tp), (a, b)
    assert all(b[i]["est_cycles"] == a[i]["est_cycles"] for i in range(len(a)) if i not in tp)
    assert est(392, 1)[1][tp[0]]["est_cycles"] == est(1392, 1)[1][tp[0]]["est_cycles"]
    r, _ = est(-1, 8)
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "cpu.ops.transpose.fork" in r.stderr, r.stderr


def test_band_hook(tmp_path):
    """cpu.band(b, op) chooses the cluster's L1 band height as a tile
    function chooses an accelerator's tiles (issue 38 item 7): b holds one
    height's rows, tiles, l1_bytes, dma_bytes and modelled cycles; the
    returned objective, constraints and tie_break pick among the heights
    that fit. Minimising DMA under a 32 kB cap: every banded layer keeps
    under it and moves no more than the default (fewest cycles) choice
    wherever that fits the cap too; maximising the tile count: one-row
    bands everywhere. The report shows the band the hook chose."""
    src = open(SIRACUSA).read()
    anchor = '    name = "cluster",\n'
    assert src.count(anchor) == 1
    model = os.path.join(oracle.MODELS, "vww_96_int8.tflite")

    def bands(hook):
        tgt = tmp_path / "band.lua"
        tgt.write_text(src.replace(anchor, anchor + "    band = %s,\n" % hook) if hook else src)
        r = subprocess.run([oracle.HTC, "report", model, "-t", str(tgt), "-D", "cores=8", "--json"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return {l["index"]: l["l1"] for l in json.loads(r.stdout)["layers"] if "l1" in l}

    base = bands(None)
    dma = bands("function(b, op) return { minimize = b.dma_bytes, tie_break = b.tiles, "
                "constraints = { le(b.l1_bytes, 32768) } } end")
    ones = bands("function(b, op) return { maximize = b.tiles } end")
    assert len(base) >= 10 and set(dma) <= set(base) and set(ones) == set(base)
    capped = 0
    for i, b in base.items():
        assert ones[i]["rows"] == 1 and ones[i]["tiles"] >= b["tiles"], (i, ones[i])
        if i in dma:
            assert dma[i]["l1_bytes"] <= 32768, (i, dma[i])
            if b["l1_bytes"] <= 32768:
                assert dma[i]["dma_bytes"] <= b["dma_bytes"], (i, dma[i], b)
            else:
                capped += 1
                assert dma[i]["rows"] < b["rows"], (i, dma[i], b)
    assert capped >= 1 and sum(o["tiles"] for o in ones.values()) > sum(b["tiles"] for b in base.values())
