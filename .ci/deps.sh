#!/usr/bin/env bash
# .ci/deps.sh [c|all] - install what htc needs on Debian/Ubuntu: "c" the
# libraries to build htc; "all" also cross compilers, qemu and the test venv.
set -eu
what=${1:-all}
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
pkgs="build-essential pkg-config liblua5.4-dev lua5.4 liblpsolve55-dev libonnx-dev libprotobuf-c-dev protobuf-c-compiler"
[ "$what" = all ] && pkgs="$pkgs python3-venv gcc-arm-none-eabi gcc-riscv64-unknown-elf \
  picolibc-arm-none-eabi picolibc-riscv64-unknown-elf qemu-system-arm qemu-system-misc \
  clang libclang-rt-14-dev chromium cmake"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
if [ "$what" = all ] && ! .venv/bin/python -c "import tflite_micro, ai_edge_litert, numpy, pytest, onnx, onnxruntime" 2>/dev/null; then
    echo "creating .venv (tflite-micro, ai-edge-litert, onnx, onnxruntime, numpy, pytest)"
    python3 -m venv .venv
    .venv/bin/pip install -q --upgrade pip
    # the oracles are pinned: bit-exactness is checked against these versions
    .venv/bin/pip install -q tflite-micro==0.dev20261023182759 ai-edge-litert==2.3.0 onnx==1.23.2 onnxruntime==1.31.1 numpy pytest
fi
# the engine tools/sweep_dask.py runs sweep shards on (tests/test_sweep_scale.py:
# a LocalCluster of 2 workers); dask-jobqueue for Slurm clusters (--slurm; the
# test prints its job script, no Slurm here: docs/sweep.md)
if [ "$what" = all ] && ! .venv/bin/python -c "import dask, distributed, dask_jobqueue" 2>/dev/null; then
    echo "installing dask, distributed, dask-jobqueue into .venv"
    .venv/bin/pip install -q dask==2026.8.0 distributed==2026.8.0 dask-jobqueue==0.9.0
fi
