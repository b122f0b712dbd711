#!/usr/bin/env bash
# tests/onnx/fuzz_qlib.sh - build the libFuzzer target for QuantLib's integer
# graphs (tests/onnx/fuzz_onnx.c -DFUZZ_QLIB: gen/qlib.c through gen/onnx.c) with ASan +
# UBSan and run it for $FUZZ_SECONDS (default 30), seeded with Deeploy's
# networks ($DEEPLOY_SEEDS, default ../shared/deeploy-tests), the QuantLib
# bad models and the zoo's power-of-two models ($HTC_ZOO, build/zoo), with
# tests/onnx/qlib.dict. Crashes land in build/fuzz-qlib/crash-*; reproduce
# one with build/fuzz-qlib/fuzz_qlib FILE.
set -eu
cd "$(dirname "$0")/../.."
SECONDS_=${FUZZ_SECONDS:-30}
CLANG=${CLANG:-clang}
out=build/fuzz-qlib
mkdir -p "$out/corpus"
make -s build/pb/onnx.pb-c.c
flags="-std=c11 -g -O1 -Wall -Wextra -Wno-unused-parameter -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Ibuild/pb"
$CLANG $flags -Ddie=util_die -DHTC_FUZZ_DIE -Dread_file=util_read_file -Wno-format-nonliteral -c gen/util.c -o "$out/util.o"
$CLANG $flags -c gen/onnx.c -o "$out/onnx.o"
$CLANG $flags -c gen/qlib.c -o "$out/qlib.o"
$CLANG $flags -c gen/npy.c -o "$out/npy.o"
$CLANG $flags -c gen/readopt.c -o "$out/readopt.o"
$CLANG $flags -c gen/lower.c -o "$out/lower.o"
$CLANG $flags -c gen/quant.c -o "$out/quant.o"
$CLANG $flags -w -c build/pb/onnx.pb-c.c -o "$out/onnx.pb-c.o"
$CLANG $flags -DFUZZ_QLIB -c tests/onnx/fuzz_onnx.c -o "$out/fuzz_qlib.o"
$CLANG $flags -o "$out/fuzz_qlib" "$out/fuzz_qlib.o" "$out/onnx.o" "$out/qlib.o" "$out/npy.o" "$out/readopt.o" "$out/lower.o" "$out/quant.o" "$out/onnx.pb-c.o" "$out/util.o" -lprotobuf-c -lm
seed="$out/seed"
rm -rf "$seed"
mkdir -p "$seed"
n=0
for f in "${DEEPLOY_SEEDS:-../shared/deeploy-tests}"/*/network.onnx; do
    [ -f "$f" ] || continue
    cp "$f" "$seed/$(basename "$(dirname "$f")").onnx"
    n=$((n + 1))
done
cp tests/onnx/bad/ql_*.onnx "$seed/"
for f in ${HTC_ZOO:-build/zoo}/*_pow2*.onnx; do
    [ -f "$f" ] && cp "$f" "$seed/"
done
[ "$n" -gt 0 ] || echo "qlib fuzz: note: no Deeploy networks under ${DEEPLOY_SEEDS:-../shared/deeploy-tests} (seeded with the bad models and the zoo only)"
set +e
"$out/fuzz_qlib" -max_total_time="$SECONDS_" -timeout=10 -max_len=2500000 -rss_limit_mb=2048 -detect_leaks=0 \
    -dict=tests/onnx/qlib.dict -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" "$seed" >"$out/fuzz.log" 2>&1
rc=$?
set -e
runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$out/fuzz.log" | grep -oE '[0-9]+$' || echo 0)
if [ "$rc" -eq 0 ]; then
    echo "qlib fuzz: 1 passed, 0 failed ($runs executions in ${SECONDS_}s, $(ls "$seed" | wc -l) seeds, no crash)"
else
    grep -vE '^(#[0-9]+|"|###)' "$out/fuzz.log" | tail -n 40
    echo "qlib fuzz: 0 passed, 1 failed"
    exit 1
fi
