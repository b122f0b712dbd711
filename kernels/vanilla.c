/* vanilla.c - device model of "vanilla", a deliberately small UMA-style
   accelerator (tests/test_vanilla.py): it only does Conv2D + bias.

   Hardware: an 8x8 MAC array (output channels K x input channels C), one
   output pixel and one kernel tap per step; a single 16 kB scratchpad (L1)
   holds the input tile, the int32 accumulators AND the weights (there is
   no weight memory); the input tile is stored y-x-C (pixel-major, as in
   L2) and the weights [k][c][kh][kw]. No requantisation, no double
   buffering: the host reads the int32 accumulators straight from the
   memory-mapped scratchpad and requantises them itself (power-of-two
   shift, round half to even) while writing int8 to L2.
   Every access is checked against HTC_DEV_ACT_SIZE (an overflow aborts);
   cycles are counted on one sequential timeline (DMA, array and host
   never overlap).

   The contract with the generated code and the firmware's hooks are those
   of every device model (kernels/device.c). */

/* Every hardware constant comes from the target file (targets/vanilla.lua
   is their one source): htc writes these defines before pasting this file.
   HTC_DEV_ACT_SIZE              scratchpad bytes
   HTC_DEV_ROWS, HTC_DEV_COLS    output x input channels per step (array)
   HTC_DEV_STARTUP               cycles to start the array
   HTC_DEV_DMA_BPC, _SETUP       DMA L2 -> scratchpad (memory.L1.dma)
   HTC_DEV_HOST_RQ               host cycles per requantised output (device table) */
#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_ROWS) || !defined(HTC_DEV_COLS) || !defined(HTC_DEV_STARTUP) || \
    !defined(HTC_DEV_DMA_BPC) || !defined(HTC_DEV_DMA_SETUP) || !defined(HTC_DEV_HOST_RQ)
#error "vanilla.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif

typedef struct {
    int8_t l1[HTC_DEV_ACT_SIZE];
    htc__devclock clk;
} htc__van_state;

static htc__van_state htc__van;

static HTC__UNUSED uint8_t *htc__van_mem(uint32_t off, uint64_t len)
{
    return HTC__CAST(uint8_t *, htc__devmem(htc__van.l1, HTC_DEV_ACT_SIZE, off, len, "scratchpad overflow"));
}

static HTC__UNUSED void htc__van_dma_cycles(uint64_t bytes)
{
    htc__devclock_dma(&htc__van.clk, HTC__CAST(double, bytes), HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* L2 -> scratchpad, bytes as they are (weights, biases) */
static HTC__UNUSED void htc__van_load(uint32_t l1, const void *src, uint32_t bytes)
{
    memcpy(htc__van_mem(l1, bytes), src, bytes);
    htc__van_dma_cycles(bytes);
}

/* L2 NHWC rows -> scratchpad [h][w][c] (one strided DMA) */
static HTC__UNUSED void htc__van_load_tile(uint32_t l1, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                           int32_t row_stride)
{
    uint8_t *d = htc__van_mem(l1, (uint64_t)h * w * c);
    int32_t y;
    for (y = 0; y < h; y++) memcpy(d + (size_t)y * w * c, src + (size_t)y * row_stride, (size_t)w * c);
    htc__van_dma_cycles((uint64_t)h * w * c);
}

static HTC__UNUSED int32_t htc__van_rd32(uint32_t off)
{
    int32_t v;
    memcpy(&v, htc__van_mem(off, 4), 4);
    return v;
}

/* acc[oy][ox][k] (int32, at l1_out) = bias[k] + sum (in - in_zp) * w over
   the taps inside the input tile [ih][iw][c] (output (0,0)'s first tap is
   tile position (y0, x0), negative at a padded border). */
static HTC__UNUSED void htc__van_conv(uint32_t l1_in, int32_t ih, int32_t iw, int32_t c, int32_t y0, int32_t x0,
                                      uint32_t l1_w, uint32_t l1_b, uint32_t l1_out, int32_t k, int32_t oy, int32_t ox,
                                      int32_t kh, int32_t kw, int32_t sh, int32_t sw, int32_t in_zp)
{
    const int8_t *in = (const int8_t *)htc__van_mem(l1_in, (uint64_t)ih * iw * c);
    const int8_t *w = (const int8_t *)htc__van_mem(l1_w, (uint64_t)k * c * kh * kw);
    uint8_t *out = htc__van_mem(l1_out, (uint64_t)4 * k * oy * ox);
    int32_t o, y, x, i, ky, kx;
    (void)htc__van_mem(l1_b, (uint64_t)4 * k);
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                int32_t acc = htc__van_rd32(l1_b + 4u * (uint32_t)o);
                for (ky = 0; ky < kh; ky++) {
                    const int32_t iy = y0 + y * sh + ky;
                    if (iy < 0 || iy >= ih) continue;
                    for (kx = 0; kx < kw; kx++) {
                        const int32_t ix = x0 + x * sw + kx;
                        if (ix < 0 || ix >= iw) continue;
                        for (i = 0; i < c; i++)
                            acc += (in[((size_t)iy * iw + ix) * c + i] - in_zp) * w[(((size_t)o * c + i) * kh + ky) * kw + kx];
                    }
                }
                memcpy(out + 4 * (((size_t)y * ox + x) * k + o), &acc, 4);
            }
    htc__van.clk.now += HTC_DEV_STARTUP + (uint64_t)oy * ox * kh * kw * ((k + HTC_DEV_ROWS - 1) / HTC_DEV_ROWS) *
                                          ((c + HTC_DEV_COLS - 1) / HTC_DEV_COLS);
}

/* host: int32 accumulators [oy][ox][k] in the scratchpad -> int8 in L2 NHWC,
   v = round_half_even(acc / 2^shift) + out_zp, clamped */
static HTC__UNUSED void htc__van_requant_out(int8_t *dst, uint32_t l1_out, int32_t oy, int32_t ox, int32_t k,
                                             int32_t row_stride, int32_t pix_stride, const int32_t *shifts, int32_t per_channel,
                                             int32_t out_zp, int32_t qmin, int32_t qmax)
{
    int32_t y, x, o;
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                const int32_t acc = htc__van_rd32(l1_out + 4u * (uint32_t)(((size_t)y * ox + x) * k + o));
                const int32_t s = shifts[per_channel ? o : 0];
                int32_t v = acc;
                if (s > 0) {
                    const int32_t half = HTC__CAST(int32_t, 1) << (s - 1), mask = (HTC__CAST(int32_t, 1) << s) - 1;
                    const int32_t q = acc >> s, r = acc & mask;
                    v = q + (r > half || (r == half && (q & 1)));
                }
                v += out_zp;
                dst[(size_t)y * row_stride + (size_t)x * pix_stride + o] = HTC__CAST(int8_t, v < qmin ? qmin : (v > qmax ? qmax : v));
            }
    htc__van.clk.now += (uint64_t)oy * ox * k * HTC_DEV_HOST_RQ;
}

/* host: the same accumulators requantised by QuantLib's RequantShift,
   v = clip((acc * mul + add + 2^(shift-1)) >> shift, qmin - out_zp, qmax - out_zp) + out_zp
   (htc__ql_rq; out_zp = -128 for unsigned output held as value - 128) */
static HTC__UNUSED void htc__van_requant_ql(int8_t *dst, uint32_t l1_out, int32_t oy, int32_t ox, int32_t k,
                                            int32_t row_stride, int32_t pix_stride, const int32_t *mul,
                                            const int32_t *add, int32_t shift, int32_t out_zp, int32_t qmin, int32_t qmax)
{
    int32_t y, x, o;
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                const int32_t acc = htc__van_rd32(l1_out + 4u * (uint32_t)(((size_t)y * ox + x) * k + o));
                dst[(size_t)y * row_stride + (size_t)x * pix_stride + o] =
                    HTC__CAST(int8_t, htc__ql_rq(acc, mul[o], add[o], shift, qmin - out_zp, qmax - out_zp) + out_zp);
            }
    htc__van.clk.now += (uint64_t)oy * ox * k * HTC_DEV_HOST_RQ;
}

/* ---- the three functions the compiler calls (kernels/device.c) ---- */
static HTC__UNUSED void htc__dev_reset(void) { htc__van.clk.now = htc__van.clk.layer_start = 0; }
static HTC__UNUSED void htc__dev_sync(int32_t layer) { htc__devclock_layer(&htc__van.clk, layer); }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    htc__devclock_cpu(&htc__van.clk, layer, units, cycles_per_unit);
}
