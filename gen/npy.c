/* npy.c - NumPy .npy arrays and .npz archives (zip, entries stored without
   compression, as np.savez writes them) for `htc run --input/--output`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "npy.h"

#define NPY_MAX_ELEMS ((int64_t)1 << 32)     /* elements of one array */

/* ---- .npy ------------------------------------------------------------------ */

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* The value of 'key' in the header dictionary, or NULL. */
static const char *dict_value(const char *h, const char *key)
{
    char k[32];
    snprintf(k, sizeof k, "'%s'", key);
    const char *p = strstr(h, k);
    if (!p) {
        snprintf(k, sizeof k, "\"%s\"", key);
        p = strstr(h, k);
    }
    if (!p) return NULL;
    p += strlen(k);
    while (*p == ' ') p++;
    if (*p++ != ':') return NULL;
    while (*p == ' ') p++;
    return p;
}

/* One .npy image (buf, len); what names it in errors. */
static void parse_npy(const uint8_t *buf, size_t len, const char *what, NpyArray *a)
{
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6)) die("%s: not a NumPy .npy array (no \\x93NUMPY magic)", what);
    int major = buf[6];
    size_t hl, off;
    if (major == 1) {
        hl = rd16(buf + 8);
        off = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) die("%s: truncated .npy header", what);
        hl = rd32(buf + 8);
        off = 12;
    } else {
        die("%s: .npy format version %d is not supported", what, major);
    }
    if (hl > len - off) die("%s: truncated .npy header", what);
    char *h = arena_alloc(hl + 1);
    memcpy(h, buf + off, hl);
    off += hl;
    const char *d = dict_value(h, "descr"), *fo = dict_value(h, "fortran_order"), *sh = dict_value(h, "shape");
    if (!d || !fo || !sh) die("%s: .npy header without descr, fortran_order or shape", what);
    char q = *d++;
    if (q != '\'' && q != '"') die("%s: .npy descr is not a simple type (structured arrays are not supported)", what);
    char order = *d;
    if (order == '<' || order == '|' || order == '=') d++;
    else if (order == '>') die("%s: big-endian arrays are not supported", what);
    char kind = *d++;
    int size = (int)strtol(d, NULL, 10);
    if (!((kind == 'i' && (size == 1 || size == 2 || size == 4 || size == 8)) ||
          (kind == 'u' && (size == 1 || size == 2 || size == 4 || size == 8)) ||
          (kind == 'f' && (size == 4 || size == 8)) || (kind == 'b' && size == 1)))
        die("%s: .npy element type '%c%d' is not supported (integers, float32/64, bool)", what, kind, size);
    a->kind = kind;
    a->size = size;
    if (*sh != '(') die("%s: .npy shape is not a tuple", what);
    sh++;
    a->rank = 0;
    a->numel = 1;
    for (;;) {
        while (*sh == ' ' || *sh == ',') sh++;
        if (*sh == ')') break;
        char *end;
        errno = 0;
        long long v = strtoll(sh, &end, 10);
        if (end == sh || v < 0 || errno) die("%s: bad .npy shape", what);
        if (a->rank == MAX_RANK) die("%s: rank above %d", what, MAX_RANK);
        /* each dimension and the product checked before they multiply */
        if (v > NPY_MAX_ELEMS || (v && a->numel > NPY_MAX_ELEMS / v))
            die("%s: too many elements (at most %lld)", what, (long long)NPY_MAX_ELEMS);
        a->shape[a->rank++] = v;
        a->numel *= v;
        sh = end;
    }
    if (strncmp(fo, "True", 4) && strncmp(fo, "False", 5)) die("%s: .npy fortran_order is neither True nor False", what);
    int fortran = !strncmp(fo, "True", 4);
    size_t nb = (size_t)a->numel * (size_t)size;
    if (len - off < nb) die("%s: %zu bytes of data, the shape needs %zu", what, len - off, nb);
    a->data = buf + off;
    if (fortran && a->rank > 1) {       /* column-major: to C order */
        uint8_t *c = arena_alloc(nb ? nb : 1);
        int64_t idx[MAX_RANK] = {0};
        for (int64_t i = 0; i < a->numel; i++) {
            int64_t f = 0;
            for (int d = a->rank - 1; d >= 0; d--) f = f * a->shape[d] + idx[d];
            memcpy(c + (size_t)i * (size_t)size, a->data + (size_t)f * (size_t)size, (size_t)size);
            for (int d = a->rank - 1; d >= 0; d--) {
                if (++idx[d] < a->shape[d]) break;
                idx[d] = 0;
            }
        }
        a->data = c;
    }
}

/* Element i as an integer; *exact = 0 when it is a float with a fraction. */
int64_t npy_get(const NpyArray *a, int64_t i, int *exact)
{
    const uint8_t *p = a->data + (size_t)i * (size_t)a->size;
    *exact = 1;
    switch (a->kind) {
    case 'b': return p[0] != 0;
    case 'u': return a->size == 1 ? p[0] : a->size == 2 ? rd16(p) : a->size == 4 ? rd32(p) : (int64_t)rd64(p);
    case 'i': return a->size == 1 ? (int8_t)p[0] : a->size == 2 ? (int16_t)rd16(p) : a->size == 4 ? (int32_t)rd32(p)
                                                                                          : (int64_t)rd64(p);
    case 'f': {
        double v;
        if (a->size == 4) {
            float f;
            uint32_t u = rd32(p);
            memcpy(&f, &u, 4);
            v = f;
        } else {
            uint64_t u = rd64(p);
            memcpy(&v, &u, 8);
        }
        if (!(v >= -9.2e18 && v <= 9.2e18) || v != (double)(int64_t)v) {
            *exact = 0;
            return 0;
        }
        return (int64_t)v;
    }
    }
    return 0;
}

/* ---- .npz (zip) --------------------------------------------------------------- */

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return x < y ? -1 : x > y;
}

static void parse_npz(const uint8_t *buf, size_t len, const char *path, NpyArray **out, int *n)
{
    /* End of central directory: the last signature within 64 KiB + 22 of the end */
    size_t e = 0;
    int found = 0;
    for (size_t i = len >= 22 ? len - 22 : 0;; i--) {
        if (len >= 22 && rd32(buf + i) == 0x06054b50) {
            e = i;
            found = 1;
            break;
        }
        if (i == 0 || len - i > 65557) break;
    }
    if (!found) die("%s: not a .npz archive (no zip end record)", path);
    uint64_t count = rd16(buf + e + 10), cd = rd32(buf + e + 16);
    if (cd == 0xffffffffu || count == 0xffff) {     /* zip64 end record via its locator */
        if (e < 20 || rd32(buf + e - 20) != 0x07064b50) die("%s: zip64 archive without a locator", path);
        uint64_t z = rd64(buf + e - 20 + 8);
        if (len < 56 || z > len - 56 || rd32(buf + z) != 0x06064b50) die("%s: bad zip64 end record", path);
        count = rd64(buf + z + 32);
        cd = rd64(buf + z + 48);
    }
    if (count > 100000) die("%s: %llu entries", path, (unsigned long long)count);
    NpyArray *arr = arena_alloc(sizeof *arr * (size_t)(count ? count : 1));
    if (cd > len) die("%s: corrupt zip central directory", path);
    size_t p = (size_t)cd;
    uint64_t (*span)[2] = arena_alloc(sizeof *span * (size_t)(count ? count : 1));
    int k = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (p > len || len - p < 46 || rd32(buf + p) != 0x02014b50) die("%s: corrupt zip central directory", path);
        int method = (int)rd16(buf + p + 10), flags = (int)rd16(buf + p + 8);
        uint64_t csize = rd32(buf + p + 20), usize = rd32(buf + p + 24), loff = rd32(buf + p + 42);
        size_t nl = rd16(buf + p + 28), xl = rd16(buf + p + 30), cl = rd16(buf + p + 32);
        if (len - p - 46 < nl + xl + cl) die("%s: corrupt zip central directory", path);
        char *name = arena_alloc(nl + 1);
        memcpy(name, buf + p + 46, nl);
        /* zip64 extra field: the sizes and offset that are 0xffffffff, in order */
        const uint8_t *x = buf + p + 46 + nl, *xe = x + xl;
        while (xe - x >= 4) {
            uint32_t id = rd16(x), sz = rd16(x + 2);
            if ((size_t)(xe - x - 4) < sz) break;
            if (id == 1) {
                const uint8_t *f = x + 4, *fe = f + sz;
                if (usize == 0xffffffffu && fe - f >= 8) { usize = rd64(f); f += 8; }
                if (csize == 0xffffffffu && fe - f >= 8) { csize = rd64(f); f += 8; }
                if (loff == 0xffffffffu && fe - f >= 8) { loff = rd64(f); f += 8; }
            }
            x += 4 + sz;
        }
        p += 46 + nl + xl + cl;
        if (nl && name[nl - 1] == '/') continue;     /* a directory */
        if (flags & 1) die("%s: entry '%s' is encrypted", path, name);
        if (method != 0)
            die("%s: entry '%s' is compressed (zip method %d); htc reads .npz files written by np.savez "
                "(stored), not np.savez_compressed", path, name, method);
        if (csize != usize) die("%s: entry '%s': stored sizes differ", path, name);
        /* sizes come from the central directory, so data descriptors
           (flag 8) need nothing more */
        if (loff > len || len - loff < 30 || rd32(buf + loff) != 0x04034b50) die("%s: entry '%s': bad local header", path, name);
        size_t data = (size_t)loff + 30 + rd16(buf + loff + 26) + rd16(buf + loff + 28);
        if (data > len || len - data < usize) die("%s: entry '%s' is truncated", path, name);
        span[k][0] = loff;
        span[k][1] = data + usize;
        if (nl > 4 && !strcmp(name + nl - 4, ".npy")) name[nl - 4] = 0;
        arr[k].name = name;
        parse_npy(buf + data, (size_t)usize, arena_printf("%s: entry '%s'", path, name), &arr[k]);
        k++;
    }
    /* entries may not share bytes: a few bytes of archive must not become
       many arrays */
    qsort(span, (size_t)k, sizeof *span, by_start);
    for (int i = 1; i < k; i++)
        if (span[i][0] < span[i - 1][1]) die("%s: entries overlap (zip members sharing bytes)", path);
    *out = arr;
    *n = k;
}

int npy_is_numpy(const char *path)
{
    size_t l = strlen(path);
    return l > 4 && (!strcmp(path + l - 4, ".npy") || !strcmp(path + l - 4, ".npz"));
}

int npy_load(const char *path, NpyArray **arrays)
{
    size_t len;
    const uint8_t *buf = read_file(path, &len);
    size_t l = strlen(path);
    if (l > 4 && !strcmp(path + l - 4, ".npz")) {
        int n;
        parse_npz(buf, len, path, arrays, &n);
        return n;
    }
    NpyArray *a = arena_alloc(sizeof *a);
    a->name = "";
    parse_npy(buf, len, path, a);
    *arrays = a;
    return 1;
}

/* ---- writing ------------------------------------------------------------------- */

static uint32_t crc32_of(const uint8_t *p, size_t n, uint32_t c)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t v = i;
            for (int k = 0; k < 8; k++) v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
            table[i] = v;
        }
    c = ~c;
    for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return ~c;
}

/* The .npy image of one tensor's raw bytes; *len gets its size. */
static uint8_t *npy_image(const NpyOut *o, size_t *len)
{
    const char *descr = o->type == DT_INT8 ? "|i1" : o->type == DT_UINT8 ? "|u1" : o->type == DT_INT16 ? "<i2"
                        : o->type == DT_INT32 ? "<i4" : o->type == DT_INT64 ? "<i8" : o->type == DT_FLOAT32 ? "<f4"
                        : o->type == DT_UINT32 ? "<u4" : o->type == DT_UINT64 ? "<u8" : "|b1";
    char shape[256] = "";
    size_t s = 0;
    for (int d = 0; d < o->rank; d++) s += (size_t)snprintf(shape + s, sizeof shape - s, "%d,%s", o->shape[d], d + 1 < o->rank ? " " : "");
    if (o->rank > 1) shape[s - 1] = 0;      /* (2, 3) but (4,) */
    char h[512];
    int hl = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
    int total = 10 + hl + 1;
    int pad = (64 - total % 64) % 64;
    size_t n = (size_t)total + (size_t)pad + o->nbytes;
    uint8_t *b = arena_alloc(n);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (uint8_t)((hl + pad + 1) & 0xff);
    b[9] = (uint8_t)((hl + pad + 1) >> 8);
    memcpy(b + 10, h, (size_t)hl);
    memset(b + 10 + hl, ' ', (size_t)pad);
    b[10 + hl + pad] = '\n';
    memcpy(b + total + pad, o->data, o->nbytes);
    *len = n;
    return b;
}

/* The .npz member name of output i: its tensor name with every byte
   outside printable ASCII and every '/' and '\\' as '_' (no directory, no
   absolute path, no "..": np.load and unzip see one flat name), at most
   MEMBER_MAX bytes, "_<i>" appended when an earlier output has the same
   name, then ".npy". */
#define MEMBER_MAX 200
static const char *member_name(const char *name, const char *const *prev, int i)
{
    char *m = arena_alloc(MEMBER_MAX + 32);
    size_t n = 0;
    for (const char *c = name; *c && n < MEMBER_MAX; c++)
        m[n++] = (unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f || *c == '/' || *c == '\\' ? '_' : *c;
    if (!n || !strcmp(m, ".") || !strcmp(m, "..")) m[n++] = '_';
    m[n] = 0;
    for (int j = 0; j < i; j++)
        if (!strcmp(prev[j], arena_printf("%s.npy", m))) {
            snprintf(m + n, 32, "_%d", i);
            break;
        }
    return arena_printf("%s.npy", m);
}

static void w16(FILE *f, uint32_t v) { fputc((int)(v & 0xff), f); fputc((int)(v >> 8 & 0xff), f); }
static void w32(FILE *f, uint32_t v) { w16(f, v & 0xffff); w16(f, v >> 16); }

void npy_save(const char *path, const NpyOut *outs, int n)
{
    size_t l = strlen(path);
    int zip = l > 4 && !strcmp(path + l - 4, ".npz");
    if (!zip && n != 1) die("%s: a .npy file holds one array; use .npz for %d outputs", path, n);
    FILE *f = out_open(path);
    if (!zip) {
        size_t len;
        uint8_t *b = npy_image(&outs[0], &len);
        fwrite(b, 1, len, f);
        out_commit(f);
        return;
    }
    uint32_t *offs = arena_alloc(sizeof(uint32_t) * (size_t)(n ? n : 1)), *crcs = arena_alloc(sizeof(uint32_t) * (size_t)(n ? n : 1));
    size_t *lens = arena_alloc(sizeof(size_t) * (size_t)(n ? n : 1));
    const char **names = arena_alloc(sizeof(char *) * (size_t)(n ? n : 1));
    uint32_t pos = 0;
    for (int i = 0; i < n; i++) {
        uint8_t *b = npy_image(&outs[i], &lens[i]);
        if (lens[i] > 0x7fffffff || pos > 0x7fffffff - lens[i] - 1024) die("%s: too large for a .npz", path);
        names[i] = member_name(outs[i].name, names, i);
        crcs[i] = crc32_of(b, lens[i], 0);
        offs[i] = pos;
        uint16_t nl = (uint16_t)strlen(names[i]);
        w32(f, 0x04034b50); w16(f, 20); w16(f, 0); w16(f, 0); w16(f, 0); w16(f, 0x21);
        w32(f, crcs[i]); w32(f, (uint32_t)lens[i]); w32(f, (uint32_t)lens[i]); w16(f, nl); w16(f, 0);
        fwrite(names[i], 1, nl, f);
        fwrite(b, 1, lens[i], f);
        pos += 30 + nl + (uint32_t)lens[i];
    }
    uint32_t cd = pos;
    for (int i = 0; i < n; i++) {
        uint16_t nl = (uint16_t)strlen(names[i]);
        w32(f, 0x02014b50); w16(f, 20); w16(f, 20); w16(f, 0); w16(f, 0); w16(f, 0); w16(f, 0x21);
        w32(f, crcs[i]); w32(f, (uint32_t)lens[i]); w32(f, (uint32_t)lens[i]); w16(f, nl); w16(f, 0); w16(f, 0);
        w16(f, 0); w16(f, 0); w32(f, 0); w32(f, offs[i]);
        fwrite(names[i], 1, nl, f);
        pos += 46 + nl;
    }
    w32(f, 0x06054b50); w16(f, 0); w16(f, 0); w16(f, (uint32_t)n); w16(f, (uint32_t)n);
    w32(f, pos - cd); w32(f, cd); w16(f, 0);
    out_commit(f);
}

/* ---- htc run: NumPy files in place of raw ones ------------------------------------ */

static int64_t type_lo(DType t)
{
    return t == DT_INT8 ? -128 : t == DT_INT16 ? -32768 : t == DT_INT32 ? INT32_MIN : t == DT_INT64 ? INT64_MIN : 0;
}

static int64_t type_hi(DType t)
{
    return t == DT_INT8 ? 127 : t == DT_UINT8 ? 255 : t == DT_INT16 ? 32767 : t == DT_INT32 ? INT32_MAX
           : t == DT_BOOL ? 1 : t == DT_UINT32 ? UINT32_MAX : INT64_MAX;
}

/* Array a as the raw bytes of tensor t: every value converted to t's type,
   with a range check; what names both in errors. */
static void *to_raw(const NpyArray *a, const Tensor *t, const char *what)
{
    int64_t n = tensor_numel(t);
    if (a->numel != n) die("%s: %lld elements, the graph input has %lld", what, (long long)a->numel, (long long)n);
    size_t es = dtype_size(t->type);
    uint8_t *raw = arena_alloc((size_t)n * es + 1);
    for (int64_t i = 0; i < n; i++) {
        uint8_t *p = raw + (size_t)i * es;
        if (t->type == DT_FLOAT32) {
            float f;
            if (a->kind == 'f' && a->size == 4) memcpy(&f, a->data + 4 * i, 4);
            else if (a->kind == 'f') {
                double d;
                memcpy(&d, a->data + 8 * i, 8);
                f = (float)d;
            } else {
                int ex;
                f = (float)npy_get(a, i, &ex);
            }
            memcpy(p, &f, 4);
            continue;
        }
        int exact;
        int64_t v = npy_get(a, i, &exact);
        if (!exact) die("%s: element %lld is not an integer (the graph input is %s)", what, (long long)i, dtype_name(t->type));
        if (v < type_lo(t->type) || v > type_hi(t->type))
            die("%s: element %lld is %lld, out of range for the graph input's type %s", what, (long long)i, (long long)v,
                dtype_name(t->type));
        switch (es) {
        case 1: p[0] = (uint8_t)v; break;
        case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
        case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
        default: memcpy(p, &v, 8);
        }
    }
    return raw;
}

static void write_raw(const char *path, const void *d, size_t n)
{
    FILE *f = out_open(path);
    if (n) fwrite(d, 1, n, f);
    out_commit(f);
}

/* The arrays of an .npz for the graph inputs: by name when every input
   name is an entry, else in archive order. */
static const NpyArray *pick(const Graph *g, const NpyArray *arr, int n, int k, const char *path)
{
    int by_name = 1;
    for (int i = 0; i < g->ninputs && by_name; i++) {
        int f = 0;
        for (int j = 0; j < n; j++) f |= !strcmp(arr[j].name, g->tensors[g->inputs[i]].name);
        by_name = f;
    }
    if (by_name)
        for (int j = 0; j < n; j++)
            if (!strcmp(arr[j].name, g->tensors[g->inputs[k]].name)) return &arr[j];
    if (n < g->ninputs) die("%s: %d arrays, the model has %d inputs (and not every input name is an entry)", path, n, g->ninputs);
    return &arr[k];
}

const char **npy_run_inputs(const Graph *g, const char *const *files, int n, const char *dir)
{
    const char **raw = arena_alloc(sizeof(char *) * (size_t)(g->ninputs + 1));
    size_t l = n == 1 ? strlen(files[0]) : 0;
    if (n == 1 && l > 4 && !strcmp(files[0] + l - 4, ".npz")) {
        NpyArray *arr;
        int na = npy_load(files[0], &arr);
        for (int k = 0; k < g->ninputs; k++) {
            const Tensor *t = &g->tensors[g->inputs[k]];
            const NpyArray *a = pick(g, arr, na, k, files[0]);
            void *d = to_raw(a, t, arena_printf("%s: entry '%s' (graph input '%s')", files[0], a->name, t->name));
            raw[k] = arena_printf("%s/in%d.bin", dir, k);
            write_raw(raw[k], d, tensor_bytes(t));
        }
        return raw;
    }
    if (n != g->ninputs)
        die("%s: the model has %d input(s); give as many --input files, or one .npz (got %d)", g->path, g->ninputs, n);
    for (int k = 0; k < n; k++) {
        const Tensor *t = &g->tensors[g->inputs[k]];
        if (!npy_is_numpy(files[k])) {
            raw[k] = files[k];
            continue;
        }
        NpyArray *arr;
        int na = npy_load(files[k], &arr);
        if (na != 1) die("%s: %d arrays; give one .npz for all inputs, or one array per --input", files[k], na);
        void *d = to_raw(&arr[0], t, arena_printf("%s (graph input '%s')", files[k], t->name));
        raw[k] = arena_printf("%s/in%d.bin", dir, k);
        write_raw(raw[k], d, tensor_bytes(t));
    }
    return raw;
}

const char **npy_run_outputs(const Graph *g, const char *const *files, int n, const char *dir)
{
    const char **raw = arena_alloc(sizeof(char *) * (size_t)(g->noutputs + 1));
    size_t l = n == 1 ? strlen(files[0]) : 0;
    int zip = n == 1 && l > 4 && !strcmp(files[0] + l - 4, ".npz");
    if (!zip && n != g->noutputs)
        die("%s: the model has %d output(s); give as many --output files, or one .npz (got %d)", g->path, g->noutputs, n);
    for (int k = 0; k < g->noutputs; k++)
        raw[k] = zip || npy_is_numpy(files[k]) ? arena_printf("%s/out%d.bin", dir, k) : files[k];
    return raw;
}

void npy_run_finish(const Graph *g, const char *const *files, int n, const char *const *raw)
{
    size_t l = n == 1 ? strlen(files[0]) : 0;
    int zip = n == 1 && l > 4 && !strcmp(files[0] + l - 4, ".npz");
    NpyOut *o = arena_alloc(sizeof *o * (size_t)(g->noutputs + 1));
    for (int k = 0; k < g->noutputs; k++) {
        const Tensor *t = &g->tensors[g->outputs[k]];
        o[k].name = t->name;
        o[k].type = t->type;
        o[k].rank = t->rank;
        o[k].shape = t->shape;
        size_t len;
        o[k].data = raw[k] != files[k] ? read_file(raw[k], &len) : NULL;
        o[k].nbytes = tensor_bytes(t);
        if (!zip && o[k].data) npy_save(files[k], &o[k], 1);
    }
    if (zip) npy_save(files[0], o, g->noutputs);
}

/* ---- input data as a hint for the graph input types (QuantLib's form) ----- */

static NpyArray *hint_arr;
static int hint_n;

void npy_hint_files(const char *const *files, int n)
{
    hint_arr = NULL;
    hint_n = 0;
    for (int i = 0; i < n; i++)
        if (!npy_is_numpy(files[i])) return;
    if (n == 1) {
        hint_n = npy_load(files[0], &hint_arr);
        return;
    }
    hint_arr = arena_alloc(sizeof *hint_arr * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        NpyArray *a;
        if (npy_load(files[i], &a) != 1) return;
        hint_arr[hint_n++] = a[0];
    }
}

int npy_hint(const char *name, int index, int64_t *lo, int64_t *hi)
{
    const NpyArray *a = NULL;
    for (int i = 0; i < hint_n; i++)
        if (!strcmp(hint_arr[i].name, name)) a = &hint_arr[i];
    if (!a && index < hint_n) a = &hint_arr[index];
    if (!a || a->numel == 0) return 0;
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int64_t i = 0; i < a->numel; i++) {
        int exact;
        int64_t v = npy_get(a, i, &exact);
        if (!exact) return 0;
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
    return 1;
}
