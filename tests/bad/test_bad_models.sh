#!/usr/bin/env bash
# tests/bad/test_bad_models.sh - every bad model must make `htc compile` exit 1
# with one "htc: error: " line naming the model and containing the text of
# tests/bad/<case>.expect, and leave no output file. An .expect of N lines
# (a model with several refused operators) wants N error lines, line k
# containing line k of the .expect. The models are made by
# make_bad.py (from $HTC_MODELS and synthetic) into a temporary directory.
set -u
cd "$(dirname "$0")/../.."
HTC=${HTC:-./htc}
PY=${PYTHON3:-python3}
export HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
[ -x "$HTC" ] || { echo "no $HTC: run make first"; echo "bad models: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
if ! "$PY" tests/bad/make_bad.py "$tmp/in"; then
    echo "FAIL make_bad.py could not write the bad models"
    echo "bad models: 0 passed, 1 failed"
    exit 1
fi
mkdir -p "$tmp/out"
for expect in tests/bad/*.expect; do
    case=$(basename "$expect" .expect)
    model=$tmp/in/$case.tflite
    out=$tmp/out/OUT.h
    why=""
    if [ ! -f "$model" ]; then
        why="make_bad.py wrote no $case.tflite"
    else
        timeout 60 $HTC compile "$model" -t targets/cpu.lua -o "$out" --name m 2>"$tmp/err" >/dev/null
        rc=$?
        err=$(cat "$tmp/err")
        lines=$(wc -l <"$tmp/err")
        [ $rc -eq 1 ] || why="exit $rc, expected 1"
        nwant=$(wc -l <"$expect")
        [ -z "$why" ] && [ "$lines" -ne "$nwant" ] && why="$lines lines on stderr, expected $nwant"
        k=0
        while [ -z "$why" ] && IFS= read -r wline; do
            k=$((k + 1))
            eline=$(sed -n "${k}p" "$tmp/err")
            case "$eline" in "htc: error: "*) ;; *) why="line $k: no 'htc: error: ' prefix";; esac
            [ -z "$why" ] && case "$eline" in *"$model"*) ;; *) why="line $k does not name the model";; esac
            [ -z "$why" ] && case "$eline" in *"$wline"*) ;; *) why="line $k lacks '$wline'";; esac
        done <"$expect"
        [ -z "$why" ] && [ -n "$(ls "$tmp/out")" ] && why="output file left behind: $(ls "$tmp/out")"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $case: $why"
        [ -f "$tmp/err" ] && echo "     got: $(head -c 600 "$tmp/err")"
    fi
    rm -f "$tmp/out"/* "$tmp/err"
done
echo "bad models: $pass passed, $fail failed"
[ $fail -eq 0 ]
