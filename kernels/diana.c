/* diana.c - device model of the DIANA digital and analog accelerators for the host
   virtual platform (HTVM paper, ISSCC'22 SoC). The generated code calls
   these functions; on silicon a driver implements the same names.

   Hardware: 16x16 PEs, 256 int8 MACs per cycle. Conv2D unrolls K on the
   rows and OX on the columns (each PE accumulates over C, ky, kx); FC
   unrolls C x K; depthwise runs on one PE row at 3.75 MACs per cycle;
   element-wise add 16 lanes; average pool 16 channel lanes. Requantisation at the output: right shift
   with round half to even, saturation (ReLU through the clamp bounds).
   Activations live in L1 (shared, C-y-x layout), weights and biases in
   the weight memory; both are filled by DMA from L2. Every access is
   checked against the declared memory sizes: an overflow aborts.
   Cycles follow a timeline: the DMA engine and the PE array each run one
   job at a time; a job starts when its engine is free, its inputs are
   written and the buffer it writes has been read. The host only issues. */

/* Every hardware constant comes from the target file (targets/diana.lua is
   their one source): htc writes each engine's constants prefixed with its
   name before pasting this file (HTC_DEV_<ENGINE>_<X>, so a header using
   both cores simulates each with its own), and HTC_DEV_<ENGINE>_USED for
   the engines that run a layer. The digital core's:
   HTC_DEV_DIGITAL_ACT_SIZE, _W_SIZE    L1 and weight memory (WD) bytes
   HTC_DEV_DIGITAL_ROWS, _COLS          the PE array (array = { rows, cols })
   HTC_DEV_DIGITAL_STARTUP              cycles to program and start the array
   HTC_DEV_DIGITAL_DMA_BPC, _SETUP      DMA L2 <-> L1 (memory.L1.dma)
   HTC_DEV_DIGITAL_W_DMA_BPC, _SETUP    DMA L2 -> weight memory (memory.WD.dma)
   HTC_DEV_DIGITAL_DW_MACS_X4           depthwise MACs per cycle, times 4 (device table)
   HTC_DEV_DIGITAL_ADD_LANES            element-wise and pool lanes (device table)
   HTC_DEV_DIGITAL_ISSUE                host cycles to issue one job (device table) */
/* A target that reuses this model for one engine under another name (e.g.
   a test's "acc"): the digital core's constants are that engine's, the
   unprefixed ones htc writes for the first engine that runs a layer. */
#ifndef HTC_DEV_DIGITAL_ACT_SIZE
#ifdef HTC_DEV_ACT_SIZE
#define HTC_DEV_DIGITAL_ACT_SIZE HTC_DEV_ACT_SIZE
#endif
#ifdef HTC_DEV_W_SIZE
#define HTC_DEV_DIGITAL_W_SIZE HTC_DEV_W_SIZE
#endif
#ifdef HTC_DEV_ROWS
#define HTC_DEV_DIGITAL_ROWS HTC_DEV_ROWS
#endif
#ifdef HTC_DEV_COLS
#define HTC_DEV_DIGITAL_COLS HTC_DEV_COLS
#endif
#ifdef HTC_DEV_STARTUP
#define HTC_DEV_DIGITAL_STARTUP HTC_DEV_STARTUP
#endif
#ifdef HTC_DEV_DMA_BPC
#define HTC_DEV_DIGITAL_DMA_BPC HTC_DEV_DMA_BPC
#endif
#ifdef HTC_DEV_DMA_SETUP
#define HTC_DEV_DIGITAL_DMA_SETUP HTC_DEV_DMA_SETUP
#endif
#ifdef HTC_DEV_W_DMA_BPC
#define HTC_DEV_DIGITAL_W_DMA_BPC HTC_DEV_W_DMA_BPC
#endif
#ifdef HTC_DEV_W_DMA_SETUP
#define HTC_DEV_DIGITAL_W_DMA_SETUP HTC_DEV_W_DMA_SETUP
#endif
#ifdef HTC_DEV_DW_MACS_X4
#define HTC_DEV_DIGITAL_DW_MACS_X4 HTC_DEV_DW_MACS_X4
#endif
#ifdef HTC_DEV_ADD_LANES
#define HTC_DEV_DIGITAL_ADD_LANES HTC_DEV_ADD_LANES
#endif
#ifdef HTC_DEV_ISSUE
#define HTC_DEV_DIGITAL_ISSUE HTC_DEV_ISSUE
#endif
#endif
#if !defined(HTC_DEV_DIGITAL_ACT_SIZE) || !defined(HTC_DEV_DIGITAL_W_SIZE) || !defined(HTC_DEV_DIGITAL_ROWS) ||   \
    !defined(HTC_DEV_DIGITAL_COLS) || !defined(HTC_DEV_DIGITAL_STARTUP) || !defined(HTC_DEV_DIGITAL_DMA_BPC) ||   \
    !defined(HTC_DEV_DIGITAL_DMA_SETUP) || !defined(HTC_DEV_DIGITAL_W_DMA_BPC) ||                                 \
    !defined(HTC_DEV_DIGITAL_W_DMA_SETUP) || !defined(HTC_DEV_DIGITAL_DW_MACS_X4) ||                              \
    !defined(HTC_DEV_DIGITAL_ADD_LANES) || !defined(HTC_DEV_DIGITAL_ISSUE)
#error "diana.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif
/* HTC_DEVICE_TRIGGERED(cycles): the cycles of one accelerator job from its
   trigger to its completion -- a compute job or a weight load, what the HTVM
   paper's "peak" times (weights included, "orchestrated in the same
   instruction"); not the activation DMA, not the host's issuing */
#ifndef HTC_DEVICE_TRIGGERED
#define HTC_DEVICE_TRIGGERED(cycles) ((void)0)
#endif

typedef struct {
    int space;                          /* 0 act, 1 weights */
    uint32_t off;
    uint64_t w_end, r_end;              /* last write / read finishes */
} htc__dev_slot;

/* The analog core (modelled when its engine runs a layer): the same
   constants with HTC_DEV_ANALOG_: ROWS x COLS ternary cells, W_SIZE cells
   of weight memory (WA: one byte per cell here, 2 bits on silicon; then the
   int32 biases), W_DMA_BPC cells per DMA cycle, PROG_ROWS array rows
   written per cycle, STARTUP cycles to start it. It shares L1 with the
   digital core. */
#ifdef HTC_DEV_ANALOG_USED
#if !defined(HTC_DEV_ANALOG_ROWS) || !defined(HTC_DEV_ANALOG_COLS) || !defined(HTC_DEV_ANALOG_W_SIZE) ||           \
    !defined(HTC_DEV_ANALOG_W_DMA_BPC) || !defined(HTC_DEV_ANALOG_W_DMA_SETUP) || !defined(HTC_DEV_ANALOG_STARTUP) || \
    !defined(HTC_DEV_ANALOG_PROG_ROWS) || HTC_DEV_ANALOG_ACT_SIZE != HTC_DEV_DIGITAL_ACT_SIZE
#error "diana.c: the analog core's HTC_DEV_ANALOG_* constants come from the target file (htc writes them)"
#endif
#define HTC__DEV_AW_SIZE HTC_DEV_ANALOG_W_SIZE
#else
#define HTC__DEV_AW_SIZE 4
#endif

typedef struct {
    int8_t act[HTC_DEV_DIGITAL_ACT_SIZE];
    int8_t w[HTC_DEV_DIGITAL_W_SIZE];
    int8_t aw[HTC__DEV_AW_SIZE];      /* the analog core's weight memory */
    htc__devclock clk;                /* the host's clock */
    uint64_t dma_free, pe_free, ana_free;
    htc__dev_slot slot[32];
    int nslot;
} htc__dev_state;

static htc__dev_state htc__dev;

static HTC__UNUSED uint64_t htc__dev_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

static HTC__UNUSED int8_t *htc__dev_mem(int space, uint32_t off, uint64_t len)
{
    uint64_t size = space == 2 ? HTC__DEV_AW_SIZE : space ? HTC_DEV_DIGITAL_W_SIZE : HTC_DEV_DIGITAL_ACT_SIZE;
    if ((uint64_t)off + len > size)
        HTC_DEVICE_FAULT(space == 2 ? "analog weight memory overflow" : space ? "weight memory overflow" : "L1 overflow");
    return (space == 2 ? htc__dev.aw : space ? htc__dev.w : htc__dev.act) + off;
}

static HTC__UNUSED htc__dev_slot *htc__dev_slot_of(int space, uint32_t off)
{
    int i;
    for (i = 0; i < htc__dev.nslot; i++)
        if (htc__dev.slot[i].space == space && htc__dev.slot[i].off == off) return &htc__dev.slot[i];
    if (htc__dev.nslot == 32) HTC_DEVICE_FAULT("too many buffers");
    htc__dev.slot[htc__dev.nslot].space = space;
    htc__dev.slot[htc__dev.nslot].off = off;
    htc__dev.slot[htc__dev.nslot].w_end = htc__dev.slot[htc__dev.nslot].r_end = 0;
    return &htc__dev.slot[htc__dev.nslot++];
}

/* one job on an engine: reads r0/r1 (may be NULL), writes w0 */
static HTC__UNUSED void htc__dev_job(uint64_t *engine_free, htc__dev_slot *r0, htc__dev_slot *r1, htc__dev_slot *r2,
                                     htc__dev_slot *w0, uint64_t cycles)
{
    uint64_t start = htc__dev_max(htc__dev.clk.now, *engine_free);
    if (r0) start = htc__dev_max(start, r0->w_end);
    if (r1) start = htc__dev_max(start, r1->w_end);
    if (r2) start = htc__dev_max(start, r2->w_end);
    if (w0) start = htc__dev_max(start, htc__dev_max(w0->r_end, w0->w_end));
    *engine_free = start + cycles;
    if (r0) r0->r_end = htc__dev_max(r0->r_end, *engine_free);
    if (r1) r1->r_end = htc__dev_max(r1->r_end, *engine_free);
    if (r2) r2->r_end = htc__dev_max(r2->r_end, *engine_free);
    if (w0) w0->w_end = *engine_free;
    htc__dev.clk.now += HTC_DEV_DIGITAL_ISSUE;
}

static HTC__UNUSED uint64_t htc__dev_dma_cycles(uint64_t bytes)
{
    return HTC_DEV_DIGITAL_DMA_SETUP + htc__ceil_div(HTC__CAST(double, bytes), HTC_DEV_DIGITAL_DMA_BPC);
}

/* L2 (NHWC, pixel stride = channels of the tensor) -> L1 [c][h][w] */
static HTC__UNUSED void htc__dev_dma_in(uint32_t l1, const int8_t *src, int32_t c, int32_t h, int32_t w,
                                        int32_t row_stride, int32_t pix_stride)
{
    int8_t *d = htc__dev_mem(0, l1, (uint64_t)c * h * w);
    int32_t i, y, x;
    for (i = 0; i < c; i++)
        for (y = 0; y < h; y++)
            for (x = 0; x < w; x++) d[((size_t)i * h + y) * w + x] = src[(size_t)y * row_stride + (size_t)x * pix_stride + i];
    htc__dev_job(&htc__dev.dma_free, 0, 0, 0, htc__dev_slot_of(0, l1), htc__dev_dma_cycles((uint64_t)c * h * w));
}

/* L1 [c][h][w] -> L2 NHWC */
static HTC__UNUSED void htc__dev_dma_out(int8_t *dst, uint32_t l1, int32_t c, int32_t h, int32_t w,
                                         int32_t row_stride, int32_t pix_stride)
{
    const int8_t *s = htc__dev_mem(0, l1, (uint64_t)c * h * w);
    int32_t i, y, x;
    for (i = 0; i < c; i++)
        for (y = 0; y < h; y++)
            for (x = 0; x < w; x++) dst[(size_t)y * row_stride + (size_t)x * pix_stride + i] = s[((size_t)i * h + y) * w + x];
    htc__dev_job(&htc__dev.dma_free, htc__dev_slot_of(0, l1), 0, 0, 0, htc__dev_dma_cycles((uint64_t)c * h * w));
}

/* L2 -> weight memory, bytes as they are (stored in the engine's layout) */
static HTC__UNUSED void htc__dev_dma_w(uint32_t off, const void *src, uint32_t bytes)
{
    const uint64_t cyc = HTC_DEV_DIGITAL_W_DMA_SETUP + htc__ceil_div(HTC__CAST(double, bytes), HTC_DEV_DIGITAL_W_DMA_BPC);
    memcpy(htc__dev_mem(1, off, bytes), src, bytes);
    HTC_DEVICE_TRIGGERED(cyc);
    htc__dev_job(&htc__dev.dma_free, 0, 0, 0, htc__dev_slot_of(1, off), cyc);
}

/* The requantization unit: a right shift by `shift`, rounded half to even
   (round 0: a float scale 2^-shift as onnxruntime applies it) or as TFLite
   rounds a multiplier of 2^30 (round 1: gemmlowp's rounding doubling high
   multiply, floor((acc + 1) / 2), then a rounding divide by 2^(shift - 1),
   half away from zero), + zero point, clamped. */
static HTC__UNUSED int32_t htc__dev_requant(int32_t acc, int32_t shift, int32_t round, int32_t zp, int32_t qmin,
                                            int32_t qmax)
{
    int32_t v;
    if (round) v = htc__rdivpot(HTC__CAST(int32_t, (HTC__CAST(int64_t, acc) + 1) >> 1), shift - 1);
    else if (shift == 0) v = acc;
    else {
        const int32_t half = HTC__CAST(int32_t, 1) << (shift - 1), mask = (HTC__CAST(int32_t, 1) << shift) - 1;
        const int32_t q = acc >> shift, r = acc & mask;     /* floor division, remainder >= 0 */
        v = q + (r > half || (r == half && (q & 1)));       /* round half to even */
    }
    v += zp;
    return v < qmin ? qmin : (v > qmax ? qmax : v);
}

static HTC__UNUSED int32_t htc__dev_rd32_in(int space, uint32_t off)
{
    int32_t v;
    memcpy(&v, htc__dev_mem(space, off, 4), 4);
    return v;
}

static HTC__UNUSED int32_t htc__dev_rd32(uint32_t off)
{
    int32_t v;
    memcpy(&v, htc__dev_mem(1, off, 4), 4);
    return v;
}

/* Conv2D / depthwise on one tile. Input tile [c][ih][iw] at l1_in; output
   [k][oy][ox] at l1_out; output (0,0)'s first tap is input (y0, x0) of the
   tile (negative at a padded border: taps outside the tile read the zero
   point and contribute nothing). Weights [k][c][kh][kw] (dw: [k][kh][kw])
   at w_off, biases int32 [k] at b_off. shifts: per output channel of this
   tile (configuration registers). */
static HTC__UNUSED void htc__dev_conv(uint32_t l1_in, int32_t c, int32_t ih, int32_t iw, int32_t y0, int32_t x0,
                                      uint32_t l1_out, int32_t k, int32_t oy, int32_t ox, int32_t kh, int32_t kw,
                                      int32_t sh, int32_t sw, int32_t dw, uint32_t w_off, uint32_t b_off,
                                      const int32_t *shifts, int32_t per_channel, int32_t round, int32_t in_zp,
                                      int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__dev_mem(0, l1_in, (uint64_t)c * ih * iw);
    int8_t *out = htc__dev_mem(0, l1_out, (uint64_t)k * oy * ox);
    const int32_t wc = dw ? 1 : c;
    const int8_t *w = htc__dev_mem(1, w_off, (uint64_t)k * wc * kh * kw);
    int32_t o, y, x, i, ky, kx;
    uint64_t cyc;
    for (o = 0; o < k; o++)
        for (y = 0; y < oy; y++)
            for (x = 0; x < ox; x++) {
                int32_t acc = htc__dev_rd32(b_off + 4u * (uint32_t)o);
                for (i = 0; i < wc; i++) {
                    const int32_t ci = dw ? o : i;
                    for (ky = 0; ky < kh; ky++) {
                        const int32_t iy = y0 + y * sh + ky;
                        if (iy < 0 || iy >= ih) continue;
                        for (kx = 0; kx < kw; kx++) {
                            const int32_t ix = x0 + x * sw + kx;
                            if (ix < 0 || ix >= iw) continue;
                            acc += (in[((size_t)ci * ih + iy) * iw + ix] - in_zp) * w[(((size_t)o * wc + i) * kh + ky) * kw + kx];
                        }
                    }
                }
                out[((size_t)o * oy + y) * ox + x] =
                    HTC__CAST(int8_t, htc__dev_requant(acc, shifts[per_channel ? o : 0], round, out_zp, qmin, qmax));
            }
    if (dw) cyc = ((uint64_t)k * oy * ox * kh * kw * 4 + HTC_DEV_DIGITAL_DW_MACS_X4 - 1) / HTC_DEV_DIGITAL_DW_MACS_X4;
    else cyc = (uint64_t)oy * ((ox + HTC_DEV_DIGITAL_COLS - 1) / HTC_DEV_DIGITAL_COLS) * ((k + HTC_DEV_DIGITAL_ROWS - 1) / HTC_DEV_DIGITAL_ROWS) * c * kh * kw;
    HTC_DEVICE_TRIGGERED(HTC_DEV_DIGITAL_STARTUP + cyc);
    htc__dev_job(&htc__dev.pe_free, htc__dev_slot_of(0, l1_in), htc__dev_slot_of(1, w_off), 0,
                 htc__dev_slot_of(0, l1_out), HTC_DEV_DIGITAL_STARTUP + cyc);
}

/* FC: out[k] = requant(bias[k] + sum_c (in[c] - in_zp) w[k][c]) */
static HTC__UNUSED void htc__dev_fc(uint32_t l1_in, int32_t c, uint32_t l1_out, int32_t k, uint32_t w_off, uint32_t b_off,
                                    const int32_t *shifts, int32_t per_channel, int32_t round, int32_t in_zp,
                                    int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__dev_mem(0, l1_in, (uint64_t)c);
    int8_t *out = htc__dev_mem(0, l1_out, (uint64_t)k);
    const int8_t *w = htc__dev_mem(1, w_off, (uint64_t)k * c);
    int32_t o, i;
    for (o = 0; o < k; o++) {
        int32_t acc = htc__dev_rd32(b_off + 4u * (uint32_t)o);
        for (i = 0; i < c; i++) acc += (in[i] - in_zp) * w[(size_t)o * c + i];
        out[o] = HTC__CAST(int8_t, htc__dev_requant(acc, shifts[per_channel ? o : 0], round, out_zp, qmin, qmax));
    }
    {
        const uint64_t cyc = HTC_DEV_DIGITAL_STARTUP + (uint64_t)((c + HTC_DEV_DIGITAL_ROWS - 1) / HTC_DEV_DIGITAL_ROWS) *
                             ((k + HTC_DEV_DIGITAL_COLS - 1) / HTC_DEV_DIGITAL_COLS);
        HTC_DEVICE_TRIGGERED(cyc);
        htc__dev_job(&htc__dev.pe_free, htc__dev_slot_of(0, l1_in), htc__dev_slot_of(1, w_off), 0, htc__dev_slot_of(0, l1_out),
                     cyc);
    }
}

/* add: out = clamp(rne((a + a_off) ra + (b + b_off) rb + fix, m), qmin, qmax) - out_off */
static HTC__UNUSED void htc__dev_add(uint32_t l1_a, uint32_t l1_b, uint32_t l1_out, int32_t n, int32_t a_off, int32_t b_off,
                                     int32_t ra, int32_t rb, int32_t fix, int32_t m, int32_t qmin, int32_t qmax, int32_t out_off)
{
    const int8_t *a = htc__dev_mem(0, l1_a, (uint64_t)n), *b = htc__dev_mem(0, l1_b, (uint64_t)n);
    int8_t *o = htc__dev_mem(0, l1_out, (uint64_t)n);
    int32_t i;
    for (i = 0; i < n; i++) {
        const int32_t v = (a[i] + a_off) * ra + (b[i] + b_off) * rb + fix;
        o[i] = HTC__CAST(int8_t, htc__dev_requant(v, m, 0, 0, qmin, qmax) - out_off);
    }
    HTC_DEVICE_TRIGGERED(HTC_DEV_DIGITAL_STARTUP + (uint64_t)(n + HTC_DEV_DIGITAL_ADD_LANES - 1) / HTC_DEV_DIGITAL_ADD_LANES);
    htc__dev_job(&htc__dev.pe_free, htc__dev_slot_of(0, l1_a), htc__dev_slot_of(0, l1_b), 0, htc__dev_slot_of(0, l1_out),
                 HTC_DEV_DIGITAL_STARTUP + (uint64_t)(n + HTC_DEV_DIGITAL_ADD_LANES - 1) / HTC_DEV_DIGITAL_ADD_LANES);
}

/* little-endian configuration word of the weight memory */
static HTC__UNUSED uint32_t htc__dev_cfg(uint32_t off)
{
    const uint8_t *b = HTC__CAST(const uint8_t *, HTC__CAST(const void *, htc__dev_mem(1, off, 4)));
    return HTC__CAST(uint32_t, b[0]) | HTC__CAST(uint32_t, b[1]) << 8 | HTC__CAST(uint32_t, b[2]) << 16 |
           HTC__CAST(uint32_t, b[3]) << 24;
}

/* average pool over the whole window of one tile: input [c][h][w] at l1_in,
   output [c] at l1_out; per channel acc = bias + sum of the window, then the
   float requantisation of onnxruntime's QLinearGlobalAveragePool (the CPU
   kernel htc__qgap_s8: float(acc) * scale, clamp, round half to even, + zp;
   a shift when the scale is a power of two). Configuration at cfg_off:
   bias, out_zp, qmin, qmax, scale bits. 16 lanes (channels), one window
   element per cycle. */
static HTC__UNUSED void htc__dev_pool(uint32_t l1_in, int32_t c, int32_t h, int32_t w, uint32_t l1_out, uint32_t cfg_off)
{
    const int8_t *in = htc__dev_mem(0, l1_in, (uint64_t)c * h * w);
    int8_t *out = htc__dev_mem(0, l1_out, (uint64_t)c);
    const int32_t bias = HTC__CAST(int32_t, htc__dev_cfg(cfg_off)), out_zp = HTC__CAST(int32_t, htc__dev_cfg(cfg_off + 4));
    const int32_t qmin = HTC__CAST(int32_t, htc__dev_cfg(cfg_off + 8)), qmax = HTC__CAST(int32_t, htc__dev_cfg(cfg_off + 12));
    const uint32_t sbits = htc__dev_cfg(cfg_off + 16);
    const float lo = HTC__CAST(float, qmin - out_zp), hi = HTC__CAST(float, qmax - out_zp);
    const int32_t n = h * w;
    float scale;
    int32_t i, j;
    memcpy(&scale, &sbits, 4);
    for (i = 0; i < c; i++) {
        int32_t acc = bias;
        for (j = 0; j < n; j++) acc += in[(size_t)i * n + j];
        out[i] = HTC__CAST(int8_t, htc__rq_float(acc, scale, lo, hi, out_zp));
    }
    HTC_DEVICE_TRIGGERED(HTC_DEV_DIGITAL_STARTUP + (uint64_t)((c + HTC_DEV_DIGITAL_ADD_LANES - 1) / HTC_DEV_DIGITAL_ADD_LANES) * (uint64_t)n);
    htc__dev_job(&htc__dev.pe_free, htc__dev_slot_of(0, l1_in), htc__dev_slot_of(1, cfg_off), 0, htc__dev_slot_of(0, l1_out),
                 HTC_DEV_DIGITAL_STARTUP + (uint64_t)((c + HTC_DEV_DIGITAL_ADD_LANES - 1) / HTC_DEV_DIGITAL_ADD_LANES) * (uint64_t)n);
}

#ifdef HTC_DEV_ANALOG_USED
/* L2 -> the analog weight memory (ternary cells, one byte each here), then
   the array programmed from it, HTC_DEV_ANALOG_PROG_ROWS rows per cycle: the
   per-layer overhead the HTVM paper names. Biases (int32) follow the cells
   at b_off and are configuration words of the output unit. */
static HTC__UNUSED void htc__dev_dma_aw(uint32_t off, const void *src, uint32_t bytes, int32_t rows)
{
    memcpy(htc__dev_mem(2, off, bytes), src, bytes);
    HTC_DEVICE_TRIGGERED(HTC_DEV_ANALOG_W_DMA_SETUP + htc__ceil_div(HTC__CAST(double, bytes), HTC_DEV_ANALOG_W_DMA_BPC));
    htc__dev_job(&htc__dev.dma_free, 0, 0, 0, htc__dev_slot_of(2, off),
                 HTC_DEV_ANALOG_W_DMA_SETUP + htc__ceil_div(HTC__CAST(double, bytes), HTC_DEV_ANALOG_W_DMA_BPC));
    if (rows > 0) {     /* programming the SRAM array from the weight memory */
        HTC_DEVICE_TRIGGERED(htc__ceil_div(HTC__CAST(double, rows), HTC_DEV_ANALOG_PROG_ROWS));
        htc__dev_job(&htc__dev.ana_free, htc__dev_slot_of(2, off), 0, 0, 0,
                     htc__ceil_div(HTC__CAST(double, rows), HTC_DEV_ANALOG_PROG_ROWS));
    }
}

/* Conv2D on the analog array: C*kh*kw unrolled on the rows, K on the
   columns (at most HTC_DEV_ANALOG_COLS), weights ternary (-1, 0, 1, checked).
   Inputs: the array takes unsigned 7 bit activations.
   An int8 input x is mapped exactly: u = x + 128 in [0, 255] is split into
   u = 128 h + l, l the low 7 bits, h the top bit; one array activation per
   part and output pixel, the output unit adds 128 * (sum w h) + (sum w l)
   (shift-add), and subtracts (in_zp + 128) * sum w from the bias, so the
   result is bit for bit sum w (x - in_zp). Padded taps read the zero point
   (x = in_zp). When no input has its top bit set, the h activation is
   skipped (data-dependent, like the hardware would be told by the compiler;
   here counted only when needed).

   One call is one pass over the rows [r0, r0 + nr) of the flattened
   C*kh*kw (at most HTC_DEV_ANALOG_ROWS): a layer with more rows than the array
   runs ceil(rows / HTC_DEV_ANALOG_ROWS) passes over the same input tile, the
   array reprogrammed for each (program = 1: nr rows at
   HTC_DEV_ANALOG_PROG_ROWS per cycle, from the weight memory, which holds all
   rows of the K tile). Hardware assumption (not in the paper): the output
   unit adds each pass's raw int32 sums to accumulators it keeps in L1 at
   l1_acc (int32 [k][oy][ox]; the first pass starts from the bias) and
   requantises after the last pass, as for a single pass. Integer sums in
   any order: bit-exact. Requantisation as the digital core's. */
static HTC__UNUSED void htc__dev_aconv(uint32_t l1_in, int32_t c, int32_t ih, int32_t iw, int32_t y0, int32_t x0,
                                       int32_t r0, int32_t nr, int32_t program, uint32_t l1_acc, uint32_t l1_out,
                                       int32_t k, int32_t oy, int32_t ox, int32_t kh, int32_t kw, int32_t sh, int32_t sw,
                                       uint32_t w_off, uint32_t b_off, const int32_t *shifts, int32_t per_channel,
                                       int32_t round, int32_t in_zp, int32_t out_zp, int32_t qmin, int32_t qmax)
{
    const int8_t *in = htc__dev_mem(0, l1_in, (uint64_t)c * ih * iw);
    const int32_t rows = c * kh * kw, khw = kh * kw, first = r0 == 0, last = r0 + nr >= rows;
    const int8_t *w = htc__dev_mem(2, w_off, (uint64_t)k * rows);
    int8_t *out = last ? htc__dev_mem(0, l1_out, (uint64_t)k * oy * ox) : 0;
    int8_t *acc_mem = first && last ? 0 : htc__dev_mem(0, l1_acc, 4 * (uint64_t)k * oy * ox);
    int32_t o, y, x, r, hi_used = 0;
    if (nr < 1 || nr > HTC_DEV_ANALOG_ROWS || r0 < 0 || r0 + nr > rows || k > HTC_DEV_ANALOG_COLS)
        HTC_DEVICE_FAULT("analog array too small for the tile");
    for (o = 0; o < k; o++)
        for (r = r0; r < r0 + nr; r++)
            if (w[(size_t)o * rows + r] < -1 || w[(size_t)o * rows + r] > 1) HTC_DEVICE_FAULT("analog weights are not ternary");
    for (o = 0; o < k; o++) {
        int32_t wsum = 0;
        for (r = r0; r < r0 + nr; r++) wsum += w[(size_t)o * rows + r];
        for (y = 0; y < oy; y++)
            for (x = 0; x < ox; x++) {
                const size_t at = ((size_t)o * oy + y) * ox + x;
                int32_t acc_l = 0, acc_h = 0, acc;
                for (r = r0; r < r0 + nr; r++) {
                    const int32_t i = r / khw, ky = r % khw / kw, kx = r % kw;
                    const int32_t iy = y0 + y * sh + ky, ix = x0 + x * sw + kx;
                    const int32_t xv = iy < 0 || iy >= ih || ix < 0 || ix >= iw ? in_zp : in[((size_t)i * ih + iy) * iw + ix];
                    const int32_t u = xv + 128, wv = w[(size_t)o * rows + r];
                    acc_l += wv * (u & 127);            /* 7-bit activation */
                    acc_h += wv * (u >> 7);
                    hi_used |= u >> 7;
                }
                if (first) acc = htc__dev_rd32_in(2, b_off + 4u * (uint32_t)o);
                else memcpy(&acc, acc_mem + 4 * at, 4);
                acc += 128 * acc_h + acc_l - (in_zp + 128) * wsum;
                if (last)
                    out[at] = HTC__CAST(int8_t, htc__dev_requant(acc, shifts[per_channel ? o : 0], round, out_zp, qmin, qmax));
                else
                    memcpy(acc_mem + 4 * at, &acc, 4);
            }
    }
    /* programming this pass's rows (multi-pass layers), then one array
       activation per output pixel and input part, all K at once */
    {
        const uint64_t cyc = (program ? htc__ceil_div(HTC__CAST(double, nr), HTC_DEV_ANALOG_PROG_ROWS) : 0) +
                             HTC_DEV_ANALOG_STARTUP + (uint64_t)oy * ox * (hi_used ? 2 : 1);
        HTC_DEVICE_TRIGGERED(cyc);
        htc__dev_job(&htc__dev.ana_free, htc__dev_slot_of(0, l1_in), htc__dev_slot_of(2, w_off),
                     first ? 0 : htc__dev_slot_of(0, l1_acc), htc__dev_slot_of(0, last ? l1_out : l1_acc), cyc);
    }
}
#endif

/* end of a layer: the host waits for every engine */
static HTC__UNUSED void htc__dev_sync(int32_t layer)
{
    htc__dev.clk.now = htc__dev_max(htc__dev.clk.now, htc__dev_max(htc__dev.dma_free, htc__dev_max(htc__dev.pe_free, htc__dev.ana_free)));
    {
        int i;
        for (i = 0; i < htc__dev.nslot; i++)
            htc__dev.clk.now = htc__dev_max(htc__dev.clk.now, htc__dev_max(htc__dev.slot[i].w_end, htc__dev.slot[i].r_end));
    }
    htc__dev.nslot = 0;                 /* every job has finished: forget the buffers */
    htc__devclock_layer(&htc__dev.clk, layer);
}

/* a layer on the host CPU: cycles from the target's per-kernel cost model */
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    htc__dev.clk.now = htc__dev_max(htc__dev.clk.now, htc__dev_max(htc__dev.dma_free, htc__dev_max(htc__dev.pe_free, htc__dev.ana_free)));
    htc__devclock_cpu(&htc__dev.clk, layer, units, cycles_per_unit);
}

static HTC__UNUSED void htc__dev_reset(void)
{
    htc__dev.clk.now = htc__dev.clk.layer_start = htc__dev.dma_free = htc__dev.pe_free = htc__dev.ana_free = 0;
    htc__dev.nslot = 0;
}
