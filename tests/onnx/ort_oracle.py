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
    args = ["compile", model, "-t", TARGET, "-o", os.path.join(tmp, "m.h"), "--name", "m"] + list(flags)
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


def ort_session(model, level=None):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    if level is not None:
        so.graph_optimization_level = level
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
