#!/usr/bin/env bash
# tests/test_isa.sh - a header keeps the fast paths of the instruction sets
# its target names (the cpu's isa; targets/cpu.lua: -D isa=..., gen/prune.c
# isa_cut) and loses nothing else: compiled for its processor, each
# header's machine code is the one of the header with every path (isa=all)
# on that processor, byte for byte (objdump -d); the portable header's is
# the all-paths header's under -DHTC_NO_SIMD on the host, the Cortex-M4 and
# RV32. Headers of different isa link into one program. The header states
# its paths ("isa:" line). Last line "N passed, N failed".
# Environment: HTC (default ./htc), HTC_MODELS, CC.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
CC=${CC:-gcc}
W=$(mktemp -d "${TMPDIR:-/tmp}/htc-isa-XXXXXX")
trap 'rm -rf "$W"' EXIT

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

RV="riscv64-unknown-elf-gcc -march=rv32imc -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs"
M4="arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb --specs=picolibc.specs"
M55="arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard --specs=picolibc.specs"

# code NAME ISA "COMPILER FLAGS" OBJDUMP: the machine code of NAME's header
# for ISA (its implementation, -O2) compiled by that compiler
code() {
    local n=$1 isa=$2 cc=$3 od=$4 d=$W/$1.$2 N
    N=$(echo "$n" | tr a-z A-Z)
    printf '#define %s_IMPLEMENTATION\n#include "%s.h"\n' "$N" "$n" >"$d/impl.c"
    local o; o=$d/$(echo "$cc" | md5sum | cut -c1-8).o
    if $cc -std=c99 -O2 -Wall -Wextra -Werror -I"$d" -c -o "$o" "$d/impl.c" 2>"$o.err"; then
        $od -d "$o" | tail -n +4
    else
        echo "compile error: $(head -n 3 "$o.err")"
    fi
}

same_code() {   # same_code LABEL NAME ISA "CC FLAGS" OBJDUMP: ISA's header vs the all-paths one
    local label=$1 n=$2 isa=$3 cc=$4 od=$5
    code "$n" "$isa" "$cc" "$od" >"$W/a.dis"
    code "$n" all "$cc" "$od" >"$W/b.dis"
    if grep -q "compile error" "$W/a.dis" "$W/b.dis"; then
        bad "$n $label: $(cat "$W/a.dis" "$W/b.dis" | grep 'compile error' | head -n 1)"
    elif [ "$(grep -c . "$W/a.dis")" -lt 100 ]; then
        bad "$n $label: no code"
    elif cmp -s "$W/a.dis" "$W/b.dis"; then
        ok "$n $label: the same $(grep -c . "$W/a.dis") lines of machine code as isa=all"
    else
        bad "$n $label: the machine code differs from isa=all"; diff "$W/a.dis" "$W/b.dis" | head -n 6 | sed 's/^/       | /'
    fi
}

for spec in kws:kws_ref_model vww:vww_96_int8; do
    IFS=: read -r n m <<<"$spec"
    for isa in all portable x86 arm-dsp mve xpulpv2; do
        mkdir -p "$W/$n.$isa"
        if ! "$HTC" compile "$HTC_MODELS/$m.tflite" -t targets/cpu.lua -D isa=$isa -o "$W/$n.$isa/$n.h" --name "$n" \
                >"$W/$n.$isa/htc.log" 2>&1; then
            bad "$n isa=$isa: htc compile"; sed 's/^/       | /' "$W/$n.$isa/htc.log" | head; continue 2
        fi
    done
    lines=$(wc -l <"$W/$n.all/$n.h")
    for isa in portable x86 arm-dsp mve xpulpv2; do
        l=$(wc -l <"$W/$n.$isa/$n.h")
        if [ "$l" -lt "$lines" ]; then ok "$n isa=$isa: $l lines (isa=all: $lines)"
        else bad "$n isa=$isa: $l lines, not fewer than isa=all's $lines"; fi
    done
    if grep -q '^   isa:     portable C$' "$W/$n.portable/$n.h" && grep -q '^   isa:     arm-dsp, mve, portable C$' "$W/$n.mve/$n.h"
    then ok "$n: the header states its paths"
    else bad "$n: no or a wrong 'isa:' line"; fi
    if grep -qE 'HTC__(SSE2|AVX2|DSP|MVE|XP)\b|__ARM_FEATURE|immintrin|arm_acle' "$W/$n.portable/$n.h"; then
        bad "$n isa=portable: another processor's code left"; grep -nE 'HTC__(SSE2|AVX2|DSP|MVE|XP)\b|__ARM_FEATURE|immintrin|arm_acle' "$W/$n.portable/$n.h" | head -n 3 | sed 's/^/       | /'
    else
        ok "$n isa=portable: no SIMD macro, intrinsic header or feature test left"
    fi
    same_code "x86 on the host" "$n" x86 "$CC" objdump
    same_code "arm-dsp on the Cortex-M4" "$n" arm-dsp "$M4" arm-none-eabi-objdump
    same_code "mve on the Cortex-M55" "$n" mve "$M55" arm-none-eabi-objdump
    same_code "xpulpv2 on RV32 (-DHTC_XPULPV2)" "$n" xpulpv2 "$RV -DHTC_XPULPV2" riscv64-unknown-elf-objdump
    same_code "portable on RV32" "$n" portable "$RV" riscv64-unknown-elf-objdump
    same_code "portable on the Cortex-M4 (-DHTC_NO_SIMD)" "$n" portable "$M4 -DHTC_NO_SIMD" arm-none-eabi-objdump
    same_code "portable on the host (-DHTC_NO_SIMD)" "$n" portable "$CC -DHTC_NO_SIMD" objdump
done

# two headers of different isa in one program: each definition once (the
# guards do not depend on the cut; of a function both define, the first
# header's stands for both, so the other's helpers may be unused: warnings
# only)
d=$W/two; mkdir -p "$d"
cp "$W/kws.portable/kws.h" "$W/vww.all/vww.h" "$d/"
cat >"$d/two.c" <<EOC
#include <stdint.h>
#define KWS_IMPLEMENTATION
#include "kws.h"
#define VWW_IMPLEMENTATION
#include "vww.h"
static uint8_t arena_a[KWS_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t arena_b[VWW_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t in_a[KWS_INPUT_SIZE], out_a[KWS_OUTPUT_SIZE];
static uint8_t in_b[VWW_INPUT_SIZE], out_b[VWW_OUTPUT_SIZE];
int main(void)
{
    return kws_run(in_a, out_a, arena_a) != 0 || vww_run(in_b, out_b, arena_b) != 0;
}
EOC
if $CC -std=c99 -O2 -Wall -Wextra -Wno-unused-function -Werror -pedantic -I"$d" -o "$d/two" "$d/two.c" >"$d/cc.log" 2>&1 && "$d/two"; then
    ok "kws isa=portable + vww isa=all in one C file: compiled, linked and run"
else
    bad "kws isa=portable + vww isa=all in one C file"; sed 's/^/       | /' "$d/cc.log" | head
fi
if $M4 -std=c99 -O2 -Wall -Wextra -Wno-unused-function -Werror -pedantic -I"$d" -c -o "$d/two.o" "$d/two.c" >"$d/m4.log" 2>&1; then
    ok "kws isa=portable + vww isa=all in one C file for the Cortex-M4"
else
    bad "kws isa=portable + vww isa=all for the Cortex-M4"; sed 's/^/       | /' "$d/m4.log" | head
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
