/* softmax_s16.c - int16 SOFTMAX over the last axis, bit-exact with TFLite
   Micro's SoftmaxInt16: exp of the scaled difference to the row maximum and
   the reciprocal of the sum, both from interpolated 513-entry tables. */

/* LUTLookup for int16: entry 256 + (v >> 7), interpolated by the low 7 bits. */
static HTC__UNUSED int16_t htc__lut16(const int32_t *lut, int16_t v)
{
    const int32_t index = 256 + (v >> 7);
    const int32_t offset = v & 0x7f;
    const int16_t base = HTC__CAST(int16_t, lut[index]);
    const int16_t slope = HTC__CAST(int16_t, lut[index + 1] - lut[index]);
    return HTC__CAST(int16_t, base + ((slope * offset + 64) >> 7));
}

static HTC__UNUSED int16_t htc__sat16(int32_t v)
{
    return HTC__CAST(int16_t, v < -32768 ? -32768 : (v > 32767 ? 32767 : v));
}

static HTC__UNUSED void htc__softmax_s16(const htc__softmax16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i, c;
    for (i = 0; i < p->outer; i++) {
        const int16_t *x = in + HTC__CAST(int64_t, i) * p->depth;
        int16_t *y = out + HTC__CAST(int64_t, i) * p->depth;
        int16_t mx = -32768, recip;
        int32_t sum = 0, h = 0, shifted, rs;
        int64_t round;
        for (c = 0; c < p->depth; c++) mx = x[c] > mx ? x[c] : mx;
        for (c = 0; c < p->depth; c++) {
            const int32_t d = htc__mulq(x[c] - mx, p->mult, p->shift);
            y[c] = htc__lut16(p->exp_lut, htc__sat16(d + 32767));
            sum += y[c];
        }
        while (h < 32 && !((HTC__CAST(uint32_t, sum) << h) & 0x80000000u)) h++;     /* leading zeros */
        shifted = HTC__CAST(int32_t, ((HTC__CAST(int64_t, sum) << (h - 1)) + (1 << 13)) >> 14);
        recip = htc__lut16(p->recip_lut, htc__sat16(shifted - ((1 << 15) + (1 << 16))));
        rs = 31 - h;
        round = HTC__CAST(int64_t, 1) << (rs - 1);
        for (c = 0; c < p->depth; c++) {
            const int32_t r = HTC__CAST(int32_t, (HTC__CAST(int64_t, y[c]) * recip + round) >> rs);
            y[c] = HTC__CAST(int16_t, r < 0 ? 0 : (r > 32767 ? 32767 : r));
        }
    }
}
