"""bench/diana/rv32.py - one row of the HTVM Table I reproduction on RV32:
the generated header of a network for targets/diana.lua as RV32IMC firmware
(riscv64-unknown-elf-gcc -march=rv32imc -O2, picolibc) under
qemu-system-riscv32 -icount shift=0, minstret read around every layer.

The header of an accelerator configuration carries the device MODEL
(kernels/diana.c, pasted between the comments /* ---- kernels/diana.c ---- */
and /* ---- end of kernels/diana.c ---- */): a simulator of DMA, L1, weight memories and arrays that on silicon
is hardware behind a driver of the same function names. So:
- instructions: every call of the model's API (htc__dev_*) in the layer
  code is bracketed and its minstret left out of the count (as bench_uma.py
  leaves out the QVanilla accelerator region); what stays counted is the
  CPU layers' kernels and the host's loops that issue the device jobs;
  the offloaded layers' time is the model's own cycles (HTC_DEVICE_LAYER).
- sizes: the model section is replaced by prototypes of its functions
  (the driver's API, not counted: no driver exists), and .text, .rodata,
  .data (and the small-data variants) of the compiled object are summed:
  htc's code + weights + constants, without libc.
Used by bench/bench_diana.py and tests/test_bench_diana.py."""
import os
import re
import shutil
import subprocess

CC = "riscv64-unknown-elf-gcc"
SIZE = "riscv64-unknown-elf-size"
QEMU_BIN = "qemu-system-riscv32"
MHZ = 260.0
CPU_FLAGS = ["-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "-O2", "-std=c99"]
# DIANA's host core is RV32IMCFXpulpV2 (HTVM paper, sec. IV): with the F
# extension, for the HTVM-network table (no Xpulp: gcc has no such target)
FPU_FLAGS = ["-march=rv32imafc", "-misa-spec=2.2", "-mabi=ilp32f", "-O2", "-std=c99"]
LINK = ["--specs=picolibc.specs", "--oslib=semihost", "--crt0=semihost",
        "-Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x800000",
        "-Wl,--defsym=__ram=0x80800000,--defsym=__ram_size=0x1000000"]
QEMU = [QEMU_BIN, "-M", "virt", "-m", "64M", "-bios", "none", "-nographic", "-monitor", "none", "-serial", "none",
        "-semihosting-config", "enable=on,target=native", "-icount", "shift=0,sleep=off"]
MODEL_BEGIN = "/* ---- kernels/diana.c ---- */"
MODEL_END = "/* ---- end of kernels/diana.c ---- */"
MAXL = 1024

FW = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
@PRELUDE@
static uint32_t dev_t0, dev_n, lay_t0, lay_dev0, host[MAXL], model[MAXL];
static uint64_t cyc[MAXL], trig[MAXL], trig_n, lay_trig0;
/* a call into the device model: its instructions are not the firmware's */
#define HTC_BENCH_DEV(f, ...) (dev_t0 = @COUNT@, f(__VA_ARGS__), dev_n += @COUNT@ - dev_t0)
#define HTC_PROFILE_BEGIN(m, l, name) (lay_dev0 = dev_n, lay_trig0 = trig_n, lay_t0 = @COUNT@)
#define HTC_PROFILE_END(m, l, name) (host[l] += @COUNT@ - lay_t0 - (dev_n - lay_dev0), model[l] += dev_n - lay_dev0, \
                                     trig[l] += trig_n - lay_trig0)
/* an accelerator job's cycles from trigger to completion (the paper's peak) */
#define HTC_DEVICE_TRIGGERED(c) (trig_n += (c))
#define HTC_DEVICE_LAYER(l, c) ((l) >= 0 ? (void)(cyc[l] += (c)) : (void)0)
#define HTC_DEVICE_FAULT(what) (printf("device fault: %s\n", what), @EXIT@(4))
#define M_IMPLEMENTATION
#include "m.h"
#include "input.h"
static uint8_t arena[M_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t output[M_OUTPUT_SIZE];
int main(void)
{
    uint32_t t0, t1, i;
    int rc;
    t0 = @COUNT@;
    rc = m_run(input, output, arena);
    t1 = @COUNT@;
    printf("rc %d total %lu model %lu\n", rc, (unsigned long)(t1 - t0), (unsigned long)dev_n);
    for (i = 0; i < MAXL; i++)
        if (host[i] || model[i] || cyc[i])
            printf("L %lu %lu %lu %llu %llu\n", (unsigned long)i, (unsigned long)host[i], (unsigned long)model[i],
                   (unsigned long long)cyc[i], (unsigned long long)trig[i]);
    printf("out");
    for (i = 0; i < M_OUTPUT_SIZE; i++) printf(" %u", output[i]);
    printf("\n");
    return rc;
}
"""
MINSTRET = "static inline uint32_t minstret(void) { uint32_t v; __asm__ volatile(\"csrr %0, minstret\" : \"=r\"(v)); return v; }"
MAIN = "#define M_IMPLEMENTATION\n#include \"m.h\"\nstatic unsigned char a[M_ARENA_SIZE] __attribute__((aligned(64))), " \
       "i[M_INPUT_SIZE], o[M_OUTPUT_SIZE];\nint main(void) { return m_run(i, o, a); }\n"


class Rv32Error(Exception):
    pass


def check_tools():
    """raise Rv32Error naming what is missing (and the Debian packages)"""
    missing = [t for t in (CC, SIZE, QEMU_BIN) if not shutil.which(t)]
    if missing:
        raise Rv32Error("missing %s (apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf "
                        "qemu-system-misc)" % ", ".join(missing))


def _run(cmd, what, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)
    if p.returncode:
        raise Rv32Error("%s failed (exit %d): %s" % (what, p.returncode, (p.stderr or p.stdout)[-1500:]))
    return p


def split_model(text):
    """(before, model section, after) of a generated header; model '' when
    the header has no device model (a CPU-only build)"""
    a = text.find(MODEL_BEGIN)
    if a < 0:
        return text, "", ""
    b = text.find(MODEL_END, a)
    if b < 0:
        raise Rv32Error("header: %s without its %s" % (MODEL_BEGIN, MODEL_END))
    b += len(MODEL_END)
    return text[:a], text[a:b], text[b:]


def bracket_device_calls(text):
    """the header with every htc__dev_X(...) call after the model section
    routed through HTC_BENCH_DEV(htc__dev_X, ...)"""
    pre, model, post = split_model(text)
    if not model:
        return text
    post = re.sub(r"\bhtc__dev_(\w+)\(\s*\)", r"HTC_BENCH_DEV(htc__dev_\1, )", post)
    post = re.sub(r"\bhtc__dev_(\w+)\(", r"HTC_BENCH_DEV(htc__dev_\1, ", post)
    return pre + model + post


def model_as_prototypes(text):
    """the header with the device model's definitions replaced by extern
    prototypes (what a driver would provide); its state is dropped"""
    pre, model, post = split_model(text)
    if not model:
        return text
    used = set(re.findall(r"\b(htc__dev_\w+)\(", post))
    protos = []
    for m in re.finditer(r"static\s+HTC__UNUSED\s+([\w\s]*?\w[\s*]*)\b(htc__dev_\w+)\s*\(([^)]*)\)\s*\{", model):
        if m.group(2) in used:
            protos.append("%s %s(%s);" % (m.group(1).strip(), m.group(2), " ".join(m.group(3).split())))
    if len(protos) != len(used):
        raise Rv32Error("header: the layer code calls %s, the device model defines %d of them" % (sorted(used), len(protos)))
    return pre + "/* device model replaced by the driver API (not counted) */\n" + "\n".join(protos) + "\n" + post


def write_firmware(header, tmp, input_bytes, prelude=MINSTRET, count="minstret()", exit_fn="exit"):
    """tmp/m.h (the header with its device calls bracketed), tmp/input.h
    and tmp/fw.c (FW counting with `count`, the device-fault exit exit_fn);
    returns the path of fw.c. Shared by this file (qemu, minstret) and
    gvsoc.py (GVSoC, the cluster's cycle counter)"""
    os.makedirs(tmp, exist_ok=True)
    with open(header) as f:
        text = f.read()
    with open(os.path.join(tmp, "m.h"), "w") as f:
        f.write(bracket_device_calls(text))
    with open(os.path.join(tmp, "input.h"), "w") as f:
        f.write("static const uint8_t input[%d] __attribute__((aligned(16))) = {%s};\n" %
                (max(len(input_bytes), 1), ", ".join(str(b) for b in input_bytes) or "0"))
    src = os.path.join(tmp, "fw.c")
    with open(src, "w") as f:
        f.write("#define MAXL %d\n" % MAXL +
                FW.replace("@PRELUDE@", prelude).replace("@COUNT@", count).replace("@EXIT@", exit_fn))
    return src


def parse_firmware(out):
    """dict(total, model, layers={l: (host, model, device cycles,
    triggered)}, out=bytes) of FW's printout, or None when it did not end
    with rc 0 and its output line"""
    m = re.search(r"rc (-?\d+) total (\d+) model (\d+)\n", out)
    o = re.search(r"^out([ \d]*)$", out, re.M)
    if not m or m.group(1) != "0" or not o:
        return None
    layers = {}
    for l in re.finditer(r"^L (\d+) (\d+) (\d+) (\d+) (\d+)$", out, re.M):
        layers[int(l.group(1))] = (int(l.group(2)), int(l.group(3)), int(l.group(4)), int(l.group(5)))
    return {"total": int(m.group(2)), "model": int(m.group(3)), "layers": layers,
            "out": bytes(int(v) for v in o.group(1).split())}


def header_defines(h):
    """{NAME: value} of the header's #define HTC_DEV_NAME lines (the first
    of each: a later #ifndef default does not count)"""
    with open(h) as f:
        defs = {}
        for k, v in re.findall(r"^#define HTC_DEV_(\w+) (\S+)$", f.read(), re.M):
            defs.setdefault(k, v)
    return defs


def tally(c, layers, err):
    """the split of a firmware count c (firmware_count's dict) by engine:
    (cpu_layers, issue, dev_cycles, io, trig, per-layer {l: (host, device
    cycles, triggered)}); err: the exception class for a layer the report
    (layers: {l: (engine, op)}) does not have"""
    cpu_layers = issue = dev = io = trig = 0
    per = {}
    for l, (host, _, cyc, tcyc) in c["layers"].items():
        if l not in layers:
            raise err("layer %d of the firmware is not in the report" % l)
        eng, op = layers[l]
        per[l] = (host, cyc, tcyc)
        if eng in ("riscv", "cpu"):
            cpu_layers += host
            if op in ("quantize", "dequantize"):
                io += host
        else:
            issue += host
            dev += cyc
            trig += tcyc
    return cpu_layers, issue, dev, io, trig, per


def summary(c, layers, size, defs, err):
    """rv32.row's dict from a firmware count c: instr = host instructions
    (or cycles) per inference without the device model's, the split by
    engine, ms at MHZ, the HTVM paper's peak (CPU kernels and glue in full,
    each offloaded layer from the trigger of its jobs to their completion,
    no issue loops, no activation DMA)"""
    cpu_layers, issue, dev, io, trig, per = tally(c, layers, err)
    instr = c["total"] - c["model"]
    peak = (instr - issue) + trig
    mhz = MHZ * 1e3
    return {"trig": trig, "peak_ms": peak / mhz, "instr": instr, "cpu_layers": cpu_layers, "issue": issue,
            "glue": instr - cpu_layers - issue, "dev_cycles": dev, "ms": (instr + dev) / mhz, "io": io,
            "ms_no_io": (instr - io + dev) / mhz, "size": size, "out": c["out"], "model_instr": c["model"],
            "defines": defs, "layers": per}


def compile_header(htc, model, target, out_h, args=()):
    _run([htc, "compile", model, "-t", target, "-o", out_h, "--name", "m"] + list(args), "htc compile")


def firmware_count(header, tmp, input_bytes, timeout=900, flags=CPU_FLAGS):
    """run the header as RV32 firmware under qemu on input_bytes; returns
    dict(total, model, layers={l: (host instructions, model instructions,
    device cycles, triggered cycles)}, out=bytes)"""
    src = write_firmware(header, tmp, input_bytes)
    elf = os.path.join(tmp, "fw.elf")
    _run([CC] + list(flags) + LINK + ["-I" + tmp, "-o", elf, src], "RV32 firmware build")
    try:
        p = subprocess.run(QEMU + ["-kernel", elf], capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Rv32Error("qemu did not finish in %d s" % timeout)
    out = p.stdout + p.stderr
    c = parse_firmware(out)
    if p.returncode or not c:
        raise Rv32Error("firmware under qemu failed (exit %d): %s" % (p.returncode, out[-600:]))
    return c


def firmware_size(header, tmp, flags=CPU_FLAGS):
    """bytes of htc's code and constants in the RV32 object of the header
    with a minimal main, device model excluded: dict(code, const, total)"""
    os.makedirs(tmp, exist_ok=True)
    with open(header) as f:
        text = f.read()
    with open(os.path.join(tmp, "m.h"), "w") as f:
        f.write(model_as_prototypes(text))
    with open(os.path.join(tmp, "main.c"), "w") as f:
        f.write(MAIN)
    obj = os.path.join(tmp, "main.o")
    _run([CC, "--specs=picolibc.specs"] + list(flags) + ["-c", "-I" + tmp, "-o", obj, os.path.join(tmp, "main.c")],
         "RV32 size build")
    out = _run([SIZE, "-A", obj], "size").stdout
    code = const = 0
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or not f[1].isdigit():
            continue
        name, n = f[0], int(f[1])
        if name.startswith(".text"):
            code += n
        elif name.startswith((".rodata", ".srodata", ".data", ".sdata")):
            const += n
    return {"code": code, "const": const, "total": code + const}


def row(htc, model, target, tmp, input_bytes, layers, args=(), flags=CPU_FLAGS):
    """one configuration: compile, count, size. layers: {layer index:
    (engine name, op)} from `htc report`; 'riscv'/'cpu' layers are the
    CPU's; 'quantize' / 'dequantize' CPU layers are the float I/O (io).
    Returns dict(instr = host instructions per inference (CPU layers +
    issue loops + glue), cpu_layers = instructions of the CPU layers alone,
    issue = of the offloaded layers' host loops, dev_cycles = the device
    model's cycles of offloaded layers, ms = (instr + dev_cycles) / 260 MHz,
    trig = the offloaded layers' jobs from trigger to completion (device
    model, HTC_DEVICE_TRIGGERED), peak_ms = (instr - issue + trig) / 260 MHz,
    size, out, model_instr = instructions spent simulating, defines = the
    header's HTC_DEV_* hardware constants, layers = per layer (host,
    device cycles, triggered))"""
    os.makedirs(tmp, exist_ok=True)
    h = os.path.join(tmp, "gen.h")
    compile_header(htc, model, target, h, args)
    c = firmware_count(h, os.path.join(tmp, "fw"), input_bytes, flags=flags)
    s = firmware_size(h, os.path.join(tmp, "sz"), flags=flags)
    return summary(c, layers, s, header_defines(h), Rv32Error)


SNIPPET = r"""
#include <stdint.h>
#include <stdio.h>
static inline uint32_t minstret(void) { uint32_t v; __asm__ volatile("csrr %0, minstret" : "=r"(v)); return v; }
@CODE@
int main(void)
{
    uint32_t t0, t1;
    init();
    t0 = minstret();
    work();
    t1 = minstret();
    printf("instr %lu check %ld\n", (unsigned long)(t1 - t0), (long)check());
    return 0;
}
"""


def snippet_count(code, tmp, flags=CPU_FLAGS, libs=()):
    """instructions of work() in C `code` (which defines init(), work() and
    long check(), the last keeping the result alive) as RV32 firmware under
    qemu"""
    os.makedirs(tmp, exist_ok=True)
    src, elf = os.path.join(tmp, "s.c"), os.path.join(tmp, "s.elf")
    with open(src, "w") as f:
        f.write(SNIPPET.replace("@CODE@", code))
    _run([CC] + list(flags) + LINK + ["-o", elf, src] + list(libs), "RV32 snippet build")
    p = subprocess.run(QEMU + ["-kernel", elf], capture_output=True, text=True, errors="replace", timeout=300)
    m = re.search(r"instr (\d+) check", p.stdout + p.stderr)
    if p.returncode or not m:
        raise Rv32Error("snippet under qemu failed (exit %d): %s" % (p.returncode, (p.stdout + p.stderr)[-600:]))
    return int(m.group(1))
