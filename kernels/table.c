/* table.c - any element-wise function of one 8-bit value: a 256-entry table
   built at compile time (gen/quant.c quant_table_*, gen/onnx.c lut_op). */

static HTC__UNUSED void htc__lut8(const htc__lut_params *p, const void *in, void *out)
{
    const uint8_t *x = HTC__CAST(const uint8_t *, in);
    uint8_t *y = HTC__CAST(uint8_t *, out);
    int32_t i;
    for (i = 0; i < p->size; i++) y[i] = p->lut[x[i]];
}

/* Multi-core (htc.h HTC_PAR_RUN): core's elements; split is rows. */
static HTC__UNUSED void htc__lut8_par(const htc__lut_params *p, const void *in, void *out, int split, int core, int ncores)
{
    const uint8_t *x = HTC__CAST(const uint8_t *, in);
    uint8_t *y = HTC__CAST(uint8_t *, out);
    int32_t lo, hi, i;
    (void)split;
    htc__share(p->size, core, ncores, &lo, &hi);
    for (i = lo; i < hi; i++) y[i] = p->lut[x[i]];
}
