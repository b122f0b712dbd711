"""test_templates.py - template placeholders are whole C expressions: the
test engine tests/targets/direct (no device; its FC template computes in
plain C, indexing {{in}}[c], {{out}}[k], {{w}}, {{b}}, {{mult}} and
{{shift}}) runs every fully connected layer of the AD model, and the
result equals TFLite Micro's interpreter bit for bit, every layer. Before
the placeholders were parenthesised, {{out}}[k] expanded to
`(int8_t *)outputs[0][k]`, which does not compile, and {{in}}[c] to a
cast of an element of the input array."""
import json
import os

import oracle

DIRECT = os.path.join(oracle.REPO, "tests", "targets", "direct", "direct.lua")


def test_fc_template_in_plain_c(tmp_path):
    path = os.path.join(oracle.MODELS, "ad01_int8.tflite")
    assert os.path.isfile(path), path
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(41_000 + s) for s in range(3)]
    results = oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=DIRECT)
    for s, inputs, (outs, dumps) in zip(range(3), sets, results):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label="seed %d: " % s)
        assert not errors, "\n".join(errors)
        assert compared == len(info.ops) > 0
    rep = json.loads(oracle.htc("report", path, "-t", DIRECT, "--json").stdout)
    fcs = [l for l in rep["layers"] if l["op"] == "fc"]
    assert len(fcs) == 10 and all(l["engine"] == "direct" for l in fcs), fcs
