#!/usr/bin/env python3
"""gvsoc_jobs.py - runs tests/neureka/jobs.c on GVSoC's Siracusa (N-EUREKA
driven through its registers: kernels/neureka.c with HTC_NEUREKA_REGS,
bound by examples/siracusa -DSIR_NEUREKA) and writes what it prints to
tests/neureka/gvsoc_jobs.txt: each job's output bytes, and its cycles
(trigger to idle, mcycle of cluster core 0) as '#' lines.
tests/test_neureka.py (test_device_model_equals_gvsoc) builds the same
jobs.c on the host with the device model and requires the same bytes.

Usage: GVSOC=DIR tests/neureka/gvsoc_jobs.py [OUT]   (an installed GVSoC;
without GVSOC it says so and exits 2). Needs riscv64-unknown-elf-gcc."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIR = os.path.join(HERE, "..", "..", "examples", "siracusa")


def main():
    gvsoc = os.environ.get("GVSOC")
    if not gvsoc:
        print("gvsoc_jobs: set GVSOC=DIR, the install directory of GVSoC", file=sys.stderr)
        return 2
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "gvsoc_jobs.txt")
    with tempfile.TemporaryDirectory(prefix="neu_jobs.") as tmp:
        elf = os.path.join(tmp, "jobs.elf")
        cc = ["riscv64-unknown-elf-gcc", "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "--specs=picolibc.specs",
              "-DSIR_CORES=1", "-DSIR_NEUREKA", "-I" + SIR, "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", elf,
              os.path.join(HERE, "jobs.c"), os.path.join(SIR, "crt0.S"), os.path.join(SIR, "siracusa.c"),
              "-nostartfiles", "-L" + SIR, "-T", "sir-l1.ld", "-Wl,--gc-sections,--no-warn-rwx-segments"]
        subprocess.run(cc, check=True)
        r = subprocess.run([os.path.join(SIR, "run.sh"), elf, os.path.join(tmp, "gv")], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=dict(os.environ, GVSOC=gvsoc))
        lines = r.stdout.splitlines()
        if r.returncode or not any(l.startswith("jobs: ") for l in lines):
            print(r.stdout[-3000:])
            print("gvsoc_jobs: the GVSoC run failed (exit %d)" % r.returncode, file=sys.stderr)
            return 1
    keep = ["# tests/neureka/gvsoc_jobs.py: jobs.c on GVSoC's siracusa (gvsoc 209c147, gvsoc-pulp 748a706)"]
    started = False
    for l in lines:
        if l.startswith("cycles "):
            keep.append("# " + l)
        elif l.startswith("job ") or started:
            started = True
            keep.append(l)
            if l.startswith("jobs: "):
                break
    with open(out, "w") as f:
        f.write("\n".join(keep) + "\n")
    print("gvsoc_jobs: %d jobs -> %s" % (sum(l.startswith("job ") for l in keep), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
