"""test_sweep_scale.py - htc sweep at scale: energy per point, the Pareto
front (latency x energy x memory) against a brute-force check, --shard
K/N + --merge giving byte for byte the unsharded outputs (JSON, CSV,
HTML, table), refused merges, and tools/sweep_dask.py on a Dask
LocalCluster of 2 workers with measured points."""
import json
import os
import subprocess
import sys

import pytest

import oracle

NPU = os.path.join(oracle.REPO, "targets", "npu.lua")
DLA = os.path.join(oracle.REPO, "targets", "dla.lua")


def model(name):
    p = os.path.join(oracle.MODELS, name + ".tflite")
    assert os.path.isfile(p), "model %s not found (set HTC_MODELS; looked in %s)" % (name, oracle.MODELS)
    return p


def sweep(*args, ok=True, cwd=None):
    p = subprocess.run([oracle.HTC, "sweep"] + list(args), capture_output=True, text=True, cwd=cwd or oracle.REPO)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def outputs(tmp, tag, args, extra=()):
    """(stdout JSON, table, CSV, HTML) of a sweep or a merge"""
    csv_, html = tmp / ("%s.csv" % tag), tmp / ("%s.html" % tag)
    js = sweep(*args, *extra, "--json", "--csv", str(csv_), "--html", str(html)).stdout
    table = sweep(*args, *extra).stdout
    return js, table, csv_.read_bytes(), html.read_bytes()


def dominated(p, q):
    a = (q["lat"], q["en"], q["mem"])
    b = (p["lat"], p["en"], p["mem"])
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def test_energy_and_pareto():
    """Each point's energy is the report's for its configuration; the front
    is exactly the points no other point of the same model dominates."""
    kws, ad = model("kws_ref_model"), model("ad01_int8")
    rows = json.loads(sweep(kws, ad, "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=16,64,256", "-D", "wsram_kib=16,64",
                            "-j", "2", "--json").stdout)
    assert len(rows) == 24
    for r in rows:
        assert r["energy_uj"] == pytest.approx(sum(r["energy"].values()), abs=2e-6)
        assert r["energy_uj"] == pytest.approx(sum(r["energy_classes"].values()), abs=4e-6)
        r["lat"], r["en"], r["mem"] = r.get("measured_cycles", r["est_cycles"]), r["energy_uj"], r["memory_kib"]
    rep = json.loads(subprocess.run([oracle.HTC, "report", kws, "-t", NPU, "-D", "pes=128", "-D", "sram_kib=64",
                                     "-D", "wsram_kib=16", "--json"], capture_output=True, text=True, check=True).stdout)
    r = [x for x in rows if x["model"] == kws and x["params"] == {"pes": "128", "sram_kib": "64", "wsram_kib": "16"}][0]
    assert r["energy_uj"] == pytest.approx(rep["energy"]["uj"], abs=1e-6)
    # memory: the arena + every memory without an arena (SRAM + WSRAM)
    assert r["memory_kib"] == pytest.approx(r["arena_kib"] + 64 + 16, abs=1e-3)
    front = 0
    for p in rows:
        same = [q for q in rows if q["model"] == p["model"] and q is not p]
        assert p["pareto"] == (not any(dominated(p, q) for q in same)), p
        front += p["pareto"]
    assert 2 <= front < len(rows)
    # the smallest memories and the larger array win on KWS
    assert [x["params"] for x in rows if x["model"] == kws and x["pareto"]] == \
        [{"pes": "128", "sram_kib": "16", "wsram_kib": "16"}]


def test_shard_merge_equal(tmp_path):
    """4 shards of 2 models x 12 configurations merged: every output the
    same bytes as the unsharded run's; the shards partition the points."""
    args = [model("kws_ref_model"), model("vww_96_int8"), "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=16,64,256",
            "-D", "wsram_kib=16,64", "-j", "2"]
    full = outputs(tmp_path, "full", args)
    files, counts = [], []
    for k in (1, 2, 3, 4):
        f = tmp_path / ("s%d.txt" % k)
        out = sweep(*args, "--shard", "%d/4" % k, "--save", str(f)).stdout
        assert "shard %d/4" % k in out
        lines = f.read_text().splitlines()
        assert lines[0].startswith("htc-sweep-shard ") and lines[-1] == "end %d" % (len(lines) - 2)
        idx = [int(l.split()[0]) for l in lines[1:-1]]
        assert all(i % 4 == k - 1 for i in idx)
        counts.append(len(idx))
        files += ["--merge", str(f)]
    assert sum(counts) == 24
    merged = outputs(tmp_path, "merged", args, files)
    assert merged == full
    # the shards' order on the command line does not matter
    rev = sum([["--merge", str(tmp_path / ("s%d.txt" % k))] for k in (3, 1, 4, 2)], [])
    assert sweep(*args, *rev, "--json").stdout == full[0]


def error(p):
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and p.stderr.startswith("htc: error: "), p.stderr
    return p.stderr


def test_merge_refused(tmp_path):
    kws = model("kws_ref_model")
    args = [kws, "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=16,64"]
    s = []
    for k in (1, 2):
        s.append(tmp_path / ("s%d.txt" % k))
        sweep(*args, "--shard", "%d/2" % k, "--save", str(s[-1]))
    out = tmp_path / "out.csv"
    assert "point 1 is in no shard file (shard 2 of 2 missing?)" in error(
        sweep(*args, "--merge", str(s[0]), "--csv", str(out), ok=False))
    assert not out.exists()
    assert "is in two shard files" in error(sweep(*args, "--merge", str(s[0]), "--merge", str(s[0]), ok=False))
    assert "a shard of another sweep" in error(
        sweep(kws, "-t", NPU, "-D", "pes=64,128", "-D", "sram_kib=16,256", "--merge", str(s[0]), "--merge", str(s[1]),
              ok=False))
    assert "a shard of another sweep" in error(sweep(*args, "--measure", "--merge", str(s[0]), "--merge", str(s[1]),
                                                     ok=False))
    cut = tmp_path / "cut.txt"
    cut.write_text(s[1].read_text().rsplit("end", 1)[0])
    assert "truncated" in error(sweep(*args, "--merge", str(s[0]), "--merge", str(cut), ok=False))
    bad = tmp_path / "bad.txt"
    bad.write_text(s[1].read_text().replace(" R ", " R x", 1))
    assert "damaged line" in error(sweep(*args, "--merge", str(s[0]), "--merge", str(bad), ok=False))
    other = tmp_path / "other.txt"
    other.write_text("hello\n")
    assert "not a shard file" in error(sweep(*args, "--merge", str(other), ok=False))
    assert "--shard needs K/N" in error(sweep(*args, "--shard", "3/2", "--save", str(tmp_path / "x"), ok=False))
    assert "--shard needs K/N" in error(sweep(*args, "--shard", "1/", "--save", str(tmp_path / "x"), ok=False))
    assert "needs --save" in error(sweep(*args, "--shard", "1/2", ok=False))
    assert "--save is the results of a --shard" in error(sweep(*args, "--save", str(tmp_path / "x"), ok=False))
    assert "are --merge's" in error(sweep(*args, "--shard", "1/2", "--save", str(tmp_path / "x"), "--json", ok=False))
    assert not (tmp_path / "x").exists()


def test_dask_local_cluster_measured(tmp_path):
    """tools/sweep_dask.py on a LocalCluster of 2 workers, 3 shards, every
    point measured on the host virtual platform (the DLA's device model):
    the merged JSON, CSV and HTML equal the unsharded run's."""
    import distributed  # noqa: F401  (pinned in .ci/deps.sh: missing is a failure)
    args = [model("kws_ref_model"), model("ad01_int8"), "-t", DLA, "-D", "pes=32,64", "-D", "sram_kib=32,512",
            "--measure", "-j", "2"]
    js = sweep(*args, "--json", "--csv", str(tmp_path / "full.csv"), "--html", str(tmp_path / "full.html")).stdout
    full = (js, (tmp_path / "full.csv").read_bytes())
    rows = json.loads(js)
    assert len(rows) == 8 and all("measured_cycles" in r and "measured_energy_uj" in r for r in rows)
    keep = tmp_path / "shards"
    p = subprocess.run([sys.executable, os.path.join(oracle.REPO, "tools", "sweep_dask.py"), "--local", "2", "--shards",
                        "3", "--htc", oracle.HTC, "--keep", str(keep), "--"] + args +
                       ["--json", "--csv", str(tmp_path / "d.csv"), "--html", str(tmp_path / "d.html")],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    assert (p.stdout, (tmp_path / "d.csv").read_bytes()) == full
    assert (tmp_path / "d.html").read_bytes() == (tmp_path / "full.html").read_bytes()
    assert sorted(os.listdir(keep)) == ["shard-%d-of-3.txt" % k for k in (1, 2, 3)]


def test_slurm_job_script(tmp_path):
    """--slurm N --slurm-script: the job script dask_jobqueue.SLURMCluster
    would submit with sbatch for each worker, printed; nothing submitted
    (no Slurm on this machine: a real Slurm run is not tested here)"""
    import dask_jobqueue  # noqa: F401  (pinned in .ci/deps.sh: missing is a failure)
    p = subprocess.run([sys.executable, os.path.join(oracle.REPO, "tools", "sweep_dask.py"), "--slurm", "16",
                        "--slurm-cores", "4", "--slurm-memory", "8GB", "--slurm-queue", "normal", "--slurm-walltime",
                        "02:00:00", "--shards", "256", "--slurm-script", "--", model("kws_ref_model"), "-t", DLA,
                        "-D", "pes=32,64", "--measure", "-j", "1", "--json"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=dict(os.environ, PATH="/usr/bin:/bin"))
    assert p.returncode == 0, p.stderr[-3000:]
    s = p.stdout
    for line in ("#SBATCH -p normal", "#SBATCH --cpus-per-task=4", "#SBATCH --mem=8G", "#SBATCH -t 02:00:00"):
        assert line in s.splitlines(), s
    assert "distributed.cli.dask_worker tcp://" in s and "--nthreads 4" in s, s
    assert "--slurm-script goes with --slurm" in subprocess.run(
        [sys.executable, os.path.join(oracle.REPO, "tools", "sweep_dask.py"), "--shards", "2", "--slurm-script", "--",
         model("kws_ref_model"), "-t", DLA], capture_output=True, text=True).stderr
