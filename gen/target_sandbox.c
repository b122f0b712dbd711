/* target_sandbox.c - the Lua state a target file runs in: the sandbox's
   environment (safe globals, target, include, the tile prelude), its limits
   and the protected calls every other target_*.c file makes. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "target_lua.h"

/* Limits: memory, instructions, CPU and wall-clock time.

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
#define LUA_STEPS 200000000L
#define LUA_CPU_SECONDS 10
#define LUA_WALL_SECONDS 60
#define WHERE_CAP 600

/* The sandbox's one state: the allocator and the signal handlers see it
   (they get no context of their own). */
static struct {
    long steps;
    size_t lua_used;
    lua_State *L;
    char mem_where[WHERE_CAP];          /* file:line of a refused allocation */
    char cpu_msg[WHERE_CAP + 200];      /* the whole error line for the CPU limit, kept current */
    char wall_msg[WHERE_CAP + 200];     /* and for the wall-clock limit */
    int cpu_seconds, wall_seconds;
    long cpu_left_us, wall_left_us;     /* -1: not started */
    int lua_depth;                      /* nesting of protected calls: the timer runs at depth 1 */
    int include_depth;
    const char **included;              /* every file an include ran, in order (--depfile) */
    int nincluded, capincluded;
} sandbox = {.cpu_seconds = LUA_CPU_SECONDS, .wall_seconds = LUA_WALL_SECONDS, .cpu_left_us = -1, .wall_left_us = -1};

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
    snprintf(sandbox.cpu_msg, sizeof sandbox.cpu_msg, "htc: error: %s: target file ran too long (over %d s of CPU in Lua, user + "
             "system: an endless loop or a runaway string function?)\n", w, sandbox.cpu_seconds);
    snprintf(sandbox.wall_msg, sizeof sandbox.wall_msg, "htc: error: %s: target file ran too long (over %d s of wall-clock time in "
             "Lua)\n", w, sandbox.wall_seconds);
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
        sandbox.lua_used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > LUA_MEMORY - sandbox.lua_used) {
        if (sandbox.L && !sandbox.mem_where[0]) lua_where(sandbox.L, sandbox.mem_where, sizeof sandbox.mem_where);
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) {
        if (sandbox.L && !sandbox.mem_where[0]) lua_where(sandbox.L, sandbox.mem_where, sizeof sandbox.mem_where);
        return NULL;
    }
    sandbox.lua_used = sandbox.lua_used - old + nsize;
    return p;
}

static void on_cpu_limit(int sig)
{
    die_async(sig == SIGALRM ? sandbox.wall_msg : sandbox.cpu_msg);
}

/* the timers run only while Lua does */
static void cpu_arm(void)
{
    if (sandbox.lua_depth++) return;
    if (sandbox.cpu_left_us < 0) sandbox.cpu_left_us = sandbox.cpu_seconds * 1000000L;
    if (sandbox.wall_left_us < 0) sandbox.wall_left_us = sandbox.wall_seconds * 1000000L;
    struct itimerval it = {{0, 0}, {sandbox.cpu_left_us / 1000000, sandbox.cpu_left_us % 1000000}};
    struct itimerval wt = {{0, 0}, {sandbox.wall_left_us / 1000000, sandbox.wall_left_us % 1000000}};
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
    if (--sandbox.lua_depth) return;
    sandbox.cpu_left_us = disarm(ITIMER_PROF);
    sandbox.wall_left_us = disarm(ITIMER_REAL);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    sandbox.steps += 100000;
    set_cpu_where(L);
    if (sandbox.steps < LUA_STEPS) return;
    (void)ar;
    char w[WHERE_CAP];
    if (!lua_where(L, w, sizeof w)) snprintf(w, sizeof w, "?");
    lua_pushfstring(L, "%s: target file ran too long (more than %d million Lua instructions: an endless loop?)", w,
                    (int)(LUA_STEPS / 1000000));
    lua_error(L);
}

/* string functions that run long in C (patterns, rep) note their caller's
   line first, for the CPU limit's message. Called from this C function,
   the original's own argument errors would name it '?': they name it
   (upvalue 2, "string.rep"). */
static int traced(lua_State *L)
{
    set_cpu_where(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0) != LUA_OK) {
        const char *m = lua_tostring(L, -1), *q = m ? strstr(m, " to '?'") : NULL;
        if (q && lua_type(L, -1) == LUA_TSTRING) {
            lua_pushfstring(L, "%s to '%s'%s", lua_pushlstring(L, m, (size_t)(q - m)), lua_tostring(L, lua_upvalueindex(2)),
                            q + 7);
            lua_replace(L, -3);
            lua_pop(L, 1);
        }
        return lua_error(L);
    }
    return lua_gettop(L);
}

static void trace_string_functions(lua_State *L)
{
    static const char *const fns[] = {"find", "match", "gmatch", "gsub", "rep", "format", NULL};
    lua_getglobal(L, "string");
    for (int i = 0; fns[i]; i++) {
        rawfield(L, -1, fns[i]);
        lua_pushfstring(L, "string.%s", fns[i]);
        lua_pushcclosure(L, traced, 2);
        lua_setfield(L, -2, fns[i]);
    }
    lua_pop(L, 1);
}

/* Message handler of every call into the target file: an error raised
   inside htc's own Lua helpers (the tile prelude: cdiv, min, operators on
   tile expressions) is reported at the user's calling line, the first
   frame of the stack that belongs to a target file. */
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
int sandbox_pcall(lua_State *L, int nargs, int nres)
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
    die("%s", sandbox_error(L));
}

int path_inside(const char *path, const char *root)
{
    char *real = realpath(path, NULL), *r = realpath(root, NULL);
    size_t rl = r ? strlen(r) : 0;
    int inside = real && r && (!strcmp(r, "/") || (!strncmp(real, r, rl) && real[rl] == '/'));
    free(real);
    free(r);
    return inside;
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
    "  -- the whole layer's DMA bytes and tile count at this tiling, as the report counts them\n"
    "  t.dma_bytes = node{op='v', name='dma_bytes'}; t.tiles = node{op='v', name='tiles'}\n"
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
    if (sandbox.include_depth >= INCLUDE_DEPTH) return luaL_error(L, "include '%s': more than %d nested includes", name, INCLUDE_DEPTH);
    size_t len;
    const char *text = (const char *)read_file(path, &len);
    if (luaL_loadbufferx(L, text, len, arena_printf("@%s", path), "t") != LUA_OK) return lua_error(L);
    lua_pushvalue(L, lua_upvalueindex(1));      /* the sandbox */
    lua_setupvalue(L, -2, 1);
    lua_pushboolean(L, 0);
    lua_setfield(L, cache, path);
    if (sandbox.nincluded == sandbox.capincluded) {
        sandbox.capincluded = sandbox.capincluded ? 2 * sandbox.capincluded : 16;
        const char **a = arena_alloc(sizeof(char *) * (size_t)sandbox.capincluded);
        if (sandbox.nincluded) memcpy(a, sandbox.included, sizeof(char *) * (size_t)sandbox.nincluded);
        sandbox.included = a;
    }
    sandbox.included[sandbox.nincluded++] = arena_strdup(path);
    sandbox.include_depth++;
    lua_call(L, 0, 1);
    sandbox.include_depth--;
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, cache, path);
    return 1;
}

int target_includes(const char *const **paths)
{
    *paths = sandbox.included;
    return sandbox.nincluded;
}

void sandbox_push_env(lua_State *L)
{
    lua_newtable(L);
    for (int i = 0; safe_globals[i]; i++) {
        lua_getglobal(L, safe_globals[i]);
        lua_setfield(L, -2, safe_globals[i]);
    }
    lua_pushcfunction(L, l_target);
    lua_setfield(L, -2, "target");
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

/* The error at the top of the stack as one line; the memory limit's
   error names the line that asked for more. */
const char *sandbox_error(lua_State *L)
{
    const char *m = lua_tostring(L, -1);
    if (sandbox.mem_where[0] && m && !strcmp(m, "not enough memory"))
        return arena_printf("%s: the target file needs more than %d MiB of Lua memory", sandbox.mem_where,
                            (int)(LUA_MEMORY >> 20));
    char *line = arena_strdup(m ? m : "error object is not a string");
    for (char *q = line; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = ' ';
    return line;
}


/* setmetatable without finalizers: a metatable holding a __gc field (any
   value marks the object) would run Lua during a garbage collection, which
   may start in C outside every protected call, or in lua_close after the
   limits (debug hooks do not run in finalizers). Every other use is the
   standard function's (upvalue 1). */
static int l_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: a metatable with __gc (a finalizer) is not available to target files "
                              "(it would run outside htc's time limits)");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* A new Lua state within the limits: the allocator, the panic handler,
   the timers' signals, the standard libraries (the environment keeps only
   string/table/math/utf8: io, os, load, require and debug are unreachable
   from the target file), the long-running string functions traced. */
lua_State *sandbox_open(const char *path)
{
    lua_State *L = lua_newstate(lua_alloc, NULL);
    if (!L) die("%s: cannot create a Lua state", path);
    sandbox.L = L;
    lua_atpanic(L, l_panic);
    const char *lim = getenv("HTC_LUA_SECONDS");
    if (lim && atoi(lim) > 0) {
        if (atoi(lim) < sandbox.cpu_seconds) sandbox.cpu_seconds = atoi(lim);
        if (atoi(lim) < sandbox.wall_seconds) sandbox.wall_seconds = atoi(lim);
    }
    set_limit_msgs(path);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_cpu_limit;
    sigaction(SIGPROF, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    luaL_openlibs(L);
    trace_string_functions(L);
    /* the one setmetatable, the target file's and the tile prelude's */
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    return L;
}

/* lua_close within the limits, as every other entry into Lua: nothing of
   the target file's should run there (no finalizers, above), and if it
   did, the timers would end it with one line. */
void sandbox_close(lua_State *L)
{
    cpu_arm();
    lua_close(L);
    cpu_disarm();
    if (sandbox.L == L) sandbox.L = NULL;
}

void sandbox_run(lua_State *L)
{
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 100000);
    if (sandbox_pcall(L, 0, 1) != LUA_OK) die("%s", sandbox_error(L));
}
