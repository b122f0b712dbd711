/* target.c - loads a Lua target file into plain C structs.
   The only file of htc that sees a lua_State: sandbox, schema, callbacks. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "ir.h"
#include "quant.h"

static const char *find_file(const Target *t, const char *path, const char **why);

/* Is path, after every symbolic link (realpath), inside directory root? */
static int path_inside(const char *path, const char *root)
{
    char *real = realpath(path, NULL), *r = realpath(root, NULL);
    size_t rl = r ? strlen(r) : 0;
    int inside = real && r && (!strcmp(r, "/") || (!strncmp(real, r, rl) && real[rl] == '/'));
    free(real);
    free(r);
    return inside;
}

#ifndef HTC_DATADIR
#define HTC_DATADIR "."
#endif

/* The loaded state stays open for the predicates (accepts, dispatch); every
   other field has been copied into C structs. */
typedef struct {
    Target t;
    lua_State *L;
    const char *src;            /* target file text, for locating fields */
    size_t srclen;
    int root_ref;               /* registry ref of the target table */
    int dispatch_ref;
    int split_ref;              /* cpu.split = function(op), or LUA_NOREF */
    int (*accepts_ref)[OP_COUNT];   /* per engine, per op kind: registry ref or LUA_NOREF */
    int (*tile_ref)[OP_COUNT];      /* per engine, per op kind: tile function */
    int (*const_ref)[OP_COUNT];     /* per engine, per op kind: constants function */
    int (*cost_ref)[OP_COUNT][2];   /* per engine, per op kind: cycles_per_mac / _elem functions */
    int call_ref[OP_COUNT];         /* cpu op kind: cycles = function(op, share), or LUA_NOREF */
    int tilevars_ref;               /* prelude: builds the tile variables of a layer */
} LoadedTarget;

/* ---- locating a field in the source, for file:line in schema errors -----

   Lua tables keep no line numbers, so a schema error finds the line of its
   field by scanning the text for the nested keys in order ("engines", then
   "digital", then "ops", ...). The first match after the previous key wins:
   exact for files written in the documented layout, a close hint otherwise. */
static int find_key(const char *src, size_t len, size_t from, const char *key, size_t *at)
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

static int locate(const LoadedTarget *lt, const char *const *keys, int nkeys)
{
    size_t pos = 0, at = 0;
    int found = 0;
    for (int k = 0; k < nkeys; k++) {
        if (!keys[k]) continue;
        if (find_key(lt->src, lt->srclen, pos, keys[k], &at)) {
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
    die("%s:%d: %s%s%s", lt->t.path, locate(lt, keys, nkeys), path, path[0] ? ": " : "", msg);
}

/* t[k] without metamethods: reading a target runs none of its code */
static int rawfield(lua_State *L, int idx, const char *k)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

/* ---- sandbox: memory, instruction and CPU limits ----------------------------

   A target file is a program; a hostile or broken one must stop with its
   file:line within documented bounds (README, Limits):
     - LUA_MEMORY bytes of Lua heap (a custom allocator refuses more; the
       error names the line that asked);
     - LUA_STEPS virtual-machine instructions over the whole compile (a
       count hook; deterministic);
     - LUA_CPU_SECONDS of CPU time (user + system: allocations that
       fault pages in count) and LUA_WALL_SECONDS of wall-clock time
       inside Lua over the whole compile, for what the hook cannot see: a
       runaway string pattern runs in C (setitimer ITIMER_PROF and
       ITIMER_REAL; the last known line is named). HTC_LUA_SECONDS may
       lower both (tests), never raise them. */
#define LUA_MEMORY ((size_t)256 << 20)
#define MAX_ENGINES 16
#define MAX_MEMORY_BYTES 1099511627776.0   /* 2^40: a memory's size */
#define MAX_ALIGNMENT 4096
#define MAX_ENGINES 16
#define MAX_MEMORY_BYTES 1099511627776.0   /* 2^40: a memory's size */
#define MAX_ALIGNMENT 4096
#define LUA_STEPS 200000000L
#define LUA_CPU_SECONDS 10
#define LUA_WALL_SECONDS 60
#define WHERE_CAP 600

static long steps;
static size_t lua_used;
static lua_State *cur_L;
static char mem_where[WHERE_CAP];          /* file:line of a refused allocation */
static char cpu_msg[WHERE_CAP + 200];      /* the whole error line for the CPU limit, kept current */
static char wall_msg[WHERE_CAP + 200];     /* and for the wall-clock limit */
static int cpu_seconds = LUA_CPU_SECONDS, wall_seconds = LUA_WALL_SECONDS;
static long cpu_left_us = -1, wall_left_us = -1;   /* -1: not started */
static int lua_depth;                      /* nesting of protected calls: the timer runs at depth 1 */

/* file:line of the innermost Lua function running (full path, not Lua's
   shortened one); 0 when none */
static int lua_where(lua_State *L, char *buf, size_t n)
{
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
        const char *src = ar.source && ar.source[0] == '@' ? ar.source + 1 : ar.short_src;
        snprintf(buf, n, "%s:%d", src, ar.currentline);
        return 1;
    }
    return 0;
}

static void set_limit_msgs(const char *w)
{
    snprintf(cpu_msg, sizeof cpu_msg, "htc: error: %s: target file ran too long (over %d s of CPU in Lua, user + "
             "system: an endless loop or a runaway string function?)\n", w, cpu_seconds);
    snprintf(wall_msg, sizeof wall_msg, "htc: error: %s: target file ran too long (over %d s of wall-clock time in "
             "Lua)\n", w, wall_seconds);
}

static void set_cpu_where(lua_State *L)
{
    char w[WHERE_CAP];
    if (!lua_where(L, w, sizeof w)) return;
    set_limit_msgs(w);
}

static void *lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        lua_used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > LUA_MEMORY - lua_used) {
        if (cur_L && !mem_where[0]) lua_where(cur_L, mem_where, sizeof mem_where);
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) {
        if (cur_L && !mem_where[0]) lua_where(cur_L, mem_where, sizeof mem_where);
        return NULL;
    }
    lua_used = lua_used - old + nsize;
    return p;
}

static void on_cpu_limit(int sig)
{
    die_async(sig == SIGALRM ? wall_msg : cpu_msg);
}

/* the timers run only while Lua does */
static void cpu_arm(void)
{
    if (lua_depth++) return;
    if (cpu_left_us < 0) cpu_left_us = cpu_seconds * 1000000L;
    if (wall_left_us < 0) wall_left_us = wall_seconds * 1000000L;
    struct itimerval it = {{0, 0}, {cpu_left_us / 1000000, cpu_left_us % 1000000}};
    struct itimerval wt = {{0, 0}, {wall_left_us / 1000000, wall_left_us % 1000000}};
    setitimer(ITIMER_PROF, &it, NULL);
    setitimer(ITIMER_REAL, &wt, NULL);
}

static long disarm(int which)
{
    struct itimerval it = {{0, 0}, {0, 0}}, old;
    setitimer(which, &it, &old);
    long left = old.it_value.tv_sec * 1000000L + old.it_value.tv_usec;
    return left > 0 ? left : 1;     /* expired meanwhile: the signal is pending */
}

static void cpu_disarm(void)
{
    if (--lua_depth) return;
    cpu_left_us = disarm(ITIMER_PROF);
    wall_left_us = disarm(ITIMER_REAL);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    steps += 100000;
    set_cpu_where(L);
    if (steps < LUA_STEPS) return;
    (void)ar;
    char w[WHERE_CAP];
    if (!lua_where(L, w, sizeof w)) snprintf(w, sizeof w, "?");
    lua_pushfstring(L, "%s: target file ran too long (more than %d million Lua instructions: an endless loop?)", w,
                    (int)(LUA_STEPS / 1000000));
    lua_error(L);
}

/* string functions that run long in C (patterns, rep) note their caller's
   line first, for the CPU limit's message */
static int traced(lua_State *L)
{
    set_cpu_where(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static void trace_string_functions(lua_State *L)
{
    static const char *const fns[] = {"find", "match", "gmatch", "gsub", "rep", "format", NULL};
    lua_getglobal(L, "string");
    for (int i = 0; fns[i]; i++) {
        rawfield(L, -1, fns[i]);
        lua_pushcclosure(L, traced, 1);
        lua_setfield(L, -2, fns[i]);
    }
    lua_pop(L, 1);
}

/* Message handler of every call into the target file: an error raised
   inside htc's own Lua helpers (the tile prelude: cdiv, min, operators on
   tile expressions) is reported at the user's calling line, the first
   frame of the stack that belongs to a target file. */
static const char *lua_error_line(lua_State *L);

static int has_position(const char *m)
{
    const char *c = strchr(m, ':');
    if (!c || !isdigit((unsigned char)c[1])) return 0;
    for (c++; isdigit((unsigned char)*c); c++)
        ;
    return *c == ':';
}

static int user_where(lua_State *L)
{
    char w[WHERE_CAP];
    if (lua_type(L, 1) != LUA_TSTRING) {
        /* error(nil), error({}), error(42): still one line with file:line */
        int has = lua_where(L, w, sizeof w);
        if (lua_type(L, 1) == LUA_TNUMBER) lua_pushfstring(L, "%s: %s", has ? w : "?", lua_tostring(L, 1));
        else lua_pushfstring(L, "%s: error() raised a %s value, not a message", has ? w : "?", luaL_typename(L, 1));
        return 1;
    }
    const char *m = lua_tostring(L, 1);
    static const char prelude[] = "htc-tile-prelude:";
    if (strncmp(m, prelude, sizeof prelude - 1)) {
        /* a message without position (error("x", 0)) gets the line */
        if (!has_position(m) && lua_where(L, w, sizeof w)) lua_pushfstring(L, "%s: %s", w, m);
        return 1;
    }
    const char *rest = strchr(m + sizeof prelude - 1, ':');
    rest = rest ? rest + 1 : m;
    while (*rest == ' ') rest++;
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.source[0] != '@' || ar.currentline <= 0) continue;
        lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, rest);
        return 1;
    }
    lua_pushstring(L, rest);
    return 1;
}

/* lua_pcall with user_where as the message handler */
static int tpcall(lua_State *L, int nargs, int nres)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, user_where);
    lua_insert(L, base);
    cpu_arm();
    int rc = lua_pcall(L, nargs, nres, base);
    cpu_disarm();
    lua_remove(L, rc == LUA_OK ? base : -2);
    return rc;
}

/* An error outside any protected call (the core's own pushes running out
   of the Lua heap): the same one line, then exit. */
static int l_panic(lua_State *L)
{
    die("%s", lua_error_line(L));
}

/* target "name" { ... } -> the table, with its name recorded. */
static int l_target_named(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setfield(L, 1, "name");
    lua_settop(L, 1);
    return 1;
}

static int l_target(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, l_target_named, 1);
    return 1;
}

static int op_missing(lua_State *L);

/* ---- parameters -----------------------------------------------------------------

   local PES = param "pes" { default = 64, values = { 64, 128 },
                             description = "MAC units of the PE array" }
   declares a parameter and returns its value: the default, or what -D
   pes=VALUE on the command line gives (checked against the declaration:
   one of `values`, or within `min`..`max`, of the default's type). */
#define MAX_DEFINES 32
static int in_list(const char *s, const char *const *list);
static struct {
    const char *name, *value;
    int used;
} defines[MAX_DEFINES];
static int ndefines;
static TargetParam params_[64];
static int nparams_;

void target_define(const char *nv)
{
    const char *eq = strchr(nv, '=');
    if (!eq || eq == nv) die("-D needs NAME=VALUE (a parameter of the target), got '%s'", nv);
    if (ndefines == MAX_DEFINES) die("too many -D options (at most %d)", MAX_DEFINES);
    const char *name = arena_printf("%.*s", (int)(eq - nv), nv);
    for (int i = 0; i < ndefines; i++)
        if (!strcmp(defines[i].name, name)) die("-D %s is given twice", name);
    defines[ndefines].name = name;
    defines[ndefines++].value = arena_strdup(eq + 1);
}

/* the value of a Lua scalar as text */
static const char *scalar_text(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TBOOLEAN) return lua_toboolean(L, i) ? "true" : "false";
    if (lua_isinteger(L, i)) return arena_printf("%lld", (long long)lua_tointeger(L, i));
    if (lua_type(L, i) == LUA_TNUMBER) return arena_printf("%.17g", lua_tonumber(L, i));
    return arena_strdup(lua_tostring(L, i));
}

/* -D text -> a Lua value of the default's type at the top, or an error */
static int __attribute__((format(printf, 2, 3))) param_error(lua_State *L, const char *fmt, ...);
static int push_define(lua_State *L, int dflt, const char *name, const char *v)
{
    char *end;
    switch (lua_type(L, dflt)) {
    case LUA_TBOOLEAN:
        if (!strcmp(v, "true") || !strcmp(v, "1")) lua_pushboolean(L, 1);
        else if (!strcmp(v, "false") || !strcmp(v, "0")) lua_pushboolean(L, 0);
        else return param_error(L, "param '%s': -D %s=%s is not true or false", name, name, v);
        return 1;
    case LUA_TNUMBER:
        if (lua_isinteger(L, dflt)) {
            long long x = strtoll(v, &end, 0);
            if (!*v || *end) return param_error(L, "param '%s': -D %s=%s is not an integer", name, name, v);
            lua_pushinteger(L, (lua_Integer)x);
        } else {
            double x = strtod(v, &end);
            if (!*v || *end || x != x) return param_error(L, "param '%s': -D %s=%s is not a number", name, name, v);
            lua_pushnumber(L, x);
        }
        return 1;
    default:
        lua_pushstring(L, v);
        return 1;
    }
}

/* an error at the param declaration's first line (upvalue 2: "file:line") */
static int __attribute__((format(printf, 2, 3))) param_error(lua_State *L, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lua_pushfstring(L, "%s: %s", lua_tostring(L, lua_upvalueindex(2)), msg);
    return lua_error(L);
}

static int l_param_spec(lua_State *L)
{
    static const char *const keys[] = {"default", "values", "min", "max", "description", NULL};
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    const char *where = lua_tostring(L, lua_upvalueindex(2));
    int line = atoi(strrchr(where, ':') + 1);
    if (lua_type(L, 1) != LUA_TTABLE)
        return param_error(L, "param \"%s\" { default = ..., values = {...} or min/max, description = \"...\" } expects a table",
                          name);
    lua_settop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
        if (!in_list(k, keys))
            return param_error(L, "param '%s': unknown field '%s' (expected default, values, min, max, description)", name, k);
    }
    int td = rawfield(L, 1, "default");                     /* 2 */
    if (td != LUA_TNUMBER && td != LUA_TSTRING && td != LUA_TBOOLEAN)
        return param_error(L, "param '%s': default must be a number, a string or a boolean", name);
    int tv = rawfield(L, 1, "values");                      /* 3 */
    int tmin = rawfield(L, 1, "min"), tmax = rawfield(L, 1, "max");   /* 4, 5 */
    if (rawfield(L, 1, "description") != LUA_TSTRING)      /* 6 */
        return param_error(L, "param '%s': description must be a string saying what it sets", name);
    if (tv != LUA_TNIL && tv != LUA_TTABLE) return param_error(L, "param '%s': values must be a list", name);
    if (tv == LUA_TTABLE && (tmin != LUA_TNIL || tmax != LUA_TNIL))
        return param_error(L, "param '%s': give values or min/max, not both", name);
    if ((tmin != LUA_TNIL && tmin != LUA_TNUMBER) || (tmax != LUA_TNIL && tmax != LUA_TNUMBER) ||
        ((tmin != LUA_TNIL || tmax != LUA_TNIL) && td != LUA_TNUMBER))
        return param_error(L, "param '%s': min and max are numbers, for a number parameter", name);
    for (int i = 0; i < nparams_; i++)
        if (!strcmp(params_[i].name, name)) return param_error(L, "param '%s' is declared twice", name);
    if (nparams_ == (int)(sizeof params_ / sizeof params_[0])) return param_error(L, "too many parameters");
    TargetParam *p = &params_[nparams_];
    p->name = arena_strdup(name);
    p->line = line;
    p->file = arena_printf("%.*s", (int)(strrchr(where, ':') - where), where);
    p->description = arena_strdup(lua_tostring(L, 6));
    p->dflt = scalar_text(L, 2);
    lua_pushvalue(L, 2);                                        /* 7: the value */
    for (int i = 0; i < ndefines; i++)
        if (!strcmp(defines[i].name, name)) {
            defines[i].used = 1;
            p->set = 1;
            lua_pop(L, 1);
            push_define(L, 2, name, defines[i].value);
        }
    /* the default and the value must both be allowed */
    char allowed[256] = "";
    for (int pass = 0; pass < 2; pass++) {
        int v = pass ? 7 : 2;
        const char *what = pass ? arena_printf("-D %s=%s", name, scalar_text(L, 7)) : "the default";
        if (tv == LUA_TTABLE) {
            int n = (int)lua_rawlen(L, 3), ok = 0;
            allowed[0] = 0;
            for (int i = 1; i <= n; i++) {
                lua_rawgeti(L, 3, i);
                if (lua_type(L, -1) != td) return param_error(L, "param '%s': values[%d] is not of the default's type", name, i);
                if (lua_compare(L, -1, v, LUA_OPEQ)) ok = 1;
                if (i > 1) strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
                strncat(allowed, scalar_text(L, -1), sizeof allowed - strlen(allowed) - 1);
                lua_pop(L, 1);
            }
            if (n == 0) return param_error(L, "param '%s': values is empty", name);
            if (!ok) return param_error(L, "param '%s': %s is not one of %s", name, what, allowed);
        } else if (tmin != LUA_TNIL || tmax != LUA_TNIL) {
            snprintf(allowed, sizeof allowed, "%s..%s", tmin != LUA_TNIL ? scalar_text(L, 4) : "",
                     tmax != LUA_TNIL ? scalar_text(L, 5) : "");
            if ((tmin != LUA_TNIL && lua_compare(L, v, 4, LUA_OPLT)) || (tmax != LUA_TNIL && lua_compare(L, 5, v, LUA_OPLT)))
                return param_error(L, "param '%s': %s is outside %s", name, what, allowed);
        } else {
            snprintf(allowed, sizeof allowed, "any %s", lua_typename(L, td));
        }
    }
    p->allowed = arena_strdup(allowed);
    p->value = scalar_text(L, 7);
    nparams_++;
    return 1;
}

static int l_param(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "Sl", &ar)) ar.currentline = 0, strcpy(ar.short_src, "?");
    int ok = *name && !isdigit((unsigned char)*name);
    for (const char *c = name; ok && *c; c++) ok = isalnum((unsigned char)*c) || *c == '_';
    if (!ok) return luaL_error(L, "param \"%s\": a parameter name is a Lua identifier", name);
    lua_settop(L, 1);
    lua_pushfstring(L, "%s:%d", ar.short_src, ar.currentline);
    lua_pushcclosure(L, l_param_spec, 2);
    return 1;
}

static const char *const safe_globals[] = {
    "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
    "rawlen", "rawset", "select", "setmetatable", "getmetatable", "tonumber",
    "tostring", "type", "xpcall", "math", "string", "table", "utf8", NULL,
};

/* Tile expressions: Lua operator overloading builds a tree that the C core
   turns into an MILP (tile.c). Nodes are tables {op=..., [1]=a, [2]=b}. */
static const char expr_prelude[] =
    "local env = ...\n"
    "local E = {}\n"
    "E.__index = E\n"
    "local function node(t) return setmetatable(t, E) end\n"
    "local function lift(x)\n"
    "  if getmetatable(x) == E then return x end\n"
    "  if type(x) ~= 'number' then error('tile expression: expected a number or a tile variable, got ' .. type(x)) end\n"
    "  return node{op='c', v=x}\n"
    "end\n"
    "E.__add = function(a, b) return node{op='+', lift(a), lift(b)} end\n"
    "E.__sub = function(a, b) return node{op='-', lift(a), lift(b)} end\n"
    "E.__mul = function(a, b) return node{op='*', lift(a), lift(b)} end\n"
    "E.__div = function(a, b)\n"
    "  if type(b) == 'number' then\n"
    "    if b == 0 then error('tile expression: division by zero') end\n"
    "    return node{op='*', lift(a), lift(1 / b)}\n"
    "  end\n"
    "  return node{op='/', lift(a), lift(b)}\n"
    "end\n"
    "E.__mod = function(a, b)\n"
    "  if type(b) ~= 'number' or b < 1 or b % 1 ~= 0 then error('tile expression: % needs a positive integer modulus') end\n"
    "  return node{op='%', lift(a), lift(b)}\n"
    "end\n"
    "E.__unm = function(a) return node{op='neg', a} end\n"
    "local function isexpr(x) return getmetatable(x) == E end\n"
    "env.min = function(a, b) if not isexpr(a) and not isexpr(b) then return math.min(a, b) end return node{op='min', lift(a), lift(b)} end\n"
    "env.max = function(a, b) if not isexpr(a) and not isexpr(b) then return math.max(a, b) end return node{op='max', lift(a), lift(b)} end\n"
    "env.le = function(a, b) return node{op='le', lift(a), lift(b)} end\n"
    "env.ge = function(a, b) return node{op='ge', lift(a), lift(b)} end\n"
    "env.eq = function(a, b) return node{op='eq', lift(a), lift(b)} end\n"
    "-- ceil(a / m), exact on integers; m a positive integer or a tile expression\n"
    "env.cdiv = function(a, m)\n"
    "  if isexpr(m) then return node{op='cdiv', lift(a), m} end\n"
    "  if type(m) ~= 'number' or m < 1 or m % 1 ~= 0 then\n"
    "    error('cdiv(a, m): m must be a positive integer or a tile expression, got ' .. tostring(m))\n"
    "  end\n"
    "  if not isexpr(a) then return math.ceil(lift(a).v / m) end\n"
    "  return node{op='cdiv', a, lift(m)}\n"
    "end\n"
    "-- the tile variables of one layer (geometry g from the core)\n"
    "env.__htc_tilevars = function(g)\n"
    "  local t = {}\n"
    "  for _, n in ipairs{'K', 'C', 'OY', 'OX'} do t[n] = node{op='v', name=n} end\n"
    "  if g.geom == 'dw' then t.C = t.K end\n"
    "  t.IY = env.min((t.OY - 1) * g.s_h + g.k_h, g.in_h)\n"
    "  t.IX = env.min((t.OX - 1) * g.s_w + g.k_w, g.in_w)\n"
    "  local db = g.double_buffer and 2 or 1\n"
    "  -- the core's buffers (tile.c checks a stated size against them):\n"
    "  -- weights padded to 4 bytes, then the int32 biases (the emitter's b_off)\n"
    "  if g.geom == 'conv' or g.geom == 'dw' then\n"
    "    t.l1_in = t.C * t.IY * t.IX; t.l1_out = t.K * t.OY * t.OX\n"
    "    t.w_bytes = env.cdiv(t.K * (g.geom == 'dw' and 1 or t.C) * (g.k_h * g.k_w), 4) * 4 + 4 * t.K\n"
    "  elseif g.geom == 'fc' then\n"
    "    t.l1_in = t.C * 1; t.l1_out = t.K * 1\n"
    "    t.w_bytes = env.cdiv(t.K * t.C, 4) * 4 + 4 * t.K\n"
    "  elseif g.geom == 'pool' then -- the whole window of each output, 20 bytes of configuration words\n"
    "    t.l1_in = t.C * t.IY * t.IX; t.l1_out = t.C * t.OY * t.OX\n"
    "    t.w_bytes = node{op='c', v=20}\n"
    "  else -- add: two inputs and the output, same tile\n"
    "    t.l1_in = t.C * t.OY * t.OX; t.l1_out = t.C * t.OY * t.OX\n"
    "    t.w_bytes = node{op='c', v=0}\n"
    "    t.l1_in2 = t.l1_in\n"
    "  end\n"
    "  if g.out_sep then -- the output tiles in the engine's `outputs` memory\n"
    "    t.l1_bytes = (t.l1_in + (t.l1_in2 or 0)) * db; t.out_bytes = t.l1_out * db\n"
    "  else\n"
    "    t.l1_bytes = (t.l1_in + t.l1_out + (t.l1_in2 or 0)) * db\n"
    "  end\n"
    "  local names = {}\n"
    "  for k in pairs(t) do names[#names + 1] = k end\n"
    "  table.sort(names)\n"
    "  return setmetatable(t, {__index = function(_, k)\n"
    "    error(('t.%s: no such tile variable or expression (t has: %s)'):format(tostring(k), table.concat(names, ', ')), 2)\n"
    "  end})\n"
    "end\n";

/* include "cpus/mcu.lua": a Lua file shared by several targets, run once in
   the same sandbox and its value returned (later includes of the same file
   get the same value, as require does). The name is relative and stays
   inside its directory: no absolute path, no "..", a regular file (not a
   link), looked up next to the including file, then in HTC_HOME/targets
   and the install's targets/. Errors inside it name its own file:line. */
#define INCLUDE_DEPTH 16
static int include_depth;

static int l_include(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    int ok = name[0] && name[0] != '/' && strlen(name) < 256;
    for (const char *c = name; ok && *c; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
             *c == '-' || *c == '.' || *c == '/';
    if (ok) ok = !strstr(name, "..") && !strstr(name, "//") && !strstr(name, "/./") && strncmp(name, "./", 2);
    if (!ok)
        return luaL_error(L, "include '%s': a relative path of letters, digits, '_', '-', '.' and '/' without '..'",
                          name);
    /* the including file's directory, from its chunk name "@path" */
    lua_Debug ar;
    const char *dir = ".";
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "S", &ar) && ar.source[0] == '@') {
        const char *src = ar.source + 1, *sl = strrchr(src, '/');
        dir = sl ? arena_printf("%.*s", (int)(sl - src), src) : ".";
    }
    const char *home = getenv("HTC_HOME");
    const char *roots[3] = {dir, home && *home ? arena_printf("%s/targets", home) : NULL,
                            arena_printf("%s/targets", HTC_DATADIR)};
    const char *path = NULL;
    for (int i = 0; i < 3 && !path; i++) {
        struct stat st;
        const char *cand = roots[i] ? arena_printf("%s/%s", roots[i], name) : NULL;
        if (cand && lstat(cand, &st) == 0) {
            if (!S_ISREG(st.st_mode))
                return luaL_error(L, "include '%s': %s is not a regular file", name, cand);
            if (!path_inside(cand, roots[i]))     /* a directory on the way may be a link */
                return luaL_error(L, "include '%s': %s leads out of %s (a symbolic link)", name, cand, roots[i]);
            path = cand;
        }
    }
    if (!path)
        return luaL_error(L, "include '%s': no such file next to %s/ nor in the targets/ of HTC_HOME or %s", name,
                          dir, HTC_DATADIR);
    /* the cache: registry["htc.include"][path] = value, false while loading */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, "htc.include");
    int cache = lua_gettop(L);
    int ty = lua_getfield(L, cache, path);
    if (ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)) return luaL_error(L, "include '%s': included again while it loads (a cycle)", name);
    if (ty != LUA_TNIL) return 1;
    lua_pop(L, 1);
    if (include_depth >= INCLUDE_DEPTH) return luaL_error(L, "include '%s': more than %d nested includes", name, INCLUDE_DEPTH);
    size_t len;
    const char *text = (const char *)read_file(path, &len);
    if (luaL_loadbufferx(L, text, len, arena_printf("@%s", path), "t") != LUA_OK) return lua_error(L);
    lua_pushvalue(L, lua_upvalueindex(1));      /* the sandbox */
    lua_setupvalue(L, -2, 1);
    lua_pushboolean(L, 0);
    lua_setfield(L, cache, path);
    include_depth++;
    lua_call(L, 0, 1);
    include_depth--;
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, cache, path);
    return 1;
}

/* A fresh environment table holding only the safe globals and `target`. */
static void push_sandbox_env(lua_State *L)
{
    lua_newtable(L);
    for (int i = 0; safe_globals[i]; i++) {
        lua_getglobal(L, safe_globals[i]);
        lua_setfield(L, -2, safe_globals[i]);
    }
    lua_pushcfunction(L, l_target);
    lua_setfield(L, -2, "target");
    lua_pushcfunction(L, l_param);
    lua_setfield(L, -2, "param");
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, l_include, 1);
    lua_setfield(L, -2, "include");
    lua_pushinteger(L, 1024);
    lua_setfield(L, -2, "KiB");
    /* tiling expressions: min, max, le, ge, eq, cdiv and the tile variables */
    if (luaL_loadbufferx(L, expr_prelude, strlen(expr_prelude), "=htc-tile-prelude", "t") != LUA_OK)
        die("internal: %s", lua_tostring(L, -1));
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
}

/* ---- reading fields ----------------------------------------------------------- */

static const char *const top_keys[] = {"name", "clock_mhz", "memory", "cpu", "engines", "dispatch", "description", NULL};
static const char *const mem_keys[] = {"size", "alignment", "dma", "cost", NULL};
static const char *const dma_keys[] = {"bytes_per_cycle", "setup", NULL};
static const char *const engine_keys[] = {"name", "memory", "requant", "ops", "description", "weights", "outputs",
                                          "startup", "array", "device", "cores", "l1", "split", "fork", "overhead", NULL};
static const char *const array_keys[] = {"rows", "cols", NULL};
static const char *const op_keys[] = {"kernel", "fn", "cycles_per_mac", "cycles_per_elem", "accepts", "template", "requant",
                                      "tile", "double_buffer", "macs_per_cycle", "constants", "partial_sums", "cycles", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0) return 1;
    return 0;
}

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
        if (rawfield(L, -1, "dma") == LUA_TTABLE) {
            keys[2] = "dma";
            check_keys(lt, keys, 3, dma_keys);
            m->dma_bytes_per_cycle = get_number(lt, keys, 3, "bytes_per_cycle", 1, 0, 1e-9, 1e9, 0);
            m->dma_setup = (int)get_number(lt, keys, 3, "setup", 0, 0, 0, 1e9, 1);
        } else if (!lua_isnil(L, -1)) {
            keys[2] = "dma";
            field_error(lt, keys, 3, "expected a table { bytes_per_cycle = n, setup = cycles }");
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

/* htc's CPU kernels (kernels/), one table: what an op of the cpu engine
   runs when its entry names neither `kernel` nor `fn`, chosen by the
   operation, its requantization kind and an attribute. The first row that
   matches wins; RQ_COUNT matches any kind. A target gives only the costs
   of its CPU; accelerator ops always name their kernel (a device model). */
enum { K_ANY, K_DW, K_GLOBAL, K_INT32, K_S16, K_F32 };
static const struct {
    OpKind kind;
    RequantKind rq;
    int when;
    const char *file, *fn;
} cpu_kernels[] = {
    /* float32 models: TFLite Micro's float reference kernels, instead of every integer kernel */
    {OP_FC, RQ_COUNT, K_F32, "kernels/float.c", "htc__fc_f32"},
    {OP_SOFTMAX, RQ_COUNT, K_F32, "kernels/float.c", "htc__softmax_f32"},
    {OP_LSTM, RQ_COUNT, K_F32, "kernels/float.c", "htc__lstm_f32"},
    {OP_ADD, RQ_COUNT, K_F32, "kernels/float.c", "htc__binary_f32"},
    {OP_MUL, RQ_COUNT, K_F32, "kernels/float.c", "htc__binary_f32"},
    {OP_TABLE, RQ_COUNT, K_F32, "kernels/float.c", "htc__unary_f32"},
    /* int32 element-wise arithmetic (TFLM's audio front ends), before the int8 kernels */
    {OP_ADD, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_SUB, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_MUL, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_DIV, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_MAXIMUM, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_MINIMUM, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    /* int16 activations (16x8), before and instead of every int8 kernel */
    {OP_CONV2D, RQ_TFLITE, K_S16, "kernels/conv_s16.c", "htc__conv2d_s16"},
    {OP_FC, RQ_TFLITE, K_S16, "kernels/conv_s16.c", "htc__conv2d_s16"},
    {OP_QUANTIZE, RQ_TFLITE, K_S16, "kernels/quant_s16.c", "htc__quantize"},
    {OP_REQUANTIZE, RQ_TFLITE, K_S16, "kernels/quant_s16.c", "htc__requantize"},
    {OP_DEQUANTIZE, RQ_TFLITE, K_S16, "kernels/quant_s16.c", "htc__dequantize"},
    {OP_ADD, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__add_s16"},
    {OP_SOFTMAX, RQ_TFLITE, K_S16, "kernels/softmax_s16.c", "htc__softmax_s16"},
    {OP_MEAN, RQ_TFLITE, K_S16, "kernels/reduce_s16.c", "htc__reduce_s16"},
    {OP_SUM, RQ_TFLITE, K_S16, "kernels/reduce_s16.c", "htc__reduce_s16"},
    {OP_TABLE, RQ_COUNT, K_S16, "kernels/act_s16.c", "htc__act_s16"},
    {OP_AVGPOOL, RQ_TFLITE, K_S16, "kernels/pool_s16.c", "htc__avgpool_s16"},
    {OP_MAXPOOL, RQ_COUNT, K_S16, "kernels/pool_s16.c", "htc__maxpool_s16"},
    {OP_SUB, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__sub_s16"},
    {OP_MUL, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__mul_s16"},
    {OP_SQDIFF, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__sqdiff_s16"},
    {OP_PRELU, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__prelu_s16"},
    {OP_MAXIMUM, RQ_NONE, K_S16, "kernels/binary_s16.c", "htc__maximum_s16"},
    {OP_MINIMUM, RQ_NONE, K_S16, "kernels/binary_s16.c", "htc__minimum_s16"},
    {OP_MATMUL, RQ_TFLITE, K_S16, "kernels/matmul_s16.c", "htc__matmul_s16"},
    {OP_TRANSPOSE_CONV, RQ_TFLITE, K_S16, "kernels/tconv_s16.c", "htc__tconv_s16"},
    {OP_CONV2D, RQ_TFLITE, K_DW, "kernels/conv2d.c", "htc__dwconv2d_s8"},
    {OP_CONV2D, RQ_TFLITE, K_ANY, "kernels/conv2d.c", "htc__conv2d_s8"},
    {OP_CONV2D, RQ_FLOAT, K_ANY, "kernels/conv2d.c", "htc__qconv2d"},
    {OP_CONV2D, RQ_NONE, K_INT32, "kernels/conv2d.c", "htc__qconv2d"},
    {OP_CONV2D, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fconv2d"},
    {OP_FC, RQ_TFLITE, K_ANY, "kernels/fc.c", "htc__fc_s8"},
    {OP_FC, RQ_FLOAT, K_ANY, "kernels/fc.c", "htc__qfc"},
    {OP_FC, RQ_NONE, K_INT32, "kernels/fc.c", "htc__qfc"},
    {OP_ADD, RQ_TFLITE, K_ANY, "kernels/add.c", "htc__add_s8"},
    {OP_ADD, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qadd_s8"},
    {OP_ADD, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fadd"},
    {OP_MUL, RQ_TFLITE, K_ANY, "kernels/mul.c", "htc__mul_s8"},
    {OP_MUL, RQ_FLOAT, K_ANY, "kernels/mul.c", "htc__qmul_s8"},
    {OP_MUL, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fmul"},
    {OP_AVGPOOL, RQ_TFLITE, K_ANY, "kernels/pool.c", "htc__avgpool_s8"},
    {OP_AVGPOOL, RQ_FLOAT, K_GLOBAL, "kernels/ort_eltwise.c", "htc__qgap_s8"},
    {OP_AVGPOOL, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qavgpool_s8"},
    {OP_MAXPOOL, RQ_COUNT, K_ANY, "kernels/pool.c", "htc__maxpool_s8"},
    {OP_MEAN, RQ_TFLITE, K_GLOBAL, "kernels/mean.c", "htc__mean_s8"},
    {OP_PAD, RQ_COUNT, K_ANY, "kernels/pad.c", "htc__pad"},
    {OP_CONCAT, RQ_COUNT, K_ANY, "kernels/concat.c", "htc__concat"},
    {OP_TRANSPOSE, RQ_COUNT, K_ANY, "kernels/transpose.c", "htc__transpose"},
    {OP_SOFTMAX, RQ_TFLITE, K_ANY, "kernels/softmax.c", "htc__softmax_s8"},
    {OP_SOFTMAX, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qsoftmax_s8"},
    {OP_SOFTMAX, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fsoftmax_s8"},
    {OP_TABLE, RQ_QUANTLIB, K_ANY, "kernels/qlib_eltwise.c", "htc__ql_table"},
    {OP_TABLE, RQ_COUNT, K_ANY, "kernels/table.c", "htc__lut8"},
    {OP_QUANTIZE, RQ_TFLITE, K_ANY, "kernels/quantize.c", "htc__quantize"},
    {OP_QUANTIZE, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qlinear_quantize"},
    {OP_DEQUANTIZE, RQ_TFLITE, K_ANY, "kernels/quantize.c", "htc__dequantize"},
    {OP_DEQUANTIZE, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qlinear_dequantize"},
    {OP_REQUANTIZE, RQ_TFLITE, K_ANY, "kernels/quantize.c", "htc__requantize"},
    /* QuantLib's integer graphs (gen/qlib.c): RequantShift as every op's epilogue */
    {OP_CONV2D, RQ_QUANTLIB, K_ANY, "kernels/conv2d.c", "htc__ql_conv2d"},
    {OP_FC, RQ_QUANTLIB, K_ANY, "kernels/fc.c", "htc__ql_matmul"},
    {OP_ADD, RQ_QUANTLIB, K_ANY, "kernels/mul.c", "htc__ql_binary"},
    {OP_MUL, RQ_QUANTLIB, K_ANY, "kernels/mul.c", "htc__ql_binary"},
    {OP_REQUANTIZE, RQ_QUANTLIB, K_ANY, "kernels/qlib_eltwise.c", "htc__ql_requant"},
    {OP_GATHER, RQ_COUNT, K_ANY, "kernels/qlib_eltwise.c", "htc__ql_gather"},
    {OP_SOFTMAX, RQ_QUANTLIB, K_ANY, "kernels/qlib_norm.c", "htc__ql_softmax"},
    {OP_NORM, RQ_QUANTLIB, K_ANY, "kernels/qlib_norm.c", "htc__ql_norm"},
    {OP_MEAN, RQ_QUANTLIB, K_ANY, "kernels/qlib_norm.c", "htc__ql_mean"},
    {OP_SUB, RQ_TFLITE, K_ANY, "kernels/binary.c", "htc__sub_s8"},
    {OP_SQDIFF, RQ_TFLITE, K_ANY, "kernels/binary.c", "htc__sqdiff_s8"},
    {OP_MAXIMUM, RQ_NONE, K_ANY, "kernels/binary.c", "htc__maximum"},
    {OP_MINIMUM, RQ_NONE, K_ANY, "kernels/binary.c", "htc__minimum"},
    {OP_PRELU, RQ_TFLITE, K_ANY, "kernels/binary.c", "htc__prelu_s8"},
    {OP_MATMUL, RQ_TFLITE, K_ANY, "kernels/fc.c", "htc__matmul_s8"},
    {OP_TRANSPOSE_CONV, RQ_TFLITE, K_ANY, "kernels/transpose_conv.c", "htc__tconv_s8"},
    {OP_RESIZE, RQ_COUNT, K_ANY, "kernels/resize.c", "htc__resize"},
    {OP_TILE, RQ_COUNT, K_ANY, "kernels/move.c", "htc__tile"},
    {OP_SLICE, RQ_COUNT, K_ANY, "kernels/move.c", "htc__slice"},
    {OP_SPACE_TO_BATCH, RQ_COUNT, K_ANY, "kernels/move.c", "htc__space_to_batch"},
    {OP_BATCH_TO_SPACE, RQ_COUNT, K_ANY, "kernels/move.c", "htc__batch_to_space"},
    {OP_MEAN, RQ_TFLITE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_SUM, RQ_TFLITE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_REDUCE_MAX, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_L2NORM, RQ_TFLITE, K_ANY, "kernels/reduce.c", "htc__l2norm_s8"},
    {OP_NEG, RQ_NONE, K_ANY, "kernels/float.c", "htc__neg"},
    {OP_REDUCE_MIN, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_ARGMAX, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__argminmax_s8"},
    {OP_ARGMIN, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__argminmax_s8"},
    {OP_MIRROR_PAD, RQ_COUNT, K_ANY, "kernels/move.c", "htc__mirror_pad"},
    {OP_LSTM, RQ_TFLITE, K_ANY, "kernels/lstm.c", "htc__lstm"},
    /* TFLite Micro parity, int8 graphs (issue 13) */
    {OP_COMPARE, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__compare"},
    {OP_LOGICAL, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__logical"},
    {OP_SELECT, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__select"},
    {OP_CAST, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__cast"},
    {OP_FILL, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__fill"},
    {OP_GATHER_ND, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__gather_nd"},
    {OP_UPDATE_SLICE, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__update_slice"},
    {OP_ADD_N, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__add_n_s8"},
    {OP_CUMSUM, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__cumsum_s8"},
    {OP_CUMSUM, RQ_NONE, K_ANY, "kernels/arith8.c", "htc__cumsum"},
    {OP_REDUCE_ALL, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__reduce_all"},
    {OP_SVDF, RQ_TFLITE, K_ANY, "kernels/svdf.c", "htc__svdf"},
    {OP_LOG_SOFTMAX, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__log_softmax_s8"},
    {OP_DIV, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__div_s8"},
    /* TFLite Micro's signal library (custom Signal* operators) */
    {OP_WINDOW, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__window"},
    {OP_FFT_AUTOSCALE, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__fft_autoscale"},
    {OP_RFFT, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__rfft"},
    {OP_ENERGY, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__energy"},
    {OP_FILTER_BANK, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__filter_bank"},
    {OP_FB_SQRT, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__fb_sqrt"},
    {OP_SPECTRAL_SUB, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__spectral_sub"},
    {OP_PCAN, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__pcan"},
    {OP_FB_LOG, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__fb_log"},
    {OP_DELAY, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__delay"},
    {OP_OVERLAP_ADD, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__overlap_add"},
};

int cpu_kernel(const Op *op, const char **file, const char **fn)
{
    for (size_t i = 0; i < sizeof cpu_kernels / sizeof cpu_kernels[0]; i++) {
        if (cpu_kernels[i].kind != op->kind) continue;
        if (cpu_kernels[i].rq != RQ_COUNT && cpu_kernels[i].rq != op->rq) continue;
        int w = cpu_kernels[i].when;
        if ((w == K_S16) != (op->s16 != 0) || (w == K_F32) != (op->f32 != 0)) continue;
        if ((w == K_DW && !op->depthwise) || (w == K_GLOBAL && !op->global) ||
            (w == K_INT32 && !op->int32_out))
            continue;
        *file = cpu_kernels[i].file;
        *fn = cpu_kernels[i].fn;
        return 1;
    }
    return 0;
}

/* The CPU kernels (function name and variant) with a parallel entry point: fn<variant>_par(the same
   arguments..., split, core, ncores) computes core's share of the output
   (HTC_SPLIT_* of htc.h), the bytes identical for every ncores. */
#define S_R (1 << SPLIT_ROWS)
#define S_C (1 << SPLIT_CHANNELS)
static const struct {
    const char *fn;
    int splits;
} par_kernels[] = {
    {"htc__conv2d_s8", S_R | S_C | SPLIT_BAND},
    {"htc__dwconv2d_s8", S_R | S_C | SPLIT_BAND},
    {"htc__qconv2d_s8", S_R | S_C},
    {"htc__qconv2d_s32", S_R | S_C},
    {"htc__ql_conv2d", S_R | S_C},
    {"htc__fc_s8", S_R | S_C},
    {"htc__qfc_s8", S_R | S_C},
    {"htc__qfc_s32", S_R | S_C},
    {"htc__ql_matmul", S_R | S_C},
    {"htc__avgpool_s8", S_R | S_C | SPLIT_BAND},
    {"htc__maxpool_s8", S_R | SPLIT_BAND},
    {"htc__add_s8", S_R},
    {"htc__mul_s8", S_R},
    {"htc__qmul_s8", S_R},
    {"htc__ql_binary", S_R | S_C},
    {"htc__softmax_s8", S_R},
    {"htc__ql_softmax", S_R},
    {"htc__ql_norm", S_R | S_C},
    {"htc__ql_mean", S_R},
    {"htc__ql_requant", S_R},
    {"htc__ql_table", S_R | S_C},
    {"htc__transpose", S_R},
    {"htc__lut8", S_R},
};
#undef S_R
#undef S_C

int cpu_kernel_splits(const char *fn, const char *variant)
{
    size_t n = fn ? strlen(fn) : 0;
    for (size_t i = 0; fn && i < sizeof par_kernels / sizeof par_kernels[0]; i++)
        if (strncmp(par_kernels[i].fn, fn, n) == 0 && strcmp(par_kernels[i].fn + n, variant ? variant : "") == 0)
            return par_kernels[i].splits;
    return 0;
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

static const char *const cluster_keys[] = {"cores", "l1", "split", "fork", "overhead", NULL};

/* The cpu table (at the top) as a cluster: cores = N identical cores (a
   plain MCU: 1, the default), l1 = its shared local memory, split =
   function(op) returning "rows" or "channels" (how a layer's output is
   divided over the cores; optional), fork = cycles of one fork/join,
   overhead = cycles of every layer beyond its kernel's calls. */
static void read_cluster(LoadedTarget *lt, Engine *cpu)
{
    lua_State *L = lt->L;
    const char *ck[4] = {"cpu"};
    cpu->cores = (int)get_number(lt, ck, 1, "cores", 0, 1, 1, 64, 1);
    cpu->fork_cycles = get_number(lt, ck, 1, "fork", 0, 0, 0, 1e9, 0);
    cpu->overhead_cycles = get_number(lt, ck, 1, "overhead", 0, 0, 0, 1e9, 0);
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
    lt->split_ref = LUA_NOREF;
    int ty = rawfield(L, -1, "split");
    if (ty == LUA_TFUNCTION) {
        cpu->has_split = 1;
        lt->split_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        if (ty != LUA_TNIL) {
            ck[1] = "split";
            field_error(lt, ck, 2, "expected a function(op) returning \"rows\" or \"channels\"");
        }
        lua_pop(L, 1);
    }
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

Target *target_load(const char *path)
{
    LoadedTarget *lt = arena_alloc(sizeof *lt);
    Target *t = &lt->t;
    t->path = arena_strdup(path);
    const char *slash = strrchr(path, '/');
    t->dir = slash == path ? "/" : slash ? arena_printf("%.*s", (int)(slash - path), path) : ".";
    lt->src = (const char *)read_file(path, &lt->srclen);

    lua_State *L = lua_newstate(lua_alloc, NULL);
    if (!L) die("%s: cannot create a Lua state", path);
    lt->L = cur_L = L;
    lua_atpanic(L, l_panic);
    const char *lim = getenv("HTC_LUA_SECONDS");
    if (lim && atoi(lim) > 0) {
        if (atoi(lim) < cpu_seconds) cpu_seconds = atoi(lim);
        if (atoi(lim) < wall_seconds) wall_seconds = atoi(lim);
    }
    set_limit_msgs(path);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_cpu_limit;
    sigaction(SIGPROF, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    luaL_openlibs(L);
    trace_string_functions(L);
    /* the sandbox keeps only string/table/math/utf8; io, os, load, require and
       debug are unreachable from the target file */
    char *chunk = arena_printf("@%s", path);
    if (luaL_loadbufferx(L, lt->src, lt->srclen, chunk, "t") != LUA_OK)
        die("%s", lua_error_line(L));
    push_sandbox_env(L);
    luaL_newmetatable(L, "htc.op");
    lua_pushcfunction(L, op_missing);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    rawfield(L, -1, "__htc_tilevars");
    lt->tilevars_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setupvalue(L, -2, 1);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 100000);
    if (tpcall(L, 0, 1) != LUA_OK) die("%s", lua_error_line(L));
    if (!lua_istable(L, -1))
        die("%s:1: the file must return a target: return target \"name\" { ... }", path);

    for (int i = 0; i < ndefines; i++)
        if (!defines[i].used) {
            char list[512] = "";
            for (int k = 0; k < nparams_; k++) {
                if (k) strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, params_[k].name, sizeof list - strlen(list) - 1);
            }
            die("-D %s=%s: %s declares no parameter '%s' (%s%s)", defines[i].name, defines[i].value, path,
                defines[i].name, nparams_ ? "its parameters: " : "it has none", list);
        }
    t->nparams = nparams_;
    t->params = params_;

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
    for (int k = 0; k < OP_COUNT; k++) lt->call_ref[k] = LUA_NOREF;

    const char *ck[8] = {"cpu"};
    if (rawfield(L, -1, "cpu") != LUA_TTABLE)
        field_error(lt, ck, 0, "missing required table 'cpu' (the fallback engine)");
    Engine *cpu = &t->engines[0];
    cpu->is_cpu = 1;
    cpu->name = get_string(lt, ck, 1, "name", 0);
    if (!cpu->name) cpu->name = "cpu";
    read_engine(lt, cpu, 0, ck, 1);
    read_cluster(lt, cpu);
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
                    field_error(lt, ek, 3, "only the cpu engine is a cluster of cores (cores, l1, split, fork)");
                }
            }
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
static const char *requant_text(const RequantSet *rs)
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
        fprintf(f, " %s", requant_text(&en->requant));
        if (en->rows) fprintf(f, "; array %dx%d", en->rows, en->cols);
        if (!en->is_cpu) {      /* where its tile buffers are */
            fprintf(f, "; tiles in %s", esc_term(t->memories[en->act_memory].name));
            if (en->weight_memory >= 0) fprintf(f, ", weights in %s", esc_term(t->memories[en->weight_memory].name));
            if (en->out_memory >= 0) fprintf(f, ", outputs in %s", esc_term(t->memories[en->out_memory].name));
        }
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
    if (lt->L) lua_close(lt->L);
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

/* ---- callbacks ------------------------------------------------------------------ */

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void push_shape(lua_State *L, const Tensor *t)
{
    lua_createtable(L, t->rank, 0);
    for (int i = 0; i < t->rank; i++) {
        lua_pushinteger(L, t->shape[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* __index of the op tables predicates see: reading a field an op does
   not have is an error at the user's line, listing the fields it has. */
static int op_missing(lua_State *L)
{
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_typename(L, 2);
    const char *names[96];
    int n = 0;
    lua_pushnil(L);
    while (n < 96 && lua_next(L, 1)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) names[n++] = lua_tostring(L, -1);
    }
    for (int i = 1; i < n; i++)         /* sort: insertion, a few dozen names */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *x = names[j];
            names[j] = names[j - 1];
            names[j - 1] = x;
        }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; i < n; i++) {
        if (i) luaL_addstring(&b, ", ");
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    lua_pushstring(L, "kind");
    lua_rawget(L, 1);
    return luaL_error(L, "op.%s: no such field for %s (fields: %s)", k, lua_tostring(L, -1) ? lua_tostring(L, -1) : "this op",
                      lua_tostring(L, -2));
}

/* The op as the target's predicates see it: a fresh table of plain values.
   Field names are documented in docs/targets.md. */
static void push_op(lua_State *L, const Graph *g, const Op *op)
{
    static const char *acts[] = {"none", "relu", "relu6", "relu_n1_to_1"};
    lua_newtable(L);
    set_str(L, "kind", op_name(op->kind));
    set_str(L, "source", op->src_name ? op->src_name : "");
    set_int(L, "index", op->src_index);
    set_str(L, "requant", requant_name(op->rq));
    set_str(L, "act", acts[op->act]);
    set_int(L, "stride_h", op->stride_h);
    set_int(L, "stride_w", op->stride_w);
    set_int(L, "stride", op->stride_h > op->stride_w ? op->stride_h : op->stride_w);
    set_int(L, "dilation_h", op->dil_h);
    set_int(L, "dilation_w", op->dil_w);
    set_int(L, "dilation", op->dil_h > op->dil_w ? op->dil_h : op->dil_w);
    set_int(L, "macs", op->macs);
    set_int(L, "per_channel", op->nch > 1);
    /* the arithmetic's own numbers: zero points and clamp (stored domain),
       onnxruntime's float scale (the first channel's; d.scale(k) in
       constants gives each) */
    set_int(L, "in_zp", op->in_zp);
    set_int(L, "out_zp", op->out_zp);
    set_int(L, "qmin", op->act_min);
    set_int(L, "qmax", op->act_max);
    /* QuantLib's RequantShift: the shift and the largest |mul| and |add|
       (an engine folding it into its own int32 arithmetic bounds it) */
    if (op->rq == RQ_QUANTLIB && op->mult && op->rq_add && !op->rq_shifts) {
        int64_t mm = 0, am = 0;
        for (int c = 0; c < (op->nch > 0 ? op->nch : 1); c++) {
            int64_t m = op->mult[c] < 0 ? -(int64_t)op->mult[c] : op->mult[c];
            int64_t a = op->rq_add[c] < 0 ? -(int64_t)op->rq_add[c] : op->rq_add[c];
            mm = m > mm ? m : mm;
            am = a > am ? a : am;
        }
        set_int(L, "ql_shift", op->shift[0]);
        set_int(L, "ql_mul_absmax", mm);
        set_int(L, "ql_add_absmax", am);
    }
    if (op->rq == RQ_FLOAT && op->fscale) {
        lua_pushnumber(L, op->fscale[0]);
        lua_setfield(L, -2, "scale");
    }
    const Tensor *in = op->in[0] >= 0 ? &g->tensors[op->in[0]] : NULL;
    const Tensor *out = op->out[0] >= 0 ? &g->tensors[op->out[0]] : NULL;
    if (in) {
        push_shape(L, in);
        lua_setfield(L, -2, "in_shape");
        set_str(L, "in_type", dtype_name(in->type));
        set_int(L, "act_bits", (lua_Integer)dtype_size(in->type) * 8);
    }
    if (out) {
        push_shape(L, out);
        lua_setfield(L, -2, "out_shape");
        set_str(L, "out_type", dtype_name(out->type));
    }
    if (op->kind == OP_CONV2D || op->kind == OP_FC) {
        const Tensor *w = &g->tensors[op->in[1]];
        set_int(L, "weight_bits", (lua_Integer)dtype_size(w->type) * 8);
        /* the range of the weight values (ternary: -1..1; HTVM dispatches
           by it); the type's range when the weights are not constant */
        int wmin = w->type == DT_UINT8 ? 0 : w->type == DT_INT16 ? -32768 : -128;
        int wmax = w->type == DT_UINT8 ? 255 : w->type == DT_INT16 ? 32767 : 127;
        if (w->data && (w->type == DT_INT8 || w->type == DT_UINT8)) {
            int64_t n = tensor_numel(w);
            wmin = 255, wmax = -128;
            for (int64_t i = 0; i < n; i++) {
                int v = w->type == DT_INT8 ? ((const int8_t *)w->data)[i] : ((const uint8_t *)w->data)[i];
                wmin = v < wmin ? v : wmin;
                wmax = v > wmax ? v : wmax;
            }
            if (n == 0) wmin = wmax = 0;
        }
        set_int(L, "weight_min", wmin);
        set_int(L, "weight_max", wmax);
        set_int(L, "weight_zp", op->has_w_zp);
        set_int(L, "weight_const", w->data != NULL);
        set_int(L, "bias_absmax", op_bias_absmax(g, op));
        set_int(L, "int32_out", op->int32_out);
        set_int(L, "batches", op->batches);
        if (op->kind == OP_CONV2D) {
            set_int(L, "kernel_h", op->k_h);
            set_int(L, "kernel_w", op->k_w);
            set_int(L, "groups", op->groups);
            set_int(L, "depthwise", op->depthwise);
            set_int(L, "depth_multiplier", op->groups > 0 ? op->out_c / op->groups : 1);
        } else {
            set_int(L, "weight_batches", op->w_batches);
        }
    } else if (op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL) {
        set_int(L, "kernel_h", op->k_h);
        set_int(L, "kernel_w", op->k_w);
        set_int(L, "global", op->global);
    } else if (op->kind == OP_ADD || op->kind == OP_MUL) {
        set_int(L, "broadcast", op->broadcast);
    }
    /* known once dispatch has asked every predicate (not inside accepts) */
    if (op->eligible_count >= 0) {
        set_int(L, "eligible_index", op->eligible_index);
        set_int(L, "eligible_count", op->eligible_count);
    }
    /* a float requantization that is exactly a power-of-two shift */
    if (op->exact_shift) {
        set_str(L, "requant", "shift");
        set_str(L, "rounding", op->shift_round == ROUND_TFLITE ? "tflite" : "half_even");
    }
    luaL_setmetatable(L, "htc.op");     /* strict: a missing field is an error */
}

/* The error at the top of the stack as one line; the memory limit's
   error names the line that asked for more. */
static const char *lua_error_line(lua_State *L)
{
    const char *m = lua_tostring(L, -1);
    if (mem_where[0] && m && !strcmp(m, "not enough memory"))
        return arena_printf("%s: the target file needs more than %d MiB of Lua memory", mem_where,
                            (int)(LUA_MEMORY >> 20));
    char *line = arena_strdup(m ? m : "error object is not a string");
    for (char *q = line; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = ' ';
    return line;
}

int target_accepts(Target *t, int engine, const Graph *g, const Op *op, const char **why)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[engine];
    *why = NULL;
    const EngineOp *eo = engine_op(e, op->kind);
    if ((op->s16 || op->f32) && !e->is_cpu) {
        *why = op->s16 ? "int16 activations run on the CPU" : "float32 operators run on the CPU";
        return 0;
    }
    if (!eo) {
        *why = arena_printf("%s has no %s kernel", e->name, op_name(op->kind));
        return 0;
    }
    const RequantSet *rs = eo->has_requant ? &eo->requant : &e->requant;
    int ok_rq = op->rq == RQ_NONE;
    for (int i = 0; i < rs->n; i++)
        if (rs->kinds[i] == op->rq ||
            (rs->kinds[i] == RQ_SHIFT && op->exact_shift && (rs->shift_rounds & (1 << op->shift_round))))
            ok_rq = 1;
    if (!ok_rq) {
        /* say what the engine reproduces and what this op needs */
        const char *need = requant_name(op->rq);
        if (op->exact_shift)
            need = op->shift_round == ROUND_TFLITE ? "tflite (a power-of-two shift with TFLite's rounding: shift:tflite)"
                                                   : "float (a power-of-two shift rounded half to even: shift)";
        else if (rs->shift_rounds && (op->rq == RQ_FLOAT || op->rq == RQ_TFLITE))
            need = arena_printf("%s (its scales are not exact powers of two%s)", need,
                                op->rq == RQ_FLOAT ? ", or its accumulator may exceed 2^24" : "");
        *why = arena_printf("%s%s%s implements %s requantization; this op's is %s", e->name,
                            eo->has_requant ? "'s " : "", eo->has_requant ? op_name(op->kind) : "", requant_text(rs), need);
        return 0;
    }
    if (e->is_cpu && !eo->kernel_file && op->kind != OP_RESHAPE) {
        const char *f, *fn;
        if (!cpu_kernel(op, &f, &fn)) {
            *why = arena_printf("htc has no CPU kernel for %s with %s arithmetic%s", op_name(op->kind),
                                requant_name(op->rq), op->int32_out ? " (int32 output)" : "");
            return 0;
        }
    }
    if (!eo->has_accepts) return 1;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->accepts_ref[engine][op->kind]);
    push_op(L, g, op);
    if (tpcall(L, 1, 2) != LUA_OK)
        die("%s (in %s.ops.%s.accepts, for operator %d %s)", lua_error_line(L), e->name,
            op_name(op->kind), op->src_index, op->src_name);
    /* true or false, and maybe a reason: "yes", {} or nil are errors */
    if (lua_type(L, -2) != LUA_TBOOLEAN || (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)) {
        const char *got = lua_type(L, -2) != LUA_TBOOLEAN ? arena_printf("a %s", luaL_typename(L, -2))
                                                          : arena_printf("a reason of type %s", luaL_typename(L, -1));
        lua_Debug ar;
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->accepts_ref[engine][op->kind]);
        lua_getinfo(L, ">S", &ar);
        die("%s:%d: %s.ops.%s.accepts returned %s (for operator %d %s); expected true or false, and optionally "
            "a reason string", t->path, ar.linedefined, e->name, op_name(op->kind), got, op->src_index, op->src_name);
    }
    int ok = lua_toboolean(L, -2);
    if (!ok)
        *why = lua_isstring(L, -1) ? arena_strdup(lua_tostring(L, -1))
                                   : arena_printf("%s.ops.%s.accepts said no", e->name, op_name(op->kind));
    lua_pop(L, 2);
    return ok;
}

/* the line of an engine's op entry, for messages (found when needed: the
   schema walk does not scan the text for every op) */
static int op_line(const LoadedTarget *lt, const Engine *e, OpKind k)
{
    const char *keys[4] = {e->is_cpu ? "cpu" : "engines", e->is_cpu ? NULL : e->name, "ops", op_name(k)};
    return locate(lt, keys, 4);
}

void target_cost(Target *t, int engine, const Graph *g, const Op *op, double *per_mac, double *per_elem)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[engine];
    const EngineOp *eo = engine_op(e, op->kind);
    *per_mac = eo ? eo->cycles_per_mac : 0;
    *per_elem = eo ? eo->cycles_per_elem : 0;
    for (int c = 0; eo && c < 2; c++) {
        if (!(eo->cost_fn & (1 << c))) continue;
        lua_State *L = lt->L;
        const char *f = c ? "cycles_per_elem" : "cycles_per_mac";
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->cost_ref[engine][op->kind][c]);
        push_op(L, g, op);
        if (tpcall(L, 1, 1) != LUA_OK)
            die("%s (in %s.ops.%s.%s, for operator %d %s)", lua_error_line(L), e->name, op_name(op->kind), f,
                op->src_index, op->src_name);
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0 && lua_tonumber(L, -1) <= 1e9))
            die("%s:%d: %s.ops.%s.%s returned %s for operator %d %s; expected a number >= 0 (at most 1e9)", t->path, op_line(lt, e, op->kind),
                e->name, op_name(op->kind), f, lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1),
                op->src_index, op->src_name);
        if (c) *per_elem = lua_tonumber(L, -1);
        else *per_mac = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

int target_call_cycles(Target *t, const Graph *g, const Op *op, const CallShare *s, double *cycles)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[0];
    const EngineOp *eo = engine_op(e, op->kind);
    if (!eo || !eo->has_cycles) return 0;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->call_ref[op->kind]);
    push_op(L, g, op);
    lua_createtable(L, 0, 7);
    set_int(L, "rows", s->rows);
    set_int(L, "cols", s->cols);
    set_int(L, "channels", s->channels);
    set_int(L, "in_rows", s->in_rows);
    set_int(L, "tile", s->tile);
    set_int(L, "cores", s->cores);
    set_int(L, "core", s->core);
    if (tpcall(L, 2, 1) != LUA_OK)
        die("%s (in cpu.ops.%s.cycles, for operator %d %s)", lua_error_line(L), op_name(op->kind), op->src_index,
            op->src_name);
    if (lua_isnil(L, -1)) {     /* not this call: the per-MAC / per-element costs */
        lua_pop(L, 1);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0 && lua_tonumber(L, -1) <= 1e12))
        die("%s:%d: cpu.ops.%s.cycles returned %s for operator %d %s; expected a number >= 0 (at most 1e12) or nil", t->path,
            op_line(lt, e, op->kind), op_name(op->kind),
            lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1), op->src_index, op->src_name);
    *cycles = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return 1;
}

int target_dispatch(Target *t, const Graph *g, const Op *op, const int *cand, int ncand, const char **reason)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    if (!t->has_dispatch || ncand == 1) {
        *reason = ncand == 1 ? "only candidate"
                             : arena_printf("%s accepts it (first of %d candidates in target order)", t->engines[cand[0]].name, ncand);
        return cand[0];
    }
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->dispatch_ref);
    push_op(L, g, op);
    lua_createtable(L, ncand, 0);
    for (int i = 0; i < ncand; i++) {
        lua_pushstring(L, t->engines[cand[i]].name);
        lua_rawseti(L, -2, i + 1);
    }
    if (tpcall(L, 2, 2) != LUA_OK)
        die("%s (in dispatch, for operator %d %s)", lua_error_line(L), op->src_index, op->src_name);
    const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int chosen = -1;
    for (int i = 0; name && i < ncand; i++)
        if (strcmp(t->engines[cand[i]].name, name) == 0) chosen = cand[i];
    if (chosen < 0 || (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)) {
        const char *what = chosen >= 0 ? arena_printf("a reason of type %s, expected a string", luaL_typename(L, -1))
                         : name ? arena_printf("'%.60s', which is not one of the candidates", name)
                                : arena_printf("a %s, not an engine name", luaL_typename(L, -2));
        lua_Debug ar;
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->dispatch_ref);
        lua_getinfo(L, ">S", &ar);
        die("%s:%d: dispatch returned %s (for operator %d %s)", t->path, ar.linedefined, what, op->src_index,
            op->src_name);
    }
    *reason = lua_type(L, -1) == LUA_TSTRING ? arena_strdup(lua_tostring(L, -1)) : "chosen by the target's dispatch";
    lua_pop(L, 2);
    return chosen;
}

const char *const split_names[SPLIT_COUNT] = {"rows", "channels"};

int target_split(Target *t, const Graph *g, const Op *op)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    if (!t->engines[0].has_split) return -1;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->split_ref);
    push_op(L, g, op);
    if (tpcall(L, 1, 1) != LUA_OK)
        die("%s (in cpu.split, for operator %d %s)", lua_error_line(L), op->src_index, op->src_name);
    int r = -2;
    if (lua_isnil(L, -1)) r = -1;
    else if (lua_type(L, -1) == LUA_TSTRING)
        for (int i = 0; i < SPLIT_COUNT; i++)
            if (strcmp(lua_tostring(L, -1), split_names[i]) == 0) r = i;
    if (r == -2) {
        const char *got = lua_type(L, -1) == LUA_TSTRING ? arena_printf("'%.40s'", lua_tostring(L, -1))
                                                         : arena_printf("a %s", luaL_typename(L, -1));
        lua_Debug ar;
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->split_ref);
        lua_getinfo(L, ">S", &ar);
        die("%s:%d: cpu.split returned %s (for operator %d %s); expected \"rows\", \"channels\" or nil", t->path,
            ar.linedefined, got, op->src_index, op->src_name);
    }
    lua_pop(L, 1);
    return r;
}

/* ---- tiling callbacks ----------------------------------------------------------- */

/* Expression trees from the tile function, bounded: at most TILE_MAX_NODES
   nodes in all of one layer's expressions (a shared subtree counts each
   time it is used: a + a doubled 60 times is 2^60 nodes, refused) and
   TILE_MAX_DEPTH levels; constants finite. */
#define TILE_MAX_NODES 4000
#define TILE_MAX_DEPTH 1000
#define TILE_MAX_CONSTRAINTS 64
static int expr_nodes;

static Expr *to_expr(LoadedTarget *lt, const char *where, int depth)
{
    lua_State *L = lt->L;
    if (++expr_nodes > TILE_MAX_NODES) die("%s: the tile expressions have more than %d nodes", where, TILE_MAX_NODES);
    if (depth > TILE_MAX_DEPTH) die("%s: a tile expression nested more than %d deep", where, TILE_MAX_DEPTH);
    luaL_checkstack(L, 4, "tile expression");
    Expr *e = arena_alloc(sizeof *e);
    if (lua_type(L, -1) == LUA_TNUMBER) {
        e->kind = EX_CONST;
        e->v = lua_tonumber(L, -1);
        if (!isfinite(e->v)) die("%s: the constant %g is not a finite number", where, e->v);
        return e;
    }
    if (!lua_istable(L, -1)) die("%s: expected a tile expression, got %s", where, luaL_typename(L, -1));
    rawfield(L, -1, "op");
    const char *op = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!op) die("%s: expected a tile expression (a table without op)", where);
    static const struct { const char *n; ExprKind k; } ks[] = {
        {"c", EX_CONST}, {"v", EX_VAR}, {"+", EX_ADD}, {"-", EX_SUB}, {"*", EX_MUL}, {"%", EX_MOD}, {"neg", EX_NEG},
        {"min", EX_MIN}, {"max", EX_MAX}, {"le", EX_LE}, {"ge", EX_GE}, {"eq", EX_EQ}, {"/", EX_DIV}, {"cdiv", EX_CDIV}};
    int found = 0;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (!strcmp(ks[i].n, op)) { e->kind = ks[i].k; found = 1; }
    if (!found) die("%s: unknown expression node '%.40s'", where, op);
    lua_pop(L, 1);
    if (e->kind == EX_CONST) {
        if (rawfield(L, -1, "v") != LUA_TNUMBER) die("%s: a constant node without a number", where);
        e->v = lua_tonumber(L, -1);
        if (!isfinite(e->v)) die("%s: the constant %g is not a finite number", where, e->v);
        lua_pop(L, 1);
    } else if (e->kind == EX_VAR) {
        rawfield(L, -1, "name");
        const char *n = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        static const char *names[TD_COUNT] = {"K", "C", "OY", "OX"};
        e->var = -1;
        for (int i = 0; i < TD_COUNT; i++)
            if (n && !strcmp(n, names[i])) e->var = i;
        if (e->var < 0) die("%s: unknown tile variable '%.40s'", where, n ? n : "?");
        lua_pop(L, 1);
    } else {
        lua_rawgeti(L, -1, 1);
        e->a = to_expr(lt, where, depth + 1);
        lua_pop(L, 1);
        if (e->kind != EX_NEG) {
            lua_rawgeti(L, -1, 2);
            e->b = to_expr(lt, where, depth + 1);
            lua_pop(L, 1);
        }
    }
    return e;
}

static Expr *field_expr(LoadedTarget *lt, const char *k, const char *where)
{
    Expr *e = NULL;
    if (rawfield(lt->L, -1, k) != LUA_TNIL) e = to_expr(lt, where, 0);
    lua_pop(lt->L, 1);
    return e;
}

/* The line of `key =` inside the function with registry ref `ref` (the
   first one, in the file's text between its first and last line), or the
   line it is defined on. Lua tables keep no lines; this finds the user's. */
static int fn_key_line(const LoadedTarget *lt, int ref, const char *key)
{
    lua_State *L = lt->L;
    lua_Debug ar;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    if (!lua_getinfo(L, ">S", &ar) || ar.linedefined <= 0) return 1;
    int line = 1;
    size_t i = 0;
    for (; i < lt->srclen && line < ar.linedefined; i++)
        if (lt->src[i] == '\n') line++;
    size_t at;
    if (key && find_key(lt->src, lt->srclen, i, key, &at)) {
        int l = line;
        for (size_t j = i; j < at; j++)
            if (lt->src[j] == '\n') l++;
        if (l <= ar.lastlinedefined) return l;
    }
    return ar.linedefined;
}

/* ---- constants: an engine's compile-time data for one layer ------------------

   The op's `constants = function(op, d)` runs once per offloaded layer. d
   reads the layer's canonical data (0-based indices): d.w(k, c, y, x) the
   weights ([K][kh][kw][C/groups] as the model states them; fc: y = x = 0),
   d.bias(k), TFLite's d.mult(k) / d.shift(k), onnxruntime's float
   d.scale(k), the power-of-two d.rq_shift(k), QuantLib's d.qmul(k) /
   d.qadd(k), and the sizes d.K, d.C (per group), d.KH, d.KW, d.groups. */
static struct {
    const Graph *g;
    const Op *op;
    int K, C, KH, KW;
} cd;

static int cd_index(lua_State *L, int arg, int n, const char *what)
{
    lua_Integer v = luaL_checkinteger(L, arg);
    if (v < 0 || v >= n) return luaL_error(L, "d.%s: index %d out of range [0, %d)", what, (int)v, n);
    return (int)v;
}

static int cd_w(lua_State *L)
{
    int k = cd_index(L, 1, cd.K, "w (k)"), c = cd_index(L, 2, cd.C, "w (c)");
    int y = cd_index(L, 3, cd.KH, "w (y)"), x = cd_index(L, 4, cd.KW, "w (x)");
    const Tensor *w = &cd.g->tensors[cd.op->in[1]];
    size_t i = (((size_t)k * cd.KH + y) * cd.KW + x) * cd.C + c;
    if (!w->data || i >= (size_t)tensor_numel(w)) return luaL_error(L, "d.w: the weights are not constant");
    lua_pushinteger(L, w->type == DT_UINT8 ? ((const uint8_t *)w->data)[i] : ((const int8_t *)w->data)[i]);
    return 1;
}

static int cd_bias(lua_State *L)
{
    int k = cd_index(L, 1, cd.K, "bias");
    const Op *op = cd.op;
    const Tensor *b = op->nin > 2 && op->in[2] >= 0 ? &cd.g->tensors[op->in[2]] : NULL;
    lua_pushinteger(L, b && b->data && b->type == DT_INT32 ? ((const int32_t *)(const void *)b->data)[k] : 0);
    return 1;
}

/* d.mult, d.shift, d.scale, d.rq_shift, d.qmul, d.qadd: which one, by upvalue */
static int cd_rq(lua_State *L)
{
    static const char *const names[] = {"mult", "shift", "scale", "rq_shift", "qmul", "qadd"};
    int which = (int)lua_tointeger(L, lua_upvalueindex(1));
    int k = cd_index(L, 1, cd.K, names[which]);
    const Op *op = cd.op;
    int ch = op->nch > 1 ? k : 0;
    switch (which) {
    case 0: case 1:
        if (op->rq != RQ_TFLITE || !op->mult) break;
        lua_pushinteger(L, which ? op->shift[ch] : op->mult[ch]);
        return 1;
    case 2:
        if (op->rq != RQ_FLOAT || !op->fscale) break;
        lua_pushnumber(L, op->fscale[ch]);
        return 1;
    case 3:
        if (!op->rq_shifts) break;
        lua_pushinteger(L, op->rq_shifts[ch]);
        return 1;
    default:
        if (op->rq != RQ_QUANTLIB || !op->mult) break;
        lua_pushinteger(L, which == 4 ? op->mult[ch] : op->rq_add[ch]);
        return 1;
    }
    return luaL_error(L, "d.%s: the layer's requantization is %s%s", names[which], requant_name(op->rq),
                      op->rq_shifts ? " (shift)" : "");
}

static const struct {
    const char *name, *ctype;
    int elem;
    double lo, hi;
} ctypes[] = {
    {"int8", "int8_t", 1, -128, 127}, {"uint8", "uint8_t", 1, 0, 255}, {"int16", "int16_t", 2, -32768, 32767},
    {"int32", "int32_t", 4, -2147483648.0, 2147483647.0}, {"uint32", "uint32_t", 4, 0, 4294967295.0},
    {"float", "float", 4, 0, 0},
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void target_constants(Target *t, int engine, const Graph *g, const Op *op, TileInfo *ti)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    lua_State *L = lt->L;
    int ref = lt->const_ref[engine][op->kind];
    if (ref == LUA_NOREF) return;
    const char *where = arena_printf("%s.ops.%s.constants", t->engines[engine].name, op_name(op->kind));
    cd.g = g;
    cd.op = op;
    cd.K = op->out_c;
    cd.C = op->kind == OP_CONV2D ? op->in_c / (op->groups > 0 ? op->groups : 1) : op->in_c;
    cd.KH = op->kind == OP_CONV2D ? op->k_h : 1;
    cd.KW = op->kind == OP_CONV2D ? op->k_w : 1;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    push_op(L, g, op);
    lua_newtable(L);
    set_int(L, "K", cd.K); set_int(L, "C", cd.C); set_int(L, "KH", cd.KH); set_int(L, "KW", cd.KW);
    set_int(L, "groups", op->kind == OP_CONV2D ? op->groups : 1);
    lua_pushcfunction(L, cd_w);
    lua_setfield(L, -2, "w");
    lua_pushcfunction(L, cd_bias);
    lua_setfield(L, -2, "bias");
    static const char *const rq_names[] = {"mult", "shift", "scale", "rq_shift", "qmul", "qadd"};
    for (int i = 0; i < 6; i++) {
        lua_pushinteger(L, i);
        lua_pushcclosure(L, cd_rq, 1);
        lua_setfield(L, -2, rq_names[i]);
    }
    if (tpcall(L, 2, 1) != LUA_OK)
        die("%s (in %s, for operator %d %s)", lua_error_line(L), where, op->src_index, op->src_name);
    int line = fn_key_line(lt, ref, NULL);
    if (!lua_istable(L, -1))
        die("%s:%d: %s must return a table { name = { type = \"int8\", values = {...} }, ... }, got %s", t->path, line,
            where, luaL_typename(L, -1));
    /* the names, sorted: Lua's table order varies from run to run */
    const char *names[17];
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) die("%s:%d: %s returned a key that is not a name", t->path, line, where);
        const char *k = lua_tostring(L, -1);
        int ok = strlen(k) <= 32 && ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_');
        for (const char *c = k; ok && *c; c++)
            ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
        if (!ok) die("%s:%d: %s: '%.40s' is not a name (a C identifier of at most 32 characters)", t->path, line, where, k);
        if (n == 16) die("%s:%d: %s returned more than 16 arrays", t->path, line, where);
        names[n++] = arena_strdup(k);
    }
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    ti->consts = arena_alloc(sizeof(EngineConst) * (size_t)(n + 1));
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const char *k = names[i];
        int kl = fn_key_line(lt, ref, k);
        lua_getfield(L, -1, k);
        EngineConst c = {k, NULL, 0, 0, NULL};
        int ty = -1;
        if (lua_type(L, -1) == LUA_TSTRING) {             /* raw bytes */
            size_t len;
            const char *b = lua_tolstring(L, -1, &len);
            c.ctype = "uint8_t";
            c.elem = 1;
            c.n = (int64_t)len;
            c.data = memcpy(arena_alloc(len + 1), b, len);
        } else if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "type");
            const char *tn = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
            for (int q = 0; q < (int)(sizeof ctypes / sizeof ctypes[0]); q++)
                if (!strcmp(tn, ctypes[q].name)) ty = q;
            if (ty < 0)
                die("%s:%d: %s.%s.type: expected int8, uint8, int16, int32, uint32 or float, got '%.20s'", t->path, kl, where, k, tn);
            lua_pop(L, 1);
            if (lua_getfield(L, -1, "values") != LUA_TTABLE) die("%s:%d: %s.%s.values: expected a list of numbers", t->path, kl, where, k);
            lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
            if (len > (1 << 24)) die("%s:%d: %s.%s: %lld values, at most %d", t->path, kl, where, k, (long long)len, 1 << 24);
            c.ctype = ctypes[ty].ctype;
            c.elem = ctypes[ty].elem;
            c.n = len;
            uint8_t *d = arena_alloc((size_t)len * (size_t)c.elem + 1);
            for (lua_Integer j = 1; j <= len; j++) {
                lua_rawgeti(L, -1, j);
                int isnum;
                lua_Number v = lua_tonumberx(L, -1, &isnum);
                if (!isnum) die("%s:%d: %s.%s.values[%lld]: not a number", t->path, kl, where, k, (long long)j);
                if (ty == 5) {
                    float f = (float)v;
                    memcpy(d + (j - 1) * 4, &f, 4);
                } else {
                    if (v != (lua_Number)(long long)v || v < ctypes[ty].lo || v > ctypes[ty].hi)
                        die("%s:%d: %s.%s.values[%lld] = %.17g: not an integer in the %s range", t->path, kl, where, k,
                            (long long)j, (double)v, ctypes[ty].name);
                    uint64_t u = (uint64_t)(long long)v;
                    for (int b = 0; b < c.elem; b++) d[(j - 1) * c.elem + b] = (uint8_t)(u >> (8 * b));
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
            c.data = d;
        } else {
            die("%s:%d: %s.%s: expected { type = \"int8\", values = {...} } or a string of bytes, got %s", t->path, kl,
                where, k, luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        total += c.n * c.elem;
        if (total > ((int64_t)64 << 20)) die("%s:%d: %s: more than 64 MiB of constants for one layer", t->path, kl, where);
        if (!strcmp(k, "w")) {          /* the weights in the engine's layout */
            if (c.elem != 1) die("%s:%d: %s.w: the weights are bytes (int8, uint8 or a string)", t->path, kl, where);
            ti->wlayout = (const int8_t *)c.data;
            ti->wlayout_bytes = (size_t)c.n;
        } else if (!strcmp(k, "b")) {   /* the biases the engine adds */
            if (ty != 3 || c.n != cd.K)
                die("%s:%d: %s.b: the biases are %d int32 values (one per output channel)", t->path, kl, where, cd.K);
            ti->bias = (const int32_t *)c.data;
        } else {
            ti->consts[ti->nconsts++] = c;
        }
    }
    lua_pop(L, 1);
}

TileSpec *target_tile_spec(Target *t, int engine, const Graph *g, const Op *op, const TileInfo *geo)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    lua_State *L = lt->L;
    const Engine *e = &t->engines[engine];
    const char *where = arena_printf("%s.ops.%s.tile", e->name, op_name(op->kind));
    TileSpec *ts = arena_alloc(sizeof *ts);
    expr_nodes = 0;
    /* the tile variables and the core's memory expressions */
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->tilevars_ref);
    lua_newtable(L);
    set_str(L, "geom", geo->geom);
    set_int(L, "in_h", geo->in_h); set_int(L, "in_w", geo->in_w);
    set_int(L, "k_h", geo->k_h); set_int(L, "k_w", geo->k_w);
    set_int(L, "s_h", geo->s_h); set_int(L, "s_w", geo->s_w);
    lua_pushboolean(L, geo->double_buffer);
    lua_setfield(L, -2, "double_buffer");
    lua_pushboolean(L, e->out_memory >= 0);
    lua_setfield(L, -2, "out_sep");
    if (tpcall(L, 1, 1) != LUA_OK) die("internal: tile variables: %s", lua_tostring(L, -1));
    int tv = lua_gettop(L);
    ts->l1_bytes = field_expr(lt, "l1_bytes", "internal: t");
    ts->w_bytes = field_expr(lt, "w_bytes", "internal: t");
    ts->core_l1 = ts->l1_bytes;
    ts->core_w = ts->w_bytes;
    ts->out_bytes = e->out_memory >= 0 ? field_expr(lt, "out_bytes", "internal: t") : NULL;
    ts->tied_c = !strcmp(geo->geom, "dw");
    /* the layer as plain numbers, plus the full sizes */
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->tile_ref[engine][op->kind]);
    lua_pushvalue(L, tv);
    push_op(L, g, op);
    static const char *names[TD_COUNT] = {"K", "C", "OY", "OX"};
    for (int i = 0; i < TD_COUNT; i++) set_int(L, names[i], geo->full[i]);
    set_int(L, "IY", geo->in_h);
    set_int(L, "IX", geo->in_w);
    if (tpcall(L, 2, 1) != LUA_OK)
        die("%s (in %s, for operator %d %s)", lua_error_line(L), where, op->src_index, op->src_name);
    int fref = lt->tile_ref[engine][op->kind];
    ts->where = arena_printf("%s:%d: %s", t->path, fn_key_line(lt, fref, NULL), where);
    if (!lua_istable(L, -1))
        die("%s must return a table { maximize = expr, ... }, got %s", ts->where, luaL_typename(L, -1));
    /* every key must be one the core reads: a typo is an error, not a
       default (maximise would silently maximise l1_bytes) */
    {
        static const char *const tile_keys[] = {"maximize", "minimize", "cycles", "dma_cycles", "w_dma_cycles",
                                                "constraints", "l1_bytes", "w_bytes", "out_bytes", "macs_per_cycle", NULL};
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
            if (!in_list(k, tile_keys))
                die("%s:%d: %s returned an unknown field '%s' (expected one of: maximize, minimize, cycles, dma_cycles, "
                    "w_dma_cycles, constraints, l1_bytes, w_bytes, out_bytes, macs_per_cycle)", t->path, fn_key_line(lt, fref, k), where, k);
        }
    }
#define AT(k) arena_printf("%s:%d: %s.%s", t->path, fn_key_line(lt, fref, k), where, k)
    rawfield(L, -1, "maximize");
    rawfield(L, -2, "minimize");
    int has_max = !lua_isnil(L, -2), has_min = !lua_isnil(L, -1);
    lua_pop(L, 2);
    if (has_max && has_min) die("%s:%d: %s returned both maximize and minimize", t->path, fn_key_line(lt, fref, "minimize"), where);
    ts->minimize = has_min;
    ts->where_obj = has_min ? AT("minimize") : has_max ? AT("maximize") : arena_printf("%s.maximize", ts->where);
    ts->maximize = has_min ? field_expr(lt, "minimize", AT("minimize")) : field_expr(lt, "maximize", AT("maximize"));
    if (!ts->maximize) ts->maximize = ts->l1_bytes;
    ts->where_cycles = AT("cycles");
    ts->cycles = field_expr(lt, "cycles", AT("cycles"));
    ts->dma_cycles = field_expr(lt, "dma_cycles", AT("dma_cycles"));
    ts->w_dma_cycles = field_expr(lt, "w_dma_cycles", AT("w_dma_cycles"));
    /* memory use the engine states itself (e.g. int32 accumulators in L1,
       weights in the activation memory); default: the core's t.l1_bytes
       (int8 tiles, double buffered) and t.w_bytes (int8 weights + int32 bias) */
    {
        Expr *l1 = field_expr(lt, "l1_bytes", AT("l1_bytes")), *wb = field_expr(lt, "w_bytes", AT("w_bytes"));
        if (l1) ts->l1_bytes = l1;
        if (wb) ts->w_bytes = wb;
        /* the core checks a stated size against its own (tile.c): a target
           may add to it, never shrink it */
        ts->where_l1 = l1 ? AT("l1_bytes") : arena_printf("%s.l1_bytes", ts->where);
        ts->where_w = wb ? AT("w_bytes") : arena_printf("%s.w_bytes", ts->where);
        Expr *ob = field_expr(lt, "out_bytes", AT("out_bytes"));
        if (ob && e->out_memory < 0)
            die("%s: the engine has no outputs memory (its output tiles are in %s, counted in l1_bytes)",
                AT("out_bytes"), t->memories[e->act_memory].name);
        if (ob) ts->out_bytes = ob;
        ts->where_out = ob ? AT("out_bytes") : arena_printf("%s.out_bytes", ts->where);
    }
    /* peak rate of this layer's op class (e.g. depthwise on one PE row), for the ideal */
    if (rawfield(L, -1, "macs_per_cycle") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) > 0 && lua_tonumber(L, -1) <= 1e9))
            die("%s: must be a number in (0, 1e9]", AT("macs_per_cycle"));
        ts->macs_per_cycle = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    ts->where_cons = AT("constraints");
    int tc = rawfield(L, -1, "constraints");
    if (tc != LUA_TTABLE && tc != LUA_TNIL) die("%s: expected a list { le(a, b), ... }", AT("constraints"));
    if (tc == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n > TILE_MAX_CONSTRAINTS) die("%s: %lld constraints, at most %d", AT("constraints"), (long long)n, TILE_MAX_CONSTRAINTS);
        ts->cons = arena_alloc(sizeof(Expr *) * (size_t)(n + 1));
        for (int i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            Expr *c = to_expr(lt, arena_printf("%s[%d]", AT("constraints"), i), 0);
            if (c->kind != EX_LE && c->kind != EX_GE && c->kind != EX_EQ)
                die("%s[%d]: expected le(a, b), ge(a, b) or eq(a, b)", AT("constraints"), i);
            ts->cons[ts->ncons++] = c;
            lua_pop(L, 1);
        }
    }
#undef AT
    lua_pop(L, 1);
    lua_settop(L, tv - 1);
    return ts;
}
