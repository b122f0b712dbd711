#!/usr/bin/env bash
# tests/bad/test_outputs.sh - the output promise under concurrency, signals
# and bad command lines: parallel compiles to one -o leave one whole header;
# SIGINT/SIGTERM/SIGHUP during a compile or `htc run` leave no temporary file
# or scratch directory and no child process; SIGKILL of htc kills `htc run`'s
# child too; bad options give one "htc: error:" line.
set -u
cd "$(dirname "$0")/../.."
HTC=${HTC:-./htc}
PY=${PYTHON:-.venv/bin/python}
MODELS=${HTC_MODELS:-../shared/models/mlperf_tiny}
[ -x "$HTC" ] || { echo "no $HTC: run make first"; echo "outputs: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# processes this test started whose command line holds its own directory
ours() { pgrep -f "$tmp/" 2>/dev/null || true; }
# wait for pid $1 at most 20 s (then kill it and everything of ours); its exit status
waitfor() {
    local i
    for i in $(seq 2000); do kill -0 "$1" 2>/dev/null || break; sleep 0.01; done
    if kill -0 "$1" 2>/dev/null; then
        kill -KILL "$1" 2>/dev/null
        for q in $(ours); do kill -KILL "$q" 2>/dev/null; done
    fi
    wait "$1" 2>/dev/null
}
# a background job of a script ignores SIGINT: start htc with the defaults
dflt() { exec env --default-signal=INT,TERM,HUP "$@"; }
cleanup() {
    for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# ---- concurrent compiles of two models to one output --------------------------
A=$MODELS/vww_96_int8.tflite B=$MODELS/ad01_int8.tflite
mkdir -p "$tmp/par"
out=$tmp/par/OUT.h
$HTC compile "$A" -t targets/cpu.lua -o "$out" --name m && cp "$out" "$tmp/refA.h"
$HTC compile "$B" -t targets/cpu.lua -o "$out" --name m && cp "$out" "$tmp/refB.h"
rounds=20 mixed=0 rcbad=0
for r in $(seq $rounds); do
    rm -f "$out"
    pids=""
    for m in "$A" "$B" "$A" "$B"; do
        $HTC compile "$m" -t targets/cpu.lua -o "$out" --name m 2>>"$tmp/par.err" & pids="$pids $!"
    done
    for p in $pids; do wait "$p" || rcbad=$((rcbad + 1)); done
    cmp -s "$out" "$tmp/refA.h" || cmp -s "$out" "$tmp/refB.h" || mixed=$((mixed + 1))
done
left=$(ls "$tmp/par" | grep -v '^OUT\.h$' | wc -l)
if [ $mixed -eq 0 ] && [ $rcbad -eq 0 ] && [ "$left" -eq 0 ]; then ok
else bad "concurrent compiles: $mixed of $rounds rounds left a header that is neither model's," \
         "$rcbad failed runs, $left temporary files left: $(head -c 300 "$tmp/par.err")"; fi

# ---- a signal while the header is being written ---------------------------------
# a model with 16M weights: the header takes a while to write
if "$PY" - "$tmp/big.tflite" <<'EOF'
import sys
sys.path.insert(0, "tests")
import numpy as np
from tflite_build import Model
m = Model()
x = m.input([1, 4096], scale=0.05, zp=0)
m.output(m.fully_connected(x, 4096, np.random.default_rng(1)))
m.save(sys.argv[1])
EOF
then
    for sig in INT TERM HUP; do
        d=$tmp/sig$sig
        mkdir -p "$d"
        dflt $HTC compile "$tmp/big.tflite" -t targets/cpu.lua -o "$d/OUT.h" 2>"$d.err" &
        p=$!
        # wait for the temporary file, then signal
        for i in $(seq 1000); do
            [ -n "$(ls "$d")" ] && break
            sleep 0.01
        done
        seen=$(ls "$d")
        kill -$sig $p
        waitfor $p
        rc=$?
        want=$((128 + $(kill -l $sig)))
        if [ -z "$seen" ]; then bad "SIG$sig during compile: no temporary output appeared"
        elif [ -n "$(ls "$d")" ]; then bad "SIG$sig during compile left: $(ls "$d")"
        elif [ $rc -ne $want ]; then bad "SIG$sig during compile: exit $rc, expected $want"
        else ok; fi
    done
else
    bad "could not build the big model"
fi

# ---- signals during `htc run` ---------------------------------------------------
KWS=$MODELS/kws_ref_model.tflite
head -c 490 /dev/zero >"$tmp/in.bin"
# $1: signal, $2: what to wait for (cc: the compiler runs; run: the program runs)
run_signal() {
    local sig=$1 phase=$2 d=$tmp/run$1$2
    mkdir -p "$d"
    TMPDIR=$d dflt $HTC run "$KWS" -t targets/cpu.lua --input "$tmp/in.bin" --output "$tmp/out.bin" \
        --repeat 100000000 >/dev/null 2>"$d.err" &
    local p=$! i
    for i in $(seq 3000); do
        if [ "$phase" = cc ]; then ls "$d"/htc-run-*/driver.c >/dev/null 2>&1 && break
        else pgrep -f "$d/htc-run-.*/run 100000000" >/dev/null && break; fi
        sleep 0.01
    done
    kill -$sig $p
    waitfor $p
    local rc=$?
    sleep 0.3
    local left procs
    left=$(ls "$d")
    procs=$(pgrep -f "$d/" | tr '\n' ' ')
    if [ "$sig" = KILL ]; then
        # htc cannot clean up after SIGKILL, but its child must die with it
        [ -z "$procs" ] && ok || bad "SIGKILL of htc run left its child running: $procs"
        for q in $procs; do kill -KILL "$q" 2>/dev/null; done
        return
    fi
    if [ -n "$left" ]; then bad "SIG$sig during htc run ($phase) left $left"
    elif [ -n "$procs" ]; then bad "SIG$sig during htc run ($phase) left processes: $procs"
    elif [ $rc -ne $((128 + $(kill -l $sig))) ]; then bad "SIG$sig during htc run ($phase): exit $rc"
    else ok; fi
    for q in $procs; do kill -KILL "$q" 2>/dev/null; done
}
run_signal TERM cc
run_signal INT run
run_signal TERM run
run_signal HUP run
run_signal KILL run

# ---- bad command lines ------------------------------------------------------------
long=$(printf 'n%.0s' $(seq 128))
cli() {   # cli EXPECT ARGS...
    local want=$1; shift
    mkdir -p "$tmp/cli"
    timeout 20 $HTC "$@" >/dev/null 2>"$tmp/cli.err"
    local rc=$? err lines
    err=$(cat "$tmp/cli.err"); lines=$(wc -l <"$tmp/cli.err")
    if [ $rc -ne 1 ] || [ "$lines" -ne 1 ]; then bad "htc $*: exit $rc, $lines lines: $err"
    else case "$err" in "htc: error: "*"$want"*) ok ;; *) bad "htc $*: '$err' lacks '$want'" ;; esac; fi
    [ -z "$(ls "$tmp/cli")" ] || { bad "htc $*: left $(ls "$tmp/cli")"; rm -f "$tmp/cli"/*; }
}
cli "-d 'bogus': unknown pass" compile "$KWS" -t targets/cpu.lua -o "$tmp/cli/o.h" -d bogus
cli "--repeat 99999999999999999999999: out of range" run "$KWS" -t targets/cpu.lua --repeat 99999999999999999999999
cli "--repeat needs a count" run "$KWS" -t targets/cpu.lua --repeat -3
cli "--name: 128 characters, at most 127" run "$KWS" -t targets/cpu.lua --name "$long"
cli "-o: the output file name is empty" compile "$KWS" -t targets/cpu.lua -o ""
cli "is a directory" compile "$KWS" -t targets/cpu.lua -o "$tmp/cli"
cli "cannot write" compile "$KWS" -t targets/cpu.lua -o "$tmp/cli/nodir/o.h"
# a name of 127 characters works end to end (the driver uses it too)
if $HTC run "$KWS" -t targets/cpu.lua --name "${long:1}" --input "$tmp/in.bin" --output "$tmp/o.bin" >/dev/null 2>"$tmp/e"; then ok
else bad "--name of 127 characters: $(cat "$tmp/e")"; fi

echo "outputs: $pass passed, $fail failed"
[ $fail -eq 0 ]
