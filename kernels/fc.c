/* fc.c - fully connected / matmul, int8 in, int8 or int32 out, every
   requantization kind: one accumulation loop (htc__fc_core) with the
   epilogue of the layer's kind (htc.h htc__epi), and fast paths of the
   TFLite kind (Arm DSP, RV32). Entry points: htc__fc_s8 (TFLite Micro's
   reference_integer_ops::FullyConnected[PerChannel] = CMSIS-NN's
   arm_fully_connected_s8), htc__matmul_s8 (TFLite BATCH_MATMUL),
   htc__qfc_s8 / _s32 (onnxruntime), htc__ql_matmul (QuantLib). */

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

/* Path X (in_features a multiple of 4 up to HTC__DSP_FCX, word-aligned
   rows): x - in_zp is sign-extended once per batch into int16 pairs on the
   stack, per 4 inputs the words (x0, x2), (x1, x3); then two rows at a time,
   8 inputs per step: one LDM of four x words for both rows, per row one
   LDRD of 8 weights, two SXTB16 and two SMLAD per weight word. */
#ifndef HTC__DSP_FCX
#define HTC__DSP_FCX 1024
#endif

static HTC__UNUSED int htc__fc_dspx_ok(const htc__fc_params *p)
{
    size_t a;
    memcpy(&a, &p->weights, sizeof a);   /* the address (C and C++ without a pointer cast) */
    return (p->in_features & 3) == 0 && p->in_features <= HTC__DSP_FCX && (a & 3) == 0;
}

/* a[0..1] += rows w0, w1 . xb, n8 steps of 8 inputs */
static HTC__INLINE void htc__fc_dspx_run(const int32_t *xb, const int8_t *w0, const int8_t *w1, int32_t n8, int32_t *a)
{
    int32_t a0 = a[0], a1 = a[1];
    for (; n8 > 0; n8--, xb += 4, w0 += 8, w1 += 8) {
        int32_t u = htc__ld32(w0), v = htc__ld32(w0 + 4);
        a0 = htc__smlad(htc__sxtb16(u), xb[0], a0);
        a0 = htc__smlad(htc__sxtb16_r8(u), xb[1], a0);
        a0 = htc__smlad(htc__sxtb16(v), xb[2], a0);
        a0 = htc__smlad(htc__sxtb16_r8(v), xb[3], a0);
        u = htc__ld32(w1);
        v = htc__ld32(w1 + 4);
        a1 = htc__smlad(htc__sxtb16(u), xb[0], a1);
        a1 = htc__smlad(htc__sxtb16_r8(u), xb[1], a1);
        a1 = htc__smlad(htc__sxtb16(v), xb[2], a1);
        a1 = htc__smlad(htc__sxtb16_r8(v), xb[3], a1);
    }
    a[0] = a0;
    a[1] = a1;
}

#ifdef HTC__DSP_ASM
/* The Thumb-2 loop of path X for a layer with bias, the full int8 range and
   one multiplier with e <= 23 (htc__dsprq_apply + zp folded as in
   conv2d.c's htc__dw3p_asm): every pair of rows of one batch, 16 inputs a
   step (8 first when n8 is odd). tb: m2, c + (zp << e), e, output, bias of
   the next pair, pairs, row bytes, 16 * n8; read and updated through the
   stack slot the asm pushes it to (its thirteen registers are all in use). */
static HTC__NOINLINE void htc__fc_dspx_asm(int32_t *tb, const int32_t *xb, const int8_t *w, int32_t n, int32_t n8,
                                          int32_t a0, int32_t a1)
{
    register int32_t r_a0 __asm__("r0") = a0, r_a1 __asm__("r1") = a1;
    register const int32_t *r_x __asm__("r2") = xb;
    register const int8_t *r_p0 __asm__("r3") = w;
    register const int8_t *r_p1 __asm__("r12") = w + n;
    register const int32_t *r_end __asm__("lr") = xb + 4 * n8;
    register int32_t r_x0 __asm__("r4"), r_x1 __asm__("r5"), r_x2 __asm__("r6"), r_x3 __asm__("r8");
    register int32_t r_wl __asm__("r9") = n8 & 1, r_wh __asm__("r10");
    register int32_t *r_t __asm__("r11") = tb;
#define HTC__FCX_ROW(P, A)                                                                                     \
    "ldrd %[wl], %[wh], [%[" P "]], #8\n\t"                                                                    \
    "sxtb16 %[t], %[wl]\n\t"                                                                                   \
    "smlad %[" A "], %[t], %[x0], %[" A "]\n\t"                                                                \
    "sxtb16 %[wl], %[wl], ror #8\n\t"                                                                          \
    "smlad %[" A "], %[wl], %[x1], %[" A "]\n\t"                                                               \
    "sxtb16 %[t], %[wh]\n\t"                                                                                   \
    "smlad %[" A "], %[t], %[x2], %[" A "]\n\t"                                                                \
    "sxtb16 %[wh], %[wh], ror #8\n\t"                                                                          \
    "smlad %[" A "], %[wh], %[x3], %[" A "]\n\t"
#define HTC__FCX_STEP                                                                                          \
    "ldm %[x]!, {r4, r5, r6, r8}\n\t" HTC__FCX_ROW("p0", "a0") HTC__FCX_ROW("p1", "a1")
    __asm__ volatile("push {%[t]}\n\t"
                     "cmp %[wl], #0\n\t"
                     "bne 2f\n\t"
                     "1:\n\t" HTC__FCX_STEP
                     "2:\n\t" HTC__FCX_STEP
                     "cmp %[x], %[end]\n\t"
                     "bne 1b\n\t"
                     "ldr %[t], [sp]\n\t"
                     "ldm %[t], {r4, r5, r6, r8, r9, r10}\n\t"
                     "smmlar %[a0], %[a0], %[x0], %[a0]\n\t"
                     "smmlar %[a1], %[a1], %[x0], %[a1]\n\t"
                     "add %[a0], %[a0], %[a0], asr #31\n\t"
                     "add %[a1], %[a1], %[a1], asr #31\n\t"
                     "qadd %[a0], %[a0], %[x1]\n\t"
                     "qadd %[a1], %[a1], %[x1]\n\t"
                     "asr %[a0], %[a0], %[x2]\n\t"
                     "asr %[a1], %[a1], %[x2]\n\t"
                     "ssat %[a0], #8, %[a0]\n\t"
                     "ssat %[a1], #8, %[a1]\n\t"
                     "strb %[a1], [%[x3], #1]\n\t"
                     "strb %[a0], [%[x3]], #2\n\t"
                     "subs %[wh], %[wh], #1\n\t"
                     "beq 3f\n\t"
                     "ldrd %[a0], %[a1], [%[wl]], #8\n\t"
                     "strd %[x3], %[wl], [%[t], #12]\n\t"
                     "str %[wh], [%[t], #20]\n\t"
                     "ldrd %[x0], %[x1], [%[t], #24]\n\t"
                     "sub %[x], %[end], %[x1]\n\t"
                     "mov %[p0], %[p1]\n\t"
                     "add %[p1], %[p1], %[x0]\n\t"
                     "ldr %[wl], [%[t], #28]\n\t"
                     "lsls %[wl], %[wl], #27\n\t"
                     "bne 2b\n\t"
                     "b 1b\n\t"
                     "3:\n\t"
                     "add sp, sp, #4\n\t"
                     : [a0] "+r"(r_a0), [a1] "+r"(r_a1), [x] "+r"(r_x), [p0] "+r"(r_p0), [p1] "+r"(r_p1),
                       [x0] "=&r"(r_x0), [x1] "=&r"(r_x1), [x2] "=&r"(r_x2), [x3] "=&r"(r_x3), [wl] "+r"(r_wl),
                       [wh] "=&r"(r_wh), [t] "+r"(r_t)
                     : [end] "r"(r_end)
                     : "cc", "memory");
#undef HTC__FCX_STEP
#undef HTC__FCX_ROW
}
#endif

/* requantize acc for row o (htc__dsprq: the caller checked) */
static HTC__INLINE int8_t htc__fc_dspx_out(const htc__fc_params *p, int32_t o, int32_t acc)
{
    const int32_t c = p->per_channel ? o : 0;
    const int32_t v = htc__dsprq_apply(htc__dsprq_make(p->mult[c], p->shift[c]), acc) + p->out_zp;
    return HTC__CAST(int8_t, p->act_min == -128 && p->act_max == 127 ? htc__ssat8(v) : htc__dsp_clamp(v, p->act_min, p->act_max));
}

static HTC__NOINLINE void htc__fc_dspx(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features, n8 = n >> 3, o2 = htc__dup16(-p->in_zp);
    int32_t xb[HTC__DSP_FCX / 2];
    int32_t b, o, i;
#ifdef HTC__DSP_ASM
    const htc__dsprq q = htc__dsprq_make(p->mult[0], p->shift[0]);
    const int use_asm = !p->per_channel && p->bias && (n & 7) == 0 && n8 > 0 && nout >= 2 && p->act_min == -128 &&
                        p->act_max == 127 && q.e <= 23;
#endif
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        const int8_t *w = p->weights;
        for (i = 0; i < n; i += 4) {
            const int32_t v = htc__ld32(in + i);
            xb[i >> 1] = htc__sxtab16(o2, v);
            xb[(i >> 1) + 1] = htc__sxtab16_r8(o2, v);
        }
        o = 0;
#ifdef HTC__DSP_ASM
        if (use_asm) {
            const int32_t *bias2 = p->bias + 2;
            int32_t tb[8];
            tb[0] = q.m2;
            tb[1] = q.c + HTC__CAST(int32_t, HTC__CAST(uint32_t, p->out_zp) << q.e);
            tb[2] = q.e;
            memcpy(&tb[3], &out, 4);          /* addresses: 32 bits on Thumb-2 */
            memcpy(&tb[4], &bias2, 4);
            tb[5] = nout >> 1;
            tb[6] = n;
            tb[7] = 16 * n8;
            htc__fc_dspx_asm(tb, xb, w, n, n8, p->bias[0], p->bias[1]);
            o = nout & ~1;
            w += (size_t)o * n;
        }
#endif
        for (; o < nout; o += 2, w += 2 * n) {
            const int8_t *w1 = o + 1 < nout ? w + n : w;
            int32_t a[2];
            a[0] = p->bias ? p->bias[o] : 0;
            a[1] = p->bias && o + 1 < nout ? p->bias[o + 1] : 0;
            htc__fc_dspx_run(xb, w, w1, n8, a);
            if (n & 4) {
                const int32_t u = htc__ld32(w + 8 * n8), v = htc__ld32(w1 + 8 * n8), xe = xb[4 * n8], xo = xb[4 * n8 + 1];
                a[0] = htc__smlad(htc__sxtb16(u), xe, a[0]);
                a[0] = htc__smlad(htc__sxtb16_r8(u), xo, a[0]);
                a[1] = htc__smlad(htc__sxtb16(v), xe, a[1]);
                a[1] = htc__smlad(htc__sxtb16_r8(v), xo, a[1]);
            }
            out[o] = htc__fc_dspx_out(p, o, a[0]);
            if (o + 1 < nout) out[o + 1] = htc__fc_dspx_out(p, o + 1, a[1]);
        }
    }
}

/* row . (x - in_zp), o2 = -in_zp in both halves (htc__dup16) */
static HTC__UNUSED int32_t htc__fc_dsp1(const int8_t *x, const int8_t *w, int32_t n, int32_t o2)
{
    const int32_t off = HTC__CAST(int32_t, HTC__CAST(uint32_t, o2) << 16) >> 16;
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
    const int32_t n = p->in_features, mstep = p->per_channel ? 1 : 0, o2 = htc__dup16(-p->in_zp);
    for (; o < p->out_features; o++) {
        const int32_t a = (p->bias ? p->bias[o] : 0) + htc__fc_dsp1(in, p->weights + (size_t)o * n, n, o2);
        out[o] = HTC__CAST(int8_t, htc__requant(a, p->mult[o * mstep], p->shift[o * mstep], p->out_zp, p->act_min, p->act_max));
    }
}

static HTC__NOINLINE void htc__fc_dsp(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features;
    const int fast = htc__dsp_rq_okr(p->rq, p->mult, p->shift, p->per_channel ? nout : 1, p->bias, nout, n);
    int32_t b;
    if (fast && htc__fc_dspx_ok(p)) {
        htc__fc_dspx(p, in, out);
        return;
    }
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        if (fast) htc__fc_dsp4(p, in, 0, nout >> 2, out);
        if (!fast || (nout & 3)) htc__fc_dsp_rows(p, in, fast ? nout & ~3 : 0, out);
    }
}
#endif

#if (!defined(HTC__SSE2) && !defined(HTC__DSP)) || defined(HTC__XP)
/* The epilogue of the portable and XpulpV2 paths: outputs o..o+nb-1 of one
   row from their accumulators, TFLite's requantization (htc__prq when
   htc__prq_ok said it is exact for the layer, else htc__requant). */
static HTC__INLINE void htc__fc_rq4(const htc__fc_params *p, const int32_t *acc, int32_t o, int32_t nb, int fast,
                                    int8_t *out)
{
    const int32_t mstep = p->per_channel ? 1 : 0, zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int32_t k;
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

/* Their block set-up: the four weight rows from output o (the last one
   repeated past the end of the layer) and the accumulators at the biases. */
static HTC__INLINE void htc__fc_rows4(const htc__fc_params *p, int32_t o, const int8_t **r, int32_t *acc)
{
    const int32_t n = p->in_features, nout = p->out_features;
    int32_t k;
    for (k = 0; k < 4; k++) {
        const int32_t row = o + k < nout ? o + k : nout - 1;
        r[k] = p->weights + (size_t)row * n;
        acc[k] = p->bias ? p->bias[row] : 0;
    }
}
#endif

#if !defined(HTC__SSE2) && !defined(HTC__DSP) && !defined(HTC__XP)
/* Portable path (weights without zero point): four output rows per pass, each
   input byte (with the offset added once, unless the generator folded it
   into the bias: in_zp 0) feeding four multiply-adds, four
   inputs per iteration at fixed offsets; requantization as the portable
   convolution's (htc__prq when htc__prq_ok, else htc__requant). */
#define HTC__FC_PORT4(NAME, OFF_ARG, OFF)                                   \
static HTC__NOINLINE HTC__NOSCHED void NAME(const int8_t *x, const int8_t *const *r, int32_t n OFF_ARG, \
                                            int32_t *acc)                   \
{                                                                           \
    const int8_t *w = r[0], *w1 = r[1], *w2 = r[2], *w3 = r[3], *end = x + (n & ~3); \
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], u;          \
    while (x != end) {                                                      \
        HTC__F14(0, OFF) HTC__F14(1, OFF) HTC__F14(2, OFF) HTC__F14(3, OFF) \
        x += 4; w += 4; w1 += 4; w2 += 4; w3 += 4;                          \
    }                                                                       \
    for (n &= 3; n > 0; n--) {                                              \
        HTC__F14(0, OFF)                                                    \
        x++; w++; w1++; w2++; w3++;                                         \
    }                                                                       \
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;                     \
}
#define HTC__F14(I, OFF)                                                    \
    u = x[I] OFF;                                                           \
    a0 += u * w[I]; a1 += u * w1[I]; a2 += u * w2[I]; a3 += u * w3[I];
#define HTC__FC_OFF_ARG , int32_t off
HTC__FC_PORT4(htc__fc_port4, HTC__FC_OFF_ARG, + off)
HTC__FC_PORT4(htc__fc_port4f, , )
#undef HTC__FC_OFF_ARG
#undef HTC__F14
#undef HTC__FC_PORT4

static HTC__NOINLINE void htc__fc_port(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features, off = -p->in_zp;
    const int fast = htc__prq_okr(p->rq, p->mult, p->shift, p->per_channel ? nout : 1, p->bias, nout, n);
    /* one multiplier and enough rows: its constants made once per call (2m hidden from gcc,
       which makes the product by a known 2m of two MULs and a MULHU instead of MULHSU) */
    const int one = fast && !p->per_channel && nout >= 32;
    htc__prq q = htc__prq_make(p->mult[0], p->shift[0]);
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int32_t b, o, k;
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(q.m2));
#endif
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        for (o = 0; o < nout; o += 4) {
            const int32_t nb = nout - o < 4 ? nout - o : 4;
            const int8_t *r[4];
            int32_t acc[4];
            htc__fc_rows4(p, o, r, acc);
            if (off) htc__fc_port4(in, r, n, off, acc);
            else htc__fc_port4f(in, r, n, acc);    /* the offset folded into the bias at compile time */
            if (!one) {
                htc__fc_rq4(p, acc, o, nb, fast, out);
                continue;
            }
            for (k = 0; k < nb; k++) {
                const int32_t v = htc__prq_apply(q, acc[k]) + zp;
                out[o + k] = HTC__CAST(int8_t, v < lo ? lo : (v > hi ? hi : v));
            }
        }
    }
}
#endif

#ifdef HTC__XP
/* XpulpV2 path (htc.h HTC__XP): four output features per dot product on
   the stored bytes (pv.sdotsp.b), the input offset folded: acc = bias +
   off * sum(w) + x . w, with sum(w) accumulated in the same loop. rne:
   the shifts per output (or [0]) of onnxruntime's exact power-of-two
   requantization (htc__qfc_xp), rounding half to even; NULL: TFLite's. */
static HTC__NOINLINE void htc__fc_xp_run(const htc__fc_params *p, const int8_t *in, int8_t *out, const int8_t *rne)
{
    const int32_t n = p->in_features, nout = p->out_features, off = -p->in_zp;
    const int fast = rne || htc__prq_ok(p->mult, p->shift, p->per_channel ? nout : 1, p->bias, nout, n);
    int32_t b, o, k;
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        for (o = 0; o < nout; o += 4) {
            const int32_t nb = nout - o < 4 ? nout - o : 4;
            const int8_t *r[4];
            int32_t acc[4], ws[4] = {0, 0, 0, 0};
            htc__fc_rows4(p, o, r, acc);
            htc__xp_dot1x4w(in, r, n, acc, ws);
            for (k = 0; k < nb; k++) acc[k] += off * ws[k];
            if (rne) {
                for (k = 0; k < nb; k++) {
                    const int32_t e = rne[p->per_channel ? o + k : 0];
                    const int32_t v = ((acc[k] + ((1 << (e - 1)) - 1) + ((acc[k] >> e) & 1)) >> e) + p->out_zp;
                    out[o + k] = HTC__CAST(int8_t, v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v));
                }
            } else {
                htc__fc_rq4(p, acc, o, nb, fast, out);
            }
        }
    }
}

static HTC__NOINLINE void htc__fc_xp(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    htc__fc_xp_run(p, in, out, 0);
}

/* onnxruntime's QLinearMatMul / QGemm on the XpulpV2 path when its
   requantization is exactly a shift (exact_shift, as htc__qconv2d_xp),
   one weight matrix without zero point; the shifts of up to HTC__XP_QF
   outputs on the stack. 0, computing nothing, when the layer is not its. */
#ifndef HTC__XP_QF
#define HTC__XP_QF 1024
#endif
static HTC__NOINLINE int htc__qfc_xp(const htc__qfc_params *q, const int8_t *in, int8_t *out)
{
    const int32_t nch = q->per_channel ? q->out_features : 1;
    htc__fc_params v;
    int8_t sh[HTC__XP_QF];
    int32_t c;
    if (!q->exact_shift || q->w_zp || !q->scale || q->w_batches != 1 || nch > HTC__XP_QF) return 0;
    for (c = 0; c < nch; c++) {
        uint32_t u;
        int32_t e;
        memcpy(&u, &q->scale[c], sizeof u);
        e = 127 - HTC__CAST(int32_t, u >> 23);      /* scale = 2^-e: sign 0, mantissa 0 */
        if ((u & 0x807fffffu) || e < 1 || e > 30) return 0;
        sh[c] = HTC__CAST(int8_t, e);
    }
    memset(&v, 0, sizeof v);
    v.batches = q->batches * q->rows;
    v.in_features = q->in_features; v.out_features = q->out_features;
    v.in_zp = q->in_zp; v.out_zp = q->out_zp; v.act_min = q->qmin; v.act_max = q->qmax;
    v.per_channel = q->per_channel;
    v.weights = q->weights; v.bias = q->bias;
    htc__fc_xp_run(&v, in, out, sh);
    return 1;
}
#endif

/* ---- The accumulation loop of every requantization kind --------------------
   htc__fc_core: per batch b, row r and output column o,
   acc = alpha * sum_i (x[r][i] + in_off) * (w[o][i] - w_zp[o]) + bias,
   then the layer's epilogue (htc.h htc__epi_put) for channel o (or r when
   epi_rows). x element (r, i) is at r * x_rs + i * x_cs of its batch, w
   element (o, i) at o * w_rs + i * w_cs (contiguous rows of k take the dot
   products of htc.h: four output columns per input load). Non-zero weight
   zero points: sum (x + off) w - wzp * sum (x + off), the second sum once
   per row. TFLite's FULLY_CONNECTED takes it where its fast paths (Arm DSP,
   RV32) do not apply; onnxruntime's QLinearMatMul / QGemm / MatMulInteger,
   QuantLib's MatMul / Gemm and TFLite's BATCH_MATMUL take it always. */
typedef struct {
    int32_t batches, rows, k, n;
    int32_t x_bstride, w_bstride;           /* elements between batches (0: broadcast) */
    int32_t x_rs, x_cs, w_rs, w_cs;         /* strides of rows and of k */
    int32_t in_off;                         /* -input zero point */
    int32_t alpha;                          /* QuantLib's Gemm alpha; 1 otherwise */
    int32_t bias_rows;                      /* bias [rows][n] instead of [n] */
    int32_t epi_rows;                       /* requant channel: the row, not the column */
    int32_t w_zp_pc;                        /* w_zp has n entries */
    const int8_t *weights;
    const int32_t *bias;                    /* or NULL */
    const int32_t *w_zp;                    /* or NULL */
    int32_t r_lo, r_hi;                     /* only rows [r_lo, r_hi) of b * rows + r (r_hi 0: all) */
    int32_t n_lo, n_hi;                     /* only columns [n_lo, n_hi) (n_hi 0: all) */
} htc__fcg;

static inline void htc__fcg_put(const htc__fcg *g, const htc__epi *e, void *out, size_t o0, int32_t r, int32_t o, int32_t acc,
                                int32_t xsum)
{
    if (g->w_zp) acc -= g->w_zp[g->w_zp_pc ? o : 0] * xsum;
    acc *= g->alpha;
    if (g->bias) acc += g->bias[g->bias_rows ? r * g->n + o : o];
    htc__epi_put(e, out, o0 + HTC__CAST(size_t, o), g->epi_rows ? r : o, acc);
}

static HTC__NOINLINE HTC__UNUSED void htc__fc_core(const htc__fcg *g, const htc__epi *e, const int8_t *in, void *out)
{
    const int32_t k = g->k, nout = g->n, off = g->in_off;
    const int32_t r_lo = g->r_hi ? g->r_lo : 0, r_hi = g->r_hi ? g->r_hi : g->batches * g->rows;
    const int32_t n_lo = g->n_hi ? g->n_lo : 0, n_hi = g->n_hi ? g->n_hi : nout;
    const int dense = g->x_cs == 1 && g->w_cs == 1;
#ifdef HTC__AVX2
    const int avx2 = htc__have_avx2();
#endif
    int32_t b, r, o, i;
    size_t o0 = 0;
    for (b = 0; b < g->batches; b++) {
        const int8_t *xb = in + HTC__CAST(size_t, b) * HTC__CAST(size_t, g->x_bstride);
        const int8_t *wb = g->weights + HTC__CAST(size_t, b) * HTC__CAST(size_t, g->w_bstride);
        for (r = 0; r < g->rows; r++, o0 += HTC__CAST(size_t, nout)) {
            const int8_t *x = xb + HTC__CAST(size_t, r) * HTC__CAST(size_t, g->x_rs);
            int32_t xsum = 0;
            if (b * g->rows + r < r_lo || b * g->rows + r >= r_hi) continue;
            if (g->w_zp)
                for (i = 0; i < k; i++) xsum += x[HTC__CAST(size_t, i) * g->x_cs] + off;
            if (dense) {
                for (o = n_lo; o + 4 <= n_hi; o += 4) {
                    int32_t acc[4] = {0, 0, 0, 0}, j;
                    const int8_t *w = wb + HTC__CAST(size_t, o) * HTC__CAST(size_t, g->w_rs);
#ifdef HTC__AVX2
                    if (avx2) htc__dot4_s8_avx2(x, w, g->w_rs, k, off, acc);
                    else
#endif
                        htc__dot4_s8(x, w, g->w_rs, k, off, acc);
                    for (j = 0; j < 4; j++) htc__fcg_put(g, e, out, o0, r, o + j, acc[j], xsum);
                }
                /* explicit start: with "for (; o < nout" GCC 12 -O2 on 32-bit
                   targets warns "iteration 1073741823 invokes undefined behavior" */
                for (o = n_hi - (n_hi - n_lo) % 4; o < n_hi; o++)
                    htc__fcg_put(g, e, out, o0, r, o, htc__dot1_s8(x, wb + HTC__CAST(size_t, o) * HTC__CAST(size_t, g->w_rs), k, off), xsum);
            } else {
                for (o = n_lo; o < n_hi; o++) {
                    const int8_t *w = wb + HTC__CAST(size_t, o) * HTC__CAST(size_t, g->w_rs);
                    int32_t acc = 0;
                    for (i = 0; i < k; i++) acc += (x[HTC__CAST(size_t, i) * g->x_cs] + off) * w[HTC__CAST(size_t, i) * g->w_cs];
                    htc__fcg_put(g, e, out, o0, r, o, acc, xsum);
                }
            }
        }
    }
}

/* Core's share of the loop's output (multi-core clusters): its rows
   (b * rows + r) or its columns; one core: everything. */
static HTC__UNUSED void htc__fcg_share(htc__fcg *g, int split, int core, int ncores)
{
    int32_t lo, hi;
    if (ncores <= 1) return;
    htc__share(split == HTC_SPLIT_CHANNELS ? g->n : g->batches * g->rows, core, ncores, &lo, &hi);
    if (hi <= lo) lo = hi = -1;         /* nothing (r_hi / n_hi 0 would mean all) */
    if (split == HTC_SPLIT_CHANNELS) g->n_lo = lo, g->n_hi = hi;
    else g->r_lo = lo, g->r_hi = hi;
}

/* TFLite FULLY_CONNECTED through the loop (per-channel weights are
   symmetric in TFLite: their zero point is not applied) */
static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__fc_gen(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    htc__fcg g;
    htc__epi e;
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    g.batches = 1; g.rows = p->batches; g.k = p->in_features; g.n = p->out_features;
    g.x_rs = p->in_features; g.x_cs = 1; g.w_rs = p->in_features; g.w_cs = 1;
    g.in_off = -p->in_zp; g.alpha = 1;
    g.weights = p->weights; g.bias = p->bias;
    if (!p->per_channel && p->w_zp) g.w_zp = &p->w_zp;
    e.kind = HTC__EPI_TFLITE; e.per_channel = p->per_channel;
    e.mult = p->mult; e.shift = p->shift;
    e.out_zp = p->out_zp; e.lo = p->act_min; e.hi = p->act_max;
    htc__fc_core(&g, &e, in, out);
}

#ifdef HTC__MVE
/* Helium path (weights without zero point): four output rows at a time; per
   16 inputs one input load, four weight loads and four VMLADAVA (the last
   step predicated when in_features % 16 != 0). The generator folds the
   input offset into the bias (in_zp 0: nothing more to do); otherwise it is
   off * (sum of the row's weights), summed by VADDVA in a first pass over
   the group's rows (htc__mve_sum8x4), or, when in_zp is -128 (after a ReLU)
   the products are taken unsigned instead, x + 128 times w + 128 (both the
   bytes with the top bit flipped), less 128 * sum (x + 128) once per input
   row, and the weights need no sums. The four accumulators are requantized as one vector
   (htc__mve_rq) and stored by one (predicated) store; a last group of
   fewer rows repeats its last row. */
static HTC__NOINLINE void htc__fc_mve(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features, off = -p->in_zp, nf = n & ~15;
    const mve_pred16_t pt = vctp8q(HTC__CAST(uint32_t, n & 15));
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    /* in_zp 0 (the generator folded the offset into the bias): plain products */
    const int32_t *bias = p->bias;
    const int folded = off == 0, uns = off == 128;
    int32_t b, o;
    for (b = 0; b < p->batches; b++, in += n, out += nout) {
        uint32_t sx = 0;        /* sum of x + 128 (when in_zp is -128) */
        if (uns) {
            const uint8_t *xu = HTC__CAST(const uint8_t *, HTC__CAST(const void *, in));
            int32_t i;
            for (i = 0; i < n; i += 16) {
                const mve_pred16_t pr = vctp8q(HTC__CAST(uint32_t, n - i));
                sx = vaddvaq_p_u8(sx, veorq_u8(vldrbq_z_u8(xu + i, pr), vdupq_n_u8(0x80)), pr);
            }
        }
        for (o = 0; o < nout; o += 4) {
            const int32_t nr = nout - o < 4 ? nout - o : 4;
            const int8_t *w0 = p->weights + (size_t)o * n;
            const int8_t *w1 = w0 + (nr > 1 ? n : 0), *w2 = w0 + (nr > 2 ? 2 * n : (w1 - w0));
            const int8_t *w3 = w0 + (nr > 3 ? 3 * n : (w2 - w0)), *x = in;
            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, i;
            int32x4_t v, m, sh, ws;
            if (uns) {
                /* x - in_zp = x + 128 = x ^ 0x80 read unsigned (x'); with w' = w ^ 0x80 = w + 128,
                   sum x' w = sum x' w' - 128 sum x': unsigned VMLADAVA, no sums of the weights */
                const uint8x16_t k = vdupq_n_u8(0x80);
                const uint8_t *xu = HTC__CAST(const uint8_t *, HTC__CAST(const void *, x));
                const uint8_t *u0 = HTC__CAST(const uint8_t *, HTC__CAST(const void *, w0)), *u1 = HTC__CAST(const uint8_t *, HTC__CAST(const void *, w1));
                const uint8_t *u2 = HTC__CAST(const uint8_t *, HTC__CAST(const void *, w2)), *u3 = HTC__CAST(const uint8_t *, HTC__CAST(const void *, w3));
                uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
                for (i = 0; i < nf; i += 16, xu += 16, u0 += 16, u1 += 16, u2 += 16, u3 += 16) {
                    const uint8x16_t xv = veorq_u8(vldrbq_u8(xu), k);
                    c0 = vmladavaq_u8(c0, xv, veorq_u8(vldrbq_u8(u0), k));
                    c1 = vmladavaq_u8(c1, xv, veorq_u8(vldrbq_u8(u1), k));
                    c2 = vmladavaq_u8(c2, xv, veorq_u8(vldrbq_u8(u2), k));
                    c3 = vmladavaq_u8(c3, xv, veorq_u8(vldrbq_u8(u3), k));
                }
                if (n & 15) {
                    const uint8x16_t xv = veorq_u8(vldrbq_z_u8(xu, pt), k);
                    c0 = vmladavaq_p_u8(c0, xv, veorq_u8(vldrbq_z_u8(u0, pt), k), pt);
                    c1 = vmladavaq_p_u8(c1, xv, veorq_u8(vldrbq_z_u8(u1, pt), k), pt);
                    c2 = vmladavaq_p_u8(c2, xv, veorq_u8(vldrbq_z_u8(u2, pt), k), pt);
                    c3 = vmladavaq_p_u8(c3, xv, veorq_u8(vldrbq_z_u8(u3, pt), k), pt);
                }
                ws = vdupq_n_s32(HTC__CAST(int32_t, 0u - 128u * sx));
                a0 = HTC__CAST(int32_t, c0);
                a1 = HTC__CAST(int32_t, c1);
                a2 = HTC__CAST(int32_t, c2);
                a3 = HTC__CAST(int32_t, c3);
            } else {
            ws = folded ? vdupq_n_s32(0) : vmulq_n_s32(htc__mve_sum8x4(w0, w1, w2, w3, n), off);
            for (i = 0; i < nf; i += 16, x += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
                const int8x16_t xv = vldrbq_s8(x);
                a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w0));
                a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1));
                a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2));
                a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3));
            }
            if (n & 15) {
                const int8x16_t xv = vldrbq_z_s8(x, pt);
                a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0, pt));
                a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1, pt));
                a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2, pt));
                a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3, pt));
            }
            }
            v = vaddq_s32(ws, vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3));
            if (bias) v = vaddq_s32(v, vldrwq_z_s32(bias + o, vctp32q(HTC__CAST(uint32_t, nr))));
            if (p->per_channel) {
                const mve_pred16_t pr = vctp32q(HTC__CAST(uint32_t, nr));
                m = vldrwq_z_s32(p->mult + o, pr);
                sh = vldrbq_z_s32(p->shift + o, pr);
            } else {
                m = vdupq_n_s32(p->mult[0]);
                sh = vdupq_n_s32(p->shift[0]);
            }
            v = htc__mve_rq(v, m, vmaxq_s32(sh, vdupq_n_s32(0)), vminq_s32(sh, vdupq_n_s32(0)));
            vstrbq_p_s32(out + o, htc__mve_out(v, zp, lo, hi), vctp32q(HTC__CAST(uint32_t, nr)));
        }
    }
}
#endif

/* The path is chosen from the layer's constant parameters: with the call
   inlined the compiler folds the choice and links only the paths used. */
static HTC__INLINE HTC__UNUSED void htc__fc_s8(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
#if defined(HTC__XP)
    if (p->per_channel || p->w_zp == 0) {
        htc__fc_xp(p, in, out);
        return;
    }
#endif
#ifdef HTC__MVE
    if (p->per_channel || p->w_zp == 0) {
        htc__fc_mve(p, in, out);
        return;
    }
#endif
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
#elif !defined(HTC__SSE2) && !defined(HTC__XP)
    if (p->per_channel || p->w_zp == 0) {
        htc__fc_port(p, in, out);
        return;
    }
#endif
    htc__fc_gen(p, in, out);
}

/* Multi-core: core's share of the batches (rows) or of the output
   features (channels), as a smaller layer, so every path runs unchanged. */
static HTC__UNUSED void htc__fc_s8_par(const htc__fc_params *p, const int8_t *in, int8_t *out, int split, int core, int ncores)
{
    htc__fc_params v = *p;
    int32_t lo, hi, b;
    if (split != HTC_SPLIT_CHANNELS) {
        htc__share(p->batches, core, ncores, &lo, &hi);
        if (hi <= lo) return;
        v.batches = hi - lo;
        htc__fc_s8(&v, in + HTC__CAST(size_t, lo) * p->in_features, out + HTC__CAST(size_t, lo) * p->out_features);
        return;
    }
    htc__share(p->out_features, core, ncores, &lo, &hi);
    if (hi <= lo) return;
    v.batches = 1;
    v.out_features = hi - lo;
    v.weights = p->weights + HTC__CAST(size_t, lo) * p->in_features;
    if (p->bias) v.bias = p->bias + lo;
    if (p->per_channel) {
        v.mult = p->mult + lo;
        v.shift = p->shift + lo;
    }
    for (b = 0; b < p->batches; b++)
        htc__fc_s8(&v, in + HTC__CAST(size_t, b) * p->in_features, out + HTC__CAST(size_t, b) * p->out_features + lo);
}

/* ---- onnxruntime's QLinearMatMul / QGemm / MatMulInteger (float
   requantization or the int32 accumulator): the loop with their epilogue.
   out[b][r][o] = requant(bias[o] + sum_i (a[b][r][i] - in_zp) *
   (w[b or 0][o][i] - w_zp[o])). */
static HTC__COLD HTC__UNUSED void htc__qfc_run(const htc__qfc_params *p, int int32_out, const int8_t *in, void *out, int split,
                                               int core, int ncores)
{
    htc__fcg g;
    htc__epi e;
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    g.batches = p->batches; g.rows = p->rows; g.k = p->in_features; g.n = p->out_features;
    g.x_bstride = p->rows * p->in_features;
    g.w_bstride = p->w_batches > 1 ? p->out_features * p->in_features : 0;
    g.x_rs = p->in_features; g.x_cs = 1; g.w_rs = p->in_features; g.w_cs = 1;
    g.in_off = -p->in_zp; g.alpha = 1;
    g.weights = p->weights; g.bias = p->bias; g.w_zp = p->w_zp; g.w_zp_pc = p->per_channel;
    e.kind = int32_out ? HTC__EPI_INT32 : HTC__EPI_FLOAT;
    e.per_channel = p->per_channel;
    e.scale = p->scale;
    e.out_zp = p->out_zp;
    e.flo = HTC__CAST(float, p->qmin - p->out_zp);
    e.fhi = HTC__CAST(float, p->qmax - p->out_zp);
    htc__fcg_share(&g, split, core, ncores);
    htc__fc_core(&g, &e, in, out);
}

static HTC__UNUSED void htc__qfc_s8(const htc__qfc_params *p, const int8_t *in, int8_t *out)
{
#ifdef HTC__XP
    if (htc__qfc_xp(p, in, out)) return;
#endif
    htc__qfc_run(p, 0, in, out, HTC_SPLIT_ROWS, 0, 1);
}

static HTC__UNUSED void htc__qfc_s32(const htc__qfc_params *p, const int8_t *in, int32_t *out)
{
    htc__qfc_run(p, 1, in, out, HTC_SPLIT_ROWS, 0, 1);
}

static HTC__UNUSED void htc__qfc_s8_par(const htc__qfc_params *p, const int8_t *in, int8_t *out, int split, int core, int ncores)
{
    htc__qfc_run(p, 0, in, out, split, core, ncores);
}

static HTC__UNUSED void htc__qfc_s32_par(const htc__qfc_params *p, const int8_t *in, int32_t *out, int split, int core,
                                         int ncores)
{
    htc__qfc_run(p, 1, in, out, split, core, ncores);
}

/* ---- QuantLib's MatMul / Gemm (RequantShift): a [batches][m][k] x b
   [b_batches][n][k] (b transposed), acc = alpha * sum (a + a_off)(b + b_off)
   + bias; ins: a, b, bias, mul, add. b + b_off is b - w_zp with one weight
   zero point -b_off. */
static HTC__COLD HTC__UNUSED void htc__ql_matmul_run(const htc__ql_matmul_params *p, const void *const *ins, void *out,
                                                     int split, int core, int ncores)
{
    htc__fcg g;
    htc__epi e;
    int32_t wzp = -p->b_off;
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    g.batches = p->batches; g.rows = p->m; g.k = p->k; g.n = p->n;
    g.x_bstride = p->a_bstride; g.w_bstride = p->b_bstride;
    g.x_rs = p->k; g.x_cs = 1; g.w_rs = p->k; g.w_cs = 1;
    g.in_off = p->a_off; g.alpha = p->alpha;
    g.bias_rows = p->bias_mode == 2;
    g.epi_rows = p->rq_mode == 2;
    g.weights = HTC__CAST(const int8_t *, ins[1]);
    g.bias = p->bias_mode ? HTC__CAST(const int32_t *, ins[2]) : HTC__CAST(const int32_t *, 0);
    if (wzp) g.w_zp = &wzp;
    e.kind = p->rq ? HTC__EPI_QUANTLIB : HTC__EPI_INT32;
    e.per_channel = p->rq_mode != 0;
    e.mult = HTC__CAST(const int32_t *, ins[3]);
    e.add = HTC__CAST(const int32_t *, ins[4]);
    e.ql_shift = p->shift;
    e.lo = p->lo; e.hi = p->hi; e.out_zp = -p->out_off;
    htc__fcg_share(&g, split, core, ncores);
    htc__fc_core(&g, &e, HTC__CAST(const int8_t *, ins[0]), out);
}

#ifdef HTC__XP
/* XpulpV2 path (HTC__XP) of QuantLib's MatMul / Gemm with RequantShift,
   alpha 1, a bias per column (or none), the requantization per column (or
   one): four columns per dot product on the stored bytes
   (htc__xp_dot1x4w, the sums of b's rows in the same loop), the offsets
   folded: acc = bias + a . b + a_off * sum b + b_off * (sum a + k * a_off),
   then QuantLib's RequantShift in 32 bits (htc__xql_apply, the output
   offset in its constant) where htc__xql_fc_ok finds it exact, else
   htc__ql_rq. Rows [r_lo, r_hi) of b * m + r, columns [n_lo, n_hi). */
static HTC__UNUSED int htc__ql_fc_xp_ok(const htc__ql_matmul_params *p)
{
    return p->rq && p->alpha == 1 && p->bias_mode != 2 && p->rq_mode != 2 && p->a_off >= -128 && p->a_off <= 128 &&
           p->b_off >= -128 && p->b_off <= 128 && p->k < 32768 && p->shift >= 0 && p->shift <= 30;
}

/* columns [lo, hi) exact in 32 bits? |acc| <= |bias| + k * 255 * 255 */
static HTC__UNUSED int htc__ql_fc_xp_exact(const htc__ql_matmul_params *p, const int32_t *bias, const int32_t *mul,
                                           const int32_t *add, int32_t lo, int32_t hi)
{
    const int64_t t = HTC__CAST(int64_t, p->k) * 255 * 255;
    int32_t i;
    for (i = lo; i < hi; i++) {
        const int32_t j = p->rq_mode ? i : 0;
        const int64_t b = bias ? bias[i] : 0, m = mul[j];
        const int64_t c = HTC__CAST(int64_t, add[j]) + (p->shift > 0 ? HTC__CAST(int64_t, 1) << (p->shift - 1) : 0) -
                          HTC__CAST(int64_t, p->out_off) * (HTC__CAST(int64_t, 1) << p->shift);
        if (((b < 0 ? -b : b) + t) * (m < 0 ? -m : m) + (c < 0 ? -c : c) > 2147483647) return 0;
    }
    return 1;
}

static HTC__NOINLINE void htc__ql_fc_xp(const htc__ql_matmul_params *p, const void *const *ins, void *out, int32_t r_lo,
                                        int32_t r_hi, int32_t n_lo, int32_t n_hi)
{
    const int8_t *a = HTC__CAST(const int8_t *, ins[0]), *wb = HTC__CAST(const int8_t *, ins[1]);
    const int32_t *bias = p->bias_mode ? HTC__CAST(const int32_t *, ins[2]) : HTC__CAST(const int32_t *, 0);
    const int32_t *mul = HTC__CAST(const int32_t *, ins[3]), *add = HTC__CAST(const int32_t *, ins[4]);
    const int32_t k = p->k, n = p->n, lo = p->lo - p->out_off, hi = p->hi - p->out_off;
    const int fast = htc__ql_fc_xp_exact(p, bias, mul, add, n_lo, n_hi);
    int8_t *o8 = HTC__CAST(int8_t *, out);
    int32_t r, o, j;
    for (r = r_lo; r < r_hi; r++) {
        const int32_t b = r / p->m, rr = r - b * p->m;
        const int8_t *x = a + HTC__CAST(size_t, b) * p->a_bstride + HTC__CAST(size_t, rr) * k;
        const int8_t *w = wb + HTC__CAST(size_t, b) * p->b_bstride;
        int8_t *orow = o8 + HTC__CAST(size_t, r) * n;
        /* b_off * (sum a + k * a_off): once per row */
        const int32_t xo = p->b_off ? p->b_off * (htc__xp_sum(x, k) + k * p->a_off) : 0;
        for (o = n_lo; o < n_hi; o += 4) {
            const int32_t nb = n_hi - o < 4 ? n_hi - o : 4;
            const int8_t *rw[4];
            int32_t acc[4], ws[4] = {0, 0, 0, 0};
            for (j = 0; j < 4; j++) {
                const int32_t c = o + j < n_hi ? o + j : n_hi - 1;
                rw[j] = w + HTC__CAST(size_t, c) * k;
                acc[j] = (bias ? bias[c] : 0) + xo;
            }
            htc__xp_dot1x4w(x, rw, k, acc, ws);
            for (j = 0; j < nb; j++) {
                const int32_t q = p->rq_mode ? o + j : 0, v = acc[j] + p->a_off * ws[j];
                if (fast) {
                    const htc__xrq xq = htc__xql_make(mul[q], add[q], p->shift, -p->out_off);
                    orow[o + j] = HTC__CAST(int8_t, htc__xp_clamp(htc__xql_apply(xq, v), lo, hi));
                } else {
                    orow[o + j] = HTC__CAST(int8_t, htc__ql_rq(v, mul[q], add[q], p->shift, p->lo, p->hi) - p->out_off);
                }
            }
        }
    }
}

/* Tiny products (k, n <= HTC__QL_SMALL: MicroLlama's per-head attention
   matmuls, 16 heads of 1 x 4 x 2): htc__ql_fc_xp's setup per row (four
   column pointers, a call of htc__xp_dot1x4w, its sums of b) costs more
   than the products, so each output is summed directly, (a + a_off)(b +
   b_off) a word at a time when both offsets are 0, and the exactness check
   runs once for a scalar requantization without bias. Same results as
   htc__ql_fc_xp (the same acc, the same htc__xql_apply / htc__ql_rq).
   Rows [r_lo, r_hi) of b * m + r. */
#define HTC__QL_SMALL 16
static HTC__NOINLINE void htc__ql_fc_small(const htc__ql_matmul_params *p, const void *const *ins, void *out, int32_t r_lo,
                                           int32_t r_hi)
{
    const int8_t *a = HTC__CAST(const int8_t *, ins[0]), *wb = HTC__CAST(const int8_t *, ins[1]);
    const int32_t *bias = p->bias_mode ? HTC__CAST(const int32_t *, ins[2]) : HTC__CAST(const int32_t *, 0);
    const int32_t *mul = HTC__CAST(const int32_t *, ins[3]), *add = HTC__CAST(const int32_t *, ins[4]);
    const int32_t k = p->k, n = p->n, m = p->m, ao = p->a_off, bo = p->b_off;
    const int32_t lo = p->lo - p->out_off, hi = p->hi - p->out_off, k4 = (ao || bo) ? 0 : k & ~3;
    const int fast = htc__ql_fc_xp_exact(p, bias, mul, add, 0, (bias || p->rq_mode) ? n : 1);
    const htc__xrq x0 = htc__xql_make(mul[0], add[0], p->shift, -p->out_off);
    int8_t *orow = HTC__CAST(int8_t *, out) + HTC__CAST(size_t, r_lo) * n;
    int32_t r, c, i, b = r_lo / m, rr = r_lo - b * m;
    for (r = r_lo; r < r_hi; r++, orow += n) {
        const int8_t *x = a + HTC__CAST(size_t, b) * p->a_bstride + HTC__CAST(size_t, rr) * k;
        const int8_t *w = wb + HTC__CAST(size_t, b) * p->b_bstride;
        if (++rr == m) {
            rr = 0;
            b++;
        }
        if (fast && !bias && !p->rq_mode && !ao && !bo) {     /* attention's form: one loop */
            for (c = 0; c < n; c++, w += k) {
                int32_t v = 0;
                for (i = 0; i < k4; i += 4) v = htc__xp_sdot4(v, htc__xp_ld4(x + i), htc__xp_ld4(w + i));
                for (; i < k; i++) v += x[i] * w[i];
                orow[c] = HTC__CAST(int8_t, htc__xp_clamp(htc__xql_apply(x0, v), lo, hi));
            }
            continue;
        }
        for (c = 0; c < n; c++, w += k) {
            int32_t v = bias ? bias[c] : 0;
            for (i = 0; i < k4; i += 4) v = htc__xp_sdot4(v, htc__xp_ld4(x + i), htc__xp_ld4(w + i));
            for (; i < k; i++) v += (x[i] + ao) * (w[i] + bo);
            if (fast) {
                const htc__xrq xq = p->rq_mode ? htc__xql_make(mul[c], add[c], p->shift, -p->out_off) : x0;
                orow[c] = HTC__CAST(int8_t, htc__xp_clamp(htc__xql_apply(xq, v), lo, hi));
            } else {
                const int32_t q = p->rq_mode ? c : 0;
                orow[c] = HTC__CAST(int8_t, htc__ql_rq(v, mul[q], add[q], p->shift, p->lo, p->hi) - p->out_off);
            }
        }
    }
}
#endif

static HTC__UNUSED void htc__ql_matmul(const htc__ql_matmul_params *p, const void *const *ins, void *out)
{
#ifdef HTC__XP
    if (htc__ql_fc_xp_ok(p)) {
        if (p->k <= HTC__QL_SMALL && p->n <= HTC__QL_SMALL) htc__ql_fc_small(p, ins, out, 0, p->batches * p->m);
        else htc__ql_fc_xp(p, ins, out, 0, p->batches * p->m, 0, p->n);
        return;
    }
#endif
    htc__ql_matmul_run(p, ins, out, HTC_SPLIT_ROWS, 0, 1);
}

static HTC__UNUSED void htc__ql_matmul_par(const htc__ql_matmul_params *p, const void *const *ins, void *out, int split,
                                           int core, int ncores)
{
#ifdef HTC__XP
    if (htc__ql_fc_xp_ok(p)) {
        int32_t lo, hi;
        htc__share(split == HTC_SPLIT_CHANNELS ? p->n : p->batches * p->m, core, ncores, &lo, &hi);
        if (hi <= lo) return;
        if (split == HTC_SPLIT_CHANNELS) htc__ql_fc_xp(p, ins, out, 0, p->batches * p->m, lo, hi);
        else if (p->k <= HTC__QL_SMALL && p->n <= HTC__QL_SMALL) htc__ql_fc_small(p, ins, out, lo, hi);
        else htc__ql_fc_xp(p, ins, out, lo, hi, 0, p->n);
        return;
    }
#endif
    htc__ql_matmul_run(p, ins, out, split, core, ncores);
}

/* ---- TFLite's BATCH_MATMUL of two activations (batch_matmul.cc,
   reference_ops::BatchMatMul<int8_t, int32_t>): per broadcast batch the
   loop with lhs as the rows and rhs as the weights (w element (j, k) at
   j * rhs_cs + k * rhs_rs), TFLite's epilogue with one multiplier. */
static HTC__UNUSED void htc__matmul_s8(const htc__matmul_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out)
{
    htc__fcg g;
    htc__epi e;
    int32_t b0, b1, b2, b3, rzp = p->rhs_zp;
    const int8_t sh = HTC__CAST(int8_t, p->shift);
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    g.batches = 1; g.rows = p->m; g.k = p->k; g.n = p->n;
    g.x_rs = p->lhs_rs; g.x_cs = p->lhs_cs; g.w_rs = p->rhs_cs; g.w_cs = p->rhs_rs;
    g.in_off = -p->lhs_zp; g.alpha = 1;
    if (rzp) g.w_zp = &rzp;
    e.kind = HTC__EPI_TFLITE;
    e.mult = &p->mult; e.shift = &sh;
    e.out_zp = p->out_zp; e.lo = p->act_min; e.hi = p->act_max;
    for (b0 = 0; b0 < p->batch[0]; b0++)
        for (b1 = 0; b1 < p->batch[1]; b1++)
            for (b2 = 0; b2 < p->batch[2]; b2++)
                for (b3 = 0; b3 < p->batch[3]; b3++) {
                    const int8_t *l = lhs + HTC__CAST(size_t, b0 * p->lhs_bstride[0] + b1 * p->lhs_bstride[1] +
                                                              b2 * p->lhs_bstride[2] + b3 * p->lhs_bstride[3]);
                    g.weights = rhs + HTC__CAST(size_t, b0 * p->rhs_bstride[0] + b1 * p->rhs_bstride[1] +
                                                         b2 * p->rhs_bstride[2] + b3 * p->rhs_bstride[3]);
                    htc__fc_core(&g, &e, l, out);
                    out += HTC__CAST(size_t, p->m) * HTC__CAST(size_t, p->n);
                }
}
