#!/usr/bin/env python3
"""bench_mcu.py - `make bench-mcu`: instructions per inference, flash and RAM
of the four MLPerf Tiny models on Cortex-M4 and RV32IMC, for htc and, when the
peer sources are present, TFLite Micro with reference kernels and with CMSIS-NN
kernels, built and run in the same run.

Everything is built by bench/mcu/Makefile with the same flags (-O2; M4
-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16, RV32 -march=rv32imc)
and picolibc semihosting, run under qemu (qemu-system-arm -M mps2-an386,
qemu-system-riscv32 -M virt) with the TCG plugin examples/common/insncount.c,
which counts every executed instruction between two marks around each
inference. Flash = text + data of the ELF (size -B; the harness and printf
included); RAM = data + bss (arenas included) + the measured stack high-water.
Every firmware's output is compared byte for byte with `htc run` on the host
on the same input.

Environment:
  TFLM, LISTS      a TFLite Micro tree and its source lists, as made by
                   bench/mcu/setup.sh WORK (WORK/tflm, WORK/lists), or
  PEER_SRC         a directory with git clones of tflite-micro, flatbuffers,
                   gemmlowp, ruy, CMSIS-NN and CMSIS_6 (setup.sh is then run
                   into BENCH_DIR/peer-setup, TFLM at TFLM_REV, default the
                   pinned commit below)
  HTC_MODELS       the .tflite files (default ../shared/models/mlperf_tiny)
  BENCH_DIR        build directory (default: a temporary one, removed)
  BENCH_MODELS     subset of "kws vww ic ad";  BENCH_ARCHS  subset of "m4 rv32"
  ARENAS           TFLM arena sizes (make variables ARENA_ref_kws=N ...)
  RV_CXX_INC       libstdc++ include flags for TFLM on RV32 (default: the
                   arm-none-eabi newlib ones, Debian's libstdc++-arm-none-eabi-dev)
  JOBS             make -j (default 2)
Exit status: 0 when htc ran on every architecture measured and matched
`htc run`; 1 otherwise (also when no architecture could be measured). Peers
that are absent are reported, not an error."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HARNESS = os.path.join(REPO, "bench", "mcu")
NAMES = ["kws", "vww", "ic", "ad"]
TFLM_REV = "90b983c2b3f1480642e040bbd2ddb37b998f3424"
# arena sizes found by trial for TFLM 90b983c (bench/mcu/Makefile takes 200 KiB
# when not given); RV32 ic needs a little more than M4
ARENAS = {"m4": "ARENA_ref_kws=22784 ARENA_ref_vww=100672 ARENA_ref_ic=54352 ARENA_ref_ad=2816 "
                "ARENA_cmsis_kws=22832 ARENA_cmsis_vww=100720 ARENA_cmsis_ic=55008 ARENA_cmsis_ad=3072",
          "rv32": "ARENA_ref_kws=22784 ARENA_ref_vww=100672 ARENA_ref_ic=54528 ARENA_ref_ad=2816"}
ARCH = {
    "m4": {"title": "Cortex-M4 (qemu-system-arm -M mps2-an386)", "pfx": "arm-none-eabi-",
           "qemu": "qemu-system-arm", "pkgs": "gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm",
           "cfgs": ["tflm-ref", "tflm-cmsis", "htc"]},
    "rv32": {"title": "RV32IMC (qemu-system-riscv32 -M virt)", "pfx": "riscv64-unknown-elf-",
             "qemu": "qemu-system-riscv32", "pkgs": "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf "
             "qemu-system-misc", "cfgs": ["tflm-ref", "htc"]},
}
PEER_REPOS = {"TFLM_GIT": "tflite-micro", "FLATBUFFERS_GIT": "flatbuffers", "GEMMLOWP_GIT": "gemmlowp",
              "RUY_GIT": "ruy", "CMSIS_NN_GIT": "CMSIS-NN", "CMSIS6_GIT": "CMSIS_6"}


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


def rv_cxx_inc():
    """libstdc++ headers for TFLM on RV32 (Debian's riscv64-unknown-elf has none)"""
    if os.environ.get("RV_CXX_INC"):
        return os.environ["RV_CXX_INC"]
    dirs = sorted(glob.glob("/usr/include/newlib/c++/*"))
    if not dirs:
        return None
    i = dirs[-1]
    return "-nostdinc++ -isystem %s -isystem %s/arm-none-eabi/thumb/v7/nofp" % (i, i)


def peer_tree(bdir):
    """(TFLM, LISTS) from the environment, or from PEER_SRC via setup.sh; (None, reason) when absent"""
    t, l = os.environ.get("TFLM"), os.environ.get("LISTS")
    if t or l:
        if not (t and l and os.path.isdir(t) and os.path.isfile(os.path.join(l or "", "ref.lst"))):
            return None, "TFLM=%s / LISTS=%s are not a tree and lists made by bench/mcu/setup.sh" % (t, l)
        return (os.path.abspath(t), os.path.abspath(l)), None
    src = os.environ.get("PEER_SRC")
    if not src:
        return None, "neither TFLM + LISTS nor PEER_SRC is set"
    env = dict(os.environ, TFLM_REV=os.environ.get("TFLM_REV") or TFLM_REV)
    for var, name in PEER_REPOS.items():
        d = os.path.join(src, name)
        d = os.path.join(d, ".git") if os.path.isdir(os.path.join(d, ".git")) else d
        if not os.path.isdir(d):
            return None, "PEER_SRC=%s has no %s (git clone https://github.com/.../%s)" % (src, name, name)
        env[var] = d
    work = os.path.join(bdir, "peer-setup")
    print("setting up TFLite Micro from %s (bench/mcu/setup.sh %s)" % (src, work), flush=True)
    r = run(["bash", os.path.join(HARNESS, "setup.sh"), work], env=env)
    if r.returncode:
        return None, "setup.sh failed:\n" + (r.stdout + r.stderr)[-1500:]
    return (os.path.join(work, "tflm"), os.path.join(work, "lists")), None


def parse_log(path, model):
    """one run's log (bench/mcu/Makefile): instructions of each marked
    inference, size -B, stack high-water, output bytes, exit status"""
    r = {"regions": [], "out": None, "exit": None, "stack": None, "text": 0, "data": 0, "bss": 0, "weights": 0}
    syms = {}
    for line in open(path, errors="replace"):
        m = re.match(r"insncount: region \d+: (\d+)$", line)
        if m:
            r["regions"].append(int(m.group(1)))
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
    r["weights"] = syms.get("g_model") or sum(v for k, v in syms.items() if re.match(model + r"__t\d+$", k))
    # region 0 is the warm-up; the steady count is the next one (all equal)
    r["insn"] = r["regions"][1] if len(r["regions"]) > 1 else None
    r["steady_varies"] = len(set(r["regions"][1:])) > 1
    r["flash"] = r["text"] + r["data"]
    r["ram"] = r["data"] + r["bss"] + (r["stack"] or 0) if r["stack"] is not None else None
    return r


def why_failed(path, x):
    """one line: why a configuration has no count (its log's last words)"""
    if x is None:
        return "build failed (no %s; the harness's errors are below)" % path
    said = [l.strip() for l in open(path, errors="replace") if re.match(r"(tflm|htc|qemu[-\w]*):", l)]
    hint = "; a larger TFLM arena: ARENAS=\"ARENA_ref_<model>=N ...\"" if said and "AllocateTensors" in said[-1] else ""
    return "run failed, exit %s%s (%s)%s" % (x["exit"], (": " + said[-1]) if said else "", path, hint)


def main():
    models = (os.environ.get("BENCH_MODELS") or " ".join(NAMES)).split()
    archs = (os.environ.get("BENCH_ARCHS") or "m4 rv32").split()
    bad = [m for m in models if m not in NAMES] + [a for a in archs if a not in ARCH]
    if bad:
        print("bench_mcu: unknown model or architecture: %s" % " ".join(bad))
        return 1
    mdir = os.path.abspath(os.environ.get("HTC_MODELS") or os.path.join(REPO, "..", "shared", "models", "mlperf_tiny"))
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
        tree, why = peer_tree(bdir)
        print("htc on MCUs: instructions per inference (qemu, TCG plugin, exact), flash = text+data of the ELF,")
        print("RAM = data+bss+stack high-water; all builds -O2, picolibc; models %s" % " ".join(models))
        if tree is None:
            print("peers not built: %s. To compare with TFLite Micro (reference and CMSIS-NN kernels) set PEER_SRC "
                  "to a directory of git clones (README, 'Tests and benchmarks')." % why)
        status = 0
        measured = 0
        for arch in archs:
            a = ARCH[arch]
            miss = missing_tools(arch)
            print("\n## %s" % a["title"])
            if miss:
                print("%s skipped: not found: %s (Debian: apt-get install %s)" % (arch, ", ".join(miss), a["pkgs"]))
                continue
            cfgs = ["htc"]
            notes = []
            if tree:
                cfgs = [c for c in a["cfgs"] if c != "htc"] + cfgs
            extra = []
            if tree and arch == "rv32":
                inc = rv_cxx_inc()
                if inc is None:
                    notes.append("TFLM on rv32 not built: no libstdc++ headers (set RV_CXX_INC, or apt-get install "
                                 "libstdc++-arm-none-eabi-dev whose header-only parts TFLM uses)")
                    cfgs = ["htc"]
                else:
                    extra.append("RV_CXX_INC=" + inc)
            mk = ["make", "-k", "-s", "-f", os.path.join(HARNESS, "Makefile"), "-j" + jobs, "ARCH=" + arch,
                  "B=" + bdir, "MODELS=" + mdir, "HTC_HOME=" + REPO, "M=" + " ".join(models), "KEEP_LOG=1",
                  # make runs elsewhere: a relative HTC (tests/run.sh exports ./htc) must not leak in
                  "HTC=" + os.path.abspath(os.environ.get("HTC") or os.path.join(REPO, "htc"))]
            if tree:
                mk += ["TFLM=" + tree[0], "LISTS=" + tree[1]] + (os.environ.get("ARENAS") or ARENAS[arch]).split()
            # a run's log is kept by the Makefile (.SECONDARY): remove this run's
            for c in cfgs:
                for m in models:
                    for ext in (".log", ".elf"):
                        p = os.path.join(bdir, arch, c, m + ext)
                        if os.path.exists(p):
                            os.remove(p)
            r = run(mk + extra + ["ref-out"] + cfgs)
            res = {}
            for c in cfgs:
                for m in models:
                    p = os.path.join(bdir, arch, c, m + ".log")
                    res[(c, m)] = parse_log(p, m) if os.path.exists(p) else None
            if r.returncode:
                errs = [l for l in (r.stdout + r.stderr).splitlines()
                        if re.search(r"error|Error|failed|\*\*\*|No such|not found|undefined reference", l)]
                notes.append("the harness reported errors (make -k):\n  " + "\n  ".join(errs[-20:]))
            print("%-5s %-11s %14s %10s %9s  %s" % ("model", "build", "instructions", "flash", "RAM", "output"))
            for m in models:
                ref = None
                p = os.path.join(bdir, "ref", m + ".out.hex")
                if os.path.exists(p):
                    ref = open(p).read().strip()
                for c in cfgs:
                    x = res[(c, m)]
                    if x is None or x["insn"] is None or x["exit"] != 0:
                        print("%-5s %-11s %s" % (m, c, why_failed(os.path.join(bdir, arch, c, m + ".log"), x)))
                        failed = True
                        if c == "htc":
                            status = 1
                        continue
                    if ref is None:
                        chk = "? (no htc run output)"
                    elif x["out"] == ref:
                        chk = "= htc run"
                    else:
                        chk = "DIFFERS from htc run"
                    if c == "htc" and chk != "= htc run":
                        status = 1
                    print("%-5s %-11s %14s %10s %9s  %s%s" % (m, c, "{:,}".format(x["insn"]), "{:,}".format(x["flash"]),
                                                         "{:,}".format(x["ram"]), chk,
                                                         " (steady runs vary)" if x["steady_varies"] else ""))
                h = res[("htc", m)]
                if h and h["insn"] and h["exit"] == 0:
                    measured += 1
                    for c, name in (("tflm-cmsis", "htc/cmsis"), ("tflm-ref", "htc/ref")):
                        x = res.get((c, m))
                        if x and x["insn"] and x["exit"] == 0:
                            print("%-5s %-11s %14.3f %10.3f %9.3f" % (m, name, h["insn"] / x["insn"],
                                                                       h["flash"] / x["flash"], h["ram"] / x["ram"]))
            for n in notes:
                print(n)
        if measured == 0:
            print("\nbench_mcu: nothing measured")
            return 1
        if tree is None:
            print("\n(peers not built: htc only)")
        return status
    finally:
        if own and not failed:
            shutil.rmtree(bdir, ignore_errors=True)
        elif own:
            print("build directory kept: %s" % bdir)


if __name__ == "__main__":
    sys.exit(main())
