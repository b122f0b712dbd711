"""test_npu.py - .tflite models on an accelerator: targets/npu.lua (an
NPU-like engine whose requantization unit implements TFLite's fixed-point
arithmetic, device model kernels/npu.c) runs the four MLPerf Tiny models
with every convolution and fully connected layer offloaded, and the
result equals TFLite Micro's interpreter bit for bit: the outputs and
every operator's output tensor, on several random inputs. The report and
`htc run` say which engine runs each layer and why; the device model
measures the cycles (it checks every SRAM access: an overflow aborts)."""
import json
import os
import re
import subprocess

import pytest

import oracle

NPU = os.path.join(oracle.REPO, "targets", "npu.lua")
MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
OFFLOAD = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def model_path(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def report(model, *args):
    p = subprocess.run([oracle.HTC, "report", model, "-t", NPU, "--json"] + list(args), capture_output=True,
                       text=True, cwd=oracle.REPO)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def check_bitexact(path, target, seeds, tmp_path):
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(30_000 + s) for s in seeds]
    results = oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=target)
    for s, inputs, (outs, dumps) in zip(seeds, sets, results):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label="seed %d: " % s)
        assert not errors, "\n".join(errors)
        assert compared == len(info.ops) > 0


@pytest.mark.parametrize("name", MODELS)
def test_mlperf_tflite_on_npu(name, tmp_path):
    """Every CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED runs on the
    NPU, the rest on the host with the reason; bit-exact with TFLM."""
    path = model_path(name)
    rep = report(path)
    offloaded = 0
    for layer in rep["layers"]:
        assert layer["reason"], layer
        if layer["source_op"] in OFFLOAD:
            assert layer["engine"] == "npu", (layer["index"], layer["source_op"], layer["reason"])
            assert layer["requant"] == "tflite"
            assert layer["tile"]["l1_bytes"] <= 128 * 1024 and layer["tile"]["w_bytes"] <= 64 * 1024
            offloaded += 1
        else:
            assert layer["engine"] == "mcu" and layer["reason"].startswith("fallback: npu"), layer
    assert offloaded >= 4
    check_bitexact(path, NPU, (0, 1, 2), tmp_path)


def test_htc_run_prints_engines_reasons_cycles(tmp_path):
    """`htc run` on the NPU target: the device model's cycles per layer,
    the engine and the reason; the output equals TFLM's."""
    path = model_path("kws_ref_model")
    info = oracle.ModelInfo(path)
    x = info.random_inputs(7)
    outs, _, stdout = oracle.run_htc(path, x, dump=False, target=NPU)
    ref, _ = oracle.run_interpreter(path, x, info=info)
    assert oracle.diff(ref[0], outs[0]) is None
    rows = re.findall(r"^\s*(\d+)\s+(\w+)\s+(\w+)\s+(\d+)\s+(\d+)  (.+)$", stdout, re.M)
    assert {r[2] for r in rows} == {"npu", "mcu"}, stdout
    assert all(int(r[3]) > 0 for r in rows if r[2] == "npu"), stdout
    total = int(re.search(r"^total: (\d+) cycles", stdout, re.M).group(1))
    assert total == sum(int(r[3]) for r in rows)
    assert any(r[5].startswith("fallback: npu: npu has no softmax kernel") for r in rows), stdout
