/* report.c - the per-layer table: engine and why, shapes, work, memory,
   estimated cycles; the same as JSON for scripts. */
#include <string.h>

#include "ir.h"

static int64_t weight_bytes(const Graph *g, const Op *op)
{
    int64_t n = 0;
    if (op->kind == OP_CONV2D || op->kind == OP_FC)
        for (int k = 1; k < op->nin; k++)
            if (op->in[k] >= 0 && g->tensors[op->in[k]].data) n += (int64_t)tensor_bytes(&g->tensors[op->in[k]]);
    return n;
}

static void json_str(FILE *f, const char *s) { fputs(esc_json(s ? s : ""), f); }

static void shape(FILE *f, const Tensor *t, int json)
{
    fputc('[', f);
    for (int d = 0; d < t->rank; d++) fprintf(f, "%s%d", d ? (json ? ", " : ",") : "", t->shape[d]);
    fputc(']', f);
}

static const char *storage_name(int s)
{
    static const char *n[] = {"none", "const", "input", "output", "arena", "alias"};
    return n[s];
}

static void tile_json(FILE *f, const TileInfo *ti)
{
    fprintf(f, ", \"tile\": {\"geom\": \"%s\", \"full\": {\"K\": %d, \"C\": %d, \"OY\": %d, \"OX\": %d}, "
               "\"size\": {\"K\": %d, \"C\": %d, \"OY\": %d, \"OX\": %d}, \"tiles\": %d, \"double_buffer\": %s, "
               "\"l1_bytes\": %lld, \"w_bytes\": %lld, \"dma_bytes\": %lld, \"objective\": %.9g, ",
            ti->geom, ti->full[TD_K], ti->full[TD_C], ti->full[TD_OY], ti->full[TD_OX], ti->size[TD_K], ti->size[TD_C],
            ti->size[TD_OY], ti->size[TD_OX], ti->ntiles, ti->double_buffer ? "true" : "false", (long long)ti->l1_bytes,
            (long long)ti->w_bytes, (long long)ti->dma_bytes, ti->objective);
    if (ti->out_bytes) fprintf(f, "\"out_bytes\": %lld, ", (long long)ti->out_bytes);
    if (ti->c_split) fprintf(f, "\"c_tiles\": %d, ", (ti->full[TD_C] + ti->size[TD_C] - 1) / ti->size[TD_C]);
    if (ti->brute == ti->brute) fprintf(f, "\"brute\": %.9g, \"brute_points\": %lld, ", ti->brute, (long long)ti->brute_points);
    fprintf(f, "\"method\": \"%s\", \"milp_vars\": %d, \"milp_rows\": %d, \"solve_ms\": %.3f, \"ideal_cycles\": %.0f}",
            ti->method ? ti->method : "milp", ti->nvars, ti->nrows, ti->solve_ms, ti->ideal_cycles);
}

/* ideal: offloaded layers at peak plus their weight transfer, CPU layers as estimated */
static void ideal_total(const Graph *g, double *ideal, double *ms)
{
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        *ideal += op->tile ? op->tile->ideal_cycles : op->est_cycles;
        if (op->tile) *ms += op->tile->solve_ms;
    }
}

/* Does op compute in float (a float island, float model input/output)? */
static int float_op(const Graph *g, const Op *op)
{
    for (int k = 0; k < op->nin; k++)
        if (op->in[k] >= 0 && g->tensors[op->in[k]].type == DT_FLOAT32) return 1;
    return g->tensors[op->out[0]].type == DT_FLOAT32;
}

/* Cascades (gen/cascade.c): per cascade the layers, band height, modelled
   peak before and after, halo bytes moved, calls and extra MACs. */
static void cascades_print(FILE *f, const Graph *g, const Plan *p, int json)
{
    if (json) {
        fprintf(f, ",\n  \"per_layer_bound\": %lld,\n  \"cascades\": [", (long long)(p->per_layer_bound ? p->per_layer_bound : p->lower_bound));
        for (int i = 0; i < g->ncascades; i++) {
            const Cascade *c = &g->cascades[i];
            fprintf(f, "%s\n    {\"first\": %d, \"last\": %d, \"band\": %d, \"steps\": %d, \"ram_before\": %lld, "
                       "\"ram_after\": %lld, \"moved_bytes\": %lld, \"calls\": %lld, \"extra_macs\": %lld, "
                       "\"overhead_cycles\": %.0f, \"buffers\": [",
                    i ? "," : "", c->first, c->last, c->band, c->nsteps, (long long)c->ram_before, (long long)c->ram_after,
                    (long long)c->moved_bytes, (long long)c->calls, (long long)c->extra_macs, c->overhead_cycles);
            for (int k = 0; k < c->nbuf; k++) {
                const Tensor *x = &g->tensors[c->buf[k]];
                fprintf(f, "%s{\"tensor\": %d, \"rows\": %d, \"of\": %d, \"bytes\": %lld}", k ? ", " : "", x->src_index,
                        x->band_rows, x->shape[1], (long long)buffer_bytes(x));
            }
            fprintf(f, "]}");
        }
        fprintf(f, "%s]", g->ncascades ? "\n  " : "");
        return;
    }
    if (!g->ncascades) return;
    fprintf(f, "\ncascades: layers run band by band; a band buffer keeps the rows the next band reads again (a kept\n"
               "halo: no row is computed twice, where recomputing halos would cost MACs for the same buffers)\n");
    fprintf(f, "%3s  %-9s %5s %6s %11s %11s %11s %11s %7s %10s %11s\n", "#", "layers", "band", "steps", "peak before",
            "peak after", "saved", "halo moved", "calls", "extra MACs", "overhead");
    double over = 0;
    for (int i = 0; i < g->ncascades; i++) {
        const Cascade *c = &g->cascades[i];
        char l[24];
        snprintf(l, sizeof l, "%d..%d", c->first, c->last);
        fprintf(f, "%3d  %-9s %5d %6d %11lld %11lld %11lld %11lld %7lld %10lld %11.0f\n", i, l, c->band, c->nsteps,
                (long long)c->ram_before, (long long)c->ram_after, (long long)(c->ram_before - c->ram_after),
                (long long)c->moved_bytes, (long long)c->calls, (long long)c->extra_macs, c->overhead_cycles);
        over += c->overhead_cycles;
        fprintf(f, "     band buffers:");
        for (int k = 0; k < c->nbuf; k++) {
            const Tensor *x = &g->tensors[c->buf[k]];
            fprintf(f, " t%d %d/%d rows (%lld B)%s", x->src_index, x->band_rows, x->shape[1], (long long)buffer_bytes(x),
                    k + 1 < c->nbuf ? "," : "\n");
        }
    }
    fprintf(f, "per-layer bound %lld bytes -> arena %lld bytes (%.3f); modelled overhead %.0f cycles\n",
            (long long)p->per_layer_bound, (long long)p->arena_size,
            p->per_layer_bound ? (double)p->arena_size / (double)p->per_layer_bound : 1.0, over);
}

/* Several data memories (gen/plan.c place): each arena, the modelled
   access cost, and per buffer its memory and why. */
static void arenas_print(FILE *f, const Graph *g, const Target *t, const Plan *p, int json)
{
    if (p->narenas <= 1) return;
    if (json) {
        fprintf(f, ",\n  \"arenas\": [");
        for (int k = 0; k < p->narenas; k++) {
            const Memory *m = &t->memories[p->arenas[k].memory];
            fprintf(f, "%s\n    {\"memory\": ", k ? "," : "");
            json_str(f, m->name);
            fprintf(f, ", \"size\": %lld, \"capacity\": %lld, \"cost\": %g, \"alignment\": %d, \"lower_bound\": %lld, "
                       "\"greedy\": %lld, \"buffers\": %d, \"accessed_bytes\": %lld, \"method\": ",
                    (long long)p->arenas[k].size, (long long)m->size, m->cost, p->arenas[k].alignment,
                    (long long)p->arenas[k].lower_bound, (long long)p->arenas[k].greedy_size, p->arenas[k].nbuf,
                    (long long)p->arenas[k].accessed);
            json_str(f, p->arenas[k].method);
            fputc('}', f);
        }
        fprintf(f, "\n  ],\n  \"placement\": {\"method\": ");
        json_str(f, p->place_method);
        fprintf(f, ", \"access_cost\": %.0f, \"access_bound\": %.0f, \"access_all_cheapest\": %.0f, \"cascades\": ",
                p->access_cost, p->access_bound, p->access_fast);
        json_str(f, p->cascade_note);
        fputc('}', f);
        return;
    }
    fprintf(f, "\narenas: %d data memories, %lld bytes in all; placement: %s\n", p->narenas, (long long)p->arena_size,
            esc_term(p->place_method));
    for (int k = 0; k < p->narenas; k++) {
        const Memory *m = &t->memories[p->arenas[k].memory];
        fprintf(f, "  %-8s %9lld of %lld bytes (cost %g/byte): %d buffers, lower bound %lld, %s; %lld bytes read+written\n",
                esc_term(m->name), (long long)p->arenas[k].size, (long long)m->size, m->cost, p->arenas[k].nbuf,
                (long long)p->arenas[k].lower_bound, esc_term(p->arenas[k].method), (long long)p->arenas[k].accessed);
    }
    fprintf(f, "access cost (bytes read+written x cost per byte): %.0f", p->access_cost);
    if (p->access_bound >= 0) fprintf(f, "; lower bound %.0f", p->access_bound);
    fprintf(f, "; %.0f if the cheapest memory held everything\n", p->access_fast);
    if (p->cascade_note) fprintf(f, "cascades: %s\n", esc_term(p->cascade_note));
    fprintf(f, "%6s  %-24s %9s %-8s %9s %8s %12s  %s\n", "tensor", "buffer", "bytes", "memory", "offset", "layers",
            "read+written", "why");
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *x = &g->tensors[i];
        if (x->storage != ST_ARENA || x->offset < 0) continue;
        char l[24], nm[25];
        snprintf(l, sizeof l, "%d..%d", x->first_use, x->last_use);
        snprintf(nm, sizeof nm, "%s", esc_term(x->name));
        fprintf(f, "%6d  %-24s %9lld %-8s %9lld %8s %12lld  %s\n", x->src_index, nm, (long long)buffer_bytes(x),
                esc_term(t->memories[x->memory].name), (long long)x->offset, l, (long long)x->accessed,
                esc_term(x->place_why ? x->place_why : ""));
    }
}

/* Energy (gen/energy.c): per inference, by engine and memory, from the
   estimated cycles; the text form also per layer. */
static void energy_print(FILE *f, const Graph *g, const Target *t, const Energy *E, int json)
{
    if (!E) return;
    if (json) {
        fprintf(f, ",\n  \"energy\": {\"uj\": %.9g, \"compute_pj\": %.9g, \"memory_pj\": %.9g, \"static_pj\": %.9g, "
                   "\"static_pj_per_cycle\": %.9g, \"engines\": {", E->sum_total * 1e-6, E->sum_compute, E->sum_memory, E->sum_static,
                E->static_per_cycle);
        for (int k = 0; k < E->nengines; k++) {
            fprintf(f, "%s", k ? ", " : "");
            json_str(f, t->engines[k].name);
            fprintf(f, ": {\"compute_pj\": %.9g, \"static_pj\": %.9g}", E->engine_compute[k], E->engine_static[k]);
        }
        fprintf(f, "}, \"memories\": {");
        for (int k = 0; k < E->nmemories; k++) {
            fprintf(f, "%s", k ? ", " : "");
            json_str(f, t->memories[k].name);
            fprintf(f, ": {\"access_pj\": %.9g, \"static_pj\": %.9g}", E->memory_access[k], E->memory_static[k]);
        }
        fprintf(f, "}}");
        return;
    }
    fprintf(f, "\nenergy per layer (nJ; the target's energy figures, estimated cycles):\n");
    fprintf(f, "%3s  %-9s %-8s %11s %11s %11s %11s\n", "#", "op", "engine", "compute", "memory", "static", "total");
    for (int i = 0; i < E->nops; i++)
        if (E->total[i] > 0) fprintf(f, "%3d  %-9s %-8s %11.3f %11.3f %11.3f %11.3f\n", i, op_name(g->ops[i].kind),
                                     esc_term(t->engines[g->ops[i].engine].name), E->compute[i] * 1e-3, E->memory[i] * 1e-3,
                                     E->stat[i] * 1e-3, E->total[i] * 1e-3);
    fprintf(f, "energy: %.3f uJ per inference = compute %.3f + memory %.3f + static %.3f uJ\n", E->sum_total * 1e-6,
            E->sum_compute * 1e-6, E->sum_memory * 1e-6, E->sum_static * 1e-6);
    for (int k = 0; k < E->nengines; k++)
        if (E->engine_compute[k] > 0 || E->engine_static[k] > 0)
            fprintf(f, "  engine %-10s compute %.3f uJ, static %.3f uJ\n", esc_term(t->engines[k].name),
                    E->engine_compute[k] * 1e-6, E->engine_static[k] * 1e-6);
    for (int k = 0; k < E->nmemories; k++)
        if (E->memory_access[k] > 0 || E->memory_static[k] > 0)
            fprintf(f, "  memory %-10s access %.3f uJ, static %.3f uJ\n", esc_term(t->memories[k].name),
                    E->memory_access[k] * 1e-6, E->memory_static[k] * 1e-6);
}

void report_print(FILE *f, Graph *g, Target *t, Plan *p, int json)
{
    Energy *E = energy_model(g, t, p, NULL);
    int ntiled = 0;
    for (int i = 0; i < g->nops; i++) ntiled += g->ops[i].tile != NULL;
    int64_t wtot = 0, macs = 0;
    /* one: every layer on one core (a cluster's CPU); both with the run
       function's own call (cpu.call) */
    double cyc = t->engines[0].call_cycles, one = t->engines[0].call_cycles;
    for (int i = 0; i < g->nops; i++) {
        wtot += weight_bytes(g, &g->ops[i]);
        macs += g->ops[i].macs;
        cyc += g->ops[i].est_cycles;
        one += g->ops[i].est_one > 0 ? g->ops[i].est_one : g->ops[i].est_cycles;
    }
    const int cores = t->engines[0].cores;
    if (json) {
        fprintf(f, "{\n  \"htc\": \"%s\",\n  \"model\": ", HTC_VERSION);
        json_str(f, g->path);
        fprintf(f, ",\n  \"target\": ");
        json_str(f, t->name);
        fprintf(f, ",\n  \"params\": {");
        for (int i = 0; i < t->nparams; i++) {
            fprintf(f, "%s", i ? ", " : "");
            json_str(f, t->params[i].name);
            fputs(": ", f);
            json_str(f, t->params[i].value);
        }
        fputc('}', f);
        fprintf(f, ",\n  \"clock_mhz\": %g,\n  \"arena_bytes\": %lld,\n  \"arena_lower_bound\": %lld,\n"
                   "  \"arena_greedy\": %lld,\n  \"plan_method\": ",
                t->clock_mhz, (long long)p->arena_size, (long long)p->lower_bound, (long long)p->greedy_size);
        json_str(f, p->method);
        fprintf(f, ",\n  \"reordered\": %s,\n  \"bound_in_model_order\": %lld", p->reordered ? "true" : "false",
                (long long)p->original_bound);
        fprintf(f, ",\n  \"stack\": [");
        for (int i = 0; i < p->nstack; i++) {
            fprintf(f, "%s{\"cc\": ", i ? ", " : "");
            json_str(f, p->stack_cc[i]);
            fprintf(f, ", \"bytes\": %lld, \"ram_bytes\": %lld", (long long)p->stack_bytes[i],
                    (long long)(p->arena_size + p->stack_bytes[i] + (int64_t)(cores - 1) * p->stack_core[i]));
            if (cores > 1) fprintf(f, ", \"core_stack_bytes\": %lld", (long long)p->stack_core[i]);
            if (p->code_bytes[i] >= 0)
                fprintf(f, ", \"code_bytes\": %lld, \"const_bytes\": %lld, \"data_bytes\": %lld, \"flash_bytes\": %lld",
                        (long long)p->code_bytes[i], (long long)p->const_bytes[i], (long long)p->data_bytes[i],
                        (long long)(p->code_bytes[i] + p->const_bytes[i] + p->data_bytes[i]));
            fputc('}', f);
        }
        fprintf(f, "]");
        fprintf(f, ",\n  \"plan_total_ms\": %.3f", p->total_ms);
        fprintf(f, ",\n  \"plan_ms\": %.3f,\n  \"inplace_ops\": %d,\n"
                   "  \"weight_bytes\": %lld,\n  \"macs\": %lld,\n  \"est_cycles\": %.0f,\n",
                p->solve_ms, p->ninplace, (long long)wtot, (long long)macs, cyc);
        if (cores > 1)
            fprintf(f, "  \"cores\": %d,\n  \"est_cycles_one_core\": %.0f,\n  \"speedup_vs_one_core\": %.3f,\n", cores, one,
                    cyc > 0 ? one / cyc : 0);
        fprintf(f, "  \"layers\": [\n");
        for (int i = 0; i < g->nops; i++) {
            const Op *op = &g->ops[i];
            const Tensor *out = &g->tensors[op->out[0]];
            fprintf(f, "    {\"index\": %d, \"source_index\": %d, \"source_op\": ", i, op->src_index);
            json_str(f, op->src_name);
            fprintf(f, ", \"op\": \"%s\", \"engine\": ", op_name(op->kind));
            json_str(f, t->engines[op->engine].name);
            fprintf(f, ", \"reason\": ");
            json_str(f, op->reason);
            fprintf(f, ", \"requant\": \"%s\", \"output\": ", requant_name(op->rq));
            json_str(f, out->name);
            fprintf(f, ", \"out_shape\": ");
            shape(f, out, 1);
            fprintf(f, ", \"storage\": \"%s\", \"offset\": %lld, \"bytes\": %zu, \"macs\": %lld, \"weight_bytes\": %lld, \"est_cycles\": %.0f",
                    storage_name(out->storage), (long long)out->offset, tensor_bytes(out), (long long)op->macs,
                    (long long)weight_bytes(g, op), op->est_cycles);
            if (op->tile) tile_json(f, op->tile);
            if (op->cores > 1) fprintf(f, ", \"cores\": %d, \"split\": \"%s\"", op->cores, split_names[op->split]);
            if (op->split_why) {
                fprintf(f, ", \"split_why\": ");
                json_str(f, op->split_why);
            }
            if (cores > 1 && op->engine == 0) fprintf(f, ", \"est_cycles_one_core\": %.0f", op->est_one > 0 ? op->est_one : op->est_cycles);
            if ((op->kind == OP_CONV2D || op->kind == OP_FC) && op->nin > 2 && op->in[2] >= 0 && g->tensors[op->in[2]].data &&
                g->tensors[op->in[2]].type == DT_INT32)   /* a target's cost model may depend on it, as its kernels do */
                fprintf(f, ", \"bias_absmax\": %lld", (long long)op_bias_absmax(g, op));
            if (op->in[0] >= 0) {
                fprintf(f, ", \"in_shape\": ");
                shape(f, &g->tensors[op->in[0]], 1);
            }
            if (op->kind == OP_CONV2D || op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL)
                fprintf(f, ", \"kernel\": [%d, %d], \"stride\": [%d, %d], \"dilation\": [%d, %d], \"pad\": [%d, %d], \"depthwise\": %d, \"pointwise\": %s",
                        op->k_h, op->k_w, op->stride_h, op->stride_w, op->kind == OP_CONV2D ? op->dil_h : 1,
                        op->kind == OP_CONV2D ? op->dil_w : 1, op->pad_top, op->pad_left, op->kind == OP_CONV2D && op->depthwise,
                        op_pointwise(op) ? "true" : "false");
            if (op->xq2) fprintf(f, ", \"xq2\": true");     /* XpulpV2: final-form requantization (dispatch.c) */
            if (op->xq2 && op->kind == OP_CONV2D && !op->depthwise && op->xq2[0] == 4)
                fprintf(f, ", \"xq3u\": true");               /* its form without a fused ReLU (htc__xq3_apply's two) */
            if (op->xq2 && op->kind == OP_ADD && op->act_min != -op->act_max - 1)
                fprintf(f, ", \"xaddm\": true");              /* an ADD's tables clamped by p.max, p.min (htc__xadd_run) */
            if (op->ctile)
                fprintf(f, ", \"l1\": {\"rows\": %d, \"tiles\": %d, \"l1_bytes\": %lld, \"dma_bytes\": %lld, \"compute_cycles\": %.0f, \"dma_cycles\": %.0f, \"candidates\": %d}",
                        op->ctile->rows, op->ctile->ntiles, (long long)op->ctile->l1_bytes, (long long)op->ctile->dma_bytes,
                        op->ctile->compute_cycles, op->ctile->dma_cycles, op->ctile->candidates);
            fprintf(f, ", \"float\": %s", float_op(g, op) ? "true" : "false");
            if (E)
                fprintf(f, ", \"energy_pj\": {\"compute\": %.9g, \"memory\": %.9g, \"static\": %.9g, \"total\": %.9g, "
                           "\"fixed\": %.9g, \"per_cycle\": %.9g}",
                        E->compute[i], E->memory[i], E->stat[i], E->total[i], E->fixed[i], E->per_cycle[i]);
            fprintf(f, "}%s\n", i + 1 < g->nops ? "," : "");
        }
        fprintf(f, "  ],\n  \"buffers\": [\n");
        int first = 1;
        for (int i = 0; i < g->ntensors; i++) {
            const Tensor *tt = &g->tensors[i];
            if (tt->storage != ST_ARENA && tt->storage != ST_ALIAS) continue;
            int64_t aoff;
            int r = tensor_root(g, i, &aoff);
            fprintf(f, "%s    {\"tensor\": %d, \"name\": ", first ? "" : ",\n", tt->src_index);
            json_str(f, tt->name);
            fprintf(f, ", \"storage\": \"%s\", \"root\": %d, \"offset\": %lld, \"bytes\": %zu, \"first\": %d, \"last\": %d",
                    storage_name(tt->storage), g->tensors[r].src_index, (long long)(g->tensors[r].offset + aoff),
                    tensor_bytes(tt), g->tensors[r].first_use, g->tensors[r].last_use);
            if (p->narenas > 1) {
                fprintf(f, ", \"memory\": ");
                json_str(f, t->memories[g->tensors[r].memory].name);
                if (r == i) {
                    fprintf(f, ", \"buffer_bytes\": %lld, \"accessed_bytes\": %lld, \"why\": ", (long long)buffer_bytes(tt),
                            (long long)tt->accessed);
                    json_str(f, tt->place_why);
                }
            }
            fputc('}', f);
            first = 0;
        }
        fprintf(f, "\n  ]");
        if (ntiled) {
            double ideal = 0, ms = 0;
            ideal_total(g, &ideal, &ms);
            fprintf(f, ",\n  \"ideal_cycles\": %.0f,\n  \"tile_ms\": %.3f", ideal, ms);
        }
        cascades_print(f, g, p, 1);
        arenas_print(f, g, t, p, 1);
        energy_print(f, g, t, E, 1);
        fprintf(f, "\n}\n");
        return;
    }
    /* names from the model, the target and the command line: esc_term */
    fprintf(f, "htc %s report: %s on target %s (%g MHz", HTC_VERSION, esc_term(g->path), esc_term(t->name), t->clock_mhz);
    for (int i = 0; i < t->nparams; i++)
        fprintf(f, "%s%s=%s", i ? ", " : "; ", esc_term(t->params[i].name), esc_term(t->params[i].value));
    fprintf(f, ")\n\n");
    fprintf(f, "%3s  %-22s %-9s %-8s %-16s %-8s %9s %9s %11s  %s\n", "#", "source op", "op", "engine", "output",
            "storage", "offset", "macs", "est.cycles", "why");
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        const Tensor *out = &g->tensors[op->out[0]];
        char sh[64];
        int n = 0;
        for (int d = 0; d < out->rank && n < 56; d++) n += snprintf(sh + n, sizeof sh - (size_t)n, "%s%d", d ? "x" : "", out->shape[d]);
        sh[n] = 0;
        char src[32];
        snprintf(src, sizeof src, "%s#%d", esc_term(op->src_name), op->src_index);
        fprintf(f, "%3d  %-22s %-9s %-8s %-16s %-8s %9lld %9lld %11.0f  %s\n", i, src, op_name(op->kind),
                esc_term(t->engines[op->engine].name), sh, storage_name(out->storage), (long long)out->offset,
                (long long)op->macs, op->est_cycles,
                esc_term(op->ctile ? arena_printf("[%s; L1: %d tiles of %d rows, %lld B, DMA %lld B] %s",
                                                  op->cores > 1 ? arena_printf("%d cores by %s", op->cores, split_names[op->split])
                                                  : op->split_why ? op->split_why : "1 core", op->ctile->ntiles,
                                                  op->ctile->rows, (long long)op->ctile->l1_bytes,
                                                  (long long)op->ctile->dma_bytes, op->reason)
                         : op->cores > 1 ? arena_printf("[%d cores by %s] %s", op->cores, split_names[op->split], op->reason)
                         : op->split_why ? arena_printf("[%s] %s", op->split_why, op->reason)
                                         : op->reason));
    }
    int nfloat = 0;
    for (int i = 0; i < g->nops; i++) {
        if (!float_op(g, &g->ops[i])) continue;
        if (!nfloat++) fprintf(f, "\nfloat32 (as the source runtime computes it):");
        fprintf(f, " %d %s%s", i, esc_term(g->ops[i].src_name), i + 1 < g->nops && float_op(g, &g->ops[i + 1]) ? "," : ";");
    }
    if (nfloat) fprintf(f, " %d layer%s\n", nfloat, nfloat > 1 ? "s" : "");
    if (p->narenas > 1) {
        const char *mems = "";
        for (int k = 0; k < p->narenas; k++)
            mems = arena_printf("%s%s%s", mems, k ? " + " : "", t->memories[p->arenas[k].memory].name);
        fprintf(f, "\narena: %lld bytes in %s (lower bound %lld for all buffers together; %d ops in place)\n",
                (long long)p->arena_size, esc_term(mems), (long long)p->lower_bound, p->ninplace);
    } else {
        fprintf(f, "\narena: %lld bytes in %s (lower bound %lld, greedy by size %lld; %s; %d ops in place)\n",
                (long long)p->arena_size, esc_term(t->memories[p->memory].name), (long long)p->lower_bound,
                (long long)p->greedy_size, esc_term(p->method), p->ninplace);
    }
    if (p->reordered)
        fprintf(f, "op order: memory-aware (lower bound %lld in the model's order)\n", (long long)p->original_bound);
    for (int i = 0; i < p->nstack; i++) {
        if (cores > 1)
            fprintf(f, "stack of the run function (%s): %lld bytes on core 0, %lld on each other core; RAM = arena + stacks = %lld bytes\n",
                    esc_term(p->stack_cc[i]), (long long)p->stack_bytes[i], (long long)p->stack_core[i],
                    (long long)(p->arena_size + p->stack_bytes[i] + (int64_t)(cores - 1) * p->stack_core[i]));
        else
            fprintf(f, "stack of the run function (%s): %lld bytes; RAM = arena + stack = %lld bytes\n", esc_term(p->stack_cc[i]),
                    (long long)p->stack_bytes[i], (long long)(p->arena_size + p->stack_bytes[i]));
        if (p->code_bytes[i] >= 0)
            fprintf(f, "flash (%s): code %lld + constants %lld + initialised data %lld = %lld bytes\n", esc_term(p->stack_cc[i]),
                    (long long)p->code_bytes[i], (long long)p->const_bytes[i], (long long)p->data_bytes[i],
                    (long long)(p->code_bytes[i] + p->const_bytes[i] + p->data_bytes[i]));
    }
    fprintf(f, "weights: %lld bytes; %lld MACs\n", (long long)wtot, (long long)macs);
    fprintf(f, "estimated: %.0f cycles = %.3f ms at %g MHz\n", cyc, cyc / (t->clock_mhz * 1e3), t->clock_mhz);
    if (cores > 1)
        fprintf(f, "on one core: %.0f cycles estimated; %d cores %.2fx faster\n", one, cores, cyc > 0 ? one / cyc : 0);
    cascades_print(f, g, p, 0);
    arenas_print(f, g, t, p, 0);
    energy_print(f, g, t, E, 0);
    if (!ntiled) return;
    fprintf(f, "\noffloaded layers: exact optimum of the target's objective per layer (enumeration or lp_solve MILP)\n");
    fprintf(f, "%3s  %-8s %-5s %-22s %-22s %6s %9s %7s %9s %11s %11s %8s\n", "#", "engine", "geom", "layer K,C,OY,OX",
            "tile K,C,OY,OX", "tiles", "L1 bytes", "W bytes", "DMA bytes", "est.cycles", "ideal", "tiling ms");
    for (int i = 0; i < g->nops; i++) {
        const TileInfo *ti = g->ops[i].tile;
        if (!ti) continue;
        char a[32], b[32];
        snprintf(a, sizeof a, "%d,%d,%d,%d", ti->full[TD_K], ti->full[TD_C], ti->full[TD_OY], ti->full[TD_OX]);
        snprintf(b, sizeof b, "%d,%d,%d,%d", ti->size[TD_K], ti->size[TD_C], ti->size[TD_OY], ti->size[TD_OX]);
        fprintf(f, "%3d  %-8s %-5s %-22s %-22s %6d %9lld %7lld %9lld %11.0f %11.0f %8.2f\n", i,
                esc_term(t->engines[g->ops[i].engine].name), ti->geom, a, b, ti->ntiles, (long long)ti->l1_bytes,
                (long long)ti->w_bytes, (long long)ti->dma_bytes, g->ops[i].est_cycles, ti->ideal_cycles, ti->solve_ms);
    }
    double ideal = 0, ms = 0;
    ideal_total(g, &ideal, &ms);
    fprintf(f, "ideal (offloaded MACs at peak + weight transfer, CPU layers as estimated): %.0f cycles = %.3f ms; "
               "estimate / ideal = %.2f; tiling %.1f ms\n", ideal, ideal / (t->clock_mhz * 1e3), ideal > 0 ? cyc / ideal : 0, ms);
}

/* The memory plan as a picture: time (layers) across, arena offset down;
   one rectangle per buffer, named, with size and lifetime on hover. */
void report_svg(FILE *f, Graph *g, Target *t, Plan *p)
{
    const double W = 960, H = 540, L = 70, T = 40, R = 20, B = 40;
    double sx = (W - L - R) / (g->nops ? g->nops : 1);
    double arena = (double)(p->arena_size ? p->arena_size : 1);
    double sy = (H - T - B) / arena;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n", W, H, W, H);
    fprintf(f, "<title>htc memory plan: %s</title>\n", esc_html(g->path));   /* names: esc_html */
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
    /* several arenas: stacked in the target's order, each from its base */
    int64_t base[MAX_DATA_MEMORIES] = {0};
    for (int k = 1; k < p->narenas; k++) base[k] = base[k - 1] + p->arenas[k - 1].size;
    if (p->narenas > 1) {
        const char *mems = "";
        for (int k = 0; k < p->narenas; k++)
            mems = arena_printf("%s%s%s %lld", mems, k ? " + " : "", t->memories[p->arenas[k].memory].name,
                                (long long)p->arenas[k].size);
        fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">arenas %s bytes - %s</text>\n", L, esc_html(mems),
                esc_html(p->place_method));
    } else {
        fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">arena %s: %lld bytes (lower bound %lld, greedy %lld) - %s</text>\n",
                L, esc_html(t->memories[p->memory].name), (long long)p->arena_size, (long long)p->lower_bound,
                (long long)p->greedy_size, esc_html(p->method));
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", L, T,
            W - L - R, H - T - B);
    for (int k = 0; k <= 4; k++) {
        double y = T + (H - T - B) * k / 4;
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%lld</text>\n", L - 4, y + 4,
                (long long)(arena * k / 4));
    }
    for (int s = 0; s < g->nops; s += g->nops > 40 ? 5 : 1)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d</text>\n", L + sx * (s + 0.5), H - B + 14, s);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">layer</text>\n", L + (W - L - R) / 2, H - 8);
    int c = 0;
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *tt = &g->tensors[i];
        if (tt->storage != ST_ARENA || tt->offset < 0) continue;
        int ak = 0;
        for (int k = 0; k < p->narenas; k++)
            if (p->arenas[k].memory == tt->memory) ak = k;
        double x = L + sx * tt->first_use, w = sx * (tt->last_use - tt->first_use + 1);
        double y = T + sy * (double)(base[ak] + tt->offset), h = sy * (double)buffer_bytes(tt);
        unsigned hue = (unsigned)(c++ * 137) % 360;
        fprintf(f, "<g class=\"buffer\" data-tensor=\"%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"hsl(%u,60%%,70%%)\" stroke=\"#333\" stroke-width=\"0.5\"><title>%s",
                i, x, y, w, h > 0.5 ? h : 0.5, hue, esc_html(tt->name));
        fprintf(f, " (tensor %d): %zu bytes at offset %lld%s%s, live layers %d..%d</title></rect>", tt->src_index,
                (size_t)buffer_bytes(tt), (long long)tt->offset, p->narenas > 1 ? " in " : "",
                p->narenas > 1 ? esc_html(t->memories[tt->memory].name) : "", tt->first_use, tt->last_use);
        if (h > 12 && w > 30)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">t%d</text>", x + 2, y + 10, tt->src_index);
        fputs("</g>\n", f);
    }
    for (int k = 1; k < p->narenas; k++)       /* where each further arena begins */
        fprintf(f, "<line class=\"arena\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#00c\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" fill=\"#00c\">%s</text>\n",
                L, T + sy * (double)base[k], W - R, T + sy * (double)base[k], L + 4, T + sy * (double)base[k] + 12,
                esc_html(t->memories[p->arenas[k].memory].name));
    /* cascades: the layers they interleave, dashed, with their band */
    for (int i = 0; i < g->ncascades; i++) {
        const Cascade *cs = &g->cascades[i];
        double x = L + sx * cs->first, w = sx * (cs->last - cs->first + 1);
        fprintf(f, "<g class=\"cascade\" data-first=\"%d\" data-last=\"%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\" fill=\"none\" stroke=\"#c00\" stroke-dasharray=\"4 3\"><title>cascade %d: layers %d..%d "
                   "in %d bands of %d rows; peak %lld -> %lld bytes, %lld halo bytes moved, %lld extra MACs</title></rect>"
                   "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\">cascade %d: band %d</text></g>\n",
                cs->first, cs->last, x, T, w, H - T - B, i, cs->first, cs->last, cs->nsteps, cs->band,
                (long long)cs->ram_before, (long long)cs->ram_after, (long long)cs->moved_bytes, (long long)cs->extra_macs,
                x + 2, T - 4, i, cs->band);
    }
    fputs("</svg>\n", f);
}
