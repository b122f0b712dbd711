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
   unit define every function once whichever subset each keeps.

   Before that, a file loses the fast paths of the instruction sets the
   target does not name (isa_cut): their macros (HTC__SSE2, HTC__DSP, ...)
   are known undefined, so every #if on them is decided here, and the
   blocks of htc.h that define them go with their helpers. */

typedef enum { PC_ITEM, PC_OPEN, PC_MID, PC_CLOSE, PC_DEFINE, PC_OTHER, PC_TEXT } PieceKind;

typedef struct {
    PieceKind kind;
    size_t start, end;          /* byte range in the file, whole lines */
    const char *name;           /* item: htc__* it defines (NULL: none); define: the macro */
    const char **refs;          /* identifiers it uses (code, not comments or strings) */
    int nrefs;
    int keep;
    int orig;                   /* item: its index in the file as written (before isa_cut) */
    int decl;                   /* item: a function's declaration (no body) */
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
    if (file < 0) return;       /* a file split only to number its items */
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
            int seen_paren = 0, seen_eq = 0, macro_call = 0;
            const char *last = NULL, *inner = NULL;
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
                    /* a definition made by a macro, NAME(htc__x, ...) on its own lines */
                    if (first && isupper((unsigned char)c) && q < e && s[q] == '(') macro_call = 1;
                    if (macro_call && !inner && depth == 0 && paren == 1 && q - k > 5 && !memcmp(s + k, "htc__", 5))
                        inner = sym(s + k, q - k)->name;
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
                } else if (c == ')') {
                    /* the macro call ends the item when nothing follows it on its line */
                    if (--paren == 0 && depth == 0 && macro_call) {
                        size_t q = k;
                        while (q < e && (s[q] == ' ' || s[q] == '\t')) q++;
                        if (q >= e || s[q] == '\n') {
                            last = inner;
                            break;
                        }
                    }
                } else if (c == '=' && depth == 0 && paren == 0) { seen_eq = 1; if (!typedef_like) frozen = 1; }
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
            p->decl = !is_func && seen_paren && !seen_eq && !typedef_like && !macro_call;
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

/* ---- the instruction sets the target names -------------------------------- */

/* The macros htc.h defines for each instruction-set extension; a header
   for a target without it has them undefined: every conditional on them
   decided here, their definitions (and the blocks that define them, with
   their helpers) left out. */
static const struct {
    unsigned isa;
    const char *macro;
} isa_macros[] = {
    {ISA_X86, "HTC__SSE2"},   {ISA_X86, "HTC__AVX2"}, {ISA_ARM_DSP, "HTC__DSP"}, {ISA_ARM_DSP, "HTC__DSP_ASM"},
    {ISA_MVE, "HTC__MVE"},    {ISA_XPULPV2, "HTC__XP"}, {ISA_XPULPV2, "HTC__XP_ASM"},
};
static unsigned isa_kept = ISA_ALL;

static int isa_undefined(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof isa_macros / sizeof isa_macros[0]; k++)
        if (!(isa_kept & isa_macros[k].isa) && strlen(isa_macros[k].macro) == n && !memcmp(isa_macros[k].macro, s, n))
            return 1;
    return 0;
}

/* A #if expression decided as far as the undefined macros decide it:
   V_FALSE, V_TRUE or V_OPEN with the text of what is left (the operands
   it does not decide, as written). */
enum { V_FALSE, V_TRUE, V_OPEN };
typedef struct {
    int v;
    const char *text;
} Cond;
typedef struct {
    const char *s;
    size_t i, e;
    int bad;            /* a token this parser does not know: the expression stays as written */
    int touched;        /* an undefined macro decided part of it */
} CondParser;

static void cp_space(CondParser *p)
{
    for (;;) {
        while (p->i < p->e && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r' ||
                               (p->s[p->i] == '\\' && p->i + 1 < p->e && p->s[p->i + 1] == '\n')))
            p->i++;
        if (p->i + 1 < p->e && p->s[p->i] == '/' && (p->s[p->i + 1] == '*' || p->s[p->i + 1] == '/'))
            p->i = skip_comment(p->s, p->i, p->e);
        else
            return;
    }
}

static int cp_is(CondParser *p, const char *tok)
{
    cp_space(p);
    size_t n = strlen(tok);
    if (p->i + n > p->e || memcmp(p->s + p->i, tok, n)) return 0;
    /* "&" is not the start of "&&", nor "|" of "||" */
    if (n == 1 && (tok[0] == '&' || tok[0] == '|') && p->i + 1 < p->e && p->s[p->i + 1] == tok[0]) return 0;
    if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') && p->i + 1 < p->e &&
        (p->s[p->i + 1] == '=' || p->s[p->i + 1] == tok[0]))
        return 0;
    p->i += n;
    return 1;
}

static Cond cp_or(CondParser *p);

static Cond cp_ident(CondParser *p, size_t *a, size_t *b)
{
    cp_space(p);
    *a = p->i;
    while (p->i < p->e && ident_char((unsigned char)p->s[p->i])) p->i++;
    *b = p->i;
    if (*a == *b) p->bad = 1;
    return (Cond){V_OPEN, arena_printf("%.*s", (int)(*b - *a), p->s + *a)};
}

static Cond cp_primary(CondParser *p)
{
    cp_space(p);
    if (cp_is(p, "!")) {
        Cond c = cp_primary(p);
        if (c.v != V_OPEN) return (Cond){!c.v, NULL};
        return (Cond){V_OPEN, arena_printf("!%s", c.text)};
    }
    if (cp_is(p, "(")) {
        Cond c = cp_or(p);
        if (!cp_is(p, ")")) p->bad = 1;
        if (c.v != V_OPEN) return c;
        return (Cond){V_OPEN, arena_printf("(%s)", c.text)};
    }
    size_t a, b;
    if (p->i < p->e && isdigit((unsigned char)p->s[p->i])) {
        a = p->i;
        while (p->i < p->e && ident_char((unsigned char)p->s[p->i])) p->i++;
        return (Cond){V_OPEN, arena_printf("%.*s", (int)(p->i - a), p->s + a)};
    }
    Cond c = cp_ident(p, &a, &b);
    if (b - a == 7 && !memcmp(p->s + a, "defined", 7)) {
        int paren = cp_is(p, "(");
        cp_ident(p, &a, &b);
        if (paren && !cp_is(p, ")")) p->bad = 1;
        if (isa_undefined(p->s + a, b - a)) {
            p->touched = 1;
            return (Cond){V_FALSE, NULL};
        }
        return (Cond){V_OPEN, arena_printf(paren ? "defined(%.*s)" : "defined %.*s", (int)(b - a), p->s + a)};
    }
    if (isa_undefined(p->s + a, b - a)) p->bad = 1;     /* its value, not defined(): left to the compiler */
    if (cp_is(p, "(")) p->bad = 1;                        /* a function-like macro */
    return c;
}

/* primary (op primary)*: any operator but && and || keeps it open */
static Cond cp_rel(CondParser *p)
{
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<<", ">>", "<", ">", "&", "|", "^", "+", "-", "*", "/", "%", NULL};
    Cond c = cp_primary(p);
    for (;;) {
        int k = 0;
        while (ops[k] && !cp_is(p, ops[k])) k++;
        if (!ops[k]) return c;
        Cond r = cp_primary(p);
        if (c.v != V_OPEN || r.v != V_OPEN) p->bad = 1;
        c = (Cond){V_OPEN, arena_printf("%s %s %s", c.text ? c.text : "", ops[k], r.text ? r.text : "")};
    }
}

static Cond cp_and(CondParser *p)
{
    Cond c = cp_rel(p);
    while (cp_is(p, "&&")) {
        Cond r = cp_rel(p);
        if (c.v == V_FALSE || r.v == V_FALSE) c = (Cond){V_FALSE, NULL};
        else if (c.v == V_TRUE) c = r;
        else if (r.v == V_OPEN) c.text = arena_printf("%s && %s", c.text, r.text);
    }
    return c;
}

static Cond cp_or(CondParser *p)
{
    Cond c = cp_and(p);
    while (cp_is(p, "||")) {
        Cond r = cp_and(p);
        if (c.v == V_TRUE || r.v == V_TRUE) c = (Cond){V_TRUE, NULL};
        else if (c.v == V_FALSE) c = r;
        else if (r.v == V_OPEN) c.text = arena_printf("%s || %s", c.text, r.text);
    }
    return c;
}

/* The condition of the directive at s[a, b) (#if, #ifdef, #ifndef, #elif
   or #else); *text: the directive to write when it stays open. */
static int directive_cond(const char *s, size_t a, size_t b, const char **text)
{
    size_t i = a;
    while (i < b && (s[i] == '#' || s[i] == ' ' || s[i] == '\t')) i++;
    size_t j = i;
    while (j < b && isalpha((unsigned char)s[j])) j++;
    const char *kw = s + i;
    size_t n = j - i;
    *text = arena_printf("%.*s", (int)(b - a), s + a);
    if (n == 4 && !memcmp(kw, "else", 4)) return V_TRUE;
    CondParser p = {s, j, b, 0, 0};
    Cond c;
    if ((n == 5 && !memcmp(kw, "ifdef", 5)) || (n == 6 && !memcmp(kw, "ifndef", 6))) {
        size_t x, y;
        cp_ident(&p, &x, &y);
        if (!isa_undefined(s + x, y - x)) return V_OPEN;
        return n == 5 ? V_FALSE : V_TRUE;
    }
    c = cp_or(&p);
    cp_space(&p);
    if (p.bad || p.i < b) return V_OPEN;
    if (c.v == V_OPEN && p.touched) *text = arena_printf("#%.*s %s\n", (int)n, kw, c.text);
    return c.v;
}

typedef struct {
    size_t start, end;
    int kind;           /* PieceKind of a directive; PC_TEXT: code lines */
    const char *macro;  /* #define / #undef: the macro */
    int defines_isa;    /* an #if / #elif / #else whose branch itself defines an undefined macro */
} Line;

/* where a byte of the cut text comes from: segments (out offset, src offset) */
typedef struct {
    size_t *out, *src;
    int n;
} CutMap;

/* src without the paths of the instruction sets isa_kept lacks */
static const char *isa_cut(const char *s, size_t e, size_t *outlen, CutMap *map)
{
    /* the directives, and the code between them (block comments spanning
       lines, strings: a '#' inside them is no directive) */
    int cap = 256, n = 0;
    Line *ln = arena_alloc(sizeof(Line) * (size_t)cap);
    int in_comment = 0;
    for (size_t i = 0; i < e;) {
        if (n + 1 >= cap) {
            Line *x = arena_alloc(sizeof(Line) * (size_t)(cap *= 2));
            memcpy(x, ln, sizeof(Line) * (size_t)n);
            ln = x;
        }
        size_t j = i;
        while (j < e && (s[j] == ' ' || s[j] == '\t')) j++;
        if (!in_comment && j < e && s[j] == '#') {
            size_t k = directive_end(s, j, e);
            const char *m;
            int kind = directive_kind(s, j, k, &m);
            if (kind == PC_OTHER) {
                size_t d = j + 1;
                while (d < k && (s[d] == ' ' || s[d] == '\t')) d++;
                if (k - d > 5 && !memcmp(s + d, "undef", 5)) {
                    d += 5;
                    while (d < k && (s[d] == ' ' || s[d] == '\t')) d++;
                    size_t q = d;
                    while (q < k && ident_char((unsigned char)s[q])) q++;
                    m = sym(s + d, q - d)->name;
                }
            }
            ln[n++] = (Line){i, k, kind, m, 0};
            i = k;
            continue;
        }
        size_t k = i;
        while (k < e && s[k] != '\n') {
            if (in_comment) {
                if (s[k] == '*' && k + 1 < e && s[k + 1] == '/') { in_comment = 0; k += 2; }
                else k++;
            } else if (s[k] == '/' && k + 1 < e && s[k + 1] == '*') { in_comment = 1; k += 2; }
            else if (s[k] == '/' && k + 1 < e && s[k + 1] == '/') { while (k < e && s[k] != '\n') k++; }
            else if (s[k] == '"' || s[k] == '\'') k = skip_quoted(s, k, e);
            else k++;
        }
        k = k < e ? k + 1 : e;
        if (n && ln[n - 1].kind == PC_TEXT) ln[n - 1].end = k;
        else ln[n++] = (Line){i, k, PC_TEXT, NULL, 0};
        i = k;
    }
    /* branches that define an undefined macro themselves */
    int *open = arena_alloc(sizeof(int) * (size_t)(n + 1)), depth = 0;
    for (int k = 0; k < n; k++) {
        if (ln[k].kind == PC_OPEN) open[depth++] = k;
        else if (ln[k].kind == PC_MID && depth) open[depth - 1] = k;
        else if (ln[k].kind == PC_CLOSE && depth) depth--;
        else if (ln[k].kind == PC_DEFINE && depth && ln[k].macro && isa_undefined(ln[k].macro, strlen(ln[k].macro)))
            ln[open[depth - 1]].defines_isa = 1;
    }
    /* the output: each conditional's branches decided (dropped, kept with
       its directive, or kept without one when it is the one taken); a
       conditional left out goes with the comment just before it */
    typedef struct {
        int dead;       /* inside a dropped branch */
        int mode;       /* this branch: 0 dropped, 1 kept, 2 kept unwrapped */
        int written;    /* a directive of it written */
        int taken;      /* a branch known true seen: the rest dropped */
        int content;    /* a branch kept */
        size_t cut;     /* where its comment starts in the output */
    } Frame;
    Frame *st = arena_alloc(sizeof(Frame) * (size_t)(n + 2));
    int sp = 0;
    char *out = arena_alloc(e + 1);
    size_t o = 0, text_end = (size_t)-1, comment_at = 0;
    map->out = arena_alloc(sizeof(size_t) * (size_t)(n + 1));
    map->src = arena_alloc(sizeof(size_t) * (size_t)(n + 1));
    map->n = 0;
#define LIVE (sp == 0 || (!st[sp - 1].dead && st[sp - 1].mode))
#define PUT(a, b) (map->out[map->n] = o, map->src[map->n++] = (a), memcpy(out + o, s + (a), (b) - (a)), o += (b) - (a))
#define PUTS(t) (memcpy(out + o, (t), strlen(t)), o += strlen(t))
    for (int k = 0; k < n; k++) {
        Line *l = &ln[k];
        switch (l->kind) {
        case PC_OPEN:
        case PC_MID: {
            Frame *f;
            if (l->kind == PC_OPEN) {
                int dead = !LIVE;
                f = &st[sp++];
                *f = (Frame){dead, 0, 0, 0, 0, text_end == o ? comment_at : o};
            } else {
                if (!sp) { PUT(l->start, l->end); break; }
                f = &st[sp - 1];
            }
            if (f->dead) break;
            if (f->taken) { f->mode = 0; break; }
            const char *text;
            int v = l->defines_isa ? V_FALSE : directive_cond(s, l->start, l->end, &text);
            if (v == V_FALSE) { f->mode = 0; break; }
            f->content = 1;
            if (v == V_TRUE) {
                f->taken = 1;
                f->mode = f->written ? 1 : 2;
                if (f->written) PUTS("#else\n");
                break;
            }
            f->mode = 1;
            if (!f->written && l->kind == PC_MID) {
                /* the first branch written: #elif COND becomes #if COND */
                const char *t = text;
                while (*t == '#' || *t == ' ' || *t == '\t') t++;
                PUTS("#if");
                PUTS(t + 4);
            } else {
                PUTS(text);
            }
            f->written = 1;
            break;
        }
        case PC_CLOSE:
            if (!sp) { PUT(l->start, l->end); break; }
            sp--;
            if (!st[sp].dead && st[sp].written) PUT(l->start, l->end);
            if (!st[sp].dead && !st[sp].content) {
                o = st[sp].cut;
                while (map->n && map->out[map->n - 1] >= o) map->n--;
            }
            break;
        case PC_TEXT:
            if (!LIVE) break;
            {
                /* where its trailing comment (and blank) lines start */
                size_t c = l->start;
                for (size_t i = l->start; i < l->end;) {
                    if (s[i] == '/' && i + 1 < l->end && (s[i + 1] == '*' || s[i + 1] == '/')) i = skip_comment(s, i, l->end);
                    else if (isspace((unsigned char)s[i])) i++;
                    else {
                        i = (s[i] == '"' || s[i] == '\'') ? skip_quoted(s, i, l->end) : i + 1;
                        c = line_end(s, i - 1, l->end);
                    }
                }
                PUT(l->start, l->end);
                text_end = o;
                comment_at = o - (l->end - c);
            }
            break;
        default:
            if (!LIVE) break;
            if ((l->kind == PC_DEFINE || l->kind == PC_OTHER) && l->macro && isa_undefined(l->macro, strlen(l->macro))) break;
            PUT(l->start, l->end);
        }
    }
#undef LIVE
#undef PUT
#undef PUTS
    *outlen = o;
    return out;
}

/* ---- the interface ------------------------------------------------------ */

void prune_reset(unsigned isa)
{
    isa_kept = isa;
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
    /* the file as written, split to number its items (their guards do not
       depend on the instruction sets cut out), then cut */
    PruneFile whole = {path, src, len, NULL, 0, 0, {-1, -1, -1}};
    int split_ok = split(&whole, isa_kept == ISA_ALL ? nfiles : -1);
    for (int k = 0; k < whole.npc; k++) whole.pc[k].orig = k;
    if (!split_ok || isa_kept == ISA_ALL) {
        *f = whole;
    } else {
        CutMap map;
        f->src = isa_cut(src, len, &f->len, &map);
        f->path = path;
        split_ok = split(f, nfiles);
        /* each item's index in the file as written, from its last line's place there */
        for (int k = 0, m = 0, q = 0; split_ok && k < f->npc; k++) {
            Piece *p = &f->pc[k];
            if (p->kind != PC_ITEM) continue;
            size_t at = p->end - 1;
            while (m + 1 < map.n && map.out[m + 1] <= at) m++;
            size_t o = map.src[m] + (at - map.out[m]);
            while (q < whole.npc && whole.pc[q].end <= o) q++;
            if (q == whole.npc || whole.pc[q].kind != PC_ITEM || whole.pc[q].name != p->name)
                die("internal: %s: item at byte %zu of the cut text not found in the file", path, at);
            p->orig = whole.pc[q].orig;
        }
    }
    f->skip_guard[0] = f->skip_guard[1] = f->skip_guard[2] = -1;
    if (!split_ok) {
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
    /* guards: HTC__K_<file>_<name without htc__> (_decl: a declaration), or
       HTC__K_<file>_<index> for an item that names nothing */
    for (int a = 0; a < nw; a++) {
        const Piece *p = &f->pc[w[a]];
        if (p->kind == PC_ITEM) {
            /* the file's path in the guard: a name two files define (the
               device models' htc__dev_*) stays a redefinition error. The
               definitions of one name (alternatives in #if branches) share
               it: in two headers of one translation unit whose instruction
               sets differ (one has decided a branch the other leaves to the
               compiler) the first header's definition stands for both */
            const char *g;
            char *stem = arena_strdup(f->path);
            for (char *c = stem; *c; c++) *c = ident_char((unsigned char)*c) ? *c : '_';
            if (p->name)
                g = arena_printf("HTC__K_%s_%s%s", stem, p->name + 5, p->decl ? "_decl" : "");
            else
                g = arena_printf("HTC__K_%s_%d", stem, p->orig);
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
