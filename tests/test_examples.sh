#!/usr/bin/env bash
# tests/test_examples.sh - every firmware example (examples/<model>) built and
# run on the host, on Cortex-M4 (qemu-system-arm -M mps2-an386) and on RV32
# (qemu-system-riscv32 -M virt). Checks per model:
#   header  htc compile writes the header
#   host    builds and runs, exit status 0
#   htc-run the host's output bytes equal `htc run` on the same input bytes
#   tflm    ... and TFLite Micro's interpreter's (tests/tflm_run.py), the oracle
#   m4      cross-builds, runs under qemu, exit 0, "result:" lines == host's
#   rv32    cross-builds, runs under qemu, exit 0, "result:" lines == host's
# Prints each program's instruction count, then "N passed, N failed".
# Environment: HTC (default ./htc), HTC_MODELS, EXAMPLES (default all four),
# KEEP=1 keeps the build directory.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
case $HTC_MODELS in /*) ;; *) HTC_MODELS=$ROOT/$HTC_MODELS ;; esac
export HTC_MODELS
EXAMPLES=${EXAMPLES:-kws vww ic ad}
TIMEOUT=${TIMEOUT:-60}

pass=0 fail=0
ok()   { pass=$((pass + 1)); echo "ok   $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL $*"; }
show() { sed 's/^/       | /' "$1" | tail -n "${2:-15}"; }

W=$(mktemp -d "${TMPDIR:-/tmp}/htc-examples-XXXXXX")
[ "${KEEP:-0}" = 1 ] && echo "build directory: $W" || trap 'rm -rf "$W"' EXIT

[ -x "$HTC" ] || { bad "no htc at $HTC (run make first)"; echo "$pass passed, $fail failed"; exit 1; }
missing=""
for t in cc arm-none-eabi-gcc riscv64-unknown-elf-gcc qemu-system-arm qemu-system-riscv32 timeout; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] || bad "missing tools:$missing (the cross runs below fail)"

results() { grep '^result:' "$1"; }

same_results() {   # same_results NAME PLATFORM_LOG HOST_LOG
    if [ "$(results "$2" | wc -l)" -lt 2 ]; then
        bad "$1: no result lines"; show "$2"; return
    fi
    if diff <(results "$3") <(results "$2") >"$W/diff" 2>&1; then
        ok "$1: results equal the host's"
    else
        bad "$1: results differ from the host's"; show "$W/diff" 20
    fi
}

summary=""
for m in $EXAMPLES; do
    ex=examples/$m
    b=$W/$m
    mk=(make -s -C "$ex" B="$b" HTC="$HTC" HTC_MODELS="$HTC_MODELS" TIMEOUT="$TIMEOUT")
    echo "--- $m"
    if ! "${mk[@]}" header >"$W/$m.header.log" 2>&1; then
        bad "$m header: htc compile failed"; show "$W/$m.header.log"; continue
    fi
    ok "$m header ($(wc -c <"$b/$m.h") bytes)"

    # the three builds in parallel, then the two qemu runs next to the host's
    "${mk[@]}" -j3 all >"$W/$m.build.log" 2>&1
    for p in m4 rv32; do
        if [ -f "$b/$p/$m.elf" ]; then
            ( "${mk[@]}" "$p" >"$W/$m.$p.log" 2>&1; echo $? >"$W/$m.$p.rc" ) &
        fi
    done

    if [ ! -x "$b/host/$m" ]; then
        bad "$m host: build failed"; show "$W/$m.build.log" 30
    elif ! "${mk[@]}" host RUN_ARGS="--write-input $b/in.bin --write-output $b/out.bin" >"$W/$m.host.log" 2>&1; then
        bad "$m host: run failed"; show "$W/$m.host.log"
    else
        ok "$m host: $(grep -m1 'top class\|anomaly score' "$W/$m.host.log" | sed 's/^result: //')"
        model=$(sed -n 's/^TFLITE *:= *//p' "$ex/Makefile")
        if ! "$HTC" run "$HTC_MODELS/$model" -t targets/cpu.lua --input "$b/in.bin" --output "$b/ref.bin" \
                >"$W/$m.htcrun.log" 2>&1; then
            bad "$m htc-run: htc run failed"; show "$W/$m.htcrun.log"
        elif cmp -s "$b/out.bin" "$b/ref.bin"; then
            ok "$m htc-run: output bytes equal htc run's ($(wc -c <"$b/ref.bin") bytes)"
        else
            bad "$m htc-run: output bytes differ from htc run's"; cmp -l "$b/out.bin" "$b/ref.bin" | head -5
        fi
        if ! ${PYTHON:-.venv/bin/python} tests/tflm_run.py "$HTC_MODELS/$model" "$b/in.bin" "$b/tflm.bin" \
                >"$W/$m.tflm.log" 2>&1; then
            bad "$m tflm: the TFLite Micro interpreter failed"; show "$W/$m.tflm.log"
        elif cmp -s "$b/out.bin" "$b/tflm.bin"; then
            ok "$m tflm: output bytes equal TFLite Micro's ($(wc -c <"$b/tflm.bin") bytes)"
        else
            bad "$m tflm: output bytes differ from TFLite Micro's"; cmp -l "$b/out.bin" "$b/tflm.bin" | head -5
        fi
    fi
    wait

    for p in m4 rv32; do
        if [ ! -f "$b/$p/$m.elf" ]; then
            bad "$m $p: build failed"; show "$W/$m.build.log" 30; continue
        fi
        rc=$(cat "$W/$m.$p.rc" 2>/dev/null || echo 1)
        if [ "$rc" != 0 ]; then
            bad "$m $p: run failed (status $rc$([ "$rc" = 124 ] && echo ', timed out'))"; show "$W/$m.$p.log"
            continue
        fi
        [ -f "$W/$m.host.log" ] && same_results "$m $p" "$W/$m.$p.log" "$W/$m.host.log"
        n=$(sed -n "s/^prof: $m total \([0-9]*\) instructions.*/\1/p" "$W/$m.$p.log")
        summary="$summary$(printf '%-4s %-5s %12s instructions per inference' "$m" "$p" "${n:-?}")"$'\n'
    done
done

echo
printf '%s' "$summary"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
