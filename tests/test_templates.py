"""test_templates.py - template placeholders are whole C expressions: the
test engine tests/targets/direct (no device; its FC template computes in
plain C, indexing {{in}}[c], {{out}}[k], {{w}}, {{b}}, {{mult}} and
{{shift}}) runs every fully connected layer of the AD model, and the
result equals TFLite Micro's interpreter bit for bit, every layer. Before
the placeholders were parenthesised, {{out}}[k] expanded to
`(int8_t *)outputs[0][k]`, which does not compile, and {{in}}[c] to a
cast of an element of the input array."""
import json
import re
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


FOLDED = os.path.join(oracle.REPO, "tests", "targets", "folded", "folded.lua")


def test_engine_constants(tmp_path):
    """tests/targets/folded: the engine's `constants` function stores its
    own data at compile time - weights transposed to [C][K] (replacing
    {{w}}), the input zero point folded into the biases (replacing {{b}}),
    per-channel multipliers and shifts as its own arrays {{m}} {{s}} - and
    its template needs no zero point at run time. Bit-exact with TFLM."""
    path = os.path.join(oracle.MODELS, "ad01_int8.tflite")
    info = oracle.ModelInfo(path)
    sets = [info.random_inputs(42_000 + s) for s in range(3)]
    results = oracle.run_htc_batch(path, sets, workdir=str(tmp_path), target=FOLDED)
    for s, inputs, (outs, dumps) in zip(range(3), sets, results):
        ref_outs, ref_tensors = oracle.run_interpreter(path, inputs, info=info)
        errors, compared = oracle.compare_run(info, ref_outs, ref_tensors, outs, dumps, label="seed %d: " % s)
        assert not errors, "\n".join(errors)
        assert compared == len(info.ops) > 0
    hdr = tmp_path / "h.h"
    oracle.htc("compile", path, "-t", FOLDED, "-o", hdr, "--name", "ad")
    text = hdr.read_text()
    # layer 0 is 640 -> 128: its transposed weights, folded biases and the two arrays
    assert "static const int8_t ad__layer0_weights[81920]" in text
    assert "static const int32_t ad__layer0_m[128] HTC__ALIGN(16)" in text and "static const int32_t ad__layer0_s[128]" in text
    # the other element types, exactly
    assert "static const float ad__layer0_f[3] HTC__ALIGN(16) = {5.000000000e-01f, -1.250000000e+00f, 2.999999893e-08f" in text
    assert "static const uint32_t ad__layer0_u[3] HTC__ALIGN(16) = {4294967295u, 0u, 128u" in text
    assert re.search(r"static const int16_t ad__layer0_h\[2\] HTC__ALIGN\(16\) = \{\s*-32768,\s*32767", text)
    # the folded biases are the model's minus zp * sum_c w[c][k], one zp for every channel
    direct = tmp_path / "d.h"
    oracle.htc("compile", path, "-t", DIRECT, "-o", direct, "--name", "ad")

    def arr(t, name):
        m = re.search(r"static const int(?:8|32)_t %s\[\d+\][^=]*= \{([^}]*)\}" % name, t)
        return [int(v) for v in m.group(1).split(",") if v.strip()]
    b_model, b_folded, w = arr(direct.read_text(), "ad__layer0_bias"), arr(text, "ad__layer0_bias"), arr(text, "ad__layer0_weights")
    sums = [sum(w[c * 128 + k] for c in range(640)) for k in range(128)]
    zps = {(bm - bf) // sw for bm, bf, sw in zip(b_model, b_folded, sums) if sw}
    assert len(zps) == 1 and zps != {0}, zps
    zp = zps.pop()
    assert all(bm - bf == zp * sw for bm, bf, sw in zip(b_model, b_folded, sums))
    # the template indexes the engine's arrays and never the zero point
    body = text[text.index("folded: fc 640 -> 128"):][:600]
    assert "ad__layer0_m[k]" in body and "ad__layer0_s[k]" in body and "in_zp" not in body and "- (" not in body
