/* ort_float.c - QDQ groups that onnxruntime evaluates in float, reproduced
   operation by operation (htc --float-fallback): Conv, Add, Mul, one-row
   Gemm/MatMul. */

/* One output value of a float group: clip, x / scale, round half to even,
   + zp, saturate (MlasQuantizeLinear: divide, clamp to [qmin - zp,
   qmax - zp], convert with rounding to nearest even, add zp). */
static inline int8_t htc__fq_out(float y, float clip_lo, float clip_hi, float scale, int32_t zp, int32_t qmin,
                                 int32_t qmax)
{
    HTC__FLT_VOLATILE float v;
    float lo = HTC__CAST(float, qmin - zp), hi = HTC__CAST(float, qmax - zp);
    y = y < clip_lo ? clip_lo : y;
    y = y > clip_hi ? clip_hi : y;
    v = y / scale;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return HTC__CAST(int8_t, htc__rne(v) + zp);
}

/* Eight filters at once: acc[j] continues its chain of fused
   multiply-adds over n taps, acc[j] = fma(col[k], float(w[k][j] - zp[j]) *
   s[j], acc[j]). Each lane is one filter's sequential sum, so the AVX2+FMA
   version (eight lanes of vfmadd) gives the scalar version's bits. */
static HTC__UNUSED void htc__fdot8_c(const float *col, const int8_t *w, int32_t n, const int32_t *zp, const float *s,
                                     float *acc)
{
    int32_t k, j;
    for (k = 0; k < n; k++)
        for (j = 0; j < 8; j++) {
            HTC__FLT_VOLATILE float wv = HTC__CAST(float, w[k * 8 + j] - zp[j]) * s[j];
            acc[j] = htc__fmaf(col[k], wv, acc[j]);
        }
}

#ifdef HTC__AVX2
static HTC__FMA_FN HTC__UNUSED void htc__fdot8_fma(const float *col, const int8_t *w, int32_t n, const int32_t *zp,
                                                   const float *s, float *acc)
{
    const __m256i z = _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, zp)));
    const __m256 sv = _mm256_loadu_ps(s);
    __m256 a = _mm256_loadu_ps(acc);
    int32_t k;
    for (k = 0; k < n; k++) {
        const __m256i wi = _mm256_cvtepi8_epi32(_mm_loadl_epi64(HTC__CAST(const __m128i *, HTC__CAST(const void *, w + k * 8))));
        const __m256 wv = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(wi, z)), sv);
        a = _mm256_fmadd_ps(_mm256_set1_ps(col[k]), wv, a);
    }
    _mm256_storeu_ps(acc, a);
}
#endif

/* Per output pixel and group, up to 64 filters (8 blocks of 8) at a time:
   the taps are gathered (im2col) in chunks of 128 -- MLAS's slices are
   whole multiples of 128, or all of K -- and every block continues its sums
   over the chunk; when a slice ends its partial sums are added to the
   totals. Then bias, clip and quantization. About 1.5 kB of stack. */
#define HTC__FCONV_CHUNK 128
#define HTC__FCONV_BLOCKS 8

/* gemm_m1: MlasSgemmKernelM1Avx for one row of A and B not transposed: the
   products and sums of each group of taps in order, each rounded (vmulps,
   vaddps), the group's sum added to the output, which starts as the bias. */
static HTC__UNUSED void htc__fgemm_m1(const htc__fconv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t K = p->in_c, N = p->out_c;
    int32_t n, k;
    for (n = 0; n < N; n++) {
        const int8_t *w = p->weights + (size_t)(n / 8) * K * 8 + n % 8;
        const int32_t zp = p->w_zp ? p->w_zp[p->per_channel ? n : 0] : 0;
        const float s = p->w_scale[p->per_channel ? n : 0];
        volatile float acc = p->bias ? p->bias[n] : 0.0f;
        k = 0;
        while (k < K) {
            const int32_t g = K - k >= 4 ? 4 : K - k >= 2 ? 2 : 1;
            volatile float t = 0.0f;
            int32_t i;
            for (i = 0; i < g; i++, k++) {
                volatile float wv = HTC__CAST(float, w[(size_t)k * 8] - zp) * s;
                volatile float pr = p->x_deq[HTC__CAST(uint8_t, in[k])] * wv;
                t = i ? t + pr : pr;
            }
            acc = t + acc;
        }
        out[n] = htc__fq_out(acc, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
    }
}

static HTC__UNUSED void htc__fconv2d(const htc__fconv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t khkw = p->k_h * p->k_w, K = p->group_in * khkw, kb = p->k_block;
    const int32_t groups = p->out_c / p->group_out, nblk = (p->group_out + 7) / 8;
    float col[HTC__FCONV_CHUNK], acc[HTC__FCONV_BLOCKS * 8], tot[HTC__FCONV_BLOCKS * 8], s8[HTC__FCONV_BLOCKS * 8];
    int32_t zp8[HTC__FCONV_BLOCKS * 8];
    int32_t b, oy, ox, g, b0, k0, i, j;
#ifdef HTC__AVX2
    const int fma = htc__have_fma();
#endif
    if (p->gemm_m1) {
        htc__fgemm_m1(p, in, out);
        return;
    }
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
                const int8_t *in_px = in + (size_t)b * p->in_h * p->in_w * p->in_c;
                int8_t *o = out + ((size_t)(b * p->out_h + oy) * p->out_w + ox) * p->out_c;
                for (g = 0; g < groups; g++)
                    for (b0 = 0; b0 < nblk; b0 += HTC__FCONV_BLOCKS) {
                        const int32_t nb = nblk - b0 < HTC__FCONV_BLOCKS ? nblk - b0 : HTC__FCONV_BLOCKS;
                        const int32_t f0 = b0 * 8;                          /* first filter, within the group */
                        const int32_t nf = p->group_out - f0 < nb * 8 ? p->group_out - f0 : nb * 8;
                        int first = 1;
                        for (j = 0; j < nb * 8; j++) {
                            const int32_t ch = p->per_channel ? g * p->group_out + f0 + j : 0;
                            zp8[j] = j < nf && p->w_zp ? p->w_zp[ch] : 0;
                            s8[j] = j < nf ? p->w_scale[ch] : 0.0f;
                            acc[j] = tot[j] = 0.0f;
                        }
                        for (k0 = 0; k0 < K; k0 += HTC__FCONV_CHUNK) {
                            const int32_t n = K - k0 < HTC__FCONV_CHUNK ? K - k0 : HTC__FCONV_CHUNK;
                            int32_t c = k0 / khkw, ky = (k0 % khkw) / p->k_w, kx = k0 % p->k_w;
                            for (i = 0; i < n; i++) {       /* im2col: tap k0 + i = (c, ky, kx) */
                                const int32_t iy = iy0 + ky * p->dil_h, ix = ix0 + kx * p->dil_w;
                                col[i] = iy >= 0 && iy < p->in_h && ix >= 0 && ix < p->in_w
                                             ? p->x_deq[HTC__CAST(uint8_t, in_px[((size_t)iy * p->in_w + ix) * p->in_c +
                                                                                   g * p->group_in + c])]
                                             : 0.0f;
                                if (++kx == p->k_w) {
                                    kx = 0;
                                    if (++ky == p->k_h) ky = 0, c++;
                                }
                            }
                            for (j = 0; j < nb; j++) {
                                const int8_t *w = p->weights + ((size_t)(g * nblk + b0 + j) * K + k0) * 8;
#ifdef HTC__AVX2
                                if (fma) htc__fdot8_fma(col, w, n, zp8 + j * 8, s8 + j * 8, acc + j * 8);
                                else
#endif
                                    htc__fdot8_c(col, w, n, zp8 + j * 8, s8 + j * 8, acc + j * 8);
                            }
                            if ((k0 + n) % kb == 0 || k0 + n == K) {   /* the end of a slice */
                                for (j = 0; j < nb * 8; j++) {
                                    tot[j] = first ? acc[j] : tot[j] + acc[j];
                                    acc[j] = 0.0f;
                                }
                                first = 0;
                            }
                        }
                        for (j = 0; j < nf; j++) {
                            const int32_t m = g * p->group_out + f0 + j;
                            const float y = p->bias ? tot[j] + p->bias[m] : tot[j];
                            o[m] = htc__fq_out(y, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
                        }
                    }
            }
}

static HTC__UNUSED void htc__fadd_s8(const htc__fbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const float x = p->a_deq[HTC__CAST(uint8_t, a[p->a_scalar ? 0 : i])];
        const float y = p->b_deq[HTC__CAST(uint8_t, b[p->b_scalar ? 0 : i])];
        out[i] = htc__fq_out(x + y, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
    }
}

static HTC__UNUSED void htc__fmul_s8(const htc__fbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const float x = p->a_deq[HTC__CAST(uint8_t, a[p->a_scalar ? 0 : i])];
        const float y = p->b_deq[HTC__CAST(uint8_t, b[p->b_scalar ? 0 : i])];
        HTC__FLT_VOLATILE float v = x * y;
        out[i] = htc__fq_out(v, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
    }
}

/* A float from its bits (the constants below are MLAS's, written as bits:
   hexadecimal float literals are not C++ before C++17). */
static inline float htc__fbits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* exp(x + negmax) as MlasComputeSumExpF32KernelFma3 (x86-64 AVX2 + FMA)
   computes one lane: clamp below at -88.376, m = round(x / ln 2) by the
   rounding bias, x - m ln 2 in two fused steps, a degree-6 polynomial by
   fused multiply-adds (MlasExpConstants; poly_5 = poly_6 = 1), times 2^m
   built in the exponent field. The AVX-512 kernel (vscalefps) gives the
   same bits whenever 2^m is a normal float. */
static inline float htc__ort_sumexp1(float x, float negmax)
{
    HTC__FLT_VOLATILE float v = x + negmax, t, m, p;
    volatile float e;                   /* not contracted into the sum */
    const float bias = 12582912.0f, lower = htc__fbits(0xc2b0c0a5u);
    float tb;
    uint32_t u;
    v = v < lower ? lower : v;
    t = htc__fmaf(v, htc__fbits(0x3fb8aa3bu), bias);             /* x / ln2 + bias */
    m = t - bias;
    v = htc__fmaf(m, htc__fbits(0xbf317200u), v);                /* - m * ln2_high */
    v = htc__fmaf(m, htc__fbits(0xb5bfbe8eu), v);                /* - m * ln2_low */
    p = htc__fmaf(htc__fbits(0x3ab4a000u), v, htc__fbits(0x3c092f6eu));
    p = htc__fmaf(p, v, htc__fbits(0x3d2aadadu));
    p = htc__fmaf(p, v, htc__fbits(0x3e2aaa28u));
    p = htc__fmaf(p, v, htc__fbits(0x3efffffbu));
    p = htc__fmaf(p, v, 1.0f);
    p = htc__fmaf(p, v, 1.0f);
    tb = t;
    memcpy(&u, &tb, sizeof u);
    u = (u << 23) + 0x3f800000u;                                 /* 2^m */
    e = p * htc__fbits(u);
    return e;
}

/* Softmax of a QDQ group onnxruntime computes in float (--float-fallback;
   htc__qsoftmax_params read as the float group's: table[b] is the
   DequantizeLinear of stored byte b, y_scale and out_zp (stored domain)
   the QuantizeLinear's). Per row, as MlasComputeSoftmax on x86-64 with
   AVX2: the maximum; e_i = exp(x_i - max) (htc__ort_sumexp1); the sum of
   the e_i in eight lanes (lane j adds e_j, e_j+8, ... in order, as the
   kernel's ymm accumulator) reduced ((l0 + l1) + (l2 + l3)) + ((l4 + l5) +
   (l6 + l7)) (vhaddps twice, the halves added); y_i = e_i * (1 / sum); then
   QuantizeLinear (y / y_scale, clamped, rounded half to even, + zp). The
   e_i are computed again for the output rather than stored. */
static HTC__UNUSED void htc__fsoftmax_s8(const htc__qsoftmax_params *p, const int8_t *in, int8_t *out)
{
    int32_t r, i;
    for (r = 0; r < p->outer; r++) {
        const int8_t *x = in + (size_t)r * p->depth;
        int8_t *y = out + (size_t)r * p->depth;
        float mx = p->table[HTC__CAST(uint8_t, x[0])], negmax, lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        HTC__FLT_VOLATILE float sum, inv;
        for (i = 1; i < p->depth; i++) {
            const float v = p->table[HTC__CAST(uint8_t, x[i])];
            mx = v > mx ? v : mx;
        }
        negmax = -mx;
        for (i = 0; i < p->depth; i++) lane[i % 8] += htc__ort_sumexp1(p->table[HTC__CAST(uint8_t, x[i])], negmax);
        sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        inv = 1.0f / sum;
        for (i = 0; i < p->depth; i++) {
            volatile float v = htc__ort_sumexp1(p->table[HTC__CAST(uint8_t, x[i])], negmax) * inv;
            y[i] = htc__fq_out(v, -3.40282347e+38f, 3.40282347e+38f, p->y_scale, p->out_zp, -128, 127);
        }
    }
}
