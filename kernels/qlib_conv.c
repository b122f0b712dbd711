/* qlib_conv.c - QuantLib's integer Conv (regular, depthwise, grouped) with
   RequantShift as its epilogue (htc__ql_rq), NHWC, int8 weights OHWI per group. */

static HTC__UNUSED void htc__ql_conv2d(const htc__ql_conv_params *p, const void *const *ins, void *out)
{
    const int8_t *x = HTC__CAST(const int8_t *, ins[0]);
    const int8_t *w = HTC__CAST(const int8_t *, ins[1]);
    const int32_t *bias = HTC__CAST(const int32_t *, ins[2]);
    const int32_t *mul = HTC__CAST(const int32_t *, ins[3]);
    const int32_t *add = HTC__CAST(const int32_t *, ins[4]);
    int8_t *y8 = HTC__CAST(int8_t *, out);
    int32_t *y32 = HTC__CAST(int32_t *, out);
    const int32_t gin = p->in_c / p->groups, gout = p->out_c / p->groups;
    int32_t b, oy, ox, oc, ky, kx, c;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
                const size_t o = ((HTC__CAST(size_t, b) * p->out_h + oy) * p->out_w + ox) * HTC__CAST(size_t, p->out_c);
                for (oc = 0; oc < p->out_c; oc++) {
                    const int32_t g = oc / gout;
                    const int8_t *wf = w + HTC__CAST(size_t, oc) * p->k_h * p->k_w * gin;
                    int32_t acc = bias ? bias[oc] : 0;
                    for (ky = 0; ky < p->k_h; ky++) {
                        const int32_t iy = iy0 + ky * p->dil_h;
                        if (iy < 0 || iy >= p->in_h) continue;
                        for (kx = 0; kx < p->k_w; kx++) {
                            const int32_t ix = ix0 + kx * p->dil_w;
                            const int8_t *xp, *wp;
                            if (ix < 0 || ix >= p->in_w) continue;
                            xp = x + ((HTC__CAST(size_t, b) * p->in_h + iy) * p->in_w + ix) * HTC__CAST(size_t, p->in_c) + g * gin;
                            wp = wf + (ky * p->k_w + kx) * gin;
                            for (c = 0; c < gin; c++) acc += (xp[c] + p->in_off) * wp[c];
                        }
                    }
                    if (p->rq) {
                        const int32_t k = p->per_channel ? oc : 0;
                        y8[o + oc] = HTC__CAST(int8_t, htc__ql_rq(acc, mul[k], add[k], p->shift, p->lo, p->hi) - p->out_off);
                    } else {
                        y32[o + oc] = acc;
                    }
                }
            }
}
