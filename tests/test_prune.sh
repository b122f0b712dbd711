#!/usr/bin/env bash
# tests/test_prune.sh - the header pastes only what its layers reach
# (gen/prune.c): htc.h and every kernel file split into declarations (none
# pasted whole); the KWS header for targets/cpu.lua defines the entry
# points its layers call and not the others of the same files; parameter
# blocks carry field names and compile as C++20 (designated) too.
# Last line "N passed, N failed". Environment: HTC (default ./htc), HTC_MODELS, CC, CXX.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
CC=${CC:-gcc}
CXX=${CXX:-g++}
W=$(mktemp -d "${TMPDIR:-/tmp}/htc-prune-XXXXXX")
trap 'rm -rf "$W"' EXIT

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

if $CC -std=c11 -O1 -Igen -o "$W/split_check" tests/prune/split_check.c gen/prune.c gen/util.c -lm 2>"$W/cc.log"; then
    "$W/split_check" htc.h kernels/*.c 2>"$W/split.log"
    if [ -s "$W/split.log" ]; then bad "files the scanner cannot split:"; sed 's/^/       | /' "$W/split.log"
    else ok "htc.h and $(ls kernels/*.c | wc -l) kernel files split into declarations"; fi
else
    bad "build tests/prune/split_check.c"; sed 's/^/       | /' "$W/cc.log" | head
fi

h=$W/kws.h
if "$HTC" compile "$HTC_MODELS/kws_ref_model.tflite" -t targets/cpu.lua -o "$h" --name kws >"$W/htc.log" 2>&1; then
    defined() { grep -qE "^static [^=;(]*\\b$1\\(" "$h"; }
    for f in htc__conv2d_s8 htc__dwconv2d_s8 htc__avgpool_s8 htc__fc_s8 htc__softmax_s8 htc__conv_core htc__requant; do
        if defined "$f"; then ok "kws: $f pasted"; else bad "kws: $f (called) missing"; fi
    done
    for f in htc__qconv2d_s8 htc__ql_conv2d htc__conv2d_s8_par htc__qfc_s8 htc__matmul_s8 htc__maxpool_s8 htc__softmax_s8_s16; do
        if defined "$f"; then bad "kws: $f (not called) pasted"; else ok "kws: $f not pasted"; fi
    done
    if grep -q "HTC__F(in_h) 49, HTC__F(in_w) 10" "$h"; then ok "kws: parameter blocks by field name"
    else bad "kws: no named fields in the first layer's block"; fi
    if grep -qE "kws__(t[0-9]|p[0-9]|l[0-9])" "$h"; then bad "kws: numbered names (kws__tN, kws__pN, kws__lN) left"
    else ok "kws: no numbered constant, block or layer names"; fi
    if grep -q "^static const int8_t kws__conv2d_Conv2D\[2560\]" "$h"; then ok "kws: constants named after the tensors"
    else bad "kws: no constant kws__conv2d_Conv2D"; fi
    # issue 37: at most half of the 8,909 lines it had when filed (every
    # processor's paths); targets/cpu.lua's default isa is the portable C
    l=$(wc -l <"$h")
    if [ "$l" -le 4454 ]; then ok "kws: $l lines (<= 4,454, half of 8,909)"
    else bad "kws: $l lines, more than 4,454 (half of 8,909)"; fi
    cat >"$W/m.cpp" <<EOC
#include <stdint.h>
#define KWS_IMPLEMENTATION
#include "kws.h"
static uint8_t arena[KWS_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t in[KWS_INPUT_SIZE], out[KWS_OUTPUT_SIZE];
int main() { return kws_run(in, out, arena); }
EOC
    if $CXX -std=c++20 -Wall -Wextra -Werror -pedantic -O1 -I"$W" -o "$W/m" "$W/m.cpp" >"$W/cxx.log" 2>&1 && "$W/m"; then
        ok "kws: $CXX -std=c++20 (designated initializers), linked and run"
    else
        bad "kws: $CXX -std=c++20"; sed 's/^/       | /' "$W/cxx.log" | head
    fi
else
    bad "kws: htc compile"; sed 's/^/       | /' "$W/htc.log" | head
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
