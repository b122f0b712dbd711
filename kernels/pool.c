/* pool.c - int8 average and max pooling, NHWC.
   Bit-exact with TFLite reference_integer_ops::AveragePool / MaxPool. */

/* The window is clipped to the input (padding taps are not counted). Average:
   (sum +- count/2) / count, truncating, i.e. rounded half away from zero;
   the division by the per-pixel count is an exact multiply-high by a
   reciprocal computed once per output pixel, not once per channel. */

#define HTC__POOL_BLOCK 64

static HTC__UNUSED int32_t htc__pool_lo(int32_t origin)
{
    return origin < 0 ? -origin : 0;
}

static HTC__UNUSED int32_t htc__pool_hi(int32_t origin, int32_t k, int32_t size)
{
    return size - origin < k ? size - origin : k;
}

#ifdef HTC__MVE
/* Helium paths: per output pixel, channels in vectors (predicated at the
   end). Max: 16 int8 lanes, VMAX per tap. Average, windows of up to 256
   taps: 8 channels summed in int16 lanes (|sum| <= 128 * 256 fits), then
   per half (even / odd lanes, widened to int32) the same exact division as
   the scalar code: q = ((|s| + count / 2) * recip) >> 32 (VMULH.U32; recip
   fits 32 bits for count >= 2, count 1 is the sum itself), negated for
   negative sums, clamped, narrowed back and stored. */
static HTC__NOINLINE void htc__maxpool_mve(const htc__pool_params *p, const int8_t *in, int8_t *out)
{
    const int32_t c = p->c, row = p->in_w * p->c;
    const int8x16_t lo = vdupq_n_s8(HTC__CAST(int8_t, p->act_min)), hi = vdupq_n_s8(HTC__CAST(int8_t, p->act_max));
    int32_t b, oy, ox, j, y, x;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t y0 = htc__pool_lo(iy0), y1 = htc__pool_hi(iy0, p->k_h, p->in_h);
            for (ox = 0; ox < p->out_w; ox++, out += c) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t x0 = htc__pool_lo(ix0), x1 = htc__pool_hi(ix0, p->k_w, p->in_w);
                for (j = 0; j < c; j += 16) {
                    const mve_pred16_t pr = vctp8q(HTC__CAST(uint32_t, c - j));
                    int8x16_t m = vdupq_n_s8(-128);
                    for (y = y0; y < y1; y++) {
                        const int8_t *r = in_b + (iy0 + y) * row + (ix0 + x0) * c + j;
                        for (x = x0; x < x1; x++, r += c) m = vmaxq_s8(m, vldrbq_z_s8(r, pr));
                    }
                    vstrbq_p_s8(out + j, vminq_s8(vmaxq_s8(m, lo), hi), pr);
                }
            }
        }
    }
}

/* the int32 sums s of count taps, divided as the scalar path does */
static inline int32x4_t htc__avg_mve_div(int32x4_t s, int32_t count, uint32_t recip, int32_t half)
{
    const uint32x4_t mag = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(s), half));
    const int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(mag, vdupq_n_u32(recip)));
    if (count == 1) return s;
    return vpselq_s32(q, vnegq_s32(q), vcmpgtq_n_s32(s, 0));
}

static HTC__NOINLINE void htc__avgpool_mve(const htc__pool_params *p, const int8_t *in, int8_t *out)
{
    const int32_t c = p->c, row = p->in_w * p->c, lo = p->act_min, hi = p->act_max;
    int32_t b, oy, ox, j, y, x;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t y0 = htc__pool_lo(iy0), y1 = htc__pool_hi(iy0, p->k_h, p->in_h);
            for (ox = 0; ox < p->out_w; ox++, out += c) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t x0 = htc__pool_lo(ix0), x1 = htc__pool_hi(ix0, p->k_w, p->in_w);
                const int32_t count = (y1 > y0 && x1 > x0) ? (y1 - y0) * (x1 - x0) : 0, half = count / 2;
                const uint32_t recip = count > 1 ? HTC__CAST(uint32_t, ((HTC__CAST(uint64_t, 1) << 32) / HTC__CAST(uint64_t, count)) + 1) : 0u;
                for (j = 0; j < c; j += 8) {
                    const mve_pred16_t pr = vctp16q(HTC__CAST(uint32_t, c - j));
                    int16x8_t s = vdupq_n_s16(0), r16 = vdupq_n_s16(0);
                    int32x4_t qb, qt;
                    for (y = y0; y < y1; y++) {
                        const int8_t *r = in_b + (iy0 + y) * row + (ix0 + x0) * c + j;
                        for (x = x0; x < x1; x++, r += c) s = vaddq_s16(s, vldrbq_z_s16(r, pr));
                    }
                    qb = htc__mve_out(htc__avg_mve_div(vmovlbq_s16(s), count, recip, half), 0, lo, hi);
                    qt = htc__mve_out(htc__avg_mve_div(vmovltq_s16(s), count, recip, half), 0, lo, hi);
                    r16 = vmovntq_s32(vmovnbq_s32(r16, qb), qt);
                    vstrbq_p_s16(out + j, r16, pr);
                }
            }
        }
    }
}
#endif

#ifdef HTC__XP
/* XpulpV2: the sums of n channels (a multiple of 4, word-aligned at r) of
   ny window rows of nx pixels (pixels c bytes apart, rows row bytes
   apart) added to acc: per word of four channels one load and four
   pv.sdotsp.b by the byte masks (one channel each). With the
   instructions: eight channels a hardware-loop step (two loads, eight dot
   products, 10 cycles a pixel on GVSoC), four for a last word. Whole
   rows (nx * c == row) are one run of nx * ny pixels. */
static HTC__INLINE void htc__avg_xp_sum(const int8_t *r, int32_t c, int32_t row, int32_t nx, int32_t ny, int32_t n,
                                        int32_t *acc)
{
    const uint32_t m0 = 0x01u, m1 = 0x0100u, m2 = 0x010000u, m3 = 0x01000000u;
    int32_t j, y;
    if (nx * c == row) {
        nx *= ny;
        ny = 1;
    }
    for (j = 0; j < n; j += 8, r += 8, acc += 8) {
        const int32_t two = n - j >= 8;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
        for (y = 0; y < ny; y++) {
            const int8_t *q = r + HTC__CAST(size_t, y) * row;
#ifdef HTC__XP_ASM
            uint32_t w0, w1;
            if (two)
                __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                                 ".insn i 0x7b, 4, x0, %[n], 20\n\t"
                                 "lw %[w1], 4(%[q])\n\t"
                                 ".insn r 0x0b, 7, 0x10, %[w0], %[q], %[c]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a4], %[w1], %[m0]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a5], %[w1], %[m1]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a6], %[w1], %[m2]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a7], %[w1], %[m3]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a0], %[w0], %[m0]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a1], %[w0], %[m1]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a2], %[w0], %[m2]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a3], %[w0], %[m3]\n\t"
                                 ".option pop"
                                 : [q] "+r"(q), [w0] "=&r"(w0), [w1] "=&r"(w1), [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2),
                                   [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5), [a6] "+r"(a6), [a7] "+r"(a7)
                                 : [n] "r"(nx), [c] "r"(c), [m0] "r"(m0), [m1] "r"(m1), [m2] "r"(m2), [m3] "r"(m3)
                                 : "memory");
            else
                __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                                 ".insn i 0x7b, 4, x0, %[n], 10\n\t"
                                 ".insn r 0x0b, 7, 0x10, %[w0], %[q], %[c]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a0], %[w0], %[m0]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a1], %[w0], %[m1]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a2], %[w0], %[m2]\n\t"
                                 ".insn r 0x57, 1, 0x5c, %[a3], %[w0], %[m3]\n\t"
                                 ".option pop"
                                 : [q] "+r"(q), [w0] "=&r"(w0), [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3)
                                 : [n] "r"(nx), [c] "r"(c), [m0] "r"(m0), [m1] "r"(m1), [m2] "r"(m2), [m3] "r"(m3)
                                 : "memory");
#else
            int32_t x;
            for (x = 0; x < nx; x++, q += c) {
                const uint32_t w0 = htc__xp_ld4(q);
                a0 = htc__xp_sdot4(a0, w0, m0);
                a1 = htc__xp_sdot4(a1, w0, m1);
                a2 = htc__xp_sdot4(a2, w0, m2);
                a3 = htc__xp_sdot4(a3, w0, m3);
                if (two) {
                    const uint32_t w1 = htc__xp_ld4(q + 4);
                    a4 = htc__xp_sdot4(a4, w1, m0);
                    a5 = htc__xp_sdot4(a5, w1, m1);
                    a6 = htc__xp_sdot4(a6, w1, m2);
                    a7 = htc__xp_sdot4(a7, w1, m3);
                }
            }
#endif
        }
        acc[0] += a0;
        acc[1] += a1;
        acc[2] += a2;
        acc[3] += a3;
        if (two) {
            acc[4] += a4;
            acc[5] += a5;
            acc[6] += a6;
            acc[7] += a7;
        }
    }
}
#endif

/* channels [cl, ch) of every output pixel (the others untouched) */
static HTC__NOINLINE HTC__UNUSED void htc__avgpool_ch(const htc__pool_params *p, const int8_t *in, int8_t *out, int32_t cl, int32_t ch)
{
    const int32_t c = p->c, row = p->in_w * p->c;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t acc[HTC__POOL_BLOCK];
    int32_t b, oy, ox;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t y0 = htc__pool_lo(iy0), y1 = htc__pool_hi(iy0, p->k_h, p->in_h);
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t x0 = htc__pool_lo(ix0), x1 = htc__pool_hi(ix0, p->k_w, p->in_w);
                const int32_t count = (y1 > y0 && x1 > x0) ? (y1 - y0) * (x1 - x0) : 0;
                const int32_t half = count / 2;
                /* n / count == (n * recip) >> 32 exactly while n * count < 2^32 */
                /* 2^32 / count + 1 by a 32-bit division (2^32 = q * count + r + 1;
                   RV32 has no 64-bit divide: libgcc's __udivdi3 otherwise) */
                const uint32_t dq = count ? 0xffffffffu / HTC__CAST(uint32_t, count) : 0u;
                const uint32_t dr = count ? 0xffffffffu - dq * HTC__CAST(uint32_t, count) : 0u;
                const uint64_t recip = count ? HTC__CAST(uint64_t, dq) + (dr + 1u == HTC__CAST(uint32_t, count) ? 2u : 1u) : 0;
                int32_t c0;
                for (c0 = cl; c0 < ch; c0 += HTC__POOL_BLOCK) {
                    const int32_t n = ch - c0 < HTC__POOL_BLOCK ? ch - c0 : HTC__POOL_BLOCK;
                    int32_t y, x, j, ja = 0, jb = 0;
                    for (j = 0; j < n; j++) acc[j] = 0;
#ifdef HTC__XP
                    /* the word-aligned channels [ja, jb) by words */
                    if (c % 4 == 0 && (HTC__ADDR(in_b) & 3u) == 0 && count > 0) {
                        ja = (4 - c0 % 4) & 3;
                        ja = ja < n ? ja : n;
                        jb = ja + ((n - ja) & ~3);
                        if (jb > ja)
                            htc__avg_xp_sum(in_b + (iy0 + y0) * row + (ix0 + x0) * c + c0 + ja, c, row, x1 - x0, y1 - y0, jb - ja,
                                            acc + ja);
                    }
#endif
                    for (y = y0; y < y1 && (ja > 0 || jb < n); y++) {
                        const int8_t *r = in_b + (iy0 + y) * row + c0;
                        for (x = x0; x < x1; x++) {
                            const int8_t *px = r + (ix0 + x) * c;
                            for (j = 0; j < ja; j++) acc[j] += px[j];
                            for (j = jb; j < n; j++) acc[j] += px[j];
                        }
                    }
                    if (count <= 4096) {
                        /* exact: the magnitude is < 129 * count, so mag * count < 2^32 */
                        for (j = 0; j < n; j++) {
                            const int32_t s = acc[j];
                            const uint32_t mag = HTC__CAST(uint32_t, (s > 0 ? s : -s) + half);
                            const int32_t q = HTC__CAST(int32_t, (HTC__CAST(uint64_t, mag) * recip) >> 32);
                            /* a zero sum gives (0 - half) / count == 0 in TFLite too */
                            out[c0 + j] = HTC__CAST(int8_t, htc__clamp(s > 0 ? q : -q, lo, hi));
                        }
                    } else {
                        for (j = 0; j < n; j++) {
                            const int32_t s = acc[j];
                            const int32_t q = s > 0 ? (s + half) / count : (s - half) / count;
                            out[c0 + j] = HTC__CAST(int8_t, htc__clamp(q, lo, hi));
                        }
                    }
                }
                out += c;
            }
        }
    }
}

static HTC__UNUSED void htc__avgpool_s8(const htc__pool_params *p, const int8_t *in, int8_t *out)
{
#ifdef HTC__MVE
    if (p->k_h * p->k_w <= 256) {
        htc__avgpool_mve(p, in, out);
        return;
    }
#endif
    htc__avgpool_ch(p, in, out, 0, p->c);
}
/* TFLite's uint8 average (LiteRT reference_ops::AveragePool): the uint8
   values (stored + 128) summed, (sum + count / 2) / count, clamped; channels
   [cl, ch) of every output pixel. The result is stored - 128 again. */
static HTC__NOINLINE HTC__UNUSED void htc__avgpool_u8_ch(const htc__pool_params *p, const int8_t *in, int8_t *out,
                                                         int32_t cl, int32_t ch)
{
    const int32_t c = p->c, row = p->in_w * p->c;
    int32_t b, oy, ox, j, y, x;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t y0 = htc__pool_lo(iy0), y1 = htc__pool_hi(iy0, p->k_h, p->in_h);
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t x0 = htc__pool_lo(ix0), x1 = htc__pool_hi(ix0, p->k_w, p->in_w);
                const int32_t count = (y1 > y0 && x1 > x0) ? (y1 - y0) * (x1 - x0) : 0;
                for (j = cl; j < ch; j++) {
                    int32_t acc = 0, q;
                    for (y = y0; y < y1; y++)
                        for (x = x0; x < x1; x++) acc += in_b[(iy0 + y) * row + (ix0 + x) * c + j] + 128;
                    q = count ? (acc + count / 2) / count : 0;
                    q = htc__clamp(q - 128, p->act_min, p->act_max);
                    out[j] = HTC__CAST(int8_t, q);
                }
                out += c;
            }
        }
    }
}

static HTC__UNUSED void htc__avgpool_s8_u8(const htc__pool_params *p, const int8_t *in, int8_t *out)
{
    htc__avgpool_u8_ch(p, in, out, 0, p->c);
}

/* any split: each core its channels (the same bytes as the serial call) */
static HTC__UNUSED void htc__avgpool_s8_u8_par(const htc__pool_params *p, const int8_t *in, int8_t *out, int split,
                                               int core, int ncores)
{
    int32_t lo, hi;
    (void)split;
    htc__share(p->c, core, ncores, &lo, &hi);
    if (hi > lo) htc__avgpool_u8_ch(p, in, out, lo, hi);
}


/* channels [cl, ch) of every output pixel (the others untouched): the
   running maximum from int8 lowest, clamped */
static HTC__NOINLINE HTC__UNUSED void htc__maxpool_ch(const htc__pool_params *p, const int8_t *in, int8_t *out, int32_t cl,
                                                      int32_t ch)
{
    const int32_t c = p->c, row = p->in_w * p->c;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t b, oy, ox, j;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t y0 = htc__pool_lo(iy0), y1 = htc__pool_hi(iy0, p->k_h, p->in_h);
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t x0 = htc__pool_lo(ix0), x1 = htc__pool_hi(ix0, p->k_w, p->in_w);
                int32_t y, x;
                /* the output pixel is the running maximum, starting at int8 lowest */
                for (j = cl; j < ch; j++) out[j] = -128;
                for (y = y0; y < y1; y++) {
                    const int8_t *r = in_b + (iy0 + y) * row;
                    for (x = x0; x < x1; x++) {
                        const int8_t *px = r + (ix0 + x) * c;
                        for (j = cl; j < ch; j++) out[j] = px[j] > out[j] ? px[j] : out[j];
                    }
                }
                for (j = cl; j < ch; j++) out[j] = HTC__CAST(int8_t, htc__clamp(out[j], lo, hi));
                out += c;
            }
        }
    }
}

#ifdef HTC__XP
/* the running maximum of words q + d and q over an ny x nx window (taps c
   bytes apart along a row, rows skip bytes apart after a row's taps):
   nested hardware loops, the word at q + d by a register-offset load
   (p.lw rd, rs2(rs1)), the one at q by a register post-increment (p.lw
   rd, rs2(rs1!)); ny, nx > 0 */
static HTC__INLINE void htc__mp_pair(const int8_t *q, int32_t d, int32_t c, int32_t skip, int32_t ny, int32_t nx,
                                     uint32_t *m0, uint32_t *m1)
{
    uint32_t a = *m0, b = *m1;
#ifdef HTC__XP_ASM
    uint32_t u, v;
    __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                     ".insn i 0x7b, 4, x1, %[ny], 12\n\t"
                     ".insn i 0x7b, 4, x0, %[nx], 8\n\t"
                     ".insn r 0x03, 7, 0x10, %[v], %[q], %[d]\n\t"
                     ".insn r 0x0b, 7, 0x10, %[u], %[q], %[c]\n\t"
                     ".insn r 0x57, 1, 0x18, %[b], %[b], %[v]\n\t"
                     ".insn r 0x57, 1, 0x18, %[a], %[a], %[u]\n\t"
                     "add %[q], %[q], %[sk]\n\t"
                     ".option pop"
                     : [a] "+r"(a), [b] "+r"(b), [q] "+r"(q), [u] "=&r"(u), [v] "=&r"(v)
                     : [ny] "r"(ny), [nx] "r"(nx), [d] "r"(d), [c] "r"(c), [sk] "r"(skip)
                     : "memory");
#else
    int32_t y, x;
    for (y = 0; y < ny; y++, q += skip)
        for (x = 0; x < nx; x++, q += c) {
            b = htc__xp_max4(b, htc__xp_ld4(q + d));
            a = htc__xp_max4(a, htc__xp_ld4(q));
        }
#endif
    *m0 = a;
    *m1 = b;
}

/* XpulpV2 path (htc.h HTC__XP): channels [cl, ch), two words of four at a
   time (htc__mp_pair: pv.max.b per tap; the clamp by pv.max.b / pv.min.b),
   an odd last word alone, the last ch - cl mod 4 channels by the loop
   above. Each pixel's words from word rot on, wrapping (htc__mp_rot: the
   cores of a divided call in different L1 banks); the same bytes in any
   order. */
static HTC__NOINLINE void htc__maxpool_xp(const htc__pool_params *p, const int8_t *in, int8_t *out, int32_t cl, int32_t ch,
                                          int32_t rot)
{
    const int32_t c = p->c, row = p->in_w * p->c, n4 = (ch - cl) >> 2, c4 = cl + 4 * n4;
    const uint32_t lo4 = 0x01010101u * HTC__CAST(uint8_t, htc__clamp(p->act_min, -128, 127));
    const uint32_t hi4 = 0x01010101u * HTC__CAST(uint8_t, htc__clamp(p->act_max, -128, 127));
    int32_t b, oy, ox;
    int8_t *o = out + cl;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row + cl;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t y0 = htc__pool_lo(iy0), y1 = htc__pool_hi(iy0, p->k_h, p->in_h);
            for (ox = 0; ox < p->out_w; ox++, o += c) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t x0 = htc__pool_lo(ix0), x1 = htc__pool_hi(ix0, p->k_w, p->in_w);
                const int32_t ny = y1 - y0, nx = x1 - x0, skip = row - nx * c;
                const int8_t *q = in_b + (iy0 + y0) * row + (ix0 + x0) * c;
                int32_t t, w = rot;
                for (t = 0; t < n4; t += 2) {
                    /* words w and w2 (w itself when it is the last, odd one) */
                    const int32_t j0 = 4 * w, w2 = t + 1 < n4 ? (w + 1 == n4 ? 0 : w + 1) : w;
                    uint32_t m0 = 0x80808080u, m1 = 0x80808080u;
                    if (ny > 0 && nx > 0) htc__mp_pair(q + j0, 4 * w2 - j0, c, skip, ny, nx, &m0, &m1);
                    htc__xp_st4(o + 4 * w2, htc__xp_min4(htc__xp_max4(m1, lo4), hi4));
                    htc__xp_st4(o + j0, htc__xp_min4(htc__xp_max4(m0, lo4), hi4));
                    w = w2 + 1 == n4 ? 0 : w2 + 1;
                }
            }
        }
    }
    if (c4 < ch) htc__maxpool_ch(p, in, out, c4, ch);
}

/* the first word for core of ncores in htc__maxpool_xp over n4 words
   from `first` (a core's first input byte): L1's 16 banks are words in
   turn, and the cores that start in one bank step through the banks
   together (GVSoC: CCT_Int_ICCT's 18x18x128 pool, every tap 128 bytes or
   a row apart, 48 cycles a word on one core, 96-102 on 2 to 8); each
   core starts 16 / ncores banks (at least one pair) after the last */
static HTC__UNUSED int32_t htc__mp_rot(const int8_t *first, int32_t n4, int core, int ncores)
{
    const int32_t step = ncores > 8 ? 2 : 16 / (ncores > 0 ? ncores : 1);
    const int32_t bank = HTC__CAST(int32_t, (HTC__ADDR(first) >> 2) & 15u);
    return n4 > 0 ? ((core * step - bank) & 15) % n4 : 0;
}
#endif

static HTC__INLINE HTC__UNUSED void htc__maxpool_s8(const htc__pool_params *p, const int8_t *in, int8_t *out)
{
#ifdef HTC__XP
    htc__maxpool_xp(p, in, out, 0, p->c, 0);
    return;
#endif
#ifdef HTC__MVE
    htc__maxpool_mve(p, in, out);
    return;
#endif
    htc__maxpool_ch(p, in, out, 0, p->c);
}

/* channels [cl, ch) by the build's path, for core of ncores (the XpulpV2
   path's first word, htc__mp_rot) */
static HTC__UNUSED void htc__maxpool_range(const htc__pool_params *p, const int8_t *in, int8_t *out, int32_t cl, int32_t ch,
                                           int core, int ncores)
{
#ifdef HTC__XP
    htc__maxpool_xp(p, in, out, cl, ch, htc__mp_rot(in + cl, (ch - cl) >> 2, core, ncores));
#else
    (void)core;
    (void)ncores;
    htc__maxpool_ch(p, in, out, cl, ch);
#endif
}

/* Multi-core (htc.h HTC_PAR_RUN): core's output rows of each image as a
   smaller layer (htc.h htc__rows_view); split is rows. */
static HTC__UNUSED void htc__pool_rows_par(const htc__pool_params *p, int max, const int8_t *in, int8_t *out, int core,
                                           int ncores)
{
    htc__pool_params v = *p;
    const size_t in_img = HTC__CAST(size_t, p->in_h) * p->in_w * p->c, out_img = HTC__CAST(size_t, p->out_h) * p->out_w * p->c;
    int32_t b, y0, y1, iy0;
    htc__share(p->out_h, core, ncores, &y0, &y1);
    if (y1 <= y0) return;
    htc__rows_view(p->in_h, p->k_h, p->stride_h, 1, p->pad_top, y0, y1, &iy0, &v.in_h, &v.pad_top);
    v.batches = 1;
    v.out_h = y1 - y0;
    for (b = 0; b < p->batches; b++) {
        const int8_t *ib = in + b * in_img + HTC__CAST(size_t, iy0) * p->in_w * p->c;
        int8_t *ob = out + b * out_img + HTC__CAST(size_t, y0) * p->out_w * p->c;
        if (max) htc__maxpool_range(&v, ib, ob, 0, p->c, core, ncores);
        else htc__avgpool_s8(&v, ib, ob);
    }
}

/* Output rows [y0, y1) of an image from the input band of htc__rows_view
   (y0, y1) (the cluster's L1 tiles, gen/tile.c tile_cluster): core's share. */
static HTC__UNUSED void htc__pool_band(const htc__pool_params *p, int max, const int8_t *in, int8_t *out, int32_t y0, int32_t y1,
                                       int split, int core, int ncores)
{
    htc__pool_params v = *p;
    int32_t a, b, biy0, bh, bpad, iy0;
    if (split == HTC_SPLIT_CHANNELS) {
        /* the whole band, core's share of the channels */
        htc__rows_view(p->in_h, p->k_h, p->stride_h, 1, p->pad_top, y0, y1, &biy0, &v.in_h, &v.pad_top);
        v.batches = 1;
        v.out_h = y1 - y0;
        htc__share(p->c, core, ncores, &a, &b);
        if (b > a && max) htc__maxpool_range(&v, in, out, a, b, core, ncores);
        else if (b > a) htc__avgpool_ch(&v, in, out, a, b);
        return;
    }
    htc__share(y1 - y0, core, ncores, &a, &b);
    if (b <= a) return;
    htc__rows_view(p->in_h, p->k_h, p->stride_h, 1, p->pad_top, y0, y1, &biy0, &bh, &bpad);
    htc__rows_view(p->in_h, p->k_h, p->stride_h, 1, p->pad_top, y0 + a, y0 + b, &iy0, &v.in_h, &v.pad_top);
    v.batches = 1;
    v.out_h = b - a;
    in += HTC__CAST(size_t, iy0 - biy0) * p->in_w * p->c;
    out += HTC__CAST(size_t, a) * p->out_w * p->c;
    if (max) htc__maxpool_range(&v, in, out, 0, p->c, core, ncores);
    else htc__avgpool_s8(&v, in, out);
}

static HTC__UNUSED void htc__avgpool_s8_band(const htc__pool_params *p, const int8_t *in, int8_t *out, int32_t y0, int32_t y1,
                                             int split, int core, int ncores)
{
    htc__pool_band(p, 0, in, out, y0, y1, split, core, ncores);
}

static HTC__UNUSED void htc__maxpool_s8_band(const htc__pool_params *p, const int8_t *in, int8_t *out, int32_t y0, int32_t y1,
                                             int split, int core, int ncores)
{
    htc__pool_band(p, 1, in, out, y0, y1, split, core, ncores);
}

/* split is rows or channels (a global pool has one row) */
static HTC__UNUSED void htc__avgpool_s8_par(const htc__pool_params *p, const int8_t *in, int8_t *out, int split, int core,
                                            int ncores)
{
    int32_t lo, hi;
    if (split != HTC_SPLIT_CHANNELS) {
        htc__pool_rows_par(p, 0, in, out, core, ncores);
        return;
    }
    htc__share(p->c, core, ncores, &lo, &hi);
    if (hi > lo) htc__avgpool_ch(p, in, out, lo, hi);
}

static HTC__UNUSED void htc__maxpool_s8_par(const htc__pool_params *p, const int8_t *in, int8_t *out, int split, int core,
                                            int ncores)
{
    int32_t lo, hi;
    if (split != HTC_SPLIT_CHANNELS) {
        htc__pool_rows_par(p, 1, in, out, core, ncores);
        return;
    }
    htc__share(p->c, core, ncores, &lo, &hi);
    if (hi > lo) htc__maxpool_range(p, in, out, lo, hi, core, ncores);
}
