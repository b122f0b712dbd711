"""oracle.py - run a .tflite model in TFLite Micro's interpreter and through
htc, and compare every tensor bit for bit.

The oracle is TFLite Micro, the runtime htc's generated code replaces on a
microcontroller: the Python interpreter of the pip package tflite-micro,
which runs TFLM's reference kernels (bit-exact with TFLM + CMSIS-NN on an
MCU). It is built with InterpreterConfig.kPreserveAllTensors, so every
tensor keeps its own memory and GetTensor(index, 0) reads any intermediate
tensor by its index in the .tflite file after invoke(). htc's side is
`htc run --dump DIR` (DIR/<tensor index>.bin for every operator's output),
or, to build a generated header once and feed it several inputs,
`htc compile` plus a small driver that uses the header's public API
(run_multi, the *_SIZE_i macros and the HTC_TRACE hook).

run_litert runs the desktop interpreter (ai-edge-litert, reference kernels)
for the one test that shows where the two runtimes differ
(tests/test_tflm_vs_litert.py): int8 FULLY_CONNECTED.
"""
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

from tflite_micro.python.tflite_micro import runtime as tflm

import tflite_build as tb

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
TARGET = os.path.join(REPO, "targets", "cpu.lua")
MODELS = os.path.abspath(os.path.join(REPO, os.environ.get("HTC_MODELS") or "../shared/models/mlperf_tiny"))
CC = os.environ.get("CC") or "cc"


class HtcError(Exception):
    """htc exited non-zero; .stderr holds its message."""

    def __init__(self, cmd, rc, stdout, stderr):
        super().__init__("%s\nexit %d\nstderr: %s" % (" ".join(cmd), rc, stderr.strip()))
        self.cmd, self.rc, self.stdout, self.stderr = cmd, rc, stdout, stderr


# ---- the model, as the file states it ------------------------------------------

S_RESOURCE = 13                 # TensorType.RESOURCE


class ModelInfo:
    """Tensors and operators of a .tflite file (subgraph 0)."""

    def __init__(self, path):
        self.path = path
        m = tb.read_model(path)
        sg = m.subgraphs[0]
        self.inputs = [int(i) for i in sg.inputs]
        self.outputs = [int(i) for i in sg.outputs]
        self.tensors = []
        for t in sg.tensors:
            q = t.quantization
            self.tensors.append({
                "name": t.name.decode() if isinstance(t.name, bytes) else t.name,
                "shape": [int(s) for s in (t.shape if t.shape is not None else [])],
                # a resource variable's handle (VAR_HANDLE): htc dumps the variable, TFLM the handle
                "dtype": np.dtype(np.int8 if t.type == S_RESOURCE else tb.NP_OF_TFL[t.type]),
                "resource": t.type == S_RESOURCE,
                "scale": [float(s) for s in q.scale] if q is not None and q.scale is not None else [],
                "zero_point": [int(z) for z in q.zeroPoint] if q is not None and q.zeroPoint is not None else [],
                "const": t.buffer > 0 and m.buffers[t.buffer].data is not None and len(m.buffers[t.buffer].data) > 0,
            })
        self.ops = []
        for k, o in enumerate(sg.operators):
            code = m.operatorCodes[o.opcodeIndex]
            custom = code.customCode.decode() if code.customCode else None
            self.ops.append({
                "index": k,
                "op": tb.builtin_name(code),
                "custom": custom,
                "options": _flex(o.customOptions) if custom else {},
                "inputs": [int(i) for i in o.inputs],
                "outputs": [int(i) for i in o.outputs],
            })

    def unwritten(self):
        """{tensor index: boolean mask} of the elements TFLM's kernels never
        write (their bytes are whatever the arena held): a SignalEnergy
        output outside its [start_index, end_index), and a CAST of it."""
        masks = {}
        for op in self.ops:
            if op["custom"] == "SignalEnergy":
                t = op["outputs"][0]
                mk = np.ones(self.tensors[t]["shape"], dtype=bool)
                mk[op["options"].get("start_index", 0):op["options"].get("end_index", 0)] = False
                masks[t] = mk
            elif op["op"] == "CAST" and op["inputs"][0] in masks:
                masks[op["outputs"][0]] = masks[op["inputs"][0]].reshape(self.tensors[op["outputs"][0]]["shape"])
        return masks

    def op_outputs(self):
        """[(tensor index, op dict)] for every operator output, in execution order."""
        return [(t, op) for op in self.ops for t in op["outputs"]]

    def random_inputs(self, seed):
        """One random array per model input: full int8/uint8 range, or floats."""
        rng = np.random.default_rng(seed)
        xs = []
        for i in self.inputs:
            t = self.tensors[i]
            if t["dtype"] == np.float32:
                xs.append(rng.uniform(-8, 8, size=t["shape"]).astype(np.float32))
            else:
                info = np.iinfo(t["dtype"])
                xs.append(rng.integers(info.min, info.max + 1, size=t["shape"], dtype=np.int64).astype(t["dtype"]))
        return xs


# ---- the reference interpreter: TFLite Micro ----------------------------------------

def interpreter(model_path, info=None):
    """A TFLM interpreter that keeps every tensor. The arena: TFLM's default
    (10x the file) plus room for every tensor held separately."""
    info = info or ModelInfo(model_path)
    tensor_bytes = sum(int(np.prod(t["shape"], dtype=np.int64)) * t["dtype"].itemsize + 64
                       for t in info.tensors if not t["const"])
    arena = 10 * os.path.getsize(model_path) + 2 * tensor_bytes + 65536
    return tflm.Interpreter.from_file(model_path, arena_size=arena,
                                      intrepreter_config=tflm.InterpreterConfig.kPreserveAllTensors)


def run_interpreter(model_path, inputs, it=None, info=None):
    """Run once in TFLM; returns (outputs, {tensor index: array}) with every
    operator output (the intermediates, read with GetTensor)."""
    info = info or ModelInfo(model_path)
    it = it or interpreter(model_path, info)
    if len(info.inputs) != len(inputs):
        raise ValueError("model has %d inputs, got %d" % (len(info.inputs), len(inputs)))
    for k, x in enumerate(inputs):
        d = it.get_input_details(k)
        it.set_input(np.ascontiguousarray(x, dtype=d["dtype"]).reshape(d["shape"]), k)
    it.invoke()
    tensors = {}
    for t, _ in info.op_outputs():
        if info.tensors[t].get("resource"):
            continue
        g = it.GetTensor(t, 0)
        a = np.asarray(g["tensor_data"]).copy()
        tensors[t] = a.reshape([int(s) for s in g["shape"]]) if a.size == int(np.prod(g["shape"])) else a
    outputs = [np.asarray(it.get_output(k)).copy() for k in range(len(info.outputs))]
    return outputs, tensors


def run_litert(model_path, inputs):
    """The desktop interpreter (ai-edge-litert) with its reference kernels
    (BUILTIN_REF) and every tensor preserved: (outputs, {tensor index: array}).
    Used only to show where it differs from TFLM."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_path=model_path, num_threads=1,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    details = it.get_input_details()
    if len(details) != len(inputs):
        raise ValueError("model has %d inputs, got %d" % (len(details), len(inputs)))
    for d, x in zip(details, inputs):
        it.set_tensor(d["index"], np.ascontiguousarray(x, dtype=d["dtype"]).reshape(d["shape"]))
    it.invoke()
    tensors = {}
    for d in it.get_tensor_details():
        try:
            tensors[d["index"]] = it.get_tensor(d["index"]).copy()
        except ValueError:
            pass  # tensors without data (e.g. optional)
    outputs = [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]
    return outputs, tensors


# ---- htc -------------------------------------------------------------------------

def htc(*args, check=True, timeout=300):
    cmd = [HTC] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    if check and p.returncode != 0:
        raise HtcError(cmd, p.returncode, p.stdout, p.stderr)
    return p


def _decode(raw, t):
    a = np.frombuffer(raw, dtype=t["dtype"].newbyteorder("<"))
    n = int(np.prod(t["shape"], dtype=np.int64))
    if a.size != n:
        raise AssertionError("tensor %r: %d bytes dumped, expected %d elements of %s"
                             % (t["name"], len(raw), n, t["dtype"]))
    return a.reshape(t["shape"])


def _read_dumps(info, d):
    dumps = {}
    for f in os.listdir(d):
        m = re.fullmatch(r"(\d+)\.bin", f)
        if not m:
            continue
        idx = int(m.group(1))
        if idx >= len(info.tensors):
            raise AssertionError("dump %s names tensor %d; the model has %d tensors" % (f, idx, len(info.tensors)))
        if info.tensors[idx].get("resource"):
            continue
        with open(os.path.join(d, f), "rb") as fh:
            dumps[idx] = _decode(fh.read(), info.tensors[idx])
    return dumps


def run_htc(model_path, inputs, dump=True, repeat=0, workdir=None, target=TARGET, args=()):
    """`htc run` once: returns (outputs, {tensor index: array}, stdout).
    args: more htc options (e.g. -D NAME=VALUE target parameters)."""
    info = ModelInfo(model_path)
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="htc-test-")
    try:
        args = ["run", model_path, "-t", target] + list(args)
        for k, x in enumerate(inputs):
            p = os.path.join(workdir, "in%d.bin" % k)
            np.ascontiguousarray(x, dtype=info.tensors[info.inputs[k]]["dtype"].newbyteorder("<")).tofile(p)
            args += ["--input", p]
        outs = [os.path.join(workdir, "out%d.bin" % k) for k in range(len(info.outputs))]
        for p in outs:
            args += ["--output", p]
        ddir = os.path.join(workdir, "dump")
        if dump:
            args += ["--dump", ddir]
        if repeat:
            args += ["--repeat", repeat]
        r = htc(*args)
        outputs = []
        for p, i in zip(outs, info.outputs):
            with open(p, "rb") as fh:
                outputs.append(_decode(fh.read(), info.tensors[i]))
        dumps = _read_dumps(info, ddir) if dump else {}
        return outputs, dumps, r.stdout
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


_DRIVER = r"""
/* test driver: every input set in one process, the same arena reused */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char dump_dir[4096];
static int dumped;
static void trace(int idx, const void *d, size_t n)
{
    char p[4200];
    FILE *f;
    if (idx < 0) return;
    snprintf(p, sizeof p, "%s/%d.bin", dump_dir, idx);
    f = fopen(p, "wb");
    if (!f || fwrite(d, 1, n, f) != n) { fprintf(stderr, "driver: cannot write %s\n", p); exit(3); }
    fclose(f);
    dumped++;
}
#define HTC_TRACE(m, l, idx, d, n) trace((int)(idx), (d), (size_t)(n))
#define @UP@_IMPLEMENTATION
#include "model.h"
static const size_t in_size[] = {@IN_SIZES@ 0};
static const size_t out_size[] = {@OUT_SIZES@ 0};
static void *load(const char *p, size_t n)
{
    void *b = calloc(1, n + 1);
    FILE *f = fopen(p, "rb");
    if (!b || !f || fread(b, 1, n, f) != n) { fprintf(stderr, "driver: %s: cannot read %zu bytes\n", p, n); exit(3); }
    fclose(f);
    return b;
}
int main(int argc, char **argv)
{
    /* argv: DIR NSETS; set s reads DIR/s/in<k>.bin, writes DIR/s/out<k>.bin and dumps in DIR/s/ */
    int nsets = atoi(argv[2]), s, k, rc;
    size_t asz = (@UP@_ARENA_SIZE + @UP@_ARENA_ALIGN - 1) / @UP@_ARENA_ALIGN * @UP@_ARENA_ALIGN;
    void *arena = aligned_alloc(@UP@_ARENA_ALIGN, asz ? asz : @UP@_ARENA_ALIGN);
    if (argc != 3 || !arena) return 2;
    memset(arena, 0xA5, asz);  /* no kernel may rely on a zeroed arena */
    for (s = 0; s < nsets; s++) {
        const void *in[@NI@ + 1];
        void *out[@NO@ + 1];
        char p[4200];
        for (k = 0; k < @NI@; k++) {
            snprintf(p, sizeof p, "%s/%d/in%d.bin", argv[1], s, k);
            in[k] = load(p, in_size[k]);
        }
        for (k = 0; k < @NO@; k++) { out[k] = malloc(out_size[k] + 1); memset(out[k], 0x5A, out_size[k] + 1); }
        snprintf(dump_dir, sizeof dump_dir, "%s/%d", argv[1], s);
        rc = @NAME@_run_multi(in, out, arena);
        if (rc) { fprintf(stderr, "driver: %s_run_multi returned %d\n", "@NAME@", rc); return 1; }
        for (k = 0; k < @NO@; k++) {
            FILE *f;
            snprintf(p, sizeof p, "%s/%d/out%d.bin", argv[1], s, k);
            f = fopen(p, "wb");
            if (!f || fwrite(out[k], 1, out_size[k], f) != out_size[k] || fclose(f)) return 3;
            free(out[k]);
        }
        for (k = 0; k < @NI@; k++) free((void *)in[k]);
    }
    printf("driver: %d sets, %d dumps\n", nsets, dumped);
    return 0;
}
"""


def run_htc_batch(model_path, input_sets, workdir=None, target=TARGET, name="m", args=(), info=None):
    """`htc compile` once, then one process runs every input set through the
    header's public API. Returns [(outputs, {tensor index: array})] per set.
    args: more htc options (e.g. -D NAME=VALUE target parameters).
    `info`: the model's tensors when their shapes are not the stored ones
    (dynamic shapes, tests/piecewise.py static_info)."""
    info = info or ModelInfo(model_path)
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="htc-test-")
    try:
        hdr = os.path.join(workdir, "model.h")
        if target == TARGET and not any(str(a).startswith("isa=") for a in args):
            args = ("-D", "isa=x86") + tuple(args)     # built for this host: its SSE2/AVX2 paths too
        htc("compile", model_path, "-t", target, "-o", hdr, "--name", name, *args)
        up = name.upper()
        src = (_DRIVER.replace("@UP@", up).replace("@NAME@", name)
               .replace("@NI@", str(len(info.inputs))).replace("@NO@", str(len(info.outputs)))
               .replace("@IN_SIZES@", "".join("%s_INPUT_SIZE_%d, " % (up, k) for k in range(len(info.inputs))))
               .replace("@OUT_SIZES@", "".join("%s_OUTPUT_SIZE_%d, " % (up, k) for k in range(len(info.outputs)))))
        drv = os.path.join(workdir, "driver.c")
        with open(drv, "w") as f:
            f.write(src)
        exe = os.path.join(workdir, "driver")
        c = subprocess.run([CC, "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_ISOC11_SOURCE",
                            "-o", exe, drv], capture_output=True, text=True)
        if c.returncode != 0:
            raise AssertionError("host compile of the generated header failed:\n" + c.stderr[-4000:])
        for s, inputs in enumerate(input_sets):
            d = os.path.join(workdir, str(s))
            os.makedirs(d, exist_ok=True)
            for k, x in enumerate(inputs):
                np.ascontiguousarray(x, dtype=info.tensors[info.inputs[k]]["dtype"].newbyteorder("<")).tofile(
                    os.path.join(d, "in%d.bin" % k))
        r = subprocess.run([exe, workdir, str(len(input_sets))], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise AssertionError("generated code failed (exit %d): %s" % (r.returncode, r.stderr[-2000:]))
        results = []
        for s in range(len(input_sets)):
            d = os.path.join(workdir, str(s))
            outs = []
            for k, i in enumerate(info.outputs):
                with open(os.path.join(d, "out%d.bin" % k), "rb") as fh:
                    outs.append(_decode(fh.read(), info.tensors[i]))
            dumps = _read_dumps(info, d)
            results.append((outs, dumps))
        return results
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


# ---- comparison -------------------------------------------------------------------

def _bits(a):
    """Integers as they are; floats as their bit patterns (bit-exact compare)."""
    a = np.asarray(a)
    if a.dtype == np.float32:
        return a.view(np.uint32)
    if a.dtype == np.float64:
        return a.view(np.uint64)
    return a


def diff(expected, got):
    """None if bit-identical, else a short description (count, max abs diff, first few)."""
    e, g = np.asarray(expected), np.asarray(got)
    if e.shape != g.shape and e.size == g.size:
        g = g.reshape(e.shape)
    if e.shape != g.shape:
        return "shape %s expected, got %s" % (list(e.shape), list(g.shape))
    if e.dtype != g.dtype:
        return "dtype %s expected, got %s" % (e.dtype, g.dtype)
    neq = _bits(e) != _bits(g)
    n = int(np.count_nonzero(neq))
    if n == 0:
        return None
    if e.dtype.kind == "f":
        maxd = float(np.nanmax(np.abs(e.astype(np.float64) - g.astype(np.float64))[neq]))
    else:
        maxd = int(np.max(np.abs(e.astype(np.int64) - g.astype(np.int64))))
    where = np.argwhere(neq)[:4]
    ex = ", ".join("%s: expected %s got %s" % (tuple(int(i) for i in w), e[tuple(w)], g[tuple(w)]) for w in where)
    return "%d of %d elements differ, max abs diff %s (%s)" % (n, e.size, maxd, ex)


def _flex(b):
    """A custom operator's flexbuffer options as a dict ({} when none or not a map)."""
    if b is None or len(b) == 0:
        return {}
    from flatbuffers import flexbuffers
    try:
        v = flexbuffers.Loads(bytes(bytearray(b)))
    except Exception:
        return {}
    return v if isinstance(v, dict) else {}


def compare_run(info, ref_outputs, ref_tensors, outputs, dumps, label=""):
    """Compare the model outputs and every operator output tensor. Returns
    (list of mismatch messages, number of intermediate tensors compared).
    A tensor that htc did not dump counts as a mismatch. Elements TFLM's
    kernels never write (ModelInfo.unwritten) are left out of the comparison
    of that tensor; everything computed from them is compared."""
    errors = []
    unwritten = info.unwritten()
    for k, (e, g) in enumerate(zip(ref_outputs, outputs)):
        d = diff(e, g)
        if d:
            errors.append("%soutput %d (tensor %d '%s'): %s" % (label, k, info.outputs[k],
                                                                  info.tensors[info.outputs[k]]["name"], d))
    if len(outputs) != len(ref_outputs):
        errors.append("%s%d outputs, expected %d" % (label, len(outputs), len(ref_outputs)))
    compared = 0
    equal = set(info.inputs) | {i for i, t in enumerate(info.tensors) if t["const"]}
    for t, op in info.op_outputs():
        name = info.tensors[t]["name"]
        where = "%sop %d %s -> tensor %d '%s'" % (label, op["index"], op["op"], t, name)
        if t not in dumps:
            errors.append("%s: not dumped by htc" % where)
            continue
        if t not in ref_tensors:
            errors.append("%s: the interpreter did not keep it" % where)
            continue
        compared += 1
        e, g = ref_tensors[t], dumps[t]
        if t in unwritten:
            mk = unwritten[t].reshape(-1)
            e, g = np.asarray(e).reshape(-1)[~mk], np.asarray(g).reshape(-1)[~mk]
        d = diff(e, g)
        if d:
            own = all(i < 0 or i in equal for i in op["inputs"])
            errors.append("%s: %s%s" % (where, d, " [inputs identical to the reference: this op is wrong]" if own
                                        else " [an input already differed]"))
        else:
            equal.add(t)
    return errors, compared
