/* pool_s16.c - int16 average and max pooling, NHWC (TFLite Micro's
   reference_integer_ops::AveragePool / MaxPool for int16). */

/* The window clipped to the input (padding taps not counted); average
   (sum +- count/2) / count truncated, i.e. rounded half away from zero. */
static HTC__UNUSED void htc__pool_s16(const htc__pool_params *p, const int16_t *in, int16_t *out, int is_max)
{
    int32_t b, oy, ox, c, y, x;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
                const int32_t y0 = iy0 < 0 ? 0 : iy0, x0 = ix0 < 0 ? 0 : ix0;
                const int32_t y1 = iy0 + p->k_h < p->in_h ? iy0 + p->k_h : p->in_h;
                const int32_t x1 = ix0 + p->k_w < p->in_w ? ix0 + p->k_w : p->in_w;
                const int32_t count = (y1 - y0) * (x1 - x0);
                for (c = 0; c < p->c; c++) {
                    int32_t acc = is_max ? -32768 : 0, v;
                    for (y = y0; y < y1; y++)
                        for (x = x0; x < x1; x++) {
                            const int32_t s = in[((HTC__CAST(int64_t, b) * p->in_h + y) * p->in_w + x) * p->c + c];
                            if (is_max) acc = s > acc ? s : acc;
                            else acc += s;
                        }
                    if (is_max || count == 0) v = acc;
                    else v = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    out[((HTC__CAST(int64_t, b) * p->out_h + oy) * p->out_w + ox) * p->c + c] =
                        HTC__CAST(int16_t, htc__clamp(v, p->act_min, p->act_max));
                }
            }
}

static HTC__UNUSED void htc__avgpool_s16(const htc__pool_params *p, const int16_t *in, int16_t *out)
{
    htc__pool_s16(p, in, out, 0);
}

static HTC__UNUSED void htc__maxpool_s16(const htc__pool_params *p, const int16_t *in, int16_t *out)
{
    htc__pool_s16(p, in, out, 1);
}
