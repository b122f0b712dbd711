/* dla.c - device model of "dla" (targets/dla.lua), the deep learning
   accelerator of Sponner et al. (coarse-grained ISA, ../shared/seeds/003
   Table 2) for the host virtual platform: OP_CONV / OP_CONV_RELU,
   OP_DEPTH_CONV (or depthwise as OP_CONV one filter at a time), OP_MAT_MUL
   with TFLite's fixed-point requantization in the instruction (htc.h
   htc__requant: Q31 multiplier, shift, double rounding), so .tflite models
   offload bit-exactly; OP_DMA_READ / OP_DMA_WRITE between L2 and the
   device SRAM.

   Hardware. A vector ALU of HTC_DEV_PES int8 MACs. Output-parallel
   (HTC_DEV_OUTPUT_PAR 1): each step is one output pixel, one kernel tap
   and one input channel for up to PES output channels; input-parallel:
   one output channel and up to PES input channels per step. OP_DEPTH_CONV
   puts up to PES channels on the PEs; with HTC_DEV_DW_AS_CONV a depthwise
   layer is one OP_CONV per channel (one PE busy, HTC_DEV_ISSUE cycles to
   reprogram each). One device SRAM holds the tiles (from its bottom) and
   one K tile's weights, biases, multipliers and shifts (from its top):
   two views of HTC_DEV_ACT_SIZE bytes whose use in one layer must fit
   together; every access is checked (an overflow is HTC_DEVICE_FAULT).

   Cycles, on one timeline (DMA and ALU take turns): a DMA transfer costs
   HTC_DEV_DMA_SETUP plus its bytes at HTC_DEV_DMA_BPC per cycle, an
   instruction HTC_DEV_STARTUP plus its steps. Every constant comes from
   the target file (the HTC_DEV_* defines htc writes). */
#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_W_SIZE) || !defined(HTC_DEV_PES) || !defined(HTC_DEV_OUTPUT_PAR) || \
    !defined(HTC_DEV_DW_AS_CONV) || !defined(HTC_DEV_ISSUE) || \
    !defined(HTC_DEV_STARTUP) || !defined(HTC_DEV_DMA_BPC) || !defined(HTC_DEV_DMA_SETUP) ||                      \
    !defined(HTC_DEV_W_DMA_BPC) || !defined(HTC_DEV_W_DMA_SETUP)
#error "dla.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif

typedef struct {
    int8_t act[HTC_DEV_ACT_SIZE];
    int8_t w[HTC_DEV_W_SIZE];
    htc__devclock clk;
    uint64_t act_hi, w_hi;      /* this layer's highest byte used in each view */
} htc__dla_state;

static htc__dla_state htc__dla;

static HTC__UNUSED int8_t *htc__dla_mem(int space, uint32_t off, uint64_t len)
{
    const uint64_t size = space ? HTC_DEV_W_SIZE : HTC_DEV_ACT_SIZE;
    const uint64_t end = HTC__CAST(uint64_t, off) + len;
    if (end > size) HTC_DEVICE_FAULT(space ? "weight SRAM overflow" : "activation SRAM overflow");
    if (space && end > htc__dla.w_hi) htc__dla.w_hi = end;
    if (!space && end > htc__dla.act_hi) htc__dla.act_hi = end;
    if (htc__dla.act_hi + htc__dla.w_hi > HTC_DEV_ACT_SIZE) HTC_DEVICE_FAULT("device SRAM overflow (tiles and weights together)");
    return (space ? htc__dla.w : htc__dla.act) + off;
}

/* L2 region of h rows, w pixels, c channels (NHWC strides in elements) ->
   activation SRAM [h][w][c]: one 2-D transfer */
static HTC__UNUSED void htc__dla_dma_in(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                        int32_t row_stride, int32_t pix_stride)
{
    htc__dma_gather(htc__dla_mem(0, off, HTC__CAST(uint64_t, h) * w * c), src, h, w, c, row_stride, pix_stride);
    htc__devclock_dma(&htc__dla.clk, HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* activation SRAM [h][w][c] -> L2 (NHWC strides) */
static HTC__UNUSED void htc__dla_dma_out(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c,
                                         int32_t row_stride, int32_t pix_stride)
{
    htc__dma_scatter(dst, htc__dla_mem(0, off, HTC__CAST(uint64_t, h) * w * c), h, w, c, row_stride, pix_stride);
    htc__devclock_dma(&htc__dla.clk, HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* L2 -> weight SRAM, bytes as they are (the compiler stored them in the
   engine's layout) */
static HTC__UNUSED void htc__dla_dma_w(uint32_t off, const void *src, uint32_t bytes)
{
    memcpy(htc__dla_mem(1, off, bytes), src, bytes);
    htc__devclock_dma(&htc__dla.clk, bytes, HTC_DEV_W_DMA_BPC, HTC_DEV_W_DMA_SETUP);
}

static HTC__UNUSED int32_t htc__dla_rd32(uint32_t off)
{
    int32_t v;
    memcpy(&v, htc__dla_mem(1, off, 4), 4);
    return v;
}

/* The requantization unit, per output channel o of a K tile of k: mode 0
   TFLite's Q31 multipliers [k] then shifts [k] at rq_off
   (MultiplyByQuantizedMultiplier); power-of-two mode, right shifts s
   (scale 2^-s) per channel [k] (mode 1) or one (mode 2): the multiplier
   fixed at 2^30 (0.5) with shift 1 - s, TFLite's own arithmetic for such
   scales. Then the zero point and the clamp. */
static HTC__UNUSED int8_t htc__dla_requant(int32_t acc, uint32_t rq_off, int32_t k, int32_t o, int32_t mode, int32_t out_zp,
                                           int32_t qmin, int32_t qmax)
{
    if (mode) {
        const int32_t s = htc__dla_rd32(rq_off + (mode == 1 ? 4u * HTC__CAST(uint32_t, o) : 0u));
        return HTC__CAST(int8_t, htc__requant(acc, HTC__CAST(int32_t, 1) << 30, 1 - s, out_zp, qmin, qmax));
    } else {
        const int32_t m = htc__dla_rd32(rq_off + 4u * HTC__CAST(uint32_t, o));
        const int32_t s = htc__dla_rd32(rq_off + 4u * HTC__CAST(uint32_t, k + o));
        return HTC__CAST(int8_t, htc__requant(acc, m, s, out_zp, qmin, qmax));
    }
}

/* Conv2D / depthwise on one tile. Input tile [ih][iw][c] at in_off; output
   [oy][ox][k] at out_off; output (0,0)'s first tap is input (y0, x0) of the
   tile (negative at a padded border: taps outside the tile are the zero
   point and contribute nothing, as TFLite pads). Depthwise: c == k. Weight
   SRAM: weights at w_off, biases [k] at b_off, multipliers [k] then
   shifts [k] at rq_off. */
static HTC__UNUSED void htc__dla_conv(uint32_t in_off, int32_t ih, int32_t iw, int32_t c, int32_t y0, int32_t x0,
                                      uint32_t out_off, int32_t k, int32_t oy, int32_t ox, int32_t kh, int32_t kw,
                                      int32_t sh, int32_t sw, int32_t dw, uint32_t w_off, uint32_t b_off, uint32_t rq_off,
                                      int32_t rq_mode, int32_t in_zp, int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__dla_mem(0, in_off, HTC__CAST(uint64_t, ih) * iw * c);
    int8_t *out = htc__dla_mem(0, out_off, HTC__CAST(uint64_t, oy) * ox * k);
    const int32_t wc = dw ? 1 : c;
    const int8_t *w = htc__dla_mem(1, w_off, HTC__CAST(uint64_t, k) * wc * kh * kw);
    int32_t o, y, x, i, ky, kx;
    (void)htc__dla_mem(1, rq_off, rq_mode == 2 ? 4u : rq_mode == 1 ? 4u * HTC__CAST(uint64_t, k) : 8u * HTC__CAST(uint64_t, k));
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                int32_t acc = htc__dla_rd32(b_off + 4u * HTC__CAST(uint32_t, o));
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
                out[(HTC__CAST(size_t, y) * ox + x) * k + o] = htc__dla_requant(acc, rq_off, k, o, rq_mode, out_zp, qmin, qmax);
            }
    {
        const uint64_t taps = HTC__CAST(uint64_t, oy) * ox * kh * kw;
        if (dw && HTC_DEV_DW_AS_CONV) htc__dla.clk.now += HTC_DEV_STARTUP + HTC__CAST(uint64_t, k) * (HTC_DEV_ISSUE + taps);
        else if (dw) htc__dla.clk.now += HTC_DEV_STARTUP + taps * htc__cdiv(k, HTC_DEV_PES);
        else if (HTC_DEV_OUTPUT_PAR) htc__dla.clk.now += HTC_DEV_STARTUP + taps * HTC__CAST(uint64_t, c) * htc__cdiv(k, HTC_DEV_PES);
        else htc__dla.clk.now += HTC_DEV_STARTUP + taps * HTC__CAST(uint64_t, k) * htc__cdiv(c, HTC_DEV_PES);
    }
}

/* FC on one tile: out[o] = requant(bias[o] + sum_i (in[i] - in_zp) w[o][i]) */
static HTC__UNUSED void htc__dla_fc(uint32_t in_off, int32_t c, uint32_t out_off, int32_t k, uint32_t w_off, uint32_t b_off,
                                    uint32_t rq_off, int32_t rq_mode, int32_t in_zp, int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__dla_mem(0, in_off, HTC__CAST(uint64_t, c));
    int8_t *out = htc__dla_mem(0, out_off, HTC__CAST(uint64_t, k));
    const int8_t *w = htc__dla_mem(1, w_off, HTC__CAST(uint64_t, k) * c);
    int32_t o, i;
    (void)htc__dla_mem(1, rq_off, rq_mode == 2 ? 4u : rq_mode == 1 ? 4u * HTC__CAST(uint64_t, k) : 8u * HTC__CAST(uint64_t, k));
    for (o = 0; o < k; o++) {
        int32_t acc = htc__dla_rd32(b_off + 4u * HTC__CAST(uint32_t, o));
        for (i = 0; i < c; i++) acc += (in[i] - in_zp) * w[HTC__CAST(size_t, o) * c + i];
        out[o] = htc__dla_requant(acc, rq_off, k, o, rq_mode, out_zp, qmin, qmax);
    }
    if (HTC_DEV_OUTPUT_PAR) htc__dla.clk.now += HTC_DEV_STARTUP + HTC__CAST(uint64_t, c) * htc__cdiv(k, HTC_DEV_PES);
    else htc__dla.clk.now += HTC_DEV_STARTUP + HTC__CAST(uint64_t, k) * htc__cdiv(c, HTC_DEV_PES);
}

/* the three functions the compiler calls (kernels/device.c); a layer's
   end also ends its use of the two views */
static HTC__UNUSED void htc__dev_sync(int32_t layer)
{
    htc__devclock_layer(&htc__dla.clk, layer);
    htc__dla.act_hi = htc__dla.w_hi = 0;
}
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    htc__devclock_cpu(&htc__dla.clk, layer, units, cycles_per_unit);
}
static HTC__UNUSED void htc__dev_reset(void) { htc__dla.clk.now = htc__dla.clk.layer_start = 0; }
