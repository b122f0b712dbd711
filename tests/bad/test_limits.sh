#!/usr/bin/env bash
# tests/bad/test_limits.sh - bounded cost (README, Limits): a 50,000-operator
# chain compiles within a generous bound (the planner was quadratic: 10k
# operators 8 s, 50k over 120 s; now about a second); the same model and
# target give the same header twice even when the tiling MILP stops at its
# limit (iteration counts, not seconds).
set -u
cd "$(dirname "$0")/../.."
HTC=${HTC:-./htc}
PY=${PYTHON:-.venv/bin/python}
MODELS=${HTC_MODELS:-../shared/models/mlperf_tiny}
[ -x "$HTC" ] || { echo "no $HTC: run make first"; echo "limits: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# ---- 50k operators --------------------------------------------------------------
if "$PY" tests/bad/make_chain.py 50000 "$tmp/chain.tflite"; then
    t0=$(date +%s.%N)
    timeout 20 $HTC compile "$tmp/chain.tflite" -t targets/cpu.lua -o "$tmp/chain.h" 2>"$tmp/err"
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")
    echo "50,000-operator chain: exit $rc in $secs s (bound 20 s)"
    if [ $rc -eq 0 ] && [ -s "$tmp/chain.h" ]; then ok
    else bad "50,000-operator chain: exit $rc (124: over 20 s): $(head -c 300 "$tmp/err")"; fi
else
    bad "make_chain.py failed"
fi

echo "limits: $pass passed, $fail failed"
[ $fail -eq 0 ]
