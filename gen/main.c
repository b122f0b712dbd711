/* main.c - the htc command line: options, then the pipeline (pipeline.c)
   for compile, report and run (htc run builds and runs the header). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir.h"
#include "npy.h"

extern char **environ;

static const char usage[] =
    "usage: htc <command> MODEL -t TARGET.lua [options]\n"
    "\n"
    "commands:\n"
    "  compile   write one C header:      -o OUT.h [--name NAME]\n"
    "            [--depfile F] (F: a make rule of OUT.h on the model, the target and every Lua file it includes)\n"
    "  run       build and run on the host: --input F [--input F ...] --output F [--output F ...]\n"
    "            (raw bytes, or NumPy: X.npy per tensor, or one .npz for all inputs / outputs)\n"
    "            [--dump DIR] (every layer's output as DIR/<tensor index>.bin)\n"
    "            [--repeat N] (time N inferences)  [--keep DIR] (keep the generated files)\n"
    "            [--check] (AddressSanitizer build; each layer may touch only its planned buffers)\n"
    "            [--cache DIR] (a run whose program and inputs equal a cached run's is not built\n"
    "            again: its printed text and outputs come from DIR; not with --repeat, --dump, --keep)\n"
    "  report    per-layer table: engine and why, storage, MACs, cycles  [--json]\n"
    "            [--svg FILE] (the memory plan over time as a picture)\n"
    "  sweep     MODEL... -t TARGET -D NAME=V1,V2,... : every parameter combination x model,\n"
    "            compile-time results (htc sweep --help)\n"
    "  targets   describe a target file: engines, memories, parameters  (htc targets FILE [-D ...])\n"
    "  verify    MODEL -t TARGET [-n N]: every layer on the target's virtual platform against the\n"
    "            CPU reference on N random inputs; first differing layer and tile, cycles\n"
    "            (htc verify --help)\n"
    "  compile and report: [--stack-cc \"CC FLAGS\"] (repeatable) measure the stack of\n"
    "            name_run compiled by CC (-fstack-usage, -fcallgraph-info) and its flash: header macros\n"
    "            NAME_STACK_SIZE_<CC>, NAME_RAM_SIZE_<CC>, NAME_FLASH_SIZE_<CC> (code + constants),\n"
    "            NAME_CORE_STACK_SIZE_<CC> (each other core of a cluster), and lines in the report\n"
    "\n"
    "options:\n"
    "  -t, --target FILE   target description (targets/cpu.lua, ...)\n"    "  -D NAME=VALUE       set a parameter the target file declares (repeatable; see htc targets FILE)\n"
    "  --help-target       describe the target given with -t, its parameters included\n"
    "  -d PASS             dump the graph after PASS (read, lower, dispatch, plan) to stderr\n"
    "  --cascade           run chains of layers band by band (cascades): the least peak RAM whose\n"
    "                      modelled overhead is within --max-overhead (default 5% of the estimate)\n"
    "  --ram-limit BYTES   cascades: the least overhead that keeps the activations within BYTES\n"
    "                      (default: cascades only when the layer-by-layer arena exceeds the memory)\n"
    "  --max-overhead PCT  with --cascade: the modelled overhead bound, percent of the estimated cycles\n"
    "  --no-cascade        layer by layer, even when the arena exceeds the memory or the placement\n"
    "                      across several data memories spills (default: cascades tried then)\n"
    "  --bind NAME=FILE    ONNX: graph input NAME is a constant read from FILE (raw bytes,\n"
    "                      or a TensorProto if FILE ends in .pb)\n"
    "  --float-fallback    ONNX (the default): QDQ groups onnxruntime computes in float (unfused Conv,\n"
    "                      Add, Mul, AveragePool, Softmax, one-row Gemm/MatMul) are computed in float on\n"
    "                      the CPU as onnxruntime does, a note each; --no-float-fallback refuses them\n"
    "  --shape NAME=DIMS   the shape of graph input NAME, e.g. input_1=1x49x10x1 (repeatable):\n"
    "                      sets its symbolic dimensions (ONNX dim_param, TFLite shape_signature -1),\n"
    "                      which are 1 (ONNX) or the stored shape (TFLite) otherwise, with a note\n"
    "  --version, --help\n"
    "environment: CC (compiler for `htc run`, default cc), HTC_HOME (kernels and htc.h)\n";

#define MAX_REPEAT 1000000000      /* --repeat */
#define MAX_NAME 127                /* --name: characters */

typedef struct {
    const char *cmd, *model, *target, *out, *name, *dump, *keep, *debug, *svg, *depfile, *cache;
    int check, help_target;
    int nstack;
    const char *stack_cc[4];
    const char **inputs, **outputs;     /* --input / --output files, argc at most */
    int ninputs, noutputs, json;
    long repeat;
    TargetDefines defines;              /* -D NAME=VALUE */
    CascadeOptions cascade;             /* --cascade, --ram-limit, --max-overhead, --no-cascade */
    ReadOptions read;                   /* --shape, --bind, --float-fallback */
} Options;

static int is_ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

/* The model's notes, once it has compiled. */
static void notes_print(const Graph *g)
{
    for (int i = 0; i < g->nnotes; i++) fprintf(stderr, "htc: note: %s\n", g->notes[i]);
}

static void parse(Options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->cascade.max_overhead = 0.05;
    o->inputs = arena_alloc(sizeof(char *) * (size_t)(argc + 1));
    o->outputs = arena_alloc(sizeof(char *) * (size_t)(argc + 1));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define VALUE() (i + 1 < argc ? argv[++i] : (die("option %s needs a value", a), ""))
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            printf("htc %s\n", HTC_VERSION);
            exit(0);
        } else if (!strcmp(a, "-t") || !strcmp(a, "--target")) o->target = VALUE();
        else if (!strcmp(a, "-D")) target_define(&o->defines, VALUE());
        else if (!strncmp(a, "-D", 2) && a[2]) target_define(&o->defines, a + 2);
        else if (!strcmp(a, "--help-target")) o->help_target = 1;
        else if (!strcmp(a, "-o")) o->out = VALUE();
        else if (!strcmp(a, "--name")) o->name = VALUE();
        else if (!strcmp(a, "--dump")) o->dump = VALUE();
        else if (!strcmp(a, "--keep")) o->keep = VALUE();
        else if (!strcmp(a, "--cache")) o->cache = VALUE();
        else if (!strcmp(a, "--depfile")) o->depfile = VALUE();
        else if (!strcmp(a, "-d")) {
            o->debug = VALUE();
            if (strcmp(o->debug, "read") && strcmp(o->debug, "lower") && strcmp(o->debug, "dispatch") &&
                strcmp(o->debug, "plan"))
                die("-d '%s': unknown pass (expected read, lower, dispatch or plan)", o->debug);
        }
        else if (!strcmp(a, "--json")) o->json = 1;
        else if (!strcmp(a, "--cascade")) o->cascade.minimise_ram = 1;
        else if (!strcmp(a, "--no-cascade")) o->cascade.off = 1;
        else if (!strcmp(a, "--ram-limit") || !strcmp(a, "--max-overhead")) {
            const char *v = VALUE();
            char *end;
            errno = 0;
            double x = strtod(v, &end);
            if (!*v || *end || errno || !(x >= 0) || x > 1e15)
                die("%s needs a non-negative number, got '%s'", a, v);
            if (a[2] == 'r') {
                if (x < 1 || x != (double)(int64_t)x) die("--ram-limit needs a byte count, got '%s'", v);
                o->cascade.ram_limit = (int64_t)x;
            } else {
                o->cascade.max_overhead = x / 100;
            }
        }
        else if (!strcmp(a, "--check")) o->check = 1;
        else if (!strcmp(a, "--float-fallback")) o->read.float_fallback = 1;
        else if (!strcmp(a, "--no-float-fallback")) o->read.float_fallback = -1;
        else if (!strcmp(a, "--shape")) readopt_shape(&o->read, VALUE());
        else if (!strcmp(a, "--stack-cc")) {
            if (o->nstack == 4) die("at most 4 --stack-cc compilers");
            o->stack_cc[o->nstack++] = VALUE();
        }
        else if (!strcmp(a, "--svg")) o->svg = VALUE();
        else if (!strcmp(a, "--bind")) readopt_bind(&o->read, VALUE());
        else if (!strcmp(a, "--repeat")) {
            const char *v = VALUE();
            char *end;
            errno = 0;
            o->repeat = strtol(v, &end, 10);
            if (!*v || *end || o->repeat < 0) die("--repeat needs a count, got '%s'", v);
            if (errno == ERANGE || o->repeat > MAX_REPEAT)
                die("--repeat %s: out of range (at most %d)", v, MAX_REPEAT);
        } else if (!strcmp(a, "--input")) {
            o->inputs[o->ninputs++] = VALUE();
        } else if (!strcmp(a, "--output")) {
            o->outputs[o->noutputs++] = VALUE();
        } else if (a[0] == '-' && a[1]) die("unknown option '%s' (see htc --help)", a);
        else if (!o->cmd) o->cmd = a;
        else if (!o->model) o->model = a;
        else die("unexpected argument '%s' (see htc --help)", a);
#undef VALUE
    }
    if (o->help_target || (o->cmd && !strcmp(o->cmd, "targets"))) {  /* describe the target, nothing else */
        const char *file = o->help_target ? o->target : o->model;
        if (!file) die("%s: no target file given (htc targets targets/npu.lua)", o->help_target ? "--help-target" : "targets");
        target_describe(stdout, target_load(file, &o->defines));
        exit(0);
    }
    if (!o->cmd) {
        fputs(usage, stderr);
        exit(2);
    }
    if (strcmp(o->cmd, "compile") && strcmp(o->cmd, "run") && strcmp(o->cmd, "report"))
        die("unknown command '%s' (expected compile, run or report)", o->cmd);
    if (!o->model) die("%s: no model file given", o->cmd);
    if (!o->target) die("%s: no target given (-t targets/cpu.lua)", o->cmd);
    if (!o->name) o->name = "model";
    if (!is_ident(o->name)) die("--name '%s' is not a C identifier", o->name);
    if (strlen(o->name) > MAX_NAME) die("--name: %zu characters, at most %d", strlen(o->name), MAX_NAME);
    if (!strcmp(o->cmd, "compile") && !o->out) die("compile: no output file given (-o OUT.h)");
    if (o->out && !*o->out) die("-o: the output file name is empty");
    if (o->svg && !*o->svg) die("--svg: the file name is empty");
    if (o->out) out_check(o->out);
    if (o->depfile && (strcmp(o->cmd, "compile") || !*o->depfile)) die("--depfile: compile only, with a file name");
    if (o->depfile) out_check(o->depfile);
    if (o->svg) out_check(o->svg);
    if (o->cache && (strcmp(o->cmd, "run") || !*o->cache)) die("--cache: run only, with a directory name");
    if (o->cache && (o->repeat || o->dump || o->keep))
        die("--cache: not with %s (a cached run prints its text and writes its outputs, nothing else)",
            o->repeat ? "--repeat (timed anew each run)" : o->dump ? "--dump" : "--keep");
}

/* ---- htc run: build the header with the host compiler and run it ------- */

/* The per-layer table htc run prints after the first inference: with an
   offloaded layer, the device model's cycles per layer (HTC_DEVICE_LAYER
   hook) next to the estimate; CPU layers are not measured (the device
   model's clock counts their estimate: "-" in the measured column). A
   CPU-only target whose cpu has several cores: the table of estimates,
   each layer's cores or why it stays on one. */
static void driver_cycles(FILE *f, const Graph *g, const Target *t)
{
    int offloaded = 0;
    for (int i = 0; i < g->nops; i++) offloaded |= g->ops[i].tile != NULL;
    if (!offloaded && t->engines[0].cores <= 1) {
        fprintf(f, "static int counting;\nstatic void print_cycles(void) {}\n");
        return;
    }
    double ideal = t->engines[0].call_cycles, est = t->engines[0].call_cycles;
    for (int i = 0; i < g->nops; i++) {
        ideal += g->ops[i].tile ? g->ops[i].tile->ideal_cycles : g->ops[i].est_cycles;
        est += g->ops[i].est_cycles;
    }
    fprintf(f, "#define NL %d\nstatic unsigned long long cyc[NL + 1];\nstatic int counting, last;\n"
               "#define HTC_DEVICE_LAYER(l, c) do { int l_ = (l) < 0 ? last : (l); last = l_;"
               " if (counting && l_ >= 0 && l_ < NL) cyc[l_] += (c); } while (0)\n", g->nops);
    fprintf(f, "static const char *const lname[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", op_name(g->ops[i].kind));
    /* names from the target (engines, the target's name) and the dispatch
       reasons are C strings made by esc_c (of what a terminal may show),
       printed with %s: never part of a format */
    fprintf(f, "};\nstatic const char *const lengine[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", esc_c(esc_term(t->engines[g->ops[i].engine].name)));
    fprintf(f, "};\nstatic const char *const lwhy[NL] = {");
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        const char *why = op->reason ? op->reason : "";
        if (op->cores > 1) why = arena_printf("[%d cores by %s] %s", op->cores, split_names[op->split], why);
        else if (op->split_why) why = arena_printf("[%s] %s", op->split_why, why);
        fprintf(f, "%s\"%s\"", i ? ", " : "", esc_c(esc_term(why)));
    }
    fprintf(f, "};\nstatic const char *const target_name = \"%s\";\n", esc_c(esc_term(t->name)));
    fprintf(f, "static const double lest[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s%.0f", i ? ", " : "", g->ops[i].est_cycles);
    fprintf(f, "};\nstatic const char lmeasured[NL] = {");
    for (int i = 0; i < g->nops; i++) fprintf(f, "%s%d", i ? ", " : "", g->ops[i].tile != NULL);
    if (!offloaded) {
        fprintf(f, "};\n"
                   "static void print_cycles(void)\n{\n"
                   "    int i;\n"
                   "    printf(\"htc run: estimated cycles per layer (target %%s, %d cores; the host runs every core's share in turn: not measured)\\n"
                   "  #  op          engine       measured   estimated  why\\n\", target_name);\n"
                   "    for (i = 0; i < NL; i++)\n"
                   "        if (lest[i] > 0) printf(\"%%3d  %%-11s %%-9s %%11s %%11.0f  %%s\\n\", i, lname[i], lengine[i], \"-\", lest[i], lwhy[i]);\n"
                   "    (void)cyc;\n    (void)lmeasured;\n"
                   "    printf(\"total: estimated %.0f cycles = %.3f ms at %g MHz\\n\");\n}\n",
                t->engines[0].cores, est, est / (t->clock_mhz * 1e3), t->clock_mhz);
        return;
    }
    fprintf(f, "};\n"
               "static void print_cycles(void)\n{\n"
               "    unsigned long long tot = 0;\n    int i;\n"
               "    printf(\"htc run: device model cycles per layer (target %%s)\\n"
               "  (CPU layers are not measured: '-'; the total counts their estimate)\\n"
               "  #  op          engine       measured   estimated  why\\n\", target_name);\n"
               "    for (i = 0; i < NL; i++) {\n"
               "        tot += lmeasured[i] ? cyc[i] : (unsigned long long)lest[i];\n"
               "        if (lmeasured[i])\n"
               "            printf(\"%%3d  %%-11s %%-9s %%11llu %%11.0f  %%s\\n\", i, lname[i], lengine[i], cyc[i], lest[i], lwhy[i]);\n"
               "        else if (lest[i] > 0)\n"
               "            printf(\"%%3d  %%-11s %%-9s %%11s %%11.0f  %%s\\n\", i, lname[i], lengine[i], \"-\", lest[i], lwhy[i]);\n"
               "    }\n"
               "    printf(\"total: %%llu cycles = %%.3f ms at %g MHz; ideal %.0f, measured / ideal = %%.2f\\n\", tot,"
               " (double)tot / (%.17g * 1e3), (double)tot / %.17g);\n}\n",
            t->clock_mhz, ideal, t->clock_mhz, ideal > 0 ? ideal : 1.0);
}

/* The access count of a target with several data memories (gen/plan.c's
   model, HTC_MEM_ACCESS): each access is attributed to the arena its
   address falls in (a band buffer's bytes are its tensor's, streamed
   through it), counted in bytes and bytes x the memory's cost; an
   address in no arena is an error. One arena: nothing is counted. */
static void driver_memories(FILE *f, const Target *t, const Plan *p)
{
    fprintf(f, "#define NARENAS %d\nstatic const unsigned char *arena_base[NARENAS];\nstatic size_t arena_len[NARENAS];\n",
            p->narenas);
    if (p->narenas <= 1) {
        fprintf(f, "static void print_memories(void) {}\n");
        return;
    }
    fprintf(f, "static unsigned long long mem_bytes[NARENAS];\nstatic const double mem_cost[NARENAS] = {");
    for (int k = 0; k < p->narenas; k++) fprintf(f, "%s%.17g", k ? ", " : "", t->memories[p->arenas[k].memory].cost);
    fprintf(f, "};\nstatic const char *const mem_name[NARENAS] = {");
    for (int k = 0; k < p->narenas; k++) fprintf(f, "%s\"%s\"", k ? ", " : "", esc_c(t->memories[p->arenas[k].memory].name));
    fprintf(f, "};\n"
               "static void mem_access(int layer, const void *d, size_t n)\n{\n"
               "    int k;\n    const unsigned char *c = (const unsigned char *)d;\n    if (!counting) return;\n"
               "    for (k = 0; k < NARENAS; k++)\n"
               "        if (c >= arena_base[k] && c < arena_base[k] + arena_len[k]) { mem_bytes[k] += n; return; }\n"
               "    fprintf(stderr, \"htc: error: layer %%d accesses %%zu bytes outside every arena\\n\", layer, n);\n    exit(1);\n}\n"
               "#define HTC_MEM_ACCESS(m, l, d, n) mem_access(l, d, n)\n"
               "static void print_memories(void)\n{\n    int k;\n    double tot = 0;\n"
               "    printf(\"htc run: memory accesses by address (each layer reads its inputs and writes its outputs once)\\n\");\n"
               "    for (k = 0; k < NARENAS; k++) {\n"
               "        printf(\"  %%-8s %%12llu bytes x %%g = %%.0f\\n\", mem_name[k], mem_bytes[k], mem_cost[k], (double)mem_bytes[k] * mem_cost[k]);\n"
               "        tot += (double)mem_bytes[k] * mem_cost[k];\n    }\n"
               "    printf(\"access cost: %%.0f\\n\", tot);\n}\n");
}

static void write_driver(const char *path, const Graph *g, const Target *t, const Plan *p, const char *name, int check)
{
    char *up = arena_strdup(name);
    for (char *c = up; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    FILE *f = out_open(path);
    fprintf(f, "/* driver for htc run: inputs from files, outputs to files, optional dumps */\n"
               "#define _POSIX_C_SOURCE 200809L\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
               "#include <unistd.h>\n"
               "static const char *dump_dir;\n"
               "static void dump(int idx, const void *d, size_t n)\n{\n"
               "    char p[4096], t[4200];\n    FILE *f;\n    int fd;\n    if (!dump_dir || idx < 0) return;\n"
               "    snprintf(p, sizeof p, \"%%s/%%d.bin\", dump_dir, idx);\n"
               "    snprintf(t, sizeof t, \"%%s.tmp.XXXXXX\", p);\n"
               "    fd = mkstemp(t);\n    f = fd < 0 ? NULL : fdopen(fd, \"wb\");\n"
               "    if (!f || fwrite(d, 1, n, f) != n || fclose(f) || rename(t, p)) {\n"
               "        if (fd >= 0) remove(t);\n"
               "        fprintf(stderr, \"htc: error: cannot write %%s\\n\", p);\n        exit(1);\n    }\n}\n"
               "#define HTC_TRACE(m, l, idx, d, n) dump(idx, d, n)\n");
    if (check)   /* every layer sees only its own buffers; ASan traps the rest */
        fprintf(f, "#include <sanitizer/asan_interface.h>\n"
                   "#define HTC_CHECK_BEGIN(m, l, a, n) ASAN_POISON_MEMORY_REGION(a, n)\n"
                   "#define HTC_CHECK_BUFFER(m, l, p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)\n"
                   "#define HTC_CHECK_END(m, a, n) ASAN_UNPOISON_MEMORY_REGION(a, n)\n");
    driver_cycles(f, g, t);
    driver_memories(f, t, p);
    {
        int offloaded = 0;
        for (int i = 0; i < g->nops; i++) offloaded |= g->ops[i].tile != NULL;
        energy_driver(f, g, t, p, offloaded);
    }
    fprintf(f, "#define %s_IMPLEMENTATION\n#include \"model.h\"\n", up);
    fprintf(f, "static const size_t in_size[] = {");
    for (int k = 0; k < g->ninputs; k++) fprintf(f, "%s_INPUT_SIZE_%d, ", up, k);
    fprintf(f, "0};\nstatic const size_t out_size[] = {");
    for (int k = 0; k < g->noutputs; k++) fprintf(f, "%s_OUTPUT_SIZE_%d, ", up, k);
    fprintf(f, "0};\n#define NI %d\n#define NO %d\n", g->ninputs, g->noutputs);
    /* the arenas: one, or one per data memory (their bases and sizes for the access count) */
    const char *alloc = "", *args = "", *frees = "";
    for (int k = 0; k < p->narenas; k++) {
        const char *mac = arena_printf("%s_ARENA", up);
        if (p->narenas > 1) {
            char *m = arena_strdup(t->memories[p->arenas[k].memory].name);
            for (char *c = m; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
            mac = arena_printf("%s_ARENA_%s", up, m);
        }
        alloc = arena_printf("%s    if (posix_memalign(&arena[%d], %s_ALIGN < sizeof(void *) ? sizeof(void *) : %s_ALIGN, %s_SIZE)) return 2;\n"
                             "    arena_base[%d] = (const unsigned char *)arena[%d];\n    arena_len[%d] = %s_SIZE;\n",
                             alloc, k, mac, mac, mac, k, k, k, mac);
        args = arena_printf("%s, arena[%d]", args, k);
        frees = arena_printf("%s    free(arena[%d]);\n", frees, k);
    }
    fprintf(f,
            "static void *load(const char *p, size_t n)\n{\n"
            "    void *b = calloc(1, n ? n : 1);\n    FILE *f = fopen(p, \"rb\");\n"
            "    if (!b || !f || fread(b, 1, n, f) != n) { fprintf(stderr, \"htc: error: %%s: cannot read %%zu bytes\\n\", p, n); exit(1); }\n"
            "    fclose(f);\n    return b;\n}\n"
            "int main(int argc, char **argv)\n{\n"
            "    long repeat = atol(argv[1]), r;\n    const void *in[NI];\n    void *out[NO];\n    int k, rc;\n"
            "    void *arena[NARENAS];\n"
            "    if (argc != 3 + NI + NO) return 2;\n%s"
            "    dump_dir = strcmp(argv[2], \"-\") ? argv[2] : NULL;\n"
            "    for (k = 0; k < NI; k++) in[k] = load(argv[3 + k], in_size[k]);\n"
            "    for (k = 0; k < NO; k++) out[k] = calloc(1, out_size[k] ? out_size[k] : 1);\n"
            "    counting = 1;\n"
            "    rc = %s_run_multi(in, out%s);\n"
            "    counting = 0;\n"
            "    if (rc) { fprintf(stderr, \"htc: error: %s_run_multi returned %%d\\n\", rc); return 1; }\n"
            "    print_cycles();\n"
            "    print_memories();\n"
            "    print_energy();\n"
            "    dump_dir = NULL;\n"
            "    if (repeat > 0) {\n"
            "        struct timespec a, b;\n        double us;\n"
            "        clock_gettime(CLOCK_MONOTONIC, &a);\n"
            "        for (r = 0; r < repeat; r++) rc |= %s_run_multi(in, out%s);\n"
            "        clock_gettime(CLOCK_MONOTONIC, &b);\n"
            "        us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / (double)repeat;\n"
            "        printf(\"htc run: %%ld inferences, %%.3f us per inference\\n\", repeat, us);\n"
            "    }\n"
            "    for (k = 0; k < NO; k++) {\n"
            "        FILE *f = fopen(argv[3 + NI + k], \"wb\");\n"
            "        if (!f || fwrite(out[k], 1, out_size[k], f) != out_size[k] || fclose(f)) { fprintf(stderr, \"htc: error: cannot write %%s\\n\", argv[3 + NI + k]); return 1; }\n"
            "    }\n"
            "    for (k = 0; k < NI; k++) free((void *)in[k]);\n"
            "    for (k = 0; k < NO; k++) free(out[k]);\n"
            "%s    return rc;\n}\n",
            alloc, name, args, name, name, args, frees);
    out_commit(f);
}

/* --dump / --keep DIR: a directory (created if missing), never a file. */
static void make_dir(const char *d, const char *opt)
{
    struct stat st;
    if (lstat(d, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) die("%s %s: not a directory", opt, d);
    } else if (mkdir(d, 0777) != 0) {
        die("%s %s: cannot create: %s", opt, d, strerror(errno));
    }
}

/* --keep DIR: every regular file of htc run's private scratch directory
   copied into DIR, each through a temporary file created there (O_EXCL)
   and a rename, which replaces a name and never follows it: a symbolic
   link planted in DIR is refused (out_check), never written through, and
   nothing else in DIR is touched. The program and its compiler only ever
   write in the scratch directory. */
static void keep_files(const char *from, const char *to)
{
    DIR *d = opendir(from);
    if (!d) die("--keep: cannot read %s: %s", from, strerror(errno));
    const char *names[64];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 64;) {
        struct stat st;
        const char *src = arena_printf("%s/%s", from, e->d_name);
        if (e->d_name[0] == '.' || lstat(src, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        names[n++] = arena_strdup(e->d_name);
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        struct stat st;
        const char *src = arena_printf("%s/%s", from, names[i]);
        if (lstat(src, &st) != 0) continue;
        size_t len;
        const uint8_t *data = read_file(src, &len);
        FILE *f = out_open(arena_printf("%s/%s", to, names[i]));
        if (len) fwrite(data, 1, len, f);
        if (st.st_mode & S_IXUSR) {         /* the program stays executable */
            mode_t um = umask(0);
            umask(um);
            fchmod(fileno(f), 0777 & ~um);
        }
        out_commit(f);
    }
}

static void run(const Options *o, Graph *g, Target *t, Plan *p, const EmitOptions *eo)
{
    int numpy = 0;
    for (int i = 0; i < o->ninputs; i++) numpy |= npy_is_numpy(o->inputs[i]);
    for (int i = 0; i < o->noutputs; i++) numpy |= npy_is_numpy(o->outputs[i]);
    if (!numpy && o->ninputs != g->ninputs)
        die("%s: the model has %d input(s); give as many --input files (got %d)", g->path, g->ninputs, o->ninputs);
    if (!numpy && o->noutputs != g->noutputs)
        die("%s: the model has %d output(s); give as many --output files (got %d)", g->path, g->noutputs, o->noutputs);
    for (int i = 0; i < o->ninputs && !numpy; i++) {
        struct stat st;
        size_t want = tensor_bytes(&g->tensors[g->inputs[i]]);
        if (stat(o->inputs[i], &st) != 0) die("%s: cannot open: %s", o->inputs[i], strerror(errno));
        if ((size_t)st.st_size != want)
            die("%s: input %d needs %zu bytes, the file has %lld", o->inputs[i], i, want, (long long)st.st_size);
    }
    for (int i = 0; i < o->noutputs; i++) out_check(o->outputs[i]);     /* before any work */
    if (o->dump) make_dir(o->dump, "--dump");
    if (o->keep) make_dir(o->keep, "--keep");
    /* removed at exit, on error and on a signal; --keep copies it out */
    const char *dir = scratch_dir("htc-run");
    /* NumPy inputs and outputs go through raw files in the scratch directory */
    const char *const *ins = o->inputs, *const *outs0 = o->outputs;
    if (numpy) {
        ins = npy_run_inputs(g, o->inputs, o->ninputs, dir);
        outs0 = npy_run_outputs(g, o->outputs, o->noutputs, dir);
    }
    /* the program writes every output into the scratch directory; htc then
       puts each in place through a temporary file and a rename */
    const char **outs = arena_alloc(sizeof(char *) * (size_t)(g->noutputs + 1));
    for (int i = 0; i < g->noutputs; i++)
        outs[i] = outs0[i] == o->outputs[i] ? arena_printf("%s/raw%d.bin", dir, i) : outs0[i];
    char *hdr = arena_printf("%s/model.h", dir), *drv = arena_printf("%s/driver.c", dir);
    char *exe = arena_printf("%s/run", dir);
    FILE *f = out_open(hdr);
    EmitOptions e = *eo;
    e.path = hdr;
    /* the constants as a file the assembler includes, not C text (a big
       model builds in a fraction of the time); --keep keeps a header that
       stands alone, as compile writes it; so does --cache, whose key is
       the header's text: constants included, no scratch path) */
    if (!o->keep && !o->cache) e.blob = arena_printf("%s/consts.bin", dir);
    e.host = 1;
    emit(f, g, t, p, &e);
    out_commit(f);
    write_driver(drv, g, t, p, e.name, o->check);

    const char *cc = getenv("CC");
    if (!cc || !*cc) cc = "cc";
    char *cargv[] = {(char *)cc, "-O2", "-std=c99", "-Wall", "-o", exe, drv, NULL, NULL, NULL};
    if (o->check) {
        cargv[6] = "-fsanitize=address";
        cargv[7] = "-fno-omit-frame-pointer";
        cargv[8] = drv;
    }
    RunCache *cache = o->cache ? rcache_open(o->cache, cargv, dir, hdr, drv, ins, g->ninputs, g->noutputs) : NULL;
    if (cache && rcache_get(cache, outs, g->noutputs)) goto outputs;
    int ccrc = cc_run(cargv, arena_printf("%s/cc.err", dir));
    if (o->keep) keep_files(dir, o->keep);
    if (ccrc) cc_fail(cargv, arena_printf("%s/cc.err", dir), hdr, ccrc);

    char rep[32];
    int rc;
    snprintf(rep, sizeof rep, "%ld", o->repeat);
    char **rargv = arena_alloc(sizeof(char *) * (size_t)(4 + g->ninputs + g->noutputs));
    int n = 0;
    rargv[n++] = exe;
    rargv[n++] = rep;
    rargv[n++] = (char *)(o->dump ? o->dump : "-");
    for (int i = 0; i < g->ninputs; i++) rargv[n++] = (char *)ins[i];
    for (int i = 0; i < g->noutputs; i++) rargv[n++] = (char *)outs[i];
    rargv[n] = NULL;
    fflush(stdout);
    if (cache) {            /* the program's text to a file: printed, then stored with the outputs */
        const char *text = arena_printf("%s/stdout.txt", dir);
        int saved = dup(1), fd = open(text, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (saved < 0 || fd < 0) die("%s: cannot create: %s", text, strerror(errno));
        dup2(fd, 1);
        close(fd);
        rc = run_command(rargv, 0);
        dup2(saved, 1);
        close(saved);
        if (rc) die("%s: the generated program failed (exit %d)", g->path, rc);
        size_t n;
        const uint8_t *t = read_file(text, &n);
        fwrite(t, 1, n, stdout);
        fflush(stdout);
        rcache_put(cache, text, outs, g->noutputs);
        goto outputs;
    }
    rc = run_command(rargv, 0);
    if (o->keep) keep_files(dir, o->keep);
    if (rc) die("%s: the generated program failed (exit %d)", g->path, rc);
outputs:
    for (int i = 0; i < g->noutputs; i++)
        if (outs0[i] == o->outputs[i]) out_copy(outs[i], o->outputs[i]);
    if (numpy) npy_run_finish(g, o->outputs, o->noutputs, outs0);
}

/* A path in a make rule: spaces, '#' and '$' escaped (make and Ninja read
   this form); absolute when it exists, so that a build tool finds it from
   any directory. */
static void dep_path(FILE *f, const char *path)
{
    char *abs = realpath(path, NULL);
    for (const char *c = abs ? abs : path; *c; c++) {
        if (*c == ' ' || *c == '#' || *c == '\\') fputc('\\', f);
        if (*c == '$') fputc('$', f);
        fputc(*c, f);
    }
    free(abs);
}

/* --depfile FILE: "OUT.h: MODEL TARGET INCLUDED..." -- the files whose
   change must regenerate the header beyond htc and its kernels (a build
   tool's depfile: CMake's add_custom_command DEPFILE, make's include). */
static void depfile(const Options *o)
{
    const char *const *inc;
    int n = target_includes(&inc);
    FILE *f = out_open(o->depfile);
    dep_path(f, o->out);
    fputs(":", f);
    const char *files[2] = {o->model, o->target};
    for (int i = 0; i < 2 + n; i++) {
        fputs(" \\\n  ", f);
        dep_path(f, i < 2 ? files[i] : inc[i - 2]);
    }
    fputc('\n', f);
    out_commit(f);
}

int main(int argc, char **argv)
{
    Options o;
    signals_init();
    if (argc > 1 && !strcmp(argv[1], "sweep")) return sweep_main(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "verify")) return verify_main(argc, argv);
    parse(&o, argc, argv);

    npy_hint_files(o.inputs, o.ninputs);   /* QuantLib graphs: input types from the data */
    PipelineOptions po = {.model = o.model, .target = o.target, .read = o.read, .defines = &o.defines, .debug = o.debug,
                          .cascade = o.cascade, .nstack = o.nstack, .emit = {o.name, o.out},
                          .write_header = !strcmp(o.cmd, "compile")};
    memcpy(po.stack_cc, o.stack_cc, sizeof po.stack_cc);
    Graph *g;
    Target *t;
    Plan *p = pipeline(&po, &g, &t);        /* compile: the header written */
    if (!strcmp(o.cmd, "run") && onnx_u8s8_note())
        graph_note(g, "%s: %s", g->path, onnx_u8s8_note());
    notes_print(g);
    if (!strcmp(o.cmd, "report")) {
        if (o.svg) {
            FILE *f = out_open(o.svg);
            report_svg(f, g, t, p);
            out_commit(f);
        }
        report_print(stdout, g, t, p, o.json);
    } else if (!strcmp(o.cmd, "run")) {
        run(&o, g, t, p, &po.emit);
    }
    if (o.depfile) depfile(&o);
    target_close(t);
    arena_free_all();
    return 0;
}
