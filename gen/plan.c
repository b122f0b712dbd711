/* plan.c - static storage for every tensor: constants, caller buffers,
   aliases, in-place ops, and arena offsets proven against a lower bound. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lpsolve/lp_lib.h>

#include "ir.h"
#include "../htc.h"

/* Limits (README, Limits): the offset MILP runs on at most PLAN_MILP_BUFFERS
   buffers and PLAN_MILP_PAIRS overlapping pairs, for at most PLAN_MILP_ITERS
   simplex iterations (about half a second here); beyond, the greedy plan stands.
   A graph with more than PLAN_MAX_PAIRS pairs of buffers live at one time
   is refused. */
#define PLAN_MILP_BUFFERS 400
#define PLAN_MILP_PAIRS 4000
#define PLAN_MILP_ITERS 20000
#define PLAN_MAX_PAIRS 20000000

static int64_t align_up(int64_t x, int a) { return (x + a - 1) / a * a; }

int64_t buffer_bytes(const Tensor *t)
{
    if (t->band_rows > 0 && t->rank == 4) return (int64_t)tensor_bytes(t) / t->shape[1] * t->band_rows;
    return (int64_t)tensor_bytes(t);
}

/* ---- storage classes, aliases, in-place ----------------------------------- */

/* Element-wise ops whose kernels read element i before writing element i,
   so the output may overwrite an input of the same size that dies there. */
static int inplace_kind(const Op *op)
{
    if (op->cascade) return 0;      /* band buffers: rows of different tensors do not line up */
    switch (op->kind) {
    case OP_ADD: case OP_MUL: return op->rq == RQ_TFLITE && !op->broadcast;
    case OP_TABLE: return op->rq == RQ_TFLITE;
    case OP_REQUANTIZE: return 1;
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
        for (int k = 1; k < op->nout; k++)      /* more outputs (LSTM: state, scratch) */
            if (g->tensors[op->out[k]].storage == ST_NONE) g->tensors[op->out[k]].storage = ST_ARENA;
    }
}

/* A concatenation along its outermost dimension is a row of contiguous
   slices: each producer can write its slice in place and the concat moves
   no data. Taken when every input is an arena tensor of its own (not a
   graph input, constant or alias, and aliased by nothing), produced by an
   earlier op, and appears once. nalias: tensors aliasing each tensor;
   first_prod: the first step writing it. */
static int concat_in_place(Graph *g, int *nalias, const int *first_prod)
{
    int n = 0;
    for (int s = 0; s < g->nops; s++) {
        Op *op = &g->ops[s];
        if (op->kind != OP_CONCAT || op->cascade || ((const htc__concat_params *)op->params)->outer != 1) continue;
        Tensor *out = &g->tensors[op->out[0]];
        if (out->storage != ST_ARENA) continue;
        int ok = 1;
        for (int k = 0; k < op->nin && ok; k++) {
            int ti = op->in[k];
            Tensor *t = &g->tensors[ti];
            if (t->storage != ST_ARENA || t->alias_of >= 0) ok = 0;
            for (int j = 0; j < k; j++) ok &= op->in[j] != ti;
            ok &= nalias[ti] == 0 && first_prod[ti] < s;
        }
        if (!ok) continue;
        int64_t off = 0;
        for (int k = 0; k < op->nin; k++) {
            Tensor *t = &g->tensors[op->in[k]];
            t->storage = ST_ALIAS;
            t->alias_of = op->out[0];
            t->alias_offset = off;
            nalias[op->out[0]]++;
            off += (int64_t)tensor_bytes(t);
        }
        op->inplace = 1;
        n++;
    }
    return n;
}

/* The root of t's storage: union-find over alias_of (up[t] = t at a root),
   with path compression, so alias chains cost nothing on the next look. */
static int find(int *up, int t)
{
    int r = t;
    while (up[r] != r) r = up[r];
    while (up[t] != r) {
        int n = up[t];
        up[t] = r;
        t = n;
    }
    return r;
}

/* An element-wise op writes over an input that dies at it: same bytes, no
   broadcast, in the arena, read by no later op (through any alias).
   last[r]: the last step reading root r's storage through any alias, kept
   up to date as outputs join their input's storage. */
static int inplace(Graph *g, int *up, int *last)
{
    int n = 0;
    for (int i = 0; i < g->ntensors; i++) last[i] = -1;
    for (int s = 0; s < g->nops; s++)
        for (int k = 0; k < g->ops[s].nin; k++)
            if (g->ops[s].in[k] >= 0) last[find(up, g->ops[s].in[k])] = s;
    for (int s = 0; s < g->nops; s++) {
        Op *op = &g->ops[s];
        Tensor *out = &g->tensors[op->out[0]];
        if (!inplace_kind(op) || out->storage != ST_ARENA) continue;
        for (int k = 0; k < op->nin && k < 2; k++) {
            if (op->in[k] < 0) continue;
            int r = find(up, op->in[k]);
            Tensor *in = &g->tensors[r];
            if (in->storage != ST_ARENA || tensor_bytes(in) != tensor_bytes(out)) continue;
            if (tensor_bytes(&g->tensors[op->in[k]]) != tensor_bytes(out)) continue;
            if (last[r] != s) continue;
            /* both inputs the same tensor: still fine, element i is read first */
            out->storage = ST_ALIAS;
            out->alias_of = r;
            up[op->out[0]] = r;
            if (last[op->out[0]] > last[r]) last[r] = last[op->out[0]];
            n++;
            break;
        }
    }
    return n;
}

/* Every alias points at its root with the whole offset, so tensor_root()
   is one step for the emitter and the report (a chain of 50k reshapes was
   50k steps per tensor). Each chain is walked once. */
static void flatten_aliases(Graph *g)
{
    int nt = g->ntensors;
    char *flat = arena_alloc((size_t)nt + 1);
    int *path = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    for (int i = 0; i < nt; i++) {
        int n = 0, t = i;
        while (g->tensors[t].alias_of >= 0 && !flat[t]) {
            path[n++] = t;
            t = g->tensors[t].alias_of;
        }
        /* t: a root, or flat (its alias_of is its root) */
        int r = g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
        int64_t off = g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_offset : 0;
        while (n--) {
            Tensor *x = &g->tensors[path[n]];
            off += x->alias_offset;
            x->alias_of = r;
            x->alias_offset = off;
            flat[path[n]] = 1;
        }
    }
}

static void lifetimes(Graph *g, const int *root)
{
    for (int i = 0; i < g->ntensors; i++) {
        g->tensors[i].first_use = -1;
        g->tensors[i].last_use = -1;
        g->tensors[i].producer = -1;
    }
    for (int s = 0; s < g->nops; s++) {
        Op *op = &g->ops[s];
        /* the ops of a cascade run interleaved: each of their tensors is
           live over the whole cascade */
        int lo = op->cascade ? g->cascades[op->cascade - 1].first : s;
        int hi = op->cascade ? g->cascades[op->cascade - 1].last : s;
        for (int k = 0; k < op->nout; k++) {
            Tensor *t = &g->tensors[root[op->out[k]]];
            g->tensors[op->out[k]].producer = s;
            if (t->first_use < 0 || t->first_use > lo) t->first_use = lo;
            if (t->last_use < hi) t->last_use = hi;
        }
        for (int k = 0; k < op->nin; k++) {
            if (op->in[k] < 0) continue;
            Tensor *t = &g->tensors[root[op->in[k]]];
            if (t->first_use < 0 || t->first_use > lo) t->first_use = lo;
            if (t->last_use < hi) t->last_use = hi;
        }
    }
    for (int i = 0; i < g->ntensors; i++)       /* state kept between runs: never shared */
        if (g->tensors[i].variable && g->tensors[i].first_use >= 0) {
            g->tensors[root[i]].first_use = 0;
            g->tensors[root[i]].last_use = g->nops - 1;
        }
}

/* ---- offsets ------------------------------------------------------------------ */

typedef struct {
    int n;
    int *id;                    /* tensor index */
    int64_t *size;              /* aligned bytes */
    int *first, *last;
    int64_t *off;
    int *adj_start, *adj;       /* buffers live at the same time as i: adj[adj_start[i]..adj_start[i+1]), ascending */
} Bufs;

static int overlap(const Bufs *b, int i, int j)
{
    return b->first[i] <= b->last[j] && b->first[j] <= b->last[i];
}

static const Bufs *sort_b;

static int by_first(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    if (sort_b->first[i] != sort_b->first[j]) return sort_b->first[i] < sort_b->first[j] ? -1 : 1;
    return i - j;
}

static int by_int(const void *x, const void *y)
{
    int a = *(const int *)x, c = *(const int *)y;
    return a < c ? -1 : a > c;
}

/* Every pair of buffers live at one step, as adjacency lists: buffers
   sorted by first use, each paired with those starting inside its
   lifetime, so the cost is the number of pairs (a few per buffer in a
   real model), not n^2. A hostile graph with more pairs than
   PLAN_MAX_PAIRS is refused. */
static void overlaps(const Graph *g, Bufs *b)
{
    int n = b->n;
    int *byf = arena_alloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) byf[i] = i;
    sort_b = b;
    qsort(byf, (size_t)n, sizeof(int), by_first);
    int *deg = arena_alloc(sizeof(int) * (size_t)(n + 1));
    int64_t pairs = 0;
    for (int p = 0; p < n; p++)
        for (int q = p + 1; q < n && b->first[byf[q]] <= b->last[byf[p]]; q++) {
            deg[byf[p]]++;
            deg[byf[q]]++;
            if (++pairs > PLAN_MAX_PAIRS)
                die("%s: more than %d pairs of buffers live at the same time (at most %d are supported)", g->path,
                    PLAN_MAX_PAIRS, PLAN_MAX_PAIRS);
        }
    b->adj_start = arena_alloc(sizeof(int) * (size_t)(n + 1));
    b->adj = arena_alloc(sizeof(int) * (size_t)(2 * pairs + 1));
    for (int i = 0; i < n; i++) b->adj_start[i + 1] = b->adj_start[i] + deg[i];
    memset(deg, 0, sizeof(int) * (size_t)n);
    for (int p = 0; p < n; p++)
        for (int q = p + 1; q < n && b->first[byf[q]] <= b->last[byf[p]]; q++) {
            int i = byf[p], j = byf[q];
            b->adj[b->adj_start[i] + deg[i]++] = j;
            b->adj[b->adj_start[j] + deg[j]++] = i;
        }
    for (int i = 0; i < n; i++)
        qsort(b->adj + b->adj_start[i], (size_t)deg[i], sizeof(int), by_int);
}

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
    int *rank = arena_alloc(sizeof(int) * (size_t)(b->n + 1));
    int *live = arena_alloc(sizeof(int) * (size_t)(b->n + 1));
    Bufs tmp = *b;
    tmp.off = off;
    sort_b = &tmp;
    for (int i = 0; i < b->n; i++) order[i] = i;
    qsort(order, (size_t)b->n, sizeof(int), by_size_desc);
    for (int k = 0; k < b->n; k++) rank[order[k]] = k;
    int64_t peak = 0;
    for (int k = 0; k < b->n; k++) {
        int i = order[k], nl = 0;
        for (int a = b->adj_start[i]; a < b->adj_start[i + 1]; a++)
            if (rank[b->adj[a]] < k) live[nl++] = b->adj[a];
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

/* The MILP stops after a number of simplex iterations, never at a time:
   the same inputs give the same plan on any machine and under any load. */
static int __WINAPI milp_abort(lprec *lp, void *user)
{
    (void)user;
    return get_total_iter(lp) > PLAN_MILP_ITERS;
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
        for (int a = b->adj_start[i]; a < b->adj_start[i + 1]; a++) npairs += b->adj[a] > i;
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
        for (int a = b->adj_start[i]; a < b->adj_start[i + 1]; a++) {
            int j = b->adj[a];
            if (j <= i) continue;
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
        for (int a = b->adj_start[i]; a < b->adj_start[i + 1]; a++) {
            int j = b->adj[a];
            if (!overlap(b, i, j)) die("%s: internal: plan pairs '%s' and '%s'", g->path, g->tensors[b->id[i]].name,
                                       g->tensors[b->id[j]].name);
            if (j > i && b->off[i] < b->off[j] + b->size[j] && b->off[j] < b->off[i] + b->size[i])
                die("%s: internal: plan overlaps '%s' and '%s'", g->path, g->tensors[b->id[i]].name,
                    g->tensors[b->id[j]].name);
        }
    }
}

/* Offsets for the buffers of b (one memory): greedy by size, then the
   exact MILP when greedy is above the lower bound and b is small enough.
   Returns the arena's bytes; *greedy_size, *method and *ms as the report
   shows them. */
static int64_t offsets(const Graph *g, Bufs *b, int align, int64_t lb, int64_t *greedy_size, const char **method, double *ms)
{
    int64_t size = *greedy_size = greedy(b, b->off);
    *method = "greedy by size; equals the lower bound, so optimal";
    if (*greedy_size > lb && b->n <= PLAN_MILP_BUFFERS && b->adj_start[b->n] / 2 <= PLAN_MILP_PAIRS) {
        int proven = 0;
        int64_t *off = arena_alloc(sizeof(int64_t) * (size_t)(b->n + 1));
        if (milp(b, align, lb, *greedy_size, off, &proven, ms)) {
            memcpy(b->off, off, sizeof(int64_t) * (size_t)b->n);
            size = 0;
            for (int i = 0; i < b->n; i++)
                if (b->off[i] + b->size[i] > size) size = b->off[i] + b->size[i];
        }
        *method = proven ? "MILP (lp_solve), proven optimal"
                         : size < *greedy_size ? "MILP (lp_solve) stopped at its iteration limit: best found"
                                               : "greedy by size; the MILP found nothing better in its iteration limit";
    } else if (*greedy_size > lb) {
        *method = "greedy by size (too many buffers for the MILP)";
    }
    (void)g;
    return size;
}

/* Storage, aliases and lifetimes for the current op order; the buffers to
   place in b and the lower bound (most bytes live at one step) returned.
   Linear in the graph (union-find roots, a sweep for the bound). */
static int64_t storage(Graph *g, Plan *p, Bufs *b)
{
    int nt = g->ntensors;
    int *up = arena_alloc(sizeof(int) * (size_t)(nt + 1)), *aux = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    for (int s = 0; s < g->nops; s++) g->ops[s].inplace = 0;
    classify(g);
    /* aux: tensors aliasing each tensor, then the first step producing it */
    int *first_prod = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    for (int i = 0; i < nt; i++) first_prod[i] = INT_MAX;
    for (int i = 0; i < nt; i++)
        if (g->tensors[i].alias_of >= 0) aux[g->tensors[i].alias_of]++;
    for (int s = g->nops - 1; s >= 0; s--)
        if (g->ops[s].out[0] >= 0) first_prod[g->ops[s].out[0]] = s;
    p->ninplace = concat_in_place(g, aux, first_prod);
    for (int i = 0; i < nt; i++) up[i] = g->tensors[i].alias_of >= 0 ? g->tensors[i].alias_of : i;
    p->ninplace += inplace(g, up, aux);
    for (int i = 0; i < nt; i++) aux[i] = find(up, i);
    lifetimes(g, aux);
    b->n = 0;
    for (int i = 0; i < nt; i++) {
        Tensor *tt = &g->tensors[i];
        tt->offset = -1;
        tt->memory = p->memory;
        if (tt->storage != ST_ARENA || tt->first_use < 0) continue;
        b->id[b->n] = i;
        b->size[b->n] = align_up(buffer_bytes(tt), p->alignment);
        b->first[b->n] = tt->first_use;
        b->last[b->n] = tt->last_use;
        b->n++;
    }
    /* bytes live at each step: +size at first use, -size after the last */
    int64_t *delta = arena_alloc(sizeof(int64_t) * (size_t)(g->nops + 2));
    for (int i = 0; i < b->n; i++) {
        delta[b->first[i]] += b->size[i];
        delta[b->last[i] + 1] -= b->size[i];
    }
    int64_t lb = 0, sum = 0;
    for (int s = 0; s < g->nops; s++) {
        sum += delta[s];
        if (sum > lb) lb = sum;
    }
    return lb;
}

/* ---- several data memories ------------------------------------------------------------

   A CPU that lists several data memories (memory = { "SRAM", "PSRAM" }, each
   with a cost per byte) gets one arena per memory. Every arena buffer goes
   into one memory so that the modelled access cost, sum over buffers of the
   bytes its layers read and write x the cost of its memory, is least:

       min  sum_i,m a_i c_m x_im    sum_m x_im = 1,  x_im binary,
            sum_{i live at step s} size_im x_im <= cap_m   for every step s, memory m

   (an MILP, lp_solve; only the rows of steps whose live buffers could
   exceed cap_m are written). The capacity rows are necessary for any plan,
   so the optimum is a lower bound of the cost; each memory's offsets are
   then planned as for a single arena, and when they fit, the placement is
   optimal. When fragmentation makes a memory's offsets exceed it, that
   memory's capacity row is lowered by the excess and the MILP solved again
   (PLACE_ROUNDS at most); the report then states the gap to the bound. The
   MILP stops after PLACE_MILP_ITERS simplex iterations (counted, never
   timed); without a placement by then (or with none satisfying the rows),
   buffers go by accesses per byte, most first, to the cheapest memory they
   fit at every step of their lives. */

#define PLACE_MILP_ITERS 50000
#define PLACE_ROUNDS 8
#define PLACE_MILP_BUFFERS 2000

typedef struct {
    int n, K;
    int64_t *acc;               /* bytes read + written per buffer */
    int64_t *sz;                /* sz[i * K + m]: buffer i's bytes aligned for memory m */
    const int *first, *last;
    double cost[MAX_DATA_MEMORIES];
    int64_t cap[MAX_DATA_MEMORIES];     /* capacity rows (lowered by the rounds) */
    int nops;
} Place;

static int __WINAPI place_abort(lprec *lp, void *user)
{
    (void)user;
    return get_total_iter(lp) > PLACE_MILP_ITERS;
}

static const int *sort_first;

static int by_first_p(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    if (sort_first[i] != sort_first[j]) return sort_first[i] < sort_first[j] ? -1 : 1;
    return i - j;
}

/* The MILP above; asg[i] = memory slot. Returns 1 with a placement
   (*proven: optimal), 0 without one. */
static int place_milp(const Place *P, int *asg, int *proven)
{
    int n = P->n, K = P->K;
    lprec *lp = make_lp(0, n * K);
    if (!lp) die("lp_solve: out of memory");
    set_verbose(lp, NEUTRAL);
    set_add_rowmode(lp, TRUE);
    double *row = arena_alloc(sizeof(double) * (size_t)(n * K + 1));
    int *col = arena_alloc(sizeof(int) * (size_t)(n * K + 1));
    for (int i = 0; i < n; i++) {
        for (int m = 0; m < K; m++) row[m] = 1, col[m] = i * K + m + 1;
        add_constraintex(lp, K, row, col, EQ, 1);
    }
    /* a row per memory and step where a buffer starts (the most live sets),
       the live buffers kept in a list as the steps are swept */
    int *byf = arena_alloc(sizeof(int) * (size_t)(n + 1)), *live = arena_alloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) byf[i] = i;
    sort_first = P->first;
    qsort(byf, (size_t)n, sizeof(int), by_first_p);
    int nlive = 0;
    for (int q = 0; q < n;) {
        int s = P->first[byf[q]], w = 0;
        for (int k = 0; k < nlive; k++)
            if (P->last[live[k]] >= s) live[w++] = live[k];
        nlive = w;
        int q0 = nlive;
        while (q < n && P->first[byf[q]] == s) live[nlive++] = byf[q++];
        /* cover cuts: two buffers live together that exceed the memory
           cannot both be in it (valid for every plan; they make the LP
           relaxation of a chain exact) */
        for (int m = 0; m < K; m++)
            for (int a = q0; a < nlive; a++)
                for (int c = 0; c < a; c++) {
                    int i = live[a], j = live[c];
                    if (P->sz[i * K + m] > P->cap[m] || P->sz[j * K + m] > P->cap[m] ||
                        P->sz[i * K + m] + P->sz[j * K + m] <= P->cap[m])
                        continue;
                    double r2[2] = {1, 1};
                    int c2[2] = {i * K + m + 1, j * K + m + 1};
                    add_constraintex(lp, 2, r2, c2, LE, 1);
                }
        for (int m = 0; m < K; m++) {
            int nz = 0;
            int64_t sum = 0;
            for (int k = 0; k < nlive; k++) {
                int i = live[k];
                if (P->sz[i * K + m] > P->cap[m]) continue;
                row[nz] = (double)P->sz[i * K + m];
                col[nz++] = i * K + m + 1;
                sum += P->sz[i * K + m];
            }
            if (sum > P->cap[m]) add_constraintex(lp, nz, row, col, LE, (double)P->cap[m]);
        }
    }
    set_add_rowmode(lp, FALSE);
    for (int i = 0; i < n; i++)
        for (int m = 0; m < K; m++) {
            set_binary(lp, i * K + m + 1, TRUE);
            if (P->sz[i * K + m] > P->cap[m]) set_upbo(lp, i * K + m + 1, 0);
            row[i * K + m] = (double)P->acc[i] * P->cost[m];
            col[i * K + m] = i * K + m + 1;
        }
    set_obj_fnex(lp, n * K, row, col);
    set_minim(lp);
    put_abortfunc(lp, place_abort, NULL);
    int rc = solve(lp), ok = 0;
    if (rc == OPTIMAL || rc == SUBOPTIMAL) {
        REAL *v;
        get_ptr_variables(lp, &v);
        ok = 1;
        for (int i = 0; i < n; i++) {
            asg[i] = -1;
            for (int m = 0; m < K; m++)
                if (v[i * K + m] > 0.5) asg[i] = m;
            ok &= asg[i] >= 0;
        }
        *proven = rc == OPTIMAL;
    }
    delete_lp(lp);
    return ok;
}

static const Place *sort_p;

static int by_density(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    /* a_i / s_i > a_j / s_j, without division */
    double di = (double)sort_p->acc[i] * (double)sort_p->sz[j * sort_p->K];
    double dj = (double)sort_p->acc[j] * (double)sort_p->sz[i * sort_p->K];
    if (di != dj) return di > dj ? -1 : 1;
    return i - j;
}

/* Without the MILP: most accesses per byte first, each to the cheapest
   memory with room at every step of its life; a buffer that fits nowhere
   goes to the memory with the most room left (its plan then fails the
   size check, which names the memory). */
static void place_greedy(const Place *P, int *asg)
{
    int n = P->n, K = P->K;
    int *order = arena_alloc(sizeof(int) * (size_t)(n + 1));
    int64_t *load = arena_alloc(sizeof(int64_t) * (size_t)K * (size_t)(P->nops + 1));
    for (int i = 0; i < n; i++) order[i] = i;
    sort_p = P;
    qsort(order, (size_t)n, sizeof(int), by_density);
    int mem[MAX_DATA_MEMORIES];
    for (int m = 0; m < K; m++) mem[m] = m;
    for (int a = 1; a < K; a++)             /* cheapest first, the target's order among equals */
        for (int b = a; b > 0 && P->cost[mem[b]] < P->cost[mem[b - 1]]; b--) {
            int x = mem[b];
            mem[b] = mem[b - 1];
            mem[b - 1] = x;
        }
    for (int k = 0; k < n; k++) {
        int i = order[k], pick = -1, roomiest = mem[0];
        int64_t best_room = INT64_MIN;
        for (int q = 0; q < K; q++) {
            int m = mem[q];
            int64_t peak = 0;
            for (int s = P->first[i]; s <= P->last[i]; s++)
                if (load[(size_t)m * (size_t)(P->nops + 1) + (size_t)s] > peak) peak = load[(size_t)m * (size_t)(P->nops + 1) + (size_t)s];
            if (pick < 0 && peak + P->sz[i * K + m] <= P->cap[m]) pick = m;
            if (P->cap[m] - peak > best_room) best_room = P->cap[m] - peak, roomiest = m;
        }
        if (pick < 0) pick = roomiest;
        asg[i] = pick;
        for (int s = P->first[i]; s <= P->last[i]; s++) load[(size_t)pick * (size_t)(P->nops + 1) + (size_t)s] += P->sz[i * K + pick];
    }
}

/* The most bytes live at one step among b's buffers. */
static int64_t live_bound(int nops, const Bufs *b)
{
    int64_t *delta = arena_alloc(sizeof(int64_t) * (size_t)(nops + 2));
    for (int i = 0; i < b->n; i++) {
        delta[b->first[i]] += b->size[i];
        delta[b->last[i] + 1] -= b->size[i];
    }
    int64_t lb = 0, sum = 0;
    for (int s = 0; s < nops; s++) {
        sum += delta[s];
        if (sum > lb) lb = sum;
    }
    return lb;
}

/* Why buffer i is in memory slot m, for the report; load[s]: bytes the
   cheapest memory (slot c0) holds at step s. */
static const char *place_why(const Graph *g, const Target *t, const Place *P, const int *asg, const int64_t *load, int i,
                             int m)
{
    const Engine *cpu = &t->engines[0];
    const Memory *mm = &t->memories[cpu->data_memories[m]];
    double per = (double)P->acc[i] / (double)(P->sz[i * P->K + m] ? P->sz[i * P->K + m] : 1);
    int c0 = 0;
    for (int q = 1; q < P->K; q++)
        if (P->cost[q] < P->cost[c0]) c0 = q;
    if (P->cost[m] <= P->cost[c0])
        return arena_printf("%s (cost %g/byte, the cheapest): %lld bytes read+written, %.2f per byte", mm->name, mm->cost,
                            (long long)P->acc[i], per);
    /* the step of its life where the cheapest memory is fullest */
    int64_t worst = -1;
    int at = P->first[i];
    for (int s = P->first[i]; s <= P->last[i]; s++)
        if (load[s] > worst) worst = load[s], at = s;
    (void)asg;
    const Memory *fast = &t->memories[cpu->data_memories[c0]];
    (void)g;
    return arena_printf("%s (cost %g/byte): %lld bytes read+written, %.2f per byte; %s (cost %g) holds %lld of %lld bytes at "
                        "layer %d, where this %lld-byte buffer is live: keeping it there would spill buffers costing more",
                        mm->name, mm->cost, (long long)P->acc[i], per, fast->name, fast->cost, (long long)worst,
                        (long long)fast->size, at, (long long)P->sz[i * P->K + c0]);
}

static void place(Graph *g, Target *t, Plan *p, Bufs *b)
{
    const Engine *cpu = &t->engines[0];
    int n = b->n, K = cpu->ndata;
    Place P = {0};
    P.n = n, P.K = K, P.first = b->first, P.last = b->last, P.nops = g->nops;
    P.acc = arena_alloc(sizeof(int64_t) * (size_t)(n + 1));
    P.sz = arena_alloc(sizeof(int64_t) * (size_t)(n * K + 1));
    int *slot = arena_alloc(sizeof(int) * (size_t)(g->ntensors + 1));
    for (int x = 0; x < g->ntensors; x++) slot[x] = -1;
    for (int i = 0; i < n; i++) slot[b->id[i]] = i;
    /* the access model: every layer reads each input and writes each output once */
    for (int s = 0; s < g->nops; s++) {
        const Op *op = &g->ops[s];
        if (op->kind == OP_RESHAPE && g->tensors[op->out[0]].storage == ST_ALIAS) continue;   /* moves nothing */
        for (int k = -op->nout; k < op->nin; k++) {
            int x = k < 0 ? op->out[-1 - k] : op->in[k];
            if (x < 0) continue;
            int r = slot[tensor_root(g, x, NULL)];
            if (r >= 0) P.acc[r] += (int64_t)tensor_bytes(&g->tensors[x]);
        }
    }
    for (int m = 0; m < K; m++) {
        const Memory *mm = &t->memories[cpu->data_memories[m]];
        int al = mm->alignment < 16 ? 16 : mm->alignment;
        p->arenas[m].memory = cpu->data_memories[m];
        p->arenas[m].alignment = al;
        P.cost[m] = mm->cost;
        P.cap[m] = mm->size / al * al;
        for (int i = 0; i < n; i++) P.sz[i * K + m] = align_up(buffer_bytes(&g->tensors[b->id[i]]), al);
    }
    p->narenas = K;
    int *asg = arena_alloc(sizeof(int) * (size_t)(n + 1));
    int proven = 0, rounds = 0, milp_ok = 0;
    double bound = -1, t0 = now_ms();
    Bufs sub = {0};
    sub.id = arena_alloc(sizeof(int) * (size_t)(n + 1));
    sub.size = arena_alloc(sizeof(int64_t) * (size_t)(n + 1));
    sub.first = arena_alloc(sizeof(int) * (size_t)(n + 1));
    sub.last = arena_alloc(sizeof(int) * (size_t)(n + 1));
    sub.off = arena_alloc(sizeof(int64_t) * (size_t)(n + 1));
    int *at = arena_alloc(sizeof(int) * (size_t)(n + 1));
    int too_many = n > PLACE_MILP_BUFFERS;
    for (;;) {
        milp_ok = !too_many && place_milp(&P, asg, &proven);
        if (!milp_ok) place_greedy(&P, asg);
        if (!rounds && milp_ok && proven) {
            bound = 0;
            for (int i = 0; i < n; i++) bound += (double)P.acc[i] * P.cost[asg[i]];
        }
        int fits = 1;
        for (int m = 0; m < K; m++) {
            sub.n = 0;
            for (int i = 0; i < n; i++) {
                if (asg[i] != m) continue;
                at[sub.n] = i;
                sub.id[sub.n] = b->id[i];
                sub.size[sub.n] = P.sz[i * K + m];
                sub.first[sub.n] = b->first[i];
                sub.last[sub.n] = b->last[i];
                sub.n++;
            }
            int al = p->arenas[m].alignment;
            p->arenas[m].nbuf = sub.n;
            p->arenas[m].lower_bound = live_bound(g->nops, &sub);
            overlaps(g, &sub);
            p->arenas[m].size = offsets(g, &sub, al, p->arenas[m].lower_bound, &p->arenas[m].greedy_size,
                                        &p->arenas[m].method, &p->solve_ms);
            verify(g, &sub, p->arenas[m].size, al);
            for (int k = 0; k < sub.n; k++) b->off[at[k]] = sub.off[k];
            const Memory *mm = &t->memories[p->arenas[m].memory];
            if (p->arenas[m].size > mm->size) {
                fits = 0;
                int64_t over = align_up(p->arenas[m].size - mm->size, al);
                P.cap[m] = P.cap[m] > over ? P.cap[m] - over : 0;
            }
        }
        if (fits || !milp_ok || ++rounds >= PLACE_ROUNDS) break;
    }
    /* totals and the reasons */
    p->access_cost = p->access_fast = 0;
    double cmin = P.cost[0];
    for (int m = 1; m < K; m++)
        if (P.cost[m] < cmin) cmin = P.cost[m];
    for (int m = 0; m < K; m++) p->arenas[m].accessed = 0;
    p->arena_size = p->greedy_size = 0;
    for (int m = 0; m < K; m++) {
        p->arena_size += p->arenas[m].size;
        p->greedy_size += p->arenas[m].greedy_size;
    }
    int c0 = 0;
    for (int m = 1; m < K; m++)
        if (P.cost[m] < P.cost[c0]) c0 = m;
    int64_t *load = arena_alloc(sizeof(int64_t) * (size_t)(g->nops + 2));
    for (int i = 0; i < n; i++)
        if (asg[i] == c0) {
            load[b->first[i]] += P.sz[i * K + c0];
            load[b->last[i] + 1] -= P.sz[i * K + c0];
        }
    for (int s = 1; s <= g->nops; s++) load[s] += load[s - 1];
    for (int i = 0; i < n; i++) {
        Tensor *x = &g->tensors[b->id[i]];
        x->memory = cpu->data_memories[asg[i]];
        x->accessed = P.acc[i];
        x->place_why = place_why(g, t, &P, asg, load, i, asg[i]);
        p->arenas[asg[i]].accessed += P.acc[i];
        p->access_cost += (double)P.acc[i] * P.cost[asg[i]];
        p->access_fast += (double)P.acc[i] * cmin;
    }
    p->access_bound = bound;
    p->method = "per memory (see the arenas)";
    if (too_many)
        p->place_method = arena_printf("greedy by accesses per byte (%d buffers: the MILP takes at most %d)", n,
                                       PLACE_MILP_BUFFERS);
    else if (!milp_ok)
        p->place_method = "greedy by accesses per byte (the MILP found no placement within its limits)";
    else if (proven && !rounds)
        p->place_method = "exact: MILP (lp_solve) over every memory's live bytes at each layer, proven optimal; the offsets "
                          "fit, so no placement costs less";
    else if (proven)
        p->place_method = arena_printf("MILP (lp_solve), proven optimal with capacity rows lowered in %d round%s for the "
                                       "offsets; %.2f%% above the bound %.0f", rounds, rounds > 1 ? "s" : "",
                                       bound > 0 ? 100 * (p->access_cost - bound) / bound : 0.0, bound);
    else
        p->place_method = "MILP (lp_solve) stopped at its iteration limit: best found, not proven";
    p->solve_ms = now_ms() - t0;
}

/* ---- a memory-aware order ----------------------------------------------------------- */

typedef struct { int64_t cost; int op; } Entry;

static int entry_less(const Entry *a, const Entry *b) { return a->cost < b->cost || (a->cost == b->cost && a->op < b->op); }

static void heap_push(Entry *h, int *n, Entry e)
{
    int i = (*n)++;
    while (i > 0 && entry_less(&e, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static Entry heap_pop(Entry *h, int *n)
{
    Entry top = h[0], e = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && entry_less(&h[c + 1], &h[c])) c++;
        if (!entry_less(&h[c], &e)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = e;
    return top;
}

/* slot j of op c is the first to read its tensor */
static int first_slot(const Op *c, int j)
{
    for (int q = 0; q < j; q++)
        if (c->in[q] == c->in[j]) return 0;
    return 1;
}

/* live bytes op c adds if it runs now: its output, minus each input read
   by no other op left (rem: ops left reading a produced tensor) */
static int64_t cost(const Graph *g, const Op *c, const int *prod, const int *rem)
{
    int64_t k = (int64_t)tensor_bytes(&g->tensors[c->out[0]]);
    for (int j = 0; j < c->nin; j++) {
        int t = c->in[j];
        if (t >= 0 && prod[t] >= 0 && rem[t] == 1) k -= (int64_t)tensor_bytes(&g->tensors[t]);
    }
    return k;
}

/* A memory-aware topological order for branching graphs: among the ready
   ops, run the one that adds the fewest live bytes (its output minus the
   inputs it is the last reader of); ties keep the model's order. A heap of
   the ready ops keyed by that cost; a cost changes only when an input's
   last other reader runs, so each change is one push. Returns 0 (and
   leaves g->ops alone) when no order exists. */
static int schedule(Graph *g, const Op *orig)
{
    int n = g->nops, nt = g->ntensors;
    int *done = arena_alloc(sizeof(int) * (size_t)(n + 1)), *prod = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    int *indeg = arena_alloc(sizeof(int) * (size_t)(n + 1)), *rem = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    int *rstart = arena_alloc(sizeof(int) * (size_t)(nt + 2));
    for (int i = 0; i < nt; i++) prod[i] = -1;
    for (int s = 0; s < n; s++)
        if (orig[s].out[0] >= 0) prod[orig[s].out[0]] = s;
    /* readers of each produced tensor: (op, slots), one entry per op */
    for (int c = 0; c < n; c++)
        for (int j = 0; j < orig[c].nin; j++) {
            int ti = orig[c].in[j];
            if (ti < 0 || prod[ti] < 0) continue;
            indeg[c]++;
            if (first_slot(&orig[c], j)) rem[ti]++;
        }
    for (int i = 0; i < nt; i++) rstart[i + 1] = rstart[i] + rem[i];
    int *rop = arena_alloc(sizeof(int) * (size_t)(rstart[nt] + 1)), *rslots = arena_alloc(sizeof(int) * (size_t)(rstart[nt] + 1));
    int *fill = arena_alloc(sizeof(int) * (size_t)(nt + 1));
    for (int c = 0; c < n; c++)
        for (int j = 0; j < orig[c].nin; j++) {
            int ti = orig[c].in[j];
            if (ti < 0 || prod[ti] < 0) continue;
            if (first_slot(&orig[c], j)) {
                rop[rstart[ti] + fill[ti]] = c;
                rslots[rstart[ti] + fill[ti]++] = 1;
            } else {
                for (int q = rstart[ti]; q < rstart[ti] + fill[ti]; q++)
                    if (rop[q] == c) rslots[q]++;
            }
        }
    Entry *heap = arena_alloc(sizeof(Entry) * (size_t)(2 * n + rstart[nt] + 1));
    int nh = 0;
#define COST(c) cost(g, &orig[c], prod, rem)
    for (int c = 0; c < n; c++)
        if (!indeg[c]) heap_push(heap, &nh, (Entry){COST(c), c});
    Op *order = arena_alloc(sizeof(Op) * (size_t)(n + 1));
    for (int k = 0; k < n; k++) {
        int best = -1;
        while (nh && best < 0) {
            Entry e = heap_pop(heap, &nh);
            if (!done[e.op] && e.cost == COST(e.op)) best = e.op;
        }
        if (best < 0) return 0;
        done[best] = 1;
        order[k] = orig[best];
        /* its inputs: one reader fewer; the last reader left gets cheaper */
        for (int j = 0; j < orig[best].nin; j++) {
            int ti = orig[best].in[j];
            if (ti < 0 || prod[ti] < 0 || !first_slot(&orig[best], j) || --rem[ti] != 1) continue;
            for (int q = rstart[ti]; q < rstart[ti + 1]; q++)
                if (!done[rop[q]] && !indeg[rop[q]]) heap_push(heap, &nh, (Entry){COST(rop[q]), rop[q]});
        }
        /* its output: readers become ready */
        int to = orig[best].out[0];
        if (to >= 0 && prod[to] == best)
            for (int q = rstart[to]; q < rstart[to + 1]; q++)
                if ((indeg[rop[q]] -= rslots[q]) == 0) heap_push(heap, &nh, (Entry){COST(rop[q]), rop[q]});
    }
#undef COST
    memcpy(g->ops, order, sizeof(Op) * (size_t)n);
    return 1;
}

Plan *plan_try(Graph *g, Target *t)
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
    if (!g->ncascades && schedule(g, orig)) {     /* cascades were chosen for this order */
        int64_t lb = storage(g, p, &b);
        if (lb < p->lower_bound) {
            p->lower_bound = lb;
            p->reordered = 1;
        } else {
            memcpy(g->ops, orig, sizeof(Op) * (size_t)g->nops);
            storage(g, p, &b);
        }
    }
    if (t->engines[0].ndata > 1) {
        place(g, t, p, &b);
    } else {
        overlaps(g, &b);
        p->arena_size = offsets(g, &b, p->alignment, p->lower_bound, &p->greedy_size, &p->method, &p->solve_ms);
        verify(g, &b, p->arena_size, p->alignment);
        p->narenas = 1;
        p->arenas[0].memory = p->memory;
        p->arenas[0].alignment = p->alignment;
        p->arenas[0].size = p->arena_size;
        p->arenas[0].lower_bound = p->lower_bound;
        p->arenas[0].greedy_size = p->greedy_size;
        p->arenas[0].nbuf = b.n;
        p->arenas[0].method = p->method;
    }
    flatten_aliases(g);
    p->total_ms = now_ms() - t0;
    for (int i = 0; i < b.n; i++) g->tensors[b.id[i]].offset = b.off[i];
    return p;
}

/* The target parameter that sets memory m's size, by the targets'
   convention (memory L2: param "l2_kib", its value in KiB the size in use),
   and the value that holds need bytes: ": -D l2_kib=N fits it", or "".
   With several arenas (place) the buffers' split moves with the memories'
   sizes, so N is only the least that memory must grow to: said so. */
static const char *size_hint(const Target *t, const Memory *m, long long need, int several)
{
    char want[64];
    size_t n = 0;
    for (const char *c = m->name; *c && n < sizeof want - 8; c++)
        want[n++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    memcpy(want + n, "_kib", 5);
    for (int i = 0; i < t->nparams; i++) {
        const TargetParam *q = &t->params[i];
        char *end;
        long long v = strtoll(q->value, &end, 10);
        if (!strcmp(q->name, want) && !*end && v * 1024 == m->size)
            return several ? arena_printf(": -D %s=%lld at least (the split over the memories moves with their sizes)",
                                          q->name, (need + 1023) / 1024)
                           : arena_printf(": -D %s=%lld fits it", q->name, (need + 1023) / 1024);
    }
    return "";
}

void plan_check(const Graph *g, const Target *t, const Plan *p)
{
    if (p->narenas <= 1) {
        const Memory *m = &t->memories[p->memory];
        if (p->arena_size > m->size)
            die("%s: the arena needs %lld bytes but memory %s of target '%s' has %lld%s",
                g->path, (long long)p->arena_size, m->name, t->name, (long long)m->size,
                size_hint(t, m, (long long)p->arena_size, 0));
        return;
    }
    for (int k = 0; k < p->narenas; k++) {
        const Memory *m = &t->memories[p->arenas[k].memory];
        if (p->arenas[k].size > m->size)
            die("%s: the arenas need %lld bytes in all; the one in memory %s needs %lld bytes but %s of target '%s' has %lld%s",
                g->path, (long long)p->arena_size, m->name, (long long)p->arenas[k].size, m->name, t->name, (long long)m->size,
                size_hint(t, m, (long long)p->arenas[k].size, 1));
    }
}

int plan_fits(const Target *t, const Plan *p)
{
    for (int k = 0; k < p->narenas; k++)
        if (p->arenas[k].size > t->memories[p->arenas[k].memory].size) return 0;
    return 1;
}

Plan *plan(Graph *g, Target *t)
{
    Plan *p = plan_try(g, t);
    plan_check(g, t, p);
    return p;
}
