/* verify.c - htc verify: a model on a target's virtual platform against the
   CPU reference, N random inputs, every layer's output compared. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir.h"

#define MAX_SETS 100000

static const char usage_verify[] =
    "usage: htc verify MODEL -t TARGET [-D NAME=VALUE ...] [-n N] [--seed S] [--ref REF.lua]\n"
    "                  [--keep DIR] [--[no-]float-fallback] [--shape NAME=DIMS] [--bind NAME=FILE]\n"
    "  runs MODEL compiled for TARGET (accelerators on their device models) and for the CPU\n"
    "  reference (REF, default targets/cpu.lua: htc's own kernels, checked against TFLite Micro\n"
    "  and onnxruntime) on N random inputs (default 3) and compares every layer's output; names\n"
    "  the first layer that differs, its engine, the first differing element and the tile that\n"
    "  wrote it; prints the device model's cycles per layer beside the estimate. Builds are\n"
    "  kept in DIR (default $XDG_CACHE_HOME/htc/verify/<model+target>): an unchanged header is\n"
    "  not compiled again, so a run after editing the target recompiles only its side.\n"
    "  Exit status 0 when every layer of every input is equal, 1 otherwise.\n";

typedef struct {
    const char *model, *target, *ref, *keep;
    const char *defines[64];
    int ndefines;
    long n;
    unsigned long seed;
    ReadOptions read;           /* --shape, --bind, --float-fallback */
} VOpts;

static long number(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno == ERANGE || x < lo || x > hi) die("%s '%s': expected a number from %ld to %ld", opt, v, lo, hi);
    return x;
}

static void parse(VOpts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->n = 3;
    o->seed = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
#define VALUE() (i + 1 < argc ? argv[++i] : (die("verify: option %s needs a value", a), ""))
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_verify, stdout);
            exit(0);
        } else if (!strcmp(a, "-t") || !strcmp(a, "--target")) o->target = VALUE();
        else if (!strcmp(a, "-D") || (!strncmp(a, "-D", 2) && a[2])) {
            if (o->ndefines == 64) die("verify: at most 64 -D options");
            o->defines[o->ndefines++] = a[2] ? a + 2 : VALUE();
        } else if (!strcmp(a, "-n")) o->n = number("-n", VALUE(), 1, MAX_SETS);
        else if (!strcmp(a, "--seed")) o->seed = (unsigned long)number("--seed", VALUE(), 0, 0x7fffffffL);
        else if (!strcmp(a, "--ref")) o->ref = VALUE();
        else if (!strcmp(a, "--keep")) o->keep = VALUE();
        else if (!strcmp(a, "--float-fallback")) o->read.float_fallback = 1;
        else if (!strcmp(a, "--no-float-fallback")) o->read.float_fallback = -1;
        else if (!strcmp(a, "--shape")) readopt_shape(&o->read, VALUE());
        else if (!strcmp(a, "--bind")) readopt_bind(&o->read, VALUE());
        else if (a[0] == '-' && a[1]) die("verify: unknown option '%s' (see htc verify --help)", a);
        else if (!o->model) o->model = a;
        else die("verify: unexpected argument '%s' (one model; see htc verify --help)", a);
#undef VALUE
    }
    if (!o->model) die("verify: no model file given (htc verify --help)");
    if (!o->target) die("verify: no target given (-t targets/npu.lua)");
    if (!o->ref) o->ref = arena_printf("%s/targets/cpu.lua", getenv("HTC_HOME") ? getenv("HTC_HOME") : HTC_DATADIR);
}

static uint32_t fnv(uint32_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return (h ^ 0xff) * 16777619u;
}

static void mkdirs(const char *path)
{
    char *p = arena_strdup(path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) die("%s: cannot create: %s", p, strerror(errno));
            *c = '/';
        }
    if (mkdir(p, 0777) != 0 && errno != EEXIST) die("%s: cannot create: %s", p, strerror(errno));
}

/* --keep DIR is verify's build directory, reused as a cache, where the
   compiler writes: so that no link planted in it is followed, DIR must be
   the user's own and not writable by others, and hold no symbolic link. */
static void keep_dir_check(const char *d)
{
    struct stat st;
    if (lstat(d, &st) != 0 || !S_ISDIR(st.st_mode)) die("--keep %s: not a directory", d);
    if (st.st_uid != geteuid() || (st.st_mode & S_IWOTH))
        die("--keep %s: %s; links planted in it would be followed: give a directory of your own", d,
            st.st_uid != geteuid() ? "owned by another user" : "writable by others");
    DIR *dir = opendir(d);
    if (!dir) die("--keep %s: cannot read: %s", d, strerror(errno));
    for (struct dirent *e; (e = readdir(dir));) {
        if (lstat(arena_printf("%s/%s", d, e->d_name), &st) == 0 && S_ISLNK(st.st_mode)) {
            const char *name = arena_strdup(e->d_name);
            closedir(dir);
            die("--keep %s: %s is a symbolic link; htc verify builds in this directory and follows none", d, name);
        }
    }
    closedir(dir);
}

/* The build directory: --keep, else one per (model, target, reference)
   under the user's cache, so that the next run reuses what did not change. */
static const char *build_dir(const VOpts *o)
{
    if (o->keep) {
        mkdirs(o->keep);
        keep_dir_check(o->keep);
        return o->keep;
    }
    const char *base = getenv("XDG_CACHE_HOME");
    if (!base || base[0] != '/') {
        const char *home = getenv("HOME");
        if (!home || home[0] != '/') return scratch_dir("htc-verify");
        base = arena_printf("%s/.cache", home);
    }
    char *abs[3];
    const char *in[3] = {o->model, o->target, o->ref};
    uint32_t h = 2166136261u;
    for (int i = 0; i < 3; i++) {
        abs[i] = realpath(in[i], NULL);
        h = fnv(h, abs[i] ? abs[i] : in[i]);
        free(abs[i]);
    }
    const char *slash = strrchr(o->model, '/');
    char stem[48];
    snprintf(stem, sizeof stem, "%s", slash ? slash + 1 : o->model);
    for (char *c = stem; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
            *c = '_';
    const char *dir = arena_printf("%s/htc/verify/%s-%08x", base, stem, h);
    mkdirs(dir);
    return dir;
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* Emit one side's header as DIR/NAME.h and compile its implementation to
   DIR/NAME.o, unless the header is byte-identical to the last build's.
   The implementation records every layer's output (HTC_TRACE) and the
   device model's cycles (HTC_DEVICE_LAYER) through the driver. */
static void build_side(const char *dir, const char *name, int side, Graph *g, Target *t, Plan *p, const char *cc)
{
    const char *hdr = arena_printf("%s/%s.h", dir, name), *fresh = arena_printf("%s/%s.new.h", dir, name);
    const char *src = arena_printf("%s/%s.c", dir, name), *obj = arena_printf("%s/%s.o", dir, name);
    EmitOptions e = {name, hdr, arena_printf("%s/%s.bin", dir, name), 1};    /* constants by .incbin; x86 paths */
    FILE *f = out_open(fresh);
    emit(f, g, t, p, &e);
    out_commit(f);
    struct stat st;
    if (same_file(fresh, hdr) && stat(obj, &st) == 0) {
        unlink(fresh);
        return;
    }
    unlink(obj);
    if (rename(fresh, hdr) != 0) die("%s: cannot rename to %s: %s", fresh, hdr, strerror(errno));
    char *up = arena_strdup(name);
    for (char *c = up; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    f = out_open(src);
    fprintf(f, "/* htc verify: the %s side */\n#include <stddef.h>\n"
               "void htc_verify_trace(int side, int layer, int idx, const void *d, size_t n);\n"
               "void htc_verify_cycles(int layer, unsigned long long c);\n"
               "#define HTC_TRACE(m, l, idx, d, n) htc_verify_trace(%d, (l), (idx), (d), (n))\n",
            name, side);
    if (side == 0) fprintf(f, "#define HTC_DEVICE_LAYER(l, c) htc_verify_cycles((l), (unsigned long long)(c))\n");
    fprintf(f, "#define %s_IMPLEMENTATION\n#include \"%s.h\"\n", up, name);
    out_commit(f);
    char *argv[] = {(char *)cc, "-O2", "-std=c99", "-c", "-o", (char *)obj, (char *)src, NULL};
    cc_build(argv, arena_printf("%s/%s.err", dir, name), hdr);
}

/* The driver: N input sets from a xorshift generator (integers: random
   bytes; float inputs: uniform over the range their quantization
   covers), the target then the reference on each, every traced tensor of
   the reference compared with the target's copy. It writes one line per
   set and one per layer's device cycles (first set) to argv[1]. */
static void write_driver(const char *path, const Graph *g, const Target *t, const Plan *p, int ntrace)
{
    /* the target's arenas: one, or one per data memory (TGT_ARENA_<MEM>_SIZE) */
    const char *alloc = "", *args = "";
    for (int k = 0; k < p->narenas; k++) {
        const char *mac = "TGT_ARENA";
        if (p->narenas > 1) {
            char *m = arena_strdup(t->memories[p->arenas[k].memory].name);
            for (char *c = m; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
            mac = arena_printf("TGT_ARENA_%s", m);
        }
        alloc = arena_printf("%s        || posix_memalign(&arena_t[%d], %s_ALIGN < sizeof(void *) ? sizeof(void *) : %s_ALIGN, %s_SIZE ? %s_SIZE : 1)\n",
                             alloc, k, mac, mac, mac, mac);
        args = arena_printf("%s, arena_t[%d]", args, k);
    }
    FILE *f = out_open(path);
    fprintf(f, "/* htc verify: the driver */\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
               "#include \"tgt.h\"\n#include \"ref.h\"\n#define NT %d\n#define NL %d\n#define NI %d\n#define NO %d\n",
            ntrace, g->nops, g->ninputs, g->noutputs);
    fprintf(f, "static const int in_float[NI + 1] = {");
    for (int k = 0; k < g->ninputs; k++) fprintf(f, "%d, ", g->tensors[g->inputs[k]].type == DT_FLOAT32);
    fprintf(f, "0};\nstatic const float in_lo[NI + 1] = {");
    for (int k = 0; k < g->ninputs; k++) {
        const Tensor *t = &g->tensors[g->inputs[k]];
        float lo = -1.0f;
        if (t->q.n == 1) lo = t->q.scale[0] * (float)(-128 - t->q.zero_point[0]);
        fprintf(f, "(float)%.9g, ", (double)lo);
    }
    fprintf(f, "0};\nstatic const float in_hi[NI + 1] = {");
    for (int k = 0; k < g->ninputs; k++) {
        const Tensor *t = &g->tensors[g->inputs[k]];
        float hi = 1.0f;
        if (t->q.n == 1) hi = t->q.scale[0] * (float)(127 - t->q.zero_point[0]);
        fprintf(f, "(float)%.9g, ", (double)hi);
    }
    fprintf(f, "0};\nstatic const size_t in_size[NI + 1] = {");
    for (int k = 0; k < g->ninputs; k++) fprintf(f, "TGT_INPUT_SIZE_%d, ", k);
    fprintf(f, "0};\nstatic const size_t out_size[NO + 1] = {");
    for (int k = 0; k < g->noutputs; k++) fprintf(f, "TGT_OUTPUT_SIZE_%d, ", k);
    fprintf(f, "0};\n");
    /* tensors the target keeps only as bands (cascades): never traced whole there */
    fprintf(f, "static const unsigned char banded[NT + 1] = {");
    for (int i = 0; i < ntrace; i++) {
        int b = 0;
        for (int x = 0; x < g->ntensors; x++) b |= g->tensors[x].src_index == i && g->tensors[x].band_rows > 0;
        fprintf(f, "%d, ", b);
    }
    fprintf(f, "0};\n");
    fputs("static unsigned char *saved[NT];\nstatic size_t saved_n[NT];\nstatic int saved_layer[NT];\n"
          "static int set_traced, diff_idx, diff_layer, counting, last;\n"
          "static size_t diff_off, diff_count, diff_n;\nstatic unsigned long long cyc[NL];\n"
          "void htc_verify_cycles(int layer, unsigned long long c)\n{\n"
          "    int l = layer < 0 ? last : layer;\n    last = l;\n"
          "    if (counting && l >= 0 && l < NL) cyc[l] += c;\n}\n"
          "void htc_verify_trace(int side, int layer, int idx, const void *d, size_t n)\n{\n"
          "    size_t i;\n    if (idx < 0 || idx >= NT || banded[idx]) return;\n"
          "    if (side == 0) {\n"
          "        free(saved[idx]);\n        saved[idx] = malloc(n ? n : 1);\n"
          "        if (!saved[idx]) exit(3);\n        memcpy(saved[idx], d, n);\n"
          "        saved_n[idx] = n;\n        saved_layer[idx] = layer;\n        return;\n    }\n"
          "    set_traced++;\n    if (diff_idx >= 0) return;\n"
          "    if (!saved[idx] || saved_n[idx] != n) {\n"
          "        diff_idx = idx; diff_layer = layer; diff_off = (size_t)-1; diff_n = n; diff_count = 0;\n        return;\n    }\n"
          "    for (i = 0; i < n; i++)\n"
          "        if (saved[idx][i] != ((const unsigned char *)d)[i]) {\n"
          "            if (diff_idx < 0) { diff_idx = idx; diff_layer = layer; diff_off = i; diff_n = n; }\n"
          "            diff_count++;\n        }\n}\n",
          f);
    {
        const char *text = "static uint32_t rnd(uint32_t *x)\n{\n    *x ^= *x << 13; *x ^= *x >> 17; *x ^= *x << 5;\n    return *x;\n}\n"
          "int main(int argc, char **argv)\n{\n"
          "    long n, s;\n    unsigned long seed;\n    int k, i, bad = 0;\n    const void *in[NI + 1];\n"
          "    void *out_t[NO + 1], *out_r[NO + 1];\n    void *arena_t[NARENAS] = {0}, *arena_r = NULL;\n    FILE *res;\n"
          "    if (argc != 4) return 2;\n    n = atol(argv[2]);\n    seed = strtoul(argv[3], NULL, 10);\n"
          "    res = fopen(argv[1], \"w\");\n    if (!res) return 2;\n"
          "    if (posix_memalign(&arena_r, REF_ARENA_ALIGN < sizeof(void *) ? sizeof(void *) : REF_ARENA_ALIGN, REF_ARENA_SIZE ? REF_ARENA_SIZE : 1)\n"
          "@ALLOC@"
          "        ) return 2;\n"
          "    for (k = 0; k < NI; k++) in[k] = malloc(in_size[k] + 4);\n"
          "    for (k = 0; k < NO; k++) { out_t[k] = calloc(1, out_size[k] + 1); out_r[k] = calloc(1, out_size[k] + 1); }\n"
          "    for (s = 0; s < n; s++) {\n"
          "        uint32_t x = (uint32_t)(seed * 2654435761u + (unsigned long)s * 40503u) | 1u;\n"
          "        int rc_t, rc_r;\n"
          "        for (k = 0; k < NI; k++) {\n"
          "            unsigned char *b = (unsigned char *)in[k];\n"
          "            size_t j;\n"
          "            if (in_float[k]) {\n"
          "                for (j = 0; j + 4 <= in_size[k]; j += 4) {\n"
          "                    float v = in_lo[k] + (in_hi[k] - in_lo[k]) * (float)(rnd(&x) >> 8) / 16777216.0f;\n"
          "                    memcpy(b + j, &v, 4);\n                }\n"
          "            } else\n                for (j = 0; j < in_size[k]; j++) b[j] = (unsigned char)(rnd(&x) >> 24);\n"
          "        }\n"
          "        counting = s == 0;\n"
          "        rc_t = tgt_run_multi(in, out_t@ARGS@);\n"
          "        counting = 0;\n"
          "        set_traced = 0; diff_idx = -1; diff_count = 0;\n"
          "        rc_r = ref_run_multi(in, out_r, arena_r);\n"
          "        if (rc_t || rc_r) { fprintf(res, \"set %ld rc %d %d\\n\", s, rc_t, rc_r); bad = 1; continue; }\n"
          "        if (diff_idx >= 0) {\n"
          "            fprintf(res, \"set %ld diff %d %d %lld %lu %lu %d\\n\", s, diff_idx, diff_layer,\n"
          "                    diff_off == (size_t)-1 ? -1LL : (long long)diff_off, (unsigned long)diff_count, (unsigned long)diff_n, set_traced);\n"
          "            bad = 1;\n"
          "        } else {\n"
          "            for (k = 0; k < NO; k++)\n"
          "                if (memcmp(out_t[k], out_r[k], out_size[k])) break;\n"
          "            if (k < NO) { fprintf(res, \"set %ld output %d\\n\", s, k); bad = 1; }\n"
          "            else fprintf(res, \"set %ld ok %d\\n\", s, set_traced);\n"
          "        }\n"
          "    }\n"
          "    for (i = 0; i < NL; i++) fprintf(res, \"cycles %d %llu\\n\", i, cyc[i]);\n"
          "    for (i = 0; i < NT; i++) free(saved[i]);\n"
          "    for (k = 0; k < NI; k++) free((void *)in[k]);\n"
          "    for (k = 0; k < NO; k++) { free(out_t[k]); free(out_r[k]); }\n"
          "    for (k = 0; k < NARENAS; k++) free(arena_t[k]);\n    free(arena_r);\n"
          "    return fclose(res) ? 2 : bad;\n}\n";
        const char *a = strstr(text, "@ALLOC@"), *b = strstr(text, "@ARGS@");
        fprintf(f, "#define NARENAS %d\n", p->narenas);
        fwrite(text, 1, (size_t)(a - text), f);
        fputs(alloc, f);
        fwrite(a + 7, 1, (size_t)(b - a - 7), f);
        fputs(args, f);
        fputs(b + 6, f);
    }
    out_commit(f);
}

/* A name from a model or target for the terminal (esc_term: control
   characters made visible), at most 60 characters for the table. */
static const char *shown(const char *s)
{
    const char *e = esc_term(s ? s : "");
    return strlen(e) <= 60 ? e : arena_printf("%.59s+", e);
}

/* The op that wrote tensor (source index) idx, and where in its output. */
static void explain(const Graph *g, const Target *t, int layer, int idx, long long off, unsigned long count,
                    unsigned long n)
{
    const Op *op = layer >= 0 && layer < g->nops ? &g->ops[layer] : NULL;
    int ti = -1;
    for (int i = 0; i < g->ntensors; i++)
        if (g->tensors[i].src_index == idx) ti = i;
    printf("  first difference: layer %d", layer);
    if (op)
        printf(" (%s, %s on %s)", shown(op->src_name), op_name(op->kind), shown(t->engines[op->engine].name));
    printf(", tensor %d", idx);
    if (ti >= 0) printf(" '%s'", shown(g->tensors[ti].name));
    if (off < 0) {
        printf(": the target's trace of it is missing or of another size (%lu bytes)\n", n);
        return;
    }
    printf(": %lu of %lu bytes differ, the first at byte %lld", count, n, off);
    if (ti < 0) {
        printf("\n");
        return;
    }
    const Tensor *tt = &g->tensors[ti];
    int64_t el = off / (int64_t)dtype_size(tt->type);
    if (tt->rank == 4) {      /* NHWC */
        int64_t c = el % tt->shape[3], x = el / tt->shape[3] % tt->shape[2], y = el / tt->shape[3] / tt->shape[2] % tt->shape[1];
        printf(" = (y %lld, x %lld, c %lld)", (long long)y, (long long)x, (long long)c);
        if (op && op->tile && op->out[0] == ti) {
            const TileInfo *tl = op->tile;
            int ky = tl->size[TD_OY], kx = tl->size[TD_OX], kk = tl->size[TD_K];
            printf("\n  written by tile (oy %lld, ox %lld, k %lld) of %d x %d x %d; tile size %dx%dx%d (OY x OX x K)",
                   (long long)(y / ky), (long long)(x / kx), (long long)(c / kk), (tt->shape[1] + ky - 1) / ky,
                   (tt->shape[2] + kx - 1) / kx, (tt->shape[3] + kk - 1) / kk, ky, kx, kk);
        }
    } else if (op && op->tile && op->out[0] == ti && tt->rank >= 1) {
        int kk = op->tile->size[TD_K];
        int64_t c = el % tt->shape[tt->rank - 1];
        printf(" = channel %lld\n  written by K tile %lld of %d (K tile %d)", (long long)c, (long long)(c / kk),
               (tt->shape[tt->rank - 1] + kk - 1) / kk, kk);
    }
    printf("\n");
}

int verify_main(int argc, char **argv)
{
    VOpts o;
    parse(&o, argc, argv);
    const char *dir = build_dir(&o);
    int lock = open(arena_printf("%s/lock", dir), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX) != 0) die("%s: cannot lock the build directory: %s", dir, strerror(errno));
    const char *cc = getenv("CC");
    if (!cc || !*cc) cc = "cc";

    /* the reference in a child of its own (no -D: they are the target's) */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        Graph *rg;
        Target *rt;
        PipelineOptions ro = PIPELINE_OPTIONS;
        ro.model = o.model;
        ro.target = o.ref;
        ro.read = o.read;
        Plan *rp = pipeline(&ro, &rg, &rt);
        build_side(dir, "ref", 1, rg, rt, rp, cc);
        fflush(NULL);
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) exit(1);      /* the child printed the error */

    TargetDefines defines = {0};
    for (int i = 0; i < o.ndefines; i++) target_define(&defines, o.defines[i]);
    Graph *g;
    Target *t;
    PipelineOptions po = PIPELINE_OPTIONS;
    po.model = o.model;
    po.target = o.target;
    po.read = o.read;
    po.defines = &defines;
    Plan *p = pipeline(&po, &g, &t);
    build_side(dir, "tgt", 0, g, t, p, cc);

    int ntrace = 1;
    for (int i = 0; i < g->ntensors; i++)
        if (g->tensors[i].src_index + 1 > ntrace) ntrace = g->tensors[i].src_index + 1;
    const char *drv = arena_printf("%s/driver.c", dir), *exe = arena_printf("%s/verify", dir);
    write_driver(drv, g, t, p, ntrace);
    char *cargv[] = {(char *)cc, "-O2", "-std=c99", "-o", (char *)exe, (char *)drv, (char *)arena_printf("%s/tgt.o", dir),
                     (char *)arena_printf("%s/ref.o", dir), NULL};
    cc_build(cargv, arena_printf("%s/driver.err", dir), drv);

    const char *res = arena_printf("%s/result.txt", dir);
    char ns[32], ss[32];
    snprintf(ns, sizeof ns, "%ld", o.n);
    snprintf(ss, sizeof ss, "%lu", o.seed);
    char *rargv[] = {(char *)exe, (char *)res, ns, ss, NULL};
    int rc = run_command(rargv, 0);
    if (rc > 1) die("%s: the verification program failed (exit %d)", o.model, rc);

    printf("htc verify: %s on %s against %s, %ld random input set%s (seed %lu)\n", shown(o.model), shown(t->name),
           shown(o.ref), o.n, o.n == 1 ? "" : "s", o.seed);
    size_t len;
    char *text = (char *)read_file(res, &len);
    long pass = 0, fail = 0;
    double *meas = arena_alloc(sizeof(double) * (size_t)(g->nops + 1));
    for (char *l = text; l && *l;) {
        char *e = strchr(l, '\n');
        if (e) *e = 0;
        long s;
        int idx, layer, traced, k, a, b;
        long long off;
        unsigned long cnt, n;
        unsigned long long c;
        if (sscanf(l, "set %ld ok %d", &s, &traced) == 2) {
            pass++;
            if (o.n <= 10) printf("  set %ld: every layer equal (%d tensors compared)\n", s, traced);
        } else if (sscanf(l, "set %ld diff %d %d %lld %lu %lu %d", &s, &idx, &layer, &off, &cnt, &n, &traced) == 7) {
            if (!fail) {
                printf("  set %ld: DIFFERS\n", s);
                explain(g, t, layer, idx, off, cnt, n);
            } else if (fail < 10) printf("  set %ld: DIFFERS (layer %d, tensor %d)\n", s, layer, idx);
            fail++;
        } else if (sscanf(l, "set %ld output %d", &s, &k) == 2) {
            printf("  set %ld: every traced layer equal, output %d DIFFERS\n", s, k);
            fail++;
        } else if (sscanf(l, "set %ld rc %d %d", &s, &a, &b) == 3) {
            printf("  set %ld: run returned %d (target) / %d (reference)\n", s, a, b);
            fail++;
        } else if (sscanf(l, "cycles %d %llu", &layer, &c) == 2 && layer >= 0 && layer < g->nops) {
            meas[layer] = (double)c;
        }
        l = e ? e + 1 : NULL;
    }

    /* estimated vs measured device cycles, offloaded layers */
    int offloaded = 0;
    double te = 0, tm = 0;
    for (int i = 0; i < g->nops; i++) offloaded += g->ops[i].tile != NULL;
    if (offloaded) {
        printf("\n  #  source op              op          engine       measured   estimated   est/meas\n");
        for (int i = 0; i < g->nops; i++) {
            const Op *op = &g->ops[i];
            if (!op->tile) continue;
            te += op->est_cycles;
            tm += meas[i];
            printf("%3d  %-22s %-11s %-9s %11.0f %11.0f %10s\n", i, shown(op->src_name), op_name(op->kind),
                   shown(t->engines[op->engine].name), meas[i], op->est_cycles,
                   meas[i] > 0 ? arena_printf("%.3f", op->est_cycles / meas[i]) : "-");
        }
        printf("  offloaded layers: measured %.0f, estimated %.0f cycles (est/meas %s)\n", tm, te,
               tm > 0 ? arena_printf("%.3f", te / tm) : "-");
    } else {
        printf("  (no layer is offloaded on %s: the comparison checks its CPU kernels)\n", shown(t->name));
    }
    printf("verify: %ld passed, %ld failed\n", pass, fail);
    target_close(t);
    close(lock);
    arena_free_all();
    return fail ? 1 : 0;
}
