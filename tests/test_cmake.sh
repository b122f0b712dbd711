#!/usr/bin/env bash
# tests/test_cmake.sh - the CMake integration (cmake/htc.cmake,
# examples/cmake): a firmware project that adds a model with htc_add_model()
#   host      configures, builds (htc runs as a build step), runs
#   oracle    its output bytes equal TFLite Micro's interpreter on the same input
#   regen     touching the target file regenerates the header; a second build
#             with nothing changed does not; touching a Lua file the target
#             includes (cpus/cortex-m4.lua) regenerates it too (htc --depfile)
#   figures   the build prints the header's arena, stack, RAM and flash
#             (MEASURE: htc --stack-cc with the project's compiler), equal
#             to the header's macros
#   m4        cross-builds with examples/cmake/cortex-m4.cmake, runs under
#             qemu-system-arm, "result:" lines equal the host's
#   install   `make install PREFIX=...` then a project using find_package(htc)
#             builds and gives the same output
#   errors    a missing model, an unknown target and a bad NAME stop cmake with
#             one message naming them
# Last line "N passed, N failed". Environment: HTC (default ./htc), HTC_MODELS.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HTC=${HTC:-./htc}
case $HTC in /*) ;; *) HTC=$ROOT/$HTC ;; esac
HTC_MODELS=${HTC_MODELS:-$(cd .. && pwd)/shared/models/mlperf_tiny}
case $HTC_MODELS in /*) ;; *) HTC_MODELS=$ROOT/$HTC_MODELS ;; esac
PY=${PYTHON:-$ROOT/.venv/bin/python}
W=$(mktemp -d "${TMPDIR:-/tmp}/htc-cmake-XXXXXX")
trap 'rm -rf "$W"' EXIT

pass=0 fail=0
ok()   { pass=$((pass + 1)); echo "ok   $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL $*"; }
show() { sed 's/^/       | /' "$1" | tail -n "${2:-15}"; }

for t in cmake arm-none-eabi-gcc qemu-system-arm; do
    command -v $t >/dev/null 2>&1 || bad "missing tool: $t (.ci/deps.sh installs it)"
done

# host (the target's includes next to it, so that the test can touch one)
cp targets/cpu.lua "$W/mycpu.lua"
cp -r targets/cpus "$W/cpus"
if cmake -S examples/cmake -B "$W/host" -DHTC_EXECUTABLE="$HTC" -DHTC_MODELS="$HTC_MODELS" \
        -DHTC_TARGET="$W/mycpu.lua" >"$W/host.log" 2>&1 &&
   cmake --build "$W/host" >>"$W/host.log" 2>&1 &&
   "$W/host/kws_cmake" --write-input "$W/in.bin" --write-output "$W/out.bin" >"$W/host.out" 2>&1; then
    ok "host: configured, built and ran"
else
    bad "host build or run"; show "$W/host.log"; show "$W/host.out"
fi

if [ -f "$W/out.bin" ] && "$PY" tests/tflm_run.py "$HTC_MODELS/kws_ref_model.tflite" "$W/in.bin" "$W/tflm.bin" >"$W/tflm.log" 2>&1 &&
   cmp -s "$W/out.bin" "$W/tflm.bin"; then
    ok "oracle: output equals TFLite Micro's ($(stat -c %s "$W/out.bin") bytes)"
else
    bad "oracle: output differs from TFLite Micro's or no output"; show "$W/tflm.log"
fi

# regeneration: nothing changed -> htc does not run; target touched -> it does
cmake --build "$W/host" >"$W/re1.log" 2>&1
sleep 1; touch "$W/mycpu.lua"
cmake --build "$W/host" >"$W/re2.log" 2>&1
if ! grep -q 'htc: ' "$W/re1.log" && grep -q 'htc: ' "$W/re2.log"; then
    ok "regen: header rebuilt only when its target file changed"
else
    bad "regen: unchanged build ran htc, or a touched target did not"; show "$W/re1.log" 5; show "$W/re2.log" 5
fi

sleep 1; touch "$W/cpus/cortex-m4.lua"
cmake --build "$W/host" >"$W/re3.log" 2>&1
if grep -q 'htc: ' "$W/re3.log"; then
    ok "regen: header rebuilt when a Lua file the target includes changed"
else
    bad "regen: touching cpus/cortex-m4.lua (included by the target) did not rebuild the header"; show "$W/re3.log" 5
fi

# the figures the build prints equal the header's macros
h=$W/host/htc/kws/kws.h
arena=$(sed -n 's/^#define KWS_ARENA_SIZE \([0-9]*\).*/\1/p' "$h" 2>/dev/null)
stack=$(sed -n 's/^#define KWS_STACK_SIZE_[A-Z0-9_]* \([0-9]*\).*/\1/p' "$h" 2>/dev/null | head -1)
flash=$(sed -n 's/^#define KWS_FLASH_SIZE_[A-Z0-9_]* \([0-9]*\).*/\1/p' "$h" 2>/dev/null | head -1)
if [ -n "$arena" ] && [ -n "$stack" ] && [ -n "$flash" ] && grep -q "htc: kws.h: arena $arena B" "$W/re3.log" &&
   grep -qE "htc: kws.h \([A-Z0-9_]+\): stack $stack B, RAM $((arena + stack)) B, flash $flash B \(code [0-9]+ \+ constants [0-9]+\)" "$W/re3.log" &&
   [ "$flash" -gt 24368 ]; then
    ok "figures: arena $arena B, stack $stack B, flash $flash B printed by the build (the header's macros)"
else
    bad "figures: the build's figures are missing or differ from the header's macros"; show "$W/re3.log" 8
fi

# Cortex-M4
if cmake -S examples/cmake -B "$W/m4" -DCMAKE_TOOLCHAIN_FILE="$ROOT/examples/cmake/cortex-m4.cmake" \
        -DHTC_EXECUTABLE="$HTC" -DHTC_MODELS="$HTC_MODELS" >"$W/m4.log" 2>&1 &&
   cmake --build "$W/m4" >>"$W/m4.log" 2>&1 &&
   grep -qE "htc: kws.h \(ARM_NONE_EABI_GCC\): stack [0-9]+ B, RAM [0-9]+ B, flash [0-9]+ B" "$W/m4.log" &&
   timeout 120 qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native \
        -kernel "$W/m4/kws_cmake" </dev/null >"$W/m4.out" 2>&1; then
    if [ "$(grep -c '^result:' "$W/m4.out")" -ge 2 ] &&
       diff <(grep '^result:' "$W/host.out") <(grep '^result:' "$W/m4.out") >/dev/null; then
        ok "m4: cross-built with the toolchain file, results equal the host's"
    else
        bad "m4: results differ from the host's"; show "$W/m4.out"
    fi
else
    bad "m4: build or qemu run failed"; show "$W/m4.log"; show "$W/m4.out" 5
fi

# make install + find_package(htc)
if make -s install PREFIX="$W/prefix" >"$W/inst.log" 2>&1; then
    mkdir -p "$W/proj"
    cp examples/cmake/main.c "$W/proj/"
    cat >"$W/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.13)
project(p C)
find_package(htc REQUIRED)
htc_add_model(kws_model MODEL "$HTC_MODELS/kws_ref_model.tflite" TARGET cpu NAME kws)
add_executable(p main.c)
target_link_libraries(p PRIVATE kws_model)
CM
    if cmake -S "$W/proj" -B "$W/proj/b" -DCMAKE_PREFIX_PATH="$W/prefix" >"$W/proj.log" 2>&1 &&
       grep -q "$W/prefix/bin/htc" "$W/proj/b/CMakeCache.txt" &&
       cmake --build "$W/proj/b" >>"$W/proj.log" 2>&1 &&
       "$W/proj/b/p" --write-output "$W/out2.bin" >/dev/null 2>&1 && cmp -s "$W/out.bin" "$W/out2.bin"; then
        ok "install: find_package(htc) uses the installed htc, same output"
    else
        bad "install: find_package project failed or differs"; show "$W/proj.log"
    fi
else
    bad "make install failed"; show "$W/inst.log"
fi

# configuration errors: one message naming the culprit
err_case() {   # err_case LABEL EXPECTED-REGEX htc_add_model-ARGS
    local label=$1 want=$2; shift 2
    mkdir -p "$W/e_$label"
    cat >"$W/e_$label/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.13)
project(e C)
include("$ROOT/cmake/htc.cmake")
htc_add_model(m $*)
CM
    if cmake -S "$W/e_$label" -B "$W/e_$label/b" -DHTC_EXECUTABLE="$HTC" >"$W/e_$label.log" 2>&1; then
        bad "errors: $label accepted"
    elif tr -s '\n ' '  ' <"$W/e_$label.log" | grep -qE "$want"; then
        ok "errors: $label refused ($(tr -s '\n ' '  ' <"$W/e_$label.log" | grep -oE "$want" | head -1))"
    else
        bad "errors: $label: message lacks /$want/"; show "$W/e_$label.log"
    fi
}
err_case nomodel "model .*/nope.tflite does not exist" MODEL nope.tflite TARGET cpu
err_case notarget "target nosuch is neither a file nor a bundled target" MODEL "$HTC_MODELS/kws_ref_model.tflite" TARGET nosuch
err_case badname "NAME '1x' is not a C identifier" MODEL "$HTC_MODELS/kws_ref_model.tflite" TARGET cpu NAME 1x

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
