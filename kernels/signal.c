/* signal.c - TFLite Micro's signal library (the custom Signal* operators of
   its audio front ends), bit-exact with signal/src's integer arithmetic. */

/* int16 / uint16 / uint32 of the low bits (two's complement wrap, as the
   stores of TFLM's C++ do on every target it runs on). */
static inline int16_t htc__w16(int32_t v) { return HTC__CAST(int16_t, HTC__CAST(uint16_t, HTC__CAST(uint32_t, v) & 0xffffu)); }

/* MostSignificantBit32/64 as TFLM builds it with GCC or Clang: the bit
   count, and 32 (64) for 0 (its __builtin_clz branch). */
static inline uint32_t htc__msb64(uint64_t x)
{
    uint32_t n = 0;
    if (!x) return 64;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

static inline uint32_t htc__msb32(uint32_t x) { return x ? htc__msb64(x) : 32; }

/* WINDOW: (x * w) >> shift, saturated to int16, the weights repeated over
   each run of `size` samples */
static HTC__UNUSED void htc__window(const htc__window_params *p, const int16_t *x, const int16_t *w, int16_t *y)
{
    int32_t i;
    for (i = 0; i < p->n; i++) {
        int32_t v = (HTC__CAST(int32_t, x[i]) * w[i % p->size]) >> p->shift;
        y[i] = HTC__CAST(int16_t, v < -32768 ? -32768 : v > 32767 ? 32767 : v);
    }
}

/* FFT_AUTOSCALE: the largest magnitude as MaxAbs16 finds it (an int16:
   -(-32768) stores as -32768, and later values compare with that), the
   left shift that brings it to bit 14, the data shifted (int16 wrap) */
static HTC__UNUSED void htc__fft_autoscale(const htc__signal_n_params *p, const int16_t *x, int16_t *y, int32_t *bits)
{
    int16_t max = 0;
    int32_t i, s;
    for (i = 0; i < p->n; i++) {
        const int32_t v = x[i];
        if (v > max) max = HTC__CAST(int16_t, v);
        else if (-v > max) max = htc__w16(-v);
    }
    s = 16 - HTC__CAST(int32_t, htc__msb32(HTC__CAST(uint32_t, HTC__CAST(int32_t, max)))) - 1;
    if (s < 0) s = 0;
    for (i = 0; i < p->n; i++) y[i] = htc__w16(HTC__CAST(int32_t, x[i]) * (1 << s));
    *bits = s;
}

/* ---- RFFT: kiss_fft's fixed-point (Q15) complex FFT and real wrapper -------- */

/* kiss_fft's sround: the Q15 product rounded, then stored as int16 */
static inline int16_t htc__sr(int32_t v) { return htc__w16((v + (1 << 14)) >> 15); }

/* C_FIXDIV: both parts times 32767 / k in Q15 */
static inline void htc__cfixdiv(int16_t *c, int32_t k)
{
    c[0] = htc__sr(HTC__CAST(int32_t, c[0]) * (32767 / k));
    c[1] = htc__sr(HTC__CAST(int32_t, c[1]) * (32767 / k));
}

/* C_MUL: m = a * b */
static inline void htc__cmul(int16_t *m, const int16_t *a, const int16_t *b)
{
    const int32_t ar = a[0], ai = a[1], br = b[0], bi = b[1];
    m[0] = htc__sr(ar * br - ai * bi);
    m[1] = htc__sr(ar * bi + ai * br);
}

/* S_MUL of two int16 values */
static inline int32_t htc__smul(int32_t a, int32_t b) { return htc__sr(a * b); }

static HTC__UNUSED void htc__bfly2(int16_t *f, const int16_t *tw, size_t fstride, size_t m)
{
    size_t k;
    for (k = 0; k < m; k++) {
        int16_t *a = f + 2 * k, *b = f + 2 * (k + m), t[2];
        htc__cfixdiv(a, 2);
        htc__cfixdiv(b, 2);
        htc__cmul(t, b, tw + 2 * k * fstride);
        b[0] = htc__w16(a[0] - t[0]);
        b[1] = htc__w16(a[1] - t[1]);
        a[0] = htc__w16(a[0] + t[0]);
        a[1] = htc__w16(a[1] + t[1]);
    }
}

static HTC__UNUSED void htc__bfly3(int16_t *f, const int16_t *tw, size_t fstride, size_t m)
{
    const int32_t e = tw[2 * fstride * m + 1];      /* epi3.i */
    size_t k;
    for (k = 0; k < m; k++) {
        int16_t *a = f + 2 * k, *b = f + 2 * (k + m), *c = f + 2 * (k + 2 * m), s0[2], s1[2], s2[2], s3[2];
        htc__cfixdiv(a, 3);
        htc__cfixdiv(b, 3);
        htc__cfixdiv(c, 3);
        htc__cmul(s1, b, tw + 2 * k * fstride);
        htc__cmul(s2, c, tw + 4 * k * fstride);
        s3[0] = htc__w16(s1[0] + s2[0]);
        s3[1] = htc__w16(s1[1] + s2[1]);
        s0[0] = htc__w16(s1[0] - s2[0]);
        s0[1] = htc__w16(s1[1] - s2[1]);
        b[0] = htc__w16(a[0] - (s3[0] >> 1));
        b[1] = htc__w16(a[1] - (s3[1] >> 1));
        s0[0] = htc__sr(s0[0] * e);
        s0[1] = htc__sr(s0[1] * e);
        a[0] = htc__w16(a[0] + s3[0]);
        a[1] = htc__w16(a[1] + s3[1]);
        c[0] = htc__w16(b[0] + s0[1]);
        c[1] = htc__w16(b[1] - s0[0]);
        b[0] = htc__w16(b[0] - s0[1]);
        b[1] = htc__w16(b[1] + s0[0]);
    }
}

static HTC__UNUSED void htc__bfly4(int16_t *f, const int16_t *tw, size_t fstride, size_t m)
{
    size_t k;
    for (k = 0; k < m; k++) {
        int16_t *a = f + 2 * k, *b = f + 2 * (k + m), *c = f + 2 * (k + 2 * m), *d = f + 2 * (k + 3 * m);
        int16_t s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];
        htc__cfixdiv(a, 4);
        htc__cfixdiv(b, 4);
        htc__cfixdiv(c, 4);
        htc__cfixdiv(d, 4);
        htc__cmul(s0, b, tw + 2 * k * fstride);
        htc__cmul(s1, c, tw + 4 * k * fstride);
        htc__cmul(s2, d, tw + 6 * k * fstride);
        s5[0] = htc__w16(a[0] - s1[0]);
        s5[1] = htc__w16(a[1] - s1[1]);
        a[0] = htc__w16(a[0] + s1[0]);
        a[1] = htc__w16(a[1] + s1[1]);
        s3[0] = htc__w16(s0[0] + s2[0]);
        s3[1] = htc__w16(s0[1] + s2[1]);
        s4[0] = htc__w16(s0[0] - s2[0]);
        s4[1] = htc__w16(s0[1] - s2[1]);
        c[0] = htc__w16(a[0] - s3[0]);
        c[1] = htc__w16(a[1] - s3[1]);
        a[0] = htc__w16(a[0] + s3[0]);
        a[1] = htc__w16(a[1] + s3[1]);
        b[0] = htc__w16(s5[0] + s4[1]);
        b[1] = htc__w16(s5[1] - s4[0]);
        d[0] = htc__w16(s5[0] - s4[1]);
        d[1] = htc__w16(s5[1] + s4[0]);
    }
}

static HTC__UNUSED void htc__bfly5(int16_t *f, const int16_t *tw, size_t fstride, size_t m)
{
    const int32_t yar = tw[2 * fstride * m], yai = tw[2 * fstride * m + 1];
    const int32_t ybr = tw[4 * fstride * m], ybi = tw[4 * fstride * m + 1];
    size_t u;
    for (u = 0; u < m; u++) {
        int16_t *f0 = f + 2 * u, *f1 = f + 2 * (u + m), *f2 = f + 2 * (u + 2 * m), *f3 = f + 2 * (u + 3 * m);
        int16_t *f4 = f + 2 * (u + 4 * m);
        int16_t s0[2], s1[2], s2[2], s3[2], s4[2], s5[2], s6[2], s7[2], s8[2], s9[2], s10[2], s11[2], s12[2];
        htc__cfixdiv(f0, 5);
        htc__cfixdiv(f1, 5);
        htc__cfixdiv(f2, 5);
        htc__cfixdiv(f3, 5);
        htc__cfixdiv(f4, 5);
        s0[0] = f0[0];
        s0[1] = f0[1];
        htc__cmul(s1, f1, tw + 2 * u * fstride);
        htc__cmul(s2, f2, tw + 4 * u * fstride);
        htc__cmul(s3, f3, tw + 6 * u * fstride);
        htc__cmul(s4, f4, tw + 8 * u * fstride);
        s7[0] = htc__w16(s1[0] + s4[0]);
        s7[1] = htc__w16(s1[1] + s4[1]);
        s10[0] = htc__w16(s1[0] - s4[0]);
        s10[1] = htc__w16(s1[1] - s4[1]);
        s8[0] = htc__w16(s2[0] + s3[0]);
        s8[1] = htc__w16(s2[1] + s3[1]);
        s9[0] = htc__w16(s2[0] - s3[0]);
        s9[1] = htc__w16(s2[1] - s3[1]);
        f0[0] = htc__w16(f0[0] + (s7[0] + s8[0]));
        f0[1] = htc__w16(f0[1] + (s7[1] + s8[1]));
        s5[0] = htc__w16(s0[0] + htc__smul(s7[0], yar) + htc__smul(s8[0], ybr));
        s5[1] = htc__w16(s0[1] + htc__smul(s7[1], yar) + htc__smul(s8[1], ybr));
        s6[0] = htc__w16(htc__smul(s10[1], yai) + htc__smul(s9[1], ybi));
        s6[1] = htc__w16(-htc__smul(s10[0], yai) - htc__smul(s9[0], ybi));
        f1[0] = htc__w16(s5[0] - s6[0]);
        f1[1] = htc__w16(s5[1] - s6[1]);
        f4[0] = htc__w16(s5[0] + s6[0]);
        f4[1] = htc__w16(s5[1] + s6[1]);
        s11[0] = htc__w16(s0[0] + htc__smul(s7[0], ybr) + htc__smul(s8[0], yar));
        s11[1] = htc__w16(s0[1] + htc__smul(s7[1], ybr) + htc__smul(s8[1], yar));
        s12[0] = htc__w16(-htc__smul(s10[1], ybi) + htc__smul(s9[1], yai));
        s12[1] = htc__w16(htc__smul(s10[0], ybi) - htc__smul(s9[0], yai));
        f2[0] = htc__w16(s11[0] + s12[0]);
        f2[1] = htc__w16(s11[1] + s12[1]);
        f3[0] = htc__w16(s11[0] - s12[0]);
        f3[1] = htc__w16(s11[1] - s12[1]);
    }
}

/* kf_work: out[0 .. p*m) is the DFT of in[0], in[fstride], ... (complex
   int16 pairs): p sub-transforms of length m on decimated inputs, then the
   radix-p butterflies (gen/lower.c refuses radices above 5). */
static HTC__UNUSED void htc__kf_work(int16_t *out, const int16_t *in, size_t fstride, const int32_t *factors, const int16_t *tw)
{
    const size_t p = HTC__CAST(size_t, factors[0]), m = HTC__CAST(size_t, factors[1]);
    size_t j;
    if (m == 1) {
        for (j = 0; j < p; j++) {
            out[2 * j] = in[2 * j * fstride];
            out[2 * j + 1] = in[2 * j * fstride + 1];
        }
    } else {
        for (j = 0; j < p; j++) htc__kf_work(out + 2 * j * m, in + 2 * j * fstride, fstride * p, factors + 2, tw);
    }
    switch (p) {
    case 2: htc__bfly2(out, tw, fstride, m); break;
    case 3: htc__bfly3(out, tw, fstride, m); break;
    case 4: htc__bfly4(out, tw, fstride, m); break;
    default: htc__bfly5(out, tw, fstride, m); break;
    }
}

/* RFFT (rfft.cc, kiss_fftr): each frame zero-padded to fft_len in `work`,
   its complex FFT of fft_len / 2 points into the output frame, which the
   real-to-complex split then rewrites in place (it reads bins k and n - k
   before writing them) into fft_len / 2 + 1 bins. tw: the fft_len / 2
   twiddles, then fft_len / 4 super twiddles (kiss_fftr_alloc's). */
static HTC__UNUSED void htc__rfft(const htc__rfft_params *p, const int16_t *x, const int16_t *tw, int16_t *y, int16_t *work)
{
    const int32_t n = p->fft_len / 2;
    const int16_t *stw = tw + 2 * n;
    int32_t fr, k;
    for (fr = 0; fr < p->frames; fr++) {
        int16_t *o = y + HTC__CAST(size_t, fr) * 2 * HTC__CAST(size_t, n + 1), dc[2];
        memcpy(work, x + HTC__CAST(size_t, fr) * HTC__CAST(size_t, p->in_len), sizeof(int16_t) * HTC__CAST(size_t, p->in_len));
        memset(work + p->in_len, 0, sizeof(int16_t) * HTC__CAST(size_t, p->fft_len - p->in_len));
        htc__kf_work(o, work, 1, p->factors, tw);
        dc[0] = o[0];
        dc[1] = o[1];
        htc__cfixdiv(dc, 2);
        o[0] = htc__w16(dc[0] + dc[1]);
        o[2 * n] = htc__w16(dc[0] - dc[1]);
        o[1] = o[2 * n + 1] = 0;
        for (k = 1; k <= n / 2; k++) {
            int16_t fpk[2], fpnk[2], f1k[2], f2k[2], t[2];
            fpk[0] = o[2 * k];
            fpk[1] = o[2 * k + 1];
            fpnk[0] = o[2 * (n - k)];
            fpnk[1] = htc__w16(-o[2 * (n - k) + 1]);
            htc__cfixdiv(fpk, 2);
            htc__cfixdiv(fpnk, 2);
            f1k[0] = htc__w16(fpk[0] + fpnk[0]);
            f1k[1] = htc__w16(fpk[1] + fpnk[1]);
            f2k[0] = htc__w16(fpk[0] - fpnk[0]);
            f2k[1] = htc__w16(fpk[1] - fpnk[1]);
            htc__cmul(t, f2k, stw + 2 * (k - 1));
            o[2 * k] = htc__w16((f1k[0] + t[0]) >> 1);
            o[2 * k + 1] = htc__w16((f1k[1] + t[1]) >> 1);
            o[2 * (n - k)] = htc__w16((f1k[0] - t[0]) >> 1);
            o[2 * (n - k) + 1] = htc__w16((t[1] - f1k[1]) >> 1);
        }
    }
}

/* ENERGY: re^2 + im^2 of bins [start, end) (int32 arithmetic, stored as
   uint32). TFLM leaves the other outputs as they were; htc writes 0. */
static HTC__UNUSED void htc__energy(const htc__energy_params *p, const int16_t *x, uint32_t *y)
{
    int32_t i;
    for (i = 0; i < p->n; i++) y[i] = 0;
    for (i = p->start; i < p->end; i++) {
        const int32_t re = x[2 * i], im = x[2 * i + 1];
        y[i] = HTC__CAST(uint32_t, re * re) + HTC__CAST(uint32_t, im * im);
    }
}

/* FILTER_BANK (FilterbankAccumulateChannels): uint64 sums of weights (int16,
   converted to uint64 as C++ does) times inputs; each channel's unweighted
   sum starts the next one; channel 0 is discarded. */
static HTC__UNUSED void htc__filter_bank(const htc__signal_n_params *p, const uint32_t *x, const int16_t *w, const int16_t *uw,
                                         const int16_t *fstart, const int16_t *wstart, const int16_t *width, uint64_t *y)
{
    uint64_t acc = 0, un = 0;
    int32_t i, j;
    for (i = 0; i <= p->n; i++) {
        for (j = 0; j < width[i]; j++) {
            const uint64_t v = x[fstart[i] + j];
            acc += HTC__CAST(uint64_t, HTC__CAST(int64_t, w[wstart[i] + j])) * v;
            un += HTC__CAST(uint64_t, HTC__CAST(int64_t, uw[wstart[i] + j])) * v;
        }
        if (i > 0) y[i - 1] = acc;
        acc = un;
        un = 0;
    }
}

/* Sqrt32 / Sqrt64 (square_root_*.cc): bit-by-bit integer square root with
   the final rounding step, which stops at the result's largest value:
   Sqrt64 calls Sqrt32 below 2^32, whose result is a uint16 (0xffff). */
static inline uint32_t htc__sqrt64(uint64_t num)
{
    const uint64_t max = (num >> 32) ? 0xffffffffu : 0xffffu;
    uint64_t res = 0, bit;
    int32_t top, it;
    if (num == 0) return 0;
    top = (64 - HTC__CAST(int32_t, htc__msb64(num))) | 1;
    bit = HTC__CAST(uint64_t, 1) << (63 - top);
    it = (63 - top) / 2 + 1;
    while (it--) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != max) ++res;
    return HTC__CAST(uint32_t, res);
}

/* FILTER_BANK_SQRT: sqrt >> the run-time scale bits (taken mod 32, as a
   32-bit shift on x86 / Arm register shifts below 32 do) */
static HTC__UNUSED void htc__fb_sqrt(const htc__signal_n_params *p, const uint64_t *x, const int32_t *bits, uint32_t *y)
{
    const uint32_t s = HTC__CAST(uint32_t, *bits) & 31u;
    int32_t i;
    for (i = 0; i < p->n; i++) y[i] = htc__sqrt64(x[i]) >> s;
}

/* SPECTRAL_SUBTRACTION: the noise estimate (state, kept between runs) low-pass
   filtered towards the scaled-up input (alternate coefficients on odd
   channels), subtracted with a floor of min_remaining x input; the
   estimate also goes to its output. */
static HTC__UNUSED void htc__spectral_sub(const htc__spectral_sub_params *p, const uint32_t *x, uint32_t *y, uint32_t *noise,
                                          uint32_t *state)
{
    const uint32_t sb = HTC__CAST(uint32_t, p->smoothing_bits), b = HTC__CAST(uint32_t, p->bits);
    int32_t i;
    for (i = 0; i < p->n; i++) {
        const uint32_t sm = HTC__CAST(uint32_t, (i & 1) ? p->alt_smoothing : p->smoothing);
        const uint32_t om = HTC__CAST(uint32_t, (i & 1) ? p->alt_one_minus : p->one_minus);
        const uint32_t up = x[i] << sb;
        uint32_t est, fl, sub;
        state[i] = HTC__CAST(uint32_t, (HTC__CAST(uint64_t, up) * sm + HTC__CAST(uint64_t, state[i]) * om) >> b);
        est = state[i];
        if (est > up) {
            est = up;
            if (p->clamping) state[i] = est;
        }
        fl = HTC__CAST(uint32_t, (HTC__CAST(uint64_t, x[i]) * HTC__CAST(uint32_t, p->min_remaining)) >> b);
        sub = (up - est) >> sb;
        y[i] = sub > fl ? sub : fl;
    }
    for (i = 0; i < p->n; i++) noise[i] = state[i];
}

/* PCAN (pcan_argc_fixed.cc): gain = WideDynamicFunction(noise) (a piecewise
   quadratic from the table, an int16 widened to uint32), snr = x * gain >>
   snr_shift, then PcanShrink (x^2 / 4 below 2, x - 1 above; 12 -> 6
   fractional bits). int32 steps wrap as on the targets TFLM runs on. */
static HTC__UNUSED void htc__pcan(const htc__pcan_params *p, const uint32_t *x, const uint32_t *noise, const int16_t *lut,
                                  uint32_t *y)
{
    int32_t i;
    for (i = 0; i < p->n; i++) {
        const uint32_t v = noise[i];
        uint32_t gain, snr;
        if (v <= 2) {
            gain = HTC__CAST(uint32_t, HTC__CAST(int32_t, lut[v]));
        } else {
            const int32_t iv = HTC__CAST(int32_t, htc__msb32(v));
            const int16_t *l = lut + 4 * iv - 6;
            const int32_t frac = HTC__CAST(int32_t, (iv < 11 ? v << (11 - iv) : v >> (iv - 11)) & 0x3ffu);
            uint32_t r = HTC__CAST(uint32_t, (HTC__CAST(int32_t, l[2]) * frac) >> 5);
            int32_t rs;
            r += HTC__CAST(uint32_t, HTC__CAST(uint32_t, HTC__CAST(int32_t, l[1])) << 5);
            r *= HTC__CAST(uint32_t, frac);
            r += 1u << 14;
            rs = HTC__CAST(int32_t, r);     /* two's complement: >> 15 of the signed value */
            rs = rs >> 15;
            rs += l[0];
            gain = HTC__CAST(uint32_t, HTC__CAST(int32_t, htc__w16(rs)));
        }
        snr = HTC__CAST(uint32_t, (HTC__CAST(uint64_t, x[i]) * gain) >> p->snr_shift);
        y[i] = snr < (2u << 12) ? (snr * snr) >> 20 : (snr >> 6) - (1u << 6);
    }
}

/* FILTER_BANK_LOG (filter_bank_log.cc, log.cc's Log32): log2 from the bit
   position and a 128-segment correction table (lut, 129 + 1 entries),
   times ln 2 (45426 / 65536), times output_scale (uint32 arithmetic),
   limited to 32767; inputs (after the correction shift) below 2 give 0. */
static HTC__UNUSED void htc__fb_log(const htc__fb_log_params *p, const uint32_t *x, const int16_t *lut, int16_t *y)
{
    const uint32_t scale = HTC__CAST(uint32_t, p->output_scale);
    int32_t i;
    for (i = 0; i < p->n; i++) {
        const uint32_t s = x[i] << p->correction_bits;
        if (s > 1) {
            const uint32_t ip = htc__msb32(s) - 1;
            int32_t frac = HTC__CAST(int32_t, HTC__CAST(int64_t, s) - (HTC__CAST(int64_t, 1) << ip));
            uint32_t seg, l2, le, v;
            int32_t c0, c1, rel;
            if (ip < 16) frac = HTC__CAST(int32_t, HTC__CAST(uint32_t, frac) << (16 - ip));
            else frac >>= ip - 16;
            seg = HTC__CAST(uint32_t, frac) >> 9;
            c0 = lut[seg];
            c1 = lut[seg + 1];
            rel = ((c1 - c0) * (frac - HTC__CAST(int32_t, 512u * seg))) >> 16;
            l2 = (ip << 16) + HTC__CAST(uint32_t, frac + c0 + rel);
            le = HTC__CAST(uint32_t, (HTC__CAST(uint64_t, 45426) * l2 + 32768u) >> 16);
            v = (scale * le + 32768u) >> 16;
            y[i] = HTC__CAST(int16_t, v < 32767u ? v : 32767u);
        } else {
            y[i] = 0;
        }
    }
}

/* DELAY (delay.cc): each row's output is the row's last `delay` samples of
   the previous runs (state, zeros after a reset) followed by its first
   frame - delay samples; the state keeps the last `delay` samples of
   state + row. With delay 0 the row is copied. */
static HTC__UNUSED void htc__delay(const htc__delay_params *p, const int16_t *x, int16_t *y, int16_t *state)
{
    const size_t f = HTC__CAST(size_t, p->frame), d = HTC__CAST(size_t, p->delay);
    int32_t r;
    for (r = 0; r < p->rows; r++) {
        const int16_t *in = x + HTC__CAST(size_t, r) * f;
        int16_t *out = y + HTC__CAST(size_t, r) * f, *st = state + HTC__CAST(size_t, r) * d;
        if (d == 0) {
            memcpy(out, in, f * sizeof(int16_t));
        } else if (d >= f) {
            memcpy(out, st, f * sizeof(int16_t));
            memmove(st, st + f, (d - f) * sizeof(int16_t));
            memcpy(st + (d - f), in, f * sizeof(int16_t));
        } else {
            memcpy(out, st, d * sizeof(int16_t));
            memcpy(out + d, in, (f - d) * sizeof(int16_t));
            memcpy(st, in + (f - d), d * sizeof(int16_t));
        }
    }
}

/* OVERLAP_ADD (overlap_add.cc): per frame, the frame added into the row's
   running buffer (int16: saturated; float32: a float sum), its first `step`
   samples out, the buffer shifted by `step` with zeros behind */
static HTC__UNUSED void htc__overlap_add_s16(const htc__overlap_add_params *p, const int16_t *x, int16_t *y, int16_t *state)
{
    const size_t n = HTC__CAST(size_t, p->size), s = HTC__CAST(size_t, p->step);
    int32_t r, f;
    size_t i;
    for (r = 0; r < p->rows; r++) {
        int16_t *b = state + HTC__CAST(size_t, r) * n;
        for (f = 0; f < p->frames; f++) {
            const size_t k = HTC__CAST(size_t, r) * HTC__CAST(size_t, p->frames) + HTC__CAST(size_t, f);
            const int16_t *in = x + k * n;
            for (i = 0; i < n; i++) {
                const int32_t v = HTC__CAST(int32_t, in[i]) + b[i];
                b[i] = HTC__CAST(int16_t, v < -32768 ? -32768 : v > 32767 ? 32767 : v);
            }
            memcpy(y + k * s, b, s * sizeof(int16_t));
            memmove(b, b + s, (n - s) * sizeof(int16_t));
            memset(b + (n - s), 0, s * sizeof(int16_t));
        }
    }
}

static HTC__UNUSED void htc__overlap_add_f32(const htc__overlap_add_params *p, const float *x, float *y, float *state)
{
    const size_t n = HTC__CAST(size_t, p->size), s = HTC__CAST(size_t, p->step);
    int32_t r, f;
    size_t i;
    for (r = 0; r < p->rows; r++) {
        float *b = state + HTC__CAST(size_t, r) * n;
        for (f = 0; f < p->frames; f++) {
            const size_t k = HTC__CAST(size_t, r) * HTC__CAST(size_t, p->frames) + HTC__CAST(size_t, f);
            const float *in = x + k * n;
            for (i = 0; i < n; i++) b[i] += in[i];
            memcpy(y + k * s, b, s * sizeof(float));
            memmove(b, b + s, (n - s) * sizeof(float));
            for (i = n - s; i < n; i++) b[i] = 0.0f;
        }
    }
}

/* int32 element-wise arithmetic (reference_ops::Add, Sub, Mul, Div,
   Maximum, Minimum and their broadcasting forms) as TFLM's front ends use
   it: sums and products wrap as two's complement (C++ int32 overflow on the
   targets TFLM runs on), division truncates; a division by zero (TFLM: a
   crash) gives 0 and INT32_MIN / -1 gives INT32_MIN. FLOOR_DIV and FLOOR_MOD
   are LiteRT's (floor_div.cc: floor of the quotient in double, exact for
   int32; floor_mod.cc: the truncated remainder moved to the divisor's
   sign); LiteRT refuses a zero divisor, htc gives 0. */
static HTC__UNUSED void htc__binary_s32(const htc__binary32_params *p, const int32_t *a, const int32_t *b, int32_t *out)
{
    int32_t i[6] = {0, 0, 0, 0, 0, 0}, d;
    size_t n = 1, k;
    for (d = 0; d < 6; d++) n *= HTC__CAST(size_t, p->out_shape[d]);
    for (k = 0; k < n; k++) {
        size_t ao = 0, bo = 0;
        int32_t x, y, v;
        for (d = 0; d < 6; d++) {
            ao += HTC__CAST(size_t, i[d]) * HTC__CAST(size_t, p->a_stride[d]);
            bo += HTC__CAST(size_t, i[d]) * HTC__CAST(size_t, p->b_stride[d]);
        }
        x = a[ao];
        y = b[bo];
        switch (p->op) {
        case 0: v = HTC__CAST(int32_t, HTC__CAST(uint32_t, x) + HTC__CAST(uint32_t, y)); break;
        case 1: v = HTC__CAST(int32_t, HTC__CAST(uint32_t, x) - HTC__CAST(uint32_t, y)); break;
        case 2: v = HTC__CAST(int32_t, HTC__CAST(uint32_t, x) * HTC__CAST(uint32_t, y)); break;
        case 3: v = y == 0 ? 0 : (y == -1 ? HTC__CAST(int32_t, 0u - HTC__CAST(uint32_t, x)) : x / y); break;
        case 4: v = x > y ? x : y; break;
        case 5: v = x < y ? x : y; break;
        case 6:
            if (y == 0) v = 0;
            else if (y == -1) v = HTC__CAST(int32_t, 0u - HTC__CAST(uint32_t, x));
            else v = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
            break;
        default:
            if (y == 0 || y == -1) v = 0;
            else {
                v = x % y;
                if (v != 0 && ((y < 0) != (v < 0))) v += y;
            }
            break;
        }
        out[k] = v < p->lo ? p->lo : v > p->hi ? p->hi : v;
        for (d = 5; d >= 0; d--) {
            if (++i[d] < p->out_shape[d]) break;
            i[d] = 0;
        }
    }
}
