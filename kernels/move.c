/* move.c - data movement of elements of any size (int8, int16, int32,
   float), equal to TFLite's reference kernels: TILE and BROADCAST_TO,
   SLICE / STRIDED_SLICE / REVERSE_V2 (and SPLIT, SPLIT_V, UNPACK as one
   slice per output), SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND,
   MIRROR_PAD. */

/* Output in order; input index of output (o_0..o_5) is (o_d mod in_d). */
static HTC__UNUSED void htc__tile(const htc__tile_params *p, const void *in, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t es = HTC__CAST(size_t, p->elem);
    int32_t idx[6] = {0, 0, 0, 0, 0, 0}, oshape[6];
    size_t stride[6], total = 1, n, pos = 0;
    int d;
    for (d = 5; d >= 0; d--) {
        oshape[d] = p->in_shape[d] * p->mult[d];
        stride[d] = d == 5 ? 1 : stride[d + 1] * HTC__CAST(size_t, p->in_shape[d + 1]);
        total *= HTC__CAST(size_t, oshape[d]);
    }
    for (n = 0; n < total; n++) {
        memcpy(dst, src + pos * es, es);
        dst += es;
        for (d = 5; d >= 0; d--) {
            ++idx[d];
            if (idx[d] % p->in_shape[d]) pos += stride[d];
            else pos -= stride[d] * HTC__CAST(size_t, p->in_shape[d] - 1);
            if (idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
}

/* reference_ops::StridedSlice: output element (o_0..o_5) reads input
   begin[d] + o_d * step[d] along each axis. */
static HTC__UNUSED void htc__slice(const htc__slice_params *p, const void *in, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t es = HTC__CAST(size_t, p->elem);
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t stride[6], total = 1, n, pos = 0;
    int d;
    for (d = 5; d >= 0; d--) {
        stride[d] = d == 5 ? 1 : stride[d + 1] * HTC__CAST(size_t, p->in_shape[d + 1]);
        total *= HTC__CAST(size_t, p->count[d]);
        pos += HTC__CAST(size_t, p->begin[d]) * stride[d];
    }
    for (n = 0; n < total; n++) {
        memcpy(dst, src + pos * es, es);
        dst += es;
        for (d = 5; d >= 0; d--) {
            pos += HTC__CAST(size_t, p->step[d]) * stride[d];
            if (++idx[d] < p->count[d]) break;
            pos -= HTC__CAST(size_t, p->step[d]) * stride[d] * HTC__CAST(size_t, p->count[d]);
            idx[d] = 0;
        }
    }
}

/* reference_ops::SpaceToBatchND (NHWC; 3-D tensors as [b][h][1][c]) */
static HTC__UNUSED void htc__space_to_batch(const htc__s2b_params *p, const void *in, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t px = HTC__CAST(size_t, p->c) * HTC__CAST(size_t, p->elem);
    int32_t ob, oh, ow;
    for (ob = 0; ob < p->out_b; ob++) {
        const int32_t ib = ob % p->in_b, sw = (ob / p->in_b) % p->block_w, sh = (ob / p->in_b) / p->block_w;
        for (oh = 0; oh < p->out_h; oh++)
            for (ow = 0; ow < p->out_w; ow++) {
                const int32_t y = oh * p->block_h + sh - p->pad_top, x = ow * p->block_w + sw - p->pad_left;
                if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w) memset(dst, p->pad_value, px);
                else memcpy(dst, src + ((HTC__CAST(size_t, ib) * p->in_h + y) * p->in_w + x) * px, px);
                dst += px;
            }
    }
}

/* reference_ops::BatchToSpaceND: input pixels cropped away are skipped */
static HTC__UNUSED void htc__batch_to_space(const htc__s2b_params *p, const void *in, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t px = HTC__CAST(size_t, p->c) * HTC__CAST(size_t, p->elem);
    int32_t ib, ih, iw;
    for (ib = 0; ib < p->in_b; ib++) {
        const int32_t ob = ib % p->out_b, so = ib / p->out_b;
        for (ih = 0; ih < p->in_h; ih++) {
            const int32_t oh = ih * p->block_h + so / p->block_w - p->pad_top;
            if (oh < 0 || oh >= p->out_h) continue;
            for (iw = 0; iw < p->in_w; iw++) {
                const int32_t ow = iw * p->block_w + so % p->block_w - p->pad_left;
                if (ow < 0 || ow >= p->out_w) continue;
                memcpy(dst + ((HTC__CAST(size_t, ob) * p->out_h + oh) * p->out_w + ow) * px,
                       src + ((HTC__CAST(size_t, ib) * p->in_h + ih) * p->in_w + iw) * px, px);
            }
        }
    }
}

static HTC__UNUSED void htc__mirror_pad(const htc__mirror_pad_params *p, const void *in, const int32_t *map, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t es = HTC__CAST(size_t, p->elem);
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t total = 1, n;
    int d;
    for (d = 0; d < 6; d++) total *= HTC__CAST(size_t, p->out_shape[d]);
    for (n = 0; n < total; n++) {
        size_t pos = 0;
        for (d = 0; d < 6; d++) pos += HTC__CAST(size_t, map[p->map_off[d] + idx[d]]) * HTC__CAST(size_t, p->in_stride[d]);
        memcpy(dst, src + pos * es, es);
        dst += es;
        for (d = 5; d >= 0; d--) {
            if (++idx[d] < p->out_shape[d]) break;
            idx[d] = 0;
        }
    }
}
