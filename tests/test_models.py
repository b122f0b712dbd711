"""test_models.py - the four MLPerf Tiny int8 models, bit-exact against the
TFLite interpreter's reference kernels: the outputs and every operator's
output tensor, on 5 random inputs each (fixed seeds).

Each model's header is generated and compiled once; one process runs the 5
inputs through it with the same arena (tests/oracle.py run_htc_batch). The
command line path (`htc run --dump --repeat`) is checked on one input per
model as well.
"""
import os
import re

import pytest

import oracle

MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
SEEDS = (0, 1, 2, 3, 4)

_batch = {}


def model_path(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def inputs_for(info, seed):
    return info.random_inputs(10_000 + seed)


def htc_results(name):
    """All seeds through one compiled header, computed once per model."""
    if name not in _batch:
        path = model_path(name)
        info = oracle.ModelInfo(path)
        sets = [inputs_for(info, s) for s in SEEDS]
        _batch[name] = oracle.run_htc_batch(path, sets, name=name.lower())
    return _batch[name]


def check(name, info, inputs, outs, dumps, label):
    path = model_path(name)
    ref_outs, ref_tensors = oracle.run_interpreter(path, inputs)
    errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label=label)
    n_ops = len(info.op_outputs())
    assert n_ops == len(info.ops) and n_ops > 0
    if errors:
        pytest.fail("%s: %d mismatches:\n%s" % (name, len(errors), "\n".join(errors)), pytrace=False)
    # nothing may go uncompared: one dumped tensor per operator output
    assert compared == n_ops, "%s: compared %d intermediate tensors, the model has %d operator outputs" % (
        name, compared, n_ops)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", MODELS)
def test_model(name, seed):
    path = model_path(name)
    info = oracle.ModelInfo(path)
    outs, dumps = htc_results(name)[SEEDS.index(seed)]
    check(name, info, inputs_for(info, seed), outs, dumps, "seed %d: " % seed)


@pytest.mark.parametrize("name", MODELS)
def test_model_htc_run(name, tmp_path):
    """The command line: `htc run --dump DIR --repeat 2` on one input."""
    path = model_path(name)
    info = oracle.ModelInfo(path)
    inputs = inputs_for(info, 0)
    outs, dumps, stdout = oracle.run_htc(path, inputs, dump=True, repeat=2, workdir=str(tmp_path))
    assert re.search(r"^htc run: 2 inferences, [0-9]+\.[0-9]{3} us per inference$", stdout, re.M), stdout
    check(name, info, inputs, outs, dumps, "htc run, seed 0: ")
