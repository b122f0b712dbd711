"""test_detect.py - TFLite_Detection_PostProcess (SSD post-processing)
equals TFLite Micro's kernel (the tflite-micro interpreter), every byte of
the float outputs, on tests/detect/ssd_fast.tflite (fast non-max
suppression) and ssd_regular.tflite (regular, per class), 12 random inputs
each; tests/detect/make_ssd.py writes both byte for byte.

The fast path leaves the entries past the detections unwritten in TFLM
(htc writes 0 there): those are compared up to the number of detections;
the regular path writes every entry, compared whole.

tests/detect/ssd_u8.tflite is uint8 throughout, as TF1's quantized SSD
(its post-processing reads uint8 box encodings, scores and anchors): TFLM
refuses it, LiteRT's reference kernels (BUILTIN_REF) dequantize them and
are its oracle.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import oracle

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "detect")
MODELS = ("ssd_fast", "ssd_regular", "ssd_u8")


def test_models_reproducible(tmp_path):
    subprocess.run([sys.executable, os.path.join(DIR, "make_ssd.py"), str(tmp_path)], check=True)
    for name in MODELS:
        with open(os.path.join(DIR, name + ".tflite"), "rb") as a, open(os.path.join(tmp_path, name + ".tflite"), "rb") as b:
            assert a.read() == b.read(), name


@pytest.mark.parametrize("name", MODELS[:2])
def test_detect_tflm(name):
    path = os.path.join(DIR, name + ".tflite")
    info = oracle.ModelInfo(path)
    sets = [[np.random.default_rng(s).integers(-128, 128, size=info.tensors[i]["shape"]).astype(np.int8)
             for i in info.inputs] for s in range(12)]
    got = oracle.run_htc_batch(path, sets)
    counts = []
    for inputs, (outs, _) in zip(sets, got):
        ref, _ = oracle.run_interpreter(path, inputs)
        assert len(outs) == 4 and all(o.dtype == np.float32 for o in outs)
        n = int(ref[3][0])
        counts.append(n)
        assert outs[3].tobytes() == ref[3].tobytes(), (outs[3], ref[3])
        whole = name == "ssd_regular"
        for k in range(3):
            w = ref[k].reshape(-1).view(np.uint32)
            h = outs[k].reshape(-1).view(np.uint32)
            m = w.size if whole else n * (4 if k == 0 else 1)
            assert np.array_equal(w[:m], h[:m]), "%s output %d differs (%d detections)" % (name, k, n)
    # the inputs give different numbers of detections, some below the maximum
    assert len(set(counts)) >= 3 and min(counts) < 24, counts


def test_detect_u8_litert():
    path = os.path.join(DIR, "ssd_u8.tflite")
    info = oracle.ModelInfo(path)
    sets = [[np.random.default_rng(s).integers(0, 256, size=info.tensors[i]["shape"]).astype(np.uint8)
             for i in info.inputs] for s in range(12)]
    got = oracle.run_htc_batch(path, sets)
    counts = []
    for inputs, (outs, _) in zip(sets, got):
        ref, _ = oracle.run_litert(path, inputs)
        n = int(ref[3][0])
        counts.append(n)
        assert outs[3].tobytes() == ref[3].tobytes(), (outs[3], ref[3])
        for k in range(3):
            m = n * (4 if k == 0 else 1)
            w = ref[k].reshape(-1).view(np.uint32)[:m]
            assert np.array_equal(w, outs[k].reshape(-1).view(np.uint32)[:m]), "output %d differs (%d detections)" % (k, n)
    assert len(set(counts)) >= 3 and min(counts) > 0, counts
