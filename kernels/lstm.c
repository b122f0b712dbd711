/* lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM with int8 activations and weights
   and an int16 cell state, bit-exact with TFLite Micro's EvalLstm. */

/* One gate for nb rows (batches of a time-major step, else one row): the
   input and recurrent FULLY_CONNECTED (int32 sums, TFLite's multiplier to
   Q3.12, clamped to int16), their saturated sum, then the gate's
   non-linearity: sigmoid (act 0) or tanh (act 1) in Q0.15 through htc.h's
   TFLite int16 kernels (the shared sigmoid table). */
static void htc__lstm_gate(const htc__lstm_params *p, int g, int32_t nb, const int8_t *x, const int8_t *h,
                           const int8_t *wx, const int8_t *wh, const int32_t *bias, const int16_t *tab, int act,
                           int16_t *out)
{
    int32_t r, s, k;
    for (r = 0; r < nb; r++)
        for (s = 0; s < p->state; s++) {
            const int8_t *xr = x + HTC__CAST(size_t, r) * p->in_dim, *hr = h + HTC__CAST(size_t, r) * p->state;
            const int8_t *wxs = wx + HTC__CAST(size_t, s) * p->in_dim, *whs = wh + HTC__CAST(size_t, s) * p->state;
            int32_t a = 0, b = 0, v;
            for (k = 0; k < p->in_dim; k++) a += wxs[k] * (xr[k] - p->x_zp);
            a = htc__clamp(htc__mulq(a + bias[s], p->in_mult[g], p->in_shift[g]), -32768, 32767);
            for (k = 0; k < p->state; k++) b += whs[k] * (hr[k] - p->h_zp);
            b = htc__clamp(htc__mulq(b, p->rec_mult[g], p->rec_shift[g]), -32768, 32767);
            v = htc__clamp(a + b, -32768, 32767);
            out[HTC__CAST(size_t, r) * p->state + s] = act ? htc__tanh16(v, 0, 0, tab) : htc__sigmoid16(v, 0, 0, tab);
        }
}

/* x: [batches][steps][in_dim] (time major: [steps][batches][in_dim]);
   weights [state][in_dim] and [state][state] per gate (input, forget, cell,
   output), int32 biases [state]; out like x with state values per row.
   hidden [batches][state] (int8) and cell [batches][state] (int16) are the
   state, read and updated: variable tensors of the arena, set by the
   header's NAME_reset as TFLM resets them (hidden state to its zero point,
   cell state to 0); scratch holds 4 int16 vectors of one step. */
static HTC__UNUSED void htc__lstm_s8(const htc__lstm_params *p, const int8_t *x, const int8_t *wxi, const int8_t *wxf,
                                     const int8_t *wxc, const int8_t *wxo, const int8_t *whi, const int8_t *whf,
                                     const int8_t *whc, const int8_t *who, const int32_t *bi, const int32_t *bf,
                                     const int32_t *bc, const int32_t *bo, const int16_t *tab, int8_t *out,
                                     int8_t *hidden, int16_t *cell, int16_t *scratch)
{
    const int32_t nb = p->time_major ? p->batches : 1, n = nb * p->state;
    const int32_t outer = p->time_major ? 1 : p->batches;
    int16_t *fg = scratch, *ig = scratch + n, *cg = scratch + 2 * n, *tmp = scratch + 3 * n;
    int32_t b, t, i;
    for (b = 0; b < outer; b++)
        for (t = 0; t < p->steps; t++) {
            /* offsets of this step: batch major [b][t], time major [t][all batches] */
            const size_t row = p->time_major ? HTC__CAST(size_t, t) * nb : HTC__CAST(size_t, b) * p->steps + t;
            const int8_t *xt = x + row * p->in_dim;
            int8_t *h = hidden + HTC__CAST(size_t, b) * p->state;
            int16_t *c = cell + HTC__CAST(size_t, b) * p->state;
            htc__lstm_gate(p, 1, nb, xt, h, wxf, whf, bf, tab, 0, fg);
            htc__lstm_gate(p, 0, nb, xt, h, wxi, whi, bi, tab, 0, ig);
            htc__lstm_gate(p, 2, nb, xt, h, wxc, whc, bc, tab, 1, cg);
            /* cell = forget * cell + input * cell gate, saturated, clipped */
            for (i = 0; i < n; i++) {
                int32_t f = htc__clamp(htc__mulq(fg[i] * c[i], p->fc_mult, p->fc_shift), -32768, 32767);
                int32_t u = htc__clamp(htc__mulq(ig[i] * cg[i], p->ic_mult, p->ic_shift), -32768, 32767);
                int32_t v = htc__clamp(f + u, -32768, 32767);
                if (p->clip >= 0) v = htc__clamp(v, -p->clip, p->clip);
                c[i] = HTC__CAST(int16_t, v);
            }
            htc__lstm_gate(p, 3, nb, xt, h, wxo, who, bo, tab, 0, tmp);
            /* hidden = tanh(cell) * output gate, requantized to int8 */
            for (i = 0; i < n; i++) {
                int32_t th = htc__tanh16(c[i], p->tanh_mult, p->tanh_shift, tab);
                h[i] = HTC__CAST(int8_t, htc__clamp(htc__mulq(th * tmp[i], p->out_mult, p->out_shift) + p->h_zp, -128, 127));
            }
            memcpy(out + row * p->state, h, HTC__CAST(size_t, n));
        }
}
