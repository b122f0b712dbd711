"""test_sweep_cache.py - htc run --cache / htc sweep --measure --cache:
measured points whose program and inputs are the same share one build
and one run; a cached result equals an uncached one (byte for byte, cold
and warm cache, with no compiler on PATH when warm); concurrent writers of
one key leave one whole entry; refusals are one-line errors."""
import json
import os
import subprocess

import oracle

DLA = os.path.join(oracle.REPO, "targets", "dla.lua")


def model(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def htc(*args, env=None, ok=True):
    p = subprocess.run([oracle.HTC] + list(args), capture_output=True, text=True, cwd=oracle.REPO,
                       env=dict(os.environ, **(env or {})))
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def entries(d):
    names = sorted(os.listdir(d))
    assert not [n for n in names if ".tmp." in n], names     # no half-written entry left
    for n in names:
        assert sorted(os.listdir(os.path.join(d, n))) == ["key", "out0", "stdout"], n
    return names


def error(p):
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and p.stderr.startswith("htc: error: "), p.stderr
    return p.stderr


# ad01 has no depthwise layer and only fully connected ones: depthwise=none
# and native, tiling=channels and any build the same program there (the
# params: comment aside); kws has depthwise layers (none / native differ)
GRID = ["-t", DLA, "-D", "pes=32,64", "-D", "depthwise=none,native", "-D", "tiling=channels,any", "--measure"]


def test_sweep_cached_equals_uncached(tmp_path):
    args = [model("ad01_int8"), model("kws_ref_model")] + GRID + ["-j", "2"]
    outs = {}
    cache = tmp_path / "cache"
    for tag, extra in (("uncached", []), ("cold", ["--cache", str(cache)]), ("warm", ["--cache", str(cache)])):
        csv = tmp_path / (tag + ".csv")
        # warm: every point from the cache, so no compiler is needed
        env = {"PATH": str(tmp_path / "nothing")} if tag == "warm" else None
        js = htc("sweep", *args, *extra, "--json", "--csv", str(csv), env=env).stdout
        outs[tag] = (js, csv.read_bytes())
        if tag == "cold":
            cold = entries(cache)
    assert outs["cold"] == outs["uncached"] and outs["warm"] == outs["uncached"]
    rows = json.loads(outs["uncached"][0])
    assert len(rows) == 16 and all("measured_cycles" in r for r in rows)
    # ad01: one program per pes (2), kws: per pes x depthwise (4)
    assert len(cold) == 6 and entries(cache) == cold
    # a warm cache with no compiler: an uncached point fails, as a point
    p = htc("sweep", *args, "--json", env={"PATH": str(tmp_path / "nothing")}, ok=False)
    assert "16 of 16 points failed" in p.stderr and all("cannot run cc" in r["error"] for r in json.loads(p.stdout))


def test_shards_share_cache_concurrently(tmp_path):
    """two shards at once on one cache (the same keys in both): the merge
    equals the uncached unsharded run, and each key is one whole entry"""
    args = [model("ad01_int8")] + GRID
    full = htc("sweep", *args, "-j", "2", "--json").stdout
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([oracle.HTC, "sweep"] + args + ["--cache", str(cache), "--shard", "%d/2" % k, "--save",
                                                              str(tmp_path / ("s%d" % k))],
                              cwd=oracle.REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for k in (1, 2)]
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0, err
    merged = htc("sweep", *args, "--merge", str(tmp_path / "s1"), "--merge", str(tmp_path / "s2"), "--json").stdout
    assert merged == full
    assert len(entries(cache)) == 2


def run_args(tmp_path, k):
    inp = tmp_path / "in.bin"
    if not inp.exists():
        inp.write_bytes(bytes((i * 7 + 3) & 0xff for i in range(640)))
    return [model("ad01_int8"), "-t", DLA, "--input", str(inp), "--output", str(tmp_path / ("out%d.bin" % k))]


def test_run_cache(tmp_path):
    """htc run --cache: the same text and output bytes as an uncached run;
    four runs of one program at once leave one entry; an entry whose key
    material differs (a collision, a damaged entry) is a miss"""
    ref = htc("run", *run_args(tmp_path, 0))
    assert "total:" in ref.stdout
    cache = tmp_path / "c"
    procs = [subprocess.Popen([oracle.HTC, "run"] + run_args(tmp_path, k) + ["--cache", str(cache)], cwd=oracle.REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in (1, 2, 3, 4)]
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0 and out == ref.stdout, err
    want = (tmp_path / "out0.bin").read_bytes()
    assert all((tmp_path / ("out%d.bin" % k)).read_bytes() == want for k in (1, 2, 3, 4))
    (name,) = entries(cache)
    hit = htc("run", *run_args(tmp_path, 5), "--cache", str(cache), env={"PATH": str(tmp_path / "nothing")})
    assert hit.stdout == ref.stdout and (tmp_path / "out5.bin").read_bytes() == want
    # another -D value that builds the same program (ad01: no depthwise layer) hits the entry
    htc("run", *run_args(tmp_path, 6), "-D", "depthwise=none", "--cache", str(cache),
        env={"PATH": str(tmp_path / "nothing")})
    # a different program (pes) is a new entry
    htc("run", *run_args(tmp_path, 7), "-D", "pes=32", "--cache", str(cache))
    assert len(entries(cache)) == 2
    key = cache / name / "key"
    key.write_bytes(key.read_bytes()[:-1] + b"x")
    assert "cannot run cc" in error(htc("run", *run_args(tmp_path, 8), "--cache", str(cache),
                                        env={"PATH": str(tmp_path / "nothing")}, ok=False))
    again = htc("run", *run_args(tmp_path, 9), "--cache", str(cache))
    assert again.stdout == ref.stdout and (tmp_path / "out9.bin").read_bytes() == want


def test_cache_refused(tmp_path):
    a = run_args(tmp_path, 0)
    c = str(tmp_path / "c")
    assert "not with --repeat" in error(htc("run", *a, "--cache", c, "--repeat", "3", ok=False))
    assert "not with --dump" in error(htc("run", *a, "--cache", c, "--dump", str(tmp_path / "d"), ok=False))
    assert "not with --keep" in error(htc("run", *a, "--cache", c, "--keep", str(tmp_path / "k"), ok=False))
    assert "run only" in error(htc("report", a[0], "-t", DLA, "--cache", c, ok=False))
    f = tmp_path / "file"
    f.write_text("x")
    assert "not a directory" in error(htc("run", *a, "--cache", str(f), ok=False))
    w = tmp_path / "w"
    w.mkdir()
    os.chmod(w, 0o777)
    assert "writable by others" in error(htc("run", *a, "--cache", str(w), ok=False))
    assert "give it with --measure" in error(htc("sweep", a[0], "-t", DLA, "-D", "pes=32,64", "--cache", c, ok=False))
    assert not os.path.exists(c)
