#!/usr/bin/env python3
"""bench_mcu.py - `make bench-mcu`: instructions per inference, flash and RAM
of the four MLPerf Tiny models and the MNIST CNN on Cortex-M4, Cortex-M55
(Helium) and RV32IMC, measured for htc, printed beside the peers' recorded
reference figures (TFLite Micro with its reference kernels, and with CMSIS-NN;
PEERS below, from ../shared/peers/mcu.md) with htc's ratios to them.

htc's firmware is built by bench/mcu/Makefile with the flags the peers were
measured with (-O2; M4 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard
-mfpu=fpv4-sp-d16, M55 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard, RV32
-march=rv32imc) and picolibc semihosting, run under qemu (qemu-system-arm -M
mps2-an386 / -M mps3-an547, qemu-system-riscv32 -M virt) with the TCG plugin
examples/common/insncount.c, which counts every executed instruction between
two marks around each inference (on the M55 also the MVE instructions and
their beats: 4 per vector instruction). Flash = text + data of the ELF (size
-B; the harness and printf included); RAM = data + bss (arena included) + the
measured stack high-water. Every firmware's output is compared byte for byte
with `htc run` on the host on the same input.

The peers' figures are deterministic counts measured once with the same
harness shape (a TFLM firmware around one Invoke(), same compiler, flags,
qemu and plugin); this project does not build third-party sources.

Environment:
  HTC_MODELS       the MLPerf Tiny .tflite files (default ../shared/models/mlperf_tiny)
  HTC_EXTRA        mnist_cnn_int8.tflite (default HTC_MODELS/../extra)
  BENCH_DIR        build directory (default: a temporary one, removed)
  BENCH_MODELS     subset of "kws vww ic ad mnist";  BENCH_ARCHS  subset of "m4 m55 rv32"
  JOBS             make -j (default 2)
Exit status: 0 when htc ran on every architecture measured and matched
`htc run`; 1 otherwise (also when no architecture could be measured)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HARNESS = os.path.join(REPO, "bench", "mcu")
NAMES = ["kws", "vww", "ic", "ad", "mnist"]
TITLES = {"kws": "KWS", "vww": "VWW", "ic": "ResNet-8", "ad": "AD", "mnist": "MNIST CNN"}
ARCH = {
    "m4": {"title": "Cortex-M4 (qemu-system-arm -M mps2-an386)", "pfx": "arm-none-eabi-",
           "qemu": "qemu-system-arm", "pkgs": "gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm"},
    "m55": {"title": "Cortex-M55, Helium (qemu-system-arm -M mps3-an547)", "pfx": "arm-none-eabi-",
            "qemu": "qemu-system-arm", "pkgs": "gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm"},
    "rv32": {"title": "RV32IMC (qemu-system-riscv32 -M virt)", "pfx": "riscv64-unknown-elf-",
             "qemu": "qemu-system-riscv32", "pkgs": "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf "
             "qemu-system-misc"},
}

# The peers' recorded figures (../shared/peers/mcu.md): per architecture and
# model, (instructions, flash, RAM) of TFLite Micro with its reference kernels
# ("ref") and with CMSIS-NN ("cmsis": ARM_MATH_DSP on the M4, ARM_MATH_DSP +
# ARM_MATH_MVEI on the M55). Counted under QEMU 7.2 by the same TCG plugin
# between marks around one Invoke() (the 2nd of 3; all equal), every output
# byte-equal to `htc run`.
PEER_PROVENANCE = [
    "TFLite Micro 90b983c2b3f1480642e040bbd2ddb37b998f3424 (its release flags, every file at -O2),",
    "CMSIS-NN 4ab83cc3 (TFLM's pin; M4 ARM_MATH_DSP, M55 ARM_MATH_DSP + ARM_MATH_MVEI),",
    "arm-none-eabi-gcc 12.2.1 / riscv64-unknown-elf-gcc 12.2.0 -O2, picolibc semihosting, QEMU 7.2,",
    "same -mcpu/-march flags and boards as htc's firmware below; recorded in ../shared/peers/mcu.md",
]
PEERS = {
    "m4": {
        "kws": {"ref": (43115012, 127880, 27696), "cmsis": (7663426, 176296, 28316)},
        "vww": {"ref": (100489568, 407248, 105584), "cmsis": (24080200, 455664, 106204)},
        "ic": {"ref": (107493198, 172440, 59352), "cmsis": (31202443, 220856, 60492)},
        "ad": {"ref": (1954447, 350920, 7456), "cmsis": (583247, 399336, 8060)},
        "mnist": {"ref": (12393411, 133720, 33128), "cmsis": (1980270, 182800, 33748)},
    },
    "m55": {
        "kws": {"ref": (42138302, 126376, 27696), "cmsis": (1813629, 163080, 32936)},
        "vww": {"ref": (96380201, 405728, 105584), "cmsis": (6561365, 442432, 106360)},
        "ic": {"ref": (97662453, 170936, 59416), "cmsis": (4913891, 207640, 60616)},
        "ad": {"ref": (1698139, 349416, 7432), "cmsis": (150291, 386120, 14928)},
        "mnist": {"ref": (12632622, 132296, 33128), "cmsis": (661057, 169440, 33888)},
    },
    "rv32": {
        "kws": {"ref": (44313108, 154092, 27692)},
        "vww": {"ref": (109944661, 433444, 105580)},
        "ic": {"ref": (125524210, 198652, 59456)},
        "ad": {"ref": (2480276, 377132, 7428)},
    },
}
PEER_NAMES = {"ref": "TFLM ref", "cmsis": "TFLM+CMSIS"}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def missing_tools(arch):
    """what this architecture lacks, as a list of sentences (empty: all there)"""
    a = ARCH[arch]
    miss = [t for t in (a["pfx"] + "gcc", a["pfx"] + "size", a["pfx"] + "nm", a["qemu"]) if not shutil.which(t)]
    if not miss:
        spec = run([a["pfx"] + "gcc", "-print-file-name=picolibc.specs"]).stdout.strip()
        if not os.path.isabs(spec):
            miss.append("picolibc for %sgcc (picolibc.specs)" % a["pfx"])
    return miss


def parse_log(path, model):
    """one run's log (bench/mcu/Makefile): instructions of each marked
    inference, size -B, stack high-water, output bytes, exit status"""
    r = {"regions": [], "mve": [], "out": None, "exit": None, "stack": None, "text": 0, "data": 0, "bss": 0, "weights": 0}
    syms = {}
    for line in open(path, errors="replace"):
        m = re.match(r"insncount: region \d+: (\d+)$", line)
        if m:
            r["regions"].append(int(m.group(1)))
        m = re.match(r"insncount: region \d+ mve: (\d+) beats: (\d+)$", line)
        if m:
            r["mve"].append((int(m.group(1)), int(m.group(2))))
        m = re.match(r"output-hex: ([0-9a-f]*)$", line)
        if m:
            r["out"] = m.group(1)
        m = re.search(r"stack_used (\d+)", line)
        if m:
            r["stack"] = int(m.group(1))
        m = re.match(r"exit (\d+)$", line)
        if m:
            r["exit"] = int(m.group(1))
        m = re.match(r"\s*(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+[0-9a-f]+\s+\S+\.elf$", line)
        if m:
            r["text"], r["data"], r["bss"] = map(int, m.groups())
        m = re.match(r"sym [0-9a-f]+ ([0-9a-f]+) \S (\S+)$", line)
        if m:
            syms[m.group(2)] = int(m.group(1), 16)
    r["weights"] = syms.get("g_model") or sum(v for k, v in syms.items() if re.match(model + r"__(?!layer\d|cascade\d)\w+$", k))
    # region 0 is the warm-up; the steady count is the next one (all equal)
    r["insn"] = r["regions"][1] if len(r["regions"]) > 1 else None
    r["mve1"] = r["mve"][1] if len(r["mve"]) > 1 else None
    r["steady_varies"] = len(set(r["regions"][1:])) > 1
    r["flash"] = r["text"] + r["data"]
    r["ram"] = r["data"] + r["bss"] + (r["stack"] or 0) if r["stack"] is not None else None
    return r


def why_failed(path, x):
    """one line: why a configuration has no count (its log's last words)"""
    if x is None:
        return "build failed (no %s; the harness's errors are below)" % path
    said = [l.strip() for l in open(path, errors="replace") if re.match(r"(htc|qemu[-\w]*):", l)]
    return "run failed, exit %s%s (%s)" % (x["exit"], (": " + said[-1]) if said else "", path)


def fmt(n):
    return "{:,}".format(n)


def main():
    models = (os.environ.get("BENCH_MODELS") or " ".join(NAMES)).split()
    archs = (os.environ.get("BENCH_ARCHS") or "m4 m55 rv32").split()
    bad = [m for m in models if m not in NAMES] + [a for a in archs if a not in ARCH]
    if bad:
        print("bench_mcu: unknown model or architecture: %s" % " ".join(bad))
        return 1
    mdir = os.path.abspath(os.environ.get("HTC_MODELS") or os.path.join(REPO, "..", "shared", "models", "mlperf_tiny"))
    xdir = os.path.abspath(os.environ.get("HTC_EXTRA") or os.path.join(mdir, "..", "extra"))
    htc = os.path.join(REPO, "htc")
    if not os.access(htc, os.X_OK):
        print("bench_mcu: no %s: run make htc first" % htc)
        return 1
    for t in ("cc", "make", "xxd", "timeout"):
        if not shutil.which(t):
            print("bench_mcu: %s not found (needed to build the plugin, the inputs and the model arrays)" % t)
            return 1
    bdir = os.path.abspath(os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="htc-bench-mcu-"))
    own = not os.environ.get("BENCH_DIR")
    jobs = os.environ.get("JOBS") or "2"
    failed = False
    try:
        print("htc on MCUs: instructions per inference (qemu, TCG plugin, exact), flash = text+data of the ELF,")
        print("RAM = data+bss+stack high-water; all builds -O2, picolibc; models %s" % " ".join(models))
        print("peers: recorded reference figures, not built here:")
        for line in PEER_PROVENANCE:
            print("  " + line)
        status = 0
        measured = 0
        for arch in archs:
            a = ARCH[arch]
            miss = missing_tools(arch)
            print("\n## %s" % a["title"])
            if miss:
                print("%s skipped: not found: %s (Debian: apt-get install %s)" % (arch, ", ".join(miss), a["pkgs"]))
                continue
            notes = []
            mk = ["make", "-k", "-s", "-f", os.path.join(HARNESS, "Makefile"), "-j" + jobs, "ARCH=" + arch,
                  "B=" + bdir, "MODELS=" + mdir, "EXTRA=" + xdir, "HTC_HOME=" + REPO, "M=" + " ".join(models),
                  "KEEP_LOG=1",
                  # make runs elsewhere: a relative HTC (tests/run.sh exports ./htc) must not leak in
                  "HTC=" + os.path.abspath(os.environ.get("HTC") or os.path.join(REPO, "htc"))]
            # a run's log is kept by the Makefile (.SECONDARY): remove this run's
            for m in models:
                for ext in (".log", ".elf"):
                    p = os.path.join(bdir, arch, "htc", m + ext)
                    if os.path.exists(p):
                        os.remove(p)
            r = run(mk + ["ref-out", "htc"])
            res = {}
            for m in models:
                p = os.path.join(bdir, arch, "htc", m + ".log")
                res[m] = parse_log(p, m) if os.path.exists(p) else None
            if r.returncode:
                errs = [l for l in (r.stdout + r.stderr).splitlines()
                        if re.search(r"error|Error|failed|\*\*\*|No such|not found|undefined reference|^no ", l)]
                notes.append("the harness reported errors (make -k):\n  " + "\n  ".join(errs[-20:]))
            mve = arch == "m55"
            print("%-5s %-11s %14s %10s %9s%s  %s" % ("model", "build", "instructions", "flash", "RAM",
                                                     " %12s %13s" % ("MVE insns", "MVE beats") if mve else "",
                                                     "output"))
            for m in models:
                peers = PEERS[arch].get(m, {})
                for k in ("ref", "cmsis"):
                    if k in peers:
                        i, f, ram = peers[k]
                        print("%-5s %-11s %14s %10s %9s%s  recorded" % (m, PEER_NAMES[k], fmt(i), fmt(f), fmt(ram),
                                                                      " %12s %13s" % ("-", "-") if mve else ""))
                ref = None
                p = os.path.join(bdir, "ref", m + ".out.hex")
                if os.path.exists(p):
                    ref = open(p).read().strip()
                x = res[m]
                if x is None or x["insn"] is None or x["exit"] != 0:
                    print("%-5s %-11s %s" % (m, "htc", why_failed(os.path.join(bdir, arch, "htc", m + ".log"), x)))
                    failed = True
                    status = 1
                    continue
                if ref is None:
                    chk = "? (no htc run output)"
                elif x["out"] == ref:
                    chk = "= htc run"
                else:
                    chk = "DIFFERS from htc run"
                if chk != "= htc run":
                    status = 1
                beats = ""
                if mve:
                    v = x["mve1"] or (None, None)
                    beats = " %12s %13s" % (fmt(v[0]) if v[0] is not None else "?", fmt(v[1]) if v[1] is not None else "?")
                print("%-5s %-11s %14s %10s %9s%s  %s%s" % (m, "htc", fmt(x["insn"]), fmt(x["flash"]), fmt(x["ram"]),
                                                          beats, chk, " (steady runs vary)" if x["steady_varies"] else ""))
                measured += 1
                for k, name in (("cmsis", "htc/cmsis"), ("ref", "htc/ref")):
                    if k in peers:
                        i, f, ram = peers[k]
                        print("%-5s %-11s %14.3f %10.3f %9.3f" % (m, name, x["insn"] / i, x["flash"] / f, x["ram"] / ram))
            for n in notes:
                print(n)
        if measured == 0:
            print("\nbench_mcu: nothing measured")
            return 1
        return status
    finally:
        if own and not failed:
            shutil.rmtree(bdir, ignore_errors=True)
        elif own:
            print("build directory kept: %s" % bdir)


if __name__ == "__main__":
    sys.exit(main())
