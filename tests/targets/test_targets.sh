#!/usr/bin/env bash
# tests/targets/test_targets.sh - every broken target file in bad/ must give
# one "htc: error:" line containing bad/<case>.expect, exit 1, and no output,
# within the limits on Lua memory, instructions and CPU time (README, Limits).
# A case with bad/<case>.cmd = "run" is run with `htc run` (errors in the
# generated C), the others with `htc compile`; bad/<case>.model names another
# model than KWS (qconv.onnx: an accelerator runs its tile function).
set -u
cd "$(dirname "$0")/../.."
HTC=${HTC:-./htc}
MODELS=${HTC_MODELS:-../shared/models/mlperf_tiny}
model=$MODELS/kws_ref_model.tflite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for lua in tests/targets/bad/*.lua; do
    case=${lua%.lua}
    want=$(cat "$case.expect")
    mkdir -p "$tmp/out"
    out=$tmp/out/out.h
    m=$model
    [ -f "$case.model" ] && m=$(cat "$case.model")
    if [ "$(cat "$case.cmd" 2>/dev/null)" = run ]; then     # errors of the generated C: htc run
        head -c 490 /dev/zero >"$tmp/in.bin"
        timeout 120 $HTC run "$m" -t "$lua" --input "$tmp/in.bin" --output "$out" 2>"$tmp/err" >/dev/null
    else
        timeout 120 $HTC compile "$m" -t "$lua" -o "$out" --name m 2>"$tmp/err" >/dev/null
    fi
    rc=$?
    err=$(cat "$tmp/err")
    lines=$(wc -l <"$tmp/err")
    why=""
    [ $rc -eq 1 ] || why="exit $rc, expected 1"
    [ -z "$why" ] && [ "$lines" -eq 1 ] || why="${why:-$lines lines on stderr, expected 1}"
    [ -z "$why" ] && case "$err" in "htc: error: "*) ;; *) why="no 'htc: error: ' prefix";; esac
    [ -z "$why" ] && case "$err" in *"$want"*) ;; *) why="message lacks '$want'";; esac
    [ -z "$why" ] && [ -n "$(ls "$tmp/out")" ] && why="output file left behind: $(ls "$tmp/out")"
    rm -f "$tmp/out"/*
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $lua: $why"
        echo "     got: $err"
    fi
done
# the good targets load and compile
for lua in targets/*.lua; do
    if $HTC compile "$model" -t "$lua" -o "$tmp/ok.h" --name m 2>"$tmp/err" && [ -s "$tmp/ok.h" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $lua does not compile kws: $(cat "$tmp/err")"
    fi
done
echo "targets: $pass passed, $fail failed"
[ $fail -eq 0 ]
