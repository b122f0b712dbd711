"""test_bench_gvsoc.py - bench/bench_gvsoc.py without GVSoC (CI has none):
the skip is printed, a GVSOC that is not an installed GVSoC is an error
naming it, the bench's copy of the firmware's input generator equals
examples/common/platform.c's (the bytes `htc run` gets are the firmware's),
and the GVSoC output parser reads the firmware's lines. The runs on GVSoC
itself are `GVSOC=DIR make bench` (README, "Siracusa on GVSoC").
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCRIPT = os.path.join(ROOT, "bench", "bench_gvsoc.py")


def load():
    spec = importlib.util.spec_from_file_location("bench_gvsoc", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(env_extra):
    env = {k: v for k, v in os.environ.items() if k != "GVSOC"}
    env.update(env_extra)
    return subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, env=env, timeout=120)


def test_skipped_without_gvsoc():
    r = run({})
    assert r.returncode == 0
    assert r.stdout.strip() == ("bench_gvsoc: skipped: GVSOC is not set (GVSOC=DIR names an installed GVSoC; "
                                "see examples/siracusa/README.md)")


def test_gvsoc_not_installed():
    with tempfile.TemporaryDirectory() as d:
        r = run({"GVSOC": d})
        assert r.returncode == 1
        assert r.stdout.strip() == f"bench_gvsoc: {d}/bin/gvsoc: no such file (GVSOC must name an installed GVSoC)"


def test_fill_and_fnv_match_platform_c():
    mod = load()
    src = r'''
#define PLATFORM_HOST
#include "platform.h"
int main(void)
{
    static uint8_t b[1000];
    platform_fill(b, sizeof b, 0x6b77u);
    fwrite(b, 1, sizeof b, stdout);
    fprintf(stderr, "%08lx", (unsigned long)platform_fnv1a(b, sizeof b));
    return 0;
}
'''
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "t.c")
        with open(c, "w") as f:
            f.write(src)
        exe = os.path.join(d, "t")
        common = os.path.join(ROOT, "examples", "common")
        subprocess.run(["cc", "-std=c99", "-DPLATFORM_HOST", "-I" + common, "-o", exe, c,
                        os.path.join(common, "platform.c")], check=True)
        r = subprocess.run([exe], capture_output=True, check=True)
    want = mod.fill(1000, 0x6B77)
    assert r.stdout == want
    assert int(r.stderr, 16) == mod.fnv1a(want)


def test_parse_firmware_lines():
    mod = load()
    text = "\n".join([
        "result: kws input 490 bytes fnv1a 0123abcd",
        "prof: layer  0 conv2d           781617 cycles",
        "prof: layer 12 softmax            4052 cycles",
        "prof: kws total 5834250 cycles on siracusa",
        "save: --write-output 12 8080808080808080807e8082",
        "kws: arena 16000 bytes, ok on siracusa",
    ])
    layers, total, in_fnv, data = mod.parse_gvsoc(text)
    assert layers == {0: ("conv2d", 781617), 12: ("softmax", 4052)}
    assert total == 5834250
    assert in_fnv == 0x0123ABCD
    assert data == bytes.fromhex("8080808080808080807e8082")
    # a truncated dump (fewer bytes than announced) is no output
    assert mod.parse_gvsoc("save: --write-output 13 8080")[3] is None


def load_fit():
    """bench/fit_siracusa.py as a module"""
    spec = importlib.util.spec_from_file_location("fit_siracusa", os.path.join(ROOT, "bench", "fit_siracusa.py"))
    fit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit)
    return fit


def parse_nets_text(fit, text):
    """fit.parse_nets on `text` written to a file"""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "nets.txt")
        with open(p, "w") as f:
            f.write(text)
        return fit.parse_nets(p)


def test_fit_reads_gvsoc_nets_output():
    """bench/fit_siracusa.py takes Deeploy's networks from tests/neureka/
    gvsoc_nets.py's table: the engines=cluster column, layers the cluster
    ran, per network and core count"""
    fit = load_fit()
    text = "\n".join([
        "",
        "MLPerf_KeywordSpotting on GVSoC's siracusa, 8 cores (cluster cycles per layer)",
        "layer  op                 engines=cluster          engines=both",
        "    0  table                1,840 cluster         1,865 cluster",
        "    3  conv2d              27,890 cluster        24,474 neureka",
        "   11  maxpool              3,109 cluster         3,150 cluster",
        "total                    344,464               234,577        ",
        "  outputs: cluster = htc run = Deeploy, both = htc run = Deeploy",
        "",
        "miniMobileNet on GVSoC's siracusa, 1 cores (cluster cycles per layer)",
        "layer  op                 engines=neureka          engines=cluster",
        "    2  conv2d               5,853 neureka        38,831 cluster",
        "total                     23,573                 99,999        ",
    ])
    runs = parse_nets_text(fit, text)
    assert runs == {("net:MLPerf_KeywordSpotting", 8): {"mem": "l1", "layers": {0: 1840, 3: 27890, 11: 3109}},
                    ("net:miniMobileNet", 1): {"mem": "l1", "layers": {2: 38831}}}


def test_fit_reads_target_and_net_memories():
    """bench/fit_siracusa.py reads siracusa.lua's K_ table and its fork
    through the named constant (fork = CPU_FORK), and takes CCT_Int_ICCT's
    runs as gvsoc_nets.py builds them (mem=l2), the other networks mem=l1"""
    fit = load_fit()
    lua = os.path.join(ROOT, "targets", "siracusa.lua")
    src = open(lua).read()
    theta = fit.read_lua(lua)
    assert theta["fork"] == float(re.search(r"\nlocal CPU_FORK = ([0-9.]+)", src).group(1))
    assert theta["mp_tap"] == 4.0 and theta["mp_row"] == 1.0
    text = "\n".join([
        "CCT_Int_ICCT on GVSoC's siracusa, 8 cores (cluster cycles per layer)",
        "layer  op                 engines=cluster",
        "    2  maxpool             11,236 cluster",
        "total                 12,505,747        ",
        "MLPerf_KeywordSpotting on GVSoC's siracusa, 1 cores (cluster cycles per layer)",
        "layer  op                 engines=cluster",
        "   11  maxpool              3,940 cluster",
        "total                  1,949,377        ",
    ])
    runs = parse_nets_text(fit, text)
    assert runs == {("net:CCT_Int_ICCT", 8): {"mem": "l2", "layers": {2: 11236}},
                    ("net:MLPerf_KeywordSpotting", 1): {"mem": "l1", "layers": {11: 3940}}}


def test_est_line_counts_and_nocode():
    """the per-layer line: N/M within 15%, the worst layer, and the
    reshapes that run no code (estimated 0) named apart"""
    mod = load()
    rep = {"layers": [{"index": 0, "op": "conv2d", "est_cycles": 90}, {"index": 1, "op": "reshape", "storage": "alias",
                                                                         "est_cycles": 0}]}
    assert mod.nocode(rep) == {1}
    line = mod.est_line("x cores=8", [(-10.0, 0), (20.0, 2)], nocode=1)
    assert line == ("x cores=8: estimate within 15% of GVSoC: 1/2 layers, worst layer 2 +20.0% "
                    "(1 reshapes share their input's storage: no code, estimated 0)")


def test_fit_neureka_3x3_matches_target():
    """bench/fit_siracusa.py --neureka-jobs: tests/neureka/jobs.c's table
    beside gvsoc_jobs.txt's cycles (16 jobs, 6 dense 3x3), plus
    miniMobileNet's 7x7 3->32 job, give siracusa.lua's NEU_3X3_STEP and
    NEU_3X3_K, every 3x3 job within 4%"""
    fit = load_fit()
    jobs = fit.parse_neureka_jobs(os.path.join(ROOT, "tests", "neureka", "jobs.c"),
                                  os.path.join(ROOT, "tests", "neureka", "gvsoc_jobs.txt"))
    assert len(jobs) == 16 and sum(j[0] == "3x3" for j in jobs) == 6
    base, step, per_k, fitted = fit.fit_neureka_3x3(jobs + [("3x3", 7, 7, 3, 32, 3728)])
    lua = open(os.path.join(ROOT, "targets", "siracusa.lua")).read()
    m = re.search(r"local NEU_3X3_STEP, NEU_3X3_K = ([\d.]+), ([\d.]+)", lua)
    assert m, "siracusa.lua has no NEU_3X3_STEP / NEU_3X3_K"
    assert abs(step - float(m.group(1))) < 0.1 and abs(per_k - float(m.group(2))) < 0.01, (step, per_k)
    assert 2100 < base < 2300
    assert all(abs(est - j[5]) / j[5] < 0.04 for j, est in fitted), fitted


def test_fit_neureka_fc_matches_target():
    """bench/fit_siracusa.py's linear-job fit on its NEU_FC_JOBS (MicroLlama's
    56 jobs with their code ages, KWS's 64->12 and miniMobileNet's 256->10
    cold) gives siracusa.lua's NEU_FC_* constants (its CODE_WARM), each
    job within 12% (MicroLlama's 64->64 spread, 964-1,246 cycles, is the
    instruction cache's: the code age term takes most of it)"""
    fit = load_fit()
    lua = open(os.path.join(ROOT, "targets", "siracusa.lua")).read()
    w = re.search(r"local CODE_WARM = (\d+)", lua)
    assert w, "siracusa.lua has no CODE_WARM"
    *coef, fitted = fit.fit_neureka_fc(fit.NEU_FC_JOBS, int(w.group(1)))
    m = re.search(r"local NEU_FC_BASE, NEU_FC_CGROUP, NEU_FC_K64, NEU_FC_REFETCH = ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+)",
                  lua)
    assert m, "siracusa.lua has no NEU_FC_BASE / NEU_FC_CGROUP / NEU_FC_K64 / NEU_FC_REFETCH"
    for got, want in zip(coef, m.groups()):
        assert abs(got - float(want)) < 0.1, (coef, m.groups())
    assert len(fitted) == 60
    assert all(abs(est - l[3]) / l[3] < 0.12 for l, est in fitted), fitted
