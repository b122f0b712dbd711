/* logic.c - TFLite Micro's comparisons, logical ops, SELECT_V2, CAST, FILL,
   GATHER_ND / EMBEDDING_LOOKUP and DYNAMIC_UPDATE_SLICE, bit-exact. */

/* Advance a 6-D output index and the offsets of up to three broadcast inputs. */
static inline void htc__lg_next(const htc__logic_params *p, int32_t *idx, size_t *ia, size_t *ib, size_t *ic)
{
    int d;
    for (d = 5; d >= 0; d--) {
        *ia += HTC__CAST(size_t, p->a_stride[d]);
        *ib += HTC__CAST(size_t, p->b_stride[d]);
        *ic += HTC__CAST(size_t, p->c_stride[d]);
        if (++idx[d] < p->out_shape[d]) return;
        *ia -= HTC__CAST(size_t, p->a_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
        *ib -= HTC__CAST(size_t, p->b_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
        *ic -= HTC__CAST(size_t, p->c_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
        idx[d] = 0;
    }
}

static inline size_t htc__lg_size(const htc__logic_params *p)
{
    size_t n = 1;
    int d;
    for (d = 0; d < 6; d++) n *= HTC__CAST(size_t, p->out_shape[d]);
    return n;
}

static inline uint8_t htc__cmp(int32_t mode, int64_t x, int64_t y)
{
    switch (mode) {
    case 0: return x == y;
    case 1: return x != y;
    case 2: return x < y;
    case 3: return x <= y;
    case 4: return x > y;
    default: return x >= y;
    }
}

/* comparisons.cc ComparisonWithScaling: (x + offset) << 8, times the input's
   scale as MultiplyByQuantizedMultiplierSmallerThanOneExp, then compared. */
static HTC__UNUSED void htc__compare_s8(const htc__logic_params *p, const int8_t *a, const int8_t *b, uint8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, ic = 0, i, n = htc__lg_size(p);
    for (i = 0; i < n; i++) {
        int32_t x = a[ia], y = b[ib];
        if (p->scaled) {
            x = htc__rdivpot(htc__srdhm(HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + x) << p->left_shift),
                                        p->a_mult), -p->a_shift);
            y = htc__rdivpot(htc__srdhm(HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + y) << p->left_shift),
                                        p->b_mult), -p->b_shift);
        }
        out[i] = htc__cmp(p->mode, x, y);
        htc__lg_next(p, idx, &ia, &ib, &ic);
    }
}

static HTC__UNUSED void htc__compare_s32(const htc__logic_params *p, const int32_t *a, const int32_t *b, uint8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, ic = 0, i, n = htc__lg_size(p);
    for (i = 0; i < n; i++) {
        out[i] = htc__cmp(p->mode, a[ia], b[ib]);
        htc__lg_next(p, idx, &ia, &ib, &ic);
    }
}

static HTC__UNUSED void htc__compare_s64(const htc__logic_params *p, const int64_t *a, const int64_t *b, uint8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, ic = 0, i, n = htc__lg_size(p);
    for (i = 0; i < n; i++) {
        out[i] = htc__cmp(p->mode, a[ia], b[ib]);
        htc__lg_next(p, idx, &ia, &ib, &ic);
    }
}

/* bool operands (EQUAL, NOT_EQUAL) */
static HTC__UNUSED void htc__compare_b(const htc__logic_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, ic = 0, i, n = htc__lg_size(p);
    for (i = 0; i < n; i++) {
        out[i] = htc__cmp(p->mode, a[ia] != 0, b[ib] != 0);
        htc__lg_next(p, idx, &ia, &ib, &ic);
    }
}

/* LOGICAL_AND / LOGICAL_OR (two inputs) */
static HTC__UNUSED void htc__logical(const htc__logic_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, ic = 0, i, n = htc__lg_size(p);
    for (i = 0; i < n; i++) {
        out[i] = HTC__CAST(uint8_t, p->mode == 0 ? (a[ia] && b[ib]) : (a[ia] || b[ib]));
        htc__lg_next(p, idx, &ia, &ib, &ic);
    }
}

static HTC__UNUSED void htc__logical_not(const htc__logic_params *p, const uint8_t *a, uint8_t *out)
{
    size_t i, n = htc__lg_size(p);
    for (i = 0; i < n; i++) out[i] = HTC__CAST(uint8_t, !a[i]);
}

/* SELECT_V2: out = cond ? x : y, elements of p->elem bytes (raw copies: TFLM
   does not rescale) */
static HTC__UNUSED void htc__select(const htc__logic_params *p, const uint8_t *c, const void *x, const void *y, void *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ic = 0, ix = 0, iy = 0, i, n = htc__lg_size(p), e = HTC__CAST(size_t, p->elem);
    const unsigned char *xs = HTC__CAST(const unsigned char *, x), *ys = HTC__CAST(const unsigned char *, y);
    unsigned char *o = HTC__CAST(unsigned char *, out);
    for (i = 0; i < n; i++) {
        memcpy(o + i * e, c[ic] ? xs + ix * e : ys + iy * e, e);
        htc__lg_next(p, idx, &ic, &ix, &iy);
    }
}

/* CAST: static_cast between int8 (0), uint8 (1), int16 (2), int32 (3),
   float32 (4), bool (5). */
static inline double htc__cast_ld(const void *in, int32_t kind, size_t i, int64_t *iv, int *is_f)
{
    *is_f = 0;
    switch (kind) {
    case 0: *iv = HTC__CAST(const int8_t *, in)[i]; return 0;
    case 1: *iv = HTC__CAST(const uint8_t *, in)[i]; return 0;
    case 2: *iv = HTC__CAST(const int16_t *, in)[i]; return 0;
    case 3: *iv = HTC__CAST(const int32_t *, in)[i]; return 0;
    case 5: *iv = HTC__CAST(const uint8_t *, in)[i] != 0; return 0;
    case 6: *iv = HTC__CAST(const uint32_t *, in)[i]; return 0;
    default: *is_f = 1; *iv = 0; return HTC__CAST(const float *, in)[i];
    }
}

static HTC__UNUSED void htc__cast(const htc__cast_params *p, const void *in, void *out)
{
    size_t i, n = HTC__CAST(size_t, p->n);
    for (i = 0; i < n; i++) {
        int64_t v;
        int is_f;
        double f = htc__cast_ld(in, p->from, i, &v, &is_f);
        /* float -> integer: truncation (to uint32: through int64, as x86-64 and AArch64 compilers convert) */
        if (is_f) v = p->to == 6 ? HTC__CAST(int64_t, f) : HTC__CAST(int64_t, HTC__CAST(int32_t, f));
        switch (p->to) {
        case 0: HTC__CAST(int8_t *, out)[i] = HTC__CAST(int8_t, HTC__CAST(uint8_t, HTC__CAST(uint64_t, v) & 0xffu)); break;
        case 1: HTC__CAST(uint8_t *, out)[i] = HTC__CAST(uint8_t, HTC__CAST(uint64_t, v) & 0xffu); break;
        case 2: HTC__CAST(int16_t *, out)[i] = HTC__CAST(int16_t, HTC__CAST(uint16_t, HTC__CAST(uint64_t, v) & 0xffffu)); break;
        case 3: HTC__CAST(int32_t *, out)[i] = HTC__CAST(int32_t, HTC__CAST(uint32_t, HTC__CAST(uint64_t, v) & 0xffffffffu)); break;
        case 5: HTC__CAST(uint8_t *, out)[i] = HTC__CAST(uint8_t, is_f ? f != 0 : v != 0); break;
        case 6: HTC__CAST(uint32_t *, out)[i] = HTC__CAST(uint32_t, HTC__CAST(uint64_t, v) & 0xffffffffu); break;
        default: HTC__CAST(float *, out)[i] = is_f ? HTC__CAST(float, f) : HTC__CAST(float, v); break;
        }
    }
}

/* FILL / ZEROS_LIKE: every element the value's bytes */
static HTC__UNUSED void htc__fill(const htc__fill_params *p, const void *value, void *out)
{
    size_t i, n = HTC__CAST(size_t, p->n), e = HTC__CAST(size_t, p->elem);
    unsigned char *o = HTC__CAST(unsigned char *, out);
    for (i = 0; i < n; i++) memcpy(o + i * e, value, e);
}

/* GATHER_ND (gather_nd.cc): the flat position of each index tuple, checked
   against the whole params tensor only, as TFLite Micro checks it; GATHER
   (gather.cc, per_axis): [batch][outer][index][slice], each index checked
   against its axis. */
static HTC__UNUSED void htc__gather_nd(const htc__gather_nd_params *p, const void *params, const int32_t *indices, void *out)
{
    int64_t flat = 1, pos;
    int32_t b, k, i, j;
    size_t row = HTC__CAST(size_t, p->slice) * HTC__CAST(size_t, p->elem), e = HTC__CAST(size_t, p->elem);
    unsigned char *o = HTC__CAST(unsigned char *, out);
    const unsigned char *src = HTC__CAST(const unsigned char *, params);
    for (j = 0; j < p->depth; j++) flat *= p->dim[j];
    flat *= p->slice;
    for (b = 0; b < p->batch; b++) {
        const int32_t *ix = indices + HTC__CAST(size_t, b) * HTC__CAST(size_t, p->nidx) * HTC__CAST(size_t, p->depth);
        for (k = 0; k < p->outer; k++) {
            const unsigned char *base = src + (HTC__CAST(size_t, b) * HTC__CAST(size_t, p->bstride) +
                                               HTC__CAST(size_t, k) * HTC__CAST(size_t, p->ostride)) * e;
            for (i = 0; i < p->nidx; i++, o += row) {
                int bad = 0;
                pos = 0;
                for (j = 0; j < p->depth; j++) {
                    int32_t v = ix[i * p->depth + j];
                    bad |= p->per_axis && (v < 0 || v >= p->dim[j]);
                    pos += HTC__CAST(int64_t, v) * p->stride[j];
                }
                if (bad || pos < 0 || pos + p->slice > flat) memset(o, 0, row);
                else memcpy(o, base + HTC__CAST(size_t, pos) * e, row);
            }
        }
    }
}

/* EMBEDDING_LOOKUP's hybrid form (embedding_lookup.cc EvalHybrid): int8 rows
   dequantized with zero point 0, float(q) * scale */
static HTC__UNUSED void htc__gather_nd_f32(const htc__gather_nd_params *p, const int8_t *params, const int32_t *indices, float *out)
{
    int64_t flat = 1, pos;
    int32_t i, j, k;
    for (j = 0; j < p->depth; j++) flat *= p->dim[j];
    flat *= p->slice;
    for (i = 0; i < p->nidx; i++) {
        float *o = out + HTC__CAST(size_t, i) * HTC__CAST(size_t, p->slice);
        pos = 0;
        for (j = 0; j < p->depth; j++) pos += HTC__CAST(int64_t, indices[i * p->depth + j]) * p->stride[j];
        for (k = 0; k < p->slice; k++)
            o[k] = pos < 0 || pos + p->slice > flat ? 0.0f : HTC__CAST(float, params[pos + k]) * p->scale;
    }
}

/* REDUCE_ALL (reduce_common.cc, ReduceGeneric<bool> with &&): each output
   element the logical and of its reduced input elements (true when none). */
static HTC__UNUSED void htc__reduce_all(const htc__reduce_params *p, const uint8_t *in, uint8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0}, ostr[6];
    size_t n = 1, nout = 1, i;
    int d;
    for (d = 5; d >= 0; d--) {
        ostr[d] = HTC__CAST(int32_t, nout);
        if (!p->red[d]) nout *= HTC__CAST(size_t, p->in_shape[d]);
        n *= HTC__CAST(size_t, p->in_shape[d]);
    }
    for (i = 0; i < nout; i++) out[i] = 1;
    for (i = 0; i < n; i++) {
        size_t o = 0;
        for (d = 0; d < 6; d++)
            if (!p->red[d]) o += HTC__CAST(size_t, idx[d]) * HTC__CAST(size_t, ostr[d]);
        out[o] = HTC__CAST(uint8_t, out[o] && in[i]);
        for (d = 5; d >= 0; d--) {
            if (++idx[d] < p->in_shape[d]) break;
            idx[d] = 0;
        }
    }
}

/* DYNAMIC_UPDATE_SLICE (dynamic_update_slice.cc) */
static HTC__UNUSED void htc__update_slice(const htc__update_slice_params *p, const void *operand, const void *update,
                                          const void *start, void *out)
{
    int32_t st[6], ostr[6], ustr[6], idx[6] = {0, 0, 0, 0, 0, 0};
    size_t e = HTC__CAST(size_t, p->elem), on = 1, un = 1, k, rows, row;
    int d, r = p->rank;
    unsigned char *o = HTC__CAST(unsigned char *, out);
    const unsigned char *u = HTC__CAST(const unsigned char *, update);
    for (d = 0; d < r; d++) {
        on *= HTC__CAST(size_t, p->op_shape[d]);
        un *= HTC__CAST(size_t, p->up_shape[d]);
    }
    if (on == un) {
        memcpy(o, u, on * e);
        return;
    }
    if (out != operand) memmove(o, operand, on * e);
    if (un == 0) return;
    for (d = 0; d < r; d++) {
        int64_t v = p->idx64 ? HTC__CAST(const int64_t *, start)[d] : HTC__CAST(const int32_t *, start)[d];
        int64_t hi = HTC__CAST(int64_t, p->op_shape[d]) - p->up_shape[d];
        st[d] = HTC__CAST(int32_t, v < 0 ? 0 : (v > hi ? hi : v));
    }
    ostr[r - 1] = ustr[r - 1] = 1;
    for (d = r - 2; d >= 0; d--) {
        ostr[d] = ostr[d + 1] * p->op_shape[d + 1];
        ustr[d] = ustr[d + 1] * p->up_shape[d + 1];
    }
    row = HTC__CAST(size_t, p->up_shape[r - 1]);
    rows = un / row;
    for (k = 0; k < rows; k++) {
        size_t oo = 0, uo = 0;
        for (d = 0; d < r; d++) {
            oo += HTC__CAST(size_t, st[d] + (d < r - 1 ? idx[d] : 0)) * HTC__CAST(size_t, ostr[d]);
            uo += HTC__CAST(size_t, d < r - 1 ? idx[d] : 0) * HTC__CAST(size_t, ustr[d]);
        }
        memcpy(o + oo * e, u + uo * e, row * e);
        for (d = r - 2; d >= 0; d--) {
            if (++idx[d] < p->up_shape[d]) break;
            idx[d] = 0;
        }
    }
}
