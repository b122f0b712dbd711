#!/usr/bin/env bash
# tests/run.sh - the whole suite behind `make test`: every part prints
# "N passed, N failed" last; this sums them and fails if any part failed.
set -u
cd "$(dirname "$0")/.."
export HTC=${HTC:-./htc}
export HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
PY=${PYTHON:-.venv/bin/python}
total_pass=0 total_fail=0 broken=""

part() {   # part NAME COMMAND...
    local name=$1; shift
    echo "=== $name"
    local log; log=$(mktemp)
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local line p f
    line=$(grep -E '[0-9]+ passed' "$log" | tail -n 1)
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+'); p=${p:-0}
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+'); f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi      # crashed or counted nothing
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi       # a part that ran no test fails
    [ "$f" -eq 0 ] || broken="$broken $name"
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    rm -f "$log"
}

[ -x "$HTC" ] || { echo "no $HTC: run make first"; exit 1; }
for t in tests/kernels/run.sh tests/targets/test_targets.sh tests/bad/test_bad_models.sh tests/bad/test_outputs.sh tests/bad/test_limits.sh \
         tests/test_header_compile.sh tests/test_reproducible.sh tests/test_prune.sh tests/test_isa.sh tests/test_examples.sh tests/test_dual_m33.sh tests/test_cmake.sh; do
    [ -f "$t" ] && part "$t" bash "$t"
done
ls tests/test_*.py >/dev/null 2>&1 && part pytest "$PY" -m pytest -q -p no:cacheprovider tests
echo
[ -z "$broken" ] || echo "failing parts:$broken"
echo "all: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
