/* dispatch.c - choose one engine per operator by the target's rules.
   Candidates are the engines whose predicates accept the op; the CPU last. */
#include <math.h>
#include <stdlib.h>

#include "ir.h"
#include "quant.h"

/* s when v == 2^-s exactly (0 <= s <= 31), else -1 */
static int pow2_shift(double v)
{
    int e;
    double m = frexp(v, &e);
    if (m != 0.5) return -1;
    int s = 1 - e;
    return s >= 0 && s <= 31 ? s : -1;
}

/* A float requantization (onnxruntime: float(acc) * scale, round half to
   even) is exactly an integer shift with round half to even when every
   scale is 2^-s and |acc| < 2^24 (float(acc) exact). acc bound per channel:
   |bias| + sum |w| * max |x - x_zp|. */
static void find_exact_shift(const Graph *g, Op *op)
{
    const float *scale = NULL;
    const int8_t *w = NULL;
    const int32_t *bias = NULL;
    int nch = 0, per = 0, in_zp = 0;
    int64_t wsize = 0;
    if (op->rq == RQ_TFLITE && (op->kind == OP_CONV2D || op->kind == OP_FC) && op->mult) {
        /* TFLite: every multiplier exactly 2^30 (the real scale 2^-s) with a
           right shift: a shift with TFLite's rounding, exact in integers */
        int32_t *sh = arena_alloc(sizeof(int32_t) * (size_t)op->nch);
        for (int c = 0; c < op->nch; c++) {
            if (op->mult[c] != (int32_t)1 << 30 || op->shift[c] > 0) return;
            sh[c] = 1 - op->shift[c];
        }
        op->rq_shifts = sh;
        op->exact_shift = 1;
        op->shift_round = ROUND_TFLITE;
        return;
    }
    if (op->rq != RQ_FLOAT || !op->params) return;
    if (op->kind == OP_CONV2D) {
        const htc__qconv_params *p = op->params;
        if (p->w_zp) return;
        scale = p->scale; nch = p->out_c; per = p->per_channel; in_zp = p->in_zp;
        wsize = (int64_t)p->k_h * p->k_w * p->group_in;
    } else if (op->kind == OP_FC) {
        const htc__qfc_params *p = op->params;
        if (p->w_zp || p->w_batches != 1) return;
        scale = p->scale; nch = p->out_features; per = p->per_channel; in_zp = p->in_zp;
        wsize = p->in_features;
    } else if (op->kind == OP_ADD) {
        const htc__qbinary_params *p = op->params;
        int ea, eb;
        if (frexp(p->ra, &ea) != 0.5 || frexp(p->rb, &eb) != 0.5) return;
        for (int m = 0; m <= 24; m++) {
            double RA = ldexp(p->ra, m), RB = ldexp(p->rb, m), FX = ldexp(p->fixed, m);
            if (RA != floor(RA) || RB != floor(RB) || FX != floor(FX)) continue;
            double amax = 128 + fabs((double)p->a_off), bmax = 128 + fabs((double)p->b_off);
            if (bmax * RB + fabs(FX) >= 16777216.0 || amax * RA + bmax * RB + fabs(FX) >= 16777216.0) return;
            op->add_shift[0] = (int32_t)RA; op->add_shift[1] = (int32_t)RB; op->add_shift[2] = m;
            op->add_fixed = (int32_t)FX;
            op->exact_shift = 1;
            return;
        }
        return;
    } else return;
    if (!scale) return;
    w = (const int8_t *)g->tensors[op->in[1]].data;
    if (op->nin > 2 && op->in[2] >= 0) bias = (const int32_t *)(const void *)g->tensors[op->in[2]].data;
    if (!w) return;
    int32_t *sh = arena_alloc(sizeof(int32_t) * (size_t)nch);
    int64_t xmax = 127 - in_zp > in_zp + 128 ? 127 - in_zp : in_zp + 128;
    for (int c = 0; c < nch; c++) {
        int s = pow2_shift(scale[per ? c : 0]);
        if (s < 0) return;
        sh[c] = s;
        int64_t acc = bias ? llabs((long long)bias[c]) : 0;
        for (int64_t i = 0; i < wsize; i++) acc += (int64_t)abs(w[c * wsize + i]) * xmax;
        if (acc >= 16777216) return;
    }
    op->rq_shifts = sh;
    op->exact_shift = 1;
    /* the CPU kernels' XpulpV2 paths read it from the parameter block */
    if (op->kind == OP_CONV2D) ((htc__qconv_params *)op->params)->exact_shift = 1;
    else ((htc__qfc_params *)op->params)->exact_shift = 1;
}

/* How many pieces split `split` divides op's output into (kernels/
   *_par: convolution and pooling rows are image rows, or pixels for a
   pointwise convolution; elsewhere the rows are every dimension but the
   last, the channels the last). */
static int64_t split_items(const Graph *g, const Op *op, int split)
{
    const Tensor *out = &g->tensors[op->out[0]];
    int64_t last = out->rank ? out->shape[out->rank - 1] : 1;
    if (split == SPLIT_CHANNELS) return last;
    if (op->kind == OP_CONV2D || op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL) {
        if (op_pointwise(op)) return (int64_t)op->out_h * op->out_w;
        return op->out_h;
    }
    return last ? tensor_numel(out) / last : 0;
}

/* Input rows that output rows [y0, y1) read */
static int64_t rows_in(const Op *op, int y0, int y1)
{
    int iy0, ih;
    op_rows_view(op, y0, y1, &iy0, &ih);
    return ih;
}

/* The share [lo, hi) of n items that core c of nc computes (htc.h htc__share) */
static void share(int64_t n, int c, int nc, int64_t *lo, int64_t *hi)
{
    *lo = n * c / nc;
    *hi = n * (c + 1) / nc;
}

/* One fork/join of op over the cluster's cores: the op entry's fork when
   the target gives one (a function of op: evaluated when its kernel is
   bound, op.fork), else cpu.fork. */
double cpu_fork_cycles(const Target *t, const Op *op)
{
    const EngineOp *eo = engine_op(&t->engines[0], op->kind);
    if (eo && eo->fork_fn) return op->fork;
    return eo && eo->fork_cycles >= 0 ? eo->fork_cycles : t->engines[0].fork_cycles;
}

double cpu_share_cycles(Target *t, const Graph *g, const Op *op, int y0, int y1, int tile)
{
    const Tensor *out = &g->tensors[op->out[0]];
    const int spatial = op->kind == OP_CONV2D || op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL;
    const int64_t last = out->rank ? out->shape[out->rank - 1] : 1;
    const int nc = op->cores > 1 ? op->cores : 1;
    double worst = -1;
    for (int c = 0; c < nc; c++) {
        CallShare s = {0};
        int64_t lo, hi;
        s.tile = tile;
        s.cores = nc;
        s.core = c;
        if (spatial) {
            /* image rows [y0, y1) of every image (a band: one image) */
            int64_t b = tile ? 1 : op->batches;
            s.rows = b * (y1 - y0), s.cols = op->out_w, s.channels = op->out_c, s.in_rows = b * rows_in(op, y0, y1);
            if (nc > 1 && op->split == SPLIT_CHANNELS) {
                share(op->out_c, c, nc, &lo, &hi);
                s.channels = hi - lo;
            } else if (nc > 1 && op_pointwise(op)) {
                share(s.rows * op->out_w, c, nc, &lo, &hi);
                s.rows = s.in_rows = 1, s.cols = hi - lo;
            } else if (nc > 1) {
                share(y1 - y0, c, nc, &lo, &hi);
                s.rows = b * (hi - lo), s.in_rows = hi > lo ? b * rows_in(op, y0 + (int)lo, y0 + (int)hi) : 0;
            }
        } else {
            s.rows = s.in_rows = last ? tensor_numel(out) / last : 0, s.cols = 1, s.channels = last;
            if (nc > 1 && op->split == SPLIT_CHANNELS) {
                share(last, c, nc, &lo, &hi);
                s.channels = hi - lo;
            } else if (nc > 1) {
                share(s.rows, c, nc, &lo, &hi);
                s.rows = s.in_rows = hi - lo;
            }
        }
        if (s.rows <= 0 || s.cols <= 0 || s.channels <= 0) continue;   /* this core has nothing */
        double cyc;
        if (!target_call_cycles(t, g, op, &s, &cyc)) return -1;
        if (cyc > worst) worst = cyc;
    }
    return worst < 0 ? 0 : worst;
}

/* Cores computing from one memory at once: each accesses it in a fraction
   a of its cycles, uniformly over its B banks, so an access meets another
   core's in the same bank with probability 1 - (1 - a / B)^(n - 1) and
   waits one cycle; the slowdown of each core's cycles is 1 + a times that.
   (B = 1, a = 1: every cycle collides, two cores take twice as long.) */
double bank_contention(const Memory *m, int cores)
{
    if (!m || m->banks < 1 || cores < 2) return 1;
    return 1 + m->bank_access * (1 - pow(1 - m->bank_access / m->banks, cores - 1));
}

/* the contention of the CPU's data memories (the worst), n cores */
static double cpu_contention(const Target *t, int n)
{
    const Engine *cpu = &t->engines[0];
    double f = 1;
    for (int i = 0; i < cpu->ndata; i++) {
        double c = bank_contention(&t->memories[cpu->data_memories[i]], n);
        if (c > f) f = c;
    }
    return f;
}

/* A CPU op on a cluster (cpu.cores > 1): when its kernel has a parallel
   entry point, the split (the target's split function, else the one whose
   largest share is smallest, rows first), and whether to divide at all:
   estimate() on the cores (one fork/join + the slowest core's share: the
   target's cycles of one call per core when it gives them, else the
   layer's per-MAC / per-element cost times the largest share's fraction)
   against one core. A layer that does not gain, or whose split is "none",
   stays on one core with the reason in Op.split_why; Op.est_one is the
   one-core estimate either way. */
static double estimate(const Graph *g, Target *t, const Op *op);

static void parallel(const Graph *g, Target *t, Op *op)
{
    const Engine *cpu = &t->engines[0];
    int splits = cpu_kernel_splits(op->kernel_fn, op->variant) & ((1 << SPLIT_COUNT) - 1);
    if (!splits) return;
    int n = cpu->cores, split = target_split(t, g, op);
    if (split == SPLIT_NONE) {
        op->split_why = "1 core: the target's split says none";
        return;
    }
    if (split >= 0 && !(splits & (1 << split)))
        die("%s: target %s: cpu.split chose %s for operator %d (%s); its kernel %s splits only by %s", g->path, t->name,
            split_names[split], op->src_index, op->src_name, arena_printf("%s%s", op->kernel_fn, op->variant ? op->variant : ""),
            splits == (1 << SPLIT_ROWS) ? "rows" : "channels");

    double best = 2;
    for (int s = 0, chosen = split >= 0; s < SPLIT_COUNT && !chosen; s++) {
        int64_t items = split_items(g, op, s);
        if (!(splits & (1 << s)) || items < 2) continue;
        double f = (double)((items + n - 1) / n) / (double)items;
        if (f < best) best = f, split = s;
    }
    if (split < 0) return;      /* nothing to divide */
    int64_t items = split_items(g, op, split);
    if (items < 2) return;
    op->cores = 0;
    const double one = estimate(g, t, op);
    op->cores = n;
    op->split = split;
    const double many = estimate(g, t, op);
    op->est_one = one;
    if (!(many < one)) {
        op->cores = 0;
        const double f = cpu_contention(t, n);
        op->split_why = arena_printf("1 core: %d cores by %s ~%.0f cycles (fork %g + slowest share%s) >= 1 core ~%.0f",
                                     n, split_names[split], many, cpu_fork_cycles(t, op),
                                     f > 1 ? arena_printf(" x %.3f bank contention", f) : "", one);
    }
}

/* The layer's estimated cycles, set once: with the CPU's cycles =
   function(op, share), the layer's overhead, the fork/join when divided
   and its slowest core's call; else the cost per MAC and per output
   element (the CPU divided over cores: the largest share's part of it,
   the cost model being per core, plus one fork/join). */
static double estimate(const Graph *g, Target *t, const Op *op)
{
    const Engine *cpu = &t->engines[0];
    const Tensor *out = &g->tensors[op->out[0]];
    /* a reshape whose output is not a graph output shares its input's
       storage (plan.c): nothing runs, no layer is emitted around it */
    if (op->kind == OP_RESHAPE && !out->is_output && !out->data) return 0;
    double est = op->cycles_per_mac * (double)op->macs + op->cycles_per_elem * (double)tensor_numel(out);
    if (op->engine != 0) return est;
    /* the cores contend for the banks of the memory they compute from */
    const double f = op->cores > 1 ? cpu_contention(t, op->cores) : 1;
    if (op->cores > 1) {
        int64_t items = split_items(g, op, op->split), n = op->cores;
        est = est * (double)((items + n - 1) / n) / (double)items * f + cpu_fork_cycles(t, op);
    }
    int h = op->kind == OP_CONV2D || op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL ? op->out_h : 1;
    double c = cpu_share_cycles(t, g, op, 0, h, 0);
    return c < 0 ? est : cpu->overhead_cycles + c * f + (op->cores > 1 ? cpu_fork_cycles(t, op) : 0);
}

/* a QuantLib Add / Mul's operands and output all of one shape, dense */
static int ql_broadcast(const htc__ql_binary_params *p)
{
    const int32_t s[6] = {p->s0, p->s1, p->s2, p->s3, p->s4, p->s5};
    const int32_t a[6] = {p->a0, p->a1, p->a2, p->a3, p->a4, p->a5}, b[6] = {p->b0, p->b1, p->b2, p->b3, p->b4, p->b5};
    int64_t st = 1;
    for (int d = 5; d >= 0; d--) {
        if (s[d] != 1 && (a[d] != st || b[d] != st)) return 1;
        st *= s[d];
    }
    return 0;
}

/* The chosen engine's kernel and cost model for op; the estimate. */
/* XpulpV2 cores (cpu.isa names xpulpv2, cpu.requant_records): a TFLite int8 convolution's requantization
   in final form, the weight sums times in_zp in its start values, when
   exact for every channel (quant_xq2; a dense one's quant_xq3); the kernels read it from the
   parameter block (htc__conv_params.xq2), the estimate from op.xq2 */
static void xq2(const Graph *g, const Target *t, Op *op)
{
    op->xq2 = NULL;
    /* a TFLite int8 ADD: its two 256-entry tables in final form (quant_xadd: htc__binary_params.xq,
       htc__xadd_run), no table built per call */
    if (op->kind == OP_ADD && op->engine == 0 && t->engines[0].requant_records == 1 && t->engines[0].isa != ISA_ALL &&
        (t->engines[0].isa & ISA_XPULPV2) && !op->u8 && op->kernel_fn && !strcmp(op->kernel_fn, "htc__add_s8") &&
        op->params_type && !strcmp(op->params_type, "htc__binary_params")) {
        int32_t *rec = arena_alloc(sizeof(int32_t) * HTC__XADD_N);
        if (quant_xadd(op->params, rec) > 0) op->xq2 = rec;
        return;
    }
    /* a QuantLib Add with one RequantShift, its operands int8 in the same
       order (no broadcasting): the same tables (quant_qladd), the last input
       of its own kernel (kernels/mul.c htc__ql_xadd) */
    if (op->kind == OP_ADD && op->engine == 0 && t->engines[0].requant_records == 1 && t->engines[0].isa != ISA_ALL &&
        (t->engines[0].isa & ISA_XPULPV2) && op->kernel_fn && !strcmp(op->kernel_fn, "htc__ql_binary") &&
        op->params_type && !strcmp(op->params_type, "htc__ql_binary_params") && op->nin == 4 && !ql_broadcast(op->params) &&
        op->in[2] >= 0 && op->in[3] >= 0 && g->tensors[op->in[2]].data && g->tensors[op->in[3]].data) {
        int32_t *rec = arena_alloc(sizeof(int32_t) * HTC__XADD_N), m, ad;
        memcpy(&m, g->tensors[op->in[2]].data, 4);
        memcpy(&ad, g->tensors[op->in[3]].data, 4);
        if (quant_qladd(op->params, m, ad, rec)) {
            op->xq2 = rec;
            op->kernel_fn = "htc__ql_xadd";
        }
        return;
    }
    if (op->engine != 0 || !t->engines[0].requant_records ||
        t->engines[0].isa == ISA_ALL || !(t->engines[0].isa & ISA_XPULPV2) || op->kind != OP_CONV2D || op->u8 || !op->kernel_fn || !op->params_type ||
        strcmp(op->params_type, "htc__conv_params") || !op->mult || op->nch < 1)
        return;
    int dw = !strcmp(op->kernel_fn, "htc__dwconv2d_s8");
    /* a dense one's with requant_records true, or "tiled" where it may
       compute from L1 bands (tile.c tile_cluster moves the records into L1
       with its weights, or drops them where no band fits) */
    const Engine *cpu = &t->engines[0];
    const int l1 = cpu->requant_records == 3 && cpu->l1_memory >= 0 && op->batches == 1 &&
                   (cpu_kernel_splits(op->kernel_fn, op->variant) & SPLIT_BAND);
    if (!dw && (strcmp(op->kernel_fn, "htc__conv2d_s8") || (cpu->requant_records != 1 && !l1))) return;
    htc__conv_params p = *(const htc__conv_params *)op->params;
    const Tensor *w = &g->tensors[op->kernel_weights >= 0 ? op->kernel_weights : op->in[1]];
    const Tensor *b = op->nin > 2 && op->in[2] >= 0 ? &g->tensors[op->in[2]] : NULL;
    if (!w->data || w->type != DT_INT8 || tensor_numel(w) != (int64_t)p.out_c * p.k_h * p.k_w * (dw ? 1 : p.in_c) ||
        op->nch != (p.per_channel ? p.out_c : 1) || (b && (!b->data || b->type != DT_INT32 || tensor_numel(b) != p.out_c)))
        return;
    p.mult = op->mult;
    p.shift = op->shift;
    p.bias = b ? (const int32_t *)(const void *)b->data : NULL;
    if (dw) {
        int32_t *rec = arena_alloc(sizeof(int32_t) * HTC__XQ2_N * (size_t)p.out_c);
        if (quant_xq2(&p, (const int8_t *)w->data, dw, rec) > 0) op->xq2 = rec;
        return;
    }
    /* dense: a word naming the form, then the records: 3, the
       three-product ones (htc__xq3_apply: right shifts up to 11; 4 the
       same with outputs below out_zp + 1 rounded as TFLite's negative
       ones, a layer without a fused ReLU; and on
       GVSoC fewer cycles than xq2's: DS-CNN 456,645 -> 454,904 at 8
       cores), else 2, htc__xq2_apply's, where every channel has one */
    int32_t *rec = arena_alloc(sizeof(int32_t) * (1 + HTC__XQ3_N * (size_t)p.out_c));
    int two = 0;
    if (quant_xq3(&p, (const int8_t *)w->data, rec + 1, &two) == p.out_c) rec[0] = two ? 4 : 3;
    else if (quant_xq2(&p, (const int8_t *)w->data, 0, rec + 1) == p.out_c) rec[0] = 2;
    else return;
    op->xq2 = rec;
}

/* op's cost on its engine, its split over the cluster's cores and its
   estimate, from its kernel and requantization as bound */
static void cost(const Graph *g, Target *t, Op *op)
{
    target_cost(t, op->engine, g, op, &op->cycles_per_mac, &op->cycles_per_elem);
    op->est_one = 0;
    op->split_why = NULL;
    if (op->engine == 0 && t->engines[0].cores > 1) parallel(g, t, op);
    op->est_cycles = estimate(g, t, op);
    if (op->cores <= 1) op->est_one = op->est_cycles;
}

/* op's requantization records dropped (tile.c: a dense layer whose bands
   do not fit the L1 with them), its cost and estimate made again */
void dispatch_drop_records(const Graph *g, Target *t, Op *op)
{
    op->xq2 = NULL;
    cost(g, t, op);
}

/* The layers that run code (kernel calls) between op and the last earlier
   one calling the same kernel function, in execution order: 0 when it is
   the layer just before, -1 when none is (the cost model's view of the
   instruction cache: code run recently is still there). Aliased reshapes
   run no code and are not counted. Of those layers, op.code_conv counts
   the convolutions on the CPU: their kernels' code is the longest and
   displaces most of an instruction cache. */
static void code_age(const Graph *g, Op *op)
{
    int age = 0, nconv = 0;
    op->code_age = -1, op->code_conv = 0;
    if (!op->kernel_fn) return;
    for (const Op *p = op - 1; p >= g->ops; p--) {
        const Tensor *o = &g->tensors[p->out[0]];
        if (p->kind == OP_RESHAPE && !o->is_output && !o->data) continue;
        if (p->kernel_fn && !strcmp(p->kernel_fn, op->kernel_fn)) {
            op->code_age = age, op->code_conv = nconv;
            return;
        }
        age++;
        nconv += p->kind == OP_CONV2D && p->engine == 0 && p->kernel_fn;
    }
}

/* Once every op is bound: how many layers call each one's kernel function
   (op.code_sites). A kernel that one layer alone calls is inlined there and
   specialised to its constants by the compiler (GVSoC: an iSoftmax of 16
   rows of 2, the network's only one, 208 instructions on a core, 386 in a
   network calling it from eight layers); and how many earlier layers were
   divided over the cores (op.par_before: the fork's own code is cold in a
   program's first). The layers on the cpu get their fork and cost again
   with them. */
static void code_sites(Graph *g, Target *t)
{
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        op->code_sites = 0;
        if (!op->kernel_fn) continue;
        for (int k = 0; k < g->nops; k++)
            op->code_sites += g->ops[k].kernel_fn && !strcmp(g->ops[k].kernel_fn, op->kernel_fn);
    }
    int par = 0;
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        op->par_before = par;
        if (op->engine != 0 || !op->kernel_fn) continue;
        op->fork = target_fork(t, g, op);
        cost(g, t, op);
        par += op->cores > 1;
    }
}

static void bind(const Graph *g, Target *t, Op *op)
{
    const EngineOp *eo = engine_op(&t->engines[op->engine], op->kind);
    op->kernel_file = eo ? eo->kernel_file : NULL;
    op->kernel_fn = eo ? eo->kernel_fn : NULL;
    if (op->s16 || op->f32) op->kernel_file = op->kernel_fn = NULL;   /* int16, float: htc's own kernels (target.c) */
    if (!op->kernel_file && op->engine == 0 && op->kind != OP_RESHAPE && !cpu_kernel(op, &op->kernel_file, &op->kernel_fn))
        die("%s: operator %d (%s): internal: no CPU kernel", g->path, op->src_index, op->src_name);
    xq2(g, t, op);
    code_age(g, op);
    op->fork = op->engine == 0 ? target_fork(t, g, op) : 0;
    cost(g, t, op);
}

/* Two passes: every engine's predicate for every op first (so each op
   knows its ordinal among the weighted layers some accelerator accepts,
   op.eligible_index / eligible_count, before the target's dispatch picks),
   then the choice. Each predicate still runs once per op and engine. The
   target's dispatch also gets each candidate's estimated cycles (bind()
   on that engine: its cost model before tiling, the CPU's split decided),
   so a cost-based rule needs no copy of the engines' cost models. */
void dispatch(Graph *g, Target *t)
{
    int *ncand = arena_alloc(sizeof(int) * (size_t)(g->nops + 1));
    int **cands = arena_alloc(sizeof(int *) * (size_t)(g->nops + 1));
    const char **why_nots = arena_alloc(sizeof(char *) * (size_t)(g->nops + 1));
    int eligible = 0;
    const int wants_dma = target_dispatch_wants_dma(t);
    for (int i = 0; i < g->nops; i++)
        g->ops[i].eligible_index = g->ops[i].eligible_count = -1, g->ops[i].code_age = -2, g->ops[i].code_sites = 0;
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        int n = 0, *cand = cands[i] = arena_alloc(sizeof(int) * (size_t)t->nengines);
        find_exact_shift(g, op);
        const char *why_not = NULL, *why;
        /* accelerators first, in target order; the CPU is the fallback */
        for (int e = 1; e < t->nengines; e++) {
            if (target_accepts(t, e, g, op, &why)) cand[n++] = e;
            else why_not = why_not ? arena_printf("%s; %s: %s", why_not, t->engines[e].name, why)
                                   : arena_printf("%s: %s", t->engines[e].name, why);
        }
        int accel = n > 0;
        if (target_accepts(t, 0, g, op, &why)) cand[n++] = 0;
        else why_not = why_not ? arena_printf("%s; %s", why_not, why) : why;
        if (n == 0)
            die("%s: operator %d (%s): no engine of target '%s' accepts it (%s)", g->path,
                op->src_index, op->src_name, t->name, why_not);
        ncand[i] = n;
        why_nots[i] = why_not;
        op->eligible_index = accel && (op->kind == OP_CONV2D || op->kind == OP_FC) ? ++eligible : 0;
    }
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        int n = ncand[i];
        op->eligible_count = eligible;
        double *est = NULL;
        int64_t *dma = NULL;
        if (n > 1 && t->has_dispatch) {         /* each candidate's estimate, for the target's rule */
            Op saved = *op;
            est = arena_alloc(sizeof(double) * (size_t)n);
            if (wants_dma) dma = arena_alloc(sizeof(int64_t) * (size_t)n);
            for (int k = 0; k < n; k++) {
                op->engine = cands[i][k];
                bind(g, t, op);
                est[k] = op->est_cycles;
                if (dma) dma[k] = tile_trial_dma(g, t, op);    /* its tiling's DMA bytes */
                *op = saved;
            }
        }
        op->engine = target_dispatch(t, g, op, cands[i], n, est, dma, &op->reason);
        if (n == 1 && op->engine == 0 && why_nots[i])
            op->reason = arena_printf("fallback: %s", why_nots[i]);
        else if (n == 1 && op->engine == 0)
            op->reason = "cpu is the only engine";
        if (op->engine == 0 && op->rq == RQ_FP32 && op->float_why)    /* say why the group is float */
            op->reason = arena_printf("%s (fp32: onnxruntime computes this group in float: %s)", op->reason, op->float_why);
        bind(g, t, op);
    }
    code_sites(g, t);
}
