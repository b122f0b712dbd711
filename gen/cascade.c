/* cascade.c - RAM below the per-layer bound: consecutive spatial layers
   run band by band (cascades), grouping and band heights found exactly. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "../htc.h"

/* How an op's output rows map to its input rows. */
enum { BK_NONE, BK_WINDOW, BK_PAD, BK_ROWS };

/* Overhead model (cycles on an in-order MCU): moving a kept halo row costs
   per byte; each extra kernel call costs its set-up (the convolution
   kernels prepare per-channel requantization data per call) and the step
   loop's bookkeeping. Rows are never recomputed, so there are no extra MACs. */
#define MOVE_CYCLES_PER_BYTE 0.3
#define CALL_CYCLES 150.0
#define CALL_CYCLES_PER_CHANNEL 12.0

/* Search limits: segments of at most CAS_MAX_OPS ops, sinks of at most
   CAS_MAX_ROWS rows; every band height is tried until CAS_MAX_WORK op-steps
   (ops x steps x 2 passes) have been simulated, then only band heights of
   at most CAS_LATE_STEPS steps, with one warning (counted, never timed: the
   same inputs give the same plan; HTC_CASCADE_WORK=N lowers the budget to N
   op-steps, never raises it: tests). */
#define CAS_MAX_OPS 160
#define CAS_MAX_ROWS 4096
#define CAS_MAX_WORK 50000000LL
#define CAS_LATE_STEPS 64

typedef struct {
    int kind;                   /* BK_* */
    int s, keff, pt;            /* BK_WINDOW: stride, (k - 1) * dilation + 1, top padding; BK_PAD: rows before */
    int h_in, h_out;            /* rows of the row-mapped inputs, of the output */
    int nmap;
    int map[OP_MAX_IO];         /* input slots whose rows follow the output's */
} RowMap;

typedef struct {
    int64_t peak;               /* modelled live bytes over the segment */
    double over;                /* modelled overhead cycles */
    int band;
} Cand;

typedef struct {
    Graph *g;
    int align;
    RowMap *rm;                 /* per op */
    int *nread, **rop, **rslot; /* per tensor: readers (op, slot) */
    int *root;                  /* per tensor: plan root, with in-place aliases of op `inplace_by` undone */
    int *alias_by;              /* per tensor: the op whose in-place write made it an alias, or -1 */
    int64_t *single;            /* per op: live bytes layer by layer */
    double total_cycles;
    /* per segment, filled by scan() */
    int ncand;
    Cand *cand;
    /* scratch, allocated once */
    int *iw;                    /* simulate: 6 * CAS_MAX_OPS */
    int64_t *calls;             /* simulate: CAS_MAX_OPS */
    int *caps;                  /* scan: CAS_MAX_OPS */
    Cand *all;                  /* scan: CAS_MAX_ROWS + 1 */
    struct OpSim *os;           /* scan_l: CAS_MAX_OPS */
    int64_t *sbuf;              /* scan_l: 3 x CAS_MAX_BANDS x CAS_MAX_OPS suffix sums */
    char *sbad;                 /* scan_l: CAS_MAX_BANDS x CAS_MAX_OPS */
    int *bandv;                 /* scan_l: CAS_MAX_BANDS */
    int64_t *rowb;              /* per op: bytes of one row of its output */
    int64_t work, max_work;     /* op-steps simulated so far, and the budget */
    int check;                  /* HTC_CASCADE_CHECK: jumps against every step */
    int *jw;                    /* simulate_ops: 5 * CAS_MAX_OPS */
    int64_t *jmove;             /* simulate_ops: CAS_MAX_OPS */
    int warned;
} Ctx;

static int64_t align_up(int64_t x, int a) { return (x + a - 1) / a * a; }

static int is4(const Tensor *t) { return t->rank == 4 && t->shape[0] == 1; }

static int fn_is(const Op *op, const char *fn)
{
    return op->kernel_fn && !strcmp(op->kernel_fn, fn) && (!op->variant || !*op->variant);
}

/* Can op run on a band of its output rows with its own kernel (a copy of
   its parameter block with the row counts changed and the pointers moved)? */
static int row_map(const Graph *g, const Target *t, const Op *op, RowMap *m)
{
    memset(m, 0, sizeof *m);
    if (!t->engines[op->engine].is_cpu || op->tile || op->s16 || !op->params_type || op->params_fmt) return 0;
    const Tensor *out = &g->tensors[op->out[0]];
    if (!is4(out) || op->nout != 1 || out->variable) return 0;
    m->h_out = out->shape[1];
    const Tensor *in = op->nin > 0 && op->in[0] >= 0 ? &g->tensors[op->in[0]] : NULL;
    switch (op->kind) {
    case OP_CONV2D: {
        if (strcmp(op->params_type, "htc__conv_params") || !(fn_is(op, "htc__conv2d_s8") || fn_is(op, "htc__dwconv2d_s8")))
            return 0;
        const htc__conv_params *p = op->params;
        if (!in || !is4(in) || in->shape[1] != p->in_h || p->batches != 1 || p->out_h != m->h_out) return 0;
        *m = (RowMap){BK_WINDOW, p->stride_h, (p->k_h - 1) * p->dil_h + 1, p->pad_top, p->in_h, p->out_h, 1, {0}};
        return 1;
    }
    case OP_AVGPOOL: case OP_MAXPOOL: {
        if (strcmp(op->params_type, "htc__pool_params") || op->global ||
            !(fn_is(op, "htc__avgpool_s8") || fn_is(op, "htc__maxpool_s8")))
            return 0;
        const htc__pool_params *p = op->params;
        if (!in || !is4(in) || in->shape[1] != p->in_h || p->batches != 1 || p->out_h != m->h_out) return 0;
        *m = (RowMap){BK_WINDOW, p->stride_h, p->k_h, p->pad_top, p->in_h, p->out_h, 1, {0}};
        return 1;
    }
    case OP_PAD: {
        if (strcmp(op->params_type, "htc__pad_params") || !fn_is(op, "htc__pad")) return 0;
        const htc__pad_params *p = op->params;
        /* rank 5, the 4-D shape at 1..4: H is dimension 2 */
        if (!in || !is4(in) || p->rank != 5 || p->in_shape[0] != 1 || p->in_shape[1] != 1 || p->before[0] || p->after[0] ||
            p->before[1] || p->after[1] || p->in_shape[2] != in->shape[1])
            return 0;
        *m = (RowMap){BK_PAD, 1, 1, p->before[2], in->shape[1], m->h_out, 1, {0}};
        return 1;
    }
    case OP_ADD: case OP_MUL: {
        if (strcmp(op->params_type, "htc__binary_params") ||
            !(fn_is(op, "htc__add_s8") || fn_is(op, "htc__mul_s8")) || op->nin != 2)
            return 0;
        const htc__binary_params *p = op->params;
        if (p->out_shape[0] != 1 || p->out_shape[1] != m->h_out) return 0;
        m->kind = BK_ROWS;
        m->h_in = m->h_out;
        for (int k = 0; k < 2; k++) {
            const Tensor *x = &g->tensors[op->in[k]];
            int32_t hs = k ? p->b_stride[1] : p->a_stride[1];
            if (x->rank == 4 && x->shape[1] == m->h_out && hs > 0) m->map[m->nmap++] = k;
            else if (hs != 0 && m->h_out > 1) return 0;     /* its rows do not follow the output's */
        }
        return 1;
    }
    case OP_CONCAT: {
        if (strcmp(op->params_type, "htc__concat_params") || !fn_is(op, "htc__concat")) return 0;
        const htc__concat_params *p = op->params;
        if (p->outer != out->shape[1] * out->shape[2]) return 0;    /* along channels */
        for (int k = 0; k < op->nin; k++) {
            const Tensor *x = &g->tensors[op->in[k]];
            if (!is4(x) || x->shape[1] != m->h_out || x->shape[2] != out->shape[2]) return 0;
            m->map[m->nmap++] = k;
        }
        m->kind = BK_ROWS;
        m->h_in = m->h_out;
        return 1;
    }
    case OP_TABLE: {
        if (strcmp(op->params_type, "htc__lut_params") || !fn_is(op, "htc__lut8")) return 0;
        if (!in || !is4(in) || in->shape[1] != m->h_out || tensor_bytes(in) != tensor_bytes(out)) return 0;
        *m = (RowMap){BK_ROWS, 1, 1, 0, m->h_out, m->h_out, 1, {0}};
        return 1;
    }
    default: return 0;
    }
}

/* Input rows [lo, hi) that output rows [a, b) read (a < b), clipped. */
static void rows_in(const RowMap *m, int a, int b, int *lo, int *hi)
{
    int l = a, h = b;
    if (m->kind == BK_WINDOW) {
        l = a * m->s - m->pt;
        h = (b - 1) * m->s - m->pt + m->keff;
    } else if (m->kind == BK_PAD) {
        l = a - m->pt;
        h = b - m->pt;
    }
    if (l < 0) l = 0;
    if (l > m->h_in) l = m->h_in;
    if (h > m->h_in) h = m->h_in;
    if (h < l) h = l;
    *lo = l;
    *hi = h;
}

static int64_t row_bytes(const Tensor *t) { return (int64_t)tensor_bytes(t) / t->shape[1]; }

/* Is [f, l] a cascade: every op row-mapped, every tensor produced before
   l read only inside (at row-mapped slots), op l's output escapes. */
static int seg_valid(const Ctx *c, int f, int l)
{
    const Graph *g = c->g;
    for (int k = f; k <= l; k++) {
        if (c->rm[k].kind == BK_NONE) return 0;
        if (k == l) break;
        int x = g->ops[k].out[0];
        if (g->tensors[x].is_output || !c->nread[x]) return 0;
        for (int r = 0; r < c->nread[x]; r++) {
            int op = c->rop[x][r], slot = c->rslot[x][r], mapped = 0;
            if (op <= k || op > l) return 0;
            for (int j = 0; j < c->rm[op].nmap; j++) mapped |= c->rm[op].map[j] == slot;
            if (!mapped) return 0;
        }
    }
    return 1;
}

/* Bytes live over [f, l] that do not depend on the band: tensors live
   across it, and the full tensors its ops read and write (op l's output,
   inputs from before f), each storage root once. */
static int64_t seg_fixed(const Ctx *c, int f, int l, char *mark)
{
    const Graph *g = c->g;
    int64_t sum = 0;
    memset(mark, 0, (size_t)g->ntensors);
    for (int k = f; k <= l; k++) {
        const Op *op = &g->ops[k];
        for (int j = -1; j < op->nin; j++) {
            int x = j < 0 ? op->out[0] : op->in[j];
            if (x < 0) continue;
            if (j < 0 && k < l) continue;       /* internal: a band buffer */
            if (j >= 0 && g->tensors[x].producer >= f && g->tensors[x].producer < k) continue;
            int r = c->root[x];
            if (mark[r] || g->tensors[r].storage != ST_ARENA) continue;
            mark[r] = 1;
            sum += align_up((int64_t)tensor_bytes(&g->tensors[r]), c->align);
        }
    }
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        if (c->root[i] != i || mark[i] || t->storage != ST_ARENA || t->first_use < 0) continue;
        if (t->first_use < f && t->last_use > l) sum += align_up((int64_t)tensor_bytes(t), c->align);
    }
    return sum;
}

/* The band schedule of [f, l] with `band` rows of op l per step. Pass 1
   finds each band buffer's rows (the most any step needs), pass 2 the
   moves of kept rows. With cs, the step table is written. Returns 0 when
   a step would call a windowed kernel on no input rows. */
typedef struct {
    int64_t bufbytes, moved, calls, macs_done;
    double over;
} SimOut;

static int simulate(const Ctx *c, int f, int l, int band, SimOut *so, Cascade *cs, int *caps)
{
    const Graph *g = c->g;
    int n = l - f + 1, H = c->rm[l].h_out, T = (H + band - 1) / band;
    int *e = c->iw, *en = e + n, *c0 = en + n, *base = c0 + n, *cap = base + n, *orig = cap + n;
    int64_t *calls = c->calls;
    memset(calls, 0, sizeof(int64_t) * (size_t)n);
    memset(so, 0, sizeof *so);
    for (int pass = 0; pass < 2; pass++) {
        memset(e, 0, sizeof(int) * (size_t)n * 5);
        memset(orig, 0, sizeof(int) * (size_t)n);
        if (pass) memcpy(cap, caps, sizeof(int) * (size_t)n);
        for (int t = 1; t <= T; t++) {
            en[n - 1] = t * band < H ? t * band : H;
            c0[n - 1] = e[n - 1];
            for (int k = n - 2; k >= 0; k--) {
                int x = g->ops[f + k].out[0], hi = e[k], lo = INT32_MAX;
                for (int r = 0; r < c->nread[x]; r++) {
                    int q = c->rop[x][r] - f, a, b;
                    const RowMap *m = &c->rm[f + q];
                    if (c0[q] < en[q]) {
                        rows_in(m, c0[q], en[q], &a, &b);
                        if (b > hi) hi = b;
                        if (a < lo) lo = a;
                    } else if (en[q] < m->h_out) {
                        rows_in(m, en[q], en[q] + 1, &a, &b);
                        if (a < lo) lo = a;
                    }
                }
                en[k] = hi;
                int bs = lo < hi ? lo : hi;
                if (bs < base[k]) bs = base[k];
                base[k] = bs;
                c0[k] = e[k] > bs ? e[k] : bs;
                if (!pass) {
                    if (hi - bs > cap[k]) cap[k] = hi - bs;
                    continue;
                }
                /* keep rows [bs, e[k]) at the front when the new rows do not fit */
                int from = 0, mv = 0;
                if (hi - orig[k] > cap[k]) {
                    from = bs - orig[k];
                    mv = e[k] > bs ? e[k] - bs : 0;
                    orig[k] = bs;
                    so->moved += (int64_t)mv * row_bytes(&g->tensors[x]);
                }
                if (cs) {       /* buffer k: op f + k's output */
                    int32_t *row = cs->tab + (size_t)(t - 1) * (size_t)cs->ncols + cs->col_buf[k];
                    row[0] = orig[k], row[1] = from, row[2] = mv;
                }
            }
            if (pass) {
                for (int k = 0; k < n; k++) {
                    const RowMap *m = &c->rm[f + k];
                    int32_t *row = cs ? cs->tab + (size_t)(t - 1) * (size_t)cs->ncols + cs->col_op[k] : NULL;
                    if (row) row[0] = c0[k], row[1] = en[k];
                    if (c0[k] >= en[k]) {
                        if (row) row[1] = row[0];
                        continue;
                    }
                    calls[k]++;
                    so->macs_done += g->ops[f + k].macs * (en[k] - c0[k]) / (m->h_out ? m->h_out : 1);
                    for (int j = 0; j < m->nmap; j++) {
                        int a, b;
                        rows_in(m, c0[k], en[k], &a, &b);
                        if (m->kind == BK_WINDOW && b <= a) return 0;
                        if (row) row[2 + 2 * j] = a, row[3 + 2 * j] = b;
                    }
                }
            }
            memcpy(e, en, sizeof(int) * (size_t)n);
        }
        if (!pass) {
            if (e[n - 1] != H) return 0;
            memcpy(caps, cap, sizeof(int) * (size_t)n);
        }
    }
    for (int k = 0; k < n; k++) {
        const Op *op = &g->ops[f + k];
        so->calls += calls[k];
        double per = CALL_CYCLES + (op->kind == OP_CONV2D ? CALL_CYCLES_PER_CHANNEL * op->out_c : 0);
        if (calls[k] > 1) so->over += per * (double)(calls[k] - 1);
        if (k < n - 1) so->bufbytes += align_up((int64_t)caps[k] * row_bytes(&g->tensors[op->out[0]]), c->align);
    }
    so->over += MOVE_CYCLES_PER_BYTE * (double)so->moved;
    return 1;
}

/* simulate() for every segment [f, l], f >= F, at once: op k's schedule
   depends only on the ops after it (its readers, all inside), so one pass
   over [F, l] gives each op's part of every segment's totals. Per op k
   (index k - F): band buffer bytes (k < l), call overhead cycles (an
   integer: every sum of them is exact in a double, whatever the order),
   rows' bytes moved, and whether a windowed call would read no rows.
   Returns 0 when no segment ending at l works at this band. */
typedef struct OpSim {
    int64_t buf, moved, over_int;
    int fail;
} OpSim;

/* rows_in, and in *room the steps by which [a, b) may move down (by
   `band` rows a step) before the clipping changes: 0 when it clips at the
   top now (the clipping would change). */
static void rows_in_room(const RowMap *m, int a, int b, int *lo, int *hi, int band, int64_t *room)
{
    int64_t l = a, h = b;
    if (m->kind == BK_WINDOW) {
        l = (int64_t)a * m->s - m->pt;
        h = (int64_t)(b - 1) * m->s - m->pt + m->keff;
    } else if (m->kind == BK_PAD) {
        l = a - m->pt;
        h = b - m->pt;
    }
    if (l < 0 || h > m->h_in || l > h) *room = 0;
    else if ((m->h_in - h) / band < *room) *room = (m->h_in - h) / band;
    rows_in(m, a, b, lo, hi);
}

/* simulate() for every segment [f, l], f >= F, at once: op k's schedule
   depends only on the ops after it (its readers, all inside), so one pass
   over [F, l] gives each op's part of every segment's totals. Per op k
   (index k - F): band buffer bytes (k < l), call overhead cycles (an
   integer: every sum of them is exact in a double, whatever the order),
   rows' bytes moved, and whether a windowed call would read no rows.
   Returns 0 when no segment ending at l works at this band.

   Steady state (jump): when every op of [F, l] maps rows one to one (stride
   1) and a step is the previous one moved down by `band` rows in every
   state variable, with no clipping and no comparison against a fixed row
   count that could change within J more steps, those J steps are that step
   again, moved: their moves, calls and failures are added J times and the
   state moved by J x band rows. Exact (HTC_CASCADE_CHECK=1 compares it with
   the step-by-step simulation). */
static int simulate_ops_j(const Ctx *c, int F, int l, int band, OpSim *os, int *caps, int jump, int64_t *steps)
{
    const Graph *g = c->g;
    int f = F, n = l - f + 1, H = c->rm[l].h_out, T = (H + band - 1) / band;
    int *e = c->iw, *en = e + n, *c0 = en + n, *base = c0 + n, *cap = base + n, *orig = cap + n;
    int *pe = c->jw, *pc0 = pe + n, *pbase = pc0 + n, *swin = pbase + n, *scall = swin + n;
    int64_t *smove = c->jmove;
    int64_t *calls = c->calls;
    for (int k = 0; k < n && jump; k++) {
        const RowMap *m = &c->rm[f + k];
        if (m->kind == BK_WINDOW && m->s != 1) jump = 0;
    }
    memset(calls, 0, sizeof(int64_t) * (size_t)n);
    for (int k = 0; k < n; k++) os[k] = (OpSim){0, 0, 0, 0};
    for (int pass = 0; pass < 2; pass++) {
        memset(e, 0, sizeof(int) * (size_t)n * 5);
        memset(orig, 0, sizeof(int) * (size_t)n);
        if (pass) memcpy(cap, caps, sizeof(int) * (size_t)n);
        for (int t = 1; t <= T; t++) {
            ++*steps;
            int64_t room = INT32_MAX;       /* steps the comparisons of this step stay as they are */
            en[n - 1] = t * band < H ? t * band : H;
            c0[n - 1] = e[n - 1];
            int capped = 0;
            for (int k = n - 1; k >= 0; k--) {
                if (k < n - 1) {
                    const int x = g->ops[f + k].out[0], nr = c->nread[x];
                    const int *rop = c->rop[x];
                    int hi = e[k], lo = INT32_MAX;
                    for (int r = 0; r < nr; r++) {
                        int q = rop[r] - f, a, b;
                        const RowMap *m = &c->rm[f + q];
                        if (c0[q] < en[q]) {
                            rows_in_room(m, c0[q], en[q], &a, &b, band, &room);
                            if (b > hi) hi = b;
                            if (a < lo) lo = a;
                        } else if (en[q] < m->h_out) {
                            if ((m->h_out - 1 - en[q]) / band < room) room = (m->h_out - 1 - en[q]) / band;
                            rows_in_room(m, en[q], en[q] + 1, &a, &b, band, &room);
                            if (a < lo) lo = a;
                        } else {
                            room = 0;
                        }
                    }
                    en[k] = hi;
                    int bs = lo < hi ? lo : hi;
                    if (bs < base[k]) bs = base[k];
                    base[k] = bs;
                    c0[k] = e[k] > bs ? e[k] : bs;
                    if (!pass) {
                        if (hi - bs > cap[k]) cap[k] = hi - bs, capped = 1;
                        continue;
                    }
                    smove[k] = (int64_t)(e[k] > bs ? e[k] - bs : 0) * c->rowb[f + k];    /* a move's bytes */
                    swin[k] = hi - bs;
                    if (hi - orig[k] > cap[k]) {
                        int mv = e[k] > bs ? e[k] - bs : 0;
                        orig[k] = bs;
                        os[k].moved += (int64_t)mv * c->rowb[f + k];
                    }
                } else if (!pass) {
                    continue;
                }
                /* pass 2: op k's call of this step (its readers' rows are final) */
                scall[k] = 0;
                if (c0[k] >= en[k]) continue;
                calls[k]++;
                scall[k] = 1;
                const RowMap *m = &c->rm[f + k];
                if (m->kind == BK_WINDOW && m->nmap) {
                    int a, b;
                    rows_in_room(m, c0[k], en[k], &a, &b, band, &room);
                    if (b <= a) os[k].fail = 1;
                }
            }
            int J = 0;
            if (jump && t > 1 && !capped && t * band < H) {
                /* the sink moves down unclipped while (t + J) band <= H */
                int64_t sink = (int64_t)(H - t * band) / band;
                J = (int)(room < sink ? room : sink);
                if (J > T - t) J = T - t;
                for (int k = 0; k < n && J > 0; k++)
                    if (en[k] - pe[k] != band || c0[k] - pc0[k] != band || (k < n - 1 && base[k] - pbase[k] != band))
                        J = 0;
            }
            memcpy(e, en, sizeof(int) * (size_t)n);
            if (J > 0) {            /* J more steps, each this one moved down */
                for (int k = 0; k < n; k++) {
                    if (pass && k < n - 1) {
                        /* buffer k's origin alone does not move with the rest:
                           D = its last row - origin grows by band a step, and
                           past cap a move resets it to swin (the rows it keeps):
                           moves after j1, then every P steps */
                        int64_t D = e[k] - orig[k], P = (cap[k] - swin[k]) / band + 1;
                        int64_t j1 = D + band > cap[k] ? 1 : (cap[k] - D) / band + 1, cnt = 0;
                        if (j1 <= J) {
                            cnt = 1 + (J - j1) / P;
                            D = swin[k] + (J - (j1 + (cnt - 1) * P)) * (int64_t)band;
                        } else {
                            D += (int64_t)J * band;
                        }
                        os[k].moved += cnt * smove[k];
                        orig[k] = (int)(e[k] + (int64_t)J * band - D);
                    }
                    e[k] += J * band;
                    base[k] += J * band;
                    if (pass) calls[k] += (int64_t)J * scall[k];
                }
                t += J;
            }
            memcpy(pe, e, sizeof(int) * (size_t)n);
            for (int k = 0; k < n; k++) {
                pc0[k] = c0[k] + J * band;
                pbase[k] = base[k];
            }
        }
        if (!pass) {
            if (e[n - 1] != H) return 0;
            memcpy(caps, cap, sizeof(int) * (size_t)n);
        }
    }
    for (int k = 0; k < n; k++) {
        const Op *op = &g->ops[f + k];
        int64_t per = (int64_t)CALL_CYCLES + (op->kind == OP_CONV2D ? (int64_t)CALL_CYCLES_PER_CHANNEL * op->out_c : 0);
        if (calls[k] > 1) os[k].over_int = per * (calls[k] - 1);
        if (k < n - 1) os[k].buf = align_up((int64_t)caps[k] * c->rowb[f + k], c->align);
    }
    return 1;
}

static int simulate_ops(Ctx *c, int F, int l, int band, OpSim *os, int *caps)
{
    int64_t steps = 0;
    int r = simulate_ops_j(c, F, l, band, os, caps, 1, &steps);
    c->work += steps * (l - F + 1);
    if (c->check) {             /* the jumps against every step */
        int n = l - F + 1;
        OpSim *o2 = arena_alloc(sizeof(OpSim) * (size_t)n);
        int *caps2 = arena_alloc(sizeof(int) * (size_t)n);
        memcpy(caps2, caps, sizeof(int) * (size_t)n);
        int r2 = simulate_ops_j(c, F, l, band, o2, caps2, 0, &steps);
        if (r != r2 || (r && (memcmp(caps, caps2, sizeof(int) * (size_t)n) || memcmp(os, o2, sizeof(OpSim) * (size_t)n))))
            die("internal: cascade jump differs: ops %d..%d band %d", F, l, band);
    }
    return r;
}

static int cand_cmp(const void *x, const void *y)
{
    const Cand *a = x, *b = y;
    if (a->peak != b->peak) return a->peak < b->peak ? -1 : 1;
    if (a->over != b->over) return a->over < b->over ? -1 : 1;
    return a->band - b->band;
}

/* The (peak, overhead) pairs of segment [f, l] no other pair beats on
   both, from its candidates all[0..na), in c->cand. */
static void pareto(Ctx *c, Cand *all, int na)
{
    c->ncand = 0;
    qsort(all, (size_t)na, sizeof(Cand), cand_cmp);
    double best = 1e300;
    for (int i = 0; i < na; i++)
        if (all[i].over < best) {
            best = all[i].over;
            c->cand[c->ncand++] = all[i];
        }
}

typedef struct {
    int nseg;
    int *sf, *sl, *soff, *scnt;     /* per valid segment: first, last, candidates in pool */
    Cand *pool;
    int npool, cap, cappool;
} Space;

static void space_add(Space *s, const Ctx *c, int f, int l)
{
    if (s->nseg == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        int *nf = arena_alloc(sizeof(int) * (size_t)s->cap * 4);
        if (s->nseg) {
            memcpy(nf, s->sf, sizeof(int) * (size_t)s->nseg);
            memcpy(nf + s->cap, s->sl, sizeof(int) * (size_t)s->nseg);
            memcpy(nf + 2 * s->cap, s->soff, sizeof(int) * (size_t)s->nseg);
            memcpy(nf + 3 * s->cap, s->scnt, sizeof(int) * (size_t)s->nseg);
        }
        s->sf = nf, s->sl = nf + s->cap, s->soff = nf + 2 * s->cap, s->scnt = nf + 3 * s->cap;
    }
    if (s->npool + c->ncand > s->cappool) {
        s->cappool = 2 * (s->npool + c->ncand) + 64;
        Cand *np = arena_alloc(sizeof(Cand) * (size_t)s->cappool);
        if (s->npool) memcpy(np, s->pool, sizeof(Cand) * (size_t)s->npool);
        s->pool = np;
    }
    memcpy(s->pool + s->npool, c->cand, sizeof(Cand) * (size_t)c->ncand);
    s->sf[s->nseg] = f, s->sl[s->nseg] = l, s->soff[s->nseg] = s->npool, s->scnt[s->nseg] = c->ncand;
    s->npool += c->ncand;
    s->nseg++;
}

/* Distinct step counts ceil(H / band) of H <= CAS_MAX_ROWS rows: at most
   2 sqrt(H). */
#define CAS_MAX_BANDS 130

/* Every valid segment [f, l] ending at l (f falling, as the shortest path
   reads them) with its Pareto band heights: every band height with a step
   count of its own is simulated once for all of them (simulate_ops), each
   segment's totals are suffix sums. Per l: O(bands x steps x ops). */
static void scan_l(Ctx *c, Space *s, int l, char *mark, const int *fs, int nf)
{
    int H = c->rm[l].h_out;
    if (!nf || H > CAS_MAX_ROWS) return;
    int F = fs[nf - 1], n = l - F + 1;
    int64_t *buf = c->sbuf, *ovr = buf + CAS_MAX_BANDS * CAS_MAX_OPS, *mov = ovr + CAS_MAX_BANDS * CAS_MAX_OPS;
    char *bad = c->sbad;
    int nb = 0, lastT = -1;
    OpSim *os = c->os;
    for (int band = 1; band <= H; band++) {
        int T = (H + band - 1) / band;
        if (T == lastT) continue;           /* the same steps, more rows per buffer */
        lastT = T;
        if (c->work > c->max_work && T > CAS_LATE_STEPS) {
            if (!c->warned++)
                warn("%s: cascade search: over %lld million op-steps simulated; segments ending at operator %d and later "
                     "try only band heights of at most %d steps (README, Limits)", c->g->path,
                     (long long)(c->max_work / 1000000), l, CAS_LATE_STEPS);
            continue;
        }
        if (!simulate_ops(c, F, l, band, os, c->caps)) continue;
        if (nb == CAS_MAX_BANDS) die("internal: more than %d band heights", CAS_MAX_BANDS);
        /* suffix sums from op k to l */
        int64_t sb = 0, so = 0, sm = 0;
        int sf = 0;
        for (int k = n - 1; k >= 0; k--) {
            sb += os[k].buf, so += os[k].over_int, sm += os[k].moved, sf |= os[k].fail;
            size_t i = (size_t)nb * CAS_MAX_OPS + (size_t)k;
            buf[i] = sb, ovr[i] = so, mov[i] = sm, bad[i] = (char)sf;
        }
        c->bandv[nb++] = band;
    }
    for (int i = 0; i < nf; i++) {
        int f = fs[i], k = f - F, na = 0;
        int64_t fixed = seg_fixed(c, f, l, mark);
        for (int b = 0; b < nb; b++) {
            size_t j = (size_t)b * CAS_MAX_OPS + (size_t)k;
            if (bad[j]) continue;
            c->all[na++] = (Cand){fixed + buf[j], (double)ovr[j] + MOVE_CYCLES_PER_BYTE * (double)mov[j], c->bandv[b]};
        }
        pareto(c, c->all, na);
        if (c->ncand) space_add(s, c, f, l);
    }
}



/* Least overhead with every step's live bytes <= R: a shortest path over
   op positions (layer by layer, or a segment at one of its band heights).
   choice[j]: how position j + 1 is reached (segment index, band), -1 alone. */
static double dp(const Ctx *c, const Space *s, int64_t R, double *best, int *cseg, int *cband)
{
    int n = c->g->nops;
    for (int j = 0; j <= n; j++) best[j] = 1e300;
    best[0] = 0;
    int q = 0;      /* segments sorted by last */
    for (int j = 0; j < n; j++) {
        if (best[j] < 1e300 && c->single[j] <= R && best[j] < best[j + 1]) {
            best[j + 1] = best[j];
            cseg[j + 1] = -1;
        }
        for (; q < s->nseg && s->sl[q] == j; q++) {
            int f = s->sf[q];
            if (best[f] >= 1e300) continue;
            for (int k = 0; k < s->scnt[q]; k++) {
                const Cand *cd = &s->pool[s->soff[q] + k];
                if (cd->peak > R) break;        /* sorted by peak, overhead falling */
                if (best[f] + cd->over < best[j + 1]) {
                    best[j + 1] = best[f] + cd->over;
                    cseg[j + 1] = q;
                    cband[j + 1] = cd->band;
                }
            }
        }
    }
    return best[n];
}

static int cmp64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* The step table of one chosen cascade, its buffers and statistics. */
static void build(Ctx *c, Cascade *cs, int f, int l, int band, int64_t peak)
{
    Graph *g = c->g;
    int n = l - f + 1;
    cs->first = f;
    cs->last = l;
    cs->band = band;
    cs->nsteps = (c->rm[l].h_out + band - 1) / band;
    cs->col_op = arena_alloc(sizeof(int) * (size_t)n);
    cs->buf = arena_alloc(sizeof(int) * (size_t)n);
    cs->col_buf = arena_alloc(sizeof(int) * (size_t)n);
    int col = 0;
    for (int k = 0; k < n; k++) {
        cs->col_op[k] = col;
        col += 2 + 2 * c->rm[f + k].nmap;
    }
    for (int k = 0; k < n - 1; k++) {
        cs->buf[cs->nbuf] = g->ops[f + k].out[0];
        cs->col_buf[cs->nbuf++] = col;
        col += 3;
    }
    cs->ncols = col;
    cs->tab = arena_alloc(sizeof(int32_t) * (size_t)cs->nsteps * (size_t)col);
    int *caps = arena_alloc(sizeof(int) * (size_t)n);
    SimOut so;
    if (!simulate(c, f, l, band, &so, cs, caps))
        die("internal: cascade %d..%d band %d", f, l, band);
    int64_t macs = 0;
    for (int k = 0; k < n; k++) {
        g->ops[f + k].cascade = (int)(cs - g->cascades) + 1;
        macs += g->ops[f + k].macs;
        if (k < n - 1) g->tensors[g->ops[f + k].out[0]].band_rows = caps[k];
    }
    cs->ram_after = peak;
    cs->ram_before = 0;
    for (int k = f; k <= l; k++)
        if (c->single[k] > cs->ram_before) cs->ram_before = c->single[k];
    cs->moved_bytes = so.moved;
    cs->extra_macs = so.macs_done - macs;
    cs->calls = so.calls;
    cs->overhead_cycles = so.over;
}

void cascade(Graph *g, Target *t, const CascadeOptions *o)
{
    int n = g->nops, nt = g->ntensors;
    Ctx c = {0};
    c.g = g;
    c.align = t->memories[t->engines[0].act_memory].alignment;
    if (c.align < 16) c.align = 16;
    c.rm = arena_alloc(sizeof(RowMap) * (size_t)(n + 1));
    c.iw = arena_alloc(sizeof(int) * 6 * CAS_MAX_OPS);
    c.calls = arena_alloc(sizeof(int64_t) * CAS_MAX_OPS);
    c.caps = arena_alloc(sizeof(int) * CAS_MAX_OPS);
    c.all = arena_alloc(sizeof(Cand) * (CAS_MAX_ROWS + 1));
    c.cand = arena_alloc(sizeof(Cand) * (CAS_MAX_ROWS + 1));
    c.os = arena_alloc(sizeof(OpSim) * CAS_MAX_OPS);
    c.sbuf = arena_alloc(sizeof(int64_t) * 3 * CAS_MAX_BANDS * CAS_MAX_OPS);
    c.sbad = arena_alloc((size_t)CAS_MAX_BANDS * CAS_MAX_OPS);
    c.bandv = arena_alloc(sizeof(int) * CAS_MAX_BANDS);
    c.rowb = arena_alloc(sizeof(int64_t) * (size_t)(n + 1));
    c.jw = arena_alloc(sizeof(int) * 5 * CAS_MAX_OPS);
    c.jmove = arena_alloc(sizeof(int64_t) * CAS_MAX_OPS);
    c.check = getenv("HTC_CASCADE_CHECK") && atoi(getenv("HTC_CASCADE_CHECK")) > 0;
    c.max_work = CAS_MAX_WORK;
    const char *mw = getenv("HTC_CASCADE_WORK");
    if (mw && atoll(mw) > 0 && atoll(mw) < c.max_work) c.max_work = atoll(mw);
    for (int i = 0; i < n; i++) {
        g->ops[i].cascade = 0;
        if (row_map(g, t, &g->ops[i], &c.rm[i])) c.rowb[i] = row_bytes(&g->tensors[g->ops[i].out[0]]);
        c.total_cycles += g->ops[i].est_cycles;
    }
    for (int i = 0; i < nt; i++) g->tensors[i].band_rows = 0;
    g->ncascades = 0;
    /* readers of each tensor */
    c.nread = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    c.rop = arena_alloc(sizeof(int *) * (size_t)(nt + 1));
    c.rslot = arena_alloc(sizeof(int *) * (size_t)(nt + 1));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->ops[i].nin; j++)
            if (g->ops[i].in[j] >= 0) c.nread[g->ops[i].in[j]]++;
    for (int x = 0; x < nt; x++) {
        c.rop[x] = arena_alloc(sizeof(int) * (size_t)(c.nread[x] + 1));
        c.rslot[x] = arena_alloc(sizeof(int) * (size_t)(c.nread[x] + 1));
        c.nread[x] = 0;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->ops[i].nin; j++) {
            int x = g->ops[i].in[j];
            if (x < 0) continue;
            c.rop[x][c.nread[x]] = i;
            c.rslot[x][c.nread[x]++] = j;
        }
    /* storage roots as planned layer by layer; an in-place write by a
       row-mapped op is undone (inside a cascade every tensor has its own) */
    c.root = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    for (int x = 0; x < nt; x++) c.root[x] = tensor_root(g, x, NULL);
    for (int i = 0; i < n; i++) {
        const Op *op = &g->ops[i];
        if (c.rm[i].kind == BK_NONE) continue;
        if (g->tensors[op->out[0]].storage == ST_ALIAS && op->kind != OP_RESHAPE) c.root[op->out[0]] = op->out[0];
        if (op->kind == OP_CONCAT && op->inplace)
            for (int j = 0; j < op->nin; j++) c.root[op->in[j]] = op->in[j];
    }
    /* an undone alias's bytes: its own root, stored in the arena */
    c.single = arena_alloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int i = 0; i < nt; i++) {
        const Tensor *x = &g->tensors[i];
        if (tensor_root(g, i, NULL) != i || x->storage != ST_ARENA || x->first_use < 0) continue;
        int64_t sz = align_up((int64_t)tensor_bytes(x), c.align);
        for (int s = x->first_use; s <= x->last_use && s < n; s++) c.single[s] += sz;
    }
    /* the undone aliases count as arena buffers of their own in seg_fixed */
    for (int x = 0; x < nt; x++)
        if (c.root[x] == x && g->tensors[x].storage == ST_ALIAS) g->tensors[x].storage = ST_ARENA;

    /* every valid segment and its Pareto band heights */
    Space s = {0};
    char *mark = arena_alloc((size_t)nt + 1);
    int *fs = arena_alloc(sizeof(int) * CAS_MAX_OPS);
    for (int l = 0; l < n; l++) {
        int nf = 0;
        for (int f = l - 1; f >= 0 && l - f < CAS_MAX_OPS; f--) {
            if (c.rm[f].kind == BK_NONE) break;
            if (seg_valid(&c, f, l)) fs[nf++] = f;
        }
        scan_l(&c, &s, l, mark, fs, nf);
    }
    int npool = s.npool;
    Cand *pool = s.pool;
    /* undo the storage change (plan recomputes storage anyway) */
    for (int x = 0; x < nt; x++)
        if (c.root[x] == x && tensor_root(g, x, NULL) != x) g->tensors[x].storage = ST_ALIAS;

    /* candidate peaks: every step's and every segment candidate's */
    int64_t *rs = arena_alloc(sizeof(int64_t) * (size_t)(n + npool + 1));
    int nr = 0;
    for (int i = 0; i < n; i++) rs[nr++] = c.single[i];
    for (int i = 0; i < npool; i++) rs[nr++] = pool[i].peak;
    qsort(rs, (size_t)nr, sizeof(int64_t), cmp64);
    double *best = arena_alloc(sizeof(double) * (size_t)(n + 1));
    int *cseg = arena_alloc(sizeof(int) * (size_t)(n + 1)), *cband = arena_alloc(sizeof(int) * (size_t)(n + 1));
    /* least feasible peak: the overhead only falls as R grows */
    int lo = 0, hi = nr - 1;
    double budget = o->ram_limit > 0 ? 1e299 : o->max_overhead * c.total_cycles;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (dp(&c, &s, rs[mid], best, cseg, cband) <= budget) hi = mid;
        else lo = mid + 1;
    }
    int64_t R = rs[lo];
    if (o->ram_limit > 0 && !(o->fit_memory && R > o->ram_limit)) {
        if (R > o->ram_limit)
            die("%s: cascades cannot bring the activations under %lld bytes (at least %lld: the modelled peak of the best "
                "cascades)", g->path, (long long)o->ram_limit, (long long)R);
        R = o->ram_limit;
    }
    dp(&c, &s, R, best, cseg, cband);
    /* the chosen segments, last to first */
    int nc = 0;
    for (int j = n; j > 0;) {
        if (cseg[j] < 0) { j--; continue; }
        nc++;
        j = s.sf[cseg[j]];
    }
    g->cascades = arena_alloc(sizeof(Cascade) * (size_t)(nc + 1));
    g->ncascades = nc;
    for (int j = n, k = nc; j > 0;) {
        if (cseg[j] < 0) { j--; continue; }
        int q = cseg[j];
        int64_t peak = 0;
        for (int i = 0; i < s.scnt[q]; i++)
            if (s.pool[s.soff[q] + i].band == cband[j]) peak = s.pool[s.soff[q] + i].peak;
        build(&c, &g->cascades[--k], s.sf[q], s.sl[q], cband[j], peak);
        j = s.sf[q];
    }
}

/* Layer by layer first; then cascades when asked for, or when that arena
   does not fit the memory, and the plan again. Several data memories:
   cascades also when the placement spills buffers to a costlier memory,
   kept when the access cost they save is more than their modelled
   overhead (both in cycles). */
Plan *cascade_plan(Graph *g, Target *t, const CascadeOptions *opts)
{
    Plan *p = plan_try(g, t);
    const Engine *cpu = &t->engines[0];
    int spill = !opts->minimise_ram && !opts->ram_limit && plan_fits(t, p) && p->narenas > 1 &&
                p->access_cost > p->access_fast;
    if (opts->off && (opts->minimise_ram || opts->ram_limit))
        die("--no-cascade contradicts %s", opts->minimise_ram ? "--cascade" : "--ram-limit");
    if (opts->off || !(opts->minimise_ram || opts->ram_limit || !plan_fits(t, p) || spill)) return p;
    CascadeOptions co = *opts;
    if (!co.minimise_ram && !co.ram_limit) {
        /* the activations within the data memories together (several:
           the placement then divides them); when they fit and spill,
           within the cheapest memory, or as near as cascades get */
        co.ram_limit = 0;
        int cheap = cpu->data_memories[0];
        for (int k = 0; k < cpu->ndata; k++) {
            co.ram_limit += t->memories[cpu->data_memories[k]].size;
            if (t->memories[cpu->data_memories[k]].cost < t->memories[cheap].cost) cheap = cpu->data_memories[k];
        }
        if (spill) co.ram_limit = t->memories[cheap].size;
        co.fit_memory = 1;
    }
    cascade(g, t, &co);
    if (!g->ncascades) return p;
    Plan *q = plan_try(g, t);
    q->per_layer_bound = p->lower_bound;
    q->reordered = p->reordered;
    q->original_bound = p->original_bound;
    if (!spill) return q;
    double over = 0;
    for (int i = 0; i < g->ncascades; i++) over += g->cascades[i].overhead_cycles;
    int keep = plan_fits(t, q) && q->access_cost + over < p->access_cost;
    const char *note = arena_printf("layer by layer the placement spills (access cost %.0f); with cascades "
                                    "%.0f + %.0f cycles of modelled overhead: %s", p->access_cost,
                                    q->access_cost, over, keep ? "cascades kept" : "layer by layer kept");
    if (keep) {
        p = q;
    } else {        /* undo them: the layer-by-layer plan again */
        for (int i = 0; i < g->nops; i++) g->ops[i].cascade = 0;
        for (int i = 0; i < g->ntensors; i++) g->tensors[i].band_rows = 0;
        g->ncascades = 0;
        p = plan_try(g, t);
    }
    p->cascade_note = note;
    return p;
}
