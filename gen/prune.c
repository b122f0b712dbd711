/* prune.c - the runtime files pasted into a header (htc.h, the kernel files),
   cut to the top-level definitions the generated code reaches. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* A source file is a sequence of pieces, each whole lines: a top-level
   declaration or definition (an item, with the comment and blank lines
   before it), a preprocessor directive (with its comment), or the text at
   the end. An item defines the name htc__* it declares (functions, types,
   tables); a #define defines its macro. The names the generated code
   uses (the header's body) and every item that defines no such name are
   the roots; an item is kept when a kept item, a root or a macro they
   expand names it. Directives are always kept (macros, conditionals), but
   a conditional left empty is dropped. Each kept item is pasted between
   #ifndef HTC__K_<file>_<name> / #endif, so two headers in one translation
   unit define every function once whichever subset each keeps. */

typedef enum { PC_ITEM, PC_OPEN, PC_MID, PC_CLOSE, PC_DEFINE, PC_OTHER, PC_TEXT } PieceKind;

typedef struct {
    PieceKind kind;
    size_t start, end;          /* byte range in the file, whole lines */
    const char *name;           /* item: htc__* it defines (NULL: none); define: the macro */
    const char **refs;          /* identifiers it uses (code, not comments or strings) */
    int nrefs;
    int keep;
    const char *guard;          /* item: its HTC__K_ macro */
} Piece;

struct PruneFile {
    const char *path;
    const char *src;
    size_t len;
    Piece *pc;
    int npc;
    int whole;                  /* not parsed: pasted as it is */
    int skip_guard[3];          /* the include guard's pieces, or -1 */
};

#define PRUNE_MAX_FILES 64
static PruneFile files[PRUNE_MAX_FILES];
static int nfiles;

/* ---- a hash set of identifiers: name -> the pieces that define it ---------- */

typedef struct {
    const char *name;
    int reached;
    int *defs;                  /* file << 20 | piece */
    int ndefs, cap;
} Sym;

static Sym *syms;
static size_t nsyms, symcap;

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static Sym *sym(const char *s, size_t n)
{
    if (2 * (nsyms + 1) > symcap) {
        size_t oc = symcap;
        Sym *old = syms;
        symcap = symcap ? 2 * symcap : 4096;
        syms = arena_alloc(sizeof(Sym) * symcap);
        nsyms = 0;
        for (size_t i = 0; i < oc; i++)
            if (old[i].name) {
                Sym *d = sym(old[i].name, strlen(old[i].name));
                *d = old[i];
            }
    }
    for (size_t i = hash(s, n) & (symcap - 1);; i = (i + 1) & (symcap - 1)) {
        if (!syms[i].name) {
            char *c = arena_alloc(n + 1);
            memcpy(c, s, n);
            syms[i].name = c;
            nsyms++;
            return &syms[i];
        }
        if (strlen(syms[i].name) == n && !memcmp(syms[i].name, s, n)) return &syms[i];
    }
}

static void add_def(const char *name, int file, int piece)
{
    Sym *y = sym(name, strlen(name));
    if (y->ndefs == y->cap) {
        int *d = arena_alloc(sizeof(int) * (size_t)(y->cap = y->cap ? 2 * y->cap : 4));
        if (y->ndefs) memcpy(d, y->defs, sizeof(int) * (size_t)y->ndefs);
        y->defs = d;
    }
    y->defs[y->ndefs++] = file << 20 | piece;
}

/* ---- scanning ---------------------------------------------------------- */

static int ident_start(int c) { return isalpha(c) || c == '_'; }
static int ident_char(int c) { return isalnum(c) || c == '_'; }

/* identifiers of src[a, b), comments, strings and characters skipped */
typedef struct { const char **v; int n, cap; } Refs;

static void refs_add(Refs *r, const char *s, size_t n)
{
    if (r->n == r->cap) {
        const char **v = arena_alloc(sizeof(char *) * (size_t)(r->cap = r->cap ? 2 * r->cap : 16));
        if (r->n) memcpy(v, r->v, sizeof(char *) * (size_t)r->n);
        r->v = v;
    }
    r->v[r->n++] = sym(s, n)->name;
}

static size_t skip_comment(const char *s, size_t i, size_t e)   /* at "/ *" or "/ /" */
{
    if (s[i + 1] == '/') {
        while (i < e && s[i] != '\n') i++;
        return i;
    }
    for (i += 2; i + 1 < e && !(s[i] == '*' && s[i + 1] == '/'); i++) {}
    return i + 2 < e ? i + 2 : e;
}

static size_t skip_quoted(const char *s, size_t i, size_t e)
{
    char q = s[i++];
    while (i < e && s[i] != q && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
    return i + 1 < e ? i + 1 : e;
}

static void scan_refs(const char *s, size_t a, size_t b, Refs *r)
{
    for (size_t i = a; i < b;) {
        char c = s[i];
        if (c == '/' && i + 1 < b && (s[i + 1] == '*' || s[i + 1] == '/')) i = skip_comment(s, i, b);
        else if (c == '"' || c == '\'') i = skip_quoted(s, i, b);
        else if (ident_start((unsigned char)c)) {
            size_t j = i;
            while (j < b && ident_char((unsigned char)s[j])) j++;
            refs_add(r, s + i, j - i);
            i = j;
        } else if (isdigit((unsigned char)c)) {
            while (i < b && (ident_char((unsigned char)s[i]) || s[i] == '.')) i++;
        } else i++;
    }
}

/* the end of the directive line at i (continuations, comments spanning lines) */
static size_t directive_end(const char *s, size_t i, size_t e)
{
    while (i < e && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < e && s[i + 1] == '\n') i += 2;
        else if (s[i] == '/' && i + 1 < e && s[i + 1] == '*') i = skip_comment(s, i, e);
        else i++;
    }
    return i < e ? i + 1 : e;
}

static size_t line_end(const char *s, size_t i, size_t e)
{
    while (i < e && s[i] != '\n') i++;
    return i < e ? i + 1 : e;
}

static PieceKind directive_kind(const char *s, size_t i, size_t e, const char **macro)
{
    while (i < e && (s[i] == '#' || s[i] == ' ' || s[i] == '\t')) i++;
    size_t j = i;
    while (j < e && isalpha((unsigned char)s[j])) j++;
    size_t n = j - i;
    *macro = NULL;
    if ((n == 2 && !memcmp(s + i, "if", 2)) || (n == 5 && !memcmp(s + i, "ifdef", 5)) || (n == 6 && !memcmp(s + i, "ifndef", 6)))
        return PC_OPEN;
    if ((n == 4 && (!memcmp(s + i, "elif", 4) || !memcmp(s + i, "else", 4)))) return PC_MID;
    if (n == 5 && !memcmp(s + i, "endif", 5)) return PC_CLOSE;
    if (n == 6 && !memcmp(s + i, "define", 6)) {
        while (j < e && (s[j] == ' ' || s[j] == '\t')) j++;
        size_t k = j;
        while (k < e && ident_char((unsigned char)s[k])) k++;
        if (k > j) *macro = sym(s + j, k - j)->name;
        return PC_DEFINE;
    }
    return PC_OTHER;
}

static int is_word(const char *s, size_t i, size_t n, const char *w)
{
    return strlen(w) == n && !memcmp(s + i, w, n);
}

/* Splits f into pieces; 0 when its braces or conditionals do not nest as
   this scanner expects (the file is then pasted whole). */
static int split(PruneFile *f, int fi)
{
    const char *s = f->src;
    size_t e = f->len, i = 0, pending = 0;     /* pending: start of the comment / blank lines before the next piece */
    int cap = 64;
    f->pc = arena_alloc(sizeof(Piece) * (size_t)cap);
    while (i < e) {
        /* blank lines and comment-only lines go with what follows */
        size_t j = i;
        while (j < e && (s[j] == ' ' || s[j] == '\t')) j++;
        if (j >= e) break;
        if (s[j] == '\n') { i = j + 1; continue; }
        if (s[j] == '/' && j + 1 < e && (s[j + 1] == '*' || s[j + 1] == '/')) {
            size_t k = skip_comment(s, j, e);
            while (k < e && (s[k] == ' ' || s[k] == '\t')) k++;
            if (k < e && s[k] != '\n') return 0;        /* code after a comment on the same line */
            i = k < e ? k + 1 : e;
            continue;
        }
        if (f->npc == cap) {
            Piece *p = arena_alloc(sizeof(Piece) * (size_t)(cap *= 2));
            memcpy(p, f->pc, sizeof(Piece) * (size_t)f->npc);
            f->pc = p;
        }
        Piece *p = &f->pc[f->npc];
        memset(p, 0, sizeof *p);
        p->start = pending;
        Refs r = {0};
        if (s[j] == '#') {
            size_t k = directive_end(s, j, e);
            p->kind = directive_kind(s, j, k, &p->name);
            p->end = k;
            if (p->kind == PC_DEFINE) {
                size_t body = j;
                while (body < k && s[body] != 'd') body++;
                body += 6;
                while (body < k && (s[body] == ' ' || s[body] == '\t')) body++;
                while (body < k && ident_char((unsigned char)s[body])) body++;    /* past the macro's name */
                scan_refs(s, body, k, &r);
            }
        } else {
            /* an item: up to the ';' at depth 0, or a function body's '}' */
            int depth = 0, paren = 0, is_func = 0, typedef_like = 0, frozen = 0, first = 1, cond = 0;
            int seen_paren = 0, seen_eq = 0;
            const char *last = NULL;
            size_t k = j;
            for (;;) {
                if (k >= e) return 0;
                char c = s[k];
                if (c == '\n') {        /* a directive inside the item */
                    k++;
                    size_t d = k;
                    while (d < e && (s[d] == ' ' || s[d] == '\t')) d++;
                    if (d < e && s[d] == '#') {
                        size_t de = directive_end(s, d, e);
                        const char *m;
                        PieceKind dk = directive_kind(s, d, de, &m);
                        cond += dk == PC_OPEN ? 1 : dk == PC_CLOSE ? -1 : 0;
                        if (cond < 0 || (depth == 0 && dk != PC_OTHER)) return 0;
                        if (m) add_def(m, fi, f->npc);     /* a macro used after the item keeps it */
                        scan_refs(s, d, de, &r);
                        k = de - 1;     /* at its newline */
                    }
                    continue;
                }
                if (c == '/' && k + 1 < e && (s[k + 1] == '*' || s[k + 1] == '/')) { k = skip_comment(s, k, e); continue; }
                if (c == '"' || c == '\'') { k = skip_quoted(s, k, e); continue; }
                if (ident_start((unsigned char)c)) {
                    size_t q = k;
                    while (q < e && ident_char((unsigned char)s[q])) q++;
                    if (first && (is_word(s, k, q - k, "typedef") || is_word(s, k, q - k, "struct") ||
                                  is_word(s, k, q - k, "union") || is_word(s, k, q - k, "enum")))
                        typedef_like = 1;
                    first = 0;
                    if (depth == 0 && paren == 0 && !frozen && q - k > 5 && !memcmp(s + k, "htc__", 5)) last = sym(s + k, q - k)->name;
                    refs_add(&r, s + k, q - k);
                    k = q;
                    continue;
                }
                first = 0;
                if (isdigit((unsigned char)c)) {
                    while (k < e && (ident_char((unsigned char)s[k]) || s[k] == '.')) k++;
                    continue;
                }
                k++;
                if (c == '(') {
                    if (depth == 0 && paren == 0) { seen_paren = 1; if (!typedef_like) frozen = 1; }
                    paren++;
                } else if (c == ')') paren--;
                else if (c == '=' && depth == 0 && paren == 0) { seen_eq = 1; if (!typedef_like) frozen = 1; }
                else if (c == '[' && depth == 0 && paren == 0 && !typedef_like) frozen = 1;
                else if (c == '{') {
                    if (depth == 0 && paren == 0 && seen_paren && !seen_eq && !typedef_like) is_func = 1;
                    depth++;
                } else if (c == '}') {
                    if (--depth < 0) return 0;
                    if (depth == 0 && is_func) break;
                } else if (c == ';' && depth == 0 && paren == 0) break;
            }
            if (cond) return 0;
            p->kind = PC_ITEM;
            p->name = last;
            p->end = line_end(s, k, e);
            /* what follows on the closing line must be a comment */
            for (size_t q = k; q < p->end; q++)
                if (s[q] == '/' && q + 1 < p->end && (s[q + 1] == '*' || s[q + 1] == '/')) break;
                else if (!isspace((unsigned char)s[q])) return 0;
        }
        p->refs = r.v;
        p->nrefs = r.n;
        if (p->name && (p->kind == PC_ITEM || p->kind == PC_DEFINE)) add_def(p->name, fi, f->npc);
        f->npc++;
        i = pending = p->end;
    }
    if (pending < e) {
        if (f->npc == cap) {
            Piece *p = arena_alloc(sizeof(Piece) * (size_t)(cap + 1));
            memcpy(p, f->pc, sizeof(Piece) * (size_t)f->npc);
            f->pc = p;
        }
        Piece *p = &f->pc[f->npc];
        memset(p, 0, sizeof *p);
        p->kind = PC_TEXT;
        p->start = pending;
        p->end = e;
        f->npc++;
    }
    return 1;
}

/* ---- the interface ------------------------------------------------------ */

void prune_reset(void)
{
    nfiles = 0;
    syms = NULL;
    nsyms = symcap = 0;
}

/* Adds a file to paste (path: its name in the header's comments). */
PruneFile *prune_add(const char *path, const char *src, size_t len)
{
    if (nfiles == PRUNE_MAX_FILES) die("internal: more than %d files pasted into one header", PRUNE_MAX_FILES);
    PruneFile *f = &files[nfiles];
    memset(f, 0, sizeof *f);
    f->path = path;
    f->src = src;
    f->len = len;
    f->skip_guard[0] = f->skip_guard[1] = f->skip_guard[2] = -1;
    if (!split(f, nfiles)) {
        if (getenv("HTC_PRUNE_DEBUG")) fprintf(stderr, "prune: %s pasted whole\n", path);
        f->whole = 1;
        f->npc = 0;
    } else {
        /* an include guard around the whole file: per item guards replace it */
        int d[3] = {-1, -1, -1}, nd = 0, items_after = 0;
        for (int k = 0; k < f->npc; k++) {
            if (f->pc[k].kind == PC_ITEM) {
                if (nd < 2) break;
                continue;
            }
            if (f->pc[k].kind == PC_TEXT) continue;
            if (nd < 2) d[nd++] = k;
        }
        for (int k = f->npc - 1; k >= 0; k--) {
            if (f->pc[k].kind == PC_TEXT) continue;
            if (f->pc[k].kind == PC_CLOSE) d[2] = k;
            break;
        }
        for (int k = d[2] + 1; d[2] >= 0 && k < f->npc; k++) items_after |= f->pc[k].kind == PC_ITEM;
        if (d[0] >= 0 && d[1] == d[0] + 1 && d[2] > d[1] && !items_after && f->pc[d[0]].kind == PC_OPEN &&
            f->pc[d[1]].kind == PC_DEFINE && f->pc[d[1]].name) {
            const char *t = f->src + f->pc[d[0]].start, *te = f->src + f->pc[d[0]].end;
            const char *h = strstr(t, "#ifndef ");
            size_t ln = strlen(f->pc[d[1]].name);
            if (h && h < te && !strncmp(h + 8, f->pc[d[1]].name, ln) && !ident_char((unsigned char)h[8 + ln]))
                memcpy(f->skip_guard, d, sizeof d);
        }
    }
    nfiles++;
    return f;
}

static void reach(const char *name);

static void keep_piece(int fi, int pi)
{
    Piece *p = &files[fi].pc[pi];
    if (p->keep) return;
    p->keep = 1;
    for (int k = 0; k < p->nrefs; k++) reach(p->refs[k]);
}

static void reach(const char *name)
{
    Sym *y = sym(name, strlen(name));
    if (y->reached) return;
    y->reached = 1;
    for (int k = 0; k < y->ndefs; k++) keep_piece(y->defs[k] >> 20, y->defs[k] & 0xfffff);
}

/* The generated code's text: every identifier in it is used. Then every
   item that defines no htc__ name, and the macros that pieces use. */
void prune_roots(const char *text, size_t len)
{
    Refs r = {0};
    scan_refs(text, 0, len, &r);
    for (int k = 0; k < r.n; k++) reach(r.v[k]);
    for (int fi = 0; fi < nfiles; fi++)
        for (int k = 0; k < files[fi].npc; k++)
            if (files[fi].pc[k].kind == PC_ITEM && !files[fi].pc[k].name) keep_piece(fi, k);
}

/* where piece p's own lines start, after its blank and comment lines */
static size_t piece_body(const PruneFile *f, const Piece *p)
{
    size_t body = p->start, q = p->start;
    while (q < p->end) {
        size_t r = q;
        while (r < p->end && (f->src[r] == ' ' || f->src[r] == '\t')) r++;
        if (r < p->end && f->src[r] == '\n') { q = body = r + 1; continue; }
        if (r + 1 < p->end && f->src[r] == '/' && (f->src[r + 1] == '*' || f->src[r + 1] == '/')) {
            q = line_end(f->src, skip_comment(f->src, r, p->end), p->end);
            body = q;
            continue;
        }
        break;
    }
    return body;
}

/* Writes file f with only its kept items, each under its guard. */
void prune_write(FILE *out, const PruneFile *f)
{
    fprintf(out, "/* ---- %s ---- */\n", esc_c(f->path));
    if (f->whole) {
        fwrite(f->src, 1, f->len, out);
        if (f->len && f->src[f->len - 1] != '\n') fputc('\n', out);
        fprintf(out, "/* ---- end of %s ---- */\n\n", esc_c(f->path));
        return;
    }
    /* the pieces to write; conditionals left empty removed */
    int *w = arena_alloc(sizeof(int) * (size_t)(f->npc + 1)), nw = 0;
    for (int k = 0; k < f->npc; k++) {
        const Piece *p = &f->pc[k];
        if (k == f->skip_guard[0] || k == f->skip_guard[1] || k == f->skip_guard[2]) {
            if (k == f->skip_guard[0]) fwrite(f->src + p->start, 1, piece_body(f, p) - p->start, out);  /* the file's own comment */
            continue;
        }
        if (p->kind != PC_ITEM || p->keep) w[nw++] = k;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int a = 0; a < nw && !changed; a++) {
            if (f->pc[w[a]].kind != PC_OPEN) continue;
            int b = a + 1;
            while (b < nw && f->pc[w[b]].kind == PC_MID) b++;
            if (b < nw && f->pc[w[b]].kind == PC_CLOSE) {
                memmove(w + a, w + b + 1, sizeof(int) * (size_t)(nw - b - 1));
                nw -= b + 1 - a;
                changed = 1;
            }
        }
    }
    /* guards: HTC__K_<file>_<name without htc__>, _2, _3 for a name's next items */
    for (int a = 0; a < nw; a++) {
        const Piece *p = &f->pc[w[a]];
        if (p->kind == PC_ITEM) {
            /* the file's path in the guard: a name two files define (the
               device models' htc__dev_*) stays a redefinition error */
            const char *g;
            char *stem = arena_strdup(f->path);
            for (char *c = stem; *c; c++) *c = ident_char((unsigned char)*c) ? *c : '_';
            if (p->name) {
                int nth = 1;
                for (int k = 0; k < w[a]; k++) nth += f->pc[k].kind == PC_ITEM && f->pc[k].name == p->name;
                g = arena_printf("HTC__K_%s_%s%s", stem, p->name + 5, nth > 1 ? arena_printf("_%d", nth) : "");
            } else {
                g = arena_printf("HTC__K_%s_%d", stem, w[a]);
            }
            size_t body = piece_body(f, p);     /* the leading comment stays outside the guard */
            fwrite(f->src + p->start, 1, body - p->start, out);
            fprintf(out, "#ifndef %s\n#define %s\n", g, g);
            fwrite(f->src + body, 1, p->end - body, out);
            fprintf(out, "#endif\n");
        } else {
            fwrite(f->src + p->start, 1, p->end - p->start, out);
        }
    }
    if (f->len && f->src[f->len - 1] != '\n') fputc('\n', out);
    fprintf(out, "/* ---- end of %s ---- */\n\n", esc_c(f->path));
}
