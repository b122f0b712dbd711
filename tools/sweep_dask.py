#!/usr/bin/env python3
"""sweep_dask.py - htc sweep on a Dask cluster: the sweep's points split
into shards (`htc sweep ... --shard K/N --save F`), each shard a Dask task
run on a worker, and the shards' files merged by `htc sweep ... --merge`
into exactly the outputs one unsharded run writes (docs/sweep.md).

  tools/sweep_dask.py --local 2 --shards 8 -- MODEL... -t TARGET -D ... [--measure] [--json] [--csv F] [--html F]
  tools/sweep_dask.py --scheduler tcp://HOST:8786 --shards 64 -- ...
  tools/sweep_dask.py --slurm 16 --slurm-cores 4 --slurm-memory 8GB --shards 64 -- ...
  tools/sweep_dask.py --slurm 16 --slurm-cores 4 ... --slurm-script   (print the sbatch script, submit nothing)

After `--`: htc sweep's own arguments. --json, --csv and --html are the
merge's; the rest (models, -t, -D, --measure, -j) every shard's. The
workers must see htc, the models and the target at the same paths (a
shared filesystem, as on a Slurm cluster); a shard's results come back to
this process as text, the merge runs here. A worker lost mid-shard is
retried (a shard is deterministic). Exit status: the merge's."""
import argparse
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MERGE_ONLY = {"--csv": 1, "--html": 1, "--json": 0}


def split_args(args):
    """htc sweep's arguments -> (every shard's, the merge's outputs)"""
    shard, merge, i = [], [], 0
    while i < len(args):
        a = args[i]
        if a in ("--shard", "--save", "--merge"):
            raise SystemExit("sweep_dask: %s is the driver's to give" % a)
        if a in MERGE_ONLY:
            merge += args[i:i + 1 + MERGE_ONLY[a]]
            i += 1 + MERGE_ONLY[a]
            continue
        shard.append(a)
        i += 1
    return shard, merge


def run_shard(htc, args, k, n, cwd):
    """on a worker: one shard; its saved results as text"""
    with tempfile.TemporaryDirectory(prefix="htc-shard-") as d:
        out = os.path.join(d, "shard.txt")
        p = subprocess.run([htc, "sweep"] + args + ["--shard", "%d/%d" % (k, n), "--save", out], cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError("shard %d/%d failed (exit %d): %s" % (k, n, p.returncode, p.stderr.strip()[-2000:]))
        with open(out) as f:
            return f.read()


def slurm_cluster(o):
    """dask_jobqueue.SLURMCluster (pinned in .ci/deps.sh): one Slurm job per
    Dask worker, --slurm-cores threads each; no job submitted before scale()"""
    from dask_jobqueue import SLURMCluster
    return SLURMCluster(cores=o.slurm_cores, processes=1, memory=o.slurm_memory, queue=o.slurm_queue,
                        walltime=o.slurm_walltime, account=o.slurm_account)


def client_for(o):
    from dask.distributed import Client, LocalCluster
    if o.scheduler:
        return Client(o.scheduler), None
    if o.slurm:
        cluster = slurm_cluster(o)
        cluster.scale(jobs=o.slurm)
        return Client(cluster), cluster
    cluster = LocalCluster(n_workers=o.local, threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster), cluster


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], usage="%(prog)s [options] -- SWEEP ARGS")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--local", type=int, default=2, help="a LocalCluster of this many worker processes (default 2)")
    where.add_argument("--scheduler", help="the address of a running Dask scheduler")
    where.add_argument("--slurm", type=int, help="this many Slurm jobs of dask_jobqueue.SLURMCluster")
    ap.add_argument("--slurm-cores", type=int, default=4)
    ap.add_argument("--slurm-memory", default="8GB")
    ap.add_argument("--slurm-queue", default=None)
    ap.add_argument("--slurm-walltime", default="01:00:00")
    ap.add_argument("--slurm-account", default=None)
    ap.add_argument("--slurm-script", action="store_true",
                    help="print the job script each Slurm job would run (sbatch), submit nothing, and exit")
    ap.add_argument("--shards", type=int, required=True, help="shards the points are split into (Dask tasks)")
    ap.add_argument("--htc", default=os.path.join(TOP, "htc"), help="the htc executable (the same path on every worker)")
    ap.add_argument("--keep", help="keep the shards' files in this directory")
    if argv is None:
        argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("htc sweep's arguments follow --")
    cut = argv.index("--")
    o = ap.parse_args(argv[:cut])
    shard_args, merge_args = split_args(argv[cut + 1:])
    if o.shards < 1:
        ap.error("--shards must be at least 1")
    if o.slurm_script:
        if not o.slurm:
            ap.error("--slurm-script goes with --slurm N")
        cluster = slurm_cluster(o)
        try:
            print(cluster.job_script())
        finally:
            cluster.close()
        return 0
    htc = os.path.abspath(o.htc)
    cwd = os.getcwd()
    client, cluster = client_for(o)
    try:
        futures = [client.submit(run_shard, htc, shard_args, k, o.shards, cwd, key="htc-shard-%d-of-%d" % (k, o.shards),
                                 retries=2, pure=False)
                   for k in range(1, o.shards + 1)]
        texts = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    with tempfile.TemporaryDirectory(prefix="htc-merge-") as d:
        keep = o.keep or d
        os.makedirs(keep, exist_ok=True)
        files = []
        for k, text in enumerate(texts, 1):
            p = os.path.join(keep, "shard-%d-of-%d.txt" % (k, o.shards))
            with open(p, "w") as f:
                f.write(text)
            files += ["--merge", p]
        return subprocess.run([htc, "sweep"] + shard_args + files + merge_args).returncode


if __name__ == "__main__":
    sys.exit(main())
