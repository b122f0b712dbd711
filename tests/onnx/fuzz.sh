#!/usr/bin/env bash
# tests/onnx/fuzz.sh - build the libFuzzer target for the ONNX reader with
# ASan + UBSan and run it for $FUZZ_SECONDS (default 30) on a corpus of the
# whole quantized zoo (build it with tests/onnx/ort_oracle.py's ensure_zoo;
# $HTC_ZOO) and the bad models. Crashes land in build/fuzz-onnx/crash-*.
set -eu
cd "$(dirname "$0")/../.."
SECONDS_=${FUZZ_SECONDS:-30}
CLANG=${CLANG:-clang}
out=build/fuzz-onnx
mkdir -p "$out/corpus"
make -s build/pb/onnx.pb-c.c
flags="-std=c11 -g -O1 -Wall -Wextra -Wno-unused-parameter -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Ibuild/pb"
$CLANG $flags -Ddie=util_die -DHTC_FUZZ_DIE -Dread_file=util_read_file -Wno-format-nonliteral -c gen/util.c -o "$out/util.o"
$CLANG $flags -c gen/onnx.c -o "$out/onnx.o"
$CLANG $flags -c gen/qlib.c -o "$out/qlib.o"      # QuantLib's integer form, reached from onnx_read
$CLANG $flags -c gen/npy.c -o "$out/npy.o"
$CLANG $flags -c gen/readopt.c -o "$out/readopt.o"
$CLANG $flags -c gen/lower.c -o "$out/lower.o"
$CLANG $flags -c gen/quant.c -o "$out/quant.o"
$CLANG $flags -w -c build/pb/onnx.pb-c.c -o "$out/onnx.pb-c.o"
$CLANG $flags -c tests/onnx/fuzz_onnx.c -o "$out/fuzz_onnx.o"
$CLANG $flags -o "$out/fuzz_onnx" "$out/fuzz_onnx.o" "$out/onnx.o" "$out/qlib.o" "$out/npy.o" "$out/readopt.o" "$out/lower.o" "$out/quant.o" "$out/onnx.pb-c.o" "$out/util.o" -lprotobuf-c -lm
seed="$out/seed"
mkdir -p "$seed"
cp tests/onnx/bad/*.onnx "$seed/" 2>/dev/null || true
# the whole quantized zoo: int8 and uint8, QDQ and QOperator, pow2 and ternary
# (an int8 QDQ model found the NULL op_type crash the old seeds missed)
for f in ${HTC_ZOO:-build/zoo}/*.onnx; do
    case $f in *_float.onnx) continue ;; esac
    [ -f "$f" ] && cp "$f" "$seed/"
done
set +e
"$out/fuzz_onnx" -max_total_time="$SECONDS_" -timeout=10 -max_len=400000 -rss_limit_mb=2048 -detect_leaks=0 \
    -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" "$seed" >"$out/fuzz.log" 2>&1
rc=$?
set -e
runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$out/fuzz.log" | grep -oE '[0-9]+$' || echo 0)
if [ "$rc" -eq 0 ]; then
    echo "onnx fuzz: 1 passed, 0 failed ($runs executions in ${SECONDS_}s, no crash)"
else
    grep -vE '^(#[0-9]+|"|###)' "$out/fuzz.log" | tail -n 40
    echo "onnx fuzz: 0 passed, 1 failed"
    exit 1
fi
