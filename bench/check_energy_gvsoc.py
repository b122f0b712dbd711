#!/usr/bin/env python3
"""check_energy_gvsoc.py - targets/siracusa.lua's energy figures against
GVSoC's Siracusa power models: reads the JSON files of a gvsoc-pulp
checkout (GVSOC_PULP=DIR, its pulp/chips/siracusa/power_models; a git
directory is read at HEAD) and the GV_* constants of the target file, and
prints each pair. Exit 0 when every figure is equal. Run by hand (the
checkout is not on CI): docs/targets.md, "Energy"."""
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(TOP, "targets", "siracusa.lua")
BASE = "pulp/chips/siracusa/power_models/"


def read(root, rel):
    p = os.path.join(root, rel)
    if os.path.isfile(p):
        with open(p) as f:
            return f.read()
    return subprocess.run(["git", "--git-dir", root, "show", "HEAD:" + rel], check=True, capture_output=True,
                          text=True).stdout


def value(model):
    """a power model's figure at 25 C, 1.2 V (the only corner of these files)"""
    return float(model["values"]["25"]["1.2"]["any"])


def main():
    root = os.environ.get("GVSOC_PULP", "")
    if not root:
        print("check_energy_gvsoc: set GVSOC_PULP to a gvsoc-pulp checkout (or its git directory)")
        return 2
    riscy = json.loads(read(root, BASE + "core/riscy.json"))
    l1 = json.loads(read(root, BASE + "l1/l1.json"))
    cluster = json.loads(read(root, BASE + "cluster.json"))
    mchan = json.loads(read(root, BASE + "mchan.json"))
    with open(TARGET) as f:
        lua = f.read()
    const = {}
    for names, vals in re.findall(r"^local (GV_[A-Z0-9_, ]+?) = (.+)$", lua, re.M):
        for n, v in zip(names.split(","), vals.split(",")):
            const[n.strip()] = eval(v.strip(), {})       # numbers and sums of numbers only
    insn = {value(g["dynamic"]) for g in riscy["insn_groups"]}
    accesses = {value(l1[k]["dynamic"]) for k in l1 if k.startswith(("read_", "write_"))}
    pairs = [
        ("core: pJ an instruction (every group)", insn.pop() if len(insn) == 1 else None, const["GV_INSN_PJ"]),
        ("core: leakage mW", value(riscy["background"]["leakage"]) * 1e3, const["GV_CORE_LEAK_MW"]),
        ("L1: pJ a bank access (every width, read and write)", accesses.pop() if len(accesses) == 1 else None,
         const["GV_L1_ACCESS_PJ"]),
        ("L1: leakage mW a bank", value(l1["background"]["leakage"]) * 1e3, const["GV_L1_BANK_LEAK_MW"]),
        ("cluster: background dynamic + leakage mW",
         (value(cluster["background"]["dynamic"]) + value(cluster["background"]["leakage"])) * 1e3, const["GV_CLUSTER_MW"]),
        ("DMA: active mW", value(mchan["active"]["dynamic"]) * 1e3, const["GV_DMA_ACTIVE_MW"]),
        ("DMA: background + leakage mW",
         (value(mchan["background"]["dynamic"]) + value(mchan["background"]["leakage"])) * 1e3, const["GV_DMA_IDLE_MW"]),
    ]
    ok = True
    for what, gv, htc in pairs:
        same = gv is not None and abs(gv - htc) <= 1e-9 * max(1.0, abs(gv))
        ok &= same
        print("%-52s GVSoC %-14s siracusa.lua %-14s %s" % (what, "%.10g" % gv if gv is not None else "varies",
                                                            "%.10g" % htc, "equal" if same else "DIFFERENT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
