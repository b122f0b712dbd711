"""tests/tflm_suite.py - every .tflite of a TFLite Micro checkout through
`htc run` (targets/cpu.lua) and through the tflite-micro interpreter
(tests/oracle.py), on random inputs; prints one line per model and a table:
exact / mismatch / refused (htc's one-line reason) / crash, next to TFLM's
own status (TFLM refuses some models itself: custom operators it has no
kernel for). The checkout is read in place, never copied:
    TFLM_SRC=/path/to/tflite-micro python tests/tflm_suite.py [SUBSTRING...]
(`make tflm-suite TFLM_SRC=...`). "exact" means every model output and
every operator output htc dumps equals the interpreter's, bit for bit.
A model's int32 graph input that is the output_shape operand of a
TRANSPOSE_CONV gets the output's static shape (the value the model was
built for; TFLM itself reads the shape from the output tensor).
Exit status 1 when a model TFLM runs is a mismatch, a crash or refused.
Options: --seed N (default 0), -D NAME=VALUE (passed to htc; without any,
-D l2_kib=16384: mobilenet_v2's layer-by-layer arena is 2.45 MB, and in
the CPU target's default 512 KiB htc would run it in cascades, whose inner
tensors are never whole, so not compared), --json FILE."""
import json
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle           # noqa: E402

REPO = oracle.REPO


def models(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if f.endswith(".tflite"):
                yield os.path.relpath(os.path.join(d, f), root)


def inputs_for(info, seed):
    """Random inputs; a TRANSPOSE_CONV output_shape graph input gets the
    output tensor's static shape."""
    xs = info.random_inputs(seed)
    for op in info.ops:
        if op["op"] == "TRANSPOSE_CONV" and op["inputs"][0] in info.inputs:
            k = info.inputs.index(op["inputs"][0])
            shape = info.tensors[op["outputs"][0]]["shape"]
            xs[k] = np.array(shape, dtype=info.tensors[op["inputs"][0]]["dtype"]).reshape(xs[k].shape)
    return xs


def first_line(s):
    for line in s.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def tflm_status(path, info, xs):
    """('ok', '', outputs, tensors) or ('refused', reason, None, None)."""
    try:
        outs, tensors = oracle.run_interpreter(path, xs, info=info)
        return "ok", "", outs, tensors
    except Exception as e:      # the interpreter raises RuntimeError on a model it cannot run
        return "refused", first_line(str(e)) or type(e).__name__, None, None


def htc_status(path, info, xs, args, tmp):
    """('exact'|'mismatch', detail) after a run, ('refused', htc's line) when
    `htc compile` refuses the model, ('crash', detail) otherwise."""
    try:
        outs, dumps, _ = oracle.run_htc(path, xs, workdir=tmp, args=args)
        return "ran", (outs, dumps)
    except oracle.HtcError as e:
        if e.rc < 0:
            return "crash", "htc killed by signal %d: %s" % (-e.rc, first_line(e.stderr))
        c = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", os.path.join(tmp, "m.h"), *args, check=False)
        if c.returncode < 0:
            return "crash", "htc compile killed by signal %d" % -c.returncode
        if c.returncode != 0:
            lines = [x for x in c.stderr.splitlines() if x.strip()]
            reason = lines[0].strip() if lines else "(no message)"
            for pre in ("htc: error: ", path + ": "):
                reason = reason[len(pre):] if reason.startswith(pre) else reason
            if len(lines) != 1:
                reason += "  [%d lines of error output]" % len(lines)
            return "refused", reason
        return "crash", "compiles, but the run failed: " + first_line(e.stderr)
    except subprocess.TimeoutExpired:
        return "crash", "timeout"


def _tflm_version():
    try:
        from importlib.metadata import version
        return version("tflite-micro")
    except Exception:
        return "(version unknown)"


def main(argv):
    root = os.environ.get("TFLM_SRC")
    seed, args, filters, jpath = 0, [], [], None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--seed":
            seed = int(argv[i + 1]); i += 2
        elif a == "-D":
            args += ["-D", argv[i + 1]]; i += 2
        elif a == "--json":
            jpath = argv[i + 1]; i += 2
        elif a in ("-h", "--help"):
            print(__doc__); return 0
        else:
            filters.append(a); i += 1
    if not args:
        args = ["-D", "l2_kib=16384"]
    if not root or not os.path.isdir(root):
        sys.exit("tflm_suite.py: set TFLM_SRC to a checkout of github.com/tensorflow/tflite-micro")
    print("htc: %s %s; TFLM: tflite-micro %s; seed %d" % (os.path.relpath(oracle.TARGET, REPO), " ".join(args),
                                                          _tflm_version(), seed), flush=True)
    rows = []
    for rel in models(root):
        if filters and not any(f in rel for f in filters):
            continue
        path = os.path.join(root, rel)
        tmp = tempfile.mkdtemp(prefix="htc-tflm-")
        try:
            info = oracle.ModelInfo(path)
            xs = inputs_for(info, seed)
            tstat, treason, touts, ttensors = tflm_status(path, info, xs)
            hstat, hres = htc_status(path, info, xs, args, tmp)
            detail = hres if isinstance(hres, str) else ""
            if hstat == "ran":
                if tstat != "ok":
                    hstat, detail = "ran", "TFLM refuses it; htc ran it"
                else:
                    outs, dumps = hres
                    errors, compared = oracle.compare_run(info, touts, ttensors, outs, dumps)
                    if errors:
                        hstat, detail = "mismatch", "%d differences, first: %s" % (len(errors), errors[0])
                    else:
                        hstat, detail = "exact", "%d outputs, %d operator outputs" % (len(outs), compared)
            rows.append((rel, hstat, detail, tstat, treason))
        except Exception:
            rows.append((rel, "crash", "suite error: " + traceback.format_exc().splitlines()[-1], "-", ""))
        finally:
            subprocess.run(["rm", "-rf", tmp])
        r = rows[-1]
        print("%-8s TFLM %-7s %s  %s%s" % (r[1], r[3], r[0], r[2], ("  [TFLM: %s]" % r[4]) if r[4] else ""),
              flush=True)

    kinds = ["exact", "mismatch", "refused", "crash", "ran"]
    print()
    print("%-22s %6s %10s %12s" % ("htc", "models", "TFLM runs", "TFLM refuses"))
    for k in kinds:
        n = [r for r in rows if r[1] == k]
        if k == "ran" and not n:
            continue
        print("%-22s %6d %10d %12d" % (k, len(n), sum(r[3] == "ok" for r in n), sum(r[3] != "ok" for r in n)))
    print("%-22s %6d %10d %12d" % ("total", len(rows), sum(r[3] == "ok" for r in rows),
                                   sum(r[3] != "ok" for r in rows)))
    if jpath:
        with open(jpath, "w") as f:
            json.dump([{"model": r[0], "htc": r[1], "detail": r[2], "tflm": r[3], "tflm_reason": r[4]}
                       for r in rows], f, indent=1)
    bad = [r for r in rows if r[3] == "ok" and r[1] != "exact"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
