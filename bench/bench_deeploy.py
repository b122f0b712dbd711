"""bench/bench_deeploy.py - QuantLib's integer networks (../shared/deeploy-tests):
htc's generation time (htc compile, whole process, median of 5) and host
time per inference (htc run --repeat), per network. Deeploy is not installed
here (it needs its own toolchains); its generation time is the figure stated
in htc's issue 14 for this kind of machine: 7-18 s per MLPerf network."""
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HTC = os.path.join(REPO, "htc")
TARGET = os.path.join(REPO, "targets", "cpu.lua")
TESTS = os.environ.get("HTC_DEEPLOY") or os.path.join(REPO, "..", "shared", "deeploy-tests")
NETS = ["MLPerf_KeywordSpotting", "miniMobileNet", "CCT_Int_ICCT", "microLlama_INT8_microLlama1"]


def main():
    if not os.path.isdir(TESTS):
        sys.exit("bench_deeploy: %s is missing" % TESTS)
    print("QuantLib integer networks: htc generation time and host time per inference (targets/cpu.lua)")
    print("%-30s %12s %14s %10s" % ("network", "generate ms", "us/inference", "arena B"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in NETS:
            d = os.path.join(TESTS, n)
            model, inputs = os.path.join(d, "network.onnx"), os.path.join(d, "inputs.npz")
            ts = []
            for _ in range(5):
                t0 = time.perf_counter()
                subprocess.run([HTC, "compile", model, "-t", TARGET, "-o", os.path.join(tmp, "m.h"), "--name", "m", "--input", inputs],
                               check=True, capture_output=True)
                ts.append((time.perf_counter() - t0) * 1e3)
            ts.sort()
            r = subprocess.run([HTC, "run", model, "-t", TARGET, "--input", inputs, "--output",
                                os.path.join(tmp, "o.npz"), "--repeat", "2000"], check=True, capture_output=True, text=True)
            us = float(re.search(r"([0-9.]+) us per inference", r.stdout).group(1))
            arena = re.search(r"#define M_ARENA_SIZE (\d+)", open(os.path.join(tmp, "m.h")).read()).group(1)
            print("%-30s %12.1f %14.2f %10s" % (n, ts[2], us, arena))
    print("Deeploy (issue 14's figure for this kind of machine, not measured here): 7000-18000 ms per MLPerf network;"
          " htc generates MLPerf KWS in the time above.")


if __name__ == "__main__":
    main()
