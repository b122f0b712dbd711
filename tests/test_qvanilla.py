"""test_qvanilla.py - targets/qvanilla.lua (MLonMCU's QVanilla: the vanilla
Conv2D + bias unit, TFLite requantization on the host) runs the MLPerf
Tiny KWS, VWW and ResNet with every plain convolution offloaded,
bit-exact with TFLite Micro (every tensor); the rest stays on the CPU
with the reason."""
import json
import os
import subprocess

import pytest

import oracle

QV = os.path.join(oracle.REPO, "targets", "qvanilla.lua")


@pytest.mark.parametrize("name", ["kws_ref_model", "vww_96_int8", "pretrainedResnet_quant"])
def test_qvanilla_bitexact(name, tmp_path):
    path = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(path), path
    p = subprocess.run([oracle.HTC, "report", path, "-t", QV, "--json"], capture_output=True, text=True, cwd=oracle.REPO)
    assert p.returncode == 0, p.stderr
    layers = json.loads(p.stdout)["layers"]
    convs = [l for l in layers if l["source_op"] == "CONV_2D"]
    assert convs and all(l["engine"] == "vanilla" for l in convs), [l["reason"] for l in convs]
    assert all(l["engine"] == "cpu" and l["reason"] for l in layers if l["source_op"] != "CONV_2D")
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(60 + s) for s in range(2)]
    for inputs, (outs, dumps) in zip(sets, oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=QV)):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps)
        assert not errors, "\n".join(errors)
        assert compared == len(info.ops)


def test_qvanilla_is_vanilla_changed():
    """qvanilla.lua includes vanilla.lua and changes it: its own name,
    requantization and template; the parameters it inherits are listed
    with the file that declares them; vanilla.lua itself is unchanged."""
    def targets(path, *d):
        p = subprocess.run([oracle.HTC, "targets", path] + [a for x in d for a in ("-D", x)],
                           capture_output=True, text=True, cwd=oracle.REPO)
        assert p.returncode == 0, p.stderr
        return p.stdout
    q = targets(QV, "l1_kib=32")
    assert 'target "qvanilla"' in q and "engine vanilla: requant tflite;" in q, q
    line = next(i for i, l in enumerate(open(os.path.join(oracle.REPO, "targets", "vanilla.lua")), 1)
                if 'param "l1_kib"' in l)
    assert "l1_kib         32 " in q and "vanilla.lua:%d]" % line in q, q
    v = targets(os.path.join(oracle.REPO, "targets", "vanilla.lua"))
    assert 'target "vanilla"' in v and "engine vanilla: requant quantlib, shift;" in v, v
    assert "l1_kib         16 " in v and "[line %d]" % line in v, v
