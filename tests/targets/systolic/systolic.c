/* systolic.c - device model of tests/targets/systolic/systolic.lua: a
   DIM x DIM weight-stationary systolic array with a scratchpad and a
   separate int32 accumulator, for the host virtual platform.

   Hardware. The scratchpad (HTC_DEV_ACT_SIZE bytes) holds the input tile
   [ih][iw][c] (NHWC, as in L2), the weight tile [kh][kw][c][k] (HWIO, the
   layout the compiler stores: `constants` in systolic.lua) and the output
   channels' TFLite multipliers and shifts; the accumulator
   (HTC_DEV_OUT_SIZE bytes) holds the int32 partial sums [oy][ox][k] of one
   output tile. A tile's input channels may be a part of the layer's
   (C tiled): the first part starts from the bias, which the compiler has
   folded with the input zero point (b - in_zp * sum w), the following
   parts add to the partial sums, and mvout requantizes them (htc.h
   htc__requant: TFLite's arithmetic) into int8 in L2. With the zero point
   folded the array multiplies raw int8 inputs; a tap outside the image
   reads the padding value (the input zero point), so it contributes
   in_zp * w, which the folded bias subtracts, as TFLite's padding does.
   Every access is checked against the memory sizes (HTC_DEVICE_FAULT).

   Cycles (one sequential timeline): a DMA transfer HTC_DEV_DMA_SETUP plus
   its bytes at HTC_DEV_DMA_BPC (accumulator side: HTC_DEV_OUT_DMA_*), a
   job on the array HTC_DEV_STARTUP plus, per kernel tap and block of
   DIM input x DIM output channels, DIM cycles to preload the weights and
   one cycle per output pixel. All constants come from the target file. */
#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_OUT_SIZE) || !defined(HTC_DEV_ROWS) || !defined(HTC_DEV_STARTUP) || \
    !defined(HTC_DEV_DMA_BPC) || !defined(HTC_DEV_DMA_SETUP) || !defined(HTC_DEV_OUT_DMA_BPC) ||                     \
    !defined(HTC_DEV_OUT_DMA_SETUP)
#error "systolic.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif

typedef struct {
    int8_t sp[HTC_DEV_ACT_SIZE];
    int32_t acc[HTC_DEV_OUT_SIZE / 4];
    htc__devclock clk;
} htc__sa_state;

static htc__sa_state htc__sa;

static HTC__UNUSED int8_t *htc__sa_sp(uint32_t off, uint64_t len)
{
    return HTC__CAST(int8_t *, htc__devmem(htc__sa.sp, HTC_DEV_ACT_SIZE, off, len, "scratchpad overflow"));
}

/* off and len in bytes, a multiple of 4 */
static HTC__UNUSED int32_t *htc__sa_acc(uint32_t off, uint64_t len)
{
    if (off % 4 || HTC__CAST(uint64_t, off) + len > HTC_DEV_OUT_SIZE) HTC_DEVICE_FAULT("accumulator overflow");
    return htc__sa.acc + off / 4;
}

static HTC__UNUSED void htc__sa_dma(double bytes) { htc__devclock_dma(&htc__sa.clk, bytes, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP); }

/* L2 -> scratchpad: h blocks of w rows of c bytes (strides in bytes: between
   blocks, between rows), stored [h][w][c]: an input tile (rows, pixels,
   channels) or a weight tile (taps, input channels, output channels) */
static HTC__UNUSED void htc__sa_mvin(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                     int32_t block_stride, int32_t row_stride)
{
    htc__dma_gather(htc__sa_sp(off, HTC__CAST(uint64_t, h) * w * c), src, h, w, c, block_stride, row_stride);
    htc__sa_dma(HTC__CAST(double, h) * w * c);
}

/* L2 -> scratchpad: n int32 words */
static HTC__UNUSED void htc__sa_mvin32(uint32_t off, const int32_t *src, int32_t n)
{
    memcpy(htc__sa_sp(off, 4u * HTC__CAST(uint64_t, n)), src, 4u * HTC__CAST(size_t, n));
    htc__sa_dma(4.0 * n);
}

/* L2 -> accumulator: the k biases broadcast to every one of n pixels (the
   first C tile of an output tile starts from them) */
static HTC__UNUSED void htc__sa_bias(uint32_t acc_off, const int32_t *bias, int32_t n, int32_t k)
{
    int32_t *a = htc__sa_acc(acc_off, 4u * HTC__CAST(uint64_t, n) * k);
    int32_t p;
    for (p = 0; p < n; p++) memcpy(a + HTC__CAST(size_t, p) * k, bias, 4u * HTC__CAST(size_t, k));
    htc__devclock_dma(&htc__sa.clk, 4.0 * k, HTC_DEV_OUT_DMA_BPC, HTC_DEV_OUT_DMA_SETUP);
}

/* One job: the accumulator's [oy][ox][k] partial sums at acc_off += the
   input tile [ih][iw][c] at in_off times the weight tile [kh][kw][c][k] at
   w_off. Output (0,0)'s first tap is input (y0, x0) of the tile; a tap
   outside the tile is padding and reads pad. */
static HTC__UNUSED void htc__sa_compute(uint32_t in_off, int32_t ih, int32_t iw, int32_t c, int32_t y0, int32_t x0,
                                        int32_t pad, uint32_t w_off, int32_t k, uint32_t acc_off, int32_t oy,
                                        int32_t ox, int32_t kh, int32_t kw, int32_t sh, int32_t sw)
{
    const int8_t *in = htc__sa_sp(in_off, HTC__CAST(uint64_t, ih) * iw * c);
    const int8_t *w = htc__sa_sp(w_off, HTC__CAST(uint64_t, kh) * kw * c * k);
    int32_t *acc = htc__sa_acc(acc_off, 4u * HTC__CAST(uint64_t, oy) * ox * k);
    int32_t y, x, ky, kx, i, o;
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++) {
            int32_t *a = acc + (HTC__CAST(size_t, y) * ox + x) * k;
            for (ky = 0; ky < kh; ky++)
                for (kx = 0; kx < kw; kx++) {
                    const int32_t iy = y0 + y * sh + ky, ix = x0 + x * sw + kx;
                    const int inside = iy >= 0 && iy < ih && ix >= 0 && ix < iw;
                    const int8_t *px = inside ? in + (HTC__CAST(size_t, iy) * iw + ix) * c : NULL;
                    const int8_t *wt = w + HTC__CAST(size_t, ky * kw + kx) * c * k;
                    for (i = 0; i < c; i++) {
                        const int32_t v = inside ? px[i] : pad;
                        for (o = 0; o < k; o++) a[o] += v * wt[HTC__CAST(size_t, i) * k + o];
                    }
                }
        }
    htc__sa.clk.now += HTC_DEV_STARTUP + HTC__CAST(uint64_t, kh) * kw * htc__cdiv(c, HTC_DEV_ROWS) *
                                         htc__cdiv(k, HTC_DEV_ROWS) * (HTC__CAST(uint64_t, oy) * ox + HTC_DEV_ROWS);
}

/* accumulator [oy][ox][k] -> int8 in L2 (strides in bytes), requantized
   per output channel with the multipliers and shifts at rq_off (k of
   each) in the scratchpad */
static HTC__UNUSED void htc__sa_mvout(int8_t *dst, uint32_t acc_off, uint32_t rq_off, int32_t oy, int32_t ox,
                                      int32_t k, int32_t row_stride, int32_t pix_stride, int32_t out_zp, int32_t qmin,
                                      int32_t qmax)
{
    const int32_t *acc = htc__sa_acc(acc_off, 4u * HTC__CAST(uint64_t, oy) * ox * k);
    const int8_t *rq = htc__sa_sp(rq_off, 8u * HTC__CAST(uint64_t, k));
    int32_t y, x, o;
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                int32_t m, s;
                memcpy(&m, rq + 4 * o, 4);
                memcpy(&s, rq + 4 * (k + o), 4);
                dst[HTC__CAST(size_t, y) * row_stride + HTC__CAST(size_t, x) * pix_stride + o] = HTC__CAST(
                    int8_t, htc__requant(acc[(HTC__CAST(size_t, y) * ox + x) * k + o], m, s, out_zp, qmin, qmax));
            }
    htc__devclock_dma(&htc__sa.clk, HTC__CAST(double, oy) * ox * k, HTC_DEV_OUT_DMA_BPC, HTC_DEV_OUT_DMA_SETUP);
}

/* the three functions the compiler calls (kernels/device.c) */
static HTC__UNUSED void htc__dev_sync(int32_t layer) { htc__devclock_layer(&htc__sa.clk, layer); }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    htc__devclock_cpu(&htc__sa.clk, layer, units, cycles_per_unit);
}
static HTC__UNUSED void htc__dev_reset(void) { htc__sa.clk.now = htc__sa.clk.layer_start = 0; }
