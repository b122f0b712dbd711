#!/usr/bin/env bash
# tests/asan_models.sh - compile and report every MLPerf Tiny model with the
# sanitizer build of htc ($HTC): any ASan/UBSan report fails the run.
set -u
cd "$(dirname "$0")/.."
HTC=${HTC:-./htc-asan}
MODELS=${HTC_MODELS:-../shared/models/mlperf_tiny}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for m in "$MODELS"/*.tflite; do
    for cmd in "compile -o $tmp/m.h --name m" "report" "report --json"; do
        if $HTC $cmd "$m" -t targets/cpu.lua >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL $HTC $cmd $m"; head -20 "$tmp/err"
        fi
    done
done
echo "asan models: $pass passed, $fail failed"
[ $fail -eq 0 ]
