"""test_security.py - untrusted models and target files never run code
(issue 21). Hostile names (trigraphs, newlines, comment markers, quotes,
%n, terminal escapes, bidirectional overrides, invalid UTF-8, a 100 kB
name) from an ONNX model, a .tflite model, a target file (its name, the
cpu's name, an accelerator's key, a memory, a dispatch reason) and model
paths go through every place a name reaches: the header (compiled with
-Wall -Wextra -Werror as C89 / C99 / C11 and C++), the program `htc run`
builds, report text / JSON / SVG, sweep CSV / JSON / HTML, error messages,
dumps and .npz outputs. Then the path, output and npy/npz rules."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest

import oracle
import tflite_build as tb

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "onnx"))
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

REPO = oracle.REPO
NPU = os.path.join(REPO, "targets", "npu.lua")
CPU = os.path.join(REPO, "targets", "cpu.lua")
CC = os.environ.get("CC") or "gcc"
CXX = os.environ.get("CXX") or "g++"

# names a model may carry
BIG = "z/*" + "B" * 100000 + "*/\n"
HOSTILE = ['x*??/\n/ system("id"); /*',
           'y */ int evil; /* "q" \\ %n%s%x ??= \x1b[31m\x07 \u202e\u0085 end',
           BIG]
# in Lua source: the target's name, the cpu's name, an accelerator's key,
# a memory's name, the fc's refusal reason
LUA_T = r'"T*??/\n/ %n%s \"x\" \27]0;pwn\7"'
LUA_CPU = r'"C */ %n%s ??= \27[2J \226\128\174"'
LUA_ENG = r'"E*/%n%s\"q\"\\ \27[31m"'
LUA_MEM = r'"S<script>alert(1)</script>&\"\n\27"'
LUA_WHY = r'"no */ %n%s ??/ \27[31m <script>x</script> \255\254"'

ESC_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")


def htc(*args, ok=True, cwd=REPO, env=None, timeout=300):
    p = subprocess.run([oracle.HTC] + [str(a) for a in args], capture_output=True, cwd=cwd, env=env,
                       timeout=timeout)
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    if ok:
        assert p.returncode == 0, err
    return p.returncode, out, err


def assert_terminal_safe(text):
    """No control character, C1 control or bidi override reaches a terminal."""
    bad = ESC_RE.search(text.replace("\n", "").replace("\t", ""))
    assert not bad, "raw %r in %r" % (bad.group(), text[max(0, bad.start() - 60):bad.end() + 60])


def onnx_model(path):
    f = numpy_helper.from_array
    inits = [f(np.float32(0.05), "s"), f(np.int8(3), "z"), f(np.float32(0.07), "ys"), f(np.int8(-5), "yz")]
    nodes = [helper.make_node("QLinearAdd", [HOSTILE[0], "s", "z", HOSTILE[0], "s", "z", "ys", "yz"], [HOSTILE[1]],
                              domain="com.microsoft", name="n*/\x1b1"),
             helper.make_node("QLinearAdd", [HOSTILE[1], "s", "z", HOSTILE[0], "s", "z", "ys", "yz"], [HOSTILE[2]],
                              domain="com.microsoft", name="n2")]
    ins = [helper.make_tensor_value_info(HOSTILE[0], TensorProto.INT8, [1, 8])]
    outs = [helper.make_tensor_value_info(HOSTILE[2], TensorProto.INT8, [1, 8]),
            helper.make_tensor_value_info(HOSTILE[1], TensorProto.INT8, [1, 8])]
    g = helper.make_graph(nodes, "g*/??/", ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    onnx.save(m, path)


def tflite_model(path):
    rng = np.random.default_rng(0)
    m = tb.Model(description='d */ "\n')
    x = m.input([1, 8, 8, 8], scale=0.05, zp=-3, name=HOSTILE[0])
    y = m.conv2d(x, out_ch=8, kernel=3, rng=rng, out_scale=0.1, out_zp=5, name=HOSTILE[1])
    y = m.reshape(y, [1, 512], name="r??/\x1b[0m")
    z = m.fully_connected(y, 10, rng, name=BIG)
    m.output(z)
    m.save(path)


def hostile_target(path):
    """targets/npu.lua with every name it gives replaced by a hostile one."""
    src = open(NPU).read()
    src = src.replace('target "npu"', "target " + LUA_T)
    src = src.replace('name = "mcu"', "name = " + LUA_CPU)
    src = src.replace("    npu = {", "    [" + LUA_ENG + "] = {")
    src = src.replace("    L2 = {", "    [" + LUA_MEM + "] = {").replace('memory = "L2"', "memory = " + LUA_MEM)
    src = src.replace("          accepts = accel.accepts(supported),", "          accepts = function(op) return false, " + LUA_WHY + " end,")
    assert src.count(LUA_MEM) == 2 and LUA_WHY in src and LUA_ENG in src
    with open(path, "w") as f:
        f.write(src)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("sec")
    onnx_model(str(d / "h.onnx"))
    tflite_model(str(d / "h.tflite"))
    hostile_target(str(d / "t.lua"))
    return d


def compile_header(d, hdr, name):
    """The header compiles warning-free: declarations as C89, the
    implementation as C99, C11 and C++11."""
    up = name.upper()
    decl = d / ("decl_%s.c" % name)
    decl.write_text('#include "%s"\nint main(void) { return %s_NUM_INPUTS - %s_NUM_INPUTS; }\n' % (hdr, up, up))
    impl = d / ("impl_%s.c" % name)
    impl.write_text('#define %s_IMPLEMENTATION\n#include "%s"\nint main(void) { return 0; }\n' % (up, hdr))
    cmds = [[CC, "-std=c89", str(decl)], [CC, "-std=c99", str(impl)], [CC, "-std=c11", str(impl)],
            [CXX, "-std=c++11", "-x", "c++", str(impl)]]
    for c in cmds:
        p = subprocess.run(c + ["-Wall", "-Wextra", "-Werror", "-Wno-unused-function", "-fsyntax-only",
                                "-I", str(d)], capture_output=True, text=True)
        assert p.returncode == 0 and not p.stderr, (c, p.stderr[:3000])


def test_header_from_hostile_onnx(work):
    hdr = work / "o.h"
    htc("compile", work / "h.onnx", "-t", CPU, "-o", hdr, "--name", "o")
    text = hdr.read_bytes().decode("ascii")     # every byte of a name escaped: pure ASCII
    assert "system(" in text and "\\052" in text        # the name is there, escaped
    assert "??" not in text and not re.search(r"\*/\s*int evil", text)
    compile_header(work, "o.h", "o")


def test_header_from_hostile_target(work):
    hdr = work / "n.h"
    htc("compile", work / "h.tflite", "-t", work / "t.lua", "-o", hdr, "--name", "n")
    text = hdr.read_bytes().decode("ascii")
    assert "??" not in text.replace("\"??\"", "")
    compile_header(work, "n.h", "n")


def test_run_driver_hostile_names(work):
    """htc run's program prints engine names, reasons and the target's name
    (made visible) and is never given one as a format: its output equals
    the plain target's, and nothing raw reaches the terminal."""
    x = np.random.default_rng(3).integers(-128, 128, (1, 8, 8, 8)).astype(np.int8)
    x.tofile(work / "in.bin")
    _, out, err = htc("run", work / "h.tflite", "-t", work / "t.lua", "--input", work / "in.bin",
                      "--output", work / "out_h.bin")
    htc("run", work / "h.tflite", "-t", NPU, "--input", work / "in.bin", "--output", work / "out_p.bin")
    assert (work / "out_h.bin").read_bytes() == (work / "out_p.bin").read_bytes()
    assert "device model cycles per layer (target T*??/\\x0a/ %n%s \"x\" \\x1b]0;pwn\\x07)" in out, out
    assert "E*/%n%s\"q\"\\ \\x1b[31m" in out
    assert_terminal_safe(out + err)


def test_report_text_json_svg(work):
    svg = work / "plan.svg"
    _, out, err = htc("report", work / "h.tflite", "-t", work / "t.lua", "--svg", svg)
    assert_terminal_safe(out + err)
    assert "\\x1b[31m" in out       # the reason, visible
    root = ET.parse(svg).getroot()      # well-formed XML
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert "S<script>alert(1)</script>" in "".join(root.itertext())   # as text, not markup
    _, out, _ = htc("report", work / "h.tflite", "-t", work / "t.lua", "--json")
    r = json.loads(out)
    assert r["target"] == 'T*??/\n/ %n%s "x" \x1b]0;pwn\x07'
    assert {ly["engine"] for ly in r["layers"]} == {'C */ %n%s ??= \x1b[2J \u202e', 'E*/%n%s"q"\\ \x1b[31m'}
    assert any("\x1b[31m <script>x</script> \ufffd\ufffd" in ly["reason"] for ly in r["layers"])
    _, out, _ = htc("report", work / "h.onnx", "-t", CPU, "--json")
    r = json.loads(out)
    assert [ly["output"] for ly in r["layers"]] == HOSTILE[1:]      # whole names, exactly
    _, out, err = htc("report", work / "h.onnx", "-t", CPU)
    assert_terminal_safe(out + err)


def test_sweep_csv_json_html(work):
    odd = work / 'm,"x<script>\n\x1b.tflite'
    shutil.copy(work / "h.tflite", odd)
    csvf, html = work / "s.csv", work / "s.html"
    _, out, err = htc("sweep", odd, work / "h.tflite", "-t", work / "t.lua", "-D", "pes=64,128",
                      "--json", "--csv", csvf, "--html", html)
    rows = json.loads(out)
    assert [r["model"] for r in rows] == [str(odd)] * 2 + [str(work / "h.tflite")] * 2
    recs = list(csv.reader(io.StringIO(csvf.read_text(), newline="")))
    assert len(recs) == 5 and len({len(r) for r in recs}) == 1
    assert "\n" not in csvf.read_text().rstrip("\n").replace("\r\n", "").split("\n")[1][:0] + "x"
    assert csvf.read_text().count("\n") == 5
    h = html.read_text()
    assert h.count("<script") == 1 and "&lt;script&gt;" in h
    _, out, err = htc("sweep", odd, "-t", work / "t.lua", "-D", "pes=64,128")
    assert_terminal_safe(out + err)


def test_targets_describe_and_errors(work):
    """htc targets and error messages show a target's and a model's names
    with control characters made visible, on one line."""
    _, out, err = htc("targets", work / "t.lua")
    assert "\\x1b]0;pwn\\x07" in out
    assert_terminal_safe(out + err)
    np.savez(work / "bad_in.npz", **{HOSTILE[0]: np.zeros(3, np.int8)})
    rc, out, err = htc("run", work / "h.onnx", "-t", CPU, "--input", work / "bad_in.npz", "--output", work / "o.npz",
                       ok=False)
    assert rc == 1 and err.count("\n") == 1 and err.startswith("htc: error: ")
    assert "3 elements, the graph input has 8" in err and "x*??/\\x0a/ system" in err, err
    assert_terminal_safe(out + err)


# ---- paths a target names ----------------------------------------------------

def target_with_kernel(d, kernel, template=None):
    """targets/npu.lua whose conv2d names `kernel` (and `template`)."""
    src = open(NPU).read().replace('kernel = "kernels/npu.c", fn = "htc__npu_conv"',
                                   'kernel = "%s", fn = "htc__npu_conv"' % kernel)
    if template:
        src = src.replace('template = "templates/npu/conv2d.c.in"', 'template = "%s"' % template)
    line = [i + 1 for i, l in enumerate(src.split("\n")) if '"%s"' % (template or kernel) in l][0]
    p = d / "k.lua"
    p.write_text(src)
    return p, line


@pytest.mark.parametrize("kernel,why", [
    ("/etc/hostname", "an absolute path"),
    ("../../../../../../etc/hostname", "'..' in the path"),
    ("kernels/../../../../etc/hostname", "'..' in the path"),
    ("link.c", "a symbolic link out of"),
    ("kernels", "not a regular file"),
    ("sub/dirlink/hostname", "a symbolic link out of"),
])
def test_kernel_paths_confined(tmp_path, kernel, why):
    """A target names kernels and templates inside its directory, HTC_HOME
    or htc's data directory: regular files, after every symbolic link."""
    os.symlink("/etc/hostname", tmp_path / "link.c")
    (tmp_path / "sub").mkdir()
    os.symlink("/etc", tmp_path / "sub" / "dirlink")
    for tpl in (None, kernel):
        lua, line = target_with_kernel(tmp_path, "kernels/npu.c" if tpl else kernel, tpl)
        rc, out, err = htc("compile", os.path.join(oracle.MODELS, "kws_ref_model.tflite"), "-t", lua,
                           "-o", tmp_path / "m.h", ok=False)
        assert rc == 1 and err.count("\n") == 1, err
        assert err.startswith("htc: error: %s:%d: " % (lua, line)) and why in err, err
        assert not (tmp_path / "m.h").exists()


def test_kernel_inside_target_dir(tmp_path):
    """A kernel beside the target file (through a link that stays inside)
    is fine."""
    (tmp_path / "k").mkdir()
    shutil.copy(os.path.join(REPO, "kernels", "npu.c"), tmp_path / "k" / "mine.c")
    os.symlink("k/mine.c", tmp_path / "alias.c")
    lua, _ = target_with_kernel(tmp_path, "alias.c")
    htc("compile", os.path.join(oracle.MODELS, "kws_ref_model.tflite"), "-t", lua, "-o", tmp_path / "m.h")
    assert "alias.c" in (tmp_path / "m.h").read_text()


# ---- outputs -------------------------------------------------------------------

def test_outputs_never_replace_special_files(work, tmp_path):
    fifo, link, target = tmp_path / "fifo", tmp_path / "link.h", tmp_path / "elsewhere.h"
    os.mkfifo(fifo)
    target.write_text("keep")
    os.symlink(target, link)
    model = work / "h.onnx"
    for args in (["compile", model, "-t", CPU, "-o", fifo], ["compile", model, "-t", CPU, "-o", link],
                 ["report", model, "-t", CPU, "--svg", fifo],
                 ["run", model, "-t", CPU, "--input", work / "x.npy", "--output", link],
                 ["sweep", model, "-t", CPU, "--csv", fifo]):
        np.zeros((1, 8), np.int8).tofile(work / "x.bin")
        np.save(work / "x.npy", np.zeros((1, 8), np.int8))
        rc, out, err = htc(*args, ok=False, timeout=60)
        assert rc == 1 and err.count("\n") == 1 and ("not a regular file" in err or "symbolic link" in err), (args, err)
    assert os.path.islink(link) and target.read_text() == "keep"
    assert os.stat(fifo).st_mode & 0o170000 == 0o010000


def test_run_outputs_whole_or_nothing(work, tmp_path):
    """htc run puts every output in place through a temporary file and a
    rename, after the program succeeded; one error line otherwise."""
    x = np.random.default_rng(5).integers(-128, 128, (1, 8)).astype(np.int8)
    x.tofile(tmp_path / "x.bin")
    rc, out, err = htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "x.bin", "--output",
                       tmp_path / "a.bin", "--output", tmp_path / "no" / "b.bin", ok=False)
    assert rc == 1 and err.count("\n") == 1 and "no/b.bin: cannot write" in err, err
    assert not (tmp_path / "a.bin").exists()
    assert [f for f in os.listdir(tmp_path) if ".tmp." in f] == []
    dump = tmp_path / "dump"
    htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "x.bin", "--output", tmp_path / "a.bin",
        "--output", tmp_path / "b.bin", "--dump", dump)
    assert all(re.fullmatch(r"\d+\.bin", f) for f in os.listdir(dump)) and len(os.listdir(dump)) == 2
    (tmp_path / "notdir").write_text("")
    rc, out, err = htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "x.bin", "--output", tmp_path / "a.bin",
                       "--output", tmp_path / "b.bin", "--dump", tmp_path / "notdir", ok=False)
    assert rc == 1 and "not a directory" in err


def test_npz_member_names(work, tmp_path):
    """.npz outputs name members after the tensors, flat: no '/', no '..',
    no control character, at most 200 bytes (+ .npy), unique."""
    x = np.random.default_rng(6).integers(-128, 128, (1, 8)).astype(np.int8)
    np.save(tmp_path / "x.npy", x)
    htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "x.npy", "--output", tmp_path / "o.npz")
    htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "x.npy", "--output", tmp_path / "o0.bin",
        "--output", tmp_path / "o1.bin")
    names = zipfile.ZipFile(tmp_path / "o.npz").namelist()
    assert len(names) == 2 and len(set(names)) == 2
    for n in names:
        assert n.endswith(".npy") and "/" not in n and "\\" not in n and not ESC_RE.search(n) and len(n) <= 204, n
        assert n not in (".npy", "..npy") and all(32 <= ord(c) < 127 for c in n)
    got = np.load(tmp_path / "o.npz")
    assert np.array_equal(got[names[0][:-4]].ravel(), np.fromfile(tmp_path / "o0.bin", np.int8))
    assert np.array_equal(got[names[1][:-4]].ravel(), np.fromfile(tmp_path / "o1.bin", np.int8))


# ---- the .npy / .npz reader -------------------------------------------------------

def npy_bytes(header, data=b""):
    h = header.encode()
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data


def zip64_42():
    """42 bytes: a zip64 end locator pointing past the file, then the end record."""
    loc = (0x07064b50).to_bytes(4, "little") + bytes(4) + (1 << 40).to_bytes(8, "little") + (1).to_bytes(4, "little")
    eocd = (0x06054b50).to_bytes(4, "little") + bytes(4) + b"\xff\xff" * 2 + b"\xff" * 8 + bytes(2)
    return loc + eocd


BAD_NUMPY = {
    "zip64_42.npz": (zip64_42(), "bad zip64 end record"),
    "overflow.npy": (npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
                               bytes(8)), "too many elements"),
    "overflow_fortran.npy": (npy_bytes("{'descr': '<i8', 'fortran_order': True, 'shape': (4, 4611686018427387905), }",
                                       bytes(32)), "too many elements"),
    "huge_dim.npy": (npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (99999999999999999999999,), }"),
                     "bad .npy shape"),
    "fortran_what.npy": (npy_bytes("{'descr': '|i1', 'fortran_order': Maybe, 'shape': (8,), }", bytes(8)),
                         "fortran_order"),
}


@pytest.mark.parametrize("name", sorted(BAD_NUMPY))
def test_numpy_reader_refuses(work, tmp_path, name):
    """Every size is checked before it is multiplied or used: one error line
    naming the file, from run and from compile / report (input hints)."""
    data, why = BAD_NUMPY[name]
    f = tmp_path / name
    f.write_bytes(data)
    for cmd in (["run", work / "h.onnx", "-t", CPU, "--input", f, "--output", tmp_path / "o.bin"],
                ["report", work / "h.onnx", "-t", CPU, "--input", f]):
        rc, out, err = htc(*cmd, ok=False, timeout=60)
        assert rc == 1 and err.count("\n") == 1 and str(f) in err and why in err, (rc, err)


def test_npz_entries(work, tmp_path):
    """Compressed and encrypted members are refused by name (made visible),
    members sharing bytes are refused, a zip64 archive written by Python's
    zipfile (zip64 extra fields, data descriptors) is read."""
    x = np.random.default_rng(8).integers(-128, 128, (1, 8)).astype(np.int8)
    np.savez_compressed(tmp_path / "c.npz", **{"a\x1b[2Jb": x})
    rc, out, err = htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "c.npz", "--output",
                       tmp_path / "o.npz", ok=False)
    assert rc == 1 and "is compressed" in err and "a\\x1b[2Jb" in err, err
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        with z.open("x.npy", "w", force_zip64=True) as f:
            b = io.BytesIO()
            np.save(b, x)
            f.write(b.getvalue())
    (tmp_path / "z64.npz").write_bytes(buf.getvalue())
    htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "z64.npz", "--output", tmp_path / "a.npz")
    x.tofile(tmp_path / "x.bin")
    htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "x.bin", "--output", tmp_path / "b.npz")
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert len(a.files) == 2 and all(np.array_equal(a[k], b[k]) for k in a.files)
    # the central directory names the same member bytes twice
    raw = bytearray(buf.getvalue())
    e = raw.rfind(b"PK\x05\x06")
    cd = int.from_bytes(raw[e + 16:e + 20], "little")
    ent = bytes(raw[cd:e])
    dup = raw[:cd] + ent + ent + raw[e:]
    e2 = dup.rfind(b"PK\x05\x06")
    dup[e2 + 8:e2 + 12] = (2).to_bytes(2, "little") * 2
    dup[e2 + 12:e2 + 16] = (2 * len(ent)).to_bytes(4, "little")
    (tmp_path / "dup.npz").write_bytes(bytes(dup))
    rc, out, err = htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "dup.npz", "--output",
                       tmp_path / "o.npz", ok=False)
    assert rc == 1 and "entries overlap" in err, err
    enc = bytearray(buf.getvalue())
    enc[cd + 8] |= 1
    (tmp_path / "enc.npz").write_bytes(bytes(enc))
    rc, out, err = htc("run", work / "h.onnx", "-t", CPU, "--input", tmp_path / "enc.npz", "--output",
                       tmp_path / "o.npz", ok=False)
    assert rc == 1 and "encrypted" in err, err


# ---- limits -----------------------------------------------------------------------

TRIVIAL_TARGET = 'return target "t" { clock_mhz = 1, memory = { M = { size = 1024 } }, cpu = { memory = "M", ops = {} } }\n'


def test_lua_cpu_limit_counts_system_time(tmp_path):
    """Allocations that fault pages in cost system time, which the CPU limit
    counts too (HTC_LUA_SECONDS lowers the limits to 2 s here)."""
    import resource
    lua = tmp_path / "sys.lua"
    lua.write_text('local s = 0\nfor i = 1, 1e9 do\n  local x = string.rep("x", 100000000)\n  s = s + #x\nend\n'
                   + TRIVIAL_TARGET)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, out, err = htc("targets", lua, ok=False, env=dict(os.environ, HTC_LUA_SECONDS="2"), timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert rc == 1 and err.count("\n") == 1 and "%s:3: target file ran too long" % lua in err, err
    assert cpu < 5, "%.1f s of CPU" % cpu


def test_lua_wall_clock_limit(tmp_path):
    """A target stopped (or starved) while Lua runs meets the wall-clock
    bound even though it used little CPU."""
    import signal
    import time
    lua = tmp_path / "loop.lua"
    lua.write_text("local s = 0\nwhile true do s = s + 1 end\n" + TRIVIAL_TARGET)
    p = subprocess.Popen([oracle.HTC, "targets", str(lua)], stderr=subprocess.PIPE,
                         env=dict(os.environ, HTC_LUA_SECONDS="3"))
    for _ in range(600):        # in the loop: 0.2 s of CPU used
        with open("/proc/%d/stat" % p.pid) as f:
            if int(f.read().rsplit(")", 1)[1].split()[11]) >= 20:
                break
        time.sleep(0.05)
    p.send_signal(signal.SIGSTOP)
    time.sleep(4)
    p.send_signal(signal.SIGCONT)
    err = p.communicate(timeout=120)[1].decode()
    assert p.returncode == 1 and "%s:2: target file ran too long (over 3 s of wall-clock time in Lua)" % lua in err, err


def test_sweep_bounds(work, tmp_path):
    """sweep keeps a point's error to a few hundred bytes (a target's 1 MB
    message included), limits a -D argument and the text of all points
    before any work."""
    lua = tmp_path / "p.lua"
    lua.write_text('local P = param "p" { default = 1, values = { 1, 2 }, description = "x" }\n'
                   'if P == 2 then error(string.rep("E", 1000000)) end\n' + open(CPU).read())
    csvf = tmp_path / "s.csv"
    _, out, err = htc("sweep", work / "h.tflite", "-t", lua, "-D", "p=1,2", "--csv", csvf, "--json", timeout=120)
    rows = json.loads(out)
    assert "error" not in rows[0] and "p.lua:2:" in rows[1]["error"] and len(rows[1]["error"]) < 700
    assert len(csvf.read_text()) < 3000
    rc, out, err = htc("sweep", work / "h.tflite", "-t", lua, "-D", "p=" + ",".join(["1"] * 600), ok=False)
    assert rc == 1 and "a -D argument of 1201 bytes (at most 1024)" in err, err
    deep = "./" * 2000 + str(work / "h.tflite")
    rng = ",".join(str(v) for v in range(4, 260))
    try:
        rc, out, err = htc("sweep", deep, "-t", NPU, "-D", "sram_kib=" + rng, "-D", "wsram_kib=" + rng, ok=False,
                           timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("the sweep started 65,536 points instead of refusing")
    assert rc == 1 and "exceeds 64 MiB" in err, err


def test_include_through_a_linked_directory(tmp_path):
    """include "dir/file" may not leave the including file's directory
    through a directory that is a symbolic link."""
    os.symlink("/etc", tmp_path / "sub")
    lua = tmp_path / "t.lua"
    lua.write_text('local x = include "sub/hostname"\n' + TRIVIAL_TARGET)
    rc, out, err = htc("targets", lua, ok=False)
    assert rc == 1 and err.count("\n") == 1 and "leads out of" in err and "t.lua:1: include" in err, err


def test_csv_formulas_neutralised(work, tmp_path):
    """A sweep CSV field that starts with = + - @, a tab or a carriage return
    (a model path, a -D value) reaches a spreadsheet as text: a leading
    single quote (OWASP); plain numbers such as -5 stay numbers."""
    models = ["=HYPERLINK(1).tflite", "@SUM(1).tflite", "+cmd.tflite", "\tx.tflite", "\rx.tflite"]
    for name in models:
        shutil.copy(work / "h.tflite", tmp_path / name)
    lua = tmp_path / "t.lua"
    lua.write_text('local TAG = param "tag" { default = "a", description = "a string" }\n' + open(CPU).read())
    csvf = tmp_path / "s.csv"
    htc("sweep", *models, "-t", lua, "-D", "tag==1+2,-2+3,@A1,-5", "--csv", csvf, cwd=tmp_path)
    recs = list(csv.reader(io.StringIO(csvf.read_text(), newline="")))
    assert len(recs) == 1 + 5 * 4 and len({len(r) for r in recs}) == 1, recs[:3]
    assert sorted({r[0] for r in recs[1:]}) == sorted("'" + m.replace("\t", "\\x09").replace("\r", "\\x0d")
                                                      for m in models), recs
    assert sorted({r[recs[0].index("tag")] for r in recs[1:]}) == sorted(["'=1+2", "'-2+3", "'@A1", "-5"])
    for c in (c for r in recs[1:] for c in r):      # nothing a spreadsheet evaluates
        assert not c or c[0] not in "=+@\t\r" and (c[0] != "-" or re.fullmatch(r"-[0-9.]+", c)), c


GC_LOOP = 'local keep = setmetatable({}, {__gc = function() while true do end end})\n'


@pytest.mark.parametrize("cmd", ["compile", "run", "report", "sweep", "verify"])
def test_lua_finalizer_refused(work, tmp_path, cmd):
    """A target file's __gc finalizer would run in lua_close (or in a
    collection started from C) outside the time limits: htc wrote the header
    and never exited. setmetatable refuses a metatable with __gc: one line
    at the target's file:line, exit 1, no output file, for every command
    that loads a target."""
    lua = tmp_path / "gc.lua"
    lua.write_text(GC_LOOP + 'local P = param "p" { default = 1, values = { 1, 2 }, description = "x" }\n'
                   + open(CPU).read())
    out = tmp_path / "out"
    (tmp_path / "in.bin").write_bytes(bytes(512))
    model = work / "h.tflite"
    args = {"compile": ["compile", model, "-t", lua, "-o", out],
            "run": ["run", model, "-t", lua, "--input", tmp_path / "in.bin", "--output", out],
            "report": ["report", model, "-t", lua, "--svg", out],
            "sweep": ["sweep", model, "-t", lua, "-D", "p=1,2", "--csv", out],
            "verify": ["verify", model, "-t", lua]}[cmd]
    rc, _, err = htc(*args, ok=False, env=dict(os.environ, HTC_LUA_SECONDS="2"), timeout=120)
    assert rc == 1 and err.count("\n") == 1, err
    assert err.startswith("htc: error: ") and "gc.lua:1: setmetatable: a metatable with __gc" in err, err
    assert not out.exists() and not [p for p in os.listdir(tmp_path) if p.startswith("out")]


@pytest.mark.parametrize("how", [
    # any value marks the object; a function put there later would run
    'local keep = setmetatable({}, {__gc = true})\n',
    # the op tables' metatable is hidden (getmetatable(op) is false)
    'local function sneak(op) getmetatable(op).__gc = function() while true do end end return true end\n',
])
def test_lua_finalizer_sneaked(work, tmp_path, how):
    """Nor can a target file add __gc to a metatable htc made."""
    lua = tmp_path / "gc.lua"
    src = open(NPU).read()
    if "sneak" in how:      # the accelerator's accepts tries it
        old = "          accepts = accel.accepts(supported),"
        assert old in src
        src = src.replace(old, "          accepts = sneak,")
    lua.write_text(how + src)
    out = tmp_path / "out.h"
    rc, _, err = htc("compile", work / "h.tflite", "-t", lua, "-o", out, ok=False,
                     env=dict(os.environ, HTC_LUA_SECONDS="2"), timeout=120)
    assert rc == 1 and err.count("\n") == 1 and "gc.lua:1:" in err, err
    assert ("__gc" in err or "boolean" in err) and not out.exists(), err


def test_run_keep_planted_links(work, tmp_path):
    """htc run --keep DIR with links planted in an existing DIR: the program
    and the compiler write only in htc's private scratch directory, and the
    kept files go into DIR through a temporary file and a rename, so no link
    is followed: every victim outside DIR keeps its bytes (htc refuses the
    link with one line), and a clean DIR gets every file."""
    model = work / "h.tflite"
    (tmp_path / "in.bin").write_bytes(bytes(range(256)) * 2)
    keep = tmp_path / "keep"
    keep.mkdir()
    victims = {}
    for name in ("raw0.bin", "cc.err", "run"):      # model.h, driver.c: refused since issue 21
        v = tmp_path / ("victim_" + name)
        v.write_bytes(b"precious " + name.encode())
        os.symlink(v, keep / name)
        victims[v] = v.read_bytes()
    out = tmp_path / "out.bin"
    rc, _, err = htc("run", model, "-t", CPU, "--input", tmp_path / "in.bin", "--output", out, "--keep", keep, ok=False)
    for v, data in victims.items():
        assert v.read_bytes() == data, "%s written through a link in --keep DIR" % v
    assert rc == 0 or (rc == 1 and err.count("\n") == 1 and "symbolic link" in err), err
    assert all(os.path.islink(keep / n) for n in ("raw0.bin", "cc.err", "run"))
    # a clean directory: every file, the program executable, the output equal
    clean = tmp_path / "clean"
    htc("run", model, "-t", CPU, "--input", tmp_path / "in.bin", "--output", out, "--keep", clean)
    assert sorted(os.listdir(clean)) == ["cc.err", "driver.c", "model.h", "raw0.bin", "run"]
    assert os.access(clean / "run", os.X_OK) and (clean / "raw0.bin").read_bytes() == out.read_bytes()
    # kept again over the same files: replaced, still no stray temporaries
    htc("run", model, "-t", CPU, "--input", tmp_path / "in.bin", "--output", out, "--keep", clean)
    assert sorted(os.listdir(clean)) == ["cc.err", "driver.c", "model.h", "raw0.bin", "run"]


def test_verify_keep_planted_links(work, tmp_path):
    """htc verify --keep DIR builds in DIR (a cache reused by the next run):
    a symbolic link planted there, or a DIR that others may write, is
    refused with one line before anything is built, and the victim keeps
    its bytes; a DIR of the user's own works."""
    model = work / "h.tflite"
    keep = tmp_path / "keep"
    keep.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    os.symlink(victim, keep / "tgt.o")
    rc, _, err = htc("verify", model, "-t", CPU, "-n", 1, "--keep", keep, ok=False)
    assert rc == 1 and err.count("\n") == 1 and "tgt.o is a symbolic link" in err, err
    assert victim.read_bytes() == b"precious" and os.path.islink(keep / "tgt.o")
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    rc, _, err = htc("verify", model, "-t", CPU, "-n", 1, "--keep", shared, ok=False)
    assert rc == 1 and err.count("\n") == 1 and "writable by others" in err, err
    assert os.listdir(shared) == []
    own = tmp_path / "own"
    rc, out, err = htc("verify", model, "-t", CPU, "-n", 1, "--keep", own)
    assert rc == 0 and "1 passed, 0 failed" in out, (out, err)
