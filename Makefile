# htc - build, test, bench, fuzz, install.
CC      ?= cc
PREFIX  ?= /usr/local
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wno-unused-parameter
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null)
LUA_LIBS   := $(shell pkg-config --libs lua5.4 2>/dev/null)
LPS_LIBS   := -llpsolve55 -lcolamd -ldl
DATADIR ?= $(CURDIR)
HTC_MODELS ?= $(abspath $(CURDIR)/../shared/models/mlperf_tiny)
export HTC_MODELS

.DEFAULT_GOAL := htc
GEN_SRCS := $(filter-out gen/main.c,$(wildcard gen/*.c))
GEN_HDRS := $(wildcard gen/*.h) htc.h
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# ONNX reader: C generated at build time by protoc-c from the onnx.proto of
# Debian's libonnx-dev (never committed); linked with libprotobuf-c.
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
PB_C := build/pb/onnx.pb-c.c
PB_FLAGS := -Ibuild/pb
PB_LIBS := -lprotobuf-c
$(PB_C): $(ONNX_PROTO)
	mkdir -p build/pb && cp $(ONNX_PROTO) build/pb/onnx.proto && cd build/pb && protoc-c --c_out=. onnx.proto

htc: gen/main.c $(GEN_SRCS) $(GEN_HDRS) $(PB_C)
	$(CC) $(CFLAGS) $(WARN) -DHTC_DATADIR='"$(DATADIR)"' $(LUA_CFLAGS) $(PB_FLAGS) -o $@ gen/main.c $(GEN_SRCS) $(PB_C) $(LUA_LIBS) $(LPS_LIBS) $(PB_LIBS) -lm

htc-asan: gen/main.c $(GEN_SRCS) $(GEN_HDRS) $(PB_C)
	$(CC) -O1 -g $(SAN) $(WARN) -DHTC_DATADIR='"$(DATADIR)"' $(LUA_CFLAGS) $(PB_FLAGS) -o $@ gen/main.c $(GEN_SRCS) $(PB_C) $(LUA_LIBS) $(LPS_LIBS) $(PB_LIBS) -lm

.PHONY: demo test test-asan bench bench-mcu deeploy-all tflm-suite fuzz clean install deps
deps:
	bash .ci/deps.sh all

# Quick start: the KWS model (int8 .tflite) as firmware on the CPU target,
# then the same model on a heterogeneous chip (targets/npu.lua: an NPU with
# TFLite's requantization + a Cortex-M class host) on the host virtual
# platform: per-layer engine and why, the device model's measured cycles,
# and the output equal to the CPU build's byte for byte.
demo:
	bash .ci/deps.sh c
	$(MAKE) htc
	$(MAKE) -C examples/kws host RUN_ARGS="--write-input $(CURDIR)/build/demo_in.bin --write-output $(CURDIR)/build/demo_cpu.bin"
	./htc report $(HTC_MODELS)/kws_ref_model.tflite -t targets/npu.lua
	./htc run $(HTC_MODELS)/kws_ref_model.tflite -t targets/npu.lua --input build/demo_in.bin --output build/demo_npu.bin
	cmp build/demo_cpu.bin build/demo_npu.bin && echo "demo: the NPU + host output equals the CPU build's, byte for byte"

test:
	bash .ci/deps.sh all
	$(MAKE) htc
	bash tests/run.sh

# The error paths and every model compile under ASan + UBSan.
test-asan: htc-asan
	HTC=./htc-asan bash tests/targets/test_targets.sh
	HTC=./htc-asan bash tests/bad/test_bad_models.sh
	HTC=./htc-asan bash tests/asan_models.sh

# The model readers and the .npy/.npz reader under libFuzzer (ASan + UBSan),
# FUZZ_SECONDS each (the ONNX one seeded with the whole quantized zoo, the
# QuantLib one with Deeploy's networks and the zoo's power-of-two models), then
# MUTANTS target-file mutants through the sanitizer build. CI runs a short
# version (.ci/run).
FUZZ_SECONDS ?= 600
MUTANTS ?= 2000
fuzz: htc-asan $(PB_C)
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh
	cd tests/onnx && $${PYTHON:-$(CURDIR)/.venv/bin/python} -c 'import ort_oracle as O; O.ensure_zoo()'
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/onnx/fuzz.sh
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/onnx/fuzz_qlib.sh
	HTC=./htc-asan python3 tests/targets/mutate.py -n $(MUTANTS)

install: htc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/htc
	$(CC) $(CFLAGS) $(WARN) -DHTC_DATADIR='"$(PREFIX)/share/htc"' $(LUA_CFLAGS) $(PB_FLAGS) -o $(DESTDIR)$(PREFIX)/bin/htc gen/main.c $(GEN_SRCS) $(PB_C) $(LUA_LIBS) $(LPS_LIBS) $(PB_LIBS) -lm
	cp -r htc.h kernels targets templates cmake $(DESTDIR)$(PREFIX)/share/htc/

clean:
	rm -rf htc htc-asan build

# Benchmarks: print compile time, host time per inference against the TFLite
# reference interpreter measured in the same run, arena and weight bytes; the
# AD model's Cortex-M4 instructions before and after TFLite Micro's FC; with
# GVSOC=DIR (an installed GVSoC) the MLPerf Tiny models on its Siracusa
# (bench_gvsoc.py, skipped with a line saying so without GVSOC).
bench:
	bash .ci/deps.sh all
	$(MAKE) htc
	$${PYTHON:-.venv/bin/python} bench/bench.py
	$${PYTHON:-.venv/bin/python} bench/bench_diana.py
	$${PYTHON:-.venv/bin/python} bench/bench_ad_fc.py
	$${PYTHON:-.venv/bin/python} bench/bench_deeploy.py
	$${PYTHON:-.venv/bin/python} bench/bench_sweep.py
	$${PYTHON:-.venv/bin/python} bench/bench_uma.py
	$${PYTHON:-.venv/bin/python} bench/bench_gvsoc.py
	$${PYTHON:-.venv/bin/python} bench/bench_ram.py
	$${PYTHON:-.venv/bin/python} bench/bench_pool.py
	$${PYTHON:-.venv/bin/python} bench/bench_scale.py

# MCU benchmark (bench/bench_mcu.py, harness bench/mcu): instructions per
# inference on Cortex-M4, Cortex-M55 (MVE beats too) and RV32 (qemu), flash and
# RAM, beside the recorded figures of TFLite Micro (reference and CMSIS-NN)
bench-mcu: htc
	$${PYTHON:-python3} bench/bench_mcu.py

# Every network of Deeploy's test tree (not in ../shared/deeploy-tests:
# CC-BY-ND, read in place from a clone) through htc run, bit-exact against
# its outputs.npz; prints a pass table. DEEPLOY_TESTS=<clone>/DeeployTest/Tests
deeploy-all: htc
	$${PYTHON:-.venv/bin/python} tests/deeploy_all.py

# Every .tflite of a TensorFlow Lite Micro checkout (not in this repository:
# read in place) through htc run and the tflite-micro interpreter on random
# inputs; prints exact / mismatch / refused (htc's reason) / crash per model
# next to TFLM's own status, and the table. TFLM_SRC=<clone of
# github.com/tensorflow/tflite-micro>
tflm-suite: htc
	TFLM_SRC=$(TFLM_SRC) $${PYTHON:-.venv/bin/python} tests/tflm_suite.py
