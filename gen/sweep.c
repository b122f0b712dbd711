/* sweep.c - htc sweep: the cross product of target parameters x models,
   each point through the pipeline as htc report runs it (cascades
   included; no C compiled), optionally measured. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir.h"

#define MAX_AXES 16
#define MAX_VALUES 256
#define MAX_POINTS 100000
#define NCLASS 6
/* bounds on text (README, Limits): a -D argument, the parameter text of
   all points together, a point's error as kept, a point's output as read */
#define SWEEP_D_MAX 1024
#define SWEEP_TEXT_MAX ((size_t)64 << 20)
#define SWEEP_ERROR_MAX 500
#define SWEEP_OUT_MAX ((size_t)64 << 10)

static const char *const class_names[NCLASS] = {"conv", "depthwise", "fc", "pool", "eltwise", "other"};
static const char *const class_colors[NCLASS] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#e15759", "#9c9c9c"};

typedef struct {
    const char *name;
    int n;
    const char *v[MAX_VALUES];
} Axis;

/* one point's results; the child writes them as one line */
typedef struct {
    int model, config;
    const char *error;          /* the point's htc: error line, or NULL */
    int ops, offloaded, tiles;
    double l1_kib, w_kib, arena_kib;
    double est, ideal, est_off;  /* est_off: the offloaded layers' estimate */
    double cls[NCLASS];          /* estimated cycles per layer class */
    double measured;             /* --measure: device-model cycles, or -1 */
    double e_uj, e_comp, e_mem, e_stat;   /* energy per inference (estimate), uJ; e_uj -1: no energy model */
    double ecls[NCLASS];         /* estimated energy per layer class, uJ */
    double m_uj;                 /* --measure: energy from the device model's cycles, or -1 */
    double mem_kib;              /* the arena + the size of every other memory of the target (KiB) */
    int pareto;                  /* on its model's Pareto front (latency x energy x memory) */
} Point;

static const char usage_sweep[] =
    "usage: htc sweep MODEL... -t TARGET -D NAME=V1,V2,... [-D ...] [-j N] [--csv F] [--json]\n"
    "                 [--html F] [--measure [--cache DIR]] [--shard K/N --save F] [--merge F]...\n"
    "  every combination of the -D values x every model, through dispatch, tiling and planning\n"
    "  (no C compiled): offloaded layers, tiles, largest L1 and weight memory used, estimated\n"
    "  and ideal cycles per point; --measure also builds and runs each point on the host\n"
    "  virtual platform (htc run) for the device model's cycles; with an energy model, energy per\n"
    "  inference; each model's Pareto front (latency x energy x memory) marked in every output\n"
    "  --cache DIR  measured points whose program and inputs are the same (their header but its\n"
    "               params: comment, driver, compiler flags) share one build and run, kept in DIR\n"
    "               (created if missing; shards may share it): results equal an uncached run's\n"
    "  --shard K/N  only the points p with p %% N == K - 1; --save F  their results to F\n"
    "  --merge F    no point run: the results saved by every shard (give each file), then the\n"
    "               outputs of the whole sweep, exactly as one unsharded run writes them\n";

static int layer_class(const Op *op)
{
    switch (op->kind) {
    case OP_CONV2D: return op->depthwise ? 1 : 0;
    case OP_FC: case OP_MATMUL: return 2;
    case OP_AVGPOOL: case OP_MAXPOOL: case OP_MEAN: return 3;
    case OP_ADD: case OP_MUL: case OP_SUB: return 4;
    default: return 5;
    }
}

/* the -D settings of configuration c as "a=1 b=2" */
static const char *config_text(const Axis *ax, int nax, int c, const char *sep)
{
    int idx[MAX_AXES];
    size_t len = 1;
    for (int a = nax - 1; a >= 0; a--) {
        idx[a] = c % ax[a].n;
        c /= ax[a].n;
        len += strlen(ax[a].name) + 1 + strlen(ax[a].v[idx[a]]) + strlen(sep);
    }
    char *s = arena_alloc(len), *q = s;
    for (int a = 0; a < nax; a++)
        q += sprintf(q, "%s%s=%s", a ? sep : "", ax[a].name, ax[a].v[idx[a]]);
    *q = 0;
    return s;
}

static TargetDefines *config_defines(const Axis *ax, int nax, int c)
{
    TargetDefines *d = arena_alloc(sizeof *d);
    for (int a = nax - 1; a >= 0; a--) {
        int i = c % ax[a].n;
        c /= ax[a].n;
        target_define(d, arena_printf("%s=%s", ax[a].name, ax[a].v[i]));
    }
    return d;
}

/* --measure, in the point's child: htc run on random inputs, stdout to a
   file; the device model's total is the line "total: N cycles" */
static double measure(const char *self, Graph *g, const char *model, const char *target, const Axis *ax, int nax, int c,
                      const char *cache, double *energy)
{
    const char *dir = scratch_dir("htc-sweep");
    char **argv = arena_alloc(sizeof(char *) * (size_t)(18 + 2 * nax + 2 * g->ninputs + 2 * g->noutputs));
    int n = 0;
    argv[n++] = (char *)self;
    argv[n++] = "run";
    argv[n++] = (char *)model;
    argv[n++] = "-t";
    argv[n++] = (char *)target;
    for (int a = nax - 1, cc = c; a >= 0; a--) {
        argv[n++] = "-D";
        argv[n++] = arena_printf("%s=%s", ax[a].name, ax[a].v[cc % ax[a].n]);
        cc /= ax[a].n;
    }
    if (cache) {
        argv[n++] = "--cache";
        argv[n++] = (char *)cache;
    }
    uint32_t seed = 12345u;     /* every configuration of a model on the same input bytes */
    for (int i = 0; i < g->ninputs; i++) {
        size_t bytes = tensor_bytes(&g->tensors[g->inputs[i]]);
        const char *p = arena_printf("%s/in%d.bin", dir, i);
        FILE *f = fopen(p, "wb");
        if (!f) die("%s: cannot create: %s", p, strerror(errno));
        for (size_t k = 0; k < bytes; k++) {
            seed = seed * 1103515245u + 12345u;
            fputc((int)(seed >> 16) & 0xff, f);
        }
        fclose(f);
        argv[n++] = "--input";
        argv[n++] = (char *)p;
    }
    for (int i = 0; i < g->noutputs; i++) {
        argv[n++] = "--output";
        argv[n++] = arena_printf("%s/out%d.bin", dir, i);
    }
    argv[n] = NULL;
    const char *log = arena_printf("%s/run.txt", dir);
    fflush(stdout);
    int saved = dup(1);
    FILE *lf = fopen(log, "w");
    if (!lf || saved < 0) die("%s: cannot create: %s", log, strerror(errno));
    dup2(fileno(lf), 1);
    int rc = run_command(argv, 0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    fclose(lf);
    if (rc) die("%s: htc run failed (exit %d) for %s", model, rc, config_text(ax, nax, c, " "));
    size_t len;
    char *text = (char *)read_file(log, &len);
    const char *t = strstr(text, "\ntotal: ");
    double cyc = -1;
    if (t) cyc = strtod(t + 8, NULL);
    const char *en = strstr(text, "\nenergy: ");
    *energy = en && strstr(en, "(measured cycles") ? strtod(en + 9, NULL) : -1;
    scratch_remove(dir);
    return cyc;
}

/* a point's numbers on one line, 17 significant digits (point_scan reads them) */
static void point_print(FILE *f, const Point *r)
{
    fprintf(f, "%d %d %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g", r->ops, r->offloaded,
            r->tiles, r->l1_kib, r->w_kib, r->arena_kib, r->est, r->ideal, r->est_off, r->measured, r->e_uj, r->e_comp, r->e_mem,
            r->e_stat, r->m_uj, r->mem_kib);
    for (int k = 0; k < NCLASS; k++) fprintf(f, " %.17g", r->cls[k]);
    for (int k = 0; k < NCLASS; k++) fprintf(f, " %.17g", r->ecls[k]);
    fprintf(f, "\n");
}

/* One point, in a forked child: the pipeline from the lowered graph on
   (dispatch, tile, plan / cascades), as htc report; results on fd 1. */
static void point_child(const char *self, Graph *g, const char *model, const char *target, const Axis *ax, int nax,
                        int c, int do_measure, const char *cache)
{
    PipelineOptions po = PIPELINE_OPTIONS;
    po.model = model;
    po.target = target;
    po.graph = g;
    po.defines = config_defines(ax, nax, c);
    Target *t;
    Plan *p = pipeline(&po, &g, &t);
    Point r;
    memset(&r, 0, sizeof r);
    r.ops = g->nops;
    r.est = t->engines[0].call_cycles;      /* the run function's own call (cpu.call), as htc report's total */
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        int cl = layer_class(op);
        r.est += op->est_cycles;
        r.cls[cl] += op->est_cycles;
        if (op->tile) {
            r.offloaded++;
            r.tiles += op->tile->ntiles;
            r.est_off += op->est_cycles;
            r.ideal += op->tile->ideal_cycles;
            if (op->tile->l1_bytes / 1024.0 > r.l1_kib) r.l1_kib = op->tile->l1_bytes / 1024.0;
            if (op->tile->w_bytes / 1024.0 > r.w_kib) r.w_kib = op->tile->w_bytes / 1024.0;
        } else {
            r.ideal += op->est_cycles;
        }
    }
    r.arena_kib = p->arena_size / 1024.0;
    Energy *E = energy_model(g, t, p, NULL);
    r.e_uj = E ? E->sum_total * 1e-6 : -1;
    r.e_comp = E ? E->sum_compute * 1e-6 : 0;
    r.e_mem = E ? E->sum_memory * 1e-6 : 0;
    r.e_stat = E ? E->sum_static * 1e-6 : 0;
    for (int i = 0; E && i < g->nops; i++) r.ecls[layer_class(&g->ops[i])] += E->total[i] * 1e-6;
    r.m_uj = -1;
    r.mem_kib = r.arena_kib;
    for (int k = 0; k < t->nmemories; k++) {
        int arena = 0;
        for (int a = 0; a < p->narenas; a++) arena |= p->arenas[a].memory == k;
        if (!arena && p->narenas) r.mem_kib += (double)t->memories[k].size / 1024.0;
    }
    r.measured = do_measure && r.offloaded ? measure(self, g, model, target, ax, nax, c, cache, &r.m_uj) : -1;
    printf("\nR ");
    point_print(stdout, &r);
    fflush(stdout);
    fflush(stderr);
    _exit(0);
}

/* the numbers of an "R ..." line (the child's, or a shard's saved) */
static int point_scan(Point *r, const char *l)
{
    int n;
    if (sscanf(l, "%d %d %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf%n", &r->ops, &r->offloaded, &r->tiles, &r->l1_kib,
               &r->w_kib, &r->arena_kib, &r->est, &r->ideal, &r->est_off, &r->measured, &r->e_uj, &r->e_comp, &r->e_mem,
               &r->e_stat, &r->m_uj, &n) != 15)
        return 0;
    double *v[] = {&r->mem_kib, &r->cls[0], &r->cls[1], &r->cls[2], &r->cls[3], &r->cls[4], &r->cls[5],
                   &r->ecls[0], &r->ecls[1], &r->ecls[2], &r->ecls[3], &r->ecls[4], &r->ecls[5]};
    for (int k = 0; k < (int)(sizeof v / sizeof v[0]); k++) {
        int m;
        if (sscanf(l += n, " %lf%n", v[k], &m) != 1) return 0;
        n = m;
    }
    return 1;
}

/* the child's output: an "R ..." line, else its first htc: error line */
static void point_parse(Point *r, const char *out)
{
    const char *l = strstr(out, "\nR ");
    if (l && point_scan(r, l + 3)) return;
    const char *e = strstr(out, "htc: error: ");
    int n = e ? (int)strcspn(e + 12, "\n") : 0;
    r->error = !e ? "the point's process failed"
               : n > SWEEP_ERROR_MAX ? arena_printf("%.*s...(%d more bytes)", SWEEP_ERROR_MAX, e + 12, n - SWEEP_ERROR_MAX)
               : arena_printf("%.*s", n, e + 12);
}

typedef struct {
    pid_t pid;
    int fd, point;
    char *buf;
    size_t len, cap;
} Child;

/* ---- the Pareto front: per model, the points no other point beats in
   latency (measured cycles, else estimated), energy (measured, else
   estimated; without an energy model every point's is 0) and memory (the
   arena + the size of every memory that holds no arena, KiB) at once ------------------------ */
static double pt_latency(const Point *r) { return r->measured >= 0 ? r->measured : r->est; }
static double pt_energy(const Point *r) { return r->m_uj >= 0 ? r->m_uj : r->e_uj > 0 ? r->e_uj : 0; }
static double pt_memory(const Point *r) { return r->mem_kib; }

static const Point *pareto_pts;
static int by_objectives(const void *a, const void *b)
{
    const Point *x = &pareto_pts[*(const int *)a], *y = &pareto_pts[*(const int *)b];
    double d[4] = {(double)(x->model - y->model), pt_latency(x) - pt_latency(y), pt_energy(x) - pt_energy(y),
                   pt_memory(x) - pt_memory(y)};
    for (int k = 0; k < 4; k++)
        if (d[k]) return d[k] < 0 ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

/* In (model, latency, energy, memory) order a point's dominators come
   before it, and a dominated dominator's own dominator dominates it too:
   each point is checked against the front found so far. */
static void pareto_mark(Point *pts, int npts, int nmodels)
{
    int *ord = arena_alloc(sizeof(int) * (size_t)(npts + 1)), n = 0;
    for (int p = 0; p < npts; p++) {
        pts[p].pareto = 0;
        if (!pts[p].error) ord[n++] = p;
    }
    pareto_pts = pts;
    qsort(ord, (size_t)n, sizeof(int), by_objectives);
    int *front = arena_alloc(sizeof(int) * (size_t)(n + 1)), nf = 0;
    for (int i = 0, model = -1; i < n; i++) {
        const Point *r = &pts[ord[i]];
        if (r->model != model) nf = 0, model = r->model;
        double l = pt_latency(r), e = pt_energy(r), m = pt_memory(r);
        int dominated = 0;
        for (int j = 0; j < nf && !dominated; j++) {
            const Point *q = &pts[front[j]];
            double ql = pt_latency(q), qe = pt_energy(q), qm = pt_memory(q);
            dominated = ql <= l && qe <= e && qm <= m && (ql < l || qe < e || qm < m);
        }
        if (!dominated) {
            pts[ord[i]].pareto = 1;
            front[nf++] = ord[i];
        }
    }
    (void)nmodels;
}

/* ---- shards: --shard K/N runs the points p with p % N == K - 1 and saves
   their result lines; --merge reads every shard's file instead of running.
   A file names its sweep by a hash of htc's version, the models' and the
   target's paths and bytes, the -D values and --measure, so a shard of
   another sweep is refused (the files a target includes are not hashed). ------------------- */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;      /* a separator: "ab","c" differs from "a","bc" */
}

/* a file's bytes (the model's and the target's: a shard run where they
   differ is another sweep) */
static uint64_t fnv_file(uint64_t h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open: %s", path, strerror(errno));
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++) h = (h ^ buf[i]) * 1099511628211ull;
    if (ferror(f)) die("%s: read error", path);
    fclose(f);
    return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t sweep_hash(const char *target, const char **models, int nmodels, const Axis *ax, int nax, int measure)
{
    uint64_t h = fnv(14695981039346656037ull, "htc-sweep-1 " HTC_VERSION);
    h = fnv_file(fnv(h, target), target);
    for (int m = 0; m < nmodels; m++) h = fnv_file(fnv(h, models[m]), models[m]);
    for (int a = 0; a < nax; a++) {
        h = fnv(h, ax[a].name);
        for (int k = 0; k < ax[a].n; k++) h = fnv(h, ax[a].v[k]);
    }
    return fnv(h, measure ? "measure" : "estimate");
}

static void save_shard(const char *path, const Point *pts, const int *todo, int ntodo, uint64_t hash, int k, int n, int npts)
{
    FILE *f = out_open(path);
    fprintf(f, "htc-sweep-shard %016llx %d %d %d\n", (unsigned long long)hash, k, n, npts);
    for (int q = 0; q < ntodo; q++) {
        const Point *r = &pts[todo[q]];
        if (r->error) {
            fprintf(f, "%d E %s\n", todo[q], r->error);
            continue;
        }
        fprintf(f, "%d R ", todo[q]);
        point_print(f, r);
    }
    fprintf(f, "end %d\n", ntodo);
    out_commit(f);
}

static void merge_shards(const char **files, int nfiles, Point *pts, int npts, uint64_t hash)
{
    char *seen = arena_alloc((size_t)npts + 1);
    memset(seen, 0, (size_t)npts + 1);
    int shards = 0;
    for (int i = 0; i < nfiles; i++) {
        size_t len;
        char *text = (char *)read_file(files[i], &len);
        text[len] = 0;                  /* (read_file leaves room for it) */
        if (memchr(text, 0, len)) die("sweep: --merge %s: not a shard file (a NUL byte)", files[i]);
        unsigned long long h;
        int k, n, np, used;
        if (sscanf(text, "htc-sweep-shard %llx %d %d %d%n", &h, &k, &n, &np, &used) != 4 || text[used] != '\n')
            die("sweep: --merge %s: not a shard file (saved by htc sweep --shard K/N --save)", files[i]);
        if (h != hash || np != npts)
            die("sweep: --merge %s: a shard of another sweep (its models, target, -D values or --measure differ)", files[i]);
        if (i == 0) shards = n;
        if (n != shards) die("sweep: --merge %s: shard %d of %d, the other files' are of %d", files[i], k, n, shards);
        int count = 0, ended = 0;
        for (char *l = text + used + 1; *l;) {
            char *nl = strchr(l, '\n');
            if (!nl) die("sweep: --merge %s: truncated (no end line)", files[i]);
            *nl = 0;
            int p, off;
            char kind;
            if (!strncmp(l, "end ", 4)) {
                if (atoi(l + 4) != count || nl[1]) die("sweep: --merge %s: truncated or damaged", files[i]);
                ended = 1;
                break;
            }
            if (sscanf(l, "%d %c %n", &p, &kind, &off) != 2 || p < 0 || p >= npts || p % n != k - 1 ||
                (kind != 'R' && kind != 'E'))
                die("sweep: --merge %s: damaged line '%.60s'", files[i], esc_term(l));
            if (seen[p]) die("sweep: --merge %s: point %d is in two shard files", files[i], p);
            seen[p] = 1;
            if (kind == 'E') pts[p].error = arena_strdup(l + off);
            else if (!point_scan(&pts[p], l + off)) die("sweep: --merge %s: damaged line '%.60s'", files[i], esc_term(l));
            count++;
            l = nl + 1;
        }
        if (!ended) die("sweep: --merge %s: truncated (no end line)", files[i]);
    }
    for (int p = 0; p < npts; p++)
        if (!seen[p])
            die("sweep: --merge: point %d is in no shard file (shard %d of %d missing?)", p, p % shards + 1, shards);
}

static void xml(FILE *f, const char *s) { fputs(esc_html(s), f); }

/* Per model: every point as latency x energy (or x memory without an
   energy model), the Pareto front in red, and the front's table. */
static void write_pareto(FILE *f, const char **models, int nmodels, const Axis *ax, int nax, int nconf, const Point *pts)
{
    fputs("<h2>Pareto front (latency x energy x memory)</h2>\n<p>Per model, the configurations no other one beats in "
          "latency, energy and memory at once (measured figures where --measure gave them; memory: the arena + the size of "
          "every memory that holds no arena). Red: on the front.</p>\n", f);
    for (int m = 0; m < nmodels; m++) {
        double lx = 0, hx = 0, ly = 0, hy = 0;
        int n = 0, has_e = 0;
        for (int c = 0; c < nconf; c++) has_e |= !pts[m * nconf + c].error && pts[m * nconf + c].e_uj >= 0;
        for (int c = 0; c < nconf; c++) {
            const Point *r = &pts[m * nconf + c];
            if (r->error) continue;
            double x = pt_latency(r), y = has_e ? pt_energy(r) : pt_memory(r);
            if (!n++ || x < lx) lx = x;
            if (n == 1 || x > hx) hx = x;
            if (n == 1 || y < ly) ly = y;
            if (n == 1 || y > hy) hy = y;
        }
        fputs("<h3>", f);
        xml(f, models[m]);
        fputs("</h3>\n", f);
        if (!n) {
            fputs("<p>no point succeeded</p>\n", f);
            continue;
        }
        if (hx <= lx) hx = lx + 1;
        if (hy <= ly) hy = ly + 1;
        const int W = 520, H = 300, L = 80, B = 40;
        fprintf(f, "<svg class=\"pareto\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", W + L + 20, H + B + 20);
        fprintf(f, "<rect x=\"%d\" y=\"10\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", L, W, H);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">cycles (%.4g .. %.4g)</text>\n", L + W / 2, H + 40, lx, hx);
        fprintf(f, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s (%.4g .. %.4g)</text>\n",
                10 + H / 2, 10 + H / 2, has_e ? "energy uJ" : "memory KiB", ly, hy);
        for (int pass = 0; pass < 2; pass++)       /* the front drawn last, on top */
            for (int c = 0; c < nconf; c++) {
                const Point *r = &pts[m * nconf + c];
                if (r->error || r->pareto != pass) continue;
                double x = L + 5 + (W - 10) * (pt_latency(r) - lx) / (hx - lx);
                double y = 10 + H - 5 - (H - 10) * ((has_e ? pt_energy(r) : pt_memory(r)) - ly) / (hy - ly);
                ArenaMark mk = arena_mark();
                fprintf(f, "<circle class=\"%s\" data-config=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>", pass ? "front" : "pt", c,
                        x, y, pass ? 4 : 3, pass ? "#d62728" : "#999");
                xml(f, config_text(ax, nax, c, " "));
                fprintf(f, ": %.0f cycles, %.6g uJ, %.1f KiB</title></circle>\n", pt_latency(r), pt_energy(r), pt_memory(r));
                arena_release(mk);
            }
        fputs("</svg>\n<table class=\"front\" border=\"1\" cellspacing=\"0\" cellpadding=\"2\"><tr><th>#</th><th>parameters</th>"
              "<th>cycles</th><th>energy uJ</th><th>memory KiB</th></tr>\n", f);
        for (int c = 0; c < nconf; c++) {
            const Point *r = &pts[m * nconf + c];
            if (r->error || !r->pareto) continue;
            ArenaMark mk = arena_mark();
            fprintf(f, "<tr><td>%d</td><td>", c);
            xml(f, config_text(ax, nax, c, " "));
            fprintf(f, "</td><td>%.0f</td><td>%.6g</td><td>%.1f</td></tr>\n", pt_latency(r), pt_energy(r), pt_memory(r));
            arena_release(mk);
        }
        fputs("</table>\n", f);
    }
}

/* Self-contained HTML: per model an SVG of estimated cycles per
   configuration, stacked by layer class (the paper's Fig. 4 style). */
static void write_html(FILE *f, const char *target, const char **models, int nmodels, const Axis *ax, int nax,
                       int nconf, const Point *pts)
{
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>htc sweep</title>\n"
          "<style>body{font:13px sans-serif;margin:16px} svg text{font:11px sans-serif}</style></head><body>\n", f);
    fputs("<h1>htc sweep: ", f);
    xml(f, target);
    fputs("</h1>\n<p>Estimated cycles per configuration, stacked by layer class (compile-time model; hover a bar for the "
          "numbers).</p>\n", f);
    for (int m = 0; m < nmodels; m++) {
        double top = 0;
        for (int c = 0; c < nconf; c++)
            if (!pts[m * nconf + c].error && pts[m * nconf + c].est > top) top = pts[m * nconf + c].est;
        if (top <= 0) top = 1;
        const int bw = 14, gap = 4, left = 70, h = 260, bottom = 12;
        int w = left + nconf * (bw + gap) + 160;
        fputs("<h2>", f);
        xml(f, models[m]);
        fprintf(f, "</h2>\n<svg class=\"sweep\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", w,
                h + bottom + 20);
        for (int k = 0; k <= 4; k++) {
            double y = 10 + h - h * k / 4.0;
            fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                    left, left + nconf * (bw + gap), y, y, left - 4, y + 4, top * k / 4.0);
        }
        for (int c = 0; c < nconf; c++) {
            const Point *r = &pts[m * nconf + c];
            double x = left + c * (bw + gap), y = 10 + h;
            ArenaMark mk = arena_mark();       /* each point's text freed after it */
            const char *cfg = config_text(ax, nax, c, " ");
            if (r->error) {
                fprintf(f, "<text class=\"err\" x=\"%.1f\" y=\"%.1f\" fill=\"red\">x<title>", x + 3, y);
                xml(f, cfg);
                fputs(": ", f);
                xml(f, r->error);
                fputs("</title></text>\n", f);
                arena_release(mk);
                continue;
            }
            for (int k = 0; k < NCLASS; k++) {
                if (r->cls[k] <= 0) continue;
                double bh = h * r->cls[k] / top;
                y -= bh;
                fprintf(f, "<rect class=\"bar\" data-config=\"%d\" x=\"%.1f\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"><title>",
                        c, x, y, bw, bh, class_colors[k]);
                xml(f, cfg);
                fprintf(f, ": %s %.0f of %.0f cycles</title></rect>\n", class_names[k], r->cls[k], r->est);
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x + bw / 2.0, h + bottom + 12, c);
            arena_release(mk);
        }
        for (int k = 0; k < NCLASS; k++)
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                    left + nconf * (bw + gap) + 20, 14 + 16 * k, class_colors[k], left + nconf * (bw + gap) + 34, 23 + 16 * k,
                    class_names[k]);
        fputs("</svg>\n", f);
    }
    write_pareto(f, models, nmodels, ax, nax, nconf, pts);
    fputs("<h2>Configurations</h2>\n<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\"><tr><th>#</th><th>parameters</th>", f);
    for (int m = 0; m < nmodels; m++) {
        fputs("<th>", f);
        xml(f, models[m]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (int c = 0; c < nconf; c++) {
        ArenaMark mk = arena_mark();
        fprintf(f, "<tr><td>%d</td><td>", c);
        xml(f, config_text(ax, nax, c, " "));
        fputs("</td>", f);
        for (int m = 0; m < nmodels; m++) {
            const Point *r = &pts[m * nconf + c];
            if (r->error) fputs("<td>error</td>", f);
            else fprintf(f, "<td>%.0f</td>", r->est);
        }
        fputs("</tr>\n", f);
        arena_release(mk);
    }
    /* on load: how many points have a bar drawn inside their chart (the
       tests read it back from a headless browser's DOM) */
    fputs("</table>\n<script>\nwindow.addEventListener('load', function () {\n"
          "  var shown = 0;\n"
          "  document.querySelectorAll('svg.sweep').forEach(function (svg) {\n"
          "    var box = svg.getBoundingClientRect(), seen = {};\n"
          "    svg.querySelectorAll('rect.bar').forEach(function (r) {\n"
          "      var b = r.getBoundingClientRect();\n"
          "      if (b.width > 0 && b.height > 0 && b.left >= box.left && b.right <= box.right && b.top >= box.top &&\n"
          "          b.bottom <= box.bottom) seen[r.getAttribute('data-config')] = 1;\n"
          "    });\n"
          "    shown += Object.keys(seen).length;\n"
          "  });\n"
          "  document.body.setAttribute('data-points-shown', shown);\n"
          "});\n</script>\n</body></html>\n", f);
}

/* htc sweep ... (argv[1] == "sweep") */
int sweep_main(int argc, char **argv)
{
    const char **models = arena_alloc(sizeof(char *) * (size_t)argc);
    int nmodels = 0, nax = 0, jobs = 1, json = 0, do_measure = 0, shard_k = 0, shard_n = 0, nmerge = 0;
    const char *target = NULL, *csv = NULL, *html = NULL, *save = NULL, *cache = NULL;
    const char **merge = arena_alloc(sizeof(char *) * (size_t)argc);
    Axis *ax = arena_alloc(sizeof(Axis) * MAX_AXES);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
#define VALUE() (i + 1 < argc ? argv[++i] : (die("sweep: option %s needs a value", a), ""))
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_sweep, stdout);
            exit(0);
        } else if (!strcmp(a, "-t") || !strcmp(a, "--target")) target = VALUE();
        else if (!strcmp(a, "-D") || (!strncmp(a, "-D", 2) && a[2])) {
            const char *v = a[2] ? a + 2 : VALUE(), *eq = strchr(v, '=');
            if (strlen(v) > SWEEP_D_MAX) die("sweep: a -D argument of %zu bytes (at most %d)", strlen(v), SWEEP_D_MAX);
            if (!eq || eq == v || !eq[1]) die("sweep: -D needs NAME=V1,V2,..., got '%s'", v);
            if (nax == MAX_AXES) die("sweep: at most %d -D parameters", MAX_AXES);
            Axis *x = &ax[nax++];
            x->name = arena_printf("%.*s", (int)(eq - v), v);
            for (int k = 0; k < nax - 1; k++)
                if (!strcmp(ax[k].name, x->name)) die("sweep: -D %s is given twice", x->name);
            x->n = 0;
            for (const char *p = eq + 1;;) {
                size_t l = strcspn(p, ",");
                if (!l) die("sweep: -D %s: empty value in '%s'", x->name, eq + 1);
                if (x->n == MAX_VALUES) die("sweep: -D %s: more than %d values", x->name, MAX_VALUES);
                x->v[x->n++] = arena_printf("%.*s", (int)l, p);
                if (!p[l]) break;
                p += l + 1;
            }
        } else if (!strcmp(a, "-j")) {
            const char *v = VALUE();
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 256) die("sweep: -j needs a number of processes 1..256, got '%s'", v);
            jobs = (int)n;
        } else if (!strcmp(a, "--csv")) csv = VALUE();
        else if (!strcmp(a, "--html")) html = VALUE();
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--measure")) do_measure = 1;
        else if (!strcmp(a, "--cache")) cache = VALUE();
        else if (!strcmp(a, "--shard")) {
            const char *v = VALUE();
            char *end, *end2;
            long k = strtol(v, &end, 10), n = *end == '/' ? strtol(end + 1, &end2, 10) : 0;
            if (*end != '/' || end2 == end + 1 || *end2 || n < 1 || n > MAX_POINTS || k < 1 || k > n)
                die("sweep: --shard needs K/N with 1 <= K <= N <= %d, got '%s'", MAX_POINTS, v);
            shard_k = (int)k;
            shard_n = (int)n;
        } else if (!strcmp(a, "--save")) save = VALUE();
        else if (!strcmp(a, "--merge")) merge[nmerge++] = VALUE();
        else if (a[0] == '-' && a[1]) die("sweep: unknown option '%s' (see htc sweep --help)", a);
        else models[nmodels++] = a;
#undef VALUE
    }
    if (!nmodels) die("sweep: no model file given (htc sweep MODEL... -t TARGET -D NAME=V1,V2)");
    if (!target) die("sweep: no target given (-t targets/....lua)");
    if ((csv && !*csv) || (html && !*html) || (save && !*save)) die("sweep: an output file name is empty");
    if (cache && (!do_measure || !*cache)) die("sweep: --cache DIR keeps measured runs: give it with --measure");
    if (shard_n && !save) die("sweep: --shard K/N needs --save FILE (the shard's results, for --merge)");
    if (save && !shard_n) die("sweep: --save is the results of a --shard");
    if (shard_n && (csv || html || json)) die("sweep: a --shard saves its results (--save); --csv, --html, --json are --merge's");
    if (shard_n && nmerge) die("sweep: --shard and --merge are two steps (run every shard, then merge their files)");
    if (save) out_check(save);
    if (csv) out_check(csv);
    if (html) out_check(html);
    long nconf = 1;
    for (int a = 0; a < nax; a++)
        if ((nconf *= ax[a].n) > MAX_POINTS) die("sweep: more than %d configurations", MAX_POINTS);
    if (nconf * nmodels > MAX_POINTS) die("sweep: more than %d points", MAX_POINTS);
    {
        size_t text = 0, mlen = 0;      /* every point's parameter text and model path */
        for (int a = 0; a < nax; a++) {
            size_t longest = 0;
            for (int k = 0; k < ax[a].n; k++)
                if (strlen(ax[a].v[k]) > longest) longest = strlen(ax[a].v[k]);
            text += strlen(ax[a].name) + longest + 2;
        }
        for (int m = 0; m < nmodels; m++)
            if (strlen(models[m]) > mlen) mlen = strlen(models[m]);
        if ((text + mlen) * (size_t)nconf * (size_t)nmodels > SWEEP_TEXT_MAX)
            die("sweep: the parameter and model text of %ld points exceeds %zu MiB", nconf * nmodels, SWEEP_TEXT_MAX >> 20);
    }
    /* the first configuration loads before any work (the parameters' names
       checked): a bad name is one error naming the target, not failed points */
    {
        const long c = 0;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) die("sweep: fork: %s", strerror(errno));
        if (pid == 0) {
            target_close(target_load(target, config_defines(ax, nax, (int)c)));
            fflush(stderr);
            _exit(0);
        }
        int st;
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) exit(1);   /* the child said why */
    }
    int npts = (int)nconf * nmodels;
    Point *pts = arena_alloc(sizeof(Point) * (size_t)npts);
    memset(pts, 0, sizeof(Point) * (size_t)npts);
    uint64_t hash = sweep_hash(target, models, nmodels, ax, nax, do_measure);
    if (nmerge) {
        merge_shards(merge, nmerge, pts, npts, hash);
        goto outputs;
    }
    /* the points this process runs: all, or its shard's */
    int *todo = arena_alloc(sizeof(int) * (size_t)npts), ntodo = 0;
    for (int q = 0; q < npts; q++)
        if (!shard_n || q % shard_n == shard_k - 1) todo[ntodo++] = q;
    /* the front end and lowering once per model; each point forks from here */
    Graph **graphs = arena_alloc(sizeof(Graph *) * (size_t)nmodels);
    for (int m = 0; m < nmodels; m++) {
        graphs[m] = read_model(models[m], &(ReadOptions){0});
        lower(graphs[m]);
    }
    Child *ch = arena_alloc(sizeof(Child) * (size_t)jobs);
    struct pollfd *pfd = arena_alloc(sizeof(struct pollfd) * (size_t)jobs);
    for (int k = 0; k < jobs; k++) ch[k].pid = 0;
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) die("sweep: cannot find htc's own executable (/proc/self/exe)");
    self[sl] = 0;
    int next = 0, running = 0;
    while (next < ntodo || running) {
        for (int k = 0; k < jobs && next < ntodo; k++) {
            if (ch[k].pid) continue;
            int fds[2];
            if (pipe(fds)) die("sweep: pipe: %s", strerror(errno));
            fflush(stdout);
            fflush(stderr);
            int p = todo[next++], m = p / (int)nconf, c = p % (int)nconf;
            pts[p].model = m;
            pts[p].config = c;
            pid_t pid = fork();
            if (pid < 0) die("sweep: fork: %s", strerror(errno));
            if (pid == 0) {
                close(fds[0]);
                dup2(fds[1], 1);
                dup2(fds[1], 2);
                close(fds[1]);
                for (int j = 0; j < jobs; j++)
                    if (ch[j].pid) close(ch[j].fd);
                point_child(self, graphs[m], models[m], target, ax, nax, c, do_measure, cache);
            }
            close(fds[1]);
            ch[k] = (Child){pid, fds[0], p, NULL, 0, 0};
            running++;
        }
        int np = 0;
        for (int k = 0; k < jobs; k++)
            if (ch[k].pid) pfd[np++] = (struct pollfd){ch[k].fd, POLLIN, 0};
        if (poll(pfd, (nfds_t)np, -1) < 0 && errno != EINTR) die("sweep: poll: %s", strerror(errno));
        for (int k = 0; k < jobs; k++) {
            if (!ch[k].pid) continue;
            struct pollfd q = {ch[k].fd, POLLIN, 0};
            if (poll(&q, 1, 0) <= 0) continue;
            if (ch[k].len + 4097 > SWEEP_OUT_MAX) {     /* keep the tail: the result or error line comes last */
                memmove(ch[k].buf, ch[k].buf + ch[k].len / 2, ch[k].len - ch[k].len / 2);
                ch[k].len -= ch[k].len / 2;
            }
            if (ch[k].len + 4097 > ch[k].cap) {
                size_t cap = ch[k].cap ? 2 * ch[k].cap : 8192;
                char *nb = malloc(cap);
                if (!nb) die("sweep: out of memory");
                if (ch[k].len) memcpy(nb, ch[k].buf, ch[k].len);
                free(ch[k].buf);
                ch[k].buf = nb;
                ch[k].cap = cap;
            }
            ssize_t n = read(ch[k].fd, ch[k].buf + ch[k].len, 4096);
            if (n > 0) {
                ch[k].len += (size_t)n;
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            close(ch[k].fd);
            int st;
            waitpid(ch[k].pid, &st, 0);
            ch[k].buf[ch[k].len] = 0;
            point_parse(&pts[ch[k].point], ch[k].buf);
            if (!pts[ch[k].point].error && (!WIFEXITED(st) || WEXITSTATUS(st)))
                pts[ch[k].point].error = "the point's process failed";
            free(ch[k].buf);
            ch[k].pid = 0;
            running--;
        }
    }

    if (shard_n) {
        save_shard(save, pts, todo, ntodo, hash, shard_k, shard_n, npts);
        int bad = 0;
        for (int q = 0; q < ntodo; q++) bad += pts[todo[q]].error != NULL;
        printf("htc sweep: shard %d/%d: %d of %d points (%d failed) saved to %s\n", shard_k, shard_n, ntodo, npts, bad,
               esc_term(save));
        arena_free_all();
        return 0;
    }
outputs:
    for (int q = 0; q < npts; q++) pts[q].model = q / (int)nconf, pts[q].config = q % (int)nconf;
    pareto_mark(pts, npts, nmodels);
    /* the table (or JSON) on stdout */
    if (json) {
        printf("[\n");
        for (int p = 0; p < npts; p++) {
            const Point *r = &pts[p];
            ArenaMark mk = arena_mark();       /* each point's text freed after it */
            printf("  {\"model\": %s, \"config\": %d, \"params\": {", esc_json(models[r->model]), r->config);
            int c = r->config;
            const char **vals = arena_alloc(sizeof(char *) * (size_t)(nax ? nax : 1));
            for (int a = nax - 1; a >= 0; a--) {
                vals[a] = ax[a].v[c % ax[a].n];
                c /= ax[a].n;
            }
            for (int a = 0; a < nax; a++) printf("%s%s: %s", a ? ", " : "", esc_json(ax[a].name), esc_json(vals[a]));
            printf("}, ");
            if (r->error) {
                printf("\"error\": %s}%s\n", esc_json(r->error), p + 1 < npts ? "," : "");
                arena_release(mk);
                continue;
            }
            printf("\"ops\": %d, \"offloaded\": %d, \"tiles\": %d, \"l1_kib\": %.3f, \"w_kib\": %.3f, \"arena_kib\": %.3f, "
                   "\"est_cycles\": %.0f, \"ideal_cycles\": %.0f, \"est_offloaded\": %.0f, \"classes\": {",
                   r->ops, r->offloaded, r->tiles, r->l1_kib, r->w_kib, r->arena_kib, r->est, r->ideal, r->est_off);
            for (int k = 0; k < NCLASS; k++) printf("%s\"%s\": %.0f", k ? ", " : "", class_names[k], r->cls[k]);
            printf("}");
            if (r->measured >= 0) printf(", \"measured_cycles\": %.0f", r->measured);
            if (r->e_uj >= 0)
            {
                printf(", \"energy_uj\": %.6f, \"energy\": {\"compute_uj\": %.6f, \"memory_uj\": %.6f, \"static_uj\": %.6f}",
                       r->e_uj, r->e_comp, r->e_mem, r->e_stat);
                printf(", \"energy_classes\": {");
                for (int k = 0; k < NCLASS; k++) printf("%s\"%s\": %.6f", k ? ", " : "", class_names[k], r->ecls[k]);
                printf("}");
            }
            if (r->m_uj >= 0) printf(", \"measured_energy_uj\": %.6f", r->m_uj);
            printf(", \"memory_kib\": %.3f, \"pareto\": %s", pt_memory(r), r->pareto ? "true" : "false");
            printf("}%s\n", p + 1 < npts ? "," : "");
            arena_release(mk);
        }
        printf("]\n");
    } else {
        int has_e = 0;
        for (int p = 0; p < npts; p++) has_e |= !pts[p].error && pts[p].e_uj >= 0;
        printf("%-28s %-36s %7s %6s %9s %8s %13s %13s %6s%s%s%s\n", "model", "configuration", "offl", "tiles", "L1 KiB",
               "W KiB", "est cycles", "ideal", "est/id", do_measure ? "      measured  err%" : "", has_e ? "   energy uJ" : "",
               do_measure && has_e ? "  measured uJ" : "");
        for (int p = 0; p < npts; p++) {
            const Point *r = &pts[p];
            const char *mb = strrchr(models[r->model], '/');
            mb = mb ? mb + 1 : models[r->model];
            ArenaMark mk = arena_mark();
            const char *cfg = esc_term(config_text(ax, nax, r->config, " "));
            mb = esc_term(mb);
            if (r->error) {
                printf("%-28.28s %-36s error: %s\n", mb, cfg, esc_term(r->error));
                arena_release(mk);
                continue;
            }
            printf("%-28.28s %-36s %3d/%-3d %6d %9.1f %8.1f %13.0f %13.0f %6.2f", mb, cfg, r->offloaded, r->ops, r->tiles,
                   r->l1_kib, r->w_kib, r->est, r->ideal, r->ideal > 0 ? r->est / r->ideal : 0.0);
            if (do_measure && r->measured >= 0)
                printf(" %13.0f %+5.1f", r->measured, 100.0 * (r->est - r->measured) / (r->measured > 0 ? r->measured : 1));
            else if (do_measure && has_e)
                printf(" %13s %5s", "-", "");
            if (has_e) printf(" %12.3f", r->e_uj);
            if (do_measure && has_e) {
                if (r->m_uj >= 0) printf(" %12.3f", r->m_uj);
                else printf(" %12s", "-");
            }
            printf("%s\n", r->pareto ? "  *" : "");
            arena_release(mk);
        }
    }
    if (csv) {
        FILE *f = out_open(csv);
        fprintf(f, "model,config");
        for (int a = 0; a < nax; a++) fprintf(f, ",%s", esc_csv(ax[a].name));
        fprintf(f, ",error,ops,offloaded,tiles,l1_kib,w_kib,arena_kib,est_cycles,ideal_cycles,est_offloaded,measured_cycles");
        for (int k = 0; k < NCLASS; k++) fprintf(f, ",%s", class_names[k]);
        fprintf(f, ",energy_uj,compute_uj,memory_uj,static_uj,measured_energy_uj,memory_kib,pareto\n");
        for (int p = 0; p < npts; p++) {
            const Point *r = &pts[p];
            ArenaMark mk = arena_mark();
            fprintf(f, "%s,%d", esc_csv(models[r->model]), r->config);
            int c = r->config;
            const char **vals = arena_alloc(sizeof(char *) * (size_t)(nax ? nax : 1));
            for (int a = nax - 1; a >= 0; a--) {
                vals[a] = ax[a].v[c % ax[a].n];
                c /= ax[a].n;
            }
            for (int a = 0; a < nax; a++) fprintf(f, ",%s", esc_csv(vals[a]));
            fprintf(f, ",%s", esc_csv(r->error ? r->error : ""));
            if (r->error) {
                fprintf(f, ",,,,,,,,,,");
                for (int k = 0; k < NCLASS; k++) fprintf(f, ",");
                fprintf(f, ",,,,,,,0");
            } else {
                fprintf(f, ",%d,%d,%d,%.3f,%.3f,%.3f,%.0f,%.0f,%.0f,", r->ops, r->offloaded, r->tiles, r->l1_kib, r->w_kib,
                        r->arena_kib, r->est, r->ideal, r->est_off);
                if (r->measured >= 0) fprintf(f, "%.0f", r->measured);
                for (int k = 0; k < NCLASS; k++) fprintf(f, ",%.0f", r->cls[k]);
                if (r->e_uj >= 0) fprintf(f, ",%.6f,%.6f,%.6f,%.6f,", r->e_uj, r->e_comp, r->e_mem, r->e_stat);
                else fprintf(f, ",,,,,");
                if (r->m_uj >= 0) fprintf(f, "%.6f", r->m_uj);
                fprintf(f, ",%.3f,%d", pt_memory(r), r->pareto);
            }
            fprintf(f, "\n");
            arena_release(mk);
        }
        out_commit(f);
    }
    if (html) {
        FILE *f = out_open(html);
        write_html(f, target, models, nmodels, ax, nax, (int)nconf, pts);
        out_commit(f);
    }
    int bad = 0;
    for (int p = 0; p < npts; p++) bad += pts[p].error != NULL;
    if (bad) fprintf(stderr, "htc: sweep: %d of %d points failed (their errors are in the table)\n", bad, npts);
    arena_free_all();
    return 0;
}
