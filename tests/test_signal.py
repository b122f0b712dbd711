"""test_signal.py - TFLite Micro's signal library (the custom Signal* operators
of its audio preprocessors, examples/micro_speech/models/audio_preprocessor_*
.tflite; issue 22), bit-exact against the tflite-micro interpreter, which
registers them. CI has no TFLM checkout, so the models are built here
(tests/tflite_build.py, options as flexbuffers): the micro_speech front end
(window, FFT auto scale, int16 real FFT, energy, mel filter bank, square
root, spectral subtraction, PCAN, log, then int32 arithmetic to int8) at
several sizes and FFT radices, each operator on full-range inputs, the noise
estimate carried over consecutive runs (NAME_KEEP_STATE), and a one-line
error naming the node for every malformed option.
"""
import os
import shutil
import subprocess

import numpy as np
import pytest
from flatbuffers import flexbuffers

import oracle
import tflite_build as tb
import test_ops
from test_rnn import stream

S = tb.S


def custom(m, code, inputs, outputs, options=None, raw=None):
    """A custom operator with its own operator code; options as a flexbuffer map
    (raw: the custom_options bytes as given)."""
    oc = S.OperatorCodeT()
    oc.deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
    oc.builtinCode = S.BuiltinOperator.CUSTOM
    oc.customCode = code
    oc.version = 1
    m.opcodes.append(oc)
    o = S.OperatorT()
    o.opcodeIndex = len(m.opcodes) - 1
    o.inputs = [int(i) for i in inputs]
    o.outputs = [int(i) for i in outputs]
    b = raw if raw is not None else (bytes(flexbuffers.Dumps(options)) if options is not None else b"")
    o.customOptions = list(b)
    o.customOptionsFormat = S.CustomOptionsFormat.FLEXBUFFERS
    m.operators.append(o)
    return outputs[0] if len(outputs) == 1 else outputs


SS_OPTS = dict(alternate_one_minus_smoothing=15729, alternate_smoothing=655, clamping=False, min_signal_remaining=819,
               num_channels=0, one_minus_smoothing=15401, smoothing=983, smoothing_bits=10,
               spectral_subtraction_bits=14)


def filter_bank_config(rng, n_bins, start, end, channels):
    """Channel frequency starts, weight starts and widths (channels + 1 of each,
    channel 0 the scratch one), increasing starts inside [start, end), weights
    and unweights (a triangle's two sides in 1/4096)."""
    edges = np.sort(rng.choice(np.arange(start, end - 1), size=channels + 1, replace=False))
    fstart, wstart, widths, w = [], [], [], []
    for i in range(channels + 1):
        f = int(edges[i])
        nxt = int(edges[i + 1]) if i < channels else min(f + 4, end)
        width = max(1, nxt - f)
        fstart.append(f)
        wstart.append(len(w))
        widths.append(width)
        w += [int(v) for v in rng.integers(0, 4097, size=width)]
    w = np.array(w, np.int16)
    return (np.array(fstart, np.int16), np.array(wstart, np.int16), np.array(widths, np.int16), w,
            (4096 - w.astype(np.int32)).astype(np.int16))


def pcan_lut(rng):
    """A gain table of TFLM's PCAN shape (125 entries: 3 small values, then
    (value, slope, curvature) per interval of the input's bit length), values in a range whose
    int32 steps do not overflow (TFLM's C++ leaves that undefined)."""
    lut = np.zeros(125, np.int16)
    lut[:3] = rng.integers(0, 32767, size=3)
    for i in range(6, 123, 4):      # interval b (3 .. 32) at 4 b - 6
        lut[i:i + 3] = [rng.integers(0, 32767), rng.integers(-4096, 4096), rng.integers(-4096, 4096)]
    return lut


def front_end(rng, frame=200, fft=256, channels=12, shift=12, ss=None, pcan_shift=6, log=(1, 64), window=None):
    """TFLM's micro_speech audio preprocessor (int8 variant), at any size."""
    m = tb.Model(description="htc test signal front end")
    x = m.input([1, frame], dtype="int16", name="audio")
    w = window if window is not None else rng.integers(0, 4096, size=frame).astype(np.int16)
    win = custom(m, "SignalWindow", [x, m.const(w, "int16", name="window")], [m.tensor([1, frame], "int16", name="win")],
                 dict(shift=shift))
    flat = m.reshape(win, [frame])
    scaled, bits = custom(m, "SignalFftAutoScale", [flat], [m.tensor([frame], "int16", name="scaled"),
                                                              m.tensor([], "int32", name="scale_bits")], {})
    nb = fft // 2 + 1
    spec = custom(m, "SignalRfft", [scaled], [m.tensor([2 * nb], "int16", name="spectrum")],
                  dict(T=int(S.TensorType.INT16), fft_length=fft))
    start, end = 3, nb - 5
    energy = custom(m, "SignalEnergy", [spec], [m.tensor([nb], "uint32", name="energy")],
                    dict(end_index=end, start_index=start))
    fstart, wstart, widths, wt, uw = filter_bank_config(rng, nb, start, end, channels)
    fb = custom(m, "SignalFilterBank", [energy, m.const(wt, "int16"), m.const(uw, "int16"), m.const(fstart, "int16"),
                                        m.const(wstart, "int16"), m.const(widths, "int16")],
                [m.tensor([channels], "uint64", name="fb")], dict(num_channels=channels))
    sq = custom(m, "SignalFilterBankSquareRoot", [fb, bits], [m.tensor([channels], "uint32", name="sqrt")], {})
    opts = dict(SS_OPTS, num_channels=channels, **(ss or {}))
    sub, noise = custom(m, "SignalFilterBankSpectralSubtraction", [sq],
                        [m.tensor([channels], "uint32", name="sub"), m.tensor([channels], "uint32", name="noise")], opts)
    pc = custom(m, "SignalPCAN", [sub, noise, m.const(pcan_lut(rng), "int16")], [m.tensor([channels], "uint32", name="pcan")],
                dict(snr_shift=pcan_shift))
    lg = custom(m, "SignalFilterBankLog", [pc], [m.tensor([channels], "int16", name="log")],
                dict(input_correction_bits=log[0], output_scale=log[1]))
    c = m.op("CAST", [lg], [m.tensor([channels], "int32")])
    c = m.op("MUL", [c, m.const(np.array(670, np.int32), "int32")], [m.tensor([channels], "int32")])
    c = m.op("ADD", [c, m.const(np.array(-12345, np.int32), "int32")], [m.tensor([channels], "int32")])
    c = m.op("DIV", [c, m.const(np.array(2560, np.int32), "int32")], [m.tensor([channels], "int32")])
    c = m.op("SUB", [c, m.const(np.array(128, np.int32), "int32")], [m.tensor([channels], "int32")])
    c = m.op("MINIMUM", [c, m.const(np.array(127, np.int32), "int32")], [m.tensor([channels], "int32")])
    c = m.op("MAXIMUM", [c, m.const(np.array(-128, np.int32), "int32")], [m.tensor([channels], "int32")])
    m.output(m.op("CAST", [c], [m.tensor([channels], "int8", name="features")]))
    return m


def audio_sets(info, rng, n=2):
    """Loud and quiet random frames (the auto scale 0 and above), silence,
    a tone, full negative scale."""
    shape = info.tensors[info.inputs[0]]["shape"]
    k = int(np.prod(shape))
    t = np.arange(k)
    sets = [[rng.integers(-32768, 32768, size=shape).astype(np.int16)] for _ in range(n)]
    sets += [[rng.integers(-a, a + 1, size=shape).astype(np.int16)] for a in (3, 60, 900)]
    sets += [[np.zeros(shape, np.int16)], [np.full(shape, -32768, np.int16)],
             [(8000 * np.sin(t * 0.37)).astype(np.int16).reshape(shape)]]
    return sets


FRONT_ENDS = {
    "micro_speech": dict(frame=480, fft=512, channels=40),
    "small": dict(),
    "radix_2_3_4_5": dict(frame=200, fft=240, channels=10),   # 120 = 4 * 2 * 3 * 5
    "radix_3_5": dict(frame=90, fft=90, channels=6, shift=10),  # 45 = 3 * 3 * 5
    "clamping": dict(ss=dict(clamping=True, smoothing_bits=4), pcan_shift=0, log=(3, 1 << 15)),
}


@pytest.mark.parametrize("case", sorted(FRONT_ENDS))
def test_front_end(case, tmp_path):
    """Every operator output of the front end on loud, quiet and extreme frames."""
    rng = np.random.default_rng(sorted(FRONT_ENDS).index(case) + 700)
    path = front_end(rng, **FRONT_ENDS[case]).save(str(tmp_path / ("fe_%s.tflite" % case)))
    info = oracle.ModelInfo(path)
    assert test_ops.check(path, audio_sets(info, rng)) > 0


def test_front_end_stream(tmp_path):
    """The spectral subtraction's noise estimate carried from run to run (as TFLM
    carries it over Invoke), twice with a reset between."""
    rng = np.random.default_rng(9)
    path = front_end(rng, ss=dict(smoothing=9000, alternate_smoothing=3000)).save(str(tmp_path / "fe.tflite"))
    info = oracle.ModelInfo(path)
    xs = [s[0] for s in audio_sets(info, rng, n=3)]
    ref = stream(path, xs, tmp_path)
    assert len({r.tobytes() for r in ref}) > 3


SAN_DRIVER = r"""
#define F_KEEP_STATE
#define F_IMPLEMENTATION
#include "f.h"
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    static unsigned char in[F_INPUT_SIZE], out[F_OUTPUT_SIZE];
    void *arena = aligned_alloc(F_ARENA_ALIGN, (F_ARENA_SIZE + F_ARENA_ALIGN - 1) / F_ARENA_ALIGN * F_ARENA_ALIGN);
    f_reset(arena);
    while (fread(in, 1, sizeof in, stdin) == sizeof in) {
        if (f_run(in, out, arena)) return 3;
        fwrite(out, 1, sizeof out, stdout);
    }
    return 0;
}
"""


def test_front_end_header(tmp_path):
    """The header of a front end (every signal kernel pasted) compiles warning-free
    as C99, C++11, for Cortex-M4 and RV32, and runs clean under ASan + UBSan on
    loud, quiet, silent and full-scale frames with the state kept."""
    rng = np.random.default_rng(11)
    path = front_end(rng, frame=200, fft=240, channels=10).save(str(tmp_path / "fe.tflite"))
    hdr = tmp_path / "f.h"
    oracle.htc("compile", path, "-t", oracle.TARGET, "-o", str(hdr), "--name", "f")
    (tmp_path / "a.c").write_text('#define F_IMPLEMENTATION\n#include "f.h"\nint f_dummy(void);\nint f_dummy(void) { return 0; }\n')
    (tmp_path / "a.cpp").write_text((tmp_path / "a.c").read_text())
    strict = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-c", "-o", os.devnull]
    cmds = [["gcc", "-std=c99"] + strict + [str(tmp_path / "a.c")], ["g++", "-std=c++11"] + strict + [str(tmp_path / "a.cpp")]]
    if shutil.which("arm-none-eabi-gcc"):
        cmds.append(["arm-none-eabi-gcc", "-std=c99", "-mcpu=cortex-m4", "-mthumb", "--specs=picolibc.specs"] + strict +
                    [str(tmp_path / "a.c")])
    if shutil.which("riscv64-unknown-elf-gcc"):
        cmds.append(["riscv64-unknown-elf-gcc", "-std=c99", "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32",
                     "--specs=picolibc.specs"] + strict + [str(tmp_path / "a.c")])
    for c in cmds:
        p = subprocess.run(c, cwd=tmp_path, capture_output=True, text=True)
        assert p.returncode == 0 and not p.stderr.strip(), "%s:\n%s" % (" ".join(c[:2]), p.stderr[:3000])
    (tmp_path / "d.c").write_text(SAN_DRIVER)
    exe = str(tmp_path / "d")
    subprocess.run(["gcc", "-std=c11", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    "-o", exe, str(tmp_path / "d.c")], cwd=tmp_path, check=True)
    info = oracle.ModelInfo(path)
    data = b"".join(s[0].tobytes() for s in audio_sets(info, rng, n=4)) * 3
    p = subprocess.run([exe], input=data, capture_output=True)
    assert p.returncode == 0 and not p.stderr, p.stderr.decode(errors="replace")[:3000]
    assert len(p.stdout) == 3 * 10 * 10


# ---- one operator at a time on full-range values ------------------------------------------

def one_op(code, ins, out_specs, options, consts=()):
    """A model of one signal operator: graph inputs ins [(shape, dtype)], constant
    inputs consts (after them), outputs out_specs [(shape, dtype)]."""
    m = tb.Model(description="htc test " + code)
    xs = [m.input(s, dtype=d) for s, d in ins] + [m.const(c, str(c.dtype)) for c in consts]
    outs = [m.tensor(s, d) for s, d in out_specs]
    custom(m, code, xs, outs, options)
    for o in outs:
        m.output(o)
    return m


def u32(rng, n):
    """uint32 values over every magnitude (and 0, 1, 2, 2^32 - 1)."""
    v = rng.integers(0, 1 << 32, size=n, dtype=np.uint64) >> rng.integers(0, 32, size=n).astype(np.uint64)
    v[:4] = [0, 1, 2, 0xffffffff]
    return v.astype(np.uint32)


def run_sets(path, sets):
    return test_ops.check(path, sets)


def test_sqrt_u64(tmp_path):
    rng = np.random.default_rng(1)
    n = 64
    path = one_op("SignalFilterBankSquareRoot", [([n], "uint64"), ([], "int32")], [([n], "uint32")], {}).save(
        str(tmp_path / "sqrt.tflite"))
    sets = []
    for bits in (0, 3, 15):
        v = rng.integers(0, 1 << 63, size=n, dtype=np.uint64) >> rng.integers(0, 63, size=n).astype(np.uint64)
        v[:6] = [0, 1, (1 << 32) - 1, 1 << 32, (1 << 64) - 1, (1 << 62) + 12345]
        sets.append([v, np.array(bits, np.int32)])
    assert run_sets(path, sets) == 3


def test_sqrt_const_u64(tmp_path):
    """A constant uint64 input (the header's unsigned long long initializers), scale bits at run time."""
    v = np.array([0, 1, 99, (1 << 32) - 1, 1 << 32, (1 << 63) + 5, (1 << 64) - 1, 12345678901234], np.uint64)
    m = tb.Model(description="htc test sqrt const")
    b = m.input([], dtype="int32")
    m.output(custom(m, "SignalFilterBankSquareRoot", [m.const(v, "uint64"), b], [m.tensor([8], "uint32")], {}))
    path = m.save(str(tmp_path / "sqrtc.tflite"))
    assert run_sets(path, [[np.array(k, np.int32)] for k in (0, 1, 31)]) == 3


def test_pcan_log_full_range(tmp_path):
    """PCAN and LOG on uint32 values of every magnitude."""
    rng = np.random.default_rng(2)
    n = 96
    m = tb.Model(description="htc test pcan log")
    x, noise = m.input([n], dtype="uint32"), m.input([n], dtype="uint32")
    pc = custom(m, "SignalPCAN", [x, noise, m.const(pcan_lut(rng), "int16")], [m.tensor([n], "uint32")], dict(snr_shift=6))
    for bits, scale in ((0, 64), (2, 1 << 20), (5, 7)):
        m.output(custom(m, "SignalFilterBankLog", [pc], [m.tensor([n], "int16")],
                        dict(input_correction_bits=bits, output_scale=scale)))
    path = m.save(str(tmp_path / "pcan.tflite"))
    sets = [[u32(rng, n) >> np.uint32(s), u32(rng, n)] for s in (0, 8, 20)]
    assert run_sets(path, sets) == 3 * 4


def test_energy_window_autoscale_edges(tmp_path):
    """Window saturation, -32768 in the auto scale, energy of full-scale bins."""
    rng = np.random.default_rng(3)
    n = 64
    m = tb.Model(description="htc test window")
    x = m.input([2, n], dtype="int16")
    w = custom(m, "SignalWindow", [x, m.const(rng.integers(-32768, 32768, size=n).astype(np.int16), "int16")],
               [m.tensor([2, n], "int16")], dict(shift=3))
    f = m.reshape(w, [2 * n])
    s, b = custom(m, "SignalFftAutoScale", [f], [m.tensor([2 * n], "int16"), m.tensor([], "int32")], {})
    e = custom(m, "SignalEnergy", [s], [m.tensor([n], "uint32")], dict(end_index=n, start_index=0))
    m.output(e)
    m.output(b)
    path = m.save(str(tmp_path / "win.tflite"))
    v = rng.integers(-32768, 32768, size=(2, n)).astype(np.int16)
    sets = [[v], [np.full((2, n), -32768, np.int16)], [(v // 4096).astype(np.int16)], [np.zeros((2, n), np.int16)]]
    v2 = np.zeros((2, n), np.int16)
    v2[0, 5] = -32768
    v2[1, 9] = 3
    sets.append([v2])
    assert run_sets(path, sets) > 0


def test_rfft_frames(tmp_path):
    """Several frames, shorter than the FFT (zero padding), full-scale input."""
    rng = np.random.default_rng(4)
    m = tb.Model(description="htc test rfft")
    x = m.input([3, 50], dtype="int16")
    m.output(custom(m, "SignalRfft", [x], [m.tensor([3, 2 * 33], "int16")], dict(T=int(S.TensorType.INT16), fft_length=64)))
    path = m.save(str(tmp_path / "rfft.tflite"))
    sets = [[rng.integers(-32768, 32768, size=(3, 50)).astype(np.int16)], [np.full((3, 50), -32768, np.int16)],
            [np.full((3, 50), 32767, np.int16)]]
    assert run_sets(path, sets) == 3


@pytest.mark.parametrize("length", [4, 6, 10, 18, 50, 1000, 2048])
def test_rfft_lengths(length, tmp_path):
    """kiss_fft's factorisations: 2, 3, 5, 3x3, 5x5, 4x5x5x5, 4^5; two frames each."""
    rng = np.random.default_rng(length)
    m = tb.Model(description="htc test rfft %d" % length)
    x = m.input([2, length], dtype="int16")
    m.output(custom(m, "SignalRfft", [x], [m.tensor([2, 2 * (length // 2 + 1)], "int16")], dict(T=7, fft_length=length)))
    path = m.save(str(tmp_path / "rfft.tflite"))
    sets = [[rng.integers(-32768, 32768, size=(2, length)).astype(np.int16)], [np.full((2, length), -32768, np.int16)],
            [rng.integers(-300, 300, size=(2, length)).astype(np.int16)]]
    assert run_sets(path, sets) == 3


def test_spectral_subtraction_stream(tmp_path):
    """Random smoothing parameters and inputs over consecutive runs."""
    rng = np.random.default_rng(5)
    n = 20
    opts = dict(SS_OPTS, num_channels=n, smoothing=4000, one_minus_smoothing=12384, alternate_smoothing=100,
                alternate_one_minus_smoothing=16284, min_signal_remaining=2000, clamping=True)
    m = tb.Model(description="htc test spectral subtraction")
    x = m.input([n], dtype="uint32")
    out, noise = m.tensor([n], "uint32"), m.tensor([n], "uint32")
    custom(m, "SignalFilterBankSpectralSubtraction", [x], [out, noise], opts)
    m.output(custom(m, "SignalPCAN", [out, noise, m.const(pcan_lut(rng), "int16")], [m.tensor([n], "uint32")],
                    dict(snr_shift=6)))
    path = m.save(str(tmp_path / "ss.tflite"))
    stream(path, [u32(rng, n) >> np.uint32(12) for _ in range(6)], tmp_path)


@pytest.mark.parametrize("delay", [0, 3, 16, 37])
def test_delay_stream(delay, tmp_path):
    """SignalDelay: two rows of 16 samples delayed by less, as many or more
    samples than a frame, over consecutive runs (twice, reset between)."""
    rng = np.random.default_rng(delay + 60)
    m = tb.Model(description="htc test delay")
    x = m.input([2, 16], dtype="int16")
    m.output(custom(m, "SignalDelay", [x], [m.tensor([2, 16], "int16")], dict(delay_length=delay)))
    path = m.save(str(tmp_path / "delay.tflite"))
    ref = stream(path, [rng.integers(-32768, 32768, size=(2, 16)).astype(np.int16) for _ in range(6)], tmp_path)
    assert not ref[0][:, :min(delay, 16)].any()       # the zeros of the reset delay line come first


@pytest.mark.parametrize("dtype,step", [("int16", 4), ("int16", 10), ("float32", 3)])
def test_overlap_add_stream(dtype, step, tmp_path):
    """SignalOverlapAdd: 2 rows of 3 frames of 10 samples (int16 sums saturate),
    frame_step samples out per frame, the running buffer over consecutive runs."""
    rng = np.random.default_rng(step + 80)
    m = tb.Model(description="htc test overlap add")
    x = m.input([2, 3, 10], dtype=dtype)
    ty = int(S.TensorType.INT16 if dtype == "int16" else S.TensorType.FLOAT32)
    m.output(custom(m, "SignalOverlapAdd", [x], [m.tensor([2, 3 * step], dtype)], dict(T=ty, frame_step=step)))
    path = m.save(str(tmp_path / "ola.tflite"))
    if dtype == "int16":
        xs = [rng.integers(-32768, 32768, size=(2, 3, 10)).astype(np.int16) for _ in range(5)]
    else:
        xs = [rng.uniform(-4, 4, size=(2, 3, 10)).astype(np.float32) for _ in range(5)]
    stream(path, xs, tmp_path)


# ---- malformed options and shapes: one line naming the node ----------------------------

def bad_model(tmp_path, code, options=None, raw=None, frame=16):
    """The operator `code` after a RESHAPE (index 1; after an energy: 2) with the given options."""
    m = tb.Model(description="htc bad signal")
    x = m.reshape(m.input([1, frame], dtype="int16"), [frame])
    if code == "SignalWindow":
        o = custom(m, code, [x, m.const(np.ones(frame, np.int16), "int16")], [m.tensor([frame], "int16")], options, raw)
    elif code == "SignalRfft":
        o = custom(m, code, [x], [m.tensor([frame + 2], "int16")], options, raw)
    elif code == "SignalEnergy":
        o = custom(m, code, [x], [m.tensor([frame // 2], "uint32")], options, raw)
    elif code == "SignalOverlapAdd":
        f = m.reshape(x, [frame // 4, 4])
        o = custom(m, code, [f], [m.tensor([frame // 4 * options.get("frame_step", 1)], "int16")], options, raw)
    elif code == "SignalDelay":
        o = custom(m, code, [x], [m.tensor([frame], "int16")], options, raw)
    else:
        e = custom(m, "SignalEnergy", [x], [m.tensor([frame // 2], "uint32")], dict(end_index=frame // 2, start_index=0))
        n = frame // 2
        if code == "SignalFilterBank":
            c = [m.const(np.array(v, np.int16), "int16") for v in ([1] * 4, [1] * 4, [0, 1, 2], [0, 1, 2], [1, 1, 1])]
            o = custom(m, code, [e] + c, [m.tensor([2], "uint64")], options, raw)
        elif code == "SignalFilterBankSpectralSubtraction":
            o = custom(m, code, [e], [m.tensor([n], "uint32"), m.tensor([n], "uint32")], options, raw)[0]
        elif code == "SignalPCAN":
            o = custom(m, code, [e, e, m.const(np.zeros(125, np.int16), "int16")], [m.tensor([n], "uint32")], options, raw)
        else:
            o = custom(m, code, [e], [m.tensor([n], "int16")], options, raw)
    m.output(o)
    return m.save(str(tmp_path / "bad.tflite"))


GOOD = {
    "SignalWindow": dict(shift=12),
    "SignalRfft": dict(T=int(S.TensorType.INT16), fft_length=16),
    "SignalEnergy": dict(end_index=8, start_index=0),
    "SignalFilterBank": dict(num_channels=2),
    "SignalFilterBankSpectralSubtraction": dict(SS_OPTS, num_channels=8),
    "SignalPCAN": dict(snr_shift=6),
    "SignalFilterBankLog": dict(input_correction_bits=1, output_scale=64),
    "SignalDelay": dict(delay_length=5),
    "SignalOverlapAdd": dict(T=7, frame_step=2),
}

BAD = [
    # (code, options or raw bytes, expected text)
    ("SignalWindow", b"", "corrupt flexbuffer (too short)"),
    ("SignalWindow", b"\x01\x02\x03\x04\x05\x24\x01", "corrupt flexbuffer"),
    ("SignalWindow", b"shift\x00\x01\x07\x01\x01\x01\x0c\x04\x02\x24", "corrupt flexbuffer (bad root width)"),
    ("SignalWindow", dict(shift=40), "option 'shift' is 40, expected 0 to 31"),
    ("SignalWindow", dict(shlft=3), "option 0 is not 'shift'"),
    ("SignalWindow", dict(shift="x"), "option 'shift' is not an integer"),
    ("SignalWindow", [12], "the root is not a map"),
    ("SignalRfft", dict(T=int(S.TensorType.INT32), fft_length=16), "htc has the int16 (T = 7) real FFT only"),
    ("SignalRfft", dict(T=7, fft_length=15), "fft_length 15 is odd"),
    ("SignalRfft", dict(T=7, fft_length=8), "longer than fft_length 8"),
    ("SignalRfft", dict(T=7), "option 'fft_length' missing"),
    ("SignalRfft", dict(T=7, fft_length=2), "option 'fft_length' is 2, expected 4 to 65536"),
    ("SignalEnergy", dict(end_index=20, start_index=0), "bins [0, 20) out of range"),
    ("SignalEnergy", dict(end_index=2, start_index=-1), "option 'start_index' is -1"),
    ("SignalFilterBank", dict(num_channels=5), "num_channels + 1 = 6 needed"),
    ("SignalFilterBank", dict(num_channels=0), "option 'num_channels' is 0"),
    ("SignalFilterBankSpectralSubtraction", dict(SS_OPTS, num_channels=3), "num_channels = 3 elements"),
    ("SignalFilterBankSpectralSubtraction", dict(SS_OPTS, num_channels=8, smoothing_bits=32),
     "option 'smoothing_bits' is 32"),
    ("SignalPCAN", dict(snr_shift=-2), "option 'snr_shift' is -2"),
    ("SignalFilterBankLog", dict(output_scale=5), "option 0 is not 'input_correction_bits'"),
    ("SignalDelay", dict(delay_length=-1), "option 'delay_length' is -1"),
    ("SignalDelay", dict(delay=3), "option 0 is not 'delay_length'"),
    ("SignalOverlapAdd", dict(T=7, frame_step=5), "frame_step 5 is larger than the frames (4 samples)"),
    ("SignalOverlapAdd", dict(T=9, frame_step=2), "T = 9: TFLite Micro's overlap-add is int16"),
    ("SignalOverlapAdd", dict(T=7, frame_step=0), "option 'frame_step' is 0"),
]


def test_good_options_compile(tmp_path):
    """The bad-input models below, with their options right, compile."""
    for code, opts in GOOD.items():
        path = bad_model(tmp_path, code, opts)
        p = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", str(tmp_path / "m.h"), check=False)
        assert p.returncode == 0, "%s: %s" % (code, p.stderr)


@pytest.mark.parametrize("k", range(len(BAD)))
def test_bad_options(k, tmp_path):
    code, opts, want = BAD[k]
    if isinstance(opts, bytes):
        path = bad_model(tmp_path, code, raw=opts)
    elif isinstance(opts, list):
        path = bad_model(tmp_path, code, raw=bytes(flexbuffers.Dumps(opts)))
    else:
        path = bad_model(tmp_path, code, opts)
    out = tmp_path / "m.h"
    p = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", str(out), check=False)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1 and lines[0].startswith("htc: error: "), p.stderr
    at = 1 if code in ("SignalWindow", "SignalRfft", "SignalEnergy", "SignalDelay") else 2
    assert "operator %d (CUSTOM '%s')" % (at, code) in lines[0], lines[0]
    assert want in lines[0], lines[0]
    assert not out.exists()


def test_radix_7_refused(tmp_path):
    """kiss_fft's generic radix needs scratch memory TFLM's build does not give it
    (its KISS_FFT_TMP_ALLOC returns NULL): TFLM cannot run it, htc says so."""
    m = tb.Model(description="htc rfft 14")
    x = m.input([14], dtype="int16")
    m.output(custom(m, "SignalRfft", [x], [m.tensor([16], "int16")], dict(T=7, fft_length=14)))
    path = m.save(str(tmp_path / "r7.tflite"))
    p = oracle.htc("compile", path, "-t", oracle.TARGET, "-o", str(tmp_path / "m.h"), check=False)
    assert p.returncode == 1 and "has the factor 7" in p.stderr and "cannot run it" in p.stderr, p.stderr


if __name__ == "__main__":
    # the fuzz corpus seed tests/fuzz/corpus/signal.tflite:
    #   .venv/bin/python tests/test_signal.py tests/fuzz/corpus/signal.tflite
    import sys
    front_end(np.random.default_rng(0), frame=24, fft=32, channels=3).save(sys.argv[1])
