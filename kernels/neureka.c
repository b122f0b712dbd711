/* neureka.c - device model of Siracusa's N-EUREKA engine (targets/siracusa.lua,
   -D engines=neureka|both) for the host virtual platform.

   Arithmetic (../shared/gvsoc.md, pulp-nnx's functional model): per output
   pixel and channel, acc = sum x * (w_stored - 128), int32 wrapping, the
   input signed (x = the stored int8 byte) and taps outside the input read
   the padding register's value; y = acc * scale[k] (int32 wrapping); y =
   y + bias[k] saturating to int32; optional ReLU; y >> shift (arithmetic,
   no rounding term); clipped to int8. Scale and bias (int32 per output
   channel) are read from L1, the shift is per layer.

   Weights, stored w + 128 in N-EUREKA's bit-plane layout (pulp-nnx
   test/NeurekaWeight.py), read from the weight memory:
     3x3: per output channel, per group of 28 input channels, per bit plane
          b = 0..7: 32 bytes whose bit s * 28 + i (s = ky * 3 + kx) is bit b
          of channel i's stored weight (252 bits used);
     1x1: per output channel and group of 32 input channels: 32 bytes whose
          bit (i / 4) * 32 + b * 4 + i % 4 is bit b of channel i's weight;
     depthwise 3x3: the 3x3 layout of one output channel over the K channels.
   Bit i of a row is bit i % 8 of byte i / 8 (little bit order).

   Cycles: a job is divided into output subtiles of 6x6 pixels x 32 channels
   (depthwise: 28 channels); each subtile takes one step per group of input
   channels (28 for 3x3, 32 for 1x1). One step costs HTC_DEV_STEP_1X1,
   HTC_DEV_STEP_3X3 or HTC_DEV_STEP_DW cycles (calibrated on GVSoC's measured
   jobs: 1x1 6x6x32->32 767 = 1 step; 3x3 8x8x32->32 3,243 = 8 steps of
   405; depthwise 8x8x28 1,125 = 4 steps of 281), plus HTC_DEV_STARTUP per
   job (the driver's task set-up). DMA: HTC_DEV_DMA_SETUP + bytes /
   HTC_DEV_DMA_BPC per transfer, sequential with the jobs. Every access is
   checked against the memory sizes (HTC_DEVICE_FAULT). */
#include <stdlib.h>
#include <string.h>

#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_W_SIZE) || !defined(HTC_DEV_STARTUP) || !defined(HTC_DEV_DMA_BPC) || \
    !defined(HTC_DEV_DMA_SETUP) || !defined(HTC_DEV_W_DMA_BPC) || !defined(HTC_DEV_W_DMA_SETUP) ||                    \
    !defined(HTC_DEV_STEP_1X1) || !defined(HTC_DEV_STEP_3X3) || !defined(HTC_DEV_STEP_DW) ||                       \
    !defined(HTC_DEV_CORES) || !defined(HTC_DEV_FORK)
#error "neureka.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif
#ifndef HTC_DEVICE_FAULT
#define HTC_DEVICE_FAULT(what) abort()
#endif
#ifndef HTC_DEVICE_LAYER
#define HTC_DEVICE_LAYER(layer, cycles) ((void)0)
#endif

enum { HTC__NEU_3X3 = 0, HTC__NEU_1X1 = 1, HTC__NEU_DW = 2 };

typedef struct {
    uint8_t act[HTC_DEV_ACT_SIZE];
    uint8_t w[HTC_DEV_W_SIZE];
    uint64_t now, layer_start;
} htc__neu_state;

static htc__neu_state htc__neu;

static HTC__UNUSED void *htc__neu_mem(int space, uint32_t off, uint64_t len)
{
    const uint64_t size = space ? HTC_DEV_W_SIZE : HTC_DEV_ACT_SIZE;
    if (HTC__CAST(uint64_t, off) + len > size) HTC_DEVICE_FAULT(space ? "N-EUREKA weight memory overflow" : "L1 overflow");
    return (space ? htc__neu.w : htc__neu.act) + off;
}

/* weight bytes of one output channel (dense) or of k channels (depthwise) */
static HTC__UNUSED uint32_t htc__neu_wbytes(int32_t mode, int32_t c)
{
    if (mode == HTC__NEU_1X1) return 32u * HTC__CAST(uint32_t, htc__cdiv(c, 32));
    return 256u * HTC__CAST(uint32_t, htc__cdiv(c, 28));
}

/* L2 region (NHWC strides in elements) -> L1 [h][w][c] */
static HTC__UNUSED void htc__neu_dma_in(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                        int32_t row_stride, int32_t pix_stride)
{
    htc__dma_gather(HTC__CAST(int8_t *, htc__neu_mem(0, off, HTC__CAST(uint64_t, h) * w * c)), src, h, w, c, row_stride,
                    pix_stride);
    htc__neu.now += HTC_DEV_DMA_SETUP + htc__ceil_div(HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC);
}

/* L1 [h][w][c] -> L2 */
static HTC__UNUSED void htc__neu_dma_out(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                         int32_t pix_stride)
{
    htc__dma_scatter(dst, HTC__CAST(const int8_t *, htc__neu_mem(0, off, HTC__CAST(uint64_t, h) * w * c)), h, w, c,
                     row_stride, pix_stride);
    htc__neu.now += HTC_DEV_DMA_SETUP + htc__ceil_div(HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC);
}

/* bytes as they are into L1 (space 0: scale and bias) or the weight memory */
static HTC__UNUSED void htc__neu_load(int space, uint32_t off, const void *src, uint32_t bytes)
{
    memcpy(htc__neu_mem(space, off, bytes), src, bytes);
    if (space) htc__neu.now += HTC_DEV_W_DMA_SETUP + htc__ceil_div(HTC__CAST(double, bytes), HTC_DEV_W_DMA_BPC);
    else htc__neu.now += HTC_DEV_DMA_SETUP + htc__ceil_div(HTC__CAST(double, bytes), HTC_DEV_DMA_BPC);
}

static HTC__UNUSED int32_t htc__neu_rd32(uint32_t off)
{
    int32_t v;
    memcpy(&v, htc__neu_mem(0, off, 4), 4);
    return v;
}

/* the stored weight (w + 128) of output channel o, input channel i, tap s
   (ky * 3 + kx; 1x1: 0) from the bit planes at w (c input channels per
   output channel; depthwise: o == i, c the channel count) */
static HTC__UNUSED int32_t htc__neu_weight(const uint8_t *w, int32_t mode, int32_t c, int32_t o, int32_t i, int32_t s)
{
    int32_t b, u = 0;
    if (mode == HTC__NEU_1X1) {
        const uint8_t *row = w + (HTC__CAST(size_t, o) * htc__cdiv(c, 32) + i / 32) * 32;
        const int32_t m = i % 32;
        for (b = 0; b < 8; b++) {
            const int32_t bit = (m / 4) * 32 + b * 4 + m % 4;
            u |= ((row[bit >> 3] >> (bit & 7)) & 1) << b;
        }
    } else {
        const size_t grp = mode == HTC__NEU_DW ? HTC__CAST(size_t, i / 28) : HTC__CAST(size_t, o) * htc__cdiv(c, 28) + i / 28;
        const int32_t bit = s * 28 + i % 28;
        for (b = 0; b < 8; b++) {
            const uint8_t *row = w + (grp * 8 + b) * 32;
            u |= ((row[bit >> 3] >> (bit & 7)) & 1) << b;
        }
    }
    return u;
}

/* One job. Input tile [ih][iw][c] at in_off (L1); output [oy][ox][k] at
   out_off; output (0,0)'s first tap is input (y0, x0) (negative at a padded
   border: those taps read `pad`); weights at w_off (weight memory); scale
   [k] then bias [k] (int32) at sb_off (L1). */
static HTC__UNUSED void htc__neu_job(int32_t mode, uint32_t in_off, int32_t ih, int32_t iw, int32_t c, int32_t y0,
                                     int32_t x0, uint32_t out_off, int32_t k, int32_t oy, int32_t ox, uint32_t w_off,
                                     uint32_t sb_off, int32_t shift, int32_t pad, int32_t relu)
{
    const int8_t *in = HTC__CAST(const int8_t *, htc__neu_mem(0, in_off, HTC__CAST(uint64_t, ih) * iw * c));
    int8_t *out = HTC__CAST(int8_t *, htc__neu_mem(0, out_off, HTC__CAST(uint64_t, oy) * ox * k));
    const int32_t taps = mode == HTC__NEU_1X1 ? 1 : 3;
    const uint64_t wlen = mode == HTC__NEU_DW ? htc__neu_wbytes(mode, k) : HTC__CAST(uint64_t, k) * htc__neu_wbytes(mode, c);
    const uint8_t *w = HTC__CAST(const uint8_t *, htc__neu_mem(1, w_off, wlen));
    int32_t o, y, x, i, ky, kx;
    uint64_t steps;
    (void)htc__neu_mem(0, sb_off, 8u * HTC__CAST(uint64_t, k));
    if (mode == HTC__NEU_DW && c != k) HTC_DEVICE_FAULT("N-EUREKA depthwise: input and output channels differ");
    for (y = 0; y < oy; y++)
        for (x = 0; x < ox; x++)
            for (o = 0; o < k; o++) {
                uint32_t acc = 0;   /* int32, wrapping */
                int64_t v;
                int32_t r;
                for (ky = 0; ky < taps; ky++)
                    for (kx = 0; kx < taps; kx++) {
                        const int32_t iy = y0 + y + ky, ix = x0 + x + kx;
                        const int inside = iy >= 0 && iy < ih && ix >= 0 && ix < iw;
                        const int8_t *px = inside ? in + (HTC__CAST(size_t, iy) * iw + ix) * c : NULL;
                        const int32_t lo = mode == HTC__NEU_DW ? o : 0, hi = mode == HTC__NEU_DW ? o + 1 : c;
                        for (i = lo; i < hi; i++) {
                            const int32_t xv = px ? px[i] : pad;
                            acc += HTC__CAST(uint32_t, xv * (htc__neu_weight(w, mode, c, o, i, ky * taps + kx) - 128));
                        }
                    }
                /* y = acc * scale (wrapping), + bias (saturating), ReLU, >> shift, clip */
                r = HTC__CAST(int32_t, HTC__CAST(uint32_t, HTC__CAST(int32_t, acc)) *
                                           HTC__CAST(uint32_t, htc__neu_rd32(sb_off + 4u * HTC__CAST(uint32_t, o))));
                v = HTC__CAST(int64_t, r) + htc__neu_rd32(sb_off + 4u * HTC__CAST(uint32_t, k + o));
                v = v > 2147483647 ? 2147483647 : v < -2147483647 - 1 ? -2147483647 - 1 : v;
                if (relu && v < 0) v = 0;
                v >>= shift;
                out[(HTC__CAST(size_t, y) * ox + x) * k + o] = HTC__CAST(int8_t, v < -128 ? -128 : v > 127 ? 127 : v);
            }
    steps = HTC__CAST(uint64_t, htc__cdiv(oy, 6)) * htc__cdiv(ox, 6);
    if (mode == HTC__NEU_DW) steps *= HTC__CAST(uint64_t, htc__cdiv(k, 28)) * HTC_DEV_STEP_DW;
    else if (mode == HTC__NEU_1X1) steps *= HTC__CAST(uint64_t, htc__cdiv(k, 32)) * htc__cdiv(c, 32) * HTC_DEV_STEP_1X1;
    else steps *= HTC__CAST(uint64_t, htc__cdiv(k, 32)) * htc__cdiv(c, 28) * HTC_DEV_STEP_3X3;
    htc__neu.now += HTC_DEV_STARTUP + steps;
}

/* end of an offloaded layer */
static HTC__UNUSED void htc__dev_sync(int32_t layer)
{
    (void)layer;
    HTC_DEVICE_LAYER(layer, htc__neu.now - htc__neu.layer_start);
    htc__neu.layer_start = htc__neu.now;
}

/* a layer on the cluster: cycles from the target's per-kernel cost model,
   the work divided evenly over HTC_DEV_CORES cores plus one fork
   (HTC_DEV_FORK; the report's estimate takes the largest real share, so it
   may be higher where a split is uneven) */
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    if (layer >= 0) htc__neu.now += HTC_DEV_FORK;
    htc__neu.now += HTC__CAST(uint64_t, units * cycles_per_unit / HTC_DEV_CORES + 0.5);
    HTC_DEVICE_LAYER(layer, htc__neu.now - htc__neu.layer_start);
    htc__neu.layer_start = htc__neu.now;
}

static HTC__UNUSED void htc__dev_reset(void) { htc__neu.now = htc__neu.layer_start = 0; }
