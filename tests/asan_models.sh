#!/usr/bin/env bash
# tests/asan_models.sh - compile and report every MLPerf Tiny model and the
# Keras zoo (tests/keras/models), and
# compile every ONNX zoo model, with the sanitizer build of htc ($HTC): any
# ASan/UBSan report fails the run.
set -u
cd "$(dirname "$0")/.."
HTC=${HTC:-./htc-asan}
MODELS=${HTC_MODELS:-../shared/models/mlperf_tiny}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for m in "$MODELS"/*.tflite tests/keras/models/*.tflite; do
    for cmd in "compile -o $tmp/m.h --name m" "report" "report --json"; do
        if $HTC $cmd "$m" -t targets/cpu.lua >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL $HTC $cmd $m"; head -20 "$tmp/err"
        fi
    done
done
# the ONNX zoo (built by tests/onnx/ort_oracle.py if missing): both forms,
# int8 and uint8, with --float-fallback (its notes are the only output)
if [ -x .venv/bin/python ]; then
    ZOO=$(cd tests/onnx && ../../.venv/bin/python -c 'import ort_oracle as O; print(O.ensure_zoo())' 2>"$tmp/zerr") ||
        { fail=$((fail + 1)); echo "FAIL building the zoo"; head -20 "$tmp/zerr"; }
    for m in ${ZOO:+"$ZOO"/*.onnx}; do
        case $m in *_float.onnx) continue ;; esac
        if $HTC compile "$m" -t targets/cpu.lua -o "$tmp/m.h" --float-fallback >"$tmp/out" 2>"$tmp/err" &&
            ! grep -v "computed in float (--float-fallback)" "$tmp/err" | grep -q .; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL $HTC compile $m --float-fallback"; head -20 "$tmp/err"
        fi
    done
fi
echo "asan models: $pass passed, $fail failed"
[ $fail -eq 0 ]
