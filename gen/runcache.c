/* runcache.c - htc run --cache DIR: a run's printed text and output files
   kept under the content of everything that makes them (sweep --measure). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"

/* The key's material: a tag and version, the compiler's argv (paths in the
   run's scratch directory by a fixed name), the header
   without its "params:" comment line (the -D values as text: a comment the
   compiler skips, so two configurations that build the same program share
   one entry), the driver, each input's bytes and the number of outputs;
   every part with its length. Its FNV-1a 64 names the entry, and the
   entry keeps the material, compared whole on a hit (no collision can
   give another run's results). */
struct RunCache {
    const char *dir, *name;
    char *key;
    size_t len, cap;
};

static void put(RunCache *c, const void *d, size_t n)
{
    if (c->len + n + 32 > c->cap) {
        size_t cap = c->cap ? c->cap : 1 << 16;
        while (c->len + n + 32 > cap) cap *= 2;
        char *k = malloc(cap);
        if (!k) die("--cache: out of memory");
        if (c->len) memcpy(k, c->key, c->len);
        free(c->key);
        c->key = k;
        c->cap = cap;
    }
    c->len += (size_t)sprintf(c->key + c->len, "\n%zu:", n);
    memcpy(c->key + c->len, d, n);
    c->len += n;
}

static void put_file(RunCache *c, const char *path, int header)
{
    size_t n;
    const char *d = (const char *)read_file(path, &n);
    if (header) {          /* the first comment's "   params: " line left out */
        const char *end = memmem(d, n, "*/", 2), *p = memmem(d, n, "\n   params: ", 12);
        if (p && end && p < end) {
            const char *e = memchr(p + 1, '\n', (size_t)(d + n - (p + 1)));
            if (e) {
                put(c, d, (size_t)(p - d));
                put(c, e, (size_t)(d + n - e));
                return;
            }
        }
    }
    put(c, d, n);
}

/* DIR is created if missing; it must be a directory of the user's own, not
   writable by others (entries are read back as results). */
static void dir_check(const char *d)
{
    struct stat st;
    if (lstat(d, &st) != 0) {
        if (errno != ENOENT || (mkdir(d, 0777) != 0 && errno != EEXIST))
            die("--cache %s: cannot create: %s", d, strerror(errno));
        if (lstat(d, &st) != 0) die("--cache %s: %s", d, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) die("--cache %s: not a directory", d);
    if (st.st_uid != geteuid() || (st.st_mode & S_IWOTH))
        die("--cache %s: %s; its entries are read back as results: give a directory of your own", d,
            st.st_uid != geteuid() ? "owned by another user" : "writable by others");
}

RunCache *rcache_open(const char *dir, char *const ccargv[], const char *scratch, const char *header,
                      const char *driver, const char *const *inputs, int ninputs, int noutputs)
{
    dir_check(dir);
    RunCache *c = arena_alloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->dir = dir;
    const char *tag = "htc-run-cache-1 " HTC_VERSION;
    put(c, tag, strlen(tag));
    size_t sl = strlen(scratch);
    for (int i = 0; ccargv[i]; i++) {       /* the run's own scratch directory by a fixed name */
        const char *a = ccargv[i];
        if (!strncmp(a, scratch, sl) && a[sl] == '/') a = arena_printf("SCRATCH%s", a + sl);
        put(c, a, strlen(a));
    }
    put_file(c, header, 1);
    put_file(c, driver, 0);
    for (int i = 0; i < ninputs; i++) put_file(c, inputs[i], 0);
    char no[16];
    snprintf(no, sizeof no, "%d", noutputs);
    put(c, no, strlen(no));
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < c->len; i++) h = (h ^ (unsigned char)c->key[i]) * 1099511628211ull;
    c->name = arena_printf("%s/%016llx", dir, (unsigned long long)h);
    return c;
}

/* a regular file of the entry (never a link), whole, or NULL */
static char *entry_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0) return NULL;
    struct stat st;
    char *d = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        d = arena_alloc((size_t)st.st_size + 1);
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, d + got, (size_t)st.st_size - got);
            if (n <= 0) break;
            got += (size_t)n;
        }
        if (got != (size_t)st.st_size) d = NULL;
        else *len = got;
    }
    close(fd);
    return d;
}

/* A hit: the run's text printed to stdout, its outputs written to
   outputs[]; 1. A miss (no entry, or another material under the name): 0. */
int rcache_get(RunCache *c, const char *const *outputs, int noutputs)
{
    size_t n, tn;
    const char *k = entry_read(arena_printf("%s/key", c->name), &n);
    if (!k || n != c->len || memcmp(k, c->key, n)) return 0;
    const char *text = entry_read(arena_printf("%s/stdout", c->name), &tn);
    if (!text) return 0;
    const char **outs = arena_alloc(sizeof(char *) * (size_t)(noutputs + 1));
    size_t *lens = arena_alloc(sizeof(size_t) * (size_t)(noutputs + 1));
    for (int i = 0; i < noutputs; i++)
        if (!(outs[i] = entry_read(arena_printf("%s/out%d", c->name, i), &lens[i]))) return 0;
    for (int i = 0; i < noutputs; i++) {
        FILE *f = out_open(outputs[i]);
        if (lens[i]) fwrite(outs[i], 1, lens[i], f);
        out_commit(f);
    }
    fwrite(text, 1, tn, stdout);
    fflush(stdout);
    return 1;
}

static int entry_write(const char *path, const void *d, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
    if (fd < 0) return -1;
    for (size_t got = 0; got < n;) {
        ssize_t w = write(fd, (const char *)d + got, n - got);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        got += (size_t)w;
    }
    return close(fd);
}

/* A finished run stored: the entry written whole in a fresh directory
   beside it, then renamed to its name. A rename of a directory onto a
   name that exists fails, so a concurrent writer of the same key (another
   shard) leaves one complete entry, never a mix; the loser's is removed.
   A reader sees no entry or a whole one. The run has succeeded: an entry
   that cannot be written is a warning, and nothing of it is left. */
void rcache_put(RunCache *c, const char *text, const char *const *outputs, int noutputs)
{
    char *tmp = arena_printf("%s.tmp.XXXXXX", c->name);
    if (!mkdtemp(tmp)) {
        warn("--cache: cannot create %s: %s (the run is not cached)", tmp, strerror(errno));
        return;
    }
    size_t n;
    const char *t = (const char *)read_file(text, &n);
    int bad = entry_write(arena_printf("%s/stdout", tmp), t, n);
    for (int i = 0; i < noutputs && !bad; i++) {
        const char *d = (const char *)read_file(outputs[i], &n);
        bad = entry_write(arena_printf("%s/out%d", tmp, i), d, n);
    }
    if (!bad) bad = entry_write(arena_printf("%s/key", tmp), c->key, c->len);
    if (bad) warn("--cache: cannot write in %s: %s (the run is not cached)", tmp, strerror(errno));
    else if (rename(tmp, c->name) == 0) return;
    else if (errno != EEXIST && errno != ENOTEMPTY)
        warn("--cache: cannot rename %s: %s (the run is not cached)", tmp, strerror(errno));
    remove_tree(tmp);       /* not stored, or another writer's entry is there */
}
