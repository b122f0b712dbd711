/* act_s16.c - int16 RELU, RELU6, LEAKY_RELU, ABS, RSQRT, LOGISTIC and TANH,
   bit-exact with TFLite Micro's ReluQuantized, Relu6Quantized,
   QuantizeLeakyRelu, elementwise.cc and reference_integer_ops::Logistic / Tanh. */

/* mode 0 RELU: out_zp + mulq(x - in_zp) clamped to [lo, hi];
   mode 1 RELU6: x clamped to [lo, hi] (the input's 0 and 6);
   mode 2 LEAKY_RELU: x - in_zp >= 0 scaled by (m_pos, s_pos), else by
   (m_neg, s_neg) (m_neg < 0, a negative alpha: minus the product by -m_neg),
   plus out_zp, saturated;
   mode 5 ABS: |x| (zero points 0), scaled by (m_pos, s_pos) unless m_pos is
   0 (equal scales), saturated; mode 6 ABS of an unquantized tensor: |x| as
   int16 (std::abs: -32768 stays -32768);
   mode 7 RSQRT (elementwise.cc RsqrtEvalQuantized, zero points 0): 32767 at
   x <= 0 (x < 0 fails TFLM's inference), else 1/sqrt(x) by
   htc__inv_sqrt as mulq(1, m, s + 20), rescaled by (m_pos, s_pos - 20),
   saturated. */
static HTC__UNUSED void htc__act_s16(const htc__act16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const int32_t x = in[i];
        int32_t v;
        if (p->mode == 1) {
            v = x;
        } else if (p->mode == 5) {
            v = x < 0 ? -x : x;
            if (p->m_pos) v = htc__mulq(v, p->m_pos, p->s_pos);
        } else if (p->mode == 6) {
            out[i] = HTC__CAST(int16_t, x < 0 && x > -32768 ? -x : x);
            continue;
        } else if (p->mode == 7) {
            int32_t m;
            int s;
            if (x <= 0) {
                v = 32767;
            } else {
                htc__inv_sqrt(x, &m, &s);
                v = htc__mulq(htc__mulq(1, m, s + 20), p->m_pos, p->s_pos - 20);
            }
        } else if (p->mode == 0 || x - p->in_zp >= 0) {
            v = p->out_zp + htc__mulq(x - p->in_zp, p->m_pos, p->s_pos);
        } else if (p->m_neg >= 0) {
            v = p->out_zp + htc__mulq(x - p->in_zp, p->m_neg, p->s_neg);
        } else {                        /* a negative alpha: TFLM negates the product by -m_neg */
            v = p->out_zp - htc__mulq(x - p->in_zp, -p->m_neg, p->s_neg);
        }
        out[i] = HTC__CAST(int16_t, htc__clamp(v, p->lo, p->hi));
    }
}

/* int16 LOGISTIC (mode 3) and TANH (mode 4): htc.h's htc__sigmoid16 /
   htc__tanh16 with TFLM's input multiplier m_pos and left shift s_pos;
   tab is the shared 256-entry sigmoid table (a constant of the header). */
static HTC__UNUSED void htc__act_s16_sig(const htc__act16_params *p, const int16_t *in, const int16_t *tab, int16_t *out)
{
    int32_t i;
    if (p->mode == 3)
        for (i = 0; i < p->size; i++) out[i] = htc__sigmoid16(in[i], p->m_pos, p->s_pos, tab);
    else
        for (i = 0; i < p->size; i++) out[i] = htc__tanh16(in[i], p->m_pos, p->s_pos, tab);
}
