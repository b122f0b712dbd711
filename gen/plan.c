/* plan.c - static storage for every tensor: constants, caller buffers,
   aliases, in-place ops, and arena offsets proven against a lower bound. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lpsolve/lp_lib.h>

#include "ir.h"
#include "../htc.h"

#define MILP_MS 1000            /* time limit of the offset MILP */

static int64_t align_up(int64_t x, int a) { return (x + a - 1) / a * a; }

static int root(const Graph *g, int t) { return tensor_root(g, t, NULL); }

/* ---- storage classes, aliases, in-place ----------------------------------- */

/* Element-wise ops whose kernels read element i before writing element i,
   so the output may overwrite an input of the same size that dies there. */
static int inplace_kind(const Op *op)
{
    switch (op->kind) {
    case OP_ADD: case OP_MUL: return !((const htc__binary_params *)op->params)->broadcast;
    case OP_LOGISTIC: case OP_REQUANTIZE: return 1;
    default: return 0;
    }
}

static void classify(Graph *g)
{
    for (int i = 0; i < g->ntensors; i++) {
        Tensor *t = &g->tensors[i];
        t->alias_of = -1;
        t->alias_offset = 0;
        t->storage = t->data ? ST_CONST : t->is_input ? ST_INPUT : t->is_output ? ST_OUTPUT : ST_NONE;
    }
    /* a reshape shares its input's storage unless its output is a graph
       output (then the emitter copies) */
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        Tensor *out = &g->tensors[op->out[0]];
        if (op->kind == OP_RESHAPE && out->storage == ST_NONE) {
            out->storage = ST_ALIAS;
            out->alias_of = op->in[0];
        } else if (out->storage == ST_NONE) {
            out->storage = ST_ARENA;
        }
    }
}

/* A concatenation along its outermost dimension is a row of contiguous
   slices: each producer can write its slice in place and the concat moves
   no data. Taken when every input is an arena tensor of its own (not a
   graph input, constant or alias), produced by an op, and appears once. */
static int concat_in_place(Graph *g)
{
    int n = 0;
    for (int s = 0; s < g->nops; s++) {
        Op *op = &g->ops[s];
        if (op->kind != OP_CONCAT || ((const htc__concat_params *)op->params)->outer != 1) continue;
        Tensor *out = &g->tensors[op->out[0]];
        if (out->storage != ST_ARENA) continue;
        int ok = 1;
        for (int k = 0; k < op->nin && ok; k++) {
            int ti = op->in[k];
            Tensor *t = &g->tensors[ti];
            if (t->storage != ST_ARENA || t->alias_of >= 0) ok = 0;
            for (int j = 0; j < k; j++) ok &= op->in[j] != ti;
            for (int i = 0; i < g->ntensors; i++) ok &= g->tensors[i].alias_of != ti;
            int produced = 0;
            for (int q = 0; q < s; q++) produced |= g->ops[q].out[0] == ti;
            ok &= produced;
        }
        if (!ok) continue;
        int64_t off = 0;
        for (int k = 0; k < op->nin; k++) {
            Tensor *t = &g->tensors[op->in[k]];
            t->storage = ST_ALIAS;
            t->alias_of = op->out[0];
            t->alias_offset = off;
            off += (int64_t)tensor_bytes(t);
        }
        op->inplace = 1;
        n++;
    }
    return n;
}

/* Last step at which the storage of root r is read, over all its aliases. */
static int last_read(const Graph *g, int r)
{
    int last = -1;
    for (int s = 0; s < g->nops; s++)
        for (int k = 0; k < g->ops[s].nin; k++)
            if (g->ops[s].in[k] >= 0 && root(g, g->ops[s].in[k]) == r) last = s;
    return last;
}

/* An element-wise op writes over an input that dies at it: same bytes, no
   broadcast, in the arena, read by no later op (through any alias). */
static int inplace(Graph *g)
{
    int n = 0;
    for (int s = 0; s < g->nops; s++) {
        Op *op = &g->ops[s];
        Tensor *out = &g->tensors[op->out[0]];
        if (!inplace_kind(op) || out->storage != ST_ARENA) continue;
        for (int k = 0; k < op->nin && k < 2; k++) {
            if (op->in[k] < 0) continue;
            int r = root(g, op->in[k]);
            Tensor *in = &g->tensors[r];
            if (in->storage != ST_ARENA || tensor_bytes(in) != tensor_bytes(out)) continue;
            if (tensor_bytes(&g->tensors[op->in[k]]) != tensor_bytes(out)) continue;
            if (last_read(g, r) != s) continue;
            /* both inputs the same tensor: still fine, element i is read first */
            out->storage = ST_ALIAS;
            out->alias_of = r;
            n++;
            break;
        }
    }
    return n;
}

static void lifetimes(Graph *g)
{
    for (int i = 0; i < g->ntensors; i++) {
        g->tensors[i].first_use = -1;
        g->tensors[i].last_use = -1;
        g->tensors[i].producer = -1;
    }
    for (int s = 0; s < g->nops; s++) {
        Op *op = &g->ops[s];
        for (int k = 0; k < op->nout; k++) {
            Tensor *t = &g->tensors[root(g, op->out[k])];
            g->tensors[op->out[k]].producer = s;
            if (t->first_use < 0) t->first_use = s;
            if (t->last_use < s) t->last_use = s;
        }
        for (int k = 0; k < op->nin; k++) {
            if (op->in[k] < 0) continue;
            Tensor *t = &g->tensors[root(g, op->in[k])];
            if (t->first_use < 0) t->first_use = s;
            if (t->last_use < s) t->last_use = s;
        }
    }
}

/* ---- offsets ------------------------------------------------------------------ */

typedef struct {
    int n;
    int *id;                    /* tensor index */
    int64_t *size;              /* aligned bytes */
    int *first, *last;
    int64_t *off;
} Bufs;

static int overlap(const Bufs *b, int i, int j)
{
    return b->first[i] <= b->last[j] && b->first[j] <= b->last[i];
}

static const Bufs *sort_b;

static int by_size_desc(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    if (sort_b->size[i] != sort_b->size[j]) return sort_b->size[i] < sort_b->size[j] ? 1 : -1;
    if (sort_b->first[i] != sort_b->first[j]) return sort_b->first[i] - sort_b->first[j];
    return i - j;
}

static int by_off(const void *x, const void *y)
{
    int64_t a = sort_b->off[*(const int *)x], c = sort_b->off[*(const int *)y];
    return a < c ? -1 : a > c;
}

/* Greedy by size (TFLite Micro's GreedyMemoryPlanner): each buffer goes into
   the lowest gap between the already placed buffers it overlaps in time. */
static int64_t greedy(const Bufs *b, int64_t *off)
{
    int *order = arena_alloc(sizeof(int) * (size_t)(b->n + 1));
    int *live = arena_alloc(sizeof(int) * (size_t)(b->n + 1));
    Bufs tmp = *b;
    tmp.off = off;
    sort_b = &tmp;
    for (int i = 0; i < b->n; i++) order[i] = i;
    qsort(order, (size_t)b->n, sizeof(int), by_size_desc);
    int64_t peak = 0;
    for (int k = 0; k < b->n; k++) {
        int i = order[k], nl = 0;
        for (int j = 0; j < k; j++)
            if (overlap(b, i, order[j])) live[nl++] = order[j];
        qsort(live, (size_t)nl, sizeof(int), by_off);
        int64_t o = 0;
        for (int j = 0; j < nl; j++) {
            if (off[live[j]] >= o + b->size[i]) break;
            if (off[live[j]] + b->size[live[j]] > o) o = off[live[j]] + b->size[live[j]];
        }
        off[i] = o;
        if (o + b->size[i] > peak) peak = o + b->size[i];
    }
    return peak;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double abort_at;

static int __WINAPI milp_abort(lprec *lp, void *user)
{
    (void)lp; (void)user;
    return now_ms() > abort_at;
}

/* Exact offsets: minimise the peak P subject to, for every pair of buffers
   live at once, one lying wholly below the other (a binary picks which):
       o_i + s_i <= o_j + U*(1 - z_ij),   o_j + s_j <= o_i + U*z_ij,
       o_i + s_i <= P,   LB <= P <= greedy.
   Units are the alignment, so offsets stay aligned. Since P >= LB, a plan
   that reaches LB is optimal and the search stops there. Returns 1 when it
   improved on the greedy plan. */
static int milp(const Bufs *b, int align, int64_t lb, int64_t ub, int64_t *off, int *proven, double *ms)
{
    int n = b->n, npairs = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) npairs += overlap(b, i, j);
    int ncols = n + 1 + npairs;             /* o_1..o_n, P, z_... (1-based) */
    double U = (double)(ub / align);
    lprec *lp = make_lp(0, ncols);
    if (!lp) die("lp_solve: out of memory");
    set_verbose(lp, NEUTRAL);
    set_add_rowmode(lp, TRUE);
    double row[4];
    int col[4];
    int z = n + 2;
    for (int i = 0; i < n; i++) {
        double si = (double)(b->size[i] / align);
        row[0] = 1; col[0] = i + 1;
        row[1] = -1; col[1] = n + 1;
        add_constraintex(lp, 2, row, col, LE, -si);
        for (int j = i + 1; j < n; j++) {
            if (!overlap(b, i, j)) continue;
            double sj = (double)(b->size[j] / align);
            /* o_i - o_j + U z <= U - s_i */
            row[0] = 1; col[0] = i + 1;
            row[1] = -1; col[1] = j + 1;
            row[2] = U; col[2] = z;
            add_constraintex(lp, 3, row, col, LE, U - si);
            /* o_j - o_i - U z <= -s_j */
            row[0] = 1; col[0] = j + 1;
            row[1] = -1; col[1] = i + 1;
            row[2] = -U; col[2] = z;
            add_constraintex(lp, 3, row, col, LE, -sj);
            set_binary(lp, z, TRUE);
            z++;
        }
    }
    set_add_rowmode(lp, FALSE);
    for (int i = 0; i < n; i++) {
        set_int(lp, i + 1, TRUE);
        set_upbo(lp, i + 1, U - (double)(b->size[i] / align));
    }
    set_lowbo(lp, n + 1, (double)(lb / align));
    set_upbo(lp, n + 1, U);
    row[0] = 1; col[0] = n + 1;
    set_obj_fnex(lp, 1, row, col);
    set_minim(lp);
    set_break_at_value(lp, (double)(lb / align) + 0.5);
    double t0 = now_ms();
    abort_at = t0 + MILP_MS;
    put_abortfunc(lp, milp_abort, NULL);
    int rc = solve(lp);
    *ms = now_ms() - t0;
    int better = 0;
    if (rc == OPTIMAL || rc == SUBOPTIMAL) {
        REAL *v;
        get_ptr_variables(lp, &v);
        int64_t peak = (int64_t)(v[n] + 0.5) * align;
        if (peak < ub) {
            for (int i = 0; i < n; i++) off[i] = (int64_t)(v[i] + 0.5) * align;
            better = 1;
        }
        *proven = rc == OPTIMAL || peak == lb;
    }
    delete_lp(lp);
    return better;
}

/* Independent check of a plan: sizes within the arena, alignment, and no
   two buffers live at the same step sharing a byte. */
static void verify(const Graph *g, const Bufs *b, int64_t arena, int align)
{
    for (int i = 0; i < b->n; i++) {
        if (b->off[i] < 0 || b->off[i] % align || b->off[i] + b->size[i] > arena)
            die("%s: internal: plan puts '%s' outside the arena", g->path, g->tensors[b->id[i]].name);
        for (int j = i + 1; j < b->n; j++)
            if (overlap(b, i, j) && b->off[i] < b->off[j] + b->size[j] && b->off[j] < b->off[i] + b->size[i])
                die("%s: internal: plan overlaps '%s' and '%s'", g->path, g->tensors[b->id[i]].name,
                    g->tensors[b->id[j]].name);
    }
}

/* Storage, aliases and lifetimes for the current op order; the buffers to
   place in b and the lower bound (most bytes live at one step) returned. */
static int64_t storage(Graph *g, Plan *p, Bufs *b)
{
    for (int s = 0; s < g->nops; s++) g->ops[s].inplace = 0;
    classify(g);
    p->ninplace = concat_in_place(g);
    p->ninplace += inplace(g);
    lifetimes(g);
    b->n = 0;
    for (int i = 0; i < g->ntensors; i++) {
        Tensor *tt = &g->tensors[i];
        tt->offset = -1;
        tt->memory = p->memory;
        if (tt->storage != ST_ARENA || tt->first_use < 0) continue;
        b->id[b->n] = i;
        b->size[b->n] = align_up((int64_t)tensor_bytes(tt), p->alignment);
        b->first[b->n] = tt->first_use;
        b->last[b->n] = tt->last_use;
        b->n++;
    }
    int64_t lb = 0;
    for (int s = 0; s < g->nops; s++) {
        int64_t sum = 0;
        for (int i = 0; i < b->n; i++)
            if (b->first[i] <= s && s <= b->last[i]) sum += b->size[i];
        if (sum > lb) lb = sum;
    }
    return lb;
}

/* A memory-aware topological order for branching graphs: among the ready
   ops, run the one that adds the fewest live bytes (its output minus the
   inputs it is the last reader of); ties keep the model's order. */
static void schedule(Graph *g, const Op *orig)
{
    int n = g->nops;
    int *done = arena_alloc(sizeof(int) * (size_t)n), *prod = arena_alloc(sizeof(int) * (size_t)g->ntensors);
    for (int i = 0; i < g->ntensors; i++) prod[i] = -1;
    for (int s = 0; s < n; s++) prod[orig[s].out[0]] = s;
    for (int k = 0; k < n; k++) {
        int best = -1;
        int64_t best_cost = 0;
        for (int c = 0; c < n; c++) {
            if (done[c]) continue;
            int ready = 1;
            for (int j = 0; j < orig[c].nin; j++)
                if (orig[c].in[j] >= 0 && prod[orig[c].in[j]] >= 0 && !done[prod[orig[c].in[j]]]) ready = 0;
            if (!ready) continue;
            int64_t cost = (int64_t)tensor_bytes(&g->tensors[orig[c].out[0]]);
            for (int j = 0; j < orig[c].nin; j++) {
                int ti = orig[c].in[j];
                if (ti < 0 || prod[ti] < 0) continue;
                int last = 1;
                for (int d = 0; d < n && last; d++)
                    if (d != c && !done[d])
                        for (int q = 0; q < orig[d].nin; q++) last &= orig[d].in[q] != ti;
                if (last) cost -= (int64_t)tensor_bytes(&g->tensors[ti]);
            }
            if (best < 0 || cost < best_cost) {
                best = c;
                best_cost = cost;
            }
        }
        done[best] = 1;
        g->ops[k] = orig[best];
    }
}

Plan *plan(Graph *g, Target *t)
{
    Plan *p = arena_alloc(sizeof *p);
    p->memory = t->engines[0].act_memory;
    p->alignment = t->memories[p->memory].alignment;
    if (p->alignment < 16) p->alignment = 16;

    double t0 = now_ms();
    Bufs b = {0};
    b.id = arena_alloc(sizeof(int) * (size_t)(g->ntensors + 1));
    b.size = arena_alloc(sizeof(int64_t) * (size_t)(g->ntensors + 1));
    b.first = arena_alloc(sizeof(int) * (size_t)(g->ntensors + 1));
    b.last = arena_alloc(sizeof(int) * (size_t)(g->ntensors + 1));
    b.off = arena_alloc(sizeof(int64_t) * (size_t)(g->ntensors + 1));

    /* the model's order, or a memory-aware one if that lowers the bound */
    p->lower_bound = storage(g, p, &b);
    Op *orig = arena_alloc(sizeof(Op) * (size_t)(g->nops + 1));
    memcpy(orig, g->ops, sizeof(Op) * (size_t)g->nops);
    p->original_bound = p->lower_bound;
    schedule(g, orig);
    int64_t lb = storage(g, p, &b);
    if (lb < p->lower_bound) {
        p->lower_bound = lb;
        p->reordered = 1;
    } else {
        memcpy(g->ops, orig, sizeof(Op) * (size_t)g->nops);
        storage(g, p, &b);
    }

    p->greedy_size = greedy(&b, b.off);
    p->arena_size = p->greedy_size;
    p->method = "greedy by size; equals the lower bound, so optimal";
    if (p->greedy_size > p->lower_bound) {
        int proven = 0;
        int64_t *off = arena_alloc(sizeof(int64_t) * (size_t)(b.n + 1));
        if (milp(&b, p->alignment, p->lower_bound, p->greedy_size, off, &proven, &p->solve_ms)) {
            memcpy(b.off, off, sizeof(int64_t) * (size_t)b.n);
            p->arena_size = 0;
            for (int i = 0; i < b.n; i++)
                if (b.off[i] + b.size[i] > p->arena_size) p->arena_size = b.off[i] + b.size[i];
        }
        p->method = proven ? "MILP (lp_solve), proven optimal"
                           : p->arena_size < p->greedy_size ? "MILP (lp_solve) stopped at its time limit: best found"
                                                            : "greedy by size; the MILP found nothing better in its time limit";
    }
    verify(g, &b, p->arena_size, p->alignment);
    p->total_ms = now_ms() - t0;
    for (int i = 0; i < b.n; i++) g->tensors[b.id[i]].offset = b.off[i];

    const Memory *m = &t->memories[p->memory];
    if (p->arena_size > m->size)
        die("%s: the arena needs %lld bytes but memory %s of target '%s' has %lld",
            g->path, (long long)p->arena_size, m->name, t->name, (long long)m->size);
    return p;
}
