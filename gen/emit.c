/* emit.c - writes the one stb-style header: API, runtime core, kernels,
   constant data, parameter blocks and the run function in layer order. */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir.h"
#include "quant.h"

static FILE *F;
static const char *N;           /* lower-case prefix, e.g. "kws" */
static char *NU;                /* upper-case prefix, e.g. "KWS" */
static const Plan *P;           /* the plan being emitted */
static void upper(const char *s, char *d);
static const Target *T;
static unsigned HISA;       /* the instruction sets whose paths the header keeps (header_isa) */


/* ---- fast number lists (weights dominate the header) ---------------------- */

static char buf[1 << 16];
static size_t blen;

static void flush(void)
{
    fwrite(buf, 1, blen, F);
    blen = 0;
}

static void put_int(int64_t v, int col)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    do tmp[n++] = (char)('0' + u % 10); while (u /= 10);
    if (blen + 32 > sizeof buf) flush();
    if (col) buf[blen++] = col == 1 ? '\n' : ' ';
    if (v < 0) buf[blen++] = '-';
    while (n) buf[blen++] = tmp[--n];
    buf[blen++] = ',';
}

/* Values of a constant tensor as a C initializer list, 16 or 32 a line. */
static void put_values(const uint8_t *d, DType ty, int64_t n)
{
    int per = ty == DT_INT8 || ty == DT_UINT8 ? 32 : 12;
    if (ty == DT_UINT64) {      /* unsigned long long constants: every value fits */
        for (int64_t i = 0; i < n; i++) {
            uint64_t x;
            memcpy(&x, d + 8 * i, 8);
            if (blen + 40 > sizeof buf) flush();
            blen += (size_t)snprintf(buf + blen, sizeof buf - blen, "%s%lluull,", i % 8 == 0 ? "\n" : " ",
                                     (unsigned long long)x);
        }
        flush();
        return;
    }
    if (ty == DT_FLOAT32) {     /* 9 significant digits: every finite float exactly (checked in lower.c) */
        for (int64_t i = 0; i < n; i++) {
            float x;
            memcpy(&x, d + 4 * i, 4);
            if (blen + 40 > sizeof buf) flush();
            blen += (size_t)snprintf(buf + blen, sizeof buf - blen, "%s%.8ef,", i % 8 == 0 ? "\n" : " ", (double)x);
        }
        flush();
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t v;
        switch (ty) {
        case DT_INT8: v = (int8_t)d[i]; break;
        case DT_UINT8: case DT_BOOL: v = d[i]; break;
        case DT_INT16: { int16_t x; memcpy(&x, d + 2 * i, 2); v = x; break; }
        case DT_INT32: { int32_t x; memcpy(&x, d + 4 * i, 4); v = x; break; }
        case DT_INT64: { int64_t x; memcpy(&x, d + 8 * i, 8); v = x; break; }
        case DT_UINT32: { uint32_t x; memcpy(&x, d + 4 * i, 4); v = x; break; }
        default: die("internal: cannot emit %s constants", dtype_name(ty));
        }
        if (ty == DT_INT32 && v == INT32_MIN) {
            /* -2147483648 is not an int literal in C */
            if (blen + 32 > sizeof buf) flush();
            const char *s = i % per == 0 ? "\n(-2147483647-1)," : " (-2147483647-1),";
            memcpy(buf + blen, s, strlen(s));
            blen += strlen(s);
            continue;
        }
        put_int(v, i % per == 0 ? 1 : 2);
    }
    flush();
}

static const char *ctype(DType t)
{
    switch (t) {
    case DT_INT8: return "int8_t";
    case DT_UINT8: case DT_BOOL: return "uint8_t";
    case DT_INT16: return "int16_t";
    case DT_INT32: return "int32_t";
    case DT_INT64: return "int64_t";
    case DT_UINT32: return "uint32_t";
    case DT_UINT64: return "uint64_t";
    case DT_FLOAT32: return "float";
    }
    return "uint8_t";
}

/* #line directives: code from a template carries its file (as the target
   names it, a relative path: the text is reproducible) and line, so a C
   compiler's error names them; the header's own lines follow again
   afterwards (as NAME.h), numbered by counting the newlines written so far
   (read back from the output file, which must be seekable; else no #line
   directives). The run function is written to memory first, so a template
   leaves a marker line (LINE_MARK) that becomes the #line when it is
   copied into the header. */
#define LINE_MARK "\x01\n"
static const char *hdr_path;    /* NULL: no #line directives */
static long counted_at, counted_lines;

static long header_line(void)      /* lines completed so far */
{
    char chunk[1 << 15];
    fflush(F);
    long end = ftell(F);
    while (counted_at < end) {
        ssize_t n = pread(fileno(F), chunk, (size_t)(end - counted_at < (long)sizeof chunk ? end - counted_at : (long)sizeof chunk),
                          counted_at);
        if (n <= 0) die("cannot read back the header being written");
        for (const char *p = chunk, *e = chunk + n; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++) counted_lines++;
        counted_at += n;
    }
    return counted_lines;
}

static void line_directive(long line, const char *file)
{
    fprintf(F, "#line %ld \"%s\"\n", line, esc_c(file));
}

/* ---- storage of a tensor as a C expression ----------------------------- */

/* Constant tensors are named after the model's tensor: the name's first
   ';' part (TFLite joins the names of fused ops), without the path
   component every constant's name starts with ("functional_1/") or a
   trailing "/ReadVariableOp/resource", [A-Za-z0-9_] only (a run of others
   one '_'), at most 48 characters; then made unique by _2, _3, ... in
   tensor order. A name the header uses for its own (layerN..., cascadeN,
   ctx, L1BASE) or one not starting with a letter gets "t_" before it. */
static const char **cnames;

static void name_constants(const Graph *g)
{
    cnames = arena_alloc(sizeof(char *) * (size_t)(g->ntensors + 1));
    /* the first path component, when every constant's name has the same one */
    const char *scope = NULL;
    size_t slen = 0;
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        if (t->storage != ST_CONST) continue;
        const char *nm = t->name ? t->name : "";
        size_t seg = strcspn(nm, ";"), c = strcspn(nm, "/");
        if (c >= seg) { slen = 0; break; }
        if (!scope) { scope = nm; slen = c; }
        else if (c != slen || strncmp(nm, scope, c)) { slen = 0; break; }
    }
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        if (t->storage != ST_CONST) continue;
        const char *nm = t->name ? t->name : "";
        size_t n = strcspn(nm, ";");
        if (slen && n > slen + 1) { nm += slen + 1; n -= slen + 1; }
        static const char tail[] = "/ReadVariableOp/resource";
        if (n > sizeof tail - 1 && !strncmp(nm + n - (sizeof tail - 1), tail, sizeof tail - 1)) n -= sizeof tail - 1;
        char b[64];
        size_t k = 0;
        for (size_t j = 0; j < n && k < 48; j++) {
            unsigned char ch = (unsigned char)nm[j];
            if (isalnum(ch) && ch < 0x80) b[k++] = (char)ch;
            else if (k && b[k - 1] != '_') b[k++] = '_';
        }
        while (k && b[k - 1] == '_') k--;
        b[k] = 0;
        const char *base = b;
        int own = !strcmp(b, "ctx") || !strcmp(b, "L1BASE") || (!strncmp(b, "layer", 5) && isdigit((unsigned char)b[5])) ||
                  (!strncmp(b, "cascade", 7) && isdigit((unsigned char)b[7]));
        if (!k) base = arena_printf("t%d", i);
        else if (own || !isalpha((unsigned char)b[0])) base = arena_printf("t_%s", b);
        const char *name = base;
        for (int nth = 2;; nth++) {
            int taken = 0;
            for (int j = 0; j < i && !taken; j++) taken = cnames[j] && !strcmp(cnames[j], name);
            if (!taken) break;
            name = arena_printf("%s_%d", base, nth);
        }
        cnames[i] = arena_strdup(name);
    }
}

static const char *tensor_name(const Graph *g, int i)
{
    (void)g;
    if (!cnames[i]) die("internal: tensor %d is not a constant", i);
    return arena_printf("%s__%s", N, cnames[i]);
}

/* The arena that memory mem's buffers are in: `arena` (the first, or the
   only one), `arena1`, ... in the order of the cpu's data memories. */
static int arena_slot(int mem)
{
    for (int k = 0; k < P->narenas; k++)
        if (P->arenas[k].memory == mem) return k;
    return 0;
}

static const char *arena_var(int mem)
{
    int k = arena_slot(mem);
    return k ? arena_printf("arena%d", k) : "arena";
}

/* NAME_ARENA_SIZE, or NAME_ARENA_<MEM>_SIZE with several arenas (what = "SIZE" / "ALIGN") */
static const char *arena_macro(int k, const char *what)
{
    if (P->narenas <= 1) return arena_printf("%s_ARENA_%s", NU, what);
    char *m = arena_strdup(T->memories[P->arenas[k].memory].name);
    upper(m, m);
    return arena_printf("%s_ARENA_%s_%s", NU, m, what);
}

/* The arena parameters of the run functions: "void *arena" (decl) /
   "arena" (call), or one per memory, "void *arena_SRAM, void *arena_PSRAM".
   suffix: appended to each parameter name (the body's "arena_"). */
static const char *arena_params(int decl, const char *suffix)
{
    if (P->narenas <= 1) return arena_printf("%sarena%s", decl ? "void *" : "", suffix);
    const char *s = "";
    for (int k = 0; k < P->narenas; k++)
        s = arena_printf("%s%s%sarena_%s%s", s, k ? ", " : "", decl ? "void *" : "", T->memories[P->arenas[k].memory].name, suffix);
    return s;
}

/* The body's uint8_t *arena, *arena1, ... from the parameters (suffix "_") */
static void arena_locals(void)
{
    if (P->narenas <= 1) {
        fprintf(F, "    uint8_t *arena = (uint8_t *)arena_;\n");
        return;
    }
    for (int k = 0; k < P->narenas; k++)
        fprintf(F, "    uint8_t *arena%.0d = (uint8_t *)arena_%s_;\n", k, T->memories[P->arenas[k].memory].name);
}

/* HTC_CHECK_BEGIN / END over every arena */
static void check_arenas(const char *hook, int li)
{
    for (int k = 0; k < P->narenas; k++) {
        const char *v = k ? arena_printf("arena%d", k) : "arena";
        if (li >= 0) fprintf(F, "    HTC_CHECK_%s(\"%s\", %d, %s, %s);\n", hook, N, li, v, arena_macro(k, "SIZE"));
        else fprintf(F, "    HTC_CHECK_%s(\"%s\", %s, %s);\n", hook, N, v, arena_macro(k, "SIZE"));
    }
}

/* Several arenas: HTC_MEM_ACCESS for every arena buffer layer li reads or
   writes (every input and output, the tensor's bytes: gen/plan.c's model). */
static void mem_access(const Graph *g, const Op *op, int li)
{
    if (P->narenas <= 1 || (op->kind == OP_RESHAPE && g->tensors[op->out[0]].storage == ST_ALIAS)) return;
    for (int k = -op->nout; k < op->nin; k++) {
        int ti = k < 0 ? op->out[-1 - k] : op->in[k];
        if (ti < 0) continue;
        int64_t aoff;
        int r = tensor_root(g, ti, &aoff);
        if (g->tensors[r].storage != ST_ARENA) continue;
        fprintf(F, "    HTC_MEM_ACCESS(\"%s\", %d, %s + %lld, %zu);\n", N, li, arena_var(g->tensors[r].memory),
                (long long)(g->tensors[r].offset + aoff), tensor_bytes(&g->tensors[ti]));
    }
}

static const char *ptr(const Graph *g, int i, int is_const)
{
    int64_t aoff;
    int ri = tensor_root(g, i, &aoff);
    const Tensor *t = &g->tensors[ri];
    const char *ty = ctype(g->tensors[i].type);
    const char *q = is_const ? "const " : "";
    switch (t->storage) {
    case ST_CONST: return tensor_name(g, ri);
    case ST_INPUT: return arena_printf("(%s%s *)inputs[%d]", q, ty, t->is_input - 1);
    case ST_OUTPUT: return arena_printf("(%s *)outputs[%d]", ty, t->is_output - 1);
    case ST_ARENA:
        return arena_printf("(%s%s *)(void *)(%s + %lld)", q, ctype(g->tensors[i].type), arena_var(t->memory),
                            (long long)(t->offset + aoff));
    }
    die("internal: tensor %d has no storage", ri);
}

static int root_of(const Graph *g, int i) { return tensor_root(g, i, NULL); }

/* The kernel family of an op: its parameter block's type (one per
   operation and arithmetic; gen/lower.c and gen/onnx.c choose it). */
typedef enum {
    PB_NONE, PB_CONV, PB_FC, PB_POOL, PB_BINARY, PB_MEAN, PB_PAD, PB_CONCAT, PB_SOFTMAX, PB_QUANT,
    PB_QCONV, PB_FCONV, PB_FBINARY, PB_QFC, PB_QBINARY, PB_QGAP, PB_LUT, PB_QLINEAR, PB_QAVGPOOL, PB_QSOFTMAX,
    PB_TRANSPOSE, PB_QL, PB_GENERIC
} PBlock;

static PBlock pblock(const Op *op)
{
    static const char *const names[] = {
        "", "htc__conv_params", "htc__fc_params", "htc__pool_params", "htc__binary_params", "htc__mean_params",
        "htc__pad_params", "htc__concat_params", "htc__softmax_params", "htc__quant_params",
        "htc__qconv_params", "htc__fconv_params", "htc__fbinary_params", "htc__qfc_params", "htc__qbinary_params",
        "htc__qgap_params", "htc__lut_params", "htc__qlinear_params", "htc__qavgpool_params", "htc__qsoftmax_params",
        "htc__transpose_params"};
    if (!op->params_type) return PB_NONE;
    if (op->params_fmt) return PB_GENERIC;
    if (!strncmp(op->params_type, "htc__ql_", 8)) return PB_QL;     /* gen/qlib.c: int32 fields only */
    for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(op->params_type, names[i])) return (PBlock)i;
    die("internal: unknown parameter block %s", op->params_type);
}

/* Does the kernel of op read input slot j as data (not only as attributes)? */
static int reads_data(const Op *op, int j)
{
    if (op->kind == OP_CONCAT) return 1;
    switch (pblock(op)) {
    case PB_QL: return 1;
    case PB_CONV: return j <= 2 && !(j == 1 && op->kernel_weights >= 0) && !(j == 2 && op->fbias);
    case PB_FC: return j <= 1 || (j == 2 && !op->fbias);    /* a folded bias replaces it (emit_fbias) */
    case PB_BINARY: case PB_QBINARY: case PB_FBINARY: return j <= 1;
    case PB_QCONV: case PB_QFC: case PB_FCONV: return j <= 3;
    case PB_GENERIC: return 1;
    default: return j == 0;
    }
}

/* htc run / verify's builds: the constant tensors' bytes in a file the
   header's assembler statement includes (.incbin), not as C text the host
   compiler parses (MobileNetV2-224: 3.5 MB of weights, most of a build's
   time). ELF assemblers (GNU as, clang's); a path needing escapes, or a
   host of another byte order than the one the values are stored in, takes
   the text. */
static const char *BLOB;

static int blob_usable(const char *path)
{
    const uint16_t one = 1;
    uint8_t lo;
    memcpy(&lo, &one, 1);
    if (!path || lo != 1) return 0;
    for (const char *c = path; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("/._-+", *c)) return 0;
    return 1;
}

static void emit_consts(const Graph *g)
{
    FILE *blob = NULL;
    char *as = NULL;
    size_t as_len = 0, off = 0;
    FILE *asf = NULL;
    uint64_t h = 14695981039346656037ull;
    if (BLOB) {
        blob = fopen(BLOB, "wb");
        if (!blob) die("%s: cannot write: %s", BLOB, strerror(errno));
        asf = open_memstream(&as, &as_len);
        if (!asf) die("out of memory");
    }
    fprintf(F, "/* ---- constant tensors (weights, biases) ---- */\n");
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        if (t->storage != ST_CONST) continue;
        /* only tensors a kernel reads; shapes, paddings and axes went into
           parameter blocks */
        int used = 0;
        for (int k = 0; k < g->nops && !used; k++) {
            for (int j = 0; j < g->ops[k].nin; j++)
                if (g->ops[k].in[j] >= 0 && root_of(g, g->ops[k].in[j]) == i && reads_data(&g->ops[k], j) &&
                    !(g->ops[k].tile && j > 0)) used = 1;
            if (g->ops[k].kernel_weights == i && !g->ops[k].tile) used = 1;
        }
        if (!used) continue;
        int64_t n = tensor_numel(t);
        fprintf(F, "/* %s: %s [", esc_c(t->name), dtype_name(t->type));
        for (int d = 0; d < t->rank; d++) fprintf(F, "%s%d", d ? "," : "", t->shape[d]);
        fprintf(F, "] */\n");
        if (blob) {
            size_t nb = n ? tensor_bytes(t) : dtype_size(t->type);
            static const uint8_t zero[16];
            while (off % 16) fputc(0, blob), off++;
            if (n) fwrite(t->data, 1, nb, blob);
            else fwrite(zero, 1, nb, blob);
            for (size_t k = 0; k < nb; k++) h = (h ^ (n ? t->data[k] : 0)) * 1099511628211ull;
            fprintf(F, "extern const %s %s[%lld] __asm__(\"%s__k%d\") HTC__ALIGN(16);\n", ctype(t->type),
                    tensor_name(g, i), (long long)(n ? n : 1), N, i);
            fprintf(asf, "    \".balign 16\\n%s__k%d:\\n.incbin \\\"%s\\\",%zu,%zu\\n\"\n", N, i, BLOB, off, nb);
            off += nb;
            continue;
        }
        fprintf(F, "static const %s %s[%lld] HTC__ALIGN(16) = {", ctype(t->type), tensor_name(g, i), (long long)(n ? n : 1));
        if (n) put_values(t->data, t->type, n);
        else fputs("0", F);
        fputs("\n};\n", F);
    }
    if (blob) {
        fclose(asf);
        if (fclose(blob) != 0) die("%s: cannot write: %s", BLOB, strerror(errno));
        /* the bytes' hash: a header names its constants (htc verify rebuilds on a new header) */
        fprintf(F, "/* %zu bytes of constants, FNV-1a %016llx */\n__asm__(\".pushsection .rodata\\n\"\n%s"
                   "    \".popsection\\n\");\n", off, (unsigned long long)h, as ? as : "");
        free(as);
    }
    fputc('\n', F);
}

/* ---- parameter blocks with their field names --------------------------- */

/* The fields of htc.h's parameter blocks (typedef struct { ... } NAME;),
   in order, read from the htc.h being pasted: the one source of the
   layout. A struct with a nested struct or union is not listed. */
typedef struct { const char *type; const char **field; int n; } Fields;
static Fields *fields;
static int nfields;

static void read_fields(const char *src, size_t len)
{
    /* the text without comments */
    char *t = arena_alloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == '/' && i + 1 < len && src[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'); i++) {}
            i++;
            t[n++] = ' ';
        } else if (src[i] == '/' && i + 1 < len && src[i + 1] == '/') {
            while (i < len && src[i] != '\n') i++;
            t[n++] = '\n';
        } else t[n++] = src[i];
    }
    t[n] = 0;
    int cap = 0;
    for (char *p = t; (p = strstr(p, "typedef struct {"));) {
        char *body = p + 16, *end = strchr(body, '}');
        if (!end) break;
        p = end;
        char *open = memchr(body, '{', (size_t)(end - body));
        char *name = end + 1;
        while (*name == ' ' || *name == '\n') name++;
        size_t nl = 0;
        while (isalnum((unsigned char)name[nl]) || name[nl] == '_') nl++;
        if (open || !nl || name[nl] != ';') continue;
        Fields fs = {arena_printf("%.*s", (int)nl, name), NULL, 0};
        int fcap = 0;
        for (char *d = body; d < end;) {      /* declarations, then their declarators */
            char *semi = memchr(d, ';', (size_t)(end - d));
            if (!semi) break;
            for (char *a = d; a < semi;) {
                char *comma = memchr(a, ',', (size_t)(semi - a));
                char *b = comma ? comma : semi, *last = NULL, *q = a;
                size_t ll = 0;
                while (q < b) {
                    if (*q == '[') { while (q < b && *q != ']') q++; continue; }
                    if (isalpha((unsigned char)*q) || *q == '_') {
                        char *r = q;
                        while (r < b && (isalnum((unsigned char)*r) || *r == '_')) r++;
                        last = q;
                        ll = (size_t)(r - q);
                        q = r;
                    } else q++;
                }
                if (last) {
                    if (fs.n == fcap) {
                        const char **f = arena_alloc(sizeof(char *) * (size_t)(fcap = fcap ? 2 * fcap : 16));
                        if (fs.n) memcpy(f, fs.field, sizeof(char *) * (size_t)fs.n);
                        fs.field = f;
                    }
                    fs.field[fs.n++] = arena_printf("%.*s", (int)ll, last);
                }
                a = b + 1;
            }
            d = semi + 1;
        }
        if (nfields == cap) {
            Fields *f = arena_alloc(sizeof(Fields) * (size_t)(cap = cap ? 2 * cap : 64));
            if (nfields) memcpy(f, fields, sizeof(Fields) * (size_t)nfields);
            fields = f;
        }
        fields[nfields++] = fs;
    }
}

static const Fields *fields_of(const char *type, size_t n)
{
    for (int i = 0; i < nfields; i++)
        if (strlen(fields[i].type) == n && !strncmp(fields[i].type, type, n)) return &fields[i];
    return NULL;
}

/* Copies text (what emit_params wrote) to F, each parameter block's
   positional initializer {v0, v1, ...} written with its field names,
   HTC__F(name) v (htc.h: a designated initializer in C and C++20,
   positional in older C++), a few to a line. */
static void named_initializers(const char *text, size_t len)
{
    static const char head[] = "static const ";
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        e = e < len ? e + 1 : len;
        const char *l = text + i;
        const Fields *fs = NULL;
        const char *eq = NULL;
        if ((size_t)(e - i) > sizeof head && !strncmp(l, head, sizeof head - 1)) {
            size_t tn = strcspn(l + sizeof head - 1, " ");
            eq = memchr(l, '=', e - i);
            const char *br = memchr(l, '[', e - i);
            if (eq && (!br || br > eq) && eq + 2 < text + e && eq[2] == '{') fs = fields_of(l + sizeof head - 1, tn);
        }
        if (!fs) {
            fwrite(l, 1, e - i, F);
            i = e;
            continue;
        }
        fwrite(l, 1, (size_t)(eq + 2 - l), F);     /* "static const T name = " */
        fputs("{\n   ", F);
        size_t k = (size_t)(eq + 3 - text);
        int col = 3, nv = 0;
        for (;;) {                  /* one value: up to ',' or '}' at depth 0 */
            while (k < len && (text[k] == ' ' || text[k] == '\n')) k++;
            size_t v = k;
            int depth = 0;
            while (k < len && (depth || (text[k] != ',' && text[k] != '}'))) {
                depth += text[k] == '{' ? 1 : text[k] == '}' ? -1 : 0;
                k++;
            }
            if (k >= len) die("internal: unterminated parameter block in the header");
            if (nv >= fs->n) die("internal: %s has %d fields, the block more values", fs->type, fs->n);
            const char *fn = fs->field[nv++];
            size_t w = strlen(fn) + 9 + (k - v);
            const char *nlv = memchr(text + v, '\n', k - v);
            if (col > 3 && (nlv || col + w > 110)) { fputs("\n   ", F); col = 3; }
            fprintf(F, " HTC__F(%s) %.*s%s", fn, (int)(k - v), text + v, text[k] == ',' ? "," : "");
            col = nlv ? 110 : col + (int)w + 1;
            if (text[k++] == '}') break;
        }
        if (nv != fs->n) die("internal: %s has %d fields, the block %d values", fs->type, fs->n, nv);
        fputs("\n};\n", F);
        while (k < len && text[k] != '\n') k++;     /* the ";" */
        i = k < len ? k + 1 : len;
    }
}

static void emit_onnx_params(const Graph *g, const Op *op, int li, const char *pn);

/* An Add's tables in final form (XpulpV2: gen/dispatch.c xq2, htc.h
   HTC__XADD_*) as an array; its name, or "NULL" when op has none. */
static const char *xadd_tables(const Op *op, int li)
{
    if (!op->xq2 || op->kind != OP_ADD) return "NULL";
    const char *xq = arena_printf("%s__layer%d_xq", N, li);
    fprintf(F, "static const int32_t %s[%d] = {%d,\n    ", xq, HTC__XADD_N, op->xq2[HTC__XADD_F]);
    for (int c = HTC__XADD_A; c < HTC__XADD_N; c++)
        fprintf(F, "%d%s", op->xq2[c], c + 1 == HTC__XADD_N ? "" : (c - HTC__XADD_A) % 8 == 7 ? ",\n    " : ", ");
    fprintf(F, "};\n");
    return xq;
}

/* A generic parameter block: Op.params_fmt lists its fields in order and
   the host struct (htc.h) is read at each field's C offset (natural
   alignment: int32/float 4, pointers their size), written as a braced
   positional initializer. */
static void emit_generic(const Op *op, int li, const char *pn)
{
    const uint8_t *b = op->params;
    size_t off = 0;
    const char *f = op->params_fmt;
    fprintf(F, "static const %s %s = {", op->params_type, pn);
    for (int first = 1; *f; first = 0) {
        char c = *f++;
        long n = 0;
        while (*f >= '0' && *f <= '9') n = n * 10 + (*f++ - '0');
        if (!first) fputs(", ", F);
        if (c == 'i' || c == 'f') {
            off = (off + 3) & ~(size_t)3;
            if (c == 'i') { int32_t v; memcpy(&v, b + off, 4); fprintf(F, "%d", v); }
            else { float v; memcpy(&v, b + off, 4); fprintf(F, "%.9ef", (double)v); }
            off += 4;
        } else if (c == 'a' || c == 'b') {
            size_t es = c == 'a' ? 4 : 1;
            off = (off + es - 1) & ~(es - 1);
            fputc('{', F);
            for (long k = 0; k < n; k++) {
                int32_t v;
                if (es == 4) memcpy(&v, b + off + 4 * (size_t)k, 4);
                else v = (int8_t)b[off + (size_t)k];
                fprintf(F, "%s%d", k ? (k % 32 ? ", " : ",\n    ") : "", v);
            }
            fputc('}', F);
            off += es * (size_t)n;
        } else if (c == 'm' || c == 's') {
            off = (off + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
            fprintf(F, "%s__layer%d_%s", N, li, c == 'm' ? "mult" : "shift");
            off += sizeof(void *);
        } else {
            die("internal: bad parameter format '%s'", op->params_fmt);
        }
    }
    if (off > op->params_size) die("internal: parameter format '%s' exceeds %s", op->params_fmt, op->params_type);
    fprintf(F, "};\n");
}

/* Parameter blocks: positional initializers in htc.h field order (C99 and
   C++ alike). Pointers name the constant arrays written above. */
static void emit_offload_params(const Graph *g, const Op *op, int li);

/* A block's bias with the input offset folded in (Op.fbias, gen/lower.c
   fold_bias): its array written, its name returned. */
static const char *emit_fbias(const Op *op, int li, int n)
{
    fprintf(F, "static const int32_t %s__layer%d_bias_fold[%d] = {", N, li, n);
    for (int c = 0; c < n; c++) fprintf(F, "%s%d", c ? (c % 16 ? ", " : ",\n    ") : "", op->fbias[c]);
    fprintf(F, "};\n");
    return arena_printf("%s__layer%d_bias_fold", N, li);
}

/* The requantization checks of the CPU kernels done once here, per
   channel, on the multipliers and shifts the block holds and a bound A on
   |acc| from the block's bias (folded or not) and the channel's weights:
   A = |bias| + sum |w - w_zp| * max |x - in_zp| over int8 x (in_zp the
   block's: 0 when folded). HTC__RQ_SET | the paths that are exact, written
   as the block's rq so no kernel loops over the channels at every call:
   - HTC__RQ_PRQ (htc__prq_apply: MULHSU by 2m, h + c in plain 32 bits):
     m >= 0, e = -shift in [1, 31], h + 2^(e-1) <= INT32_MAX for the
     largest h of the channel, floor((A m + 2^30) / 2^31);
   - HTC__RQ_DSP (htc__dsprq_apply: SMMLAR with m2 = 2m read as int32, QADD):
     m in [2^30, 2^31), e in [1, 31], and either e <= 23 (a saturating QADD
     puts the exact and the computed value both beyond +-255) or QADD cannot
     saturate: h + 2^(e-1) <= INT32_MAX for the largest h of the channel,
     floor((A m + 2^30) / 2^31). This admits channels htc.h's htc__dsp_rq_ok
     (one bound for the layer, taps * 255 * 128) refuses, e.g. VWW's
     pointwise layers whose biases are near +-2^30 with e up to 31.
   A dead channel (multiplier 0: TFLite's output is the zero point whatever
   acc is) is written as m = 2^30, shift -31 when A < 2^31 - 2: htc__requant
   then gives RoundingDivideByPOT(h, 31) = 0 with h = floor((acc + 1) / 2),
   |h| < 2^30, on every path, htc__dsprq_apply too (QADD(h, 2^30) does not
   saturate), htc__prq_apply too (mult, shift: the arrays to write,
   changed here).
   0 (the kernel checks) when a bias or the weights are not constants or the
   kernel is not htc's own conv / depthwise (depth_mult 1) / FC. */
static int32_t rq_flags(const Graph *g, const Op *op, const int32_t *bias, int32_t nb, int32_t taps, int32_t in_zp,
                        int32_t w_zp, int32_t *mult, int8_t *shift)
{
    if (!op->mult || !op->shift || op->nch < 1 || nb < 1 || taps < 1) return 0;
    if (!bias && op->nin > 2 && op->in[2] >= 0) {
        const Tensor *b = &g->tensors[op->in[2]];
        if (!b->data || b->type != DT_INT32 || tensor_numel(b) != nb) return 0;
        bias = (const int32_t *)(const void *)b->data;
    }
    const Tensor *w = &g->tensors[op->in[1]];
    if (!w->data || w->type != DT_INT8 || tensor_numel(w) != (int64_t)nb * taps) return 0;
    const int64_t xm = 128 + (in_zp < 0 ? -(int64_t)in_zp : in_zp), lim = (int64_t)1 << 30;
    int64_t amax = 0;
    int64_t *A = arena_alloc(sizeof(int64_t) * (size_t)nb);
    for (int32_t c = 0; c < nb; c++) {
        int64_t a = 0;
        if (bias) {
            int32_t bv;
            memcpy(&bv, bias + c, 4);
            a = bv < 0 ? -(int64_t)bv : bv;
        }
        for (int32_t k = 0; k < taps; k++) {
            const int32_t v = (int8_t)w->data[(size_t)c * taps + k] - w_zp;
            a += (v < 0 ? -v : v) * xm;
        }
        A[c] = a;
        amax = a > amax ? a : amax;
    }
    int prq = 1, dsp = 1;
    for (int c = 0; c < op->nch; c++) {
        const int64_t a = op->nch == 1 ? amax : A[c];
        int64_t m = op->mult[c];
        int e = -op->shift[c];
        mult[c] = op->mult[c];
        shift[c] = op->shift[c];
        if (m == 0 && a < ((int64_t)1 << 31) - 2) {
            mult[c] = (int32_t)lim;
            shift[c] = -31;
            m = lim;
            e = 31;
        }
        /* the largest h of the channel, and whether h + 2^(e-1) fits */
        const int64_t h = ((a < ((int64_t)1 << 31) ? a : ((int64_t)1 << 31)) * (m < 0 ? 0 : m) + lim) >> 31;
        const int fits = e >= 1 && e <= 31 && h + ((int64_t)1 << (e - 1)) <= INT32_MAX;
        if (m < 0 || !fits) prq = 0;
        if (m < lim || e < 1 || e > 31 || (e > 23 && !fits)) dsp = 0;
    }
    return HTC__RQ_SET | (prq ? HTC__RQ_PRQ : 0) | (dsp ? HTC__RQ_DSP : 0);
}

/* A padded convolution's per-kernel-row weight sums times the input offset
   for the portable and DSP kernels' path C (htc__conv_params.rsum,
   [out_c][k_h]): the kernel adds those of the rows inside the input to the
   bias, per output row, instead of summing the weights at every call.
   Written only for the layers that take path C (receptive field beyond the
   column buffers' HTC__DSP_COLS / HTC__PORT_COLS taps, not the DSP's path
   Q) on a header for the portable or DSP paths or all paths (whose code is
   then the same as theirs: tests/test_isa.sh); else "NULL". */
static const char *emit_rsum(const Graph *g, const Op *op, int li, const htc__conv_params *p, int32_t rq)
{
    const unsigned isa = HISA;
    const int32_t K = p->k_h * p->k_w * p->in_c, rowb = p->k_w * p->in_c;
    if (((isa & (ISA_X86 | ISA_MVE | ISA_XPULPV2)) && isa != ISA_ALL) || op->fbias || !p->in_zp || p->w_zp || p->k_h > 16 || K <= 128 ||
        !op->kernel_fn || strcmp(op->kernel_fn, "htc__conv2d_s8"))
        return "NULL";
    /* the DSP's path Q (htc__conv2d_dsp) reads no sums */
    if ((isa & ISA_ARM_DSP) && ((K & 7) == 0 || (K >= 24 && p->out_c * ((K + 7) & ~7) <= 512)) &&
        ((p->in_c & 3) ? 9 : 8) * ((K + 7) >> 3) * 2 <= 4 * 128 && (rq & HTC__RQ_DSP))
        return "NULL";
    const Tensor *w = &g->tensors[op->kernel_weights >= 0 ? op->kernel_weights : op->in[1]];
    if (!w->data || w->type != DT_INT8 || tensor_numel(w) != (int64_t)p->out_c * K) return "NULL";
    const char *nm = arena_printf("%s__layer%d_rsum", N, li);
    fprintf(F, "static const int32_t %s[%d] = {", nm, p->out_c * p->k_h);
    for (int32_t i = 0; i < p->out_c * p->k_h; i++) {
        int32_t s = 0;
        for (int32_t k = 0; k < rowb; k++) s += (int8_t)w->data[(size_t)i * rowb + k];
        fprintf(F, "%s%d", i ? (i % 16 ? ", " : ",\n    ") : "", -p->in_zp * s);
    }
    fprintf(F, "};\n");
    return nm;
}

static void emit_params(const Graph *g, const Op *op, int li)
{
    const char *pn = arena_printf("%s__layer%d_params", N, li);
    if (op->tile) {
        emit_offload_params(g, op, li);
        return;
    }
    /* the CPU kernels' requantization checks (rq_flags), which may rewrite
       dead channels in the copies (it writes them only when it returns non-zero) */
    int32_t rq = 0, *mult = op->mult;
    int8_t *shift = op->shift;
    if (op->nch && op->mult) {
        mult = arena_alloc(sizeof(int32_t) * (size_t)op->nch);
        shift = arena_alloc((size_t)op->nch);
        memcpy(mult, op->mult, sizeof(int32_t) * (size_t)op->nch);
        memcpy(shift, op->shift, (size_t)op->nch);
        if (pblock(op) == PB_CONV) {
            const htc__conv_params *p = op->params;
            const int dw = op->kernel_fn && !strcmp(op->kernel_fn, "htc__dwconv2d_s8");
            if ((dw ? p->depth_mult == 1 && p->in_c == p->out_c : op->kernel_fn && !strcmp(op->kernel_fn, "htc__conv2d_s8")) &&
                op->nch == (p->per_channel ? p->out_c : 1))
                rq = rq_flags(g, op, op->fbias, p->out_c, dw ? p->k_h * p->k_w : p->k_h * p->k_w * p->in_c,
                              op->fbias ? 0 : p->in_zp, p->w_zp, mult, shift);
        } else if (pblock(op) == PB_FC) {
            const htc__fc_params *p = op->params;
            if (op->kernel_fn && !strcmp(op->kernel_fn, "htc__fc_s8") && op->nch == (p->per_channel ? p->out_features : 1))
                rq = rq_flags(g, op, op->fbias, p->out_features, p->in_features, op->fbias ? 0 : p->in_zp, p->w_zp, mult,
                              shift);
        }
        fprintf(F, "static const int32_t %s__layer%d_mult[%d] = {", N, li, op->nch);
        for (int c = 0; c < op->nch; c++) fprintf(F, "%s%d", c ? ", " : "", mult[c]);
        fprintf(F, "};\nstatic const int8_t %s__layer%d_shift[%d] = {", N, li, op->nch);
        for (int c = 0; c < op->nch; c++) fprintf(F, "%s%d", c ? ", " : "", shift[c]);
        fprintf(F, "};\n");
    }
    switch (pblock(op)) {
    case PB_CONV: {
        const htc__conv_params *p = op->params;
        const char *bias = op->nin > 2 && op->in[2] >= 0 ? tensor_name(g, op->in[2]) : "NULL";
        const char *xq = "NULL";
        if (op->xq2) {          /* XpulpV2: the requantization in final form, HTC__XQ2_N words a channel
                                   (a dense convolution's: a word naming the form, 2, 3 or 4 (HTC__XQ3_N
                                   words a channel), then the records; gen/dispatch.c xq2) */
            const int hd = strcmp(op->kernel_fn, "htc__dwconv2d_s8") != 0;
            const int nw = hd && op->xq2[0] >= 3 ? HTC__XQ3_N : HTC__XQ2_N;
            xq = arena_printf("%s__layer%d_xq", N, li);
            fprintf(F, "static const int32_t %s[%d] = {", xq, hd + p->out_c * nw);
            if (hd) fprintf(F, "%d,\n    ", op->xq2[0]);
            for (int c = 0; c < p->out_c * nw; c++)
                fprintf(F, "%s%d", c ? (c % nw ? ", " : ",\n    ") : "", op->xq2[hd + c]);
            fprintf(F, "};\n");
        }
        if (op->fbias) bias = emit_fbias(op, li, p->out_c);     /* unpadded: as an FC's */
        const char *rsum = emit_rsum(g, op, li, p, rq);
        fprintf(F, "static const htc__conv_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d,"
                   " %d, %d, %d, %d, %d, %d, %s__layer%d_mult, %s__layer%d_shift, %s, %s, %s, %d, %s};\n",
                pn, p->batches, p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->out_c, p->k_h, p->k_w,
                p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_top, p->pad_left, p->depth_mult,
                op->fbias ? 0 : p->in_zp, p->w_zp, p->out_zp, p->act_min, p->act_max, p->per_channel, N, li, N, li,
                tensor_name(g, op->kernel_weights >= 0 ? op->kernel_weights : op->in[1]), bias, xq, rq, rsum);
        break;
    }
    case PB_FC: {
        const htc__fc_params *p = op->params;
        const char *bias = op->nin > 2 && op->in[2] >= 0 ? tensor_name(g, op->in[2]) : "NULL";
        /* the input offset folded into the bias (the kernel then sees in_zp 0): an FC reads
           every input, so every path may take it */
        if (op->fbias) bias = emit_fbias(op, li, p->out_features);
        fprintf(F, "static const htc__fc_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %s__layer%d_mult, %s__layer%d_shift, %s, %s, %d};\n",
                pn, p->batches, p->in_features, p->out_features, op->fbias ? 0 : p->in_zp, p->w_zp, p->out_zp, p->act_min,
                p->act_max, p->per_channel, N, li, N, li, tensor_name(g, op->in[1]), bias, rq);
        break;
    }
    case PB_POOL: {
        const htc__pool_params *p = op->params;
        fprintf(F, "static const htc__pool_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d};\n",
                pn, p->batches, p->in_h, p->in_w, p->c, p->out_h, p->out_w, p->k_h, p->k_w, p->stride_h,
                p->stride_w, p->pad_top, p->pad_left, p->act_min, p->act_max);
        break;
    }
    case PB_BINARY: {
        const htc__binary_params *p = op->params;
        const char *xq = xadd_tables(op, li);
        fprintf(F, "static const htc__binary_params %s = {{%d, %d, %d, %d}, {%d, %d, %d, %d}, {%d, %d, %d, %d},"
                   " %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %s};\n",
                pn, p->out_shape[0], p->out_shape[1], p->out_shape[2], p->out_shape[3], p->a_stride[0],
                p->a_stride[1], p->a_stride[2], p->a_stride[3], p->b_stride[0], p->b_stride[1], p->b_stride[2],
                p->b_stride[3], p->a_offset, p->b_offset, p->left_shift, p->a_mult, p->b_mult, p->out_mult,
                p->a_shift, p->b_shift, p->out_shift, p->out_zp, p->act_min, p->act_max, p->broadcast, xq);
        break;
    }
    case PB_MEAN: {
        const htc__mean_params *p = op->params;
        fprintf(F, "static const htc__mean_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d};\n", pn,
                p->batches, p->in_h, p->in_w, p->c, p->in_zp, p->out_zp, p->mult, p->shift, p->act_min, p->act_max);
        break;
    }
    case PB_PAD: {
        const htc__pad_params *p = op->params;
        fprintf(F, "static const htc__pad_params %s = {%d, {%d, %d, %d, %d, %d}, {%d, %d, %d, %d, %d}, {%d, %d, %d, %d, %d}, %d, %d};\n",
                pn, p->rank, p->in_shape[0], p->in_shape[1], p->in_shape[2], p->in_shape[3], p->in_shape[4],
                p->before[0], p->before[1], p->before[2], p->before[3], p->before[4], p->after[0], p->after[1],
                p->after[2], p->after[3], p->after[4], p->elem_size, p->pad_value);
        break;
    }
    case PB_CONCAT: {
        const htc__concat_params *p = op->params;
        fprintf(F, "static const int32_t %s__layer%d_axis[%d] = {", N, li, p->n);
        for (int i = 0; i < p->n; i++) fprintf(F, "%s%d", i ? ", " : "", p->axis_bytes[i]);
        fprintf(F, "};\nstatic const htc__concat_params %s = {%d, %d, %d, %s__layer%d_axis};\n", pn, p->outer,
                p->out_axis_bytes, p->n, N, li);
        break;
    }
    case PB_SOFTMAX: {
        const htc__softmax_params *p = op->params;
        if (p->n_exp > 0) {
            fprintf(F, "static const int32_t %s__layer%d_exp[%d] = {", N, li, p->n_exp);
            for (int i = 0; i < p->n_exp; i++) fprintf(F, "%s%d", i ? (i % 8 ? ", " : ",\n    ") : "", p->exp_tab[i]);
            fprintf(F, "};\n");
        }
        fprintf(F, "static const htc__softmax_params %s = {%d, %d, %d, %d, %d, %d, %d, ", pn, p->outer, p->depth,
                p->input_multiplier, p->input_left_shift, p->diff_min, p->out_zp, p->n_exp);
        if (p->n_exp > 0) fprintf(F, "%s__layer%d_exp};\n", N, li);
        else fprintf(F, "0};\n");
        break;
    }
    case PB_QUANT: {
        const htc__quant_params *p = op->params;
        fprintf(F, "static const htc__quant_params %s = {%d, %d, %d, %d, %d, %d, %d, %.9ef, %.17e};\n", pn,
                p->size, p->in_zp, p->out_zp, p->mult, p->shift, p->qmin, p->qmax, (double)p->scale, p->dscale);
        break;
    }
    case PB_QL: {       /* every field an int32_t, in order */
        const int32_t *v = op->params;
        xadd_tables(op, li);        /* a QuantLib Add's tables (htc__ql_xadd's last input) */
        fprintf(F, "static const %s %s = {", op->params_type, pn);
        for (size_t k = 0; k < op->params_size / 4; k++) fprintf(F, "%s%d", k ? ", " : "", v[k]);
        fprintf(F, "};\n");
        break;
    }
    case PB_NONE: break;
    case PB_GENERIC: emit_generic(op, li, pn); break;
    default:
        emit_onnx_params(g, op, li, pn);
        break;
    }
}

/* Parameter blocks of the ONNX (onnxruntime arithmetic) kernels. Floats are
   printed with 9 significant digits, which reads back to the same float. */
static const char *fl(float v) { return arena_printf("%.9ef", (double)v); }

/* A 256-entry float table inside a parameter initializer: {v0, v1, ...} */
static void float_table(const float *v)
{
    fputc('{', F);
    for (int i = 0; i < 256; i++) fprintf(F, "%s%s", i ? (i % 8 ? ", " : ",\n    ") : "", fl(v[i]));
    fputc('}', F);
}

static const char *tensor_or_null(const Graph *g, const Op *op, int j)
{
    return op->nin > j && op->in[j] >= 0 ? tensor_name(g, op->in[j]) : "NULL";
}

static void float_array(const char *name, const float *v, int n)
{
    fprintf(F, "static const float %s[%d] = {", name, n);
    for (int i = 0; i < n; i++) fprintf(F, "%s%s", i ? (i % 8 ? ", " : ",\n    ") : "", fl(v[i]));
    fprintf(F, "};\n");
}

static void emit_onnx_params(const Graph *g, const Op *op, int li, const char *pn)
{
    switch (pblock(op)) {
    case PB_QCONV: {
        const htc__qconv_params *p = op->params;
        const char *sc = "NULL";
        if (p->scale) {
            sc = arena_printf("%s__layer%d_scale", N, li);
            float_array(sc, p->scale, p->per_channel ? p->out_c : 1);
        }
        fprintf(F, "static const htc__qconv_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d,"
                   " %d, %d, %d, %d, %d, %d, %d, %s, %s, %s, %s, %d};\n",
                pn, p->batches, p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->out_c, p->k_h, p->k_w,
                p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_top, p->pad_left, p->group_in, p->group_out,
                p->in_zp, p->out_zp, p->qmin, p->qmax, p->per_channel, sc, tensor_name(g, op->in[1]),
                tensor_or_null(g, op, 2), tensor_or_null(g, op, 3), p->exact_shift);
        break;
    }
    case PB_FCONV: {
        const htc__fconv_params *p = op->params;
        const char *ws = arena_printf("%s__layer%d_wscale", N, li), *bs = "NULL";
        float_array(ws, p->w_scale, p->per_channel ? p->out_c : 1);
        if (p->bias) {
            bs = arena_printf("%s__layer%d_fbias", N, li);
            float_array(bs, p->bias, p->out_c);
        }
        fprintf(F, "static const htc__fconv_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d,"
                   " %d, %d, %d, %d, %d, %d, %d, %d, %s, %s, %s, %s, %s, %s, %s,\n    ",
                pn, p->batches, p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->out_c, p->k_h, p->k_w,
                p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_top, p->pad_left, p->group_in, p->group_out,
                p->k_block, p->gemm_m1, p->out_zp, p->qmin, p->qmax, p->per_channel, fl(p->clip_lo), fl(p->clip_hi),
                fl(p->out_scale), ws, tensor_name(g, op->in[1]), tensor_or_null(g, op, 3), bs);
        float_table(p->x_deq);
        fprintf(F, "};\n");
        break;
    }
    case PB_FBINARY: {
        const htc__fbinary_params *p = op->params;
        fprintf(F, "static const htc__fbinary_params %s = {%d, %d, %d, %d, %d, %d, %s, %s, %s,\n    ", pn, p->size,
                p->a_scalar, p->b_scalar, p->out_zp, p->qmin, p->qmax, fl(p->clip_lo), fl(p->clip_hi),
                fl(p->out_scale));
        float_table(p->a_deq);
        fprintf(F, ",\n    ");
        float_table(p->b_deq);
        fprintf(F, "};\n");
        break;
    }
    case PB_QFC: {
        const htc__qfc_params *p = op->params;
        const char *sc = "NULL";
        if (p->scale) {
            sc = arena_printf("%s__layer%d_scale", N, li);
            float_array(sc, p->scale, p->per_channel ? p->out_features : 1);
        }
        fprintf(F, "static const htc__qfc_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %s, %s, %s, %s, %d};\n",
                pn, p->batches, p->rows, p->in_features, p->out_features, p->w_batches, p->in_zp, p->out_zp,
                p->qmin, p->qmax, p->per_channel, sc, tensor_name(g, op->in[1]), tensor_or_null(g, op, 2),
                tensor_or_null(g, op, 3), p->exact_shift);
        break;
    }
    case PB_QBINARY: {
        const htc__qbinary_params *p = op->params;
        fprintf(F, "static const htc__qbinary_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %s, %s, %s};\n",
                pn, p->size, p->a_scalar, p->b_scalar, p->a_off, p->b_off, p->out_off, p->a_zp, p->b_zp, p->qmin,
                p->qmax, fl(p->ra), fl(p->rb), fl(p->fixed));
        break;
    }
    case PB_QGAP: {
        const htc__qgap_params *p = op->params;
        fprintf(F, "static const htc__qgap_params %s = {%d, %d, %d, %d, %d, %d, %d, %s};\n", pn, p->batches, p->hw,
                p->c, p->bias, p->out_zp, p->qmin, p->qmax, fl(p->scale));
        break;
    }
    case PB_LUT: {
        const htc__lut_params *p = op->params;
        fprintf(F, "static const htc__lut_params %s = {%d, {", pn, p->size);
        for (int i = 0; i < 256; i++) fprintf(F, "%s%d", i ? (i % 32 ? ", " : ",\n    ") : "", p->lut[i]);
        fprintf(F, "}};\n");
        break;
    }
    case PB_QLINEAR: {
        const htc__qlinear_params *p = op->params;
        const char *sc = arena_printf("%s__layer%d_scale", N, li);
        float_array(sc, p->scale, p->channels);
        fprintf(F, "static const int32_t %s__layer%d_zp[%d] = {", N, li, p->channels);
        for (int i = 0; i < p->channels; i++) fprintf(F, "%s%d", i ? ", " : "", p->zp[i]);
        fprintf(F, "};\nstatic const htc__qlinear_params %s = {%d, %d, %d, %d, %d, %s, %s__layer%d_zp};\n", pn, p->size,
                p->channels, p->inner, p->qmin, p->qmax, sc, N, li);
        break;
    }
    case PB_QAVGPOOL: {
        const htc__qavgpool_params *p = op->params;
        fprintf(F, "static const htc__qavgpool_params %s = {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d,"
                   " %d, %d, %s, ", pn, p->batches, p->in_h, p->in_w, p->c, p->out_h, p->out_w, p->k_h, p->k_w,
                p->stride_h, p->stride_w, p->pad_top, p->pad_left, p->count_include_pad, p->quantize_linear, p->out_zp,
                p->out_off, p->qmin, p->qmax, fl(p->out_scale));
        float_table(p->deq);
        fprintf(F, "};\n");
        break;
    }
    case PB_QSOFTMAX: {
        const htc__qsoftmax_params *p = op->params;
        fprintf(F, "static const htc__qsoftmax_params %s = {%d, %d, %d, %d, %d, %s, ", pn, p->outer, p->depth,
                p->out_zp, p->out_off, p->is_signed, fl(p->y_scale));
        float_table(p->table);
        fprintf(F, "};\n");
        break;
    }
    case PB_TRANSPOSE: {
        const htc__transpose_params *p = op->params;
        fprintf(F, "static const htc__transpose_params %s = {%d, %d, {%d, %d, %d, %d, %d, %d}, {%d, %d, %d, %d, %d, %d}};\n",
                pn, p->rank, p->elem, p->shape[0], p->shape[1], p->shape[2], p->shape[3], p->shape[4], p->shape[5],
                p->stride[0], p->stride[1], p->stride[2], p->stride[3], p->stride[4], p->stride[5]);
        break;
    }
    default: break;
    }
}

static void emit_offload(const Graph *g, const Target *t, const Op *op, int li);
static void device_account(const Graph *g, const Target *t, const Op *op, int li);

/* Inside a cluster layer's function: the arguments the parallel entry
   point takes after the kernel's own (split, core, ncores), else NULL. */
static const char *par_tail;

static void emit_call(const Graph *g, const Target *t, const Op *op, int li)
{
    if (op->tile) {
        emit_offload(g, t, op, li);
        return;
    }
    const Tensor *out = &g->tensors[op->out[0]];
    const char *fn = op->kernel_fn ? arena_printf("%s%s%s", op->kernel_fn, op->variant, par_tail ? "_par" : "") : NULL;
    const char *o = ptr(g, op->out[0], 0);
    const char *pt = par_tail ? par_tail : "";
    if (op->inplace) {
        fprintf(F, "    /* every input was written in place: nothing to move */\n");
        return;
    }
    if (op->kind == OP_ADD_N) {         /* fn(&p, {inputs...}, output) */
        fprintf(F, "    {\n        const int8_t *const ins[%d] = {", op->nin);
        for (int i = 0; i < op->nin; i++) fprintf(F, "%s%s", i ? ", " : "", ptr(g, op->in[i], 1));
        fprintf(F, "};\n        %s(&%s__layer%d_params, ins, %s%s);\n    }\n", fn, N, li, o, pt);
        return;
    }
    if (op->params_fmt) {               /* fn(&p, inputs..., outputs...) */
        fprintf(F, "    %s(&%s__layer%d_params", fn, N, li);
        for (int k = 0; k < op->nin; k++) fprintf(F, ", %s", op->in[k] >= 0 ? ptr(g, op->in[k], 1) : "NULL");
        for (int k = 0; k < op->nout; k++) fprintf(F, ", %s", ptr(g, op->out[k], 0));
        fprintf(F, "%s);\n", pt);
        return;
    }
    if (pblock(op) == PB_QL) {      /* (params, every input (an Add's tables after them), output) */
        const int xq = op->xq2 && op->kind == OP_ADD;
        fprintf(F, "    {\n        const void *const ins[%d] = {", op->nin + xq);
        for (int i = 0; i < op->nin; i++) fprintf(F, "%s%s", i ? ", " : "", op->in[i] >= 0 ? ptr(g, op->in[i], 1) : "NULL");
        if (xq) fprintf(F, ", %s__layer%d_xq", N, li);
        fprintf(F, "};\n        %s(&%s__layer%d_params, ins, %s%s);\n    }\n", fn, N, li, o, pt);
        return;
    }
    switch (op->kind) {
    case OP_ADD: case OP_MUL:
        fprintf(F, "    %s(&%s__layer%d_params, %s, %s, %s%s);\n", fn, N, li, ptr(g, op->in[0], 1), ptr(g, op->in[1], 1), o, pt);
        break;
    case OP_CONCAT:
        fprintf(F, "    {\n        const void *const ins[%d] = {", op->nin);
        for (int i = 0; i < op->nin; i++) fprintf(F, "%s%s", i ? ", " : "", ptr(g, op->in[i], 1));
        fprintf(F, "};\n        %s(&%s__layer%d_params, ins, %s%s);\n    }\n", fn, N, li, o, pt);
        break;
    case OP_RESHAPE: {
        const Tensor *r = out;
        if (r->storage == ST_ALIAS) {
            fprintf(F, "    /* reshape: shares storage with its input */\n");
        } else {
            fprintf(F, "    memmove(%s, %s, %zu);\n", o, ptr(g, op->in[0], 1), tensor_bytes(out));
        }
        break;
    }
    default:
        fprintf(F, "    %s(&%s__layer%d_params, %s, %s%s);\n", fn, N, li, ptr(g, op->in[0], 1), o, pt);
    }
}

/* The arena ranges a layer may touch: its data inputs and its output, each
   the planned bytes of the tensor (through aliases, at the root's offset). */
static void check_buffers(const Graph *g, const Op *op, int li)
{
    for (int k = -op->nout; k < op->nin; k++) {      /* every output, then the inputs read */
        int ti = k < 0 ? op->out[-1 - k] : op->in[k];
        if (ti < 0 || (k >= 0 && !reads_data(op, k))) continue;
        int64_t aoff;
        int r = tensor_root(g, ti, &aoff);
        if (g->tensors[r].storage != ST_ARENA) continue;
        fprintf(F, "    HTC_CHECK_BUFFER(\"%s\", %d, %s + %lld, %zu);\n", N, li, arena_var(g->tensors[r].memory),
                (long long)(g->tensors[r].offset + aoff), tensor_bytes(&g->tensors[ti]));
    }
}

static void upper(const char *s, char *d)
{
    for (; *s; s++) *d++ = (char)toupper((unsigned char)*s);
    *d = 0;
}

static void shape_str(FILE *f, const Tensor *t)
{
    fputc('[', f);
    for (int d = 0; d < t->rank; d++) fprintf(f, "%s%d", d ? "," : "", t->shape[d]);
    fputc(']', f);
}

static void io_macros(const Graph *g, const char *kind, const int *ids, int n)
{
    for (int i = 0; i < n; i++) {
        const Tensor *t = &g->tensors[ids[i]];
        fprintf(F, "#define %s_%s_SIZE_%d %zu\n", NU, kind, i, tensor_bytes(t));
        if (t->q.n == 1) {
            fprintf(F, "#define %s_%s_SCALE_%d %.9ef\n", NU, kind, i, (double)t->q.scale[0]);
            fprintf(F, "#define %s_%s_ZERO_POINT_%d %lld\n", NU, kind, i, (long long)t->q.zero_point[0]);
        }
    }
}

static void io_doc(const Graph *g, const char *kind, const int *ids, int n)
{
    for (int i = 0; i < n; i++) {
        const Tensor *t = &g->tensors[ids[i]];
        fprintf(F, "     %s %d: \"%s\" %s ", kind, i, esc_c(t->name), dtype_name(t->type));
        shape_str(F, t);
        if (t->q.n == 1) fprintf(F, " scale %.9g zero point %lld", (double)t->q.scale[0], (long long)t->q.zero_point[0]);
        fputc('\n', F);
    }
}

/* ---- offloaded ops: templates ------------------------------------------------------ */

typedef struct { const char *k, *v; } TVar;
static TVar tv[160];
static int ntv;

static void tset(const char *k, const char *v)
{
    for (int i = 0; i < ntv; i++)
        if (!strcmp(tv[i].k, k)) { tv[i].v = v; return; }
    if (ntv == (int)(sizeof tv / sizeof tv[0])) die("internal: too many template variables");
    tv[ntv].k = k;
    tv[ntv++].v = v;
}
static void tseti(const char *k, long long v) { tset(k, arena_printf("%lld", v)); }

/* Substitution of {{name}}, and flat conditionals: a line "{{#if name}}"
   keeps the lines up to "{{/if}}" when name is not "0". Every name must be
   one the core sets: an unknown placeholder or condition is an error at
   the template's line (a typo must not silently drop code). */
static void expand(const Target *t, const char *path)
{
    size_t len;
    const char *full = target_resolve(t, path);
    const char *src = (const char *)read_file(full, &len);
    const char *tname = path;
    int skip = 0, line = 1, synced = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && src[e] != '\n') e++;
        const char *l = src + i;
        size_t ll = e - i;
        if (ll >= 7 && !strncmp(l, "{{#if ", 6)) {
            char name[64];
            size_t n = 0;
            for (size_t j = 6; j < ll && l[j] != '}' && n < sizeof name - 1; j++) name[n++] = l[j];
            name[n] = 0;
            if (skip) die("%s:%d: nested {{#if}} (conditionals are flat)", full, line);
            const char *v = NULL;
            for (int k = 0; k < ntv; k++)
                if (!strcmp(tv[k].k, name)) v = tv[k].v;
            if (!v) {
                char known[1024] = "";
                for (int k = 0; k < ntv; k++) {
                    if (k) strncat(known, " ", sizeof known - strlen(known) - 1);
                    strncat(known, tv[k].k, sizeof known - strlen(known) - 1);
                }
                die("%s:%d: {{#if %s}}: unknown name (known: %s)", full, line, name, known);
            }
            skip = !strcmp(v, "0") ? 1 : -1;
            synced = 0;
        } else if (ll >= 7 && !strncmp(l, "{{/if}}", 7)) {
            if (!skip) die("%s:%d: {{/if}} without {{#if}}", full, line);
            skip = 0;
            synced = 0;
        } else if (skip <= 0) {
            if (hdr_path && !synced) line_directive(line, tname);
            synced = 1;
            for (size_t j = 0; j < ll; j++) {
                if (l[j] == '{' && j + 1 < ll && l[j + 1] == '{') {
                    size_t k = j + 2;
                    while (k + 1 < ll && !(l[k] == '}' && l[k + 1] == '}')) k++;
                    if (k + 1 >= ll) die("%s:%d: unterminated {{", full, line);
                    const char *v = NULL;
                    for (int q = 0; q < ntv; q++)
                        if (strlen(tv[q].k) == k - j - 2 && !strncmp(tv[q].k, l + j + 2, k - j - 2)) v = tv[q].v;
                    if (!v) die("%s:%d: unknown placeholder {{%.*s}}", full, line, (int)(k - j - 2), l + j + 2);
                    fputs(v, F);
                    j = k + 1;
                } else fputc(l[j], F);
            }
            fputc('\n', F);
        } else {
            synced = 0;
        }
        i = e + 1;
        line++;
    }
    if (skip) die("%s: {{#if}} without {{/if}}", full);
    if (hdr_path) fputs(LINE_MARK, F);
}

/* An int32 array as a static const initializer, 16 a line. */
static void int32_array(const char *name, const int32_t *v, int n)
{
    fprintf(F, "static const int32_t %s[%d] = {", name, n);
    for (int k = 0; k < n; k++) fprintf(F, "%s%d", k ? (k % 16 ? ", " : ",\n    ") : "", v[k]);
    fprintf(F, "};\n");
}

/* An offloaded layer's constants: weights in the engine's layout, int32
   biases, and its requantization as data for the engine: shifts (shift
   kind), or TFLite multipliers and shifts, one per output channel. */
static void emit_offload_params(const Graph *g, const Op *op, int li)
{
    const TileInfo *ti = op->tile;
    int K = ti->full[TD_K];
    if (ti->wlayout) {
        fprintf(F, "/* layer %d: weights in the accelerator's layout (per output channel C-y-x) */\n", li);
        fprintf(F, "static const int8_t %s__layer%d_weights[%zu] HTC__ALIGN(16) HTC_ENGINE_WEIGHTS = {", N, li, ti->wlayout_bytes);
        put_values((const uint8_t *)ti->wlayout, DT_INT8, (int64_t)ti->wlayout_bytes);
        fprintf(F, "\n};\n");
        const int32_t *b = op->nin > 2 && op->in[2] >= 0 ? (const int32_t *)(const void *)g->tensors[op->in[2]].data : NULL;
        int32_t *bv = arena_alloc(sizeof(int32_t) * (size_t)K);
        for (int k = 0; k < K; k++) bv[k] = ti->bias ? ti->bias[k] : b ? b[k] : 0;
        int32_array(arena_printf("%s__layer%d_bias", N, li), bv, K);
    }
    for (int i = 0; i < ti->nconsts; i++) {    /* the engine's own arrays (target's `constants`) */
        const EngineConst *c = &ti->consts[i];
        const uint8_t *d = c->data;
        fprintf(F, "static const %s %s__layer%d_%s[%lld] HTC__ALIGN(16) = {", c->ctype, N, li, c->name,
                (long long)(c->n ? c->n : 1));
        if (!strcmp(c->ctype, "float") || !strcmp(c->ctype, "uint32_t")) {
            for (int64_t j = 0; j < c->n; j++) {      /* little endian words */
                uint32_t u = (uint32_t)d[4 * j] | (uint32_t)d[4 * j + 1] << 8 | (uint32_t)d[4 * j + 2] << 16 |
                             (uint32_t)d[4 * j + 3] << 24;
                float f;
                memcpy(&f, &u, 4);
                fputs(j ? (j % 8 ? ", " : ",\n    ") : "", F);
                if (c->ctype[0] == 'f') fprintf(F, "%.9ef", (double)f);
                else fprintf(F, "%luu", (unsigned long)u);
            }
        } else {
            DType ty = c->elem == 4 ? DT_INT32 : c->elem == 2 ? DT_INT16 : c->ctype[0] == 'u' ? DT_UINT8 : DT_INT8;
            put_values(d, ty, c->n);
        }
        fprintf(F, "%s\n};\n", c->n ? "" : "0");
    }
    if (op->rq_shifts) int32_array(arena_printf("%s__layer%d_sh", N, li), op->rq_shifts, op->nch);
    else if (op->rq == RQ_TFLITE && op->mult) {
        int32_t *m = arena_alloc(sizeof(int32_t) * (size_t)K), *sv = arena_alloc(sizeof(int32_t) * (size_t)K);
        for (int k = 0; k < K; k++) {
            m[k] = op->mult[op->nch > 1 ? k : 0];
            sv[k] = op->shift[op->nch > 1 ? k : 0];
        }
        int32_array(arena_printf("%s__layer%d_mult", N, li), m, K);
        int32_array(arena_printf("%s__layer%d_shift", N, li), sv, K);
    } else if (op->rq == RQ_QUANTLIB && op->mult) {      /* RequantShift: mul, add per output channel */
        int32_t *m = arena_alloc(sizeof(int32_t) * (size_t)K), *a = arena_alloc(sizeof(int32_t) * (size_t)K);
        for (int k = 0; k < K; k++) {
            m[k] = op->mult[op->nch > 1 ? k : 0];
            a[k] = op->rq_add[op->nch > 1 ? k : 0];
        }
        int32_array(arena_printf("%s__layer%d_qmul", N, li), m, K);
        int32_array(arena_printf("%s__layer%d_qadd", N, li), a, K);
    }
}

static void emit_offload(const Graph *g, const Target *t, const Op *op, int li)
{
    const TileInfo *ti = op->tile;
    const EngineOp *eo = engine_op(&t->engines[op->engine], op->kind);
    ntv = 0;
    tset("geom", ti->geom);
    {   /* one flag per geometry: {{#if dw}} etc. */
        static const char *const geoms[] = {"conv", "dw", "fc", "add", "pool"};
        for (size_t k = 0; k < sizeof geoms / sizeof geoms[0]; k++) tseti(geoms[k], !strcmp(ti->geom, geoms[k]));
    }
    tseti("layer", li);
    tseti("K", ti->full[TD_K]); tseti("C", ti->full[TD_C]); tseti("OY", ti->full[TD_OY]); tseti("OX", ti->full[TD_OX]);
    tseti("Kt", ti->size[TD_K]); tseti("Ct", ti->size[TD_C]); tseti("OYt", ti->size[TD_OY]); tseti("OXt", ti->size[TD_OX]);
    /* C tiled with int32 partial sums (partial_sums): the template loops
       over the C tiles inside each output tile, the first starts from the
       bias, the last requantizes */
    tseti("c_split", ti->c_split); tseti("not_c_split", !ti->c_split);
    tseti("c_tiles", (ti->full[TD_C] + ti->size[TD_C] - 1) / ti->size[TD_C]);
    tseti("IH", ti->in_h); tseti("IW", ti->in_w); tseti("KH", ti->k_h); tseti("KW", ti->k_w);
    tseti("SH", ti->s_h); tseti("SW", ti->s_w); tseti("PT", ti->pad_top); tseti("PL", ti->pad_left);
    tseti("db", ti->double_buffer);
    tseti("l1_bytes", ti->l1_bytes); tseti("w_bytes", ti->w_bytes); tseti("out_bytes", ti->out_bytes);
    /* L1: input buffer(s), second input, output buffer(s) */
    int64_t db = ti->double_buffer ? 2 : 1, o = 0;
    tseti("in_off0", 0); tseti("in_off1", ti->double_buffer ? ti->l1_in : 0); o = db * ti->l1_in;
    tseti("in2_off0", o); tseti("in2_off1", o + (ti->double_buffer ? ti->l1_in2 : 0)); o += db * ti->l1_in2;
    if (t->engines[op->engine].out_memory >= 0) {     /* the output tiles in the engine's `outputs` memory */
        tseti("out_off0", ti->out_base);
        tseti("out_off1", ti->out_base + (ti->double_buffer ? ti->out_bytes / 2 : 0));
    } else {
        tseti("out_off0", o); tseti("out_off1", o + (ti->double_buffer ? ti->l1_out : 0));
    }
    /* pointers as one parenthesised expression: {{in}}[i] and {{out}} + n
       mean what they say */
    tset("in", arena_printf("(%s)", ptr(g, op->in[0], 1)));
    tset("out", arena_printf("(%s)", ptr(g, op->out[0], 0)));
    tseti("in_zp", op->in_zp); tseti("out_zp", op->out_zp);
    tseti("qmin", op->act_min); tseti("qmax", op->act_max);
    tseti("per_channel", op->nch > 1);
    if (op->kind == OP_CONV2D || op->kind == OP_FC) {
        /* weight memory of one K tile (from w_off: 0, or after the tiles
           of a memory it shares): weights, int32 biases, then (TFLite)
           int32 multipliers and shifts */
        int wrow = op->kind == OP_FC ? op->in_c : op->in_c / op->groups * op->k_h * op->k_w;
        int64_t wtile = (int64_t)ti->size[TD_K] * (wrow / ti->full[TD_C] * ti->size[TD_C]);
        if (!strcmp(ti->geom, "dw")) wtile = (int64_t)ti->size[TD_K] * wrow;
        int64_t b_off = ti->w_base + ((wtile + 3) & ~3);
        tseti("wrow", wrow);
        tseti("w_off", ti->w_base);
        tseti("b_off", b_off);
        tseti("rq_off", b_off + 4 * (int64_t)ti->size[TD_K]);
    } else if (op->kind == OP_ADD && op->rq == RQ_FLOAT) {
        const htc__qbinary_params *p = op->params;
        tset("in2", arena_printf("(%s)", ptr(g, op->in[1], 1)));
        tseti("a_off", p->a_off); tseti("b_off", p->b_off); tseti("out_off", p->out_off);
        tseti("ra", op->add_shift[0]); tseti("rb", op->add_shift[1]); tseti("m", op->add_shift[2]);
        tseti("fix", op->add_fixed); tseti("qmin", p->qmin); tseti("qmax", p->qmax);
    }
    if (ti->wlayout) {
        tset("w", arena_printf("%s__layer%d_weights", N, li));
        tset("b", arena_printf("%s__layer%d_bias", N, li));
    }
    tseti("rounding", op->exact_shift ? op->shift_round : 0);   /* of the shift kind: 0 half to even, 1 TFLite's */
    tseti("pow2", op->rq_shifts != NULL);     /* conditions: shifts only, or TFLite's multipliers and shifts */
    tseti("q31", !op->rq_shifts && op->rq == RQ_TFLITE && op->mult);
    /* QuantLib's RequantShift: clip((acc * mul + add + 2^(s-1)) >> s, lo, hi) - off */
    int ql = op->rq == RQ_QUANTLIB && op->mult && !op->rq_shifts;
    tseti("ql", ql);
    tseti("not_ql", !ql);
    if (ql) {
        tset("qmul", arena_printf("%s__layer%d_qmul", N, li));
        tset("qadd", arena_printf("%s__layer%d_qadd", N, li));
        tseti("qshift", op->shift[0]);
    }
    if (op->rq_shifts) tset("sh", arena_printf("%s__layer%d_sh", N, li));
    else if (op->rq == RQ_TFLITE && op->mult) {
        tset("mult", arena_printf("%s__layer%d_mult", N, li));
        tset("shift", arena_printf("%s__layer%d_shift", N, li));
    }
    for (int i = 0; i < ti->nconsts; i++) {    /* {{name}}, {{name_n}}: the engine's own arrays */
        const EngineConst *c = &ti->consts[i];
        const char *nn = arena_printf("%s_n", c->name);
        for (int k = 0; k < ntv; k++)
            if (!strcmp(tv[k].k, c->name) || !strcmp(tv[k].k, nn))
                die("%s: constants '%s' of layer %d has the name of a placeholder htc sets (%s)", t->path, c->name, li, tv[k].k);
        tset(c->name, arena_printf("%s__layer%d_%s", N, li, c->name));
        tseti(nn, c->n);
    }
    expand(t, eo->template_file);
}

/* ---- cascades: layers run band by band (gen/cascade.c) --------------------- */

/* The step table of cascade ci: per step, each op's output rows [a, b)
   and its row-mapped inputs' rows [lo, hi), each band buffer's first
   row and the rows moved to its front before the step. */
static void emit_cascade_table(const Cascade *cs, int ci)
{
    fprintf(F, "/* cascade %d: layers %d..%d, %d steps of %d output rows */\n", ci, cs->first, cs->last, cs->nsteps,
            cs->band);
    fprintf(F, "static const int32_t %s__cascade%d[%d][%d] = {", N, ci, cs->nsteps, cs->ncols);
    for (int s = 0; s < cs->nsteps; s++) {
        fprintf(F, "%s\n    {", s ? "," : "");
        for (int k = 0; k < cs->ncols; k++) fprintf(F, "%s%d", k ? ", " : "", cs->tab[(size_t)s * (size_t)cs->ncols + (size_t)k]);
        fputc('}', F);
    }
    fprintf(F, "\n};\n");
}

/* elements of one row of a 4-D NHWC tensor */
static int64_t row_elems(const Tensor *t) { return (int64_t)t->shape[2] * t->shape[3]; }

/* The row of tensor x at the start of its storage in this step: a band
   buffer's origin column, or 0 for a whole tensor. */
static const char *origin(const Cascade *cs, int x)
{
    for (int i = 0; i < cs->nbuf; i++)
        if (cs->buf[i] == x) return arena_printf("r[%d]", cs->col_buf[i]);
    return "0";
}

/* pointer to row `row` (a C expression) of tensor x inside its storage */
static const char *row_ptr(const Graph *g, const Cascade *cs, int x, const char *row, int is_const, int64_t elems_per_row)
{
    return arena_printf("%s + (size_t)(%s - %s) * %lld", ptr(g, x, is_const), row, origin(cs, x), (long long)elems_per_row);
}

static void emit_cascade(const Graph *g, const Target *t, const Cascade *cs, int ci, int offloaded)
{
    const Tensor *sink = &g->tensors[g->ops[cs->last].out[0]];
    fprintf(F, "\n    /* cascade %d: layers %d..%d band by band, %d steps of %d rows of \"%s\"; band buffers keep the rows\n"
               "       the next step reads again (no row is computed twice) */\n",
            ci, cs->first, cs->last, cs->nsteps, cs->band, esc_c(sink->name));
    check_arenas("BEGIN", cs->first);
    for (int i = 0; i < g->ntensors; i++) {     /* every arena buffer the cascade touches */
        int used = 0;
        for (int k = cs->first; k <= cs->last && !used; k++) {
            const Op *op = &g->ops[k];
            used |= op->out[0] == i;
            for (int j = 0; j < op->nin; j++) used |= op->in[j] == i && reads_data(op, j);
        }
        if (!used) continue;
        int64_t aoff;
        int r = tensor_root(g, i, &aoff);
        if (g->tensors[r].storage != ST_ARENA) continue;
        fprintf(F, "    HTC_CHECK_BUFFER(\"%s\", %d, %s + %lld, %lld);\n", N, cs->first, arena_var(g->tensors[r].memory),
                (long long)(g->tensors[r].offset + aoff), (long long)buffer_bytes(&g->tensors[i]));
    }
    for (int k = cs->first; k <= cs->last; k++) mem_access(g, &g->ops[k], k);
    fprintf(F, "    HTC_PROFILE_BEGIN(\"%s\", %d, \"cascade\");\n", N, cs->first);
    fprintf(F, "    {\n        int s_;\n        for (s_ = 0; s_ < %d; s_++) {\n            const int32_t *r = %s__cascade%d[s_];\n",
            cs->nsteps, N, ci);
    for (int i = 0; i < cs->nbuf; i++) {
        const Tensor *x = &g->tensors[cs->buf[i]];
        int64_t re = row_elems(x);
        fprintf(F, "            if (r[%d]) memmove(%s, %s + (size_t)r[%d] * %lld, (size_t)r[%d] * %lld);\n",
                cs->col_buf[i] + 2, ptr(g, cs->buf[i], 0), ptr(g, cs->buf[i], 1), cs->col_buf[i] + 1, (long long)re,
                cs->col_buf[i] + 2, (long long)(re * (int64_t)dtype_size(x->type)));
    }
    for (int k = cs->first; k <= cs->last; k++) {
        const Op *op = &g->ops[k];
        const Tensor *out = &g->tensors[op->out[0]];
        int c = cs->col_op[k - cs->first];
        const char *fn = arena_printf("%s%s", op->kernel_fn, op->variant ? op->variant : "");
        const char *ty = op->params_type;
        char a[16], lo[16];
        snprintf(a, sizeof a, "r[%d]", c);
        snprintf(lo, sizeof lo, "r[%d]", c + 2);
        const char *o = row_ptr(g, cs, op->out[0], a, 0, row_elems(out));
        fprintf(F, "            /* layer %d: %s #%d -> \"%s\" */\n", k, esc_c(op->src_name), op->src_index, esc_c(out->name));
        fprintf(F, "            if (r[%d] < r[%d]) {\n                %s p_ = %s__layer%d_params;\n", c, c + 1, ty, N, k);
        switch (op->kind) {
        case OP_CONV2D: case OP_AVGPOOL: case OP_MAXPOOL: {
            int s = op->kind == OP_CONV2D ? ((const htc__conv_params *)op->params)->stride_h
                                          : ((const htc__pool_params *)op->params)->stride_h;
            int pt = op->kind == OP_CONV2D ? ((const htc__conv_params *)op->params)->pad_top
                                           : ((const htc__pool_params *)op->params)->pad_top;
            fprintf(F, "                p_.in_h = r[%d] - r[%d];\n                p_.out_h = r[%d] - r[%d];\n"
                       "                p_.pad_top = r[%d] - r[%d] * %d + %d;\n",
                    c + 3, c + 2, c + 1, c, c + 2, c, s, pt);
            fprintf(F, "                %s(&p_, %s, %s);\n", fn, row_ptr(g, cs, op->in[0], lo, 1, row_elems(&g->tensors[op->in[0]])), o);
            break;
        }
        case OP_PAD: {
            int pt = ((const htc__pad_params *)op->params)->before[2];
            fprintf(F, "                p_.in_shape[2] = r[%d] - r[%d];\n"
                       "                p_.before[2] = r[%d] > r[%d] ? r[%d] + %d - r[%d] : r[%d] - r[%d];\n"
                       "                p_.after[2] = r[%d] - r[%d] - p_.before[2] - p_.in_shape[2];\n",
                    c + 3, c + 2, c + 3, c + 2, c + 2, pt, c, c + 1, c, c + 1, c);
            fprintf(F, "                %s(&p_, %s, %s);\n", fn, row_ptr(g, cs, op->in[0], lo, 1, row_elems(&g->tensors[op->in[0]])), o);
            break;
        }
        case OP_ADD: case OP_MUL: {
            const htc__binary_params *p = op->params;
            const char *in[2];
            int m = 0;
            for (int j = 0; j < 2; j++) {
                int hs = j ? p->b_stride[1] : p->a_stride[1];
                const Tensor *x = &g->tensors[op->in[j]];
                if (x->rank == 4 && x->shape[1] == out->shape[1] && hs > 0) {
                    char l[16];
                    snprintf(l, sizeof l, "r[%d]", c + 2 + 2 * m++);
                    in[j] = row_ptr(g, cs, op->in[j], l, 1, hs);
                } else {
                    in[j] = ptr(g, op->in[j], 1);
                }
            }
            fprintf(F, "                p_.out_shape[1] = r[%d] - r[%d];\n", c + 1, c);
            fprintf(F, "                %s(&p_, %s, %s, %s);\n", fn, in[0], in[1], o);
            break;
        }
        case OP_CONCAT: {
            fprintf(F, "                {\n                    const void *const ins_[%d] = {", op->nin);
            for (int j = 0; j < op->nin; j++) {
                char l[16];
                snprintf(l, sizeof l, "r[%d]", c + 2 + 2 * j);
                fprintf(F, "%s%s", j ? ", " : "", row_ptr(g, cs, op->in[j], l, 1, row_elems(&g->tensors[op->in[j]])));
            }
            fprintf(F, "};\n                    p_.outer = (r[%d] - r[%d]) * %d;\n                    %s(&p_, ins_, %s);\n                }\n",
                    c + 1, c, out->shape[2], fn, o);
            break;
        }
        case OP_TABLE:
            fprintf(F, "                p_.size = (r[%d] - r[%d]) * %lld;\n", c + 1, c, (long long)row_elems(out));
            fprintf(F, "                %s(&p_, %s, %s);\n", fn, row_ptr(g, cs, op->in[0], lo, 1, row_elems(&g->tensors[op->in[0]])), o);
            break;
        default:
            die("internal: layer %d (%s) cannot run in a cascade", k, op_name(op->kind));
        }
        fprintf(F, "            }\n");
    }
    fprintf(F, "        }\n    }\n");
    if (offloaded)
        for (int k = cs->first; k <= cs->last; k++) device_account(g, t, &g->ops[k], k);
    fprintf(F, "    HTC_PROFILE_END(\"%s\", %d, \"cascade\");\n", N, cs->first);
    /* only the cascade's output exists whole */
    fprintf(F, "    HTC_TRACE(\"%s\", %d, %d, %s, %zu);\n", N, cs->last, sink->src_index, ptr(g, g->ops[cs->last].out[0], 1),
            tensor_bytes(sink));
}

/* the device model's clock: accelerator layers wait for their engines,
   CPU layers cost what the target's per-kernel cost model says */
static void device_account(const Graph *g, const Target *t, const Op *op, int li)
{
    if (op->tile) {
        fprintf(F, "    htc__dev_sync(%d);\n", li);
        return;
    }
    if (!engine_op(&t->engines[op->engine], op->kind)) return;
    fprintf(F, "    htc__dev_cpu(%d, %.17g, %.17g);\n", li, (double)op->macs, op->cycles_per_mac);
    if (op->cycles_per_elem > 0)
        fprintf(F, "    htc__dev_cpu(-1, %.17g, %.17g);\n", (double)tensor_numel(&g->tensors[op->out[0]]), op->cycles_per_elem);
}

/* The hardware constants of an engine's device model, from the target
   file (their one source): memory sizes and DMA rates, start-up cycles,
   the PE array and the engine's `device` table (HTC_DEV_<NAME>). */
/* One engine's hardware constants as HTC_DEV_<pre><X>: memory sizes, DMA
   rates, startup, array and its device table. pre is "" for the engine
   a single-engine device model reads, "<ENGINE>_" for every engine of the
   target (a model simulating several engines reads each one's own). */
static void device_defines(const Target *t, const Engine *e, const char *pre)
{
    const Memory *a = &t->memories[e->act_memory];
    fprintf(F, "#define HTC_DEV_%sACT_SIZE %lld\n", pre, (long long)a->size);
    if (e->weight_memory >= 0)
        fprintf(F, "#define HTC_DEV_%sW_SIZE %lld\n", pre, (long long)t->memories[e->weight_memory].size);
    if (a->dma_bytes_per_cycle > 0)
        fprintf(F, "#define HTC_DEV_%sDMA_BPC %.17g\n#define HTC_DEV_%sDMA_SETUP %d\n", pre, a->dma_bytes_per_cycle, pre,
                a->dma_setup);
    if (e->weight_memory >= 0 && t->memories[e->weight_memory].dma_bytes_per_cycle > 0)
        fprintf(F, "#define HTC_DEV_%sW_DMA_BPC %.17g\n#define HTC_DEV_%sW_DMA_SETUP %d\n", pre,
                t->memories[e->weight_memory].dma_bytes_per_cycle, pre, t->memories[e->weight_memory].dma_setup);
    if (e->out_memory >= 0) {
        const Memory *o = &t->memories[e->out_memory];
        fprintf(F, "#define HTC_DEV_%sOUT_SIZE %lld\n", pre, (long long)o->size);
        if (o->dma_bytes_per_cycle > 0)
            fprintf(F, "#define HTC_DEV_%sOUT_DMA_BPC %.17g\n#define HTC_DEV_%sOUT_DMA_SETUP %d\n", pre,
                    o->dma_bytes_per_cycle, pre, o->dma_setup);
    }
    fprintf(F, "#define HTC_DEV_%sSTARTUP %d\n", pre, e->startup);
    if (e->rows) fprintf(F, "#define HTC_DEV_%sROWS %d\n#define HTC_DEV_%sCOLS %d\n", pre, e->rows, pre, e->cols);
    for (int i = 0; i < e->ndevice; i++) fprintf(F, "#define HTC_DEV_%s%s %.17g\n", pre, e->device_names[i], e->device_values[i]);
}

/* "<ENGINE>_": the engine's name upper-cased, other than [A-Z0-9] as _ */
static const char *engine_prefix(const Engine *e)
{
    char *s = arena_printf("%s_", e->name);
    for (char *c = s; *c; c++) *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
    return s;
}

/* A layer tiled into the cluster's L1 (tile.c tile_cluster): the function
   the cores run on band ctx->tile (the kernel's fn_band on the band's L1
   buffers, weights and bias from L1), and the two DMA starts of a band,
   its input rows in and its output rows out. */
static void emit_band_layer(const Graph *g, const Op *op, int li)
{
    const ClusterTile *ct = op->ctile;
    const char *pt = op->params_type;
    fprintf(F, "\n/* layer %d: %s #%d in L1: %d bands of %d output rows */\n"
               "static void %s__layer%d_band(void *ctx_, int core, int ncores)\n{\n"
               "    const %s__ctx *ctx = (const %s__ctx *)ctx_;\n    const int t = ctx->tile;\n"
               "    const int32_t y0 = t * %d, y1 = y0 + %d < %d ? y0 + %d : %d;\n"
               "    %s p = %s__layer%d_params;\n",
            li, op->src_name, op->src_index, ct->ntiles, ct->rows, N, li, N, N, ct->rows, ct->rows, op->out_h, ct->rows,
            op->out_h, pt, N, li);
    if (ct->w_bytes) fprintf(F, "    p.weights = (const int8_t *)(const void *)(ctx->l1 + %lld);\n", (long long)ct->off_w);
    if (ct->b_bytes) fprintf(F, "    if (p.bias) p.bias = (const int32_t *)(const void *)(ctx->l1 + %lld);\n", (long long)ct->off_b);
    if (ct->q_bytes) fprintf(F, "    p.xq2 = (const int32_t *)(const void *)(ctx->l1 + %lld);\n", (long long)ct->off_q);
    fprintf(F, "    %s%s_band(&p, (const int8_t *)(ctx->l1 + (t & 1 ? %lld : %lld)), (int8_t *)(ctx->l1 + (t & 1 ? %lld : %lld)), y0, y1, %s, core, ncores);\n}\n",
            op->kernel_fn, op->variant ? op->variant : "", (long long)ct->off_in[1], (long long)ct->off_in[0],
            (long long)ct->off_out[1], (long long)ct->off_out[0],
            op->split == SPLIT_CHANNELS ? "HTC_SPLIT_CHANNELS" : "HTC_SPLIT_ROWS");
    int dil = op->kind == OP_CONV2D ? op->dil_h : 1;
    long long in_row = (long long)op->in_w * op->in_c, out_row = (long long)op->out_w * op->out_c;
    fprintf(F, "static int %s__layer%d_band_in(uint8_t *l1, const int8_t *src, int t)\n{\n"
               "    const int32_t y0 = t * %d, y1 = y0 + %d < %d ? y0 + %d : %d;\n    int32_t iy0, ih, pad;\n"
               "    htc__rows_view(%d, %d, %d, %d, %d, y0, y1, &iy0, &ih, &pad);\n    (void)pad;\n"
               "    return HTC_DMA_START(l1 + (t & 1 ? %lld : %lld), src + (size_t)iy0 * %lld, (size_t)ih * %lld);\n}\n",
            N, li, ct->rows, ct->rows, op->out_h, ct->rows, op->out_h, op->in_h, op->k_h, op->stride_h, dil, op->pad_top,
            (long long)ct->off_in[1], (long long)ct->off_in[0], in_row, in_row);
    fprintf(F, "static int %s__layer%d_band_out(uint8_t *l1, int8_t *dst, int t)\n{\n"
               "    const int32_t y0 = t * %d, y1 = y0 + %d < %d ? y0 + %d : %d;\n"
               "    return HTC_DMA_START(dst + (size_t)y0 * %lld, l1 + (t & 1 ? %lld : %lld), (size_t)(y1 - y0) * %lld);\n}\n",
            N, li, ct->rows, ct->rows, op->out_h, ct->rows, op->out_h, out_row, (long long)ct->off_out[1],
            (long long)ct->off_out[0], out_row);
}

/* The run function's part of a tiled layer: weights and the first band
   in, then per band: wait for its input, start the next band's, the cores
   compute, wait for the previous band's output, start this one's. */
static void emit_band_run(const Graph *g, const Op *op, int li)
{
    const ClusterTile *ct = op->ctile;
    fprintf(F, "    {   /* %d bands in L1 (%lld bytes), double-buffered */\n"
               "        uint8_t *l1 = %s__L1BASE;\n        const int8_t *src = %s;\n        int8_t *dst = %s;\n"
               "        int t, hin, hout = 0, hw = 0, hb = 0;\n        ctx.l1 = l1;\n",
            ct->ntiles, (long long)ct->l1_bytes, N, ptr(g, op->in[0], 1), ptr(g, op->out[0], 0));
    if (ct->w_bytes) fprintf(F, "        hw = HTC_DMA_START(l1 + %lld, %s__layer%d_params.weights, %lld);\n", (long long)ct->off_w, N, li, (long long)ct->w_bytes);
    if (ct->b_bytes) fprintf(F, "        if (%s__layer%d_params.bias) hb = HTC_DMA_START(l1 + %lld, %s__layer%d_params.bias, %lld);\n", N, li, (long long)ct->off_b, N, li, (long long)ct->b_bytes);
    if (ct->q_bytes)        /* the requantization records (a dense conv's, op.xq2) */
        fprintf(F, "        const int hq = HTC_DMA_START(l1 + %lld, %s__layer%d_params.xq2, %lld);\n",
                (long long)ct->off_q, N, li, (long long)ct->q_bytes);
    fprintf(F, "        hin = %s__layer%d_band_in(l1, src, 0);\n"
               "        HTC_DMA_WAIT(hw);\n        HTC_DMA_WAIT(hb);\n", N, li);
    if (ct->q_bytes) fprintf(F, "        HTC_DMA_WAIT(hq);\n");
    fprintf(F, "        for (t = 0; t < %d; t++) {\n"
               "            HTC_DMA_WAIT(hin);\n"
               "            if (t + 1 < %d) hin = %s__layer%d_band_in(l1, src, t + 1);\n"
               "            ctx.tile = t;\n"
               "            HTC_PAR_RUN(%s__layer%d_band, &ctx, %s);\n"
               "            if (t > 0) HTC_DMA_WAIT(hout);\n"
               "            hout = %s__layer%d_band_out(l1, dst, t);\n"
               "        }\n        HTC_DMA_WAIT(hout);\n    }\n",
            ct->ntiles, ct->ntiles, N, li, N, li,
            op->cores > 1 ? arena_printf("%s_CORES", NU) : "1", N, li);     /* kept on one core by the estimate: 1 */
}

/* The layers forked over the cluster's cores: one function each,
   fn(ctx, core, ncores), calling the kernel's parallel entry point with
   the run's arena, inputs and outputs from ctx. Returns how many. */
static int emit_par_layers(const Graph *g, const Target *t)
{
    int n = 0;
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        if ((op->cores <= 1 && !op->ctile) || op->inplace || op->cascade) continue;
        if (!n++)
            fprintf(F, "\n/* cluster layers: run on every core by HTC_PAR_RUN, each computing its share */\n"
                       "typedef struct {\n    uint8_t *arena;\n    const void *const *inputs;\n    void *const *outputs;\n"
                       "    uint8_t *l1;                /* the tiles' buffers */\n    int tile;                   /* the band being computed */\n%s} %s__ctx;\n",
                    P->narenas > 1 ? arena_printf("    uint8_t *arena1, *arena2, *arena3, *arena4, *arena5, *arena6, *arena7;\n") : "", N);
        if (op->ctile) {
            fprintf(F, "#ifdef %s_L1\n", NU);
            emit_band_layer(g, op, i);
            fprintf(F, "#endif\n");
            if (op->cores <= 1) continue;       /* without NAME_L1: the plain call */
            fprintf(F, "#ifndef %s_L1\n", NU);
        }
        fprintf(F, "\n/* layer %d: %s #%d, split by %s */\nstatic void %s__layer%d_par(void *ctx_, int core, int ncores)\n{\n"
                   "    const %s__ctx *ctx = (const %s__ctx *)ctx_;\n    uint8_t *arena = ctx->arena;\n"
                   "    const void *const *inputs = ctx->inputs;\n    void *const *outputs = ctx->outputs;\n"
                   "    (void)arena;\n    (void)inputs;\n    (void)outputs;\n",
                i, esc_c(op->src_name), op->src_index, split_names[op->split], N, i, N, N);
        for (int k = 1; k < P->narenas; k++) fprintf(F, "    uint8_t *arena%d = ctx->arena%d;\n    (void)arena%d;\n", k, k, k);
        par_tail = op->split == SPLIT_CHANNELS ? ", HTC_SPLIT_CHANNELS, core, ncores" : ", HTC_SPLIT_ROWS, core, ncores";
        emit_call(g, t, op, i);
        par_tail = NULL;
        fprintf(F, "}\n");
        if (op->ctile) fprintf(F, "#endif\n");
    }
    return n;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* a compiler command without the directory of the compiler */
static const char *cc_name(const char *cc)
{
    const char *sp = strchr(cc, ' '), *b = cc;
    for (const char *c = cc; *c && (!sp || c < sp); c++)
        if (*c == '/') b = c + 1;
    return b;
}

static const PruneFile *load(const Target *t, const char *path)
{
    size_t len;
    const char *src = (const char *)read_file(target_resolve(t, path), &len);
    return prune_add(path, src, len);
}

/* After the API: the implementation's guard, the runtime it needs (the
   files cut to what body, the implementation's own code, uses) and the
   device models' hardware constants. */
static void emit_runtime(const Graph *g, const Target *t, const char *body, size_t body_len, int offloaded, unsigned isa)
{
    fprintf(F, "#if defined(%s_IMPLEMENTATION) && !defined(%s_IMPLEMENTED)\n#define %s_IMPLEMENTED\n\n", NU, NU, NU);
    /* htc.h, the device models' common part, each kernel file once (in
       target order), as the prune pass cuts them */
    prune_reset(isa);
    const PruneFile *rt = load(t, "htc.h"), *dev = offloaded ? load(t, "kernels/device.c") : NULL;
    const PruneFile **kf = arena_alloc(sizeof(PruneFile *) * (size_t)(g->nops + 1));
    const char **done = arena_alloc(sizeof(char *) * (size_t)(g->nops + 1));
    int ndone = 0;
    for (int i = 0; i < g->nops; i++) {
        const char *k = g->ops[i].kernel_file;
        if (!k) continue;
        int seen = 0;
        for (int j = 0; j < ndone; j++) seen |= strcmp(done[j], k) == 0;
        if (seen) continue;
        kf[ndone] = load(t, k);
        done[ndone++] = k;
    }
    prune_roots(body, body_len);
    prune_write(F, rt);
    if (offloaded) {
        prune_write(F, dev);    /* what every device model shares */
        /* the device model checks accesses against the declared memories:
           the core constants of the first engine (in target order) that
           runs a layer, then the device tables of the others (a name the
           first defined already keeps its value); and every engine's own
           constants prefixed with its name (HTC_DEV_DIGITAL_ROWS), for a
           model that simulates several engines in one header */
        int first = -1;
        for (int e = 0; e < t->nengines; e++) {
            int used = 0;
            for (int i = 0; i < g->nops; i++) used |= g->ops[i].tile && g->ops[i].engine == e;
            if (!used) continue;
            const Engine *en = &t->engines[e];
            if (first < 0) {
                device_defines(t, en, "");
                first = e;
                continue;
            }
            for (int k = 0; k < en->ndevice; k++)
                fprintf(F, "#ifndef HTC_DEV_%s\n#define HTC_DEV_%s %.17g\n#endif\n", en->device_names[k], en->device_names[k],
                        en->device_values[k]);
        }
        for (int e = 0; e < t->nengines; e++) {
            int used = 0;
            for (int i = 0; i < g->nops; i++) used |= g->ops[i].tile && g->ops[i].engine == e;
            device_defines(t, &t->engines[e], engine_prefix(&t->engines[e]));
            if (used) fprintf(F, "#define HTC_DEV_%sUSED 1\n", engine_prefix(&t->engines[e]));
        }
    }
    for (int i = 0; i < ndone; i++) prune_write(F, kf[i]);
}

/* The implementation's own code from memory, each template's marker
   line replaced by the #line directive back to the header's own lines. */
static void copy_body(const char *body, size_t len)
{
    long line = hdr_path ? header_line() : 0;
    const char *s = body, *e = body + len;
    while (s < e) {
        const char *m = hdr_path ? memchr(s, LINE_MARK[0], (size_t)(e - s)) : NULL;
        if (!m) {
            fwrite(s, 1, (size_t)(e - s), F);
            break;
        }
        fwrite(s, 1, (size_t)(m - s), F);
        for (const char *c = s; (c = memchr(c, '\n', (size_t)(m - c))); c++) line++;
        line_directive(line + 2, hdr_path);
        line++;
        s = m + strlen(LINE_MARK);
    }
}

/* The instruction sets whose paths the header keeps: the CPU's, and x86's
   when htc itself compiles it for this machine (htc run, verify) */
static unsigned header_isa(const Target *t, const EmitOptions *o)
{
    return t->engines[0].isa | (o->host ? ISA_X86 : 0);
}

static const char *isa_names(unsigned isa)
{
    static const char *const names[] = {"x86", "arm-dsp", "mve", "xpulpv2"};
    const char *s = "";
    for (int k = 0; k < 4; k++)
        if (isa & 1u << k) s = arena_printf("%s%s, ", s, names[k]);
    return arena_printf("%sportable C", s);
}

void emit(FILE *f, Graph *g, Target *t, Plan *p, const EmitOptions *o)
{
    F = f;
    P = p;
    T = t;
    HISA = header_isa(t, o);
    counted_at = counted_lines = 0;
    /* #line needs a seekable output; the header's own lines are named
       NAME.h (as it is included), so the text does not depend on -o */
    hdr_path = o->path && ftell(f) == 0 ? arena_printf("%s.h", o->name) : NULL;
    N = o->name;
    BLOB = blob_usable(o->blob) ? o->blob : NULL;
    name_constants(g);
    {   /* the parameter blocks' fields, from the htc.h pasted */
        size_t len;
        const char *src = (const char *)read_file(target_resolve(t, "htc.h"), &len);
        nfields = 0;
        read_fields(src, len);
    }
    NU = arena_alloc(strlen(N) + 1);
    upper(N, NU);
    size_t tlen;
    const uint8_t *tsrc = read_file(t->path, &tlen);
    uint32_t th = 2166136261u;
    for (size_t i = 0; i < tlen; i++) th = (th ^ tsrc[i]) * 16777619u;

    /* the model and the target by file name and content hash: the same
       inputs give the same bytes from any directory */
    fprintf(F, "/* %s.h - int8 inference, generated by htc %s; do not edit.\n\n", N, HTC_VERSION);
    fprintf(F, "   model:   %s (fnv1a %08x)\n   target:  %s \"%s\" (fnv1a %08x)\n", esc_c(base_name(g->path)), g->hash,
            esc_c(base_name(t->path)), esc_c(t->name), th);
    if (t->nparams) {       /* the target's parameters as this header was built with them */
        fprintf(F, "   params: ");
        for (int i = 0; i < t->nparams; i++)
            fprintf(F, " %s=%s%s", esc_c(t->params[i].name), esc_c(t->params[i].value), t->params[i].set ? " (-D)" : "");
        fputc('\n', F);
    }
    fprintf(F, "   isa:     %s\n", isa_names(header_isa(t, o)));
    fputc('\n', F);
    if (p->narenas <= 1) {
        fprintf(F, "   Usage: in exactly one C or C++ file\n"
                   "       #define %s_IMPLEMENTATION\n       #include \"%s.h\"\n"
                   "   and include it plainly elsewhere. Then\n"
                   "       static uint8_t arena[%s_ARENA_SIZE];   (aligned to %s_ARENA_ALIGN)\n"
                   "       int err = %s_run(input, output, arena);  (0 = ok)\n"
                   "   or %s_run_multi(inputs, outputs, arena) with one pointer per tensor.\n"
                   "   No malloc, no stdio, no globals: reentrant with one arena per call.\n\n",
                NU, N, NU, NU, N, N);
    } else {
        fprintf(F, "   Usage: in exactly one C or C++ file\n"
                   "       #define %s_IMPLEMENTATION\n       #include \"%s.h\"\n"
                   "   and include it plainly elsewhere. The target has %d data memories; the\n"
                   "   buffers are placed across them (htc report says which went where and why),\n"
                   "   so the run functions take one arena per memory, each in that memory:\n",
                NU, N, p->narenas);
        for (int k = 0; k < p->narenas; k++) {
            const Memory *m = &t->memories[p->arenas[k].memory];
            fprintf(F, "       static uint8_t arena_%s[%s];   (aligned to %s; in %s, cost %g per byte)\n", m->name,
                    arena_macro(k, "SIZE"), arena_macro(k, "ALIGN"), m->name, m->cost);
        }
        fprintf(F, "       int err = %s_run(input, output, %s);  (0 = ok)\n"
                   "   or %s_run_multi(inputs, outputs, %s) with one pointer per tensor.\n"
                   "   %s_ARENAS is the number of arenas, %s_ARENA_SIZE their bytes together.\n"
                   "   No malloc, no stdio, no globals: reentrant with one set of arenas per call.\n\n",
                N, arena_params(0, ""), N, arena_params(0, ""), NU, NU);
    }
    fprintf(F, "   The implementation pastes htc's runtime (htc.h) and the kernels the layers\n"
               "   call, cut to the definitions this model reaches, each under its own guard:\n"
               "   several models' implementations may share one file.\n\n");
    fprintf(F, "   Hooks (define before including): HTC_TRACE(model, layer, tensor, data, bytes)\n"
               "   after each layer; HTC_PROFILE_BEGIN/END(model, layer, name) around it.\n"
               "   HTC_SOFT_FLOAT_EXACT=1 / =0: onnxruntime's float arithmetic (ONNX models) by\n"
               "   its exact integer emulation / in float; default 1 on cores without an FPU.\n\n");
    int forks_doc = t->engines[0].cores > 1;
    for (int i = 0; i < g->nops; i++) forks_doc |= g->ops[i].ctile != NULL;
    if (forks_doc)
        fprintf(F, "   Cluster (%d cores): HTC_PAR_RUN(fn, ctx, ncores) must run fn(ctx, core, ncores) for every\n"
                   "   core = 0..ncores-1 and return when all have returned (default: one after the other\n"
                   "   on the calling core); %s_CORES is the ncores passed.\n\n",
                t->engines[0].cores, NU);
    io_doc(g, "input", g->inputs, g->ninputs);
    io_doc(g, "output", g->outputs, g->noutputs);
    fprintf(F, "*/\n#ifndef %s_H_INCLUDED\n#define %s_H_INCLUDED\n\n", NU, NU);
    int64_t l1size = 0, asize = p->arena_size ? p->arena_size : p->alignment;
    for (int i = 0; i < g->nops; i++)
        if (g->ops[i].ctile && !g->ops[i].inplace && !g->ops[i].cascade && g->ops[i].ctile->l1_bytes > l1size)
            l1size = g->ops[i].ctile->l1_bytes;
    if (p->narenas > 1) {
        /* one arena per data memory (an empty one still has its alignment's bytes) */
        fprintf(F, "#define %s_ARENAS %d\n", NU, p->narenas);
        int64_t total = 0;
        for (int k = 0; k < p->narenas; k++) {
            int64_t sz = p->arenas[k].size ? p->arenas[k].size : p->arenas[k].alignment;
            total += sz;
            fprintf(F, "#define %s %lld\n#define %s %d\n", arena_macro(k, "SIZE"), (long long)sz, arena_macro(k, "ALIGN"),
                    p->arenas[k].alignment);
        }
        fprintf(F, "#define %s_ARENA_SIZE %lld\n", NU, (long long)total);
        if (l1size) fprintf(F, "#define %s_L1_SIZE %lld\n", NU, (long long)l1size);
    } else if (l1size) {
        /* the cluster's L1 tiles, used when the firmware says where its L1 is (NAME_L1) */
        fprintf(F, "#define %s_ARENA_SIZE %lld\n#define %s_ARENA_ALIGN %d\n#define %s_L1_SIZE %lld\n", NU, (long long)asize, NU,
                p->alignment, NU, (long long)l1size);
    } else {
        fprintf(F, "#define %s_ARENA_SIZE %lld\n#define %s_ARENA_ALIGN %d\n", NU, (long long)asize, NU, p->alignment);
    }
    for (int i = 0; i < p->nstack; i++) {
        /* the compiler's name (without its directory: reproducible) as a
           macro suffix: arm-none-eabi-gcc -> ARM_NONE_EABI_GCC */
        const char *cc = cc_name(p->stack_cc[i]);
        char tag[64];
        int n = 0;
        for (const char *c = cc; *c && *c != ' ' && n < 60; c++)
            tag[n++] = (char)(isalnum((unsigned char)*c) ? toupper((unsigned char)*c) : '_');
        tag[n] = 0;
        for (int j = 0; j < i; j++) {
            const char *cj = cc_name(p->stack_cc[j]);
            if (!strncmp(cj, cc, (size_t)n) && (cj[n] == ' ' || !cj[n])) snprintf(tag + n, sizeof tag - (size_t)n, "_%d", i);
        }
        fprintf(F, "/* measured: %s -fstack-usage -fcallgraph-info */\n", esc_c(cc));
        if (t->engines[0].cores > 1)    /* every other core runs layer functions on its own stack */
            fprintf(F, "#define %s_STACK_SIZE_%s %lld  /* the calling core (core 0) */\n"
                       "#define %s_CORE_STACK_SIZE_%s %lld  /* each other core: the layer functions, besides the fork hook's own */\n"
                       "#define %s_RAM_SIZE_%s (%s_ARENA_SIZE + %s_STACK_SIZE_%s + (%s_CORES - 1) * %s_CORE_STACK_SIZE_%s)\n",
                    NU, tag, (long long)p->stack_bytes[i], NU, tag, (long long)p->stack_core[i], NU, tag, NU, NU, tag, NU, NU, tag);
        else
            fprintf(F, "#define %s_STACK_SIZE_%s %lld\n#define %s_RAM_SIZE_%s (%s_ARENA_SIZE + %s_STACK_SIZE_%s)\n", NU, tag,
                    (long long)p->stack_bytes[i], NU, tag, NU, NU, tag);
        if (p->code_bytes[i] >= 0)      /* the object's code, constants (the weights among them) and initialised data */
            fprintf(F, "#define %s_CODE_SIZE_%s %lld\n#define %s_CONST_SIZE_%s %lld\n"
                       "#define %s_FLASH_SIZE_%s %lld  /* code + constants + initialised data */\n",
                    NU, tag, (long long)p->code_bytes[i], NU, tag, (long long)p->const_bytes[i], NU, tag,
                    (long long)(p->code_bytes[i] + p->const_bytes[i] + p->data_bytes[i]));
    }
    /* always defined (1 for one core), so code written for a multi-core header compiles against any */
    fprintf(F, "/* cores of the cluster the layers are divided over (HTC_PAR_RUN); any count gives the same bytes */\n"
               "#ifndef %s_CORES\n#define %s_CORES %d\n#endif\n", NU, NU, t->engines[0].cores);
    fprintf(F, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", NU, g->ninputs, NU, g->noutputs);
    size_t isz = 0, osz = 0;
    for (int i = 0; i < g->ninputs; i++) isz += tensor_bytes(&g->tensors[g->inputs[i]]);
    for (int i = 0; i < g->noutputs; i++) osz += tensor_bytes(&g->tensors[g->outputs[i]]);
    /* the single-buffer sizes cover every input (output) back to back */
    fprintf(F, "#define %s_INPUT_SIZE %zu\n#define %s_OUTPUT_SIZE %zu\n", NU, isz, NU, osz);
    io_macros(g, "INPUT", g->inputs, g->ninputs);
    io_macros(g, "OUTPUT", g->outputs, g->noutputs);
    int nvar = 0;
    for (int i = 0; i < g->ntensors; i++) nvar += g->tensors[i].variable && g->tensors[i].storage == ST_ARENA;
    if (nvar)
        fprintf(F, "\n/* The model keeps state (LSTM / SVDF variable tensors, the signal library's\n"
                   "   noise estimate, delay lines, overlap-add buffers) in the arena. By default every\n"
                   "   run starts from the reset state (TFLite Micro's state after AllocateTensors or\n"
                   "   Reset). Define %s_KEEP_STATE before the implementation to keep it from one run\n"
                   "   to the next (TFLite Micro's repeated Invoke, e.g. streaming SVDF); then call\n"
                   "   %s_reset(%s) before the first run and whenever the stream restarts. */\n", NU, N, arena_params(0, ""));
    fprintf(F, "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
               "int %s_run(const void *input, void *output, %s);\n"
               "int %s_run_multi(const void *const *inputs, void *const *outputs, %s);\n",
            N, arena_params(1, ""), N, arena_params(1, ""));
    if (nvar) fprintf(F, "void %s_reset(%s);\n", N, arena_params(1, ""));
    fprintf(F, "#ifdef __cplusplus\n}\n#endif\n#endif /* %s_H_INCLUDED */\n\n", NU);

    /* the implementation's own code first, in memory: the names it uses
       decide which runtime definitions are pasted before it */
    FILE *out = F;
    char *body = NULL;
    size_t body_len = 0;
    F = open_memstream(&body, &body_len);
    if (!F) die("out of memory");
    int offloaded = 0;
    for (int i = 0; i < g->nops; i++) offloaded |= g->ops[i].tile != NULL;
    emit_consts(g);
    fprintf(F, "/* ---- layer parameters ---- */\n");
    {   /* the blocks as positional initializers, then with field names */
        FILE *body = F;
        char *pb = NULL;
        size_t pb_len = 0;
        F = open_memstream(&pb, &pb_len);
        if (!F) die("out of memory");
        for (int i = 0; i < g->nops; i++) emit_params(g, &g->ops[i], i);
        if (fclose(F) != 0) die("out of memory");
        F = body;
        named_initializers(pb, pb_len);
        free(pb);
    }
    for (int i = 0; i < g->ncascades; i++) emit_cascade_table(&g->cascades[i], i);

    if (nvar) {                         /* the variable tensors' reset values */
        fprintf(F, "\n#ifdef __cplusplus\nextern \"C\"\n#endif\nvoid %s_reset(%s)\n{\n", N, arena_params(1, "_"));
        arena_locals();
        for (int i = 0; i < g->ntensors; i++)
            if (g->tensors[i].variable && g->tensors[i].storage == ST_ARENA) {
                int64_t aoff;
                int r = tensor_root(g, i, &aoff);
                const Tensor *v = &g->tensors[i];
                if (v->reset_data) {    /* a resource variable's constant start */
                    size_t n = tensor_bytes(v);
                    fprintf(F, "    {\n        static const uint8_t v[%zu] = {", n);
                    for (size_t k = 0; k < n; k++) fprintf(F, "%s%u", k ? (k % 24 ? "," : ",\n            ") : "", v->reset_data[k]);
                    fprintf(F, "};\n        memcpy(%s + %lld, v, %zu);\n    }\n", arena_var(g->tensors[r].memory),
                            (long long)(g->tensors[r].offset + aoff), n);
                    continue;
                }
                fprintf(F, "    memset(%s + %lld, %d, %zu);\n", arena_var(g->tensors[r].memory), (long long)(g->tensors[r].offset + aoff),
                        v->reset_byte, tensor_bytes(v));
            }
        for (int k = 0; k < p->narenas; k++) fprintf(F, "    (void)arena%.0d;\n", k);
        fprintf(F, "}\n");
    }
    int npar = emit_par_layers(g, t);
    if (l1size) fprintf(F, "#ifdef %s_L1\n#define %s__L1BASE ((uint8_t *)(%s_L1))\n#endif\n", NU, N, NU);
    fprintf(F, "\n#ifdef __cplusplus\nextern \"C\"\n#endif\n"
               "int %s_run_multi(const void *const *inputs, void *const *outputs, %s)\n{\n", N, arena_params(1, "_"));
    arena_locals();
    if (npar) fprintf(F, "    %s__ctx ctx;\n", N);
    if (p->narenas <= 1) {
        fprintf(F, "    if (!inputs || !outputs || !arena || ((uintptr_t)arena & (%s_ARENA_ALIGN - 1)) != 0) return -1;\n", NU);
    } else {
        fprintf(F, "    if (!inputs || !outputs) return -1;\n");
        for (int k = 0; k < p->narenas; k++)
            fprintf(F, "    if (!arena%.0d || ((uintptr_t)arena%.0d & (%s - 1)) != 0) return -1;\n", k, k, arena_macro(k, "ALIGN"));
    }
    if (npar) {
        fprintf(F, "    ctx.arena = arena;\n");
        for (int k = 1; k < p->narenas; k++) fprintf(F, "    ctx.arena%d = arena%d;\n", k, k);
        fprintf(F, "    ctx.inputs = inputs;\n    ctx.outputs = outputs;\n    (void)ctx;\n");
    }
    if (nvar) {
        const char *a = "arena";
        for (int k = 1; k < p->narenas; k++) a = arena_printf("%s, arena%d", a, k);
        fprintf(F, "#ifndef %s_KEEP_STATE\n    %s_reset(%s);\n#endif\n", NU, N, a);
    }
    if (offloaded) fprintf(F, "    htc__dev_reset();\n");
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        const Tensor *out = &g->tensors[op->out[0]];
        if (op->cascade) {
            const Cascade *cs = &g->cascades[op->cascade - 1];
            emit_cascade(g, t, cs, op->cascade - 1, offloaded);
            i = cs->last;
            continue;
        }
        fprintf(F, "\n    /* layer %d: %s #%d on %s -> \"%s\" %s ", i, esc_c(op->src_name), op->src_index,
                esc_c(t->engines[op->engine].name), esc_c(out->name), dtype_name(out->type));
        shape_str(F, out);
        fprintf(F, " */\n");
        check_arenas("BEGIN", i);
        check_buffers(g, op, i);
        mem_access(g, op, i);
        /* a reshape sharing its input's storage runs nothing: no profile
           hooks around it (the estimate's 0 cycles, dispatch.c) */
        const int runs = !(op->kind == OP_RESHAPE && out->storage == ST_ALIAS);
        if (runs) fprintf(F, "    HTC_PROFILE_BEGIN(\"%s\", %d, \"%s\");\n", N, i, op_name(op->kind));
        if (op->ctile && !op->inplace) {
            fprintf(F, "#ifdef %s_L1\n", NU);
            emit_band_run(g, op, i);
            fprintf(F, "#else\n");
        }
        if (op->cores > 1 && !op->inplace)
            fprintf(F, "    HTC_PAR_RUN(%s__layer%d_par, &ctx, %s_CORES);\n", N, i, NU);
        else
            emit_call(g, t, op, i);
        if (op->ctile && !op->inplace) fprintf(F, "#endif\n");
        if (offloaded) device_account(g, t, op, i);
        if (runs) fprintf(F, "    HTC_PROFILE_END(\"%s\", %d, \"%s\");\n", N, i, op_name(op->kind));
        fprintf(F, "    HTC_TRACE(\"%s\", %d, %d, %s, %zu);\n", N, i, out->src_index, ptr(g, op->out[0], 1),
                tensor_bytes(out));
        for (int k = 1; k < op->nout; k++)      /* more outputs of the model's (LSTM: the final state) */
            if (g->tensors[op->out[k]].src_index >= 0)
                fprintf(F, "    HTC_TRACE(\"%s\", %d, %d, %s, %zu);\n", N, i, g->tensors[op->out[k]].src_index,
                        ptr(g, op->out[k], 1), tensor_bytes(&g->tensors[op->out[k]]));
    }
    check_arenas("END", -1);
    fprintf(F, "    (void)inputs;\n    (void)outputs;\n    (void)arena;\n");
    for (int k = 1; k < P->narenas; k++) fprintf(F, "    (void)arena%d;\n", k);
    fprintf(F, "    return 0;\n}\n\n");
    fprintf(F, "#ifdef __cplusplus\nextern \"C\"\n#endif\n"
               "int %s_run(const void *input, void *output, %s)\n{\n"
               "    const void *ins[%d];\n    void *outs[%d];\n",
            N, arena_params(1, ""), g->ninputs, g->noutputs);
    /* the single-buffer form packs all inputs and outputs back to back */
    size_t off = 0;
    for (int i = 0; i < g->ninputs; i++) {
        fprintf(F, "    ins[%d] = (const uint8_t *)input + %zu;\n", i, off);
        off += tensor_bytes(&g->tensors[g->inputs[i]]);
    }
    off = 0;
    for (int i = 0; i < g->noutputs; i++) {
        fprintf(F, "    outs[%d] = (uint8_t *)output + %zu;\n", i, off);
        off += tensor_bytes(&g->tensors[g->outputs[i]]);
    }
    fprintf(F, "    if (!input || !output) return -1;\n    return %s_run_multi(ins, outs, %s);\n}\n\n", N, arena_params(0, ""));
    fprintf(F, "#endif /* %s_IMPLEMENTATION */\n", NU);
    if (fclose(F) != 0) die("out of memory");
    F = out;
    emit_runtime(g, t, body, body_len, offloaded, header_isa(t, o));
    copy_body(body, body_len);
    free(body);
}
