/* dispatch.c - choose one engine per operator by the target's rules.
   Candidates are the engines whose predicates accept the op; the CPU last. */
#include "ir.h"

/* Estimated cycles of op on engine e, from the target's cost model. */
static double estimate(const Graph *g, const Engine *e, const Op *op)
{
    const EngineOp *eo = engine_op(e, op->kind);
    const Tensor *out = &g->tensors[op->out[0]];
    if (!eo) return 0;
    return eo->cycles_per_mac * (double)op->macs + eo->cycles_per_elem * (double)tensor_numel(out);
}

void dispatch(Graph *g, Target *t)
{
    int *cand = arena_alloc(sizeof(int) * (size_t)t->nengines);
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        int n = 0;
        const char *why_not = NULL, *why;
        /* accelerators first, in target order; the CPU is the fallback */
        for (int e = 1; e < t->nengines; e++) {
            if (target_accepts(t, e, g, op, &why)) cand[n++] = e;
            else if (!why_not) why_not = arena_printf("%s: %s", t->engines[e].name, why);
        }
        if (target_accepts(t, 0, g, op, &why)) cand[n++] = 0;
        else why_not = why_not ? arena_printf("%s; %s", why_not, why) : why;
        if (n == 0)
            die("%s: operator %d (%s): no engine of target '%s' accepts it (%s)", g->path,
                op->src_index, op->src_name, t->name, why_not);
        op->engine = target_dispatch(t, g, op, cand, n, &op->reason);
        if (n == 1 && op->engine == 0 && why_not)
            op->reason = arena_printf("fallback: %s", why_not);
        else if (n == 1 && op->engine == 0)
            op->reason = "cpu is the only engine";
        op->est_cycles = estimate(g, &t->engines[op->engine], op);
    }
}
