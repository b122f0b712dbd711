/* target.c - loads a Lua target file into plain C structs: the schema
   (memories, engines, ops), errors at the field's file:line, describe.
   The sandbox, the parameters and the calls into Lua are target_*.c. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target_lua.h"

#define MAX_ENGINES 16
#define MAX_MEMORY_BYTES 1099511627776.0   /* 2^40: a memory's size */
#define MAX_ALIGNMENT 4096

static const char *find_file(const Target *t, const char *path, const char **why);

/* ---- locating a field in the source, for file:line in schema errors -----

   Lua tables keep no line numbers, so a schema error finds the line of its
   field by scanning the text for the nested keys in order ("engines", then
   "digital", then "ops", ...). The first match after the previous key wins:
   exact for files written in the documented layout, a close hint otherwise. */
int target_find_key(const char *src, size_t len, size_t from, const char *key, size_t *at)
{
    size_t kl = strlen(key);
    for (size_t i = from; i + kl <= len; i++) {
        if (memcmp(src + i, key, kl) != 0) continue;
        if (i > 0 && (isalnum((unsigned char)src[i - 1]) || src[i - 1] == '_')) continue;
        size_t j = i + kl;
        if (j < len && (isalnum((unsigned char)src[j]) || src[j] == '_')) continue;
        if (j < len && src[j] == '"') j++;          /* ["key"] = */
        if (j < len && src[j] == ']') j++;
        while (j < len && (src[j] == ' ' || src[j] == '\t')) j++;
        if (j < len && src[j] == '=' && !(j + 1 < len && src[j + 1] == '=')) {
            *at = i;
            return 1;
        }
    }
    return 0;
}

int target_locate(const LoadedTarget *lt, const char *const *keys, int nkeys)
{
    size_t pos = 0, at = 0;
    int found = 0;
    for (int k = 0; k < nkeys; k++) {
        if (!keys[k]) continue;
        if (target_find_key(lt->src, lt->srclen, pos, keys[k], &at)) {
            pos = at + 1;
            found = 1;
        }
    }
    if (!found) return 1;
    int line = 1;
    for (size_t i = 0; i < pos - 1 && i < lt->srclen; i++)
        if (lt->src[i] == '\n') line++;
    return line;
}

/* Schema error at the field path keys[0..n). */
static void __attribute__((noreturn, format(printf, 4, 5)))
field_error(const LoadedTarget *lt, const char *const *keys, int nkeys, const char *fmt, ...)
{
    char msg[512], path[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (int k = 0; k < nkeys; k++)
        if (keys[k]) {
            if (path[0]) strncat(path, ".", sizeof path - strlen(path) - 1);
            strncat(path, keys[k], sizeof path - strlen(path) - 1);
        }
    die("%s:%d: %s%s%s", lt->t.path, target_locate(lt, keys, nkeys), path, path[0] ? ": " : "", msg);
}


/* ---- reading fields ----------------------------------------------------------- */

static const char *const top_keys[] = {"name", "clock_mhz", "memory", "cpu", "engines", "dispatch", "description", NULL};
static const char *const mem_keys[] = {"size", "alignment", "dma", "cost", "energy", "banks", NULL};
static const char *const bank_keys[] = {"count", "access", NULL};
static const char *const dma_keys[] = {"bytes_per_cycle", "setup", "pj_per_byte", NULL};
static const char *const engine_keys[] = {"name", "memory", "requant", "ops", "description", "weights", "outputs",
                                          "startup", "array", "device", "cores", "l1", "split", "fork", "overhead", "call", "energy",
                                          "band", "isa", "requant_records", NULL};
static const char *const array_keys[] = {"rows", "cols", NULL};
static const char *const op_keys[] = {"kernel", "fn", "cycles_per_mac", "cycles_per_elem", "accepts", "template", "requant",
                                      "tile", "double_buffer", "macs_per_cycle", "constants", "partial_sums", "cycles", "fork", NULL};

/* Every key of the table at the top of the stack must be in `allowed`. */
static void check_keys(LoadedTarget *lt, const char *const *keys, int nkeys, const char *const *allowed)
{
    lua_State *L = lt->L;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            field_error(lt, keys, nkeys, "keys must be names");
        const char *k = lua_tostring(L, -1);
        if (!in_list(k, allowed)) {
            char list[256] = "";
            for (int i = 0; allowed[i]; i++) {
                if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, allowed[i], sizeof list - strlen(list) - 1);
            }
            const char *kk[MAX_RANK + 2];
            int n = 0;
            for (int i = 0; i < nkeys && n < MAX_RANK + 1; i++) kk[n++] = keys[i];
            kk[n++] = k;
            field_error(lt, kk, n, "unknown field (expected one of: %s)", list);
        }
    }
}

/* A number in [min, max] (integral when integer); absent: dflt, or an
   error when required. NaN, infinities and out-of-range values name the
   field's file:line. */
static double get_number(LoadedTarget *lt, const char *const *keys, int nkeys, const char *field,
                         int required, double dflt, double min, double max, int integer)
{
    lua_State *L = lt->L;
    const char *kk[8];
    int n = 0;
    for (int i = 0; i < nkeys; i++) kk[n++] = keys[i];
    kk[n++] = field;
    int ty = rawfield(L, -1, field);
    double v = dflt;
    if (ty == LUA_TNIL) {
        if (required) field_error(lt, kk, n - 1, "missing required field '%s'", field);
    } else if (ty != LUA_TNUMBER) {
        field_error(lt, kk, n, "expected a number, got %s", lua_typename(L, ty));
    } else {
        v = lua_tonumber(L, -1);
        if (!(v >= min && v <= max)) field_error(lt, kk, n, "must be in [%.15g, %.15g], got %.15g", min, max, v);
        if (integer && v != floor(v)) field_error(lt, kk, n, "must be an integer, got %.15g", v);
    }
    lua_pop(L, 1);
    return v;
}

static const char *get_string(LoadedTarget *lt, const char *const *keys, int nkeys, const char *field, int required)
{
    lua_State *L = lt->L;
    const char *kk[8];
    int n = 0;
    for (int i = 0; i < nkeys; i++) kk[n++] = keys[i];
    kk[n++] = field;
    int ty = rawfield(L, -1, field);
    const char *s = NULL;
    if (ty == LUA_TNIL) {
        if (required) field_error(lt, kk, n - 1, "missing required field '%s'", field);
    } else if (ty != LUA_TSTRING) {
        field_error(lt, kk, n, "expected a string, got %s", lua_typename(L, ty));
    } else {
        s = arena_strdup(lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    return s;
}

/* energy = { KEY = number, ... } of the table at the top of the stack
   (gen/energy.c): each of `names` into vals (absent: 0); 1 if present. */
static int read_energy(LoadedTarget *lt, const char *const *keys, int nkeys, const char *const *names, double *const *vals)
{
    lua_State *L = lt->L;
    const char *kk[8];
    for (int i = 0; i < nkeys; i++) kk[i] = keys[i];
    kk[nkeys] = "energy";
    int ty = rawfield(L, -1, "energy");
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    if (ty != LUA_TTABLE) field_error(lt, kk, nkeys + 1, "expected a table { %s = number, ... }", names[0]);
    check_keys(lt, kk, nkeys + 1, names);
    for (int i = 0; names[i]; i++) *vals[i] = get_number(lt, kk, nkeys + 1, names[i], 0, 0, 0, 1e12, 0);
    lua_pop(L, 1);
    lt->t.has_energy = 1;
    return 1;
}

static int memory_index(const Target *t, const char *name)
{
    for (int i = 0; i < t->nmemories; i++)
        if (strcmp(t->memories[i].name, name) == 0) return i;
    return -1;
}

static int by_memory_name(const void *a, const void *b)
{
    return strcmp(((const Memory *)a)->name, ((const Memory *)b)->name);
}

static int by_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void read_memories(LoadedTarget *lt)
{
    lua_State *L = lt->L;
    Target *t = &lt->t;
    const char *keys[4] = {"memory"};
    if (rawfield(L, -1, "memory") != LUA_TTABLE)
        field_error(lt, keys, 0, "missing required table 'memory' (name -> { size = bytes })");
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) { n++; lua_pop(L, 1); }
    if (n == 0) field_error(lt, keys, 1, "declare at least one memory");
    t->memories = arena_alloc(sizeof(Memory) * (size_t)n);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING) field_error(lt, keys, 1, "memory names must be strings");
        keys[1] = lua_tostring(L, -2);
        if (!lua_istable(L, -1)) field_error(lt, keys, 2, "expected a table { size = bytes, ... }");
        check_keys(lt, keys, 2, mem_keys);
        Memory *m = &t->memories[t->nmemories++];
        m->name = arena_strdup(keys[1]);
        m->size = (int64_t)get_number(lt, keys, 2, "size", 1, 0, 1, MAX_MEMORY_BYTES, 1);
        m->alignment = (int)get_number(lt, keys, 2, "alignment", 0, 16, 1, MAX_ALIGNMENT, 1);
        if (m->alignment & (m->alignment - 1)) {
            keys[2] = "alignment";
            field_error(lt, keys, 3, "must be a power of two, got %d", m->alignment);
        }
        m->cost = get_number(lt, keys, 2, "cost", 0, 1, 1e-6, 1e6, 0);
        {
            static const char *const names[] = {"pj_per_byte", "static_mw", NULL};
            double *vals[] = {&m->pj_per_byte, &m->static_mw};
            m->has_energy = read_energy(lt, keys, 2, names, vals);
        }
        if (rawfield(L, -1, "dma") == LUA_TTABLE) {
            keys[2] = "dma";
            check_keys(lt, keys, 3, dma_keys);
            m->dma_bytes_per_cycle = get_number(lt, keys, 3, "bytes_per_cycle", 1, 0, 1e-9, 1e9, 0);
            m->dma_setup = (int)get_number(lt, keys, 3, "setup", 0, 0, 0, 1e9, 1);
            m->dma_pj_per_byte = get_number(lt, keys, 3, "pj_per_byte", 0, 0, 0, 1e12, 0);
            if (m->dma_pj_per_byte > 0) lt->t.has_energy = 1;
        } else if (!lua_isnil(L, -1)) {
            keys[2] = "dma";
            field_error(lt, keys, 3, "expected a table { bytes_per_cycle = n, setup = cycles }");
        }
        lua_pop(L, 1);
        /* banks = { count = B, access = a }: the cores contend for B banks */
        if (rawfield(L, -1, "banks") == LUA_TTABLE) {
            keys[2] = "banks";
            check_keys(lt, keys, 3, bank_keys);
            m->banks = (int)get_number(lt, keys, 3, "count", 1, 0, 1, 4096, 1);
            m->bank_access = get_number(lt, keys, 3, "access", 1, 0, 0, 1, 0);
        } else if (!lua_isnil(L, -1)) {
            keys[2] = "banks";
            field_error(lt, keys, 3, "expected a table { count = banks, access = fraction of a core's cycles }");
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    /* by name: a Lua table has no order (lua_next follows a hash seeded
       per run), and the plan, the report and the header must not vary */
    qsort(t->memories, (size_t)t->nmemories, sizeof(Memory), by_memory_name);
}

static int by_op_kind(const void *a, const void *b)
{
    return (int)((const EngineOp *)a)->kind - (int)((const EngineOp *)b)->kind;
}

static OpKind op_kind_by_name(const char *s)
{
    for (int k = 0; k < OP_COUNT; k++)
        if (strcmp(op_name((OpKind)k), s) == 0) return (OpKind)k;
    return OP_COUNT;
}
/* The requant list at the top of the stack (keys: its path, for errors). */
static void read_requant(LoadedTarget *lt, const char **kk, int nkeys, RequantSet *rs)
{
    lua_State *L = lt->L;
    int n = (int)lua_rawlen(L, -1);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        RequantKind rk = RQ_NONE;
        for (int k = RQ_TFLITE; k < RQ_COUNT; k++)
            if (s && strcmp(s, requant_name((RequantKind)k)) == 0) rk = (RequantKind)k;
        /* shift states its rounding: "shift" rounds half to even (a float
           scale 2^-s, onnxruntime), "shift:tflite" as TFLite's 2^30 multiplier */
        int round = ROUND_HALF_EVEN;
        if (s && !strcmp(s, "shift:tflite")) {
            rk = RQ_SHIFT;
            round = ROUND_TFLITE;
        }
        if (rk == RQ_NONE)
            field_error(lt, kk, nkeys, "entry %d: expected \"tflite\", \"float\", \"shift\", \"shift:tflite\", \"fp32\" or \"quantlib\"", i);
        if (rk == RQ_SHIFT) rs->shift_rounds |= 1 << round;
        int dup = 0;
        for (int q = 0; q < rs->n; q++) dup |= rs->kinds[q] == rk;
        if (!dup) rs->kinds[rs->n++] = rk;
        lua_pop(L, 1);
    }
    if (n == 0 || lua_rawlen(L, -1) == 0) field_error(lt, kk, nkeys, "an empty list: no op could run here");
}

static const char *const cluster_keys[] = {"cores", "l1", "split", "fork", "overhead", "call", "band", "requant_records", NULL};

/* The cpu table (at the top) as a cluster: cores = N identical cores (a
   plain MCU: 1, the default), l1 = its shared local memory, split =
   function(op) returning "rows", "channels" (how a layer's output is
   divided over the cores), "none" (one core) or nil (htc's choice;
   optional), fork = cycles of one fork/join (default 0),
   overhead = cycles of every layer beyond its kernel's calls, call =
   cycles of one inference's call beyond its layers (the run function's
   entry and checks: once in the estimate's total), band =
   function(b, op) choosing the L1 band height (tile.c, needs l1). */
static void read_cluster(LoadedTarget *lt, Engine *cpu)
{
    lua_State *L = lt->L;
    const char *ck[4] = {"cpu"};
    cpu->cores = (int)get_number(lt, ck, 1, "cores", 0, 1, 1, 64, 1);
    cpu->fork_cycles = get_number(lt, ck, 1, "fork", 0, 0, 0, 1e9, 0);
    cpu->overhead_cycles = get_number(lt, ck, 1, "overhead", 0, 0, 0, 1e9, 0);
    cpu->call_cycles = get_number(lt, ck, 1, "call", 0, 0, 0, 1e9, 0);
    cpu->l1_memory = -1;
    const char *l1 = get_string(lt, ck, 1, "l1", 0);
    if (l1) {
        cpu->l1_memory = memory_index(&lt->t, l1);
        if (cpu->l1_memory < 0) {
            ck[1] = "l1";
            field_error(lt, ck, 2, "no memory named '%s' in the memory table", l1);
        }
        for (int i = 0; i < cpu->ndata; i++)
            if (cpu->data_memories[i] == cpu->l1_memory) {
                ck[1] = "l1";
                field_error(lt, ck, 2, "memory '%s' is also a data memory of the cpu (its arena); the L1 tiles need their own", l1);
            }
    }
    /* requant_records = true: with isa xpulpv2, the header carries the
       XpulpV2 paths' compile-time requantization records (op.xq2);
       "depthwise": those of depthwise convolutions only (2); "tiled": those
       and a dense convolution's where it computes from L1 bands, its
       records moved into L1 with its weights (3, tile.c tile_cluster) */
    int ty = rawfield(L, -1, "requant_records");
    if (ty == LUA_TBOOLEAN) cpu->requant_records = lua_toboolean(L, -1);
    else if (ty == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "depthwise")) cpu->requant_records = 2;
    else if (ty == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "tiled")) cpu->requant_records = 3;
    else if (ty != LUA_TNIL) {
        ck[1] = "requant_records";
        if (ty == LUA_TSTRING)
            field_error(lt, ck, 2, "expected true, false, \"depthwise\" or \"tiled\", got \"%s\"", lua_tostring(L, -1));
        field_error(lt, ck, 2, "expected true, false, \"depthwise\" or \"tiled\", got %s", lua_typename(L, ty));
    }
    lua_pop(L, 1);
    lt->split_ref = LUA_NOREF;
    ty = rawfield(L, -1, "split");
    if (ty == LUA_TFUNCTION) {
        cpu->has_split = 1;
        lt->split_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        if (ty != LUA_TNIL) {
            ck[1] = "split";
            field_error(lt, ck, 2, "expected a function(op) returning \"rows\", \"channels\", \"none\" or nil");
        }
        lua_pop(L, 1);
    }
    lt->band_ref = LUA_NOREF;
    ty = rawfield(L, -1, "band");
    if (ty == LUA_TFUNCTION && cpu->l1_memory >= 0) {
        cpu->has_band = 1;
        lt->band_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        ck[1] = "band";
        if (ty == LUA_TFUNCTION)
            field_error(lt, ck, 2, "the cpu has no l1 memory: there are no bands to choose");
        if (ty != LUA_TNIL)
            field_error(lt, ck, 2, "expected a function(b, op) returning { minimize = ..., constraints = { ... } }");
        lua_pop(L, 1);
    }
}

/* isa = { "arm-dsp" }: the instruction-set extensions of the CPU whose
   fast paths the header keeps (the portable C always; "mve" brings
   "arm-dsp", which every Helium core has). Not stated: all of them. */
static void read_isa(LoadedTarget *lt, Engine *cpu)
{
    static const struct { const char *name; unsigned bits; } sets[] = {
        {"portable", 0}, {"x86", ISA_X86}, {"arm-dsp", ISA_ARM_DSP}, {"mve", ISA_MVE | ISA_ARM_DSP}, {"xpulpv2", ISA_XPULPV2},
    };
    lua_State *L = lt->L;
    const char *ck[2] = {"cpu", "isa"};
    int ty = rawfield(L, -1, "isa");
    cpu->isa = ISA_ALL;
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    int n = ty == LUA_TTABLE ? (int)lua_rawlen(L, -1) : -1, m = 0;
    if (n > 0) {
        lua_pushnil(L);
        while (lua_next(L, -2)) { m++; lua_pop(L, 1); }
    }
    if (n <= 0 || m != n)
        field_error(lt, ck, 2, "expected a list of instruction sets: \"portable\", \"x86\", \"arm-dsp\", \"mve\", \"xpulpv2\"");
    cpu->isa = 0;
    for (int i = 1; i <= n; i++) {
        const char *name = lua_rawgeti(L, -1, i) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        size_t k = 0;
        while (name && k < sizeof sets / sizeof sets[0] && strcmp(sets[k].name, name)) k++;
        if (!name || k == sizeof sets / sizeof sets[0])
            field_error(lt, ck, 2, "entry %d: %s%s%s is no instruction set of htc's kernels (\"portable\", \"x86\", "
                        "\"arm-dsp\", \"mve\", \"xpulpv2\")", i, name ? "'" : "", name ? name : luaL_typename(L, -1),
                        name ? "'" : "");
        cpu->isa |= sets[k].bits;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* The CPU's data memories, memory = { "SRAM", "PSRAM" } (the list at the
   top of the stack): the planner places each arena buffer in one of them
   (gen/plan.c, "Several data memories"), and the header has one arena per
   memory, so each name must be a C identifier and distinct from the others
   once upper-cased (NAME_ARENA_<MEM>_SIZE). */
static void read_data_memories(LoadedTarget *lt, Engine *e, int ei, const char *const *keys, int nkeys)
{
    lua_State *L = lt->L;
    const Target *t = &lt->t;
    const char *kk[8];
    for (int i = 0; i < nkeys; i++) kk[i] = keys[i];
    kk[nkeys] = "memory";
    if (ei != 0)
        field_error(lt, kk, nkeys + 1, "only the cpu may list several data memories (an accelerator names one)");
    int n = (int)lua_rawlen(L, -1), m = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) { m++; lua_pop(L, 1); }
    if (n == 0 || m != n)
        field_error(lt, kk, nkeys + 1, "expected a memory name or a list of names ({ \"SRAM\", \"PSRAM\" })");
    if (n > MAX_DATA_MEMORIES) field_error(lt, kk, nkeys + 1, "%d data memories, at most %d", n, MAX_DATA_MEMORIES);
    for (int i = 0; i < n; i++) {
        if (lua_rawgeti(L, -1, i + 1) != LUA_TSTRING)
            field_error(lt, kk, nkeys + 1, "entry %d: expected a memory name, got %s", i + 1, lua_typename(L, lua_type(L, -1)));
        const char *name = lua_tostring(L, -1);
        int mi = memory_index(t, name);
        if (mi < 0) field_error(lt, kk, nkeys + 1, "entry %d: no memory named '%s' in the memory table", i + 1, name);
        int cid = n > 1 && (isalpha((unsigned char)name[0]) || name[0] == '_');
        for (const char *c = name; *c && cid; c++) cid = isalnum((unsigned char)*c) || *c == '_';
        if (n > 1 && !cid)
            field_error(lt, kk, nkeys + 1, "entry %d: '%s' is not a C identifier (the header names its arena after it)", i + 1,
                        name);
        for (int j = 0; j < i; j++) {
            if (e->data_memories[j] == mi) field_error(lt, kk, nkeys + 1, "entry %d: memory '%s' is listed twice", i + 1, name);
            if (!strcasecmp(t->memories[e->data_memories[j]].name, name))
                field_error(lt, kk, nkeys + 1, "entries %d and %d: '%s' and '%s' give the same arena macro once upper-cased",
                            j + 1, i + 1, t->memories[e->data_memories[j]].name, name);
        }
        e->data_memories[i] = mi;
        lua_pop(L, 1);
    }
    e->ndata = n;
    e->act_memory = e->data_memories[0];
}

/* One engine table (the `cpu` table or an entry of `engines`) at the top. */
static void read_engine(LoadedTarget *lt, Engine *e, int ei, const char *const *keys, int nkeys)
{
    lua_State *L = lt->L;
    const char *kk[8];
    for (int i = 0; i < nkeys; i++) kk[i] = keys[i];
    if (!lua_istable(L, -1)) field_error(lt, kk, nkeys, "expected an engine table");
    check_keys(lt, kk, nkeys, engine_keys);
    if (rawfield(L, -1, "memory") == LUA_TTABLE) {
        read_data_memories(lt, e, ei, kk, nkeys);
        lua_pop(L, 1);
    } else {
        lua_pop(L, 1);
        const char *mem = get_string(lt, kk, nkeys, "memory", 1);
        e->act_memory = memory_index(&lt->t, mem);
        if (e->act_memory < 0) {
            kk[nkeys] = "memory";
            field_error(lt, kk, nkeys + 1, "no memory named '%s' in the memory table", mem);
        }
        e->ndata = 1;
        e->data_memories[0] = e->act_memory;
    }

    e->weight_memory = -1;
    const char *wmem = get_string(lt, kk, nkeys, "weights", 0);
    if (wmem) {
        e->weight_memory = memory_index(&lt->t, wmem);
        if (e->weight_memory < 0) {
            kk[nkeys] = "weights";
            field_error(lt, kk, nkeys + 1, "no memory named '%s' in the memory table", wmem);
        }
    }
    /* outputs = "ACC": the output tiles in a memory of their own (e.g. an
       int32 accumulator next to the scratchpad of inputs and weights) */
    e->out_memory = -1;
    const char *omem = get_string(lt, kk, nkeys, "outputs", 0);
    if (omem) {
        e->out_memory = memory_index(&lt->t, omem);
        if (e->out_memory < 0) {
            kk[nkeys] = "outputs";
            field_error(lt, kk, nkeys + 1, "no memory named '%s' in the memory table", omem);
        }
        if (e->out_memory == e->act_memory) {
            kk[nkeys] = "outputs";
            field_error(lt, kk, nkeys + 1, "'%s' is the engine's memory already (outputs names a second one)", omem);
        }
    }
    e->startup = (int)get_number(lt, kk, nkeys, "startup", 0, 0, 0, 1e9, 1);
    e->description = get_string(lt, kk, nkeys, "description", 0);
    {
        static const char *const names[] = {"pj_per_mac", "pj_per_elem", "pj_per_cycle", "static_mw", NULL};
        double *vals[] = {&e->pj_per_mac, &e->pj_per_elem, &e->pj_per_cycle, &e->static_mw};
        e->has_energy = read_energy(lt, kk, nkeys, names, vals);
    }

    int ty;
    /* array = { rows, cols } and device = { NAME = number }: the hardware
       constants the device model is compiled with (HTC_DEV_ROWS, ...,
       HTC_DEV_<NAME>), so the target file is their one source */
    ty = rawfield(L, -1, "array");
    if (ty == LUA_TTABLE) {
        kk[nkeys] = "array";
        check_keys(lt, kk, nkeys + 1, array_keys);
        e->rows = (int)get_number(lt, kk, nkeys + 1, "rows", 1, 0, 1, 65536, 1);
        e->cols = (int)get_number(lt, kk, nkeys + 1, "cols", 1, 0, 1, 65536, 1);
    } else if (ty != LUA_TNIL) {
        kk[nkeys] = "array";
        field_error(lt, kk, nkeys + 1, "expected a table { rows = n, cols = n }");
    }
    lua_pop(L, 1);
    ty = rawfield(L, -1, "device");
    if (ty == LUA_TTABLE) {
        kk[nkeys] = "device";
        int n = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) { n++; lua_pop(L, 1); }
        e->device_names = arena_alloc(sizeof(char *) * (size_t)(n + 1));
        e->device_values = arena_alloc(sizeof(double) * (size_t)(n + 1));
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            const char *dn = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            int ok = dn && *dn && !isdigit((unsigned char)*dn);
            for (const char *c = dn; ok && *c; c++) ok = isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_';
            if (!ok) field_error(lt, kk, nkeys + 1, "keys must be upper-case C names (HTC_DEV_<NAME> in the device model)");
            kk[nkeys + 1] = dn;
            if (!lua_isnumber(L, -1) || lua_type(L, -1) != LUA_TNUMBER)
                field_error(lt, kk, nkeys + 2, "expected a number, got %s", luaL_typename(L, -1));
            if (!(fabs(lua_tonumber(L, -1)) <= 1e15))
                field_error(lt, kk, nkeys + 2, "must be a finite number up to 1e15, got %.15g", lua_tonumber(L, -1));
            e->device_names[e->ndevice] = arena_strdup(dn);
            e->device_values[e->ndevice++] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        /* by name (lua_next's order varies from run to run) */
        for (int i = 1; i < e->ndevice; i++)
            for (int j = i; j > 0 && strcmp(e->device_names[j - 1], e->device_names[j]) > 0; j--) {
                const char *tn = e->device_names[j];
                double tv = e->device_values[j];
                e->device_names[j] = e->device_names[j - 1];
                e->device_values[j] = e->device_values[j - 1];
                e->device_names[j - 1] = tn;
                e->device_values[j - 1] = tv;
            }
    } else if (ty != LUA_TNIL) {
        kk[nkeys] = "device";
        field_error(lt, kk, nkeys + 1, "expected a table { NAME = number, ... } (HTC_DEV_<NAME> in the device model)");
    }
    lua_pop(L, 1);

    /* requant = { "tflite", ... }: the arithmetic this engine reproduces */
    kk[nkeys] = "requant";
    if (rawfield(L, -1, "requant") != LUA_TTABLE)
        field_error(lt, kk, nkeys, "missing required list 'requant' (e.g. { \"tflite\" })");
    read_requant(lt, kk, nkeys + 1, &e->requant);
    lua_pop(L, 1);

    kk[nkeys] = "ops";
    if (rawfield(L, -1, "ops") != LUA_TTABLE)
        field_error(lt, kk, nkeys, "missing required table 'ops' (op name -> { kernel = ..., fn = ... })");
    int cnt = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) { cnt++; lua_pop(L, 1); }
    e->ops = arena_alloc(sizeof(EngineOp) * (size_t)(cnt ? cnt : 1));
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        kk[nkeys + 1] = name;
        OpKind k = op_kind_by_name(name);
        if (k == OP_COUNT) {
            char list[512] = "";
            for (int i = 0; i < OP_COUNT; i++) {
                if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, op_name((OpKind)i), sizeof list - strlen(list) - 1);
            }
            field_error(lt, kk, nkeys + 2, "unknown operator (expected one of: %s)", list);
        }
        if (!lua_istable(L, -1)) field_error(lt, kk, nkeys + 2, "expected a table { kernel = ..., fn = ... }");
        check_keys(lt, kk, nkeys + 2, op_keys);
        EngineOp *o = &e->ops[e->nops++];
        o->kind = k;
        o->kernel_file = get_string(lt, kk, nkeys + 2, "kernel", 0);
        o->kernel_fn = get_string(lt, kk, nkeys + 2, "fn", 0);
        /* the cpu runs htc's own kernel for each op it names none for
           (cpu_kernel, chosen per op at dispatch); reshape moves no data */
        if (!o->kernel_file && !o->kernel_fn && !e->is_cpu && k != OP_RESHAPE)
            field_error(lt, kk, nkeys + 2, "missing required field 'kernel' (an accelerator op names its kernel and fn)");
        if (!o->kernel_fn != !o->kernel_file)
            field_error(lt, kk, nkeys + 2, "give both 'kernel' and 'fn', or neither");
        for (const char *p = o->kernel_fn; p && *p; p++)
            if (!(isalnum((unsigned char)*p) || *p == '_')) {
                kk[nkeys + 2] = "fn";
                field_error(lt, kk, nkeys + 3, "'%s' is not a C identifier", o->kernel_fn);
            }
        /* costs: a number, or a function(op) returning one (e.g. depthwise
           convolutions cost more per MAC than plain ones) */
        for (int c = 0; c < 2; c++) {
            const char *f = c ? "cycles_per_elem" : "cycles_per_mac";
            if (rawfield(L, -1, f) == LUA_TFUNCTION) {
                o->cost_fn |= 1 << c;
                lt->cost_ref[ei][k][c] = luaL_ref(L, LUA_REGISTRYINDEX);
            } else {
                lua_pop(L, 1);
                double v = get_number(lt, kk, nkeys + 2, f, 0, 0, 0, 1e9, 0);
                if (c) o->cycles_per_elem = v;
                else o->cycles_per_mac = v;
            }
        }
        /* cycles = function(op, share): one core's call of the kernel on
           its share of the output (the cpu only; target_call_cycles) */
        int cty = rawfield(L, -1, "cycles");
        if (cty == LUA_TFUNCTION) {
            if (!e->is_cpu) field_error(lt, kk, nkeys + 2, "'cycles' (a function(op, share)) is for the cpu's ops only");
            o->has_cycles = 1;
            lt->call_ref[k] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            if (cty != LUA_TNIL) {
                kk[nkeys + 2] = "cycles";
                field_error(lt, kk, nkeys + 3, "expected a function(op, share) returning one core's cycles");
            }
            lua_pop(L, 1);
        }
        /* fork = cycles: this op's fork/join and each core's entry when
           divided over a cluster's cores, instead of cpu.fork (kernels
           with no parameter block to copy per core start sooner) */
        if (rawfield(L, -1, "fork") == LUA_TFUNCTION) {
            o->fork_fn = 1;
            o->fork_cycles = -1;
            lt->fork_ref[k] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
            o->fork_cycles = get_number(lt, kk, nkeys + 2, "fork", 0, -1, 0, 1e9, 0);
        }
        if ((o->fork_cycles >= 0 || o->fork_fn) && !e->is_cpu) {
            kk[nkeys + 2] = "fork";
            field_error(lt, kk, nkeys + 3, "'fork' is for the cpu's ops only");
        }
        /* the kernel file must exist now, not at emit time */
        const char *why;
        if (o->kernel_file && !find_file(&lt->t, o->kernel_file, &why)) {
            kk[nkeys + 2] = "kernel";
            field_error(lt, kk, nkeys + 3, "%s '%s'", why, o->kernel_file);
        }
        /* requant = { ... } on an op: the arithmetic of this op, when it
           differs from the engine's (e.g. a pool unit that applies float
           scales next to an array that shifts) */
        if (rawfield(L, -1, "requant") != LUA_TNIL) {
            kk[nkeys + 2] = "requant";
            if (!lua_istable(L, -1)) field_error(lt, kk, nkeys + 3, "expected a list like { \"tflite\" }");
            o->has_requant = 1;
            read_requant(lt, kk, nkeys + 3, &o->requant);
        }
        lua_pop(L, 1);
        o->template_file = get_string(lt, kk, nkeys + 2, "template", 0);
        if (o->template_file && !find_file(&lt->t, o->template_file, &why)) {
            kk[nkeys + 2] = "template";
            field_error(lt, kk, nkeys + 3, "%s '%s'", why, o->template_file);
        }
        o->macs_per_cycle = get_number(lt, kk, nkeys + 2, "macs_per_cycle", 0, 0, 0, 1e9, 0);
        ty = rawfield(L, -1, "double_buffer");
        if (ty == LUA_TBOOLEAN) o->double_buffer = lua_toboolean(L, -1);
        else if (ty != LUA_TNIL) {
            kk[nkeys + 2] = "double_buffer";
            field_error(lt, kk, nkeys + 3, "expected true or false, got %s", lua_typename(L, ty));
        }
        lua_pop(L, 1);
        /* partial_sums = true: the engine keeps int32 partial sums over C
           tiles (conv2d, fc), so the tiler may split C */
        ty = rawfield(L, -1, "partial_sums");
        if (ty == LUA_TBOOLEAN) o->partial_sums = lua_toboolean(L, -1);
        else if (ty != LUA_TNIL) {
            kk[nkeys + 2] = "partial_sums";
            field_error(lt, kk, nkeys + 3, "expected true or false, got %s", lua_typename(L, ty));
        }
        lua_pop(L, 1);
        if (o->partial_sums && o->kind != OP_CONV2D && o->kind != OP_FC) {
            kk[nkeys + 2] = "partial_sums";
            field_error(lt, kk, nkeys + 3, "only conv2d and fc sum over C (the other ops' C tiles need no partial sums)");
        }
        ty = rawfield(L, -1, "tile");
        if (ty == LUA_TFUNCTION) {
            o->has_tile = 1;
            lt->tile_ref[ei][k] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            if (ty != LUA_TNIL) {
                kk[nkeys + 2] = "tile";
                field_error(lt, kk, nkeys + 3, "expected a function(t, op) returning { maximize = expr, ... }");
            }
            lua_pop(L, 1);
        }
        ty = rawfield(L, -1, "constants");
        if (ty == LUA_TFUNCTION && o->has_tile) {
            lt->const_ref[ei][k] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            if (ty != LUA_TNIL) {
                kk[nkeys + 2] = "constants";
                field_error(lt, kk, nkeys + 3, ty == LUA_TFUNCTION
                            ? "constants feed a template: only a tiled op (template + tile) has them"
                            : "expected a function(op, d) returning { name = { type = \"int8\", values = {...} }, ... }");
            }
            lua_pop(L, 1);
        }
        if (o->template_file && !o->has_tile) {
            kk[nkeys + 2] = "template";
            field_error(lt, kk, nkeys + 3, "an accelerator op with a template needs a tile function");
        }
        if (o->template_file && e->is_cpu) {
            kk[nkeys + 2] = "template";
            field_error(lt, kk, nkeys + 3, "the cpu runs kernels, not templates");
        }
        /* a field the core would not use is an error, not ignored */
        if (o->has_tile && !o->template_file) {
            kk[nkeys + 2] = "tile";
            field_error(lt, kk, nkeys + 3, "a tile function drives a template: give the op's template too");
        }
        if (e->is_cpu) {
            static const char *const accel_only[] = {"double_buffer", "macs_per_cycle", "partial_sums", NULL};
            for (int q = 0; accel_only[q]; q++)
                if (rawfield(L, -1, accel_only[q]) != LUA_TNIL) {
                    kk[nkeys + 2] = accel_only[q];
                    field_error(lt, kk, nkeys + 3, "only an accelerator's tiled op uses it (the cpu runs whole layers)");
                } else lua_pop(L, 1);
        } else if (!o->has_tile) {
            static const char *const tiled_only[] = {"double_buffer", "macs_per_cycle", "partial_sums", NULL};
            for (int q = 0; tiled_only[q]; q++)
                if (rawfield(L, -1, tiled_only[q]) != LUA_TNIL) {
                    kk[nkeys + 2] = tiled_only[q];
                    field_error(lt, kk, nkeys + 3, "only a tiled op (template + tile) uses it");
                } else lua_pop(L, 1);
        }
        ty = rawfield(L, -1, "accepts");
        if (ty == LUA_TFUNCTION) {
            o->has_accepts = 1;
            lt->accepts_ref[ei][k] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            if (ty != LUA_TNIL) {
                kk[nkeys + 2] = "accepts";
                field_error(lt, kk, nkeys + 3, "expected a function(op) returning true/false[, reason]");
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    /* in operator order (lua_next's order varies from run to run) */
    qsort(e->ops, (size_t)e->nops, sizeof(EngineOp), by_op_kind);
}

Target *target_load(const char *path, const TargetDefines *defines)
{
    LoadedTarget *lt = arena_alloc(sizeof *lt);
    Target *t = &lt->t;
    t->path = arena_strdup(path);
    const char *slash = strrchr(path, '/');
    t->dir = slash == path ? "/" : slash ? arena_printf("%.*s", (int)(slash - path), path) : ".";
    lt->src = (const char *)read_file(path, &lt->srclen);
    lt->params.defines = defines;

    lua_State *L = lt->L = sandbox_open(path);
    char *chunk = arena_printf("@%s", path);
    if (luaL_loadbufferx(L, lt->src, lt->srclen, chunk, "t") != LUA_OK)
        die("%s", sandbox_error(L));
    sandbox_push_env(L);
    param_register(L, &lt->params);
    rawfield(L, -1, "__htc_tilevars");
    lt->tilevars_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setupvalue(L, -2, 1);
    sandbox_run(L);
    if (!lua_istable(L, -1))
        die("%s:1: the file must return a target: return target \"name\" { ... }", path);
    param_check_used(&lt->params, path);
    t->nparams = lt->params.n;
    t->params = lt->params.params;

    const char *none[1] = {NULL};
    check_keys(lt, none, 0, top_keys);
    t->name = get_string(lt, none, 0, "name", 1);
    t->description = get_string(lt, none, 0, "description", 0);
    t->clock_mhz = get_number(lt, none, 0, "clock_mhz", 1, 0, 1e-6, 1e6, 0);
    read_memories(lt);

    int ty = rawfield(L, -1, "engines");
    int nacc = 0;
    if (ty == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) { nacc++; lua_pop(L, 1); }
    } else if (ty != LUA_TNIL) {
        const char *k[1] = {"engines"};
        field_error(lt, k, 1, "expected a table of accelerator engines");
    }
    lua_pop(L, 1);
    if (nacc > MAX_ENGINES) {
        const char *k[1] = {"engines"};
        field_error(lt, k, 1, "%d accelerator engines, at most %d", nacc, MAX_ENGINES);
    }
    t->engines = arena_alloc(sizeof(Engine) * (size_t)(nacc + 1));
    lt->accepts_ref = arena_alloc(sizeof(*lt->accepts_ref) * (size_t)(nacc + 1));
    lt->tile_ref = arena_alloc(sizeof(*lt->tile_ref) * (size_t)(nacc + 1));
    lt->cost_ref = arena_alloc(sizeof(*lt->cost_ref) * (size_t)(nacc + 1));
    lt->const_ref = arena_alloc(sizeof(*lt->const_ref) * (size_t)(nacc + 1));
    for (int i = 0; i <= nacc; i++)
        for (int k = 0; k < OP_COUNT; k++)
            lt->accepts_ref[i][k] = lt->tile_ref[i][k] = lt->cost_ref[i][k][0] = lt->cost_ref[i][k][1] =
                lt->const_ref[i][k] = LUA_NOREF;
    for (int k = 0; k < OP_COUNT; k++) lt->call_ref[k] = lt->fork_ref[k] = LUA_NOREF;

    const char *ck[8] = {"cpu"};
    if (rawfield(L, -1, "cpu") != LUA_TTABLE)
        field_error(lt, ck, 0, "missing required table 'cpu' (the fallback engine)");
    Engine *cpu = &t->engines[0];
    cpu->is_cpu = 1;
    cpu->name = get_string(lt, ck, 1, "name", 0);
    if (!cpu->name) cpu->name = "cpu";
    read_engine(lt, cpu, 0, ck, 1);
    read_cluster(lt, cpu);
    read_isa(lt, cpu);
    lua_pop(L, 1);
    t->nengines = 1;

    if (nacc) {
        /* accelerators in name order (lua_next's order varies from run to
           run; dispatch tries them in this order) */
        rawfield(L, -1, "engines");
        const char **names = arena_alloc(sizeof(char *) * (size_t)nacc);
        int nn = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            if (lua_type(L, -1) != LUA_TSTRING || nn == nacc) {
                const char *k[1] = {"engines"};
                field_error(lt, k, 1, "accelerators are named by string keys");
            }
            names[nn++] = arena_strdup(lua_tostring(L, -1));
        }
        qsort(names, (size_t)nn, sizeof(char *), by_cstr);
        for (int q = 0; q < nn; q++) {
            lua_pushstring(L, names[q]);
            lua_pushvalue(L, -1);
            lua_rawget(L, -3);
            const char *ek[8] = {"engines", names[q]};
            Engine *e = &t->engines[t->nengines];
            e->name = arena_strdup(ek[1]);
            if (lua_istable(L, -1)) {
                int tn = rawfield(L, -1, "name");
                lua_pop(L, 1);
                if (tn != LUA_TNIL) {
                    ek[2] = "name";
                    field_error(lt, ek, 3, "an accelerator is named by its key in engines (this field would be ignored)");
                }
            }
            read_engine(lt, e, t->nengines, ek, 2);
            e->cores = 1;
            e->l1_memory = -1;
            for (const char *const *ck2 = cluster_keys; *ck2; ck2++) {
                int cty = rawfield(L, -1, *ck2);
                lua_pop(L, 1);
                if (cty != LUA_TNIL) {
                    ek[2] = *ck2;
                    field_error(lt, ek, 3, "only the cpu engine is a cluster of cores (cores, l1, split, fork, band)");
                }
            }
            if (rawfield(L, -1, "isa") != LUA_TNIL) {
                ek[2] = "isa";
                field_error(lt, ek, 3, "only the cpu names instruction sets (an accelerator's code is its templates)");
            }
            lua_pop(L, 1);
            t->nengines++;
            lua_pop(L, 2);
        }
        lua_pop(L, 1);
    }

    lt->dispatch_ref = LUA_NOREF;
    ty = rawfield(L, -1, "dispatch");
    if (ty == LUA_TFUNCTION) {
        t->has_dispatch = 1;
        lt->dispatch_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        if (ty != LUA_TNIL) {
            const char *k[1] = {"dispatch"};
            field_error(lt, k, 1, "expected a function(op, candidates) returning an engine name");
        }
        lua_pop(L, 1);
    }
    lt->root_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return t;
}

/* "tflite, float, shift:tflite" */
const char *target_requant_text(const RequantSet *rs)
{
    char has[128] = "";
    for (int i = 0; i < rs->n; i++)
        if (rs->kinds[i] != RQ_SHIFT)
            snprintf(has + strlen(has), sizeof has - strlen(has), "%s%s", has[0] ? ", " : "", requant_name(rs->kinds[i]));
    if (rs->shift_rounds & (1 << ROUND_HALF_EVEN)) snprintf(has + strlen(has), sizeof has - strlen(has), "%sshift", has[0] ? ", " : "");
    if (rs->shift_rounds & (1 << ROUND_TFLITE)) snprintf(has + strlen(has), sizeof has - strlen(has), "%sshift:tflite", has[0] ? ", " : "");
    return arena_strdup(has);
}

void target_describe(FILE *f, const Target *t)
{
    /* the target file's text on a terminal: esc_term */
    fprintf(f, "%s: target \"%s\"%s%s, %g MHz\n", esc_term(t->path), esc_term(t->name), t->description ? ": " : "",
            t->description ? esc_term(t->description) : "", t->clock_mhz);
    fprintf(f, "  memories:");
    for (int i = 0; i < t->nmemories; i++) {
        const Memory *m = &t->memories[i];
        fprintf(f, "%s %s %lld bytes", i ? "," : "", esc_term(m->name), (long long)m->size);
        if (m->dma_bytes_per_cycle > 0) fprintf(f, " (DMA %g B/cycle + %d)", m->dma_bytes_per_cycle, m->dma_setup);
        if (m->cost != 1) fprintf(f, " (cost %g per byte)", m->cost);
    }
    fputc('\n', f);
    if (t->engines[0].ndata > 1) {
        fprintf(f, "  cpu data memories (one arena each, in this order):");
        for (int i = 0; i < t->engines[0].ndata; i++) fprintf(f, " %s", esc_term(t->memories[t->engines[0].data_memories[i]].name));
        fputc('\n', f);
    }
    for (int e = 0; e < t->nengines; e++) {
        const Engine *en = &t->engines[e];
        fprintf(f, "  %s %s: requant", en->is_cpu ? "cpu" : "engine", esc_term(en->name));
        fprintf(f, " %s", target_requant_text(&en->requant));
        if (en->rows) fprintf(f, "; array %dx%d", en->rows, en->cols);
        if (!en->is_cpu) {      /* where its tile buffers are */
            fprintf(f, "; tiles in %s", esc_term(t->memories[en->act_memory].name));
            if (en->weight_memory >= 0) fprintf(f, ", weights in %s", esc_term(t->memories[en->weight_memory].name));
            if (en->out_memory >= 0) fprintf(f, ", outputs in %s", esc_term(t->memories[en->out_memory].name));
        }
        if (en->is_cpu && en->cores > 1)
            fprintf(f, "; %d cores, fork %g cycles%s, split %s%s", en->cores, en->fork_cycles,
                    en->fork_cycles == 0 ? " (the default: none stated)" : "",
                    en->has_split ? "by the target's function, else " : "",
                    "the estimate's (fewest cycles; one core when a fork does not pay)");
        else fprintf(f, "; 1 core");
        if (en->is_cpu && en->l1_memory >= 0) fprintf(f, ", L1 tiles in %s", esc_term(t->memories[en->l1_memory].name));
        if (en->description) fprintf(f, "; %s", esc_term(en->description));
        fprintf(f, "; ops");
        for (int i = 0; i < en->nops; i++)
            fprintf(f, " %s%s", op_name(en->ops[i].kind), en->ops[i].partial_sums ? " (C tiled, partial sums)" : "");
        fputc('\n', f);
    }
    if (!t->nparams) {
        fprintf(f, "  no parameters\n");
        return;
    }
    fprintf(f, "  parameters (-D NAME=VALUE):\n");
    for (int i = 0; i < t->nparams; i++) {
        const TargetParam *p = &t->params[i];
        fprintf(f, "    %-14s %-8s %s (default %s; %s) [", esc_term(p->name), esc_term(p->value),
                esc_term(p->description), esc_term(p->dflt), esc_term(p->allowed));
        if (strcmp(p->file, t->path)) fprintf(f, "%s:%d]\n", esc_term(p->file), p->line);   /* in an included file */
        else fprintf(f, "line %d]\n", p->line);
    }
}

void target_close(Target *t)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    if (lt->L) sandbox_close(lt->L);
    lt->L = NULL;
}

const EngineOp *engine_op(const Engine *e, OpKind k)
{
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i].kind == k) return &e->ops[i];
    return NULL;
}

/* A file a target names (kernel, template) or htc's own (htc.h, the cpu
   kernels): a relative path without a ".." component or a control
   character, found under the target file's directory, $HTC_HOME or htc's
   data directory (in that order), which after every symbolic link
   (realpath) is still inside that directory, and a regular file. Returns
   the path as found (relative to where htc runs: #line directives stay
   reproducible), or NULL with *why ("cannot read" when it is nowhere). */
static const char *find_file(const Target *t, const char *path, const char **why)
{
    *why = "cannot read";
    if (!*path) return NULL;
    for (const char *c = path; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            *why = "a control character in";
            return NULL;
        }
    if (path[0] == '/') {
        *why = "an absolute path (a target names files inside its directory, HTC_HOME or htc's data directory):";
        return NULL;
    }
    for (const char *c = path; *c;) {
        size_t l = strcspn(c, "/");
        if (l == 2 && c[0] == '.' && c[1] == '.') {
            *why = "'..' in the path (a target names files inside its directory, HTC_HOME or htc's data directory):";
            return NULL;
        }
        c += l + (c[l] == '/');
    }
    const char *home = getenv("HTC_HOME");
    const char *roots[3] = {t->dir, home && *home ? home : NULL, HTC_DATADIR};
    for (int i = 0; i < 3; i++) {
        if (!roots[i]) continue;
        const char *cand = arena_printf("%s/%s", roots[i], path);
        struct stat st;
        if (stat(cand, &st) != 0) continue;
        if (!path_inside(cand, roots[i])) {
            *why = arena_printf("a symbolic link out of %s:", roots[i]);
            return NULL;
        }
        if (!S_ISREG(st.st_mode)) {
            *why = "not a regular file:";
            return NULL;
        }
        if (access(cand, R_OK) != 0) return NULL;
        return cand;
    }
    return NULL;
}

const char *target_resolve(const Target *t, const char *path)
{
    const char *why, *f = find_file(t, path, &why);
    if (!f) die("%s: %s '%s'", t->path, why, path);
    return f;
}

