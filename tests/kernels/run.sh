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
#    portable scalar, the Arm DSP path emulated on the host
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
echo 'int main(void){return 0;}' >"$tmp/t.c"
$CC $san "$tmp/t.c" -o "$tmp/t" 2>/dev/null || san=""
for variant in "" "-DHTC_NO_AVX2" "-DHTC_NO_SIMD" "-DHTC_DSP_EMU" "-DHTC_XPULPV2"; do
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

# 2. the code paths against each other (tests/kernels/diff_kernels.c): the
#    same random cases through the portable path (the reference: TFLite
#    equality is tested end to end by tests/test_ops.py), SSE2/AVX2, the DSP
#    path emulated on the host (ASan/UBSan), the DSP path on Cortex-M4, the
#    Helium (MVE) path on Cortex-M55 and the portable path on RV32 under
#    qemu; every case's output hash must match
echo "--- code paths against each other"
M4_LD="-Wl,--defsym=__flash=0x0,--defsym=__flash_size=0x400000 -Wl,--defsym=__ram=0x20000000,--defsym=__ram_size=0x400000"
M55_LD="-Wl,--defsym=__flash=0x10000000,--defsym=__flash_size=0x80000 -Wl,--defsym=__ram=0x30000000,--defsym=__ram_size=0x80000"
RV_LD="-Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x400000 -Wl,--defsym=__ram=0x80400000,--defsym=__ram_size=0x1000000"
PICO="--specs=picolibc.specs --oslib=semihost --crt0=semihost"
SEMI="-semihosting-config enable=on,target=native"
diffpath() {   # diffpath LABEL RUNNER COMPILER FLAGS...
    local label=$1 runner=$2 cc=$3; shift 3
    command -v "$cc" >/dev/null 2>&1 || { echo "FAIL $label: no $cc"; fail=$((fail + 1)); return; }
    if ! "$cc" "$@" -o "$tmp/dk_$label" tests/kernels/diff_kernels.c gen/quant.c -lm 2>"$tmp/err"; then
        echo "FAIL $label: diff_kernels.c does not build"; head -n 5 "$tmp/err"; fail=$((fail + 1)); return
    fi
    case $runner in
        host) "$tmp/dk_$label" >"$tmp/dk_$label.txt" 2>&1 ;;
        m4) timeout 600 qemu-system-arm -M mps2-an386 -nographic $SEMI -kernel "$tmp/dk_$label" </dev/null >"$tmp/dk_$label.txt" 2>&1 ;;
        m55) timeout 600 qemu-system-arm -M mps3-an547 -nographic $SEMI -kernel "$tmp/dk_$label" </dev/null >"$tmp/dk_$label.txt" 2>&1 ;;
        rv32) timeout 600 qemu-system-riscv32 -M virt -bios none -nographic $SEMI -kernel "$tmp/dk_$label" </dev/null >"$tmp/dk_$label.txt" 2>&1 ;;
    esac
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $label: exit $rc"; tail -n 5 "$tmp/dk_$label.txt"; fail=$((fail + 1))
    elif [ "$label" = portable ]; then
        echo "ok   $label: $(wc -l <"$tmp/dk_$label.txt") cases"; pass=$((pass + 1))
    elif cmp -s "$tmp/dk_portable.txt" "$tmp/dk_$label.txt"; then
        echo "ok   $label: $(wc -l <"$tmp/dk_$label.txt") cases equal the portable path's"; pass=$((pass + 1))
    else
        echo "FAIL $label: outputs differ from the portable path's:"
        diff "$tmp/dk_portable.txt" "$tmp/dk_$label.txt" | head -n 6; fail=$((fail + 1))
    fi
}
diffpath portable host "$CC" -std=c99 -O2 -Wall -Wextra -Werror $san -DHTC_NO_SIMD
diffpath default host "$CC" -std=c99 -O2 -Wall -Wextra -Werror $san
# (the DSP path with a small depthwise plane: path P in several bands)
diffpath dsp-emu host "$CC" -std=c99 -O2 -Wall -Wextra -Werror $san -DHTC_DSP_EMU -DHTC__DSP_DWPLANE=48
# the XpulpV2 paths with each instruction's C twin (htc.h HTC__XP; the
# instructions themselves run on GVSoC: examples/siracusa, make diffkernels)
diffpath xpulpv2-twin host "$CC" -std=c99 -O2 -Wall -Wextra -Werror $san -DHTC_XPULPV2
diffpath dsp-m4 m4 arm-none-eabi-gcc -std=c99 -O2 -Wall -Wextra -Werror -mcpu=cortex-m4 -mthumb $PICO $M4_LD
diffpath mve-m55 m55 arm-none-eabi-gcc -std=c99 -O2 -Wall -Wextra -Werror -mcpu=cortex-m55 -mthumb -mfloat-abi=hard $PICO $M55_LD
diffpath portable-rv32 rv32 riscv64-unknown-elf-gcc -std=c99 -O2 -Wall -Wextra -Werror -march=rv32imc -misa-spec=2.2 -mabi=ilp32 $PICO $RV_LD

# 2b. htc.h's integer emulation of onnxruntime's float arithmetic (the
#    HTC_SOFT_FLOAT_EXACT path of FPU-less cores) against the float code: on
#    the host (sanitizers, then the larger sizes), and where it is the active
#    path, RV32IMC and Cortex-M3 under qemu against libgcc's soft float
echo "--- integer emulation of onnxruntime's float arithmetic"
softf() {   # softf LABEL RUNNER COMPILER FLAGS...
    local label=$1 runner=$2 cc=$3; shift 3
    command -v "$cc" >/dev/null 2>&1 || { echo "FAIL softfloat $label: no $cc"; fail=$((fail + 1)); return; }
    if ! "$cc" "$@" -o "$tmp/sf_$label" tests/kernels/test_softfloat.c 2>"$tmp/err"; then
        echo "FAIL softfloat $label: test_softfloat.c does not build"; head -n 5 "$tmp/err"; fail=$((fail + 1)); return
    fi
    case $runner in
        host) "$tmp/sf_$label" >"$tmp/sf.txt" 2>&1 ;;
        m3) timeout 600 qemu-system-arm -M mps2-an385 -nographic $SEMI -kernel "$tmp/sf_$label" </dev/null >"$tmp/sf.txt" 2>&1 ;;
        rv32) timeout 600 qemu-system-riscv32 -M virt -bios none -nographic $SEMI -kernel "$tmp/sf_$label" </dev/null >"$tmp/sf.txt" 2>&1 ;;
    esac
    local rc=$?
    if [ "$rc" -eq 0 ] && tail -n 1 "$tmp/sf.txt" | grep -q '^1 passed, 0 failed'; then
        echo "ok   softfloat $label: $(tail -n 2 "$tmp/sf.txt" | head -n 1)"; pass=$((pass + 1))
    else
        echo "FAIL softfloat $label (exit $rc):"; tail -n 12 "$tmp/sf.txt"; fail=$((fail + 1))
    fi
}
softf host-san host "$CC" -std=c99 -O1 -g -Wall -Wextra -Werror $san -DTEST_QUICK
softf host host "$CC" -std=c99 -O2 -Wall -Wextra -Werror
softf host-int host "$CC" -std=c99 -O2 -Wall -Wextra -Werror -DHTC_SOFT_FLOAT_EXACT=1 -DTEST_QUICK
softf rv32imc rv32 riscv64-unknown-elf-gcc -std=c99 -O2 -Wall -Wextra -Werror -march=rv32imc -misa-spec=2.2 -mabi=ilp32 $PICO $RV_LD -DTEST_QUICK
softf cortex-m3 m3 arm-none-eabi-gcc -std=c99 -O2 -Wall -Wextra -Werror -mcpu=cortex-m3 -mthumb $PICO $M4_LD -DTEST_QUICK

# 3. every TFLite CPU kernel compiles warning-free, alone, after htc.h (the
#    accelerator device models and ONNX kernels have their own tests)
KERNELS="kernels/conv2d.c kernels/fc.c kernels/add.c kernels/mul.c kernels/pool.c
kernels/mean.c kernels/pad.c kernels/concat.c kernels/softmax.c kernels/table.c kernels/quantize.c
kernels/binary.c kernels/transpose_conv.c kernels/resize.c kernels/move.c kernels/reduce.c kernels/float.c"
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
check "arm-none-eabi -O0" arm-none-eabi-gcc -std=c99 -pedantic -mcpu=cortex-m4 -mthumb -Wall -Wextra -Werror -O0
check "arm-none-eabi c++" arm-none-eabi-g++ -x c++ -std=c++11 -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 $W
check "arm-none-eabi m55" arm-none-eabi-gcc -std=c99 -pedantic -mcpu=cortex-m55 -mthumb -mfloat-abi=hard $W
check "arm-none-eabi m55 c++" arm-none-eabi-g++ -x c++ -std=c++11 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard $W
check "arm-none-eabi m0" arm-none-eabi-gcc -std=c99 -pedantic -mcpu=cortex-m0 -mthumb $W
check "dsp-emu c99" "$CC" -std=c99 -pedantic -DHTC_DSP_EMU $W
check "dsp-emu c++11" "${CXX:-c++}" -x c++ -std=c++11 -DHTC_DSP_EMU $W
check "riscv64-unknown-elf" riscv64-unknown-elf-gcc --specs=picolibc.specs -std=c99 -pedantic -march=rv32imac -mabi=ilp32 $W
check "xpulpv2 twin c99" "$CC" -std=c99 -pedantic -DHTC_XPULPV2 $W
check "xpulpv2 twin c++11" "${CXX:-c++}" -x c++ -std=c++11 -DHTC_XPULPV2 $W
check "xpulpv2 rv32" riscv64-unknown-elf-gcc --specs=picolibc.specs -std=c99 -pedantic -march=rv32imc -misa-spec=2.2 -mabi=ilp32 -DHTC_XPULPV2 $W
check "xpulpv2 rv32 c++" riscv64-unknown-elf-g++ --specs=picolibc.specs -x c++ -std=c++11 -march=rv32imc -misa-spec=2.2 -mabi=ilp32 -DHTC_XPULPV2 $W
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
