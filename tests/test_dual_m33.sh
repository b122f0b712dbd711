#!/usr/bin/env bash
# tests/test_dual_m33.sh - examples/dual-m33: KWS and VWW (MLPerf Tiny) on
# both Cortex-M33 cores of qemu-system-arm -M mps2-an521, the fork/join hook
# bound to core 1 through a mailbox in the shared SRAM (SEV / WFE), built
# from targets/dual-m33.lua with -D cores=1 and -D cores=2. Checks per model:
#   run1 / run2  the one-core and two-core builds run under qemu, exit 0
#   tflm         the one-core output bytes equal TFLite Micro's on the
#                same input (xorshift32 bytes, main.c), the oracle
#   equal        the two-core output bytes equal the one-core build's
#   cores        every fork ran a share on core 1, each core's instructions
#                counted by the qemu plugin (common/insncount.c, vcpus=2)
#   speedup      the critical path (instructions outside the forks + the
#                larger share of each fork) >= 1.8x fewer than one core's:
#                instruction counts, exact and the same on every host
# Prints each core's instructions and the speedup, then "N passed, N failed".
# Environment: HTC (default ./htc), HTC_MODELS, DUAL_MODELS (default "kws vww").
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
case $HTC_MODELS in /*) ;; *) HTC_MODELS=$ROOT/$HTC_MODELS ;; esac
PY=${PYTHON:-.venv/bin/python}
MIN_SPEEDUP=1.8

pass=0 fail=0
ok()   { pass=$((pass + 1)); echo "ok   $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL $*"; }
show() { sed 's/^/       | /' "$1" | tail -n "${2:-15}"; }

W=$(mktemp -d "${TMPDIR:-/tmp}/htc-dual-XXXXXX")
trap 'rm -rf "$W"' EXIT
for t in arm-none-eabi-gcc qemu-system-arm; do
    command -v $t >/dev/null 2>&1 || bad "missing tool: $t"
done
qemu-system-arm -M help 2>/dev/null | grep -q '^mps2-an521 ' || bad "qemu-system-arm has no mps2-an521"

# the bytes main.c fills the input with: xorshift32 from 0x6b77, top byte
input() {   # input N FILE
    "$PY" -c '
import sys
n, x, b = int(sys.argv[1]), 0x6b77, bytearray()
for _ in range(n):
    x ^= (x << 13) & 0xffffffff; x ^= x >> 17; x ^= (x << 5) & 0xffffffff
    b.append(x >> 24)
open(sys.argv[2], "wb").write(bytes(b))' "$1" "$2"
}
hexout() { sed -n 's/^output //p' "$1" | tr ' ' '\n' | grep -c .; }
count() { sed -n "s/^dual: $2 \([0-9]*\) .*/\1/p" "$1"; }

for m in ${DUAL_MODELS:-kws vww}; do
    mk=(make -s -C examples/dual-m33 B="$W" HTC="$HTC" HTC_MODELS="$HTC_MODELS" MODEL="$m")
    for c in 1 2; do
        if "${mk[@]}" run CORES=$c >"$W/$m-$c.log" 2>&1; then
            ok "$m run$c: $(grep -m1 '^dual-m33: cores' "$W/$m-$c.log")"
        else
            bad "$m run$c: build or run failed"; show "$W/$m-$c.log"
        fi
    done
    [ -f "$W/$m-2/counts.txt" ] && [ -f "$W/$m-1/counts.txt" ] || continue
    one=$W/$m-1/counts.txt two=$W/$m-2/counts.txt
    tfl=$(sed -n "s/^TFLITE_$m *:= *//p" examples/dual-m33/Makefile)
    n=$(sed -n 's/^#define MODEL_INPUT_SIZE \([0-9]*\).*/\1/p' "$W/$m-1/model.h")
    input "$n" "$W/$m.in"
    if ! "$PY" tests/tflm_run.py "$HTC_MODELS/$tfl" "$W/$m.in" "$W/$m.tflm" >"$W/$m.tflm.log" 2>&1; then
        bad "$m tflm: the TFLite Micro interpreter failed"; show "$W/$m.tflm.log"
    elif [ "$(od -An -v -tx1 "$W/$m.tflm" | tr -s ' \n' ' ' | sed 's/^ //;s/ $//')" = "$(sed -n 's/^output //p' "$one")" ]; then
        ok "$m tflm: the one-core output equals TFLite Micro's ($(hexout "$one") bytes)"
    else
        bad "$m tflm: the one-core output differs from TFLite Micro's"
    fi
    if [ "$(grep '^output' "$one")" = "$(grep '^output' "$two")" ] && [ "$(hexout "$two")" -gt 0 ]; then
        ok "$m equal: the two-core output equals the one-core build's"
    else
        bad "$m equal: the two-core output differs from the one-core build's"
    fi
    forks=$(sed -n 's/^dual-m33: cores 2 forks \([0-9]*\) .*/\1/p' "$two")
    c0=$(count "$two" "core 0") c1=$(count "$two" "core 1")
    a=$(count "$one" "critical path") b=$(count "$two" "critical path")
    echo "     $m: core 0 ${c0:-?}, core 1 ${c1:-?} instructions, ${forks:-?} forks; critical path 1 core ${a:-?}, 2 cores ${b:-?}"
    if [ "${forks:-0}" -gt 0 ] && grep -q "^dual: core 1 [0-9]* instructions in $forks shares" "$two" &&
            [ "${c1:-0}" -gt $(( ${c0:-0} / 2 )) ]; then
        ok "$m cores: $forks forks, each ran a share on core 1 ($c1 instructions there, $c0 on core 0)"
    else
        bad "$m cores: core 1 did not take its shares"; show "$two"
    fi
    if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v m=$MIN_SPEEDUP 'BEGIN { exit !(b > 0 && a / b >= m) }'; then
        ok "$m speedup: $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", a / b }') (1 core $a, 2 cores $b instructions on the critical path; >= ${MIN_SPEEDUP}x)"
    else
        bad "$m speedup: 1 core ${a:-?}, 2 cores ${b:-?} instructions: below ${MIN_SPEEDUP}x"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
