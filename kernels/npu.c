/* npu.c - device model of "npu" (targets/npu.lua), a small NPU-like
   accelerator for the host virtual platform: conv2d (plain and depthwise)
   and fully connected layers with TFLite's fixed-point requantization at
   its output, so .tflite models offload bit-exactly (TFLite Micro's
   reference kernels compute the same integers).

   Hardware. A PE array of HTC_DEV_ROWS x HTC_DEV_COLS int8 MACs: conv2d
   and fc put output channels on the rows and input channels on the
   columns (one output pixel and one kernel tap per step); depthwise puts
   channels on all PEs. The requantization unit applies, per output channel,
   TFLite's MultiplyByQuantizedMultiplier (htc.h, htc__requant: Q31
   multiplier, shift, double rounding), the zero point and the clamp.
   Activations live in the activation SRAM (tiles [y][x][c], as in L2),
   weights [k][c][kh][kw] (depthwise [k][kh][kw]), int32 biases, int32
   multipliers and int32 shifts in the weight SRAM; one DMA engine fills
   both from L2. Every access is checked against the declared sizes: an
   overflow aborts (HTC_DEVICE_FAULT).

   Cycles, on one sequential timeline (the DMA engine and the array never
   overlap; the host only issues): a DMA transfer costs HTC_DEV_DMA_SETUP
   plus its bytes at HTC_DEV_DMA_BPC per cycle (weights: HTC_DEV_W_DMA_*),
   a job on the array HTC_DEV_STARTUP plus its steps.

   Every hardware constant comes from the target file: the compiler writes
   the HTC_DEV_* defines (memory sizes, DMA rates, start-up, the array)
   before pasting this file, so targets/npu.lua is their one source. */
#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_W_SIZE) || !defined(HTC_DEV_ROWS) || !defined(HTC_DEV_COLS) || \
    !defined(HTC_DEV_STARTUP) || !defined(HTC_DEV_DMA_BPC) || !defined(HTC_DEV_DMA_SETUP) ||                      \
    !defined(HTC_DEV_W_DMA_BPC) || !defined(HTC_DEV_W_DMA_SETUP)
#error "npu.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif

typedef struct {
    int8_t act[HTC_DEV_ACT_SIZE];
    int8_t w[HTC_DEV_W_SIZE];
    htc__devclock clk;
} htc__npu_state;

static htc__npu_state htc__npu;

static HTC__UNUSED int8_t *htc__npu_mem(int space, uint32_t off, uint64_t len)
{
    if (space) return HTC__CAST(int8_t *, htc__devmem(htc__npu.w, HTC_DEV_W_SIZE, off, len, "weight SRAM overflow"));
    return HTC__CAST(int8_t *, htc__devmem(htc__npu.act, HTC_DEV_ACT_SIZE, off, len, "activation SRAM overflow"));
}

/* L2 region of h rows, w pixels, c channels (NHWC strides in elements) ->
   activation SRAM [h][w][c]: one 2-D transfer */
static HTC__UNUSED void htc__npu_dma_in(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                        int32_t row_stride, int32_t pix_stride)
{
    htc__dma_gather(htc__npu_mem(0, off, HTC__CAST(uint64_t, h) * w * c), src, h, w, c, row_stride, pix_stride);
    htc__devclock_dma(&htc__npu.clk, HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* activation SRAM [h][w][c] -> L2 (NHWC strides) */
static HTC__UNUSED void htc__npu_dma_out(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c,
                                         int32_t row_stride, int32_t pix_stride)
{
    htc__dma_scatter(dst, htc__npu_mem(0, off, HTC__CAST(uint64_t, h) * w * c), h, w, c, row_stride, pix_stride);
    htc__devclock_dma(&htc__npu.clk, HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* L2 -> weight SRAM, bytes as they are (the compiler stored them in the
   engine's layout) */
static HTC__UNUSED void htc__npu_dma_w(uint32_t off, const void *src, uint32_t bytes)
{
    memcpy(htc__npu_mem(1, off, bytes), src, bytes);
    htc__devclock_dma(&htc__npu.clk, bytes, HTC_DEV_W_DMA_BPC, HTC_DEV_W_DMA_SETUP);
}

static HTC__UNUSED int32_t htc__npu_rd32(uint32_t off)
{
    int32_t v;
    memcpy(&v, htc__npu_mem(1, off, 4), 4);
    return v;
}

/* the requantization unit: output channel o's multiplier and shift at rq_off */
static HTC__UNUSED int8_t htc__npu_requant(int32_t acc, uint32_t rq_off, int32_t k, int32_t o, int32_t out_zp,
                                           int32_t qmin, int32_t qmax)
{
    const int32_t m = htc__npu_rd32(rq_off + 4u * HTC__CAST(uint32_t, o));
    const int32_t s = htc__npu_rd32(rq_off + 4u * HTC__CAST(uint32_t, k + o));
    return HTC__CAST(int8_t, htc__requant(acc, m, s, out_zp, qmin, qmax));
}

/* Conv2D / depthwise on one tile. Input tile [ih][iw][c] at in_off; output
   [oy][ox][k] at out_off; output (0,0)'s first tap is input (y0, x0) of the
   tile (negative at a padded border: taps outside the tile are the zero
   point and contribute nothing, as TFLite pads). Depthwise: c == k. Weight
   SRAM: weights at w_off, biases [k] at b_off, multipliers [k] then
   shifts [k] at rq_off. */
static HTC__UNUSED void htc__npu_conv(uint32_t in_off, int32_t ih, int32_t iw, int32_t c, int32_t y0, int32_t x0,
                                      uint32_t out_off, int32_t k, int32_t oy, int32_t ox, int32_t kh, int32_t kw,
                                      int32_t sh, int32_t sw, int32_t dw, uint32_t w_off, uint32_t b_off, uint32_t rq_off,
                                      int32_t in_zp, int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__npu_mem(0, in_off, HTC__CAST(uint64_t, ih) * iw * c);
    int8_t *out = htc__npu_mem(0, out_off, HTC__CAST(uint64_t, oy) * ox * k);
    const int32_t wc = dw ? 1 : c;
    const int8_t *w = htc__npu_mem(1, w_off, HTC__CAST(uint64_t, k) * wc * kh * kw);
    int32_t o, y, x, i, ky, kx;
    (void)htc__npu_mem(1, rq_off, 8u * HTC__CAST(uint64_t, k));
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                int32_t acc = htc__npu_rd32(b_off + 4u * HTC__CAST(uint32_t, o));
                for (ky = 0; ky < kh; ky++) {
                    const int32_t iy = y0 + y * sh + ky;
                    if (iy < 0 || iy >= ih) continue;
                    for (kx = 0; kx < kw; kx++) {
                        const int32_t ix = x0 + x * sw + kx;
                        const int8_t *px;
                        if (ix < 0 || ix >= iw) continue;
                        px = in + (HTC__CAST(size_t, iy) * iw + ix) * c;
                        if (dw) acc += (px[o] - in_zp) * w[(HTC__CAST(size_t, o) * kh + ky) * kw + kx];
                        else
                            for (i = 0; i < c; i++) acc += (px[i] - in_zp) * w[((HTC__CAST(size_t, o) * c + i) * kh + ky) * kw + kx];
                    }
                }
                out[(HTC__CAST(size_t, y) * ox + x) * k + o] = htc__npu_requant(acc, rq_off, k, o, out_zp, qmin, qmax);
            }
    if (dw)
        htc__npu.clk.now += HTC_DEV_STARTUP + HTC__CAST(uint64_t, oy) * ox * kh * kw * htc__cdiv(k, HTC_DEV_ROWS * HTC_DEV_COLS);
    else
        htc__npu.clk.now += HTC_DEV_STARTUP + HTC__CAST(uint64_t, oy) * ox * kh * kw * htc__cdiv(k, HTC_DEV_ROWS) *
                                              htc__cdiv(c, HTC_DEV_COLS);
}

/* FC on one tile: out[o] = requant(bias[o] + sum_i (in[i] - in_zp) w[o][i]) */
static HTC__UNUSED void htc__npu_fc(uint32_t in_off, int32_t c, uint32_t out_off, int32_t k, uint32_t w_off, uint32_t b_off,
                                    uint32_t rq_off, int32_t in_zp, int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__npu_mem(0, in_off, HTC__CAST(uint64_t, c));
    int8_t *out = htc__npu_mem(0, out_off, HTC__CAST(uint64_t, k));
    const int8_t *w = htc__npu_mem(1, w_off, HTC__CAST(uint64_t, k) * c);
    int32_t o, i;
    (void)htc__npu_mem(1, rq_off, 8u * HTC__CAST(uint64_t, k));
    for (o = 0; o < k; o++) {
        int32_t acc = htc__npu_rd32(b_off + 4u * HTC__CAST(uint32_t, o));
        for (i = 0; i < c; i++) acc += (in[i] - in_zp) * w[HTC__CAST(size_t, o) * c + i];
        out[o] = htc__npu_requant(acc, rq_off, k, o, out_zp, qmin, qmax);
    }
    htc__npu.clk.now += HTC_DEV_STARTUP + htc__cdiv(k, HTC_DEV_ROWS) * htc__cdiv(c, HTC_DEV_COLS);
}

/* the three functions the compiler calls (kernels/device.c) */
static HTC__UNUSED void htc__dev_sync(int32_t layer) { htc__devclock_layer(&htc__npu.clk, layer); }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    htc__devclock_cpu(&htc__npu.clk, layer, units, cycles_per_unit);
}
static HTC__UNUSED void htc__dev_reset(void) { htc__npu.clk.now = htc__npu.clk.layer_start = 0; }
