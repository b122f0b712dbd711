/* transpose.c - permutation of the axes of a tensor (rank <= 6, elements of
   1, 2, 4 or 8 bytes): the output is written in order, the input read
   through per-dimension strides. Layout changes (NCHW <-> NHWC) and ONNX
   Transpose. */

/* row r0's index (idx) and input position, in elements */
static HTC__INLINE size_t htc__transpose_start(const htc__transpose_params *p, size_t r0, int32_t *idx)
{
    size_t pos = 0, q = r0;
    int d;
    for (d = p->rank - 2; d >= 0; d--) {
        idx[d] = HTC__CAST(int32_t, q % HTC__CAST(size_t, p->shape[d]));
        q /= HTC__CAST(size_t, p->shape[d]);
        pos += HTC__CAST(size_t, idx[d]) * HTC__CAST(size_t, p->stride[d]);
    }
    return pos;
}

#ifdef HTC__XP
/* XpulpV2 (htc.h HTC__XP), output rows [r0, r1) of bytes: read
   contiguously by words (htc__xp_copy) when the innermost stride is 1,
   else strided from element rot on, wrapping: rot puts the first stores
   of each core in their own L1 bank (GVSoC, CCT_Int_ICCT's 64 x 192 ->
   192 x 64 on 8 cores: the cores' rows 1,536 bytes apart, every store of
   all eight in one bank). A function of its own: the small rows of the
   loop in htc__transpose_rows keep their code (MicroLlama's 4 x 4 and 16
   x 2 x 4 transposes 50-200 cycles slower each with these loops beside
   theirs) */
static HTC__NOINLINE void htc__transpose_xp_rows(const htc__transpose_params *p, const uint8_t *src, uint8_t *dst, size_t r0,
                                                 size_t r1, int32_t rot)
{
    const int32_t r = p->rank, n = p->shape[r - 1], st = p->stride[r - 1];
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t rows, pos = htc__transpose_start(p, r0, idx);
    int32_t j;
    int d;
    dst += r0 * HTC__CAST(size_t, n);
    for (rows = r0; rows < r1; rows++, dst += n) {
        const uint8_t *s0 = src + pos;
        if (st == 1) {
            htc__xp_copy(HTC__CAST(int8_t *, HTC__CAST(void *, dst)), HTC__CAST(const int8_t *, HTC__CAST(const void *, s0)), n);
        } else {
            for (j = rot; j < n; j++) dst[j] = s0[HTC__CAST(size_t, j) * HTC__CAST(size_t, st)];
            for (j = 0; j < rot; j++) dst[j] = s0[HTC__CAST(size_t, j) * HTC__CAST(size_t, st)];
        }
        for (d = r - 2; d >= 0; d--) {
            pos += HTC__CAST(size_t, p->stride[d]);
            if (++idx[d] < p->shape[d]) break;
            pos -= HTC__CAST(size_t, p->stride[d]) * HTC__CAST(size_t, p->shape[d]);
            idx[d] = 0;
        }
    }
}
#endif

/* Output rows [r0, r1) (a row: the innermost dimension); XpulpV2: a row
   of bytes read contiguously by htc__transpose_xp_rows */
static HTC__UNUSED void htc__transpose_rows(const htc__transpose_params *p, const void *in, void *out, size_t r0, size_t r1)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    const size_t es = HTC__CAST(size_t, p->elem);
    const int32_t r = p->rank, n = r > 0 ? p->shape[r - 1] : 1, st = r > 0 ? p->stride[r - 1] : 0;
    uint8_t *dst = HTC__CAST(uint8_t *, out) + r0 * HTC__CAST(size_t, n) * es;
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t rows, pos;
    int32_t j;
    int d;
    if (n <= 0) return;
#ifdef HTC__XP
    if (es == 1 && st == 1 && r > 0) {
        htc__transpose_xp_rows(p, src, HTC__CAST(uint8_t *, out), r0, r1, 0);
        return;
    }
#endif
    pos = htc__transpose_start(p, r0, idx);
    /* the innermost dimension as one strided loop of direct loads, the outer
       ones walked by their strides */
    for (rows = r0; rows < r1; rows++) {
        const uint8_t *s0 = src + pos * es;
        switch (es) {
        case 1:
            for (j = 0; j < n; j++) dst[j] = s0[HTC__CAST(size_t, j) * HTC__CAST(size_t, st)];
            break;
        case 4:
            if (!((HTC__ADDR(s0) | HTC__ADDR(dst)) & 3u)) {
                for (j = 0; j < n; j++)
                    HTC__CAST(uint32_t *, HTC__CAST(void *, dst))[j] =
                        HTC__CAST(const uint32_t *, HTC__CAST(const void *, s0))[HTC__CAST(size_t, j) * HTC__CAST(size_t, st)];
                break;
            }
            /* fall through */
        default:
            for (j = 0; j < n; j++) memcpy(dst + HTC__CAST(size_t, j) * es, s0 + HTC__CAST(size_t, j) * HTC__CAST(size_t, st) * es, es);
            break;
        }
        dst += HTC__CAST(size_t, n) * es;
        for (d = r - 2; d >= 0; d--) {
            pos += HTC__CAST(size_t, p->stride[d]);
            if (++idx[d] < p->shape[d]) break;
            pos -= HTC__CAST(size_t, p->stride[d]) * HTC__CAST(size_t, p->shape[d]);
            idx[d] = 0;
        }
    }
}

static HTC__UNUSED size_t htc__transpose_nrows(const htc__transpose_params *p)
{
    size_t rows = 1;
    int d;
    for (d = 0; d < p->rank - 1; d++) rows *= HTC__CAST(size_t, p->shape[d]);
    return rows;
}

static HTC__UNUSED void htc__transpose(const htc__transpose_params *p, const void *in, void *out)
{
    htc__transpose_rows(p, in, out, 0, htc__transpose_nrows(p));
}

/* Multi-core (htc.h HTC_PAR_RUN): core's rows; split is rows. */
static HTC__UNUSED void htc__transpose_par(const htc__transpose_params *p, const void *in, void *out, int split, int core,
                                           int ncores)
{
    int32_t lo, hi;
    (void)split;
    htc__share(HTC__CAST(int32_t, htc__transpose_nrows(p)), core, ncores, &lo, &hi);
    if (hi <= lo) return;
#ifdef HTC__XP
    {
        /* core k's first store k / ncores of the 16 banks on, in rows of 64
           bytes or more (shorter rows reach only some of the banks: GVSoC,
           8 cores, MatMul_Regular_RQ's rows of 48 6,352 -> 7,092 cycles
           with it, Attention's of 16 2,264 -> 2,295, Conv_Regular_2D_RQ's of
           27 8,511 -> 7,803; CCT_Int_ICCT's of 64 14,985 -> 13,469) */
        const int32_t n = p->rank > 0 ? p->shape[p->rank - 1] : 1;
        const uint32_t at = HTC__CAST(uint32_t, HTC__ADDR(HTC__CAST(uint8_t *, out) + HTC__CAST(size_t, lo) * HTC__CAST(size_t, n)));
        const int32_t rot = ncores > 1 && n >= 64 ? HTC__CAST(int32_t, ((HTC__CAST(uint32_t, core) * 64u / HTC__CAST(uint32_t, ncores) -
                                                                      at) & 63u) % HTC__CAST(uint32_t, n)) : 0;
        if (p->elem == 1 && rot > 0) {
            htc__transpose_xp_rows(p, HTC__CAST(const uint8_t *, in), HTC__CAST(uint8_t *, out), HTC__CAST(size_t, lo),
                                   HTC__CAST(size_t, hi), rot);
            return;
        }
    }
#endif
    htc__transpose_rows(p, in, out, HTC__CAST(size_t, lo), HTC__CAST(size_t, hi));
}
