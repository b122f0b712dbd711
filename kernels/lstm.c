/* lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM with int8 weights and an int16 cell
   state, bit-exact with TFLite Micro's EvalLstm: int8 activations with
   int32 biases (8x8->16) or int16 activations with int64 biases (16x8->16). */

/* One gate for nb rows (batches of a time-major step, else one row): the
   input and recurrent FULLY_CONNECTED (int8: int32 sums and TFLite's
   multiplier; int16: int64 sums and its 64-bit multiplier) to Q3.12,
   clamped to int16, their saturated sum, then the gate's non-linearity:
   sigmoid (act 0) or tanh (act 1) in Q0.15 through htc.h's TFLite int16
   kernels (the shared sigmoid table). x, h: int8 or int16 (s16). */
static void htc__lstm_gate(const htc__lstm_params *p, int g, int32_t nb, const void *x, const void *h,
                           const int8_t *wx, const int8_t *wh, const void *bias, const int16_t *tab, int act,
                           int s16, int16_t *out)
{
    int32_t r, s, k;
    for (r = 0; r < nb; r++)
        for (s = 0; s < p->state; s++) {
            const size_t xr = HTC__CAST(size_t, r) * p->in_dim, hr = HTC__CAST(size_t, r) * p->state;
            const int8_t *wxs = wx + HTC__CAST(size_t, s) * p->in_dim, *whs = wh + HTC__CAST(size_t, s) * p->state;
            int32_t a, b, v;
            if (s16) {
                const int16_t *xs = HTC__CAST(const int16_t *, x) + xr, *hs = HTC__CAST(const int16_t *, h) + hr;
                int64_t a64 = 0, b64 = 0;
                for (k = 0; k < p->in_dim; k++) a64 += wxs[k] * HTC__CAST(int32_t, xs[k]);
                for (k = 0; k < p->state; k++) b64 += whs[k] * HTC__CAST(int32_t, hs[k]);
                a = htc__mulq64(a64 + HTC__CAST(const int64_t *, bias)[s], p->in_mult[g], p->in_shift[g]);
                b = htc__mulq64(b64, p->rec_mult[g], p->rec_shift[g]);
            } else {
                const int8_t *xs = HTC__CAST(const int8_t *, x) + xr, *hs = HTC__CAST(const int8_t *, h) + hr;
                a = 0;
                b = 0;
                for (k = 0; k < p->in_dim; k++) a += wxs[k] * (xs[k] - p->x_zp);
                for (k = 0; k < p->state; k++) b += whs[k] * (hs[k] - p->h_zp);
                a = htc__mulq(a + HTC__CAST(const int32_t *, bias)[s], p->in_mult[g], p->in_shift[g]);
                b = htc__mulq(b, p->rec_mult[g], p->rec_shift[g]);
            }
            a = htc__clamp(a, -32768, 32767);
            b = htc__clamp(b, -32768, 32767);
            v = htc__clamp(a + b, -32768, 32767);
            out[HTC__CAST(size_t, r) * p->state + s] = act ? htc__tanh16(v, 0, 0, tab) : htc__sigmoid16(v, 0, 0, tab);
        }
}

/* x: [batches][steps][in_dim] (time major: [steps][batches][in_dim]);
   w[0..3] input weights [state][in_dim], w[4..7] recurrent weights
   [state][state] (gates input, forget, cell, output), b[0..3] biases
   [state]; out like x with state values per row. hidden [batches][state]
   and cell [batches][state] (int16) are the state, read and updated:
   variable tensors of the arena, set by the header's NAME_reset as TFLM
   resets them (int8 hidden state to its zero point, else 0); scratch holds
   4 int16 vectors of one step. */
static void htc__lstm_core(const htc__lstm_params *p, const void *x, const int8_t *const *w, const void *const *bias,
                           const int16_t *tab, void *out, void *hidden, int16_t *cell, int16_t *scratch, int s16)
{
    const int32_t nb = p->time_major ? p->batches : 1, n = nb * p->state;
    const int32_t outer = p->time_major ? 1 : p->batches, lo = s16 ? -32768 : -128, hi = s16 ? 32767 : 127;
    const size_t es = s16 ? 2 : 1;
    int16_t *fg = scratch, *ig = scratch + n, *cg = scratch + 2 * n, *og = scratch + 3 * n;
    int32_t b, t, i;
    for (b = 0; b < outer; b++)
        for (t = 0; t < p->steps; t++) {
            /* rows of this step: batch major [b][t], time major [t][all batches] */
            const size_t row = p->time_major ? HTC__CAST(size_t, t) * nb : HTC__CAST(size_t, b) * p->steps + t;
            const void *xt = HTC__CAST(const uint8_t *, x) + row * p->in_dim * es;
            void *h = HTC__CAST(uint8_t *, hidden) + HTC__CAST(size_t, b) * p->state * es;
            int16_t *c = cell + HTC__CAST(size_t, b) * p->state;
            htc__lstm_gate(p, 1, nb, xt, h, w[1], w[5], bias[1], tab, 0, s16, fg);
            htc__lstm_gate(p, 0, nb, xt, h, w[0], w[4], bias[0], tab, 0, s16, ig);
            htc__lstm_gate(p, 2, nb, xt, h, w[2], w[6], bias[2], tab, 1, s16, cg);
            /* cell = forget * cell + input * cell gate, saturated, clipped */
            for (i = 0; i < n; i++) {
                int32_t f = htc__clamp(htc__mulq(fg[i] * c[i], p->fc_mult, p->fc_shift), -32768, 32767);
                int32_t u = htc__clamp(htc__mulq(ig[i] * cg[i], p->ic_mult, p->ic_shift), -32768, 32767);
                int32_t v = htc__clamp(f + u, -32768, 32767);
                if (p->clip >= 0) v = htc__clamp(v, -p->clip, p->clip);
                c[i] = HTC__CAST(int16_t, v);
            }
            htc__lstm_gate(p, 3, nb, xt, h, w[3], w[7], bias[3], tab, 0, s16, og);
            /* hidden = tanh(cell) * output gate, requantized to the activation type */
            for (i = 0; i < n; i++) {
                int32_t th = htc__tanh16(c[i], p->tanh_mult, p->tanh_shift, tab);
                int32_t v = htc__clamp(htc__mulq(th * og[i], p->out_mult, p->out_shift) + p->h_zp, lo, hi);
                if (s16) HTC__CAST(int16_t *, h)[i] = HTC__CAST(int16_t, v);
                else HTC__CAST(int8_t *, h)[i] = HTC__CAST(int8_t, v);
            }
            memcpy(HTC__CAST(uint8_t *, out) + row * p->state * es, h, HTC__CAST(size_t, n) * es);
        }
}

/* int8 activations, int32 biases (EvalLstm<int8_t, int8_t, int16_t, int32_t>) */
static HTC__UNUSED void htc__lstm_s8(const htc__lstm_params *p, const int8_t *x, const int8_t *wxi, const int8_t *wxf,
                                     const int8_t *wxc, const int8_t *wxo, const int8_t *whi, const int8_t *whf,
                                     const int8_t *whc, const int8_t *who, const int32_t *bi, const int32_t *bf,
                                     const int32_t *bc, const int32_t *bo, const int16_t *tab, int8_t *out,
                                     int8_t *hidden, int16_t *cell, int16_t *scratch)
{
    const int8_t *const w[8] = {wxi, wxf, wxc, wxo, whi, whf, whc, who};
    const void *const b[4] = {bi, bf, bc, bo};
    htc__lstm_core(p, x, w, b, tab, out, hidden, cell, scratch, 0);
}

/* int16 activations, int64 biases (EvalLstm<int16_t, int8_t, int16_t, int64_t>) */
static HTC__UNUSED void htc__lstm_s16(const htc__lstm_params *p, const int16_t *x, const int8_t *wxi, const int8_t *wxf,
                                      const int8_t *wxc, const int8_t *wxo, const int8_t *whi, const int8_t *whf,
                                      const int8_t *whc, const int8_t *who, const int64_t *bi, const int64_t *bf,
                                      const int64_t *bc, const int64_t *bo, const int16_t *tab, int16_t *out,
                                      int16_t *hidden, int16_t *cell, int16_t *scratch)
{
    const int8_t *const w[8] = {wxi, wxf, wxc, wxo, whi, whf, whc, who};
    const void *const b[4] = {bi, bf, bc, bo};
    htc__lstm_core(p, x, w, b, tab, out, hidden, cell, scratch, 1);
}
