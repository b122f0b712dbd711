#!/usr/bin/env python3
"""bench/bench_ad_fc.py - `make bench`: the AD model (MLPerf Tiny deep
autoencoder, ten FULLY_CONNECTED layers) on Cortex-M4, instructions per
inference before and after FULLY_CONNECTED moved from ai-edge-litert's
rescaling (round(double(acc) * scale): software double arithmetic on an FPU-less
Cortex-M4) to TFLite Micro's fixed-point multiplier and shift.

Both measured in this run: htc is built from BEFORE (the parent of the FC
change, in a temporary `git worktree`) and from the current tree; each
compiles examples/ad (the current tree's firmware; the header with the
target file, htc.h and kernels of that htc's own tree), which runs under qemu-system-arm -M mps2-an386 with the
instruction-count plugin (examples/common/insncount.c). Prints per-layer
counts, the totals and after/before. Without git history only "after" is
printed, with the reason.

Environment: HTC (default ./htc), HTC_MODELS (default
../shared/models/mlperf_tiny).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BEFORE = "45003e7"       # parent of 2639eba "fc: FULLY_CONNECTED requantizes with TFLite Micro's ..."
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
MODELS_DIR = os.path.abspath(os.path.join(REPO, os.environ.get("HTC_MODELS") or "../shared/models/mlperf_tiny"))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build_before(tmp):
    """htc built from BEFORE in a temporary worktree, or (None, reason)."""
    wt = os.path.join(tmp, "before")
    p = run(["git", "-C", REPO, "worktree", "add", "--detach", wt, BEFORE])
    if p.returncode != 0:
        return None, "no git history with %s (%s)" % (BEFORE, p.stderr.strip().splitlines()[-1:] or "?")
    p = run(["make", "-C", wt, "htc"])
    if p.returncode != 0:
        return None, "building htc at %s failed: %s" % (BEFORE, p.stderr.strip()[-300:])
    return os.path.join(wt, "htc"), None


def m4_counts(htc, bdir):
    """examples/ad built with this htc (with the target file, htc.h and
    kernels of its own tree) and run on the Cortex-M4 model:
    ({layer: (op, instructions)}, total, output checksum)."""
    target = os.path.join(os.path.dirname(htc), "targets", "cpu.lua")
    env = dict(os.environ)
    env.pop("HTC_HOME", None)
    p = run(["make", "-s", "-C", os.path.join(REPO, "examples", "ad"), "B=" + bdir, "HTC=" + htc,
             "HTC_MODELS=" + MODELS_DIR, "TARGET=" + target, "m4"], env=env)
    if p.returncode != 0:
        raise RuntimeError("examples/ad m4 with %s failed:\n%s%s" % (htc, p.stdout[-2000:], p.stderr[-2000:]))
    layers = {int(m.group(1)): (m.group(2), int(m.group(3)))
              for m in re.finditer(r"^prof: layer +(\d+) +(\S+) +(\d+) instructions$", p.stdout, re.M)}
    total = re.search(r"^prof: ad total (\d+) instructions on m4$", p.stdout, re.M)
    out = re.search(r"^result: ad output 640 bytes (fnv1a \w+)$", p.stdout, re.M)
    if not total or not layers:
        raise RuntimeError("no instruction counts in the output:\n" + p.stdout[-2000:])
    return layers, int(total.group(1)), out.group(1) if out else "?"


def main():
    print("AD (ad01_int8.tflite, 10 FULLY_CONNECTED) on Cortex-M4 (qemu mps2-an386, insncount plugin),")
    print("instructions per inference: htc before the FC change (%s, double rescaling) vs now" % BEFORE)
    tmp = tempfile.mkdtemp(prefix="htc-bench-ad-")
    try:
        old, why = build_before(tmp)
        after = m4_counts(HTC, os.path.join(tmp, "after"))
        if old is None:
            print("before: not measured: %s" % why)
            print("after : %d instructions per inference" % after[1])
            return 0
        before = m4_counts(old, os.path.join(tmp, "b"))
        print("%-6s %-6s %12s %12s %8s" % ("layer", "op", "before", "after", "ratio"))
        for k in sorted(after[0]):
            name, a = after[0][k]
            b = before[0].get(k, ("?", 0))[1]
            print("%-6d %-6s %12d %12d %7.2fx" % (k, name, b, a, b / a if a else 0.0))
        fc_b = sum(v for n, v in before[0].values() if n == "fc")
        fc_a = sum(v for n, v in after[0].values() if n == "fc")
        print("%-13s %12d %12d %7.2fx" % ("FC layers", fc_b, fc_a, fc_b / fc_a))
        print("%-13s %12d %12d %7.2fx" % ("total", before[1], after[1], before[1] / after[1]))
        print("outputs: before %s (ai-edge-litert's FC), after %s (TFLite Micro's FC)" % (before[2], after[2]))
        return 0
    finally:
        run(["git", "-C", REPO, "worktree", "remove", "--force", os.path.join(tmp, "before")])
        shutil.rmtree(tmp, ignore_errors=True)
        run(["git", "-C", REPO, "worktree", "prune"])


if __name__ == "__main__":
    sys.exit(main())
