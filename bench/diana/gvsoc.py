"""bench/diana/gvsoc.py - DIANA's host core on GVSoC: the generated header
of a network for targets/diana.lua as firmware for ONE RI5CY-class core of
GVSoC's Siracusa model (an installed GVSoC, GVSOC=DIR; examples/siracusa
runs it), with htc's XpulpV2 kernels (-DHTC_XPULPV2).

Which core, and its memories: cluster core 0 of the Siracusa model (the
other seven are never started: -DSIR_CORES=1). Its ISA is GVSoC's
`pulp_cluster`, RV32IMFC + XpulpV2 - DIANA's host is RV32IMCFXpulpV2 (HTVM
paper, sec. IV); Siracusa's fabric controller has no F extension. The
firmware is nevertheless built -march=rv32imc (soft float): this GVSoC's
cluster cores execute F instructions on the integer registers (a build
with -march=rv32imafc -mabi=ilp32f loads a float's bits into an address
register and faults), so the few float operations of these networks (the
average pool's scale, the output's DequantizeLinear) are library calls,
slower than on DIANA. Its clock is the cluster's clock domain:
mcycle counts cluster cycles, which the bench converts to ms at DIANA's
260 MHz (cycles, not time, are what carries over). Memory: the arena, the
input and output and (when everything fits, `l1`) the constants in the
cluster's L1 TCDM, one-cycle loads (bank conflicts are not modelled, and
one core has none); a network whose constants do not fit L1 keeps them in
L2 (`l2`: a load ~14 cycles more, GVSoC). DIANA's host loads from its
512 kB L2 (private banks of a PULPissimo-class SoC, one cycle): `l1` is
the like-for-like placement. Code runs from L2 through the cluster's
instruction cache. The device model's state (the digital and analog cores'
memories, kernels/diana.c `htc__dev`) is put in L2; its instructions are
not counted (below).

Counting, as bench/diana/rv32.py does under qemu (its header transform and
firmware main, with mcycle for minstret): every call into the device model
is bracketed and its cycles left out; per layer the host's cycles (CPU
layers: the kernels; offloaded layers: the issue loops) and the device
model's cycles (HTC_DEVICE_LAYER); the output is checked by the caller."""
import os
import re
import subprocess

import rv32

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIR = os.path.join(REPO, "examples", "siracusa")
CC = rv32.CC
FLAGS = ["-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32", "--specs=picolibc.specs", "-O2", "-std=c99",
         "-falign-functions=16", "-falign-loops=16", "-falign-jumps=16", "-fdata-sections",
         "-DSIR_CORES=1", "-DHTC_XPULPV2", "-I" + SIR]
SRCS = [os.path.join(SIR, "crt0.S"), os.path.join(SIR, "siracusa.c")]
CORE = ("GVSoC siracusa, cluster core 0 alone (RV32IMC + XpulpV2 code, RI5CY class), cluster clock domain, "
        "cycles at 260 MHz; L1 TCDM 1-cycle loads, L2 ~15")

PRELUDE = '#include "siracusa.h"'


class GvsocError(Exception):
    pass


def gvsoc_dir():
    """the installed GVSoC (GVSOC=DIR), or None"""
    d = os.environ.get("GVSOC")
    return d if d and os.path.isfile(os.path.join(d, "bin", "gvsoc")) else None


L1_BYTES = 256 * 1024
MAIN_STACK = 8 * 1024


def _sections(obj):
    """{section name: bytes} of an object file"""
    out = subprocess.run([rv32.SIZE, "-A", obj], capture_output=True, text=True, check=True).stdout
    secs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit() and f[0].startswith("."):
            secs[f[0]] = int(f[1])
    return secs


def linker_script(tmp, l1_ro):
    """examples/siracusa's layout (memory.ld, sections.ld) with the constant
    sections named in l1_ro in L1 and the other constants in L2, the data
    and .bss in L1, the device model's state (.bss.htc__dev) in L2, and no
    worker-core stacks (one core)"""
    with open(os.path.join(SIR, "sections.ld")) as f:
        sec = f.read()
    for anchor in ("    .bss (NOLOAD) : ALIGN(16) {", "    .rodata : ALIGN(16) {"):
        if anchor not in sec:
            raise GvsocError("examples/siracusa/sections.ld: no '%s'" % anchor.strip())
    sec = sec.replace("    .bss (NOLOAD) : ALIGN(16) {",
                      "    .devbss (NOLOAD) : ALIGN(16) {\n        *(.bss.htc__dev)\n        . = ALIGN(16);\n"
                      "    } > L2\n    .bss (NOLOAD) : ALIGN(16) {", 1)
    if l1_ro:
        sec = sec.replace("    .rodata : ALIGN(16) {",
                          "    .rodata_l1 : ALIGN(16) {\n%s\n    } > L1\n    .rodata : ALIGN(16) {" %
                          "\n".join("        *(%s)" % n for n in sorted(l1_ro)), 1)
    ld = os.path.join(tmp, "diana-host.ld")
    with open(ld, "w") as f:
        f.write("OUTPUT_ARCH(riscv)\nENTRY(_start)\nINCLUDE memory.ld\nREGION_ALIAS(\"SIR_RO\", L2);\n"
                "REGION_ALIAS(\"SIR_RW\", L1);\n__worker_stack_size = 0;\n%s" % sec)
    return ld


def build(header, tmp, input_bytes):
    """the firmware ELF of the header (bracketed device calls, input.h) and
    where its constants are: (elf, bytes of constants in L1, in L2). The
    constant arrays (one section each) go to L1 smallest first while they
    fit beside the data, .bss and core 0's stack; the rest to L2."""
    src = rv32.write_firmware(header, tmp, input_bytes, PRELUDE, "sir_cycles()", "sir_exit")
    obj = os.path.join(tmp, "fw.o")
    p = subprocess.run([CC] + FLAGS + ["-I" + tmp, "-c", "-o", obj, src],
                       capture_output=True, text=True)
    if p.returncode:
        raise GvsocError("firmware build failed: %s" % p.stderr[-1500:])
    secs = _sections(obj)
    rw = sum(v + 16 for k, v in secs.items() if k.startswith((".data", ".sdata", ".bss", ".sbss", ".tdata", ".tbss"))
             and k != ".bss.htc__dev")
    ro = sorted((v, k) for k, v in secs.items() if k.startswith((".rodata", ".srodata")))
    budget = L1_BYTES - MAIN_STACK - rw - 4096     # picolibc's own data, alignment
    l1, used = [], 0
    for v, k in ro:
        if used + v + 16 > budget:
            break
        l1.append(k)
        used += v + 16
    l2 = sum(v for v, k in ro if k not in l1)
    elf = os.path.join(tmp, "fw.elf")
    ld = linker_script(tmp, l1)
    p = subprocess.run([CC] + FLAGS + ["-o", elf, obj] + SRCS +
                       ["-nostartfiles", "-L" + SIR, "-T", ld, "-Wl,--gc-sections,--no-warn-rwx-segments"],
                       capture_output=True, text=True)
    if p.returncode:
        raise GvsocError("firmware link failed: %s" % p.stderr[-1500:])
    return elf, sum(v for v, k in ro if k in l1), l2, [k for v, k in ro if k not in l1]


def firmware_cycles(header, tmp, input_bytes, timeout=3600):
    """run the header on GVSoC's cluster core 0; returns dict(total, model,
    layers={l: (host cycles, model cycles, device cycles, triggered)}, out,
    ro_l1 / ro_l2 = bytes of constants in L1 / in L2)"""
    gv = gvsoc_dir()
    if not gv:
        raise GvsocError("GVSOC=DIR does not name an installed GVSoC")
    elf, ro_l1, ro_l2, l2_names = build(header, tmp, input_bytes)
    env = dict(os.environ, TIMEOUT=str(timeout))
    p = subprocess.run([os.path.join(SIR, "run.sh"), elf], capture_output=True, text=True, errors="replace", env=env)
    out = p.stdout + p.stderr
    c = rv32.parse_firmware(out)
    if p.returncode or not c:
        raise GvsocError("firmware on GVSoC failed (exit %d): %s" % (p.returncode, out[-800:]))
    c.update(ro_l1=ro_l1, ro_l2=ro_l2, l2_names=l2_names)
    return c


def l2_layers(header, l2_names):
    """the layers of a generated header that read a constant left in L2
    (l2_names: its sections, .rodata.NAME): the names in each layer's code
    between HTC_PROFILE_BEGIN and END and in the parameter blocks it passes"""
    with open(header) as f:
        text = f.read()
    syms = {n.split(".", 2)[-1] for n in l2_names}
    blocks = {m.group(1): m.group(2) for m in re.finditer(r"^static const \w+ (\w+) = \{(.*?)\};$", text, re.M | re.S)}
    out = set()
    for m in re.finditer(r'HTC_PROFILE_BEGIN\("\w+", (\d+), "\w+"\);(.*?)HTC_PROFILE_END', text, re.S):
        names = set(re.findall(r"\b\w+__\w+\b", m.group(2)))
        for b in list(names):
            names |= set(re.findall(r"\b\w+__\w+\b", blocks.get(b, "")))
        if names & syms:
            out.add(int(m.group(1)))
    return out


def row(htc, model, target, tmp, input_bytes, layers, args=()):
    """one configuration on GVSoC, the keys of rv32.row (instr: the host's
    cycles per inference, device-model calls left out; ms at 260 MHz; size:
    rv32.firmware_size of the RV32IMFC object) plus ro_l2 (bytes of
    constants GVSoC's L1 could not hold)"""
    os.makedirs(tmp, exist_ok=True)
    h = os.path.join(tmp, "gen.h")
    rv32.compile_header(htc, model, target, h, args)
    c = firmware_cycles(h, os.path.join(tmp, "gv"), input_bytes)
    s = rv32.firmware_size(h, os.path.join(tmp, "sz"), flags=rv32.FPU_FLAGS)
    r = rv32.summary(c, layers, s, rv32.header_defines(h), GvsocError)
    r["ro_l2"] = c["ro_l2"]
    r["l2_cpu_layers"] = sorted(l for l in l2_layers(os.path.join(tmp, "gv", "m.h"), c["l2_names"])
                                if layers.get(l, ("",))[0] in ("riscv", "cpu"))
    return r
