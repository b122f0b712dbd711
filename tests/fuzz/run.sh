#!/usr/bin/env bash
# tests/fuzz/run.sh - build the libFuzzer target for the TFLite reader with
# ASan + UBSan and run it for $FUZZ_SECONDS (default 60). Crashes land in
# build/fuzz/crash-*; reproduce one with build/fuzz/fuzz_tflite FILE.
set -eu
cd "$(dirname "$0")/../.."
SECONDS_=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
out=build/fuzz
mkdir -p "$out/corpus"
flags="-std=c11 -g -O1 -Wall -Wextra -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
# util.c's die() and read_file() are replaced by the harness's
$CLANG $flags -Ddie=util_die -Dread_file=util_read_file -Wno-format-nonliteral -c gen/util.c -o "$out/util.o"
$CLANG $flags -c gen/tflite.c -o "$out/tflite.o"
$CLANG $flags -c tests/fuzz/fuzz_tflite.c -o "$out/fuzz_tflite.o"
$CLANG $flags -o "$out/fuzz_tflite" "$out/fuzz_tflite.o" "$out/tflite.o" "$out/util.o" -lm
set +e
"$out/fuzz_tflite" -max_total_time="$SECONDS_" -timeout=10 -max_len=65536 -rss_limit_mb=2048 \
    -dict=tests/fuzz/tflite.dict -artifact_prefix="$out/" -print_final_stats=1 \
    "$out/corpus" tests/fuzz/corpus >"$out/fuzz.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
    grep -E '^(INFO: seed corpus|Done|stat::)' "$out/fuzz.log" || true
else
    grep -vE '^(#[0-9]+|"|###)' "$out/fuzz.log" | tail -n 60
fi
set -e
runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$out/fuzz.log" | grep -oE '[0-9]+$' || echo 0)
if [ "$rc" -eq 0 ]; then
    echo "fuzz: 1 passed, 0 failed ($runs executions in ${SECONDS_}s, no crash)"
else
    echo "fuzz: crash or leak, see $out/fuzz.log and $out/crash-* (reproduce: $out/fuzz_tflite FILE)"
    echo "fuzz: 0 passed, 1 failed"
fi
exit "$rc"
