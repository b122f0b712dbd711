/* fc.c - int8 fully connected layer, weights [out_features][in_features].
   Bit-exact with TFLite Micro's reference_integer_ops::FullyConnected[PerChannel]
   (fixed-point multiplier and shift; = CMSIS-NN's arm_fully_connected_s8). */

/* acc = bias[o] + sum_i (x[i] - in_zp) * (w[o][i] - w_zp); four output rows
   at a time share each input load (htc__dot4_s8, SSE2 on x86). A non-zero
   weight zero point (legal for per-tensor FULLY_CONNECTED; per-channel
   TFLite ignores it) takes a plain loop. Rescaling, once per output, is
   TFLite Micro's: MultiplyByQuantizedMultiplier with the fixed-point
   multiplier mult[c] and shift[c] (double rounding), + out_zp, clamped. */

static HTC__UNUSED int32_t htc__fc_out(const htc__fc_params *p, int32_t acc, int32_t o)
{
    const int32_t c = p->per_channel ? o : 0;
    return htc__requant(acc, p->mult[c], p->shift[c], p->out_zp, p->act_min, p->act_max);
}

#ifdef HTC__DSP
/* Arm DSP path (weights without zero point): four output rows at a time;
   per 4 inputs one word of x becomes x - in_zp in two int16 pairs (SXTAB16:
   inputs 0,2 and 1,3), each row's weight word is sign-extended the same way
   and two SMLADs add its four products. htc__fc_dsp4: rows [o, o + 4 * ngroups)
   of one batch, requantized by htc__dsprq (the caller checked the
   multipliers) and stored. */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__fc_dsp4(const htc__fc_params *p, const int8_t *x0, int32_t o, int32_t ngroups,
                                                        int8_t *out)
{
    const int32_t n = p->in_features, off = -p->in_zp, o2 = htc__dup16(off), mstep = p->per_channel ? 1 : 0;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max, full = lo == -128 && hi == 127;
    const int8_t *w = p->weights + (size_t)o * n, *end = x0 + (n & ~3), *end8 = x0 + (n & ~7);
    const int32_t *bias = p->bias ? p->bias + o : NULL;
    const int32_t *mult = p->mult + o * mstep;
    const int8_t *shift = p->shift + o * mstep;
    const htc__dsprq qt = htc__dsprq_make(mult[0], shift[0]);
    out += o;
    for (; ngroups > 0; ngroups--, w += 3 * n + (n & 3)) {
        const int8_t *x = x0, *w2 = w + 2 * n;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, i;
        if (bias) {
            a0 = bias[0]; a1 = bias[1]; a2 = bias[2]; a3 = bias[3];
            bias += 4;
        }
#define HTC__FC_STEP(X, W, W2)                                                              \
        do {                                                                                \
            const int32_t v = htc__ld32(X), xe = htc__sxtab16(o2, v), xo = htc__sxtab16_r8(o2, v); \
            int32_t t = htc__ld32(W);                                                       \
            a0 = htc__smlad(htc__sxtb16(t), xe, a0);                                        \
            a0 = htc__smlad(htc__sxtb16_r8(t), xo, a0);                                     \
            t = htc__ld32((W) + n);                                                         \
            a1 = htc__smlad(htc__sxtb16(t), xe, a1);                                        \
            a1 = htc__smlad(htc__sxtb16_r8(t), xo, a1);                                     \
            t = htc__ld32(W2);                                                              \
            a2 = htc__smlad(htc__sxtb16(t), xe, a2);                                        \
            a2 = htc__smlad(htc__sxtb16_r8(t), xo, a2);                                     \
            t = htc__ld32((W2) + n);                                                        \
            a3 = htc__smlad(htc__sxtb16(t), xe, a3);                                        \
            a3 = htc__smlad(htc__sxtb16_r8(t), xo, a3);                                     \
        } while (0)
        while (x != end8) {
            HTC__FC_STEP(x, w, w2);
            HTC__FC_STEP(x + 4, w + 4, w2 + 4);
            x += 8;
            w += 8;
            w2 += 8;
        }
        if (x != end) {
            HTC__FC_STEP(x, w, w2);
            x += 4;
            w += 4;
            w2 += 4;
        }
#undef HTC__FC_STEP
        for (i = 0; i < (n & 3); i++) {
            const int32_t v = x[i] + off;
            a0 += v * w[i];
            a1 += v * w[n + i];
            a2 += v * w2[i];
            a3 += v * w2[n + i];
        }
        {
            htc__dsprq q0 = qt, q1 = qt, q2 = qt, q3 = qt;
            int32_t v0, v1, v2, v3;
            if (mstep) {
                q0 = htc__dsprq_make(mult[0], shift[0]);
                q1 = htc__dsprq_make(mult[1], shift[1]);
                q2 = htc__dsprq_make(mult[2], shift[2]);
                q3 = htc__dsprq_make(mult[3], shift[3]);
                mult += 4;
                shift += 4;
            }
            v0 = htc__dsprq_apply(q0, a0) + zp;
            v1 = htc__dsprq_apply(q1, a1) + zp;
            v2 = htc__dsprq_apply(q2, a2) + zp;
            v3 = htc__dsprq_apply(q3, a3) + zp;
            if (full) {
                v0 = htc__ssat8(v0); v1 = htc__ssat8(v1); v2 = htc__ssat8(v2); v3 = htc__ssat8(v3);
            } else {
                v0 = htc__dsp_clamp(v0, lo, hi); v1 = htc__dsp_clamp(v1, lo, hi);
                v2 = htc__dsp_clamp(v2, lo, hi); v3 = htc__dsp_clamp(v3, lo, hi);
            }
            out[0] = HTC__CAST(int8_t, v0);
            out[1] = HTC__CAST(int8_t, v1);
            out[2] = HTC__CAST(int8_t, v2);
            out[3] = HTC__CAST(int8_t, v3);
            out += 4;
        }
    }
}

/* row . (x - in_zp) */
static HTC__UNUSED int32_t htc__fc_dsp1(const int8_t *x, const int8_t *w, int32_t n, int32_t off)
{
    const int32_t o2 = htc__dup16(off);
    const int8_t *end = x + (n & ~3);
    int32_t a = 0, i;
    for (; x != end; x += 4, w += 4) {
        const int32_t v = htc__ld32(x), t = htc__ld32(w);
        a = htc__smlad(htc__sxtb16(t), htc__sxtab16(o2, v), a);
        a = htc__smlad(htc__sxtb16_r8(t), htc__sxtab16_r8(o2, v), a);
    }
    for (i = 0; i < (n & 3); i++) a += (x[i] + off) * w[i];
    return a;
}

/* rows [o, out_features) of one batch, one at a time (rows past the last
   group of four; every row of layers htc__dsprq cannot requantize) */
static HTC__NOINLINE HTC__COLD void htc__fc_dsp_rows(const htc__fc_params *p, const int8_t *in, int32_t o, int8_t *out)
{
    const int32_t n = p->in_features, mstep = p->per_channel ? 1 : 0;
    for (; o < p->out_features; o++) {
        const int32_t a = (p->bias ? p->bias[o] : 0) + htc__fc_dsp1(in, p->weights + (size_t)o * n, n, -p->in_zp);
        out[o] = HTC__CAST(int8_t, htc__requant(a, p->mult[o * mstep], p->shift[o * mstep], p->out_zp, p->act_min, p->act_max));
    }
}

static HTC__NOINLINE void htc__fc_dsp(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features;
    const int fast = htc__dsp_rq_ok(p->mult, p->shift, p->per_channel ? nout : 1, p->bias, nout, n);
    int32_t b;
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        if (fast) htc__fc_dsp4(p, in, 0, nout >> 2, out);
        if (!fast || (nout & 3)) htc__fc_dsp_rows(p, in, fast ? nout & ~3 : 0, out);
    }
}
#endif

#if !defined(HTC__SSE2) && !defined(HTC__DSP)
/* Portable path (weights without zero point): four output rows per pass, each
   input byte (with the offset added once) feeding four multiply-adds, four
   inputs per iteration at fixed offsets; requantization as the portable
   convolution's (htc__prq when htc__prq_ok, else htc__requant). */
static HTC__NOINLINE HTC__NOSCHED void htc__fc_port4(const int8_t *x, const int8_t *const *r, int32_t n, int32_t off,
                                                     int32_t *acc)
{
    const int8_t *w = r[0], *w1 = r[1], *w2 = r[2], *w3 = r[3], *end = x + (n & ~3);
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], u;
#define HTC__F14(I)                                                         \
    u = x[I] + off;                                                         \
    a0 += u * w[I]; a1 += u * w1[I]; a2 += u * w2[I]; a3 += u * w3[I];
    while (x != end) {
        HTC__F14(0) HTC__F14(1) HTC__F14(2) HTC__F14(3)
        x += 4; w += 4; w1 += 4; w2 += 4; w3 += 4;
    }
    for (n &= 3; n > 0; n--) {
        HTC__F14(0)
        x++; w++; w1++; w2++; w3++;
    }
#undef HTC__F14
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
}

static HTC__NOINLINE void htc__fc_port(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features, off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int fast = htc__prq_ok(p->mult, p->shift, p->per_channel ? nout : 1, p->bias, nout, n);
    int32_t b, o, k;
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        for (o = 0; o < nout; o += 4) {
            const int32_t nb = nout - o < 4 ? nout - o : 4;
            const int8_t *r[4];
            int32_t acc[4];
            for (k = 0; k < 4; k++) {
                const int32_t row = o + k < nout ? o + k : nout - 1;
                r[k] = p->weights + (size_t)row * n;
                acc[k] = p->bias ? p->bias[row] : 0;
            }
            htc__fc_port4(in, r, n, off, acc);
            for (k = 0; k < nb; k++) {
                const int32_t m = p->mult[(o + k) * mstep], s = p->shift[(o + k) * mstep];
                int32_t v;
                if (fast) {
                    v = htc__prq_apply(htc__prq_make(m, s), acc[k]) + zp;
                    v = v < lo ? lo : (v > hi ? hi : v);
                } else {
                    v = htc__requant(acc[k], m, s, zp, lo, hi);
                }
                out[o + k] = HTC__CAST(int8_t, v);
            }
        }
    }
}
#endif

static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__fc_gen(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features;
    const int32_t off = -p->in_zp;
    /* per-channel weights are symmetric in TFLite: zero point not applied */
    const int32_t woff = p->per_channel ? 0 : -p->w_zp;
    const int32_t *bias = p->bias;
#ifdef HTC__AVX2
    const int avx2 = htc__have_avx2();
#endif
    int32_t b;
    for (b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * n;
        int32_t o = 0;
        if (woff == 0) {
            for (; o + 4 <= nout; o += 4) {
                int32_t acc[4] = {0, 0, 0, 0};
                if (bias) {
                    acc[0] = bias[o]; acc[1] = bias[o + 1]; acc[2] = bias[o + 2]; acc[3] = bias[o + 3];
                }
#ifdef HTC__AVX2
                if (avx2) htc__dot4_s8_avx2(x, p->weights + (size_t)o * n, n, n, off, acc);
                else
#endif
                    htc__dot4_s8(x, p->weights + (size_t)o * n, n, n, off, acc);
                out[o] = HTC__CAST(int8_t, htc__fc_out(p, acc[0], o));
                out[o + 1] = HTC__CAST(int8_t, htc__fc_out(p, acc[1], o + 1));
                out[o + 2] = HTC__CAST(int8_t, htc__fc_out(p, acc[2], o + 2));
                out[o + 3] = HTC__CAST(int8_t, htc__fc_out(p, acc[3], o + 3));
            }
            /* explicit start: with "for (; o < nout" GCC 12 -O2 on 32-bit
               targets warns "iteration 1073741823 invokes undefined behavior" */
            for (o = nout - nout % 4; o < nout; o++) {
                const int32_t a = (bias ? bias[o] : 0) + htc__dot1_s8(x, p->weights + (size_t)o * n, n, off);
                out[o] = HTC__CAST(int8_t, htc__fc_out(p, a, o));
            }
        } else {
            for (; o < nout; o++) {
                const int8_t *w = p->weights + (size_t)o * n;
                int32_t a = bias ? bias[o] : 0, i;
                for (i = 0; i < n; i++) a += (x[i] + off) * (w[i] + woff);
                out[o] = HTC__CAST(int8_t, htc__fc_out(p, a, o));
            }
        }
        out += nout;
    }
}

/* The path is chosen from the layer's constant parameters: with the call
   inlined the compiler folds the choice and links only the paths used. */
static HTC__INLINE HTC__UNUSED void htc__fc_s8(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
#ifdef HTC__DSP
    if ((p->per_channel || p->w_zp == 0) && p->in_features * p->out_features < 1000) {
        /* a small layer (a classifier head) row by row: less code */
        int32_t b;
        for (b = 0; b < p->batches; b++) htc__fc_dsp_rows(p, in + (size_t)b * p->in_features, 0, out + (size_t)b * p->out_features);
        return;
    }
    if (p->per_channel || p->w_zp == 0) {
        htc__fc_dsp(p, in, out);
        return;
    }
#elif !defined(HTC__SSE2)
    if (p->per_channel || p->w_zp == 0) {
        htc__fc_port(p, in, out);
        return;
    }
#endif
    htc__fc_gen(p, in, out);
}
