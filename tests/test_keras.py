"""test_keras.py - the Keras model zoo (tests/keras/models, written by
tests/keras/make_models.py with TensorFlow's TFLiteConverter) compiles and
is bit-exact with TFLite Micro on several inputs, on the outputs and on
every operator's output tensor.

Oracle, per model:
- "tflm": the tflite-micro interpreter runs the whole model
  (oracle.run_interpreter, kPreserveAllTensors).
- "piecewise": the interpreter cannot run the model whole, or runs it on
  the wrong shapes: an operator TFLM lacks (GELU, TILE), or a dynamic
  batch whose shapes the converter stored as placeholders (TFLM's RESHAPE,
  SPACE_TO_BATCH_ND, ... use the stored shapes: the TCN's dilated
  convolutions, computed by TFLM on the stored batch of 1 instead of the
  block's 2, come out wrong; the transformer's Dense layers on 3-D inputs
  do not allocate). tests/piecewise.py runs it one operator at a time:
  TFLM's kernels, ai-edge-litert's reference kernels for the operators TFLM
  lacks (the test checks which ones those are), ai-edge-litert for every
  tensor's shape.
The integer shape arithmetic (SHAPE, GATHER/STRIDED_SLICE/REDUCE_PROD/PACK/
CONCATENATION on int32) htc evaluates at compile time: those operators are
not run and not compared; the test checks they are exactly the ones whose
outputs are int32 shapes computed from constants and SHAPE.

Each model's header is compiled once; one process runs every input set.
"""
import os

import numpy as np
import pytest

import oracle
import piecewise

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras", "models")
SEEDS = (0, 1, 2)

# model -> (oracle, operators ai-edge-litert computes in the piecewise oracle)
ZOO = {
    "autoencoder": ("tflm", ()),
    "ds_cnn": ("tflm", ()),
    "mobilenet_v2_035": ("tflm", ()),
    "mobilenet_v3_small": ("tflm", ()),
    "unet_transpose": ("tflm", ()),
    "unet_bilinear": ("tflm", ()),
    "unet_resize": ("tflm", ()),
    # recurrent: fused UNIDIRECTIONAL_SEQUENCE_LSTM (Keras 2 LSTM), and GRU / SimpleRNN with
    # unroll=True (plain FULLY_CONNECTED, LOGISTIC, TANH, MUL, ADD, SUB per step)
    "lstm_kws": ("tflm", ()),
    "lstm_batch2": ("tflm", ()),
    "lstm_bidir": ("tflm", ()),
    "lstm_unrolled": ("tflm", ()),
    "gru_unrolled": ("tflm", ()),
    "rnn_unrolled": ("tflm", ()),
    # comparisons, LOGICAL_AND, SELECT_V2 in int8; CUMSUM left in float by the converter
    "where_cumsum": ("tflm", ()),
    "unet_nearest": ("piecewise", ("TILE",)),
    # TFLM's int8 SPACE_TO_BATCH_ND pads with a value it never sets
    # (SpaceToBatchParams.output_offset, an uninitialised persistent buffer:
    # 0, 16, 112 ... from run to run); TFLite pads with the output zero point
    "tcn": ("piecewise", ("SPACE_TO_BATCH_ND",)),
    "transformer": ("piecewise", ("GELU",)),
}
VARIANTS = ("int8", "fio")
# 16x8 versions (int16 activations and I/O, int8 weights): the tflite-micro interpreter
ZOO16 = ("cnn16", "ds_cnn", "autoencoder", "gru_unrolled", "unet_transpose", "attention16")

# operators whose TFLM result is undefined, run in ai-edge-litert by choice
FORCED = {"SPACE_TO_BATCH_ND"}

_cache = {}


def path_of(name, variant):
    p = os.path.join(MODELS_DIR, "%s_%s.tflite" % (name, variant))
    assert os.path.isfile(p), "missing %s (run tests/keras/make_models.py)" % p
    return p


def inputs_for(info, seed):
    """int8 inputs over the full range; float inputs ~ N(0, 1.5) (the
    representative data was N(0, 1)), a few beyond the calibrated range."""
    rng = np.random.default_rng(100 + seed)
    xs = []
    for i in info.inputs:
        t = info.tensors[i]
        if t["dtype"] == np.float32:
            xs.append(rng.normal(0, 1.5, size=t["shape"]).astype(np.float32))
        elif t["dtype"] == np.int16:
            xs.append(rng.integers(-32768, 32768, size=t["shape"], dtype=np.int64).astype(np.int16))
        else:
            xs.append(rng.integers(-128, 128, size=t["shape"], dtype=np.int64).astype(np.int8))
    return xs


def results(name, variant):
    key = (name, variant)
    if key not in _cache:
        p = path_of(name, variant)
        info = piecewise.static_info(p)
        sets = [inputs_for(info, s) for s in SEEDS]
        _cache[key] = (info, sets, oracle.run_htc_batch(p, sets, name="k", info=info))
    return _cache[key]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo(name, variant, seed):
    kind, litert_ops = ZOO[name]
    p = path_of(name, variant)
    info, sets, res = results(name, variant)
    outs, dumps = res[SEEDS.index(seed)]
    x = sets[SEEDS.index(seed)]
    folded = set(piecewise.shape_arithmetic(info))
    if kind == "tflm":
        ref_outs, ref_tensors = oracle.run_interpreter(p, x)
    else:
        ref_outs, ref_tensors, used = piecewise.run(p, x, litert_ops=[o for o in litert_ops if o in FORCED])
        others = sorted({info.ops[k]["op"] for k, u in used.items() if u == "ai-edge-litert"})
        assert others == sorted(litert_ops), "operators the tflite-micro interpreter could not run: %s" % others
        # ai-edge-litert 2.3 registers TILE up to version 2: version 3 (int8) runs the same kernel
        assert piecewise.LOWERED <= {("TILE", 3)}, piecewise.LOWERED
    # the compile-time shape arithmetic: not dumped by htc, not compared
    for k in folded:
        for t in info.ops[k]["outputs"]:
            assert t not in dumps, "htc ran shape arithmetic op %d (%s)" % (k, info.ops[k]["op"])
            ref_tensors.pop(t, None)
    kept = piecewise.static_info(p)
    kept.ops = [op for op in info.ops if op["index"] not in folded]
    errors, compared = oracle.compare_run(kept, ref_outs, ref_tensors, outs, dumps, label="seed %d: " % seed)
    if errors:
        pytest.fail("%s_%s: %d mismatches:\n%s" % (name, variant, len(errors), "\n".join(errors[:20])), pytrace=False)
    assert compared == len(kept.op_outputs()) > 0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ZOO16)
def test_zoo16(name, seed):
    """16x8 models: every operator's int16 output bit-exact with TFLM."""
    p = path_of(name, "16x8")
    info, sets, res = results(name, "16x8")
    assert any(info.tensors[i]["dtype"] == np.int16 for i in info.inputs)
    outs, dumps = res[SEEDS.index(seed)]
    ref_outs, ref_tensors = oracle.run_interpreter(p, sets[SEEDS.index(seed)])
    folded = set(piecewise.shape_arithmetic(info))
    for k in folded:
        for t in info.ops[k]["outputs"]:
            assert t not in dumps, "htc ran shape arithmetic op %d (%s)" % (k, info.ops[k]["op"])
            ref_tensors.pop(t, None)
    kept = piecewise.static_info(p)
    kept.ops = [op for op in info.ops if op["index"] not in folded]
    assert any(info.tensors[t]["dtype"] == np.int16 for op in kept.ops for t in op["outputs"])
    errors, compared = oracle.compare_run(kept, ref_outs, ref_tensors, outs, dumps, label="seed %d: " % seed)
    if errors:
        pytest.fail("%s_16x8: %d mismatches:\n%s" % (name, len(errors), "\n".join(errors[:20])), pytrace=False)
    assert compared == len(kept.op_outputs()) > 0


def test_float_islands_reported():
    """The float operators (LayerNormalization's DEQUANTIZE -> NEG ->
    QUANTIZE, the float input's QUANTIZE and output's DEQUANTIZE) are named
    by htc report, in text and JSON."""
    import json
    p = path_of("transformer", "fio")
    r = oracle.htc("report", p, "-t", oracle.TARGET).stdout
    line = [l for l in r.splitlines() if l.startswith("float32 ")]
    assert len(line) == 1 and line[0].count("NEG") == 4 and line[0].endswith("14 layers"), line
    layers = json.loads(oracle.htc("report", p, "-t", oracle.TARGET, "--json").stdout)["layers"]
    flt = [l["source_op"] for l in layers if l["float"]]
    assert flt.count("NEG") == 4 and flt.count("DEQUANTIZE") == 5 and flt.count("QUANTIZE") == 5, flt
    assert not any(l["float"] for l in json.loads(oracle.htc("report", path_of("transformer", "int8"), "-t",
                                                             oracle.TARGET, "--json").stdout)["layers"]
                   if l["source_op"] not in ("NEG", "DEQUANTIZE", "QUANTIZE"))
