/* target_lua.h - what the four files that see Lua share (target.c,
   target_sandbox.c, target_param.c, target_call.c); passes include ir.h. */
#ifndef HTC_TARGET_LUA_H
#define HTC_TARGET_LUA_H

#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "ir.h"

#ifndef HTC_DATADIR
#define HTC_DATADIR "."
#endif

#define TARGET_MAX_PARAMS 64

/* The parameters a target file declares (param "name" { ... }), with the
   -D values they take: filled while the file runs (target_param.c). */
typedef struct {
    const TargetDefines *defines;
    int used[TARGET_MAX_DEFINES];   /* defines->value[i] was taken by a param */
    TargetParam params[TARGET_MAX_PARAMS];
    int n;
} ParamState;

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
    int band_ref;               /* cpu.band = function(b, op), or LUA_NOREF */
    int (*accepts_ref)[OP_COUNT];   /* per engine, per op kind: registry ref or LUA_NOREF */
    int (*tile_ref)[OP_COUNT];      /* per engine, per op kind: tile function */
    int (*const_ref)[OP_COUNT];     /* per engine, per op kind: constants function */
    int (*cost_ref)[OP_COUNT][2];   /* per engine, per op kind: cycles_per_mac / _elem functions */
    int call_ref[OP_COUNT];         /* cpu op kind: cycles = function(op, share), or LUA_NOREF */
    int fork_ref[OP_COUNT];         /* cpu op kind: fork = function(op), or LUA_NOREF */
    int tilevars_ref;               /* prelude: builds the tile variables of a layer */
    ParamState params;
} LoadedTarget;

/* t[k] without metamethods: reading a target runs none of its code */
static inline int rawfield(lua_State *L, int idx, const char *k)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

static inline int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0) return 1;
    return 0;
}

/* target.c: the target file's text, for file:line in messages */
int target_find_key(const char *src, size_t len, size_t from, const char *key, size_t *at);
int target_locate(const LoadedTarget *lt, const char *const *keys, int nkeys);
const char *target_requant_text(const RequantSet *rs);

/* target_sandbox.c: a Lua state within the limits (memory, instructions,
   CPU and wall-clock time), the sandbox's environment, protected calls */
/* Is path, after every symbolic link (realpath), inside directory root? */
int path_inside(const char *path, const char *root);
lua_State *sandbox_open(const char *path);
/* A fresh environment table holding only the safe globals, `target`,
   `include`, KiB and the tile prelude, at the top of the stack. */
void sandbox_push_env(lua_State *L);
/* lua_close within the limits */
void sandbox_close(lua_State *L);
/* Run the loaded chunk at the top (one result); an error ends htc. */
void sandbox_run(lua_State *L);
/* lua_pcall with file:line of the user's code in every error message */
int sandbox_pcall(lua_State *L, int nargs, int nres);
/* The error at the top of the stack as one line. */
const char *sandbox_error(lua_State *L);

/* target_param.c: env.param (the environment at the top of the stack),
   and the check, after the file ran, that every -D named a parameter */
void param_register(lua_State *L, ParamState *ps);
void param_check_used(const ParamState *ps, const char *path);

#endif
