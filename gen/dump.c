/* dump.c - a readable text form of the graph after any pass (-d PASS),
   stable enough for golden tests. */
#include "ir.h"

static void tensor(FILE *f, const Graph *g, int i)
{
    const Tensor *t = &g->tensors[i];
    fprintf(f, "%%%d:%s[", i, dtype_name(t->type));
    for (int d = 0; d < t->rank; d++) fprintf(f, "%s%d", d ? "," : "", t->shape[d]);
    fputc(']', f);
}

void dump_graph(FILE *f, const Graph *g, const char *after)
{
    fprintf(f, "# after %s: %d ops, %d tensors\n", after, g->nops, g->ntensors);
    for (int i = 0; i < g->ninputs; i++) {
        fprintf(f, "input %d ", i);
        tensor(f, g, g->inputs[i]);
        fputc('\n', f);
    }
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        fprintf(f, "%3d %-9s", i, op_name(op->kind));
        for (int k = 0; k < op->nout; k++) {
            fputc(' ', f);
            tensor(f, g, op->out[k]);
        }
        fputs(" <-", f);
        for (int k = 0; k < op->nin; k++) {
            fputc(' ', f);
            if (op->in[k] < 0) fputs("_", f);
            else tensor(f, g, op->in[k]);
        }
        if (op->rq != RQ_NONE) fprintf(f, " rq=%s/%d", requant_name(op->rq), op->nch);
        if (op->params_type) fprintf(f, " clamp=[%d,%d]", op->act_min, op->act_max);
        if (op->kind == OP_CONV2D || op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL)
            fprintf(f, " stride=%d,%d pad=%d,%d,%d,%d", op->stride_h, op->stride_w, op->pad_top, op->pad_left,
                    op->pad_bottom, op->pad_right);
        if (op->engine >= 0) fprintf(f, " engine=%d", op->engine);
        const Tensor *o = &g->tensors[op->out[0]];
        if (o->offset >= 0) fprintf(f, " @%lld life=%d..%d", (long long)o->offset, o->first_use, o->last_use);
        fputc('\n', f);
    }
    for (int i = 0; i < g->noutputs; i++) {
        fprintf(f, "output %d ", i);
        tensor(f, g, g->outputs[i]);
        fputc('\n', f);
    }
}
