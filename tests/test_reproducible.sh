#!/usr/bin/env bash
# tests/test_reproducible.sh - the same model, target and parameters give
# the same header bytes from two checkouts at different paths, run from
# different directories with the paths given differently (relative from
# inside one checkout, absolute from / for the other): the header names
# the model and the target by file name and hash, template #line
# directives by their relative names. Also: no checkout path in it.
# Last line "N passed, N failed". Environment: HTC (default ./htc), HTC_MODELS.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
W=$(mktemp -d "${TMPDIR:-/tmp}/htc-repro-XXXXXX")
trap 'rm -rf "$W"' EXIT

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# two checkouts: what htc reads at compile time (htc.h, kernels, targets,
# templates), the model inside each under the same file name
A=$W/a/checkout
B=$W/second/longer/path/htc-copy
for d in "$A" "$B"; do
    mkdir -p "$d/models"
    cp -r "$ROOT/htc.h" "$ROOT/kernels" "$ROOT/targets" "$ROOT/templates" "$d/"
done

# NAME:MODEL:TARGET[:-D ...]; npu pastes templates (#line directives)
for spec in kws:kws_ref_model:targets/cpu.lua vww_npu:vww_96_int8:targets/npu.lua ad:ad01_int8:targets/cpu.lua:l2_kib=600; do
    IFS=: read -r n m tgt def <<<"$spec"
    cp "$HTC_MODELS/$m.tflite" "$A/models/"
    cp "$HTC_MODELS/$m.tflite" "$B/models/"
    dopt=(); [ -n "$def" ] && dopt=(-D "$def")
    # A: relative paths from inside the checkout; B: absolute paths from /
    if ! (cd "$A" && HTC_HOME=$A "$HTC" compile "models/$m.tflite" -t "$tgt" "${dopt[@]}" -o "$n.h" --name "$n") >"$W/$n.a.log" 2>&1; then
        bad "$n: htc compile in $A"; sed 's/^/       | /' "$W/$n.a.log" | head; continue
    fi
    mkdir -p "$W/out"
    if ! (cd / && HTC_HOME=$B "$HTC" compile "$B/models/$m.tflite" -t "$B/$tgt" "${dopt[@]}" -o "$W/out/$n.h" --name "$n") >"$W/$n.b.log" 2>&1; then
        bad "$n: htc compile in $B"; sed 's/^/       | /' "$W/$n.b.log" | head; continue
    fi
    if cmp -s "$A/$n.h" "$W/out/$n.h"; then
        ok "$n: the same $(wc -l <"$A/$n.h") lines from both checkouts"
    else
        bad "$n: the headers differ"; diff "$A/$n.h" "$W/out/$n.h" | head -n 10 | sed 's/^/       | /'
    fi
    if grep -n -e "$W" -e "$ROOT" "$A/$n.h" | head -n 3 | grep -q .; then
        bad "$n: a path of the machine in the header"; grep -n -e "$W" -e "$ROOT" "$A/$n.h" | head -n 3 | sed 's/^/       | /'
    else
        ok "$n: no absolute path in the header"
    fi
    if [ "$tgt" = targets/npu.lua ]; then
        if grep -q '^#line [0-9]* "templates/' "$A/$n.h"; then ok "$n: template #line directives by relative name"
        else bad "$n: no #line naming a template by its relative path"; fi
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
