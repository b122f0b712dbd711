/* plan.c - static storage for every tensor: constants, caller buffers,
   aliases, and arena offsets placed greedily by size over lifetimes. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static int64_t align_up(int64_t x, int a) { return (x + a - 1) / a * a; }

/* The tensor whose storage t uses. */
static int root(const Graph *g, int t)
{
    while (g->tensors[t].alias_of >= 0) t = g->tensors[t].alias_of;
    return t;
}

static const Graph *sort_g;

static int by_size_desc(const void *a, const void *b)
{
    const Tensor *x = &sort_g->tensors[*(const int *)a], *y = &sort_g->tensors[*(const int *)b];
    size_t sx = tensor_bytes(x), sy = tensor_bytes(y);
    if (sx != sy) return sx < sy ? 1 : -1;
    if (x->first_use != y->first_use) return x->first_use - y->first_use;
    return *(const int *)a - *(const int *)b;
}

static int by_offset(const void *a, const void *b)
{
    int64_t x = sort_g->tensors[*(const int *)a].offset, y = sort_g->tensors[*(const int *)b].offset;
    return x < y ? -1 : x > y;
}

/* Storage classes and reshape aliases. A reshape shares its input's storage
   unless its output is a graph output (then the emitter copies). */
static void classify(Graph *g)
{
    for (int i = 0; i < g->ntensors; i++) {
        Tensor *t = &g->tensors[i];
        t->alias_of = -1;
        t->storage = t->data ? ST_CONST : t->is_input ? ST_INPUT : t->is_output ? ST_OUTPUT : ST_NONE;
    }
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        Tensor *out = &g->tensors[op->out[0]];
        if (out->storage == ST_NONE && op->kind != OP_RESHAPE) out->storage = ST_ARENA;
        if (op->kind == OP_RESHAPE && out->storage == ST_NONE) {
            out->storage = ST_ALIAS;
            out->alias_of = op->in[0];
        }
    }
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

Plan *plan(Graph *g, Target *t)
{
    Plan *p = arena_alloc(sizeof *p);
    p->memory = t->engines[0].act_memory;
    p->alignment = t->memories[p->memory].alignment;
    if (p->alignment < 16) p->alignment = 16;
    classify(g);
    lifetimes(g);

    int *order = arena_alloc(sizeof(int) * (size_t)(g->ntensors + 1));
    int n = 0;
    for (int i = 0; i < g->ntensors; i++) {
        Tensor *tt = &g->tensors[i];
        tt->offset = -1;
        if (tt->storage == ST_ARENA && tt->first_use >= 0) order[n++] = i;
        tt->memory = p->memory;
    }
    sort_g = g;
    qsort(order, (size_t)n, sizeof(int), by_size_desc);

    /* Greedy by size (TFLite Micro's GreedyMemoryPlanner): each buffer goes
       into the lowest gap between the already placed buffers it overlaps in
       time. */
    int *live = arena_alloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        Tensor *a = &g->tensors[order[i]];
        int nl = 0;
        for (int j = 0; j < i; j++) {
            Tensor *b = &g->tensors[order[j]];
            if (b->first_use <= a->last_use && a->first_use <= b->last_use) live[nl++] = order[j];
        }
        qsort(live, (size_t)nl, sizeof(int), by_offset);
        int64_t off = 0, size = align_up((int64_t)tensor_bytes(a), p->alignment);
        for (int j = 0; j < nl; j++) {
            Tensor *b = &g->tensors[live[j]];
            if (b->offset >= off + size) break;
            int64_t end = b->offset + align_up((int64_t)tensor_bytes(b), p->alignment);
            if (end > off) off = end;
        }
        a->offset = off;
        if (off + size > p->arena_size) p->arena_size = off + size;
    }

    /* lower bound: the most bytes live at one step */
    for (int s = 0; s < g->nops; s++) {
        int64_t sum = 0;
        for (int i = 0; i < n; i++) {
            Tensor *a = &g->tensors[order[i]];
            if (a->first_use <= s && s <= a->last_use) sum += align_up((int64_t)tensor_bytes(a), p->alignment);
        }
        if (sum > p->lower_bound) p->lower_bound = sum;
    }
    const Memory *m = &t->memories[p->memory];
    if (p->arena_size > m->size)
        die("%s: the arena needs %lld bytes but memory %s of target '%s' has %lld",
            g->path, (long long)p->arena_size, m->name, t->name, (long long)m->size);
    return p;
}
