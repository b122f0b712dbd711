#!/usr/bin/env bash
# tests/test_header_compile.sh - the generated header of every MLPerf Tiny
# model compiles warning-free (-Wall -Wextra -Werror -pedantic) with:
#   gcc      -std=c99      (linked and run on a fixed input, with a second
#                           file that includes the header without
#                           IMPLEMENTATION, and with all hooks overridden)
#   g++      -std=c++11    (the header included from C++, same program)
#   arm-none-eabi-gcc       -std=c99 -mcpu=cortex-m4 -mthumb -c
#   riscv64-unknown-elf-gcc -std=c99 -march=rv32imc -misa-spec=2.2 -mabi=ilp32 -c
# and two different models' headers, both with IMPLEMENTATION, link into one
# program (C and C++) without clashes. Last line "N passed, N failed".
# Environment: HTC (default ./htc), HTC_MODELS, CC, CXX, OPT (default -O2).
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
CC=${CC:-gcc}
CXX=${CXX:-g++}
TARGET=targets/cpu.lua
W=$(mktemp -d "${TMPDIR:-/tmp}/htc-hdr-XXXXXX")
trap 'rm -rf "$W"' EXIT

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
OPT=${OPT:--O2}           # e.g. OPT=-O3 or OPT=-Os: warnings depend on the optimiser
STRICT=(-Wall -Wextra -Werror -pedantic $OPT)
ARM=(arm-none-eabi-gcc -std=c99 "${STRICT[@]}" -mcpu=cortex-m4 -mthumb --specs=picolibc.specs -c)
RV=(riscv64-unknown-elf-gcc -std=c99 "${STRICT[@]}" -march=rv32imc -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs -c)

check() {   # check NAME LOG COMMAND...: passes when COMMAND succeeds silently
    local name=$1 log=$2; shift 2
    if "$@" >"$log" 2>&1 && [ ! -s "$log" ]; then
        ok "$name"
    else
        bad "$name"; sed 's/^/       | /' "$log" | head -n 25
    fi
}

# main for one model: the header with IMPLEMENTATION, hooks overridden so
# that every argument is used (as firmware does), one run on a fixed input.
write_main() {   # write_main NAME FILE
    local n=$1 N; N=$(echo "$1" | tr a-z A-Z)
    cat >"$2" <<EOC
#include <stdint.h>
#include <string.h>
static unsigned long hook_calls;
static unsigned long hook_bytes;
static void trace(const char *model, int layer, int tensor, const void *data, unsigned long bytes)
{
    hook_calls += (unsigned long)(model[0] + layer + tensor + (data != 0));
    hook_bytes += bytes;
}
static void prof(const char *model, int layer, const char *name)
{
    hook_calls += (unsigned long)(model[0] + layer + name[0]);
}
#define HTC_TRACE(model, layer, tensor, data, bytes) trace((model), (layer), (tensor), (data), (bytes))
#define HTC_PROFILE_BEGIN(model, layer, name) prof((model), (layer), (name))
#define HTC_PROFILE_END(model, layer, name) prof((model), (layer), (name))
#define ${N}_IMPLEMENTATION
#include "$n.h"
#include "$n.h"   /* a second include must be harmless */

int ${n}_other(void);
static uint8_t arena[${N}_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t in[${N}_INPUT_SIZE], out[${N}_OUTPUT_SIZE];

int main(void)
{
    int rc;
    memset(in, 7, sizeof in);
    rc = ${n}_run(in, out, arena);
    if (rc != 0 || hook_calls == 0 || hook_bytes == 0) return 1;
    return ${n}_other();
}
EOC
    # a second translation unit: the declarations alone, the default hooks
    cat >"${2%.*}_other.${2##*.}" <<EOC
#include "$n.h"
typedef int (*run_fn)(const void *, void *, void *);
typedef int (*run_multi_fn)(const void *const *, void *const *, void *);
int ${n}_other(void)
{
    run_fn r = ${n}_run;
    run_multi_fn m = ${n}_run_multi;
    return (r && m && ${N}_ARENA_SIZE > 0 && ${N}_NUM_INPUTS > 0 && ${N}_NUM_OUTPUTS > 0
            && ${N}_INPUT_SIZE_0 > 0 && ${N}_OUTPUT_SIZE_0 > 0) ? 0 : 2;
}
EOC
}

headers=""
# NAME:MODEL[:TARGET]; npu: an accelerator target (device model pasted in)
for spec in kws:kws_ref_model vww:vww_96_int8 ic:pretrainedResnet_quant ad:ad01_int8 npu:vww_96_int8:targets/npu.lua; do
    IFS=: read -r n m tgt <<<"$spec"
    model=$HTC_MODELS/$m.tflite
    d=$W/$n; mkdir -p "$d"
    echo "--- $n"
    if ! "$HTC" compile "$model" -t "${tgt:-$TARGET}" -o "$d/$n.h" --name "$n" >"$d/htc.log" 2>&1; then
        bad "$n: htc compile"; sed 's/^/       | /' "$d/htc.log" | head; continue
    fi
    ok "$n: htc compile ($(wc -c <"$d/$n.h") bytes)"
    headers="$headers $n"
    write_main "$n" "$d/main.c"
    cp "$d/main.c" "$d/main.cpp"; cp "$d/main_other.c" "$d/main_other.cpp"
    check "$n: $CC -std=c99, linked and run" "$d/gcc.log" \
        bash -c "$CC -std=c99 ${STRICT[*]} -I'$d' -o '$d/c' '$d/main.c' '$d/main_other.c' && '$d/c'"
    check "$n: $CXX -std=c++11, linked and run" "$d/gxx.log" \
        bash -c "$CXX -std=c++11 ${STRICT[*]} -I'$d' -o '$d/cxx' '$d/main.cpp' '$d/main_other.cpp' && '$d/cxx'"
    check "$n: arm-none-eabi-gcc -mcpu=cortex-m4" "$d/arm.log" "${ARM[@]}" -I"$d" -o "$d/arm.o" "$d/main.c"
    check "$n: riscv64-unknown-elf-gcc rv32imc" "$d/rv.log" "${RV[@]}" -I"$d" -o "$d/rv.o" "$d/main.c"
done

# Two models in one program, both implementations in the same file.
set -- $headers
if [ $# -ge 2 ]; then
    a=$1 b=$2 A=$(echo "$1" | tr a-z A-Z) B=$(echo "$2" | tr a-z A-Z)
    d=$W/two; mkdir -p "$d"; cp "$W/$a/$a.h" "$W/$b/$b.h" "$d/"
    cat >"$d/two.c" <<EOC
#include <stdint.h>
#define ${A}_IMPLEMENTATION
#include "$a.h"
#define ${B}_IMPLEMENTATION
#include "$b.h"
static uint8_t arena_a[${A}_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t arena_b[${B}_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t in_a[${A}_INPUT_SIZE], out_a[${A}_OUTPUT_SIZE];
static uint8_t in_b[${B}_INPUT_SIZE], out_b[${B}_OUTPUT_SIZE];
int main(void)
{
    return ${a}_run(in_a, out_a, arena_a) != 0 || ${b}_run(in_b, out_b, arena_b) != 0;
}
EOC
    cp "$d/two.c" "$d/two.cpp"
    echo "--- $a + $b in one program"
    check "$a + $b: $CC -std=c99, linked and run" "$d/gcc.log" \
        bash -c "$CC -std=c99 ${STRICT[*]} -I'$d' -o '$d/c' '$d/two.c' && '$d/c'"
    check "$a + $b: $CXX -std=c++11, linked and run" "$d/gxx.log" \
        bash -c "$CXX -std=c++11 ${STRICT[*]} -I'$d' -o '$d/cxx' '$d/two.cpp' && '$d/cxx'"
    check "$a + $b: arm-none-eabi-gcc -mcpu=cortex-m4" "$d/arm.log" "${ARM[@]}" -I"$d" -o "$d/arm.o" "$d/two.c"
else
    bad "two models in one program: fewer than two headers were generated"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
