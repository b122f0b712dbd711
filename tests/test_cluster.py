"""tests/test_cluster.py - multi-core clusters (targets/siracusa.lua, cores
1..8): every MLPerf Tiny model and every Deeploy network of
../shared/deeploy-tests with cores = 1, 2, 3 and 8, bit-exact against
TFLite Micro's interpreter (outputs and every operator's output) and
Deeploy's outputs.npz; cores = 8 gives the bytes of cores = 1 (every
dumped tensor). The header's default HTC_PAR_RUN runs each core's share in
turn, so each share is computed by the kernels' parallel entry points
exactly as on a cluster; examples/cluster runs them on threads
(test_threads_tsan)."""
import json
import os
import subprocess

import numpy as np
import pytest

import oracle
import test_deeploy

REPO = oracle.REPO
SIRACUSA = os.path.join(REPO, "targets", "siracusa.lua")
MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
CORES = (1, 2, 3, 8)

_runs = {}


def tiny(name, cores):
    """One input set (seed 0) through the siracusa header built for `cores`."""
    key = (name, cores)
    if key not in _runs:
        path = os.path.join(oracle.MODELS, name + ".tflite")
        assert os.path.isfile(path), path
        info = oracle.ModelInfo(path)
        inputs = info.random_inputs(20_000)
        (outs, dumps), = oracle.run_htc_batch(path, [inputs], target=SIRACUSA, name="m", args=("-D", "cores=%d" % cores))
        _runs[key] = (info, inputs, outs, dumps)
    return _runs[key]


def parallel_layers(model, cores, extra=()):
    """The report's layers that run forked over the cluster."""
    r = subprocess.run([oracle.HTC, "report", model, "-t", SIRACUSA, "-D", "cores=%d" % cores, "--json", *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [l for l in json.loads(r.stdout)["layers"] if l.get("cores", 1) > 1]


@pytest.mark.parametrize("cores", CORES)
@pytest.mark.parametrize("name", MODELS)
def test_tiny_tflm(name, cores):
    info, inputs, outs, dumps = tiny(name, cores)
    ref_outs, ref_tensors = oracle.run_interpreter(info.path, inputs)
    errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label="cores=%d: " % cores)
    assert not errors, "%s cores=%d: %d mismatches:\n%s" % (name, cores, len(errors), "\n".join(errors[:10]))
    assert compared == len(info.op_outputs()) > 0
    if cores > 1:   # the convolutions and fully connected layers really are divided
        par = parallel_layers(info.path, cores)
        assert any(l["op"] in ("conv2d", "fc") for l in par), par


@pytest.mark.parametrize("name", MODELS)
def test_tiny_8_equals_1(name):
    _, _, outs1, dumps1 = tiny(name, 1)
    _, _, outs8, dumps8 = tiny(name, 8)
    assert sorted(dumps1) == sorted(dumps8) and dumps1
    for k in dumps1:
        assert np.asarray(dumps1[k]).tobytes() == np.asarray(dumps8[k]).tobytes(), "tensor %d" % k
    for a, b in zip(outs1, outs8):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def deeploy_run(net, cores, tmp):
    d = os.path.join(test_deeploy.TESTS, net)
    out = os.path.join(tmp, "out%d.npz" % cores)
    dump = os.path.join(tmp, "dump%d" % cores)
    r = subprocess.run([oracle.HTC, "run", os.path.join(d, "network.onnx"), "-t", SIRACUSA, "-D", "cores=%d" % cores,
                        "--input", os.path.join(d, "inputs.npz"), "--output", out, "--dump", dump],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return np.load(out), dump


@pytest.mark.parametrize("net", test_deeploy.NETS)
def test_deeploy_cores(net, tmp_path):
    d = os.path.join(test_deeploy.TESTS, net)
    want = np.load(os.path.join(d, "outputs.npz"))
    dumps = {}
    for cores in CORES:
        got, dumps[cores] = deeploy_run(net, cores, str(tmp_path))
        assert len(got.files) == len(want.files)
        for gk, wk in zip(got.files, want.files):
            w = want[wk].astype(np.int64)
            g = got[gk].astype(np.int64)
            assert g.size == w.size and np.array_equal(g.reshape(w.shape), w), "cores=%d %s differs" % (cores, wk)
    files = sorted(os.listdir(dumps[1]))
    assert files and files == sorted(os.listdir(dumps[8]))
    for f in files:
        with open(os.path.join(dumps[1], f), "rb") as a, open(os.path.join(dumps[8], f), "rb") as b:
            assert a.read() == b.read(), "%s: cores=8 differs from cores=1 at tensor %s" % (net, f)
