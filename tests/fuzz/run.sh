#!/usr/bin/env bash
# tests/fuzz/run.sh - build the libFuzzer targets with ASan + UBSan and run
# each for $FUZZ_SECONDS (default 60): the TFLite reader (fuzz_tflite) and
# the .npy / .npz reader (fuzz_npy). Crashes land in build/fuzz/<target>/
# crash-*; reproduce one with build/fuzz/<target>/<target> FILE.
set -eu
cd "$(dirname "$0")/../.."
SECONDS_=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
flags="-std=c11 -g -O1 -Wall -Wextra -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
status=0

# fuzz NAME READER.c MAX_LEN SEED_DIR [DICT]
fuzz() {
    local name=$1 reader=$2 max_len=$3 seeds=$4 dict=${5:-} out=build/fuzz/$1
    mkdir -p "$out/corpus"
    # util.c's die() and read_file() are replaced by the harness's
    $CLANG $flags -Ddie=util_die -DHTC_FUZZ_DIE -Dread_file=util_read_file -Wno-format-nonliteral -c gen/util.c -o "$out/util.o"
    $CLANG $flags -c "$reader" -o "$out/reader.o"
    $CLANG $flags -c gen/readopt.c -o "$out/readopt.o"       # the reader's options (--shape)
    $CLANG $flags -c "tests/fuzz/$name.c" -o "$out/$name.o"
    $CLANG $flags -o "$out/$name" "$out/$name.o" "$out/reader.o" "$out/readopt.o" "$out/util.o" -lm
    set +e
    "$out/$name" -max_total_time="$SECONDS_" -timeout=10 -max_len="$max_len" -rss_limit_mb=2048 \
        ${dict:+-dict=$dict} -artifact_prefix="$out/" -print_final_stats=1 \
        "$out/corpus" "$seeds" >"$out/fuzz.log" 2>&1
    local rc=$?
    if [ "$rc" -eq 0 ]; then
        grep -E '^(INFO: seed corpus|Done|stat::)' "$out/fuzz.log" || true
    else
        grep -vE '^(#[0-9]+|"|###)' "$out/fuzz.log" | tail -n 60
    fi
    set -e
    local runs
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$out/fuzz.log" | grep -oE '[0-9]+$' || echo 0)
    if [ "$rc" -eq 0 ]; then
        echo "fuzz $name: 1 passed, 0 failed ($runs executions in ${SECONDS_}s, no crash)"
    else
        echo "fuzz $name: crash or leak, see $out/fuzz.log and $out/crash-* (reproduce: $out/$name FILE)"
        echo "fuzz $name: 0 passed, 1 failed"
        status=$rc
    fi
}

fuzz fuzz_tflite gen/tflite.c 65536 tests/fuzz/corpus tests/fuzz/tflite.dict
fuzz fuzz_npy gen/npy.c 4096 tests/fuzz/npy_corpus tests/fuzz/npy.dict
exit "$status"
