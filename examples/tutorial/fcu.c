/* examples/tutorial/fcu.c - device model of the tutorial's fully connected
   unit (docs/accelerator-tutorial.md): the functions its template calls,
   computing the same bytes as the hardware and counting its cycles.

   Hardware: HTC_DEV_ROWS x HTC_DEV_COLS int8 MACs (output x input
   features), an activation memory of HTC_DEV_ACT_SIZE bytes, a weight
   memory of HTC_DEV_W_SIZE bytes (per K tile: weights [k][c], int32
   biases, int32 TFLite multipliers and shifts), one DMA engine; DMA and
   array take turns. Every constant comes from the target file (htc writes
   the HTC_DEV_* defines before pasting this file); the clock, the checked
   memories, the DMA copies and the firmware's hooks (HTC_DEVICE_FAULT,
   HTC_DEVICE_LAYER) are every device model's, from kernels/device.c, which
   htc pastes before it. */
#if !defined(HTC_DEV_ACT_SIZE) || !defined(HTC_DEV_W_SIZE) || !defined(HTC_DEV_ROWS) || !defined(HTC_DEV_COLS) || \
    !defined(HTC_DEV_STARTUP) || !defined(HTC_DEV_DMA_BPC) || !defined(HTC_DEV_DMA_SETUP)
#error "fcu.c: the HTC_DEV_* hardware constants come from the target file (htc writes them)"
#endif

static struct {
    int8_t act[HTC_DEV_ACT_SIZE];
    uint8_t w[HTC_DEV_W_SIZE];
    htc__devclock clk;
} htc__fcu;

/* a checked pointer into the activation (space 0) or weight memory */
static HTC__UNUSED uint8_t *htc__fcu_mem(int space, uint32_t off, uint64_t len)
{
    if (space) return HTC__CAST(uint8_t *, htc__devmem(htc__fcu.w, HTC_DEV_W_SIZE, off, len, "fcu: weight memory overflow"));
    return HTC__CAST(uint8_t *, htc__devmem(htc__fcu.act, HTC_DEV_ACT_SIZE, off, len, "fcu: activation memory overflow"));
}

static HTC__UNUSED void htc__fcu_load(int space, uint32_t off, const void *src, uint32_t bytes)
{
    memcpy(htc__fcu_mem(space, off, bytes), src, bytes);
    htc__devclock_dma(&htc__fcu.clk, bytes, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

static HTC__UNUSED void htc__fcu_store(int8_t *dst, uint32_t off, uint32_t bytes)
{
    memcpy(dst, htc__fcu_mem(0, off, bytes), bytes);
    htc__devclock_dma(&htc__fcu.clk, bytes, HTC_DEV_DMA_BPC, HTC_DEV_DMA_SETUP);
}

static HTC__UNUSED int32_t htc__fcu_rd32(uint32_t off)
{
    const uint8_t *p = htc__fcu_mem(1, off, 4);
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, p[0]) | HTC__CAST(uint32_t, p[1]) << 8 |
                              HTC__CAST(uint32_t, p[2]) << 16 | HTC__CAST(uint32_t, p[3]) << 24);
}

/* one job: k outputs from c inputs, out[o] = requant(b[o] + sum (x - in_zp) * w[o][i]) */
static HTC__UNUSED void htc__fcu_fc(uint32_t in_off, int32_t c, uint32_t out_off, int32_t k, uint32_t w_off,
                                    uint32_t b_off, uint32_t rq_off, int32_t in_zp, int32_t out_zp, int32_t qmin,
                                    int32_t qmax)
{
    const int8_t *in = HTC__CAST(const int8_t *, htc__fcu_mem(0, in_off, HTC__CAST(uint64_t, c)));
    int8_t *out = HTC__CAST(int8_t *, htc__fcu_mem(0, out_off, HTC__CAST(uint64_t, k)));
    const int8_t *w = HTC__CAST(const int8_t *, htc__fcu_mem(1, w_off, HTC__CAST(uint64_t, k) * c));
    int32_t o, i;
    for (o = 0; o < k; o++) {
        int32_t acc = htc__fcu_rd32(b_off + 4u * HTC__CAST(uint32_t, o));
        for (i = 0; i < c; i++) acc += (in[i] - in_zp) * w[HTC__CAST(size_t, o) * c + i];
        out[o] = HTC__CAST(int8_t, htc__requant(acc, htc__fcu_rd32(rq_off + 4u * HTC__CAST(uint32_t, o)),
                                                htc__fcu_rd32(rq_off + 4u * HTC__CAST(uint32_t, k + o)), out_zp, qmin, qmax));
    }
    htc__fcu.clk.now += HTC_DEV_STARTUP + htc__cdiv(k, HTC_DEV_ROWS) * htc__cdiv(c, HTC_DEV_COLS);
}

/* the three functions the compiler calls: end of an offloaded layer, a CPU
   layer (the target's cost model), start of an inference */
static HTC__UNUSED void htc__dev_sync(int32_t layer) { htc__devclock_layer(&htc__fcu.clk, layer); }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    htc__devclock_cpu(&htc__fcu.clk, layer, units, cycles_per_unit);
}
static HTC__UNUSED void htc__dev_reset(void) { htc__fcu.clk.now = htc__fcu.clk.layer_start = 0; }
