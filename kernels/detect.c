/* detect.c - TFLite_Detection_PostProcess (SSD post-processing) as TFLite
   Micro's kernel computes it (tensorflow/lite/micro/kernels/detection_postprocess.cc). */

/* Float arithmetic in TFLM's order and precision: every intermediate that
   TFLM rounds is a volatile of its type (no contraction, no excess
   precision). The box decoding is in double, with exp(double): htc__dpp_exp
   (no libm) is within an ulp of the C library's exp, and its result is
   rounded to float after two more products, so it gives TFLM's float
   except where a float rounding boundary falls within that ulp. */

/* exp(x) in double: x = k ln2 + r (ln2 in two parts, k ln2_hi exact),
   exp(r) by its Taylor series to r^22 / 22! in nested form, times 2^k. */
static HTC__UNUSED double htc__dpp_exp(double x)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    volatile double r, s, kd;
    int32_t k, n;
    if (x != x) return x;
    if (x > 709.782712893384) return 1e308 * 10.0;
    if (x < -745.1332191019412) return 0.0;
    kd = x * 1.4426950408889634074;
    k = HTC__CAST(int32_t, kd < 0 ? kd - 0.5 : kd + 0.5);
    kd = HTC__CAST(double, k);
    r = x - kd * ln2_hi;
    r = r - kd * ln2_lo;
    s = 1.0;
    for (n = 22; n >= 1; n--) {
        volatile double t = s * r;
        t = t / HTC__CAST(double, n);
        s = 1.0 + t;
    }
    /* times 2^k, in steps that stay normal until the last */
    while (k > 0) {
        const int32_t e = k > 512 ? 512 : k;
        double p = 1.0;
        int32_t i;
        for (i = 0; i < e; i++) p *= 2.0;
        s = s * p;
        k -= e;
    }
    while (k < 0) {
        const int32_t e = k < -512 ? 512 : -k;
        double p = 1.0;
        int32_t i;
        for (i = 0; i < e; i++) p *= 0.5;
        s = s * p;
        k += e;
    }
    return s;
}

/* std::max<float>(a, b) and std::min<float>(a, b) */
static HTC__UNUSED float htc__dpp_max(float a, float b) { return a < b ? b : a; }
static HTC__UNUSED float htc__dpp_min(float a, float b) { return b < a ? b : a; }

static HTC__UNUSED float htc__dpp_iou(const float *boxes, int32_t i, int32_t j)
{
    const float *a = boxes + 4 * i, *b = boxes + 4 * j;     /* ymin, xmin, ymax, xmax */
    volatile float ai, aj, ih, iw, inter, den;
    ai = (a[2] - a[0]) * (a[3] - a[1]);
    aj = (b[2] - b[0]) * (b[3] - b[1]);
    if (ai <= 0 || aj <= 0) return 0.0f;
    ih = htc__dpp_max(htc__dpp_min(a[2], b[2]) - htc__dpp_max(a[0], b[0]), 0.0f);
    iw = htc__dpp_max(htc__dpp_min(a[3], b[3]) - htc__dpp_max(a[1], b[1]), 0.0f);
    inter = ih * iw;
    den = ai + aj;
    den = den - inter;
    return inter / den;
}

/* DecreasingPartialArgSort: the first k of 0..n-1 by value, larger first,
   ties by the smaller index (std::partial_sort's order is total here) */
static HTC__UNUSED void htc__dpp_partial_argsort(const float *v, int32_t n, int32_t k, int32_t *idx)
{
    int32_t i, j;
    for (i = 0; i < n; i++) idx[i] = i;
    for (i = 0; i < k; i++) {
        int32_t best = i;
        for (j = i + 1; j < n; j++) {
            const int32_t a = idx[j], b = idx[best];
            if (v[b] < v[a] || (!(v[a] < v[b]) && a < b)) best = j;
        }
        if (best != i) {
            const int32_t t = idx[i];
            idx[i] = idx[best];
            idx[best] = t;
        }
    }
}

/* DecreasingArgSort: a stable sort of 0..n-1 by value, larger first (TFLM's
   merge sort with insertion sort below 20 is stable: the same order) */
static HTC__UNUSED void htc__dpp_argsort(const float *v, int32_t n, int32_t *idx, int32_t *tmp)
{
    int32_t i, w;
    for (i = 0; i < n; i++) idx[i] = i;
    for (w = 1; w < n; w *= 2) {
        int32_t lo;
        for (lo = 0; lo < n; lo += 2 * w) {
            const int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int32_t l = lo, r = mid, o = lo;
            while (o < hi) {
                if (l >= mid || (r < hi && v[idx[r]] > v[idx[l]])) tmp[o++] = idx[r++];
                else tmp[o++] = idx[l++];
            }
        }
        for (i = 0; i < n; i++) idx[i] = tmp[i];
    }
}

/* NonMaxSuppressionSingleClassHelper: indices of the boxes kept, best first */
static HTC__UNUSED int32_t htc__dpp_nms(const htc__detpp_params *p, uint8_t *scr, const float *scores, int32_t *selected,
                                        int32_t max_det)
{
    const float *boxes = HTC__CAST(const float *, HTC__CAST(const void *, scr + p->off_decoded));
    float *keep_scores = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_keep_scores));
    int32_t *keep = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_keep_indices));
    int32_t *sorted = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_sorted_indices));
    uint8_t *active = scr + p->off_active;
    int32_t i, j, kept = 0, nsel = 0, nactive, out_size;
    for (i = 0; i < p->num_boxes; i++)
        if (scores[i] >= p->score_threshold) {
            keep_scores[kept] = scores[i];
            keep[kept++] = i;
        }
    htc__dpp_argsort(keep_scores, kept, sorted, keep);
    kept = 0;
    for (i = 0; i < p->num_boxes; i++)
        if (scores[i] >= p->score_threshold) keep[kept++] = i;
    out_size = kept < max_det ? kept : max_det;
    nactive = kept;
    for (i = 0; i < kept; i++) active[i] = 1;
    for (i = 0; i < kept; i++) {
        if (nactive == 0 || nsel >= out_size) break;
        if (!active[i]) continue;
        selected[nsel++] = keep[sorted[i]];
        active[i] = 0;
        nactive--;
        for (j = i + 1; j < kept; j++)
            if (active[j] && htc__dpp_iou(boxes, keep[sorted[i]], keep[sorted[j]]) > p->iou_threshold) {
                active[j] = 0;
                nactive--;
            }
    }
    return nsel;
}

/* inputs: box encodings [1][num_boxes][box_stride], class predictions
   [1][num_boxes][num_classes_bg], anchors [num_boxes][4] (y, x, h, w); outputs:
   boxes [1][D][4] (ymin, xmin, ymax, xmax), classes [1][D], scores [1][D],
   the number of detections [1], the scratch buffer. TFLM fails the
   invocation when a decoded box is empty (ymin >= ymax or xmin >= xmax);
   htc then reports no detection. Entries past the detections are 0 (TFLM's
   fast non-max suppression leaves them unwritten). */
/* LiteRT's Dequantizer of a uint8 value (stored as int8 with its zero point):
   (float(x) - zero_point) * scale, the difference exact */
static HTC__UNUSED float htc__dpp_deq(const void *t, int32_t i, int32_t zp, float scale)
{
    volatile float d = HTC__CAST(float, HTC__CAST(const int8_t *, t)[i] - zp);
    d = d * scale;
    return d;
}

static HTC__UNUSED void htc__detection_pp(const htc__detpp_params *p, const void *enc_in, const void *cls_in,
                                          const void *anc_in, float *det_boxes, float *det_classes,
                                          float *det_scores, float *num_det, uint8_t *scr)
{
    const float *enc = HTC__CAST(const float *, enc_in), *anchors = HTC__CAST(const float *, anc_in);
    const float *cls = HTC__CAST(const float *, cls_in);
    float *boxes = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_decoded));
    const int32_t nb = p->num_boxes, nc = p->num_classes, ncb = p->num_classes_bg, off = ncb - nc;
    const int32_t cap = p->cap;
    int32_t i, n = 0;
    for (i = 0; i < 4 * cap; i++) det_boxes[i] = 0.0f;
    for (i = 0; i < cap; i++) det_classes[i] = det_scores[i] = 0.0f;
    num_det[0] = 0.0f;
    if (p->quantized) {             /* LiteRT: the scores dequantized first */
        float *s = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_scores));
        for (i = 0; i < nb * ncb; i++) s[i] = htc__dpp_deq(cls_in, i, p->cls_zp, p->cls_scale);
        cls = s;
    }
    for (i = 0; i < nb; i++) {
        float qe[4], qa[4];
        const float *e, *a;
        if (p->quantized) {
            int32_t q;
            for (q = 0; q < 4; q++) {
                qe[q] = htc__dpp_deq(enc_in, i * p->box_stride + q, p->enc_zp, p->enc_scale);
                qa[q] = htc__dpp_deq(anc_in, 4 * i + q, p->anc_zp, p->anc_scale);
            }
            e = qe;
            a = qa;
        } else {
            e = enc + HTC__CAST(size_t, i) * HTC__CAST(size_t, p->box_stride);
            a = anchors + 4 * i;
        }
        {
        volatile double t, u;
        volatile float yc, xc, hh, hw;
        t = HTC__CAST(double, e[0]) / HTC__CAST(double, p->y_scale);
        t = t * HTC__CAST(double, a[2]);
        t = t + HTC__CAST(double, a[0]);
        yc = HTC__CAST(float, t);
        t = HTC__CAST(double, e[1]) / HTC__CAST(double, p->x_scale);
        t = t * HTC__CAST(double, a[3]);
        t = t + HTC__CAST(double, a[1]);
        xc = HTC__CAST(float, t);
        u = HTC__CAST(double, e[2]) / HTC__CAST(double, p->h_scale);
        t = 0.5 * htc__dpp_exp(u);
        t = t * HTC__CAST(double, a[2]);
        hh = HTC__CAST(float, t);
        u = HTC__CAST(double, e[3]) / HTC__CAST(double, p->w_scale);
        t = 0.5 * htc__dpp_exp(u);
        t = t * HTC__CAST(double, a[3]);
        hw = HTC__CAST(float, t);
        boxes[4 * i] = yc - hh;
        boxes[4 * i + 1] = xc - hw;
        boxes[4 * i + 2] = yc + hh;
        boxes[4 * i + 3] = xc + hw;
        }
    }
    for (i = 0; i < nb; i++)       /* ValidateBoxes */
        if (boxes[4 * i] >= boxes[4 * i + 2] || boxes[4 * i + 1] >= boxes[4 * i + 3]) return;
    if (p->use_regular_nms) {
        float *class_scores = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_class_scores));
        int32_t *sel_box = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_sel_box));
        float *sel_scores = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_sel_scores));
        float *sorted_values = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_sorted_values));
        int32_t *sorted = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_scratch));
        int32_t *selected = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_selected));
        int32_t col, row, size = 0;
        for (col = 0; col < nc; col++) {
            int32_t nsel, k, out;
            for (row = 0; row < nb; row++) class_scores[row] = cls[row * ncb + col + off];
            nsel = htc__dpp_nms(p, scr, class_scores, selected, p->detections_per_class);
            out = size;
            for (k = 0; k < nsel; k++) {
                sel_box[out] = selected[k] * ncb + col + off;
                sel_scores[out] = class_scores[selected[k]];
                out++;
            }
            k = out < p->max_detections ? out : p->max_detections;
            htc__dpp_partial_argsort(sel_scores, out, k, sorted);
            for (row = 0; row < k; row++) {
                const int32_t t = sorted[row];
                sorted[row] = sel_box[t];
                sorted_values[row] = sel_scores[t];
            }
            for (row = 0; row < k; row++) {
                sel_box[row] = sorted[row];
                sel_scores[row] = sorted_values[row];
            }
            size = k;
        }
        for (i = 0; i < size; i++) {
            const int32_t anchor = sel_box[i] / ncb, c = sel_box[i] - anchor * ncb - off;
            int32_t q;
            for (q = 0; q < 4; q++) det_boxes[4 * i + q] = boxes[4 * anchor + q];
            det_classes[i] = HTC__CAST(float, c);
            det_scores[i] = sel_scores[i];
        }
        num_det[0] = HTC__CAST(float, size);
    } else {
        float *max_scores = HTC__CAST(float *, HTC__CAST(void *, scr + p->off_class_scores));
        int32_t *class_idx = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_buffer));
        int32_t *selected = HTC__CAST(int32_t *, HTC__CAST(void *, scr + p->off_selected));
        const int32_t nca = p->max_classes_per_detection < nc ? p->max_classes_per_detection : nc;
        int32_t row, nsel, col;
        for (row = 0; row < nb; row++) {
            const float *bs = cls + row * ncb + off;
            int32_t *ci = class_idx + row * nc;
            htc__dpp_partial_argsort(bs, nc, nca, ci);
            max_scores[row] = bs[ci[0]];
        }
        nsel = htc__dpp_nms(p, scr, max_scores, selected, p->max_detections);
        for (i = 0; i < nsel; i++) {
            const int32_t s = selected[i];
            const float *bs = cls + s * ncb + off;
            const int32_t *ci = class_idx + s * nc;
            for (col = 0; col < nca; col++) {
                const int32_t o = nca * n + col;      /* TFLM's index, as it writes it */
                if (o < cap) {
                    int32_t q;
                    for (q = 0; q < 4; q++) det_boxes[4 * o + q] = boxes[4 * s + q];
                    det_classes[o] = HTC__CAST(float, ci[col]);
                    det_scores[o] = bs[ci[col]];
                }
                n++;
            }
        }
        num_det[0] = HTC__CAST(float, n);
    }
}
