/* neureka.c - device model of Siracusa's N-EUREKA engine (targets/siracusa.lua,
   -D engines=neureka|both) for the host virtual platform.

   Arithmetic (GVSoC's pulp/neureka model, checked byte for byte against
   it: tests/neureka/): per output pixel and channel, acc = sum x * (w_stored
   - 128), the input x the stored byte read as int8 (or as uint8 with
   HTC__NEU_UNSIGNED); taps outside the input read the padding value (the
   low byte of `pad`) above and left of the input but 0 below and right of
   it (GVSoC's model zero-fills those); y = acc * scale[k] + bias[k], taken
   modulo 2^32 as int32; y >> shift (arithmetic, no rounding term); clipped
   to int8, or with HTC__NEU_RELU to [0, 255] and stored as uint8. Scale
   and bias (int32 per output channel) are read from L1, the shift is per
   layer.

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
   HTC_DEV_STEP_3X3 or HTC_DEV_STEP_DW cycles, plus HTC_DEV_STARTUP per job
   (targets/siracusa.lua fits them to GVSoC's jobs). DMA: HTC_DEV_DMA_SETUP + bytes /
   HTC_DEV_DMA_BPC per transfer, sequential with the jobs. Every access is
   checked against the memory sizes (HTC_DEVICE_FAULT).

   With HTC_NEUREKA_REGS defined (examples/siracusa/siracusa.h does) the same
   functions drive the real engine through its register interface instead
   (the second half of this file): no vendor SDK. */

#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_W_SIZE) || !defined(HTC_DEV_STARTUP) || !defined(HTC_DEV_DMA_BPC) || \
    !defined(HTC_DEV_DMA_SETUP) || !defined(HTC_DEV_W_DMA_BPC) || !defined(HTC_DEV_W_DMA_SETUP) ||                    \
    !defined(HTC_DEV_STEP_1X1) || !defined(HTC_DEV_STEP_3X3) || !defined(HTC_DEV_STEP_DW) ||                       \
    !defined(HTC_DEV_CORES) || !defined(HTC_DEV_FORK)
#error "neureka.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif

enum { HTC__NEU_3X3 = 0, HTC__NEU_1X1 = 1, HTC__NEU_DW = 2 };
/* htc__neu_job flags */
enum { HTC__NEU_RELU = 1, HTC__NEU_UNSIGNED = 2 };

/* weight bytes of one output channel (dense) or of k channels (depthwise) */
static HTC__UNUSED uint32_t htc__neu_wbytes(int32_t mode, int32_t c)
{
    if (mode == HTC__NEU_1X1) return 32u * HTC__CAST(uint32_t, htc__cdiv(c, 32));
    return 256u * HTC__CAST(uint32_t, htc__cdiv(c, 28));
}

#ifndef HTC_NEUREKA_REGS

typedef struct {
    uint8_t act[HTC_DEV_ACT_SIZE];
    uint8_t w[HTC_DEV_W_SIZE];
    htc__devclock clk;
} htc__neu_state;

static htc__neu_state htc__neu;

static HTC__UNUSED void *htc__neu_mem(int space, uint32_t off, uint64_t len)
{
    if (space) return htc__devmem(htc__neu.w, HTC_DEV_W_SIZE, off, len, "N-EUREKA weight memory overflow");
    return htc__devmem(htc__neu.act, HTC_DEV_ACT_SIZE, off, len, "L1 overflow");
}

/* L2 region (NHWC strides in elements) -> L1 [h][w][c] */
static HTC__UNUSED void htc__neu_dma_in(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                        int32_t row_stride, int32_t pix_stride)
{
    htc__dma_gather(HTC__CAST(int8_t *, htc__neu_mem(0, off, HTC__CAST(uint64_t, h) * w * c)), src, h, w, c, row_stride,
                    pix_stride);
    htc__devclock_dma(&htc__neu.clk, HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* L1 [h][w][c] -> L2 */
static HTC__UNUSED void htc__neu_dma_out(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                         int32_t pix_stride)
{
    htc__dma_scatter(dst, HTC__CAST(const int8_t *, htc__neu_mem(0, off, HTC__CAST(uint64_t, h) * w * c)), h, w, c,
                     row_stride, pix_stride);
    htc__devclock_dma(&htc__neu.clk, HTC__CAST(double, h) * w * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* stride 2: L1 [2h-1][2w-1][c] (a stride-1 job's output) -> L2, every
   other row and pixel (one transfer per row) */
static HTC__UNUSED void htc__neu_dma_out2(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                          int32_t pix_stride)
{
    const int32_t W = 2 * w - 1;
    const int8_t *s = HTC__CAST(const int8_t *, htc__neu_mem(0, off, HTC__CAST(uint64_t, 2 * h - 1) * W * c));
    int32_t y, x;
    for (y = 0; y < h; y++) {
        for (x = 0; x < w; x++)
            memcpy(dst + HTC__CAST(size_t, y) * row_stride + HTC__CAST(size_t, x) * pix_stride,
                   s + (HTC__CAST(size_t, 2 * y) * W + HTC__CAST(size_t, 2 * x)) * c, HTC__CAST(size_t, c));
        htc__devclock_dma(&htc__neu.clk, HTC__CAST(double, w) * c, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
    }
}

/* bytes as they are into L1 (space 0: scale and bias) or the weight memory */
static HTC__UNUSED void htc__neu_load(int space, uint32_t off, const void *src, uint32_t bytes)
{
    memcpy(htc__neu_mem(space, off, bytes), src, bytes);
    if (space) htc__devclock_dma(&htc__neu.clk, bytes, HTC_DEV_W_DMA_BPC, HTC_DEV_W_DMA_SETUP);
    else htc__devclock_dma(&htc__neu.clk, bytes, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

/* a K tile's weights (bytes at src) for a job: into the weight memory at
   offset 0; returns their offset there */
static HTC__UNUSED uint32_t htc__neu_wload(const void *src, uint32_t bytes)
{
    htc__neu_load(1, 0, src, bytes);
    return 0;
}

/* uint32 -> int32 modulo 2^32, and an arithmetic right shift, without
   implementation-defined conversions */
static HTC__UNUSED int32_t htc__neu_wrap(uint32_t u)
{
    return u < 0x80000000u ? HTC__CAST(int32_t, u) : -HTC__CAST(int32_t, ~u) - 1;
}

static HTC__UNUSED int64_t htc__neu_sra(int32_t r, int32_t shift)
{
    return r >= 0 ? (r >> shift) : -((-(HTC__CAST(int64_t, r)) - 1) >> shift) - 1;
}

/* the unsigned mode's input: the stored int8 bytes of a tensor whose zero
   point is -128 become uint8 (x ^ 0x80 = x + 128) in place in L1, so the
   padding value 0 is the real zero (one cycle per word on the cluster) */
static HTC__UNUSED void htc__neu_flip(uint32_t off, uint32_t bytes)
{
    uint8_t *p = HTC__CAST(uint8_t *, htc__neu_mem(0, off, bytes));
    uint32_t i;
    for (i = 0; i < bytes; i++) p[i] ^= 0x80u;
    htc__neu.clk.now += (bytes + 3u) / 4u;
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
   border: those above and left read `pad`, those below and right 0);
   weights at w_off (weight memory); scale [k] then bias [k] (int32) at
   sb_off (L1); flags HTC__NEU_RELU, HTC__NEU_UNSIGNED. */
static HTC__UNUSED void htc__neu_job(int32_t mode, uint32_t in_off, int32_t ih, int32_t iw, int32_t c, int32_t y0,
                                     int32_t x0, uint32_t out_off, int32_t k, int32_t oy, int32_t ox, uint32_t w_off,
                                     uint32_t sb_off, int32_t shift, int32_t pad, int32_t flags)
{
    const int32_t relu = flags & HTC__NEU_RELU, uns = flags & HTC__NEU_UNSIGNED;
    const int32_t padv = uns ? (pad & 0xff) : HTC__CAST(int8_t, pad & 0xff);
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
                uint32_t acc = 0;   /* modulo 2^32 */
                int64_t v;
                int32_t r;
                for (ky = 0; ky < taps; ky++)
                    for (kx = 0; kx < taps; kx++) {
                        const int32_t iy = y0 + y + ky, ix = x0 + x + kx;
                        const int inside = iy >= 0 && iy < ih && ix >= 0 && ix < iw;
                        const int8_t *px = inside ? in + (HTC__CAST(size_t, iy) * iw + ix) * c : NULL;
                        const int32_t lo = mode == HTC__NEU_DW ? o : 0, hi = mode == HTC__NEU_DW ? o + 1 : c;
                        const int32_t pv = iy >= ih || ix >= iw ? 0 : padv;
                        for (i = lo; i < hi; i++) {
                            const int32_t xv = px ? (uns ? HTC__CAST(uint8_t, px[i]) : px[i]) : pv;
                            acc += HTC__CAST(uint32_t, xv * (htc__neu_weight(w, mode, c, o, i, ky * taps + kx) - 128));
                        }
                    }
                /* y = acc * scale + bias modulo 2^32, >> shift, clip (ReLU: [0, 255]) */
                r = htc__neu_wrap(acc * HTC__CAST(uint32_t, htc__neu_rd32(sb_off + 4u * HTC__CAST(uint32_t, o))) +
                                  HTC__CAST(uint32_t, htc__neu_rd32(sb_off + 4u * HTC__CAST(uint32_t, k + o))));
                v = htc__neu_sra(r, shift);
                if (relu) v = v < 0 ? 0 : v > 255 ? 255 : v;
                else v = v < -128 ? -128 : v > 127 ? 127 : v;
                out[(HTC__CAST(size_t, y) * ox + x) * k + o] = HTC__CAST(int8_t, HTC__CAST(uint8_t, v));
            }
    steps = HTC__CAST(uint64_t, htc__cdiv(oy, 6)) * htc__cdiv(ox, 6);
    if (mode == HTC__NEU_DW) steps *= HTC__CAST(uint64_t, htc__cdiv(k, 28)) * HTC_DEV_STEP_DW;
    else if (mode == HTC__NEU_1X1) steps *= HTC__CAST(uint64_t, htc__cdiv(k, 32)) * htc__cdiv(c, 32) * HTC_DEV_STEP_1X1;
    else steps *= HTC__CAST(uint64_t, htc__cdiv(k, 32)) * htc__cdiv(c, 28) * HTC_DEV_STEP_3X3;
    htc__neu.clk.now += HTC_DEV_STARTUP + steps;
}

/* end of an offloaded layer */
/* the engine on operands outside its tiles: never in the device model
   (its memories are its own; the caller copies through the tiles) */
static HTC__UNUSED int htc__neu_fc_direct(const int8_t *in, int8_t *out, int32_t c, int32_t k, const void *w,
                                          const int32_t *scale, const int32_t *bias, int32_t shift)
{
    (void)in, (void)out, (void)c, (void)k, (void)w, (void)scale, (void)bias, (void)shift;
    return 0;
}

static HTC__UNUSED void htc__dev_sync(int32_t layer) { htc__devclock_layer(&htc__neu.clk, layer); }

/* a layer on the cluster: cycles from the target's per-kernel cost model,
   the work divided evenly over HTC_DEV_CORES cores plus one fork
   (HTC_DEV_FORK; the report's estimate takes the largest real share, so it
   may be higher where a split is uneven) */
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    if (layer >= 0) htc__neu.clk.now += HTC_DEV_FORK;
    htc__devclock_cpu(&htc__neu.clk, layer, units * cycles_per_unit / HTC_DEV_CORES, 1.0);
}

static HTC__UNUSED void htc__dev_reset(void) { htc__neu.clk.now = htc__neu.clk.layer_start = 0; }

#else /* HTC_NEUREKA_REGS: the engine itself, through its register interface */

/* The binding (examples/siracusa/siracusa.h): HTC_NEU_L1 (uint8_t *, an L1
   buffer of HTC_NEU_L1_SIZE bytes, the engine's tiles: the templates'
   offsets are into it), HTC_NEU_WMEM (uint8_t *, the weight memory
   window, HTC_DEV_W_SIZE bytes), HTC_NEU_COPY(dst, src, row_bytes, rows,
   dst_stride, src_stride) (a blocking 2-D copy: the cluster DMA). The
   registers (GVSoC's pulp/neureka, pulp-nnx's register map): HWPE control
   at HTC_NEU_BASE (+0x00 trigger, +0x04 acquire, +0x0C status, +0x14 soft
   clear), 24 job registers from +0x20. */
#if !defined(HTC_NEU_L1) || !defined(HTC_NEU_L1_SIZE) || !defined(HTC_NEU_WMEM) || !defined(HTC_NEU_COPY)
#error "neureka.c with HTC_NEUREKA_REGS: define HTC_NEU_L1, HTC_NEU_L1_SIZE, HTC_NEU_WMEM and HTC_NEU_COPY"
#endif
#ifndef HTC_NEU_BASE
#define HTC_NEU_BASE 0x10201000u
#endif
#ifndef HTC_NEU_WMEM_BASE
#define HTC_NEU_WMEM_BASE 0x10400000u  /* the weight pointer counts from here */
#endif
#define HTC__NEU_REG(off) (*HTC__CAST(volatile uint32_t *, HTC__CAST(uintptr_t, HTC_NEU_BASE + (off))))

static HTC__UNUSED uint8_t *htc__neu_mem(int space, uint32_t off, uint64_t len)
{
    const uint64_t size = space ? HTC_DEV_W_SIZE : HTC_NEU_L1_SIZE;
    if (HTC__CAST(uint64_t, off) + len > size) HTC_DEVICE_FAULT(space ? "N-EUREKA weight memory overflow" : "L1 overflow");
    return (space ? HTC__CAST(uint8_t *, HTC_NEU_WMEM) : HTC__CAST(uint8_t *, HTC_NEU_L1)) + off;
}

/* L2 region (NHWC strides in elements) -> L1 [h][w][c] */
static HTC__UNUSED void htc__neu_dma_in(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                        int32_t row_stride, int32_t pix_stride)
{
    uint8_t *d = htc__neu_mem(0, off, HTC__CAST(uint64_t, h) * w * c);
    int32_t y;
    if (h <= 0 || w <= 0 || c <= 0) return;
    if (pix_stride == c) {
        HTC_NEU_COPY(d, src, HTC__CAST(uint32_t, w * c), HTC__CAST(uint32_t, h), HTC__CAST(uint32_t, w * c),
                     HTC__CAST(uint32_t, row_stride));
        return;
    }
    for (y = 0; y < h; y++)
        HTC_NEU_COPY(d + HTC__CAST(size_t, y) * w * c, src + HTC__CAST(size_t, y) * row_stride, HTC__CAST(uint32_t, c),
                     HTC__CAST(uint32_t, w), HTC__CAST(uint32_t, c), HTC__CAST(uint32_t, pix_stride));
}

/* L1 [h][w][c] -> L2 */
static HTC__UNUSED void htc__neu_dma_out(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                         int32_t pix_stride)
{
    const uint8_t *s = htc__neu_mem(0, off, HTC__CAST(uint64_t, h) * w * c);
    int32_t y;
    if (h <= 0 || w <= 0 || c <= 0) return;
    if (pix_stride == c) {
        HTC_NEU_COPY(dst, s, HTC__CAST(uint32_t, w * c), HTC__CAST(uint32_t, h), HTC__CAST(uint32_t, row_stride),
                     HTC__CAST(uint32_t, w * c));
        return;
    }
    for (y = 0; y < h; y++)
        HTC_NEU_COPY(dst + HTC__CAST(size_t, y) * row_stride, s + HTC__CAST(size_t, y) * w * c, HTC__CAST(uint32_t, c),
                     HTC__CAST(uint32_t, w), HTC__CAST(uint32_t, pix_stride), HTC__CAST(uint32_t, c));
}

/* stride 2: L1 [2h-1][2w-1][c] -> L2, every other row and pixel */
static HTC__UNUSED void htc__neu_dma_out2(int8_t *dst, uint32_t off, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                          int32_t pix_stride)
{
    const int32_t W = 2 * w - 1;
    const uint8_t *s = htc__neu_mem(0, off, HTC__CAST(uint64_t, 2 * h - 1) * W * c);
    int32_t y;
    if (h <= 0 || w <= 0 || c <= 0) return;
    for (y = 0; y < h; y++)
        HTC_NEU_COPY(dst + HTC__CAST(size_t, y) * row_stride, s + HTC__CAST(size_t, 2 * y) * W * c, HTC__CAST(uint32_t, c),
                     HTC__CAST(uint32_t, w), HTC__CAST(uint32_t, pix_stride), HTC__CAST(uint32_t, 2 * c));
}

/* bytes as they are into L1 (space 0: scale and bias) or the weight memory */
static HTC__UNUSED void htc__neu_load(int space, uint32_t off, const void *src, uint32_t bytes)
{
    if (bytes) HTC_NEU_COPY(htc__neu_mem(space, off, bytes), src, bytes, 1u, bytes, bytes);
}

/* a K tile's weights for a job: used in place when they are in the weight
   memory already (HTC_ENGINE_WEIGHTS placed them there), else copied to
   its offset 0; returns their offset there */
static HTC__UNUSED uint32_t htc__neu_wload(const void *src, uint32_t bytes)
{
    const uintptr_t p = HTC__CAST(uintptr_t, src), base = HTC__CAST(uintptr_t, HTC_NEU_WMEM);
    if (p >= base && p - base + bytes <= HTC__CAST(uintptr_t, HTC_DEV_W_SIZE)) return HTC__CAST(uint32_t, p - base);
    htc__neu_load(1, 0, src, bytes);
    return 0;
}

/* the unsigned mode's input in place: x ^ 0x80 (x + 128) by words */
static HTC__UNUSED void htc__neu_flip(uint32_t off, uint32_t bytes)
{
    uint8_t *p = htc__neu_mem(0, off, bytes);
    uint32_t i = 0;
    for (; i < bytes && (HTC__CAST(uintptr_t, p + i) & 3u); i++) p[i] ^= 0x80u;
    for (; i + 4u <= bytes; i += 4u) *HTC__CAST(uint32_t *, HTC__CAST(void *, p + i)) ^= 0x80808080u;
    for (; i < bytes; i++) p[i] ^= 0x80u;
}

/* One job on operands by address (in, out, scale and bias in L1, the
   weights in the weight memory): acquire a job slot, write the 24 job
   registers, trigger, and wait until the engine is idle. */
static HTC__UNUSED void htc__neu_job_at(int32_t mode, const uint8_t *in, int32_t ih, int32_t iw, int32_t c, int32_t y0,
                                        int32_t x0, uint8_t *out, int32_t k, int32_t oy, int32_t ox, const uint8_t *w,
                                        const int32_t *scale, const int32_t *bias, int32_t shift, int32_t pad,
                                        int32_t flags)
{
    const int32_t taps = mode == HTC__NEU_1X1 ? 1 : 3;
    const int32_t sub_k = mode == HTC__NEU_DW ? 28 : 32, sub_c = mode == HTC__NEU_1X1 ? 32 : 28;
    const int32_t pt = y0 < 0 ? -y0 : 0, pl = x0 < 0 ? -x0 : 0;
    const int32_t pb = y0 + oy + taps - 1 > ih ? y0 + oy + taps - 1 - ih : 0;
    const int32_t pr = x0 + ox + taps - 1 > iw ? x0 + ox + taps - 1 - iw : 0;
    const int32_t nki = HTC__CAST(int32_t, htc__cdiv(c, sub_c));
    const int32_t rko = (k - 1) % sub_k + 1, rki = (c - 1) % sub_c + 1, rho = (oy - 1) % 6 + 1, rwo = (ox - 1) % 6 + 1;
    uint32_t r[24];
    int32_t i;
    if (mode == HTC__NEU_DW && c != k) HTC_DEVICE_FAULT("N-EUREKA depthwise: input and output channels differ");
    if (pt > 2 || pl > 2 || pb > 2 || pr > 2) HTC_DEVICE_FAULT("N-EUREKA: padding > 2");
    r[0] = HTC__CAST(uint32_t, HTC__CAST(uintptr_t, w)) - HTC_NEU_WMEM_BASE;
    /* the input pointer as if the padding were stored (y0, x0 <= 0 there) */
    r[1] = HTC__CAST(uint32_t, HTC__CAST(uintptr_t, in) + HTC__CAST(uint32_t, (y0 * iw + x0) * c));
    r[2] = HTC__CAST(uint32_t, HTC__CAST(uintptr_t, out));
    r[3] = HTC__CAST(uint32_t, HTC__CAST(uintptr_t, scale));
    r[4] = 0;
    r[5] = HTC__CAST(uint32_t, HTC__CAST(uintptr_t, bias));
    r[6] = HTC__CAST(uint32_t, c);                      /* input: bytes per pixel, per row */
    r[7] = HTC__CAST(uint32_t, iw * c);
    r[8] = 0;
    r[9] = 32;                                          /* output: per word, pixel, row */
    r[10] = HTC__CAST(uint32_t, k);
    r[11] = HTC__CAST(uint32_t, ox * k);
    r[12] = 32;                                         /* weights: per word, output channel */
    r[13] = mode == HTC__NEU_1X1 ? 32u * HTC__CAST(uint32_t, nki) : mode == HTC__NEU_3X3 ? 256u * HTC__CAST(uint32_t, nki) : 0u;
    r[14] = 0;
    r[15] = HTC__CAST(uint32_t, rko) << 16 | HTC__CAST(uint32_t, rki);
    r[16] = HTC__CAST(uint32_t, rho) << 16 | HTC__CAST(uint32_t, rwo);
    r[17] = HTC__CAST(uint32_t, (taps == 1 ? rho : rho + 2) - pb) << 16 | HTC__CAST(uint32_t, (taps == 1 ? rwo : rwo + 2) - pr);
    r[18] = HTC__CAST(uint32_t, htc__cdiv(k, sub_k)) << 16 | HTC__CAST(uint32_t, nki);
    r[19] = HTC__CAST(uint32_t, htc__cdiv(oy, 6)) << 16 | HTC__CAST(uint32_t, htc__cdiv(ox, 6));
    r[20] = HTC__CAST(uint32_t, pt) << 28 | HTC__CAST(uint32_t, pr) << 24 | HTC__CAST(uint32_t, pb) << 20 |
            HTC__CAST(uint32_t, pl) << 16 | (HTC__CAST(uint32_t, pad) & 0xffu);
    r[21] = HTC__CAST(uint32_t, -128);                  /* weight offset: stored w + 128 */
    r[22] = 0;
    /* CONF0: signed input, bias, ReLU or not, 8-bit output, shift, 32-bit
       scale, weights from the weight memory, mode, norm-quant, 8-bit weights */
    r[23] = (flags & HTC__NEU_UNSIGNED ? 0u : 1u << 26) | 1u << 25 | (flags & HTC__NEU_RELU ? 0u : 1u << 23) |
            HTC__CAST(uint32_t, shift & 31) << 16 | 1u << 15 | 2u << 12 | 1u << 9 |
            (mode == HTC__NEU_1X1 ? 2u : mode == HTC__NEU_DW ? 1u : 0u) << 5 | 1u << 4 | 7u;
    while (HTC__NEU_REG(0x04) >= 256u) {
    }
    for (i = 0; i < 24; i++) HTC__NEU_REG(0x20 + 4 * i) = r[i];
    HTC__NEU_REG(0x00) = 0;
    while (HTC__NEU_REG(0x0C) != 0u) {
    }
}

/* One job, as htc__neu_job of the device model: its operands at offsets
   into the engine's L1 tiles (scale [k] then bias [k] at sb_off) and the
   weight memory */
static HTC__UNUSED void htc__neu_job(int32_t mode, uint32_t in_off, int32_t ih, int32_t iw, int32_t c, int32_t y0,
                                     int32_t x0, uint32_t out_off, int32_t k, int32_t oy, int32_t ox, uint32_t w_off,
                                     uint32_t sb_off, int32_t shift, int32_t pad, int32_t flags)
{
    const uint64_t wlen = mode == HTC__NEU_DW ? htc__neu_wbytes(mode, k) : HTC__CAST(uint64_t, k) * htc__neu_wbytes(mode, c);
    const int32_t *sb = HTC__CAST(const int32_t *, HTC__CAST(void *, htc__neu_mem(0, sb_off, 8u * HTC__CAST(uint64_t, k))));
    htc__neu_job_at(mode, htc__neu_mem(0, in_off, HTC__CAST(uint64_t, ih) * iw * c), ih, iw, c, y0, x0,
                    htc__neu_mem(0, out_off, HTC__CAST(uint64_t, oy) * ox * k), k, oy, ox, htc__neu_mem(1, w_off, wlen), sb,
                    sb + k, shift, pad, flags);
}

/* A linear layer (one pixel, c -> k) straight on its operands, without
   copies, when the engine reaches every one: input, output, scale and
   bias in the cluster's L1 (HTC_NEU_IN_L1, the binding's test; the arena
   and the constants there), the weights in the weight memory, the input
   signed and not overlapping the output. Returns 0 when it cannot (the
   caller then copies through the engine's tiles). */
static HTC__UNUSED int htc__neu_fc_direct(const int8_t *in, int8_t *out, int32_t c, int32_t k, const void *w,
                                          const int32_t *scale, const int32_t *bias, int32_t shift)
{
#ifdef HTC_NEU_IN_L1
    const uintptr_t pw = HTC__CAST(uintptr_t, w), base = HTC__CAST(uintptr_t, HTC_NEU_WMEM);
    const uintptr_t pi = HTC__CAST(uintptr_t, in), po = HTC__CAST(uintptr_t, out);
    const uint32_t wlen = HTC__CAST(uint32_t, k) * htc__neu_wbytes(HTC__NEU_1X1, c);
    if (!HTC_NEU_IN_L1(in, c) || !HTC_NEU_IN_L1(out, k) || !HTC_NEU_IN_L1(scale, 4 * k) || !HTC_NEU_IN_L1(bias, 4 * k))
        return 0;
    if (pw < base || pw - base + wlen > HTC__CAST(uintptr_t, HTC_DEV_W_SIZE)) return 0;
    if (pi < po + HTC__CAST(uintptr_t, k) && po < pi + HTC__CAST(uintptr_t, c)) return 0;
    htc__neu_job_at(HTC__NEU_1X1, HTC__CAST(const uint8_t *, in), 1, 1, c, 0, 0, HTC__CAST(uint8_t *, out), k, 1, 1,
                    HTC__CAST(const uint8_t *, w), scale, bias, shift, 0, 0);
    return 1;
#else
    (void)in, (void)out, (void)c, (void)k, (void)w, (void)scale, (void)bias, (void)shift;
    return 0;
#endif
}

/* the device model's accounting hooks: the cycles are the chip's own */
static HTC__UNUSED void htc__dev_sync(int32_t layer) { (void)layer; }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    (void)layer, (void)units, (void)cycles_per_unit;
}
static HTC__UNUSED void htc__dev_reset(void) { HTC__NEU_REG(0x14) = 0; }
#endif /* HTC_NEUREKA_REGS */

/* L2 region -> L1 [h + pb][w + pr][c]: the pb rows below and the pr pixels
   right of the region set to v. The padding the engine fills with 0 below
   and right of its input, stored instead: a padded layer with a zero point
   runs in the signed mode with v = its zero point (above / left: the job's
   padding value) */
/* n bytes at d set to the low byte of v, a word at a time once aligned
   (picolibc's memset for RV32 stores byte by byte, ~7 cycles a byte on
   GVSoC's cluster core) */
static HTC__UNUSED void htc__neu_fill(uint8_t *d, size_t n, int32_t v)
{
    const uint8_t b = HTC__CAST(uint8_t, HTC__CAST(uint32_t, v) & 0xffu);
    const uint32_t w = 0x01010101u * b;
    for (; n > 0 && (HTC__ADDR(d) & 3u) != 0; n--) *d++ = b;
    for (; n >= 4; n -= 4, d += 4) {
#if defined(__riscv) && (defined(__GNUC__) || defined(__clang__))
        __asm__ volatile("sw %1, 0(%0)" : : "r"(d), "r"(w) : "memory");
#else
        memcpy(d, &w, 4);
#endif
    }
    for (; n > 0; n--) *d++ = b;
}

static HTC__UNUSED void htc__neu_dma_in_pad(uint32_t off, const int8_t *src, int32_t h, int32_t w, int32_t c,
                                            int32_t row_stride, int32_t pix_stride, int32_t pb, int32_t pr, int32_t v)
{
    const int32_t W = w + pr;
    uint8_t *d = HTC__CAST(uint8_t *, htc__neu_mem(0, off, HTC__CAST(uint64_t, h + pb) * W * c));
    int32_t y;
    if (pr == 0) {
        htc__neu_dma_in(off, src, h, w, c, row_stride, pix_stride);
#ifdef HTC_NEUREKA_REGS
    } else if (pix_stride == c && h > 1 && pr * c <= row_stride) {
        /* two copies instead of one a row (each a blocking DMA, ~270 cycles
           L1 to L1): rows 0..h-2 as w + pr pixels, their last pr read from
           the source's next row (inside the tensor: pr * c <= row_stride)
           and overwritten by the fill below; the last row as w pixels */
        HTC_NEU_COPY(d, src, HTC__CAST(uint32_t, W * c), HTC__CAST(uint32_t, h - 1), HTC__CAST(uint32_t, W * c),
                     HTC__CAST(uint32_t, row_stride));
        htc__neu_dma_in(off + HTC__CAST(uint32_t, (h - 1) * W * c), src + HTC__CAST(size_t, h - 1) * row_stride, 1, w, c,
                        row_stride, pix_stride);
        for (y = 0; y < h; y++) htc__neu_fill(d + HTC__CAST(size_t, y * W + w) * c, HTC__CAST(size_t, pr * c), v);
#endif
    } else {
        for (y = 0; y < h; y++) {
            htc__neu_dma_in(off + HTC__CAST(uint32_t, y * W * c), src + HTC__CAST(size_t, y) * row_stride, 1, w, c, row_stride,
                            pix_stride);
            htc__neu_fill(d + HTC__CAST(size_t, y * W + w) * c, HTC__CAST(size_t, pr * c), v);
        }
    }
    if (pb > 0) htc__neu_fill(d + HTC__CAST(size_t, h) * W * c, HTC__CAST(size_t, pb) * W * c, v);
}
