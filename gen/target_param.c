/* target_param.c - param "name" { ... } in a target file and the -D
   NAME=VALUE values it takes from the command line. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "target_lua.h"

/* local PES = param "pes" { default = 64, values = { 64, 128 },
                             description = "MAC units of the PE array" }
   declares a parameter and returns its value: the default, or what -D
   pes=VALUE on the command line gives (checked against the declaration:
   one of `values`, or within `min`..`max`, of the default's type). */
void target_define(TargetDefines *d, const char *nv)
{
    const char *eq = strchr(nv, '=');
    if (!eq || eq == nv) die("-D needs NAME=VALUE (a parameter of the target), got '%s'", nv);
    if (d->n == TARGET_MAX_DEFINES) die("too many -D options (at most %d)", TARGET_MAX_DEFINES);
    const char *name = arena_printf("%.*s", (int)(eq - nv), nv);
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->name[i], name)) die("-D %s is given twice", name);
    d->name[d->n] = name;
    d->value[d->n++] = arena_strdup(eq + 1);
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
    ParamState *ps = lua_touserdata(L, lua_upvalueindex(3));
    const TargetDefines *d = ps->defines;
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
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->params[i].name, name)) return param_error(L, "param '%s' is declared twice", name);
    if (ps->n == TARGET_MAX_PARAMS) return param_error(L, "too many parameters");
    TargetParam *p = &ps->params[ps->n];
    p->name = arena_strdup(name);
    p->line = line;
    p->file = arena_printf("%.*s", (int)(strrchr(where, ':') - where), where);
    p->description = arena_strdup(lua_tostring(L, 6));
    p->dflt = scalar_text(L, 2);
    lua_pushvalue(L, 2);                                        /* 7: the value */
    for (int i = 0; d && i < d->n; i++)
        if (!strcmp(d->name[i], name)) {
            ps->used[i] = 1;
            p->set = 1;
            lua_pop(L, 1);
            push_define(L, 2, name, d->value[i]);
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
    ps->n++;
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
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, l_param_spec, 3);
    return 1;
}

void param_register(lua_State *L, ParamState *ps)
{
    lua_pushlightuserdata(L, ps);
    lua_pushcclosure(L, l_param, 1);
    lua_setfield(L, -2, "param");
}

void param_check_used(const ParamState *ps, const char *path)
{
    const TargetDefines *d = ps->defines;
    for (int i = 0; d && i < d->n; i++)
        if (!ps->used[i]) {
            char list[512] = "";
            for (int k = 0; k < ps->n; k++) {
                if (k) strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, ps->params[k].name, sizeof list - strlen(list) - 1);
            }
            die("-D %s=%s: %s declares no parameter '%s' (%s%s)", d->name[i], d->value[i], path, d->name[i],
                ps->n ? "its parameters: " : "it has none", list);
        }
}
