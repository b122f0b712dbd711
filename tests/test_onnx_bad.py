"""tests/test_onnx_bad.py - corrupt and unsupported ONNX models, bad --bind
options and mutated files: one-line errors naming the node, exit status 1,
no output file, never a crash."""
import glob
import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import ort_oracle as O  # noqa: E402

BAD = os.path.join(os.path.dirname(__file__), "onnx", "bad")
CASES = sorted(os.path.basename(p)[:-7] for p in glob.glob(os.path.join(BAD, "*.expect")))


def one_line_error(p, out):
    assert p.returncode == 1, "exit %d: %s" % (p.returncode, p.stderr)
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("htc: error: "), p.stderr
    assert not os.path.exists(out) and not os.path.exists(out + ".tmp")
    return lines[0]


def test_cases_exist():
    assert len(CASES) >= 15


@pytest.mark.parametrize("name", CASES)
def test_bad_model(name, tmp_path):
    """One error line; for several problems, a first line counting them in
    graph order and one line each (every expected line a substring of the
    line htc writes there)."""
    expect = open(os.path.join(BAD, name + ".expect")).read().strip().split("\n")
    out = str(tmp_path / "m.h")
    p = O.htc("compile", os.path.join(BAD, name + ".onnx"), "-t", O.TARGET, "-o", out, check=False)
    if len(expect) == 1:
        lines = [one_line_error(p, out)]
    else:
        assert p.returncode == 1, "exit %d: %s" % (p.returncode, p.stderr)
        lines = p.stderr.strip().split("\n")
        assert not os.path.exists(out) and not os.path.exists(out + ".tmp")
    assert len(lines) == len(expect), p.stderr
    for want, line in zip(expect, lines):
        assert line.startswith("htc: error: ") and want in line, "expected '%s' in: %s" % (want, line)


def _qconv(tmp_path):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
    import make_bad
    p = str(tmp_path / "qconv.onnx")
    with open(p, "wb") as f:
        f.write(make_bad.qconv().SerializeToString())
    return p


@pytest.mark.parametrize("bind,expect", [
    ("nosuch=%s", "--bind nosuch: the model has no graph input of that name"),
    ("x=%s", "needs 16"),
    ("x=", "--bind needs NAME=FILE"),
    ("=%s", "--bind needs NAME=FILE"),
])
def test_bad_bind(bind, expect, tmp_path):
    model = _qconv(tmp_path)
    raw = tmp_path / "x.bin"
    raw.write_bytes(b"\x01\x02\x03")
    out = str(tmp_path / "m.h")
    arg = bind % raw if "%s" in bind else bind
    p = O.htc("compile", model, "-t", O.TARGET, "-o", out, "--bind", arg, check=False)
    line = one_line_error(p, out)
    assert expect in line, line


def test_bind_pb_wrong_type(tmp_path):
    from onnx import numpy_helper
    model = _qconv(tmp_path)
    pb = tmp_path / "x.pb"
    pb.write_bytes(numpy_helper.from_array(np.zeros((1, 1, 4, 4), np.int8), "x").SerializeToString())
    out = str(tmp_path / "m.h")
    p = O.htc("compile", model, "-t", O.TARGET, "-o", out, "--bind", "x=%s" % pb, check=False)
    assert "tensor is int8, graph input 'x' is uint8" in one_line_error(p, out)


def test_mutations(tmp_path):
    """Random byte flips, truncations and insertions of a small valid model
    and of a zoo model: every run ends in success or one error line."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
    import make_bad
    seeds = [make_bad.qconv().SerializeToString()]
    zoo = O.ensure_zoo()
    seeds.append(open(os.path.join(zoo, "kws_qop_u8.onnx"), "rb").read())
    rng = random.Random(1234)
    out = str(tmp_path / "m.h")
    n = 0
    for k in range(160):
        data = bytearray(seeds[k % 2])
        for _ in range(rng.randint(1, 4)):
            op = rng.random()
            i = rng.randrange(len(data))
            if op < 0.6:
                data[i] = rng.randrange(256)
            elif op < 0.8:
                del data[i:i + rng.randint(1, 16)]
            else:
                data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        p = str(tmp_path / "mut.onnx")
        with open(p, "wb") as f:
            f.write(bytes(data))
        r = O.htc("compile", p, "-t", O.TARGET, "-o", out, check=False)
        assert r.returncode in (0, 1), "mutant %d: exit %d (crash?) %s" % (k, r.returncode, r.stderr[-500:])
        if r.returncode == 1:
            lines = r.stderr.strip().split("\n")
            assert len(lines) == 1 and lines[0].startswith("htc: error: "), "mutant %d: %s" % (k, r.stderr)
        n += 1
    assert n == 160


def test_fuzz_reader():
    """libFuzzer with ASan + UBSan on the ONNX reader (tests/onnx/fuzz.sh),
    10 s seeded with the zoo and the bad models: no crash, every error one
    line naming the model. `FUZZ_SECONDS=600 bash tests/onnx/fuzz.sh` for a
    longer run."""
    import subprocess
    O.ensure_zoo()
    env = dict(os.environ, FUZZ_SECONDS=os.environ.get("ONNX_FUZZ_SECONDS", "10"))
    p = subprocess.run(["bash", os.path.join(os.path.dirname(__file__), "onnx", "fuzz.sh")], capture_output=True,
                       text=True, errors="replace", env=env)
    assert p.returncode == 0 and "1 passed, 0 failed" in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]
