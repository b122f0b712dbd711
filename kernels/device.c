/* device.c - what every device model of the host virtual platform shares:
   the firmware's fault and per-layer hooks, checked device memories, DMA.

   htc pastes this file before the kernels of every header with an
   offloaded layer, so a device model (kernels/npu.c, dla.c, vanilla.c,
   diana.c, neureka.c, a target's own such as tests/targets/systolic or
   examples/tutorial/fcu.c) keeps an htc__devclock in its state and writes
   the three functions the compiler calls -- htc__dev_sync(layer) after an
   offloaded layer, htc__dev_cpu(layer, units, cycles_per_unit) after a CPU
   layer, htc__dev_reset() before an inference -- on top of these.

   Hooks the firmware may define before including the header:
   HTC_DEVICE_FAULT(what)          an access outside a device memory (what:
                                   a string naming it); default abort()
   HTC_DEVICE_LAYER(layer, cycles) a layer's cycles on the model's clock
                                   (layer -1: more cycles of the previous) */
#include <stdlib.h>
#include <string.h>

#ifndef HTC_DEVICE_FAULT
#define HTC_DEVICE_FAULT(what) abort()
#endif
#ifndef HTC_DEVICE_LAYER
#define HTC_DEVICE_LAYER(layer, cycles) ((void)0)
#endif

/* ceil(a / b) of two positive numbers without libm (transfer and job
   cycles); ceil(a / b) of integers, b > 0 (tile and step counts) */
static HTC__UNUSED uint64_t htc__ceil_div(double a, double b)
{
    const double q = a / b;
    const uint64_t n = HTC__CAST(uint64_t, q);
    return HTC__CAST(double, n) < q ? n + 1 : n;
}

static HTC__UNUSED uint64_t htc__cdiv(int64_t a, int64_t b) { return HTC__CAST(uint64_t, (a + b - 1) / b); }

/* The model's clock: cycles since the inference began and where the current
   layer began. */
typedef struct {
    uint64_t now, layer_start;
} htc__devclock;

/* a layer ends at c->now: report its cycles; the next one starts there */
static HTC__UNUSED void htc__devclock_layer(htc__devclock *c, int32_t layer)
{
    (void)layer;          /* used by HTC_DEVICE_LAYER when the firmware defines it */
    HTC_DEVICE_LAYER(layer, c->now - c->layer_start);
    c->layer_start = c->now;
}

/* a layer on the host CPU: units at the target's cycles per unit */
static HTC__UNUSED void htc__devclock_cpu(htc__devclock *c, int32_t layer, double units, double cycles_per_unit)
{
    c->now += HTC__CAST(uint64_t, units * cycles_per_unit + 0.5);
    htc__devclock_layer(c, layer);
}

/* one DMA transfer of bytes: its set-up plus the bytes at bpc per cycle */
static HTC__UNUSED void htc__devclock_dma(htc__devclock *c, double bytes, double bpc, double setup)
{
    c->now += HTC__CAST(uint64_t, setup) + htc__ceil_div(bytes, bpc);
}

/* len bytes at off in a device memory of size bytes at base: the address,
   or HTC_DEVICE_FAULT(what) when they do not fit */
static HTC__UNUSED void *htc__devmem(void *base, uint64_t size, uint32_t off, uint64_t len, const char *what)
{
    (void)what;           /* used by HTC_DEVICE_FAULT when the firmware defines it */
    if (HTC__CAST(uint64_t, off) + len > size) HTC_DEVICE_FAULT(what);
    return HTC__CAST(uint8_t *, base) + off;
}

/* The 2-D DMA copies between an L2 region of h rows, w pixels, c channels
   (NHWC strides in elements) and a device memory laid out [h][w][c]. */
static HTC__UNUSED void htc__dma_gather(int8_t *d, const int8_t *src, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                        int32_t pix_stride)
{
    int32_t y, x;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            memcpy(d + (HTC__CAST(size_t, y) * w + x) * c, src + HTC__CAST(size_t, y) * row_stride + HTC__CAST(size_t, x) * pix_stride,
                   HTC__CAST(size_t, c));
}

static HTC__UNUSED void htc__dma_scatter(int8_t *dst, const int8_t *s, int32_t h, int32_t w, int32_t c, int32_t row_stride,
                                         int32_t pix_stride)
{
    int32_t y, x;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            memcpy(dst + HTC__CAST(size_t, y) * row_stride + HTC__CAST(size_t, x) * pix_stride, s + (HTC__CAST(size_t, y) * w + x) * c,
                   HTC__CAST(size_t, c));
}
