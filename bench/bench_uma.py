#!/usr/bin/env python3
"""bench/bench_uma.py - the UMA / MLonMCU "QVanilla" experiment on RV32:
the MLPerf Tiny ResNet, VWW and KWS ("aww") as RV32IMC firmware under
qemu-system-riscv32 (-icount shift=0: minstret counts executed
instructions exactly), CPU only (targets/cpu.lua) vs CPU + the vanilla
Conv2D + bias accelerator (targets/qvanilla.lua). As MLonMCU's ETISS
plugin treats the accelerator, its work - the device model's DMA loads and
array, bracketed by HTC_ACCEL_BEGIN/END in templates/qvanilla - is left
out of the count (the firmware subtracts the minstret it spends there);
the host's requantization of the accumulators stays in. Printed beside
the slides' TVM figures, with every firmware output checked against
TFLite Micro's interpreter; then the host virtual platform's time per
inference (`htc run --repeat`, device model included) beside ETISS's
simulation time per inference.

Needs riscv64-unknown-elf-gcc + picolibc and qemu-system-riscv32 (it says
which is missing and stops)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "tests"))
import oracle  # noqa: E402

HTC = os.environ.get("HTC") or os.path.join(REPO, "htc")
CPU = os.path.join(REPO, "targets", "cpu.lua")
QV = os.path.join(REPO, "targets", "qvanilla.lua")
# (MLonMCU name, file, the slides' TVM instructions CPU only, CPU + QVanilla, ETISS s per inference)
MODELS = [("resnet", "pretrainedResnet_quant", 5.73e7, 1.44e7, 0.68),
          ("vww", "vww_96_int8", 4.12e7, 1.46e7, 1.33),
          ("aww", "kws_ref_model", 1.43e7, 5.34e6, 0.54)]
CC = "riscv64-unknown-elf-gcc"
FLAGS = ["-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "-O2", "-std=c99", "--specs=picolibc.specs",
         "--oslib=semihost", "--crt0=semihost",
         "-Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x400000",
         "-Wl,--defsym=__ram=0x80400000,--defsym=__ram_size=0x1000000"]
QEMU = ["qemu-system-riscv32", "-M", "virt", "-bios", "none", "-nographic", "-monitor", "none", "-serial", "none",
        "-semihosting-config", "enable=on,target=native", "-icount", "shift=0,sleep=off"]

FW = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static inline uint32_t minstret(void) { uint32_t v; __asm__ volatile("csrr %0, minstret" : "=r"(v)); return v; }
static uint32_t accel_t0, accel_n;
#define HTC_ACCEL_BEGIN() (accel_t0 = minstret())
#define HTC_ACCEL_END() (accel_n += minstret() - accel_t0)
#define M_IMPLEMENTATION
#include "m.h"
#include "input.h"
static uint8_t arena[M_ARENA_SIZE] __attribute__((aligned(16)));
static int8_t output[M_OUTPUT_SIZE];
int main(void)
{
    uint32_t t0, t1, i;
    int rc;
    t0 = minstret();
    rc = m_run(input, output, arena);
    t1 = minstret();
    printf("rc %d total %lu accel %lu\nout", rc, (unsigned long)(t1 - t0), (unsigned long)accel_n);
    for (i = 0; i < M_OUTPUT_SIZE; i++) printf(" %d", output[i]);
    printf("\n");
    return rc;
}
"""


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        sys.exit("bench_uma: %s failed (%d): %s" % (" ".join(cmd[:4]), p.returncode, (p.stderr or p.stdout)[-800:]))
    return p


def firmware(tmp, model, target, x):
    d = tempfile.mkdtemp(dir=tmp)
    run([HTC, "compile", model, "-t", target, "-o", os.path.join(d, "m.h"), "--name", "m"])
    with open(os.path.join(d, "input.h"), "w") as f:
        f.write("static const int8_t input[] = {%s};\n" % ", ".join(str(int(v)) for v in x.astype("int8").ravel()))
    with open(os.path.join(d, "fw.c"), "w") as f:
        f.write(FW)
    run([CC] + FLAGS + ["-I" + d, "-o", os.path.join(d, "fw.elf"), os.path.join(d, "fw.c")])
    p = subprocess.run(["timeout", "900"] + QEMU + ["-kernel", os.path.join(d, "fw.elf")], capture_output=True, text=True)
    out = p.stdout + p.stderr
    m = re.search(r"rc (\d+) total (\d+) accel (\d+)\nout([-\d ]*)", out)
    if p.returncode or not m or m.group(1) != "0":
        sys.exit("bench_uma: the firmware failed (%d): %s" % (p.returncode, out[-500:]))
    return int(m.group(2)), int(m.group(3)), [int(v) for v in m.group(4).split()]


def main():
    missing = [t for t in (CC, "qemu-system-riscv32") if not shutil.which(t)]
    if missing:
        print("bench_uma: skipped - missing %s (apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf "
              "qemu-system-misc)" % ", ".join(missing))
        return
    print("UMA / MLonMCU QVanilla on RV32IMC (qemu -icount, minstret): instructions per inference; the accelerator's "
          "work (DMA + array) left out as ETISS does")
    print("%-7s %14s %14s %7s   %14s %14s %7s   %s" % ("model", "htc CPU", "htc CPU+acc", "ratio", "TVM CPU",
                                                      "TVM CPU+acc", "ratio", "outputs vs TFLM"))
    with tempfile.TemporaryDirectory() as tmp:
        for short, name, tvm_cpu, tvm_acc, _ in MODELS:
            path = os.path.join(oracle.MODELS, name + ".tflite")
            info = oracle.ModelInfo(path)
            x = info.random_inputs(1)
            ref, _ = oracle.run_interpreter(path, x, info=info)
            want = [int(v) for v in ref[0].astype("int8").ravel()]
            cpu_n, cpu_acc, cpu_out = firmware(tmp, path, CPU, x[0])
            qv_n, qv_acc, qv_out = firmware(tmp, path, QV, x[0])
            ok = cpu_out == want and qv_out == want and cpu_acc == 0
            print("%-7s %14s %14s %6.2fx   %14.3g %14.3g %6.2fx   %s (accelerator region %s instructions)" %
                  (short, "{:,}".format(cpu_n), "{:,}".format(qv_n - qv_acc), cpu_n / (qv_n - qv_acc), tvm_cpu, tvm_acc,
                   tvm_cpu / tvm_acc, "bit-exact" if ok else "MISMATCH", "{:,}".format(qv_acc)))
            if not ok:
                sys.exit("bench_uma: %s: firmware output differs from TFLite Micro" % short)
    print("\nhost virtual platform (htc run --repeat, device model included) vs ETISS simulation time per inference")
    for short, name, _, _, etiss in MODELS:
        path = os.path.join(oracle.MODELS, name + ".tflite")
        info = oracle.ModelInfo(path)
        x = info.random_inputs(2)
        _, _, stdout = oracle.run_htc(path, x, dump=False, target=QV, repeat=20)
        us = float(re.search(r"([\d.]+) us per inference", stdout).group(1))
        print("%-7s host VP %10.3f ms   ETISS %6.2f s   ratio %.0fx" % (short, us / 1e3, etiss, etiss / (us / 1e6)))


if __name__ == "__main__":
    main()
