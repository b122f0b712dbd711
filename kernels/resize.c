/* resize.c - RESIZE_NEAREST_NEIGHBOR (any element size) and int8
   RESIZE_BILINEAR of NHWC tensors, bit-exact with TFLite Micro's
   reference_ops::ResizeNearestNeighbor / ResizeBilinearInteger. */

/* map: out_h source rows then out_w source columns (gen/lower.c computes
   TFLite's GetNearestNeighbor, float arithmetic included, at compile time) */
static HTC__UNUSED void htc__resize_nearest(const htc__resize_params *p, const void *in, const int32_t *map, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t px = HTC__CAST(size_t, p->c) * HTC__CAST(size_t, p->elem);
    int32_t b, y, x;
    for (b = 0; b < p->batches; b++)
        for (y = 0; y < p->out_h; y++)
            for (x = 0; x < p->out_w; x++) {
                const size_t at = ((HTC__CAST(size_t, b) * p->in_h + map[y]) * p->in_w + map[p->out_h + x]) * px;
                memcpy(dst, src + at, px);
                dst += px;
            }
}

/* ComputeInterpolationValuesInteger */
static inline void htc__resize_interp(int32_t v, int32_t scale10, int32_t half_pixel, int32_t size, int32_t *scaled,
                                      int32_t *lo, int32_t *hi)
{
    *scaled = half_pixel ? v * scale10 + scale10 / 2 - (1 << 9) : v * scale10;
    *lo = *scaled / (1 << 10);
    if (*lo < 0) *lo = 0;
    *hi = (*scaled + (1 << 10) - 1) / (1 << 10);
    if (*hi > size - 1) *hi = size - 1;
}

static HTC__UNUSED void htc__resize_bilinear_s8(const htc__resize_params *p, const int8_t *in, const int32_t *unused,
                                                int8_t *out)
{
    int32_t b, y, x, c;
    (void)unused;
    for (b = 0; b < p->batches; b++) {
        const int8_t *ib = in + HTC__CAST(size_t, b) * p->in_h * p->in_w * p->c;
        for (y = 0; y < p->out_h; y++) {
            int32_t iy, y0, y1;
            htc__resize_interp(y, p->h_scale10, p->half_pixel, p->in_h, &iy, &y0, &y1);
            for (x = 0; x < p->out_w; x++) {
                int32_t ix, x0, x1;
                int64_t wy0, wy1, wx0, wx1;
                htc__resize_interp(x, p->w_scale10, p->half_pixel, p->in_w, &ix, &x0, &x1);
                wy1 = iy - (1 << 10) * y0;
                wy0 = (1 << 10) - wy1;
                wx1 = ix - (1 << 10) * x0;
                wx0 = (1 << 10) - wx1;
                for (c = 0; c < p->c; c++) {
                    const int64_t v = ib[(HTC__CAST(size_t, y0) * p->in_w + x0) * p->c + c] * wy0 * wx0 +
                                      ib[(HTC__CAST(size_t, y1) * p->in_w + x0) * p->c + c] * wy1 * wx0 +
                                      ib[(HTC__CAST(size_t, y0) * p->in_w + x1) * p->c + c] * wy0 * wx1 +
                                      ib[(HTC__CAST(size_t, y1) * p->in_w + x1) * p->c + c] * wy1 * wx1;
                    const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
                    *out++ = HTC__CAST(int8_t, (v + round) / (1 << 20));
                }
            }
        }
    }
}

/* ComputeInterpolationValues in float (LiteRT's uint8 path) */
static HTC__UNUSED void htc__resize_interp_f(int32_t v, float scale, int32_t half_pixel, int32_t size, float *scaled,
                                             int32_t *lo, int32_t *hi)
{
    volatile float s = HTC__CAST(float, v);
    int32_t f, c;
    if (half_pixel) {
        s = s + 0.5f;
        s = s * scale;
        s = s - 0.5f;
    } else {
        s = s * scale;
    }
    f = HTC__CAST(int32_t, s);                          /* floor and ceil (|s| < 2^31) */
    if (HTC__CAST(float, f) > s) f--;
    c = HTC__CAST(int32_t, s);
    if (HTC__CAST(float, c) < s) c++;
    *scaled = s;
    *lo = f < 0 ? 0 : f;
    *hi = c < size - 1 ? c : size - 1;
}

/* uint8 RESIZE_BILINEAR as LiteRT's reference kernels compute it (its
   float ResizeBilinear: float weights, the four products summed in order,
   rounded half away from zero) on uint8 values stored as int8 (value -
   128). h_scale10 holds align_corners here. */
static HTC__UNUSED void htc__resize_bilinear_u8(const htc__resize_params *p, const int8_t *in, const int32_t *unused,
                                                int8_t *out)
{
    int32_t b, y, x, c;
    volatile float hs = HTC__CAST(float, p->in_h), ws = HTC__CAST(float, p->in_w);
    (void)unused;
    hs = hs / HTC__CAST(float, p->out_h);
    ws = ws / HTC__CAST(float, p->out_w);
    if (p->h_scale10 && p->out_h > 1) {
        hs = HTC__CAST(float, p->in_h - 1);
        hs = hs / HTC__CAST(float, p->out_h - 1);
    }
    if (p->h_scale10 && p->out_w > 1) {
        ws = HTC__CAST(float, p->in_w - 1);
        ws = ws / HTC__CAST(float, p->out_w - 1);
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *ib = in + HTC__CAST(size_t, b) * p->in_h * p->in_w * p->c;
        for (y = 0; y < p->out_h; y++) {
            float iy;
            int32_t y0, y1;
            htc__resize_interp_f(y, hs, p->half_pixel, p->in_h, &iy, &y0, &y1);
            for (x = 0; x < p->out_w; x++) {
                float ix;
                int32_t x0, x1;
                volatile float dy, dx, wy, wx;
                htc__resize_interp_f(x, ws, p->half_pixel, p->in_w, &ix, &x0, &x1);
                dy = iy - HTC__CAST(float, y0);
                dx = ix - HTC__CAST(float, x0);
                wy = 1.0f - dy;
                wx = 1.0f - dx;
                for (c = 0; c < p->c; c++) {
                    volatile float v, t;
                    int32_t q;
                    float fr;
                    v = HTC__CAST(float, ib[(HTC__CAST(size_t, y0) * p->in_w + x0) * p->c + c] + 128) * wy;
                    v = v * wx;
                    t = HTC__CAST(float, ib[(HTC__CAST(size_t, y1) * p->in_w + x0) * p->c + c] + 128) * dy;
                    t = t * wx;
                    v = v + t;
                    t = HTC__CAST(float, ib[(HTC__CAST(size_t, y0) * p->in_w + x1) * p->c + c] + 128) * wy;
                    t = t * dx;
                    v = v + t;
                    t = HTC__CAST(float, ib[(HTC__CAST(size_t, y1) * p->in_w + x1) * p->c + c] + 128) * dy;
                    t = t * dx;
                    v = v + t;
                    q = HTC__CAST(int32_t, v);             /* std::round: |v| < 2^23, the fraction exact */
                    fr = v - HTC__CAST(float, q);
                    if (fr >= 0.5f) q++;
                    else if (fr <= -0.5f) q--;
                    *out++ = HTC__CAST(int8_t, HTC__CAST(uint8_t, q) ^ 0x80);
                }
            }
        }
    }
}
