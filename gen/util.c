/* util.c - arena allocator, one-line errors, atomic output files, and the
   small tables (dtype and op names) every pass shares. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir.h"

extern char **environ;

/* ---- arena: big blocks, freed together at exit -------------------------- */

typedef struct Block {
    struct Block *next;
    size_t used, cap;
    max_align_t data[];
} Block;

static Block *blocks;

void *arena_alloc(size_t n)
{
    Block *b = blocks;
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!b || b->cap - b->used < n) {
        size_t cap = n > (1u << 20) ? n : (1u << 20);
        b = calloc(1, sizeof(Block) + cap);
        if (!b) {
            fprintf(stderr, "htc: error: out of memory\n");
            exit(1);
        }
        b->cap = cap;
        b->next = blocks;
        blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

char *arena_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(arena_alloc(n), s, n);
}

char *arena_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = arena_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void arena_free_all(void)
{
    while (blocks) {
        Block *b = blocks->next;
        free(blocks);
        blocks = b;
    }
}

/* ---- errors and atomic output -------------------------------------------- */

#define MAX_OUT 8
static char *pending[MAX_OUT];          /* tmp files not yet renamed */
static char *pending_final[MAX_OUT];
static FILE *pending_f[MAX_OUT];

static void remove_pending(void)
{
    for (int i = 0; i < MAX_OUT; i++)
        if (pending[i]) {
            if (pending_f[i]) fclose(pending_f[i]);
            remove(pending[i]);
            free(pending[i]);
            free(pending_final[i]);
            pending[i] = NULL;
        }
}

void die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("htc: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    remove_pending();
    exit(1);
}

void warn(const char *fmt, ...)
{
    va_list ap;
    fputs("htc: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

FILE *out_open(const char *path)
{
    int i;
    for (i = 0; i < MAX_OUT && pending[i]; i++)
        ;
    if (i == MAX_OUT) die("too many output files");
    size_t n = strlen(path);
    pending[i] = malloc(n + 5);
    pending_final[i] = malloc(n + 1);
    if (!pending[i] || !pending_final[i]) die("out of memory");
    memcpy(pending_final[i], path, n + 1);
    snprintf(pending[i], n + 5, "%s.tmp", path);
    FILE *f = fopen(pending[i], "wb");
    if (!f) {
        free(pending[i]);
        free(pending_final[i]);
        pending[i] = NULL;
        die("%s: cannot write: %s", path, strerror(errno));
    }
    pending_f[i] = f;
    return f;
}

void out_commit(FILE *f)
{
    for (int i = 0; i < MAX_OUT; i++)
        if (pending[i] && pending_f[i] == f) {
            pending_f[i] = NULL;
            if (ferror(f) | fclose(f)) die("%s: write failed", pending_final[i]);
            if (rename(pending[i], pending_final[i]) != 0)
                die("%s: cannot rename: %s", pending_final[i], strerror(errno));
            free(pending[i]);
            free(pending_final[i]);
            pending[i] = NULL;
            return;
        }
    die("internal: out_commit on unknown file");
}

uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) die("%s: out of memory", path);
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    if (ferror(f)) die("%s: read error", path);
    fclose(f);
    uint8_t *out = arena_alloc(n + 1);
    memcpy(out, buf, n);
    free(buf);
    *len = n;
    return out;
}

/* ---- child processes and their scratch directories ------------------------- */

static int rm_entry(const char *p, const struct stat *s, int flag, struct FTW *ftw)
{
    (void)s; (void)flag; (void)ftw;
    return remove(p);
}

void remove_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* Run argv (PATH lookup) and wait; its stdout goes to /dev/null when quiet.
   Returns the exit status, or 128 + signal. */
int run_command(char *const argv[], int quiet)
{
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (quiet) posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("cannot run %s: %s", argv[0], strerror(rc));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

/* ---- shared tables --------------------------------------------------------- */

size_t dtype_size(DType t)
{
    switch (t) {
    case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
    case DT_INT16: return 2;
    case DT_INT32: case DT_FLOAT32: return 4;
    case DT_INT64: return 8;
    }
    return 1;
}

const char *dtype_name(DType t)
{
    static const char *n[] = {"int8", "uint8", "int16", "int32", "int64", "float32", "bool"};
    return n[t];
}

static const char *op_names[OP_COUNT] = {
    "conv2d", "dwconv2d", "fc", "add", "mul", "avgpool", "maxpool", "mean",
    "pad", "concat", "reshape", "softmax", "logistic", "quantize",
    "dequantize", "requantize",
    "qconv2d", "qfc", "qadd", "qgap", "lut", "qquantize", "qdequantize",
    "transpose", "qmul", "qavgpool", "qsoftmax", "fconv2d", "fadd", "fmul",
};

const char *op_name(OpKind k) { return op_names[k]; }

const char *requant_name(RequantKind k)
{
    static const char *n[] = {"none", "tflite", "float", "shift"};
    return n[k];
}

int64_t tensor_numel(const Tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= t->shape[i];
    return n;
}

size_t tensor_bytes(const Tensor *t) { return (size_t)tensor_numel(t) * dtype_size(t->type); }

int tensor_root(const Graph *g, int t, int64_t *off)
{
    int64_t o = 0;
    while (g->tensors[t].alias_of >= 0) {
        o += g->tensors[t].alias_offset;
        t = g->tensors[t].alias_of;
    }
    if (off) *off = o;
    return t;
}

/* Arrays grow by doubling; old storage stays in the arena until exit. */
int graph_add_tensor(Graph *g)
{
    int n = g->ntensors;
    if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) {  /* full: grow */
        int cap = n ? n * 2 : 16;
        Tensor *t = arena_alloc(sizeof(Tensor) * (size_t)cap);
        if (n) memcpy(t, g->tensors, sizeof(Tensor) * (size_t)n);
        g->tensors = t;
    }
    Tensor *t = &g->tensors[n];
    memset(t, 0, sizeof *t);
    t->alias_of = -1;
    t->producer = -1;
    t->offset = -1;
    t->src_index = -1;
    g->ntensors = n + 1;
    return n;
}

int graph_add_op(Graph *g)
{
    int n = g->nops;
    if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) {
        int cap = n ? n * 2 : 16;
        Op *o = arena_alloc(sizeof(Op) * (size_t)cap);
        if (n) memcpy(o, g->ops, sizeof(Op) * (size_t)n);
        g->ops = o;
    }
    Op *o = &g->ops[n];
    memset(o, 0, sizeof *o);
    for (int i = 0; i < OP_MAX_IO; i++) o->in[i] = o->out[i] = -1;
    o->engine = -1;
    o->src_index = -1;
    g->nops = n + 1;
    return n;
}
