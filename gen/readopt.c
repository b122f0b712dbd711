/* readopt.c - the readers' options: --shape NAME=DIMS and --bind NAME=FILE
   parsed into a ReadOptions, and what a reader asks of them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

#define MAX_BINDS (OP_MAX_IO * 4)

void readopt_shape(ReadOptions *o, const char *v)
{
    const char *eq = strrchr(v, '=');
    if (!eq || eq == v || !eq[1]) die("--shape needs NAME=DIMS (e.g. input_1=1x49x10x1), got '%s'", v);
    if (o->nshapes == o->capshapes) {
        o->capshapes = o->capshapes ? 2 * o->capshapes : 16;
        InputShape *n = arena_alloc(sizeof *n * (size_t)o->capshapes);
        if (o->nshapes) memcpy(n, o->shapes, sizeof *n * (size_t)o->nshapes);
        o->shapes = n;
    }
    const char *name = arena_printf("%.*s", (int)(eq - v), v);
    for (int i = 0; i < o->nshapes; i++)
        if (!strcmp(o->shapes[i].name, name)) die("--shape: graph input '%s' is given twice", name);
    InputShape *s = &o->shapes[o->nshapes];
    int rank = 0;
    int64_t n = 1;
    for (const char *p = eq + 1;;) {
        char *end;
        errno = 0;
        long long d = (*p == '-' || (*p >= '0' && *p <= '9')) ? strtoll(p, &end, 10) : (end = (char *)p, -1);
        if (end == p || errno || (*end && *end != 'x'))
            die("--shape %s: '%s' is not a list of dimensions like 1x49x10x1", v, eq + 1);
        if (d < 1) die("--shape %s: dimension %d is %lld; dimensions must be at least 1", v, rank, d);
        if (rank == MAX_RANK) die("--shape %s: more than %d dimensions", v, MAX_RANK);
        if (d > INT32_MAX || (n *= d) > ((int64_t)1 << 30))
            die("--shape %s: too many elements (at most %lld)", v, (long long)1 << 30);
        s->dim[rank++] = d;
        if (!*end) break;
        p = end + 1;
    }
    s->name = name;
    s->rank = rank;
    o->nshapes++;
}

void readopt_bind(ReadOptions *o, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1]) die("--bind needs NAME=FILE, got '%s'", v);
    const char *name = arena_printf("%.*s", (int)(eq - v), v);
    if (!o->binds) o->binds = arena_alloc(sizeof *o->binds * MAX_BINDS);
    if (o->nbinds == MAX_BINDS) die("too many --bind options");
    for (int i = 0; i < o->nbinds; i++)
        if (!strcmp(o->binds[i].name, name)) die("--bind: graph input '%s' is bound twice", name);
    o->binds[o->nbinds].name = name;
    o->binds[o->nbinds++].file = eq + 1;
}

const int64_t *readopt_shape_of(const ReadOptions *o, char *used, const char *name, int *rank)
{
    for (int i = 0; i < o->nshapes; i++)
        if (!strcmp(o->shapes[i].name, name)) {
            used[i] = 1;
            *rank = o->shapes[i].rank;
            return o->shapes[i].dim;
        }
    return NULL;
}

void readopt_shapes_check(const ReadOptions *o, const char *used, const char *model)
{
    for (int i = 0; i < o->nshapes; i++)
        if (!used[i]) die("%s: --shape %s: the model has no graph input of that name", model, o->shapes[i].name);
}
