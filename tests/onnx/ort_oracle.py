"""tests/onnx/ort_oracle.py - run ONNX models through htc (one compiled header,
many inputs per process) and through onnxruntime, for the ONNX tests and
bench. Used by tests/test_onnx*.py and bench/bench.py."""
import os
import subprocess

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
TARGET = os.path.join(REPO, "targets", "cpu.lua")
CC = os.environ.get("CC") or "cc"
ZOO = os.environ.get("HTC_ZOO") or os.path.join(REPO, "build", "zoo")

NP = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64}

DRIVER = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define M_IMPLEMENTATION
#include "m.h"
/* m IN OUT N [REPEAT]: N inference(s) on N input sets packed in IN (each
   M_INPUT_SIZE bytes), outputs packed in OUT; REPEAT > 0 times the first. */
int main(int argc, char **argv)
{
    long n = atol(argv[3]), rep = argc > 4 ? atol(argv[4]) : 0, k;
    FILE *f = fopen(argv[1], "rb");
    unsigned char *in = malloc(M_INPUT_SIZE * n + 1), *out = malloc(M_OUTPUT_SIZE * n + 1);
    void *arena = NULL;
    if (!f || fread(in, 1, M_INPUT_SIZE * n, f) != (size_t)(M_INPUT_SIZE * n)) return 2;
    fclose(f);
    if (posix_memalign(&arena, M_ARENA_ALIGN < sizeof(void *) ? sizeof(void *) : M_ARENA_ALIGN, M_ARENA_SIZE)) return 2;
    for (k = 0; k < n; k++)
        if (m_run(in + k * M_INPUT_SIZE, out + k * M_OUTPUT_SIZE, arena)) return 3;
    if (rep > 0) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (k = 0; k < rep; k++) m_run(in, out, arena);
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("%.3f us per inference\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / rep);
    }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(out, 1, M_OUTPUT_SIZE * n, f) != (size_t)(M_OUTPUT_SIZE * n)) return 2;
    fclose(f);
    return 0;
}
"""


class HtcError(Exception):
    pass


def htc(*args, check=True):
    p = subprocess.run([HTC] + [str(a) for a in args], capture_output=True, text=True, errors="replace", cwd=REPO)
    if check and p.returncode != 0:
        raise HtcError("htc %s: %s" % (" ".join(map(str, args)), p.stderr.strip()))
    return p


def build(model, tmp, binds=(), flags=(), cflags=()):
    """Compile MODEL into tmp/m.h and the batch driver tmp/m; returns the path.
    flags: more htc options (e.g. --float-fallback); cflags: more compiler
    options (e.g. -DHTC_NO_SIMD)."""
    os.makedirs(tmp, exist_ok=True)
    # built for this host: the SSE2/AVX2 paths beside the portable C (-D isa=x86,
    # a parameter of targets/cpu.lua; other targets name their own ISAs)
    isa = ["-D", "isa=x86"] if os.path.abspath(TARGET) == os.path.join(REPO, "targets", "cpu.lua") else []
    args = ["compile", model, "-t", TARGET] + isa + ["-o", os.path.join(tmp, "m.h"), "--name", "m"] + list(flags)
    for name, path in binds:
        args += ["--bind", "%s=%s" % (name, path)]
    htc(*args)
    with open(os.path.join(tmp, "drv.c"), "w") as f:
        f.write(DRIVER)
    exe = os.path.join(tmp, "m")
    p = subprocess.run([CC, "-O2", "-std=c99", "-Wall"] + list(cflags) + ["-o", exe, os.path.join(tmp, "drv.c"), "-I", tmp],
                       capture_output=True, text=True, errors="replace")
    if p.returncode:
        raise HtcError("cc failed: %s" % p.stderr[-2000:])
    return exe


def run(exe, tmp, inputs, repeat=0):
    """inputs: list of lists of arrays (one list per inference, one array per
    graph input). Returns the raw output bytes of each inference."""
    raw = b"".join(b"".join(np.ascontiguousarray(a).tobytes() for a in one) for one in inputs)
    with open(os.path.join(tmp, "in.bin"), "wb") as f:
        f.write(raw)
    p = subprocess.run([exe, os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin"), str(len(inputs)), str(repeat)],
                       capture_output=True, text=True, errors="replace")
    if p.returncode:
        raise HtcError("driver exit %d: %s" % (p.returncode, p.stderr))
    data = open(os.path.join(tmp, "out.bin"), "rb").read()
    n = len(data) // len(inputs)
    return [data[i * n:(i + 1) * n] for i in range(len(inputs))], p.stdout


# ---- the oracle: onnxruntime's answer, the same on every host -------------
#
# onnxruntime's answer for a uint8-activation x int8-weight product depends
# on the CPU it runs on. MLAS computes QLinearConv, QGemm, QLinearMatMul,
# MatMulInteger (and the QDQ groups fused into them) with its u8s8 kernels,
# which on x86-64 without VNNI (AVX2 and AVX-512 without VNNI: pmaddubsw,
# two products summed in saturating 16 bits; also SSE4.1 in the Windows
# build) saturate when x * w + x' * w' leaves int16, and with AVX-VNNI /
# AVX512-VNNI / AMX (vpdpbusd) or on Arm64 (UDOT / widening multiplies) sum
# in 32 bits, exactly. The exact integer sum is the one answer that does not
# depend on the host, and the one htc computes.
#
# The oracle gets it from onnxruntime itself: it stores each such constant
# int8 weight as uint8 (w + 128, zero point + 128: the same integers
# w - zero point), so onnxruntime runs its u8u8 kernels, which are exact on
# every host (AVX2 / AVX-512: operands widened to 16 bits, vpmaddwd; AVX-VNNI-
# INT8: vpdpbuud; depthwise: 16-bit products widened to 32; Arm64: UDOT),
# with the same requantization (MlasRequantizeOutput) as the u8s8 path. This
# is the rewrite onnxruntime's own session option session.x64quantprecision
# performs (QDQS8ToU8Transformer / Avx2WeightS8ToU8Transformer); the oracle
# does it on the model instead of setting the option because that option
# also rewrites int8-activation QGemm nodes into int8 x uint8, a pair
# onnxruntime has no kernel for. It is done on every host (the option only
# acts on x86-64), so the kernels the tests compare with are the same
# everywhere. What is rewritten:
#   - QLinearConv / QGemm / QLinearMatMul / MatMulInteger whose activation
#     input is uint8 and whose weight (input B) is a constant int8 tensor;
#   - DequantizeLinear of a constant int8 tensor whose every consumer reads
#     it as the weight (input 1) of a Conv, Gemm or MatMul: the float values
#     are the same, and where onnxruntime fuses the group (x86-64 fuses only
#     uint8 activations, its QDQS8ToU8Transformer makes them uint8) the fused
#     op is u8u8.
# tests/test_onnx.py test_oracle_rewrite_keeps_graph checks that the rewrite
# changes none of onnxruntime's fusion decisions (the optimised graphs have
# the same nodes) on the zoo. Float kernels are not affected. What stays
# host-dependent is listed in docs/models.md ("Which onnxruntime answer").

_WEIGHT_OPS = {  # op type: (activation input, its zero point, weight input, its zero point)
    "QLinearConv": (0, 2, 3, 5),
    "QLinearMatMul": (0, 2, 3, 5),
    "QGemm": (0, 2, 3, 5),
    "MatMulInteger": (0, 2, 1, 3),
}


def _elem_types(g):
    """Element type of every value we can tell without shape inference."""
    t = {}
    for v in list(g.input) + list(g.value_info) + list(g.output):
        if v.type.HasField("tensor_type"):
            t[v.name] = v.type.tensor_type.elem_type
    for i in g.initializer:
        t[i.name] = i.data_type
    for n in g.node:
        zp = {"QuantizeLinear": 2, "QLinearConv": 7, "QLinearMatMul": 7, "QGemm": 7, "QLinearAdd": 7,
              "QLinearMul": 7, "QLinearConcat": 2, "QLinearAveragePool": 4, "QLinearGlobalAveragePool": 4,
              "QLinearSigmoid": 4, "QLinearLeakyRelu": 4, "QLinearSoftmax": 4}.get(n.op_type)
        if n.op_type == "DynamicQuantizeLinear":
            t[n.output[0]] = 2
        elif zp is not None and n.output:
            t.setdefault(n.output[0], t.get(n.input[zp], 2) if len(n.input) > zp and n.input[zp] else 2)
        elif n.op_type in ("Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "MaxPool", "Identity",
                           "Slice", "Split", "Gather", "Pad", "Resize", "DepthToSpace", "SpaceToDepth"):
            if n.input and n.input[0] in t:
                for o in n.output:
                    t.setdefault(o, t[n.input[0]])
    return t


def exact_model(model):
    """MODEL (a path, bytes or ModelProto) with its constant int8 weights of
    uint8-activation integer products stored as uint8: see the comment
    above. Returns (serialized model, number of tensors rewritten)."""
    import onnx
    from onnx import numpy_helper
    if isinstance(model, onnx.ModelProto):
        m = onnx.ModelProto()
        m.CopyFrom(model)
    elif isinstance(model, (bytes, bytearray)):
        m = onnx.load_from_string(bytes(model))
    else:
        m = onnx.load(model)
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    types = _elem_types(g)
    consumers = {}
    for n in g.node:
        for k, name in enumerate(n.input):
            consumers.setdefault(name, []).append((n, k))
    made = {}

    def u8(name, like=None):
        """The uint8 twin of int8 initializer NAME (or, NAME None, a zero
        point 128 shaped like the scale LIKE)."""
        key = name or ("zp128", like)
        if key not in made:
            if name is None:
                a = np.full(numpy_helper.to_array(inits[like]).shape, 128, np.uint8)
                new = "%s_zp128_u8" % like
            else:
                a = (numpy_helper.to_array(inits[name]).astype(np.int16) + 128).astype(np.uint8)
                new = name + "_s8_to_u8"
            g.initializer.append(numpy_helper.from_array(a, new))
            inits[new] = g.initializer[-1]
            made[key] = new
        return made[key]

    def s8_const(name):
        return name in inits and inits[name].data_type == onnx.TensorProto.INT8

    count = 0
    for n in g.node:
        if n.domain not in ("", "ai.onnx", "com.microsoft") or n.op_type not in _WEIGHT_OPS:
            continue
        a, az, w, wz = _WEIGHT_OPS[n.op_type]
        act = types.get(n.input[az]) if len(n.input) > az and n.input[az] else types.get(n.input[a])
        if act != onnx.TensorProto.UINT8 or len(n.input) <= w or not s8_const(n.input[w]):
            continue
        has_zp = len(n.input) > wz and n.input[wz]
        if has_zp and not s8_const(n.input[wz]):
            continue
        if not has_zp and n.op_type != "MatMulInteger":
            continue
        n.input[w] = u8(n.input[w])
        if has_zp:
            n.input[wz] = u8(n.input[wz])
        else:
            while len(n.input) < wz:
                n.input.append("")
            g.initializer.append(numpy_helper.from_array(np.uint8(128), n.name + "_wzp128_u8"))
            n.input.append(n.name + "_wzp128_u8")
        count += 1
    for n in g.node:
        if n.op_type != "DequantizeLinear" or n.domain not in ("", "ai.onnx") or not s8_const(n.input[0]):
            continue
        uses = consumers.get(n.output[0], [])
        if not uses or any(c.op_type not in ("Conv", "Gemm", "MatMul") or k != 1 for c, k in uses):
            continue
        has_zp = len(n.input) > 2 and n.input[2]
        if (has_zp and not s8_const(n.input[2])) or n.input[1] not in inits:
            continue
        n.input[0] = u8(n.input[0])
        if has_zp:
            n.input[2] = u8(n.input[2])
        else:
            while len(n.input) < 2:
                n.input.append("")
            n.input.append(u8(None, n.input[1]))
        count += 1
    return m.SerializeToString(), count


def ort_session(model, level=None, exact=True):
    """onnxruntime's CPU session on one thread. exact (the default, the
    oracle): on exact_model(MODEL), whose integer products onnxruntime
    computes exactly on every host; False: the model as it is (onnxruntime's
    own answer on this host)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    if level is not None:
        so.graph_optimization_level = level
    if exact:
        model = exact_model(model)[0]
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def ort_outputs(sess, inputs):
    """Concatenated raw bytes of every output, per inference."""
    names = [i.name for i in sess.get_inputs()]
    res = []
    for one in inputs:
        outs = sess.run(None, dict(zip(names, one)))
        res.append(b"".join(np.ascontiguousarray(o).tobytes() for o in outs))
    return res


def random_inputs(sess, n, seed):
    rng = np.random.default_rng(seed)
    res = []
    for _ in range(n):
        one = []
        for i in sess.get_inputs():
            shape = i.shape
            if i.type == "tensor(float)":
                one.append(rng.normal(0, 1.5, size=shape).astype(np.float32))
            elif i.type == "tensor(uint8)":
                one.append(rng.integers(0, 256, size=shape).astype(np.uint8))
            else:
                one.append(rng.integers(-128, 128, size=shape).astype(np.int8))
        res.append(one)
    return res


def ensure_zoo():
    """Build the zoo (tests/zoo/zoo.py) into $HTC_ZOO (build/zoo) unless it
    is there for this zoo.py and these onnx/onnxruntime versions. Built in a
    temporary directory and renamed, so concurrent runs never see half a zoo."""
    import hashlib
    import shutil
    import sys
    import tempfile
    import onnx
    import onnxruntime
    src = os.path.join(REPO, "tests", "zoo", "zoo.py")
    key = "%s onnx %s onnxruntime %s\n" % (hashlib.sha256(open(src, "rb").read()).hexdigest(), onnx.__version__,
                                            onnxruntime.__version__)
    stamp = os.path.join(ZOO, ".complete")
    if os.path.exists(stamp) and open(stamp).read() == key:
        return ZOO
    sys.path.insert(0, os.path.join(REPO, "tests", "zoo"))
    import zoo
    parent = os.path.dirname(os.path.abspath(ZOO))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".zoo-", dir=parent)
    zoo.build(tmp)
    with open(os.path.join(tmp, ".complete"), "w") as f:
        f.write(key)
    old = None
    if os.path.exists(ZOO):
        old = tempfile.mkdtemp(prefix=".zoo-old-", dir=parent)
        os.rename(ZOO, os.path.join(old, "zoo"))
    try:
        os.rename(tmp, ZOO)
    except OSError:                 # another run won the race: use its zoo
        shutil.rmtree(tmp, ignore_errors=True)
    if old:
        shutil.rmtree(old, ignore_errors=True)
    return ZOO
