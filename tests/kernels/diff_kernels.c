/* diff_kernels.c - the kernels' code paths against each other. Runs a fixed
   sequence of random cases (xorshift, fixed seed) through the conv,
   depthwise, fully connected, add, pool and mul kernels and prints one line per
   case: its name and the FNV-1a hash of the output. The portable path is
   checked against TFLite end to end (tests/test_ops.py); run.sh builds this
   file once per path (portable, SSE2/AVX2, the DSP path emulated on the
   host, the DSP path on Cortex-M4 under qemu) and requires identical lines.
   Build: cc -DHTC_NO_SIMD diff_kernels.c ../../gen/quant.c -lm (run.sh). */
#include <stdio.h>
#include <string.h>

#include "../../gen/quant.h"
#include "../../kernels/conv2d.c"
#include "../../kernels/fc.c"
#include "../../kernels/add.c"
#include "../../kernels/pool.c"
#include "../../kernels/mul.c"
#include "../../kernels/softmax.c"
#include "../../kernels/transpose.c"

#ifndef NCASES
#define NCASES 300
#endif
#define MAXBUF 40000

static uint32_t rng = 0x12345678u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
/* uniform in [lo, hi] */
static int32_t urange(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

static uint32_t fnv(const int8_t *p, int32_t n)
{
    uint32_t h = 2166136261u;
    int32_t i;
    for (i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 16777619u;
    return h;
}

/* 1: the parameters of the MLPerf Tiny models (what the fast paths with the
   most conditions take: 3x3 depthwise, strides 1 and 2, per-tensor fully
   connected layers with bias, the full int8 range, ordinary multipliers) */
static int typ;

static int8_t in_buf[MAXBUF], in2_buf[MAXBUF] HTC__UNUSED, out_buf[MAXBUF + 64], w_buf[MAXBUF];
static int32_t bias_buf[512], mult_buf[512], fbias_buf[512], rsum_buf[512 * 16];
static int8_t shift_buf[512];

/* random int8 data: full range, or mostly near a value (zero points) */
static void fill(int8_t *p, int32_t n)
{
    const int mode = urange(0, 3);
    const int32_t c = urange(-128, 127);
    int32_t i;
    for (i = 0; i < n; i++) {
        int32_t v = mode == 0 ? urange(-128, 127) : (mode == 1 ? (urange(0, 1) ? -128 : 127) : c + urange(-20, 20));
        p[i] = (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
}

/* per-channel multipliers: mostly [2^30, 2^31) with right shifts that keep
   outputs inside int8, sometimes the edges (zero, left shifts, big shifts) */
static void fill_rq(int32_t n, int32_t k)
{
    int32_t i, e = 6;
    while ((1 << e) < 128 * k && e < 20) e++;
    for (i = 0; i < n; i++) {
        const int r = typ ? 99 : urange(0, 99);
        mult_buf[i] = (int32_t)((1u << 30) + (rnd() & 0x3fffffffu));
        shift_buf[i] = (int8_t)-urange(e - 3, e + 2);
        if (r == 0) mult_buf[i] = 0;
        else if (r == 1) shift_buf[i] = (int8_t)urange(0, 2);
        else if (r == 2) shift_buf[i] = (int8_t)-urange(24, 31);
        else if (r == 3) mult_buf[i] = INT32_MAX;
    }
}

static void act(int32_t zp, int32_t *lo, int32_t *hi)
{
    switch (typ && urange(0, 3) ? 0 : urange(0, 3)) {
    case 0: *lo = -128; *hi = 127; break;
    case 1: *lo = zp; *hi = 127; break;
    case 2: *lo = zp; *hi = zp + urange(0, 127 - zp); break;
    default: *lo = urange(-128, 0); *hi = urange(0, 127); break;
    }
}

static void conv_case(int k, int dw)
{
    htc__conv_params p;
    int32_t in_n, out_n, wn, i;
    memset(&p, 0, sizeof p);
    for (;;) {
        p.batches = urange(1, 2);
        p.in_h = urange(1, 12);
        p.in_w = urange(1, k % 7 == 0 ? 50 : 12);
        p.in_c = urange(0, 2) ? 4 * urange(1, 10) : urange(1, 40);
        p.k_h = urange(1, 5);
        p.k_w = urange(1, 5);
        if (k % 3 == 0) p.k_h = p.k_w = 3;
        p.stride_h = urange(1, 3);
        p.stride_w = urange(1, 3);
        p.dil_h = urange(0, 3) ? 1 : 2;
        p.dil_w = urange(0, 3) ? 1 : 2;
        p.depth_mult = dw ? (urange(0, 4) ? 1 : urange(2, 3)) : 1;
        p.out_c = dw ? p.in_c * p.depth_mult : urange(1, 40);
        if (urange(0, 1)) {        /* SAME */
            const int32_t eh = (p.k_h - 1) * p.dil_h + 1, ew = (p.k_w - 1) * p.dil_w + 1;
            int32_t th, tw;
            p.out_h = (p.in_h + p.stride_h - 1) / p.stride_h;
            p.out_w = (p.in_w + p.stride_w - 1) / p.stride_w;
            th = (p.out_h - 1) * p.stride_h + eh - p.in_h;
            tw = (p.out_w - 1) * p.stride_w + ew - p.in_w;
            p.pad_top = th > 0 ? th / 2 : 0;
            p.pad_left = tw > 0 ? tw / 2 : 0;
        } else {                   /* VALID */
            p.out_h = (p.in_h - (p.k_h - 1) * p.dil_h - 1) / p.stride_h + 1;
            p.out_w = (p.in_w - (p.k_w - 1) * p.dil_w - 1) / p.stride_w + 1;
            p.pad_top = p.pad_left = 0;
        }
        if (typ && dw) {
            p.in_h = urange(1, 30);
            p.in_w = urange(1, 30);
            p.k_h = p.k_w = 3;
            p.stride_h = urange(1, 2);
            p.stride_w = urange(1, 2);
            p.dil_h = p.dil_w = 1;
            p.depth_mult = 1;
            p.out_c = p.in_c;
            p.out_h = (p.in_h + p.stride_h - 1) / p.stride_h;   /* SAME */
            p.out_w = (p.in_w + p.stride_w - 1) / p.stride_w;
            p.pad_top = ((p.out_h - 1) * p.stride_h + 3 - p.in_h) / 2;
            p.pad_left = ((p.out_w - 1) * p.stride_w + 3 - p.in_w) / 2;
            if (urange(0, 3) == 0) {   /* VALID */
                p.out_h = (p.in_h - 3) / p.stride_h + 1;
                p.out_w = (p.in_w - 3) / p.stride_w + 1;
                p.pad_top = p.pad_left = 0;
            }
        }
        if (typ && !dw) {          /* 1x1 or 3x3, in_c a multiple of 4 (8 mostly); or KWS's first layer's shape */
            p.in_c = urange(0, 3) ? 8 * urange(1, 16) : 4 * urange(1, 16);
            p.k_h = p.k_w = urange(0, 1) ? 1 : 3;
            if (urange(0, 3) == 0) {
                p.in_c = urange(1, 7);
                p.k_h = urange(1, 10);
                p.k_w = urange(1, 4);
            }
            p.dil_h = p.dil_w = 1;
            p.stride_h = p.stride_w = urange(1, 2);
            p.out_h = (p.in_h + p.stride_h - 1) / p.stride_h;   /* SAME */
            p.out_w = (p.in_w + p.stride_w - 1) / p.stride_w;
            p.pad_top = ((p.out_h - 1) * p.stride_h + p.k_h - p.in_h) / 2;
            p.pad_left = ((p.out_w - 1) * p.stride_w + p.k_w - p.in_w) / 2;
            p.pad_top = p.pad_top > 0 ? p.pad_top : 0;
            p.pad_left = p.pad_left > 0 ? p.pad_left : 0;
        }
        if (k % 5 == 0 && !dw && !typ) {   /* pointwise */
            p.k_h = p.k_w = 1;
            p.stride_h = p.stride_w = 1;
            p.dil_h = p.dil_w = 1;
            p.pad_top = p.pad_left = 0;
            p.out_h = p.in_h;
            p.out_w = p.in_w;
            p.in_c = urange(0, 1) ? 4 * urange(30, 64) : urange(100, 260);
        }
        in_n = p.batches * p.in_h * p.in_w * p.in_c;
        out_n = p.batches * p.out_h * p.out_w * p.out_c;
        wn = dw ? p.k_h * p.k_w * p.out_c : p.out_c * p.k_h * p.k_w * p.in_c;
        if (p.out_h > 0 && p.out_w > 0 && in_n <= MAXBUF && out_n <= MAXBUF && wn <= MAXBUF && p.out_c <= 512) break;
    }
    p.in_zp = urange(-128, 127);
    p.out_zp = urange(-128, 127);
    act(p.out_zp, &p.act_min, &p.act_max);
    p.per_channel = urange(0, 4) != 0;
    if (typ) p.in_zp = urange(0, 1) ? -128 : p.in_zp;
    fill(in_buf, in_n);
    fill(w_buf, wn);
    for (i = 0; i < p.out_c; i++) bias_buf[i] = urange(-40000, 40000);
    /* every fourth case: some channels' bias near 2^30 or 2^31 (dead
       channels of real models), so the accumulators pass 2^30 (no draw
       from the generator: the other cases stay as they were) */
    for (i = 2; k % 4 == 1 && i < p.out_c; i += 5)
        bias_buf[i] = (i & 1 ? -1 : 1) * (k % 8 == 1 ? 1073741824 + 1000 * i : 2000000000 - 1000 * i);
    fill_rq(p.out_c, dw ? p.k_h * p.k_w : p.k_h * p.k_w * p.in_c);
    p.mult = mult_buf;
    p.shift = shift_buf;
    p.weights = w_buf;
    p.bias = typ || urange(0, 5) ? bias_buf : NULL;
    if (p.pad_top == 0 && p.pad_left == 0 && (p.out_h - 1) * p.stride_h + (p.k_h - 1) * p.dil_h < p.in_h &&
        (p.out_w - 1) * p.stride_w + (p.k_w - 1) * p.dil_w < p.in_w && urange(0, 1)) {
        /* no tap outside the input: the generator's folded bias (gen/lower.c fold_bias), in_zp 0 */
        const int32_t taps = dw ? p.k_h * p.k_w : p.k_h * p.k_w * p.in_c;
        int32_t c, t, ok = 1;
        for (c = 0; c < p.out_c; c++) {
            int64_t v = 0;
            int32_t sw = 0;
            for (t = 0; t < taps; t++) sw += dw ? w_buf[t * p.out_c + c] : w_buf[c * taps + t];
            v = (int64_t)(p.bias ? p.bias[c] : 0) - (int64_t)p.in_zp * sw;
            if ((v < 0 ? -v : v) + (int64_t)taps * 16384 >= ((int64_t)1 << 31)) ok = 0;
            fbias_buf[c] = (int32_t)v;
        }
        if (ok) {
            p.bias = fbias_buf;
            p.in_zp = 0;
        }
    }
    if (!dw && p.in_zp && p.k_h <= 16 && k % 2 == 0) {
        /* every other dense case: the per-kernel-row weight sums times
           -in_zp made by the generator (gen/emit.c emit_rsum; no draw) */
        const int32_t rowb = p.k_w * p.in_c;
        int32_t c, t;
        for (c = 0; c < p.out_c * p.k_h; c++) {
            int32_t sw = 0;
            for (t = 0; t < rowb; t++) sw += w_buf[c * rowb + t];
            rsum_buf[c] = -p.in_zp * sw;
        }
        p.rsum = rsum_buf;
    }
    if (urange(0, 1) && (!dw || (p.depth_mult == 1 && p.in_c == p.out_c))) {
        /* the generator's decision (gen/emit.c rq_flags) in the block */
        const int32_t taps = dw ? p.k_h * p.k_w : p.k_h * p.k_w * p.in_c, nq = p.per_channel ? p.out_c : 1;
        p.rq = HTC__RQ_SET | (htc__prq_ok(p.mult, p.shift, nq, p.bias, p.out_c, taps) ? HTC__RQ_PRQ : 0) |
               (htc__dsp_rq_ok(p.mult, p.shift, nq, p.bias, p.out_c, taps) ? HTC__RQ_DSP : 0);
    }
    memset(out_buf, 0x5a, sizeof out_buf);
    if (dw) htc__dwconv2d_s8(&p, in_buf, out_buf);
    else htc__conv2d_s8(&p, in_buf, out_buf);
    printf("%s %d n%ld %dx%dx%d k%dx%d s%d%d d%d%d oc%d %08lx %08lx\n", dw ? "dw" : "conv", k, (long)p.batches,
           (int)p.in_h, (int)p.in_w, (int)p.in_c, (int)p.k_h, (int)p.k_w, (int)p.stride_h, (int)p.stride_w, (int)p.dil_h,
           (int)p.dil_w, (int)p.out_c, (unsigned long)fnv(out_buf, out_n), (unsigned long)fnv(out_buf + out_n, 64));
}

/* QuantLib's Conv (htc__ql_conv2d: RequantShift as the epilogue; the
   XpulpV2 paths take dense, pointwise and depthwise layers): random
   geometry as conv_case, multipliers from 1 to 2^15 (and some beyond what
   32-bit arithmetic holds), unsigned or signed input and output; every
   parallel split (rows, channels) on 1..8 cores must give the serial bytes
   (the line says "par1" when they do). */
static void ql_conv_case(int k)
{
    htc__ql_conv_params p;
    static int32_t add_buf[512];
    int32_t in_n, out_n, wn, i, gin, nc, core, split;
    const void *ins[5];
    int dw = k % 3 == 1, par = 1;
    memset(&p, 0, sizeof p);
    for (;;) {
        p.batches = urange(1, 2);
        p.in_h = urange(1, 14);
        p.in_w = urange(1, k % 7 == 0 ? 40 : 12);
        p.in_c = urange(0, 2) ? 4 * urange(1, 16) : urange(1, 40);
        p.k_h = urange(1, 4);
        p.k_w = urange(1, 4);
        if (k % 3 == 0 || dw) p.k_h = p.k_w = urange(0, 3) ? 3 : urange(1, 4);
        p.stride_h = urange(1, 2);
        p.stride_w = urange(1, 2);
        p.dil_h = p.dil_w = urange(0, 5) ? 1 : 2;
        p.groups = dw ? p.in_c : 1;
        p.out_c = dw ? p.in_c : urange(1, 40);
        if (k % 5 == 0 && !dw) {   /* pointwise */
            p.k_h = p.k_w = p.stride_h = p.stride_w = p.dil_h = p.dil_w = 1;
            p.in_c = 4 * urange(1, 40);
        }
        p.pad_top = urange(0, p.k_h / 2 + (k % 5 == 0 && !dw ? -p.k_h / 2 : 0));
        p.pad_left = urange(0, p.k_w / 2 + (k % 5 == 0 && !dw ? -p.k_w / 2 : 0));
        p.out_h = (p.in_h + 2 * p.pad_top - (p.k_h - 1) * p.dil_h - 1) / p.stride_h + 1;
        p.out_w = (p.in_w + 2 * p.pad_left - (p.k_w - 1) * p.dil_w - 1) / p.stride_w + 1;
        gin = p.in_c / p.groups;
        in_n = p.batches * p.in_h * p.in_w * p.in_c;
        out_n = p.batches * p.out_h * p.out_w * p.out_c;
        wn = p.out_c * p.k_h * p.k_w * gin;
        if (p.in_h + 2 * p.pad_top >= (p.k_h - 1) * p.dil_h + 1 && p.in_w + 2 * p.pad_left >= (p.k_w - 1) * p.dil_w + 1 &&
            p.out_h > 0 && p.out_w > 0 && in_n <= MAXBUF && out_n <= MAXBUF / 2 && wn <= MAXBUF && p.out_c <= 512)
            break;
    }
    p.in_off = urange(0, 1) ? 128 : 0;
    p.out_off = urange(0, 1) ? 128 : 0;
    p.rq = 1;
    p.per_channel = urange(0, 3) != 0;
    p.shift = urange(0, 9) ? urange(8, 24) : urange(0, 31);
    p.lo = urange(0, 3) ? -128 + p.out_off : urange(-130, 0) + p.out_off;
    p.hi = urange(0, 3) ? 127 + p.out_off : urange(0, 130) + p.out_off;
    fill(in_buf, in_n);
    fill(w_buf, wn);
    for (i = 0; i < p.out_c; i++) {
        const int big = urange(0, 19) == 0;
        bias_buf[i] = urange(-40000, 40000);
        mult_buf[i] = big ? (int32_t)rnd() : urange(-4, 1 << (k % 4 == 0 ? 15 : 9));
        add_buf[i] = big ? (int32_t)rnd() : (int32_t)(rnd() % (1u << (p.shift > 20 ? 30 : p.shift + 8))) - (1 << (p.shift > 20 ? 29 : p.shift + 7));
    }
    ins[0] = in_buf;
    ins[1] = w_buf;
    ins[2] = urange(0, 5) ? bias_buf : NULL;
    ins[3] = mult_buf;
    ins[4] = add_buf;
    memset(out_buf, 0x5a, sizeof out_buf);
    htc__ql_conv2d(&p, ins, out_buf);
    for (split = 0; split < 2; split++)
        for (nc = 1; nc <= 8; nc++) {
            static int8_t o2[MAXBUF / 2];
            memset(o2, 0x5a, (size_t)out_n);
            for (core = 0; core < nc; core++) htc__ql_conv2d_par(&p, ins, o2, split ? HTC_SPLIT_CHANNELS : HTC_SPLIT_ROWS, core, nc);
            if (memcmp(o2, out_buf, (size_t)out_n)) par = 0;
        }
    printf("ql_%s %d n%ld %dx%dx%d k%dx%d s%d%d d%d%d oc%d sh%d par%d %08lx %08lx\n", dw ? "dw" : "conv", k, (long)p.batches,
           (int)p.in_h, (int)p.in_w, (int)p.in_c, (int)p.k_h, (int)p.k_w, (int)p.stride_h, (int)p.stride_w, (int)p.dil_h,
           (int)p.dil_w, (int)p.out_c, (int)p.shift, par, (unsigned long)fnv(out_buf, out_n), (unsigned long)fnv(out_buf + out_n, 64));
}

static void fc_case(int k)
{
    htc__fc_params p;
    int32_t i, in_n, out_n;
    memset(&p, 0, sizeof p);
    do {
        p.batches = urange(1, 3);
        p.in_features = urange(0, 2) ? urange(1, 40) : urange(100, 700);
        p.out_features = urange(1, 70);
        if (typ) p.in_features = 8 * urange(1, 90) + (urange(0, 5) ? 0 : 4);
        in_n = p.batches * p.in_features;
        out_n = p.batches * p.out_features;
    } while (in_n > MAXBUF || p.in_features * p.out_features > MAXBUF);
    p.in_zp = urange(0, 3) ? urange(-128, 127) : -128;     /* -128: after a ReLU (the MVE path's unsigned form) */
    p.w_zp = typ || urange(0, 3) ? 0 : urange(-10, 10);
    p.out_zp = urange(-128, 127);
    act(p.out_zp, &p.act_min, &p.act_max);
    p.per_channel = typ ? urange(0, 3) == 0 : urange(0, 1);
    fill(in_buf, in_n);
    fill(w_buf, p.in_features * p.out_features);
    for (i = 0; i < p.out_features; i++) bias_buf[i] = urange(-40000, 40000);
    fill_rq(p.out_features, p.in_features);
    p.mult = mult_buf;
    p.shift = shift_buf;
    p.weights = w_buf;
    p.bias = typ || urange(0, 5) ? bias_buf : NULL;
    if (p.w_zp == 0 && urange(0, 1)) {
        /* the generator's folded bias (gen/lower.c fold_bias): bias - in_zp * sum of the row */
        int32_t o;
        for (o = 0; o < p.out_features; o++) {
            int32_t s = 0;
            for (i = 0; i < p.in_features; i++) s += w_buf[o * p.in_features + i];
            fbias_buf[o] = (p.bias ? p.bias[o] : 0) - p.in_zp * s;
        }
        p.bias = fbias_buf;
        p.in_zp = 0;
    }
    if (urange(0, 1)) {
        /* the generator's decision (gen/emit.c rq_flags) in the block */
        const int32_t nq = p.per_channel ? p.out_features : 1;
        p.rq = HTC__RQ_SET | (htc__prq_ok(p.mult, p.shift, nq, p.bias, p.out_features, p.in_features) ? HTC__RQ_PRQ : 0) |
               (htc__dsp_rq_ok(p.mult, p.shift, nq, p.bias, p.out_features, p.in_features) ? HTC__RQ_DSP : 0);
    }
    memset(out_buf, 0x5a, sizeof out_buf);
    htc__fc_s8(&p, in_buf, out_buf);
    printf("fc %d n%d %dx%d pc%d wzp%d %08lx %08lx\n", k, (int)p.batches, (int)p.in_features, (int)p.out_features,
           (int)p.per_channel, (int)p.w_zp, (unsigned long)fnv(out_buf, out_n), (unsigned long)fnv(out_buf + out_n, 64));
}

/* a scale 2^-k * (1 + frac) */
static float rscale(void)
{
    float f = 1.0f + (float)(rnd() & 0xffff) / 65536.0f;
    int e = urange(1, 12);
    while (e-- > 0) f *= 0.5f;
    return f;
}

static void add_case(int k)
{
    htc__binary_params p;
    int32_t n, i;
    memset(&p, 0, sizeof p);
    n = urange(1, 3000);
    if (urange(0, 3)) {
        /* one call per statement: argument order is unspecified */
        const float sa = rscale(), sb = urange(0, 4) ? rscale() : sa;
        const float so = (sa > sb ? sa : sb) * (0.5f + (float)urange(0, 300) / 100.0f);
        const int32_t za = urange(-128, 127), zb = urange(-128, 127), zo = urange(-128, 127);
        quant_add_params(sa, za, sb, zb, so, zo, &p);
    } else {                       /* raw parameters: the generic paths */
        p.a_offset = urange(-127, 128);
        p.b_offset = urange(-127, 128);
        p.out_zp = urange(-128, 127);
        p.left_shift = urange(0, 2) ? 20 : urange(0, 23);
        p.a_mult = (int32_t)((1u << 30) + (rnd() & 0x3fffffffu));
        p.b_mult = urange(0, 1) ? 1 << 30 : (int32_t)((1u << 30) + (rnd() & 0x3fffffffu));
        p.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3fffffffu));
        p.a_shift = (int8_t)-urange(0, 3);
        p.b_shift = (int8_t)-urange(0, 3);
        p.out_shift = (int8_t)-urange(p.left_shift - 4 > 0 ? p.left_shift - 4 : 0, p.left_shift + 2);
        if (urange(0, 9) == 0) p.a_mult = urange(0, 1) ? 0 : 12345;
    }
    act(p.out_zp, &p.act_min, &p.act_max);
    p.out_shape[0] = p.out_shape[1] = p.out_shape[2] = 1;
    p.out_shape[3] = n;
    p.a_stride[3] = p.b_stride[3] = 1;
#ifdef HTC__XP
    {
        /* every other case with the generator's tables in final form (gen/quant.c quant_xadd,
           htc__xadd_run; the other paths ignore them, so only where they run) */
        static int32_t xq[HTC__XADD_N];
        if (k % 2 == 0 && quant_xadd(&p, xq) > 0) p.xq = xq;
    }
#endif
    fill(in_buf, n);
    fill(w_buf, n);
    memset(out_buf, 0x5a, sizeof out_buf);
    htc__add_s8(&p, in_buf, w_buf, out_buf);
    printf("add %d n%d %ld %ld %ld %d %d %d %08lx %08lx\n", k, (int)n, (long)p.a_mult, (long)p.b_mult, (long)p.out_mult,
           p.a_shift, p.b_shift, p.out_shift, (unsigned long)fnv(out_buf, n), (unsigned long)fnv(out_buf + n, 64));
    (void)i;
}

/* QuantLib's Add with a RequantShift: the generic loop (htc__ql_binary)
   and, where gen/quant.c quant_qladd finds the tables exact, the tables'
   kernel (htc__ql_xadd) on the same bytes, in one process: any difference
   fails the run */
static int ql_add_case(int k)
{
    htc__ql_binary_params p;
    static int32_t xq[HTC__XADD_N];
    static int8_t out2[4096];
    int32_t mul, add, n;
    const void *ins[5];
    int tables;
    memset(&p, 0, sizeof p);
    n = urange(1, 3000);
    p.s0 = p.s1 = p.s2 = p.s3 = p.s4 = 1;
    p.s5 = n;
    p.a5 = p.b5 = 1;
    p.a_off = urange(-128, 128);
    p.b_off = urange(-128, 128);
    p.rq = p.rq_nch = p.rq_inner = 1;
    p.shift = urange(0, 24);
    mul = urange(0, 9) ? (int32_t)(rnd() & ((1u << (p.shift > 2 ? p.shift - 2 : 1)) - 1u)) - (1 << (p.shift > 3 ? p.shift - 3 : 0))
                       : (int32_t)(rnd() & 0x7fffff);
    add = (int32_t)(rnd() & 0xffffff) - (1 << 23);
    p.out_off = urange(0, 3) ? 0 : urange(-64, 64);
    p.lo = urange(0, 3) ? -128 : urange(-128, 0);
    p.hi = urange(0, 3) ? 127 : urange(0, 127);
    if (p.lo - p.out_off < -128) p.lo = -128 + p.out_off;
    if (p.hi - p.out_off > 127) p.hi = 127 + p.out_off;
    fill(in_buf, n);
    fill(w_buf, n);
    ins[0] = in_buf;
    ins[1] = w_buf;
    ins[2] = &mul;
    ins[3] = &add;
    ins[4] = xq;
    memset(out_buf, 0x5a, sizeof out_buf);
    htc__ql_binary(&p, ins, out_buf);
    tables = quant_qladd(&p, mul, add, xq);
    if (tables) {
        memset(out2, 0x5a, sizeof out2);
        htc__ql_xadd(&p, ins, out2);
        if (memcmp(out_buf, out2, (size_t)n + 64) != 0) {
            printf("FAIL qladd %d: htc__ql_xadd differs from htc__ql_binary\n", k);
            return 1;
        }
    }
    printf("qladd %d n%d m%ld a%ld s%d t%d %08lx %08lx\n", k, (int)n, (long)mul, (long)add, (int)p.shift, tables,
           (unsigned long)fnv(out_buf, n), (unsigned long)fnv(out_buf + n, 64));
    return 0;
}

/* TFLite MUL: raw parameters (the multiplier and shift of
   quant_multiplier's range, edges included) */
static void mul_case(int k)
{
    htc__binary_params p;
    int32_t n;
    memset(&p, 0, sizeof p);
    n = urange(1, 3000);
    p.a_offset = urange(-127, 128);
    p.b_offset = urange(-127, 128);
    p.out_zp = urange(-128, 127);
    p.out_mult = urange(0, 9) ? (int32_t)((1u << 30) + (rnd() & 0x3fffffffu)) : (urange(0, 1) ? INT32_MAX : 0);
    p.out_shift = (int8_t)(urange(0, 9) ? -urange(6, 20) : urange(-31, 2));
    act(p.out_zp, &p.act_min, &p.act_max);
    p.out_shape[0] = p.out_shape[1] = p.out_shape[2] = 1;
    p.out_shape[3] = n;
    p.a_stride[3] = p.b_stride[3] = 1;
    fill(in_buf, n);
    fill(w_buf, n);
    memset(out_buf, 0x5a, sizeof out_buf);
    htc__mul_s8(&p, in_buf, w_buf, out_buf);
    printf("mul %d n%d %ld %d %08lx %08lx\n", k, (int)n, (long)p.out_mult, p.out_shift, (unsigned long)fnv(out_buf, n),
           (unsigned long)fnv(out_buf + n, 64));
}

static void pool_case(int k)
{
    htc__pool_params p;
    int32_t in_n, out_n;
    memset(&p, 0, sizeof p);
    do {
        p.batches = urange(1, 2);
        p.in_h = urange(1, 12);
        p.in_w = urange(1, 12);
        p.c = urange(0, 1) ? 4 * urange(1, 70) : urange(1, 70);
        p.k_h = urange(1, p.in_h);
        p.k_w = urange(1, p.in_w);
        if (k % 4 == 0) { p.k_h = p.in_h; p.k_w = p.in_w; }
        p.stride_h = urange(1, 3);
        p.stride_w = urange(1, 3);
        p.pad_top = urange(0, p.k_h - 1);
        p.pad_left = urange(0, p.k_w - 1);
        p.out_h = (p.in_h + 2 * p.pad_top - p.k_h) / p.stride_h + 1;
        p.out_w = (p.in_w + 2 * p.pad_left - p.k_w) / p.stride_w + 1;
        in_n = p.batches * p.in_h * p.in_w * p.c;
        out_n = p.batches * p.out_h * p.out_w * p.c;
    } while (in_n > MAXBUF || out_n > MAXBUF);
    act(urange(-128, 127), &p.act_min, &p.act_max);
    fill(in_buf, in_n);
    memset(out_buf, 0x5a, sizeof out_buf);
    if (k % 4 == 3) {
        /* divided by rows or channels over three cores (the XpulpV2
           path's words from each core's own first word, htc__mp_rot) */
        int core;
        for (core = 0; core < 3; core++)
            htc__maxpool_s8_par(&p, in_buf, out_buf, k % 8 == 3 ? HTC_SPLIT_ROWS : HTC_SPLIT_CHANNELS, core, 3);
    } else if (k & 1) {
        htc__maxpool_s8(&p, in_buf, out_buf);
    } else if (k % 4 == 2) {
        /* divided by channels over three cores: shares that start
           between words (the XpulpV2 sums' byte ends) */
        int core;
        for (core = 0; core < 3; core++) htc__avgpool_s8_par(&p, in_buf, out_buf, HTC_SPLIT_CHANNELS, core, 3);
    } else {
        htc__avgpool_s8(&p, in_buf, out_buf);
    }
    printf("%s %d %dx%dx%d k%dx%d %08lx %08lx\n", k & 1 ? "max" : "avg", k, (int)p.in_h, (int)p.in_w, (int)p.c, (int)p.k_h,
           (int)p.k_w, (unsigned long)fnv(out_buf, out_n), (unsigned long)fnv(out_buf + out_n, 64));
}

/* TFLite's int8 SOFTMAX (beta 1 or a random beta; input scales from 2^-12
   to 2^-1), int8 or int16 output. Rows of at most 256 entries: beyond, the
   int8 output's RoundingDivideByPOT exponent can reach 32, a shift by 32 in
   TFLite (and htc__rdivpot) whose result differs between x86 and Arm. */
static void softmax_case(int k)
{
    htc__softmax_params p;
    int32_t n;
    memset(&p, 0, sizeof p);
    do {
        p.outer = urange(1, 4);
        p.depth = urange(0, 3) ? urange(1, 40) : urange(100, 256);
        n = p.outer * p.depth;
    } while (2 * n > MAXBUF);
    {   /* one call per statement: argument order is unspecified */
        const float beta = urange(0, 1) ? 1.0f : rscale() * 4096.0f, scale = rscale();
        quant_softmax_params(beta, scale, &p);
    }
    p.out_zp = k & 1 ? -32768 : -128;
    fill(in_buf, n);
    memset(out_buf, 0x5a, sizeof out_buf);
    if (k & 1) {
        int16_t o16[MAXBUF / 2];
        htc__softmax_s8_s16(&p, in_buf, o16);
        memcpy(out_buf, o16, 2 * (size_t)n);
        n *= 2;
    } else {
        htc__softmax_s8(&p, in_buf, out_buf);
    }
    printf("softmax %d %dx%d m%ld l%ld d%ld %08lx %08lx\n", k, (int)p.outer, (int)p.depth, (long)p.input_multiplier,
           (long)p.input_left_shift, (long)p.diff_min, (unsigned long)fnv(out_buf, n), (unsigned long)fnv(out_buf + n, 64));
}

/* a random permutation of a rank 2-4 int8 tensor, whole or divided by
   rows over 1-8 cores (the XpulpV2 path's word copy of contiguous rows,
   its strided rows from a per-core element on) */
static void transpose_case(int k)
{
    htc__transpose_params p;
    int32_t dims[4], st[4], perm[4] = {0, 1, 2, 3}, n = 1, i, core, nc = urange(1, 8);
    memset(&p, 0, sizeof p);
    p.rank = k % 5 == 0 ? 2 : urange(2, 4);     /* rank 2: rows of up to 120 (the per-core start from 64) */
    p.elem = 1;
    do {
        n = 1;
        for (i = 0; i < p.rank; i++) n *= dims[i] = urange(1, k % 5 == 0 ? 120 : 40);
    } while (n > MAXBUF);
    for (i = p.rank - 1, st[p.rank - 1] = 1; i > 0; i--) st[i - 1] = st[i] * dims[i];
    for (i = p.rank - 1; i > 0; i--) {      /* Fisher-Yates; k % 3 == 0 keeps the innermost axis */
        const int32_t j = urange(0, k % 3 == 0 ? i - 1 : i), t = perm[i];
        if (k % 3 == 0 && i == p.rank - 1) continue;
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (i = 0; i < p.rank; i++) p.shape[i] = dims[perm[i]], p.stride[i] = st[perm[i]];
    fill(in_buf, n);
    memset(out_buf, 0x5a, sizeof out_buf);
    if (nc == 1) htc__transpose(&p, in_buf, out_buf);
    else
        for (core = 0; core < nc; core++) htc__transpose_par(&p, in_buf, out_buf, HTC_SPLIT_ROWS, core, nc);
    printf("transpose %d r%d %dx%dx%dx%d %08lx %08lx\n", k, (int)p.rank, (int)p.shape[0], (int)p.shape[1], (int)p.shape[2],
           (int)p.shape[3], (unsigned long)fnv(out_buf, n), (unsigned long)fnv(out_buf + n, 64));
}

int main(void)
{
    int k;
    for (k = 0; k < NCASES; k++) conv_case(k, 0);
    for (k = 0; k < NCASES; k++) conv_case(k, 1);
    for (k = 0; k < NCASES; k++) fc_case(k);
    for (k = 0; k < NCASES; k++) add_case(k);
    for (k = 0; k < NCASES; k++) pool_case(k);
    for (k = 0; k < NCASES; k++) mul_case(k);
    for (k = 0; k < NCASES; k++) softmax_case(k);
    typ = 1;
    for (k = 0; k < NCASES; k++) conv_case(k, 0);
    for (k = 0; k < NCASES; k++) conv_case(k, 1);
    for (k = 0; k < NCASES; k++) fc_case(k);
    typ = 0;
    for (k = 0; k < NCASES; k++) ql_conv_case(k);
    for (k = 0; k < NCASES; k++)
        if (ql_add_case(k)) return 1;
    for (k = 0; k < NCASES; k++) transpose_case(k);
    return 0;
}
