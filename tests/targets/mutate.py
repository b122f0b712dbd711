#!/usr/bin/env python3
"""tests/targets/mutate.py - target-file mutation check. Deterministic
mutants (fixed seed) of targets/*.lua go through `htc report`: every run
must exit 0, or exit 1 with one "htc: error: " line (warnings may come
before it); never a crash, a sanitizer report or a timeout. Run it with the
sanitizer build: HTC=./htc-asan tests/targets/mutate.py [-n MUTANTS] [--seed S].

Mutations, one to three per mutant: a number replaced by a hostile value
(0, -1, 0.5, 1e300, 2^63, 0/0, 1/0, a string, a table, nil), a string
replaced (empty, another name, a number), a field's value given a hostile
prefix (maximize = 0/0 + ..., size = 2^63 + ...), a line deleted, duplicated
or swapped with its neighbour, `return true` / `return false` in a predicate
turned into another value, an error(nil) / error({}) / a big allocation
inserted. cpu.lua compiles the KWS model; accelerator targets compile
tests/targets/qconv.onnx (their tile functions run) and the KWS model."""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS = os.environ.get("HTC_MODELS") or os.path.join(REPO, "..", "shared", "models", "mlperf_tiny")

NUMBERS = ["0", "-1", "0.5", "1e300", "-1e300", "2^63", "(0/0)", "(1/0)", "'7'", "{}", "nil", "true", "1e-300",
           "2^31", "-2^31"]
STRINGS = ['""', '"L1"', '"L2"', '"cpu"', '"qconv2d"', '"shift"', '"kernels/none.c"', '"x y"', "42", "nil",
           '"' + "a" * 300 + '"']
RETURNS = ['return "yes"', "return {}", "return nil", "return 1", "return false, {}", "return true, 3",
           "error(nil)", "error({})", "return false, nil"]
INSERTS = ["error(nil)", "error({})", "error('boom', 0)", "local _big = string.rep('x', 2^31)",
           "local _t = {} for _i = 1, 2e6 do _t[_i] = _i end", "return nil", "return 42", "return {}",
           "setmetatable(_ENV or {}, nil)"]

FIELDS = re.compile(r"\b(maximize|l1_bytes|w_bytes|cycles|macs_per_cycle|size|alignment|bytes_per_cycle|setup|"
                    r"startup|clock_mhz|cycles_per_mac|cycles_per_elem|double_buffer|requant|memory|weights)\s*=\s*")
PREFIXES = ["(0/0) + ", "-1e300 * ", "1e300 * ", "-", "0 * ", "'x' .. ", "nil and ", "{} or ", "2^63 + ",
            "(1/0) * ", "0.5 + ", "-1 + "]
NUM_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])")
STR_RE = re.compile(r'"[^"\n]*"')
RET_RE = re.compile(r"return (true|false)\b")


def mutate(src, rng):
    lines = src.split("\n")
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["num", "num", "num", "str", "str", "del", "dup", "swap", "ret", "ins", "field", "field",
                           "field", "top"])
        i = rng.randrange(len(lines))
        line = lines[i]
        if kind == "num":
            hits = list(NUM_RE.finditer(line))
            if hits:
                m = rng.choice(hits)
                lines[i] = line[:m.start()] + rng.choice(NUMBERS) + line[m.end():]
        elif kind == "str":
            hits = list(STR_RE.finditer(line))
            if hits:
                m = rng.choice(hits)
                lines[i] = line[:m.start()] + rng.choice(STRINGS) + line[m.end():]
        elif kind == "del":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, line)
        elif kind == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif kind == "ret":
            hits = [k for k, l in enumerate(lines) if RET_RE.search(l)]
            if hits:
                k = rng.choice(hits)
                lines[k] = RET_RE.sub(rng.choice(RETURNS), lines[k], count=1)
        elif kind == "ins":
            lines.insert(i, rng.choice(INSERTS))
        elif kind == "top":      # a statement where statements go: before `return target`
            k = next((k for k, l in enumerate(lines) if l.startswith("return target")), 0)
            lines.insert(k, rng.choice(INSERTS))
        elif kind == "field":
            hits = [(k, m) for k, l in enumerate(lines) for m in FIELDS.finditer(l)]
            if hits:
                k, m = rng.choice(hits)
                lines[k] = lines[k][:m.end()] + rng.choice(PREFIXES) + lines[k][m.end():]
    return "\n".join(lines)


def check(htc, target, model, timeout, exits):
    """None when the run kept the promise, else why not."""
    try:
        r = subprocess.run([htc, "report", model, "-t", target], capture_output=True, text=True, errors="replace",
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout after %d s" % timeout
    exits[r.returncode] = exits.get(r.returncode, 0) + 1
    err = [l for l in r.stderr.split("\n") if l]
    other = [l for l in err if not l.startswith("htc: warning: ")]
    if r.returncode == 0:
        return None if not other else "exit 0 with: %s" % " | ".join(other)[:400]
    if r.returncode != 1:
        return "exit %d: %s" % (r.returncode, " | ".join(err)[-400:])
    if len(other) != 1 or not other[0].startswith("htc: error: ") or err[-1] != other[0]:
        return "exit 1 without one htc: error line: %s" % " | ".join(err)[-600:]
    if "(null)" in other[0]:
        return "a message without its text: %s" % other[0][:300]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=300, help="mutants (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=60)
    a = ap.parse_args()
    htc = os.environ.get("HTC") or os.path.join(REPO, "htc")
    kws = os.path.join(MODELS, "kws_ref_model.tflite")
    qconv = os.path.join(HERE, "qconv.onnx")
    sources = {}
    for name in sorted(os.listdir(os.path.join(REPO, "targets"))):
        if name.endswith(".lua"):
            sources[name] = open(os.path.join(REPO, "targets", name)).read()
    rng = random.Random(a.seed)
    env_home = os.environ.setdefault("HTC_HOME", REPO)
    assert env_home
    passed = failed = 0
    exits = {}
    with tempfile.TemporaryDirectory() as tmp:
        names = sorted(sources)
        for k in range(a.n):
            name = names[k % len(names)]
            src = mutate(sources[name], rng)
            path = os.path.join(tmp, "m%d_%s" % (k, name))
            with open(path, "w") as f:
                f.write(src)
            model = kws if name == "cpu.lua" or k % 4 == 3 else qconv
            why = check(htc, path, model, a.timeout, exits)
            if why is None:
                passed += 1
                os.remove(path)
            else:
                failed += 1
                keep = os.path.join(REPO, "build", "mutants")
                os.makedirs(keep, exist_ok=True)
                with open(os.path.join(keep, os.path.basename(path)), "w") as f:
                    f.write(src)
                print("FAIL mutant %d of %s (%s, kept in build/mutants/): %s" % (k, name, os.path.basename(model), why))
    print("exit statuses: %s" % ", ".join("%d: %d" % kv for kv in sorted(exits.items())))
    print("target mutants: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
