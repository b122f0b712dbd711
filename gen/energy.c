/* energy.c - energy per layer and per inference from a target's energy
   figures (engines: per MAC, per element, per busy cycle, static power;
   memories: per byte accessed, per byte the DMA moves, static power). */
#include <string.h>

#include "ir.h"

/* the memory holding tensor ti: its arena's, else the (first) arena's
   (caller buffers and constants are counted there) */
static int tensor_memory(const Graph *g, const Plan *p, int ti)
{
    int64_t off;
    int r = tensor_root(g, ti, &off);
    if (p->narenas > 1 && g->tensors[r].storage == ST_ARENA) return g->tensors[r].memory;
    return p->memory;
}

static double *zeros(int n) { double *d = arena_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1)); memset(d, 0, sizeof(double) * (size_t)(n > 0 ? n : 1)); return d; }

/* pJ of n bytes read or written in memory m (added to its account) */
static double access(const Target *t, double *acc, int m, double n)
{
    if (m < 0 || n <= 0) return 0;
    double e = n * t->memories[m].pj_per_byte;
    acc[m] += e;
    return e;
}

Energy *energy_model(const Graph *g, const Target *t, const Plan *p, const double *cycles)
{
    if (!t->has_energy) return NULL;
    Energy *E = arena_alloc(sizeof(Energy));
    memset(E, 0, sizeof *E);
    E->nops = g->nops;
    E->nengines = t->nengines;
    E->nmemories = t->nmemories;
    E->compute = zeros(g->nops);
    E->memory = zeros(g->nops);
    E->stat = zeros(g->nops);
    E->total = zeros(g->nops);
    E->fixed = zeros(g->nops);
    E->per_cycle = zeros(g->nops);
    E->engine_compute = zeros(t->nengines);
    E->engine_static = zeros(t->nengines);
    E->memory_access = zeros(t->nmemories);
    E->memory_static = zeros(t->nmemories);
    /* static power of everything, in pJ per cycle at the clock: mW x us = nJ */
    double static_mw = 0;
    for (int e = 0; e < t->nengines; e++) static_mw += t->engines[e].static_mw;
    for (int m = 0; m < t->nmemories; m++) static_mw += t->memories[m].static_mw;
    const double pj_cycle = 1e3 / t->clock_mhz;      /* pJ per cycle of 1 mW */
    E->static_per_cycle = static_mw * pj_cycle;
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        const Engine *e = &t->engines[op->engine];
        double cyc = cycles ? cycles[i] : op->est_cycles;
        int ncores = e->is_cpu && op->cores > 1 ? op->cores : 1;
        /* compute: MACs, or output elements of a layer without MACs */
        double fixed_c = (double)op->macs * e->pj_per_mac;
        if (!op->macs)
            for (int k = 0; k < op->nout; k++)
                if (op->out[k] >= 0) fixed_c += (double)tensor_numel(&g->tensors[op->out[k]]) * e->pj_per_elem;
        double busy = e->pj_per_cycle * ncores;
        /* memory: the layer reads its inputs and writes its outputs once,
           in their memories; a tiled layer (an accelerator's, or a cluster
           layer in L1 bands) in its local memory, which the DMA fills from
           and empties into the arena's (every DMA byte read in one and
           written in the other) */
        double in = 0, out = 0, w = 0, mem = 0;
        int local = -1, wmem = -1;
        double dma = 0;
        if (op->tile) {
            local = e->act_memory;
            wmem = e->weight_memory;
            dma = (double)op->tile->dma_bytes;
        } else if (op->ctile) {
            local = e->l1_memory;
            dma = (double)op->ctile->dma_bytes;
        }
        for (int k = 0; k < op->nin; k++) {
            if (op->in[k] < 0) continue;
            const Tensor *x = &g->tensors[op->in[k]];
            double b = (double)tensor_bytes(x);
            if (local < 0) mem += access(t, E->memory_access, tensor_memory(g, p, op->in[k]), b);
            else if (x->data && wmem >= 0) w += b;
            else in += b;
        }
        for (int k = 0; k < op->nout; k++) {
            if (op->out[k] < 0) continue;
            double b = (double)tensor_bytes(&g->tensors[op->out[k]]);
            if (local < 0) mem += access(t, E->memory_access, tensor_memory(g, p, op->out[k]), b);
            else out += b;
        }
        if (local >= 0) {
            int outer = op->out[0] >= 0 ? tensor_memory(g, p, op->out[0]) : p->memory;
            mem += access(t, E->memory_access, local, in + out);
            mem += access(t, E->memory_access, wmem, w);
            mem += access(t, E->memory_access, outer, dma);
            mem += access(t, E->memory_access, local, dma);
            double d = dma * t->memories[local].dma_pj_per_byte;
            E->memory_access[local] += d;
            mem += d;
        }
        double c = fixed_c + busy * cyc;
        double s = static_mw * pj_cycle * cyc;
        E->compute[i] = c;
        E->memory[i] = mem;
        E->stat[i] = s;
        E->total[i] = c + mem + s;
        E->fixed[i] = fixed_c + mem;
        E->per_cycle[i] = busy + static_mw * pj_cycle;
        E->engine_compute[op->engine] += c;
        for (int k = 0; k < t->nengines; k++) E->engine_static[k] += t->engines[k].static_mw * pj_cycle * cyc;
        for (int k = 0; k < t->nmemories; k++) E->memory_static[k] += t->memories[k].static_mw * pj_cycle * cyc;
        E->sum_compute += c;
        E->sum_memory += mem;
        E->sum_static += s;
        E->sum_total += c + mem + s;
    }
    return E;
}

/* htc run's driver: print_energy(), the energy of the inference just run
   from the device model's cycles per layer (cyc[], driver_cycles in
   gen/main.c) -- each layer fixed + per_cycle x its measured cycles --
   or, without a device model, the estimate's. */
void energy_driver(FILE *f, const Graph *g, const Target *t, const Plan *p, int measured)
{
    Energy *E = energy_model(g, t, p, NULL);
    if (!E) {
        fprintf(f, "static void print_energy(void) {}\n");
        return;
    }
    if (!measured) {
        fprintf(f, "static void print_energy(void)\n{\n"
                   "    printf(\"energy: %%.6f uJ per inference = compute %%.6f + memory %%.6f + static %%.6f uJ "
                   "(estimated cycles: no device model)\\n\", %.17e, %.17e, %.17e, %.17e);\n",
                E->sum_total * 1e-6, E->sum_compute * 1e-6, E->sum_memory * 1e-6, E->sum_static * 1e-6);
        fprintf(f, "    printf(\"  per layer (nJ): compute memory static total\\n\");\n");
        for (int i = 0; i < g->nops; i++)
            if (E->total[i] > 0)
                fprintf(f, "    printf(\"  %%3d %%11.3f %%11.3f %%11.3f %%11.3f\\n\", %d, %.17e, %.17e, %.17e, %.17e);\n", i,
                        E->compute[i] * 1e-3, E->memory[i] * 1e-3, E->stat[i] * 1e-3, E->total[i] * 1e-3);
        fprintf(f, "}\n");
        return;
    }
    /* per layer: compute's cycle-independent part, memory, and per cycle
       the busy engine's and everything's static energy */
    double *busy = arena_alloc(sizeof(double) * (size_t)(g->nops + 1));
    fprintf(f, "static const double e_fix[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s%.17g", i ? ", " : "", E->fixed[i] - E->memory[i]);
    fprintf(f, "};\nstatic const double e_mem[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s%.17g", i ? ", " : "", E->memory[i]);
    double static_mw = 0;
    for (int e = 0; e < t->nengines; e++) static_mw += t->engines[e].static_mw;
    for (int m = 0; m < t->nmemories; m++) static_mw += t->memories[m].static_mw;
    double spc = static_mw * 1e3 / t->clock_mhz;
    for (int i = 0; i < g->nops; i++) busy[i] = E->per_cycle[i] - spc;
    fprintf(f, "};\nstatic const double e_busy[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s%.17g", i ? ", " : "", busy[i]);
    fprintf(f, "};\n"
               "static void print_energy(void)\n{\n"
               "    double c = 0, m = 0, s = 0;\n    int i;\n"
               "    for (i = 0; i < NL; i++) {\n"
               "        c += e_fix[i] + e_busy[i] * (double)cyc[i];\n"
               "        m += e_mem[i];\n"
               "        s += %.17g * (double)cyc[i];\n    }\n"
               "    printf(\"energy: %%.6f uJ per inference = compute %%.6f + memory %%.6f + static %%.6f uJ "
               "(measured cycles; estimated %.6f uJ)\\n\", (c + m + s) * 1e-6, c * 1e-6, m * 1e-6, s * 1e-6);\n"
               "    printf(\"  per layer (nJ): compute memory static total\\n\");\n"
               "    for (i = 0; i < NL; i++) {\n"
               "        double lc = e_fix[i] + e_busy[i] * (double)cyc[i], ls = %.17g * (double)cyc[i];\n"
               "        if (lc + e_mem[i] + ls > 0)\n"
               "            printf(\"  %%3d %%11.3f %%11.3f %%11.3f %%11.3f\\n\", i, lc * 1e-3, e_mem[i] * 1e-3, ls * 1e-3,"
               " (lc + e_mem[i] + ls) * 1e-3);\n"
               "    }\n}\n",
            spc, E->sum_total * 1e-6, spc);
}
