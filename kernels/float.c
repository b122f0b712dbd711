/* float.c - float32 ops as TFLite Micro's float reference kernels compute
   them: NEG (a float island between int8 ops), and the operators of float32
   models: FULLY_CONNECTED, SOFTMAX, UNIDIRECTIONAL_SEQUENCE_LSTM, ADD, MUL,
   RELU, RELU6, LOGISTIC, TANH.

   Every float operation is rounded on its own, in TFLM's order: a product
   that feeds a sum is stored in a volatile float first, so no compiler may
   contract the two into a fused multiply-add (GCC does by default wherever
   the target has one), reassociate a sum (-ffast-math) or keep an x87
   intermediate in extended precision. TFLM's interpreter (x86-64, no
   contraction in its kernels) rounds the same way. expf and tanhf are those
   of the C library TFLM links (glibc, as on x86-64 with FMA and aarch64):
   htc__expf and htc__tanhf below give the same bits for every float. */

static HTC__UNUSED void htc__neg_f32(const htc__funary_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = -in[i];
}

/* ---- the C library's expf and tanhf ----------------------------------------- */

typedef volatile double htc__vdouble;
typedef volatile float htc__vfloat;

static HTC__UNUSED double htc__f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static HTC__UNUSED float htc__f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static HTC__UNUSED uint64_t htc__u64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* a * b + c rounded once. Without a fused multiply-add instruction:
   a * b = uh + ul exactly (Dekker's product, Veltkamp's split), c + uh =
   th + tl exactly (TwoSum), tl + ul rounded to odd, then th + that rounded
   to nearest (Boldo and Melquiond's emulation; checked against the
   hardware fma on 2e7 random triples, tests/test_tflm_models.py). */
static HTC__UNUSED double htc__fma(double a, double b, double c)
{
#if defined(__FP_FAST_FMA) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_fma(a, b, c);
#else
    htc__vdouble ca = 134217729.0 * a, cb = 134217729.0 * b;
    htc__vdouble ah = ca - (ca - a), bh = cb - (cb - b);
    htc__vdouble al = a - ah, bl = b - bh, uh = a * b;
    htc__vdouble p1 = ah * bh, p2 = ah * bl, p3 = al * bh, p4 = al * bl;
    htc__vdouble ul = p1 - uh, th, bb, tl, s, sb, e;
    ul = ul + p2;
    ul = ul + p3;
    ul = ul + p4;
    th = c + uh;                                        /* TwoSum(c, uh) */
    bb = th - c;
    tl = (c - (th - bb)) + (uh - bb);
    s = tl + ul;                                        /* TwoSum(tl, ul), then to odd */
    sb = s - tl;
    e = (tl - (s - sb)) + (ul - sb);
    {
        double r = s;
        if (e != 0) {
            uint64_t u = htc__u64(r);
            if (!(u & 1)) {
                if ((e > 0) == (r > 0)) u++;
                else u--;
                r = htc__f64(u);
            }
        }
        s = th + r;
    }
    return s;
#endif
}

/* glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, ARM's optimized routines:
   2^(k/32) from a table times a cubic in r), as its FMA build computes it
   (x86-64 with FMA, aarch64): the reduction k = round(x * 32/ln2), r = x *
   32/ln2 - k and the cubic's three multiply-adds each rounded once. */
static HTC__UNUSED float htc__expf(float x)
{
    static const uint64_t tab[32] = {
        0x3ff0000000000000u, 0x3fefd9b0d3158574u, 0x3fefb5586cf9890fu, 0x3fef9301d0125b51u,
        0x3fef72b83c7d517bu, 0x3fef54873168b9aau, 0x3fef387a6e756238u, 0x3fef1e9df51fdee1u,
        0x3fef06fe0a31b715u, 0x3feef1a7373aa9cbu, 0x3feedea64c123422u, 0x3feece086061892du,
        0x3feebfdad5362a27u, 0x3feeb42b569d4f82u, 0x3feeab07dd485429u, 0x3feea47eb03a5585u,
        0x3feea09e667f3bcdu, 0x3fee9f75e8ec5f74u, 0x3feea11473eb0187u, 0x3feea589994cce13u,
        0x3feeace5422aa0dbu, 0x3feeb737b0cdc5e5u, 0x3feec49182a3f090u, 0x3feed503b23e255du,
        0x3feee89f995ad3adu, 0x3feeff76f2fb5e47u, 0x3fef199bdd85529cu, 0x3fef3720dcef9069u,
        0x3fef5818dcfba487u, 0x3fef7c97337b9b5fu, 0x3fefa4afa2a490dau, 0x3fefd0765b6e4540u};
    /* 32 / ln2, 1.5 * 2^52 and the cubic's coefficients (by their bits: C++
       before 17 has no hexadecimal floating constants) */
    const double inv_ln2_32 = htc__f64(0x40471547652b82feu), shift = 6755399441055744.0;
    const double c0 = htc__f64(0x3ebc6af84b912394u), c1 = htc__f64(0x3f2ebfce50fac4f3u),
                 c2 = htc__f64(0x3f962e42ff0c52d6u);
    uint32_t ux;
    uint64_t ki;
    double xd = x, kd, r, z, y;
    htc__vdouble r2, ys;
    memcpy(&ux, &x, sizeof ux);
    if (((ux >> 20) & 0x7ff) >= 0x42b) {                /* |x| >= 88, or NaN */
        htc__vfloat big = htc__f32(0x70000000u), small = htc__f32(0x10000000u);     /* 2^97, 2^-95 */
        if (ux == 0xff800000u) return 0.0f;
        if (((ux >> 20) & 0x7ff) >= 0x7f8) return x + x;
        if (x > htc__f32(0x42b17217u)) return big * big;        /* x > log(2^128): inf */
        if (x < htc__f32(0xc2cff1b4u)) return small * small;    /* x < log(2^-150): 0 */
    }
    kd = htc__fma(inv_ln2_32, xd, shift);
    ki = htc__u64(kd);
    kd = kd - shift;
    r = htc__fma(inv_ln2_32, xd, -kd);
    z = htc__fma(c0, r, c1);
    r2 = r * r;
    y = htc__fma(c2, r, 1.0);
    y = htc__fma(z, r2, y);
    ys = y * htc__f64(tab[ki % 32] + (ki << 47));
    return HTC__CAST(float, ys);
}

/* glibc's expm1f (sysdeps/ieee754/flt-32/s_expm1f.c, fdlibm in float) */
static HTC__UNUSED float htc__expm1f(float x)
{
    const float o_threshold = 8.8721679688e+01f, ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f,
                invln2 = 1.4426950216e+00f, q1 = -3.3333335072e-02f, q2 = 1.5873016091e-03f,
                q3 = -7.9365076090e-05f, q4 = 4.0082177293e-06f, q5 = -2.0109921195e-07f;
    htc__vfloat hi, lo, c = 0.0f, t, e, hxs, hfx, r1, y, a;
    int32_t k, i;
    uint32_t hx, xsb;
    memcpy(&hx, &x, sizeof hx);
    xsb = hx & 0x80000000u;
    hx &= 0x7fffffffu;
    if (hx >= 0x4195b844u) {                    /* |x| >= 27 ln2 */
        if (hx >= 0x42b17218u) {                /* |x| >= 88.72... */
            if (hx > 0x7f800000u) return x + x;
            if (hx == 0x7f800000u) return xsb == 0 ? x : -1.0f;
            if (x > o_threshold) {
                htc__vfloat huge = 1.0e+30f;
                return huge * huge;
            }
        }
        if (xsb != 0) {
            htc__vfloat tiny = 1.0e-30f;
            return tiny - 1.0f;
        }
    }
    if (hx > 0x3eb17218u) {                     /* |x| > 0.5 ln2 */
        if (hx < 0x3F851592u) {                 /* and < 1.5 ln2 */
            if (xsb == 0) {
                hi = x - ln2_hi;
                lo = ln2_lo;
                k = 1;
            } else {
                hi = x + ln2_hi;
                lo = -ln2_lo;
                k = -1;
            }
        } else {
            a = invln2 * x;
            a = a + (xsb == 0 ? 0.5f : -0.5f);
            k = HTC__CAST(int32_t, a);
            t = HTC__CAST(float, k);
            a = t * ln2_hi;
            hi = x - a;
            lo = t * ln2_lo;
        }
        {
            htc__vfloat xr = hi - lo, d = hi - xr;
            c = d - lo;
            x = xr;
        }
    } else if (hx < 0x33000000u) {              /* |x| < 2^-25 */
        htc__vfloat huge = 1.0e+30f, u = huge + x, w = huge + x;
        t = u;
        a = t - w;
        return x - a;
    } else {
        k = 0;
    }
    hfx = 0.5f * x;
    hxs = x * hfx;
    r1 = hxs * q5;
    r1 = q4 + r1;
    r1 = hxs * r1;
    r1 = q3 + r1;
    r1 = hxs * r1;
    r1 = q2 + r1;
    r1 = hxs * r1;
    r1 = q1 + r1;
    r1 = hxs * r1;
    r1 = 1.0f + r1;
    a = r1 * hfx;
    t = 3.0f - a;
    a = x * t;
    a = 6.0f - a;
    e = r1 - t;
    e = e / a;
    e = hxs * e;
    if (k == 0) {
        a = x * e;
        a = a - hxs;
        return x - a;
    }
    a = e - c;
    a = x * a;
    e = a - c;
    e = e - hxs;
    if (k == -1) {
        a = x - e;
        a = 0.5f * a;
        return a - 0.5f;
    }
    if (k == 1) {
        if (x < -0.25f) {
            a = x + 0.5f;
            a = e - a;
            return -2.0f * a;
        }
        a = x - e;
        a = 2.0f * a;
        return 1.0f + a;
    }
    if (k <= -2 || k > 56) {                    /* exp(x) - 1 ~ exp(x) */
        float f;
        a = e - x;
        y = 1.0f - a;
        f = y;
        memcpy(&i, &f, sizeof i);
        i = HTC__CAST(int32_t, HTC__CAST(uint32_t, i) + (HTC__CAST(uint32_t, k) << 23));
        memcpy(&f, &i, sizeof f);
        y = f;
        return y - 1.0f;
    }
    if (k < 23) {
        float f;
        i = 0x3f800000 - (0x1000000 >> k);      /* 1 - 2^-k */
        memcpy(&f, &i, sizeof f);
        t = f;
        a = e - x;
        y = t - a;
    } else {
        float f;
        i = (0x7f - k) << 23;                   /* 2^-k */
        memcpy(&f, &i, sizeof f);
        t = f;
        a = e + t;
        y = x - a;
        y = y + 1.0f;
    }
    {
        float f = y;
        memcpy(&i, &f, sizeof i);
        i = HTC__CAST(int32_t, HTC__CAST(uint32_t, i) + (HTC__CAST(uint32_t, k) << 23));
        memcpy(&f, &i, sizeof f);
        return f;
    }
}

/* glibc's tanhf (sysdeps/ieee754/flt-32/s_tanhf.c, fdlibm) */
static HTC__UNUSED float htc__tanhf(float x)
{
    htc__vfloat t, z, a;
    int32_t jx, ix;
    memcpy(&jx, &x, sizeof jx);
    ix = jx & 0x7fffffff;
    if (ix >= 0x7f800000) {                     /* inf or NaN */
        a = 1.0f / x;
        return jx >= 0 ? a + 1.0f : a - 1.0f;
    }
    if (ix < 0x41b00000) {                      /* |x| < 22 */
        if (ix == 0) return x;
        if (ix < 0x24000000) {                  /* |x| < 2^-55 */
            a = 1.0f + x;
            return x * a;
        }
        a = x < 0 ? -x : x;
        if (ix >= 0x3f800000) {                 /* |x| >= 1 */
            t = htc__expm1f(2.0f * a);
            a = t + 2.0f;
            a = 2.0f / a;
            z = 1.0f - a;
        } else {
            t = htc__expm1f(-2.0f * a);
            a = t + 2.0f;
            z = -t / a;
        }
    } else {
        htc__vfloat tiny = 1.0e-30f;
        z = 1.0f - tiny;
    }
    return jx >= 0 ? z : -z;
}

/* ---- TFLM's float reference kernels ----------------------------------------- */

/* ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi) */
static HTC__INLINE float htc__fclamp(float x, float lo, float hi)
{
    const float m = x < lo ? lo : x;
    return hi < m ? hi : m;
}

/* reference_ops::Logistic (float): 1, exp(x), or 1 / (1 + exp(-x)) */
static HTC__UNUSED float htc__fsigmoid(float x)
{
    htc__vfloat d;
    if (x > 16.619047164916992188f) return 1.0f;
    if (x < -9.0f) return htc__expf(x);
    d = 1.0f + htc__expf(-x);
    return 1.0f / d;
}

/* reference_ops::FullyConnected (float): per output, the products summed in
   order from 0, + bias (0.0f without one), clamped to the activation. */
static HTC__UNUSED void htc__fc_f32(const htc__ffc_params *p, const float *x, const float *w, const float *b, float *out)
{
    int32_t r, o, d;
    for (r = 0; r < p->batches; r++)
        for (o = 0; o < p->n_out; o++) {
            const float *xr = x + HTC__CAST(size_t, r) * p->depth, *wr = w + HTC__CAST(size_t, o) * p->depth;
            htc__vfloat total = 0.0f, v;
            for (d = 0; d < p->depth; d++) {
                htc__vfloat pr = xr[d] * wr[d];
                total = total + pr;
            }
            v = total + (b ? b[o] : 0.0f);
            out[HTC__CAST(size_t, r) * p->n_out + o] = htc__fclamp(v, p->lo, p->hi);
        }
}

/* reference_ops::Softmax (float): per row, exp((x - max) * beta) summed in
   order, each divided by the sum. */
static HTC__UNUSED void htc__softmax_f32(const htc__fsoftmax_params *p, const float *in, float *out)
{
    int32_t r, c;
    for (r = 0; r < p->outer; r++, in += p->depth, out += p->depth) {
        float mx = -3.40282347e+38f;
        htc__vfloat sum = 0.0f;
        for (c = 0; c < p->depth; c++) mx = mx < in[c] ? in[c] : mx;
        for (c = 0; c < p->depth; c++) {
            htc__vfloat d = in[c] - mx, a = d * p->beta;
            const float e = htc__expf(a);
            out[c] = e;
            sum = sum + e;
        }
        for (c = 0; c < p->depth; c++) {
            htc__vfloat q = out[c] / sum;
            out[c] = q;
        }
    }
}

/* One LSTM gate for nb rows (lstm_eval.h CalculateLstmGate<float>): FC of
   the input (+ the gate's bias) and FC of the hidden state (no bias: +
   0.0f), each clamped to [lowest, max], added, then sigmoid (act 0) or
   tanh (act 1). */
static HTC__UNUSED void htc__flstm_gate(const htc__flstm_params *p, int32_t nb, const float *x, const float *h, const float *wx,
                            const float *wh, const float *bias, int act, float *out)
{
    int32_t r, s, k;
    for (r = 0; r < nb; r++)
        for (s = 0; s < p->state; s++) {
            const float *xs = x + HTC__CAST(size_t, r) * p->in_dim, *hs = h + HTC__CAST(size_t, r) * p->state;
            const float *wxs = wx + HTC__CAST(size_t, s) * p->in_dim, *whs = wh + HTC__CAST(size_t, s) * p->state;
            htc__vfloat a = 0.0f, b = 0.0f, v;
            float fa, fb;
            for (k = 0; k < p->in_dim; k++) {
                htc__vfloat pr = xs[k] * wxs[k];
                a = a + pr;
            }
            for (k = 0; k < p->state; k++) {
                htc__vfloat pr = hs[k] * whs[k];
                b = b + pr;
            }
            a = a + bias[s];
            b = b + 0.0f;
            fa = htc__fclamp(a, -3.40282347e+38f, 3.40282347e+38f);
            fb = htc__fclamp(b, -3.40282347e+38f, 3.40282347e+38f);
            v = fa + fb;
            out[HTC__CAST(size_t, r) * p->state + s] = act ? htc__tanhf(v) : htc__fsigmoid(v);
        }
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM in float (EvalLstm<float, float, float,
   float>): per step the forget, input and cell gates, the cell state
   forget * cell + input * cell gate (each product clamped, the sum not,
   then clipped to +-clip when clip > 0), the output gate, and the hidden
   state tanh(cell) * output gate (clamped), copied to the output row.
   Layouts as kernels/lstm.c; hidden and cell are the variable tensors (reset
   to 0), scratch holds 4 vectors of one step. */
static HTC__UNUSED void htc__lstm_f32(const htc__flstm_params *p, const float *x, const float *wxi, const float *wxf,
                                      const float *wxc, const float *wxo, const float *whi, const float *whf,
                                      const float *whc, const float *who, const float *bi, const float *bf,
                                      const float *bc, const float *bo, float *out, float *hidden, float *cell,
                                      float *scratch)
{
    const float big = 3.40282347e+38f;
    const int32_t nb = p->time_major ? p->batches : 1, n = nb * p->state;
    const int32_t outer = p->time_major ? 1 : p->batches;
    float *fg = scratch, *ig = scratch + n, *cg = scratch + 2 * n, *og = scratch + 3 * n;
    int32_t b, t, i;
    for (b = 0; b < outer; b++)
        for (t = 0; t < p->steps; t++) {
            const size_t row = p->time_major ? HTC__CAST(size_t, t) * nb : HTC__CAST(size_t, b) * p->steps + t;
            const float *xt = x + row * p->in_dim;
            float *h = hidden + HTC__CAST(size_t, b) * p->state, *c = cell + HTC__CAST(size_t, b) * p->state;
            htc__flstm_gate(p, nb, xt, h, wxf, whf, bf, 0, fg);
            htc__flstm_gate(p, nb, xt, h, wxi, whi, bi, 0, ig);
            htc__flstm_gate(p, nb, xt, h, wxc, whc, bc, 1, cg);
            for (i = 0; i < n; i++) {
                htc__vfloat f = fg[i] * c[i], u = ig[i] * cg[i], v;
                v = htc__fclamp(f, -big, big) + htc__fclamp(u, -big, big);
                if (p->clip > 0) {
                    const float m = v < p->clip ? v : p->clip;     /* std::max(std::min(clip, v), -clip) */
                    v = m < -p->clip ? -p->clip : m;
                }
                c[i] = v;
            }
            htc__flstm_gate(p, nb, xt, h, wxo, who, bo, 0, og);
            for (i = 0; i < n; i++) {
                htc__vfloat v = htc__tanhf(c[i]) * og[i];
                h[i] = htc__fclamp(v, -big, big);
            }
            memcpy(out + row * p->state, h, HTC__CAST(size_t, n) * sizeof(float));
        }
}

/* ADD / MUL (reference_ops::Add, Mul and their Broadcast*4DSlow): a + b or
   a * b per output element, clamped to the fused activation's range */
static HTC__UNUSED void htc__binary_f32(const htc__fbinary6_params *p, const float *a, const float *b, float *out)
{
    int32_t i[6] = {0, 0, 0, 0, 0, 0}, d;
    size_t n = 1, k;
    for (d = 0; d < 6; d++) n *= HTC__CAST(size_t, p->out_shape[d]);
    for (k = 0; k < n; k++) {
        size_t ao = 0, bo = 0;
        htc__vfloat v;
        for (d = 0; d < 6; d++) {
            ao += HTC__CAST(size_t, i[d]) * HTC__CAST(size_t, p->a_stride[d]);
            bo += HTC__CAST(size_t, i[d]) * HTC__CAST(size_t, p->b_stride[d]);
        }
        if (p->op) v = a[ao] * b[bo];
        else v = a[ao] + b[bo];
        out[k] = htc__fclamp(v, p->lo, p->hi);
        for (d = 5; d >= 0; d--) {
            if (++i[d] < p->out_shape[d]) break;
            i[d] = 0;
        }
    }
}

/* ReluFloat, Relu6Float (activations_common.cc), reference_ops::Logistic,
   reference_ops::Tanh (std::tanh) */
static HTC__UNUSED void htc__unary_f32(const htc__funary_fn_params *p, const float *in, float *out)
{
    int32_t k;
    for (k = 0; k < p->size; k++) {
        const float v = in[k];
        switch (p->fn) {
        case 0: out[k] = v < 0.0f ? 0.0f : v; break;
        case 1: out[k] = v > 6.0f ? 6.0f : v < 0.0f ? 0.0f : v; break;
        case 2: out[k] = htc__fsigmoid(v); break;
        default: out[k] = htc__tanhf(v); break;
        }
    }
}
