#!/usr/bin/env python3
"""fit_siracusa.py - fit targets/siracusa.lua's cluster cost model to GVSoC.

Reads the per-layer GVSoC cycles that bench/bench_gvsoc.py printed (its
output saved to files), asks htc for the configuration each run had (`htc
report --json -D cores=N -D mem=M`: split, cores, L1 bands, geometry; the
same htc and target that built the measured firmware, or --htc / --target),
computes each layer's features the way targets/siracusa.lua does (feat_*:
one call's counts of set-ups, blocks, dot-product words, outputs, bytes
copied; the slowest core's share; per band), and solves for the
coefficients (non-negative least squares on the relative error). Prints
the coefficients, each layer's fitted estimate against GVSoC and the count
within 15%; paste the coefficients into siracusa.lua's K_ table (and fork,
overhead).

  bench/fit_siracusa.py [--htc PATH] [--target PATH] [--write LUA] BENCH_OUTPUT...
  bench/fit_siracusa.py --neureka-jobs tests/neureka/gvsoc_jobs.txt [--neureka-job MODE,OY,OX,C,K,CYCLES]...
    (N-EUREKA's dense 3x3 job terms NEU_3X3_STEP and NEU_3X3_K)
  bench/fit_siracusa.py --neureka-fc-jobs [--neureka-fc C,K,AGE,CYCLES]...
    (its linear layers' NEU_FC_*, on NEU_FC_JOBS and the jobs given)
  bench/fit_siracusa.py --ql-fork BENCH_NEUREKA_OUTPUT...
    (QuantLib's tables and Adds divided over 8 cores: FORK_QL_TABLE, QLX_FORK,
    QL_FORK_L2, on bench/bench_neureka.py's kernels and MicroLlama runs)

--target names the target file the measured runs were compiled with (their
band heights and splits; a copy of the old siracusa.lua when the
coefficients changed since), --write the siracusa.lua whose K_ table, fork
and overhead get the new coefficients.

Needs only numpy (the oracles' venv)."""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"kws": "kws_ref_model.tflite", "vww": "vww_96_int8.tflite", "ic": "pretrainedResnet_quant.tflite",
          "ad": "ad01_int8.tflite"}
# Deeploy's networks' memories when not mem=l1, l1_kib=64 (tests/neureka/
# gvsoc_nets.py NET_MEM: engines=cluster)
NET_MEM = {"CCT_Int_ICCT": ("l2", 128)}
MEMS = {"weights and arena in L1": "l1", "weights in L2, arena in L1": "l2", "weights and arena in L2": "tile"}


def parse_bench(path):
    """{(model, cores): {"mem": m, "layers": {i: cycles}}} from bench_gvsoc.py's output"""
    runs, model, cores, mem = {}, None, None, None
    for line in open(path):
        m = re.match(r"\S.* \((\w+), \S+\.tflite\): cluster cycles on GVSoC's siracusa, XpulpV2 on, (.*)$", line)
        if m:
            model = m.group(1)
            mem = next(v for k, v in MEMS.items() if m.group(2).startswith(k))
            cores = None
            continue
        m = re.match(r"layer\s+op\s+(.*)$", line)
        if m and model:
            cores = [int(c) for c in re.findall(r"cores=(\d+)", m.group(1))]
            for n in cores:
                runs[(model, n)] = {"mem": mem, "layers": {}}
            continue
        m = re.match(r"\s*(\d+)\s+(\w+)\s+(.*)$", line)
        if m and model and cores:
            vals = m.group(3).replace("no code", "-").split()     # an aliased reshape: no code
            for n, v in zip(cores, vals):
                if v != "-":
                    runs[(model, n)]["layers"][int(m.group(1))] = int(v.replace(",", ""))
        if line.startswith("total"):
            model, cores = None, None
    return runs


def parse_nets(path):
    """{(net, cores): {"mem": "l1", "layers": {i: cycles}}} from tests/neureka/
    gvsoc_nets.py's output (its engines=cluster column: Deeploy's QuantLib
    networks, built with everything in L1)"""
    runs, key, col = {}, None, None
    for line in open(path):
        m = re.match(r"(\S+) on GVSoC's siracusa, (\d+) cores \(cluster cycles per layer\)", line)
        if m:
            key = ("net:" + m.group(1), int(m.group(2)))
            col = None
            continue
        m = re.match(r"layer\s+op\s+(.*)$", line)
        if m and key:
            heads = m.group(1).split()
            col = heads.index("engines=cluster") if "engines=cluster" in heads else None
            if col is not None:
                runs[key] = {"mem": NET_MEM.get(key[0][4:], ("l1", 64))[0], "layers": {}}
            continue
        m = re.match(r"\s*(\d+)\s+(\w+)\s+(.*)$", line)
        if m and key and col is not None:
            vals = m.group(3).replace("no code", "-").split()     # an aliased reshape: no code
            v = vals[2 * col] if len(vals) > 2 * col else "-"
            if v != "-" and vals[2 * col + 1] == "cluster":
                runs[key]["layers"][int(m.group(1))] = int(v.replace(",", ""))
        if line.startswith("total"):
            key, col = None, None
    return runs


def cdiv(a, b):
    return -(-a // b)


def parse_neureka_jobs(jobs_c, cycles_txt):
    """[(mode, oy, ox, c, k, cycles)]: tests/neureka/jobs.c's job table
    beside the '# cycles N C' lines tests/neureka/gvsoc_jobs.py wrote"""
    jobs = []
    for line in open(jobs_c):
        m = re.match(r"\s*\{HTC__NEU_(1X1|3X3|DW),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),", line)
        if m:
            jobs.append((m.group(1).lower(),) + tuple(int(m.group(i)) for i in range(2, 6)))
    cyc = {}
    for line in open(cycles_txt):
        m = re.match(r"# cycles (\d+) (\d+)", line)
        if m:
            cyc[int(m.group(1))] = int(m.group(2))
    return [j + (cyc[i],) for i, j in enumerate(jobs) if i in cyc]


def fit_neureka_3x3(jobs):
    """siracusa.lua's dense 3x3 job: intercept + NEU_3X3_STEP per subtile,
    input-channel group and group of 32 outputs + NEU_3X3_K per output
    channel per subtile and input-channel group (relative least squares);
    returns (intercept, step, per_k, [(job, fitted)])"""
    rows = [j for j in jobs if j[0] == "3x3"]
    A, b = [], []
    for _, oy, ox, c, k, cyc in rows:
        n = cdiv(oy, 6) * cdiv(ox, 6) * cdiv(c, 28)
        A.append([1.0 / cyc, n * cdiv(k, 32) / cyc, n * k / cyc])
        b.append(1.0)
    x = np.linalg.lstsq(np.array(A), np.array(b), rcond=None)[0]
    return x[0], x[1], x[2], [(j, float(np.dot(a, x)) * j[5]) for j, a in zip(rows, A)]


# N-EUREKA's linear jobs GVSoC timed, (inputs, outputs, code age, cycles):
# the code age as htc computes it (op.code_age: the layers run since the
# last linear job on N-EUREKA, -1 none earlier). MicroLlama's last token at
# 8 cores, constants in L1 (bench/bench_neureka.py, htc abadd8b + its
# target), its 56 jobs in layer order (each attention block's four 64->64
# projections at code ages 3 / -1, 5, 8, 5; the MLP's 64->256 at 3 and 1,
# its 256->64 at 1); then the one-shot networks' only linear job (its code
# never run before: cold), Deeploy's MLPerf_KeywordSpotting 64->12 and
# miniMobileNet 256->10, at 1 and 8 cores (tests/neureka/gvsoc_nets.py)
NEU_FC_JOBS = [
    (64, 64, -1, 1133), (64, 64, 5, 1151), (64, 64, 8, 1205), (64, 64, 5, 1099), (64, 256, 3, 2561),
    (64, 256, 1, 2456), (256, 64, 1, 2199), (64, 64, 3, 964), (64, 64, 5, 1045), (64, 64, 8, 1246),
    (64, 64, 5, 1130), (64, 256, 3, 2440), (64, 256, 1, 2412), (256, 64, 1, 2185), (64, 64, 3, 1102),
    (64, 64, 5, 1087), (64, 64, 8, 1224), (64, 64, 5, 1165), (64, 256, 3, 2571), (64, 256, 1, 2392),
    (256, 64, 1, 2179), (64, 64, 3, 1038), (64, 64, 5, 1112), (64, 64, 8, 1225), (64, 64, 5, 1103),
    (64, 256, 3, 2454), (64, 256, 1, 2452), (256, 64, 1, 2221), (64, 64, 3, 1098), (64, 64, 5, 1103),
    (64, 64, 8, 1139), (64, 64, 5, 1102), (64, 256, 3, 2471), (64, 256, 1, 2386), (256, 64, 1, 2163),
    (64, 64, 3, 1055), (64, 64, 5, 1082), (64, 64, 8, 1157), (64, 64, 5, 1079), (64, 256, 3, 2458),
    (64, 256, 1, 2391), (256, 64, 1, 2167), (64, 64, 3, 998), (64, 64, 5, 1037), (64, 64, 8, 1171),
    (64, 64, 5, 1179), (64, 256, 3, 2477), (64, 256, 1, 2393), (256, 64, 1, 2179), (64, 64, 3, 979),
    (64, 64, 5, 1119), (64, 64, 8, 1193), (64, 64, 5, 1103), (64, 256, 3, 2556), (64, 256, 1, 2390),
    (256, 64, 1, 2165),
    (64, 12, -1, 1163), (64, 12, -1, 1266), (256, 10, -1, 1948), (256, 10, -1, 2020)]


def neu_fc_refetch(age, warm):
    """siracusa.lua refetch() for the linear job's code: the part fetched
    again at code age `age` (all of it past `warm`, CODE_WARM, or with none
    earlier)"""
    return 1.0 if age < 0 or age > warm else age / (warm + 1.0)


def fit_neureka_fc(layers, warm=7):
    """siracusa.lua's N-EUREKA linear layer: NEU_FC_BASE + NEU_FC_CGROUP per
    group of 32 inputs + NEU_FC_K64 per group of 64 outputs + NEU_FC_REFETCH
    x neu_fc_refetch(code age), from layers [(c, k, code age, cycles)] GVSoC
    timed (relative least squares, each configuration (c, k, code age)
    weighing alike however many layers share it: MicroLlama's 32 64->64
    jobs do not outvote the one-shot networks' jobs); returns (base, cgroup,
    k64, refetch, [(layer, fitted)])"""
    count = {}
    for c, k, age, _ in layers:
        count[c, k, age] = count.get((c, k, age), 0) + 1
    w = np.sqrt([1.0 / count[c, k, age] for c, k, age, _ in layers])
    A = np.array([[1.0, cdiv(c, 32), cdiv(k, 64), neu_fc_refetch(age, warm)] for c, k, age, _ in layers])
    y = np.array([float(l[3]) for l in layers])
    x = np.linalg.lstsq(A / y[:, None] * w[:, None], w, rcond=None)[0]
    return x[0], x[1], x[2], x[3], [(l, float(np.dot(a, x))) for l, a in zip(layers, A)]


def rows_view(op, y0, y1):
    kh, sh, dh, pt, ih = op["kernel"][0], op["stride"][0], op["dilation"][0], op["pad"][0], op["in_shape"][1]
    first = max(0, y0 * sh - pt)
    last = min(ih - 1, (y1 - 1) * sh - pt + (kh - 1) * dh)
    return last - first + 1 if last >= first else 0


def pointwise(op):
    """gen/util.c op_pointwise, as htc report --json states it"""
    return op.get("pointwise", False)


def shares(op, y0, y1, tile):
    """every core's call: (rows, cols, channels, in_rows) as gen/dispatch.c cpu_share_cycles"""
    nc = op.get("cores", 1)
    split = op.get("split", "rows")
    out = []
    spatial = op["op"] in ("conv2d", "avgpool", "maxpool")
    last = op["out_shape"][-1]
    for c in range(nc):
        if spatial:
            b = 1 if tile else op["out_shape"][0]
            rows, cols, ch, inr = b * (y1 - y0), op["out_shape"][2], last, b * rows_view(op, y0, y1)
            if nc > 1 and split == "channels":
                ch = last * (c + 1) // nc - last * c // nc
            elif nc > 1 and pointwise(op):
                n = rows * cols
                rows, inr, cols = 1, 1, n * (c + 1) // nc - n * c // nc
            elif nc > 1:
                lo, hi = (y1 - y0) * c // nc, (y1 - y0) * (c + 1) // nc
                rows, inr = b * (hi - lo), b * rows_view(op, y0 + lo, y0 + hi) if hi > lo else 0
        else:
            n = 1
            for d in op["out_shape"]:
                n *= d
            rows = inr = n // last
            cols, ch = 1, last
            if nc > 1 and split == "channels":
                ch = last * (c + 1) // nc - last * c // nc
            elif nc > 1:
                rows = inr = rows * (c + 1) // nc - rows * c // nc
        if rows > 0 and cols > 0 and ch > 0:
            out.append(dict(rows=rows, cols=cols, channels=ch, in_rows=inr, tile=tile, cores=nc, core=c))
    return out


# Coefficients the measured layers do not determine (no such call among
# them), set from the instruction counts of the kernels' loops (siracusa.lua
# says which): an FC's word with the weights in L1 (htc__xp_dot1x4w: 5
# loads, 8 dot products; the measured FCs in L1 have K = 64 only, where a
# word and a block are not told apart), the slow requantization (the
# portable store, htc__requant: no measured layer takes it since the
# convolution checks each channel, htc__xrq_ok): 61, as fitted before that;
# a convolution's partial block of fewer than four channels (the loop every
# block took before htc__xp_blk2x4; no measured share has one): 411, as
# fitted then; an FC's output (its requantization, the parameters in L2):
# 100, from ToyAdmos's 128 -> 8 layer at 2, 4 and 8 cores (one block of 4, 2
# and 1 outputs a core: 4,133, 3,924, 3,823 cycles; elsewhere outputs and
# blocks go together); a pixel pair reading its fields in place and a run
# of its block (htc__xp_dot2x4r): 238.5 and 3.553, least squares of the
# relative errors with every other term held, on the 17 layers with such
# pairs (ResNet's, DS-CNN's first in both forms, 1 and 8 cores)
FIXED = {"fc_word_l1": 14.0, "dw_out_slow": 61.0, "fc_out_slow": 61.0, "conv_out_slow": 61.0, "conv_pblock": 411.0, "fc_out": 100.0,
         "conv_field_s": 2.164, "conv_frow_s": 68.92, "conv_ipair": 238.5, "conv_irun": 3.553,
         # a pointwise call's pixel pair: least squares on the KWS QuantLib
         # graph's and the .tflite DS-CNN's pointwise layers at 1 and 8 cores
         # (siracusa.lua K_)
         "conv_pwpair": 75.0,
         # fields across the image's border, per row and per call, and the
         # weight rows copied K4 apart: measured by knocking them out of the
         # kernel (siracusa.lua K_)
         "conv_brow": 26.0, "conv_bcall": 1660.0, "conv_wrow": 85.0,
         # the 4x4 blocks (htc__xp_dot4x4b): per word and run from the
         # instructions (a word 24.0 cycles on GVSoC), per block without a
         # fused ReLU 3 instructions an output; per quad and per block least
         # squares of the relative errors with every other term held, on
         # ResNet's 16 layers with quads at 1 and 8 cores (siracusa.lua K_)
         "conv_quad": 214.2, "conv_qblock": 323.4, "conv_qblock_x4": 48.0, "conv_qword": 24.0, "conv_qrun": 8.0,
         # the same with QuantLib's requantization, on Deeploy's KWS's
         # pointwise layers at 8 cores (siracusa.lua K_)
         "conv_qblock_ql": 223.0,
         # the max pool's pair per window row and per tap (htc__maxpool_xp's
         # hardware loops: an add; two p.lw, two pv.max.b), its scalar tail
         # per channel tap from the instructions (siracusa.lua K_)
         "mp_row": 1.0, "mp_tap": 4.0, "mp_byte": 8.0}


def pad_before(o, st, k, dl, i):
    """siracusa.lua pad_before: half of SAME's total padding"""
    t = (o - 1) * st + (k - 1) * dl + 1 - i
    return t // 2 if t > 0 else 0


def pads(op):
    """the padding before the rows and columns: the report's (gen/report.c
    "pad", as gen/target_call.c gives siracusa.lua pad_top / pad_left), else
    half of SAME's total"""
    if "pad" in op:
        return op["pad"][0], op["pad"][1]
    IH, IW, OX = op["in_shape"][1], op["in_shape"][2], op["out_shape"][2]
    (kh, kw), (sh, sw) = op["kernel"], op["stride"]
    return pad_before(op["out_shape"][1], sh, kh, 1, IH), pad_before(OX, sw, kw, 1, IW)


def conv_inplace(op, qa, qb):
    """siracusa.lua conv_inplace: the pixel pairs of pixels [qa, qb) reading
    their fields in place (kernels/conv2d.c htc__conv2d_xp_body, dr)"""
    IH, IW, OX = op["in_shape"][1], op["in_shape"][2], op["out_shape"][2]
    kh, kw = op["kernel"]
    sh, sw = op["stride"]
    pt, pl = pads(op)
    n = 0
    for q in range(qa, qb - 1, 2):
        oy, ox = divmod(q, OX)
        iy, ix = oy * sh - pt, ox * sw - pl
        if ox + 1 < OX and iy >= 0 and iy + kh <= IH and ix >= 0 and ix + sw + kw <= IW:
            n += 1
    return n


def conv_walk(op, qa, qb, K4, w):
    """siracusa.lua conv_walk: 4x4 quads (in place, copied) and pairs (all,
    in place) of pixels [qa, qb), weighted by w"""
    IH, IW, OX = op["in_shape"][1], op["in_shape"][2], op["out_shape"][2]
    kh, kw = op["kernel"]
    sh, sw = op["stride"]
    pt, pl = pads(op)
    n, q = 0, qa
    while q < qb:
        oy, ox = divmod(q, OX)
        iy, ix = oy * sh - pt, ox * sw - pl
        rows = iy >= 0 and iy + kh <= IH
        in4 = rows and ix >= 0 and ix + 3 * sw + kw <= IW
        if q + 3 < qb and ox + 3 < OX and (in4 or 4 * K4 <= 2304):
            n += w[0] if in4 else w[1]
            q += 4
        else:
            n += w[2]
            if q + 1 < qb and ox + 1 < OX and rows and ix >= 0 and ix + sw + kw <= IW:
                n += w[3]
            q += 2
    return n


def conv_border(op, qa, qb):
    """siracusa.lua conv_border: the fields of pixels [qa, qb) across the
    image's border (htc__xp_im2col)"""
    if op["dilation"] not in ([1, 1], (1, 1)):
        return qb - qa
    IH, IW, OX = op["in_shape"][1], op["in_shape"][2], op["out_shape"][2]
    kh, kw = op["kernel"]
    sh, sw = op["stride"]
    pt, pl = pads(op)
    n = 0
    for q in range(qa, qb):
        oy, ox = divmod(q, OX)
        iy, ix = oy * sh - pt, ox * sw - pl
        if iy < 0 or iy + kh > IH or ix < 0 or ix + kw > IW:
            n += 1
    return n



def xp_paircost(op, nin, ncp):
    """siracusa.lua xp_paircost (kernels/conv2d.c htc__xp_paircost)"""
    kh, kw = op["kernel"]
    K, nb = kh * kw * op["in_shape"][3], (op["out_shape"][3] + 3) // 4
    base = nb * (180 + 14 * ((K + 3) // 4))
    return nin * (base + 240 + 4 * nb * kh) + ncp * (base + 2 * (K + K // 4 + 75 * kh))


def xp_split(op, core, cores):
    """siracusa.lua xp_split (kernels/conv2d.c htc__xp_split): core's pixels
    (qa, qb) divided by pixel pairs, or None (by rows)"""
    IH, IW, C = op["in_shape"][1], op["in_shape"][2], op["in_shape"][3]
    OH, OX, OC = op["out_shape"][1], op["out_shape"][2], op["out_shape"][3]
    (kh, kw), (sh, sw) = op["kernel"], op["stride"]
    pt, pl = pads(op)
    npix, hw, nin, tb, bb = OH * OX, OX // 2, 0, 0, 0
    if (cores > 1 and OX >= 32 and OX % 2 == 0 and op["dilation"] in ([1, 1], (1, 1)) and (kw * C) % 4 == 0
            and OC % 4 == 0):
        nin = sum(1 for j in range(hw) if 2 * j * sw - pl >= 0 and 2 * j * sw - pl + sw + kw <= IW)
    while nin > 0 and tb < OH and tb * sh - pt < 0:
        tb += 1
    while nin > 0 and bb < OH - tb and (OH - 1 - bb) * sh - pt + kh > IH:
        bb += 1
    if nin > 0 and OH % cores == 0 and tb + bb > 0:
        rin, rcp = xp_paircost(op, nin, hw - nin), xp_paircost(op, 0, hw)
        r = OH // cores
        t0, b0 = min(tb, r), min(bb, r)
        tot = (tb + bb) * rcp + (OH - tb - bb) * rin
        c0, c1 = t0 * rcp + (r - t0) * rin, b0 * rcp + (r - b0) * rin
        if max(c0, c1) * cores - tot > xp_paircost(op, 0, 1) * cores:
            def bound(t):
                a = 0
                for oy in range(OH):
                    rc = rcp if oy < tb or oy >= OH - bb else rin
                    if a + rc > t:
                        return 2 * (oy * hw + ((t - a) * hw + rc // 2) // rc)
                    a += rc
                return npix
            return bound(tot * core // cores), bound(tot * (core + 1) // cores)
    if OH % cores == 0:
        return None
    pr = (npix + 1) // 2
    lo, hi = pr * core // cores, pr * (core + 1) // cores
    return 2 * lo, min(2 * hi, npix)

def call_count(count, op, s, qr, P):
    """siracusa.lua call_count: count(op, a, b) over one call's pixels"""
    OH, OX = op["out_shape"][1], op["out_shape"][2]
    if qr:
        return count(op, *qr)
    if s["tile"] == 0 and s["cores"] > 1 and s["channels"] == op["out_shape"][3]:
        lo, hi = OH * s["core"] // s["cores"], OH * (s["core"] + 1) // s["cores"]
        return op["out_shape"][0] * count(op, lo * OX, hi * OX)
    if s["tile"] == 0:
        return op["out_shape"][0] * count(op, 0, OH * OX)
    return count(op, 0, OH * OX) * P // (OH * OX)

def fast(op, taps):
    """htc.h htc__prq_ok from the largest |bias| (siracusa.lua rq_fast)"""
    return taps < 32768 and op.get("bias_absmax", 0) < (1 << 30) - taps * 32640


def features(op, s, mem):
    """targets/siracusa.lua feat_* (the same counts)"""
    k = op["op"]
    if k == "conv2d":
        C, OX = op["in_shape"][3], op["out_shape"][2]
        kh, kw = op["kernel"]
        sh, sw = op["stride"]
        ql = op.get("requant") == "quantlib"
        x2 = op.get("xq2", False)
        x4 = x2 and op.get("xq3u", False)     # siracusa.lua: the three-product form without a fused ReLU
        if op["depthwise"]:
            return dict(feat_dw(op, s["rows"], s["cols"], s["channels"], ql, x2), band=s["tile"])
        pw = pointwise(op)
        K = kh * kw * C
        K4 = K if pw else (K + 3) // 4 * 4
        P = s["rows"] * s["cols"]
        OH = op["out_shape"][1]
        qr = None
        if (not pw and s["tile"] == 0 and s["cores"] > 1 and s["channels"] == op["out_shape"][3]
                and op["out_shape"][0] == 1 and K4 <= 576):
            # siracusa.lua: the XpulpV2 path divides pixel pairs (xp_split)
            qr = xp_split(op, s["core"], s["cores"])
            if qr:
                P = qr[1] - qr[0]
        pairs = (P + 1) // 2
        full, part = s["channels"] // 4, 1 if s["channels"] % 4 else 0
        q = K < 32768
        short = kw * C < 8      # siracusa.lua: a field row copied without the hardware loop
        ip = qin = qcp = 0      # siracusa.lua: pixel pairs reading their fields in place, 4x4 quads
        nbq = min(s["channels"], 64) // 4     # siracusa.lua: a pointwise layer's quads
        if pw and q and (x2 or ql) and K % 4 == 0 and K >= 16 and part == 0 and nbq * (85 - K) < (98 if ql else 196):
            if s["tile"] == 0:
                qin = call_count(lambda o, a, b: (b - a) // 4, op, s, qr, P)
                pairs = call_count(lambda o, a, b: ((b - a) % 4 + 1) // 2, op, s, qr, P)
            else:
                qin, pairs = P // 4, (P % 4 + 1) // 2
        if not pw and q and op["dilation"] in ([1, 1], (1, 1)) and (kw * C) % 4 == 0 and part == 0:
            if (x2 or ql) and kw * C >= 16:
                def walk(w):
                    return lambda o, a, b: conv_walk(o, a, b, K4, w)
                qin = call_count(walk((1, 0, 0, 0)), op, s, qr, P)
                qcp = call_count(walk((0, 1, 0, 0)), op, s, qr, P)
                pairs = call_count(walk((0, 0, 1, 0)), op, s, qr, P)
                ip = call_count(walk((0, 0, 0, 1)), op, s, qr, P)
            else:
                ip = call_count(conv_inplace, op, s, qr, P)
        F = P - 4 * qin - 2 * ip
        B = 0                   # siracusa.lua: copied fields across the border
        if not pw:
            B = call_count(conv_border, op, s, qr, P)
        wrows = 0               # siracusa.lua: weight rows copied K4 apart
        if not pw and K4 > K:
            for c in range(0, s["channels"], 64):
                if (2 + min(64, s["channels"] - c)) * K4 <= 1152:
                    wrows += min(64, s["channels"] - c)
        return dict(conv_brow=0 if short or pw else B * kh, conv_bcall=1 if B > 0 and not short and not pw else 0,
                    conv_wrow=wrows,
                    conv_call=1, conv_wsum=0 if x2 else s["channels"] * K, conv_block=0 if ql or x2 else pairs * full,
                    conv_block_ql=pairs * full if ql else 0, conv_block_x2=pairs * full if x2 and not x4 else 0,
                    conv_block_x4=pairs * full if x4 else 0, conv_pblock=pairs * part, conv_pwpair=pairs if pw else 0,
                    conv_word=pairs * (full + part) * (K4 // 4), conv_out=P * s["channels"] if q else 0,
                    conv_out_slow=0 if q else P * s["channels"], conv_field=0 if pw or short else F * K,
                    conv_frow=0 if pw or short else F * kh, conv_field_s=F * K if short and not pw else 0,
                    conv_frow_s=F * kh if short and not pw else 0, conv_ipair=ip, conv_irun=ip * full * kh,
                    conv_quad=qin + qcp, conv_qblock=0 if ql else (qin + qcp) * full,
                    conv_qblock_ql=(qin + qcp) * full if ql else 0, conv_qblock_x4=(qin + qcp) * full if x4 else 0,
                    conv_qword=(qin + qcp) * full * (K4 // 4), conv_qrun=(qin * kh + qcp) * full,
                    band=s["tile"])
    if k == "fc":
        K = op["in_shape"][-1]
        blocks = s["rows"] * ((s["channels"] + 3) // 4)
        w = blocks * ((K + 3) // 4)
        n = s["rows"] * s["channels"]
        q = fast(op, K)
        ql = op.get("requant") == "quantlib"
        # one core, no split: the kernel reads the parameter block where the
        # header has it (L2 unless mem=l1); divided, from each core's copy
        pl2 = blocks if op.get("cores", 1) == 1 and mem != "l1" else 0
        return dict(fc_call=1, fc_pl2=pl2, fc_xl2=w if mem == "tile" else 0, fc_block_l1=blocks if mem == "l1" else 0, fc_block_l2=0 if mem == "l1" else blocks,
                    fc_word_l1=w if mem == "l1" else 0, fc_word_l2=0 if mem == "l1" else w,
                    fc_out=n if q and not ql else 0, fc_out_ql=n if ql else 0, fc_out_slow=0 if q or ql else n)
    if k == "maxpool":
        px = s["rows"] * s["cols"]
        pairs, tail = (s["channels"] // 4 + 1) // 2, s["channels"] % 4
        taps = op["kernel"][0] * op["kernel"][1]
        return dict(mp_call=1, mp_px=px, mp_pair=px * pairs, mp_row=px * pairs * op["kernel"][0],
                    mp_tap=px * pairs * taps, mp_byte=px * tail * taps, band=s["tile"])
    if k == "avgpool":     # siracusa.lua feat_pool
        ih, iw, c = op["in_shape"][1], op["in_shape"][2], op["in_shape"][3]
        px = s["rows"] * s["cols"]
        kh, kw = min(op["kernel"][0], ih), min(op["kernel"][1], iw)
        taps, runs = kh * kw, 1 if kw == iw else kh
        lo = 0 if s["channels"] == c else c * s["core"] // s["cores"]
        w8 = w4 = nb = 0
        for c0 in range(lo, lo + s["channels"], 64):
            n = min(64, lo + s["channels"] - c0)
            ja = jb = 0
            if c % 4 == 0:
                ja = min((4 - c0 % 4) % 4, n)
                jb = ja + (n - ja) // 4 * 4
            w8 += (jb - ja) // 8
            w4 += (jb - ja) % 8 // 4
            nb += n - (jb - ja)
        return dict(pool_call=1, pool_out=px * s["channels"], pool_w8=px * taps * w8, pool_w4=px * taps * w4,
                    pool_run=px * runs * (w8 + w4), pool_in=px * taps * nb,
                    pool_out_t=px * s["channels"] if mem == "tile" else 0, band=s["tile"])
    if k == "add":
        n = s["rows"] * s["channels"]
        if op.get("xq2"):       # the tables in final form (htc__add_xq); p.clip unless the range needs p.max, p.min
            clip = not op.get("xaddm")
            return dict(add_call_x=1, add_elem_x=n if clip else 0, add_elem_xm=0 if clip else n)
        return dict(add_call=1, add_elem=n)
    if k == "softmax":
        return dict(sm_call=1, sm_elem=s["rows"] * s["channels"])
    return {}


def feat_dw(op, rows, cols, channels, ql, x2=False):
    """targets/siracusa.lua feat_dw (htc__dwconv2d_xp_body's plane geometry)"""
    kh, kw = op["kernel"]
    sh, sw = op["stride"]
    dh, dw = op["dilation"]
    ih, iw, C = op["in_shape"][1], op["in_shape"][2], op["in_shape"][3]
    oh, ow = op["out_shape"][1], op["out_shape"][2]

    def before(o, st, k, d, i):
        t = (o - 1) * st + (k - 1) * d + 1 - i
        return t // 2 if t > 0 else 0
    pt, pl = op["pad"][0], op["pad"][1]

    def g(tr):
        if tr:
            r = dict(na=rows, nl=cols, sa=sh, sl=sw, dl=dw, da=dh, ka=kh, kl=kw, pa=pt, ina=ih, pl=pl, inl=iw)
        else:
            r = dict(na=cols, nl=rows, sa=sw, sl=sh, dl=dh, da=dw, ka=kw, kl=kh, pa=pl, ina=iw, pl=pt, inl=ih)
        r["L"] = ((r["na"] - 1) * r["sa"] + 4 + 3) // 4 * 4
        r["span"] = (r["kl"] - 1) * r["dl"] + 1
        r["fits"] = r["ka"] <= 4 and r["da"] == 1 and r["kl"] <= 8 and r["span"] <= 2048 // r["L"]
        return r
    d = g(True)
    if not (rows > cols and d["fits"]):
        d = g(False)
    grp = C % 4 == 0 and d["span"] <= 512 // d["L"]
    PL = 512 if grp else 2048
    n4 = channels // 4 if grp else 0
    n1 = channels - 4 * n4
    lines = PL // d["L"]
    allr = (d["nl"] - 1) * d["sl"] + d["span"]
    j0 = min(d["pa"], d["L"])
    j1 = max(j0, min(d["pa"] + d["ina"], d["L"]))
    # the padding words of each line: columns [0, j0) and [j1, L)
    fill = min(lines, allr) * ((j0 + 3) // 4 + (d["L"] - j1 // 4 * 4) // 4) * (4 if grp else 1)
    ny = max(1, (PL // d["L"] - d["span"]) // d["sl"] + 1)
    inside = outside = chunks = y0 = 0
    while y0 < d["nl"]:
        y1 = min(d["nl"], y0 + ny)
        nrows, il0 = (y1 - 1 - y0) * d["sl"] + d["span"], y0 * d["sl"] - d["pl"]
        for r in range(nrows):
            il = il0 + r
            if il < 0 or il >= d["inl"]:
                outside += 1
            else:
                inside += 1
        chunks += 1
        y0 = y1
    n = rows * cols * channels
    mis = {1: 3, 2: 2, 3: 3}.get(d["sa"], 0)
    # siracusa.lua: outputs in pairs (htc__dw_xp_lines3p_*)
    np_ = d["na"] // 2 * 2 * d["nl"] * channels if d["sa"] == 1 and d["na"] >= 12 and d["ka"] <= 3 and d["kl"] == 3 else 0
    return dict(dw_call=1, dw_chan=channels, dw_fill=fill, dw_px4=n4 * inside * (j1 - j0), dw_px1=n1 * inside * (j1 - j0),
                dw_padw=(n4 * 4 + n1) * outside * d["L"] // 4, dw_line=channels * d["nl"], dw_chunk=channels * chunks,
                dw_out=0 if ql or x2 else n, dw_out_ql=n if ql else 0, dw_out_x2=n if x2 else 0,
                dw_mis=((n - np_) * mis + np_) * d["kl"] // 4, dw_pair=np_)


def add(a, b, w=1.0):
    for k, v in b.items():
        a[k] = a.get(k, 0) + w * v


def layer_features(op, mem, cores, theta):
    """the layer's features summed over its critical path (slowest core per
    call, by the current coefficients theta), and the DMA cycles outside
    the fit (the weights' and first band in, the last band out)"""
    f = {"overhead_" + ("tile" if mem == "tile" else "l1"): 1, "overhead_par": 1 if cores > 1 else 0}
    fixed = 0.0
    nc = op.get("cores", 1)

    def slowest(cs):
        best, bc = None, -1
        for s in cs:
            ff = features(op, s, mem)
            c = sum(theta.get(k, 0) * v for k, v in ff.items())
            if c > bc:
                best, bc = ff, c
        return best or {}
    if op["op"] == "reshape":
        return f, fixed
    l1 = op.get("l1") if mem == "tile" else None    # l1 / l2: the firmware runs the plain calls
    if l1:
        rows, n = l1["rows"], l1["tiles"]
        h = op["out_shape"][1]
        inrow = op["in_shape"][2] * op["in_shape"][3]
        outrow = op["out_shape"][2] * op["out_shape"][3]
        wb = op.get("weight_bytes", 0)
        dma = lambda b: 80 + b / 8.0 if b else 0
        fixed += dma(wb) + dma(rows_view(op, 0, min(rows, h)) * inrow) + dma((h - (n - 1) * rows) * outrow)
        for t in range(n):
            y0, y1 = t * rows, min(h, (t + 1) * rows)
            add(f, slowest(shares(op, y0, y1, 1)))
            if nc > 1:
                f["fork"] = f.get("fork", 0) + 1
        return f, fixed
    h = op["out_shape"][1] if op["op"] in ("conv2d", "avgpool", "maxpool") else 1
    add(f, slowest(shares(op, 0, h, 0)))
    if nc > 1:
        f["fork"] = 1
    return f, fixed


def nnls(A, b, iters=200):
    """non-negative least squares (Lawson-Hanson, small)"""
    n = A.shape[1]
    P = np.zeros(n, bool)
    x = np.zeros(n)
    for _ in range(iters):
        w = A.T @ (b - A @ x)
        cand = (~P) & (w > 1e-9)
        if not cand.any():
            break
        P[np.argmax(np.where(cand, w, -np.inf))] = True
        while True:
            z = np.zeros(n)
            z[P] = np.linalg.lstsq(A[:, P], b, rcond=None)[0]
            if (z[P] > 0).all():
                x = z
                break
            neg = P & (z <= 0)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            P &= x > 1e-12
    return x


def num(v):
    """a coefficient as siracusa.lua writes it (4 significant digits)"""
    return str(round(v)) if v >= 1000 else "%.4g" % v if v >= 1e-3 else "0"


def read_lua(path):
    """the K_ table's coefficients, fork and overhead of siracusa.lua (write_lua's names)"""
    src = open(path).read()
    a = src.index("local K_ = {")
    b = src.index("\n}\n", a)
    theta = {k: float(v) for k, v in re.findall(r"\b(\w+) = ([-0-9.e+]+)", src[a:b])}
    m = re.search(r"\n    fork = ([-0-9.e+]+|\w+),", src)
    f = m.group(1)
    if not re.match(r"[-0-9.]", f):     # a named constant (local CPU_FORK = 952)
        f = re.search(r"\nlocal %s = ([-0-9.e+]+)" % f, src).group(1)
    theta["fork"] = float(f)
    m = re.search(r'overhead = \(MEM == "tile" and ([-0-9.e+]+) or ([-0-9.e+]+)\) \+ \(CORES > 1 and ([-0-9.e+]+) or 0\)', src)
    theta["overhead_tile"], theta["overhead_l1"], theta["overhead_par"] = (float(v) for v in m.groups())
    return theta


def write_lua(path, theta):
    """the K_ table's coefficients, fork and overhead of siracusa.lua"""
    src = open(path).read()
    a = src.index("local K_ = {")
    b = src.index("\n}\n", a)
    table = src[a:b]
    for k, v in theta.items():
        if k.startswith("overhead") or k == "fork":
            continue
        table, n = re.subn(r"\b%s = [-0-9.e+]+" % k, "%s = %s" % (k, num(v)), table)
        if n != 1:
            sys.exit("fit_siracusa: %s: %s appears %d times in the K_ table" % (path, k, n))
    src = src[:a] + table + src[b:]
    if "fork" not in theta:         # --only: the K_ table's fitted terms alone
        open(path, "w").write(src)
        return
    src, n1 = re.subn(r"(\n    fork = )[-0-9.e+]+,", r"\g<1>%s," % num(theta["fork"]), src)
    src, n2 = re.subn(r'overhead = \(MEM == "tile" and [-0-9.e+]+ or [-0-9.e+]+\) \+ \(CORES > 1 and [-0-9.e+]+ or 0\)',
                      'overhead = (MEM == "tile" and %s or %s) + (CORES > 1 and %s or 0)'
                      % (num(theta["overhead_tile"]), num(theta["overhead_l1"]), num(theta["overhead_par"])), src)
    if n1 != 1 or n2 != 1:
        sys.exit("fit_siracusa: %s: fork or overhead not found in the cpu table" % path)
    open(path, "w").write(src)


# QuantLib's tables and Adds divided over 8 cores (siracusa.lua
# FORK_QL_TABLE, QLX_FORK with the arena in L1, QL_FORK_L2 more with it in
# L2): the layers GVSoC timed less the estimate with those forks 0
FORK_LINE = re.compile(r"local FORK_TABLE, FORK_TRANSPOSE, FORK_QL_TABLE, QL_FORK_L2 = ([-0-9.e+]+), ([-0-9.e+]+), "
                       r"[-0-9.e+]+, [-0-9.e+]+")
QLX_LINE = re.compile(r"local QLX_COLD, QLX_FORK, QLX_WARM = ([-0-9.e+]+), [-0-9.e+]+, ([-0-9.e+]+)")


def parse_neureka_bench(path):
    """bench/bench_neureka.py's output: ({(net, cores): {i: cycles}} of
    Deeploy's networks (engines=cluster), {i: (cores, cycles)} of
    MicroLlama's last token, N-EUREKA and constants in L1)"""
    nets, llama, key = {}, {}, None
    for line in open(path):
        m = re.match(r"(\S+): cluster cycles on GVSoC per layer beside the estimate \((\d+) cores\)", line)
        if m:
            key = (m.group(1), int(m.group(2)))
            nets[key] = {}
            continue
        m = re.match(r"\s+(\d+)\s+\w+\s+cluster\s+([\d,]+)\s+[\d,]+", line)
        if m and key:
            nets[key][int(m.group(1))] = int(m.group(2).replace(",", ""))
            continue
        m = re.match(r"\s+(\d+) \w+\s+\w+\s+c(\d+)\s+([\d,]+)\s+[\d,]+\s+[-+]", line)
        if m:
            key = None
            llama[int(m.group(1))] = (int(m.group(2)), int(m.group(3).replace(",", "")))
    return nets, llama


def fit_ql_fork(a, logs):
    """FORK_QL_TABLE, QLX_FORK and QL_FORK_L2 (one for both) by relative
    least squares on every 8-core QuantLib table and Add (htc__ql_xadd) in
    the bench_neureka.py outputs `logs` (Deeploy's networks: the arena in
    L1; MicroLlama with N-EUREKA: in L2)"""
    src = open(a.target).read()
    if not FORK_LINE.search(src) or not QLX_LINE.search(src):
        sys.exit("fit_siracusa: %s: no FORK_QL_TABLE / QLX_FORK line" % a.target)
    zero = os.path.join(os.path.dirname(os.path.abspath(a.target)), ".fit_fork0.lua")
    src = FORK_LINE.sub(r"local FORK_TABLE, FORK_TRANSPOSE, FORK_QL_TABLE, QL_FORK_L2 = \1, \2, 0, 0", src)
    open(zero, "w").write(QLX_LINE.sub(r"local QLX_COLD, QLX_FORK, QLX_WARM = \1, 0, \2", src))

    def report(args, target):
        r = subprocess.run([a.htc, "report"] + args + ["-t", target, "--json"], capture_output=True, text=True)
        if r.returncode:
            sys.exit("fit_siracusa: htc report failed: " + r.stderr[-300:])
        return {l["index"]: l for l in json.loads(r.stdout)["layers"]}

    rows = []       # (layer, kind, arena in L2, gvsoc cycles, estimate less the fork)
    try:
        for path in logs:
            nets, llama = parse_neureka_bench(path)
            runs = [("%s c8" % net, 0, meas, [os.path.join(a.deeploy, net, "network.onnx"), "-D", "engines=cluster", "-D", "cores=8",
                                              "-D", "l1_kib=%d" % NET_MEM.get(net, ("l1", 64))[1],
                                              "-D", "mem=" + NET_MEM.get(net, ("l1", 64))[0],
                                              "--input", os.path.join(a.deeploy, net, "inputs.npz")])
                    for (net, n), meas in nets.items() if n == 8]
            if llama:
                runs.append(("microLlama", 1, {i: c for i, (n, c) in llama.items() if n == 8},
                             [os.path.join(a.deeploy, "microLlama_INT8_microLlama1", "network.onnx"), "-D", "cores=8",
                              "-D", "engines=both", "-D", "l1_kib=16", "-D", "mem=l1"]))
            for net, l2, meas, args in runs:
                base, z = report(args, a.target), report(args, zero)
                for i, l in base.items():
                    kind = "table" if l["op"] == "table" else "add" if l["op"] == "add" and l.get("xq2") else None
                    if (kind and i in meas and l.get("requant") == "quantlib" and l.get("cores") == 8
                            and z[i].get("cores") == 8):
                        rows.append(("%s %d" % (net, i), kind, l2, meas[i], z[i]["est_cycles"]))
    finally:
        os.unlink(zero)
    A = np.array([[float(r[1] == "table") / r[3], float(r[1] == "add") / r[3], r[2] / r[3]] for r in rows])
    x = np.linalg.lstsq(A, np.array([1.0 - r[4] / r[3] for r in rows]), rcond=None)[0]
    print("FORK_QL_TABLE, QLX_FORK, QL_FORK_L2 = %.0f, %.0f, %.0f" % tuple(x))
    n = 0
    for (what, kind, l2, cyc, e0), f in zip(rows, A):
        est = e0 + float(np.dot(f, x)) * cyc
        n += abs(est - cyc) <= 0.15 * cyc
        print("  %-40s %-5s arena %s: gvsoc %6d, fork %4d, fitted %6.0f %+6.1f%%" % (
            what, kind, "L2" if l2 else "L1", cyc, cyc - e0, est, 100.0 * (est - cyc) / cyc))
    print("  within 15%%: %d of %d" % (n, len(rows)))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--htc", default=os.path.join(TOP, "htc"))
    ap.add_argument("--target", default=os.path.join(TOP, "targets", "siracusa.lua"))
    ap.add_argument("--models", default=os.path.join(TOP, "..", "shared", "models", "mlperf_tiny"))
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--write", help="siracusa.lua to rewrite with the coefficients")
    ap.add_argument("--deeploy", default=os.path.join(TOP, "..", "shared", "deeploy-tests"))
    ap.add_argument("--nets", action="append", default=[],
                    help="tests/neureka/gvsoc_nets.py output (Deeploy's QuantLib networks, engines=cluster)")
    ap.add_argument("--neureka-jobs", metavar="CYCLES_TXT",
                    help="tests/neureka/gvsoc_jobs.txt: fit N-EUREKA's 3x3 step (NEU_3X3_STEP, NEU_3X3_K) and stop")
    ap.add_argument("--neureka-job", action="append", default=[], metavar="MODE,OY,OX,C,K,CYCLES",
                    help="one more job timed on GVSoC (e.g. 3x3,7,7,3,32,3728: miniMobileNet's)")
    ap.add_argument("--neureka-fc-jobs", action="store_true",
                    help="fit N-EUREKA's linear job (NEU_FC_*) on NEU_FC_JOBS and any --neureka-fc, and stop")
    ap.add_argument("--neureka-fc", action="append", default=[], metavar="C,K,AGE,CYCLES",
                    help="one more N-EUREKA linear layer GVSoC timed (AGE: its code age, -1 none earlier)")
    ap.add_argument("--only", metavar="PREFIX",
                    help="fit only the coefficients named PREFIX... (e.g. dw_) on the layers that have them, the others "
                         "fixed at the target's values")
    ap.add_argument("--ql-fork", action="append", default=[], metavar="BENCH_NEUREKA_OUTPUT",
                    help="bench/bench_neureka.py output: fit FORK_QL_TABLE, QLX_FORK, QL_FORK_L2 on its 8-core QuantLib "
                         "tables and Adds (--target: the target that built it), and stop")
    ap.add_argument("bench", nargs="*")
    a = ap.parse_args()
    if a.ql_fork:
        return fit_ql_fork(a, a.ql_fork)
    if a.neureka_fc_jobs or a.neureka_fc:
        jobs = NEU_FC_JOBS + [tuple(int(v) for v in e.split(",")) for e in a.neureka_fc]
        m = re.search(r"local CODE_WARM = (\d+)", open(a.target).read())
        base, cg, k64, ref, fitted = fit_neureka_fc(jobs, int(m.group(1)) if m else 7)
        print(f"N-EUREKA fc: NEU_FC_BASE, NEU_FC_CGROUP, NEU_FC_K64, NEU_FC_REFETCH = {base:.1f}, {cg:.1f}, {k64:.1f}, "
              f"{ref:.1f}")
        for (c, k, age, cyc), est in fitted:
            print(f"  fc {c}->{k} code age {age:>2}: gvsoc {cyc:>6,} fit {est:>8,.0f} {100.0 * (est - cyc) / cyc:+6.1f}%")
        return 0
    if a.neureka_jobs:
        jobs = parse_neureka_jobs(os.path.join(TOP, "tests", "neureka", "jobs.c"), a.neureka_jobs)
        for e in a.neureka_job:
            f = e.split(",")
            jobs.append((f[0].lower(),) + tuple(int(v) for v in f[1:6]))
        base, step, per_k, fitted = fit_neureka_3x3(jobs)
        print(f"N-EUREKA 3x3 job: intercept {base:.1f}; NEU_3X3_STEP = {step:.1f}, NEU_3X3_K = {per_k:.2f}")
        for (mode, oy, ox, c, k, cyc), est in fitted:
            print(f"  {mode} {oy}x{ox} {c}->{k}: gvsoc {cyc:>6,} fit {est:>8,.0f} {100.0 * (est - cyc) / cyc:+6.1f}%")
        return 0
    runs = {}
    for p in a.bench:
        runs.update(parse_bench(p))
    for p in a.nets:
        runs.update(parse_nets(p))
    reps = {}
    for (model, n), r in sorted(runs.items()):
        if model.startswith("net:"):
            d = os.path.join(a.deeploy, model[4:])
            mem, kib = NET_MEM.get(model[4:], ("l1", 64))
            j = subprocess.run([a.htc, "report", os.path.join(d, "network.onnx"), "-t", a.target, "-D", f"cores={n}",
                                "-D", f"l1_kib={kib}", "-D", f"mem={mem}", "--input", os.path.join(d, "inputs.npz"), "--json"],
                               stdout=subprocess.PIPE, text=True)
            reps[(model, n)] = json.loads(j.stdout)
            continue
        cmd = [a.htc, "report", os.path.join(a.models, MODELS[model]), "-t", a.target, "-D", f"cores={n}", "--json"]
        j = subprocess.run(cmd + ["-D", f"mem={r['mem']}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if j.returncode:     # an htc / target without mem: the default configuration
            j = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        reps[(model, n)] = json.loads(j.stdout)
    names = sorted(set({"overhead_tile", "overhead_l1", "overhead_par", "conv_out_slow", "dw_out_slow", "fc_out_slow", "fork", "band", "conv_call", "conv_wsum", "conv_block", "conv_pblock",
                    "conv_word", "conv_out", "conv_field", "conv_frow", "conv_field_s", "conv_frow_s", "conv_block_ql", "conv_block_x2", "conv_block_x4", "dw_call", "dw_chan", "dw_fill", "dw_px4",
                    "dw_px1", "dw_padw", "dw_line", "dw_chunk", "dw_out", "dw_out_ql", "dw_out_x2", "dw_mis", "dw_pair", "mp_call", "mp_px",
                    "mp_pair", "mp_byte", "fc_out_ql", "fc_call", "fc_pl2", "fc_xl2", "fc_block_l1", "fc_block_l2", "fc_word_l1", "fc_word_l2", "fc_out", "pool_call",
                    "pool_out", "pool_w8", "pool_w4", "pool_run", "pool_in", "pool_out_t", "add_call", "add_elem", "add_call_x", "add_elem_x", "add_elem_xm", "sm_call", "sm_elem"}) - set(FIXED))
    if a.only:
        cur = read_lua(a.target)
        FIXED.update({k: cur[k] for k in names if not k.startswith(a.only)})
        names = [k for k in names if k.startswith(a.only)]
    theta = {k: 1.0 for k in names}
    if a.only:
        theta.update(FIXED)
    rows = []
    for it in range(a.iters):
        rows, A, b = [], [], []
        for (model, n), r in sorted(runs.items()):
            mem = r["mem"]
            for lay in reps[(model, n)]["layers"]:
                i = lay["index"]
                if i not in r["layers"] or lay["engine"] != "cluster":
                    continue
                if model.startswith("net:") and lay["op"] not in ("conv2d", "fc", "maxpool", "reshape"):
                    continue        # QuantLib's other layers: per-element figures, not these features
                meas = r["layers"][i]
                f, fixed = layer_features(lay, mem, n, theta)
                if a.only and not any(k.startswith(a.only) and v for k, v in f.items()):
                    continue
                known = fixed + sum(FIXED[k] * f.get(k, 0) for k in FIXED)
                A.append([f.get(k, 0) / meas for k in names])
                b.append(1.0 - known / meas)
                rows.append((model, n, i, lay["op"], meas, f, fixed))
        x = nnls(np.array(A), np.array(b))
        theta = dict(zip(names, x))
        theta.update(FIXED)
    print("coefficients (paste into targets/siracusa.lua):")
    for k in sorted(theta):
        print(f"  {k} = {theta[k]:.4g}" + ("  (fixed)" if k in FIXED else ""))
    if a.write:
        write_lua(a.write, {k: theta[k] for k in names} if a.only else theta)
    within = {}
    worst = {}
    for model, n, i, op, meas, f, fixed in rows:
        est = fixed + sum(theta[k] * v for k, v in f.items())
        err = 100.0 * (est - meas) / meas
        print(f"{model:4} cores={n} layer {i:2d} {op:8} gvsoc {meas:>10,} fit {est:>12,.0f} {err:+6.1f}%")
        key = (model, n)
        w = within.setdefault(key, [0, 0])
        w[0] += abs(err) <= 15
        w[1] += 1
        if abs(err) > abs(worst.get(key, (0, 0))[1]):
            worst[key] = (i, err)
    for key in sorted(within):
        print(f"{key[0]} cores={key[1]}: within 15%: {within[key][0]}/{within[key][1]}, worst layer {worst[key][0]} {worst[key][1]:+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
