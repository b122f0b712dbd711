#!/usr/bin/env bash
# tests/kernels/run.sh - unit tests of htc.h's fixed-point helpers, gen/quant.c
# and the kernels (under ASan/UBSan when available), then every kernel file
# compiled the way generated headers are: C99 pedantic, C++11, and for the
# embedded cross compilers when installed. Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
pass=0 fail=0

# 1. unit tests, once per code path: default (AVX2/SSE2 on x86), SSE2 only,
#    portable scalar
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
echo 'int main(void){return 0;}' >"$tmp/t.c"
$CC $san "$tmp/t.c" -o "$tmp/t" 2>/dev/null || san=""
for variant in "" "-DHTC_NO_AVX2" "-DHTC_NO_SIMD"; do
    echo "--- unit tests ${variant:-(default)}"
    if $CC -std=c11 -O1 -g -Wall -Wextra -Werror $san $variant tests/kernels/test_kernels.c gen/quant.c -lm -o "$tmp/test_kernels"; then
        "$tmp/test_kernels" | tee "$tmp/unit.log"
        rc=${PIPESTATUS[0]}
        line=$(tail -n 1 "$tmp/unit.log")
        p=$(echo "$line" | grep -oE '^[0-9]+'); f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
        pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
        [ "$rc" -eq 0 ] || [ "${f:-1}" -ne 0 ] || fail=$((fail + 1))
    else
        echo "FAIL: tests/kernels/test_kernels.c does not build ($variant)"
        fail=$((fail + 1))
    fi
done

# 2. every TFLite CPU kernel compiles warning-free, alone, after htc.h (the
#    accelerator device models and ONNX kernels have their own tests)
KERNELS="kernels/conv2d.c kernels/dwconv2d.c kernels/fc.c kernels/add.c kernels/mul.c kernels/pool.c
kernels/mean.c kernels/pad.c kernels/concat.c kernels/softmax.c kernels/logistic.c kernels/quantize.c"
check() {   # check LABEL COMPILER FLAGS...
    local label=$1 cc=$2; shift 2
    command -v "$cc" >/dev/null 2>&1 || { echo "skip $label: no $cc"; return; }
    local k
    for k in $KERNELS; do
        { echo '#include "htc.h"'; echo "#include \"$k\""; } >"$tmp/k.c"
        if "$cc" "$@" -I. -c "$tmp/k.c" -o "$tmp/k.o" 2>"$tmp/err"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL $label $k:"; head -n 5 "$tmp/err"
        fi
    done
}
W="-Wall -Wextra -Werror -O2"
check "c99" "$CC" -std=c99 -pedantic $W
check "c++11" "${CXX:-c++}" -x c++ -std=c++11 $W
check "arm-none-eabi" arm-none-eabi-gcc -std=c99 -pedantic -mcpu=cortex-m4 -mthumb $W
check "riscv64-unknown-elf" riscv64-unknown-elf-gcc --specs=picolibc.specs -std=c99 -pedantic -march=rv32imac -mabi=ilp32 $W
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
