/* stack.c - the stack a generated header needs, measured, not guessed:
   the compiler's -fstack-usage frames along its -fcallgraph-info graph;
   and its flash: the code and constant bytes of the same object. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir.h"

typedef struct {
    char *title;
    int64_t bytes;
    int bounded;                /* "static" or "bounded" frame */
    int nout, cap, *out;        /* callees */
    int64_t memo;               /* deepest path from here, -1 unknown */
    int busy;
} Node;

static Node *nodes;
static int nnodes, capnodes;

static int node(const char *title)
{
    for (int i = 0; i < nnodes; i++)
        if (!strcmp(nodes[i].title, title)) return i;
    if (nnodes == capnodes) {
        capnodes = capnodes ? capnodes * 2 : 64;
        Node *n = arena_alloc(sizeof(Node) * (size_t)capnodes);
        if (nnodes) memcpy(n, nodes, sizeof(Node) * (size_t)nnodes);
        nodes = n;
    }
    Node *n = &nodes[nnodes];
    memset(n, 0, sizeof *n);
    n->title = arena_strdup(title);
    n->memo = -1;
    n->bounded = 1;
    return nnodes++;
}

/* The value of `key: "..."` in a VCG line, or NULL. */
static char *field(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    if (!p) return NULL;
    p = strchr(p + strlen(key), '"');
    if (!p) return NULL;
    const char *q = strchr(p + 1, '"');
    if (!q) return NULL;
    return arena_printf("%.*s", (int)(q - p - 1), p + 1);
}

/* Deepest stack from node i: its frame plus the deepest callee. Recursion
   (never in generated code) would make the depth unbounded: -2. */
static int64_t deepest(int i, int *unbounded)
{
    Node *n = &nodes[i];
    if (n->memo >= 0) return n->memo;
    if (n->busy) {
        *unbounded = 1;
        return 0;
    }
    n->busy = 1;
    int64_t best = 0;
    for (int k = 0; k < n->nout; k++) {
        int64_t d = deepest(n->out[k], unbounded);
        if (d > best) best = d;
    }
    n->busy = 0;
    if (!n->bounded) *unbounded = 1;
    n->memo = n->bytes + best;
    return n->memo;
}

/* A multi-core header's layer function (name__layer<N>_par, or
   name__layer<N>_band for a band of L1 tiles; maybe with gcc's
   ".constprop.0"-style suffix) as a callgraph node's title
   ("unit.c:name__layer3_par" for a static function). */
static int layer_fn(const char *title, const char *name)
{
    const char *c = strrchr(title, ':');
    const char *f = c ? c + 1 : title;
    size_t n = strlen(name);
    if (strncmp(f, name, n) || strncmp(f + n, "__layer", 7)) return 0;
    const char *d = f + n + 7;
    if (!isdigit((unsigned char)*d)) return 0;
    while (isdigit((unsigned char)*d)) d++;
    if (strncmp(d, "_band", 5) && strncmp(d, "_par", 4)) return 0;
    d += d[1] == 'b' ? 5 : 4;
    return *d == 0 || *d == '.';
}

static uint64_t rd(const unsigned char *b, int bytes, int be)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)b[be ? bytes - 1 - i : i] << (8 * i);
    return v;
}

/* The allocated sections of an ELF relocatable object: executable (code),
   read-only (constants), initialised writable (data: flash holds their
   initial values; .bss is not counted). 0, or -1 when it is not ELF. */
static int elf_sizes(const unsigned char *b, size_t n, int64_t *code, int64_t *consts, int64_t *data)
{
    *code = *consts = *data = 0;
    if (n < 64 || memcmp(b, "\177ELF", 4) || (b[4] != 1 && b[4] != 2) || (b[5] != 1 && b[5] != 2)) return -1;
    const int w = b[4] == 2 ? 8 : 4, be = b[5] == 2;
    const uint64_t shoff = rd(b + (w == 8 ? 0x28 : 0x20), w, be);
    const uint64_t shentsize = rd(b + (w == 8 ? 0x3a : 0x2e), 2, be), shnum = rd(b + (w == 8 ? 0x3c : 0x30), 2, be);
    if (shentsize < (uint64_t)(w == 8 ? 64 : 40) || shoff > n || shnum > (n - shoff) / shentsize) return -1;
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *h = b + shoff + i * shentsize;
        const uint64_t type = rd(h + 4, 4, be), flags = rd(h + 8, w, be), size = rd(h + (w == 8 ? 32 : 20), w, be);
        if (!(flags & 2) || type == 8) continue;            /* not SHF_ALLOC, or SHT_NOBITS */
        if (flags & 4) *code += (int64_t)size;              /* SHF_EXECINSTR */
        else if (flags & 1) *data += (int64_t)size;         /* SHF_WRITE */
        else *consts += (int64_t)size;
    }
    return 0;
}

/* Compile the header with the compiler command line p->stack_cc[k]
   (compiler and flags) and fill p's figures for it: stack_bytes, the
   deepest stack below name_run on the calling core (with a layer
   function's share, run inside the fork hook); stack_core, the deepest
   layer function (name__layerN_par, name__layerN_band: what every other core runs, besides
   the firmware's own hook); code_bytes, const_bytes, data_bytes of the
   object (the flash it needs: code + constants + initialised data). The
   fork hook is an external function in that compile, so the layer
   functions stay functions of their own; its own frames are the
   firmware's. */
void stack_measure(Graph *g, Target *t, Plan *p, const EmitOptions *eo, int k)
{
    const char *cc = p->stack_cc[k];
    const char *dir = scratch_dir("htc-stack");   /* removed on error and on a signal too */
    char *hdr = arena_printf("%s/model.h", dir), *src = arena_printf("%s/unit.c", dir);
    FILE *f = out_open(hdr);
    emit(f, g, t, p, eo);
    out_commit(f);
    char up[128];
    size_t i;
    for (i = 0; eo->name[i] && i < sizeof up - 1; i++)
        up[i] = (char)(eo->name[i] >= 'a' && eo->name[i] <= 'z' ? eo->name[i] - 32 : eo->name[i]);
    up[i] = 0;
    f = out_open(src);
    fprintf(f, "void htc_stack_fork(void (*fn)(void *, int, int), void *ctx, int ncores);\n"
               "#define HTC_PAR_RUN(fn, ctx, ncores) htc_stack_fork((fn), (ctx), (ncores))\n"
               "#define %s_IMPLEMENTATION\n#include \"model.h\"\n", up);
    out_commit(f);
    /* cc is split on spaces: "arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb" */
    char *words = arena_strdup(cc), *argv[64];
    int n = 0;
    for (char *w = strtok(words, " "); w && n < 52; w = strtok(NULL, " ")) argv[n++] = w;
    if (n == 0) die("--stack-cc needs a compiler");
    int has_opt = 0;
    for (int k = 1; k < n; k++) has_opt |= argv[k][0] == '-' && argv[k][1] == 'O';
    if (!has_opt) argv[n++] = "-O2";
    argv[n++] = "-std=c99";
    argv[n++] = "-fstack-usage";
    argv[n++] = "-fcallgraph-info=su";
    argv[n++] = "-c";
    argv[n++] = src;
    argv[n++] = "-o";
    argv[n++] = arena_printf("%s/unit.o", dir);
    argv[n] = NULL;
    char *cwd = getcwd(NULL, 0);
    if (chdir(dir) != 0) die("%s: %s", dir, strerror(errno));
    int rc = run_command(argv, 1);
    if (chdir(cwd) != 0) die("%s: %s", cwd, strerror(errno));
    free(cwd);
    if (rc != 0) die("--stack-cc '%s': the compiler failed on the generated header (exit %d)", cc, rc);

    size_t len;
    unsigned char *obj = read_file(arena_printf("%s/unit.o", dir), &len);
    if (elf_sizes(obj, len, &p->code_bytes[k], &p->const_bytes[k], &p->data_bytes[k]))
        p->code_bytes[k] = p->const_bytes[k] = p->data_bytes[k] = -1;     /* not ELF: no flash figure */
    char *ci = (char *)read_file(arena_printf("%s/unit.ci", dir), &len);
    ci[len] = 0;
    nnodes = 0;
    for (char *line = strtok(ci, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "node:", 5)) {
            char *title = field(line, "title:"), *label = field(line, "label:");
            if (!title) continue;
            int k = node(title);
            Node *nd = &nodes[k];
            char *b = label ? strstr(label, " bytes (") : NULL;
            if (b) {
                char *s = b;
                while (s > label && s[-1] >= '0' && s[-1] <= '9') s--;
                nd->bytes = strtoll(s, NULL, 10);
                /* "dynamic,bounded": gcc gives the bound (e.g. a realigned
                   frame for AVX2 locals); plain "dynamic" has none */
                nd->bounded = !strstr(b, "dynamic") || strstr(b, "bounded");
            }
        } else if (!strncmp(line, "edge:", 5)) {
            char *from = field(line, "sourcename:"), *to = field(line, "targetname:");
            if (!from || !to) continue;
            int a = node(from), c = node(to);
            Node *nd = &nodes[a];
            if (nd->nout == nd->cap) {
                nd->cap = nd->cap ? nd->cap * 2 : 8;
                int *o = arena_alloc(sizeof(int) * (size_t)nd->cap);
                if (nd->nout) memcpy(o, nd->out, sizeof(int) * (size_t)nd->nout);
                nd->out = o;
            }
            nd->out[nd->nout++] = c;
        }
    }
    scratch_remove(dir);

    char *entry = arena_printf("%s_run", eo->name);
    int root = -1;
    for (int k = 0; k < nnodes; k++)
        if (!strcmp(nodes[k].title, entry)) root = k;
    if (root < 0) die("--stack-cc '%s': no %s in the call graph", cc, entry);
    int unbounded = 0;
    int64_t d = deepest(root, &unbounded), layer = 0;
    for (int q = 0; q < nnodes; q++)
        if (layer_fn(nodes[q].title, eo->name)) {
            int64_t l = deepest(q, &unbounded);
            if (l > layer) layer = l;
        }
    if (unbounded) die("--stack-cc '%s': the stack of %s is not bounded (dynamic frame or recursion)", cc, entry);
    p->stack_bytes[k] = d + layer;
    p->stack_core[k] = layer;
}
