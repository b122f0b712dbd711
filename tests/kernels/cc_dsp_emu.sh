#!/bin/sh
# cc_dsp_emu.sh - the host compiler building the Arm DSP paths of the kernels
# (HTC_DSP_EMU: each DSP instruction emulated in C), for CC=... of tests that
# compile generated headers (tests/test_ops.py, htc run).
exec ${HOST_CC:-cc} -DHTC_DSP_EMU "$@"
