/* util.c - arena allocator, one-line errors, atomic output files, and the
   small tables (dtype and op names) every pass shares. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "ir.h"

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

/* ---- StrMap: strings -> pointers ----------------------------------------- */

static uint32_t strmap_hash(const char *s)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    h ^= h >> 16;               /* FNV's low bits, which index the table, mixed */
    h *= 0x85ebca6bu;
    return h ^ h >> 13;
}

/* the slot of key: where it is, or the empty one where it would go */
static size_t strmap_slot(const StrMap *m, const char *key)
{
    size_t j = strmap_hash(key) & (m->cap - 1);
    while (m->keys[j] && strcmp(m->keys[j], key)) j = (j + 1) & (m->cap - 1);
    return j;
}

void *strmap_get(const StrMap *m, const char *key)
{
    if (!m->cap || !key) return NULL;
    size_t j = strmap_slot(m, key);
    return m->keys[j] ? m->vals[j] : NULL;
}

void strmap_put(StrMap *m, const char *key, void *val)
{
    if (2 * (m->n + 1) > m->cap) {
        StrMap old = *m;
        m->cap = m->cap ? 2 * m->cap : 256;
        m->keys = arena_alloc(sizeof(char *) * m->cap);
        m->vals = arena_alloc(sizeof(void *) * m->cap);
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i]) {
                size_t j = strmap_slot(m, old.keys[i]);
                m->keys[j] = old.keys[i];
                m->vals[j] = old.vals[i];
            }
    }
    size_t j = strmap_slot(m, key);
    if (!m->keys[j]) {
        m->keys[j] = key;
        m->n++;
    }
    m->vals[j] = val;
}

/* Everything allocated after arena_mark() is given back by arena_release()
   (whole blocks freed, the current one rewound): a loop's temporaries. */
ArenaMark arena_mark(void)
{
    ArenaMark m = {blocks, blocks ? blocks->used : 0};
    return m;
}

void arena_release(ArenaMark m)
{
    while (blocks && blocks != (Block *)m.block) {
        Block *b = blocks->next;
        free(blocks);
        blocks = b;
    }
    if (blocks) blocks->used = m.used;
}

/* The error exit of refuse_flush: die. A fuzz harness compiles this file
   with -Ddie=util_die to supply its own die; -DHTC_FUZZ_DIE binds
   refuse_flush to that symbol by its assembler name, which the macro
   does not rename. */
#ifdef HTC_FUZZ_DIE
void refuse_die(const char *fmt, ...) __asm__("die") __attribute__((noreturn, format(printf, 1, 2)));
#else
#define refuse_die die
#endif

static void refuse_reset(void);

/* Frees every block; the refusals recorded in arena memory go with them
   (a reader that died mid-operator leaves its list and catcher behind:
   the fuzz harnesses read many models in one process). */
void arena_free_all(void)
{
    refuse_reset();
    while (blocks) {
        Block *b = blocks->next;
        free(blocks);
        blocks = b;
    }
}

/* ---- errors, atomic output, scratch directories, signals ------------------

   Everything a signal handler may have to remove lives in static storage
   (no malloc, no free), published by a flag written last, so the handler
   only reads complete paths and calls async-signal-safe functions. */

#define MAX_OUT 8
#define MAX_DIRS 4
#define PATH_CAP 4096
static char pending[MAX_OUT][PATH_CAP];        /* temporary files not yet renamed */
static char pending_final[MAX_OUT][PATH_CAP];
static FILE *pending_f[MAX_OUT];
static volatile sig_atomic_t pending_on[MAX_OUT];
static char scratch[MAX_DIRS][PATH_CAP];       /* scratch directories (htc run, --stack-cc) */
static volatile sig_atomic_t scratch_on[MAX_DIRS];
static volatile pid_t child_pid;               /* the command run_command waits for */
static volatile sig_atomic_t in_cleanup;

/* Remove the files of a flat directory, then the directory: raw getdents64
   and unlinkat only, so a signal handler may call it. */
static void remove_flat_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        for (int pass = 0; pass < 64; pass++) {
            int removed = 0;
            long n;
            lseek(fd, 0, SEEK_SET);
            while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
                for (long off = 0; off < n;) {
                    struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
                        (void *)(buf + off);
                    off += d->reclen;
                    if (d->name[0] == '.' && (!d->name[1] || (d->name[1] == '.' && !d->name[2]))) continue;
                    if (unlinkat(fd, d->name, 0) == 0 || unlinkat(fd, d->name, AT_REMOVEDIR) == 0) removed++;
                }
            if (!removed) break;
        }
        close(fd);
    }
    rmdir(dir);
}

/* Temporary outputs and scratch directories; signal-safe unless full. */
static void remove_pending(int from_signal)
{
    for (int i = 0; i < MAX_OUT; i++)
        if (pending_on[i]) {
            if (!from_signal && pending_f[i]) fclose(pending_f[i]);
            pending_f[i] = NULL;
            unlink(pending[i]);
            pending_on[i] = 0;
        }
    for (int i = 0; i < MAX_DIRS; i++)
        if (scratch_on[i]) {
            if (from_signal) remove_flat_dir(scratch[i]);
            else remove_tree(scratch[i]);
            scratch_on[i] = 0;
        }
}

static void remove_at_exit(void) { remove_pending(0); }

/* SIGINT, SIGTERM, SIGHUP: pass the signal on to a running child, kill it
   if it has not gone within two seconds, remove every temporary file and
   scratch directory, then die of the same signal. */
static void on_signal(int sig)
{
    if (!in_cleanup) {
        in_cleanup = 1;
        pid_t c = child_pid;
        if (c > 0) {
            kill(-c, sig);      /* the child's process group: cc and its cc1, as, ld too */
            int gone = 0;
            for (int i = 0; i < 200 && !gone; i++) {
                if (waitpid(c, NULL, WNOHANG) != 0) gone = 1;
                else {
                    struct timespec ts = {0, 10 * 1000 * 1000};
                    nanosleep(&ts, NULL);
                }
            }
            if (!gone) {
                kill(-c, SIGKILL);
                waitpid(c, NULL, 0);
            }
            kill(-c, SIGKILL);  /* whatever of the group outlived its leader */
        }
        remove_pending(1);
    }
    signal(sig, SIG_DFL);
    raise(sig);     /* delivered when the handler returns: the default action */
}

void signals_init(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal ignored by whoever started htc (nohup) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
    atexit(remove_at_exit);
}

/* From a signal handler: write the prepared line, remove temporaries, exit 1. */
void die_async(const char *line)
{
    size_t n = 0;
    while (line[n]) n++;
    if (write(2, line, n) < 0) n = 0;
    remove_pending(1);
    _exit(1);
}

/* One message line to stderr, made safe for a terminal (term_put) and cut
   at MSG_MAX bytes: names in it may come from a model or a target file. No
   arena memory (die() may be called because the arena is exhausted). */
#define MSG_MAX 4000
static void message(const char *prefix, const char *fmt, va_list ap)
{
    char small[512], *big = NULL, *msg = small;
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, aq);
    va_end(aq);
    if (n >= (int)sizeof small && (big = malloc((size_t)n + 1)) != NULL) {
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        msg = big;
    }
    fputs(prefix, stderr);
    term_put(stderr, msg, MSG_MAX);
    fputc('\n', stderr);
    free(big);
}

void die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    message("htc: error: ", fmt, ap);
    va_end(ap);
    remove_pending(0);
    exit(1);
}

void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message("htc: warning: ", fmt, ap);
    va_end(ap);
}

/* ---- refusals collected over a whole graph: a front end or lower() runs
   each operator under refuse_catch; refuse() then records the problem and
   jumps back, so the model's every refused operator is reported at once,
   in graph order (refuse_flush). Without a catcher refuse() is die(). -- */

typedef struct { int index; int op; char *msg; } Problem;
static Problem *problems;
static int nproblems, problems_cap;
static jmp_buf *refuse_jb;

void refuse_catch(jmp_buf *jb) { refuse_jb = jb; }

static void refuse_reset(void)
{
    problems = NULL;
    nproblems = problems_cap = 0;
    refuse_jb = NULL;
}

static void refuse_record(const char *path, int index, int op, const char *small) __attribute__((noreturn));
static void refuse_record(const char *path, int index, int op, const char *small)
{
    if (nproblems >= 10000) refuse_flush(path);
    if (nproblems == problems_cap) {
        problems_cap = problems_cap ? 2 * problems_cap : 16;
        Problem *n = arena_alloc(sizeof *n * (size_t)problems_cap);
        if (nproblems) memcpy(n, problems, sizeof *n * (size_t)nproblems);
        problems = n;
    }
    int k = nproblems++;
    while (k > 0 && problems[k - 1].index > index) {   /* stable, by operator index */
        problems[k] = problems[k - 1];
        k--;
    }
    problems[k].index = index;
    problems[k].op = op;
    problems[k].msg = arena_strdup(small);
    jmp_buf *jb = refuse_jb;
    if (!jb) {
        refuse_flush(path);             /* dies */
        exit(1);
    }
    refuse_jb = NULL;
    longjmp(*jb, 1);
}

void refuse(const char *path, int index, const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    refuse_record(path, index, 1, small);
}

void refuse_other(const char *path, int index, const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    refuse_record(path, index, 0, small);
}

/* Die with every recorded refusal: one problem is its own line; several are
   a first line counting and naming them in graph order, then one line each.
   Messages are "operator I (NAME): reason" (refuse_other's: "tensor I
   ('NAME'): reason", and the first line counts problems, not operators);
   path prefixes each line. */
void refuse_flush(const char *path)
{
    if (!nproblems) return;
    int n = nproblems;
    nproblems = 0;
    if (n == 1) refuse_die("%s: %s", path, problems[0].msg);
    size_t len = 0;
    for (int i = 0; i < n; i++) len += strlen(problems[i].msg) + 2;
    char *all = arena_alloc(len + 1), *q = all;
    for (int i = 0; i < n; i++) q += sprintf(q, "%s%s", i ? "; " : "", problems[i].msg);
    fflush(stdout);
    int nop = 0;
    for (int i = 0; i < n; i++) nop += problems[i].op;
    char head[64];
    if (nop == n) snprintf(head, sizeof head, "%d operators refused, in graph order: ", n);
    else snprintf(head, sizeof head, "%d problems, in graph order: ", n);
    fputs("htc: error: ", stderr);
    term_put(stderr, path, MSG_MAX);
    fputs(": ", stderr);
    fputs(head, stderr);
    term_put(stderr, all, MSG_MAX);
    fputc('\n', stderr);
    for (int i = 0; i < n - 1; i++) {
        fputs("htc: error: ", stderr);
        term_put(stderr, path, MSG_MAX);
        fputs(": ", stderr);
        term_put(stderr, problems[i].msg, MSG_MAX);
        fputc('\n', stderr);
    }
    refuse_die("%s: %s", path, problems[n - 1].msg);
}

/* ---- escaping: the one way text from a model, a target file or the command
   line reaches an output. C gets such text only through esc_c (or as an
   identifier htc made), JSON through esc_json, CSV through esc_csv, HTML /
   SVG through esc_html, a terminal through esc_term / term_put (die and
   warn apply it to their whole line). Never as a format string. ---------- */

/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 if invalid;
   *cp gets the code point. Overlong forms, surrogates and values above
   U+10FFFF are invalid. */
static int utf8_seq(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    int n;
    if (c < 0x80) { *cp = c; return 1; }
    if (c >= 0xc2 && c <= 0xdf) { n = 2; c &= 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; c &= 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; c &= 0x07; }
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff)) return 0;
    *cp = c;
    return n;
}

/* A growing arena string (only the escaping functions build one). */
typedef struct { char *s; size_t n, cap; } Buf;

static void buf_put(Buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (b->n + n + 1 > cap) cap *= 2;
        char *d = arena_alloc(cap);
        if (b->n) memcpy(d, b->s, b->n);
        b->s = d;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void buf_fmt(Buf *b, const char *fmt, unsigned v)
{
    char t[16];
    int n = snprintf(t, sizeof t, fmt, v);
    buf_put(b, t, (size_t)n);
}

/* The text htc writes after a cut name: how many bytes were left out. */
static void buf_cut(Buf *b, size_t left)
{
    char t[48];
    int n = snprintf(t, sizeof t, "...(%zu more bytes)", left);
    buf_put(b, t, (size_t)n);
}

/* Inside a C comment and inside a C string literal alike, under every C and
   C++ standard: printable ASCII is kept except '"', '\\' (escaped), '?'
   (no trigraph can form) and '*' (no comment can open or close), which
   become octal escapes like every other byte (three digits, so a digit
   after one is never part of it). Never a newline or a line splice. Names
   are cut at ESC_C_MAX bytes (C89 promises 509 characters in a string). */
#define ESC_C_MAX 400
const char *esc_c(const char *s)
{
    if (!s) s = "";
    Buf b = {0};
    buf_put(&b, "", 0);
    size_t len = strlen(s), n = len < ESC_C_MAX ? len : ESC_C_MAX;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') buf_fmt(&b, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f || c == '?' || c == '*') buf_fmt(&b, "\\%03o", c);
        else buf_put(&b, (const char *)&c, 1);
    }
    if (n < len) buf_cut(&b, len - n);
    return b.s;
}

/* A JSON string, quotes included: '"', '\\' and control characters
   escaped, valid UTF-8 kept, every invalid byte U+FFFD (the document stays
   valid UTF-8). Not cut: scripts read the whole name. */
const char *esc_json(const char *s)
{
    if (!s) s = "";
    Buf b = {0};
    buf_put(&b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        int n = utf8_seq(p, &cp);
        if (!n) { buf_put(&b, "\\ufffd", 6); p++; continue; }
        if (cp == '"' || cp == '\\') buf_fmt(&b, "\\%c", cp);
        else if (cp < 0x20 || cp == 0x7f) buf_fmt(&b, "\\u%04x", cp);
        else buf_put(&b, (const char *)p, (size_t)n);
        p += n;
    }
    buf_put(&b, "\"", 1);
    return b.s;
}

/* Text (or an attribute value) in HTML, SVG or XML: the five markup
   characters as entities; control characters (XML forbids them, even as
   references) and invalid UTF-8 as U+FFFD. */
const char *esc_html(const char *s)
{
    if (!s) s = "";
    Buf b = {0};
    buf_put(&b, "", 0);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        int n = utf8_seq(p, &cp);
        const char *e = !n || (cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp < 0xa0) ? "&#xfffd;"
                        : cp == '<' ? "&lt;" : cp == '>' ? "&gt;" : cp == '&' ? "&amp;" : cp == '"' ? "&quot;"
                        : cp == '\'' ? "&#39;" : NULL;
        if (e) buf_put(&b, e, strlen(e));
        else buf_put(&b, (const char *)p, (size_t)n);
        p += n ? n : 1;
    }
    return b.s;
}

/* Shown on a terminal: control characters (C0, DEL, C1), the bidirectional
   overrides and invalid UTF-8 bytes as visible \xNN / \uNNNN; at most max
   bytes of s (then how many were left out). Writes to f, or into b. */
static void term_esc(FILE *f, Buf *b, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)s, *start = p;
    while (*p) {
        if ((size_t)(p - start) >= max) {
            size_t left = strlen((const char *)p);
            if (f) fprintf(f, "...(%zu more bytes)", left);
            else buf_cut(b, left);
            return;
        }
        unsigned cp;
        int n = utf8_seq(p, &cp);
        char t[16];
        const char *out = (const char *)p;
        size_t len = (size_t)n;
        if (!n) {
            len = (size_t)snprintf(t, sizeof t, "\\x%02x", *p);
            out = t;
            n = 1;
        } else if (cp < 0x20 || cp == 0x7f) {
            len = (size_t)snprintf(t, sizeof t, "\\x%02x", cp);
            out = t;
        } else if ((cp >= 0x80 && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
            len = (size_t)snprintf(t, sizeof t, "\\u%04x", cp);
            out = t;
        }
        if (f) fwrite(out, 1, len, f);
        else buf_put(b, out, len);
        p += n;
    }
}

void term_put(FILE *f, const char *s, size_t max) { term_esc(f, NULL, s ? s : "", max); }

#define ESC_TERM_MAX 1000
const char *esc_term(const char *s)
{
    if (!s) s = "";
    Buf b = {0};
    buf_put(&b, "", 0);
    term_esc(NULL, &b, s, ESC_TERM_MAX);
    return b.s;
}

/* Whether s is a plain decimal number ([+-]digits[.digits][e[+-]digits]),
   which no spreadsheet reads as a formula. */
static int csv_number(const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    int digits = 0;
    while (*p >= '0' && *p <= '9') p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++) digits++;
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '-' || p[1] == '+');
        if (*p < '0' || *p > '9') return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    return !*p;
}

/* One CSV field (RFC 4180): quoted when it holds a comma, a quote, a space
   at either end or starts like a formula; quotes doubled; control characters and
   invalid UTF-8 visible as in esc_term, so a record stays one line. A field
   that starts with = + - @, a tab or a carriage return (before or after that
   escaping) and is not a plain number gets a leading single quote (OWASP's
   CSV injection advice), so a spreadsheet shows it as text. */
const char *esc_csv(const char *s)
{
    if (!s) s = "";
    Buf t = {0};
    buf_put(&t, "", 0);
    term_esc(NULL, &t, s, (size_t)-1);
    const char *v = t.s;
    size_t n = strlen(v);
    int formula = (strchr("=+-@\t\r", v[0] ? v[0] : 'x') || strchr("=+-@\t\r", s[0] ? s[0] : 'x')) && !csv_number(v);
    if (!strpbrk(v, ",\"") && !(n && (v[0] == ' ' || v[n - 1] == ' ')) && !formula && !strchr("=+-@", v[0] ? v[0] : 'x'))
        return v;
    Buf b = {0};
    buf_put(&b, formula ? "\"'" : "\"", formula ? 2 : 1);
    for (; *v; v++) buf_put(&b, *v == '"' ? "\"\"" : v, *v == '"' ? 2 : 1);
    buf_put(&b, "\"", 1);
    return b.s;
}

/* An output may replace only a regular file (or nothing): a directory, a
   device (-o /dev/null), a FIFO, a socket or a symbolic link (which the
   rename would replace, not follow) is refused, before any work. */
void out_check(const char *path)
{
    struct stat st;
    if (!*path) die("the output file name is empty");
    if (lstat(path, &st) != 0) {
        const char *slash = strrchr(path, '/');
        char dir[PATH_CAP];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
        if (access(dir, W_OK | X_OK) != 0) die("%s: cannot write: %s", path, strerror(errno));
        return;
    }
    if (S_ISDIR(st.st_mode)) die("%s: is a directory, not an output file", path);
    if (S_ISLNK(st.st_mode))
        die("%s: is a symbolic link; htc replaces only regular files (name the file it points to)", path);
    if (!S_ISREG(st.st_mode))
        die("%s: not a regular file (a device, FIFO or socket); htc replaces only regular files", path);
}

/* A unique temporary file beside the output (mkstemp: concurrent runs that
   write the same output never share it), renamed over the output by
   out_commit: a reader sees the old file or the whole new one. */
FILE *out_open(const char *path)
{
    int i;
    out_check(path);
    for (i = 0; i < MAX_OUT && pending_on[i]; i++)
        ;
    if (i == MAX_OUT) die("too many output files");
    if (strlen(path) + sizeof ".tmp.XXXXXX" > PATH_CAP) die("%s: path too long", path);
    snprintf(pending_final[i], PATH_CAP, "%s", path);
    snprintf(pending[i], PATH_CAP, "%s.tmp.XXXXXX", path);
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);     /* created and registered as one step */
    int fd = mkstemp(pending[i]);
    int err = errno;
    if (fd >= 0) pending_on[i] = 1;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) die("%s: cannot write: %s", path, strerror(err));
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0) die("%s: cannot write: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        die("%s: cannot write: %s", path, strerror(errno));
    }
    pending_f[i] = f;
    return f;
}

void out_commit(FILE *f)
{
    for (int i = 0; i < MAX_OUT; i++)
        if (pending_on[i] && pending_f[i] == f) {
            pending_f[i] = NULL;
            if (ferror(f) | fclose(f)) die("%s: write failed", pending_final[i]);
            out_check(pending_final[i]);    /* still no device or link in its place */
            if (rename(pending[i], pending_final[i]) != 0)
                die("%s: cannot rename %s over it: %s", pending_final[i], pending[i], strerror(errno));
            pending_on[i] = 0;
            return;
        }
    die("internal: out_commit on unknown file");
}

void out_copy(const char *from, const char *path)
{
    size_t n;
    const uint8_t *d = read_file(from, &n);
    FILE *f = out_open(path);
    if (n) fwrite(d, 1, n, f);
    out_commit(f);
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

/* A new directory "<base>/<prefix>-XXXXXX" (base: $TMPDIR or /tmp), removed
   with everything in it at exit, on die() and on a signal. */
const char *scratch_dir(const char *prefix)
{
    int i;
    for (i = 0; i < MAX_DIRS && scratch_on[i]; i++)
        ;
    if (i == MAX_DIRS) die("internal: too many scratch directories");
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    if (strlen(base) + strlen(prefix) + 16 > PATH_CAP) die("TMPDIR '%s': path too long", base);
    snprintf(scratch[i], PATH_CAP, "%s/%s-XXXXXX", base, prefix);
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int ok = mkdtemp(scratch[i]) != NULL, err = errno;
    if (ok) scratch_on[i] = 1;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (!ok) die("cannot create a temporary directory in %s: %s", base, strerror(err));
    return arena_strdup(scratch[i]);
}

void scratch_remove(const char *dir)
{
    for (int i = 0; i < MAX_DIRS; i++)
        if (scratch_on[i] && !strcmp(scratch[i], dir)) {
            remove_tree(scratch[i]);
            scratch_on[i] = 0;
        }
}

/* Run argv (PATH lookup) and wait; its stdout goes to /dev/null when quiet.
   The child runs in a process group of its own, to which a signal to htc is
   passed on (on_signal), and dies with htc (PR_SET_PDEATHSIG, for SIGKILL).
   Returns the exit status, or 128 + signal. */
/* cc_run's stderr while the compiler's goes to its log: where an error
   that the compiler could not be started goes */
static int cc_saved_stderr = -1;

int run_command(char *const argv[], int quiet)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) die("cannot run %s: %s", argv[0], strerror(errno));
    fflush(NULL);
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);     /* child_pid is set before a signal can look */
    pid_t pid = fork();
    if (pid == 0) {
        /* the child: default signal handling, dies with its parent */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(fds[0]);
        int err = 0;
        setpgid(0, 0);          /* a group of its own, which on_signal stops as a whole */
#ifdef __linux__
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) err = errno;
        if (getppid() != parent) _exit(127);
#endif
        if (!err && quiet) {
            int nul = open("/dev/null", O_WRONLY);
            if (nul < 0 || dup2(nul, 1) < 0) err = errno;
        }
        if (!err) {
            execvp(argv[0], argv);
            err = errno;
        }
        if (write(fds[1], &err, sizeof err) < 0) _exit(127);
        _exit(127);
    }
    int fork_err = errno;
    if (pid > 0) {
        setpgid(pid, pid);      /* also here: no window in which a signal finds no group */
        child_pid = pid;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        die("cannot run %s: %s", argv[0], strerror(fork_err));
    }
    int err = 0;
    ssize_t got;
    while ((got = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    child_pid = 0;
    if (got == (ssize_t)sizeof err) {
        if (cc_saved_stderr >= 0) dup2(cc_saved_stderr, 2);
        die("cannot run %s: %s", argv[0], strerror(err));
    }
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

/* The compiler's messages go to errlog: its first error (which names a
   template's file:line through the header's #line directives) is the one
   line htc reports. */
int cc_run(char *const argv[], const char *errlog)
{
    fflush(stderr);
    int saved = dup(2), efd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (saved >= 0 && efd >= 0) dup2(efd, 2);
    if (efd >= 0) close(efd);
    cc_saved_stderr = saved;
    int rc = run_command(argv, 0);
    cc_saved_stderr = -1;
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    return rc;
}

void cc_fail(char *const argv[], const char *errlog, const char *what, int rc)
{
    size_t n;
    const char *msg = (const char *)read_file(errlog, &n), *first = NULL;
    for (const char *l = msg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (strstr(l, ": error: ") && (!strchr(l, '\n') || strstr(l, ": error: ") < strchr(l, '\n'))) {
            first = l;
            break;
        }
    if (first) die("%.*s (the host compiler %s failed on the generated code)", (int)strcspn(first, "\n"), first, argv[0]);
    die("%s: the host compiler (%s) failed on the generated code (exit %d)", what, argv[0], rc);
}

void cc_build(char *const argv[], const char *errlog, const char *what)
{
    int rc = cc_run(argv, errlog);
    if (rc) cc_fail(argv, errlog, what, rc);
}

/* ---- shared tables --------------------------------------------------------- */

size_t dtype_size(DType t)
{
    switch (t) {
    case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
    case DT_INT16: return 2;
    case DT_INT32: case DT_FLOAT32: case DT_UINT32: return 4;
    case DT_INT64: case DT_UINT64: return 8;
    }
    return 1;
}

const char *dtype_name(DType t)
{
    static const char *n[] = {"int8", "uint8", "int16", "int32", "int64", "float32", "bool", "uint32", "uint64"};
    return n[t];
}

static const char *op_names[OP_COUNT] = {
    "conv2d", "fc", "add", "mul", "avgpool", "maxpool", "mean", "pad", "concat",
    "reshape", "transpose", "softmax", "table", "quantize", "dequantize", "requantize",
    "norm", "gather",
    "sub", "squared_difference", "maximum", "minimum", "prelu", "batch_matmul", "transpose_conv",
    "resize", "tile", "slice", "space_to_batch", "batch_to_space", "sum", "reduce_max",
    "l2norm", "neg", "reduce_min", "argmax", "argmin", "mirror_pad",
    "lstm",
    "compare", "logical", "select", "cast", "fill", "gather_nd", "update_slice", "add_n", "div", "cumsum",
    "reduce_all",
    "svdf", "log_softmax",
    "window", "fft_autoscale", "rfft", "energy", "filter_bank", "filter_bank_sqrt", "spectral_subtraction",
    "pcan", "filter_bank_log", "delay", "overlap_add",
    "detection_postprocess",
};

const char *op_name(OpKind k) { return op_names[k]; }

const char *requant_name(RequantKind k)
{
    static const char *n[RQ_COUNT] = {"none", "tflite", "float", "shift", "fp32", "quantlib"};
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

int op_pointwise(const Op *op)
{
    return op->kind == OP_CONV2D && op->k_h == 1 && op->k_w == 1 && op->stride_h == 1 && op->stride_w == 1 &&
           op->pad_top == 0 && op->pad_left == 0 && op->out_h == op->in_h && op->out_w == op->in_w;
}

void op_rows_view(const Op *op, int y0, int y1, int *iy0, int *ih)
{
    int dil = op->kind == OP_CONV2D ? op->dil_h : 1;
    int first = y0 * op->stride_h - op->pad_top;
    int last = (y1 - 1) * op->stride_h - op->pad_top + (op->k_h - 1) * dil;
    int start = first > 0 ? first : 0;
    if (last > op->in_h - 1) last = op->in_h - 1;
    *iy0 = start;
    *ih = last >= start ? last - start + 1 : 0;
}

int64_t op_bias_absmax(const Graph *g, const Op *op)
{
    const Tensor *b = op->nin > 2 && op->in[2] >= 0 ? &g->tensors[op->in[2]] : NULL;
    int64_t bm = 0;
    if (b && b->data && b->type == DT_INT32)
        for (int64_t i = 0; i < tensor_numel(b); i++) {
            int64_t v = ((const int32_t *)(const void *)b->data)[i];
            v = v < 0 ? -v : v;
            bm = v > bm ? v : bm;
        }
    return bm;
}

#define MAX_NOTES 512

void graph_note(Graph *g, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; c++)      /* names come from model files */
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    if (!g->notes) g->notes = arena_alloc(sizeof(char *) * MAX_NOTES);
    if (g->nnotes < MAX_NOTES) g->notes[g->nnotes++] = arena_strdup(line);
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

int graph_new_tensor(Graph *g, const char *name, DType type, int rank, const int32_t *shape)
{
    int i = graph_add_tensor(g);
    Tensor *t = &g->tensors[i];
    t->name = arena_strdup(name);
    t->type = type;
    t->rank = rank;
    for (int d = 0; d < rank; d++) t->shape[d] = shape[d];
    t->src_index = i;
    return i;
}

int graph_const_tensor(Graph *g, const char *name, DType type, int rank, const int32_t *shape, const void *data,
                       size_t nbytes)
{
    int i = graph_new_tensor(g, name, type, rank, shape);
    uint8_t *d = arena_alloc(nbytes ? nbytes : 1);
    if (nbytes) memcpy(d, data, nbytes);
    g->tensors[i].data = d;
    g->tensors[i].nbytes = nbytes;
    return i;
}

/* n ints grown to hold one more (doubling from 8; arena memory). */
static int *grow_list(int *list, int n)
{
    if (n && (n < 8 || (n & (n - 1)))) return list;
    int *l = arena_alloc(sizeof(int) * (size_t)(n ? 2 * n : 8));
    if (n) memcpy(l, list, sizeof(int) * (size_t)n);
    return l;
}

void graph_add_input(Graph *g, int t)
{
    g->inputs = grow_list(g->inputs, g->ninputs);
    g->inputs[g->ninputs++] = t;
    g->tensors[t].is_input = g->ninputs;
}

void graph_add_output(Graph *g, int t)
{
    g->outputs = grow_list(g->outputs, g->noutputs);
    g->outputs[g->noutputs++] = t;
    g->tensors[t].is_output = g->noutputs;
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
    o->kernel_weights = -1;
    g->nops = n + 1;
    return n;
}
