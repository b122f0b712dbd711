#!/usr/bin/env bash
# tests/test_examples.sh - every firmware example (examples/<model>) built and
# run on the host, on Cortex-M4 (qemu-system-arm -M mps2-an386), on Cortex-M55
# (Helium; -M mps3-an547) and on RV32 (qemu-system-riscv32 -M virt). Checks
# per model:
#   header  htc compile writes the header
#   host    builds and runs, exit status 0
#   htc-run the host's output bytes equal `htc run` on the same input bytes
#   tflm    ... and TFLite Micro's interpreter's (tests/tflm_run.py), the oracle
#   m4      cross-builds, runs under qemu, exit 0, "result:" lines == host's
#   m55     the same on the M55 (the kernels' MVE paths)
#   rv32    cross-builds, runs under qemu, exit 0, "result:" lines == host's
# llama (Deeploy's microLlama1 from ../shared/deeploy-tests, HTC_DEEPLOY):
# instead of tflm, the host program fed Deeploy's inputs.npz for its first
# step must write Deeploy's outputs.npz (every output, bit for bit); m4, m55
# and rv32 compare their 16 generated steps with the host's.
# Prints each program's instruction count, then "N passed, N failed".
# Environment: HTC (default ./htc), HTC_MODELS, HTC_DEEPLOY, EXAMPLES
# (default all six: kws vww ic ad mnist llama), KEEP=1 keeps the build directory.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
case $HTC_MODELS in /*) ;; *) HTC_MODELS=$ROOT/$HTC_MODELS ;; esac
export HTC_MODELS
HTC_DEEPLOY=${HTC_DEEPLOY:-$(cd .. && pwd)/shared/deeploy-tests}
case $HTC_DEEPLOY in /*) ;; *) HTC_DEEPLOY=$ROOT/$HTC_DEEPLOY ;; esac
EXAMPLES=${EXAMPLES:-kws vww ic ad mnist llama}
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

# llama: Deeploy's inputs.npz as the first step's input bytes (each input in
# the type the header gives it: 1 or 4 bytes per value), the first step's
# outputs against outputs.npz
llama_check() {   # llama_check BUILD_DIR EXAMPLE_DIR
    local b=$1 ex=$2 d model
    model=$(sed -n 's/^TFLITE *:= *//p' "$ex/Makefile")
    d=$HTC_DEEPLOY/$(dirname "$model")
    if [ ! -x "$b/host/llama" ]; then
        bad "llama host: build failed"; show "$W/llama.build.log" 30; return
    fi
    if ! ${PYTHON:-.venv/bin/python} - "$d/inputs.npz" "$b/llama.h" "$b/in.bin" >"$W/llama.in.log" 2>&1 <<'PY'
import re, sys
import numpy as np
npz, hdr, out = sys.argv[1:]
h = open(hdr).read()
d = np.load(npz)
blob = b""
for i, k in enumerate(d.files):
    a = d[k].ravel()
    per = int(re.search(r"#define LLAMA_INPUT_SIZE_%d (\d+)" % i, h).group(1)) // max(a.size, 1)
    t = {1: np.int8 if a.min() < 0 else np.uint8, 4: np.int32}[per] if a.size else np.int8
    info = np.iinfo(t)
    assert info.min <= a.min() and a.max() <= info.max, (k, a.min(), a.max(), t)
    blob += a.astype(t).tobytes()
open(out, "wb").write(blob)
PY
    then
        bad "llama deeploy: cannot convert $d/inputs.npz"; show "$W/llama.in.log"; return
    fi
    if ! "${mk[@]}" host >"$W/llama.host.log" 2>&1; then
        bad "llama host: run failed"; show "$W/llama.host.log"; return
    fi
    ok "llama host: $(grep -m1 'tokens/s' "$W/llama.host.log")"
    if ! "${mk[@]}" host RUN_ARGS="--read-input $b/in.bin --write-output $b/out.bin" >"$W/llama.deeploy.log" 2>&1; then
        bad "llama deeploy: run failed"; show "$W/llama.deeploy.log"; return
    fi
    if ${PYTHON:-.venv/bin/python} - "$d/outputs.npz" "$b/out.bin" >"$W/llama.cmp.log" 2>&1 <<'PY'
import sys
import numpy as np
w = np.load(sys.argv[1])
raw = open(sys.argv[2], "rb").read()
o = 0
for k in w.files:
    a = w[k].astype(np.int64).ravel()
    g = np.frombuffer(raw[o:o + a.size], np.uint8 if a.max() > 127 else np.int8).astype(np.int64)
    assert np.array_equal(g, a), "%s: %d of %d values differ" % (k, int((g != a).sum()), a.size)
    o += a.size
assert o == len(raw), (o, len(raw))
print("%d outputs, %d bytes" % (len(w.files), o))
PY
    then
        ok "llama deeploy: the first step equals Deeploy's outputs.npz ($(cat "$W/llama.cmp.log"))"
    else
        bad "llama deeploy: the first step differs from Deeploy's outputs.npz"; show "$W/llama.cmp.log"
    fi
}

summary=""
for m in $EXAMPLES; do
    ex=examples/$m
    b=$W/$m
    models=$HTC_MODELS
    [ "$m" = llama ] && models=$HTC_DEEPLOY
    mk=(make -s -C "$ex" B="$b" HTC="$HTC" HTC_MODELS="$models" TIMEOUT="$TIMEOUT")
    echo "--- $m"
    if ! "${mk[@]}" header >"$W/$m.header.log" 2>&1; then
        bad "$m header: htc compile failed"; show "$W/$m.header.log"; continue
    fi
    ok "$m header ($(wc -c <"$b/$m.h") bytes)"

    # the four builds in parallel, then the three qemu runs next to the host's
    "${mk[@]}" -j3 all >"$W/$m.build.log" 2>&1
    plats="m4 m55 rv32"
    # an example whose Makefile says M55 := no does not fit the M55's ITCM
    if grep -q '^M55 *:= *no' "$ex/Makefile"; then
        plats="m4 rv32"
        echo "note $m m55: not built (M55 := no in $ex/Makefile: the code does not fit the 512 KiB ITCM)"
    fi
    for p in $plats; do
        if [ -f "$b/$p/$m.elf" ]; then
            ( "${mk[@]}" "$p" >"$W/$m.$p.log" 2>&1; echo $? >"$W/$m.$p.rc" ) &
        fi
    done

    if [ "$m" = llama ]; then
        llama_check "$b" "$ex"
    elif [ ! -x "$b/host/$m" ]; then
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

    for p in $plats; do
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
        [ -z "$n" ] && n=$(sed -n 's/.* \([0-9]*\) instructions per token.*/\1/p' "$W/$m.$p.log")   # llama: per token
        summary="$summary$(printf '%-4s %-5s %12s instructions per inference' "$m" "$p" "${n:-?}")"$'\n'
    done
done

echo
printf '%s' "$summary"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
