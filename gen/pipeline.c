/* pipeline.c - the passes in order, for every command: read -> lower ->
   dispatch -> tile -> plan / cascades -> stack -> emit. */
#include <errno.h>
#include <string.h>

#include "ir.h"

Graph *read_model(const char *path, const ReadOptions *o)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open: %s", path, strerror(errno));
    unsigned char magic[8] = {0};
    size_t n = fread(magic, 1, 8, f);
    fclose(f);
    if (n >= 8 && memcmp(magic + 4, "TFL3", 4) == 0) return tflite_read(path, o);
    const char *dot = strrchr(path, '.');
    if (dot && !strcmp(dot, ".tflite")) return tflite_read(path, o);
    if (dot && !strcmp(dot, ".onnx")) return onnx_read(path, o);
    die("%s: not a TFLite model (no TFL3 identifier) nor a .onnx file", path);
}

static void after(const PipelineOptions *o, const Graph *g, const char *pass)
{
    if (o->debug && !strcmp(o->debug, pass)) dump_graph(stderr, g, pass);
}

Plan *pipeline(const PipelineOptions *o, Graph **gp, Target **tp)
{
    Graph *g = o->graph;
    if (!g) {
        g = read_model(o->model, &o->read);
        after(o, g, "read");
    }
    Target *t = target_load(o->target, o->defines);
    if (!o->graph) {
        lower(g);
        after(o, g, "lower");
    }
    dispatch(g, t);
    after(o, g, "dispatch");
    tile(g, t);
    Plan *p = cascade_plan(g, t, &o->cascade);
    plan_check(g, t, p);
    after(o, g, "plan");
    for (int i = 0; i < o->nstack; i++) {
        p->stack_cc[i] = o->stack_cc[i];
        stack_measure(g, t, p, &o->emit, i);
    }
    p->nstack = o->nstack;
    if (o->write_header) {
        FILE *f = out_open(o->emit.path);
        emit(f, g, t, p, &o->emit);
        out_commit(f);
    }
    *gp = g;
    *tp = t;
    return p;
}
