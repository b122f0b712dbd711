#!/usr/bin/env python3
"""bench/bench_pool.py - host time per inference of a header whose layers are
divided over two cores (targets/dual-m33.lua -D cores=2), by how its fork/join
hook HTC_PAR_RUN is bound (bench/pool/run.c):

  1 core    the header built with -D cores=1 (no fork at all)
  serial    the 2-core header, HTC_PAR_RUN unbound: both shares on one thread
  pool      examples/common/htc_pool.h: persistent threads polling for forks,
            each layer on the faster of divided / one core
  spawn     a new thread per share of every fork (a first binding often is)

and each against 1 core ("1.85x": the pool takes 1 / 1.85 of one core's
time). The median of BENCH_RUNS inferences (default 50) after one warm-up;
every output hash must equal the 1-core build's. It measures and prints; it
asserts nothing but the outputs. Host load (other processes on the same
processors) shows in the pool's figure: it cannot divide work over
processors that are busy, only fall back to one core.
Environment: HTC, HTC_MODELS, CC, BENCH_RUNS.
"""
import os
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
if not os.path.isabs(HTC):
    HTC = os.path.join(REPO, HTC)
MODELS_DIR = os.path.abspath(os.path.join(REPO, os.environ.get("HTC_MODELS") or "../shared/models/mlperf_tiny"))
MODELS = (("KWS", "kws_ref_model"), ("VWW", "vww_96_int8"))
CC = os.environ.get("CC") or "cc"
RUNS = int(os.environ.get("BENCH_RUNS") or 50)
TARGET = os.path.join(REPO, "targets", "dual-m33.lua")


def build(d, model, cores, mode):
    h = os.path.join(d, "c%d" % cores)
    os.makedirs(h, exist_ok=True)
    if not os.path.exists(os.path.join(h, "model.h")):
        subprocess.run([HTC, "compile", model, "-t", TARGET, "-D", "cores=%d" % cores, "-D", "sram_kib=4096",
                        "-o", os.path.join(h, "model.h"), "--name", "model"], check=True)
    exe = os.path.join(d, "run-%d-%s" % (cores, mode))
    flags = {"pool": ["-DPOOL"], "spawn": ["-DSPAWN"]}.get(mode, [])
    subprocess.run([CC, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2", "-pthread", "-I", h,
                    "-I", os.path.join(REPO, "examples", "common")] + flags +
                   [os.path.join(REPO, "bench", "pool", "run.c"), "-o", exe], check=True)
    return exe


def run(exe):
    out = subprocess.run([exe, str(RUNS)], capture_output=True, text=True, check=True).stdout
    kv = dict(line.split() for line in out.splitlines())
    return int(kv["ns"]), kv["fnv"]


def main():
    print("bench_pool: host ns per inference (median of %d), targets/dual-m33.lua, %d processors"
          % (RUNS, os.cpu_count() or 0), flush=True)
    print("%-9s %12s %12s %12s %12s   %s" % ("model", "1 core", "serial", "pool", "spawn", "vs 1 core: serial / pool / spawn"))
    with tempfile.TemporaryDirectory() as d:
        for title, name in MODELS:
            model = os.path.join(MODELS_DIR, name + ".tflite")
            md = os.path.join(d, name)
            t = {}
            h = {}
            for key, cores, mode in (("1", 1, "none"), ("serial", 2, "none"), ("pool", 2, "pool"),
                                     ("spawn", 2, "spawn")):
                t[key], h[key] = run(build(md, model, cores, mode))
            if len(set(h.values())) != 1:
                sys.exit("bench_pool: %s: outputs differ between bindings: %s" % (title, h))
            print("%-9s %12d %12d %12d %12d   %.2fx / %.2fx / %.2fx" % (
                title, t["1"], t["serial"], t["pool"], t["spawn"],
                t["1"] / t["serial"], t["1"] / t["pool"], t["1"] / t["spawn"]), flush=True)


if __name__ == "__main__":
    main()
